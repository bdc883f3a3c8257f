#!/bin/sh
# SPDX-License-Identifier: MIT
# tablesize.sh - an image of many small files is mostly its inode and
# directory tables; ours must be no larger than tar2sqfs's for the same
# tar (each tool's default settings for a codec). It was larger until the
# inode numbers followed the inode table and listings stopped starting a
# header at each metadata block (doc/format-notes.md): 40 directories of
# 500 files gave 168,018 against 166,406 bytes with zstd and 141,810
# against 141,050 with xz. Sizes are read from both images by imginfo.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" tar2sqfs

T=$SCRATCH
IMGINFO=$SQP_BIN/imginfo
export SOURCE_DATE_EPOCH=1700000000
$PYTHON3 "$top_srcdir/tests/tar2img/mksmall.py" "$T/in.tar" 40 500 || exit 99

# tables IMAGE: the inode table's bytes plus the directory table's.
tables() {
	"$IMGINFO" --json "$1" | $PYTHON3 -c 'import json, sys
j = json.load(sys.stdin)
print(j["inode_table_bytes"] + j["directory_table_bytes"])'
}

for codec in zstd lz4 xz gzip; do
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	tar2sqfs -q -f -c $codec "$T/peer.img" < "$T/in.tar" > /dev/null 2>&1 ||
		{ skipc "$codec: tar2sqfs -c $codec failed"; continue; }
	run "$codec: tar2img" "$TAR2IMG" -q -f -c $codec "$T/our.img" "$T/in.tar" || continue
	ours=$(tables "$T/our.img") && peer=$(tables "$T/peer.img") || {
		fail "$codec: imginfo read the tables"; continue; }
	note "$codec: inode + directory tables: ours $ours, tar2sqfs $peer bytes"
	check "$codec: tables no larger than tar2sqfs's" [ "$ours" -le "$peer" ]
done
finish
