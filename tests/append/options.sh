#!/bin/sh
# SPDX-License-Identifier: MIT
# options.sh - the options an append combines with, against Debian's
# mksquashfs: xattrs (stored on append unless the image stores none,
# whatever -no-xattrs says; an image's own xattrs always kept), the
# options the image overrules (-comp, -b, -noI, -noD, -no-fragments,
# -no-duplicates, -no-exports), the image's compressor options kept, and
# -no-hardlinks on the new sources.
. "$top_srcdir/tests/append/both.sh"
mkdir -p "$T/base/d" "$T/new/sub" || exit 99
printf 'same bytes\n' > "$T/base/d/one"
seq 1 30000 > "$T/base/big"
cp "$T/base/d/one" "$T/new/copy"                 # a duplicate of the image's
seq 1 30000 > "$T/new/sub/big"
ln "$T/new/copy" "$T/new/sub/link"
if ! $PYTHON3 -c 'import os, sys
os.setxattr(sys.argv[1] + "/base/d/one", "user.old", b"from the image")
os.setxattr(sys.argv[1] + "/new/sub/big", "user.new", b"appended")' "$T" 2>/dev/null; then
	skip "no user.* xattrs on $T"
fi
find "$T/base" "$T/new" -exec touch -h -d @1600000000 {} +
export SOURCE_DATE_EPOCH=1700000000
cd "$T" || exit 99

rm -f ref.img our.img
step "an image with xattrs" base -no-progress
step "-no-xattrs: xattrs still stored" new -keep-as-directory -no-xattrs -no-progress
step "overruled options" new -comp xz -b 1M -noI -noD -no-fragments -no-duplicates \
	-no-exports -no-progress
settings "overruled options"
step "-no-hardlinks on the new sources" new -no-hardlinks -keep-as-directory -no-progress

rm -f ref.img our.img
step "an image without xattrs (-no-xattrs)" base -no-xattrs -no-progress
step "-no-xattrs again: none stored" new -keep-as-directory -no-xattrs -no-progress

# The image's compressor options are the appended data's too.
rm -f ref.img our.img
step "an xz image with an 8K dictionary" base -comp xz -Xdict-size 8K -no-progress
step "appended with -comp gzip" new -keep-as-directory -comp gzip -no-progress
settings "the image's compressor options"
finish
