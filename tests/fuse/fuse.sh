# SPDX-License-Identifier: MIT
# fuse.sh - sourced by the tests/fuse scripts after common.sh: the
# mounter of this build ($FUSE), and mounts that are always undone
# (common.sh's cleanup unmounts whatever is left below $SCRATCH, also
# when a check fails half-way).
#
# Gives: fuse_usable (skip the script where FUSE cannot mount: no
# /dev/fuse, or not root and no fusermount3; fail instead where
# SQPACK_REQUIRE_FUSE=yes); mount_img MNT ARGS...
# (mount in the background mode, the tool daemonising once mounted: 0
# or its exit status, stderr in $SCRATCH/mount.err); unmount MNT;
# mounted MNT; wait_mounted PID MNT (poll until MNT is a FUSE mount or
# PID died: 0 when mounted); wait_gone PID (poll until PID exited: its
# status in rc, 124 if it did not within 10 s); broken_mount WHAT IMAGE
# MNT, then broken_read once for all: a broken image is refused with
# one line and exit 1, or mounts (at MNT, one per image) and a read of
# everything (readall.py, one process for all mounts) meets EIO, or
# ELOOP where the kernel finds a directory in itself, with the daemon
# alive after; counts in refused and eio.

# sqpack-fuse links libsqpack's objects into itself: bin/sqpack-fuse is
# the program, never a wrapper.
FUSE=$top_builddir/bin/sqpack-fuse
# cannot WHY: skip the script, or fail it where SQPACK_REQUIRE_FUSE=yes
# (CI, where FUSE is there and the tool must be built).
cannot() { skip_unless_required SQPACK_REQUIRE_FUSE "the FUSE tests" "$1"; }
[ -x "$FUSE" ] || cannot "sqpack-fuse not built (configure found no fuse3)"

fuse_usable() {
	[ -c /dev/fuse ] || cannot "no /dev/fuse: FUSE cannot mount here"
	[ "$(id -u)" = 0 ] || command -v fusermount3 > /dev/null 2>&1 ||
		cannot "not root and no fusermount3: FUSE cannot mount here"
}

mounted() {
	awk -v m="$1" '$2 == m && $3 ~ /^fuse/ { f = 1 } END { exit !f }' /proc/mounts
}

mount_img() {
	mi_mnt=$1; shift
	mkdir -p "$mi_mnt" || return 1
	"$FUSE" "$@" "$mi_mnt" > "$SCRATCH/mount.out" 2> "$SCRATCH/mount.err"
}

unmount() {
	fusermount3 -u "$1" 2>/dev/null || umount "$1"
}

wait_mounted() {
	wm_n=0
	while [ $wm_n -lt 100 ]; do
		mounted "$2" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1; wm_n=$((wm_n + 1))
	done
	return 1
}

wait_gone() {
	wg_n=0
	while kill -0 "$1" 2>/dev/null && [ $wg_n -lt 100 ]; do
		sleep 0.1; wg_n=$((wg_n + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1"; wait "$1"; rc=124
	else
		wait "$1"; rc=$?
	fi
}

# fuse_as NAME: prints the path of a link called NAME to this build's
# mounter (what make install puts in the drop-in directory): the program
# itself ($SQP_BIN: not libtool's wrapper, which would call it by its own
# name).
fuse_as() {
	mkdir -p "$SCRATCH/bin" && ln -sf "$FUSE" "$SCRATCH/bin/$1" &&
		echo "$SCRATCH/bin/$1"
}

broken_mount() {
	bi_err=$SCRATCH/broken.err
	mkdir -p "$3" || return 1
	timeout 20 "$FUSE" "$2" "$3" 2> "$bi_err"
	bi_rc=$?
	if [ $bi_rc = 1 ] && [ "$(wc -l < "$bi_err")" = 1 ]; then
		refused=$((refused + 1)); pass "$1: refused: $(cat "$bi_err")"
	elif [ $bi_rc != 0 ]; then
		fail "$1: exit $bi_rc: $(head -c 200 "$bi_err")"
		mounted "$3" && unmount "$3"
	else
		echo "$3 $1" >> "$SCRATCH/broken.list"
	fi
}

broken_read() {
	[ -s "$SCRATCH/broken.list" ] || return 0
	# shellcheck disable=SC2046
	timeout 60 $PYTHON3 "$top_srcdir/tests/fuse/readall.py" \
		$(cut -d' ' -f1 "$SCRATCH/broken.list") > "$SCRATCH/broken.read"
	[ $? = 124 ] && fail "reading the mounts of broken images hangs"
	while read -r br_mnt br_what; do
		br_errs=$(awk -v m="$br_mnt" '$1 == m { $1 = ""; print substr($0, 2) }' "$SCRATCH/broken.read")
		if stat "$br_mnt/." 2>&1 | grep -q "not connected"; then
			fail "$br_what: the daemon died reading the mount"
		elif [ -n "$br_errs" ] && [ "$br_errs" != none ] &&
			[ -z "$(echo "$br_errs" | tr ' ' '\n' | grep -vx 'EIO\|ELOOP')" ]; then
			eio=$((eio + 1)); pass "$br_what: mounted, reads end in $br_errs"
		else
			fail "$br_what: mounted, read whole: errors: ${br_errs:-not reached}"
		fi
		unmount "$br_mnt"
	done < "$SCRATCH/broken.list"
	rm -f "$SCRATCH/broken.list"
}
