#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile.sh - corrupt and hostile EROFS images (mkbad.py: a superblock
# past the end, with unknown features or larger directory blocks, a
# directory that contains itself or the root, names with '/', "..", "."
# or twice, bad entry counts and name offsets, nids, block addresses,
# chunks and sizes past the end, a huge size, a compressed layout, bad
# xattr counts and long name prefixes; in compressed files an unknown
# algorithm, cluster indexes pointing past the end, back to nothing or
# nowhere, a pcluster larger than allowed, an inline tail past its
# block, a size that lies, garbage data; a whole file in the packed
# inode with a huge size or past its end; superblocks Linux refuses at
# mount: a bad checksum with the checksum feature, a root that is not a
# directory, extension slots past the block, a packed inode past the
# end, unknown compression algorithms and configurations out of
# the kernel's bounds) are refused with exit 1 by
# img2tar (no tar that lists every entry), img2dir (nothing written
# outside its target: the tree holds a symlink out of it) and imginfo
# (stat of the entry broken, cat of a broken compressed file, or the
# summary), and imginfo check reports each with where it is; a broken
# superblock by imginfo ls and cat and sqpack-unsquashfs too, and by
# the kernel, which must refuse to mount the same images (its message
# noted); and an image whose chunks
# are holes (79 of 80 chunks of 16 blocks) reads equal to its source,
# a long xattr name prefix is read, and so is an extra device count
# without the device table feature (the kernel mounts it).
. "$top_srcdir/tests/lib/common.sh"
need_tool mkfs.erofs tar "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
mkdir -p "$T/src/d/sub" "$T/src/e" "$T/outside" "$T/bad" || exit 99
echo hello > "$T/src/a.txt" && echo a > "$T/src/aa" && echo z > "$T/src/zz" &&
echo f > "$T/src/d/sub/f" && head -c 100000 /dev/urandom > "$T/src/d/big" &&
seq 1 40000 > "$T/src/d/seq" &&
ln -s a.txt "$T/src/link" && ln -s "$T/outside" "$T/src/evil" &&
truncate -s 5M "$T/src/sparse" &&
printf abc | dd of="$T/src/sparse" bs=1 seek=2097152 conv=notrunc 2>/dev/null &&
$PYTHON3 -c 'import os, sys
os.setxattr(sys.argv[1], "user.x", b"1")' "$T/src/e" || exit 99
run "mkfs.erofs" mkfs.erofs --quiet -Eforce-inode-extended "$T/plain.erofs" "$T/src" > /dev/null &&
run "mkfs.erofs --chunksize" peer_mkfs_erofs "--quiet -Eforce-inode-extended --chunksize=65536
	-Eforce-chunk-indexes" "$T/chunk.erofs" "$T/src" > /dev/null &&
run "mkfs.erofs -zlz4hc" mkfs.erofs --quiet -zlz4hc -C16384 -Elegacy-compress \
	"$T/full.erofs" "$T/src" > /dev/null &&
run "mkfs.erofs -zlz4" mkfs.erofs --quiet -zlz4 -Eztailpacking "$T/compact.erofs" "$T/src" > /dev/null &&
run "mkbad.py" $PYTHON3 "$top_srcdir/tests/erofs/mkbad.py" "$T/plain.erofs" "$T/chunk.erofs" \
	"$T/full.erofs" "$T/compact.erofs" "$top_srcdir/tests/erofs/fixtures/lz4frag.img" "$T/bad" ||
	finish

# A tar is complete when it lists every entry of the good image.
entries=$("$IMG2TAR" "$T/plain.erofs" | tar -tf - | wc -l)
while read -r name path; do
	img=$T/bad/$name
	"$IMG2TAR" -j 2 "$img" > "$T/out.tar" 2> "$T/err"
	rc=$?
	complete=no
	[ "$(tar -tf "$T/out.tar" 2> /dev/null | wc -l)" = "$entries" ] && complete=yes
	[ $rc -eq 1 ] && [ $complete = no ] && [ -s "$T/err" ] &&
		pass "img2tar $name: $(head -c 120 "$T/err")" ||
		fail "img2tar $name: exit $rc, complete tar: $complete: $(head -c 200 "$T/err")"
	rm -rf "$T/x"
	"$IMG2DIR" -j 2 "$img" "$T/x" 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && [ -s "$T/err" ] && pass "img2dir $name" ||
		fail "img2dir $name: exit $rc: $(head -c 200 "$T/err")"
	if [ "$path" = - ] || [ "$path" = sb ]; then
		"$IMGINFO" summary "$img" > /dev/null 2> "$T/err"
	elif [ "${path#cat:}" != "$path" ]; then
		"$IMGINFO" cat "$img" "${path#cat:}" > /dev/null 2> "$T/err"
	else
		"$IMGINFO" stat "$img" "$path" > /dev/null 2> "$T/err"
	fi
	rc=$?
	[ $rc -eq 1 ] && [ -s "$T/err" ] && pass "imginfo $name" ||
		fail "imginfo $name ($path): exit $rc: $(head -c 200 "$T/err")"
	# The check reports the problem with where it is (the table,
	# and for an entry's problem its inode and path), and ends.
	"$IMGINFO" check "$img" > "$T/out" 2>&1
	rc=$?
	where='^[a-z]*: '
	[ "$path" = - ] || [ "$path" = sb ] ||
		where="^[a-z]*: inode [0-9]*: '${path#cat:}': "
	[ $rc -eq 1 ] && grep -q "$where" "$T/out" &&
		pass "imginfo check $name: $(head -1 "$T/out" | cut -c1-120)" ||
		fail "imginfo check $name: exit $rc: $(head -c 200 "$T/out")"
