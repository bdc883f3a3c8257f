#!/bin/sh
# SPDX-License-Identifier: MIT
# badtar.sh - every crafted broken archive (mkbad.py) must give exit 1, a
# message on stderr naming the problem, no crash (no signal exit), and
# neither the OUTPUT file nor a temporary file left in its directory.
# Each archive goes in once as a file and once through a pipe.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"

T=$SCRATCH
mkdir "$T/bad" "$T/out"
$PYTHON3 "$top_srcdir/tests/tar2img/mkbad.py" "$T/bad" || exit 99
# zstd and lz4 streams need the tools (gzip, xz, bzip2: mkbad.py).
head -c 65536 /dev/zero | tr '\0' 'a' > "$T/a.txt"
for z in zstd lz4; do
	command -v $z >/dev/null 2>&1 || { skipc "truncated $z input: $z not installed"; continue; }
	( cd "$T" && tar -cf - --format=posix a.txt | $z -q -c > "$T/z.$z" )
	head -c $(( $(stat -c %s "$T/z.$z") / 2 )) "$T/z.$z" > "$T/bad/truncated-$z.tar.$z"
	printf 'truncated-%s.tar.%s\ttruncated\n' $z $z >> "$T/bad/cases.txt"
done

while IFS="$(printf '\t')" read -r file keyword; do
	for how in file pipe; do
		rm -f "$T/out/"* "$T/out/".* 2>/dev/null
		if [ $how = file ]; then
			timeout 60 "$TAR2IMG" -q -j 2 "$T/out/img" "$T/bad/$file" 2> "$T/err"
		else
			timeout 60 "$TAR2IMG" -q -j 2 "$T/out/img" < "$T/bad/$file" 2> "$T/err"
		fi
		rc=$?
		left=$(ls -A "$T/out")
		if [ $rc -eq 1 ] && grep -qF -- "$keyword" "$T/err" && [ -z "$left" ]; then
			pass "$file ($how): exit 1, '$keyword'"
		else
			fail "$file ($how): exit $rc, left '$left', message: $(head -c 300 "$T/err")"
		fi
	done
done < "$T/bad/cases.txt"
finish
