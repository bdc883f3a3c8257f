#!/bin/sh
# SPDX-License-Identifier: MIT
# format.sh - tar2img --verity against veritysetup, for every codec built:
# `veritysetup verify` accepts the printed root hash with the tree
# appended (4 KiB blocks) and in a file of its own (1 KiB blocks), and
# `veritysetup format` of the image part with the same salt, UUID and
# sizes prints the same root hash and writes the same tree, byte for byte.
# Also: the same input twice (at -j 1 and -j 2) gives the same root hash;
# --verity-salt is used as given; --verity-no-superblock leaves the header
# out; an empty input (one data block, no hash level) verifies; dir2img
# --verity agrees with tar2img's, and sqpack-mksquashfs passes --verity on;
# the root hash file holds the hex line. EROFS images the same way
# (none and lz4; 4 KiB appended and 512 bytes apart, where the block 0
# that EROFS writes last spans 8 verity blocks; 64 KiB; -j 1 and -j 3),
# and their derived salt differs from SquashFS's.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
need_tool veritysetup
T=$SCRATCH
mksrc "$T" || exit 99

# veritysetup format of IMG's first DATA bytes with FMT_OPTS; the tree it
# writes must equal the bytes at TREE_OFF in TREE_FILE, its root $ROOT.
agree() {
	what=$1 img=$2 tree_file=$3 tree_off=$4; shift 4
	head -c "$DATA" "$img" > "$T/vs.data"
	rm -f "$T/vs.hash" # veritysetup writes into a file without truncating it
	if ! "$VERITYSETUP" format "$T/vs.data" "$T/vs.hash" "$@" > "$T/vs.out" 2>&1; then
		fail "$what: veritysetup format"; cat "$T/vs.out"; return
	fi
	check "$what: veritysetup format gives the same root hash" \
		grep -q "^Root hash:[[:space:]]*$ROOT\$" "$T/vs.out"
	tail -c +$((tree_off + 1)) "$tree_file" > "$T/ours.hash"
	check "$what: and writes the same tree, byte for byte" cmp -s "$T/vs.hash" "$T/ours.hash"
}

for codec in $ALL_CODECS; do
	codec_built "$codec" || { note "$codec not built: skipped"; continue; }
	img=$T/$codec.img
	run "$codec: tar2img --verity" "$TAR2IMG" -c "$codec" --verity \
		--verity-roothash "$T/$codec.roothash" "$img" "$T/src.tar" > "$T/sum" || continue
	vfields "$T/sum" || { fail "$codec: no verity line in the summary"; cat "$T/sum"; continue; }
	check "$codec: the tree follows the image padded to 4 KiB" \
		test "$HOFF" = "$DATA" -a $((DATA % 4096)) = 0
	check "$codec: the root hash file holds the hex line" \
		test "$(cat "$T/$codec.roothash")" = "$ROOT"
	check "$codec: veritysetup verify accepts the appended tree" \
		"$VERITYSETUP" verify "$img" "$img" "$ROOT" --hash-offset="$HOFF"
	agree "$codec, appended" "$img" "$img" "$HOFF" --salt="$SALT" \
		--uuid="$(vuuid "$img" "$HOFF")"

	# the tree in a file of its own, 1 KiB blocks
	run "$codec: tar2img --verity=FILE" "$TAR2IMG" -c "$codec" --verity="$img.hash" \
		--verity-block-size 1K -f "$img" "$T/src.tar" > "$T/sum" || continue
	vfields "$T/sum" || { fail "$codec: no verity line"; continue; }
	check "$codec: with a separate tree the image ends at the data" \
		test "$(stat -c %s "$img")" = "$DATA" -a "$HOFF" = 0
	check "$codec: veritysetup verify accepts the separate tree (1 KiB blocks)" \
		"$VERITYSETUP" verify "$img" "$img.hash" "$ROOT"
	agree "$codec, separate, 1 KiB" "$img" "$img.hash" 0 --salt="$SALT" \
		--uuid="$(vuuid "$img.hash" 0)" --data-block-size=1024 --hash-block-size=1024
done

