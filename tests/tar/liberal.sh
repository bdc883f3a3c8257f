#!/bin/sh
# SPDX-License-Identifier: MIT
# liberal.sh - archives GNU tar and bsdtar both read must pack: one
# hand-made archive per liberal-reading rule (mkliberal.py: no end
# blocks, a lone zero block, old-tar directories, hard links with a size,
# base-256 numbers and far times, junk after pax times, a NUL in a pax
# path, star and xstar headers and sparse maps, star's own sparse output,
# numeric fields led by NULs, directories with a size and no data), then
# compressed streams the tools' decompressors read (zstd skippable
# frames, leading too; pzstd; lz4 legacy; concatenated members). Each
# image is extracted and checked for what its rule implies, and compared
# with bsdtar's extraction of the same archive (where bsdtar reads it
# right; conformance.sh compares star's sparse files with GNU tar's).
. "$top_srcdir/tests/lib/common.sh"
need_tool bsdtar unsquashfs "$PYTHON3"
[ "$(id -u)" = 0 ] || skip "needs root: bsdtar and unsquashfs must restore owners and devices"

T=$SCRATCH
MK="$PYTHON3 $top_srcdir/tests/tar/mkliberal.py"
mkdir "$T/in"
$MK make "$T/in" || exit 99

# judge NAME ARCHIVE WARNING TREECMP-OPTS CHECKS: pack, extract, check
judge() {
	name=$1 archive=$2 warning=$3 opts=$4 checks=$5
	rm -rf "$T/img" "$T/u" "$T/ref"
	if ! "$TAR2IMG" -q "$T/img" "$archive" 2> "$T/err"; then
		fail "$name: tar2img failed: $(head -c 300 "$T/err")"; return
	fi
	if [ "$warning" != - ] && ! grep -qF -- "$warning" "$T/err"; then
		fail "$name: no warning '$warning' (stderr: $(head -c 200 "$T/err"))"
	fi
	if ! unsquashfs -q -n -d "$T/u" "$T/img" > /dev/null 2>&1; then
		fail "$name: unsquashfs failed"; return
	fi
	if [ -n "$checks" ]; then
		# shellcheck disable=SC2086 # the checks are words
		if $MK check "$T/u" $checks > "$T/chk"; then
			pass "$name: $checks"
		else
			fail "$name: $(cat "$T/chk")"
		fi
	fi
	[ "$opts" = none ] && return
	mkdir "$T/ref"
	if ! bsdtar -xpf "$archive" --numeric-owner -C "$T/ref" 2> "$T/berr"; then
		fail "$name: bsdtar cannot extract it: $(head -c 200 "$T/berr")"; return
	fi
	# shellcheck disable=SC2086
	same_tree "$name: the tree bsdtar extracts" "$T/u" "$T/ref" \
		--ignore-dir-mtime $opts
}

tab=$(printf '\t')
while IFS=$tab read -r file warning opts checks; do
	[ "$opts" = - ] && opts=
	judge "$file" "$T/in/$file" "$warning" "$opts" "$checks"
done < "$T/in/cases.txt"

# Compressed streams, all of the same tar.
mkdir -p "$T/src/d"
printf 'hello\n' > "$T/src/d/a"
seq 1 20000 > "$T/src/b"
tar -C "$T/src" -cf "$T/t.tar" . || exit 99
head -c 10240 "$T/t.tar" > "$T/part1"
tail -c +10241 "$T/t.tar" > "$T/part2"
skippable() { printf '\120\052\115\030\005\000\000\000skip!'; }
if command -v zstd > /dev/null; then
	{ skippable; zstd -q -c < "$T/t.tar"; } > "$T/lead.zst"
	judge "zstd after a leading skippable frame" "$T/lead.zst" - "" "d/a:f=hello\n"
	{ zstd -q -c < "$T/part1"; skippable; zstd -q -c < "$T/part2"; skippable; } > "$T/mid.zst"
	judge "zstd frames with skippable frames between and after" "$T/mid.zst" - "" "d/a:f=hello\n"
fi
if command -v pzstd > /dev/null; then
	pzstd -q -p 2 -c < "$T/t.tar" > "$T/p.zst"
	judge "pzstd (a skippable frame before every frame)" "$T/p.zst" - "" "d/a:f=hello\n"
fi
if command -v lz4 > /dev/null; then
	lz4 -q -l -c < "$T/t.tar" > "$T/l.lz4"
	judge "lz4 -l (legacy frames)" "$T/l.lz4" - "" "d/a:f=hello\n"
	{ lz4 -q -l -c < "$T/part1"; lz4 -q -l -c < "$T/part2"; } > "$T/l2.lz4"
	judge "two concatenated lz4 legacy streams" "$T/l2.lz4" - "" "d/a:f=hello\n"
	{ skippable; lz4 -q -c < "$T/t.tar"; } > "$T/lf.lz4"
	# bsdtar takes the skippable frame for zstd: not a judge of this one
	judge "lz4 frame after a leading skippable frame" "$T/lf.lz4" - none "d/a:f=hello\n"
fi
for z in xz bzip2 zstd lz4; do
	command -v $z > /dev/null || continue
	{ $z -q -c < "$T/part1"; $z -q -c < "$T/part2"; } > "$T/cat.$z"
	judge "two concatenated $z members" "$T/cat.$z" - "" "d/a:f=hello\n"
done
# No byte at all: bsdtar, tar2sqfs, sqfstar and mkfs.erofs --tar read
# an empty archive (GNU tar refuses), as a file and on a pipe.
: > "$T/empty.tar"
judge "an empty input" "$T/empty.tar" "the input is empty" "" ""
gzip -c < /dev/null > "$T/empty.gz"
judge "a gzip stream of nothing" "$T/empty.gz" "the input is empty" "" ""
if "$SQP_BIN/sqpack-mkfs.erofs" --quiet --tar=f "$T/empty.erofs" < /dev/null > "$T/err" 2>&1; then
	check "sqpack-mkfs.erofs --quiet --tar=f, nothing on stdin: silent ($(head -c 200 "$T/err"))" [ ! -s "$T/err" ]
	list=$("$SQP_BIN/imginfo" ls -R "$T/empty.erofs")
	check "sqpack-mkfs.erofs --tar=f, nothing on stdin: a root alone ($list)" [ "$list" = / ]
else
	fail "sqpack-mkfs.erofs --tar=f, nothing on stdin: $(head -c 200 "$T/err")"
fi
if command -v pbzip2 > /dev/null; then
	pbzip2 -q -p2 -b1 -c < "$T/t.tar" > "$T/p.bz2"
	judge "pbzip2 (one stream per block)" "$T/p.bz2" - "" "d/a:f=hello\n"
else
	skipc "pbzip2 (one stream per block): pbzip2 not installed"
fi
finish
