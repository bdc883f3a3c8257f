#!/bin/sh
# SPDX-License-Identifier: MIT
# erofs_baseline_image.sh - erofs-baseline, the codec's limit beside the
# EROFS lines, takes an EROFS image's own clusters: every file's once
# (a hard link's not again), its stored blocks tried once each, the
# same figures for any thread count, and a SquashFS image refused.
# Files: a, 12288 random bytes (three blocks that do not gain: stored
# as they are), b, 40000 bytes of text (compressed, but its last bytes
# may be stored untried), and a hard link to b.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/common.sh"
BASELINE="$top_builddir/extras/bench/erofs-baseline"
[ -x "$BASELINE" ] || skip "erofs-baseline not built ($BASELINE)"
need_tool "$PYTHON3"
codec=lz4
codec_built lzma && codec=lzma
codec_built $codec || skip "neither lzma nor lz4 built"

"$PYTHON3" - "$SCRATCH/t.tar" <<'PY'
import io, random, sys, tarfile
rnd = random.Random(11)
def add(tf, name, data=None, kind=tarfile.REGTYPE, link=""):
    ti = tarfile.TarInfo(name)
    ti.type, ti.linkname, ti.mtime = kind, link, 1600000000
    ti.size = len(data) if data is not None else 0
    tf.addfile(ti, io.BytesIO(data) if data is not None else None)
text = b"".join(b"line %d of the text, words %d\n" % (i, i * 7 % 13) for i in range(2000))
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tf:
    add(tf, "a", bytes(rnd.getrandbits(8) for _ in range(12288)))
    add(tf, "b", text[:40000])
    add(tf, "hard", kind=tarfile.LNKTYPE, link="b")
PY

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2" | head -n 1; }
"$TAR2IMG" -q --format erofs -c $codec "$SCRATCH/t.erofs" "$SCRATCH/t.tar" ||
	fail "tar2img --format erofs -c $codec failed"
if "$BASELINE" -c $codec -C 4096 -j 1 "$SCRATCH/t.erofs" > "$SCRATCH/j1" 2> "$SCRATCH/err"; then
	stored=$(field stored "$SCRATCH/j1") sb=$(field stored_bytes "$SCRATCH/j1")
	in=$(field in_bytes "$SCRATCH/j1") n=$(field clusters "$SCRATCH/j1")
	both() { if [ "$1" -ge "$2" ] && [ "$3" -ge "$4" ]; then echo yes; fi; }
	check "a's three blocks tried once each (stored=$stored, $sb bytes)" \
		[ "$(both "$stored" 3 "$sb" 12288)" = yes ]
	check "b's clusters compressed ($n)" [ "$n" -ge 1 ]
	# b once: 52288 bytes in all, less b's last bytes if stored untried.
	all=$((in + sb))
	check "each file once, none twice ($all of 52288 bytes)" \
		[ "$(both 52288 "$all" "$all" $((52288 - 4095)))" = yes ]
	check "no cut pass" grep -q ' cut_cpu_s=0.000 ' "$SCRATCH/j1"
	check "every cluster decodes to its input" grep -q '^decoded=[1-9][0-9]* undecoded=0 ' "$SCRATCH/j1"
	"$BASELINE" -c $codec -C 4096 -j 3 "$SCRATCH/t.erofs" > "$SCRATCH/j3" 2>> "$SCRATCH/err"
	check "the same figures with -j 3" [ "$(cut -d' ' -f1-3,5- "$SCRATCH/j3" |
		sed 's/cpu_s=.*//')" = "$(cut -d' ' -f1-3,5- "$SCRATCH/j1" | sed 's/cpu_s=.*//')" ]
else
	fail "erofs-baseline on an EROFS image: $(cat "$SCRATCH/err")"
fi
"$TAR2IMG" -q "$SCRATCH/t.sqfs" "$SCRATCH/t.tar" || fail "tar2img (SquashFS) failed"
"$BASELINE" -c $codec "$SCRATCH/t.sqfs" > "$SCRATCH/out" 2> "$SCRATCH/err"
rc=$?
grep -q 'not an EROFS image' "$SCRATCH/err" && [ ! -s "$SCRATCH/out" ] && rc="$rc, said"
check "a SquashFS image refused, saying so (exit $rc)" [ "$rc" = "1, said" ]
finish
