#!/bin/sh
# SPDX-License-Identifier: MIT
# treecmp.sh - the judge of every tree comparison must itself fail when it
# should: a copy of a tree holding every file type compares equal, and each
# single change to the copy (content, size, type, permission bits, owner,
# mtime, symlink target, device number, an xattr, a hard link broken, an
# entry added or removed, a path beyond PATH_MAX) is reported by name with
# exit 1, unless the matching option says to ignore it. Bad usage exits 2.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" cp setfattr
[ "$(id -u)" = 0 ] || skip "needs root (device nodes, owners, trusted.* xattrs)"

T=$SCRATCH
a=$T/a
mkdir -p "$a/d/sub" "$a/e"
printf 'hello\n' > "$a/d/f"
printf 'other\n' > "$a/e/g"
ln "$a/d/f" "$a/e/hard"
ln -s f "$a/d/sym"
mkfifo "$a/d/fifo"
mknod "$a/d/chr" c 300 70000
mknod "$a/d/blk" b 8 1
setfattr -n user.k -v v1 "$a/d/f"
setfattr -n trusted.t -v tv "$a/e/g"
$PYTHON3 - "$a" <<'PY' || exit 99
# 70 levels of 62-byte names: a path of about 4400 bytes.
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(70):
    name = "%02d" % i * 31
    os.mkdir(name, dir_fd=fd)
    nfd = os.open(name, os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = nfd
with open(os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
    f.write("deep\n")
PY
touch -h -d @1000000000 "$a"/d/* "$a"/e/*

# settle ROOT: every directory (and the deep leaf) gets mtime 1000000000,
# so that a change shows only where the case under test made it.
settle() {
	$PYTHON3 - "$1" <<'PY'
import os, stat, sys
def walk(fd):
    for name in os.listdir(fd):
        st = os.lstat(name, dir_fd=fd)
        if stat.S_ISDIR(st.st_mode):
            sub = os.open(name, os.O_RDONLY, dir_fd=fd)
            walk(sub)
            os.close(sub)
            os.utime(name, (1000000000, 1000000000), dir_fd=fd)
        elif name == "leaf":
            os.utime(name, (1000000000, 1000000000), dir_fd=fd)
root = os.open(sys.argv[1], os.O_RDONLY)
walk(root)
os.utime(root, (1000000000, 1000000000))
PY
}
settle "$a"

# fresh: $T/b becomes a copy of $a. cp -a cannot create paths past
# PATH_MAX; the deep chain is copied by descriptors.
fresh() {
	rm -rf "$T/b"
	cp -a "$a" "$T/b" 2>/dev/null
	$PYTHON3 - "$a" "$T/b" <<'PY'
import os, sys
src = os.open(sys.argv[1], os.O_RDONLY)
dst = os.open(sys.argv[2], os.O_RDONLY)
for i in range(70):
    name = "%02d" % i * 31
    try:
        os.mkdir(name, dir_fd=dst)
    except FileExistsError:
        pass
    s2 = os.open(name, os.O_RDONLY, dir_fd=src)
    d2 = os.open(name, os.O_RDONLY, dir_fd=dst)
    os.close(src); os.close(dst)
    src, dst = s2, d2
with open(os.open("leaf", os.O_RDONLY, dir_fd=src), "rb") as f:
    data = f.read()
with open(os.open("leaf", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644,
                 dir_fd=dst), "wb") as f:
    f.write(data)
PY
	settle "$T/b"
}

# expect STATUS KEYWORD DESCRIPTION [treecmp options]: compare a and b.
expect() {
	want=$1 kw=$2 desc=$3; shift 3
	$TREECMP "$@" "$a" "$T/b" > "$T/out" 2>&1; rc=$?
	if [ $rc -eq "$want" ] && { [ -z "$kw" ] || grep -qF -- "$kw" "$T/out"; }; then
		pass "$desc"
	else
		fail "$desc: exit $rc (want $want): $(head -c 300 "$T/out")"
	fi
}

fresh
expect 0 "" "an exact copy (deep path included) is equal"
fresh; printf 'hellO\n' > "$T/b/d/f"; touch -d @1000000000 "$T/b/d/f"
expect 1 "d/f: content:" "same size, same mtime, one byte changed"
expect 1 "e/hard: content:" "the change shows on the hard link too"
fresh; printf 'x' >> "$T/b/e/g"; touch -d @1000000000 "$T/b/e/g"
expect 1 "e/g: size:" "a file grew"
fresh; chmod u+s "$T/b/d/f"
expect 1 "d/f: perm: 0644 vs 4644" "suid bit"
fresh; chmod +t "$T/b/d/sub"
expect 1 "d/sub: perm:" "sticky bit on a directory"
fresh; chown 70000:5 "$T/b/d/f"
expect 1 "d/f: owner: 0:0 vs 70000:5" "owner above 65535"
fresh; touch -h -d @1000000001 "$T/b/d/sym"
expect 1 "d/sym: mtime:" "symlink mtime (lstat)"
fresh; touch -d @5 "$T/b/d/sub"
expect 1 "d/sub: mtime:" "directory mtime"
expect 0 "" "--ignore-dir-mtime ignores it" --ignore-dir-mtime
fresh; ln -sfn g "$T/b/d/sym"; touch -h -d @1000000000 "$T/b/d/sym"; settle "$T/b"
expect 1 "d/sym: target: f vs g" "symlink target"
expect 0 "" "--skip-symlink-targets ignores it" --skip-symlink-targets
fresh; rm "$T/b/d/chr"; mknod "$T/b/d/chr" c 300 70001; touch -d @1000000000 "$T/b/d/chr"; settle "$T/b"
expect 1 "d/chr: rdev: 300,70000 vs 300,70001" "device minor number"
fresh; rm "$T/b/d/fifo"; printf '' > "$T/b/d/fifo"; touch -d @1000000000 "$T/b/d/fifo"; settle "$T/b"
expect 1 "d/fifo: type: fifo vs file" "fifo replaced by a file"
fresh; setfattr -n user.k -v v2 "$T/b/d/f"
expect 1 "d/f: xattrs:" "xattr value"
expect 0 "" "--no-xattrs ignores it" --no-xattrs
fresh; setfattr -n user.new -v "0x00ff00" "$T/b/d/sub"
expect 1 "d/sub: xattrs:" "binary xattr added to a directory"
fresh; setfattr -n security.t -v tv "$T/b/e/g"; setfattr -x trusted.t "$T/b/e/g"
expect 1 "e/g: xattrs:" "trusted. became security."
expect 0 "" "--swap-xattr-prefixes reads it back" --swap-xattr-prefixes
fresh; cp -a "$T/b/e/hard" "$T/b/e/h2"; mv "$T/b/e/h2" "$T/b/e/hard"; settle "$T/b"
expect 1 "e/hard: hardlinks:" "a hard link broken into a copy"
expect 0 "" "--no-hardlinks ignores it" --no-hardlinks
fresh; printf 'n\n' > "$T/b/d/sub/new"; settle "$T/b"
expect 1 "d/sub/new: only in $T/b" "an extra file"
expect 0 "" "--exclude leaves it out" "--exclude=d/sub/new"
fresh; rm -r "$T/b/e"; settle "$T/b"
expect 1 "e: only in $a" "a missing directory"
check "a missing subtree is one line" test "$(wc -l < "$T/out")" -le 3
fresh
$PYTHON3 - "$T/b" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(70):
    fd = os.open("%02d" % i * 31, os.O_RDONLY, dir_fd=fd)
with open(os.open("leaf", os.O_WRONLY | os.O_TRUNC, dir_fd=fd), "w") as f:
    f.write("DEEP\n")
PY
settle "$T/b"
expect 1 "/leaf: content:" "a change beyond PATH_MAX"
check "long paths are shortened in the report" test "$(wc -c < "$T/out")" -lt 400
fresh
expect 0 "" "--ignore=mtime,owner accepted" --ignore=mtime,owner
expect 2 "unknown key" "--ignore=bogus: exit 2" --ignore=bogus
expect 2 "unknown option" "unknown option: exit 2" --frobnicate
$TREECMP "$a" > /dev/null 2>&1
check "one directory only: exit 2" test $? -eq 2
finish
