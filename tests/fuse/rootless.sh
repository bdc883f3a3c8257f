#!/bin/sh
# SPDX-License-Identifier: MIT
# rootless.sh - the mounts as their callers make them without root,
# each caller's whole sequence replayed as an unprivileged user (uid
# 65534), with the peer it replaces (squashfuse_ll or squashfuse, the
# system's) run through the same sequence as the judge:
#   Apptainer (internal/pkg/image/driver: its FUSE image driver, in the
#   container's user namespace): squashfuse_ll -f -o "" /proc/self/fd/3
#   TARGET with the image inherited as descriptor 3 (-o offset=N for a
#   SIF's partition; squashfuse where squashfuse_ll is missing, with -o
#   uid=U,gid=G), /proc/self/mountinfo polled every 25 ms for at most 2
#   s with the process alive, anything on stdout or stderr shown to the
#   user as an error, then umount TARGET and at most 0.5 s for the
#   process to exit before it is killed;
#   enroot (runtime.sh, in its user and mount namespace): squashfuse -f
#   -o uid=E,gid=G IMAGE ROOTFS/lower &, mountpoint -q polled each
#   millisecond at most 100 times, fuse-overlayfs with the mount as its
#   lower layer, a file written, then kill -KILL 0 on exit;
#   a user's own mount through fusermount3 (no namespace): squashfuse
#   IMAGE MNT (and erofsfuse for EROFS), fusermount3 -u MNT.
# What each mount shows (names, types, modes, sizes, link targets,
# owners, every file's MD5) must be what the peer's shows, and, owners
# aside, the source tree; the process must be silent and end with exit
# 0. Needs root (to become the user), /dev/fuse open to every user (as
# udev leaves it on a distribution) and unprivileged user namespaces
# for the namespaced sequences.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
fuse_usable
[ "$(id -u)" = 0 ] || skip "not root: cannot become another user here"
need_tool setpriv unshare mountpoint md5sum
U=65534
T=$SCRATCH
as_user() { setpriv --reuid=$U --regid=$U --clear-groups "$@"; }
as_user test -r /dev/fuse -a -w /dev/fuse ||
	cannot "/dev/fuse is $(stat -c %a /dev/fuse): user $U may not open it"
# The user must reach the scratch directory and this build's mounter.
chmod 711 "$T" && mkdir "$T/u" && chown $U:$U "$T/u" || exit 99
as_user test -x "$FUSE" ||
	skip "user $U cannot run $FUSE (a directory above it is closed)"
W=$T/u

# The source: text, a file of several blocks, a hole, links, a
# directory only its owner (not the user) may enter, an empty one, a
# FIFO; owners the user is not.
mkdir -p "$T/src/d" "$T/src/priv" "$T/src/empty" || exit 99
printf 'hello\n' > "$T/src/d/a.txt"
head -c 300000 /dev/urandom > "$T/src/d/big"
truncate -s 1048576 "$T/src/d/hole" && echo end >> "$T/src/d/hole"
ln -s a.txt "$T/src/d/link" && ln "$T/src/d/a.txt" "$T/src/d/hard"
echo secret > "$T/src/priv/s" && chmod 600 "$T/src/priv/s" &&
	chmod 700 "$T/src/priv" && chown -R 1234:1234 "$T/src/priv"
mkfifo "$T/src/p" && chmod 755 "$T/src/d/big" || exit 99
run "the SquashFS image" "$SQP_BIN/dir2img" -q "$W/i.sqfs" "$T/src" || finish
run "the EROFS image" "$SQP_BIN/dir2img" -q --format erofs "$W/i.erofs" "$T/src" || finish
# A SIF holds its SquashFS partition at an offset.
head -c 32768 /dev/zero > "$W/i.sif" && cat "$W/i.sqfs" >> "$W/i.sif" || exit 99
chown $U:$U "$W"/i.* || exit 99

