#!/bin/sh
# SPDX-License-Identifier: MIT
# mkfsopts.sh - sqpack-mkfs.erofs's xattr name filter, on by default as
# in mkfs.erofs 1.9.3 (-Exattr-name-filter changes nothing): each inode's
# name filter has the bits mkfs.erofs 1.9.3 writes for the same xattrs
# (its image and ours, the filter found 12 bytes before an inode's
# first entry), the superblock says so; -E^xattr-name-filter writes
# neither filter nor bit, as 1.9.3 given it, and as dir2img by default;
# dir2img --xattr-name-filter gives the same bytes as the default (and
# refuses it for SquashFS), as do --workers=1 and 2; the image is no
# larger than 1.9.3's; the kernel's getfattr finds every present name
# (a wrong bit would hide one) and no absent one, and answers from the
# filter (all ones: a present name not found); fsck.erofs 1.9.3
# passes it. --offset=N: see below.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" getfattr
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
DIR2IMG="$SQP_BIN/dir2img"
P193=${EROFS_UTILS_193:-/work/peers/erofs-utils}
T=$SCRATCH

# A small tree: names of each stored prefix, one to three per inode;
# for -b, files of several small blocks and a tail, of exactly 1024
# bytes, a symlink and a directory longer than 512 bytes.
mkdir -p "$T/src/d/many" "$T/m" && echo hi > "$T/src/a" && echo z > "$T/src/b" &&
	head -c 3000 /dev/urandom > "$T/src/d/f3000" &&
	head -c 1024 /dev/urandom > "$T/src/k1" &&
	ln -s "$(printf '%01500d' 0)" "$T/src/longsym" &&
	(cd "$T/src/d/many" && for i in 0 1 2 3 4 5 6 7 8 9; do
		: > name_$i.0 && : > name_$i.1 && : > name_$i.2 && : > name_$i.3; done) &&
	"$PYTHON3" -c 'import os, sys
r = sys.argv[1]
os.setxattr(r, "user.x", b"1")
os.setxattr(r + "/a", "user.foo", b"bar")
os.setxattr(r + "/a", "user.mime_type", b"text/plain")
os.setxattr(r + "/d", "trusted.t", b"2")
os.setxattr(r + "/d", "security.s", b"3")
os.setxattr(r + "/d", "user.y", b"4")' "$T/src" || exit 99
# Each inode's xattrs, as the filter script reads them: IDX:NAME:VALUE.
XS="1:x:1 1:foo:bar,1:mime_type:text/plain 4:t:2,6:s:3,1:y:4"
# filters IMG: each inode's filter (hex), found 12 bytes before the
# first of its entries (a head, the name after its prefix, the value),
# and the superblock's xattr_filter feature bit.
filters() {
	"$PYTHON3" -c 'import sys
img = open(sys.argv[1], "rb").read()
for spec in sys.argv[2:]:
    at = []
    for e in spec.split(","):
        i, n, v = e.split(":")
        rec = bytes([len(n), int(i)]) + len(v).to_bytes(2, "little") + (n + v).encode()
        at.append(img.find(rec))
    p = min(at) if min(at) > 12 else 12
    print(spec, img[p - 12:p - 8][::-1].hex())
print("xattr_filter", int.from_bytes(img[1032:1036], "little") >> 2 & 1)' "$1" $XS
}

for j in 1 2; do
	run "the default filter, --workers=$j" "$MKFS" --quiet -T0 -Uclear \
		--workers=$j "$T/f$j.erofs" "$T/src" || finish
done
check "the filter: the same bytes for --workers=1 and 2" cmp -s "$T/f1.erofs" "$T/f2.erofs"
run "-Exattr-name-filter" "$MKFS" --quiet -Exattr-name-filter -T0 -Uclear "$T/e.erofs" "$T/src" &&
	check "-Exattr-name-filter: the default's bytes" cmp -s "$T/f1.erofs" "$T/e.erofs"
run "dir2img --xattr-name-filter" "$DIR2IMG" -q --format erofs --xattr-name-filter \
	--mtime 0 --image-time 0 --uuid clear "$T/d.erofs" "$T/src" &&
	check "dir2img --xattr-name-filter: the same bytes" cmp -s "$T/f1.erofs" "$T/d.erofs"
usage_refused "an EROFS option" "$DIR2IMG" -q --xattr-name-filter "$T/r.sqfs" "$T/src"
filters "$T/f1.erofs" > "$T/ours"
check "the superblock says xattr_filter, as mkfs.erofs 1.9.3's" grep -qx "xattr_filter 1" "$T/ours"
run "-E^xattr-name-filter" "$MKFS" --quiet -E^xattr-name-filter -T0 -Uclear "$T/n.erofs" \
	"$T/src" && filters "$T/n.erofs" > "$T/none" &&
	check "-E^xattr-name-filter: every filter 0, no feature bit" sh -c \
		'test "$(grep -c " 00000000$" "$1")" -eq 3 &&
		grep -qx "xattr_filter 0" "$1"' - "$T/none"
