#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_script.sh - tar2img-bench.sh on a tiny corpus: one table row per
# (tar, codec, -j) with every figure filled in, the floors verdict, the
# scratch dir removed, and exit codes a script can trust (a failing tool,
# a missing corpus, bad usage, --strict with a missed floor).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"
need_tool tar2sqfs mksquashfs sqfstar tar "$PYTHON3"
[ -x /usr/bin/time ] || skip "/usr/bin/time not installed"
BENCH="$top_srcdir/extras/bench/tar2img-bench.sh"
BASELINE="$top_builddir/extras/bench/codec-baseline"
[ -x "$BASELINE" ] || skip "codec-baseline not built ($BASELINE)"
codec_built gzip || skip "gzip not built"

C=$SCRATCH/corpus
mkdir -p "$C/rootfs-small/usr/share"
"$PYTHON3" - "$C/rootfs-small/usr/share" <<'PY'
import os, random, sys
rnd = random.Random(3)
words = [bytes(rnd.choice(b"etaoinshrdlu") for _ in range(rnd.randint(2, 9))) for _ in range(500)]
for d in range(3):
    os.makedirs(os.path.join(sys.argv[1], "d%d" % d))
    for f in range(12):
        n = rnd.choice([100, 3000, 20000, 200000])
        text = b" ".join(rnd.choice(words) for _ in range(n // 5))[:n]
        with open(os.path.join(sys.argv[1], "d%d" % d, "f%d" % f), "wb") as fh:
            fh.write(text)
PY
tar -C "$C/rootfs-small" -cf "$C/small.tar" .

# bench ARGS...: run the script on the tiny corpus; stdout in $SCRATCH/out.
bench() {
	bash "$BENCH" --corpus "$C" --tars small --codecs gzip --scratch "$C/out" \
		--results "$SCRATCH/results.md" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"
}
# rows N: the table rows of N columns (18: main table, 12: CPU table).
rows() { awk -F'|' -v n="$1" '/^\| small \| gzip \|/ && NF - 2 == n' "$SCRATCH/out"; }

bench --jobs "1 2" --tar2img "$TAR2IMG" --baseline "$BASELINE"
check "full run exits 0" [ $? -eq 0 ]
check "one row per thread count" [ "$(rows 18 | wc -l)" = 2 ]
check "one CPU row per thread count" [ "$(rows 12 | wc -l)" = 2 ]
check "no other rows" [ "$(grep -c '^| small |' "$SCRATCH/out")" = 4 ]
check "every cell filled" [ "$(grep '^| small |' "$SCRATCH/out" | tr -d ' ' | grep -c '|-|')" = 0 ]
check "floors verdict for small/gzip" grep -Eq '^Floors .*(held|missed):.* small/gzip/-j2' "$SCRATCH/out"
check "results file holds the table" sh -c 'head -n -1 "$1" | cmp -s - "$2"' - "$SCRATCH/out" "$SCRATCH/results.md"
check "scratch dir removed" [ ! -e "$C/out" ]

bench --jobs 2 --no-tar2img --no-baseline --no-mksquashfs --tar2img /nonexistent
check "dry run without tar2img exits 0" [ $? -eq 0 ]
check "dry run leaves tar2img columns empty" grep -q '^| small | gzip | 2 | - | [0-9.]* | - |' "$SCRATCH/out"
check "dry run says it has no figures for the floors" grep -q 'missed: none; not measured: small/gzip/-j2\.$' "$SCRATCH/out"

bench --jobs 2 --tar2img /bin/false --baseline "$BASELINE"
check "a failing tar2img exits 1" [ $? -eq 1 ]
check "the failure is named" grep -q 'FAILED: /bin/false' "$SCRATCH/err"
check "its row is still printed" [ "$(rows 18 | wc -l)" = 1 ]

bench --jobs 2 --tar2img /bin/true --no-baseline --no-mksquashfs
check "a tar2img that writes no image counts as failed" [ $? -eq 1 ]
check "and says so" grep -q 'wrote no image' "$SCRATCH/err"

bench --jobs 2 --tar2img "$TAR2IMG" --baseline /bin/false --no-mksquashfs
check "a failing codec-baseline exits 1" [ $? -eq 1 ]
check "and is named" grep -q 'FAILED: codec-baseline' "$SCRATCH/err"

bench --jobs 1 --repeat 3 --tar2img "$TAR2IMG" --no-baseline --no-mksquashfs
check "--repeat 3 exits 0" [ $? -eq 0 ]
check "--repeat 3 says so" grep -q 'repeat 3 (median)' "$SCRATCH/out"
check "--repeat 3 gives one row" [ "$(rows 18 | wc -l)" = 1 ]

printf '#!/bin/sh\nsleep 1\nexec "%s" "$@"\n' "$TAR2IMG" > "$SCRATCH/slow-tar2img"
chmod +x "$SCRATCH/slow-tar2img"
bench --jobs 2 --tar2img "$SCRATCH/slow-tar2img" --no-baseline --no-mksquashfs --strict
check "--strict exits 1 on a missed floor" [ $? -eq 1 ]
check "the missed floor says why" grep -q 'missed: small/gzip/-j2 (time' "$SCRATCH/out"

bash "$BENCH" --corpus "$SCRATCH/nothing" --no-tar2img > /dev/null 2> "$SCRATCH/err"
check "a missing corpus exits 1" [ $? -eq 1 ]
check "and says how to build it" grep -q 'make-corpus.sh' "$SCRATCH/err"
bash "$BENCH" --bogus > /dev/null 2>&1
check "an unknown option exits 2" [ $? -eq 2 ]
bash "$BENCH" --repeat > /dev/null 2>&1
check "a missing option value exits 2" [ $? -eq 2 ]
finish