# determinism: the derived salt and the root hash do not depend on -j
run "tar2img -j 1" "$TAR2IMG" -j 1 -c zstd --verity "$T/j1.img" "$T/src.tar" > "$T/sum1" &&
run "tar2img -j 2" "$TAR2IMG" -j 2 -c zstd --verity "$T/j2.img" "$T/src.tar" > "$T/sum2" &&
vfields "$T/sum1" && r1=$ROOT && vfields "$T/sum2" &&
check "the same input at -j 1 and -j 2 gives the same root hash" test "$r1" = "$ROOT" &&
check "and the same file" cmp -s "$T/j1.img" "$T/j2.img"

# a given salt, and no superblock
salt=0123456789abcdef
run "tar2img --verity-salt --verity-no-superblock" "$TAR2IMG" --verity --verity-salt "$salt" \
	--verity-no-superblock "$T/nosb.img" "$T/src.tar" > "$T/sum" && vfields "$T/sum" &&
check "--verity-salt is the salt used" test "$SALT" = "$salt" &&
check "veritysetup verify --no-superblock accepts it" "$VERITYSETUP" verify --no-superblock \
	--salt="$salt" --data-blocks="$BLOCKS" --hash-offset="$HOFF" "$T/nosb.img" "$T/nosb.img" "$ROOT" &&
agree "no superblock" "$T/nosb.img" "$T/nosb.img" "$HOFF" --no-superblock --salt="$salt"

# one data block: no hash level, the root is that block's digest
tar -cf "$T/empty.tar" -T /dev/null
run "tar2img --verity of an empty input" "$TAR2IMG" --verity "$T/empty.img" "$T/empty.tar" \
	> "$T/sum" && vfields "$T/sum" &&
check "one data block ($BLOCKS): veritysetup verify accepts it" \
	"$VERITYSETUP" verify "$T/empty.img" "$T/empty.img" "$ROOT" --hash-offset="$HOFF"

# dir2img shares the options: same tree as the tar of it, same root hash
# (the salt is derived from the same options and image time)
run "tar2img --image-time" "$TAR2IMG" --image-time 1700000000 --verity "$T/t.img" "$T/src.tar" \
	> "$T/sum" && vfields "$T/sum" && rt=$ROOT &&
run "dir2img --verity" "$SQP_BIN/dir2img" --image-time 1700000000 --verity "$T/d.img" \
	"$T/src" > "$T/sum" && vfields "$T/sum" &&
check "dir2img --verity: veritysetup verify accepts it" \
	"$VERITYSETUP" verify "$T/d.img" "$T/d.img" "$ROOT" --hash-offset="$HOFF" &&
check "dir2img and tar2img of the same tree give the same root hash" test "$rt" = "$ROOT"

# --progress=json: the final record carries the root hash and where the tree is
run "tar2img --verity --progress=json" "$TAR2IMG" --verity --progress=json "$T/p.img" \
	"$T/src.tar" > "$T/sum" 2> "$T/json" && vfields "$T/sum" &&
check "the final JSON record has the root hash, salt, data size and hash offset" \
	grep -q "\"ok\":true,\"verity_root_hash\":\"$ROOT\",\"verity_salt\":\"$SALT\",\"verity_data_bytes\":$DATA,\"verity_block_size\":4096,\"verity_hash_offset\":$HOFF}\$" "$T/json"

# sqpack-mksquashfs passes its --verity options on to dir2img
run "sqpack-mksquashfs --verity" "$SQP_BIN/sqpack-mksquashfs" "$T/src" "$T/m.img" \
	--verity --verity-roothash "$T/m.roothash" -no-progress > "$T/sum" && vfields "$T/sum" &&
check "sqpack-mksquashfs --verity: veritysetup verify accepts it" \
	"$VERITYSETUP" verify "$T/m.img" "$T/m.img" "$(cat "$T/m.roothash")" --hash-offset="$HOFF"

