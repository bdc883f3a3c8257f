#!/bin/sh
# SPDX-License-Identifier: MIT
# old_binary.sh - programs of other releases keep working (issue 22).
# tests/abi/old_binary.c, built against the headers as they are, runs
# against a library whose sqp_image_desc and sqp_image_info grew a member
# at their end (this build's objects, with lib/read/image_open.c built
# again against grown headers): an old binary on a newer library. Built
# with -DGROWN against those grown headers, it runs against the library
# as built: a new binary on an older one. Both pack and read an image,
# and check that the library never writes past the caller's struct.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"

: "${CC:=cc}"
command -v "$CC" > /dev/null 2>&1 || skip "no C compiler ($CC)"
libs=$top_builddir/.libs
[ -f "$libs/libsqpack.so" ] || skip "no shared library in this build"
[ -f "$libs/libsqpack_core.a" ] || skip "no $libs/libsqpack_core.a to build a grown library from"
src=$top_srcdir/tests/abi/old_binary.c

cc_() { # the build's compiler and flags (a sanitizer build's too)
	# shellcheck disable=SC2086
	$CC $SQP_CFLAGS "$@" $SQP_LDFLAGS
}

# The grown headers: one member more at the end of two sized structs.
grown=$SCRATCH/grown/include
run "grown headers" mkdir -p "$grown/sqpack" &&
run "grown headers" cp "$top_srcdir"/include/sqpack/*.h "$top_builddir/include/sqpack/version.h" "$grown/sqpack/" &&
run "grown headers" "$PYTHON3" - "$grown/sqpack/reader.h" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
for last, new in (("\tconst char *device;\n};", "grown_in"), ("\tuint32_t decode_unit;\n};", "grown_out")):
    assert s.count(last) == 1, last
    s = s.replace(last, last[:-3] + "\n\tuint64_t %s;\n};" % new)
open(p, "w").write(s)
PY

# The grown library: every object of this build but image_open's, which
# is compiled again against the grown headers, linked as libsqpack is.
objs=$SCRATCH/objs
deps=$(sed -n "s/^dependency_libs='\(.*\)'/\1/p" "$top_builddir/libsqpack.la")
run "the objects" mkdir -p "$objs" "$SCRATCH/grownlib" &&
run "the objects" sh -c "cd '$objs' && ar x '$libs/libsqpack_core.a' && rm libsqpack_core_la-image_open.o" &&
run "image_open.c against the grown headers" cc_ -c -fPIC -fvisibility=hidden \
	-DHAVE_CONFIG_H -DSQPACK_UNSTABLE_API -I"$grown" -I"$top_srcdir/lib" -I"$top_builddir" \
	-o "$objs/grown_image_open.o" "$top_srcdir/lib/read/image_open.c" &&
# shellcheck disable=SC2086
run "the grown library" cc_ -shared -o "$SCRATCH/grownlib/libsqpack.so.0" \
	-Wl,-soname,libsqpack.so.0 -Wl,--version-script="$top_srcdir/lib/libsqpack.map" \
	"$objs"/*.o $deps -pthread

run "the old binary" cc_ -o "$SCRATCH/old" -I"$top_srcdir/include" -I"$top_builddir/include" \
	"$src" -L"$libs" -lsqpack &&
run "the new binary" cc_ -DGROWN -o "$SCRATCH/new" -I"$grown" "$src" -L"$libs" -lsqpack

# WHAT LIBDIR PROGRAM: the program's own checks, shown in the log.
runs() {
	if LD_LIBRARY_PATH=$2 "$3" "$SCRATCH/$1.img" > "$SCRATCH/$1.out" 2>&1; then
		pass "$1"
	else
		fail "$1"
	fi
	sed 's/^/# /' "$SCRATCH/$1.out"
}
runs "the old binary on the library as built" "$libs" "$SCRATCH/old"
runs "the old binary on a library with grown structs" "$SCRATCH/grownlib" "$SCRATCH/old"
runs "a new binary on the library as built" "$libs" "$SCRATCH/new"
finish