run "dir2img without --xattr-name-filter" "$DIR2IMG" -q --format erofs --mtime 0 \
	--image-time 0 --uuid clear "$T/dn.erofs" "$T/src" &&
	check "dir2img's default: -E^xattr-name-filter's bytes" cmp -s "$T/n.erofs" "$T/dn.erofs"
if [ -x "$P193/mkfs/mkfs.erofs" ]; then
	run "mkfs.erofs 1.9.3, its default" "$P193/mkfs/mkfs.erofs" --quiet \
		-T0 -Uclear "$T/p.erofs" "$T/src" > /dev/null &&
		filters "$T/p.erofs" > "$T/peer" &&
		if cmp -s "$T/ours" "$T/peer"; then
			pass "each inode's filter and the feature bit: mkfs.erofs 1.9.3's"
		else
			fail "filters differ (< ours, > mkfs.erofs 1.9.3's)"; diff "$T/ours" "$T/peer"
		fi &&
		check "the default: no larger than mkfs.erofs 1.9.3's" \
			test "$(stat -c %s "$T/f1.erofs")" -le "$(stat -c %s "$T/p.erofs")"
	run "mkfs.erofs 1.9.3 -E^xattr-name-filter" "$P193/mkfs/mkfs.erofs" --quiet \
		-E^xattr-name-filter -T0 -Uclear "$T/pn.erofs" "$T/src" > /dev/null &&
		filters "$T/pn.erofs" > "$T/peern" &&
		check "-E^xattr-name-filter: mkfs.erofs 1.9.3's filters and bits" \
			cmp -s "$T/none" "$T/peern"
	if "$P193/fsck/fsck.erofs" "$T/f1.erofs" > "$T/err" 2>&1; then
		pass "fsck.erofs 1.9.3 passes it"
	else
		fail "fsck.erofs 1.9.3 refuses it: $(grep -m1 . "$T/err")"
	fi
else
	skipc "mkfs.erofs 1.9.3's filters and fsck.erofs: none at $P193"
fi

# --offset=N: the image N bytes into IMAGE, zeros before it whatever
# IMAGE held (mkfs.erofs 1.9.3 truncates it: zeros too), read there by
# imginfo, img2dir and the kernel through a loop device's offset.
N=5000
head -c $N /dev/urandom > "$T/o.erofs" && cp "$T/o.erofs" "$T/po.erofs" || exit 99
run "--offset=$N" "$MKFS" --quiet -Exattr-name-filter -T0 -Uclear --offset=$N \
	"$T/o.erofs" "$T/src" &&
	check "--offset: zeros, then the image made without it" sh -c \
		'cmp -s -n "$1" "$2" /dev/zero && tail -c +$(($1 + 1)) "$2" | cmp -s - "$3"' \
		- $N "$T/o.erofs" "$T/f1.erofs"
if [ -x "$P193/mkfs/mkfs.erofs" ]; then
	run "mkfs.erofs 1.9.3 --offset=$N" "$P193/mkfs/mkfs.erofs" --quiet --offset=$N \
		"$T/po.erofs" "$T/src" > /dev/null &&
		check "mkfs.erofs 1.9.3 --offset: zeros before the image too" \
			cmp -s -n $N "$T/po.erofs" /dev/zero
fi
check "imginfo --offset check passes" "$SQP_BIN/imginfo" --offset $N check -q "$T/o.erofs"
rm -rf "$T/x" && run "img2dir --offset" "$SQP_BIN/img2dir" -q --offset $N "$T/o.erofs" "$T/x" &&
	same_tree "img2dir --offset: the source" "$T/x" "$T/src" --ignore=mtime
if judge_ok "the kernel at an offset" kernel erofs; then
	if mount -t erofs -o loop,ro,offset=$N "$T/o.erofs" "$T/m" 2> "$T/err"; then
		same_tree "the kernel, -o loop,offset=$N: the source" "$T/m" "$T/src" --ignore=mtime
		umount "$T/m"
	else
		fail "the kernel does not mount it at offset $N: $(head -c 200 "$T/err")"
	fi
fi

