#!/bin/sh
# SPDX-License-Identifier: MIT
# limits.sh - an EROFS image holds what SquashFS cannot, as mkfs.erofs
# would: 70,000 distinct owners (uids and gids past 16 bits), times of
# -100 s and 2^33+5 s with nanoseconds (extended inodes), a device
# number with a 20-bit minor; packed from a tar (tar2img, pax times with
# fractions) and from a directory (dir2img, stat's st_mtim), read back
# equal by the kernel's EROFS mount (owners, times to the nanosecond,
# rdev), and by img2dir, img2tar and imginfo. SquashFS refuses the same
# input with a message naming its id table's limit, exit 1, no image
# left behind. (The writer before the format-neutral tree refused the
# owners for EROFS too and clamped the times with a warning.)
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
DIR2IMG="$SQP_BIN/dir2img"
IMG2DIR="$SQP_BIN/img2dir"
IMGINFO="$SQP_BIN/imginfo"
LIMITS="$PYTHON3 $top_srcdir/tests/erofs_write/limits.py"
N=70000
T=$(fast_dir) || skip "no scratch directory"

run "the tar" $LIMITS tar "$T/in.tar" $N || finish
$LIMITS want $N > "$T/want" || { fail "the expected lines"; finish; }
# Lines without the times' nanoseconds, for readers judged apart on them.
cut -d' ' -f1-3,5 "$T/want" > "$T/want.nons"

# same_lines WHAT FILE: FILE holds the wanted lines.
same_lines() {
	if cmp -s "$2" "$T/want"; then
		pass "$1"
	else
		fail "$1: (< read, > wanted) $(diff "$2" "$T/want" | head -4 | tr '\n' ' ')"
	fi
}
# reader_lines WHAT FILE: our reader's lines: owners and devices, then
# the times with their nanoseconds, must be the wanted ones.
reader_lines() {
	cut -d' ' -f1-3,5 "$2" > "$2.nons"
	if cmp -s "$2.nons" "$T/want.nons"; then
		pass "$1: owners and device numbers"
	else
		fail "$1: owners or devices: $(diff "$2.nons" "$T/want.nons" | head -4 | tr '\n' ' ')"
	fi
	if cmp -s "$2" "$T/want"; then
		pass "$1: times with nanoseconds"
	else
		fail "$1: times (< read, > wanted): $(diff "$2" "$T/want" | head -4 | tr '\n' ' ')"
	fi
}

# kernel_lines WHAT IMAGE: the kernel's EROFS mount reads IMAGE as wanted.
kernel_lines() {
	judge_ok "$1: kernel mount" kernel erofs || return 0
	mkdir -p "$T/mnt"
	if mount -t erofs -o loop,ro "$2" "$T/mnt" 2> "$T/mount.err"; then
		$LIMITS walk "$T/mnt" > "$T/kernel.lines"
		umount "$T/mnt"
		same_lines "$1: the kernel reads owners, times to the nanosecond and rdev" "$T/kernel.lines"
	else
		fail "$1: the kernel refuses our image: $(head -1 "$T/mount.err")"
	fi
}

# readers WHAT IMAGE: img2dir, img2tar and imginfo read IMAGE as wanted.
readers() {
	rm -rf "$T/x"
	if "$IMG2DIR" "$2" "$T/x" 2> "$T/err"; then
		if [ "$(id -u)" = 0 ]; then
			$LIMITS walk "$T/x" > "$T/x.lines"
			reader_lines "$1: img2dir" "$T/x.lines"
		else
			skipc "$1: img2dir keeps owners and devices only as root"
		fi
	else
		fail "$1: img2dir: $(head -c 300 "$T/err")"
	fi
	rm -rf "$T/x"
	if "$IMG2TAR" "$2" > "$T/out.tar" 2> "$T/err"; then
		$LIMITS untar "$T/out.tar" > "$T/tar.lines"
		reader_lines "$1: img2tar" "$T/tar.lines"
	else
		fail "$1: img2tar: $(head -c 300 "$T/err")"
	fi
	# imginfo stat: the owners, the seconds and the device of a few
	"$IMGINFO" stat "$2" own/00000 own/69999 dev past future > "$T/stat" 2> "$T/err" ||
		fail "$1: imginfo stat: $(head -c 300 "$T/err")"
	check "$1: imginfo shows the owners past 16 bits" \
		grep -q '^uid: 169999$' "$T/stat"
	check "$1: imginfo shows the gids past 16 bits" \
		grep -q '^gid: 369999$' "$T/stat"
	check "$1: imginfo shows the 20-bit minor" grep -q '^device: 259,1048575$' "$T/stat"
	if grep -q '^mtime: -100 ' "$T/stat" && grep -q '^mtime: 8589934597 ' "$T/stat"; then
		pass "$1: imginfo shows the times"
	else
		fail "$1: imginfo shows other times: $(grep '^mtime' "$T/stat" | sort -u | tr '\n' ' ')"
	fi
}

# squashfs_refuses WHAT CMD...: CMD (packing the same input as SquashFS)
# exits 1 naming SquashFS's id table, and leaves no image.
squashfs_refuses() {
	sr_what=$1; shift
	"$@" > "$T/sq.err" 2>&1
	sr_rc=$?
	if [ $sr_rc -eq 1 ] && grep -q "more than 65535 distinct uids and gids (SquashFS" "$T/sq.err"; then
		pass "$sr_what: SquashFS refuses: $(grep distinct "$T/sq.err")"
	else
		fail "$sr_what: SquashFS: exit $sr_rc (1 wanted): $(head -c 300 "$T/sq.err")"
	fi
	check "$sr_what: SquashFS leaves no image behind" test ! -e "$T/out.sqfs"
}

"$TAR2IMG" -q --format erofs "$T/tar.erofs" "$T/in.tar" > "$T/pack.err" 2>&1 ||
	{ fail "tar2img --format erofs: $(head -c 300 "$T/pack.err")"; finish; }
check "tar2img --format erofs: no warning (nothing clamped)" test ! -s "$T/pack.err"
kernel_lines "from a tar" "$T/tar.erofs"
readers "from a tar" "$T/tar.erofs"
squashfs_refuses "from a tar" "$TAR2IMG" -q "$T/out.sqfs" "$T/in.tar"

if [ "$(id -u)" != 0 ]; then
	skip "from a directory: owners and a device node need root"
fi
run "the directory" $LIMITS dir "$T/src" $N || finish
$LIMITS walk "$T/src" > "$T/src.lines"
same_lines "the directory holds the wanted times (this file system keeps them)" "$T/src.lines"
"$DIR2IMG" -q --format erofs "$T/dir.erofs" "$T/src" > "$T/pack.err" 2>&1 ||
	{ fail "dir2img --format erofs: $(head -c 300 "$T/pack.err")"; finish; }
check "dir2img --format erofs: no warning (nothing clamped)" test ! -s "$T/pack.err"
kernel_lines "from a directory" "$T/dir.erofs"
readers "from a directory" "$T/dir.erofs"
squashfs_refuses "from a directory" "$DIR2IMG" -q "$T/out.sqfs" "$T/src"
finish
