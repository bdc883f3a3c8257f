#!/bin/sh
# SPDX-License-Identifier: MIT
# fragends.sh - a fragment found inside an earlier one, as mkfs.erofs
# 1.9's fragdedupe=full finds it: where a new fragment ends as an
# earlier one does, it is stored as those bytes' offset in the packed
# inode. b_end is the last 5000 bytes of a_text (whole files, in the
# whole files' log); d_rand is c_rand from byte 70000 on, whose clusters
# are cut alike, so its tail is the end of c_rand's tail (the tail log);
# with -Eall-fragments both are whole files, each another's end. Either
# way the packed inode holds no byte more than without them; with
# -E^fragdedupe it does. e_short, an end too short to be searched (40
# bytes), is stored. Each image: the same bytes at --workers 1, 2 and 8,
# the kernel's mount reads the source, imginfo check finds no problem.
# Then the split of a file whose end is an earlier file's end for 64 KiB
# or more while its front differs (below).
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH

mkdir "$T/src" && $PYTHON3 -c 'import random, sys
d = sys.argv[1]
r = random.Random(39)
def put(name, data):
    with open(d + "/" + name, "wb") as f:
        f.write(data)
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
text = b"".join(b"%d: %s\n" % (i, " ".join(r.choice(words) for _ in range(6)).encode())
                for i in range(700))
rand = r.getrandbits(8 * 150000).to_bytes(150000, "little")
put("a_text", text)
put("b_end", text[-5000:])
put("c_rand", rand)
put("d_rand", rand[70000:])
put("e_short", text[-40:])' "$T/src" 2> "$T/err" ||
	{ fail "make the tree: $(head -c 200 "$T/err")"; finish; }
touch -d @1600000000 "$T/src"/* "$T/src" || { fail "touch the tree"; finish; }
mkdir "$T/one" && cp -p "$T/src/a_text" "$T/src/c_rand" "$T/src/e_short" "$T/one/" ||
	{ fail "copy the tree without the ends"; finish; }

# packed IMAGE: the bytes of fragments its packed inode holds.
packed() { "$IMGINFO" "$1" | sed -n 's/^packed inode: .*, \([0-9]*\) bytes of fragments.*/\1/p'; }

for e in fragments all-fragments; do
	mk() { "$MKFS" --quiet -zlz4 -C65536 -T1600000000 "$@"; }
	run "-E$e, --workers=1" mk --workers=1 -E$e "$T/w1.erofs" "$T/src" &&
		run "-E$e, --workers=2" mk --workers=2 -E$e "$T/w2.erofs" "$T/src" &&
		run "-E$e, --workers=8" mk --workers=8 -E$e "$T/w8.erofs" "$T/src" &&
		run "-E$e without the ends" mk -E$e "$T/one.erofs" "$T/one" &&
		run "-E$e,^fragdedupe" mk -E$e,^fragdedupe "$T/off.erofs" "$T/src" || continue
	check "-E$e: the same bytes for --workers 1 and 2" cmp -s "$T/w1.erofs" "$T/w2.erofs"
	check "-E$e: the same bytes for --workers 1 and 8" cmp -s "$T/w1.erofs" "$T/w8.erofs"
	with=$(packed "$T/w2.erofs") without=$(packed "$T/one.erofs") off=$(packed "$T/off.erofs")
	check "-E$e: the ends add no fragment bytes ($with, $without without them)" \
		test -n "$with" -a "$with" = "$without"
	check "-E$e,^fragdedupe: the ends are stored again ($off bytes)" \
		test -n "$off" -a "$off" -gt $((without + 5000))
	judge_same_tree "-E$e" kernel erofs "$T/w2.erofs" "$T/src"
	check "-E$e: imginfo check finds no problem" "$IMGINFO" check -q "$T/w2.erofs"
done

# The split (fragdedupe=full with -Eall-fragments): h_text ends with
# g_rand's last 200000 bytes after 40000 of text, i_rand with its last
# 150000 after 30000 random bytes; each keeps only that end, the
# earlier bytes, as its fragment, and its front is compressed (h) or
# stored as it is (i) in clusters. fragdedupe=inode shares whole files
# only: the ends are stored again.
mkdir "$T/split" && $PYTHON3 -c 'import random, sys
d = sys.argv[1]
r = random.Random(12)
g = r.getrandbits(8 * 300000).to_bytes(300000, "little")
text = b"".join(b"%d: front line\n" % i for i in range(3000))[:40000]
for name, data in (("g_rand", g), ("h_text", text + g[-200000:]),
                   ("i_rand", r.getrandbits(8 * 30000).to_bytes(30000, "little") + g[-150000:])):
    with open(d + "/" + name, "wb") as f:
        f.write(data)' "$T/split" 2> "$T/err" && touch -d @1600000000 "$T/split"/* "$T/split" ||
	{ fail "make the split tree: $(head -c 200 "$T/err")"; finish; }
mk() { "$MKFS" --quiet -zlz4hc -C65536 -T1600000000 "$@"; }
P193=${EROFS_UTILS_193:-/work/peers/erofs-utils}
if run "-Eall-fragments, --workers=1" mk --workers=1 -Eall-fragments "$T/s1.erofs" "$T/split" &&
   run "-Eall-fragments, --workers=2" mk --workers=2 -Eall-fragments "$T/s2.erofs" "$T/split" &&
   run "-Eall-fragments,fragdedupe=inode" mk -Eall-fragments,fragdedupe=inode "$T/si.erofs" \
	"$T/split"; then
	check "split: the same bytes for --workers 1 and 2" cmp -s "$T/s1.erofs" "$T/s2.erofs"
	with=$(packed "$T/s2.erofs") inode=$(packed "$T/si.erofs")
	check "split: the packed inode holds g_rand alone ($with bytes)" test "$with" = 300000
	check "fragdedupe=inode: the ends are stored again ($inode bytes)" test "$inode" = 720000
	check "split: a smaller image than fragdedupe=inode's" \
		test "$(wc -c < "$T/s2.erofs")" -lt $(($(wc -c < "$T/si.erofs") - 300000))
	judge_same_tree "split" kernel erofs "$T/s2.erofs" "$T/split"
	check "split: imginfo check finds no problem" "$IMGINFO" check -q "$T/s2.erofs"
	rm -rf "$T/x"
	run "split: img2dir" "$SQP_BIN/img2dir" -q "$T/s2.erofs" "$T/x" &&
		same_tree "split: img2dir reads the tree" "$T/x" "$T/split"
	if [ -x "$P193/fsck/fsck.erofs" ]; then
		"$P193/fsck/fsck.erofs" "$T/s2.erofs" > "$T/fsck.err" 2>&1 &&
			pass "split: fsck.erofs 1.9.3 checks it" ||
			fail "split: fsck.erofs 1.9.3 refuses it: $(grep -m1 -i err "$T/fsck.err")"
	else
		skipc "split: fsck.erofs 1.9.3: none at $P193"
	fi
fi
finish
