# SPDX-License-Identifier: MIT
# common.sh - sourced by the test scripts: tool paths, a scratch directory
# removed on exit, skips, probes of the judges, and a tally that ends with
# the line "N passed, N failed, N skipped" and the exit status automake
# expects.
#
# Gives: $SQP_BIN (the built tools) $TAR2IMG $IMG2TAR $TREECMP (tests/lib/treecmp.c) $SCRATCH
# $ALL_CODECS; pass/fail/check DESCRIPTION CMD.../note MESSAGE;
# skipc MESSAGE (one check skipped, counted; the script goes on);
# skip MESSAGE (the rest of the script cannot run: counted, then
# finish); judge_can JUDGE [CODEC] and judge_ok WHAT JUDGE [CODEC] (can
# this judge read a peer's image here; see below); judge_same_tree WHAT
# JUDGE CODEC IMAGE REF [treecmp options] (a judge reads IMAGE as the
# tree REF); run WHAT CMD... (a step whose failure fails the test);
# need_tool TOOL...; codec_built NAME; fast_dir (a tmpfs below $SCRATCH
# when possible); interrupt SIG ERRFILE CMD...; corrupt_set DIR and
# hostile_set DIR (broken images); same_tree WHAT DIR REF [treecmp
# options]; finish (the tally and the exit status). Mounts below
# $SCRATCH are unmounted on exit.
# A script that does not run tar2img sets COMMON_NEEDS_TAR2IMG=no before
# sourcing; the others skip until it is built.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${PYTHON3:=python3}"
# The tools as built, in $SQP_BIN. In a shared build bin/NAME is
# libtool's wrapper script, which runs bin/.libs/NAME with the library's
# directory first on LD_LIBRARY_PATH: a shell and three seds for each
# call, about 20 ms of CPU, and the suite calls the tools thousands of
# times. The scripts run the programs as the wrappers would.
SQP_BIN=$top_builddir/bin
if grep -qs 'temporary wrapper script' "$SQP_BIN/tar2img" &&
   [ -x "$SQP_BIN/.libs/tar2img" ] && [ -d "$top_builddir/.libs" ]; then
	SQP_BIN=$SQP_BIN/.libs
	LD_LIBRARY_PATH=$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
# TAR2IMG and IMG2TAR may come from the environment (tests/lib/redtools.sh
# substitutes failing ones to prove the scripts notice).
: "${TAR2IMG:=$SQP_BIN/tar2img}"
: "${IMG2TAR:=$SQP_BIN/img2tar}"
TREECMP="$top_builddir/tests/lib/treecmp"
# The image time, and mksquashfs's and mkfs.erofs's file times, follow
# SOURCE_DATE_EPOCH, which dpkg-buildpackage and rpmbuild export: the
# scripts compare trees with the times they made, and set it themselves
# where they test it.
unset SOURCE_DATE_EPOCH
# Nor do the compressors' settings in the environment (CI sets XZ_OPT
# for make dist): the scripts give the levels they mean.
unset XZ_OPT XZ_DEFAULTS ZSTD_CLEVEL ZSTD_NBTHREADS GZIP BZIP BZIP2
# The locale is the suite's, not the caller's: rpmbuild runs %check in
# the C locale, where bsdtar refuses to write or read the UTF-8 names
# the scripts pack ("Pathname can't be converted from UTF-8 to current
# locale"), and sort, grep and ls order and match bytes by LC_COLLATE
# and LC_CTYPE. C.UTF-8 (glibc has it built in since 2.35; Fedora's in
# glibc-minimal-langpack) orders bytes as C does and reads UTF-8; a
# system without it gets its first UTF-8 locale, else stays in C.
suite_locale=$(locale -a 2>/dev/null | grep -ixE 'c\.utf-?8' | head -1)
[ -n "$suite_locale" ] || suite_locale=$(locale -a 2>/dev/null | grep -iE '\.utf-?8$' | head -1)
LC_ALL=${suite_locale:-C}
export LC_ALL
unset LANGUAGE suite_locale

