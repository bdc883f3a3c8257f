#!/bin/sh
# Every symbol the shared library exports carries the sqp_ prefix, and the
# public API is really exported (hidden visibility did not swallow it).
lib=${top_builddir:-.}/.libs/libsqpack.so
if [ ! -f "$lib" ]; then
	echo "skip: $lib not built (static-only build?)" >&2
	exit 77
fi
command -v nm >/dev/null 2>&1 || { echo "skip: nm not found" >&2; exit 77; }
passed=0 failed=0
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | grep -v '^sqp_' | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$')
if [ -n "$bad" ]; then
	echo "FAIL: exported symbols without the sqp_ prefix:"; echo "$bad"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
for sym in sqp_strerror sqp_writer_create sqp_writer_add_tar sqp_tar_reader_create \
	   sqp_compressor_create sqp_outfile_create sqp_version; do
	if nm -D --defined-only "$lib" | grep -q " T $sym\$"; then
		passed=$((passed + 1))
	else
		echo "FAIL: $sym is not exported"; failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