# EROFS: the same tree, over an image whose block 0 (superblock,
# compression configurations, the first inodes) is written last. At 512
# bytes that block is 8 verity blocks, all hashed as they end up.
for codec in none lz4; do
	[ "$codec" = none ] || codec_built "$codec" || { note "erofs $codec: not built"; continue; }
	img=$T/e-$codec.img
	run "erofs $codec: tar2img --verity" "$TAR2IMG" --format erofs -c "$codec" --verity \
		--verity-roothash "$T/e.roothash" "$img" "$T/src.tar" > "$T/sum" || continue
	vfields "$T/sum" || { fail "erofs $codec: no verity line in the summary"; cat "$T/sum"; continue; }
	check "erofs $codec: the tree follows the image padded to 4 KiB" \
		test "$HOFF" = "$DATA" -a $((DATA % 4096)) = 0
	check "erofs $codec: the root hash file holds the hex line" \
		test "$(cat "$T/e.roothash")" = "$ROOT"
	check "erofs $codec: veritysetup verify accepts the appended tree" \
		"$VERITYSETUP" verify "$img" "$img" "$ROOT" --hash-offset="$HOFF"
	agree "erofs $codec, appended" "$img" "$img" "$HOFF" --salt="$SALT" \
		--uuid="$(vuuid "$img" "$HOFF")"
	check "erofs $codec: imginfo verity accepts it (finding the tree itself)" \
		"$IMGINFO" verity "$img" "$ROOT"
	run "erofs $codec: tar2img --verity=FILE, 512-byte blocks" "$TAR2IMG" --format erofs \
		-c "$codec" --verity="$img.hash" --verity-block-size 512 -f "$img" "$T/src.tar" \
		> "$T/sum" || continue
	vfields "$T/sum" || { fail "erofs $codec: no verity line"; continue; }
	check "erofs $codec: veritysetup verify accepts the separate tree (512 bytes)" \
		"$VERITYSETUP" verify "$img" "$img.hash" "$ROOT"
	agree "erofs $codec, separate, 512 bytes" "$img" "$img.hash" 0 --salt="$SALT" \
		--uuid="$(vuuid "$img.hash" 0)" --data-block-size=512 --hash-block-size=512
done
run "erofs: tar2img -j 1" "$TAR2IMG" -j 1 --format erofs -c lz4 --verity "$T/ej1.img" \
	"$T/src.tar" > "$T/sum1" &&
run "erofs: tar2img -j 3" "$TAR2IMG" -j 3 --format erofs -c lz4 --verity "$T/ej3.img" \
	"$T/src.tar" > "$T/sum2" &&
vfields "$T/sum1" && r1=$ROOT && vfields "$T/sum2" &&
check "erofs: -j 1 and -j 3 give the same root hash" test "$r1" = "$ROOT" &&
check "erofs: and the same file" cmp -s "$T/ej1.img" "$T/ej3.img"
# 64 KiB verity blocks: the image is padded past its own block count
run "erofs: dir2img --verity, 64 KiB blocks" "$SQP_BIN/dir2img" --format erofs \
	--image-time 1700000000 --verity --verity-block-size 64K "$T/e64.img" "$T/src" \
	> "$T/sum" && vfields "$T/sum" &&
check "erofs: dir2img 64 KiB: veritysetup verify accepts it" \
	"$VERITYSETUP" verify --data-block-size=65536 --hash-block-size=65536 "$T/e64.img" \
	"$T/e64.img" "$ROOT" --hash-offset="$HOFF" && esalt=$SALT &&
run "squashfs: dir2img --verity, 64 KiB blocks" "$SQP_BIN/dir2img" \
	--image-time 1700000000 --verity --verity-block-size 64K "$T/s64.img" "$T/src" \
	> "$T/sum" && vfields "$T/sum" &&
check "an EROFS and a SquashFS image of one input get different salts" test "$esalt" != "$SALT"

# usage errors
"$TAR2IMG" --verity-block-size 4K "$T/u.img" "$T/src.tar" 2> "$T/err"
check "a --verity-* option without --verity is a usage error (2)" test $? = 2
"$TAR2IMG" --verity --verity-salt 12x4 "$T/u.img" "$T/src.tar" 2> "$T/err"
check "a salt that is not hex is a usage error (2)" test $? = 2
"$TAR2IMG" --verity --verity-block-size 3000 "$T/u.img" "$T/src.tar" 2> "$T/err"
check "a block size that is not a power of two is a usage error (2)" test $? = 2
check "and says what: 'PROGRAM: what: why'" grep -q '^tar2img: --verity-block-size' "$T/err"
finish
