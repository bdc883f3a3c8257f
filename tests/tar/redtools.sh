#!/bin/sh
# SPDX-License-Identifier: MIT
# redtools.sh - a test whose tool fails must fail. "tool && check" used to
# skip the check and record nothing when the tool failed, so a broken tool
# left the test green. Shown three ways: run (common.sh) records the
# failure; formats.sh goes red when GNU tar, substituted by one that does
# its work and then exits 1, fails; and no "TOOL ... &&" step in the
# scripts that had them is left without run.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"

T=$SCRATCH
cat > "$T/t.sh" <<'SH'
. "$top_srcdir/tests/lib/common.sh"
run "the tool" false && check "the check" true
finish
SH
COMMON_NEEDS_TAR2IMG=no sh "$T/t.sh" > "$T/out" 2>&1; rc=$?
check "run: a failing step fails the test (exit 1, not a skip)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'FAIL: the tool: exit status 1' '$T/out'"

# A GNU tar that writes its archive, then reports failure.
if [ -x "$TAR2IMG" ] && command -v tar > /dev/null && command -v bsdtar > /dev/null; then
	mkdir "$T/bin"
	printf '#!/bin/sh\n"%s" "$@"\nexit 1\n' "$(command -v tar)" > "$T/bin/tar"
	chmod +x "$T/bin/tar"
	PATH=$T/bin:$PATH sh "$top_srcdir/tests/tar/formats.sh" > "$T/formats.out" 2>&1; rc=$?
	check "formats.sh with a failing GNU tar: red (exit $rc)" test $rc -eq 1
	check "formats.sh names the failing GNU tar step" \
		grep -q "FAIL: GNU tar --format=gnu: exit status 1" "$T/formats.out"
else
	skipc "formats.sh with a failing GNU tar: tar2img, tar or bsdtar missing"
fi

# Every step that makes a check's input is run through run (or tested by
# if/||): a line that starts with a tool and ends in "&&" is the old form.
for s in tests/tar2img/determinism.sh tests/read/roundtrip.sh \
	 tests/read/peers.sh tests/tar/formats.sh tests/tar/liberal.sh; do
	bad=$(grep -nE '^[[:space:]]*("\$TAR2IMG"|"\$IMG2TAR"|tar|bsdtar|tar2sqfs|gensquashfs|mksquashfs|unsquashfs|cat)[[:space:]].*&&[[:space:]]*$' \
		"$top_srcdir/$s")
	if [ -z "$bad" ]; then
		pass "$s: no unchecked 'tool &&' step"
	else
		fail "$s: unchecked steps: $bad"
	fi
done
finish
