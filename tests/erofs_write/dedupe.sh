#!/bin/sh
# SPDX-License-Identifier: MIT
# dedupe.sh - EROFS dedup (--erofs-dedupe, mkfs.erofs's -E dedupe):
# a file equal to an earlier one shares its stored blocks (and, with
# fragments, its fragment), and a compressed file's cluster whose input
# an earlier pcluster holds names that pcluster (extent dedupe), never
# on a hash alone. The tree: twins of
# text (compressed), of random bytes (stored as they are) and of text
# over two 16 MiB segments and of words over three (whose segments' last
# clusters are held and re-cut across the seams: erofs_seam.c); a file
# equal to a twin's prefix and one of a twin's size with its first
# block and not its last (neither shares the file; compressed, the
# prefix shares its first extents); one over two segments equal to the
# big twins but in its last bytes (it shares its first segment's hash,
# not the file) and one equal to the three-segment twins but in the
# cluster held at its first seam (what dedup compares is what is
# stored, the re-cut's clusters too, so it shares no file and reads as
# its own; compressed, both keep the extents before the difference as
# extent dedupe's); the random twin
# again with an xattr that leaves its tail no room beside the inode
# (it needs a tail block the first twin lacks: stored; a third copy
# with that xattr shares with it); small equal files (whole fragments
# with --erofs-fragments). Per layout (none, lz4, lz4 ztailpacking,
# lz4 fragments, fragments + ztailpacking, 64 KiB pclusters): the twins
# start at the same block (imginfo stat), the others do not unless
# compressed as said, the fragments of equal small files are one; the same bytes at -j 1 and 3
# and spilled (--mem 1M); smaller than without dedupe (no larger with
# fragments, which share clusters as it does); the kernel's
# mount reads every file equal; imginfo check finds nothing;
# fsck.erofs where it reads the layout's mkfs.erofs image. With every
# hash cut to 1 bit (the writer's test hook), every file is nominated
# for every other: the image still reads as the source and refutations
# are counted. Near-twins (a twin's size and first block) listed before
# both twins hide neither from the other. sqpack-mkfs.erofs -Ededupe
# gives dir2img's bytes; tar2img and img2img share too. Extents alone
# (no file equal to another): a file that repeats a run of random
# blocks inside itself and files that begin with one long run of text
# (the third after other bytes: at another place relative to the cuts,
# which extent dedupe does not find, where mkfs.erofs 1.9 does); lz4
# with 4 KiB and 64 KiB pclusters: smaller than without dedupe by
# the repeats, the run shared, the same bytes for -j 1 and 2, read
# equal by the kernel, fsck.erofs and img2dir, imginfo check clean.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
DIR2IMG="$SQP_BIN/dir2img"
IMG2IMG="$SQP_BIN/img2img"
IMGINFO="$SQP_BIN/imginfo"
# SOURCE_DATE_EPOCH as dir2img reads it (mkfs.erofs 1.9 clamps the
# tree's times to it): the images compared are dir2img's.
MKFS=$(mkfs_build_time_only) || { fail "the mkfs.erofs wrapper"; finish; }
HOOKED="$top_builddir/tests/unit/hooked_tar2img"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

