#!/bin/sh
# SPDX-License-Identifier: MIT
# cli.sh - what scripts rely on: exit 2 and the list of valid choices for
# bad usage; an existing OUTPUT is only replaced with -f; failures (an
# unwritable directory, a full disk, a signal) exit non-zero and leave no
# file behind; --help and --version succeed.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"

T=$SCRATCH
$PYTHON3 - "$T/in.tar" <<'PY' || exit 99
import io, sys, tarfile
t = tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT)
ti = tarfile.TarInfo("a.txt"); ti.size = 6; ti.mtime = 1700000000
t.addfile(ti, io.BytesIO(b"hello\n")); t.close()
PY
expect() { # expect DESCRIPTION STATUS KEYWORD COMMAND...
	desc=$1 want=$2 kw=$3; shift 3
	"$@" > "$T/out" 2> "$T/err"; rc=$?
	if [ $rc -eq "$want" ] && { [ -z "$kw" ] || grep -qF -- "$kw" "$T/err" "$T/out"; }; then
		pass "$desc"
	else
		fail "$desc: exit $rc (want $want), output: $(head -c 300 "$T/err")"
	fi
}
expect "unknown codec: exit 2 listing the codecs" 2 "zstd" \
	"$TAR2IMG" -c nosuch "$T/x.img" "$T/in.tar"
expect "bad -X option: exit 2 listing the valid ones" 2 "level=N" \
	"$TAR2IMG" -c zstd -X bogus=1 "$T/x.img" "$T/in.tar"
expect "bad -X level: exit 2" 2 "level" \
	"$TAR2IMG" -c gzip -X level=12 "$T/x.img" "$T/in.tar"
expect "block size not a power of two: exit 2" 2 "block" \
	"$TAR2IMG" -b 100000 "$T/x.img" "$T/in.tar"
expect "block size too large: exit 2" 2 "block" \
	"$TAR2IMG" -b 2M "$T/x.img" "$T/in.tar"
expect "unknown option: exit 2" 2 "unknown option '--frobnicate'" \
	"$TAR2IMG" --frobnicate "$T/x.img"
expect "option without its value: exit 2" 2 "needs a value" "$TAR2IMG" -c
expect "missing OUTPUT: exit 2" 2 "missing OUTPUT" "$TAR2IMG"
expect "--help: exit 0" 0 "Usage" "$TAR2IMG" --help
expect "--version: exit 0" 0 "tar2img" "$TAR2IMG" --version
check "no image was written by the usage errors" test ! -e "$T/x.img"

echo "precious" > "$T/exists.img"
expect "existing OUTPUT without -f: exit 1" 1 "exists" \
	"$TAR2IMG" -q "$T/exists.img" "$T/in.tar"
check "existing OUTPUT left untouched" grep -q precious "$T/exists.img"
expect "existing OUTPUT with -f is replaced" 0 "" \
	"$TAR2IMG" -q -f "$T/exists.img" "$T/in.tar"
check "the replacement is an image" sh -c "unsquashfs -s '$T/exists.img' >/dev/null 2>&1"
expect "missing INPUT: exit 1 naming it" 1 "nothere.tar" \
	"$TAR2IMG" -q "$T/y.img" "$T/nothere.tar"
expect "OUTPUT in a missing directory: exit 1" 1 "nodir" \
	"$TAR2IMG" -q "$T/nodir/y.img" "$T/in.tar"
if [ "$(id -u)" != 0 ]; then
	mkdir "$T/ro" && chmod 555 "$T/ro"
	expect "OUTPUT in a read-only directory: exit 1" 1 "ro" \
		"$TAR2IMG" -q "$T/ro/y.img" "$T/in.tar"
fi

# A full disk: a 1 MiB tmpfs and 4 MiB of random data.
if [ "$(id -u)" = 0 ] && mkdir "$T/full" && mount -t tmpfs -o size=1m tmpfs "$T/full" 2>/dev/null; then
	$PYTHON3 - "$T/rand.tar" <<'PY' || exit 99
import io, os, sys, tarfile
t = tarfile.open(sys.argv[1], "w")
ti = tarfile.TarInfo("r.bin"); ti.size = 4 << 20
t.addfile(ti, io.BytesIO(os.urandom(4 << 20))); t.close()
PY
	expect "full disk: exit 1 with a message" 1 "space" \
		"$TAR2IMG" -q "$T/full/img" "$T/rand.tar"
	check "full disk: nothing left in the directory" test -z "$(ls -A "$T/full")"
	umount "$T/full"
else
	note "full-disk case skipped: cannot mount a tmpfs here"
fi

# Signals in the middle of a run: the input is a FIFO fed slowly.
for sig in TERM INT; do
	mkdir -p "$T/sig" && rm -f "$T/sig/"* "$T/sig/".*.tmp 2>/dev/null
	mkfifo "$T/sig/fifo"
	( head -c 10240 "$T/in.tar"; sleep 30 ) > "$T/sig/fifo" &
	feeder=$!
	"$TAR2IMG" -q "$T/sig/img" "$T/sig/fifo" 2> "$T/err" &
	pid=$!
	sleep 1
	kill -$sig $pid
	wait $pid; rc=$?
	kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
	rm -f "$T/sig/fifo"
	if [ $rc -ne 0 ] && [ -z "$(ls -A "$T/sig")" ]; then
		pass "SIG$sig mid-run: exit $rc, no files left"
	else
		fail "SIG$sig mid-run: exit $rc, left: $(ls -A "$T/sig")"
	fi
done
finish
