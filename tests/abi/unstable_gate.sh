#!/bin/sh
# SPDX-License-Identifier: MIT
# unstable_gate.sh - the unstable headers (doc/contributing.md) stop a
# program that did not ask for them, and only them: each public header
# alone compiles as it is or, when it is gated, only with
# SQPACK_UNSTABLE_API defined; sqpack.h compiles both ways.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"

: "${CC:=cc}"
command -v "$CC" > /dev/null 2>&1 || skip "no C compiler ($CC)"

compiles() { # HEADER [CFLAGS...]: a file that includes it compiles
	h=$1
	shift
	printf '#include <sqpack/%s>\nint main(void) { return 0; }\n' "$h" > "$SCRATCH/t.c"
	# shellcheck disable=SC2086
	$CC $SQP_CFLAGS -fsyntax-only "$@" -I"$top_srcdir/include" \
		-I"$top_builddir/include" "$SCRATCH/t.c" 2> "$SCRATCH/err"
}

for f in "$top_srcdir"/include/sqpack/*.h; do
	h=${f##*/}
	if grep -q '^#ifndef SQPACK_UNSTABLE_API' "$f"; then
		if compiles "$h"; then
			fail "$h compiles without SQPACK_UNSTABLE_API"
		elif grep -q 'unstable API' "$SCRATCH/err"; then
			pass "$h stops a program without SQPACK_UNSTABLE_API"
		else
			fail "$h fails for another reason: $(head -n 3 "$SCRATCH/err")"
		fi
		check "$h compiles with SQPACK_UNSTABLE_API" compiles "$h" -DSQPACK_UNSTABLE_API
	else
		check "$h compiles alone" compiles "$h"
	fi
done
check "sqpack.h compiles without SQPACK_UNSTABLE_API" compiles sqpack.h
check "sqpack.h compiles with SQPACK_UNSTABLE_API" compiles sqpack.h -DSQPACK_UNSTABLE_API
finish