# Random bytes from a fixed seed, so that a failure can be replayed.
make_tree() {
	$PYTHON3 -c 'import os, random, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from words import lines
d, r = sys.argv[1], random.Random(26)
def rand(n): return r.getrandbits(8 * n).to_bytes(n, "little")
def text(n, salt=0):
    lines = (b"%08d line of text, %d\n" % (i, (i + salt) % 89) for i in range(n // 20 + 1))
    return b"".join(lines)[:n]
def put(name, data):
    with open(d + "/" + name, "wb") as f:
        f.write(data)
t, rnd, big = text(300000), rand(50000), text((17 << 20) + 5555)
put("a_twin1", t)
put("a_twin2", t)
put("b_prefix", t[:200000])
put("b_sameblock", t[:4096] + text(len(t) - 4096, 7))
put("c_rand1", rnd)
put("c_rand2", rnd)
put("c_rand3x", rnd)
put("c_rand4x", rnd)
put("d_big1", big)
put("d_big2", big)
put("d_big3", big[:(33 << 19)] + b"z" * 5000 + big[(33 << 19) + 5000:])
os.mkdir(d + "/small")
for i in range(6):
    put("small/s%d" % i, text(1500 + 10 * (i % 2)))
# Words (as seams.sh makes): clusters of many sizes, so the re-cut at
# a seam differs from the cut of each segment.
wr = random.Random(7)
words = [bytes(wr.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(wr.randint(2, 9)))
         for _ in range(400)]
seam = lines(wr, words, (32 << 20) + 3333)
put("f_seam1", seam)
put("f_seam2", seam)
put("f_seam3", seam[:(16 << 20) - 100] + b"Z" * 8 + seam[(16 << 20) - 92:])
# Of one size and all different: a hash cut short makes them collide.
os.mkdir(d + "/e")
for i in range(8):
    put("e/r%d" % i, rand(20000))
    put("e/t%d" % i, text(30000, i + 1))
    put("e/w%d" % i, text(3000, i + 1))
# The xattr leaves a tail of 848 bytes no room beside a 64-byte inode.
for n in ("c_rand3x", "c_rand4x"):
    os.setxattr(d + "/" + n, "user.big", b"x" * 3900)' "$1" "$top_srcdir/tests/lib"
}
mkdir -p "$T/src" && run "make the tree" make_tree "$T/src" || finish
# in name order, as dir2img reads the tree: twins before near-twins
# whatever order the directory lists them in
tar -C "$T/src" -cf "$T/src.tar" --sort=name --xattrs . 2> "$T/err" || fail "tar: $(head -c 200 "$T/err")"

# places IMAGE PATH...: one imginfo stat of the files named, kept as
# tab-separated "PATH START FRAGMENT" lines for place, shares and apart
# below (a process per file was 490 a run: under ASan, most of this
# script's time). START is the file's first data byte (empty for a file
# without blocks), FRAGMENT its fragment line.
places() {
	pc_img=$1; shift
	"$IMGINFO" stat "$pc_img" "$@" | awk -v OFS='\t' '
		/^path: / { p = substr($0, 7); s = ""; f = "" }
		/^blocks: / && match($0, /\(start [0-9]+,/) { s = substr($0, RSTART + 7, RLENGTH - 8) }
		/^fragment: / { f = substr($0, 11) }
		/^$/ && p != "" { print p, s, f; p = "" }
		END { if (p != "") print p, s, f }' > "$T/places"
}
# place PATH: sets pl_start and pl_frag from the last places.
place() {
	pl_line=$(awk -F '\t' -v p="$1" '$1 == p { print $2 "\t" $3; exit }' "$T/places")
	pl_start=${pl_line%%"$TAB"*} pl_frag=${pl_line#*"$TAB"}
}
TAB=$(printf '\t')
# shares WHAT A B: B's data starts where A's does (and with fragments,
# B's fragment is A's).
shares() {
	place "$2"; sh_a=$pl_start sh_fa=$pl_frag
	place "$3"; sh_b=$pl_start
	check "$1: $3 shares $2's blocks ($sh_a, $sh_b)" test -n "$sh_a" -a "$sh_a" = "$sh_b"
	check "$1: $3 has $2's fragment" test "$sh_fa" = "$pl_frag"
}
apart() {
	place "$2"; sh_a=$pl_start
	place "$3"; sh_b=$pl_start
	check "$1: $3 does not share $2's blocks ($sh_a, $sh_b)" test "$sh_a" != "$sh_b"
}
# starts WHAT A B: B's first extent names A's first pcluster (extent
# dedupe: B begins with A's first cluster's input).
starts() {
	place "$2"; sh_a=$pl_start
	place "$3"; sh_b=$pl_start
	check "$1: $3's first extent is $2's ($sh_a, $sh_b)" test -n "$sh_a" -a "$sh_a" = "$sh_b"
}
# near WHAT A B ZIP: B, equal to A in its first cluster, shares A's
# first extent when compressed (ZIP not empty), else none of A's blocks.
near() {
	if [ -n "$4" ]; then starts "$1" "$2" "$3"; else apart "$1" "$2" "$3"; fi
}
# the shares a layout must show (ZIP: empty uncompressed, 1 compressed,
# big with 64 KiB pclusters, whose first holds all of b_prefix: its
# input is not the twin's first pcluster's)
shares_all() {
	places "$2" /a_twin1 /a_twin2 /b_prefix /b_sameblock /c_rand1 /c_rand2 \
		/c_rand3x /c_rand4x /d_big1 /d_big2 /d_big3 /f_seam1 /f_seam2 /f_seam3 \
		/e/r0 /e/r1 /e/r2 /e/r3 /e/r4 /e/r5 /e/r6 /e/r7 \
		/e/t0 /e/t1 /e/t2 /e/t3 /e/t4 /e/t5 /e/t6 /e/t7
	shares "$1" /a_twin1 /a_twin2
	shares "$1" /c_rand1 /c_rand2
	shares "$1" /c_rand3x /c_rand4x
	shares "$1" /d_big1 /d_big2
	shares "$1" /f_seam1 /f_seam2
	near "$1" /a_twin1 /b_prefix "${3%big}"
	apart "$1" /a_twin1 /b_sameblock
	near "$1" /d_big1 /d_big3 "$3"
	near "$1" /f_seam1 /f_seam3 "$3"
	for sh_k in r t; do
		sh_n=$(for sh_i in 0 1 2 3 4 5 6 7; do
			place /e/$sh_k$sh_i
			echo "$pl_start $pl_frag"
		done | sort -u | wc -l)
		check "$1: the 8 files of one size e/$sh_k* share nothing ($sh_n places)" test "$sh_n" -eq 8
	done
}

# fsck.erofs judges a layout where it reads mkfs.erofs's own image made
# with the same options (fsck_ok OPTIONS...).
fsck_ok() {
	command -v mkfs.erofs > /dev/null 2>&1 && judge_can fsck.erofs erofs || return 1
	rm -rf "$T/probe" "$T/probe.erofs"
	mkfs.erofs --quiet "$@" "$T/probe.erofs" "$T/src/small" > "$T/err" 2>&1 &&
	fsck.erofs --extract="$T/probe" "$T/probe.erofs" > "$T/err" 2>&1
}

# ours|mkfs.erofs's options for fsck's probe
while IFS='|' read -r layout peer; do
	name="dedupe${layout:+ $layout}"
	img=$T/cur.erofs
	# shellcheck disable=SC2086
	# -j 1 spilled against -j 3 in memory: one comparison for both.
	"$DIR2IMG" -q -f -j 3 --format erofs $layout --erofs-dedupe "$img" "$T/src" 2> "$T/err" &&
	"$DIR2IMG" -f -j 1 --mem 1M --format erofs $layout --erofs-dedupe "$T/cur.m.erofs" \
		"$T/src" > "$T/mem.out" 2>> "$T/err" &&
	"$DIR2IMG" -q -f -j 2 --format erofs $layout "$T/plain.erofs" "$T/src" 2>> "$T/err" ||
		{ fail "$name: dir2img: $(head -c 300 "$T/err")"; continue; }
	check "$name: --mem 1M spills" grep -q "spilled to a temporary file" "$T/mem.out"
	check "$name: the same bytes for -j 1 spilled (--mem 1M) and -j 3" cmp -s "$T/cur.m.erofs" "$img"
	ours=$(wc -c < "$img") plain=$(wc -c < "$T/plain.erofs")
	# With fragments, equal files and clusters are shared without
	# --erofs-dedupe too, as mkfs.erofs 1.9 shares them.
	case $layout in
	*fragments*) check "$name: $ours bytes, no more than $plain without --erofs-dedupe" \
		test "$ours" -le "$plain";;
	*) check "$name: $ours bytes, smaller than $plain without dedupe" test "$ours" -lt "$plain";;
	esac
	case $layout in
	*pcluster-size*) zip=big;;
	?*) zip=1;;
	*) zip=;;
	esac
	shares_all "$name" "$img" $zip
	# With fragments the tails are no inode's: the xattr changes nothing.
	case $layout in
	*fragments*) ;;
	*) apart "$name" /c_rand1 /c_rand3x;; # (places of shares_all)
	esac
	judge_same_tree "$name" kernel erofs "$img" "$T/src"
	check "$name: imginfo check finds no problem" "$IMGINFO" check "$img"
	# An empty peer: no mkfs.erofs image shows fsck.erofs reads the
	# layout (Debian's 1.5 writes no fragments).
	if [ -n "$peer" ] && fsck_ok $peer; then
		judge_same_tree "$name" fsck.erofs erofs "$img" "$T/src" --no-xattrs --no-hardlinks
	else
		skipc "$name: fsck.erofs: no mkfs.erofs image here shows it reads this layout"
	fi
