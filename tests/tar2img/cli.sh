#!/bin/sh
# SPDX-License-Identifier: MIT
# cli.sh - what scripts rely on: exit 2 and the list of valid choices for
# bad usage; an existing OUTPUT is only replaced with -f; failures (a
# missing input, an unwritable or read-only directory, a full disk, a
# signal) exit non-zero, say why on stderr, and leave no file behind (no
# OUTPUT, no temporary file); --help and --version succeed; block sizes
# at both ends of the range are honoured.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" unsquashfs

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
# empty DIR: nothing at all (hidden temporary files included) in DIR.
empty() { test -z "$(ls -A "$1")"; }

expect "unknown codec: exit 2" 2 "unknown compressor 'nosuch'" \
	"$TAR2IMG" -c nosuch "$T/x.img" "$T/in.tar"
for c in $ALL_CODECS; do
	check "unknown codec: the message lists $c" grep -qw "$c" "$T/err"
done
expect "unknown -X option: exit 2 listing the valid ones" 2 "level=N" \
	"$TAR2IMG" -c zstd -X bogus=1 "$T/x.img" "$T/in.tar"
expect "unknown -X filter for xz: exit 2 listing them" 2 "x86" \
	"$TAR2IMG" -c xz -X filters=foo "$T/x.img" "$T/in.tar"
expect "-X level out of range: exit 2" 2 "level" \
	"$TAR2IMG" -c gzip -X level=12 "$T/x.img" "$T/in.tar"
for b in 100000 3K 2M 0 -4K 128X; do
	expect "block size $b: exit 2" 2 "block size" \
		"$TAR2IMG" -b "$b" "$T/x.img" "$T/in.tar"
done
expect "-j 0: exit 2" 2 "jobs" "$TAR2IMG" -j 0 "$T/x.img" "$T/in.tar"
expect "unknown option: exit 2" 2 "unknown option '--frobnicate'" \
	"$TAR2IMG" --frobnicate "$T/x.img"
expect "option without its value: exit 2" 2 "needs a value" "$TAR2IMG" -c
expect "missing OUTPUT: exit 2" 2 "missing OUTPUT" "$TAR2IMG"
expect "--help: exit 0" 0 "Usage" "$TAR2IMG" --help
expect "--version: exit 0" 0 "tar2img" "$TAR2IMG" --version
check "no image was written by the usage errors" test ! -e "$T/x.img"

for b in 4K:4096 1M:1048576; do
	expect "block size ${b%:*} accepted" 0 "" \
		"$TAR2IMG" -q -b "${b%:*}" "$T/b.img" "$T/in.tar"
	check "block size ${b%:*} is in the superblock" sh -c \
		"unsquashfs -s '$T/b.img' 2>/dev/null | grep -q 'Block size ${b#*:}\$'"
	rm -f "$T/b.img"
done
expect "INPUT '-' reads stdin" 0 "" sh -c "'$TAR2IMG' -q '$T/stdin.img' - < '$T/in.tar'"

echo "precious" > "$T/exists.img"
expect "existing OUTPUT without -f: exit 1" 1 "exists" \
	"$TAR2IMG" -q "$T/exists.img" "$T/in.tar"
check "existing OUTPUT left untouched" grep -qx precious "$T/exists.img"
expect "existing OUTPUT with -f is replaced" 0 "" \
	"$TAR2IMG" -q -f "$T/exists.img" "$T/in.tar"
check "the replacement is an image" sh -c "unsquashfs -s '$T/exists.img' >/dev/null 2>&1"
mkdir "$T/o"
expect "missing INPUT: exit 1 naming it" 1 "nothere.tar" \
	"$TAR2IMG" -q "$T/o/y.img" "$T/nothere.tar"
expect "INPUT is a directory: exit 1" 1 "" "$TAR2IMG" -q "$T/o/y.img" "$T"
mkdir -p "$T/odir"
expect "OUTPUT is a directory: exit 1, not 'use --force'" 1 "is a directory" \
	"$TAR2IMG" -q "$T/odir" "$T/in.tar"
expect "OUTPUT is a directory, with -f: exit 1" 1 "is a directory" \
	"$TAR2IMG" -q -f "$T/odir" "$T/in.tar"
