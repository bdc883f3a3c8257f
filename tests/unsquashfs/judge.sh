#!/bin/sh
# SPDX-License-Identifier: MIT
# judge.sh - sqpack-unsquashfs against unsquashfs 4.5.1 on the edge-case
# tree (mktar.py: every entry type, holes, hard links, devices, xattrs
# of three namespaces, odd modes and times): images of every codec by
# mksquashfs and by tar2img, an lz4 one by dir2img, and one at an
# offset inside a bigger file.
# For each: the same exit status and the same stdout, byte for byte, for
# -s and -lls; on one image per packer and two of mksquashfs's codecs,
# every listing mode (TZ=UTC and TZ=Asia/Kolkata, -UTC), PATH
# selections (wildcards, -no-wildcards, -r, -excludes, -max-depth),
# -mkfs-time, -cat, and the -pf pseudo file (whole, a selection,
# -max-depth, TZ=UTC and TZ=Asia/Kolkata); on every image the same
# extracted tree, and on one image per packer (mksquashfs's gzip,
# tar2img's xz) the same trees and the same -i/-li lines (all of it, a
# selection, -no-xattrs, -user-xattrs, a regex that leaves dev/ out,
# -max-depth), and
# -xattrs-include/-exclude (4.6's) against the trees 4.5.1 gives, and
# the issue's lines as callers spell them (verbatim()).
# UNSQ may name another program (to prove this test notices a wrong one).
COMMON_NEEDS_TAR2IMG=yes
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs unsquashfs bsdtar "$PYTHON3"
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
unsquashfs -v 2>&1 | grep -q 'unsquashfs version 4\.5\.1' ||
	skip "the judge is not unsquashfs 4.5.1: $(unsquashfs -v 2>&1 | head -n 1)"

T=$(fast_dir)
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99
# a directory with nothing in it, for -lc
mkdir -p "$T/src/zz-empty"

# same_out DESCRIPTION ARGS...: both programs, run in the same directory
# with the same arguments, exit alike and print the same stdout.
same_out() {
	desc=$1; shift
	( cd "$T/r" && unsquashfs "$@" > "$T/ref.out" 2> "$T/ref.err" ); r1=$?
	( cd "$T/o" && "$UNSQ" "$@" > "$T/our.out" 2> "$T/our.err" ); r2=$?
	if [ $r1 -ne $r2 ]; then
		fail "$desc: exit $r2, unsquashfs $r1: $(head -c 300 "$T/our.err")"
	elif ! cmp -s "$T/ref.out" "$T/our.out"; then
		fail "$desc: stdout differs"
		diff "$T/ref.out" "$T/our.out" | head -n 8
	else
		pass "$desc"
	fi
}

# same_pf DESCRIPTION ARGS...: -n -pf pf.txt ARGS: the same exit status
# and the same pseudo file, byte for byte (the live bar of unsquashfs
# is left out by -n: ours is drawn once).
same_pf() {
	desc=$1; shift
	rm -f "$T/r/pf.txt" "$T/o/pf.txt"
	same_out "$desc" -n -pf pf.txt "$@" || return 0
	if cmp -s "$T/r/pf.txt" "$T/o/pf.txt"; then
		pass "$desc: same pseudo file"
	else
		fail "$desc: the pseudo files differ"
		cmp "$T/r/pf.txt" "$T/o/pf.txt" | head -n 2
	fi
}

mkdir -p "$T/r" "$T/o"
listings() { # listings NAME IMAGE
	n=$1 img=$2
	for z in UTC Asia/Kolkata; do
		for mode in -s -l -ls -ll -lls -lln -llnumeric -lc -llc; do
			TZ=$z same_out "$n: TZ=$z $mode" "$mode" "$img"
		done
		TZ=$z same_out "$n: TZ=$z -lls -UTC" -lls -UTC "$img"
		TZ=$z same_out "$n: TZ=$z -s -UTC" -s -UTC "$img"
	done
	same_out "$n: -n -l PATH" -n -l "$img" links
	same_out "$n: -data-queue 16 -frag-queue 16 -no-progress -dest . -lls PATH" \
		-data-queue 16 -frag-queue 16 -no-progress -dest . -lls "$img" links
	same_out "$n: -lln wildcards" -lln "$img" '*/s*' 'd*/*1*'
	same_out "$n: -lc -no-wildcards" -lc -no-wildcards "$img" '*' links
	same_out "$n: -ll -r" -ll -r "$img" '^d.*[0-9]$'
	same_out "$n: -l -max-depth 2" -l -max-depth 2 "$img"
	same_out "$n: -l -excludes" -l -excludes "$img" links 'l*'
	same_out "$n: -mkfs-time" -mkfs-time "$img"
	same_out "$n: -fstime" -fstime "$img"
	same_out "$n: -l missing PATH" -l "$img" nothing/here
}
# What a listing prints does not hang on the codec: the images that get
# extracts() and pseudo() below get every mode; the others -s and -lls
# (their inode and directory tables read whole, through their codec) and
# an extraction.
few_listings() { # few_listings NAME IMAGE
	same_out "$1: -s" -s "$2"
	TZ=Asia/Kolkata same_out "$1: TZ=Asia/Kolkata -lls" -lls "$2"
}
pseudo() { # pseudo NAME IMAGE
	TZ=UTC same_pf "$1: TZ=UTC -pf" "$2"
	TZ=Asia/Kolkata same_pf "$1: TZ=Asia/Kolkata -pf" "$2"
	same_pf "$1: -pf PATHs" "$2" links 's*'
	same_pf "$1: -pf -max-depth 1" -max-depth 1 "$2"
}

