#!/bin/sh
# SPDX-License-Identifier: MIT
# fragshare.sh - what -E fragments shares and packs as mkfs.erofs 1.9
# does. It shares compressed extents whenever it makes fragments (not
# only with -E dedupe): twins of random bytes over a pcluster, stored
# once, the second twin costing a few hundred bytes of image, with
# -E^fragdedupe too; and a file's rest that compresses into less than
# a pcluster, whatever its length, is its fragment: a text file of 200
# KB stores no block outside the packed inode. -Efragdedupe=off is
# read as full (mkfs.erofs 1.9's reading), with a warning. Each image:
# the same bytes at --workers 1 and 2, the kernel's mount reads the
# source, imginfo check finds no problem.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH

# rand (150 KB of random bytes, over two 64 KiB pclusters) and its
# twin; text (200 KB that lz4 packs into 20 KB); a small file,
# all of one time, which -T gives every inode.
mkdir "$T/src" && $PYTHON3 -c 'import random, sys
d = sys.argv[1]
r = random.Random(38)
def put(name, data):
    with open(d + "/" + name, "wb") as f:
        f.write(data)
rand = r.getrandbits(8 * 150000).to_bytes(150000, "little")
put("rand", rand)
put("text", b"".join(b"line %d of the text\n" % (i % 3000) for i in range(20000))[:200000])
put("small", b"a few words\n")
put("twin", rand)' "$T/src" 2> "$T/err" ||
	{ fail "make the tree: $(head -c 200 "$T/err")"; finish; }
touch -d @1600000000 "$T/src"/* "$T/src" || { fail "touch the tree"; finish; }
mkdir "$T/one" && cp -p "$T/src/rand" "$T/src/text" "$T/src/small" "$T/one/" ||
	{ fail "copy the tree without the twin"; finish; }

# stored IMAGE PATH: the bytes PATH stores outside the packed inode.
stored() { "$IMGINFO" stat "$1" "$2" | sed -n 's/.*, \([0-9]*\) bytes stored.*/\1/p'; }

for e in "fragments" "fragments,^fragdedupe"; do
	run "-E$e, --workers=1" "$MKFS" --quiet --workers=1 -zlz4 -C65536 -E$e -T1600000000 \
		"$T/w1.erofs" "$T/src" &&
		run "-E$e, --workers=2" "$MKFS" --quiet --workers=2 -zlz4 -C65536 -E$e -T1600000000 \
		"$T/w2.erofs" "$T/src" &&
		run "-E$e without the twin" "$MKFS" --quiet -zlz4 -C65536 -E$e -T1600000000 \
		"$T/one.erofs" "$T/one" || continue
	check "-E$e: the same bytes for --workers 1 and 2" cmp -s "$T/w1.erofs" "$T/w2.erofs"
	# With ^fragdedupe the twin's tail (64 KB: what is left once the
	# rest is a pcluster or less) is stored again: only its clusters
	# (86 KB) are shared.
	with=$(wc -c < "$T/w2.erofs") without=$(wc -c < "$T/one.erofs") tail=0
	[ "$e" = fragments ] || tail=65536
	check "-E$e: the twin shares rand's clusters ($with bytes, $without without it)" \
		test "$with" -le $((without + tail + 4096))
	check "-E$e: text wholly in the packed inode" test "$(stored "$T/w2.erofs" /text)" = 0
	judge_same_tree "-E$e" kernel erofs "$T/w2.erofs" "$T/src"
	check "-E$e: imginfo check finds no problem" "$IMGINFO" check -q "$T/w2.erofs"
done

# -Efragdedupe=off: full, as mkfs.erofs 1.9 reads it, and said.
if "$MKFS" --quiet -zlz4 -C65536 -Efragments,fragdedupe=off -T1600000000 "$T/off.erofs" "$T/src" \
	2> "$T/err"; then
	"$MKFS" --quiet -zlz4 -C65536 -Efragments,fragdedupe=full -T1600000000 "$T/full.erofs" "$T/src" ||
		fail "-Efragments,fragdedupe=full"
	check "-Efragdedupe=off gives fragdedupe=full's bytes" cmp -s "$T/off.erofs" "$T/full.erofs"
	check "-Efragdedupe=off: a warning says it is read as full" grep -q "read as full" "$T/err"
else
	fail "-Efragdedupe=off refused: $(head -c 200 "$T/err")"
fi
finish
