#!/bin/sh
# SPDX-License-Identifier: MIT
# browse.sh - imginfo ls, cat and stat on images of one tree by every
# packer and codec: `ls -lR` equals unsquashfs -lln (types, modes,
# owners, sizes, device numbers, times, names, targets); `cat` of every
# file gives the bytes unsquashfs extracts; `stat` of every entry gives
# the kernel's lstat fields (mode, owner, size, mtime, inode number, link
# count, device, target) and its xattrs, on a loop mount (where the
# kernel reads mksquashfs's image of that codec; a counted skip if not).
# Then the exit statuses: 2 for bad usage and unknown commands, 1 for
# missing paths and `cat` of a directory.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/imginfo/mktree.sh"
images_fixture
mkdir "$T/mnt"

for i in $(cat "$T/list"); do
	case $i in tar2sqfs-lz4|gensquashfs-lz4)
		skipc "$i: unsquashfs 4.5.1 rejects squashfs-tools-ng's lz4 images"
		continue;;
	esac
	rm -rf "$T/x"
	unsquashfs -q -n -d "$T/x" "$T/$i.img" > /dev/null 2>&1 || { fail "$i: unsquashfs -d"; continue; }
	TZ=UTC unsquashfs -lln "$T/$i.img" > "$T/l.txt" 2>&1
	mnt=
	if ! judge_ok "$i: stat on a kernel mount" kernel "${i#*-}"; then
		:
	elif mount -o loop,ro -t squashfs "$T/$i.img" "$T/mnt" 2> "$T/err"; then
		mnt=$T/mnt
	elif [ "${i%%-*}" = tar2img ]; then
		fail "$i: the kernel refuses our image: $(head -1 "$T/err")"
	else
		skipc "$i: stat on a kernel mount: the kernel refuses this peer's image"
	fi
	if $PYTHON3 "$top_srcdir/tests/imginfo/browse_check.py" "$IMGINFO" \
		"$T/$i.img" "$T/l.txt" "$T/x" $mnt > "$T/out" 2>&1; then
		pass "$i: ls -lR, cat${mnt:+ and stat} agree with the judges"
	else
		fail "$i"; head -c 1500 "$T/out"
	fi
	[ -z "$mnt" ] || umount "$T/mnt"
done

img=$T/tar2img-zstd.img
status() { # status WANT DESCRIPTION ARGS...: imginfo exits WANT
	want=$1 desc=$2; shift 2
	"$IMGINFO" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq "$want" ] && { [ "$want" -eq 0 ] || grep -q '^imginfo: ' "$T/err"; }; then
		pass "$desc: exit $want"
	else
		fail "$desc: exit $rc, wanted $want"; cat "$T/err"
	fi
}
status 2 "no arguments"
status 2 "unknown command" nosuch "$img"
status 2 "unknown option" ls --nope "$img"
status 2 "ls without IMAGE" ls
status 2 "cat without PATH" cat "$img"
status 1 "missing image" ls "$T/none.img"
status 1 "not an image" ls "$T/src.tar"
status 1 "missing path" ls "$img" nowhere
status 1 "stat of a missing path" stat "$img" dir/nowhere
status 1 "cat of a directory" cat "$img" dir
status 1 "cat of a symlink" cat "$img" dir/sym
status 0 "ls of a file" ls "$img" dir/h
check "ls of a file prints that file" grep -qx '/dir/h' "$T/out"
status 0 "ls of a directory" ls "$img" dir
check "ls of a directory prints its entries only" \
	test "$(tr '\n' ' ' < "$T/out")" = "/dir/deep /dir/h /dir/h-link /dir/rand-copy /dir/sym "
status 0 "ls -R of a subtree" ls -R "$img" /dir/./deep/
check "ls -R prints the subtree, itself first" \
	test "$(tr '\n' ' ' < "$T/out")" = "/dir/deep /dir/deep/er "
status 0 "cat of two files" cat "$img" dir/h text
check "cat of two files writes both" sh -c "cat '$T/src/dir/h' '$T/src/text' | cmp -s - '$T/out'"
status 0 "--help" --help
status 0 "ls --help" ls --help
finish
