#!/bin/sh
# SPDX-License-Identifier: MIT
# shards.sh - one build in N shards (dir2img and tar2img --shard I/N),
# merged by img2img --shards, is the one-pass image: a small tree with
# hard links across directories, xattrs on a file and a directory, a
# sparse file, an empty directory, a symlink, and files repeated in
# parts that fall in different shards, built in 1, 2, 3 and 7 shards:
# imginfo diff finds each merge equal to the one-pass image, its bytes
# used within 0.5% of that image's (repeated files stored once, tails
# packed anew), the kernel and unsquashfs read it as the tree; the same
# bytes for -j 1; a tar's shards (read twice: a pipe is refused) and
# EROFS shards (fsck.erofs and the kernel judge) too, lz4 and lzma (or
# zstd, or deflate), merged with no option, their files copied as
# stored (the summary counts them; the same bytes for -j 1), but for
# deflate shards whose window the merge's record would not cover, and
# with fragments, packed anew. Equal files in two shards share their
# stored blocks, never decoded; small files equal across shards,
# nominated by name or mtime, share their tails; a merge whose tables
# are a small part of it compresses them at the codec's fastest level
# (the kernel and unsquashfs read it); with --no-dedup every fragment
# block copied. --shard-plan's shards add up
# to the tree; sqpack-mksquashfs and sqpack-mkfs.erofs shard in their
# own spelling. Bad input exits 1 naming the reason and
# leaves no OUTPUT: a shard that is not an image, a truncated shard,
# two shards of overlapping parts, with --plan a shard missing or out
# of place; a shard of another codec or block size is converted.
# extras/parallel-shards.sh (which passes --plan) on this machine alone.
. "$top_srcdir/tests/lib/common.sh"
MERGE_OPTS=
DIR2IMG=${DIR2IMG:-$SQP_BIN/dir2img}
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
need_tool tar setfattr
umask 022
export SOURCE_DATE_EPOCH=1700000000

T=$(fast_dir) && S=$T/t || exit 99
# 16 KiB blocks: files of a few blocks and a tail stay small.
O="-q -c gzip -b 16K"
mkdir -p "$S/a/b" "$S/c" "$S/d/e/f" "$S/empty" "$S/m" || exit 99
i=1
while [ $i -le 12 ]; do
	head -c $((i * 2900)) /dev/urandom > "$S/a/f$i" || exit 99
	i=$((i + 1))
done
seq 1 9000 > "$S/b.txt" && echo small > "$S/a/b/s" &&
cp "$S/a/f7" "$S/c/copy7" && cp "$S/a/f12" "$S/m/copy12" && cp "$S/b.txt" "$S/d/e/b.copy" &&
ln "$S/a/f3" "$S/c/link3" && ln "$S/a/f3" "$S/m/link3b" && ln "$S/a/f5" "$S/d/e/f/link5" &&
truncate -s 300000 "$S/d/sparse" &&
printf 'data in the middle' | dd of="$S/d/sparse" bs=1 seek=150000 conv=notrunc 2>/dev/null &&
ln -s ../a/f1 "$S/c/sym" && chmod 700 "$S/d/e/f" && touch -d @1000000 "$S/a/b" || exit 99
setfattr -n user.k -v v1 "$S/a/f2" && setfattr -n user.d -v dd "$S/d/e" ||
	skip "this file system keeps no user.* xattrs"

used() { # IMAGE: the bytes it uses (before its padding)
	"$IMGINFO" "$1" | sed -n 's/^image size: *[0-9]* bytes (\([0-9]*\) used.*/\1/p'
}
# near WHAT A B: A within 0.5% of B.
near() {
	check "$1: $2 bytes used, one pass $3 (within 0.5%)" \
		test $(($2 * 1000)) -le $(($3 * 1005)) -a $(($2 * 1000)) -ge $(($3 * 995))
}
# shards KIND N IMAGE OPTIONS... -- INPUT: shards 1..N of INPUT by KIND
# (dir2img or tar2img) into $T/KIND.N.I, merged into IMAGE (img2img
# given $MERGE_OPTS too).
shards() {
	sh_kind=$1 sh_n=$2 sh_out=$3; shift 3
	sh_list= sh_i=1
	while [ $sh_i -le "$sh_n" ]; do
		run "$sh_kind shard $sh_i/$sh_n" "$@" --shard "$sh_i/$sh_n" \
			"$T/$sh_kind.$sh_n.$sh_i" "$IN" || return 1
		sh_list="$sh_list $T/$sh_kind.$sh_n.$sh_i"
		sh_i=$((sh_i + 1))
	done
	# shellcheck disable=SC2086
	run "img2img --shards of $sh_n $sh_kind shards" "$IMG2IMG" $MERGE_OPTS --shards "$sh_out" \
		$sh_list > "$sh_out.stats"
}

