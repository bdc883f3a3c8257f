#!/bin/sh
# SPDX-License-Identifier: MIT
# faults.sh - injected faults end cleanly: a message, exit 1, no hang, no
# temporary file left and no OUTPUT that looks complete. Cases: the file
# size limit (RLIMIT_FSIZE) and a full file system during output, a read
# error on the input, a codec failing inside a worker at several points
# and thread counts, the EROFS fragment logs' temporary file full or
# failing a read, SIGINT and SIGTERM in the middle of img2tar -o.
# (Signals during tar2img: tests/tar2img/cli.sh.)
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" timeout
[ -x "$IMG2TAR" ] || skip "img2tar not built"

T=$SCRATCH
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/out"

clean_fail() { # clean_fail DESCRIPTION KEYWORD COMMAND...: exit 1, message, empty $T/out
	desc=$1 kw=$2; shift 2
	rm -rf "$T/out" && mkdir "$T/out"
	timeout 120 "$@" > /dev/null 2> "$T/err"; rc=$?
	left=$(ls -A "$T/out")
	if [ $rc -eq 1 ] && grep -qi -- "$kw" "$T/err" && [ -z "$left" ]; then
		pass "$desc: $(head -c 100 "$T/err")"
	else
		fail "$desc: exit $rc, left '$left': $(head -c 300 "$T/err")"
	fi
}

# 1. A file size limit of 1 MiB (ulimit -f counts 1 KiB blocks).
clean_fail "tar2img past RLIMIT_FSIZE" "too large" \
	sh -c "ulimit -f 1024; exec '$TAR2IMG' -q '$T/out/img' '$T/in.tar'"
"$TAR2IMG" -q "$T/ok.img" "$T/in.tar" 2>/dev/null || exit 99
clean_fail "img2tar -o past RLIMIT_FSIZE" "too large" \
	sh -c "ulimit -f 1024; exec '$IMG2TAR' -o '$T/out/t.tar' '$T/ok.img'"

# 2. A full file system.
fullfs=no
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=2m tmpfs "$T/out" 2>/dev/null; then
	umount "$T/out"
	fullfs=yes
	full() {
		mount -t tmpfs -o size=2m tmpfs "$T/out" || return 1
		timeout 120 "$@" > /dev/null 2> "$T/err"; rc=$?
		left=$(ls -A "$T/out"); umount "$T/out"
		[ $rc -eq 1 ] && grep -q "space" "$T/err" && [ -z "$left" ]
	}
	check "tar2img onto a full file system" full "$TAR2IMG" -q "$T/out/img" "$T/in.tar"
	check "img2tar -o onto a full file system" full "$IMG2TAR" -o "$T/out/t.tar" "$T/ok.img"
else
	skipc "full file system cases: cannot mount a tmpfs here"
fi

# 3. Read errors on the input (a directory reads as EISDIR).
clean_fail "tar2img reading a directory" "directory" "$TAR2IMG" -q "$T/out/img" "$T/out"
clean_fail "img2tar reading a directory" "directory" "$IMG2TAR" -o "$T/out/t.tar" "$T/out"

# 4. The codec fails inside a worker, early, in the middle, at the end.
for j in 1 2 4; do
	for n in 1 15 35; do
		clean_fail "worker failure at job $n, -j $j" "compressor failed" \
			"$top_builddir/tests/unit/hooked_tar2img" -j $j -F $n "$T/out/img" "$T/in.tar"
	done
done

# 5. The EROFS fragment logs (lib/erofs/erofs_flog.c) are temporary
# files: writing one onto a full file system (the logs go beside the
# image) and a failing read of one back are reported, not crashed on.
# 1,500 files of 3,000 random bytes, each wholly a fragment: 4 MB of
# logs, past their buffer and past the 2 MiB tmpfs; every tenth from
# the 500th is a copy of the file 500 before it, which dedupe compares
# with that one's bytes back in the file.
$PYTHON3 - "$T/frag.tar" <<'PY' || exit 99
import io, random, sys, tarfile
rng = random.Random(7)
t = tarfile.open(sys.argv[1], "w")
data = []
for i in range(1500):
    data.append(data[i - 500] if i % 10 == 9 and i >= 500 else rng.randbytes(3000))
    ti = tarfile.TarInfo("d%02d/f%04d" % (i // 100, i)); ti.size = 3000
    t.addfile(ti, io.BytesIO(data[i]))
t.close()
PY
if [ "$fullfs" = yes ]; then
	check "tar2img --erofs-fragments, its logs on a full file system" full \
		"$TAR2IMG" -q --format erofs -c lz4 --erofs-fragments "$T/out/img" "$T/frag.tar"
	grep -q "fragments: writing their temporary file" "$T/err" ||
		fail "the full file system not met by the fragment logs: $(head -c 200 "$T/err")"
fi
# The first read: dedupe's first comparison; without dedupe, finish's
# read of the packed inode's data.
for e in "fragments dedupe" fragments; do
	clean_fail "a fragment log's first read failing, -E $e" "reading their temporary file" \
		"$top_builddir/tests/unit/hooked_tar2img" -c lz4 -E "$e" -R 1 "$T/out/img" "$T/frag.tar"
done

# 6. SIGINT and SIGTERM in the middle of img2tar -o: xz output of 24 MiB
# of random bytes takes seconds, so a signal after one lands mid-run.
$PYTHON3 - "$T/rand.tar" <<'PY' || exit 99
import io, random, sys, tarfile
data = random.Random(7).getrandbits(8 * (24 << 20)).to_bytes(24 << 20, "little")
t = tarfile.open(sys.argv[1], "w")
ti = tarfile.TarInfo("r.bin"); ti.size = len(data)
t.addfile(ti, io.BytesIO(data)); t.close()
PY
"$TAR2IMG" -q "$T/rand.img" "$T/rand.tar" || exit 99
for sig in INT TERM; do
	rm -rf "$T/out" && mkdir "$T/out"
	interrupt $sig "$T/err" "$IMG2TAR" -j 1 -z xz -o "$T/out/t.tar.xz" "$T/rand.img"
	left=$(ls -A "$T/out")
	if [ $waited -lt 50 ] && [ $rc -eq 1 ] && grep -q interrupted "$T/err" && [ -z "$left" ]; then
		pass "img2tar SIG$sig mid-run: exit 1 within $((waited / 10)).$((waited % 10)) s, nothing left"
	else
		fail "img2tar SIG$sig mid-run: exit $rc after $waited/10 s, left '$left': $(head -c 200 "$T/err")"
	fi
done

finish
