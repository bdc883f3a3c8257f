#!/bin/sh
# SPDX-License-Identifier: MIT
# merge.sh - tar2img OUTPUT LAYER... --whiteouts=oci gives the tree that
# applying the layers in order gives. The layers (mklayers.py) replace
# files, delete them and whole directories by whiteouts, make directories
# opaque, turn a file into a directory and back, change a directory's
# attributes, link across layers and set xattrs; the reference is our own
# small applier (apply.py: Python's tarfile, shares no code with sqpack),
# and unsquashfs extracts our image. Also: no whiteout marker is left in
# the image; the image is no larger than the merged tree's tar packed on
# its own, and no dead entry's data was read (nor, beyond what is read
# ahead, its bytes in a plain layer file); compressed layers, a layer
# on stdin and any -j give the same bytes (links to files an upper layer
# hides: hardlinks.sh). Images are gzip, the codec the judge's probe
# reads.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" tar gzip
[ "$(id -u)" = 0 ] || skip "needs root (the reference tree's owners)"
umask 022
export SOURCE_DATE_EPOCH=1700000000

T=$SCRATCH
L="$T/l1.tar $T/l2.tar $T/l3.tar"
run "make the layers" $PYTHON3 "$top_srcdir/tests/layers/mklayers.py" "$T" &&
run "apply the layers (reference)" $PYTHON3 "$top_srcdir/tests/layers/apply.py" "$T/ref" $L || finish

# shellcheck disable=SC2086
run "tar2img --whiteouts=oci of three layers" "$TAR2IMG" -q -c gzip --whiteouts=oci "$T/img" $L || finish
if unsquashfs_ref "merged layers" ours gzip "$T/img" "$T/out"; then
	check "the merged image is the applied tree (unsquashfs)" \
		$TREECMP --ignore-root-mtime "$T/ref" "$T/out"
fi

"$IMG2TAR" "$T/img" > "$T/img.tar" || fail "img2tar of the merged image"
check "no whiteout marker in the image" sh -c \
	"! tar tf '$T/img.tar' | grep -F .wh."

# The merged tree packed on its own: its tar, then tar2img.
run "tar of the applied tree" tar -C "$T/ref" --sort=name --numeric-owner --xattrs \
	--xattrs-include='user.*' -cf "$T/merged.tar" . &&
run "tar2img of the merged tree" "$TAR2IMG" -q -c gzip "$T/merged.img" "$T/merged.tar" &&
check "the image is no larger than the merged tree's" \
	test "$(stat -c %s "$T/img")" -le "$(stat -c %s "$T/merged.img")"
# The summary counts the file bytes read: the layers' must be the merged
# tree's, so nothing replaced or deleted was read, let alone stored.
# shellcheck disable=SC2086
"$TAR2IMG" --whiteouts=oci "$T/img2" $L > "$T/sum.layers" &&
"$TAR2IMG" "$T/merged2.img" "$T/merged.tar" > "$T/sum.merged" || fail "summaries"
read_bytes() { sed -n 's/.* inodes, \([0-9][0-9]*\) bytes of file data.*/\1/p' "$1"; }
nl=$(read_bytes "$T/sum.layers") nm=$(read_bytes "$T/sum.merged")
check "no byte of a dead entry was read (${nl:-?} vs ${nm:-?})" test -n "$nl" -a "$nl" = "$nm"

# Same bytes: compressed layers, one on stdin, one thread.
gzip -c "$T/l2.tar" > "$T/l2.tar.gz" &&
run "a gzip layer on stdin, -j 1" "$TAR2IMG" -q -c gzip -j 1 --whiteouts=oci "$T/img.j1" \
	"$T/l1.tar" - "$T/l3.tar" < "$T/l2.tar.gz" &&
check "the same image from a compressed layer on stdin and -j 1" cmp -s "$T/img" "$T/img.j1"

# Without --whiteouts=oci the markers are plain files.
# shellcheck disable=SC2086
run "tar2img --whiteouts=none" "$TAR2IMG" -q --whiteouts=none "$T/none.img" $L &&
"$IMG2TAR" "$T/none.img" | tar tf - > "$T/none.list" &&
check "--whiteouts=none keeps the markers as files" grep -qF 'usr/lib/.wh.libbar.so' "$T/none.list"

