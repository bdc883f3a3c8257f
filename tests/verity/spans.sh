#!/bin/sh
# SPDX-License-Identifier: MIT
# spans.sh - the data blocks' verity blocks are hashed on the pool's
# workers, from spans the orchestrator fills (lib/write/verity.c): each
# job's whole blocks, a block its bytes complete from the carry, and the
# digest chunks their slots lie in. The shapes that exercise each part:
# 4 KiB SquashFS blocks of mixed data (jobs smaller than a 64 KiB verity
# block, so many spans hold only a carry block or nothing), 1 MiB blocks
# of random data with 512-byte verity blocks (a job of 2048 blocks whose
# slots cross from one 2048-digest chunk into the next), and 4 KiB verity
# blocks between them. For each, at -j 1, 2 and 3: `veritysetup verify`
# accepts the root hash, and every -j gives the image, tree and root hash
# of -j 1.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
need_tool veritysetup
T=$SCRATCH
mksrc "$T" || exit 99
head -c 5000000 /dev/urandom > "$T/src/d/big" &&
	touch -d @1700000000 "$T/src/d/big" &&
	tar -C "$T/src" --sort=name --mtime=@1700000000 --owner=0 --group=0 \
		-cf "$T/src.tar" . || exit 99

for shape in "4K 65536" "1M 512" "128K 4096"; do
	bsize=${shape% *} vbs=${shape#* }
	for j in 1 2 3; do
		what="-b $bsize --verity-block-size $vbs -j $j"
		run "$what: tar2img" "$TAR2IMG" -f -c gzip -b "$bsize" -j "$j" \
			--verity-block-size "$vbs" --verity "$T/j$j.img" "$T/src.tar" \
			> "$T/sum" || continue
		vfields "$T/sum" || { fail "$what: no verity line"; cat "$T/sum"; continue; }
		check "$what: veritysetup verify accepts the root hash" \
			"$VERITYSETUP" verify "$T/j$j.img" "$T/j$j.img" "$ROOT" \
			--hash-offset="$HOFF" --data-block-size="$vbs" --hash-block-size="$vbs"
		[ "$j" = 1 ] && { root1=$ROOT; continue; }
		check "$what: the root hash of -j 1" test "$ROOT" = "$root1"
		check "$what: the image and tree of -j 1" cmp -s "$T/j1.img" "$T/j$j.img"
	done
done
finish