# shellcheck disable=SC2086
run "the one-pass image" "$DIR2IMG" $O "$T/one.img" "$S" || finish
ONE=$(used "$T/one.img")
IN=$S
for n in 1 2 3 7; do
	# shellcheck disable=SC2086
	shards dir2img $n "$T/m$n.img" "$DIR2IMG" $O || continue
	check "$n shards: imginfo diff finds the one-pass image" \
		"$IMGINFO" diff -q "$T/one.img" "$T/m$n.img"
	near "$n shards" "$(used "$T/m$n.img")" "$ONE"
	judge_same_tree "$n shards" kernel gzip "$T/m$n.img" "$S"
done
judge_same_tree "7 shards" unsquashfs gzip "$T/m7.img" "$S"

# The plan: 3 shards that add up to the tree (the merge above proves
# they are the parts the builds took).
"$DIR2IMG" --shard-plan 3 "$S" > "$T/plan" || fail "dir2img --shard-plan 3"
ent=$(awk 'NR > 1 { e += $2 } END { print e }' "$T/plan")
byt=$(awk 'NR > 1 { b += $3 } END { print b }' "$T/plan")
all=$(find "$S" | wc -l) data=$(find "$S" -type f -links 1 -printf '%s\n' |
	awk '{ b += $1 } END { print b }')
data=$((data + $(stat -c %s "$S/a/f3") + $(stat -c %s "$S/a/f5")))
check "--shard-plan 3: 3 shards of $ent entries, $byt bytes ($all entries, $data bytes)" \
	test "$(wc -l < "$T/plan")" = 4 -a "$ent" = "$all" -a "$byt" = "$data"

# The front ends, in their own spelling: sqpack-mksquashfs -shard I/N and
# -shard-plan N (SOURCE, no DEST), sqpack-mkfs.erofs --shard=I/N and
# --shard-plan=N (DIRECTORY, no IMAGE): the plan dir2img's, the merge of
# their shards their one pass.
MKSQ=$SQP_BIN/sqpack-mksquashfs MKEROFS=$SQP_BIN/sqpack-mkfs.erofs
check "sqpack-mksquashfs -shard-plan 3: dir2img's plan" \
	sh -c "'$MKSQ' '$S' -shard-plan 3 | cmp -s - '$T/plan'"
check "sqpack-mkfs.erofs --shard-plan=3: dir2img's plan" \
	sh -c "'$MKEROFS' --shard-plan=3 '$S' | cmp -s - '$T/plan'"
run "sqpack-mksquashfs: the one pass" "$MKSQ" "$S" "$T/mksq.one" -quiet -no-progress &&
run "sqpack-mksquashfs -shard 1/2" "$MKSQ" "$S" "$T/mksq.1" -shard 1/2 -quiet -no-progress &&
run "sqpack-mksquashfs -shard 2/2" "$MKSQ" "$S" "$T/mksq.2" -shard 2/2 -quiet -no-progress &&
run "their merge" "$IMG2IMG" -q --shards "$T/mksq.m" "$T/mksq.1" "$T/mksq.2" &&
check "sqpack-mksquashfs, 2 shards: imginfo diff finds its one pass" \
	"$IMGINFO" diff -q "$T/mksq.one" "$T/mksq.m"