strip_user() { # strip_user DIR: remove every user.* xattr below DIR
	$PYTHON3 -c 'import os, sys
for top, dirs, files in os.walk(sys.argv[1]):
    for p in [top] + [os.path.join(top, f) for f in files + dirs]:
        for k in os.listxattr(p, follow_symlinks=False):
            if k.startswith("user."):
                os.removexattr(p, k, follow_symlinks=False)' "$1"
}

extract_one() { # extract_one NAME IMAGE: one extraction and its tree
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$1: extract" -n -d x "$2" &&
		same_tree "$1: tree" "$T/o/x" "$T/r/x"
}

extracts() { # extracts NAME IMAGE: trees and -i/-li lines
	n=$1 img=$2
	for args in "-n" "-i -n" "-li -no-progress -no-xattrs" "-user-xattrs -f -n" \
		"-q -n" "-n -max-depth 2" "-da 16 -fr 16 -p 2 -n"; do
		rm -rf "$T/r/x" "$T/o/x"
		# shellcheck disable=SC2086
		same_out "$n: extract $args" $args -d x "$img" &&
			same_tree "$n: tree of $args" "$T/o/x" "$T/r/x"
	done
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$n: extract PATHs" -i -n -d x "$img" links 'l*' nothing &&
		same_tree "$n: tree of PATHs" "$T/o/x" "$T/r/x"
	# -xattrs-include (4.6): '^user\.' is -user-xattrs; -xattrs-exclude
	# '^user\.' is everything else (the judge's tree with user.* removed)
	rm -rf "$T/r/x" "$T/o/x"
	( cd "$T/r" && unsquashfs -q -n -user-xattrs -d x "$img" > /dev/null 2>&1 ) &&
		( cd "$T/o" && "$UNSQ" -q -n -xattrs-include '^user\.' -d x "$img" ) &&
		same_tree "$n: -xattrs-include '^user\.' as -user-xattrs" "$T/o/x" "$T/r/x" ||
		fail "$n: -xattrs-include: an extraction failed"
	rm -rf "$T/r/x" "$T/o/x"
	( cd "$T/r" && unsquashfs -q -n -d x "$img" > /dev/null 2>&1 ) &&
		strip_user "$T/r/x" &&
		( cd "$T/o" && "$UNSQ" -q -n -xattrs-exclude '^user\.' -d x "$img" ) &&
		same_tree "$n: -xattrs-exclude '^user\.'" "$T/o/x" "$T/r/x" ||
		fail "$n: -xattrs-exclude: an extraction failed"
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$n: extract -r without dev/" -n -r -excludes -d x "$img" '^dev$' &&
		same_tree "$n: tree without dev/" "$T/o/x" "$T/r/x"
	verbatim "$n" "$img"
}