npass=0
nfail=0
nskip=0
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sqpack-test.XXXXXX") || exit 99
cleanup() {
	for m in $(awk -v d="$SCRATCH" 'index($2, d) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r); do
		umount "$m" 2>/dev/null || fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	rm -rf "$SCRATCH" "$SCRATCH.mkfs"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# on_tmpfs DIR MODE: mount a private tmpfs on DIR when this user may and
# it keeps user.* xattrs; 0 when it did. The scratch directory is one
# when it can be: creating a file on a loaded ext4 took 150 us here, on
# tmpfs 10, and the suite creates tens of thousands (its images mount
# from tmpfs as well, and its sparse sources take no room there).
on_tmpfs() {
	[ "$(id -u)" = 0 ] && mount -t tmpfs -o "mode=$2" tmpfs "$1" 2>/dev/null || return 1
	$PYTHON3 -c 'import os, sys
p = os.path.join(sys.argv[1], "probe"); open(p, "w").close()
os.setxattr(p, "user.probe", b"1"); os.unlink(p)' "$1" 2>/dev/null && return 0
	umount "$1"
	return 1
}
scratch_tmpfs=no
! on_tmpfs "$SCRATCH" 0700 || scratch_tmpfs=yes

# bytes_read CMD...: runs CMD and prints the bytes it read (rchar of
# /proc/self/io, which counts a reaped child's reads in its parent's);
# exits with CMD's status. Callers check [ -r /proc/self/io ] first.
bytes_read() {
	$PYTHON3 -c 'import subprocess, sys
def rchar():
    with open("/proc/self/io") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("rchar:"))
before = rchar()
rc = subprocess.call(sys.argv[1:])
print(rchar() - before)
sys.exit(rc)' "$@"
}

# fast_dir: prints a directory below $SCRATCH on a tmpfs when this user
# may mount one that keeps user.* xattrs (extracting thousands of small
# files there is several times faster than on a loaded disk), else a
# plain directory below $SCRATCH. cleanup unmounts it.
fast_dir() {
	d=$SCRATCH/fast
	mkdir -p "$d" || return 1
	[ $scratch_tmpfs = yes ] || on_tmpfs "$d" 0755 || :
	echo "$d"
}
# peer_mkfs_erofs OPTIONS IMAGE SOURCE: mkfs.erofs OPTIONS (one string,
# split) IMAGE SOURCE. Debian 12's mkfs.erofs 1.5 stages chunked files
# (--chunksize) in a file of its own in /tmp and copies them into the
# image with copy_file_range, which fails across file systems (EIO):
# the image is written in /tmp's file system and moved.
peer_mkfs_erofs() {
	pm_tmp=/tmp/${SCRATCH##*/}.mkfs
	# shellcheck disable=SC2086
	mkfs.erofs $1 "$pm_tmp" "$3" && mv "$pm_tmp" "$2" || { rm -f "$pm_tmp"; return 1; }
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
# usage_refused WHAT COMMAND...: COMMAND is refused as bad usage: exit
# status 2 and a message that says WHAT.
usage_refused() {
	ur_what=$1; shift
	"$@" > "$SCRATCH/refused.out" 2>&1
	ur_rc=$?
	if [ $ur_rc -eq 2 ] && grep -q -- "$ur_what" "$SCRATCH/refused.out"; then
		pass "refused: $(head -1 "$SCRATCH/refused.out")"
	else
		fail "expected exit 2 and '$ur_what': exit $ur_rc: $(head -c 200 "$SCRATCH/refused.out")"
	fi
}
note() { echo "# $*"; }
# skipc MESSAGE: one check that cannot run here, counted in the tally.
skipc() { nskip=$((nskip + 1)); echo "SKIP: $*" >&3; }
# skip MESSAGE: the rest of the script cannot run here: counted, then
# finish.
skip() { skipc "$*"; finish; }
# skip_unless_required VAR WHAT WHY: skip the script for WHY, or fail it
# where the variable VAR is "yes" (CI requires WHAT there).
skip_unless_required() {
	if eval "[ \"\${$1:-}\" = yes ]"; then
		fail "$3, but $1=yes requires $2"
		finish
	fi
	skip "$3"
}
# finish: the tally line, then exit 1 on any failure, else 0; a run in
# which every check was skipped (every codec or judge missing) exits 77,
# automake's SKIP.
finish() {
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" -eq 0 ] || exit 1
	[ "$npass" -gt 0 ] || exit 77
	exit 0
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
# hostile_set DIR: the images of tests/hostile/mkhostile.py in DIR/bad
# (a root listing with a name twice, unsorted, or holding ".", "..", '/'
# or NUL), made from DIR/raw.img, mksquashfs's image of DIR/src, whose
# symlink evil points at DIR/outside (empty: nothing may be written
# there). Needs mksquashfs and $PYTHON3.
hostile_set() {
	mkdir -p "$1/src/evim" "$1/src/kk" "$1/outside" "$1/bad" &&
	ln -s "$1/outside" "$1/src/evil" &&
	echo payload > "$1/src/evim/payload" &&
	echo escape > "$1/src/kk/escape" &&
	echo k > "$1/src/k" &&
	mksquashfs "$1/src" "$1/raw.img" -noI -noD -noF -noX -noappend -quiet \
		-no-progress > /dev/null 2>&1 &&
	$PYTHON3 "$top_srcdir/tests/hostile/mkhostile.py" "$1/raw.img" "$1/bad"
}
# same_tree WHAT DIR REF [treecmp options]: pass when the tree at DIR
# equals REF (the root's mtime aside); on a failure show the differences.
same_tree() {
	what=$1 dir=$2 ref=$3; shift 3
	if $TREECMP --ignore-root-mtime "$@" "$dir" "$ref" > "$SCRATCH/treecmp.diff" 2>&1; then
		pass "$what"
	else
		# cut at 2000 bytes, ended by a newline so the next tally line
		# starts a line (judgeshims.sh greps for ^FAIL)
		fail "$what"; head -c 2000 "$SCRATCH/treecmp.diff" | sed '$a\'
	fi
}
# erofs_device_mounts WHAT FLAT IMG DEV REF MNT: the kernel mounts an
# EROFS image with an extra device (a blob of chunks, or the tar of an
# index) on MNT both ways: FLAT (IMG with DEV appended) alone, and IMG
# with DEV on a loop device as -o device=; each must read equal to the
# tree REF. The caller has asked judge_ok for the kernel's EROFS mount.
erofs_device_mounts() {
	edm_what=$1 edm_flat=$2 edm_img=$3 edm_dev=$4 edm_ref=$5 edm_mnt=$6
	edm_err=$SCRATCH/edm.err
	if mount -t erofs -o loop,ro "$edm_flat" "$edm_mnt" 2> "$edm_err"; then
		same_tree "the kernel, $edm_what appended: equal" "$edm_mnt" "$edm_ref"
		umount "$edm_mnt"
	else
		fail "the kernel does not mount the image with $edm_what appended:" \
			"$(head -c 200 "$edm_err")"
	fi
	if ! edm_loop=$(losetup -f --show -r "$edm_dev" 2> "$edm_err"); then
		skipc "$edm_what as a device: no loop device: $(head -c 200 "$edm_err")"
		return
	fi
	if mount -t erofs -o "loop,ro,device=$edm_loop" "$edm_img" "$edm_mnt" 2> "$edm_err"; then
		same_tree "the kernel, $edm_what as -o device=: equal" "$edm_mnt" "$edm_ref"
		umount "$edm_mnt"
	else
		fail "the kernel does not mount the image with device=: $(head -c 200 "$edm_err")"
	fi
	losetup -d "$edm_loop"
}
# need_tool TOOL...: skip the script when a tool is missing; a judge
# that SQPACK_REQUIRE_JUDGES names must be there (exit 1).
need_tool() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 && continue
		if judge_required "$t" ""; then
			fail "$t not installed, but SQPACK_REQUIRE_JUDGES requires it"
			finish
		fi
		skip "$t not installed"
	done
}

# peer_fast PACKER CODEC: the options that make a peer's packer
# (mksquashfs or tar2sqfs) compress CODEC at its fastest level, for a
# test that reads the peer's image, not one that compares its bytes or
# sizes with ours. The stream's format is the codec's whatever the
# level, and the default levels were most of the peers' CPU in make
# check: on the edge-case tree (tests/tar2img/mktar.py) mksquashfs took
# 0.74 CPU-s at gzip 9 and 0.14 at 1, 1.32 at zstd 15 and 0.02 at 1,
# 1.92 with lzo1x_999 (xz and lzma have no level there: 2.26, 1.74).
peer_fast() {
	case $1-$2 in
	mksquashfs-gzip|mksquashfs-zstd) echo "-Xcompression-level 1";;
	mksquashfs-lzo) echo "-Xalgorithm lzo1x_1";;
	tar2sqfs-gzip|tar2sqfs-zstd) echo "-X level=1";;
	tar2sqfs-xz|tar2sqfs-lzma) echo "-X level=0";;
	tar2sqfs-lzo) echo "-X algorithm=lzo1x_1";;
	esac
}

