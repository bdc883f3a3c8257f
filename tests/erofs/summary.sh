#!/bin/sh
# SPDX-License-Identifier: MIT
# summary.sh - the reports that say what an image is (sqp_image_info's
# format and codecs): imginfo summary's "format:" and "codec:" lines and
# its JSON, and sqpack-unsquashfs -s, on EROFS images whose algorithms
# are known (mkfs.erofs 1.8.10's fixtures: lzma, deflate, zstd, lzma and
# lz4 in one image; our writer's lz4 and uncompressed images; Debian's
# mkfs.erofs -zlz4 where it is installed) and on a SquashFS image, which
# keeps unsquashfs's report.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
IMGINFO="$top_builddir/bin/imginfo"
UNSQUASHFS="$top_builddir/bin/sqpack-unsquashfs"
DIR2IMG="$top_builddir/bin/dir2img"
F=$top_srcdir/tests/erofs/fixtures
T=$SCRATCH

mkdir -p "$T/src/d" && seq 1 20000 > "$T/src/d/seq" && echo hi > "$T/src/a" || finish
run "our EROFS image, uncompressed" "$DIR2IMG" -q --format erofs "$T/none.erofs" "$T/src" || finish
if codec_built lz4; then
	run "our EROFS image, lz4" "$DIR2IMG" -q --format erofs -c lz4 "$T/lz4.erofs" "$T/src" || finish
fi
run "a SquashFS image" "$DIR2IMG" -q "$T/ref.sqfs" "$T/src" || finish
if command -v mkfs.erofs > /dev/null 2>&1; then
	mkfs.erofs -zlz4 "$T/mkfs.erofs" "$T/src" > "$T/err" 2>&1 ||
		fail "mkfs.erofs -zlz4: $(tail -c 200 "$T/err")"
else
	skipc "mkfs.erofs is not installed"
fi

# says IMAGE FORMAT CODECS: the text summary, the JSON and -s say it.
says() {
	[ -f "$1" ] || return 0
	n=$(basename "$1")
	"$IMGINFO" "$1" > "$T/s.txt" 2> "$T/err" || { fail "$n: imginfo: $(head -c 200 "$T/err")"; return; }
	check "$n: summary says format $2" grep -qx "format: *$2" "$T/s.txt"
	if [ "$2" = erofs ]; then
		check "$n: summary says codec $3" grep -qx "codec: *$3" "$T/s.txt"
	else
		check "$n: summary says codec $3" grep -q "^codec: *$3 " "$T/s.txt"
	fi
	"$IMGINFO" summary --json "$1" > "$T/s.json" 2> "$T/err" || { fail "$n: imginfo --json"; return; }
	check "$n: JSON says format $2 and codecs $3" "$PYTHON3" -c 'import json, sys
j = json.load(open(sys.argv[1]))
want = [] if sys.argv[3] == "none" else sys.argv[3].split(",")
sys.exit(not (j["format"] == sys.argv[2] and j["codecs"] == want))' "$T/s.json" "$2" "$3"
	"$UNSQUASHFS" -s "$1" > "$T/u.txt" 2> "$T/err"
	check "$n: sqpack-unsquashfs -s exits 0" test $? = 0
	if [ "$2" = erofs ]; then
		check "$n: -s says EROFS" grep -qx "Found a valid EROFS superblock on $1." "$T/u.txt"
		check "$n: -s says Compression $3" grep -qx "Compression $3" "$T/u.txt"
		check "$n: -s says Block size 4096" grep -qx "Block size 4096" "$T/u.txt"
		check "$n: -s says nothing of SquashFS's" sh -c '! grep -qi "squashfs\|fragments\|Number of" "$1"' - "$T/u.txt"
	else
		check "$n: -s says SQUASHFS 4:0" grep -qx "Found a valid SQUASHFS 4:0 superblock on $1." "$T/u.txt"
		check "$n: -s says Compression $3" grep -qx "Compression $3" "$T/u.txt"
	fi
}

says "$F/lzma.img" erofs lzma
says "$F/deflate.img" erofs deflate
says "$F/zstd.img" erofs zstd
says "$F/multi.img" erofs lzma,lz4
says "$F/lz4frag.img" erofs lz4
says "$T/none.erofs" erofs none
says "$T/lz4.erofs" erofs lz4
says "$T/mkfs.erofs" erofs lz4
says "$T/ref.sqfs" squashfs zstd
finish
