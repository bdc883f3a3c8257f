#!/bin/sh
# SPDX-License-Identifier: MIT
# spill.sh - --verity's digests go through the memory budget: with
# --mem 1M and 512-byte verity blocks the digests of an 8 MB image
# (500 KiB) do not fit the arena's heap share, so they live in the spill
# file and the tree is built and written from there. The image and its
# tree must be the bytes a build without a budget writes, and
# `veritysetup verify` must accept them, appended and in a file of its
# own. Without the spill (a summary with no "spilled" line) the test
# proves nothing and fails.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
need_tool veritysetup
T=$SCRATCH
mkdir -p "$T/src" && head -c 8000000 /dev/urandom > "$T/src/random" &&
	printf 'tail\n' > "$T/src/small" &&
	tar -C "$T/src" --mtime=@1700000000 -cf "$T/src.tar" . || exit 99

for where in appended separate; do
	hash=
	[ "$where" = separate ] && hash="=$T/spill.hash"
	run "$where: tar2img --verity, no budget" "$TAR2IMG" -f --verity-block-size 512 \
		--verity${hash:+=$T/free.hash} "$T/free.img" "$T/src.tar" > "$T/free.sum" &&
	run "$where: tar2img --verity --mem 1M" "$TAR2IMG" -f --verity-block-size 512 \
		--mem 1M --verity$hash "$T/spill.img" "$T/src.tar" > "$T/sum" || continue
	check "$where: the digests spilled (the summary says so)" \
		grep -q '^  memory: .* spilled' "$T/sum"
	vfields "$T/sum" || { fail "$where: no verity line"; cat "$T/sum"; continue; }
	check "$where: the same image and tree as without a budget" cmp "$T/free.img" "$T/spill.img"
	if [ "$where" = separate ]; then
		check "$where: the same separate tree" cmp "$T/free.hash" "$T/spill.hash"
		check "$where: veritysetup verify accepts the spilled tree" \
			"$VERITYSETUP" verify "$T/spill.img" "$T/spill.hash" "$ROOT"
	else
		check "$where: veritysetup verify accepts the spilled tree" \
			"$VERITYSETUP" verify "$T/spill.img" "$T/spill.img" "$ROOT" \
			--hash-offset="$HOFF"
	fi
done
finish
