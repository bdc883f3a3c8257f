#!/bin/sh
# SPDX-License-Identifier: MIT
# nostrip.sh - -no-strip: each source packed at its path, the directories
# on the way with their own attributes, with Debian's mksquashfs and with
# sqpack-mksquashfs on the same lines (sqpack-mksquashfs did refuse the
# option). A tree of our own, its times fixed: paths from the current
# directory and from its parent ("../"), "./" and "//" in them, sources
# sharing leading directories, one inside another, one given twice,
# files, symlinks and devices as the last component, paths starting in
# different directories (a root of mksquashfs's own), -keep-as-directory,
# -root-*, excludes, a tar, "-" for none; lines mksquashfs refuses ('.' or '..' inside
# a path, but for one inside a source given before it, nothing left of
# a path, a symlink on the way, a missing path) are refused with its
# exit status. Then appends one after another, a source
# whose first component the image holds refused, the image as it was.
# After each run the two images hold the same tree (unsquashfs -lln and
# the extracted tree). Last, an absolute path: only the directories it
# names are read, not their other entries.
. "$top_srcdir/tests/append/both.sh"
export LC_ALL=C
R=$T/t W=$T/t/w
mkdir -p "$W/a/b/c" "$W/a/b/d" "$W/x" "$W/y/z" || exit 99
printf 'in c\n' > "$W/a/b/c/f"
printf 'in d\n' > "$W/a/b/d/g"
printf 'a file\n' > "$W/a/file"
printf 'deep\n' > "$W/y/z/h"
ln -s a "$W/la"
ln -s nowhere "$W/a/dangling"
mkfifo "$W/a/fifo" || exit 99
devs=
if [ "$(id -u)" = 0 ]; then
	mknod "$W/a/cdev" c 1 3 && mknod "$W/a/bdev" b 7 0 || exit 99
	chown 12:34 "$W/a/b" "$W/a/file" && chown -h 56:78 "$W/la" || exit 99
	devs="a/cdev a/bdev"
fi
chmod 750 "$W/a" && chmod 711 "$W/a/b" && chmod 705 "$W" && chmod 700 "$R" &&
	chmod 640 "$W/a/file" || exit 99
find "$R" -exec touch -h -d @1700000000 {} +
touch -d @1600000000 "$W/a/b" "$W" && touch -d @1650000000 "$R" || exit 99
export SOURCE_DATE_EPOCH=1750000000

# both NAME "SOURCES" OPTIONS...: the line with each tool, -no-strip
# first among the options, the images in $T (not in the tree packed).
# Both succeed and the images hold the same tree; or both fail with the
# same exit status and our image (when appending) is as it was; then
# both returns 1.
both() {
	name=$1 srcs=$2; shift 2
	[ ! -f "$T/our.img" ] || cp "$T/our.img" "$T/our.prev" || exit 99
	mksquashfs $srcs "$T/ref.img" -no-strip "$@" > "$T/ref.out" 2>&1; rr=$?
	"$MKSQ" $srcs "$T/our.img" -no-strip "$@" > "$T/our.out" 2>&1; ro=$?
	if [ $rr -ne $ro ]; then
		fail "$name: exit status $ro, mksquashfs's $rr"; tail -3 "$T/our.out"
		return 0
	fi
	if [ $rr -ne 0 ]; then
		if [ -f "$T/our.prev" ] && ! cmp -s "$T/our.img" "$T/our.prev"; then
			fail "$name: refused, but the image changed"
		else
			pass "$name: refused by both (exit status $rr)"
		fi
		return 1
	fi
	compare "$name"
}
first() {
	rm -f "$T/ref.img" "$T/our.img" "$T/our.prev"
	both "$@"
}

cd "$W" || exit 99
first "a/b/c" a/b/c -no-progress
first "./a/b/c" ./a/b/c -no-progress
first "a//b/c/" a//b/c/ -no-progress
first "a alone" a -no-progress
first "a/b/c and a/b/d: a/b once" "a/b/c a/b/d" -no-progress
first "a/b and a/b/c inside it" "a/b a/b/c" -no-progress
first "a/b/c and a/b around it" "a/b/c a/b" -no-progress
first "a/b/c twice" "a/b/c a/b/c" -no-progress
first "a/file twice and y/z/h" "a/file y/z/h a/file" -no-progress
first "leaves: file, symlinks, fifo, devices" \
	"a/file la a/dangling a/fifo $devs" -no-progress