# The judges: readers of images written by others, so that "ours reads
# it" never stands alone. A judge runs here when it reads a peer's image:
# mksquashfs's, of the codec asked (gzip when none), holding one file
# whose bytes it must give back. Then a refusal of our image is our fault,
# a failure; when the probe fails the judge cannot run here (not
# installed, no loop device or FUSE, a codec it lacks) and its checks are
# skipped and counted, with the reason. bsdtar and GNU tar judge the tar
# streams of img2tar; a script needs them (need_tool) or skips.
JUDGES="kernel squashfuse 7zz unsquashfs sqfs2tar fsck.erofs"
JUDGE_PROBE=$SCRATCH/judge-probe
# SQPACK_REQUIRE_JUDGES (CI): words JUDGE or JUDGE-CODEC[-CODEC...],
# separated by spaces or commas; a JUDGE is one of $JUDGES, bsdtar or tar.
# A judge named there that cannot run (for bsdtar and tar: is missing) is
# a failure, except for the codecs listed after its name ("kernel-lzma":
# the kernel, which has no lzma).
SQPACK_REQUIRE_JUDGES=$(echo "${SQPACK_REQUIRE_JUDGES:-}" | tr , ' ')
for jr_w in $SQPACK_REQUIRE_JUDGES; do
	case " $JUDGES bsdtar tar " in
	*" ${jr_w%%-*} "*) ;;
	*) echo "SQPACK_REQUIRE_JUDGES: unknown judge ${jr_w%%-*} (known: $JUDGES bsdtar tar)"; exit 99;;
	esac