# The caller's steps, run as the user: sh caller.sh CASE MOUNTER OUT;
# OUT.list and OUT.owners what the mount showed, OUT.out the mounter's
# output, OUT.rc its exit status, OUT.err a step that went wrong.
cat > "$W/caller.sh" << 'EOF'
case_=$1 mounter=$2 out=$3 w=${out%/*}
listing() {
	(cd "$1" && find . -type d -printf '%p %y %m\n' -o \
		-printf '%p %y %m %s %n %l\n' | sort &&
		find . -type f -exec md5sum {} + | sort -k2) > "$out.list" 2>&1
	(cd "$1" && find . -printf '%p %U:%G\n' | sort) > "$out.owners" 2>&1
}
bad() { echo "$*" >> "$out.err"; }
# ready TARGET PID POLLS SLEEP: polled as the caller polls
ready() {
	n=0
	while ! mountpoint -q "$1"; do
		kill -0 "$2" 2>/dev/null || { bad "the mounter died before mounting"; return 1; }
		[ $n -lt "$3" ] || { bad "not mounted after $3 polls"; return 1; }
		n=$((n + 1)); sleep "$4"
	done
}
# gone PID TENTHS: the process ended within TENTHS tenths of a second
gone() {
	n=0
	while kill -0 "$1" 2>/dev/null; do
		[ $n -lt "$2" ] || { bad "still running $2 tenths of a second after the unmount"; kill -KILL "$1"; break; }
		n=$((n + 1)); sleep 0.1
	done
	wait "$1"; echo $? > "$out.rc"
}
rm -f "$out".*
[ "$case_" != source ] || { listing "$mounter"; exit; }
mkdir -p "$w/m"
case $case_ in
apptainer|apptainer-sif|apptainer-hl)
	img=$w/i.sqfs opts=
	[ $case_ = apptainer ] || { img=$w/i.sif opts=offset=32768; }
	[ $case_ != apptainer-hl ] || opts="uid=$(id -u),gid=$(id -g),$opts"
	"$mounter" -f -o "${opts%,}" /proc/self/fd/3 "$w/m" 3< "$img" > "$out.out" 2>&1 &
	pid=$!
	# 80 polls of 25 ms: Apptainer's 2 s
	if ready "$w/m" $pid 80 0.025; then
		listing "$w/m"; umount "$w/m" || bad "umount failed"
		gone $pid 5
	else
		kill -KILL $pid 2>/dev/null
	fi;;
enroot)
	mkdir -p "$w/r/lower" "$w/r/upper" "$w/r/work" "$w/r/root"
	trap 'kill -KILL 0 2>/dev/null' EXIT
	"$mounter" -f -o "uid=$(id -u),gid=$(stat -c %g /proc/$$)" "$w/i.sqfs" "$w/r/lower" > "$out.out" 2>&1 &
	pid=$!
	ready "$w/r/lower" $pid 100 0.001 || exit 0
	listing "$w/r/lower"
	if command -v fuse-overlayfs > /dev/null; then
		FUSE_OVERLAYFS_DISABLE_OVL_WHITEOUT=y fuse-overlayfs -f -o \
			"lowerdir=$w/r/lower,upperdir=$w/r/upper,workdir=$w/r/work" \
			"$w/r/root" 2> "$out.ovl" &
		ready "$w/r/root" $! 100 0.001 || exit 0
		echo written > "$w/r/root/d/new" && cat "$w/r/root/d/a.txt" "$w/r/root/d/new" > "$out.merged" 2>&1
	fi
	echo 0 > "$out.rc";;
user|user-erofs)
	img=$w/i.sqfs; [ $case_ = user ] || img=$w/i.erofs
	"$mounter" "$img" "$w/m" > "$out.out" 2>&1
	echo $? > "$out.rc"
	if mountpoint -q "$w/m"; then
		listing "$w/m"; fusermount3 -u "$w/m" || bad "fusermount3 -u failed"
	else
		bad "not mounted"
	fi;;
esac
EOF

# same_show A B: the two mounts showed the same, owners too.
same_show() { cmp -s "$1.list" "$2.list" && cmp -s "$1.owners" "$2.owners"; }
# replay CASE NAME [RUN...]: the caller's sequence with the peer NAME
# (when the system has it) and then with this build under that name.
userns=yes
as_user unshare -Urm true 2>/dev/null || userns=no
# With RUN (unshare -Urm, the namespaces): RUN before the caller's
# steps.
replay() {
	rp_case=$1 rp_name=$2; shift 2
	rp_run=$*
	[ -z "$rp_run" ] || [ $userns = yes ] ||
		{ skipc "$rp_case: no unprivileged user namespaces here"; return; }
	rp_peer=$(command -v "$rp_name" 2>/dev/null)
	if [ -n "$rp_peer" ]; then
		as_user $rp_run sh "$W/caller.sh" $rp_case "$rp_peer" "$W/peer.$rp_case"
		if [ -s "$W/peer.$rp_case.err" ] || [ "$(cat "$W/peer.$rp_case.rc" 2>/dev/null)" != 0 ]; then
			rp_peer=""
			note "$rp_case: the system's $rp_name fails the sequence here: $(cat "$W/peer.$rp_case.err" "$W/peer.$rp_case.out" 2>/dev/null | head -c 300)"
		fi
	fi
	as_user $rp_run sh "$W/caller.sh" $rp_case "$(fuse_as $rp_name)" "$W/ours.$rp_case"
	rp_o=$W/ours.$rp_case
	if [ -s "$rp_o.err" ]; then
		fail "$rp_case ($rp_name): $(cat "$rp_o.err") $(head -c 300 "$rp_o.out" 2>/dev/null)"
		return
	fi
	check "$rp_case ($rp_name): exit 0 ($(cat "$rp_o.rc"))" [ "$(cat "$rp_o.rc")" = 0 ]
	check "$rp_case ($rp_name): silent ($(head -c 200 "$rp_o.out"))" [ ! -s "$rp_o.out" ]
	check "$rp_case ($rp_name): the source tree, owners aside" cmp -s "$rp_o.list" "$W/src.list"
	if [ -n "$rp_peer" ]; then
		check "$rp_case ($rp_name): what $rp_peer shows, owners too" \
			same_show "$rp_o" "$W/peer.$rp_case"
	else
		skipc "$rp_case: no working $rp_name on this system to judge the owners"
	fi
}

# The source as the listing shows it (root reads all of it).
sh "$W/caller.sh" source "$T/src" "$W/src" && [ -s "$W/src.list" ] || exit 99

replay apptainer squashfuse_ll unshare -Urm
replay apptainer-sif squashfuse_ll unshare -Urm
replay apptainer-hl squashfuse unshare -Urm
# enroot's kill -KILL 0 ends its own process group: a new session here.
replay enroot squashfuse unshare -Urm setsid -w
if [ $userns = yes ]; then
	if command -v fuse-overlayfs > /dev/null; then
		check "enroot: the overlay over the mount reads and writes" \
			[ "$(cat "$W/ours.enroot.merged")" = "$(printf 'hello\nwritten')" ]
	else
		skipc "enroot: no fuse-overlayfs here to stack on the mount"
	fi
	# SIGKILL is delivered as the namespace goes: a second at most.
	n=0
	while pgrep -f "$T/bin/squashfuse" > /dev/null && [ $n -lt 20 ]; do
		sleep 0.1; n=$((n + 1))
	done
	left=$(pgrep -f "$T/bin/squashfuse")
	check "enroot: kill -KILL 0 leaves no mounter running ($left)" [ -z "$left" ]
fi
replay user squashfuse
replay user-erofs erofsfuse
finish