"$MKSQ" "$S" "$T/mksq.1" -shard 1/2 -quiet -no-progress 2> "$T/mksq.err"
rc=$?
check "sqpack-mksquashfs -shard onto an existing DEST: exit 1 (got $rc): $(cat "$T/mksq.err")" \
	sh -c "test $rc = 1 && grep -q 'not an append' '$T/mksq.err'"
run "sqpack-mkfs.erofs: the one pass" "$MKEROFS" --quiet -zlz4 "$T/mkfs.one" "$S" &&
run "sqpack-mkfs.erofs --shard=1/2" "$MKEROFS" --quiet -zlz4 --shard=1/2 "$T/mkfs.1" "$S" &&
run "sqpack-mkfs.erofs --shard=2/2" "$MKEROFS" --quiet -zlz4 --shard=2/2 "$T/mkfs.2" "$S" &&
run "their merge" "$IMG2IMG" -q --shards "$T/mkfs.m" "$T/mkfs.1" "$T/mkfs.2" &&
check "sqpack-mkfs.erofs, 2 shards: imginfo diff finds its one pass" \
	"$IMGINFO" diff -q "$T/mkfs.one" "$T/mkfs.m"

# -j 1: the same shards, the same merge.
# shellcheck disable=SC2086
run "shard 2/3 with -j 1" "$DIR2IMG" $O -j 1 --shard 2/3 "$T/j1.2" "$S" &&
check "shard 2/3: the same bytes for -j 1" cmp -s "$T/j1.2" "$T/dir2img.3.2"
run "the merge of 3 with -j 1" "$IMG2IMG" -q -j 1 --shards "$T/m3.j1" \
	"$T/dir2img.3.1" "$T/dir2img.3.2" "$T/dir2img.3.3" &&
check "the merge: the same bytes for -j 1" cmp -s "$T/m3.img" "$T/m3.j1"
# --no-dedup: tails are repacked only to be shared, so every fragment
# block is copied as it is (it was decoded and packed anew).
frag_bytes() { "$IMGINFO" "$1" | sed -n 's/^fragments: *\([0-9]*\) bytes.*/\1/p'; }
run "the merge of 3 with --no-dedup" "$IMG2IMG" -q --no-dedup --shards "$T/m3.nd" \
	"$T/dir2img.3.1" "$T/dir2img.3.2" "$T/dir2img.3.3" &&
check "--no-dedup: imginfo diff finds the one-pass image" \
	"$IMGINFO" diff -q "$T/one.img" "$T/m3.nd" &&
fb=$(($(frag_bytes "$T/dir2img.3.1") + $(frag_bytes "$T/dir2img.3.2") + $(frag_bytes "$T/dir2img.3.3")))
check "--no-dedup: the shards' fragment blocks copied ($fb bytes; the merge's $(frag_bytes "$T/m3.nd"))" \
	test "$fb" = "$(frag_bytes "$T/m3.nd")"

# A tar's shards: its headers are read first, so it must be a file.
tar --xattrs --sparse --sort=name --format=pax -C "$S" -cf "$T/t.tar" . || exit 99
IN=$T/t.tar
# shellcheck disable=SC2086
run "tar2img: the one-pass image" "$TAR2IMG" $O "$T/tone.img" "$T/t.tar" &&
shards tar2img 3 "$T/tm3.img" "$TAR2IMG" $O &&
check "tar2img, 3 shards: imginfo diff finds the one-pass image" \
	"$IMGINFO" diff -q "$T/tone.img" "$T/tm3.img" &&
near "tar2img, 3 shards" "$(used "$T/tm3.img")" "$(used "$T/tone.img")"
cat "$T/t.tar" | "$TAR2IMG" -q --shard 1/2 "$T/pipe.img" 2> "$T/pipe.err"
rc=$?
check "tar2img --shard from a pipe: exit 1 (got $rc), no OUTPUT: $(cat "$T/pipe.err")" \
	sh -c "test $rc = 1 && grep -q 'not a pipe' '$T/pipe.err' && test ! -e '$T/pipe.img'"