done < "$T/bad/cases.txt"
[ "$(wc -l < "$T/bad/cases.txt")" -ge 20 ] || fail "mkbad.py made too few cases"
[ -z "$(ls -A "$T/outside")" ] && pass "nothing written outside" || fail "files appeared in outside/"

# A broken superblock stops every reader before it lists or reads
# anything, as it stops the kernel's mount.
UNSQ="$SQP_BIN/sqpack-unsquashfs"
while read -r name path; do
	[ "$path" = sb ] || continue
	img=$T/bad/$name
	for cmd in "imginfo ls" "imginfo cat" "sqpack-unsquashfs"; do
		rm -rf "$T/x"
		case $cmd in
		"imginfo ls") "$IMGINFO" ls "$img" > "$T/out" 2> "$T/err";;
		"imginfo cat") "$IMGINFO" cat "$img" a.txt > "$T/out" 2> "$T/err";;
		*) "$UNSQ" -n -d "$T/x" "$img" > "$T/out" 2> "$T/err";;
		esac
		rc=$?
		[ $rc -eq 1 ] && [ ! -s "$T/out" ] && [ ! -e "$T/x" ] && grep -qF "$name" "$T/err" &&
			pass "$cmd $name: $(head -c 120 "$T/err")" ||
			fail "$cmd $name: exit $rc, $(wc -c < "$T/out") bytes out: $(head -c 200 "$T/err")"
	done
done < "$T/bad/cases.txt"
if judge_ok "the kernel's refusals" kernel erofs; then
	mkdir -p "$T/m"
	while read -r name; do
		if mount -t erofs -o loop,ro "$T/bad/$name" "$T/m" 2> "$T/err"; then
			umount "$T/m"
			fail "the kernel mounts $name, which we refuse"
		else
			pass "the kernel refuses $name too: $(dmesg 2> /dev/null | grep 'erofs' | tail -1 | cut -c1-100)"
		fi
	done < "$T/bad/mounts.txt"
	[ "$(wc -l < "$T/bad/mounts.txt")" -ge 17 ] || fail "mkbad.py made too few superblock cases"
	if mount -t erofs -o loop,ro "$T/bad/extradev.erofs" "$T/m" 2> "$T/err"; then
		umount "$T/m"
		pass "the kernel mounts an extra device count without the device table"
	else
		fail "the kernel refuses extradev.erofs: $(head -c 200 "$T/err")"
	fi
fi

# The good images: unchanged, and with holes.
for img in "$T/plain.erofs" "$T/chunk.erofs" "$T/bad/holes.erofs" \
	   "$T/full.erofs" "$T/compact.erofs" "$T/bad/extradev.erofs"; do
	rm -rf "$T/x" "$T/t"
	run "img2dir $img" "$IMG2DIR" "$img" "$T/x" &&
		same_tree "img2dir $(basename "$img")" "$T/x" "$T/src" --ignore-dir-mtime
	mkdir -p "$T/t"
	"$IMG2TAR" --sparse "$img" > "$T/s.tar" && tar -C "$T/t" -xpf "$T/s.tar" &&
		same_tree "img2tar --sparse $(basename "$img")" "$T/t" "$T/src" --ignore-dir-mtime --no-xattrs ||
		fail "img2tar --sparse $img"
done
for img in "$T/plain.erofs" "$T/chunk.erofs" "$T/bad/holes.erofs" \
	   "$T/full.erofs" "$T/compact.erofs" "$T/bad/extradev.erofs"; do
	check "imginfo check: no problem in $(basename "$img")" "$IMGINFO" check "$img"
done
check "a long xattr name prefix is read" sh -c \
	'"$1" stat "$2" e | grep -qx "xattr: user.long.x=\"1\""' - "$IMGINFO" "$T/bad/longprefix.erofs"
check "the holes are holes" sh -c '"$1" stat "$2" sparse | grep -q ", 1264 holes,"' - "$IMGINFO" "$T/bad/holes.erofs"
check "a hole reads as zeros" sh -c '"$1" cat "$2" sparse | cmp -s - "$3"' - "$IMGINFO" "$T/bad/holes.erofs" "$T/src/sparse"
check "img2tar --sparse stores the holes as holes" sh -c \
	'"$1" --sparse "$2" | tar -tvf - sparse | grep -q "^-"' - "$IMG2TAR" "$T/bad/holes.erofs"
finish
