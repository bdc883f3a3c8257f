#!/bin/sh
# SPDX-License-Identifier: MIT
# summary.sh - `imginfo IMAGE` and `imginfo --json IMAGE` on images of one
# tree by mksquashfs, gensquashfs, tar2sqfs and tar2img, every codec each
# can write: the JSON parses, its superblock fields equal unsquashfs
# -s's, its counts of each type equal unsquashfs -lln's listing, the file
# bytes the tree's, and data + fragments + tables add up to the image
# size. Dedup savings are positive when a packer shares the duplicate
# file, and zero when told not to.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/imginfo/mktree.sh"
images_fixture

for i in $(cat "$T/list"); do
	if ! "$IMGINFO" --json "$T/$i.img" > "$T/j.json" 2> "$T/err"; then
		fail "$i: imginfo --json: $(cat "$T/err")"; continue
	fi
	case $i in tar2sqfs-lz4|gensquashfs-lz4)
		skipc "$i: unsquashfs 4.5.1 rejects squashfs-tools-ng's lz4 images"
		continue;;
	esac
	unsquashfs -s "$T/$i.img" > "$T/s.txt" 2>&1
	unsquashfs -lln "$T/$i.img" > "$T/l.txt" 2>&1
	if $PYTHON3 "$top_srcdir/tests/imginfo/summary_check.py" "$T/j.json" \
		"$T/s.txt" "$T/l.txt" "$T/src" > "$T/out"; then
		pass "$i: summary agrees with unsquashfs and the tree"
	else
		fail "$i: summary"; cat "$T/out"
	fi
	codec=${i#*-}
	"$IMGINFO" "$T/$i.img" > "$T/text" &&
		check "$i: text summary names the codec" grep -q "^codec: *$codec " "$T/text"
done

# (summary_check.py parses every image's JSON; json.tool once more here)
"$IMGINFO" --json "$T/tar2img-zstd.img" > "$T/j.json" &&
	check "--json is valid JSON for json.tool" $PYTHON3 -m json.tool "$T/j.json" /dev/null

# jfield NAME: a number from $T/j.json
jfield() {
	$PYTHON3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$T/j.json" "$1"
}
savings() { # savings DESCRIPTION IMAGE TEST-OP
	"$IMGINFO" --json "$2" > "$T/j.json" &&
		check "$1: dedup_savings $3 0" test "$(jfield dedup_savings)" "$3" 0
}
mksquashfs "$T/src" "$T/nd.img" -noappend -quiet -no-progress -no-duplicates > /dev/null 2>&1
savings "mksquashfs" "$T/mksquashfs-gzip.img" -gt
savings "mksquashfs -no-duplicates" "$T/nd.img" -eq
savings "tar2img" "$T/tar2img-zstd.img" -gt
"$TAR2IMG" -q --no-dedup "$T/nd.img" "$T/src.tar" 2>/dev/null
savings "tar2img --no-dedup" "$T/nd.img" -eq
"$TAR2IMG" -q -f --exportable "$T/nd.img" "$T/src.tar" 2>/dev/null
"$IMGINFO" --json "$T/nd.img" > "$T/j.json"
check "tar2img --exportable: exportable" test "$(jfield exportable)" = True
check "tar2img --exportable: export table bytes" test "$(jfield export_table_bytes)" -gt 0
finish