# The lower layer's entries under an opaque directory, right after the
# upper layer's last entry (in a subdirectory of it, the directory
# looked up last): hidden all the same.
mkdir -p "$T/edge" &&
run "make the opaque-edge layers" $PYTHON3 "$top_srcdir/tests/layers/mklayers.py" "$T/edge" opaqueedge &&
run "apply the opaque-edge layers" $PYTHON3 "$top_srcdir/tests/layers/apply.py" "$T/edge/ref" \
	"$T/edge/l1.tar" "$T/edge/l2.tar" &&
run "tar2img of the opaque-edge layers" "$TAR2IMG" -q -c gzip --whiteouts=oci "$T/edge.img" \
	"$T/edge/l1.tar" "$T/edge/l2.tar" &&
"$IMG2TAR" "$T/edge.img" | tar tf - | sed 's|^\./||; s|/$||; /^$/d' | sort > "$T/edge/list" &&
(cd "$T/edge/ref" && find . -mindepth 1 | sed 's|^\./||' | sort) > "$T/edge/want" ||
	fail "listing the opaque-edge image and tree"
check "an opaque directory hides the next lower layer's entries: $(tr '\n' ' ' < "$T/edge/list")" \
	cmp -s "$T/edge/list" "$T/edge/want"

# Dead data beyond what tar2img reads ahead is sought over in plain
# layers given as files: the bytes the run read (rchar, which counts a
# reaped child's reads in its parent's) stay 20 MiB under the layers'
# 48 MiB. A gzip layer and one on a pipe are read through: same image.
mkdir -p "$T/dead" &&
run "make the dead-data layers" $PYTHON3 "$top_srcdir/tests/layers/mklayers.py" "$T/dead" bigdead &&
run "apply the dead-data layers" $PYTHON3 "$top_srcdir/tests/layers/apply.py" "$T/dead/ref" \
	"$T/dead/l1.tar" "$T/dead/l2.tar" || finish
if [ -r /proc/self/io ]; then
	got=$(bytes_read "$TAR2IMG" -q -c gzip --whiteouts=oci "$T/dead.img" \
		"$T/dead/l1.tar" "$T/dead/l2.tar") || fail "tar2img of the dead-data layers"
	size=$(cat "$T/dead/l1.tar" "$T/dead/l2.tar" | wc -c)
	check "dead data sought over: ${got:-?} of $size bytes read" \
		test -n "$got" -a "$((size - ${got:-$size}))" -ge $((20 << 20))
else
	skipc "dead data sought over: no /proc/self/io (task I/O accounting)"
	run "tar2img of the dead-data layers" "$TAR2IMG" -q -c gzip --whiteouts=oci \
		"$T/dead.img" "$T/dead/l1.tar" "$T/dead/l2.tar"
fi
if unsquashfs_ref "dead-data layers" ours gzip "$T/dead.img" "$T/dead/out"; then
	check "the dead-data image is the applied tree (unsquashfs)" \
		$TREECMP --ignore-root-mtime "$T/dead/ref" "$T/dead/out"
fi
gzip -1 -c "$T/dead/l1.tar" > "$T/dead/l1.tar.gz" &&
run "the dead-data layers, gzip" "$TAR2IMG" -q -c gzip --whiteouts=oci "$T/dead.gz.img" \
	"$T/dead/l1.tar.gz" "$T/dead/l2.tar" &&
check "a gzip layer, read through, gives the same image" cmp -s "$T/dead.img" "$T/dead.gz.img"
cat "$T/dead/l1.tar" | "$TAR2IMG" -q -c gzip --whiteouts=oci "$T/dead.pipe.img" - "$T/dead/l2.tar" ||
	fail "the dead-data layers, one on a pipe"
check "a layer on a pipe, read through, gives the same image" cmp -s "$T/dead.img" "$T/dead.pipe.img"
# stdin redirected from a file that stands 10 KiB in: seeks start there.
{ head -c 10240 /dev/zero && cat "$T/dead/l1.tar"; } > "$T/dead/at10k" &&
{ dd of=/dev/null bs=10240 count=1 2>/dev/null &&
	"$TAR2IMG" -q -c gzip --whiteouts=oci "$T/dead.at.img" - "$T/dead/l2.tar"; } < "$T/dead/at10k" ||
	fail "the dead-data layers, stdin 10 KiB into a file"
check "stdin 10 KiB into a file gives the same image" cmp -s "$T/dead.img" "$T/dead.at.img"
finish