verbatim() { # verbatim NAME IMAGE: the issue's lines as callers spell them
	n=$1 img=$2
	rm -rf "$T/r/x" "$T/o/x"
	for pass in first "again, -force over it"; do
		same_out "$n: -data-queue 16 -frag-queue 16 -no-xattrs -no-progress -force -dest ($pass)" \
			-data-queue 16 -frag-queue 16 -no-xattrs -no-progress -force -dest x "$img" &&
			same_tree "$n: tree of -force -dest ($pass)" "$T/o/x" "$T/r/x"
	done
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$n: -data-queue 16 ... -force -dest DIR IMG PATHs" -data-queue 16 \
		-frag-queue 16 -no-xattrs -no-progress -force -dest x "$img" links 'l*' &&
		same_tree "$n: tree of -force -dest PATHs" "$T/o/x" "$T/r/x"
	rm -f "$T/r/pf.txt" "$T/o/pf.txt"
	same_out "$n: -da 128 -fr 128 -no-progress -pf FILE" -da 128 -fr 128 \
		-no-progress -pf pf.txt "$img" &&
		check "$n: -da 128 -fr 128 -pf: same pseudo file" cmp -s "$T/r/pf.txt" "$T/o/pf.txt"
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$n: -user-xattrs -f -d DEST -r -excludes '^dev\$'" -user-xattrs -f \
		-no-progress -d x -r -excludes "$img" '^dev$' &&
		same_tree "$n: tree of -user-xattrs -r without dev/" "$T/o/x" "$T/r/x"
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$n: -i -f -d DEST" -i -f -d x "$img" &&
		same_tree "$n: tree of -i -f" "$T/o/x" "$T/r/x"
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$n: -linfo -processors 2 -no-progress -d DEST" -linfo -processors 2 \
		-no-progress -d x "$img" && same_tree "$n: tree of -linfo" "$T/o/x" "$T/r/x"
	rm -rf "$T/r/x" "$T/o/x"
	same_out "$n: -info -quiet -dest DEST" -info -quiet -dest x "$img" &&
		same_tree "$n: tree of -info -quiet" "$T/o/x" "$T/r/x"
}

offset_img() { # offset_img IMAGE OUT: IMAGE behind 12345 bytes of ELF-ish junk
	head -c 12345 /dev/urandom > "$2" && cat "$1" >> "$2"
}

ls "$T/src" > "$T/top.txt"
note "top of the tree: $(tr '\n' ' ' < "$T/top.txt" | head -c 300)"
n=0
for codec in gzip xz lz4 zstd lzo; do
	if ! mksquashfs "$T/src" "$T/m.img" -comp $codec -noappend -quiet -no-progress > /dev/null 2>&1; then
		note "mksquashfs cannot write $codec here"; continue
	fi
	# (the options' trees on one image per packer: mksquashfs's gzip and
	# tar2img's xz; each takes most of a second per tree)
	case $codec in
	gzip)
		listings "mksquashfs $codec" "$T/m.img"
		extracts "mksquashfs $codec" "$T/m.img"; pseudo "mksquashfs $codec" "$T/m.img" ;;
	zstd)
		listings "mksquashfs $codec" "$T/m.img"
		extract_one "mksquashfs $codec" "$T/m.img"; pseudo "mksquashfs $codec" "$T/m.img" ;;
	*) few_listings "mksquashfs $codec" "$T/m.img"; extract_one "mksquashfs $codec" "$T/m.img" ;;
	esac
done
# (xz with two BCJ filters packs every block three times: 5 CPU-s over
# the whole tree, 1 over these three directories)
mksquashfs "$T/src/attr" "$T/src/links" "$T/src/sizes" "$T/m.img" -comp xz -Xbcj x86,arm -Xdict-size 50% -noI -noF -noX \
	-no-exports -always-use-fragments -noappend -quiet -no-progress > /dev/null 2>&1 &&
	same_out "mksquashfs xz options, uncompressed tables: -s" -s "$T/m.img"
mksquashfs "$T/src" "$T/m.img" -comp gzip -Xcompression-level 6 -Xwindow-size 12 \
	-no-fragments -no-xattrs -noappend -quiet -no-progress > /dev/null 2>&1 &&
	same_out "mksquashfs gzip options, no fragments, no xattrs: -s" -s "$T/m.img"
for c in "lz4 -Xhc" "zstd -Xcompression-level 19" "lzo -Xalgorithm lzo1x_1"; do
	# shellcheck disable=SC2086
	mksquashfs "$T/top.txt" "$T/c.img" -comp $c -noappend -quiet -no-progress > /dev/null 2>&1 &&
		same_out "mksquashfs -comp $c: -s" -s "$T/c.img"
done
for codec in $ALL_CODECS; do
	if ! codec_built "$codec"; then note "$codec not built here"; continue; fi
	"$TAR2IMG" -q -f -c "$codec" "$T/t.img" "$T/in.tar" || { fail "tar2img -c $codec"; continue; }
	case $codec in
	xz) listings "tar2img $codec" "$T/t.img"
		extracts "tar2img $codec" "$T/t.img"; pseudo "tar2img $codec" "$T/t.img" ;;
	*) few_listings "tar2img $codec" "$T/t.img"; extract_one "tar2img $codec" "$T/t.img" ;;
	esac
