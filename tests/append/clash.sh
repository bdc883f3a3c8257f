#!/bin/sh
# SPDX-License-Identifier: MIT
# clash.sh - appending one source directory whose entries have names the
# image's root has: mksquashfs renames each such entry NAME_1 (NAME_2...
# while those are taken, by the image or by an entry before it in readdir
# order, renamed or not) and says so on stderr. Debian's mksquashfs and
# ours append to copies of one image: unsquashfs -lln and the extracted
# trees equal, the same rename lines, the links in renamed trees kept;
# an entry excluded takes no name, nor one on another file system with
# -one-file-system (mksquashfs 4.5.1 leaves it out, a mount point
# included); with -wildcards, the excludes match a renamed entry's new
# name.
. "$top_srcdir/tests/append/both.sh"
mkdir -p "$T/base/x" "$T/base/y_1" "$T/src/x/sub" "$T/src/x_1" "$T/src/y" \
	"$T/src/z" "$T/more/x" "$T/more/x_1" "$T/excl" "$T/base3/w" \
	"$T/wild/w/sub" "$T/wild/v" "$T/two/w" || exit 99
printf 'image x\n' > "$T/base/x/f"
printf 'image y_1\n' > "$T/base/y_1/b"
printf 'new x\n' > "$T/src/x/g"
seq 1 30000 > "$T/src/x/sub/big"
printf 'new x_1\n' > "$T/src/x_1/h"
printf 'y\n' > "$T/src/y/i"
printf 'file x_2\n' > "$T/src/x_2"
ln "$T/src/x_2" "$T/src/x/hard"            # a link into a renamed tree
ln "$T/src/x/sub/big" "$T/src/z/big-link"  # and out of one
printf 'file y_1\n' > "$T/src/y_1"
ln -s x/g "$T/src/zz"
printf 'more\n' > "$T/more/x/m"
printf 'more x_1\n' > "$T/more/x_1/n"
printf 'w\n' > "$T/wild/w/f"
printf 'sub\n' > "$T/wild/w/sub/s"
printf 'v\n' > "$T/wild/v/f"
printf 'two w\n' > "$T/two/w/f2"
export SOURCE_DATE_EPOCH=1700000000
cd "$T" || exit 99

# links WHAT: the two hard links of src, one into a renamed tree and one
# out of it, extracted as links from our image as from mksquashfs's
# (which names are renamed depends on the readdir order).
links() {
	r=$(find ref.d -type f -links 2 | wc -l) o=$(find our.d -type f -links 2 | wc -l)
	check "$1: the hard links kept ($o files of 2 links, mksquashfs $r)" \
		test "$o" = 4 -a "$r" = 4
}

rm -f ref.img our.img
mksquashfs base ref.img -noappend -no-progress -quiet > /dev/null 2>&1 &&
	cp ref.img our.img || exit 99
step "one source, names the image has" src -no-progress
renames "one source"
links "one source"
step "again: renamed twice over" src -no-progress
renames "again"
step "-root-becomes: only NAME is taken" more -root-becomes x_1 -no-progress
renames "-root-becomes"
settings "after three appends"

# An entry renamed, then excluded: mksquashfs tells its rename, but the
# name stays free for an entry read after it (E_1 keeps E_1). That shows
# only when E comes before E_1 in readdir order: four pairs, each E_1
# made first (a tmpfs lists the newest first).
mkdir -p base2 || exit 99
for e in a b c d; do
	mkdir -p "base2/$e" "excl/${e}_1" && printf '%s_1\n' $e > "excl/${e}_1/f" &&
		mkdir -p "excl/$e" && printf 'left out\n' > "excl/$e/o" || exit 99
done
rm -f ref.img our.img
mksquashfs base2 ref.img -noappend -no-progress -quiet > /dev/null 2>&1 &&
	cp ref.img our.img || exit 99
order=$(ls -f excl | tr '\n' ' ')
case " $order" in
*" a "*"a_1 "*|*" b "*"b_1 "*|*" c "*"c_1 "*|*" d "*"d_1 "*)
	step "renamed entries excluded ($order)" excl -no-progress -e a b c d
	renames "renamed entries excluded";;
*)	skipc "renamed entries excluded: no E before E_1 in readdir order ($order)";;
esac

# -wildcards: mksquashfs renames w to w_1, then matches its excludes
# against w_1 (and w_1/sub below it), not against w.
for pat in w w_1 w_1/sub w/sub "... w_1" "... w" "w_?" "... f"; do
	rm -f ref.img our.img
	mksquashfs base3 ref.img -noappend -no-progress -quiet > /dev/null 2>&1 &&
		cp ref.img our.img || exit 99
	step "-wildcards -e '$pat', w renamed" wild -no-progress -wildcards -e "$pat"
	renames "-wildcards -e '$pat'"
done
# Several sources: w (taken by the image) becomes w_1; excluded as w_1,
# it frees w_1, so the second w becomes w_1 again (and is excluded too).
for pat in w_1 w_1/sub '*'; do
	rm -f ref.img our.img
	mksquashfs base3 ref.img -noappend -no-progress -quiet > /dev/null 2>&1 &&
		cp ref.img our.img || exit 99
	step "-wildcards -e '$pat', sources w, v, w" "wild/w wild/v two/w" -no-progress \
		-wildcards -e "$pat"
	renames "-wildcards -e '$pat', sources w, v, w"
done

# -one-file-system: m, a mount point, is renamed m_1 and left out, so m_1
# (read after it) keeps m_1; d/inner, a mount point below, is left out.
mkdir -p base4/m ofs/m_1 ofs/d/inner && printf 'm_1\n' > ofs/m_1/f &&
	mkdir -p ofs/m && printf 'd\n' > ofs/d/f || exit 99
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs tmpfs ofs/m 2>/dev/null ||
	! mount -t tmpfs tmpfs ofs/d/inner 2>/dev/null; then
	skipc "-one-file-system: no tmpfs can be mounted here (needs root)"
	finish
fi
printf 'on m\n' > ofs/m/f && printf 'on inner\n' > ofs/d/inner/f || exit 99
order=$(ls -f ofs | tr '\n' ' ')
rm -f ref.img our.img
mksquashfs base4 ref.img -noappend -no-progress -quiet > /dev/null 2>&1 &&
	cp ref.img our.img || exit 99
step "-one-file-system, mount points renamed and left out ($order)" ofs \
	-no-progress -one-file-system
renames "-one-file-system"
rm -f ref.img our.img
mksquashfs base4 ref.img -noappend -no-progress -quiet > /dev/null 2>&1 &&
	cp ref.img our.img || exit 99
step "-one-file-system -wildcards ($order)" ofs -no-progress -one-file-system \
	-wildcards -e '... none'
renames "-one-file-system -wildcards"
rm -f ref.img our.img
step "-one-file-system, no image: mount points left out" ofs -noappend \
	-no-progress -one-file-system
umount ofs/m ofs/d/inner
finish