done
# judge_required JUDGE CODEC: whether SQPACK_REQUIRE_JUDGES requires JUDGE
# with CODEC (any codec when CODEC is empty).
judge_required() {
	for jr_w in $SQPACK_REQUIRE_JUDGES; do
		[ "${jr_w%%-*}" = "$1" ] || continue
		case "$jr_w-" in *"-$2-"*) [ -n "$2" ] || return 0;; *) return 0;; esac
	done
	return 1
}
# judge_probe_image CODEC: mksquashfs's image of $JUDGE_PROBE/src with
# CODEC, made once; prints its path, or why not. CODEC "erofs" is
# mkfs.erofs's image (for the kernel's EROFS mount).
judge_probe_image() {
	if [ "$1" = erofs ] && [ ! -f "$JUDGE_PROBE/$1.img" ]; then
		command -v mkfs.erofs > /dev/null 2>&1 || { echo "mkfs.erofs (the probe's packer) missing"; return 1; }
		mkfs.erofs --quiet "$JUDGE_PROBE/$1.img" "$JUDGE_PROBE/src" > "$JUDGE_PROBE/mkfs.err" 2>&1 ||
			{ echo "mkfs.erofs cannot write an image to probe with: $(head -1 "$JUDGE_PROBE/mkfs.err")"; return 1; }
	elif [ ! -f "$JUDGE_PROBE/$1.img" ]; then
		command -v mksquashfs > /dev/null 2>&1 || { echo "mksquashfs (the probe's packer) missing"; return 1; }
		mksquashfs "$JUDGE_PROBE/src" "$JUDGE_PROBE/$1.img" -comp "$1" -noappend -quiet -no-progress \
			> "$JUDGE_PROBE/mksq.err" 2>&1 ||
			{ echo "mksquashfs cannot write a $1 image to probe with: $(head -1 "$JUDGE_PROBE/mksq.err")"; return 1; }
	fi
	echo "$JUDGE_PROBE/$1.img"
}
# judge_probe JUDGE CODEC: reads the probe image with JUDGE; prints why
# not on failure.
judge_probe() {
	case $1 in kernel) jp_tool=mount;; *) jp_tool=$1;; esac
	command -v "$jp_tool" > /dev/null 2>&1 || { echo "$jp_tool not installed"; return 1; }
	if [ ! -d "$JUDGE_PROBE/src" ]; then
		mkdir -p "$JUDGE_PROBE/src/d" &&
		echo "read by a judge" > "$JUDGE_PROBE/src/d/f" || return 1
	fi
	jp_out=$JUDGE_PROBE/$1.$2
	rm -rf "$jp_out" && mkdir -p "$jp_out" || return 1
	jp_what="mksquashfs's $2 image"
	jp_fs=squashfs
	[ "$2" != erofs ] || { jp_what="mkfs.erofs's image"; jp_fs=erofs; }
	jp_img=$(judge_probe_image "$2") || { echo "$jp_img"; return 1; }
	case $1 in
	kernel)
		[ "$(id -u)" = 0 ] || { echo "a loop mount needs root"; return 1; }
		mount -t "$jp_fs" -o loop,ro "$jp_img" "$jp_out" > "$jp_out.err" 2>&1;;
	squashfuse)
		[ -c /dev/fuse ] || { echo "no /dev/fuse"; return 1; }
		squashfuse "$jp_img" "$jp_out" > "$jp_out.err" 2>&1;;
	7zz) 7zz x -y -o"$jp_out" "$jp_img" > "$jp_out.err" 2>&1;;
	fsck.erofs) fsck.erofs --extract="$jp_out" "$jp_img" > "$jp_out.err" 2>&1;;
	unsquashfs) unsquashfs -q -n -d "$jp_out/u" "$jp_img" > "$jp_out.err" 2>&1 && mv "$jp_out/u/d" "$jp_out";;
	sqfs2tar) sqfs2tar "$jp_img" 2> "$jp_out.err" | (cd "$jp_out" && $PYTHON3 -c 'import sys, tarfile
tarfile.open(fileobj=sys.stdin.buffer, mode="r|").extractall(".")' 2>> "$jp_out.err");;
	esac || {
		# the line that says why, not a banner
		echo "$1 cannot read $jp_what: $(grep -iE 'error|support|cannot|wrong|fail|not' "$jp_out.err" | grep -v dmesg | head -3 | tr '\n' ' ')"
		return 1
	}
	jp_rc=0
	cmp -s "$jp_out/d/f" "$JUDGE_PROBE/src/d/f" || { jp_rc=1; echo "$1 misreads $jp_what"; }
	case $1 in
	kernel) umount "$jp_out";;
	squashfuse) fusermount3 -u "$jp_out" 2>/dev/null || umount "$jp_out";;
	esac
	return $jp_rc
}
# judge_can JUDGE [CODEC]: whether JUDGE reads a peer's CODEC image here.
# Probed once per script; judge_why says why not.
judge_can() {
	jc=$JUDGE_PROBE/$1.${2:-gzip}.can
	if [ ! -f "$jc" ]; then
		mkdir -p "$JUDGE_PROBE" &&
		if judge_probe "$1" "${2:-gzip}" > "$jc.why" 2>&1; then echo yes > "$jc"; else echo no > "$jc"; fi
	fi
	judge_why=$(cat "$jc.why")
	[ "$(cat "$jc")" = yes ]
}
# judge_ok WHAT JUDGE [CODEC]: judge_can, and when the judge cannot run,
# the check WHAT is counted as skipped, or failed where
# SQPACK_REQUIRE_JUDGES requires the judge.
judge_ok() {
	jo_what=$1; shift
	judge_can "$@" && return 0
	if judge_required "$1" "${2:-gzip}"; then
		fail "$jo_what: $judge_why (SQPACK_REQUIRE_JUDGES requires $1)"
	else
		skipc "$jo_what: $judge_why"
	fi
	return 1
}
# kernel_check FSTYPE IMAGE WHAT CMD...: IMAGE mounted read-only on
# $KMNT (where the kernel cannot mount FSTYPE here, counted as judge_ok
# counts it), the check WHAT is CMD run there; a refused mount fails.
KMNT=$SCRATCH/kmnt
kernel_check() {
	kc_fs=$1 kc_img=$2 kc_what=$3; shift 3
	judge_ok "$kc_what: the kernel's $kc_fs mount" kernel "$kc_fs" || return 0
	mkdir -p "$KMNT"
	if mount -t "$kc_fs" -o loop,ro "$kc_img" "$KMNT" 2> "$SCRATCH/kmnt.err"; then
		check "$kc_what" "$@"
		umount "$KMNT"
	else
		fail "$kc_what: the kernel does not mount it: $(head -c 200 "$SCRATCH/kmnt.err")"
	fi
}
# unsquashfs_ref WHAT ours|peer CODEC IMAGE DIR: unsquashfs -d of IMAGE
# (compressed with CODEC) into DIR, the tree a check compares with. When
# it cannot, returns 1 having counted why: unsquashfs cannot run here (as
# judge_ok), or it refuses our image (a failure) or a peer's (a skip:
# unsquashfs 4.5.1 rejects tar2sqfs's lz4 images).
unsquashfs_ref() {
	judge_ok "$1: unsquashfs" unsquashfs "$3" || return 1
	rm -rf "$5"
	unsquashfs -q -n -d "$5" "$4" > "$SCRATCH/unsquashfs.err" 2>&1 && return 0
	if [ "$2" = ours ]; then
		fail "$1: unsquashfs refuses our image: $(tail -1 "$SCRATCH/unsquashfs.err")"
	else
		skipc "$1: unsquashfs refuses this peer's image: $(tail -1 "$SCRATCH/unsquashfs.err")"
	fi
	return 1
}