done <<EOF
|-zlz4
-c lz4|-zlz4
-c lz4 --ztailpacking|-zlz4 -Eztailpacking
-c lz4 --erofs-fragments|
-c lz4 --erofs-fragments --ztailpacking|
-c lz4 --pcluster-size 65536|-zlz4 -C65536
-c lz4 -X level=3 --pcluster-size 65536 --ztailpacking|-zlz4hc,3 -C65536 -Eztailpacking
EOF

# Fragments (the reader shows no fragment's offset, the summary counts
# them): 16 equal files each wholly a fragment, and 16 whose
# incompressible end is a tail fragment; each shares the first one's.
make_frags() {
	$PYTHON3 -c 'import random, sys
d, r = sys.argv[1], random.Random(5)
def rand(n): return r.getrandbits(8 * n).to_bytes(n, "little")
w = rand(4000)
t = b"".join(b"%08d line of text\n" % i for i in range(300))[:5000] + rand(3000)
for i in range(16):
    open(d + "/fw/w%d" % i, "wb").write(w)
    open(d + "/ft/t%d" % i, "wb").write(t)' "$1"
}
mkdir -p "$T/frag/fw" "$T/frag/ft" && run "make the fragment tree" make_frags "$T/frag" || finish
for sub in fw ft; do
	name="fragments, $sub"
	"$DIR2IMG" -f -j 2 --format erofs -c lz4 --erofs-fragments --erofs-dedupe "$T/f.erofs" \
		"$T/frag/$sub" > "$T/out" 2> "$T/err" || { fail "$name: dir2img: $(head -c 300 "$T/err")"; continue; }
	case $sub in
	fw) check "$name: 15 whole fragments shared" grep -q " 0 tails shared; 15 whole files shared" "$T/out";;
	ft) check "$name: 15 tail fragments shared" grep -q " 15 tails shared; 15 whole files shared" "$T/out";;
	esac
	judge_same_tree "$name" kernel erofs "$T/f.erofs" "$T/frag/$sub"
	check "$name: imginfo check finds no problem" "$IMGINFO" check "$T/f.erofs"