check "OUTPUT directory left as it was" empty "$T/odir"
check "failed runs left nothing next to OUTPUT" empty "$T/o"
expect "OUTPUT in a missing directory: exit 1 naming it" 1 "nodir" \
	"$TAR2IMG" -q "$T/nodir/y.img" "$T/in.tar"

# An unwritable directory: read-only for a user, a read-only mount for root.
mkdir "$T/ro"
if [ "$(id -u)" != 0 ]; then
	chmod 555 "$T/ro"
elif ! mount -t tmpfs -o ro,size=1m tmpfs "$T/ro" 2>/dev/null; then
	rmdir "$T/ro"
fi
if [ -d "$T/ro" ]; then
	expect "OUTPUT in an unwritable directory: exit 1 naming it" 1 "y.img" \
		"$TAR2IMG" -q "$T/ro/y.img" "$T/in.tar"
else
	skipc "unwritable-directory case: cannot mount a read-only tmpfs"
fi

# A full disk: a 2 MiB tmpfs and 10 MiB of random data.
if [ "$(id -u)" = 0 ] && mkdir "$T/full" && mount -t tmpfs -o size=2m tmpfs "$T/full" 2>/dev/null; then
	$PYTHON3 - "$T/rand.tar" <<'PY' || exit 99
import io, random, sys, tarfile
data = random.Random(5).getrandbits(8 * (10 << 20)).to_bytes(10 << 20, "little")
t = tarfile.open(sys.argv[1], "w")
ti = tarfile.TarInfo("r.bin"); ti.size = len(data)
t.addfile(ti, io.BytesIO(data)); t.close()
PY
	expect "full disk: exit 1 with a message" 1 "space" \
		"$TAR2IMG" -q -j 2 "$T/full/img" "$T/rand.tar"
	check "full disk: nothing left in the directory" empty "$T/full"
	umount "$T/full"
else
	skipc "full-disk case: cannot mount a tmpfs here"
fi

# The options only EROFS can hold, given for SquashFS: refused by name
# (exit 2), not ignored, and no image.
for o in "--uuid clear" "--label l" "--pcluster-size 64K" --ztailpacking \
	--erofs-fragments --erofs-dedupe "--max-extent-bytes 8K"; do
	# shellcheck disable=SC2086
	usage_refused "${o%% *}: an EROFS option" "$TAR2IMG" -q $o "$T/e.img" "$T/in.tar"
done
check "no image left by the refusals" test ! -e "$T/e.img"

# Signals in the middle of a run: the input is a FIFO fed slowly.
for sig in TERM INT; do
	rm -rf "$T/sig" && mkdir "$T/sig" && mkfifo "$T/fifo"
	( head -c 10240 "$T/in.tar"; sleep 20 ) > "$T/fifo" &
	feeder=$!
	interrupt $sig "$T/err" "$TAR2IMG" -q "$T/sig/img" "$T/fifo"
	kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
	rm -f "$T/fifo"
	if [ $waited -lt 50 ] && [ $rc -eq 1 ] && grep -q interrupted "$T/err" && empty "$T/sig"; then
		pass "SIG$sig mid-run: exit 1 within $((waited / 10)).$((waited % 10)) s, no files left"
	else
		fail "SIG$sig mid-run: exit $rc after $waited/10 s, left: $(ls -A "$T/sig")"
	fi
done

# A signal the caller ignores stays ignored (nohup's SIGHUP): the run
# goes on to a complete image.
mkfifo "$T/fifo"
( head -c 10240 "$T/in.tar"; sleep 2; tail -c +10241 "$T/in.tar" ) > "$T/fifo" &
feeder=$!
( trap '' HUP; exec "$TAR2IMG" -q "$T/nohup.img" "$T/fifo" ) &
pid=$!
sleep 1
kill -s HUP $pid
wait $pid; rc=$?
wait $feeder
check "SIGHUP ignored by the caller (nohup): exit 0 and a whole image" \
	sh -c "[ $rc -eq 0 ] && unsquashfs -s '$T/nohup.img' >/dev/null 2>&1"
finish