# EROFS: shards and their merge, judged by fsck.erofs and the kernel.
# Built with inline tails and 16K pclusters, merged with no option: the
# merge takes the codec, pcluster size and inline tails the shards show,
# and every file of a shard that the codec compressed is copied as
# stored, not decoded (a shard of incompressible files alone says no
# codec, as an uncompressed image does: its files are tried again).
IN=$S
EO="--format erofs -c lz4 --ztailpacking --pcluster-size 16K" MERGE_OPTS=
codec_files() { # CODEC SHARD...: the files of those that CODEC compressed
	cf_codec=$1; shift
	for lf; do
		"$IMGINFO" "$lf" | awk -v c="$cf_codec" '$1 == "codec:" && $2 == c { z = 1 }
			/^  directories/ { f = $4 + 0 } END { print z ? f : 0 }'
	done | awk '{ n += $1 } END { print n }'
}
# copied WHAT STATS CODEC SHARD...: the merge's summary STATS counts as
# copied as stored every file of the SHARDs that CODEC compressed.
copied() {
	co_what=$1 co_stats=$2 co_codec=$3; shift 3
	co_n=$(codec_files "$co_codec" "$@")
	check "$co_what: the $co_n files of $co_codec shards copied as stored ($(grep -o '[0-9]* copied as stored' "$co_stats"))" \
		sh -c "test $co_n -gt 0 && grep -q ' $co_n copied as stored' '$co_stats'"
}
# shellcheck disable=SC2086
run "EROFS: the one-pass image" "$DIR2IMG" -q $EO "$T/one.erofs" "$S" &&
shards dir2img.erofs 3 "$T/m3.erofs" "$DIR2IMG" -q $EO &&
check "EROFS, 3 shards: imginfo diff finds the one-pass image" \
	"$IMGINFO" diff -q "$T/one.erofs" "$T/m3.erofs" &&
near "EROFS, 3 shards" "$(used "$T/m3.erofs")" "$(used "$T/one.erofs")" &&
copied "EROFS, 3 shards, merged with no option" "$T/m3.erofs.stats" lz4 \
	"$T/dir2img.erofs.3.1" "$T/dir2img.erofs.3.2" "$T/dir2img.erofs.3.3"
# fsck.erofs 1.5 extracts neither hard links nor xattrs; the kernel does
judge_same_tree "EROFS, 3 shards" fsck.erofs erofs "$T/m3.erofs" "$S" --no-xattrs --no-hardlinks
judge_same_tree "EROFS, 3 shards" kernel erofs "$T/m3.erofs" "$S"
# Their pclusters are copied in the kernel; into another file system (a
# tmpfs of its own) too, where copy_file_range would refuse (EXDEV) and
# the copier's pipe takes them across: the same image.
if mkdir "$T/xfs" && on_tmpfs "$T/xfs" 0755; then
	run "EROFS, the merge of 3 into another file system" "$IMG2IMG" -q --shards \
		"$T/xfs/m3.erofs" "$T/dir2img.erofs.3.1" "$T/dir2img.erofs.3.2" "$T/dir2img.erofs.3.3" &&
	check "EROFS, the merge into another file system: the same bytes" \
		cmp -s "$T/m3.erofs" "$T/xfs/m3.erofs"
else
	skipc "EROFS, a merge into another file system: cannot mount a tmpfs here"