done

# Collisions: every hash cut to 1 bit, so that every file is nominated
# for every other of its kind and size; only the bytes decide.
if [ -x "$HOOKED" ]; then
	for set in "none|dedupe" "lz4|dedupe" "lz4|dedupe,fragments" "lz4|dedupe,ztailpacking"; do
		name="1-bit hashes, ${set%|*} ${set#*|}"
		if "$HOOKED" -P -H 1 -c "${set%|*}" -E "${set#*|}" "$T/h.erofs" "$T/src.tar" \
			> "$T/out" 2> "$T/err"; then
			judge_same_tree "$name" kernel erofs "$T/h.erofs" "$T/src"
			check "$name: imginfo check finds no problem" "$IMGINFO" check "$T/h.erofs"
			check "$name: hash matches were refuted" grep -q "[1-9][0-9]* refuted" "$T/out"
			shares_all "$name" "$T/h.erofs" $([ "${set%|*}" = lz4 ] && echo 1)
		else
			fail "$name: hooked_tar2img: $(head -c 300 "$T/err")"
		fi
	done
else
	skipc "tests/unit/hooked_tar2img not built: no collision checks"
fi

# Near-twins first: files of a twin's size and first block that differ
# later (d_big3, f_seam3, b_sameblock), listed before both twins, hide
# no twin: the second twin shares the first's blocks, found past the
# near-twin that was nominated first and refuted late.
tar -C "$T/src" -cf "$T/near.tar" --xattrs d_big3 d_big2 d_big1 f_seam3 f_seam2 f_seam1 \
	b_sameblock a_twin2 a_twin1 && mkdir "$T/near" && tar -xf "$T/near.tar" -C "$T/near" || exit 99
