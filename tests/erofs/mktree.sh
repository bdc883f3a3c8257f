# SPDX-License-Identifier: MIT
# mktree.sh - sourced by the EROFS tests: erofs_tree DIR makes the tree
# the images are built from: files of every size class around the block
# size (empty, inline tails, exactly a block, many blocks), a sparse file
# with a hole of whole chunks, hard links, symlinks short and long,
# devices, a fifo, a socket, xattrs inline and shared (one key and value
# on two inodes, which mkfs.erofs shares), and a directory of 300 names,
# more than one directory block. Devices and trusted.* need root: without
# it they are left out. Times are whole seconds: an EROFS image keeps
# nanoseconds and SquashFS does not, and the tests compare the two.
erofs_tree() {
	mkdir -p "$1/d/sub" "$1/e" &&
	echo hello > "$1/a.txt" &&
	: > "$1/empty" &&
	head -c 10000 /dev/urandom > "$1/d/r10k" &&
	head -c 4096 /dev/urandom > "$1/d/exact4k" &&
	head -c 300000 /dev/urandom > "$1/big" &&
	truncate -s 5M "$1/sparse" &&
	seq 1 150000 > "$1/d/seq" &&
	$PYTHON3 -c 'import os, sys
with open(sys.argv[1], "wb") as f:
    for i in range(12):
        f.write(os.urandom(5000 + i * 333))
        f.write(b"".join(b"line %d of a text\n" % j for j in range(1500 + i)))' "$1/mixed" &&
	printf abc | dd of="$1/sparse" bs=1 seek=2097152 conv=notrunc 2>/dev/null &&
	ln "$1/a.txt" "$1/d/hl" &&
	ln -s ../a.txt "$1/d/sym" &&
	ln -s "$(printf '%0300d' 0)" "$1/longsym" &&
	mkfifo "$1/fifo" &&
	$PYTHON3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$1/sock" &&
	for i in $(seq 1 300); do echo "$i" > "$1/d/sub/file_with_a_long_name_$i" || return 1; done &&
	touch -d @1600000000 "$1/a.txt" &&
	$PYTHON3 -c 'import os, sys
r = sys.argv[1]
os.setxattr(r + "/a.txt", "user.foo", b"bar")
os.setxattr(r + "/d/r10k", "user.shared", b"same")
os.setxattr(r + "/big", "user.shared", b"same")
os.setxattr(r + "/big", "user.bin", bytes(range(256)) * 4)' "$1" || return 1
	if [ "$(id -u)" = 0 ]; then
		mknod "$1/cdev" c 1 7 && mknod "$1/bdev" b 8 300 &&
		setfattr -n trusted.t -v 123 "$1/e" && chown 1234:567 "$1/big" || return 1
	fi
	find "$1" ! -name a.txt -exec touch -h -d @1700000000 {} +
}

# whole_seconds DIR: every time below DIR (DIR too, symlinks themselves)
# cut to its whole second. For trees a test adds to after erofs_tree and
# then reads back from both formats: EROFS keeps the nanoseconds and
# SquashFS does not, so img2tar of the two would differ by design.
whole_seconds() {
	$PYTHON3 -c 'import os, sys
G = 10 ** 9
def cut(p):
    st = os.lstat(p)
    os.utime(p, ns=(st.st_atime_ns // G * G, st.st_mtime_ns // G * G),
             follow_symlinks=False)
for top, dirs, files in os.walk(sys.argv[1], topdown=False):
    for n in files + dirs:
        cut(os.path.join(top, n))
cut(sys.argv[1])' "$1"
}
