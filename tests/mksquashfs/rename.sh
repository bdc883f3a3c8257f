#!/bin/sh
# SPDX-License-Identifier: MIT
# rename.sh - several sources of one name, no image to append to:
# mksquashfs keeps the first as NAME and renames the others NAME_1,
# NAME_2... (skipping names taken, by a source's own name too), saying so
# on stderr; sqpack-mksquashfs did refuse the line. Debian's mksquashfs
# and ours make the image: unsquashfs -lln and the extracted trees equal,
# the same rename lines, and the links it renames through are gone. With
# -wildcards a source is excluded by the name it takes, and one excluded
# frees it: the next of that name keeps it (and is excluded too).
. "$top_srcdir/tests/append/both.sh"
mkdir -p "$T/a/x" "$T/b/x/sub" "$T/c/x" "$T/c/x_1" "$T/d/y" "$T/tmp" || exit 99
printf 'y\n' > "$T/d/y/j"
printf 'a\n' > "$T/a/x/f"
seq 1 30000 > "$T/b/x/sub/big"
printf 'c\n' > "$T/c/x/h"
printf 'c x_1\n' > "$T/c/x_1/i"
export SOURCE_DATE_EPOCH=1700000000 TMPDIR=$T/tmp
cd "$T" || exit 99

rm -f ref.img our.img
step "four sources, three named x" "a/x b/x c/x c/x_1" -noappend -no-progress
renames "four sources"
check "no renamed source left in TMPDIR" test -z "$(ls -A tmp)"
step "two sources of one name, -keep-as-directory" "c/x a/x" -noappend -keep-as-directory \
	-tailends -no-progress
# x excluded: the x after it keeps x and is excluded too, y is left
# (a top-level directory of a root of mksquashfs's own); x_1: the
# second x alone is; '*': all are, an empty root is left.
for pat in x x_1 x_1/sub '... x_1' '*'; do
	rm -f ref.img our.img
	step "-wildcards -e '$pat', sources x, y, x" "a/x d/y b/x" -noappend \
		-no-progress -wildcards -e "$pat"
	check "-wildcards -e '$pat': no link or directory left in TMPDIR" test -z "$(ls -A tmp)"
done
finish
