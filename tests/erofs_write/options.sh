#!/bin/sh
# SPDX-License-Identifier: MIT
# options.sh - sqpack-mkfs.erofs takes more of mkfs.erofs 1.9's options,
# with its meaning, as the kernel's mount shows: --exclude-path leaves
# out the one path it names, as it is (no pattern; a directory with its
# contents), as Debian's mkfs.erofs does; --uid-offset/--gid-offset add
# to every owner, forced ones (--force-uid, --all-root) included;
# --hard-dereference makes each name of a hard-linked file its own
# inode; -T sets every file's time with --all-time (the default), the
# build time alone with --mkfs-time, --all-time without -T is refused;
# --ignore-mtime stores compact inodes that read as the build time
# where only the time asked for an extended one (--preserve-mtime
# undoes it); -E force-inode-extended and -E force-inode-compact give
# every inode that form (compact failing for an owner over 65535);
# --workers=0 (mkfs.erofs's single thread) is --workers=1. An option
# not done is refused by name.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
T=$SCRATCH
S=$T/src
usage_refused "unknown option" "$MKFS" --dsunit=4 "$T/r.erofs" "$T"
# --workers=0 is mkfs.erofs's single thread (archiso profiles pass it):
# taken, the bytes of --workers=1; past 1024 refused.
mkdir -p "$T/w" && echo w > "$T/w/f" && echo v > "$T/w/g" &&
	run "--workers=0" "$MKFS" --quiet -zlz4hc -T0 -Uclear --workers=0 "$T/w0.erofs" "$T/w" &&
	run "--workers=1" "$MKFS" --quiet -zlz4hc -T0 -Uclear --workers=1 "$T/w1.erofs" "$T/w" &&
	check "--workers=0: the bytes of --workers=1" cmp -s "$T/w0.erofs" "$T/w1.erofs"
usage_refused "0..1024" "$MKFS" --workers=1025 "$T/r.erofs" "$T/w"
# The owners below are chown's and the checks read the kernel's mount.
[ "$(id -u)" = 0 ] || skip "the tree's owners and the kernel's mount need root"
mkdir -p "$S/d/sub" "$S/e" && echo a > "$S/d/a" && echo b > "$S/d/sub/b" &&
	echo w > "$S/we[ird].txt" && echo sub > "$S/sub" && echo c > "$S/e/c" &&
	ln "$S/d/a" "$S/hl" && chown 7:8 "$S/d/a" && chown 70000:9 "$S/e/c" &&
	touch -d @1600000000 "$S/we[ird].txt" ||
	{ fail "make the tree"; finish; }

# listing IMAGE: what the kernel's mount shows, one line a path: owner,
# link count and the first path with its inode number (hard links).
listing() {
	mkdir -p "$T/m"
	mount -t erofs -o loop,ro "$1" "$T/m" 2> "$T/err" ||
		{ echo "the kernel does not mount it: $(head -c 200 "$T/err")"; return 1; }
	(cd "$T/m" && find . -printf '%p %U:%G %n %i\n' | sort |
		awk '{ if (!($4 in f)) f[$4] = $1; $4 = f[$4]; print }')
	umount "$T/m"
}
# ours OPTIONS...: our image of the tree with them, in $T/o.erofs.
ours() {
	rm -f "$T/o.erofs"
	"$MKFS" --quiet "$@" "$T/o.erofs" "$S" > "$T/err" 2>&1 && return 0
	fail "$*: $(head -c 200 "$T/err")"
	return 1
}
# owners WHAT EXPECTED OPTIONS...: the owners (path uid:gid, sorted
# lines) of our image with OPTIONS are EXPECTED.
owners() {
	ow_what=$1 ow_exp=$2; shift 2
	ours "$@" || return
	listing "$T/o.erofs" > "$T/got" || { fail "$ow_what: $(cat "$T/got")"; return; }
	cut -d' ' -f1,2 "$T/got" | tr '\n' ' ' > "$T/owners"
	if [ "$(cat "$T/owners")" = "$ow_exp" ]; then
		pass "$ow_what"
	else
		fail "$ow_what: got $(cat "$T/owners")"
	fi
}
# same_as_mkfs OPTIONS...: the kernel reads the same tree from ours as
# from Debian's mkfs.erofs's image with OPTIONS.
same_as_mkfs() {
	ours "$@" || return
	if ! command -v mkfs.erofs > /dev/null 2>&1; then
		skipc "$*: mkfs.erofs not installed"; return
	fi
	if ! mkfs.erofs --quiet "$@" "$T/p.erofs" "$S" > "$T/err" 2>&1; then
		skipc "$*: mkfs.erofs refuses it: $(head -c 200 "$T/err")"; return
	fi
	listing "$T/o.erofs" > "$T/o.ls" || { fail "$*: $(cat "$T/o.ls")"; return; }
	listing "$T/p.erofs" > "$T/p.ls" ||
		{ skipc "$*: mkfs.erofs's image: $(cat "$T/p.ls")"; return; }
	if diff "$T/p.ls" "$T/o.ls" > "$T/diff"; then
		pass "$*: the kernel reads mkfs.erofs's tree"
	else
		fail "$*: not mkfs.erofs's tree (< peer, > ours)"; head -20 "$T/diff"
	fi
}

