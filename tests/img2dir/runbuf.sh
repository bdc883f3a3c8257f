#!/bin/sh
# SPDX-License-Identifier: MIT
# runbuf.sh - EROFS files of 1 MiB pclusters that decode to more and
# more bytes, extracted by img2dir. A worker decodes a run for img2dir
# into a buffer of its own, grown for a bigger run: it must grow in
# place, not be a new buffer each time, whose pages the decoder faults
# in again (12 files of 1 to 3.2 MiB, smallest first: 6,800 page faults
# where largest first takes 1,250). Counted against the same files
# largest first, whose first run sizes the buffer once. The trees must
# be the source's at any -j, and a pcluster zeroed in the middle of the
# files must stop the extraction with the file's name.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" /usr/bin/time
IMG2DIR="$SQP_BIN/img2dir"
DIR2IMG="$SQP_BIN/dir2img"
for t in "$IMG2DIR" "$DIR2IMG"; do
	[ -x "$t" ] || skip "$t not built"
done
codec_built lz4 || skip "no lz4 in this build"

T=$(fast_dir)
# fwd: f00 to f11 of 1 MiB and 200 KiB more each; rev: the same sizes
# the other way. Each file is an 8 KiB random block repeated, so that it
# fits one 1 MiB pcluster whole.
$PYTHON3 - "$T" << 'PY' || exit 99
import os, random, sys
rng = random.Random(5)
sizes = [(1 << 20) + i * (200 << 10) for i in range(12)]
for d, order in (("fwd", sizes), ("rev", sizes[::-1])):
    os.makedirs(os.path.join(sys.argv[1], d))
    for i, n in enumerate(order):
        blk = rng.randbytes(8192)
        with open(os.path.join(sys.argv[1], d, "f%02d" % i), "wb") as f:
            f.write((blk * (n // 8192 + 1))[:n])
PY
for d in fwd rev; do
	run "dir2img $d" "$DIR2IMG" -q --format erofs -c lz4 \
		--pcluster-size 1048576 "$T/$d.img" "$T/$d" || finish
done

for j in 1 2 4; do
	rm -rf "$T/x"
	run "img2dir -j $j" "$IMG2DIR" -q -j $j "$T/fwd.img" "$T/x" &&
	same_tree "img2dir -j $j: the source's tree" "$T/x" "$T/fwd"
done

# faults IMAGE: the minor page faults of img2dir -j 1 extracting it.
faults() {
	rm -rf "$T/x"
	/usr/bin/time -o "$T/faults" -f %R "$IMG2DIR" -q -j 1 "$1" "$T/x" ||
		return 1
	tail -n 1 "$T/faults"
}
if is_sanitized "$IMG2DIR" --version; then
	skipc "page faults: a sanitizer's realloc always moves"
elif fwd=$(faults "$T/fwd.img") && rev=$(faults "$T/rev.img"); then
	# 1 MiB of slack: the buffer's last doubling may touch more.
	if [ "$fwd" -le $((rev + 256)) ]; then
		pass "growing runs: $fwd page faults, largest first $rev"
	else
		fail "growing runs: $fwd page faults, largest first $rev"
	fi
else
	fail "img2dir -j 1 under /usr/bin/time: $(head -c 300 "$T/faults")"
fi

# f05's pcluster zeroed where its data starts (its 8 KiB block, stored
# as it is, is found in the image): the decode fails.
cp "$T/fwd.img" "$T/bad.img" || exit 99
$PYTHON3 - "$T/bad.img" "$T/fwd/f05" << 'PY' || exit 99
import sys
with open(sys.argv[2], "rb") as f:
    key = f.read(64)
with open(sys.argv[1], "r+b") as f:
    img = f.read()
    at = img.find(key)
    if at < 0 or img.find(key, at + 1) >= 0:
        sys.exit("f05's bytes not found once in the image")
    f.seek(at & ~4095)
    f.write(bytes(4096))
PY
for j in 1 2 4; do
	rm -rf "$T/x"
	if "$IMG2DIR" -q -j $j "$T/bad.img" "$T/x" > /dev/null 2> "$T/err"; then
		fail "img2dir -j $j of a zeroed pcluster: exit status 0"
	elif grep -q "f05" "$T/err"; then
		pass "img2dir -j $j of a zeroed pcluster: $(head -n 1 "$T/err")"
	else
		fail "img2dir -j $j of a zeroed pcluster: $(head -c 300 "$T/err")"
	fi
done
finish
