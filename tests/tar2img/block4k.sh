#!/bin/sh
# SPDX-License-Identifier: MIT
# block4k.sh - blocksizes.sh for the smallest block size, 4K, on its own
# (metadata blocks, 8 KiB, are then larger than data blocks: the codec
# must take both).
BLOCK_SIZES=4K
export BLOCK_SIZES
exec sh "$top_srcdir/tests/tar2img/blocksizes.sh"
