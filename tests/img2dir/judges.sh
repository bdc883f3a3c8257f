#!/bin/sh
# SPDX-License-Identifier: MIT
# judges.sh - img2dir extracts what unsquashfs -d extracts. Images of the
# edge-case tree (mktar.py: every entry type, holes, hard links, xattrs,
# 60 levels, odd modes and times) come from our tar2img (every codec,
# --no-fragments, -b 4K, --no-tailends), from mksquashfs (gzip and xz, and
# the variants -noI -noD -noF -noX, -no-fragments, -always-use-fragments,
# -b 4K, -b 1M, -no-exports) and from tar2sqfs; for each, img2dir -j 2's
# tree must equal unsquashfs's. -j 1 gives the same tree, holes stay holes, and a second
# run into the same directory needs -f, also for small files made late
# (and subtrees whose hard links point at them).
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs bsdtar "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
[ -x "$IMG2DIR" ] || skip "img2dir not built"

T=$(fast_dir)
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99

judge() { # judge DESCRIPTION ours|peer CODEC IMAGE
	desc=$1 img=$4 ref=$T/u
	rm -rf "$T/x"
	unsquashfs_ref "$desc" "$2" "$3" "$img" "$ref" || return
	if ! "$IMG2DIR" -j 2 "$img" "$T/x" 2> "$T/err"; then
		fail "$desc: img2dir: $(head -c 300 "$T/err")"; return
	fi
	same_tree "$desc" "$T/x" "$ref"
}

for codec in $ALL_CODECS; do
	if ! codec_built "$codec"; then skipc "$codec not built"; continue; fi
	# every codec of ours; mksquashfs: gzip (and the variants below), xz
	case $codec in
	gzip|xz)
		if mksquashfs "$T/src" "$T/m.img" -comp "$codec" $(peer_fast mksquashfs "$codec") -noappend -quiet -no-progress > /dev/null 2>&1; then
			judge "mksquashfs -comp $codec" peer "$codec" "$T/m.img"
		else
			skipc "mksquashfs -comp $codec: mksquashfs cannot write $codec here"
		fi ;;
	esac
	"$TAR2IMG" -q -f -c "$codec" "$T/o.img" "$T/in.tar" || { fail "tar2img -c $codec"; continue; }
	judge "tar2img -c $codec" ours "$codec" "$T/o.img"
done
for variant in "-noI -noD -noF -noX" "-no-fragments" "-always-use-fragments" \
	"-b 4K" "-b 1M" "-no-exports"; do
	# shellcheck disable=SC2086
	mksquashfs "$T/src" "$T/m.img" -comp gzip -noappend -quiet -no-progress $variant > /dev/null 2>&1 ||
		{ fail "mksquashfs $variant"; continue; }
	judge "mksquashfs $variant" peer gzip "$T/m.img"
done
for variant in "--no-fragments" "-b 4K" "--no-tailends"; do
	# shellcheck disable=SC2086
	"$TAR2IMG" -q -f $variant "$T/o.img" "$T/in.tar" || { fail "tar2img $variant"; continue; }
	judge "tar2img $variant" ours zstd "$T/o.img"
done
if ! command -v tar2sqfs >/dev/null 2>&1; then
	skipc "tar2sqfs -c xz: tar2sqfs not installed"
elif tar2sqfs -q -f -c xz $(peer_fast tar2sqfs xz) "$T/t.img" < "$T/in.tar" > /dev/null 2>&1; then
	judge "tar2sqfs -c xz" peer xz "$T/t.img"
else
	skipc "tar2sqfs -c xz: tar2sqfs cannot pack the archive"
fi

# -j 1 against -j 2, on our image
"$TAR2IMG" -q -f "$T/o.img" "$T/in.tar" || exit 99
rm -rf "$T/x" "$T/y"
"$IMG2DIR" -j 2 "$T/o.img" "$T/x" && "$IMG2DIR" -j 1 "$T/o.img" "$T/y" &&
	same_tree "-j 1 and -j 2 give the same tree" "$T/x" "$T/y" ||
	fail "img2dir -j 1 or -j 2 failed"

# holes: a file of 8 MiB of which 4 KiB are data keeps few blocks
mkdir -p "$T/h"
truncate -s 8M "$T/h/sparse" && echo data >> "$T/h/sparse"
( cd "$T/h" && tar -cf - . ) | "$TAR2IMG" -q -f "$T/h.img" || exit 99
rm -rf "$T/hx"
"$IMG2DIR" "$T/h.img" "$T/hx" || fail "img2dir of a sparse file"
blocks=$(stat -c %b "$T/hx/sparse")
cmp -s "$T/h/sparse" "$T/hx/sparse" && [ "$blocks" -lt 1024 ] &&
	pass "a hole stays a hole ($blocks blocks)" ||
	fail "sparse file: $blocks blocks, or its bytes differ"

# existing files are kept without -f, replaced with it
echo mine > "$T/hx/sparse"
if "$IMG2DIR" "$T/h.img" "$T/hx" 2> "$T/err"; then
	fail "an existing file was overwritten without -f"
else
	grep -q "already exists" "$T/err" && [ "$(cat "$T/hx/sparse")" = mine ] &&
		pass "an existing file is kept without -f: $(head -c 100 "$T/err")" ||
		fail "without -f: $(cat "$T/err")"
fi
"$IMG2DIR" -f "$T/h.img" "$T/hx" && cmp -s "$T/h/sparse" "$T/hx/sparse" &&
	pass "-f replaces it" || fail "-f did not replace the file"

# small files are made late, when their turn comes: a hard link made at
# once (a subtree asked for) still finds them, and a clash still names
# the file and stops the run
mkdir -p "$T/s/a" "$T/s/c"
echo small > "$T/s/a/f" && ln "$T/s/a/f" "$T/s/b" && ln "$T/s/a/f" "$T/s/c/g"
( cd "$T/s" && tar -cf - a b c ) | "$TAR2IMG" -q -f "$T/s.img" || exit 99
rm -rf "$T/sx"
"$IMG2DIR" -j 2 "$T/s.img" "$T/sx" a b c/g &&
	[ "$(stat -c %i "$T/sx/a/f")" = "$(stat -c %i "$T/sx/b")" ] &&
	[ "$(stat -c %i "$T/sx/a/f")" = "$(stat -c %i "$T/sx/c/g")" ] &&
	pass "subtrees: hard links to a small file made late" ||
	fail "subtrees with hard links to a small file"
if "$IMG2DIR" -j 2 "$T/s.img" "$T/sx" 2> "$T/err"; then
	fail "an existing small file was overwritten without -f"
else
	grep -q "'a/f': already exists" "$T/err" &&
		pass "a clash on a small file made late: $(head -c 100 "$T/err")" ||
		fail "clash on a small file: $(cat "$T/err")"
fi
finish
