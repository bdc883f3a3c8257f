#!/bin/sh
# SPDX-License-Identifier: MIT
# smallblocks.sh - compressed EROFS files in blocks of 1024 and 2048
# bytes (sqpack-mkfs.erofs -b, as mkfs.erofs 1.9.3 takes it; Linux 6.x
# mounts blocks below its page size). For each codec built (lz4, lz4hc,
# lzma, deflate, zstd), a tree with xattrs, a hard link, a hole, files
# larger than a cluster and tails of every length is packed twice:
# -b1024 with big pclusters (-C4096) and -Eztailpacking, -b2048 with
# -Efragments, -Ededupe and --chunksize (what does not compress is
# chunk based). Each image says its block size in the superblock, passes
# imginfo check, and reads as the source through the kernel's mount,
# img2dir and fsck.erofs 1.9.3 (EROFS_UTILS_193, where built), the last
# codec's through sqpack-fuse too (where FUSE mounts as root); Debian's
# fsck.erofs 1.5 refuses every block size but its page size, which is
# counted as a skip. lz4hc and lzma are no larger than mkfs.erofs
# 1.9.3's for the same line, the bytes are the same for --workers=1 and
# 2, and SOURCE_DATE_EPOCH gives the same bytes whenever the tree was
# made; dir2img --format erofs -c lz4 -b 1K writes -b1024 -zlz4's
# bytes. -b512 once, with lz4hc. --tar=headerball -b1024 reads through
# the kernel as the tree's sizes, all zeros; --tar=i -b2048 is --tar=i's
# bytes (the tar's 512-byte blocks, as in mkfs.erofs), and tar2img
# --index takes -b 512 and refuses -b 1K. A root too wide for block
# 0's room at -b1024 still lets its inodes start there. --MZ (the inodes in a zone
# after the data) reads as the source everywhere, as mkfs.erofs 1.9.3's
# --MZ image does through our readers. img2img converts a -b512 image
# to -b 2K and keeps its 512 without -b. (A size that is not whole
# blocks is refused in mkfsopts.sh.)
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
P193=${EROFS_UTILS_193:-/work/peers/erofs-utils}
T=$SCRATCH

