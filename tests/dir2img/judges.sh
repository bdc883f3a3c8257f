#!/bin/sh
# SPDX-License-Identifier: MIT
# judges.sh - dir2img of the edge-case tree (the tar of mktar.py extracted
# by bsdtar: every type, xattrs of three namespaces, hard links, sparse
# files, devices, odd names; plus a socket, a 1 GiB sparse file and names
# that sort differently in bytes and in locales) judged by unsquashfs and
# by the kernel: both trees must equal the source. The holes of the sparse
# file must never be read (strace counts the bytes read). dir2img of the
# tree and tar2img of the tar must list the same entries; -j 1, 2 and 8
# must give the same bytes.
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG="$SQP_BIN/dir2img"
need_tool unsquashfs bsdtar "$PYTHON3"
[ "$(id -u)" = 0 ] || skip "needs root: the tree has devices, owners and trusted.* xattrs"

T=$(fast_dir) || exit 99
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/ref"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/ref" || exit 99
touch -d @1700000005 "$T/ref"

# the same entries from the tree and from the tar
"$TAR2IMG" -q "$T/tar.img" "$T/in.tar" || exit 99
if "$DIR2IMG" -q "$T/dir.img" "$T/ref" 2> "$T/err"; then
	# a tar's symlink keeps its header's mode, the disk's is always 0777
	unsquashfs -lln "$T/tar.img" 2>&1 | sed 's/^l[rwx-]\{9\}/lrwxrwxrwx/' > "$T/tar.ls"
	unsquashfs -lln "$T/dir.img" > "$T/dir.ls" 2>&1
	if cmp -s "$T/tar.ls" "$T/dir.ls"; then
		pass "dir2img of the tree lists what tar2img of its tar lists ($(wc -l < "$T/dir.ls") entries)"
	else
		fail "dir2img and tar2img listings differ"; diff "$T/tar.ls" "$T/dir.ls" | head -20
	fi
else
	fail "dir2img of the extracted tree"; cat "$T/err"
fi

# what a tar cannot hold, and what readdir order would get wrong
$PYTHON3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/ref/sock"
truncate -s 1G "$T/ref/huge-sparse"
printf 'island' | dd of="$T/ref/huge-sparse" bs=1 seek=536870912 conv=notrunc 2>/dev/null
mkdir "$T/ref/order"
for n in b B a A _ 0 é z '~' 'with space' "$(printf 'nl\nname')"; do
	echo "$n" > "$T/ref/order/$n"
done
touch -d @1700000005 "$T/ref" "$T/ref/order"

for codec in zstd gzip; do
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	img=$T/$codec.img
	if ! "$DIR2IMG" -q -c "$codec" "$img" "$T/ref" 2> "$T/err"; then
		fail "$codec: dir2img"; cat "$T/err"; continue
	fi
	[ $codec != zstd ] || judge_same_tree "$codec" unsquashfs "$codec" "$img" "$T/ref"
	judge_same_tree "$codec" kernel "$codec" "$img" "$T/ref"
done

# holes are skipped, not read as zeros: all reads together stay far below 1 GiB
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=read,pread64 -o "$T/strace" "$DIR2IMG" -qf "$T/s.img" "$T/ref" 2> "$T/err"
	bytes=$(awk '/= [0-9]+$/ { s += $NF } END { print s + 0 }' "$T/strace")
	check "holes of a 1 GiB sparse file are never read ($bytes bytes read in all)" \
		test "$bytes" -lt 268435456
else
	skipc "the hole check: strace missing"
fi

for j in 1 2 8; do
	"$DIR2IMG" -q -j $j "$T/j$j.img" "$T/ref" || fail "dir2img -j $j"
done
check "-j 1, 2 and 8 give the same bytes" sh -c "cmp '$T/j1.img' '$T/j2.img' && cmp '$T/j1.img' '$T/j8.img'"
finish
