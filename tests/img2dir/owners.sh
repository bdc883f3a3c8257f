#!/bin/sh
# SPDX-License-Identifier: MIT
# owners.sh - every entry img2dir makes gets the image's mode, owner and
# mtime, whatever the system would give a new entry by itself. img2dir
# creates files with their mode and leaves out a chown or chmod that
# would change nothing, which holds only while it knows what a new entry
# gets: the process's owner and the mode asked less the umask. Here it
# meets what changes that: umasks 022, 077 and 000, a set-group-ID
# target (new entries take its group), one merged into below (an
# existing set-group-ID directory), a subtree extracted into one, and a
# default ACL on the target (the umask no longer applies). The tree (a
# tar made here) has modes 0000 to 07777, owners other than root's, an
# empty file (made late), a read-only and a set-group-ID directory,
# directories made with their final mode where the umask keeps it (one
# of another owner, one 0777 that umask 022 does not keep), a
# symlink and a fifo, in an EROFS and a SquashFS image. Owners are
# checked when run as root (else img2dir does not restore them).
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
[ -x "$IMG2DIR" ] || skip "img2dir not built"

T=$(fast_dir)
$PYTHON3 - "$T/in.tar" << 'PY' || exit 99
import io, sys, tarfile
def add(tf, name, kind, mode, uid=0, gid=0, data=b"", target=""):
    ti = tarfile.TarInfo(name)
    ti.type, ti.mode, ti.uid, ti.gid = kind, mode, uid, gid
    ti.mtime, ti.linkname, ti.size = 1600000000, target, len(data)
    tf.addfile(ti, io.BytesIO(data) if data else None)
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT) as tf:
    D, R, L, F = tarfile.DIRTYPE, tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.FIFOTYPE
    add(tf, "d", D, 0o755)
    for name, mode, uid, gid in (("plain", 0o644, 0, 0), ("ro", 0o444, 0, 0),
                                 ("rw", 0o666, 0, 0), ("all", 0o777, 0, 0),
                                 ("none", 0o000, 0, 0), ("suid", 0o4755, 0, 0),
                                 ("sgid", 0o2711, 0, 0), ("sticky", 0o1644, 0, 0),
                                 ("every", 0o7777, 0, 0), ("other", 0o640, 1, 2),
                                 ("grp", 0o664, 0, 7), ("usr", 0o600, 3, 0)):
        add(tf, "d/" + name, R, mode, uid, gid, name.encode() * 300)
    add(tf, "d/big", R, 0o644, 0, 0, bytes(range(256)) * 1000)
    add(tf, "d/empty", R, 0o640, 0, 0)
    add(tf, "d/empty_other", R, 0o604, 5, 6)
    add(tf, "d/ln", L, 0o777, 3, 4, target="plain")
    add(tf, "d/ln0", L, 0o777, 0, 0, target="none")
    add(tf, "d/fifo", F, 0o620, 0, 0)
    add(tf, "ro", D, 0o555)
    add(tf, "ro/f", R, 0o644, 0, 0, b"x")
    add(tf, "sg", D, 0o2775, 0, 5)
    add(tf, "sg/f", R, 0o644, 0, 0, b"y" * 5000)
    add(tf, "sg/sub", D, 0o700, 2, 0)
    add(tf, "sg/sub/f", R, 0o444, 0, 0, b"z")
    add(tf, "open", D, 0o777)
    add(tf, "open/f", R, 0o644, 0, 0, b"o")
    add(tf, "own", D, 0o751, 3, 4)
    add(tf, "own/f", R, 0o644, 3, 4, b"w")
PY
if [ "$(id -u)" = 0 ]; then root=yes; else root=no; note "not root: owners not checked"; fi

# matches TAR DIR [SUB]: every entry of TAR (under SUB) is in DIR with
# its mode, mtime and (root) owner.
matches() {
	$PYTHON3 - "$1" "$2" "${3:-}" "$root" << 'PY'
import os, stat, sys, tarfile
tarpath, top, sub, root = sys.argv[1:]
bad = 0
for ti in tarfile.open(tarpath):
    if sub and ti.name != sub and not ti.name.startswith(sub + "/"):
        continue
    try:
        st = os.lstat(os.path.join(top, ti.name))
    except OSError as e:
        print("%s: %s" % (ti.name, e)); bad += 1; continue
    want = (ti.mode if not ti.issym() else 0o777, ti.mtime)
    got = (stat.S_IMODE(st.st_mode), int(st.st_mtime))
    if root == "yes":
        want, got = want + (ti.uid, ti.gid), got + (st.st_uid, st.st_gid)
    if want != got:
        print("%s: want %s, got %s" % (ti.name, want, got)); bad += 1
sys.exit(bad != 0)
PY
}
# extract WHAT IMAGE DIR [SUB]: img2dir IMAGE into DIR (existing) under
# the current umask, and the tree checked.
extract() {
	if ! "$IMG2DIR" -j 2 "$2" "$3" ${4:+"$4"} > "$T/err" 2>&1; then
		fail "$1: img2dir: $(head -c 300 "$T/err")"; return
	fi
	if matches "$T/in.tar" "$3" "${4:-}" > "$T/diff" 2>&1; then
		pass "$1"
	else
		fail "$1"; head -c 1500 "$T/diff"
	fi
}
# sgid_dir DIR: DIR set-group-ID, with a group no entry of the tree has.
sgid_dir() {
	mkdir -p "$1" && chgrp 9 "$1" && chmod 2775 "$1"
}
# A default ACL giving new entries u::rwx g::--- o::--- (setfacl -d -m
# u::rwx,g::-,o::- where acl's tools are installed).
acl_dir() {
	mkdir -p "$1" && $PYTHON3 - "$1" << 'PY'
import os, struct, sys
e = lambda tag, perm: struct.pack("<HHI", tag, perm, 0xffffffff)
os.setxattr(sys.argv[1], "system.posix_acl_default",
            struct.pack("<I", 2) + e(1, 7) + e(4, 0) + e(32, 0))
PY
}

run "tar2img erofs" "$TAR2IMG" -q -f --format erofs -c lz4 "$T/e.img" "$T/in.tar" || finish
run "tar2img squashfs" "$TAR2IMG" -q -f -c gzip "$T/s.img" "$T/in.tar" || finish
for fmt in e s; do
	img=$T/$fmt.img
	for m in 022 077 000; do
		rm -rf "$T/x" && mkdir "$T/x" || exit 99
		umask $m
		extract "$fmt: umask $m" "$img" "$T/x"
		umask 022
	done
	rm -rf "$T/x"
	if acl_dir "$T/x" 2> /dev/null; then
		extract "$fmt: into a default ACL" "$img" "$T/x"
	else
		skipc "$fmt: no default ACL here"
	fi
	if [ $root = no ]; then
		skipc "$fmt: set-group-ID targets: not root"; continue
	fi
	rm -rf "$T/x"
	sgid_dir "$T/x" || exit 99
	extract "$fmt: into a set-group-ID directory" "$img" "$T/x"
	rm -rf "$T/x"
	mkdir "$T/x" && sgid_dir "$T/x/d" || exit 99
	extract "$fmt: merged into a set-group-ID directory" "$img" "$T/x"
	rm -rf "$T/x"
	sgid_dir "$T/x" || exit 99
	extract "$fmt: a subtree into a set-group-ID directory" "$img" "$T/x" d
done
finish
