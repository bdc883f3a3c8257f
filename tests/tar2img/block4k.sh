#!/bin/sh
# SPDX-License-Identifier: MIT
# block4k.sh - blocksizes.sh for the smallest block size, 4K, on its own:
# it is in XFAIL_TESTS while tar2img fails there ("compressing a metadata
# block: invalid argument": metadata blocks are 8 KiB, larger than the
# block size the codec state was made for).
BLOCK_SIZES=4K
export BLOCK_SIZES
exec sh "$top_srcdir/tests/tar2img/blocksizes.sh"
