#!/bin/sh
# SPDX-License-Identifier: MIT
# baseline_counts.sh - codec-baseline, the pure-codec reference of the
# benchmark, cuts a tar exactly as documented (full blocks per file, tails
# packed into fragment blocks in order, hard links and empty files skipped),
# gives the same compressed total for any thread count, and fails cleanly.
COMMON_NEEDS_TAR2IMG=no
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"
BASELINE="$top_builddir/extras/bench/codec-baseline"
[ -x "$BASELINE" ] || skip "codec-baseline not built ($BASELINE)"
need_tool "$PYTHON3"

# Block size 4 KiB. Files: a 10000 bytes (2 blocks + tail 1808), b 4096
# (1 block), c 3000 (tail: 1808 + 3000 > 4096, so a new fragment), d 1000
# (tail, fits beside c), e empty, a hard link to a, a symlink, a directory.
# Expected: 3 full blocks + 2 fragment blocks, 18096 bytes.
"$PYTHON3" - "$SCRATCH/t.tar" <<'PY'
import io, random, sys, tarfile
rnd = random.Random(7)
def add(tf, name, data=None, kind=tarfile.REGTYPE, link=""):
    ti = tarfile.TarInfo(name)
    ti.type, ti.linkname = kind, link
    ti.size = len(data) if data is not None else 0
    tf.addfile(ti, io.BytesIO(data) if data is not None else None)
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tf:
    add(tf, "dir", kind=tarfile.DIRTYPE)
    add(tf, "dir/a", bytes(rnd.getrandbits(8) for _ in range(10000)))
    add(tf, "dir/b", b"abcd" * 1024)
    add(tf, "dir/c", bytes(rnd.getrandbits(2) for _ in range(3000)))
    add(tf, "dir/d", b"x" * 1000)
    add(tf, "dir/e", b"")
    add(tf, "dir/hard", kind=tarfile.LNKTYPE, link="dir/a")
    add(tf, "dir/sym", kind=tarfile.SYMTYPE, link="a")
PY

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
for c in $ALL_CODECS; do
	if ! "$BASELINE" -c "$c" -b 4K -j 1 "$SCRATCH/t.tar" > "$SCRATCH/j1" 2> "$SCRATCH/err"; then
		grep -q 'not built' "$SCRATCH/err" && { note "$c not built"; continue; }
		fail "$c: codec-baseline failed: $(cat "$SCRATCH/err")"
		continue
	fi
	check "$c: 5 blocks" [ "$(field blocks < "$SCRATCH/j1")" = 5 ]
	check "$c: 2 fragment blocks" [ "$(field frag_blocks < "$SCRATCH/j1")" = 2 ]
	check "$c: 18096 bytes in" [ "$(field in_bytes < "$SCRATCH/j1")" = 18096 ]
	out1=$(field out_bytes < "$SCRATCH/j1")
	check "$c: output smaller than input" [ "$out1" -lt 18096 ]
	"$BASELINE" -c "$c" -b 4K -j 3 < "$SCRATCH/t.tar" > "$SCRATCH/j3" 2> "$SCRATCH/err"
	check "$c: same output bytes with -j 3 from stdin" [ "$(field out_bytes < "$SCRATCH/j3")" = "$out1" ]
	check "$c: times reported" grep -Eq 'cpu_s=[0-9.]+ wall_s=[0-9.]+$' "$SCRATCH/j3"
done

"$BASELINE" -c nosuch "$SCRATCH/t.tar" > /dev/null 2>&1
check "unknown codec is bad usage (2)" [ $? -eq 2 ]
"$BASELINE" -j 0 "$SCRATCH/t.tar" > /dev/null 2>&1
check "-j 0 is bad usage (2)" [ $? -eq 2 ]
# expect_fail DESCRIPTION PATTERN ARGS...: exit 1, PATTERN on stderr, no report.
expect_fail() {
	desc=$1 pattern=$2
	shift 2
	"$BASELINE" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "$pattern" "$SCRATCH/err" && [ ! -s "$SCRATCH/out" ]; then
		pass "$desc"
	else
		fail "$desc (exit $rc: $(cat "$SCRATCH/err"))"
	fi
}
expect_fail "a missing tar fails naming it" missing.tar "$SCRATCH/missing.tar"
head -c 6000 "$SCRATCH/t.tar" > "$SCRATCH/cut.tar"
expect_fail "a truncated tar fails naming the file" dir/a -b 4K "$SCRATCH/cut.tar"
finish