# unsquashfs_same WHAT OFFSET DIR: DIR/ref.img (a peer's) and DIR/our.img,
# images starting at OFFSET in their files, hold the same as unsquashfs
# sees them: the same `-lln` listing and the same tree extracted
# (same_tree), for the tests that run one command line with a peer and
# with ours. The trees stay in DIR/ref.d and DIR/our.d for more checks.
unsquashfs_same() {
	unsquashfs -o "$2" -lln "$3/ref.img" > "$3/ref.ls" 2>&1
	unsquashfs -o "$2" -lln "$3/our.img" > "$3/our.ls" 2>&1
	if diff "$3/ref.ls" "$3/our.ls" > "$3/ls.diff"; then
		pass "$1: same unsquashfs -lln listing"
	else
		fail "$1: unsquashfs -lln listings differ (< peer, > ours)"
		head -20 "$3/ls.diff"
	fi
	rm -rf "$3/ref.d" "$3/our.d"
	if unsquashfs -o "$2" -q -n -d "$3/ref.d" "$3/ref.img" > /dev/null 2>&1 &&
	   unsquashfs -o "$2" -q -n -d "$3/our.d" "$3/our.img" > /dev/null 2>&1; then
		same_tree "$1: same tree extracted" "$3/our.d" "$3/ref.d"
	else
		fail "$1: unsquashfs -d refuses an image"
	fi
}

