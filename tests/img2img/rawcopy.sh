#!/bin/sh
# SPDX-License-Identifier: MIT
# rawcopy.sh - when codec and block size stay, img2img copies the base's
# stored blocks as they are: for files a layer does not touch, the bytes
# of their data blocks and of their tails' fragment blocks in the new
# image are the base's bytes. The base is packed with xz level 0, which
# its superblock does not record: compressing the data again (at the
# default level 6) would give other bytes, so a recompressing img2img
# fails here. The changed file is the layer's, and a conversion to
# another codec recompresses everything.
. "$top_srcdir/tests/lib/common.sh"
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
codec_built xz || skip "xz not built"

S=$SCRATCH/src
mkdir -p "$S/d" || exit 99
seq 1 400000 > "$S/big" && seq 7 500000 > "$S/d/other" &&
for i in $(seq 1 50); do seq "$i" 900 > "$S/d/small$i"; done || exit 99
tar -C "$S" --sort=name -cf "$SCRATCH/src.tar" . || exit 99
base=$SCRATCH/base.img
run "tar2img xz level 0" "$TAR2IMG" -q -c xz -X level=0 "$base" "$SCRATCH/src.tar" || finish
mkdir -p "$SCRATCH/layer/d" && seq 1 3000 > "$SCRATCH/layer/d/other" &&
tar -C "$SCRATCH/layer" -cf "$SCRATCH/layer.tar" d/other || exit 99
run "img2img with one file changed" "$IMG2IMG" -q "$SCRATCH/new.img" "$base" \
	"$SCRATCH/layer.tar" || finish

# stored IMAGE PATH: the bytes of PATH's data blocks, then of its tail's
# whole fragment block, as imginfo stat places them.
stored() {
	"$IMGINFO" stat "$1" "$2" > "$SCRATCH/stat" || return 1
	set -- "$1" $(sed -n 's/^blocks: [0-9]* (start \([0-9]*\), \([0-9]*\) bytes stored.*/\1 \2/p' "$SCRATCH/stat") \
		$(sed -n 's/^fragment: .*block at \([0-9]*\), \([0-9]*\) bytes.*/\1 \2/p' "$SCRATCH/stat")
	[ $# -ge 3 ] || return 1
	tail -c +"$(($2 + 1))" "$1" | head -c "$3"
	[ $# -lt 5 ] || tail -c +"$(($4 + 1))" "$1" | head -c "$5"
}
same_stored() {
	stored "$base" "$1" > "$SCRATCH/a" && stored "$SCRATCH/new.img" "$1" > "$SCRATCH/b" &&
	test -s "$SCRATCH/a" && cmp -s "$SCRATCH/a" "$SCRATCH/b"
}
check "big (blocks and tail): the base's stored bytes" same_stored big
check "d/small7 (a tail): the base's fragment block" same_stored d/small7
check "d/small50 (a tail): the base's fragment block" same_stored d/small50
check "d/other, the changed file: the layer's contents" \
	sh -c "'$IMGINFO' cat '$SCRATCH/new.img' d/other | cmp -s - '$SCRATCH/layer/d/other'"
if "$IMGINFO" diff "$base" "$SCRATCH/new.img" | grep -v '^/d/other:' | grep -q .; then
	fail "the diff names the changed file only"
else
	pass "the diff names the changed file only"
fi

# Converting recompresses: no stored block of big stays the same.
run "img2img -c gzip" "$IMG2IMG" -q -c gzip "$SCRATCH/gz.img" "$base" &&
{
	stored "$SCRATCH/gz.img" big > "$SCRATCH/g" && stored "$base" big > "$SCRATCH/a"
	check "a conversion stores other bytes" sh -c "! cmp -s '$SCRATCH/a' '$SCRATCH/g'"
	check "a conversion reads equal" "$IMGINFO" diff -q "$base" "$SCRATCH/gz.img"
}
finish
