#!/bin/sh
# SPDX-License-Identifier: MIT
# coreos.sh - Fedora CoreOS's (and its live media's) mkfs.erofs line,
# -Eall-fragments,fragdedupe=inode -C1048576 -zlzma,level=6, as
# mkfs.erofs 1.9 means it: every file wholly in the packed inode, the
# ones over a pcluster too (no file stores blocks of its own), and a
# file equal to an earlier one shares its fragment. On files of several
# sizes with duplicates: the same bytes at --workers 1 and 2; the
# kernel's mount reads the source; fsck.erofs judges only where it reads
# a fragments image of mkfs.erofs's own (Debian's 1.5 refuses feature
# 0x20); -zX,level=N is -zX,N; ^all-fragments clears fragments too.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" od
codec_built lzma || skip "lzma not built"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
LINE="-Eall-fragments,fragdedupe=inode -C1048576 -zlzma,level=6"

# Text that lzma packs fast, a random part, sizes around a block and a
# pcluster; "big" is over a pcluster, dup_big and a/dup equal others.
$PYTHON3 -c 'import os, random, sys
d = sys.argv[1]
r = random.Random(39)
os.makedirs(d + "/a")
os.makedirs(d + "/b")
def put(name, data):
    with open(d + "/" + name, "wb") as f:
        f.write(data)
def text(n):
    return b"".join(b"line %d of %d\n" % (i, r.randrange(99)) for i in range(n // 8))[:n]
put("a/one", b"x")
put("a/small", text(100))
put("a/block", text(4096))
put("a/mid", text(5000))
put("b/big", text(1060000))
put("b/noise", bytes(r.randrange(256) for _ in range(60000)))
put("b/dup_big", open(d + "/b/big", "rb").read())
put("a/dup", open(d + "/a/mid", "rb").read())
put("empty", b"")
os.symlink("a/one", d + "/lnk")' "$T/src" || { fail "make the tree"; finish; }

# incompat_of IMAGE: the superblock's feature_incompat (1024 + 80).
incompat_of() { od -An -tu4 -j 1104 -N 4 "$1" | tr -d ' '; }
# stored IMAGE PATH: the bytes PATH stores outside the packed inode.
stored() { "$IMGINFO" stat "$1" "$2" | sed -n 's/.*, \([0-9]*\) bytes stored.*/\1/p'; }

# shellcheck disable=SC2086
run "the line, --workers=1" "$MKFS" --quiet --workers=1 $LINE "$T/w1.erofs" "$T/src" &&
	run "the line, --workers=2" "$MKFS" --quiet --workers=2 $LINE "$T/w2.erofs" "$T/src" ||
	finish
note "Fedora CoreOS's line: $(wc -c < "$T/w2.erofs") bytes"
check "the same bytes for --workers 1 and 2" cmp -s "$T/w1.erofs" "$T/w2.erofs"
check "the superblock says FRAGMENTS" test $(($(incompat_of "$T/w2.erofs") & 32)) -eq 32
for f in a/one a/mid b/big b/noise b/dup_big; do
	check "$f: wholly in the packed inode" test "$(stored "$T/w2.erofs" /$f)" = 0
done
judge_same_tree "Fedora CoreOS's line" kernel erofs "$T/w2.erofs" "$T/src"
check "imginfo check finds no problem" "$IMGINFO" check -q "$T/w2.erofs"

# fsck.erofs: a judge only when it reads Debian mkfs.erofs's own image
# of the line (1.5 refuses the line, or writes no fragments).
if command -v mkfs.erofs > /dev/null 2>&1 && judge_can fsck.erofs erofs; then
	# shellcheck disable=SC2086
	if ! mkfs.erofs --quiet $LINE "$T/peer.erofs" "$T/src" > "$T/err" 2>&1; then
		skipc "fsck.erofs: mkfs.erofs refuses the line: $(head -c 200 "$T/err")"
	elif [ $(($(incompat_of "$T/peer.erofs") & 32)) -eq 0 ]; then
		skipc "fsck.erofs: mkfs.erofs writes no fragments: nothing shows fsck.erofs reads them"
	elif fsck.erofs --extract="$T/probe" "$T/peer.erofs" > "$T/err" 2>&1; then
		judge_same_tree "Fedora CoreOS's line" fsck.erofs erofs "$T/w2.erofs" "$T/src"
	else
		skipc "fsck.erofs: it does not read mkfs.erofs's own image of the line"
	fi
fi

# Without all-fragments, big keeps its pclusters (lz4: where the data
# goes does not depend on the codec, and lzma takes seconds here): 64
# KiB ones, since at 1 MiB lz4 packs all of big into less than one,
# which makes it wholly a fragment, as in mkfs.erofs 1.9.
run "-Efragments" "$MKFS" --quiet -Efragments -C65536 -zlz4 "$T/f.erofs" "$T/src" &&
	check "-Efragments: big stores blocks of its own" test "$(stored "$T/f.erofs" /b/big)" -gt 0
# shellcheck disable=SC2086
run "the line on a/" "$MKFS" --quiet $LINE "$T/a.erofs" "$T/src/a" &&
	run "-zlzma,6" "$MKFS" --quiet -Eall-fragments,fragdedupe=inode -C1048576 -zlzma,6 \
	"$T/six.erofs" "$T/src/a" &&
	check "-zlzma,level=6 is -zlzma,6" cmp -s "$T/six.erofs" "$T/a.erofs"
run "^all-fragments" "$MKFS" --quiet -Eall-fragments -E^all-fragments -zlz4 "$T/off.erofs" "$T/src" &&
	check "^all-fragments: no fragments" test $(($(incompat_of "$T/off.erofs") & 32)) -eq 0
# fragdedupe=inode: lz4 finds no match 1 MB back, so only sharing the
# fragment keeps dup_big from being stored twice. mkfs.erofs shares
# fragments unless told -E^fragdedupe (its default is full): so does
# sqpack-mkfs.erofs.
run "lz4 with fragdedupe" "$MKFS" --quiet -Eall-fragments,fragdedupe=inode -zlz4 "$T/dd.erofs" "$T/src" &&
	run "lz4 without" "$MKFS" --quiet -Eall-fragments,^fragdedupe -zlz4 "$T/nodd.erofs" "$T/src" &&
	check "fragdedupe=inode: dup_big shares big's fragment ($(wc -c < "$T/dd.erofs") < $(wc -c < "$T/nodd.erofs") - 300000)" \
		test "$(wc -c < "$T/dd.erofs")" -lt $(($(wc -c < "$T/nodd.erofs") - 300000))
run "lz4, fragdedupe not named" "$MKFS" --quiet -Eall-fragments -zlz4 "$T/ddd.erofs" "$T/src" &&
	check "-Eall-fragments alone shares fragments, as mkfs.erofs's default does" \
		cmp -s "$T/ddd.erofs" "$T/dd.erofs"
judge_same_tree "fragdedupe=inode" kernel erofs "$T/dd.erofs" "$T/src"
finish
