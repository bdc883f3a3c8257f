#!/bin/sh
# SPDX-License-Identifier: MIT
# spill.sh - --mem: past the budget the tree, the dedup records and the
# tables move to a temporary file next to OUTPUT, and the image does not
# change. With --mem 1M or 4M nearly everything spills; the image must be
# byte-identical to the one built in memory, for -j 1 and -j 2, two
# codecs, --exportable (the export table spills too) and a tree with hard
# links, devices, big directories (indexes), big, sparse and duplicate
# files and xattrs. The 49,000 entries of meta.tar get 4M: at 1M their
# working set is twenty times the 384 KiB of mapped pages allowed, and
# each run spent 7 s of system time sweeping and faulting pages back (at
# 4M, 0.4 s) for 8 MiB spilled where 4M spills 7. The summary says how much spilled, the spill file is
# gone afterwards, and a spill that runs out of disk fails with a message
# and leaves no image behind.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" cmp

T=$(fast_dir) || exit 99
$PYTHON3 "$top_srcdir/tests/tar2img/mkmeta.py" "$T/meta.tar" "$T/paths" || exit 99
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/mixed.tar" || exit 99
mkdir "$T/out" || exit 99

for tar in meta mixed; do
	mem=1M; [ $tar != meta ] || mem=4M
	# (the codecs' fastest level: their default ones took most of the
	# test's CPU, and what spills does not depend on it)
	for opts in "-c gzip -X level=1" "-c zstd -X level=1 --exportable" "-c zstd -X level=1 -b 4K"; do
		codec=${opts#-c }; codec=${codec%% *}
		codec_built "$codec" || { skipc "$codec not built"; continue; }
		"$TAR2IMG" -q $opts -j 2 "$T/ref.img" "$T/$tar.tar" ||
			{ fail "$tar $opts: in memory"; continue; }
		for j in 1 2; do
			if "$TAR2IMG" $opts -j $j --mem $mem "$T/out/s.img" "$T/$tar.tar" \
				> "$T/summary" 2> "$T/err"; then
				check "$tar $opts -j $j: spilled image is identical" \
					cmp -s "$T/ref.img" "$T/out/s.img"
				check "$tar $opts -j $j: the summary reports the spill" \
					grep -q "MiB of tree and tables spilled" "$T/summary"
				check "$tar $opts -j $j: no spill file left" \
					test "$(ls -A "$T/out")" = s.img
			else
				fail "$tar $opts -j $j --mem $mem: $(head -c 300 "$T/err")"
			fi
			rm -f "$T/out/s.img"
		done
		rm -f "$T/ref.img"
	done
done

# Without a budget problem nothing spills, and --mem is checked.
run "a large --mem" "$TAR2IMG" -c gzip --mem 4G "$T/big.img" "$T/meta.tar" > "$T/summary"
check "a budget that fits spills nothing" sh -c "! grep -q spilled '$T/summary'"
"$TAR2IMG" -q --mem 512K "$T/x.img" "$T/meta.tar" 2> "$T/err"
check "--mem under 1M is a usage error (exit 2)" test $? = 2
check "... with a message" grep -q -- "--mem '512K'" "$T/err"

# A full disk under the spill: exit 1, a message, no image, no file left.
if [ "$(id -u)" = 0 ] && mkdir "$T/small" && mount -t tmpfs -o size=3M tmpfs "$T/small" 2>/dev/null; then
	"$TAR2IMG" -q -c gzip --mem 1M "$T/small/s.img" "$T/meta.tar" 2> "$T/err"
	rc=$?
	check "spill on a full disk: exit 1" test $rc = 1
	check "... says the disk is full" grep -q "No space left" "$T/err"
	check "... leaves nothing behind" test -z "$(ls -A "$T/small")"
	umount "$T/small"
else
	skipc "full-disk case: cannot mount a small tmpfs (not root?)"
fi
finish
