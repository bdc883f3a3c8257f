#!/bin/sh
# SPDX-License-Identifier: MIT
# hardlinks.sh - tar2img --whiteouts=oci of layers where a lower layer's
# hard link names a file an upper layer hides (replaced, deleted by a
# whiteout, made a directory; two of three names replaced; chains across
# three layers: mklayers.py hardlinks), and a sparse one (GNU tar's pax
# sparse file and its link, the file replaced above): the link keeps the
# lower file's data and attributes, as applying the layers gives
# (apply.py, Python's tarfile, no code shared with sqpack). The layers as
# plain files (the hidden data read again where it lies), the lowest
# gzip-compressed or on a pipe (kept as it streams by): the same image
# each way, in SquashFS and EROFS, judged by unsquashfs, fsck.erofs and
# the kernel; holes stay holes. (That a plain layer's hidden file no link
# names is still not read, merge.sh checks.)
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" tar gzip
[ "$(id -u)" = 0 ] || skip "needs root (the reference tree's owners)"
umask 022
export SOURCE_DATE_EPOCH=1700000000

T=$SCRATCH
L="$T/l1.tar $T/l2.tar $T/l3.tar"
run "make the layers" $PYTHON3 "$top_srcdir/tests/layers/mklayers.py" "$T" hardlinks || finish
# The sparse shape: GNU tar's pax sparse file with a hard link to it
# below (l0.tar), the file replaced in l1.tar's place above (l4.tar).
mkdir -p "$T/s0/sp" "$T/s4/sp"
$PYTHON3 -c 'import sys
with open(sys.argv[1], "wb") as f:
    for off in (0, 1 << 20, 3 << 20):
        f.seek(off); f.write(b"island %d\n" % off * 400)
    f.truncate(5 << 20)' "$T/s0/sp/a" && ln "$T/s0/sp/a" "$T/s0/sp/b" &&
echo new > "$T/s4/sp/a" && touch -d @1600000000 "$T"/s0/sp/* "$T/s4/sp/a" &&
tar -C "$T/s0" --format=posix --sparse --numeric-owner -cf "$T/l0.tar" sp &&
tar -C "$T/s4" --format=posix --numeric-owner -cf "$T/l4.tar" sp ||
	fail "make the sparse layers"
L="$T/l0.tar $L $T/l4.tar"
# shellcheck disable=SC2086
run "apply the layers (reference)" $PYTHON3 "$top_srcdir/tests/layers/apply.py" "$T/ref" $L ||
	finish

# shellcheck disable=SC2086
run "tar2img of the layers" "$TAR2IMG" -q -b 4K -c gzip --whiteouts=oci "$T/img" $L
if unsquashfs_ref "links to hidden files" ours gzip "$T/img" "$T/out"; then
	same_tree "links to hidden files keep the lower data (unsquashfs)" "$T/out" "$T/ref"
fi
judge_same_tree "links to hidden files" kernel gzip "$T/img" "$T/ref"
"$SQP_BIN/imginfo" stat "$T/img" /sp/b > "$T/sp.stat" 2>&1
check "the link's sparse file keeps its holes ($(grep '^sparse:' "$T/sp.stat"))" \
	grep -qx 'sparse: 5222400' "$T/sp.stat"

# The lowest layers compressed, or on a pipe: their hidden files are
# kept as they stream by, and give the same image.
gzip -c "$T/l0.tar" > "$T/l0.tar.gz" && gzip -c "$T/l1.tar" > "$T/l1.tar.gz" ||
	fail "gzip the layers"
run "gzip layers" "$TAR2IMG" -q -b 4K -c gzip --whiteouts=oci "$T/img.gz" "$T/l0.tar.gz" \
	"$T/l1.tar.gz" "$T/l2.tar" "$T/l3.tar" "$T/l4.tar" &&
	check "gzip layers: the same image" cmp -s "$T/img" "$T/img.gz"
cat "$T/l1.tar" | "$TAR2IMG" -q -b 4K -c gzip -j 1 --whiteouts=oci "$T/img.pipe" \
	"$T/l0.tar" - "$T/l2.tar" "$T/l3.tar" "$T/l4.tar" || fail "a layer on a pipe"
check "a layer on a pipe, -j 1: the same image" cmp -s "$T/img" "$T/img.pipe"
cat "$T/l0.tar" | "$TAR2IMG" -q -b 4K -c gzip --whiteouts=oci "$T/img.pipe0" \
	- "$T/l1.tar" "$T/l2.tar" "$T/l3.tar" "$T/l4.tar" || fail "the sparse layer on a pipe"
check "the sparse layer on a pipe: the same image" cmp -s "$T/img" "$T/img.pipe0"

# shellcheck disable=SC2086
if run "tar2img --format erofs" "$TAR2IMG" -q --format erofs --whiteouts=oci "$T/ero" $L; then
	# fsck.erofs 1.5 extracts hard links as copies, and no xattrs
	judge_same_tree "links to hidden files (erofs)" fsck.erofs erofs "$T/ero" "$T/ref" \
		--no-hardlinks --no-xattrs
	judge_same_tree "links to hidden files (erofs)" kernel erofs "$T/ero" "$T/ref"
fi
gzip -c "$T/l3.tar" > "$T/l3.tar.gz" &&
cat "$T/l1.tar.gz" | "$TAR2IMG" -q --format erofs --whiteouts=oci "$T/ero.pipe" \
	"$T/l0.tar" - "$T/l2.tar" "$T/l3.tar.gz" "$T/l4.tar" || fail "erofs: a gzip layer on a pipe"
check "erofs: a gzip layer on a pipe gives the same image" cmp -s "$T/ero" "$T/ero.pipe"
finish
