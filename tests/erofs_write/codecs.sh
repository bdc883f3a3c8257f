#!/bin/sh
# SPDX-License-Identifier: MIT
# codecs.sh - EROFS images compressed with lzma (MicroLZMA), deflate and
# zstd, from the tree of tests/erofs/mktree.sh plus a file of zeros, one
# of two 8 MiB segments and one whose stored tail would cross a logical
# cluster. Per codec: the superblock names the algorithm and carries its
# configuration record (the kernel refuses the image otherwise); the
# kernel's mount reads dir2img's, tar2img's and sqpack-mkfs.erofs's
# images equal to the source (names, types, modes, owners, times,
# xattrs, hard links, data); img2tar reads them back to the SquashFS
# image's tar; the same bytes at -j 1 and at -j 3 with the tree spilled
# (--mem 1M); sqpack-mkfs.erofs -zCODEC,LEVEL gives dir2img's bytes.
# Each at a fast level, and lzma's extreme preset (-zlzma,109) once.
# Big pclusters (--pcluster-size, -C) of 16 KiB and 64 KiB per codec
# (lzma's with 1 MiB of text9m, not all of it):
# the kernel's mount and img2tar read them equal, -j 1 and 3 give the
# same bytes (64 KiB), the record holds the history the encoder used (lzma's
# dictionary four pclusters, zstd's window eight, deflate's 32 KiB),
# 64 KiB clusters give a smaller image than one-block ones, and
# sqpack-mkfs.erofs -C65536 gives dir2img's bytes.
# On compressible files, at each codec's default level, 64 KiB clusters
# give a smaller image than one-block ones, and the kernel reads it
# equal: lines of numbers for zstd (whose level 15 searched less hard
# for a big cluster's input and made the image 20% larger) and lzma,
# words for deflate (libdeflate compresses the lines file better in
# pieces of a block's input than whole: a Huffman code for each). A
# deflate cluster whose stream opens with a stored block stays
# compressed (its first byte marked, not zero), and the kernel reads it.
# Debian 12's fsck.erofs (1.5) knows lz4 only, so it is not asked about
# these images: the kernel is their judge.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3" od
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
# SOURCE_DATE_EPOCH as dir2img reads it (mkfs.erofs 1.9 clamps the
# tree's times to it): the images compared are dir2img's.
MKFS=$(mkfs_build_time_only) || { fail "the mkfs.erofs wrapper"; finish; }
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

more_shapes() {
	head -c 3000000 /dev/zero > "$1/zeros" &&
	{ head -c 6000 /dev/zero && head -c 8000 /dev/urandom; } > "$1/crossing" &&
	$PYTHON3 -c 'import base64, os, sys
open(sys.argv[1], "wb").write(base64.b64encode(os.urandom(13 << 19)))' "$1/text9m"
}
run "make the tree" erofs_tree "$T/src" || finish
run "add the segment and tail shapes" more_shapes "$T/src" || finish
run "whole seconds" whole_seconds "$T/src" || finish
# (its codec is not what is tested: lz4, cheap, where built)
ref_c=
! codec_built lz4 || ref_c="-c lz4"
# shellcheck disable=SC2086
run "the SquashFS image" "$DIR2IMG" -q $ref_c "$T/ref.sqfs" "$T/src" || finish
"$IMG2TAR" "$T/ref.sqfs" > "$T/ref.tar" 2> /dev/null || fail "img2tar of the SquashFS image"

