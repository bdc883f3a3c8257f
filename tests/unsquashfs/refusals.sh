#!/bin/sh
# SPDX-License-Identifier: MIT
# refusals.sh - what the system refuses during an extraction, sorted as
# unsquashfs 4.5.1 sorts it (fatal, non-fatal, not counted as created),
# as root, by both extracting the same image into the same relative
# DEST (so -i lines name the same paths):
# - a user.* xattr on a symlink and on a fifo, which Linux refuses
#   (EPERM): fatal unless -ignore-errors, and then neither is counted;
# - a file system without xattrs (ramfs, ENOTSUP): one warning, no
#   xattr tried after it, exit 2, everything counted;
# - a file that does not fit (a 1 MiB tmpfs): fatal, or with
#   -ignore-errors removed and still counted, exit 2;
# - entries already in DEST without -f: a directory is fatal (with
#   -ignore-errors skipped with what it holds), whether it is extracted
#   or on the way to the PATHs given, a regular file written over, a
#   hard link's name fatal, a symlink or fifo non-fatal - a fifo even
#   with -strict-errors.
# Each case: the same exit status and stdout, and unless fatal (1) the
# same tree.
COMMON_NEEDS_TAR2IMG=yes
. "$top_srcdir/tests/lib/common.sh"
need_tool unsquashfs
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
unsquashfs -v 2>&1 | grep -q 'unsquashfs version 4\.5\.1' ||
	skip "the judge is not unsquashfs 4.5.1: $(unsquashfs -v 2>&1 | head -n 1)"
[ "$(id -u)" = 0 ] || skip "not root: cannot mount the small file systems"

T=$SCRATCH
umask 022
# mktar OUT SPEC...: a pax tar of SPEC entries "path:type[:xattr]" (type
# d, f, F (1.5 MiB), l (-> f), h (hard link to f), p); a user.x xattr on
# the entry when the third field is x.
mktar() {
	$PYTHON3 - "$@" <<'EOF' || exit 99
import io, random, sys, tarfile
t = tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT)
big = random.Random(451).getrandbits(8 * 1536 * 1024).to_bytes(1536 * 1024, "little")
for spec in sys.argv[2:]:
    f = spec.split(":")
    ti = tarfile.TarInfo(f[0])
    ti.mtime, ti.mode = 1000000000, 0o644
    data = {"f": b"hello\n", "F": big}.get(f[1], b"")
    ti.type = {"d": tarfile.DIRTYPE, "f": tarfile.REGTYPE, "F": tarfile.REGTYPE,
               "l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE,
               "p": tarfile.FIFOTYPE}[f[1]]
    if f[1] == "d":
        ti.mode = 0o755
    ti.linkname = {"l": "f", "h": "f"}.get(f[1], "")
    ti.size = len(data)
    if len(f) > 2:
        ti.pax_headers = {"SCHILY.xattr.user.x": "1"}
    t.addfile(ti, io.BytesIO(data) if data else None)
t.close()
EOF
}
mkimg() {
	img=$1; shift
	mktar "$T/$img.tar" "$@"
	"$TAR2IMG" -q "$T/$img.img" "$T/$img.tar" > /dev/null || exit 99
}
mkimg xattrs a:d a/f:f:x a/l:l:x a/p:p:x a/z:f
mkimg filex a:d a/f:f:x a/z:f:x b:d b/y:f:x
mkimg big a:d a/F:F a/small:f b:d b/after:f
mkimg top a:d a/in:f f:f h:h l:l p:p z:f zd:d zd/in:f

