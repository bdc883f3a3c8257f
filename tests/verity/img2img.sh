#!/bin/sh
# SPDX-License-Identifier: MIT
# img2img.sh - img2img --verity, like the other packers: over a base
# whose blocks are copied as they are (the same codec) and over one that
# is recoded, with a tar layer, `veritysetup verify` accepts the printed
# root hash and `veritysetup format` with the same salt prints it; the
# root hash is the same at -j 1 and -j 2; a flipped byte of a copied
# file's data makes both verifiers fail and `imginfo verity` names the
# block and the file. To EROFS (from a SquashFS and an EROFS base) the
# same verifiers and the same root hash at -j 1 and -j 2.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
need_tool veritysetup
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
T=$SCRATCH
mksrc "$T" || exit 99
mkdir -p "$T/layer/d" && seq 1 40000 > "$T/layer/d/added" &&
	tar -C "$T/layer" --mtime=@1700000000 --owner=0 --group=0 -cf "$T/layer.tar" . || exit 99
run "the base image" "$TAR2IMG" -q -c gzip "$T/base.img" "$T/src.tar" || exit 1

# verified IMG SUMMARY WHAT: both verifiers take the summary's root hash
verified() {
	vfields "$2" || { fail "$3: no verity line in the summary"; return 1; }
	check "$3: veritysetup verify accepts the root hash" \
		"$VERITYSETUP" verify "$1" "$1" "$ROOT" --hash-offset="$HOFF"
	"$VERITYSETUP" format --salt="$SALT" --data-blocks="$BLOCKS" \
		--hash-offset="$HOFF" "$1" "$T/f.hash" > "$T/f.out" 2>&1
	check "$3: veritysetup format with the salt prints the same root hash" \
		grep -q "^Root hash:[[:space:]]*$ROOT\$" "$T/f.out"
	rm -f "$T/f.hash"
	check "$3: imginfo verity accepts it" "$IMGINFO" verity "$1" "$ROOT"
}

# gzip over gzip: the base's blocks are copied; zstd: recoded
for codec in gzip zstd; do
	run "img2img -c $codec --verity" "$IMG2IMG" -c "$codec" -j 2 --verity \
		"$T/$codec.img" "$T/base.img" "$T/layer.tar" > "$T/$codec.sum" || continue
	verified "$T/$codec.img" "$T/$codec.sum" "$codec"
	root2=$ROOT
	run "img2img -c $codec -j 1 --verity" "$IMG2IMG" -q -f -c "$codec" -j 1 --verity \
		--verity-roothash "$T/j1.rh" "$T/j1.img" "$T/base.img" "$T/layer.tar" &&
	check "$codec: -j 1 gives the same root hash as -j 2" test "$(cat "$T/j1.rh")" = "$root2"
	check "$codec: the layer's file reads back" \
		sh -c "'$IMGINFO' cat '$T/$codec.img' d/added | cmp -s - '$T/layer/d/added'"
done

# a byte of d/random's data, copied from the base as it was
img=$T/gzip.img
vfields "$T/gzip.sum" || exit 1
start=$("$IMGINFO" stat "$img" d/random | sed -n 's/^blocks: .*(start \([0-9]*\),.*/\1/p')
pos=$((start + 70000))
cp "$img" "$T/c.img" || exit 99
$PYTHON3 -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2]))
    f.write(bytes([b[0] ^ 0xff]))' "$T/c.img" "$pos" || exit 99
"$VERITYSETUP" verify "$T/c.img" "$T/c.img" "$ROOT" --hash-offset="$HOFF" > /dev/null 2>&1
check "a flipped byte: veritysetup verify refuses it" test $? = 2
"$IMGINFO" verity "$T/c.img" "$ROOT" > "$T/ii.out" 2> /dev/null
check "a flipped byte: imginfo verity refuses it" test $? = 1
check "imginfo names the data block and its offset" \
	grep -q "^$T/c.img: data block $((pos / 4096)) at offset $((pos / 4096 * 4096)) " "$T/ii.out"
check "imginfo names the file" grep -q "holds data of 'd/random'" "$T/ii.out"

# EROFS from the SquashFS base (every file rewritten) and from an EROFS
# base (its stored blocks copied), with the tar layer
run "the EROFS base" "$TAR2IMG" -q --format erofs "$T/ebase.img" "$T/src.tar" || exit 1
for base in base ebase; do
	run "img2img $base to erofs --verity" "$IMG2IMG" --format erofs -j 2 --verity \
		"$T/e-$base.img" "$T/$base.img" "$T/layer.tar" > "$T/e.sum" || continue
	verified "$T/e-$base.img" "$T/e.sum" "erofs from $base"
	root2=$ROOT
	run "img2img $base to erofs -j 1 --verity" "$IMG2IMG" -q -f --format erofs -j 1 \
		--verity --verity-roothash "$T/j1.rh" "$T/j1.img" "$T/$base.img" "$T/layer.tar" &&
	check "erofs from $base: -j 1 gives the same root hash as -j 2" \
		test "$(cat "$T/j1.rh")" = "$root2"
	check "erofs from $base: the layer's file reads back" \
		sh -c "'$IMGINFO' cat '$T/e-$base.img' d/added | cmp -s - '$T/layer/d/added'"
done
finish
