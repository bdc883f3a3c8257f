#!/bin/sh
# SPDX-License-Identifier: MIT
# sources.sh - every kind of source mksquashfs takes, with Debian's
# mksquashfs and with sqpack-mksquashfs on the same lines: a regular
# file, an empty one, a symlink to a file, to a directory and to nothing
# (none followed), a character and a block device, a fifo, a directory
# given through a symlink with a trailing '/', and "-" (no source, only
# -p definitions, with the "/" one it needs; refused without). Each
# alone, with -keep-as-directory and beside a directory in first runs;
# then appended one after another to one image, plain, with
# -root-becomes, with -keep-as-directory, renamed when their names are
# taken. After each
# run the two images hold the same tree (unsquashfs -lln and the
# extracted tree); a line mksquashfs refuses must be refused with its
# exit status, saying why, and an append refused leaves the image as it
# was. At the end the kernel mounts ours as the tree mksquashfs's holds.
. "$top_srcdir/tests/append/both.sh"
[ "$(id -u)" = 0 ] || skip "needs root: the sources include device nodes"
export LC_ALL=C
cd "$T" || exit 99
mkdir -p d/sub z || exit 99
printf 'in d\n' > d/sub/f
printf 'a file\n' > f
printf 'another f\n' > z/f
: > .empty
ln -s f ln
ln -s d dln
ln -s nowhere dangling
mknod cdev c 1 3 && mknod bdev b 7 0 && mkfifo fifo || exit 99
chown 1000:100 f && chmod 640 f && chown -h 42:42 ln || exit 99
find . -exec touch -h -d @1700000000 {} +
export SOURCE_DATE_EPOCH=1750000000

# same_run NAME "SOURCES" OPTIONS...: the line with each tool. Both
# succeed and the images hold the same tree; or both fail with the same
# exit status, our image (when appending) as it was, and same_run
# returns 1 for the caller to check the message.
same_run() {
	name=$1 srcs=$2; shift 2
	[ ! -f our.img ] || cp our.img our.prev || exit 99
	mksquashfs $srcs ref.img "$@" > ref.out 2>&1; rr=$?
	"$MKSQ" $srcs our.img "$@" > our.out 2>&1; ro=$?
	if [ $rr -ne $ro ]; then
		fail "$name: exit status $ro, mksquashfs's $rr"; tail -3 our.out
		return 0
	fi
	if [ $rr -ne 0 ]; then
		[ ! -f our.prev ] || cmp -s our.img our.prev ||
			fail "$name: refused, but the image changed"
		return 1
	fi
	compare "$name"
}
first() {
	rm -f ref.img our.img our.prev
	same_run "$@"
}
# refused NAME: the last run was refused for want of a "/" definition.
refused() {
	check "$1: refused (exit 1) for want of a \"/\" definition" \
		grep -q 'no pseudo definition for "/"' our.out
}

# First runs: each kind alone, kept as a directory, beside a directory.
for k in f .empty ln dln dangling cdev bdev fifo; do
	first "$k alone" "$k" -no-progress
	first "$k -keep-as-directory" "$k" -no-progress -keep-as-directory
	first "d and $k" "d $k" -no-progress
	first "$k and d -keep-as-directory" "$k d" -no-progress -keep-as-directory
done
first "all kinds at once" "f .empty ln dln dangling cdev bdev fifo d" -no-progress
first "- with /" - -no-progress -p "/ d 750 1 2" -p "x d 755 0 0"
first "- -keep-as-directory" - -no-progress -keep-as-directory -p "/ d 755 0 0"
first "- with /, other sources ignored" "- f d" -no-progress -p "/ d 755 0 0"
first "- without /" - -no-progress -p "x d 755 0 0" || refused "- without /"

# Packed by another user: a file in a directory that user may search but
# not list (mksquashfs needs no read permission there).
if command -v setpriv > /dev/null; then
	mkdir -p nolist out && printf 'x\n' > nolist/f && chmod 711 nolist &&
		chmod 777 out && chmod 711 "$SCRATCH" "$T" || exit 99
	rm -f ref.img our.img
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	if as_nobody mksquashfs nolist/f out/ref.img -no-progress > ref.out 2>&1; then
		if run "nolist/f as nobody" as_nobody "$MKSQ" nolist/f out/our.img \
		       -no-progress > our.out 2>&1; then
			cp out/ref.img out/our.img . && compare "nolist/f as nobody"
		else
			tail -3 our.out
		fi
	else
		skipc "nolist/f as nobody: mksquashfs itself fails: $(tail -1 ref.out)"
	fi
else
	skipc "nolist/f as nobody: no setpriv"
fi

# Appends, one after another to the image of d.
rm -f ref.img our.img
mksquashfs d ref.img -no-progress > ref.out 2>&1 || skip "mksquashfs fails to pack d"
run "the first run" "$MKSQ" d our.img -no-progress > our.out 2>&1 || finish
for k in f ln dln dangling cdev bdev fifo; do
	same_run "append: $k" "$k" -no-progress
done
same_run "append: f again (f_1)" f -no-progress
same_run "append: z/f (f_2)" z/f -no-progress
check "append: f, f_1 and f_2 at the root" \
	sh -c "grep -q '^-rw-r----- 1000/100 .* squashfs-root/f\$' '$T/our.ls' &&
	       grep -q '^-rw-r----- 1000/100 .* squashfs-root/f_1\$' '$T/our.ls' &&
	       grep -q '^-rw-r--r-- 0/0 .* squashfs-root/f_2\$' '$T/our.ls'"
same_run "append: .empty -root-becomes store" .empty -no-progress -root-becomes store
same_run "append: f -root-becomes gnu" f -no-progress \
	-root-becomes gnu
same_run "append: f and ln -root-becomes r1" "f ln" -no-progress -root-becomes r1
same_run "append: cdev -keep-as-directory" cdev -no-progress -keep-as-directory
same_run "append: fifo and bdev -keep-as-directory -root-becomes r2" "fifo bdev" \
	-no-progress -keep-as-directory -root-becomes r2
same_run "append: .empty and d" ".empty d" -no-progress
same_run "append: dln/ (its entries renamed)" dln/ -no-progress
same_run "append: - with /" - -no-progress -p "/ d 700 0 0" -p "newdir d 755 0 0"
same_run "append: - with / -root-becomes r3" - -no-progress -root-becomes r3 \
	-p "/ d 755 1 1"
same_run "append: - without /" - -no-progress -p "other d 755 0 0" ||
	refused "append: - without /"
judge_same_tree "appends" kernel gzip "$T/our.img" "$T/ref.d"
finish
