#!/bin/sh
# SPDX-License-Identifier: MIT
# pseudo.sh - the -pf round trip: an image's pseudo file with inline
# data (sqpack-unsquashfs -pf -) piped into `sqpack-mksquashfs - OUT -pf -`
# rebuilds an image whose tree is the original's (xattrs aside: a pseudo
# file does not carry them), as unsquashfs 4.5.1 extracts both; rebuilt
# twice (from a pipe and from a file) it is the same bytes; unsquashfs's
# own -pf output rebuilds the same tree. Broken streams are refused with
# exit 1 and no image: a hard link to nothing (also after a whole
# entry), data out of order, a data part cut
# short, a definition -pf never writes.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs unsquashfs bsdtar "$PYTHON3"
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
MKSQ=$SQP_BIN/sqpack-mksquashfs
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
[ -x "$MKSQ" ] || skip "sqpack-mksquashfs not built"

T=$(fast_dir)
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99

round_trip() { # round_trip NAME IMAGE
	n=$1 img=$2
	rm -f "$T/b1.img" "$T/b2.img"
	"$UNSQ" -n -pf - "$img" > "$T/pf.txt" || { fail "$n: -pf -"; return; }
	if ! "$UNSQ" -n -pf - "$img" | "$MKSQ" - "$T/b1.img" -pf - -noappend -quiet 2> "$T/err"; then
		fail "$n: sqpack-mksquashfs - OUT -pf - : $(head -c 300 "$T/err")"; return
	fi
	run "$n: -pf FILE" "$MKSQ" - "$T/b2.img" -pf "$T/pf.txt" -noappend -quiet -no-progress &&
		check "$n: rebuilt twice, the same bytes" cmp -s "$T/b1.img" "$T/b2.img"
	rm -rf "$T/a" "$T/b" "$T/c"
	unsquashfs -q -n -d "$T/a" "$img" > /dev/null 2>&1 &&
		unsquashfs -q -n -d "$T/b" "$T/b1.img" > /dev/null 2>&1 ||
		{ fail "$n: unsquashfs cannot extract an image"; return; }
	same_tree "$n: the rebuilt image holds the same tree" "$T/b" "$T/a" --no-xattrs
	# the judge's own pseudo file, rebuilt by us
	rm -f "$T/u.pf" "$T/b1.img"
	unsquashfs -n -pf "$T/u.pf" "$img" > /dev/null 2>&1 &&
		run "$n: unsquashfs's -pf rebuilt" "$MKSQ" - "$T/b1.img" -pf "$T/u.pf" -noappend -quiet -no-progress &&
		unsquashfs -q -n -d "$T/c" "$T/b1.img" > /dev/null 2>&1 &&
		same_tree "$n: from unsquashfs's -pf, the same tree" "$T/c" "$T/a" --no-xattrs
}

mksquashfs "$T/src" "$T/m.img" -comp gzip -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99
round_trip "mksquashfs gzip" "$T/m.img"
"$TAR2IMG" -q -f -c zstd "$T/t.img" "$T/in.tar" 2> /dev/null || exit 99
round_trip "tar2img zstd" "$T/t.img"

refused() { # refused DESCRIPTION GREP: the pseudo file on stdin is refused
	desc=$1 pat=$2
	rm -f "$T/x.img"
	"$MKSQ" - "$T/x.img" -pf - -noappend -quiet -no-progress < "$T/bad.pf" > /dev/null 2> "$T/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q -- "$pat" "$T/err" && [ ! -e "$T/x.img" ] &&
		pass "$desc: $(head -c 120 "$T/err")" ||
		fail "$desc: exit $rc, image left: $([ -e "$T/x.img" ] && echo yes || echo no): $(head -c 200 "$T/err")"
}
marker='#
# START OF DATA - DO NOT MODIFY
#'
printf '/ D 0 755 0 0\nh L nowhere\n%s\n' "$marker" > "$T/bad.pf"
refused "a hard link to nothing" "nowhere before"
# After a whole entry: the tar written up to there reads as a complete
# one, yet the image is not committed.
{ printf '/ D 0 755 0 0\na R 0 644 0 0 1048064 0\nh L nowhere\n%s\n' "$marker" &&
	head -c 1048064 /dev/zero; } > "$T/bad.pf"
refused "a hard link to nothing after a file" "nowhere before"
printf '/ D 0 755 0 0\na R 0 644 0 0 2 2\nb R 0 644 0 0 2 0\n%s\nbbaa' "$marker" > "$T/bad.pf"
refused "data out of order" "not next in the stream"
printf '/ D 0 755 0 0\na R 0 644 0 0 10 0\n%s\nshort' "$marker" > "$T/bad.pf"
refused "a data part cut short" "ends early"
printf '/ D 0 755 0 0\na f 0 644 0 0 cat /etc/passwd\n%s\n' "$marker" > "$T/bad.pf"
refused "a definition -pf never writes" "not a definition"
printf '/ D 0 755 0 0\na R 0 644 0 0 1 0\n' > "$T/bad.pf"
refused "no data marker" "no data marker"
finish
