#!/bin/sh
# SPDX-License-Identifier: MIT
# huge.sh - a compressed EROFS file of more than 4 GiB: a sparse file of
# 4 GiB and 4 MiB whose random bytes straddle the 4 GiB mark, and a
# small file. Its million and more cluster indexes need more than one
# chunk of the writer's index arena, which used to store such a file
# uncompressed. dir2img -c lz4 compresses it (the image is tens of MiB,
# not 4 GiB) without reading the holes, the kernel's mount reads both
# files equal, and imginfo cat gives its bytes past 4 GiB. (A sparse
# source: the test takes no disk, but the writer compresses its 4 GiB
# of zeros and the readers decode them.)
. "$top_srcdir/tests/lib/common.sh"
need_tool truncate dd cmp
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH
codec_built lz4 || skip "lz4 not built"

make_src() {
	mkdir "$1" && truncate -s 4100M "$1/big" &&
	head -c 2097152 /dev/urandom | dd of="$1/big" bs=1M seek=4095 conv=notrunc 2> /dev/null &&
	echo small > "$1/small"
}
run "the sparse source" make_src "$T/src" || finish
# Its holes are not read: a compressed EROFS file stores their zeros as
# data, taken from memory (read(), they were 4 GiB of page-cache zeros:
# 4.4 s of system time here, of the test's 26 s).
if [ -r /proc/self/io ]; then
	got=$(bytes_read "$DIR2IMG" -q --format erofs -c lz4 "$T/big.erofs" "$T/src") ||
		{ fail "dir2img -c lz4"; finish; }
	check "dir2img reads the data, not the holes ($got bytes)" test "$got" -lt 67108864
else
	run "dir2img -c lz4" "$DIR2IMG" -q --format erofs -c lz4 "$T/big.erofs" "$T/src" || finish
fi
check "the file is compressed: the image is under 64 MiB" \
	test "$(wc -c < "$T/big.erofs")" -lt 67108864

# The last 8 MiB: the random bytes either side of 4 GiB and the end (so
# also the size: 8 MiB past 4092 MiB). Read through a pipe, not kept.
tail_of() { dd bs=1M skip=4092 iflag=fullblock 2> /dev/null; }
tail_of < "$T/src/big" > "$T/src.tail"
if { "$IMGINFO" cat "$T/big.erofs" /big 2> "$T/err" || echo "rc $?" >> "$T/err"; } |
	tail_of > "$T/out.tail" && ! grep -q "^rc " "$T/err"; then
	check "imginfo cat: the size and the bytes past 4 GiB" cmp -s "$T/out.tail" "$T/src.tail"
else
	fail "imginfo cat: $(head -c 300 "$T/err")"
fi

if judge_ok "the kernel's EROFS mount" kernel erofs; then
	mkdir "$T/m"
	if mount -t erofs -o loop,ro "$T/big.erofs" "$T/m" 2> "$T/err"; then
		check "the kernel reads the big file equal" cmp -s "$T/m/big" "$T/src/big"
		check "the kernel reads the small file equal" cmp -s "$T/m/small" "$T/src/small"
		umount "$T/m"
	else
		fail "the kernel does not mount it: $(head -c 200 "$T/err")"
	fi
fi
finish
