#!/bin/sh
# SPDX-License-Identifier: MIT
# summary.sh - the reports that say what an image is (sqp_image_info's
# format and codecs): imginfo summary's "format:" and "codec:" lines and
# its JSON, and sqpack-unsquashfs -s, on EROFS images whose algorithms
# are known (mkfs.erofs 1.8.10's fixtures: lzma, deflate, zstd, lzma and
# lz4 in one image; our writer's lz4 and uncompressed images; Debian's
# mkfs.erofs -zlz4 where it is installed) and on a SquashFS image, which
# keeps unsquashfs's report; -s gives an EROFS image's inode count as
# its superblock holds it, which scripts read. EROFS in its own terms:
# imginfo's inode count and packed inode (dump.erofs's "packed nid":
# the fragments) are the superblock's, read here; neither imginfo nor
# the packer's summary speaks of fragment blocks there.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
IMGINFO="$SQP_BIN/imginfo"
UNSQUASHFS="$SQP_BIN/sqpack-unsquashfs"
DIR2IMG="$SQP_BIN/dir2img"
F=$top_srcdir/tests/erofs/fixtures
T=$SCRATCH

mkdir -p "$T/src/d" && seq 1 20000 > "$T/src/d/seq" && echo hi > "$T/src/a" || finish
run "our EROFS image, uncompressed" "$DIR2IMG" -q --format erofs "$T/none.erofs" "$T/src" || finish
if codec_built lz4; then
	run "our EROFS image, lz4" "$DIR2IMG" --format erofs -c lz4 "$T/lz4.erofs" "$T/src" > "$T/lz4.out" || finish
	check "the packer's summary: no packed inode" grep -q "; fragments none; " "$T/lz4.out"
	run "our EROFS image, lz4 with fragments" "$DIR2IMG" --format erofs -c lz4 \
		--erofs-fragments "$T/frag.erofs" "$T/src" > "$T/frag.out" || finish
	check "the packer's summary: the packed inode" \
		grep -q "; fragments in the packed inode; " "$T/frag.out"
	check "the packer's summary: no fragment blocks" \
		sh -c '! grep -q "fragment blocks\|tails shared" "$@"' - "$T/lz4.out" "$T/frag.out"
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
		check "$n: -s says nothing of SquashFS's" sh -c '! grep -qi "squashfs\|fragments" "$1"' - "$T/u.txt"
		# the superblock's inos and packed_nid (le64s at 16 and 96)
		sb=$("$PYTHON3" -c 'import struct, sys
f = open(sys.argv[1], "rb"); f.seek(1024); b = f.read(128)
print(struct.unpack_from("<Q", b, 16)[0], struct.unpack_from("<Q", b, 96)[0])' "$1")
		inos=${sb% *} packed=${sb#* }
		check "$n: -s says Number of inodes $inos" grep -qx "Number of inodes $inos" "$T/u.txt"
		check "$n: summary says of $inos inodes" grep -q "^entries: .* of $inos inodes," "$T/s.txt"
		check "$n: summary says no fragment blocks" sh -c '! grep -q "^fragments:" "$1"' - "$T/s.txt"
		if [ "$packed" != 0 ]; then
			check "$n: summary says packed inode nid $packed" grep -q "^packed inode: *nid $packed, " "$T/s.txt"
		else
			check "$n: summary says no packed inode" grep -qx "packed inode: *none (no fragments)" "$T/s.txt"
		fi
		check "$n: JSON says inode_count $inos and packed_nid $packed" "$PYTHON3" -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not (j["inode_count"] == int(sys.argv[2]) and j["packed_nid"] == int(sys.argv[3])
              and j["has_fragments"] == (sys.argv[3] != "0")))' "$T/s.json" "$inos" "$packed"
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
says "$T/frag.erofs" erofs lz4
says "$T/mkfs.erofs" erofs lz4
says "$T/ref.sqfs" squashfs zstd
finish