# Random bytes from a fixed seed, so that a failure can be replayed.
"$PYTHON3" - "$T/src" << 'EOF' || { fail "making the tree"; finish; }
import os, random, sys
d, r = sys.argv[1], random.Random(39)
os.makedirs(d + "/d")
def text(n, k=0):
    lines = (b"%06d line %d of the tree\n" % (i, (i * 7 + k) % 97) for i in range(n // 20 + 1))
    return b"".join(lines)[:n]
def put(name, data):
    with open(d + "/" + name, "wb") as f:
        f.write(data)
put("text", text(70001))                            # clusters and a tail
put("d/copy", text(70001))                          # -Ededupe's
put("rand", r.getrandbits(8 * 9000).to_bytes(9000, "little"))
put("mixed", r.getrandbits(8 * 5000).to_bytes(5000, "little") + text(20000, 3))
for n in (1, 700, 1023, 1025, 2047, 2049, 3000):    # tails of each length
    put("d/t%d" % n, text(n, n))
put("empty", b"")
with open(d + "/holey", "wb") as f:                 # a hole, then a tail
    f.truncate(300000)
    f.seek(300000)
    f.write(text(1500, 5))
os.link(d + "/text", d + "/d/link")
os.symlink("d/t700", d + "/sym")
os.setxattr(d + "/text", "user.mime", b"text/plain")
os.setxattr(d + "/d", "user.big", text(300, 1))
EOF

# check_image WHAT IMAGE BS [extract]: the block size, imginfo check,
# the source through img2dir and the kernel, and fsck.erofs 1.9.3's
# check, with extract its extraction too (it fails to extract an image
# with a packed inode, mkfs.erofs 1.9.3's own -Efragments ones too:
# "failed to verify packed file", though its check passes them).
check_image() {
	check "$1: the superblock's block size is $3" test \
		"$((1 << $(od -An -tu1 -j1036 -N1 "$2")))" -eq "$3"
	check "$1: imginfo check passes" "$SQP_BIN/imginfo" check -q "$2"
	rm -rf "$T/x" && run "$1: img2dir" "$SQP_BIN/img2dir" -q "$2" "$T/x" &&
		same_tree "$1: img2dir reads the source" "$T/x" "$T/src" --ignore=mtime
	judge_same_tree "$1" kernel erofs "$2" "$T/src" --ignore=mtime
	if [ ! -x "$P193/fsck/fsck.erofs" ]; then
		skipc "$1: fsck.erofs 1.9.3: none at $P193"
		return
	fi
	if ! "$P193/fsck/fsck.erofs" "$2" > "$T/err" 2>&1; then
		fail "$1: fsck.erofs 1.9.3 refuses it: $(grep -m1 . "$T/err")"
	elif [ "${4:-}" != extract ]; then
		pass "$1: fsck.erofs 1.9.3 passes it"
	elif rm -rf "$T/f" && mkdir "$T/f" &&
	     "$P193/fsck/fsck.erofs" --xattrs --extract="$T/f" "$2" > "$T/err" 2>&1; then
		same_tree "$1: fsck.erofs 1.9.3 extracts the source" "$T/f" "$T/src" --ignore=mtime
	else
		fail "$1: fsck.erofs 1.9.3 cannot extract it: $(grep -m1 . "$T/err")"
	fi
}

# no_larger WHAT OURS OPTIONS...: mkfs.erofs 1.9.3's image of the same
# line is no smaller than OURS.
no_larger() {
	nl_what=$1 nl_ours=$2; shift 2
	[ -x "$P193/mkfs/mkfs.erofs" ] || { skipc "$nl_what: mkfs.erofs 1.9.3: none at $P193"; return; }
	"$P193/mkfs/mkfs.erofs" --quiet -T0 -Uclear "$@" "$T/peer.erofs" "$T/src" > "$T/err" 2>&1 ||
		{ fail "$nl_what: mkfs.erofs 1.9.3 fails: $(grep -m1 . "$T/err")"; return; }
	check "$nl_what: no larger than mkfs.erofs 1.9.3's ($(wc -c < "$nl_ours") bytes, its \
$(wc -c < "$T/peer.erofs"))" test "$(wc -c < "$nl_ours")" -le "$(wc -c < "$T/peer.erofs")"
}

debian_fsck=$(command -v fsck.erofs || :)
if [ -n "$debian_fsck" ] && [ "$debian_fsck" != "$P193/fsck/fsck.erofs" ]; then
	"$MKFS" --quiet -b1024 -zlz4 "$T/probe.erofs" "$T/src" &&
		if "$debian_fsck" "$T/probe.erofs" > "$T/err" 2>&1; then
			check "Debian's fsck.erofs passes -b1024 -zlz4" :
		elif grep -q "blksize 1024 isn't supported" "$T/err"; then
			skipc "Debian's fsck.erofs: $(grep -m1 -o "blksize 1024 isn't supported.*" "$T/err")"
		else
			fail "Debian's fsck.erofs refuses -b1024 -zlz4: $(grep -m1 . "$T/err")"
		fi
fi

while read -r z lib; do
	codec_built "$lib" || { skipc "-z$z: $lib not built"; continue; }
	run "-b1024 -z$z -C4096 -Eztailpacking" "$MKFS" --quiet -T0 -Uclear -b1024 -z$z \
		-C4096 -Eztailpacking "$T/a.erofs" "$T/src" &&
		check_image "-b1024 -z$z -C4096 -Eztailpacking" "$T/a.erofs" 1024 extract
	run "-b2048 -z$z -Efragments -Ededupe --chunksize=4096" "$MKFS" --quiet -T0 -Uclear \
		-b2048 -z$z -Efragments -Ededupe --chunksize=4096 "$T/b.erofs" "$T/src" &&
		check_image "-b2048 -z$z -Efragments -Ededupe --chunksize=4096" "$T/b.erofs" 2048
	case $z in
	lz4hc|lzma)
		no_larger "-b1024 -z$z -C4096 -Eztailpacking" "$T/a.erofs" -b1024 -z$z -C4096 \
			-Eztailpacking
		run "-b2048 -z$z" "$MKFS" --quiet -T0 -Uclear -b2048 -z$z "$T/c.erofs" "$T/src" &&
			no_larger "-b2048 -z$z" "$T/c.erofs" -b2048 -z$z;;
	esac
done << 'EOF'
lz4 lz4
lz4hc lz4
lzma lzma
deflate gzip
zstd zstd
EOF

# dir2img's spelling: --format erofs -b 1K with a codec is mkfs's -b1024.
if codec_built lz4; then
	run "dir2img --format erofs -c lz4 -b 1K" "$SQP_BIN/dir2img" -q --format erofs -c lz4 \
		-b 1K --mtime 0 --image-time 0 --uuid clear "$T/d1k.erofs" "$T/src" &&
		run "-b1024 -zlz4" "$MKFS" --quiet -b1024 -zlz4 -E^xattr-name-filter -T0 -Uclear \
			"$T/m1k.erofs" "$T/src" &&
		check "dir2img -c lz4 -b 1K: the same bytes as -b1024 -zlz4" \
			cmp -s "$T/d1k.erofs" "$T/m1k.erofs"
fi

# sqpack-fuse reads the last codec's two images as the source.
FUSE=$top_builddir/bin/sqpack-fuse
if [ ! -x "$FUSE" ] || [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
	skipc "sqpack-fuse: not built, no /dev/fuse or not root"
else
	for i in a b; do
		[ -f "$T/$i.erofs" ] || continue
		mkdir -p "$T/fm" &&
			run "sqpack-fuse mounts $i.erofs" "$FUSE" "$T/$i.erofs" "$T/fm" || continue
		same_tree "sqpack-fuse reads $i.erofs as the source" "$T/fm" "$T/src" --ignore=mtime
		fusermount3 -u "$T/fm" 2>/dev/null || umount "$T/fm"
	done
fi

if codec_built lz4; then
	run "-b512 -zlz4hc -C2048 -Eztailpacking" "$MKFS" --quiet -T0 -Uclear -b512 -zlz4hc \
		-C2048 -Eztailpacking "$T/s.erofs" "$T/src" &&
		check_image "-b512 -zlz4hc -C2048 -Eztailpacking" "$T/s.erofs" 512 extract
	# the same bytes for any worker count; SOURCE_DATE_EPOCH, not the
	# time the tree or the image was made
	for j in 1 2; do
		run "-b1024 --workers=$j" env SOURCE_DATE_EPOCH=1700000000 "$MKFS" --quiet -Uclear \
			-b1024 -zlz4hc -C8192 -Eztailpacking --workers=$j "$T/w$j.erofs" "$T/src"
		touch "$T/src/text"
	done
	check "-b1024: the same bytes for --workers=1 and 2, SOURCE_DATE_EPOCH set" \
		cmp -s "$T/w1.erofs" "$T/w2.erofs"
else
	skipc "-b512 and --workers: lz4 not built"
fi

# A root whose listing's tail does not fit block 0's room beside the
# superblock (340 entries at -b1024): its listing wholly in blocks lets
# the root and the next inodes use the room (meta_blkaddr 0) where the
# inline tail would send every inode past the data and leave the room
# empty, one block more than mkfs.erofs 1.9.3's image.
if codec_built lz4; then
	mkdir -p "$T/wide" &&
		for i in $(seq 1 340); do echo "line $i" > "$T/wide/entry_$i" || break; done
	if run "-b1024 -zlz4hc, a root of 340 entries" "$MKFS" --quiet -T0 -Uclear -b1024 \
		-zlz4hc "$T/wide.erofs" "$T/wide"; then
		check "a wide root: the inodes start in block 0's room" test \
			"$(od -An -tu4 -j1064 -N4 "$T/wide.erofs" | tr -d ' ')" = 0
		check "a wide root: imginfo check passes" "$SQP_BIN/imginfo" check -q \
			"$T/wide.erofs"
		judge_same_tree "a wide root" kernel erofs "$T/wide.erofs" "$T/wide" --ignore=mtime
		[ ! -x "$P193/fsck/fsck.erofs" ] ||
			check "a wide root: fsck.erofs 1.9.3 passes it" \
				"$P193/fsck/fsck.erofs" "$T/wide.erofs"
		if [ -x "$P193/mkfs/mkfs.erofs" ] && "$P193/mkfs/mkfs.erofs" --quiet -T0 \
			-Uclear -b1024 -zlz4hc "$T/wpeer.erofs" "$T/wide" > "$T/err" 2>&1; then
			check "a wide root: no larger than mkfs.erofs 1.9.3's ($(wc -c < \
"$T/wide.erofs") bytes, its $(wc -c < "$T/wpeer.erofs"))" test \
				"$(wc -c < "$T/wide.erofs")" -le "$(wc -c < "$T/wpeer.erofs")"
		fi
	fi
fi

# --MZ: every inode in a zone of its own after the data (the
# superblock's metadata start past block 0), read as the source by the
# kernel, fsck.erofs 1.9.3 and ours; --MZ=i is the same image here, and
# it is no larger than mkfs.erofs 1.9.3's --MZ. Our readers read that
# one as the source too (its zone starts a block before its inodes).
# meta_blkaddr IMAGE: the superblock's metadata start block.
meta_blkaddr() { od -An -tu4 -j1064 -N4 "$1" | tr -d ' '; }
if codec_built lz4 &&
	run "-b1024 -zlz4hc --MZ" "$MKFS" --quiet -T0 -Uclear -b1024 -zlz4hc --MZ \
		"$T/mz.erofs" "$T/src" &&
	run "-b1024 -zlz4hc --MZ=i" "$MKFS" --quiet -T0 -Uclear -b1024 -zlz4hc --MZ=i \
		"$T/mzi.erofs" "$T/src"; then
	check_image "-b1024 -zlz4hc --MZ" "$T/mz.erofs" 1024
	check "--MZ: the inodes start past block 0 (at block $(meta_blkaddr "$T/mz.erofs"))" \
		test "$(meta_blkaddr "$T/mz.erofs")" -gt 0
	check "--MZ=i: the same bytes as --MZ" cmp -s "$T/mz.erofs" "$T/mzi.erofs"
	no_larger "-b1024 -zlz4hc --MZ" "$T/mz.erofs" -b1024 -zlz4hc --MZ
	if [ -x "$P193/mkfs/mkfs.erofs" ] && [ -f "$T/peer.erofs" ]; then
		check "mkfs.erofs 1.9.3's --MZ: imginfo check passes" "$SQP_BIN/imginfo" check -q \
			"$T/peer.erofs"
		rm -rf "$T/x" && run "mkfs.erofs 1.9.3's --MZ: img2dir" "$SQP_BIN/img2dir" -q \
			"$T/peer.erofs" "$T/x" &&
			same_tree "mkfs.erofs 1.9.3's --MZ: img2dir reads the source" "$T/x" \
				"$T/src" --ignore=mtime
	fi
fi
usage_refused "only with the inodes" "$MKFS" --MZ=d "$T/r.erofs" "$T/src"

# img2img converts to blocks below 4K, and keeps an EROFS base's.
if [ -f "$T/s.erofs" ]; then
	run "img2img --format erofs -b 2K" "$SQP_BIN/img2img" -q --format erofs -b 2K \
		"$T/ii2.erofs" "$T/s.erofs" &&
		check_image "img2img -b 2K of a -b512 image" "$T/ii2.erofs" 2048
	run "img2img --format erofs" "$SQP_BIN/img2img" -q --format erofs "$T/ii5.erofs" \
		"$T/s.erofs" &&
		check "img2img --format erofs keeps the base's 512-byte blocks" test \
			"$(od -An -tu1 -j1036 -N1 "$T/ii5.erofs" | tr -d ' ')" = 9
fi

# --tar=headerball honours -b (every file of its size, all zeros); --tar=i
# keeps the tar's 512-byte blocks whatever -b says, as mkfs.erofs 1.9.3.
{ "$PYTHON3" - "$T/src" "$T/src.tar" << 'EOF' &&
import sys, tarfile
with tarfile.open(sys.argv[2], "w", format=tarfile.PAX_FORMAT) as t:
    t.add(sys.argv[1], ".")
EOF
	"$PYTHON3" "$top_srcdir/tests/lib/headerball.py" "$T/src.tar" "$T/hb.tar"; } ||
	fail "making the tars"
# zeros_and_sizes DIR LIST: no file under DIR holds a byte but zeros,
# and LIST is each file's size.
zeros_and_sizes() {
	test "$(find "$1" -type f -exec cat {} + | tr -d '\000' | wc -c)" = 0 &&
		(cd "$1" && find . -type f -printf '%p %s\n' | LC_ALL=C sort) | cmp -s - "$2"
}
if run "--tar=headerball -b1024" "$MKFS" --quiet -T0 -Uclear --tar=headerball -b1024 \
	"$T/hb.erofs" "$T/hb.tar"; then
	check "--tar=headerball -b1024: the superblock's block size is 1024" test \
		"$(od -An -tu1 -j1036 -N1 "$T/hb.erofs" | tr -d ' ')" = 10
	(cd "$T/src" && find . -type f -printf '%p %s\n' | LC_ALL=C sort) > "$T/hb.exp"
	kernel_check erofs "$T/hb.erofs" "--tar=headerball -b1024: the kernel reads each file's size, all zeros" \
		zeros_and_sizes "$KMNT" "$T/hb.exp"
fi
run "--tar=i" "$MKFS" --quiet -T0 -Uclear --tar=i "$T/i.erofs" "$T/src.tar" &&
	run "--tar=i -b2048" "$MKFS" --quiet -T0 -Uclear --tar=i -b2048 "$T/i2.erofs" \
		"$T/src.tar" &&
	check "--tar=i -b2048: the same bytes as --tar=i (512-byte blocks)" \
		cmp -s "$T/i.erofs" "$T/i2.erofs"
# tar2img --index takes -b 512, the index's own, and refuses larger
# blocks by name: they could not point into the tar's 512-byte blocks.
run "tar2img --index -b 512" "$SQP_BIN/tar2img" -q --format erofs --index -b 512 \
	--image-time 0 --uuid clear "$T/t512.erofs" "$T/src.tar" &&
	run "tar2img --index" "$SQP_BIN/tar2img" -q --format erofs --index --image-time 0 \
		--uuid clear "$T/t0.erofs" "$T/src.tar" &&
	check "tar2img --index -b 512: the same bytes as --index" cmp -s "$T/t512.erofs" \
		"$T/t0.erofs"
usage_refused "larger blocks cannot point to" "$SQP_BIN/tar2img" --format erofs --index \
	-b 1K "$T/r.erofs" "$T/src.tar"
finish
