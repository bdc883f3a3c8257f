#!/bin/sh
# SPDX-License-Identifier: MIT
# peers.sh - img2tar reads what every writer writes. Images of the
# edge-case tree come from mksquashfs (all six codecs and the variants
# -noI -noD -noF -noX, -no-fragments, -always-use-fragments, -b 4K, -b 1M,
# -no-xattrs, -no-exports), from tar2sqfs and gensquashfs, and from our
# tar2img; for each, the tree bsdtar extracts from img2tar's output must
# equal the tree unsquashfs extracts from the image. The output must not
# depend on -j.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs unsquashfs bsdtar "$PYTHON3"
[ -x "$IMG2TAR" ] || skip "img2tar not built"

T=$SCRATCH
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99

judge() { # judge DESCRIPTION ours|peer CODEC IMAGE [treecmp options]
	desc=$1 img=$4
	rm -rf "$T/x"; mkdir "$T/x"
	unsquashfs_ref "$desc" "$2" "$3" "$img" "$T/u" || return
	shift 4
	if ! "$IMG2TAR" -j 2 "$img" > "$T/out.tar" 2> "$T/err"; then
		fail "$desc: img2tar: $(head -c 300 "$T/err")"; return
	fi
	if bsdtar -xpf "$T/out.tar" --xattrs --numeric-owner -C "$T/x" 2> "$T/err" &&
	   $TREECMP --ignore-root-mtime "$@" "$T/x" "$T/u" > "$T/diff"; then
		pass "$desc"
	else
		fail "$desc"; head -c 600 "$T/diff" "$T/err"
	fi
}

for codec in gzip lzma lzo xz lz4 zstd; do
	if ! codec_built "$codec"; then skipc "$codec not built"; continue; fi
	if mksquashfs "$T/src" "$T/m.img" -comp "$codec" $(peer_fast mksquashfs "$codec") -noappend -quiet -no-progress > /dev/null 2>&1; then
		judge "mksquashfs -comp $codec" peer "$codec" "$T/m.img"
	else
		skipc "mksquashfs -comp $codec: mksquashfs cannot write $codec here"
	fi
done
for variant in "-noI -noD -noF -noX" "-no-fragments" "-always-use-fragments" \
	"-b 4K" "-b 1M" "-no-xattrs" "-no-exports" "-no-duplicates"; do
	# shellcheck disable=SC2086
	mksquashfs "$T/src" "$T/m.img" -comp gzip $(peer_fast mksquashfs gzip) -noappend -quiet -no-progress $variant > /dev/null 2>&1 ||
		{ fail "mksquashfs $variant"; continue; }
	judge "mksquashfs $variant" peer gzip "$T/m.img"
done
if command -v tar2sqfs >/dev/null 2>&1; then
	# tar2sqfs refuses the entry in.tar gives twice: it gets the tree
	tar -C "$T/src" -cf "$T/src.tar" . || exit 99
	for codec in gzip xz zstd; do
		run "tar2sqfs -c $codec" tar2sqfs -q -f -c $codec $(peer_fast tar2sqfs $codec) "$T/t.img" < "$T/src.tar" > /dev/null &&
			judge "tar2sqfs -c $codec" peer "$codec" "$T/t.img"
	done
else
	skipc "tar2sqfs images: tar2sqfs not installed"
fi
if command -v gensquashfs >/dev/null 2>&1; then
	run "gensquashfs -D" gensquashfs -q -f -D "$T/src" "$T/g.img" > /dev/null &&
		judge "gensquashfs -D" peer xz "$T/g.img" --no-xattrs
else
	skipc "gensquashfs images: gensquashfs not installed"
fi
for codec in $ALL_CODECS; do
	codec_built "$codec" || continue
	run "tar2img -c $codec" "$TAR2IMG" -q -f -c "$codec" "$T/s.img" "$T/in.tar" &&
		judge "tar2img -c $codec" ours "$codec" "$T/s.img"
done

# Same bytes for every -j; --sparse keeps the holes and the contents.
run "tar2img" "$TAR2IMG" -q -f "$T/s.img" "$T/in.tar" || finish
run "img2tar -j 1" "$IMG2TAR" -j 1 "$T/s.img" > "$T/j1.tar" || finish
for j in 2 3 8; do
	run "img2tar -j $j" "$IMG2TAR" -j $j "$T/s.img" > "$T/jn.tar" &&
		check "img2tar -j $j writes the same bytes as -j 1" cmp -s "$T/j1.tar" "$T/jn.tar"
done
run "img2tar --sparse" "$IMG2TAR" --sparse "$T/s.img" > "$T/sparse.tar" &&
	check "--sparse output is smaller (holes not written)" \
	test "$(stat -c %s "$T/sparse.tar")" -lt "$(stat -c %s "$T/j1.tar")"
rm -rf "$T/x" "$T/u"; mkdir "$T/x"
run "unsquashfs" unsquashfs -q -n -d "$T/u" "$T/s.img" > /dev/null &&
	run "bsdtar -x of the --sparse tar" bsdtar -xpf "$T/sparse.tar" --xattrs --numeric-owner -C "$T/x" &&
	check "--sparse output extracts to the same tree" \
		$TREECMP --ignore-root-mtime "$T/x" "$T/u"
run "img2tar links dev" "$IMG2TAR" "$T/s.img" links dev > "$T/sub.tar" &&
	check "subtrees: only the named paths" \
		sh -c "bsdtar -tf '$T/sub.tar' | grep -v '^links\|^dev' | wc -l | grep -qx 0"
# -z on that subtree (xz at its default level takes seconds on the whole)
for z in gzip xz zstd lz4; do
	command -v $z >/dev/null 2>&1 || continue
	run "img2tar -z $z links dev" "$IMG2TAR" -z $z "$T/s.img" links dev > "$T/z.tar.$z" &&
		run "$z -d" $z -d -c "$T/z.tar.$z" > "$T/z.tar" &&
		check "-z $z output decompresses to the plain tar" cmp -s "$T/z.tar" "$T/sub.tar"
done
run "img2tar links" "$IMG2TAR" "$T/s.img" links > "$T/sub1.tar" &&
	run "img2tar of overlapping paths" "$IMG2TAR" "$T/s.img" links/target ./links/ links//sym-rel links > "$T/sub2.tar" &&
	check "subtrees: a path inside another, or given twice, adds nothing" \
		cmp -s "$T/sub1.tar" "$T/sub2.tar"
finish
