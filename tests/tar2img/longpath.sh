#!/bin/sh
# SPDX-License-Identifier: MIT
# longpath.sh - paths longer than PATH_MAX (a 70-level chain, ~4.4 KB;
# mklong.py). Extractors cannot create them, so the judges are the ones
# that read in place: for each codec the kernel-mounted tree and the
# squashfuse tree must equal the tree the generator describes, and the
# names listed by unsquashfs -ls and in sqfs2tar's output must be the
# tar's own.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" bsdtar
[ "$(id -u)" = 0 ] || skip "needs root (owners in the expected tree, mounts)"

T=$SCRATCH
$PYTHON3 "$top_srcdir/tests/tar2img/mklong.py" "$T/in.tar" "$T/ref" || exit 99
bsdtar -tf "$T/in.tar" | sed 's,/$,,' | sort > "$T/names" || exit 99

for codec in $ALL_CODECS; do
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	img=$T/$codec.img
	if ! "$TAR2IMG" -q -c "$codec" "$img" "$T/in.tar" 2> "$T/err"; then
		fail "$codec: tar2img: $(head -c 300 "$T/err")"; continue
	fi
	if judge_ok "$codec: unsquashfs" unsquashfs "$codec"; then
		unsquashfs -ls "$img" 2>/dev/null | sed -n 's,^squashfs-root/,,p' | sort > "$T/u.names"
		check "$codec: unsquashfs -ls names the tar's paths" cmp -s "$T/names" "$T/u.names"
	fi
	if judge_ok "$codec: sqfs2tar" sqfs2tar "$codec"; then
		sqfs2tar "$img" 2>/dev/null | bsdtar -tf - | sed 's,/$,,' | sort > "$T/s.names"
		check "$codec: sqfs2tar writes the tar's paths" cmp -s "$T/names" "$T/s.names"
	fi
	# FUSE without use_ino hides hard links
	judge_same_tree "$codec" squashfuse "$codec" "$img" "$T/ref" --no-hardlinks
	judge_same_tree "$codec" kernel "$codec" "$img" "$T/ref"
	rm -f "$img"
done
finish
