#!/bin/sh
# SPDX-License-Identifier: MIT
# rewrite.sh - img2img keeps what it does not change: a rewrite without
# options reads equal to its base (imginfo diff and img2tar), for every
# codec built, and is the base's bytes when the base is ours; a layer
# that changes one file changes that file only; --delete leaves out
# what it matches and nothing else.
. "$top_srcdir/tests/lib/common.sh"
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
export SOURCE_DATE_EPOCH=1700000000

S=$SCRATCH/src
mkdir -p "$S/d/e" "$S/many" || exit 99
seq 1 300000 > "$S/big" &&
head -c 1000000 /dev/urandom > "$S/random" &&
for i in $(seq 1 200); do echo "small $i" > "$S/many/f$i"; done &&
echo "linked" > "$S/d/l1" && ln "$S/d/l1" "$S/d/e/l2" &&
ln -s ../big "$S/d/sym" && mkfifo "$S/d/fifo" &&
truncate -s 5M "$S/sparse" && echo tail >> "$S/sparse" &&
cp "$S/big" "$S/d/e/big-again" || exit 99
tar -C "$S" --sort=name -cf "$SCRATCH/src.tar" . || exit 99

for codec in $ALL_CODECS; do
	if ! codec_built "$codec"; then skipc "$codec not built"; continue; fi
	base=$SCRATCH/$codec.img out=$SCRATCH/$codec.out.img
	run "$codec: tar2img" "$TAR2IMG" -q -c "$codec" "$base" "$SCRATCH/src.tar" || continue
	run "$codec: img2img" "$IMG2IMG" -q "$out" "$base" || continue
	check "$codec: the rewrite reads equal to its base (imginfo diff)" \
		"$IMGINFO" diff "$base" "$out"
	"$IMG2TAR" "$base" > "$SCRATCH/a.tar" && "$IMG2TAR" "$out" > "$SCRATCH/b.tar" &&
	check "$codec: img2tar of the rewrite is img2tar of the base" \
		cmp "$SCRATCH/a.tar" "$SCRATCH/b.tar"
	check "$codec: the rewrite is no larger than its base" \
		test "$(stat -c %s "$out")" -le "$(stat -c %s "$base")"
	run "$codec: img2img -j 1" "$IMG2IMG" -q -j 1 "$SCRATCH/j1.img" "$base" &&
	check "$codec: the same bytes with -j 1 as with all CPUs" cmp "$out" "$SCRATCH/j1.img"
	rm -f "$SCRATCH/j1.img"
done

# One changed file, through a tar layer: the diff names it alone.
base=$SCRATCH/zstd.img
codec_built zstd || skip "zstd not built"
mkdir -p "$SCRATCH/layer/d/e" && echo changed > "$SCRATCH/layer/d/e/big-again" &&
tar -C "$SCRATCH/layer" -cf "$SCRATCH/layer.tar" d/e/big-again || exit 99
run "img2img with a tar layer" "$IMG2IMG" -q "$SCRATCH/one.img" "$base" "$SCRATCH/layer.tar" &&
{
	"$IMGINFO" diff "$base" "$SCRATCH/one.img" > "$SCRATCH/diff.out" 2>&1
	check "one changed file: the images differ" test $? = 1
	check "one changed file: the diff is that file only" \
		test "$(cut -d: -f1 "$SCRATCH/diff.out" | sort -u)" = "/d/e/big-again"
	check "one changed file: its new contents" \
		test "$("$IMGINFO" cat "$SCRATCH/one.img" d/e/big-again)" = changed
}
# A directory layer does the same (its directories' times aside).
run "img2img with a directory layer" "$IMG2IMG" -q "$SCRATCH/one-dir.img" "$base" \
	"$SCRATCH/layer" &&
check "a directory layer changes the same file" \
	"$IMGINFO" diff -q --ignore-mtime "$SCRATCH/one.img" "$SCRATCH/one-dir.img"

run "img2img --delete" "$IMG2IMG" -q --delete many --delete 'd/e/l2' \
	"$SCRATCH/del.img" "$base" &&
{
	"$IMGINFO" ls -R "$SCRATCH/del.img" > "$SCRATCH/del.ls" 2>&1
	check "--delete: the directory and the link are gone" \
		sh -c "! grep -Eq '(^| |/)(many|l2)(/|\$)' '$SCRATCH/del.ls'"
	"$IMGINFO" ls -R "$base" | grep -Ev '(^| |/)(many|l2)(/|$)' > "$SCRATCH/keep.ls"
	check "--delete: everything else is there" cmp "$SCRATCH/keep.ls" "$SCRATCH/del.ls"
}
finish
