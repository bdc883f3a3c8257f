#!/bin/sh
# SPDX-License-Identifier: MIT
# replay.sh - every input of every harness's corpus (tests/fuzz/corpus/
# NAME/, for each NAME in FUZZ_HARNESSES) run through its harness: the
# libFuzzer binary in a fuzzing build, else the harness with a plain
# main(). Under ASan/UBSan (CI) each crash ever found stays a regression
# case. A harness or corpus missing is a failure, not a skip.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"

[ -n "${FUZZ_HARNESSES:-}" ] || { fail "FUZZ_HARNESSES is not set"; finish; }
for h in $FUZZ_HARNESSES; do
	bin=$top_builddir/tests/fuzz/fuzz_$h
	dir=$top_srcdir/tests/fuzz/corpus/$h
	n=$(ls "$dir" 2>/dev/null | wc -l)
	if [ ! -x "$bin" ] || [ "$n" -eq 0 ]; then
		fail "$h: no harness ($bin) or an empty corpus ($dir)"
		continue
	fi
	# libFuzzer runs each file given (names are hashes, never options);
	# so does replay_main.c
	if (cd "$dir" && "$bin" * > "$SCRATCH/$h.log" 2>&1); then
		pass "$h: $n corpus inputs replayed"
	else
		fail "$h: an input crashed the harness"
		tail -30 "$SCRATCH/$h.log"
	fi
done
finish
