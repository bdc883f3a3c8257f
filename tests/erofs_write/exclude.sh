#!/bin/sh
# SPDX-License-Identifier: MIT
# exclude.sh - --exclude-regex (sqpack-mkfs.erofs, dir2img, tar2img)
# leaves out what Debian's mkfs.erofs --exclude-regex leaves out: each
# set of regexes (a directory with its contents, names by suffix, a
# regex matching inside a component, several at once) gives, mounted by
# the kernel, the tree of mkfs.erofs's image with the same options;
# tar2img from a tar of the source gives dir2img's bytes; a regex that
# does not compile is refused with exit status 2 (as a usage error) or 1;
# any number of them is taken (200 here).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3" mkfs.erofs
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
DIR2IMG="$SQP_BIN/dir2img"
T=$SCRATCH
run "make the tree" erofs_tree "$T/src" || finish
tar -C "$T/src" -cf "$T/s.tar" . 2> /dev/null

n=0
same_as_mkfs() {
	n=$((n + 1))
	rm -f "$T/ours.erofs" "$T/peer.erofs"
	if ! "$MKFS" --quiet "$@" "$T/ours.erofs" "$T/src" > "$T/err" 2>&1; then
		fail "$*: sqpack-mkfs.erofs: $(head -c 200 "$T/err")"
		return
	fi
	if ! mkfs.erofs --quiet "$@" "$T/peer.erofs" "$T/src" > "$T/err" 2>&1; then
		skipc "$*: mkfs.erofs refuses it: $(head -c 200 "$T/err")"
		return
	fi
	judge_ok "$*: the kernel's EROFS mount" kernel erofs || return
	mkdir -p "$T/m$n" "$T/p$n"
	if mount -t erofs -o loop,ro "$T/ours.erofs" "$T/m$n" 2> "$T/err"; then
		if mount -t erofs -o loop,ro "$T/peer.erofs" "$T/p$n" 2> "$T/err"; then
			same_tree "$*: the kernel reads mkfs.erofs's tree" "$T/m$n" "$T/p$n"
			check "$*: something was left out" \
				test "$(find "$T/m$n" | wc -l)" -lt "$(find "$T/src" | wc -l)"
			umount "$T/p$n"
		else
			skipc "$*: the kernel does not mount mkfs.erofs's image"
		fi
		umount "$T/m$n"
	else
		fail "$*: the kernel does not mount ours: $(head -c 200 "$T/err")"
	fi
}
same_as_mkfs --exclude-regex='^d/sub$'
same_as_mkfs --exclude-regex='name_1[0-9]*$'
same_as_mkfs --exclude-regex='\.txt$'
same_as_mkfs --exclude-regex=sym -zlz4
same_as_mkfs --exclude-regex='^e$' --exclude-regex='^(big|sparse)$' --exclude-regex='_2[0-9]$'

run "dir2img --exclude-regex" "$DIR2IMG" -q --format erofs --exclude-regex 'e$' \
	--exclude-regex '^d/sub$' "$T/d.erofs" "$T/src"
run "tar2img --exclude-regex" "$TAR2IMG" -q --format erofs --exclude-regex 'e$' \
	--exclude-regex '^d/sub$' "$T/t.erofs" "$T/s.tar"
"$IMG2TAR" "$T/d.erofs" 2> /dev/null | tar -tf - 2> /dev/null | sort > "$T/d.list"
"$IMG2TAR" "$T/t.erofs" 2> /dev/null | tar -tf - 2> /dev/null | sort > "$T/t.list"
check "dir2img and tar2img leave out the same paths" cmp -s "$T/d.list" "$T/t.list"
check "what matched is gone" sh -c '! grep -qE "e/?$|^(\./)?d/sub" "$1" && grep -q "a.txt" "$1"' - "$T/d.list"

# Any number of them: 200 (the front end once passed its line on in 64
# slots and stopped at the 28th with "too many options").
set --
for i in $(seq 1 200); do set -- "$@" "--exclude-regex=^d/sub/file_with_a_long_name_$i\$"; done
if "$MKFS" --quiet -zlz4 "$@" "$T/many.erofs" "$T/src" > "$T/out" 2>&1; then
	"$IMG2TAR" "$T/many.erofs" 2> /dev/null | tar -tf - 2> /dev/null |
		sed -n 's|^\(\./\)\{0,1\}d/sub/file_with_a_long_name_||p' | sort -n > "$T/many.list"
	check "200 --exclude-regex: names 1 to 200 left out, 201 to 300 kept" \
		test "$(tr '\n' ' ' < "$T/many.list")" = "$(seq 201 300 | tr '\n' ' ')"
	check "200 --exclude-regex: the rest of the tree kept" \
		sh -c '"$1" "$2" | tar -tf - | grep -q "big$"' - "$IMG2TAR" "$T/many.erofs"
else
	fail "200 --exclude-regex: $(head -c 200 "$T/out")"
fi

"$MKFS" --exclude-regex='(' "$T/bad.erofs" "$T/src" > "$T/out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -le 2 ] && grep -q "exclude regex '('" "$T/out" && [ ! -e "$T/bad.erofs" ] &&
	pass "a bad regex is refused: $(head -1 "$T/out")" ||
	fail "a bad regex: exit $rc: $(head -c 200 "$T/out")"
finish