# judge_same_tree WHAT JUDGE CODEC IMAGE REF [treecmp options]: JUDGE
# (kernel, squashfuse, 7zz, unsquashfs or fsck.erofs) reads IMAGE, a
# SquashFS image of CODEC or with CODEC "erofs" an EROFS image, and the
# tree it shows must equal REF (same_tree). judge_ok comes first ("WHAT:
# kernel mount", "WHAT: JUDGE"), so a judge that cannot run here is a
# counted skip; its refusal of IMAGE is a failure that quotes it. The
# mount is undone, the extraction removed. Returns 1 when no tree was
# compared.
judge_same_tree() {
	js_what=$1 js_judge=$2 js_codec=$3 js_img=$4 js_ref=$5; shift 5
	js_label=$js_judge js_who=$js_judge js_fs=squashfs
	[ "$js_judge" != kernel ] || { js_label="kernel mount" js_who="the kernel"; }
	[ "$js_codec" != erofs ] || js_fs=erofs
	judge_ok "$js_what: $js_label" "$js_judge" "$js_codec" || return 1
	# on the script's fast_dir when it has one: extracting is faster there
	js_dir=$SCRATCH/judged.$js_judge js_err=$SCRATCH/judged.err
	[ ! -d "$SCRATCH/fast" ] || js_dir=$SCRATCH/fast/judged.$js_judge
	rm -rf "$js_dir" && mkdir -p "$js_dir" || return 1
	case $js_judge in
	kernel) mount -t "$js_fs" -o loop,ro "$js_img" "$js_dir" 2> "$js_err";;
	squashfuse) squashfuse "$js_img" "$js_dir" 2> "$js_err";;
	7zz) 7zz x -y -snld -o"$js_dir" "$js_img" > "$js_err" 2>&1;;
	unsquashfs) rmdir "$js_dir" && unsquashfs -q -n -d "$js_dir" "$js_img" > "$js_err" 2>&1;;
	fsck.erofs) fsck.erofs --extract="$js_dir" "$js_img" > "$js_err" 2>&1;;
	*) echo "judge_same_tree: no judge $js_judge" >&2; exit 99;;
	esac || {
		# a mount says why on its first line, an extractor after its banner
		case $js_judge in
		kernel|squashfuse) js_why=$(head -1 "$js_err");;
		*) js_why=$(grep -v '^ *$' "$js_err" | tail -3 | tr '\n' ' ');;
		esac
		fail "$js_what: $js_who refuses our image: $js_why"
		return 1
	}
	same_tree "$js_what: $js_label reads the same tree" "$js_dir" "$js_ref" "$@"
	case $js_judge in
	kernel) umount "$js_dir";;
	squashfuse) fusermount3 -u "$js_dir" 2>/dev/null || umount "$js_dir";;
	esac
	rm -rf "$js_dir"
}

