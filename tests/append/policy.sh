#!/bin/sh
# SPDX-License-Identifier: MIT
# policy.sh - an append's owner, time and exclude options apply to the
# new sources only: mksquashfs leaves the image's entries as they are.
# An image of files with their own owners and times, then appends with
# -all-root, -force-uid/-force-gid, -all-time and -e (a name the image
# has too): Debian's mksquashfs and sqpack-mksquashfs must give the same
# tree after every run.
. "$top_srcdir/tests/append/both.sh"
mkdir -p "$T/a/x" "$T/a/keep" "$T/b/y" "$T/c/x" || exit 99
printf 'one\n' > "$T/a/x/f"; printf 'kept\n' > "$T/a/keep/k"
printf 'two\n' > "$T/b/y/g"; printf 'three\n' > "$T/c/x/h"
chown -R 1234:5678 "$T/a" || skip "cannot give the files other owners"
find "$T/a" "$T/b" "$T/c" -exec touch -h -d @1600000000 {} +
touch -d @1500000000 "$T/a/keep/k"
export SOURCE_DATE_EPOCH=1700000000
cd "$T" || exit 99

rm -f ref.img our.img
step "the image, its own owners and times" "a/x a/keep" -noappend -no-progress
# mksquashfs takes -all-time only without SOURCE_DATE_EPOCH
unset SOURCE_DATE_EPOCH
step "-all-root and -all-time on append" b/y -all-root -all-time 5 -mkfs-time 1 -no-progress
export SOURCE_DATE_EPOCH=1700000000
step "-force-uid and -force-gid on append" c/x -force-uid 7 -force-gid 9 -no-progress
step "-e naming an entry the image has too" "b c" -e x -no-progress
# the image's owners survived every run (not just equal to mksquashfs's)
unsquashfs -lln our.img > our.ls 2>&1
check "the image's entries keep their owner" grep -q "1234/5678.*/x/f" our.ls
check "the image's entries keep their time" grep -q "2017-07-14 02:40 .*/keep/k" our.ls
finish