first "../w/a/b: the root is .." ../w/a/b -no-progress
first "./../w/x and ../w/y" "./../w/x ../w/y" -no-progress
first "a/b and ../w/x: a root of its own" "a/b ../w/x" -no-progress
first "a/b/c -keep-as-directory" a/b/c -no-progress -keep-as-directory
first "a/b y -root-becomes r (first run)" "a/b y" -no-progress -root-becomes r
first "a/b -root-mode 700 -root-uid 5 -root-gid 6" a/b -no-progress \
	-root-mode 700 -root-uid 5 -root-gid 6
first "a/b ../w/x -root-time 1000 -all-root" "a/b ../w/x" -no-progress \
	-root-time 1000 -all-root
first "a/b y -e c z" "a/b y" -no-progress -e c z
first "a/b -e ./a/b/d" a/b -no-progress -e ./a/b/d
first "a y -wildcards -e '... f*'" "a y" -no-progress -wildcards -e '... f*'
# refused; but a '.' or '..' in a path inside a tree given before it
# is not looked at (that tree is taken whole), a missing path always is
for line in a/./b a/b/.. . .. ./ ../ "a ." la/b a/nope "a/b/c/. a/b" \
	"a/b a/b/c/." "a a/." "a/b a/b/./c" "a/b/c a/b/./c" "a/b a/b/c/../d" \
	"a/b a/b/../x" "a/b a/b/nope"; do
	first "'$line'" "$line" -no-progress
done
# a tar's paths are its own: mksquashfs takes the option and ignores it
tar -cf "$T/in.tar" a/b || exit 99
rm -f "$T/ref.img" "$T/our.img"
if mksquashfs - "$T/ref.img" -tar -no-strip -no-progress < "$T/in.tar" \
	> "$T/ref.out" 2>&1; then
	run "a tar -no-strip" "$MKSQ" - "$T/our.img" -tar -no-strip -no-progress \
		< "$T/in.tar" > "$T/our.out" 2>&1 && compare "a tar -no-strip"
else
	skipc "a tar -no-strip: mksquashfs itself fails: $(tail -1 "$T/ref.out")"
fi

# "-" for no source: the "/" definition is ignored and needs not be
# given, the root is one of mksquashfs's own, in a first run and when
# appending
first "- with a '/' definition" - -no-progress -p "/ d 755 0 0" -p "x d 750 1 2"
both "append: - -p y" - -no-progress -p "y d 700 3 4"
first "- without '/', -keep-as-directory" - -no-progress -keep-as-directory \
	-p "x d 750 1 2"

# Appends, one after another to one image.
first "append: the first run, a/b/c" a/b/c -no-progress
both "append: x" x -no-progress
both "append: a/b/d, a taken" a/b/d -no-progress
both "append: la and y/z" "la y/z" -no-progress
both "append: a/file, a taken" a/file -no-progress
both "append: ../w/a/file -root-becomes r" ../w/a/file -no-progress -root-becomes r
cd a/b || exit 99
both "append: d from a/b (its root)" d -no-progress
cd "$W" || exit 99
both "append: a/fifo and x -root-becomes a, a taken" "a/fifo x" -no-progress \
	-root-becomes a
both "append: ../w/a/b/c -root-becomes w, w taken" ../w/a/b/c -no-progress \
	-root-becomes w
both "append: a/b/c/f and ../w/y/z: a root of its own" "a/b/c/f ../w/y/z" \
	-no-progress -root-becomes q

# An absolute path: its leading directories are the real ones, so their
# times are set (-all-time) and nothing else of theirs is read.
unset SOURCE_DATE_EPOCH
first "a/b by its absolute path, -all-time" "$W/a/b" -no-progress -all-time 1234567890
cd "$T" || exit 99
finish