# kernel_erofs_has CODEC: the running kernel's configuration enables
# EROFS's CODEC (lz4, lzma, deflate or zstd).
kernel_erofs_has() {
	case $1 in
	lz4) ke_opt=CONFIG_EROFS_FS_ZIP;;
	*) ke_opt=CONFIG_EROFS_FS_ZIP_$(echo "$1" | tr a-z A-Z);;
	esac
	[ -r /proc/config.gz ] && gzip -dc /proc/config.gz | grep -qx "$ke_opt=y"
}

# mkfs_build_time_only: the path of a sqpack-mkfs.erofs (made once in
# $SCRATCH) that takes SOURCE_DATE_EPOCH as dir2img does, the build time
# alone (-T it --mkfs-time, without it in the environment): mkfs.erofs
# 1.9 also clamps newer files to it. It also writes no xattr name filter
# (-E^xattr-name-filter), as dir2img without --xattr-name-filter, where
# mkfs.erofs 1.9 writes one by default. For the scripts that compare
# its images with dir2img's, and with trees made after SOURCE_DATE_EPOCH.
mkfs_build_time_only() {
	if [ ! -x "$SCRATCH/mkfs-build-time" ]; then
		printf '#!/bin/sh\nexec env -u SOURCE_DATE_EPOCH "%s" -E^xattr-name-filter ${SOURCE_DATE_EPOCH:+-T"$SOURCE_DATE_EPOCH" --mkfs-time} "$@"\n' \
			"$SQP_BIN/sqpack-mkfs.erofs" > "$SCRATCH/mkfs-build-time" &&
			chmod +x "$SCRATCH/mkfs-build-time" || return 1
	fi
	echo "$SCRATCH/mkfs-build-time"
}

# Scripts that never run tar2img set COMMON_NEEDS_TAR2IMG=no before
# sourcing this file; the others skip while it is not built.
[ "${COMMON_NEEDS_TAR2IMG:-yes}" = no ] || [ -x "$TAR2IMG" ] ||
	skip "tar2img not built ($TAR2IMG)"
# Whether PROGRAM (run with ARGS) is built with ASan or TSan, whose
# allocators are not the one a test of memory or page faults measures:
# each prints its name when asked for its options' help.
is_sanitized() {
	ASAN_OPTIONS=help=1 TSAN_OPTIONS=help=1 "$@" 2>&1 |
		grep -q 'AddressSanitizer\|ThreadSanitizer'
}
# Whether this build has codec $1 ("tar2img --help" lists it without
# "(not built)").
codec_built() {
	"$TAR2IMG" --help 2>/dev/null | grep -Eq "^  $1 *\$"
}
ALL_CODECS="gzip lzma lzo xz lz4 zstd"
