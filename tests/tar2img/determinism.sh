#!/bin/sh
# SPDX-License-Identifier: MIT
# determinism.sh - the image depends on the input only: for every codec,
# byte-identical for -j 1 from a file, -j 8 through a pipe and -j 3 from
# gzip input on stdin (each run proves both of its differences); for
# every input compression at -j 2; and for -j 1 vs 4 under each layout
# option (options that combine are given together: each run is a whole
# pack). The image time is SOURCE_DATE_EPOCH, else the newest mtime.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" cmp gzip

T=$(fast_dir) || exit 99
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
gzip -1 -c "$T/in.tar" > "$T/in.tar.gz"
unset SOURCE_DATE_EPOCH

for codec in $ALL_CODECS; do
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	"$TAR2IMG" -q -c "$codec" -j 1 "$T/ref.img" "$T/in.tar" || { fail "$codec: -j 1"; continue; }
	run "$codec: tar2img -j 8 from a pipe" sh -c 'cat "$1" | "$2" -q -c "$3" -j 8 "$4"' \
		sh "$T/in.tar" "$TAR2IMG" "$codec" "$T/pipe.img" &&
		check "$codec: -j 8 from a pipe equals -j 1 from the file" cmp -s "$T/ref.img" "$T/pipe.img"
	run "$codec: tar2img -j 3 of gzip input" "$TAR2IMG" -q -c "$codec" -j 3 "$T/gz.img" - < "$T/in.tar.gz" &&
		check "$codec: -j 3 of gzip-compressed input equals -j 1 of the tar" cmp -s "$T/ref.img" "$T/gz.img"
	rm -f "$T"/*.img
done
# What follows is about the input and the layout, not the codec: lz4
# where built (zstd, the default, packs at level 15: half a CPU-second
# a run, and CI runs this script under TSan too).
c=
! codec_built lz4 || c="-c lz4"
# Every input compression gives the same image.
# shellcheck disable=SC2086
"$TAR2IMG" -q $c -j 2 "$T/ref.img" "$T/in.tar" || fail "the reference image"
for z in "xz -1" "zstd -1" "lz4 -1" "bzip2 -1"; do
	if ! command -v ${z% *} >/dev/null 2>&1; then skipc "${z% *}-compressed input: ${z% *} not installed"; continue; fi
	$z -c < "$T/in.tar" > "$T/in.z" || exit 99
	# shellcheck disable=SC2086
	if "$TAR2IMG" -q $c -j 2 "$T/z.img" - < "$T/in.z" 2> "$T/err"; then
		check "${z% *}-compressed input from a pipe is identical" cmp -s "$T/ref.img" "$T/z.img"
	else
		fail "${z% *}-compressed input: $(grep -v warning "$T/err" | head -c 300)"
	fi
	rm -f "$T/in.z" "$T/z.img"
done
# The layout options do not bring in the thread count either.
for opts in "-b 4K --no-dedup" "-b 1M --exportable --no-pad" "--no-fragments" "--no-tailends"; do
	if "$TAR2IMG" -q $c -j 1 $opts "$T/a.img" "$T/in.tar" 2> "$T/err" &&
	   "$TAR2IMG" -q $c -j 4 $opts "$T/b.img" "$T/in.tar" 2> "$T/err"; then
		check "$opts: -j 4 equals -j 1" cmp -s "$T/a.img" "$T/b.img"
	else
		fail "$opts: tar2img: $(grep -v warning "$T/err" | head -c 300)"
	fi
	rm -f "$T/a.img" "$T/b.img"
done
# shellcheck disable=SC2086
run "tar2img with SOURCE_DATE_EPOCH" env SOURCE_DATE_EPOCH=1234567890 "$TAR2IMG" -q $c "$T/e.img" "$T/in.tar" &&
	check "SOURCE_DATE_EPOCH sets the image time" \
		sh -c "unsquashfs -s '$T/e.img' | grep -q 'Fri Feb 13 23:31:30 2009'"
check "without SOURCE_DATE_EPOCH the image time is the newest mtime (2100)" \
	sh -c "TZ=UTC unsquashfs -s '$T/ref.img' | grep -q '2100'"
finish