fi
# A merge into a file system with room for half of it: the writer
# thread's copies of the shards' data fail there, behind the
# orchestrator's back, and the merge still says why, exits 1 and
# leaves nothing behind; both formats.
for fl in "m3.img dir2img.3" "m3.erofs dir2img.erofs.3"; do
	fl_out=${fl% *} fl_sh=${fl#* }
	fl_in="$T/$fl_sh.1 $T/$fl_sh.2 $T/$fl_sh.3"
	# shellcheck disable=SC2086
	fl_kb=$(($(cat $fl_in | wc -c) / 2048 / 4 * 4 + 4))
	if mkdir "$T/full.$fl_out" && [ "$(id -u)" = 0 ] &&
	   mount -t tmpfs -o "size=${fl_kb}k,mode=0755" tmpfs "$T/full.$fl_out" 2>/dev/null; then
		# shellcheck disable=SC2086
		"$IMG2IMG" -q --shards "$T/full.$fl_out/out" $fl_in > "$T/full.$fl_out.err" 2>&1
		fl_rc=$?
		check "$fl_out's shards merged into ${fl_kb} KiB: exit 1, 'No space', nothing left ($(tr -d '\n' < "$T/full.$fl_out.err"))" \
			sh -c "test $fl_rc = 1 && grep -qi 'no space' '$T/full.$fl_out.err' &&
				test -z \"\$(ls -A '$T/full.$fl_out')\""
		umount "$T/full.$fl_out"
	else
		skipc "$fl_out's shards merged into a full file system: cannot mount a tmpfs here"
	fi
done
# The other codecs' pclusters are copied as lz4's: lzma (else zstd, else
# deflate: the first the kernel here has), its dictionary the
# superblock's record; fsck.erofs 1.5 reads lz4 alone: the kernel
# judges. The same bytes for -j 1 and -j 2. (Its size is not held to
# the one pass's: 2 shards' inodes, placed in another order, may take
# a metadata block more, 1.4% of this image, copied or not.)
zc=
for c in lzma zstd deflate; do
	[ -z "$zc" ] && codec_built "$(echo $c | sed 's/deflate/gzip/')" && kernel_erofs_has $c && zc=$c
done
if [ -n "$zc" ]; then
	EO="--format erofs -c $zc --ztailpacking --pcluster-size 16K" MERGE_OPTS="-j 2"
	# shellcheck disable=SC2086
	run "EROFS $zc: the one-pass image" "$DIR2IMG" -q $EO "$T/onez.erofs" "$S" &&
	shards dir2img.z 2 "$T/m2z.erofs" "$DIR2IMG" -q $EO &&
	run "EROFS $zc, 2 shards: merged again with -j 1" "$IMG2IMG" -q -j 1 --shards \
		"$T/m2zj1.erofs" "$T/dir2img.z.2.1" "$T/dir2img.z.2.2" &&
	check "EROFS $zc, 2 shards: the same bytes for -j 1 and -j 2" cmp -s "$T/m2z.erofs" "$T/m2zj1.erofs" &&
	check "EROFS $zc, 2 shards: imginfo diff finds the one-pass image" \
		"$IMGINFO" diff -q "$T/onez.erofs" "$T/m2z.erofs" &&
	copied "EROFS $zc, 2 shards, merged with no option" "$T/m2z.erofs.stats" "$zc" \
		"$T/dir2img.z.2.1" "$T/dir2img.z.2.2"
	judge_same_tree "EROFS $zc, 2 shards" kernel erofs "$T/m2z.erofs" "$S"
else
	skipc "EROFS lzma, zstd or deflate shards: none built here that the kernel has"
fi
# Shards whose record asks more history than the merge's (deflate's
# 32K window, merged with -X window=12) are decoded and compressed
# again, not copied under a record that does not cover them.
EO="--format erofs -c deflate" MERGE_OPTS="-c deflate -X window=12"
if codec_built gzip; then
	# shellcheck disable=SC2086
	shards dir2img.w 2 "$T/m2w.erofs" "$DIR2IMG" -q $EO &&
	check "EROFS deflate shards of window 2^15, merged at 2^12: none copied ($(grep -o '[0-9]* copied as stored' "$T/m2w.erofs.stats"))" \
		grep -q ' 0 copied as stored' "$T/m2w.erofs.stats" &&
	check "EROFS deflate at 2^12: imginfo diff finds the one-pass image" \
		"$IMGINFO" diff -q "$T/one.erofs" "$T/m2w.erofs" &&
	if kernel_erofs_has deflate; then
		judge_same_tree "EROFS deflate at 2^12" kernel erofs "$T/m2w.erofs" "$S"
	else
		skipc "EROFS deflate at 2^12: the kernel's configuration has no EROFS deflate"
	fi
else
	skipc "EROFS deflate shards: no deflate (zlib) in this build"
fi
# Fragments (their tails decoded and packed anew) and dedup of files
# equal across shards; fsck.erofs 1.5 knows no fragments: the kernel.
EO="--format erofs -c lz4 --erofs-fragments --erofs-dedupe" MERGE_OPTS=$EO
# shellcheck disable=SC2086
run "EROFS, fragments: the one-pass image" "$DIR2IMG" -q $EO "$T/onef.erofs" "$S" &&
shards dir2img.erofsf 2 "$T/m2f.erofs" "$DIR2IMG" -q $EO &&
check "EROFS, fragments, 2 shards: imginfo diff finds the one-pass image" \
	"$IMGINFO" diff -q "$T/onef.erofs" "$T/m2f.erofs" &&
near "EROFS, fragments, 2 shards" "$(used "$T/m2f.erofs")" "$(used "$T/onef.erofs")"
judge_same_tree "EROFS, fragments, 2 shards" kernel erofs "$T/m2f.erofs" "$S"
MERGE_OPTS=

# A SquashFS merge takes its codec, with the options block's settings,
# and block size from the first shard (where EROFS merges read theirs
# from every shard, shard_opts.c): gzip level 3, window 2^12, 8K
# blocks, over a second shard at gzip's defaults (converted).
codec_of() { "$IMGINFO" "$1" | sed -n 's/^codec: *//p; s/^block size: *//p' | tr '\n' ' '; }
# shellcheck disable=SC2086
run "shard 1/2 at gzip level 3, window 12, 8K" "$DIR2IMG" -q -c gzip -X level=3,window=12 -b 8K \
	--shard 1/2 "$T/lv.1" "$S" &&
run "shard 2/2 at gzip's defaults, 8K" "$DIR2IMG" -q -c gzip -b 8K --shard 2/2 "$T/lv.2" "$S" &&
run "their merge" "$IMG2IMG" -q --shards "$T/lv.img" "$T/lv.1" "$T/lv.2" &&
check "a SquashFS merge: the first shard's codec and block size ($(codec_of "$T/lv.img"))" \
	test "$(codec_of "$T/lv.img")" = "gzip level=3 window=12 strategies=none (options block) 8192 " &&
check "that merge: imginfo diff finds the one-pass image" "$IMGINFO" diff -q "$T/one.img" "$T/lv.img"
# Another codec and block size: converted to the first shard's.
# shellcheck disable=SC2086
run "shard 2/2 in zstd, 32K blocks" "$DIR2IMG" -q -c zstd -b 32K --shard 2/2 "$T/z.2" "$S" &&
run "img2img --shards with it" "$IMG2IMG" -q --shards "$T/conv.img" "$T/dir2img.2.1" "$T/z.2" &&
check "a shard of another codec and block size, converted: the one-pass tree" \
	"$IMGINFO" diff -q "$T/one.img" "$T/conv.img"

# Two equal files of whole blocks, one in each shard: the second shares
# the first's stored blocks, found by their hash and proven by comparing
# the stored bytes, never decoded: nothing is hashed for deduplication.
mkdir -p "$T/eq/a" "$T/eq/b" && head -c 32768 /dev/urandom > "$T/eq/a/x" &&
	cp "$T/eq/a/x" "$T/eq/b/y" || exit 99
# shellcheck disable=SC2086
run "one pass of two equal files" "$DIR2IMG" $O "$T/eq.one" "$T/eq" &&
run "shard 1/2 of them" "$DIR2IMG" $O --shard 1/2 "$T/eq.1" "$T/eq" &&
run "shard 2/2 of them" "$DIR2IMG" $O --shard 2/2 "$T/eq.2" "$T/eq" &&
run "their merge" "$IMG2IMG" --shards "$T/eq.img" "$T/eq.1" "$T/eq.2" > "$T/eq.out" 2>&1 &&
check "equal files in two shards: the one-pass image, 2 blocks shared, none hashed: $(grep -h 'shared;\|hashed' "$T/eq.out" | tr -s ' \n' ' ')" \
	sh -c "'$IMGINFO' diff -q '$T/eq.one' '$T/eq.img' && grep -q ' 2 shared;' '$T/eq.out' &&
		grep -q ' 0 blocks and tails hashed' '$T/eq.out' &&
		test \$('$IMGINFO' '$T/eq.1' | grep -c '^entries: *3 names') = 1"

# Equal tails in two shards that weigh less stored (2000 bytes of one
# line, 33 bytes gzipped) than a thousandth of the shards: their
# fragment blocks are copied as they are, the tail kept twice, never
# compressed again (weighed decoded, 4000 bytes, they were repacked).
mkdir -p "$T/et/a" "$T/et/b" && head -c 65536 /dev/urandom > "$T/et/a/r" &&
	head -c 65536 /dev/urandom > "$T/et/b/s" &&
	yes abcdefgh | head -c 2000 > "$T/et/a/t" && cp "$T/et/a/t" "$T/et/b/u" || exit 99
# shellcheck disable=SC2086
run "one pass of two equal small files" "$DIR2IMG" $O "$T/et.one" "$T/et" &&
run "shard 1/2 of them" "$DIR2IMG" $O --shard 1/2 "$T/et.1" "$T/et" &&
run "shard 2/2 of them" "$DIR2IMG" $O --shard 2/2 "$T/et.2" "$T/et" &&
run "their merge" "$IMG2IMG" --shards "$T/et.img" "$T/et.1" "$T/et.2" > "$T/et.out" 2>&1 &&
check "equal tails light when stored: both fragment blocks copied ($(grep -ho '[0-9]* fragment blocks, [0-9]* tails shared' "$T/et.out"))" \
	sh -c "'$IMGINFO' diff -q '$T/et.one' '$T/et.img' &&
		grep -q ' 2 fragment blocks, 0 tails shared' '$T/et.out'"

# Files of a tail alone, equal across shards, that weigh more than a
# thousandth: the census decodes only the tails a file of the same size
# and the same name or mtime nominates, and those are shared. a/ in the
# first shard; b/ its copies under the same names, another mtime; c/
# under other names, a's mtime. Shared, 40 tails: the one pass's size.
mkdir -p "$T/nt/a" "$T/nt/b" "$T/nt/c" || exit 99
i=1
while [ $i -le 20 ]; do
	head -c $((1000 + i)) /dev/urandom > "$T/nt/a/f$i" &&
		cp "$T/nt/a/f$i" "$T/nt/b/f$i" && cp "$T/nt/a/f$i" "$T/nt/c/g$i" || exit 99
	i=$((i + 1))
done
touch -d @1500000000 "$T"/nt/a/* "$T"/nt/c/* && touch -d @1600000000 "$T"/nt/b/* || exit 99
IN=$T/nt
# shellcheck disable=SC2086
run "one pass of small files in three copies" "$DIR2IMG" $O "$T/nt.one" "$T/nt" &&
shards dir2img.nt 3 "$T/nt.img" "$DIR2IMG" $O &&
check "small files nominated by name or mtime: 40 tails shared ($(grep -ho '[0-9]* tails shared' "$T/nt.img.stats"))" \
	sh -c "'$IMGINFO' diff -q '$T/nt.one' '$T/nt.img' && grep -q ' 40 tails shared' '$T/nt.img.stats'" &&
near "small files in three copies, 3 shards" "$(used "$T/nt.img")" "$(used "$T/nt.one")"
IN=$S

# A merge whose tables are at most a 100th of its bytes compresses them
# at the codec's fastest level: gzip 1, where one pass takes gzip's
# default 9, as the zlib header of the inode table's first block says
# (its second byte: 01 at level 1, da at 9). These tables are about a
# 200th of the shards' bytes, which kept the level before the bound
# was a 100th.
mkdir -p "$T/tf/d" && head -c 150000 /dev/urandom > "$T/tf/r" || exit 99
i=1
while [ $i -le 60 ]; do
	echo "$i" > "$T/tf/d/f$i" || exit 99
	i=$((i + 1))
done
zlib_header() { # IMAGE: the first 2 bytes of its inode table's first block
	zh_at=$(od -An -t u8 -j 64 -N 8 "$1" | tr -d ' ')
	od -An -t x1 -j $((zh_at + 2)) -N 2 "$1" | tr -d ' \n'
}
# shellcheck disable=SC2086
run "one pass of a tree of mostly data" "$DIR2IMG" $O "$T/tf.one" "$T/tf" &&
run "shard 1/2 of it" "$DIR2IMG" $O --shard 1/2 "$T/tf.1" "$T/tf" &&
run "shard 2/2 of it" "$DIR2IMG" $O --shard 2/2 "$T/tf.2" "$T/tf" &&
run "their merge" "$IMG2IMG" -q --shards "$T/tf.img" "$T/tf.1" "$T/tf.2" &&
check "tables at most a 100th of the shards: the merge's at gzip level 1 ($(zlib_header "$T/tf.img")), one pass's at 9 ($(zlib_header "$T/tf.one"))" \
	test "$(zlib_header "$T/tf.img")" = 7801 -a "$(zlib_header "$T/tf.one")" = 78da &&
check "that merge: imginfo diff finds the one-pass image" "$IMGINFO" diff -q "$T/tf.one" "$T/tf.img" &&
near "that merge" "$(used "$T/tf.img")" "$(used "$T/tf.one")"
judge_same_tree "that merge" kernel gzip "$T/tf.img" "$T/tf"
judge_same_tree "that merge" unsquashfs gzip "$T/tf.img" "$T/tf"

# extras/parallel-shards.sh, with this machine as parallel's one host.
if command -v parallel > /dev/null 2>&1; then
	# shellcheck disable=SC2086
	SQPACK_BIN=$(cd "$SQP_BIN" && pwd) run "parallel-shards.sh -S : -n 3" \
		sh "$top_srcdir/extras/parallel-shards.sh" -S : -n 3 "$T/par.img" "$S" $O &&
	check "parallel-shards.sh: the one-pass image" "$IMGINFO" diff -q "$T/one.img" "$T/par.img"
else
	skipc "parallel-shards.sh: GNU parallel not installed"
fi

# bad MESSAGE-PATTERN WHAT SHARD...: img2img --shards exits 1, says why,
# leaves no OUTPUT.
bad() {
	bd_pat=$1 bd_what=$2; shift 2
	"$IMG2IMG" -q --shards "$T/bad.img" "$@" 2> "$T/bad.err"
	bd_rc=$?
	check "$bd_what: exit 1 (got $bd_rc), no OUTPUT: $(head -1 "$T/bad.err")" \
		sh -c "test $bd_rc = 1 && grep -q '$bd_pat' '$T/bad.err' && test ! -e '$T/bad.img'"
}
head -c 9000 "$T/dir2img.2.2" > "$T/trunc" && cp "$T/t.tar" "$T/not-an-image" || exit 99
bad "not a SquashFS or EROFS image" "a tar as a shard" "$T/dir2img.2.1" "$T/not-an-image"
bad "trunc" "a truncated shard" "$T/dir2img.2.1" "$T/trunc"
bad "the shards overlap" "shards 1/2 and 1/3 (overlapping)" "$T/dir2img.2.1" "$T/dir2img.3.1"
bad "the shards overlap" "shard 1/2 twice" "$T/dir2img.2.1" "$T/dir2img.2.1"
# --plan: the shards must be the plan's N, in order.
bad "plans 3 shards, 2 given: one is missing" "shards 1/3 and 2/3 alone, with --plan" \
	--plan "$T/plan" "$T/dir2img.3.1" "$T/dir2img.3.2"
bad "not shard 2/3 of" "shards 1/3, 3/3 and 2/3, with --plan" \
	--plan "$T/plan" "$T/dir2img.3.1" "$T/dir2img.3.3" "$T/dir2img.3.2"
bad "not the output of --shard-plan" "a plan that is not one" \
	--plan "$T/not-an-image" "$T/dir2img.3.1" "$T/dir2img.3.2" "$T/dir2img.3.3"
run "the 3 shards with --plan" "$IMG2IMG" -q --shards --plan "$T/plan" "$T/planned.img" \
	"$T/dir2img.3.1" "$T/dir2img.3.2" "$T/dir2img.3.3" &&
check "the 3 shards with --plan: the one-pass image" "$IMGINFO" diff -q "$T/one.img" "$T/planned.img"
finish
