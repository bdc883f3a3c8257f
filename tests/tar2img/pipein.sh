#!/bin/sh
# SPDX-License-Identifier: MIT
# pipein.sh - the input reader thread (lib/tar/istream.c): a tar trickled
# through a pipe in odd-sized pieces with pauses (plain and gzip, so both
# the pipe's partial buffers and the decoder's starved input are crossed)
# gives the same image bytes as the same tar read from a file; and a
# broken tar from a pipe whose writer stays open and silent makes tar2img
# fail at once (the reader thread blocked in read() must not hold it).
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" gzip tar

T=$SCRATCH
mkdir "$T/src"
# Several MiB, so that the input spans several 1 MiB buffers of the ring.
$PYTHON3 - "$T/src" <<'PY'
import os, random, sys
r = random.Random(13)
for i in range(40):
    with open(os.path.join(sys.argv[1], "f%02d" % i), "wb") as f:
        f.write(bytes(r.getrandbits(8) for _ in range(1000 + 9000 * i)))
        f.write(b"text %d\n" % i * (3000 * i))
PY
tar -C "$T/src" --sort=name --mtime=@1700000000 --owner=0 --group=0 \
	--numeric-owner -cf "$T/in.tar" . || exit 99
gzip -1 -c "$T/in.tar" > "$T/in.tar.gz" || exit 99
export SOURCE_DATE_EPOCH=1700000000

# trickle FILE: FILE on stdout in pieces of 1..70000 bytes, pausing now
# and then, so that reads see partial data and empty pipes.
trickle() {
	$PYTHON3 -c 'import random, sys, time
data = open(sys.argv[1], "rb").read()
r = random.Random(7); pos = 0; out = sys.stdout.buffer
while pos < len(data):
    n = r.randint(1, 70000)
    out.write(data[pos:pos + n]); out.flush(); pos += n
    if r.random() < 0.05:
        time.sleep(0.01)' "$1"
}

run "tar2img from the file" "$TAR2IMG" -q -j 2 "$T/file.img" "$T/in.tar" &&
for z in tar tar.gz; do
	rm -f "$T/pipe.img"
	trickle "$T/in.$z" | "$TAR2IMG" -q -j 2 "$T/pipe.img" -
	if cmp -s "$T/file.img" "$T/pipe.img"; then
		pass "in.$z trickled through a pipe: same image as from the file"
	else
		fail "in.$z trickled through a pipe: image differs (or missing)"
	fi
done

# Garbage, then the writer keeps the pipe open without writing.
head -c 4096 /dev/urandom > "$T/junk"
mkfifo "$T/fifo" || exit 99
"$TAR2IMG" -q -j 2 "$T/junk.img" - < "$T/fifo" 2> "$T/err" &
pid=$!
exec 4> "$T/fifo"
cat "$T/junk" >&4
reap $pid 100
exec 4>&-
if [ $rc -eq 1 ] && [ $waited -lt 100 ] && grep -q "checksum" "$T/err" &&
   [ ! -e "$T/junk.img" ]; then
	pass "broken tar from a silent open pipe: exit 1 in $waited/10 s, no image"
else
	fail "broken tar from a silent open pipe: exit $rc after $waited/10 s: $(head -c 300 "$T/err")"
fi
finish
