#!/bin/sh
# SPDX-License-Identifier: MIT
# corrupt.sh - one flipped byte anywhere in a --verity image or its tree
# makes both `veritysetup verify` and `imginfo verity` fail; imginfo
# names the block, its offset and, for file data, the file. The clean
# image passes both first, so a verifier that refuses everything fails
# here too. SquashFS and EROFS images alike.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
need_tool veritysetup
T=$SCRATCH
mksrc "$T" || exit 99

# flip FILE POS: invert the byte at POS
flip() {
	$PYTHON3 -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 0xff]))' "$1" "$2"
}

# both_refuse WHAT IMG HASHFILE|"" POS: flip the byte at POS of the file
# named (the image, or the separate tree) in a copy; both must refuse.
both_refuse() {
	what=$1 img=$2 hfile=$3 pos=$4
	cp "$img" "$T/c.img" || exit 99
	if [ -n "$hfile" ]; then
		cp "$hfile" "$T/c.hash" || exit 99
		flip "$T/c.hash" "$pos"; set -- "$T/c.hash"; iarg="--hash-file=$T/c.hash"
	else
		flip "$T/c.img" "$pos"; set -- "$T/c.img" --hash-offset="$HOFF"; iarg=
	fi
	# veritysetup exits 2 and says which part failed verification
	"$VERITYSETUP" verify "$T/c.img" "$@" "$ROOT" > "$T/vs.out" 2>&1
	check "$what: veritysetup verify refuses it" test $? = 2 -a \
		-n "$(grep 'Verification .*failed' "$T/vs.out")"
	"$IMGINFO" verity $iarg "$T/c.img" "$ROOT" > "$T/ii.out" 2> "$T/ii.err"
	check "$what: imginfo verity refuses it" test $? = 1
}

img=$T/v.img
run "tar2img --verity" "$TAR2IMG" -c gzip --verity "$img" "$T/src.tar" > "$T/sum" &&
	vfields "$T/sum" || exit 1
check "clean: veritysetup verify accepts it" \
	"$VERITYSETUP" verify "$img" "$img" "$ROOT" --hash-offset="$HOFF"
check "clean: imginfo verity accepts it (finding the tree itself)" \
	"$IMGINFO" verity "$img" "$ROOT"
"$IMGINFO" verity "$img" 0000000000000000000000000000000000000000000000000000000000000000 \
	> /dev/null 2>&1
check "another root hash: imginfo verity refuses it" test $? = 1
"$IMGINFO" verity "$img" "$(echo "$ROOT" | sed 's/^./g/')" > /dev/null 2>&1
check "a root hash that is not hex is a usage error (2)" test $? = 2

# a byte of d/random's data: the block and the file are named
start=$("$IMGINFO" stat "$img" d/random | sed -n 's/^blocks: .*(start \([0-9]*\),.*/\1/p')
pos=$((start + 70000))
both_refuse "a byte of d/random's data" "$img" "" "$pos"
check "imginfo names the data block and its offset" \
	grep -q "^$T/c.img: data block $((pos / 4096)) at offset $((pos / 4096 * 4096)) " "$T/ii.out"
check "imginfo names the file" grep -q "holds data of 'd/random'" "$T/ii.out"

# a byte of the lowest level of the tree (its last block)
size=$(stat -c %s "$img")
both_refuse "a byte of the tree's lowest level" "$img" "" $((size - 3000))
check "imginfo names the hash block's level and offset" \
	grep -q "hash block [0-9]* of level 0 at offset $(((size - 3000) / 4096 * 4096)) " \
	"$T/ii.out"

# bytes spread over the image and the tree, the verity superblock's
# block aside (its UUID and padding are not hashed, by the format)
for i in 0 1 2 3 4 5 6; do
	pos=$((i * size / 7 + 11))
	[ "$pos" -ge "$HOFF" ] && [ "$pos" -lt $((HOFF + 4096)) ] && pos=$((HOFF + 4096 + 5))
	both_refuse "byte $pos of $size" "$img" "" "$pos"
done

# the tree in a file of its own: a byte of it, and one of the image
run "tar2img --verity=FILE" "$TAR2IMG" -c gzip --verity="$T/s.hash" "$T/s.img" "$T/src.tar" \
	> "$T/sum" && vfields "$T/sum" &&
check "separate: imginfo verity --hash-file accepts the clean pair" \
	"$IMGINFO" verity --hash-file "$T/s.hash" "$T/s.img" "$ROOT" &&
both_refuse "separate: a byte of the tree file" "$T/s.img" "$T/s.hash" 4200 &&
check "imginfo names the tree file" grep -q "of $T/c.hash does not match" "$T/ii.out"

# EROFS: a byte of its superblock (written last), of a file's data, of
# the tree, and spread over both
img=$T/e.img
run "erofs: tar2img --verity" "$TAR2IMG" --format erofs -c lz4 --verity "$img" "$T/src.tar" \
	> "$T/sum" && vfields "$T/sum" || exit 1
check "erofs clean: veritysetup verify accepts it" \
	"$VERITYSETUP" verify "$img" "$img" "$ROOT" --hash-offset="$HOFF"
check "erofs clean: imginfo verity accepts it" "$IMGINFO" verity "$img" "$ROOT"
both_refuse "erofs: a byte of the superblock" "$img" "" 1030
check "imginfo names block 0" grep -q "^$T/c.img: data block 0 at offset 0 " "$T/ii.out"
run "erofs: tar2img --verity, stored" "$TAR2IMG" --format erofs --verity "$T/es.img" \
	"$T/src.tar" > "$T/sum" && vfields "$T/sum" || exit 1
start=$("$IMGINFO" stat "$T/es.img" d/random | sed -n 's/^blocks: .*(start \([0-9]*\),.*/\1/p')
pos=$((start + 70000))
both_refuse "erofs: a byte of d/random's data" "$T/es.img" "" "$pos"
check "erofs: imginfo names the data block and its offset" \
	grep -q "^$T/c.img: data block $((pos / 4096)) at offset $((pos / 4096 * 4096)) " "$T/ii.out"
check "erofs: imginfo names the file" grep -q "holds data of 'd/random'" "$T/ii.out"
size=$(stat -c %s "$T/es.img")
both_refuse "erofs: a byte of the tree's lowest level" "$T/es.img" "" $((size - 3000))
for i in 1 3 5; do
	pos=$((i * size / 7 + 11))
	[ "$pos" -ge "$HOFF" ] && [ "$pos" -lt $((HOFF + 4096)) ] && pos=$((HOFF + 4096 + 5))
	both_refuse "erofs: byte $pos of $size" "$T/es.img" "" "$pos"
done
finish
