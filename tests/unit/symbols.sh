#!/bin/sh
# Every symbol the libraries export carries the sqp_ prefix: the shared
# library's, each under the version node SQPACK_0 (lib/libsqpack.map) or,
# exactly the functions of the unstable headers (those gated by
# SQPACK_UNSTABLE_API), under SQPACK_UNSTABLE; and the static archive's
# (its hidden symbols made local at build), so that a program linking
# either beside another library cannot collide with our internal names; and the public API is really exported (hidden
# visibility did not swallow it) in both. And loading the shared
# libraries does not load libcrypto, which dm-verity dlopens.
libs=${top_builddir:-.}/.libs
so=$libs/libsqpack.so
ar=$libs/libsqpack.a
for t in nm ldd; do
	command -v $t >/dev/null 2>&1 || { echo "skip: $t not found" >&2; exit 77; }
done
[ -f "$so" ] || [ -f "$ar" ] || { echo "skip: no library built in $libs" >&2; exit 77; }
passed=0 failed=0 skipped=0
verdict() { # DESCRIPTION BAD-LIST: pass when the list is empty
	if [ -n "$2" ]; then
		echo "FAIL: $1:"; echo "$2" | head -20
		failed=$((failed + 1))
	else
		echo "ok: $1"; passed=$((passed + 1))
	fi
}
public="sqp_strerror sqp_writer_create sqp_writer_add_tar sqp_tar_reader_create
	sqp_compressor_create sqp_outfile_create sqp_version sqp_image_create"

if [ -f "$so" ]; then
	dyn=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }')
	verdict "shared: every export is sqp_*" \
		"$(echo "$dyn" | sed 's/@.*//' | grep -v '^sqp_' | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$')"
	verdict "shared: every export is in SQPACK_0 or SQPACK_UNSTABLE" \
		"$(echo "$dyn" | grep -vE '@@SQPACK_(0|UNSTABLE)$')"
	src=${top_srcdir:-..}/include/sqpack
	declared=$(grep -l '^#ifndef SQPACK_UNSTABLE_API' "$src"/*.h | xargs cat |
		tr '\n' ' ' | grep -o 'SQP_API[^(;]*(' |
		sed 's/.*[ *]\(sqp_[a-z0-9_]*\)($/\1/' | sort)
	unstable=$(echo "$dyn" | sed -n 's/@@SQPACK_UNSTABLE$//p' | sort)
	verdict "shared: SQPACK_UNSTABLE holds the unstable headers' functions" \
		"$([ -n "$declared" ] && [ "$declared" = "$unstable" ] ||
		   printf 'declared: %s\nexported: %s\n' "$(echo $declared)" "$(echo $unstable)")"
	for sym in $public; do
		verdict "shared: $sym exported" "$(echo "$dyn" | grep -q "^$sym@@" || echo missing)"
	done
	# dm-verity dlopens libcrypto when used (lib/verity/verity_sha.c):
	# loading it with the library cost every run 2 ms of CPU.
	verdict "shared: loading it does not load libcrypto" "$(ldd "$so" | grep libcrypto)"
else
	echo "skip: $so not built (static-only build)"; skipped=$((skipped + 1))
fi
if [ -f "$ar" ]; then
	glob=$(nm -g --defined-only "$ar" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRVWC]$/ { print $3 }')
	verdict "static: every global symbol is sqp_*" "$(echo "$glob" | grep -v '^sqp_')"
	for sym in $public; do
		verdict "static: $sym global" "$(echo "$glob" | grep -qx "$sym" || echo missing)"
	done
	if [ -f "$so" ]; then
		a=$(echo "$dyn" | sed 's/@.*//' | grep '^sqp_' | sort | tr '\n' ' ')
		b=$(echo "$glob" | sort | tr '\n' ' ')
		verdict "static and shared export the same names" "$([ "$a" = "$b" ] || echo "shared: $a; static: $b")"
	fi
else
	echo "skip: $ar not built (shared-only build)"; skipped=$((skipped + 1))
fi

# libsqpack-fuse (built with fuse3): sqp_fuse_* only, under SQPACK_FUSE_0,
# and every function of include/sqpack/fuse.h, in both forms.
fso=$libs/libsqpack-fuse.so
far=$libs/libsqpack-fuse.a
fapi=$(tr '\n' ' ' < "${top_srcdir:-..}/include/sqpack/fuse.h" | grep -o 'SQP_API[^(;]*(' |
	sed 's/.*[ *]\(sqp_[a-z0-9_]*\)($/\1/' | sort)
if [ -f "$fso" ]; then
	fdyn=$(nm -D --defined-only "$fso" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }')
	verdict "libsqpack-fuse shared: every export is sqp_fuse_* in SQPACK_FUSE_0" \
		"$(echo "$fdyn" | grep -vE '^sqp_fuse_[a-z0-9_]*@@SQPACK_FUSE_0$' |
		   grep -vE '^(_init|_fini|_edata|_end|__bss_start)$')"
	verdict "libsqpack-fuse shared: exports fuse.h's functions" \
		"$([ "$(echo "$fdyn" | sed -n 's/@@SQPACK_FUSE_0$//p' | sort)" = "$fapi" ] || echo "$fapi")"
	verdict "libsqpack-fuse shared: loading it does not load libcrypto" \
		"$(LD_LIBRARY_PATH=$libs ldd "$fso" | grep libcrypto)"
else
	echo "skip: $fso not built (no fuse3, or static-only)"; skipped=$((skipped + 1))
fi
if [ -f "$far" ]; then
	fglob=$(nm -g --defined-only "$far" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRVWC]$/ { print $3 }' | sort)
	verdict "libsqpack-fuse static: its globals are fuse.h's functions" \
		"$([ "$fglob" = "$fapi" ] || echo "globals:" $fglob)"
else
	echo "skip: $far not built (no fuse3, or shared-only)"; skipped=$((skipped + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