# kernel_reads WHAT IMAGE [treecmp options]: mounted, equal to the source.
kernel_reads() {
	kr_what=$1 kr_img=$2; shift 2
	judge_ok "the kernel's EROFS mount" kernel erofs || return 0
	mkdir -p "$T/m"
	if mount -t erofs -o loop,ro "$kr_img" "$T/m" 2> "$T/err"; then
		same_tree "$kr_what: the kernel's mount equals the source" "$T/m" "$T/src" "$@"
		umount "$T/m"
	else
		fail "$kr_what: the kernel does not mount it: $(head -c 200 "$T/err") $(dmesg 2> /dev/null | tail -2)"
	fi
}
# The superblock's feature_incompat (at 1024 + 80) and
# available_compr_algs (+ 84).
incompat_of() { od -An -tu4 -j 1104 -N 4 "$1" | tr -d ' '; }
algs_of() { od -An -tu2 -j 1108 -N 2 "$1" | tr -d ' '; }
# The history in the algorithm's record, which follows the superblock
# (at 1152, after its 2-byte length): lzma's 32-bit dictionary size,
# deflate's window bits, zstd's window log less 10 (after its format).
history_of() {
	case $1 in
	lzma) od -An -tu4 -j 1154 -N 4 "$2" ;;
	deflate) echo $((1 << $(od -An -tu1 -j 1154 -N 1 "$2"))) ;;
	zstd) echo $((1 << ($(od -An -tu1 -j 1155 -N 1 "$2") + 10))) ;;
	esac | tr -d ' '
}
# big_pclusters CODEC COPT XOPT ZOPT: the checks above, per pcluster size.
big_pclusters() {
	for pcl in 16384 65536; do
		bp=$T/$1.C$pcl
		js=1
		[ $pcl -ne 65536 ] || js="1 3"
		for j in $js; do
			"$DIR2IMG" -q -j $j --format erofs -c "$2" -X "$3" --pcluster-size $pcl \
				"$bp.$j.erofs" "$T/src" 2> "$T/err" ||
				{ fail "$1 -C $pcl: dir2img -j $j: $(head -c 300 "$T/err")"; continue 2; }
		done
		[ $pcl -ne 65536 ] ||
			check "$1 -C $pcl: the same bytes for -j 1 and 3" cmp -s "$bp.1.erofs" "$bp.3.erofs"
		case $1 in
		lzma) want=$((4 * pcl)) ;;
		deflate) want=32768 ;;
		zstd) want=$((8 * pcl)) ;;
		esac
		check "$1 -C $pcl: the record's history is $want" \
			test "$(history_of "$1" "$bp.1.erofs")" -eq $want
		kernel_reads "$1 -C $pcl" "$bp.1.erofs"
		if "$IMG2TAR" "$bp.1.erofs" > "$T/z.tar" 2> "$T/err"; then
			check "$1 -C $pcl: img2tar gives the SquashFS image's bytes" cmp -s "$T/z.tar" "$T/ref.tar"
		else
			fail "$1 -C $pcl: img2tar refuses it: $(head -c 300 "$T/err")"
		fi
	done
	check "$1: 64 KiB pclusters give a smaller image than one-block ones" \
		test "$(wc -c < "$T/$1.C65536.1.erofs")" -lt "$(wc -c < "$T/$1.erofs")"
	if "$MKFS" --quiet -z"$4" -C65536 "$T/k.erofs" "$T/src" 2> "$T/err"; then
		check "$1: sqpack-mkfs.erofs -z$4 -C65536 gives dir2img's bytes" \
			cmp -s "$T/k.erofs" "$T/$1.C65536.1.erofs"
	else
		fail "$1: sqpack-mkfs.erofs -z$4 -C65536: $(head -c 300 "$T/err")"
	fi
}

# lz4's image, which each codec here must beat.
if codec_built lz4; then
	run "the lz4 image" "$DIR2IMG" -q --format erofs -c lz4 "$T/lz4.erofs" "$T/src"
fi

