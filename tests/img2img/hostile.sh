#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile.sh - a corrupt base gives a message and exit 1, or an image
# (a flipped byte inside a stored block is copied as it is: that is the
# price of not decompressing, see basecopy.c; a conversion, which
# decodes, refuses it), never a crash or a hang,
# and a failed run leaves no OUTPUT. The corruptions of mkcorrupt.py,
# and block lists that do not fit the base (mkbadlist.py), which only
# img2img's own checks can catch since the reader decompresses nothing
# there: each of those must be refused.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3"
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
codec_built gzip || skip "gzip not built"

T=$SCRATCH
corrupt_set "$T" || exit 99
for name in $(cat "$T/bad/cases.txt"); do
	rm -f "$T/out.img"
	timeout 60 "$IMG2IMG" -q "$T/out.img" "$T/bad/$name" > /dev/null 2> "$T/err"
	rc=$?
	if [ $rc = 1 ] && grep -q '^img2img: ' "$T/err" && [ ! -e "$T/out.img" ]; then
		pass "$name: refused: $(head -c 100 "$T/err")"
	elif [ $rc = 0 ] && [ -s "$T/out.img" ]; then
		pass "$name: an image"
	else
		fail "$name: exit $rc: $(head -c 200 "$T/err")"
	fi
done

# Converting decodes every block: a flipped one is refused.
if codec_built zstd; then
	rm -f "$T/out.img"
	"$IMG2IMG" -q -c zstd "$T/out.img" "$T/bad/flipped-first-data-block.img" 2> "$T/err"
	check "-c zstd of a flipped data block: exit 1, a message, no image" \
		sh -c "test $? = 1 && grep -q 'converting a block of the base image' '$T/err' && test ! -e '$T/out.img'"
else
	skipc "zstd not built"
fi

# Block lists that lie, in an image with uncompressed inodes.
mkdir -p "$T/l" "$T/lbad" && seq 1 200000 > "$T/l/big" && echo hi > "$T/l/small" &&
tar -C "$T/l" -cf "$T/l.tar" . || exit 99
run "tar2img --uncompressed=inodes" "$TAR2IMG" -q -c gzip --uncompressed=inodes \
	"$T/list.img" "$T/l.tar" || finish
"$IMGINFO" stat "$T/list.img" big > "$T/stat" || exit 99
start=$(sed -n 's/^blocks: [0-9]* (start \([0-9]*\),.*/\1/p' "$T/stat")
frag=$(sed -n 's/^fragment: \([0-9]*\) (offset \([0-9]*\),.*/\1 \2/p' "$T/stat")
$PYTHON3 "$top_srcdir/tests/img2img/mkbadlist.py" "$T/list.img" "$start" $frag \
	1288895 "$T/lbad" || exit 99
run "the list image itself rewrites" "$IMG2IMG" -q "$T/list.out.img" "$T/list.img"
for bad in "$T"/lbad/*.img; do
	name=${bad##*/}
	rm -f "$T/out.img"
	timeout 60 "$IMG2IMG" -q "$T/out.img" "$bad" > /dev/null 2> "$T/err"
	rc=$?
	if [ $rc = 1 ] && grep -q "'big'" "$T/err" && [ ! -e "$T/out.img" ]; then
		pass "$name: refused: $(head -c 150 "$T/err")"
	else
		fail "$name: exit $rc (want 1, a message naming 'big', no image): $(head -c 200 "$T/err")"
	fi
done
finish
