#!/bin/sh
# SPDX-License-Identifier: MIT
# progress.sh - the progress display: one rewritten line on stderr when it
# is a terminal (run under script(1) for a pseudo-terminal), nothing when
# it is not or with -q / --progress=none; --progress=json: every stderr line
# a JSON object, at least one per second, the last with done, ok and the
# totals the scan found; stdout stays free of it. tar2img knows its total
# from a regular input file.
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG="$SQP_BIN/dir2img"
need_tool script "$PYTHON3"
T=$SCRATCH
mkdir -p "$T/src/d"
# a few seconds of xz at -j 1: long enough for several lines
for i in 1 2 3; do head -c 1500000 /dev/urandom | base64 > "$T/src/d/f$i"; done
NENT=$(find "$T/src" | wc -l)
NBYTES=$(find "$T/src" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')

script -qec "'$DIR2IMG' -f -j 1 -c gzip '$T/tty.img' '$T/src' > /dev/null" /dev/null > "$T/tty.out" 2>&1
check "terminal: a progress line with entries, MiB and rate" \
	grep -aq "entries, .* MiB, .* MiB/s" "$T/tty.out"
check "terminal: the line is rewritten in place (carriage returns)" \
	sh -c "tr '\r' '\n' < '$T/tty.out' | grep -ac 'entries' | awk '{ exit !(\$1 >= 2) }'"
check "terminal: the last line shows the totals ($NENT entries)" \
	sh -c "tr '\r' '\n' < '$T/tty.out' | grep -aq '$NENT/$NENT entries'"
script -qec "'$DIR2IMG' -f -c gzip -q '$T/tty.img' '$T/src'" /dev/null > "$T/q.out" 2>&1
check "terminal with -q: nothing" test ! -s "$T/q.out"
script -qec "'$DIR2IMG' -f -c gzip --progress=none '$T/tty.img' '$T/src' > /dev/null" /dev/null > "$T/n.out" 2>&1
check "terminal with --progress=none: nothing" test ! -s "$T/n.out"
"$DIR2IMG" -f -c gzip "$T/p.img" "$T/src" > /dev/null 2> "$T/p.err"
check "not a terminal: no progress" test ! -s "$T/p.err"

"$DIR2IMG" -f -j 1 -c xz --progress=json "$T/j.img" "$T/src" > "$T/j.out" 2> "$T/j.err"
check "--progress=json: exit 0" test $? = 0
check "--progress=json: stdout has only the summary" sh -c "! grep -q '{' '$T/j.out'"
check "--progress=json: every line is JSON, one a second, totals at the end" \
	$PYTHON3 - "$T/j.err" "$NENT" "$NBYTES" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]  # raises on any line that is not JSON
last = objs[-1]
assert all(not o["done"] for o in objs[:-1]) and last["done"] and last["ok"], lines
assert last["entries"] == int(sys.argv[2]) == last["total_entries"], last
assert last["bytes"] == int(sys.argv[3]) == last["total_bytes"], last
# a line at 0 s and then every second: no gap of 2 s
assert len(objs) - 1 >= int(last["elapsed"]), (len(objs), last["elapsed"])
assert all(objs[i]["bytes"] <= objs[i + 1]["bytes"] for i in range(len(objs) - 1))
PY
tar cf "$T/src.tar" -C "$T/src" .
"$TAR2IMG" -f -c gzip --progress=json "$T/t.img" "$T/src.tar" > /dev/null 2> "$T/t.err"
check "tar2img --progress=json: total_bytes is the input file's size" \
	$PYTHON3 -c 'import json, os, sys
o = [json.loads(l) for l in open(sys.argv[1])]
assert o[-1]["done"] and o[-1]["total_bytes"] == os.path.getsize(sys.argv[2]), o[-1]' "$T/t.err" "$T/src.tar"
finish
