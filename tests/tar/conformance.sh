#!/bin/sh
# SPDX-License-Identifier: MIT
# conformance.sh - archives that real writers on this machine produce, each
# packed by tar2img and the image's tree (unsquashfs -d) compared with the
# tree bsdtar extracts from the same archive: GNU tar --format=v7, oldgnu,
# gnu, ustar, posix (with sparse files, long names, xattrs, as far as each
# format holds them), bsdtar's ustar, pax, gnutar and v7, Python tarfile's
# USTAR, GNU and PAX, the same archives cut after the last entry (no end
# blocks; v7 holds no fifo), and pzstd, pbzip2, lz4 -l and concatenated gzip/xz/zstd
# compressions of one of them; then star's sparse files (xstar, xustar,
# exustar), NUL-led numeric fields and sized directories without data
# (mkliberal.py), in every image codec and stream format.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar bsdtar unsquashfs "$PYTHON3"
[ "$(id -u)" = 0 ] || skip "needs root: bsdtar must restore owners, devices and xattrs"

T=$SCRATCH
src=$T/src
mkdir -p "$src/dir/sub" "$src/$(printf 'l%.0s' $(seq 1 120))"
printf 'plain\n' > "$src/dir/a"
seq 1 5000 > "$src/dir/seq"
ln -s a "$src/dir/sym"
ln "$src/dir/a" "$src/dir/sub/hard"
mkfifo "$src/dir/fifo"
printf 'deep\n' > "$src/$(printf 'l%.0s' $(seq 1 120))/$(printf 'n%.0s' $(seq 1 110))"
$PYTHON3 -c 'import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"start"); f.seek(300000); f.write(b"middle"); f.truncate(700000)' "$src/dir/sparse"
setfattr -n user.note -v hello "$src/dir/a" 2>/dev/null || skipc "no user xattrs here: xattr checks"
touch -d @1600000000 "$src"/dir/* "$src"/l*/*
short=$T/short # what ustar and v7 can hold: no long names
mkdir -p "$short"
cp -a "$src/dir" "$short/"

# judge NAME ARCHIVE: tar2img, then the tree against bsdtar's extraction
judge() {
	name=$1 archive=$2
	rm -rf "$T/img" "$T/u" "$T/ref"
	mkdir "$T/ref"
	if ! run "$name: bsdtar -x" bsdtar -xpf "$archive" --xattrs --numeric-owner -C "$T/ref"; then
		return
	fi
	if ! "$TAR2IMG" -q "$T/img" "$archive" 2> "$T/err"; then
		fail "$name: tar2img: $(grep -v warning "$T/err" | head -c 300)"; return
	fi
	run "$name: unsquashfs" unsquashfs -q -n -d "$T/u" "$T/img" > /dev/null &&
		same_tree "$name" "$T/u" "$T/ref" --ignore-dir-mtime
}
# noend ARCHIVE OUT: the archive without its end blocks (and record padding)
noend() {
	$PYTHON3 - "$1" "$2" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
end = len(d)
while end >= 512 and d[end - 512:end] == bytes(512):
    end -= 512
open(sys.argv[2], "wb").write(d[:end])
PY
}

for fmt in v7 ustar oldgnu gnu posix; do
	case $fmt in v7|ustar) from=$short ;; *) from=$src ;; esac
	case $fmt in v7) opts=--exclude=./dir/fifo ;; ustar) opts= ;; posix) opts="--sparse --xattrs --xattrs-include=*" ;; *) opts=--sparse ;; esac
	# shellcheck disable=SC2086
	run "GNU tar --format=$fmt" tar -C "$from" --format=$fmt $opts -cf "$T/g-$fmt.tar" . &&
		judge "GNU tar --format=$fmt $opts" "$T/g-$fmt.tar" &&
		noend "$T/g-$fmt.tar" "$T/g-$fmt-noend.tar" &&
		judge "GNU tar --format=$fmt, no end blocks" "$T/g-$fmt-noend.tar"
