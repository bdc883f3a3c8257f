#!/bin/sh
# SPDX-License-Identifier: MIT
# diff.sh - imginfo diff: images of one tree by two packers are equal
# (exit 0, no output); an image of the tree changed in one way (a byte of
# a file, a mode, an owner, an mtime, a size, an xattr, an added or
# removed entry, a symlink target, a type, device numbers, a hard link
# made a copy) differs by exactly the expected lines (exit 1); the
# --ignore options and -q; exit
# 2 for bad usage or an unreadable image.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/imginfo/mktree.sh"
need_tool mksquashfs setfattr "$PYTHON3"
IMGINFO=$SQP_BIN/imginfo
T=$SCRATCH
make_tree "$T/src" || skip "cannot make the test tree here (xattrs, mknod)"
tar --xattrs --xattrs-include='*' --numeric-owner -C "$T/src" -cf "$T/src.tar" . || exit 99
pack() { mksquashfs "$1" "$2" -noappend -quiet -no-progress > /dev/null 2>&1; }
pack "$T/src" "$T/base.img" || exit 99

# same DESCRIPTION IMAGE [OPTIONS]: no difference from base.img
same() {
	desc=$1 img=$2; shift 2
	"$IMGINFO" diff "$@" "$T/base.img" "$img" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/out" ]; then pass "$desc"; else
		fail "$desc (exit $rc)"; head -20 "$T/out"; fi
}
"$TAR2IMG" -q "$T/t.img" "$T/src.tar" 2> /dev/null &&
	same "mksquashfs and tar2img images of one tree are equal" "$T/t.img"
if command -v gensquashfs > /dev/null 2>&1 &&
   gensquashfs -q -f -x -k -D "$T/src" "$T/g.img" > /dev/null 2>&1; then
	# gensquashfs -k keeps every mtime but the root's (it writes 0), and
	# -D packs each name of a hard link as a file of its own
	"$IMGINFO" diff "$T/base.img" "$T/g.img" > "$T/out" 2>&1
	check "mksquashfs and gensquashfs images of one tree differ only in the root's mtime and the hard link" \
		test "$(cat "$T/out")" = "/: mtime 1700000000 != 0
/dir/h-link: hard link to '/dir/h' in the first image only"
fi
same "an image equals itself" "$T/base.img"

# variant DESCRIPTION COMMAND EXPECTED-LINES: pack a copy of the tree
# changed by COMMAND (run in the copy), diff it against base.img
variant() {
	desc=$1 cmd=$2 want=$3
	rm -rf "$T/v"; cp -a "$T/src" "$T/v"
	(cd "$T/v" && eval "$cmd") || { fail "$desc: setting up"; return; }
	find "$T/v" -exec touch -h -d @1700000000 {} +
	pack "$T/v" "$T/v.img" || { fail "$desc: mksquashfs"; return; }
	"$IMGINFO" diff "$T/base.img" "$T/v.img" > "$T/out" 2> "$T/err"
	rc=$?
	printf '%s\n' "$want" > "$T/want"
	if [ $rc -eq 1 ] && cmp -s "$T/out" "$T/want"; then pass "$desc"; else
		fail "$desc (exit $rc)"; cat "$T/out" "$T/err"; fi
}
variant "one byte of a file" \
	"printf 'X' | dd of=rand bs=1 seek=140000 conv=notrunc 2>/dev/null" \
	"/rand: contents differ from byte 140000"
variant "a mode" "chmod 640 text" "/text: mode 0644 != 0640"
variant "an owner" "chown 5:6 empty" "/empty: owner 0:0 != 5:6"
variant "a size" "printf x >> 'with space'" "/with space: size 6 != 7"
variant "an xattr value (on both names of a hard link)" \
	"setfattr -n user.one -v other dir/h" \
	"/dir/h: xattr user.one values differ
/dir/h-link: xattr user.one values differ"
variant "an added xattr" "setfattr -n user.new -v 1 text" \
	"/text: xattr user.new only in the second image"
variant "an added entry" "echo new > dir/new" "/dir/new: only in the second image"
variant "a removed entry" "rm fifo" "/fifo: only in the first image"
variant "a removed directory, reported once" "rm -r dir/deep" \
	"/dir/deep: only in the first image"
variant "a symlink target" "ln -sfn elsewhere dir/sym" \
	"/dir/sym: symlink target '../rand' != 'elsewhere'"
variant "a type" "rm empty && mkdir empty" "/empty: type file != directory"
variant "device numbers" "rm null && mknod null c 1 5" "/null: device 1,3 != 1,5"
variant "a hard link made a separate copy" \
	"cp -a dir/h dir/copy && mv -f dir/copy dir/h-link" \
	"/dir/h-link: hard link to '/dir/h' in the first image only"
"$IMGINFO" diff "$T/v.img" "$T/base.img" > "$T/out"
check "the same, images swapped" \
	test "$(cat "$T/out")" = "/dir/h-link: hard link to '/dir/h' in the second image only"

# Options: the ignored attribute is not reported; -q prints nothing.
rm -rf "$T/v"; cp -a "$T/src" "$T/v"
touch -d @1700000100 "$T/v/text"; chown 7:7 "$T/v/empty"
setfattr -n user.one -v other "$T/v/dir/h"
pack "$T/v" "$T/v.img"
same "--ignore-mtime --ignore-owner --ignore-xattrs" "$T/v.img" \
	--ignore-mtime --ignore-owner --ignore-xattrs
"$IMGINFO" diff --ignore-owner --ignore-xattrs "$T/base.img" "$T/v.img" > "$T/out"
check "mtimes still compared without --ignore-mtime" \
	test "$(cat "$T/out")" = "/text: mtime 1700000000 != 1700000100"
"$IMGINFO" diff -q "$T/base.img" "$T/v.img" > "$T/out"
rc=$?
check "-q: exit 1 and no output" test $rc -eq 1 -a ! -s "$T/out"

"$IMGINFO" diff "$T/base.img" > /dev/null 2>&1
check "one image: exit 2" test $? -eq 2
"$IMGINFO" diff "$T/base.img" "$T/src.tar" > /dev/null 2> "$T/err"
check "an unreadable image: exit 2" test $? -eq 2
check "an unreadable image: a message" grep -q '^imginfo: ' "$T/err"
finish
