# SPDX-License-Identifier: MIT
# common.sh - sourced by the test scripts: tool paths, a scratch directory
# removed on exit, skip(), and a pass/fail tally that ends with the line
# "N passed, N failed" and the exit status automake expects.
#
# Gives: $TAR2IMG $IMG2TAR $TREECMP (tests/lib/treecmp.py) $SCRATCH
# $ALL_CODECS; pass/fail/check DESCRIPTION CMD.../note/skip MESSAGE;
# run WHAT CMD... (a step whose failure fails the test);
# need_tool TOOL...; codec_built NAME; fast_dir (a tmpfs below $SCRATCH
# when possible); interrupt SIG ERRFILE CMD...; same_tree WHAT DIR REF
# [treecmp options]; finish (the tally and the exit status). Mounts below
# $SCRATCH are unmounted on exit. A script that does not run tar2img sets
# COMMON_NEEDS_TAR2IMG=no before sourcing; the others skip until it is
# built.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${PYTHON3:=python3}"
# TAR2IMG and IMG2TAR may come from the environment (tests/lib/redtools.sh
# substitutes failing ones to prove the scripts notice).
: "${TAR2IMG:=$top_builddir/bin/tar2img}"
: "${IMG2TAR:=$top_builddir/bin/img2tar}"
TREECMP="$PYTHON3 $top_srcdir/tests/lib/treecmp.py"

npass=0
nfail=0
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sqpack-test.XXXXXX") || exit 99
cleanup() {
	for m in $(awk -v d="$SCRATCH" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r); do
		umount "$m" 2>/dev/null || fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	rm -rf "$SCRATCH"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fast_dir: prints a directory below $SCRATCH on a private tmpfs when
# this user may mount one that keeps user.* xattrs (extracting thousands
# of small files there is several times faster than on a loaded disk),
# else a plain directory below $SCRATCH. cleanup unmounts it.
fast_dir() {
	d=$SCRATCH/fast
	mkdir -p "$d" || return 1
	if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=2g,mode=0755 tmpfs "$d" 2>/dev/null; then
		if ! $PYTHON3 -c 'import os, sys
p = os.path.join(sys.argv[1], "probe"); open(p, "w").close()
os.setxattr(p, "user.probe", b"1"); os.unlink(p)' "$d" 2>/dev/null; then
			umount "$d"
		fi
	fi
	echo "$d"
}
# The tally lines go to fd 3, the script's own stdout, so that a step's
# redirection ("run ... > FILE") cannot swallow its FAIL line.
exec 3>&1
pass() { npass=$((npass + 1)); echo "ok: $*" >&3; }
fail() { nfail=$((nfail + 1)); echo "FAIL: $*" >&3; }
# check DESCRIPTION COMMAND...: pass when the command succeeds.
check() {
	desc=$1; shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}
# run WHAT COMMAND...: a step a check depends on ("run ... && check ...").
# When the command fails, that is a failure of the test, recorded here:
# a check skipped by "&&" must never leave the test green. Not for
# pipelines (the last command of one runs in a subshell: the tally is lost).
run() {
	run_what=$1; shift
	"$@" && return 0
	run_rc=$?
	fail "$run_what: exit status $run_rc"
	return $run_rc
}
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "# $*"; }
# finish: the tally line, then exit 0 or 1; a run that checked nothing
# (every codec or judge missing) is a skip, not a pass.
finish() {
	echo "$npass passed, $nfail failed"
	[ $((npass + nfail)) -gt 0 ] || skip "nothing could be checked here"
	[ "$nfail" -eq 0 ]
	exit $?
}
# interrupt SIG ERRFILE COMMAND...: start the command (stderr to ERRFILE)
# with the default SIGINT a terminal would give it (the shell ignores
# SIGINT in background jobs), send SIG once the tool is under way (it holds
# its temporary output open: then its handlers are in place; a fixed delay
# lost the signal on a loaded machine), and wait up to 5 s.
# Sets rc (the exit status) and waited (tenths of a second; 50: killed).
interrupt() {
	sig=$1 errfile=$2; shift 2
	$PYTHON3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$@" 2> "$errfile" &
	pid=$!
	started=0
	while [ $started -lt 300 ] && ! ls -l /proc/$pid/fd 2>/dev/null | grep -q '\.tmp$'; do
		sleep 0.1; started=$((started + 1))
	done
	sleep 0.3
	kill -s "$sig" $pid
	reap $pid 50
}
# reap PID TENTHS: wait up to TENTHS tenths of a second for the background
# job PID to end, then kill it. Sets rc (its exit status) and waited
# (tenths waited; TENTHS: it was killed).
reap() {
	waited=0
	while kill -0 "$1" 2>/dev/null && [ $waited -lt "$2" ]; do
		sleep 0.1; waited=$((waited + 1))
	done
	kill -9 "$1" 2>/dev/null
	wait "$1"; rc=$?
}
# corrupt_set DIR: the images the corruption tests start from: DIR/src,
# DIR/good.img (tar2img, gzip), DIR/raw.img (mksquashfs, metadata
# uncompressed) and DIR/bad/NAME, one per corruption of mkcorrupt.py.
# Needs mksquashfs and $PYTHON3.
corrupt_set() {
	mkdir -p "$1/src/d" "$1/bad" &&
	for i in $(seq 1 40); do printf 'file %d\n' "$i" > "$1/src/d/f$i" || return 1; done &&
	seq 1 200000 > "$1/src/big" &&
	ln -s d/f1 "$1/src/link" &&
	( cd "$1/src" && tar -cf - . ) | "$TAR2IMG" -q -f -c gzip "$1/good.img" &&
	mksquashfs "$1/src" "$1/raw.img" -noI -noD -noF -noX -noappend -quiet -no-progress \
		> /dev/null 2>&1 &&
	$PYTHON3 "$top_srcdir/tests/read/mkcorrupt.py" "$1/good.img" "$1/raw.img" "$1/bad"
}
# same_tree WHAT DIR REF [treecmp options]: pass when the tree at DIR
# equals REF (the root's mtime aside); on a failure show the differences.
same_tree() {
	what=$1 dir=$2 ref=$3; shift 3
	if $TREECMP --ignore-root-mtime "$@" "$dir" "$ref" > "$SCRATCH/treecmp.diff" 2>&1; then
		pass "$what"
	else
		fail "$what"; head -c 2000 "$SCRATCH/treecmp.diff"
	fi
}
need_tool() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not installed"
	done
}
# Scripts that never run tar2img set COMMON_NEEDS_TAR2IMG=no before
# sourcing this file; the others skip while it is not built.
[ "${COMMON_NEEDS_TAR2IMG:-yes}" = no ] || [ -x "$TAR2IMG" ] ||
	skip "tar2img not built ($TAR2IMG)"
# Whether this build has codec $1 ("tar2img --help" lists it without
# "(not built)").
codec_built() {
	"$TAR2IMG" --help 2>/dev/null | grep -Eq "^  $1 *\$"
}
ALL_CODECS="gzip lzma lzo xz lz4 zstd"
