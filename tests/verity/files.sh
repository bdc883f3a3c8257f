#!/bin/sh
# SPDX-License-Identifier: MIT
# files.sh - the files --verity=FILE and --verity-roothash FILE write
# appear complete or not at all: a signal mid-run leaves neither the
# image nor the tree file (nor their temporary files); an existing tree
# file is not replaced without -f (exit 1, no image either); with -f it is.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
need_tool veritysetup
T=$SCRATCH
mksrc "$T" || exit 99
empty() { [ -z "$(ls -A "$1")" ]; }

for sig in TERM INT; do
	rm -rf "$T/sig" && mkdir "$T/sig" && mkfifo "$T/fifo"
	( head -c 10240 "$T/src.tar"; sleep 20 ) > "$T/fifo" &
	feeder=$!
	interrupt $sig "$T/err" "$TAR2IMG" -q --verity="$T/sig/img.verity" \
		--verity-roothash "$T/sig/img.roothash" "$T/sig/img" "$T/fifo"
	kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
	rm -f "$T/fifo"
	if [ $rc -eq 1 ] && grep -q interrupted "$T/err" && empty "$T/sig"; then
		pass "SIG$sig mid-run: exit 1, neither image nor tree file left"
	else
		fail "SIG$sig mid-run: exit $rc, left: $(ls -A "$T/sig")"
	fi
done

mkdir "$T/out" && echo old > "$T/out/img.verity"
"$TAR2IMG" -q --verity="$T/out/img.verity" "$T/out/img" "$T/src.tar" 2> "$T/err"
check "an existing tree file without -f: exit 1" test $? = 1
check "and its message names it" grep -q "img.verity" "$T/err"
check "and the tree file is kept, no image written" \
	test "$(cat "$T/out/img.verity")" = old -a ! -e "$T/out/img" -a "$(ls "$T/out")" = img.verity
run "with -f" "$TAR2IMG" -f --verity="$T/out/img.verity" --verity-roothash "$T/out/rh" \
	"$T/out/img" "$T/src.tar" > "$T/sum" && vfields "$T/sum" &&
check "with -f the tree file is replaced and verifies" \
	"$VERITYSETUP" verify "$T/out/img" "$T/out/img.verity" "$(cat "$T/out/rh")"
check "nothing else is left in the directory" \
	test "$(ls "$T/out" | tr '\n' ' ')" = "img img.verity rh "
finish
