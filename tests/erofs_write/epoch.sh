#!/bin/sh
# SPDX-License-Identifier: MIT
# epoch.sh - sqpack-mkfs.erofs reads SOURCE_DATE_EPOCH as mkfs.erofs
# 1.9.3 does (archiso and other reproducible builders export it): it is
# the build time whatever -T says, it wins over -T, --all-time and
# --mkfs-time, and every file at that second or newer (the root too)
# gets it with no nanoseconds, while older files keep theirs; with
# --ignore-mtime every compact inode reads as it. The times below are
# those mkfs.erofs 1.9.3's images give, read through fsck.erofs
# --extract and the kernel's mount. dir2img keeps its own meaning:
# SOURCE_DATE_EPOCH is its image time alone.
. "$top_srcdir/tests/lib/common.sh"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
T=$SCRATCH
S=$T/src
mkdir -p "$S/d" && echo old > "$S/old" && echo new > "$S/new" && echo eq > "$S/eq" &&
	touch -d @1000000000.5 "$S/old" && touch -d @2000000000.25 "$S/new" &&
	touch -d @1500000000.75 "$S/eq" && touch -d @1000 "$S/d" &&
	touch -d @1900000000 "$S" || { fail "make the tree"; finish; }
SOURCE_DATE_EPOCH=1500000000
export SOURCE_DATE_EPOCH

# times DIR: the root's, d's and the files' times, one line.
times_of() { (cd "$1" && stat -c '%n=%.9Y' . d old new eq | tr '\n' ' '); }
clamped=".=1500000000.000000000 d=1000.000000000 old=1000000000.500000000 \
new=1500000000.000000000 eq=1500000000.000000000 "
all=".=1500000000.000000000 d=1500000000.000000000 old=1500000000.000000000 \
new=1500000000.000000000 eq=1500000000.000000000 "

# judged EXPECTED OPTIONS...: our image with OPTIONS, read by fsck.erofs
# --extract and the kernel's mount (where each runs), has the times
# EXPECTED and the build time SOURCE_DATE_EPOCH.
judged() {
	jd_exp=$1; shift
	rm -f "$T/o.erofs"
	"$MKFS" --quiet "$@" "$T/o.erofs" "$S" > "$T/err" 2>&1 ||
		{ fail "$*: $(head -c 200 "$T/err")"; return; }
	check "$*: the build time is SOURCE_DATE_EPOCH" \
		test "$(od -An -tu8 -j1048 -N8 "$T/o.erofs" | tr -d ' ')" = 1500000000
	if judge_ok "$*: fsck.erofs" fsck.erofs erofs; then
		rm -rf "$T/x"
		if fsck.erofs --extract="$T/x" "$T/o.erofs" > "$T/err" 2>&1; then
			got=$(times_of "$T/x")
			[ "$got" = "$jd_exp" ] && pass "$*: fsck.erofs: 1.9.3's times" ||
				fail "$*: fsck.erofs: got $got"
		else
			fail "$*: fsck.erofs refuses it: $(tail -2 "$T/err")"
		fi
	fi
	judge_ok "$*: kernel mount" kernel erofs || return
	mkdir -p "$T/m"
	mount -t erofs -o loop,ro "$T/o.erofs" "$T/m" 2> "$T/err" ||
		{ fail "$*: the kernel refuses it: $(head -1 "$T/err")"; return; }
	got=$(times_of "$T/m")
	umount "$T/m"
	[ "$got" = "$jd_exp" ] && pass "$*: kernel mount: 1.9.3's times" ||
		fail "$*: kernel mount: got $got"
}

judged "$clamped"
judged "$clamped" -T1200000000
judged "$clamped" -T1200000000 --all-time
judged "$clamped" --mkfs-time -T1200000000
judged "$clamped" --all-time
judged "$clamped" --mkfs-time
judged "$all" --ignore-mtime
judged "$all" -T1200000000 --ignore-mtime
# the same from a tar
(cd "$S" && tar --format=pax -cf "$T/src.tar" .) || fail "tar the tree"
if run "--tar=f -T1200000000" "$MKFS" --quiet --tar=f -T1200000000 "$T/tar.erofs" "$T/src.tar" &&
	judge_ok "--tar=f: fsck.erofs" fsck.erofs erofs; then
	rm -rf "$T/x"
	fsck.erofs --extract="$T/x" "$T/tar.erofs" > "$T/err" 2>&1 ||
		fail "--tar=f: fsck.erofs refuses it: $(tail -2 "$T/err")"
	check "--tar=f -T1200000000: fsck.erofs: 1.9.3's times" \
		test "$(times_of "$T/x")" = "$clamped"
fi
SOURCE_DATE_EPOCH=x "$MKFS" --quiet "$T/bad.erofs" "$S" > "$T/err" 2>&1
check "a bad SOURCE_DATE_EPOCH: exit 2" test $? = 2
finish
