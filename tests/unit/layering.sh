#!/bin/sh
# The dependency rule of doc/architecture.md, checked on the sources:
# each layer of lib/ includes only the layers below it, and the tools and
# extras include only the public headers.
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
cd "$top_srcdir" || exit 1
passed=0 failed=0

# forbid DIR PATTERN WHY: no file under DIR may include a header matching PATTERN
forbid() {
	hits=$(find "$1" -name '*.[ch]' 2>/dev/null | xargs -r grep -nE "^#[[:space:]]*include[[:space:]]+\"($2)" 2>/dev/null)
	if [ -n "$hits" ]; then
		echo "FAIL: $1 must not include $2 ($3):"
		echo "$hits"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
}

above='unpack/|check/|inspect/|dir/|policy/'
forbid lib/util "codec/|format/|tar/|write/|read/|$above" 'util depends on nothing'
forbid lib/codec "format/|tar/|write/|read/|$above" 'codecs know nothing of the format or pipeline'
forbid lib/format "codec/|tar/|write/|read/|$above" 'format is pure encoding'
forbid lib/tar "codec/|format/|write/|read/|$above" 'tar knows nothing of SquashFS'
forbid lib/write "read/|$above" 'the writer never uses the reader'
forbid lib/read "write/|tar/|sqpack/tar|$above" 'the reader is only the reader: conversions sit above it'
forbid lib/unpack 'write/|check/' 'conversions use the reader, never the writer or the checker'
forbid lib/check 'write/|tar/|sqpack/tar|unpack/' 'the checker needs only the reader'
forbid lib/inspect 'codec/|format/|tar/|write/|read/|unpack/|check/|dir/|policy/' 'inspection uses the public reader API only'
forbid lib/policy 'codec/|format/|tar/|write/|read/|unpack/|check/|inspect/|dir/' 'entry rules know nothing of either format'
forbid lib/dir 'codec/|format/|tar/|write/|read/|unpack/|check/|inspect/|policy/' 'the scanner feeds the public writer API only'
forbid include/sqpack/reader.h 'sqpack/tar' 'the reader API does not pull in the tar writer'
forbid bin "util/|codec/|format/|tar/|write/|read/|$above" 'tools use the public API only'
forbid extras "util/|codec/|format/|tar/|write/|read/|$above" 'extras use the public API only'

echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
