#!/bin/sh
# SPDX-License-Identifier: MIT
# fragmem.sh - the fragment logs (--erofs-fragments) are temporary
# files, read back at finish as the packed inode's data: they never
# show in memory, whatever --mem says. 96 files of 512 KiB of random
# bytes, each wholly a fragment in 1 MiB clusters (48 MiB of logs),
# packed at --mem 16M and at the default --mem (a quarter of RAM): the
# peak RSS within 24 MiB of a pack of the same bytes as one file
# without fragments at the same --mem, whose segments take the same
# buffers as the packed inode's. (With the logs in the spill arena's
# memory it was 48 MiB and more above at the default --mem, and at
# --mem 16M before the read-back ticked the arena.) The image is the
# same for -j 1 and 2 and for both --mem, and imginfo check finds
# nothing wrong.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" /usr/bin/time
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
for t in "$DIR2IMG" "$IMGINFO"; do
	[ -x "$t" ] || skip "$t not built"
done
codec_built lz4 || skip "no lz4 in this build"

T=$(fast_dir)
$PYTHON3 - "$T/src" << 'PY' || exit 99
import os, random, sys
rng = random.Random(7)
os.makedirs(sys.argv[1])
for i in range(96):
    with open(os.path.join(sys.argv[1], "f%02d" % i), "wb") as f:
        f.write(rng.randbytes(512 << 10))
PY
mkdir "$T/one" && cat "$T/src"/f* > "$T/one/all" || exit 99
Z="-q --format erofs -c lz4 --pcluster-size 1M"

# peak NAME DIR OPTS...: dir2img's peak RSS in KiB packing DIR into
# NAME.img.
peak() {
	name=$1
	dir=$2
	shift 2
	/usr/bin/time -o "$T/$name.rss" -f %M "$DIR2IMG" "$@" \
		"$T/$name.img" "$dir" > /dev/null 2> "$T/$name.err" || return 1
	tail -n 1 "$T/$name.rss"
}
sanitized=no
is_sanitized "$DIR2IMG" --version && sanitized=yes
# At each --mem: peak RSS with fragments against the same bytes as one file.
for mem in 16M default; do
	m="--mem $mem"
	[ $mem = default ] && m=
	if ! frag=$(peak frag$mem "$T/src" $Z $m -j 2 --erofs-fragments); then
		fail "dir2img --erofs-fragments: $(head -c 300 "$T/frag$mem.err")"
	elif ! plain=$(peak plain$mem "$T/one" $Z $m -j 2); then
		fail "dir2img: $(head -c 300 "$T/plain$mem.err")"
	elif [ $sanitized = yes ]; then
		skipc "peak RSS: a sanitizer's allocator is not the one measured"
	elif [ "$frag" -le $((plain + 24576)) ]; then
		pass "--mem $mem: peak RSS $frag KiB with fragments, $plain as one file"
	else
		fail "--mem $mem: peak RSS $frag KiB with fragments, $plain as one file"
	fi
	rm -f "$T/plain$mem.img"
done
if cmp -s "$T/frag16M.img" "$T/fragdefault.img"; then
	pass "the same bytes for --mem 16M and the default"
else
	fail "--mem 16M and the default differ"
fi
if peak frag1 "$T/src" $Z --mem 16M -j 1 --erofs-fragments > /dev/null; then
	if cmp -s "$T/frag16M.img" "$T/frag1.img"; then
		pass "the same bytes for -j 1 and 2"
	else
		fail "-j 1 and 2 differ"
	fi
else
	fail "dir2img -j 1 --erofs-fragments: $(head -c 300 "$T/frag1.err")"
fi
run "imginfo check" "$IMGINFO" check -q "$T/frag16M.img"
finish