# -b 512, 1024 and 2048: data stored as it is, in blocks of that size
# (the superblock's blkszbits), the same for --workers=1 and 2, read as
# the source by the kernel (Linux 6.18 mounts blocks below the page
# size), img2dir and fsck.erofs 1.9.3, and dir2img -b 1K gives -b1024's
# bytes; sizes that are not whole blocks are refused by name (and a
# small block for SquashFS), as is a size mkfs.erofs would round down.
# (Compressed files in small blocks: smallblocks.sh.)
for bs in 512 1024 2048; do
	for j in 1 2; do
		run "-b$bs --workers=$j" "$MKFS" --quiet -b$bs -T0 -Uclear --workers=$j \
			"$T/b$j.erofs" "$T/src" || continue 2
	done
	check "-b$bs: the same bytes for --workers=1 and 2" cmp -s "$T/b1.erofs" "$T/b2.erofs"
	check "-b$bs: the superblock's block size" test \
		"$((1 << $(od -An -tu1 -j1036 -N1 "$T/b1.erofs")))" -eq $bs
	check "-b$bs: imginfo check passes" "$SQP_BIN/imginfo" check -q "$T/b1.erofs"
	rm -rf "$T/x" && run "-b$bs: img2dir" "$SQP_BIN/img2dir" -q "$T/b1.erofs" "$T/x" &&
		same_tree "-b$bs: img2dir reads the source" "$T/x" "$T/src" --ignore=mtime
	judge_same_tree "-b$bs" kernel erofs "$T/b1.erofs" "$T/src" --ignore=mtime
	if [ -x "$P193/fsck/fsck.erofs" ]; then
		if "$P193/fsck/fsck.erofs" "$T/b1.erofs" > "$T/err" 2>&1; then
			pass "-b$bs: fsck.erofs 1.9.3 passes it"
		else
			fail "-b$bs: fsck.erofs 1.9.3 refuses it: $(grep -m1 . "$T/err")"
		fi
	fi
done
run "dir2img --format erofs -b 1K" "$DIR2IMG" -q --format erofs -b 1K --mtime 0 \
	--image-time 0 --uuid clear "$T/d1k.erofs" "$T/src" &&
	run "-b1024" "$MKFS" --quiet -b1024 -E^xattr-name-filter -T0 -Uclear "$T/m1k.erofs" \
		"$T/src" &&
	check "dir2img -b 1K: the same bytes as -b1024" cmp -s "$T/d1k.erofs" "$T/m1k.erofs"
usage_refused "below 4K: only with --format erofs" "$DIR2IMG" -b 1K \
	"$T/r.sqfs" "$T/src"
usage_refused "--pcluster-size and --erofs-metabox are multiples of the block size" \
	"$DIR2IMG" --format erofs -c lz4 -b 2K --pcluster-size 3K "$T/r.erofs" "$T/src"
usage_refused "--chunk-size and --max-extent-bytes are at least the block size" \
	"$DIR2IMG" --format erofs -b 2K --chunk-size 1K "$T/r.erofs" "$T/src"
usage_refused "the block size is 512, 1024, 2048 or 4096" "$MKFS" -b1000 "$T/r.erofs" "$T/src"
usage_refused "the block size is 512, 1024, 2048 or 4096" "$MKFS" -b8192 "$T/r.erofs" "$T/src"
usage_refused "-C: the cluster size is not a multiple of the block size" "$MKFS" -zlz4 \
	-C1536 -b1024 "$T/r.erofs" "$T/src"
usage_refused "-C: the cluster size is not a multiple of the block size" "$MKFS" -zlz4 \
	-C6144 "$T/r.erofs" "$T/src"
usage_refused "--chunksize: a power of two from the block size" "$MKFS" -b2048 --chunksize=1024 \
	"$T/r.erofs" "$T/src"

if judge_ok "the kernel's getfattr" kernel erofs &&
   run "the kernel mounts it" mount -t erofs -o loop,ro "$T/f1.erofs" "$T/m"; then
	# getfattr's dump of every name, and a lookup of absent ones
	(cd "$T/m" && getfattr -h -d -m - . a d) > "$T/got" 2>&1
	(cd "$T/src" && getfattr -h -d -m - . a d) > "$T/want" 2>&1
	check "getfattr: every present name and value" cmp -s "$T/got" "$T/want"
	for n in user.foo user.mime_type; do
		check "getfattr -n $n: found" getfattr -n $n "$T/m/a" > /dev/null 2>&1
	done
	absent=0
	for n in user.absent user.fo user.x trusted.foo security.foo user.z; do
		! getfattr -n $n "$T/m/a" > /dev/null 2>&1 || absent=$((absent + 1))
	done
	check "getfattr: no absent name found" test $absent -eq 0
	umount "$T/m"
	# The kernel answers from the filter: with every bit of a's set
	# (all absent), a lookup of its name fails, a listing still has it.
	cp "$T/f1.erofs" "$T/all.erofs" && "$PYTHON3" -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
p = b.find(bytes([3, 1, 3, 0]) + b"foobar") - 12
assert p > 0 and b[p:p + 4] != b"\xff" * 4
b[p:p + 4] = b"\xff" * 4
open(sys.argv[1], "wb").write(b)' "$T/all.erofs" || exit 99
	if run "the kernel mounts a's filter all ones" mount -t erofs -o loop,ro "$T/all.erofs" "$T/m"; then
		check "a's filter all ones: getfattr -n user.foo finds nothing" sh -c \
			'! getfattr -n user.foo "$1" > /dev/null 2>&1' - "$T/m/a"
		check "a's filter all ones: listxattr still names user.foo" "$PYTHON3" -c \
			'import os, sys; assert "user.foo" in os.listxattr(sys.argv[1])' "$T/m/a"
		umount "$T/m"
	fi
fi
finish