done
for fmt in ustar pax gnutar v7; do
	case $fmt in v7|ustar) from=$short ;; *) from=$src ;; esac
	run "bsdtar --format=$fmt" bsdtar -C "$from" --format=$fmt --xattrs -cf "$T/b-$fmt.tar" . 2> /dev/null &&
		judge "bsdtar --format=$fmt" "$T/b-$fmt.tar"
done
for fmt in USTAR GNU PAX; do
	case $fmt in USTAR) from=$short ;; *) from=$src ;; esac
	run "Python tarfile $fmt" $PYTHON3 -c 'import os, sys, tarfile
fmt = getattr(tarfile, sys.argv[3] + "_FORMAT")
with tarfile.open(sys.argv[2], "w", format=fmt) as t:
    t.add(sys.argv[1], arcname=".")' "$from" "$T/p-$fmt.tar" "$fmt" &&
		judge "Python tarfile ${fmt}_FORMAT" "$T/p-$fmt.tar" &&
		noend "$T/p-$fmt.tar" "$T/p-$fmt-noend.tar" &&
		judge "Python tarfile ${fmt}_FORMAT, no end blocks" "$T/p-$fmt-noend.tar"
done

# Shapes made by mkliberal.py that need judges of their own: star's sparse files
# (xstar, xustar, exustar, and a map of two extension blocks), judged by
# GNU tar (bsdtar reads star's extension blocks as file data); numeric
# fields led by NULs and directories with a size but no data, judged by
# bsdtar. One round per image codec, each with the next input stream
# format, so every archive meets every codec and every stream format.
mkdir "$T/lib"
$PYTHON3 "$top_srcdir/tests/tar/mkliberal.py" make "$T/lib" || exit 99
shapes27="star-sparse-xstar star-sparse-xustar star-sparse-exustar
	star-sparse-xstar-30runs nul-led-fields dir-size-no-data"
for a in $shapes27; do
	case $a in star-*) x="tar -xpf" ;; *) x="bsdtar -xpf" ;; esac
	mkdir -p "$T/ref27/$a"
	# shellcheck disable=SC2086 # the extractor is words
	run "$a: ${x%% *} -x" $x "$T/lib/$a.tar" --numeric-owner -C "$T/ref27/$a"
done
streams="cat gzip xz zstd bzip2 lz4"
for codec in $ALL_CODECS; do
	z=${streams%% *} streams="${streams#* } ${streams%% *}"
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	command -v "$z" > /dev/null || z=cat
	for a in $shapes27; do
		rm -rf "$T/img" "$T/u"
		if [ "$z" = cat ]; then cp "$T/lib/$a.tar" "$T/in27"
		else $z -q -c < "$T/lib/$a.tar" > "$T/in27" || exit 99; fi
		run "$a ($z, -c $codec): tar2img" "$TAR2IMG" -q -c "$codec" \
			"$T/img" "$T/in27" 2> "$T/err" &&
			run "$a: unsquashfs" unsquashfs -q -n -d "$T/u" "$T/img" > /dev/null &&
			same_tree "$a ($z, -c $codec)" "$T/u" "$T/ref27/$a" --ignore-dir-mtime
	done
done

# Compressed variants of the pax archive.
t=$T/g-posix.tar
[ -f "$t" ] || finish
if command -v pzstd > /dev/null; then
	run "pzstd" pzstd -q -p 2 -c "$t" > "$T/c.pzst" && judge "pzstd" "$T/c.pzst"
fi
if command -v pbzip2 > /dev/null; then
	run "pbzip2" pbzip2 -q -b1 -p2 -c "$t" > "$T/c.pbz2" && judge "pbzip2" "$T/c.pbz2"
else
	skipc "pbzip2 not installed (extras/setup.sh installs it)"
fi
if command -v lz4 > /dev/null; then
	run "lz4 -l" lz4 -q -l -c "$t" > "$T/c.lz4l" && judge "lz4 -l" "$T/c.lz4l"
fi
split -n 3 "$t" "$T/part."
for z in gzip xz zstd; do
	command -v $z > /dev/null || continue
	rm -f "$T/c.cat"
	for p in "$T"/part.*; do $z -c "$p" >> "$T/c.cat" || exit 99; done
	judge "three concatenated $z members" "$T/c.cat"
done
finish