# codec, its dir2img -c and -X, sqpack-mkfs.erofs -z, EROFS's number.
while read -r codec lib copt xopt zopt alg; do
	codec_built "$lib" || { skipc "$codec: $lib not built"; continue; }
	img=$T/$codec.erofs
	"$DIR2IMG" -q -j 1 --format erofs -c "$copt" -X "$xopt" "$img" "$T/src" 2> "$T/err" ||
		{ fail "$codec: dir2img -j 1: $(head -c 300 "$T/err")"; continue; }
	# -j 3 and spilling in one run, against -j 1 in memory.
	"$DIR2IMG" -j 3 --mem 1M --format erofs -c "$copt" -X "$xopt" "$T/$codec.mem.erofs" "$T/src" > "$T/mem.out" 2>&1 ||
		fail "$codec: dir2img --mem 1M: $(head -c 300 "$T/mem.out")"
	check "$codec: --mem 1M spills" grep -q "spilled to a temporary file" "$T/mem.out"
	check "$codec: the same bytes for -j 1 and 3, spilling (--mem 1M) changes no byte" \
		cmp -s "$T/$codec.mem.erofs" "$img"
	check "$codec: the summary names the codec" grep -q "(EROFS, $copt, block size 4096)" "$T/mem.out"
	if [ -e "$T/lz4.erofs" ]; then
		check "$codec: smaller than lz4's" test "$(wc -c < "$img")" -lt "$(wc -c < "$T/lz4.erofs")"
	fi
	check "$codec: the superblock has COMPR_CFGS and ZERO_PADDING" \
		test $(($(incompat_of "$img") & 3)) -eq 3
	check "$codec: available_compr_algs is algorithm $alg alone" \
		test "$(algs_of "$img")" -eq $((1 << alg))
	kernel_reads "$codec" "$img"
	if "$IMG2TAR" "$img" > "$T/z.tar" 2> "$T/err"; then
		check "$codec: img2tar gives the SquashFS image's bytes" cmp -s "$T/z.tar" "$T/ref.tar"
	else
		fail "$codec: img2tar refuses it: $(head -c 300 "$T/err")"
	fi

	# tar2img: the same tree but for the socket, which a tar cannot hold.
	if "$TAR2IMG" -q --format erofs -c "$copt" -X "$xopt" "$T/$codec.t.erofs" "$T/ref.tar" 2> "$T/err"; then
		kernel_reads "$codec: tar2img" "$T/$codec.t.erofs" --exclude=sock
		"$IMG2TAR" "$T/$codec.t.erofs" > "$T/t.tar" 2> "$T/err" || fail "$codec: img2tar of tar2img's"
		check "$codec: tar2img's image gives the tar back" cmp -s "$T/t.tar" "$T/ref.tar"
	else
		fail "$codec: tar2img: $(head -c 300 "$T/err")"
	fi

	if "$MKFS" --quiet -z"$zopt" "$T/k.erofs" "$T/src" 2> "$T/err"; then
		# (the same bytes: the kernel has read them above)
		check "$codec: sqpack-mkfs.erofs -z$zopt gives dir2img's bytes" cmp -s "$T/k.erofs" "$img"
	else
		fail "$codec: sqpack-mkfs.erofs -z$zopt: $(head -c 300 "$T/err")"
	fi
done <<EOF
lzma lzma lzma level=0 lzma,0 1
deflate gzip deflate level=1 deflate,1 2
zstd zstd zstd level=3 zstd,3 3
EOF

# The pcluster sizes: lzma's with 1 MiB of text9m in its place, which
# shows its big clusters' gain as well (the 8 MiB segments are not what
# these runs check, and lzma took seconds over text9m at each size: two
# thirds of this script's time). The SquashFS image and its tar anew.
! codec_built gzip || big_pclusters deflate deflate level=1 deflate,1
! codec_built zstd || big_pclusters zstd zstd level=3 zstd,3
if codec_built lzma; then
	head -c 1048576 "$T/src/text9m" > "$T/src/text1m" && rm -f "$T/src/text9m" "$T/ref.sqfs" &&
		run "whole seconds again" whole_seconds "$T/src" || finish
	# shellcheck disable=SC2086
	run "the SquashFS image of lzma's tree" "$DIR2IMG" -q $ref_c "$T/ref.sqfs" "$T/src" || finish
	run "lzma's one-block image of it" "$DIR2IMG" -q -f --format erofs -c lzma -X level=0 "$T/lzma.erofs" "$T/src"
	"$IMG2TAR" "$T/ref.sqfs" > "$T/ref.tar" 2> /dev/null || fail "img2tar of lzma's SquashFS image"
	big_pclusters lzma lzma level=0 lzma,0
fi

