#!/bin/sh
# SPDX-License-Identifier: MIT
# options.sh - every codec option (-X) and layout option still gives an
# image that reads back right: the edge-case tar (mktar.py) packed with
# each variant must extract with unsquashfs to the tree bsdtar extracts
# from the tar, and where the kernel reads a peer's image (common.sh's
# probe), its tree must match too. The options that promise something
# checkable are checked: the superblock of --exportable says so,
# --no-fragments stores no fragment, --no-pad leaves a size that is not a
# multiple of 4 KiB while the default pads, and a codec's options block is
# read back by unsquashfs -s.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" unsquashfs bsdtar
[ "$(id -u)" = 0 ] || skip "needs root: bsdtar must restore owners and devices"

T=$(fast_dir) || exit 99
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/ref"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/ref" || exit 99

# judge DESCRIPTION CODEC [OPTIONS...]: pack, then unsquashfs, and mount
# when $KERNEL is yes. Fails when the image is not written or when
# unsquashfs cannot run for CODEC here or refuses it (the checks of its
# -s go with it).
judge() {
	desc=$1 codec=$2; shift 2
	rm -f "$T/o.img"
	if ! "$TAR2IMG" -q -c "$codec" "$@" "$T/o.img" "$T/in.tar" 2> "$T/err" < /dev/null; then
		fail "$desc: tar2img: $(grep -v warning "$T/err" | head -c 300)"
		return 1
	fi
	judge_same_tree "$desc" unsquashfs "$codec" "$T/o.img" "$T/ref" || return 1
	[ "$KERNEL" = no ] || judge_same_tree "$desc" kernel "$codec" "$T/o.img" "$T/ref"
	return 0
}

# Codec options: the codec and unsquashfs are the judges here, and the
# options block must say what was asked (unsquashfs -s prints it).
KERNEL=no
while IFS='|' read -r codec opts expect; do
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	judge "$codec -X $opts" "$codec" -X "$opts" || continue
	unsquashfs -s "$T/o.img" > "$T/super" 2>&1
	check "$codec -X $opts: the options block says '$expect'" grep -qF "$expect" "$T/super"
done <<'EOF'
gzip|level=1,window=9|window-size 9
gzip|strategy=filtered,huffman_only,fixed|Strategies selected: filtered, huffman_only, fixed
lzma|level=0|Compression lzma
xz|level=0,dict-size=64K,filters=x86,arm|Filters selected: x86, arm
lzo|algorithm=lzo1x_1|algorithm lzo1x_1
lz4|hc|High Compression option
zstd|level=1|compression-level 1
EOF

# Layout options: the kernel judges too. zstd at level 1: the level is
# not what they test, and the default (15) packed the edge cases ten
# times slower.
KERNEL=yes
if judge "--exportable" zstd -X level=1 --exportable; then
	check "--exportable: the superblock says so" sh -c "unsquashfs -s '$T/o.img' 2>/dev/null | grep -q 'Filesystem is exportable'"
fi
if judge "--no-fragments" zstd -X level=1 --no-fragments; then
	check "--no-fragments: no fragments stored" sh -c "unsquashfs -s '$T/o.img' 2>/dev/null | grep -q 'Number of fragments 0\$'"
fi
judge "--no-tailends" zstd -X level=1 --no-tailends
judge "--always-fragments" zstd -X level=1 --always-fragments
# A loop device ends at the last whole 512-byte sector, so the kernel
# refuses an unpadded image (mksquashfs -nopad's too): not a judge of it.
KERNEL=no
skipc "--no-pad: kernel mount: a loop device drops the last partial sector (mksquashfs -nopad images are refused too)"
if judge "--no-pad" zstd -X level=1 --no-pad; then
	check "--no-pad: the size is not padded to 4 KiB" test $(( $(stat -c %s "$T/o.img") % 4096 )) -ne 0
fi
KERNEL=yes
if judge "default padding" zstd -X level=1; then
	check "default: the size is a multiple of 4 KiB" test $(( $(stat -c %s "$T/o.img") % 4096 )) -eq 0
fi
finish
