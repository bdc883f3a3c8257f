#!/bin/sh
# SPDX-License-Identifier: MIT
# ztail.sh - with --ztailpacking, the cluster that takes the rest of a
# compressed file into no more than the room after its inode goes
# inline, decided by that cluster's own compression, however long the
# rest: a 512 KiB file of one repeated line (one cluster, inline), 40 KiB
# of random bytes then 128 KiB of a repeated line (ten PLAIN clusters,
# the rest inline), 3,000 bytes of text (compressed within their one
# block, inline) and 300,000 bytes of numbered lines (clusters, then a
# tail). Per codec built (lz4, lz4hc, lzma, deflate, zstd): imginfo stat
# says how many bytes each file stores (under a block for the inline
# ones), the same bytes for -j 1, 2 and 3, imginfo check clean, the
# kernel's mount (and for lz4 and lz4hc Debian's fsck.erofs, where it
# reads mkfs.erofs's own -Eztailpacking image) equal to the source.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

# Random bytes from a fixed seed, so that a failure can be replayed.
make_tree() {
	$PYTHON3 -c 'import random, sys
d, r = sys.argv[1], random.Random(26)
def text(n):
    lines = (b"%08d line of text, %d\n" % (i, i % 89) for i in range(n // 20 + 1))
    return b"".join(lines)[:n]
open(d + "/rep", "wb").write(b"abcdefghijklmno\n" * 32768)
open(d + "/randrep", "wb").write(r.getrandbits(8 * 40960).to_bytes(40960, "little") +
                                 b"0123456789abcde\n" * 8192)
open(d + "/small", "wb").write(text(3000))
open(d + "/lines", "wb").write(text(300000))' "$1"
}
mkdir -p "$T/src" || finish
run "make the tree" make_tree "$T/src" || finish

# stored IMAGE PATH: the bytes imginfo stat says PATH stores.
stored() {
	"$IMGINFO" stat "$1" "$2" 2> "$T/err" |
		sed -n 's/^blocks: .*, \([0-9]*\) bytes stored,.*/\1/p'
}
# stored_in NAME IMAGE PATH LOW HIGH: PATH stores more than LOW bytes
# and fewer than HIGH.
stored_in() {
	si_n=$(stored "$2" "$3")
	check "$1: $3 stores $si_n bytes, over $4 and under $5" \
		test -n "$si_n" -a "${si_n:-0}" -gt "$4" -a "${si_n:-0}" -lt "$5"
}

fsck_set=no
if command -v mkfs.erofs > /dev/null 2>&1 && judge_can fsck.erofs erofs; then
	mkfs.erofs --quiet -zlz4 -Eztailpacking "$T/probe.erofs" "$T/src" > "$T/err" 2>&1 &&
		fsck.erofs --extract="$T/probe" "$T/probe.erofs" > "$T/err" 2>&1 && fsck_set=yes
fi

# codec, the library codec_built names, dir2img's options.
while read -r codec lib copt; do
	codec_built "$lib" || { skipc "$codec: $lib not built"; continue; }
	img=$T/$codec.erofs
	for j in 1 2 3; do
		# shellcheck disable=SC2086
		"$DIR2IMG" -q -j $j --format erofs $copt --ztailpacking "$T/$codec.$j.erofs" \
			"$T/src" 2> "$T/err" ||
			{ fail "$codec: dir2img -j $j: $(head -c 300 "$T/err")"; continue 2; }
	done
	cp "$T/$codec.1.erofs" "$img"
	check "$codec: the same bytes for -j 1 and 2" cmp -s "$img" "$T/$codec.2.erofs"
	check "$codec: the same bytes for -j 1 and 3" cmp -s "$img" "$T/$codec.3.erofs"
	stored_in "$codec" "$img" /rep 0 4096
	stored_in "$codec" "$img" /randrep $((10 * 4096)) $((11 * 4096))
	stored_in "$codec" "$img" /small 0 3000
	check "$codec: imginfo check finds nothing" "$IMGINFO" check "$img"
	judge_same_tree "$codec" kernel erofs "$img" "$T/src"
	case $codec in lz4*)
		if [ $fsck_set = yes ]; then
			judge_same_tree "$codec" fsck.erofs erofs "$img" "$T/src" --no-xattrs --no-hardlinks
		else
			skipc "$codec: fsck.erofs cannot read mkfs.erofs's -Eztailpacking image here"
		fi ;;
	esac
done <<EOF
lz4 lz4 -c lz4
lz4hc lz4 -c lz4 -X hc
lzma lzma -c lzma
deflate gzip -c deflate
zstd zstd -c zstd
EOF
finish