# fresh WHO: $T/WHO, empty (a mount there undone first).
fresh() {
	! mountpoint -q "$T/$1" || umount "$T/$1" || exit 99
	rm -rf "$T/$1" && mkdir "$T/$1" || exit 99
}
plain() { fresh "$1"; }
ramfs() { fresh "$1" && mount -t ramfs ramfs "$T/$1" || exit 99; }
small() { fresh "$1" && mount -t tmpfs -o size=1m tmpfs "$T/$1" || exit 99; }
# obstacles in DEST (dated, as what an extraction leaves is compared):
# a directory a, a shorter file f, an entry where the hard link h goes,
# a symlink l and a fifo p
in_dest() {
	fresh "$1" && mkdir "$T/$1/d" || exit 99
	case $2 in
	dir) mkdir "$T/$1/d/a" ;;
	zdir) mkdir "$T/$1/d/zd" ;;
	file) echo x > "$T/$1/d/f" ;;
	link) echo x > "$T/$1/d/h" ;;
	sym) ln -s nowhere "$T/$1/d/l" ;;
	fifo) mkfifo "$T/$1/d/p" ;;
	esac && touch -h -d @0 "$T/$1"/d/* || exit 99
}
o_dir() { in_dest "$1" dir; }
o_zdir() { in_dest "$1" zdir; }
o_file() { in_dest "$1" file; }
o_link() { in_dest "$1" link; }
o_sym() { in_dest "$1" sym; }
o_fifo() { in_dest "$1" fifo; }

# same DESCRIPTION PREP IMAGE ARGS...: PREP ref and PREP our make the
# places both extract IMAGE in (-d d ARGS IMAGE $PATHS, from there);
# same exit status and stdout, and with one other than 1 the same tree
# (compared with the options in $TREEOPTS).
TREEOPTS= PATHS=
same() {
	desc=$1 prep=$2 img=$T/$3.img; shift 3
	$prep ref
	(cd "$T/ref" && exec unsquashfs -d d "$@" "$img" $PATHS) > "$T/ref.out" 2> "$T/ref.err"; r1=$?
	$prep our
	(cd "$T/our" && exec "$UNSQ" -d d "$@" "$img" $PATHS) > "$T/our.out" 2> "$T/our.err"; r2=$?
	if [ $r1 -ne $r2 ]; then
		fail "$desc: exit $r2, unsquashfs $r1: $(head -c 300 "$T/our.err")"
	elif ! cmp -s "$T/ref.out" "$T/our.out"; then
		fail "$desc: stdout differs (< unsquashfs, > ours)"
		diff "$T/ref.out" "$T/our.out" | head -n 8
	else
		pass "$desc: exit $r2 and stdout as unsquashfs"
		[ $r2 -eq 1 ] || same_tree "$desc: the tree unsquashfs makes" \
			"$T/our/d" "$T/ref/d" $TREEOPTS
	fi
}

# 1. user.* on a symlink and a fifo: EPERM
same "user.* xattrs refused: fatal" plain xattrs -n
same "user.* xattrs refused, -strict-errors" plain xattrs -n -st
same "user.* xattrs refused, -ignore-errors" plain xattrs -n -ig
same "user.* xattrs refused, -ignore-errors -user-xattrs" plain xattrs -n -ig -user-xattrs
same "user.* xattrs refused, -ignore-errors -i" plain xattrs -n -ig -i
same "user.* xattrs refused, -ignore-errors -no-exit-code" plain xattrs -n -ig -no-exit-code
same "user.* xattrs not asked for" plain xattrs -n -no-xattrs

# 2. no xattrs at all: one warning, the rest not tried
if mkdir "$T/probe" && mount -t ramfs ramfs "$T/probe" 2> /dev/null; then
	umount "$T/probe"
	TREEOPTS=--no-xattrs
	same "a file system without xattrs" ramfs filex -n
	# three files hold an xattr: 4.5.1 tries the first only
	n=$(grep -c "user\.x" "$T/our.err")
	check "a file system without xattrs: one warning (ours: $n)" [ "$n" = 1 ]
	same "a file system without xattrs, -strict-errors" ramfs filex -n -st
	TREEOPTS=
else
	skipc "a file system without xattrs: cannot mount a ramfs here"
fi

# 3. a file that does not fit
if mount -t tmpfs -o size=1m tmpfs "$T/probe" 2> /dev/null; then
	umount "$T/probe"
	same "no space left: fatal" small big -n
	same "no space left, -ignore-errors: the file removed" small big -n -ig
	same "no space left, -ignore-errors -i" small big -n -ig -i
else
	skipc "a file that does not fit: cannot mount a tmpfs here"
fi
fresh ref && fresh our

# 4. already in DEST, without -f
same "a directory in the way: fatal" o_dir top -n
same "a directory in the way, -ignore-errors" o_dir top -n -ig
same "a directory in the way, -ignore-errors -i" o_dir top -n -ig -i
same "a shorter file in the way: written over" o_file top -n
same "an entry where a hard link goes: fatal" o_link top -n
same "a symlink in the way: non-fatal" o_sym top -n
same "a symlink in the way, -strict-errors: fatal" o_sym top -n -st
same "a fifo in the way: non-fatal" o_fifo top -n
same "a fifo in the way, -strict-errors: still non-fatal" o_fifo top -n -st
same "a directory in the way, with -f" o_dir top -n -f
# a directory on the way to the PATHs given (made by sqpack-unsquashfs,
# not img2dir), after one PATH and before another
PATHS="f zd/in"
same "a directory on the way in the way: fatal" o_zdir top -n
same "a directory on the way in the way: fatal, -i" o_zdir top -n -i
same "a directory on the way in the way, -ignore-errors" o_zdir top -n -ig
same "a directory on the way in the way, -ignore-errors -i" o_zdir top -n -ig -i
same "a directory on the way in the way, with -f" o_zdir top -n -f
finish