# lzma's extreme presets (-X extreme, mkfs.erofs's levels 100 to 109)
# once: they take seconds where level 0 takes a fraction of one, so on
# the tree without its big files (the 8 MiB segments are not what this
# checks).
if codec_built lzma; then
	rm -f "$T/src/text1m" "$T/src/zeros"
	if "$DIR2IMG" -q --format erofs -c lzma -X level=9,extreme "$T/x.erofs" "$T/src" 2> "$T/err" &&
	   "$MKFS" --quiet -zlzma,109 "$T/k.erofs" "$T/src" 2>> "$T/err"; then
		check "lzma: sqpack-mkfs.erofs -zlzma,109 gives dir2img -X level=9,extreme's bytes" \
			cmp -s "$T/k.erofs" "$T/x.erofs"
		kernel_reads "lzma -X level=9,extreme" "$T/x.erofs"
	else
		fail "lzma -X level=9,extreme: $(head -c 300 "$T/err")"
	fi
fi

text_files() {
	mkdir -p "$1/lines" "$1/words" && $PYTHON3 -c 'import itertools, random, sys
with open(sys.argv[1] + "/lines/t.txt", "w") as f:
    f.write("".join("line %d %d some text here\n" % (i, i * 7919 % 10007)
                    for i in range(1, 60001)))
r = random.Random(26)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9)))
         for _ in range(3000)]
# Zipf weights, summed once (choices() would sum them at every call:
# seconds of CPU for the same draws)
cum = list(itertools.accumulate(1 / (i + 1) for i in range(3000)))
with open(sys.argv[1] + "/words/t.txt", "w") as f:
    for _ in range(40000):
        f.write(" ".join(r.choices(words, cum_weights=cum, k=r.randint(5, 15))) + "\n")' "$1"
}
run "make the compressible files" text_files "$T/text" || finish
# codec, its dir2img -c, the file.
while read -r codec lib what; do
	codec_built "$lib" || { skipc "$codec on $what: $lib not built"; continue; }
	for pcl in 4096 65536; do
		"$DIR2IMG" -q --format erofs -c "$lib" --pcluster-size $pcl \
			"$T/$codec.$what.$pcl.erofs" "$T/text/$what" 2> "$T/err" ||
			{ fail "$codec on $what -C $pcl: dir2img: $(head -c 300 "$T/err")"; continue 2; }
	done
	check "$codec on $what: 64 KiB pclusters give a smaller image than one-block ones" \
		test "$(wc -c < "$T/$codec.$what.65536.erofs")" -lt "$(wc -c < "$T/$codec.$what.4096.erofs")"
	kernel_check erofs "$T/$codec.$what.65536.erofs" \
		"$codec on $what -C 65536: the kernel's mount reads the file equal" \
		cmp -s "$KMNT/t.txt" "$T/text/$what/t.txt"
done <<EOF
zstd zstd lines
lzma lzma lines
deflate gzip words
EOF

# A deflate stream that opens with a stored block (here 96 KiB of noise
# before text, at 1 MiB clusters) begins with a zero byte, which the
# kernel would take for padding: a bit the inflater skips is set in it,
# and the cluster stays compressed. Stored as it was, the cluster took
# a whole MiB; compressed, the image is under 256 KiB.
noisy_text() {
	mkdir -p "$1" && $PYTHON3 -c 'import random, sys
r = random.Random(38)
with open(sys.argv[1] + "/t", "wb") as f:
    f.write(r.randbytes(96 << 10))
    f.write(b"".join(b"line %d of the text\n" % i for i in range(50000)))' "$1"
}
if codec_built gzip; then
	run "make the noise before text" noisy_text "$T/noisy" || finish
	ni=$T/noisy.erofs
	if "$DIR2IMG" -q --format erofs -c deflate -X level=1 --pcluster-size 1048576 \
		"$ni" "$T/noisy" 2> "$T/err"; then
		check "deflate, a stream opening with a stored block: the cluster stays compressed" \
			test "$(wc -c < "$ni")" -lt 262144
		check "deflate, a stream opening with a stored block: imginfo check finds no problem" \
			"$IMGINFO" check -q "$ni"
		kernel_check erofs "$ni" \
			"deflate, a stream opening with a stored block: the kernel's mount reads the file equal" \
			cmp -s "$KMNT/t" "$T/noisy/t"
	else
		fail "deflate, noise before text: dir2img: $(head -c 300 "$T/err")"
	fi
else
	skipc "deflate, noise before text: gzip not built"
fi
finish