done
# the other packer: dir2img, from the tree itself
if "$SQP_BIN/dir2img" -q -c lz4 "$T/d.img" "$T/src" > /dev/null 2>&1; then
	listings "dir2img lz4" "$T/d.img"
	extract_one "dir2img lz4" "$T/d.img"
	pseudo "dir2img lz4" "$T/d.img"
else
	fail "dir2img -c lz4 refused the tree"
fi
# -q keeps the bar (unsquashfs's moves while it works; ours is drawn
# once, full): one line, as wide as unsquashfs's last
rm -rf "$T/o/x"
( cd "$T/o" && "$UNSQ" -q -d x "$T/t.img" > "$T/our.out" ) &&
	[ "$(wc -l < "$T/our.out")" -eq 1 ] && grep -q '^.\[=*|\] \([0-9]*\)/\1 100%$' "$T/our.out" &&
	pass "-q prints the bar alone: $(tr -d '\r' < "$T/our.out")" || fail "-q: $(cat -A "$T/our.out" | head -c 200)"

# PATHs from files and lists, under each spelling unsquashfs takes
printf 'links\ns*\n' > "$T/ef.txt"
for opt in -ef -e -extract-file -exclude-file -exc -excf; do
	same_out "-l $opt FILE PATH" -l $opt "$T/ef.txt" "$T/t.img" dev
done
same_out "-ll -ex LIST ;" -ll -ex links 's*' ';' "$T/t.img" dev
same_out "-ll -exclude-list LIST ;" -ll -exclude-list 'l*' ';' "$T/t.img"

# an image passed as a descriptor (/proc/PID/fd/N), as snapd passes it
exec 5< "$T/t.img"
same_out "-lls /proc/PID/fd/N" -lls "/proc/$$/fd/5"
rm -rf "$T/r/x" "$T/o/x"
same_out "-d x /proc/PID/fd/N PATH" -n -d x "/proc/$$/fd/5" links &&
	same_tree "tree from /proc/PID/fd/N" "$T/o/x" "$T/r/x"
exec 5<&-

# memory stays bounded whatever the queues asked for (snapd passes 16 MB
# ones; here the largest sizes the options take)
if [ -x /usr/bin/time ]; then
	rm -rf "$T/o/x"
	/usr/bin/time -o "$T/rss" -f %M "$UNSQ" -n -da 100000 -fr 100000 -mem 64G \
		-d "$T/o/x" "$T/t.img" > /dev/null 2>&1
	kib=$(tail -n 1 "$T/rss")
	[ "$kib" -lt 65536 ] && pass "-da/-fr/-mem huge: peak RSS $kib KiB (under 64 MiB)" ||
		fail "-da/-fr/-mem huge: peak RSS $kib KiB"
else
	note "/usr/bin/time missing: peak RSS not measured"
fi

# an image at an offset (an AppImage's runtime before it)
offset_img "$T/t.img" "$T/app.img"
same_out "-o 12345 -lln" -o 12345 -lln "$T/app.img"
rm -rf "$T/r/x" "$T/o/x"
same_out "-no-progress -o 12345 -d x IMG PATHs" -no-progress -o 12345 -d x "$T/app.img" links 'l*' &&
	same_tree "tree at an offset" "$T/o/x" "$T/r/x"

# AppImage's shape: an ELF runtime (here the ls program), then the
# image, whose top holds AppRun and .DirIcon, as AppImage tools pass them
elf=$(command -v ls)
mkdir -p "$T/appdir/usr/bin" || exit 99
cp "$elf" "$T/appdir/usr/bin/app" && echo icon > "$T/appdir/app.png" &&
	ln -s usr/bin/app "$T/appdir/AppRun" && ln -s app.png "$T/appdir/.DirIcon" &&
	printf '[Desktop Entry]\nName=app\n' > "$T/appdir/app.desktop" || exit 99
"$SQP_BIN/dir2img" -q -c zstd "$T/appdir.img" "$T/appdir" > /dev/null 2>&1 || exit 99
cat "$elf" "$T/appdir.img" > "$T/App.AppImage" || exit 99
off=$(wc -c < "$elf")
same_out "AppImage: -o OFFSET -lln" -o "$off" -lln "$T/App.AppImage"
rm -rf "$T/r/x" "$T/o/x"
same_out "AppImage: -no-progress -o OFFSET -d DIR APP AppRun .DirIcon" -no-progress \
	-o "$off" -d x "$T/App.AppImage" AppRun .DirIcon &&
	same_tree "AppImage: tree of AppRun .DirIcon" "$T/o/x" "$T/r/x"
finish