if judge_ok "the kernel's EROFS mount" kernel erofs; then
	same_as_mkfs --exclude-path=d/sub
	same_as_mkfs '--exclude-path=we[ird].txt' --exclude-path=e/c
	same_as_mkfs --exclude-path=sub
	same_as_mkfs --exclude-path=nothing/here
	ours --exclude-path=d/sub && listing "$T/o.erofs" > "$T/got" &&
		check "--exclude-path=d/sub: d/sub and its contents out, sub in" sh -c \
			'! grep -q "^\./d/sub" "$1" && grep -q "^\./sub " "$1"' - "$T/got"
	ours '--exclude-path=we.ird..txt' && listing "$T/o.erofs" > "$T/got" &&
		check "--exclude-path is no pattern: 'we.ird..txt' leaves out nothing" \
			grep -q '^\./we\[ird\]\.txt ' "$T/got"

	all=". d d/a d/sub d/sub/b e e/c hl sub we[ird].txt"
	exp() { for p in $all; do printf '%s %s ' "$(echo "./$p" | sed 's|^\./\.$|.|')" "$($1 "$p")"; done; }
	off() { case $1 in d/a|hl) echo 107:208;; e/c) echo 70100:209;; *) echo 100:200;; esac; }
	owners "--uid-offset=100 --gid-offset=200: added to every owner" "$(exp off)" \
		--uid-offset=100 --gid-offset=200
	forced() { echo 8:4; }
	owners "--uid-offset=3 --force-uid=5 --force-gid=1 --gid-offset=3: added to the forced owners" \
		"$(exp forced)" --uid-offset=3 --force-uid=5 --force-gid=1 --gid-offset=3
	root() { echo 0:4; }
	owners "--all-root --gid-offset=4: added to root's" "$(exp root)" --all-root --gid-offset=4
	usage_refused "passes 2^32" "$MKFS" --force-uid=4294967295 --uid-offset=1 "$T/r.erofs" "$S"
	usage_refused "not a number" "$MKFS" --uid-offset=-1 "$T/r.erofs" "$S"

	ours && listing "$T/o.erofs" > "$T/got" &&
		check "without --hard-dereference: d/a and hl one inode" \
			grep -q '^\./hl 7:8 2 \./d/a$' "$T/got"
	ours --hard-dereference && listing "$T/o.erofs" > "$T/got" &&
		check "--hard-dereference: d/a and hl two inodes" sh -c \
			'grep -q "^\./hl 7:8 1 \./hl$" "$1" && grep -q "^\./d/a 7:8 1 \./d/a$" "$1"' - "$T/got"

	# Times and inode forms. d/a and e/c are older than the build time;
	# e/c's owner (70000) needs an extended inode whatever is asked.
	touch -d @1500000000 "$S/d/a" "$S/e/c"
	# forms IMAGE: "path version" for every path (i_format bit 0: 1
	# extended), at meta_blkaddr * 4096 + nid * 32, the nid the mount's
	# inode number.
	forms() {
		mount -t erofs -o loop,ro "$1" "$T/m" 2> "$T/err" || return 1
		fo_meta=$(od -An -tu4 -j1064 -N4 "$1" | tr -d ' ')
		(cd "$T/m" && find . | sort) | while read -r p; do
			fo_nid=$(stat -c %i "$T/m/$p")
			echo "$p $(($(od -An -tu2 -j$((fo_meta * 4096 + fo_nid * 32)) -N2 "$1") & 1))"
		done
		umount "$T/m"
	}
	mtimes() {
		mount -t erofs -o loop,ro "$1" "$T/m" 2> "$T/err" || return 1
		(cd "$T/m" && find . -printf '%p %T@\n' | sort)
		umount "$T/m"
	}
	le64() { od -An -v -tu8 -j1048 -N8 "$1" | tr -d ' '; }
	ours -T 1600000000 && cp "$T/o.erofs" "$T/t.erofs" && mtimes "$T/o.erofs" > "$T/got" &&
		check "-T: every file at -T (--all-time, the default)" sh -c \
			'! grep -v " 1600000000\.0*$" "$1"' - "$T/got"
	ours --all-time -T 1600000000 &&
		check "--all-time -T: -T's bytes" cmp -s "$T/o.erofs" "$T/t.erofs"
	ours -T 1600000000 --mkfs-time && cp "$T/o.erofs" "$T/mk.erofs" &&
		mtimes "$T/o.erofs" > "$T/got" &&
		check "--mkfs-time: the files keep their times, the build time is -T's" sh -c \
			'grep -q "^\./d/a 1500000000\.0*$" "$1" && grep -q "^\./e/c 1500000000\.0*$" "$1" &&
			 test "$2" = 1600000000' - "$T/got" "$(le64 "$T/o.erofs")"
	ours --mkfs-time -T 1600000000 &&
		check "--mkfs-time before -T: the same bytes" cmp -s "$T/o.erofs" "$T/mk.erofs"
	usage_refused "give -T" "$MKFS" --all-time "$T/r.erofs" "$S"

	ours -T 1600000000 --mkfs-time --ignore-mtime && mtimes "$T/o.erofs" > "$T/got" &&
		check "--ignore-mtime: d/a compact at the build time, e/c extended keeps its own" sh -c \
			'grep -q "^\./d/a 1600000000\.0*$" "$1" && grep -q "^\./e/c 1500000000\.0*$" "$1"' \
			- "$T/got" &&
		forms "$T/o.erofs" > "$T/got" &&
		check "--ignore-mtime: d/a compact, e/c extended" sh -c \
			'grep -q "^\./d/a 0$" "$1" && grep -q "^\./e/c 1$" "$1"' - "$T/got"
	ours -T 1600000000 --mkfs-time --ignore-mtime --preserve-mtime &&
		check "--preserve-mtime undoes --ignore-mtime" cmp -s "$T/o.erofs" "$T/mk.erofs"

	ours -T 1600000000 -E force-inode-extended && forms "$T/o.erofs" > "$T/got" &&
		check "-E force-inode-extended: every inode extended" sh -c '! grep " 0$" "$1"' - "$T/got" &&
		listing "$T/o.erofs" > "$T/o.ls" && listing "$T/t.erofs" > "$T/t.ls" &&
		check "-E force-inode-extended: -T's tree" cmp -s "$T/o.ls" "$T/t.ls"
	ours -T 1600000000 --mkfs-time -E force-inode-compact --exclude-path=e/c &&
		forms "$T/o.erofs" > "$T/got" &&
		check "-E force-inode-compact: every inode compact" sh -c '! grep " 1$" "$1"' - "$T/got" &&
		mtimes "$T/o.erofs" > "$T/got" &&
		check "-E force-inode-compact: every time the build time" sh -c \
			'! grep -v " 1600000000\.0*$" "$1"' - "$T/got"
	ours -E force-inode-compact,force-inode-extended -T 1600000000 &&
		forms "$T/o.erofs" > "$T/got" &&
		check "-E force-inode-compact,force-inode-extended: the last one" sh -c \
			'! grep " 0$" "$1"' - "$T/got"
	rm -f "$T/r.erofs"
	"$MKFS" -E force-inode-compact "$T/r.erofs" "$S" > "$T/err" 2>&1
	rc=$?
	[ $rc -eq 1 ] && grep -q "cannot be in compact form" "$T/err" && [ ! -e "$T/r.erofs" ] &&
		pass "-E force-inode-compact: e/c's owner 70000 fails: $(head -1 "$T/err")" ||
		fail "-E force-inode-compact with a uid of 70000: exit $rc: $(head -c 200 "$T/err")"
fi
finish