for codec in none lz4; do
	name="near-twins first, -c $codec"
	if "$TAR2IMG" -q -f --format erofs -c $codec --erofs-dedupe "$T/n.erofs" "$T/near.tar" 2> "$T/err"; then
		places "$T/n.erofs" /a_twin1 /a_twin2 /b_sameblock /d_big1 /d_big2 /d_big3 \
			/f_seam1 /f_seam2 /f_seam3
		for twin in a_twin d_big f_seam; do
			shares "$name" /${twin}2 /${twin}1
		done
		near "$name" /d_big3 /d_big2 $([ $codec = lz4 ] && echo 1)
		near "$name" /f_seam3 /f_seam2 $([ $codec = lz4 ] && echo 1)
		apart "$name" /b_sameblock /a_twin2
		judge_same_tree "$name" kernel erofs "$T/n.erofs" "$T/near"
		check "$name: imginfo check finds no problem" "$IMGINFO" check "$T/n.erofs"
	else
		fail "$name: tar2img: $(head -c 300 "$T/err")"
	fi
done

# Extents alone: no file equals another. x/rep holds a run of 16 random
# blocks three times at block boundaries (stored as they are, cut
# alike each time); x/run1 and x/run2 begin with the same 400 KB of
# text (cut alike), x/run3 has it after 12345 other bytes (cut
# otherwise: not found, see the head).
make_extents() {
	$PYTHON3 -c 'import random, sys
d, r = sys.argv[1], random.Random(11)
def text(n, salt):
    return b"".join(b"%08d extent of text, %d\n" % (i, (i * 7 + salt) % 97) for i in range(n // 20 + 1))[:n]
run, rnd = text(400000, 1), r.getrandbits(8 << 16).to_bytes(1 << 16, "little")
def put(name, data):
    with open(d + "/" + name, "wb") as f:
        f.write(data)
put("rep", text(40960, 2) + rnd + text(8192, 3) + rnd + rnd + text(5000, 4))
put("run1", run + text(50000, 5))
put("run2", run + text(70000, 6))
put("run3", text(12345, 7) + run)' "$1"
}
mkdir -p "$T/x" && run "make the extents' tree" make_extents "$T/x" || finish
# pcluster size:bytes saved at least:options (4 KiB: both random copies
# and the text run; 64 KiB: a pcluster holds some 250 KB of text, the
# run's first one alone is cut alike; with fragments, the end of rep,
# whose indexes are full, is one: its last head says the upper half of
# the fragment's offset; 0: fragments share clusters without
# --erofs-dedupe too)
for row in 4096:163840: 65536:49152: "4096:0:--erofs-fragments --ztailpacking"; do
	pc=${row%%:*} least=${row#*:} opts=${least#*:} least=${least%%:*}
	name="extent dedupe, lz4, $pc-byte pclusters${opts:+ $opts}"
	# shellcheck disable=SC2086
	"$DIR2IMG" -q -f -j 2 --format erofs -c lz4 --pcluster-size $pc $opts --erofs-dedupe \
		"$T/x.erofs" "$T/x" 2> "$T/err" &&
	"$DIR2IMG" -q -f -j 1 --format erofs -c lz4 --pcluster-size $pc $opts --erofs-dedupe \
		"$T/x1.erofs" "$T/x" 2>> "$T/err" &&
	"$DIR2IMG" -q -f -j 2 --format erofs -c lz4 --pcluster-size $pc $opts "$T/x0.erofs" "$T/x" \
		2>> "$T/err" ||
		{ fail "$name: dir2img: $(head -c 300 "$T/err")"; continue; }
	check "$name: the same bytes for -j 1 and 2" cmp -s "$T/x1.erofs" "$T/x.erofs"
	ours=$(wc -c < "$T/x.erofs") plain=$(wc -c < "$T/x0.erofs")
	check "$name: $ours bytes, at least $least fewer than $plain without dedupe" \
		test $((plain - ours)) -ge "$least"
	places "$T/x.erofs" /run1 /run2
	starts "$name" /run1 /run2
	judge_same_tree "$name" kernel erofs "$T/x.erofs" "$T/x"
	if [ -z "$opts" ]; then
		judge_same_tree "$name" fsck.erofs erofs "$T/x.erofs" "$T/x"
	else
		skipc "$name: fsck.erofs: Debian's 1.5 reads no fragments"
	fi
	rm -rf "$T/xo" && run "$name: img2dir" "$SQP_BIN/img2dir" "$T/x.erofs" "$T/xo" &&
		same_tree "$name: img2dir reads the tree" "$T/xo" "$T/x"
	check "$name: imginfo check finds no problem" "$IMGINFO" check "$T/x.erofs"
done

# Full indexes leave a long file's inline tail no room (484 logical
# clusters: 3,952 bytes of record before it, its last pcluster 2,556
# bytes): it goes to a block instead, where compact indexes had left it
# room (inline, the kernel refuses it: "Structure needs cleaning").
make_long() {
	$PYTHON3 -c 'import random, sys
r = random.Random(12)
rnd = r.getrandbits(8 << 16).to_bytes(1 << 16, "little")
t = b"".join(b"%08d some text here %d\n" % (i, i % 13) for i in range(95000))
open(sys.argv[1] + "/long", "wb").write(t[:1850000] + rnd + rnd + t[:1000])' "$1"
}
name="extent dedupe, lz4 --ztailpacking, full indexes"
mkdir -p "$T/l" && run "make the long file" make_long "$T/l" &&
"$DIR2IMG" -q -f -j 2 --format erofs -c lz4 --ztailpacking --erofs-dedupe "$T/l.erofs" "$T/l" \
	2> "$T/err" &&
"$DIR2IMG" -q -f -j 2 --format erofs -c lz4 --ztailpacking "$T/l0.erofs" "$T/l" 2>> "$T/err" ||
	fail "$name: dir2img: $(head -c 300 "$T/err")"
check "$name: smaller than without dedupe" test "$(wc -c < "$T/l.erofs")" -lt "$(wc -c < "$T/l0.erofs")"
judge_same_tree "$name" kernel erofs "$T/l.erofs" "$T/l"
check "$name: imginfo check finds no problem" "$IMGINFO" check "$T/l.erofs"

# sqpack-mkfs.erofs's spelling gives dir2img's bytes.
"$DIR2IMG" -q --format erofs -c lz4 --ztailpacking --erofs-dedupe "$T/d.erofs" "$T/src" 2> "$T/err" ||
	fail "dir2img --erofs-dedupe: $(head -c 300 "$T/err")"
if "$MKFS" --quiet -zlz4 -Eztailpacking,dedupe "$T/k.erofs" "$T/src" 2> "$T/err"; then
	check "sqpack-mkfs.erofs -zlz4 -Eztailpacking,dedupe gives dir2img's bytes" cmp -s "$T/k.erofs" "$T/d.erofs"
else
	fail "sqpack-mkfs.erofs -Ededupe: $(head -c 300 "$T/err")"
fi

# tar2img, and img2img from a SquashFS image without unpacking it.
for tool in tar2img img2img; do
	case $tool in
	tar2img) "$TAR2IMG" -q --format erofs -c lz4 --erofs-dedupe "$T/t.erofs" "$T/src.tar" 2> "$T/err";;
	img2img) "$DIR2IMG" -q -c lz4 "$T/ref.sqfs" "$T/src" 2> "$T/err" &&
		 "$IMG2IMG" -q -f --format erofs -c lz4 --erofs-dedupe "$T/t.erofs" "$T/ref.sqfs" 2>> "$T/err";;
	esac || { fail "$tool --erofs-dedupe: $(head -c 300 "$T/err")"; continue; }
	shares_all "$tool" "$T/t.erofs" 1
	judge_same_tree "$tool" kernel erofs "$T/t.erofs" "$T/src"
done
finish
