#!/bin/sh
# SPDX-License-Identifier: MIT
# files.sh - the files --verity=FILE and --verity-roothash FILE write
# appear complete or not at all: a signal mid-run leaves neither the
# image nor the tree file (nor their temporary files); an existing tree
# file is not replaced without -f (exit 1, no image either); with -f it is.
# libcrypto is loaded by dm-verity alone (lib/verity/verity_sha.c): with
# an unloadable one first in the library path, a run without --verity
# packs, and --verity or `imginfo verity` fails with a message naming
# it, leaving no image.
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

soname=$(sed -n 's/^#define SQP_LIBCRYPTO_SONAME "\(.*\)"$/\1/p' "$top_builddir/config.h")
mkdir "$T/nolib" "$T/no" && : > "$T/nolib/$soname" || exit 99
nolib() { LD_LIBRARY_PATH="$T/nolib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }
check "$soname unloadable: packing without --verity works" \
	nolib "$TAR2IMG" -q "$T/no/plain" "$T/src.tar"
nolib "$TAR2IMG" -q --verity "$T/no/img" "$T/src.tar" 2> "$T/err"
check "$soname unloadable: --verity exits 1, no image left" \
	test $? = 1 -a ! -e "$T/no/img" -a "$(ls "$T/no")" = plain
check "and says why" grep -q "dm-verity needs $soname: .*$soname" "$T/err"
nolib "$IMGINFO" verity --hash-file "$T/out/img.verity" "$T/out/img" "$(cat "$T/out/rh")" \
	> /dev/null 2> "$T/err"
check "$soname unloadable: imginfo verity exits 1" test $? = 1
check "and says why" grep -q "dm-verity needs $soname: .*$soname" "$T/err"
finish
