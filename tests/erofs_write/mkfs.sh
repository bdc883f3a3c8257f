#!/bin/sh
# SPDX-License-Identifier: MIT
# mkfs.sh - sqpack-mkfs.erofs: mkfs.erofs's command line gives the same
# bytes as the dir2img (tar2img for --tar=f) line it stands for (with
# --xattr-name-filter, mkfs.erofs 1.9's default), the
# kernel mounts the result with the owners and times asked for, a tar
# on stdin and in a file give the same image, -z without a level takes
# mkfs.erofs's default level, --quiet prints nothing, a UUID is stored
# as given (archiso's zero one: none, as blkid sees mkfs.erofs's; -U
# clear: zeros; -U random: another at each run; a bad one: exit 1, as
# mkfs.erofs), --max-extent-bytes gives dir2img's bytes, two codecs
# chosen per file by --compress-hints make an image the kernel, fsck.erofs
# and img2dir read as the source, the same for any --workers, --zD's
# compressed directories (in the packed inode) read by the kernel and
# img2dir as the source, mkfs.erofs 1.9.3's too, and what is
# not done yet (three algorithms, other -E options, unaligned
# extents, unknown options) or is wrong (a cluster size not a
# multiple of 4096, a level out of range) is refused with exit status 2
# and no image.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3"
codec_built lz4 || skip "lz4 not built (the translations tested use it)"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
DIR2IMG="$SQP_BIN/dir2img"
T=$SCRATCH
U=0123abcd-4567-89ef-0123-456789abcdef
run "make the tree" erofs_tree "$T/src" || finish

run "sqpack-mkfs.erofs -zlz4hc,9" "$MKFS" --quiet -zlz4hc,9 -C4096 \
	-T1600000000 -U $U -L lbl --all-root --workers=2 "$T/a.erofs" "$T/src" || finish
run "the dir2img line" "$DIR2IMG" -q --format erofs -c lz4 -X level=9 --xattr-name-filter \
	--mtime 1600000000 \
	--image-time 1600000000 --uuid $U --label lbl --all-root "$T/b.erofs" "$T/src"
check "the same bytes as dir2img's" cmp -s "$T/a.erofs" "$T/b.erofs"
"$MKFS" --quiet -zlz4 "$T/q.erofs" "$T/src" > "$T/out" 2>&1
check "--quiet prints nothing" test ! -s "$T/out"
"$MKFS" -zlz4 "$T/q.erofs" "$T/src" > "$T/out" 2>&1
check "IMAGE is replaced, as mkfs.erofs does, with a summary" test -s "$T/out"

if judge_ok "the kernel's EROFS mount" kernel erofs; then
	mkdir -p "$T/m"
	if mount -t erofs -o loop,ro "$T/a.erofs" "$T/m" 2> "$T/err"; then
		same_tree "the kernel's mount: the source, owned by root, at -T" "$T/m" "$T/src" \
			--ignore=owner,mtime
		check "every mtime is -T's" sh -c 'test -z "$(find "$1" ! -newermt @1599999999)" &&
			test -z "$(find "$1" -newermt @1600000000)"' - "$T/m"
		check "every owner is root" sh -c 'test -z "$(find "$1" ! -uid 0)"' - "$T/m"
		umount "$T/m"
	else
		fail "the kernel does not mount it: $(head -c 200 "$T/err")"
	fi
fi

tar -C "$T/src" -cf "$T/s.tar" . 2> /dev/null
run "--tar=f FILE" "$MKFS" --quiet --tar=f -zlz4 "$T/t1.erofs" "$T/s.tar"
run "--tar=f on stdin" sh -c '"$1" --quiet --tar=f -zlz4 "$2" < "$3"' - "$MKFS" "$T/t2.erofs" "$T/s.tar"
run "tar2img's line" "$TAR2IMG" -q --format erofs -c lz4 "$T/t3.erofs" "$T/s.tar"
check "a tar on stdin and in a file: the same image" cmp -s "$T/t1.erofs" "$T/t2.erofs"
check "--tar=f: the same bytes as tar2img's" cmp -s "$T/t1.erofs" "$T/t3.erofs"
run "--max-extent-bytes=8192" "$MKFS" --quiet -zlz4 -C16384 --max-extent-bytes=8192 \
	"$T/x1.erofs" "$T/src" && run "dir2img --max-extent-bytes 8K" "$DIR2IMG" -q \
	--format erofs -c lz4 --pcluster-size 16K --max-extent-bytes 8K --xattr-name-filter \
	"$T/x2.erofs" "$T/src" &&
	check "--max-extent-bytes: the same bytes as dir2img's" cmp -s "$T/x1.erofs" "$T/x2.erofs"

# Without a level, mkfs.erofs's defaults (a script's -zzstd keeps the
# speed and the image it had), not dir2img's.
for set in "lzma|lzma|6" "deflate|gzip|1" "zstd|zstd|3"; do
	alg=${set%%|*} lib=${set#*|}; lib=${lib%|*} level=${set##*|}
	codec_built "$lib" || { skipc "-z$alg: $lib not built"; continue; }
	if "$MKFS" --quiet -z$alg "$T/z.erofs" "$T/src" 2> "$T/err" &&
	   "$DIR2IMG" -q -f --format erofs -c $alg -X level=$level --xattr-name-filter \
		"$T/zd.erofs" "$T/src" 2>> "$T/err"; then
		check "-z$alg is mkfs.erofs's default level $level" cmp -s "$T/z.erofs" "$T/zd.erofs"
	else
		fail "-z$alg: $(head -c 300 "$T/err")"
	fi
done

# The UUID. archiso's whole line (mkarchiso's _mkairootfs_erofs with
# the baseline profile's options) asks for a zero one, for reproducible
# images: stored as zeros, which blkid shows as none, as it does for
# mkfs.erofs's image made with the same -U.
Z=00000000-0000-0000-0000-000000000000
uuid_bytes() { od -An -v -tx1 -j1072 -N16 "$1" | tr -d ' \n'; }
zeros=00000000000000000000000000000000
if codec_built lzma; then
	run "archiso's line" env SOURCE_DATE_EPOCH=1600000000 "$MKFS" --quiet -U $Z \
		-zlzma,109 -E ztailpacking -- "$T/arch.erofs" "$T/src" &&
		check "archiso's -U $Z: zeros in the superblock" \
			test "$(uuid_bytes "$T/arch.erofs")" = $zeros
else
	skipc "archiso's line: lzma not built"
fi
if ! command -v blkid > /dev/null 2>&1; then
	skipc "blkid not installed: the UUID as it sees it"
elif [ -f "$T/arch.erofs" ] && run "mkfs.erofs -U $Z" mkfs.erofs --quiet -U $Z \
		"$T/peer.erofs" "$T/src" > /dev/null; then
	peer=$(blkid -p -o export "$T/peer.erofs")
	ours=$(blkid -p -o export "$T/arch.erofs")
	if echo "$peer" | grep -q '^TYPE=erofs$' && ! echo "$peer" | grep -q '^UUID='; then
		check "blkid: no UUID on archiso's image, as on mkfs.erofs's" sh -c \
			'echo "$1" | grep -q "^TYPE=erofs$" && ! echo "$1" | grep -q "^UUID="' - "$ours"
	else
		fail "blkid on mkfs.erofs's image: $peer"
	fi
fi
run "-U clear" "$MKFS" --quiet -U clear "$T/c.erofs" "$T/src" &&
	check "-U clear: zeros" test "$(uuid_bytes "$T/c.erofs")" = $zeros
run "-U random" "$MKFS" --quiet -U random "$T/r1.erofs" "$T/src" &&
	run "-U random again" "$MKFS" --quiet -U random "$T/r2.erofs" "$T/src" &&
	check "-U random: another UUID at each run, none zero" sh -c \
		'test "$1" != "$2" && test "$1" != "$3" && test "$2" != "$3"' - \
		"$(uuid_bytes "$T/r1.erofs")" "$(uuid_bytes "$T/r2.erofs")" $zeros
for bad in bogus 0123abcd-4567-89ef-0123-456789abcdeg 0123abcd4567-89ef-0123-456789abcdef0; do
	rm -f "$T/r.erofs"
	"$MKFS" --quiet -U $bad "$T/r.erofs" "$T/src" > "$T/out" 2>&1
	rc=$?
	[ $rc -eq 1 ] && grep -q "invalid UUID" "$T/out" && [ ! -e "$T/r.erofs" ] &&
		pass "-U $bad refused as mkfs.erofs does: $(head -1 "$T/out")" ||
		fail "-U $bad: expected exit 1, 'invalid UUID' and no image: exit $rc: $(head -c 200 "$T/out")"
done

refused() {
	what=$1; shift
	rm -f "$T/r.erofs"
	"$MKFS" "$@" "$T/r.erofs" "$T/src" > "$T/out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$what" "$T/out" && [ ! -e "$T/r.erofs" ] &&
		pass "refused: $(head -1 "$T/out")" ||
		fail "$*: expected exit 2, '$what' and no image: exit $rc: $(head -c 200 "$T/out")"
}
refused "more than two algorithms" -zlz4hc:lzma:zstd -U $U
refused "none is no compressor" -zlz4hc:none -U $U
refused "the level is 0..9" -zlzma,110
refused "extended option not done yet" -Elegacy-compress
refused "extended option not done yet" -Eztailpacking,fragdedupe=bogus
refused "the level is 0..9" -zlzma,level=6,dictsize=65536
refused "the packed inode" -zlz4 -Efragments=65536
refused "a multiple of the block size up to 1M" -zlz4 -C65537
refused "needs a compressor" --compress-hints=foo
refused "unknown option" --bogus
refused "the level is 1..12" -zlz4hc,13
refused "unaligned extents" -zlz4 -E48bit --max-extent-bytes=-8192
refused "at least the block size" -zlz4 --max-extent-bytes=4095
refused "valid are 0, or 'i' and 'd'" --MZ=x

# Two codecs (-zX:Y) chosen per file by --compress-hints, with a second
# pcluster size: lz4hc for most files, lzma in 16 KiB clusters for the
# texts the hints name, big stored as it is. Each judge that reads it
# first reads mkfs.erofs 1.9.3's own two-codec image (EROFS_UTILS_193:
# its build tree), so that a judge without lzma or the records of two
# codecs is a counted skip.
P193=${EROFS_UTILS_193:-/work/peers/erofs-utils}
hints_check() {
	# (a blank before a size, as mkfs.erofs's strtok skips it)
	printf '# the texts in lzma\n16384 1 (^|/)seq$\n 16384 1 ^mixed$\n0 ^big$\n' > "$T/hints"
	for j in 1 2; do
		run "-zlz4hc:lzma --compress-hints, --workers=$j" "$MKFS" --quiet \
			-zlz4hc:lzma --compress-hints="$T/hints" -C4096 -T0 -Uclear \
			--workers=$j "$T/h$j.erofs" "$T/src" || return
	done
	check "two codecs: the same bytes for --workers=1 and 2" cmp -s "$T/h1.erofs" "$T/h2.erofs"
	run "-zlz4hc alone" "$MKFS" --quiet -zlz4hc -T0 -Uclear "$T/h0.erofs" "$T/src" &&
		check "the hinted texts in lzma: smaller than lz4hc alone" \
			test "$(wc -c < "$T/h1.erofs")" -lt "$(wc -c < "$T/h0.erofs")"
	judge_same_tree "two codecs" kernel erofs "$T/h1.erofs" "$T/src" --ignore=mtime
	rm -rf "$T/x" && run "img2dir, two codecs" "$SQP_BIN/img2dir" -q "$T/h1.erofs" "$T/x" &&
		same_tree "two codecs: img2dir reads the source" "$T/x" "$T/src" --ignore=mtime
	# -Ededupe under two codecs: clusters of zeros capped at 16 KiB have
	# equal input in both, but a file may name only a pcluster of its
	# own codec (its map header gives one algorithm). An lzma file that
	# named the lz4hc file's cluster was misread by the kernel
	# ("Structure needs cleaning") when read first: read after the
	# other, the kernel's cached pcluster hid it.
	mkdir -p "$T/z/d" "$T/zm" && head -c 1048576 /dev/zero > "$T/z/a" &&
		head -c 1048576 /dev/zero > "$T/z/d/seq" &&
		printf '4096 1 (^|/)seq$\n' > "$T/zhints" || exit 99
	if run "-zlz4hc:lzma --compress-hints -Ededupe --max-extent-bytes=16384" "$MKFS" \
		--quiet -zlz4hc:lzma --compress-hints="$T/zhints" -Ededupe \
		--max-extent-bytes=16384 "$T/z.erofs" "$T/z" &&
	   judge_ok "two codecs, -Ededupe" kernel erofs &&
	   run "two codecs, -Ededupe: the kernel mounts it" mount -t erofs -o loop,ro "$T/z.erofs" "$T/zm"; then
		check "two codecs, -Ededupe: the lzma file, read first, is its zeros" \
			cmp -s "$T/zm/d/seq" "$T/z/d/seq"
		same_tree "two codecs, -Ededupe: the kernel reads the tree" "$T/zm" "$T/z" --ignore=mtime
		umount "$T/zm"
	fi
	mkdir -p "$T/p/d" && seq 1 3000 > "$T/p/d/f"
	if [ ! -x "$P193/mkfs/mkfs.erofs" ]; then
		skipc "two codecs: fsck.erofs and mkfs.erofs 1.9.3: none at $P193"
		return
	fi
	run "mkfs.erofs 1.9.3 -zlzma:lz4hc" "$P193/mkfs/mkfs.erofs" --quiet -zlzma:lz4hc \
		-C16384 "$T/p.erofs" "$T/p" > /dev/null || return
	# 1.9.3's --extract leaves xattrs out unless asked.
	for fsck in fsck.erofs "$P193/fsck/fsck.erofs"; do
		xattrs=
		[ "$fsck" = fsck.erofs ] || xattrs=--xattrs
		rm -rf "$T/x"
		if ! "$fsck" $xattrs --extract="$T/x" "$T/p.erofs" > "$T/err" 2>&1 ||
		   ! cmp -s "$T/x/d/f" "$T/p/d/f"; then
			skipc "two codecs: $fsck cannot read mkfs.erofs 1.9.3's own: $(grep -m1 . "$T/err")"
			continue
		fi
		rm -rf "$T/x"
		if "$fsck" $xattrs --extract="$T/x" "$T/h1.erofs" > "$T/err" 2>&1; then
			same_tree "two codecs: $fsck checks it and extracts the source" \
				"$T/x" "$T/src" --ignore=mtime
		else
			fail "two codecs: $fsck refuses our image: $(grep -m1 . "$T/err")"
		fi
	done
	# mkfs.erofs 1.9.3 reads the hints before its codecs are set and
	# crashes on a line that names an index: without them, the same
	# pclusters, every file in its first codec.
	"$P193/mkfs/mkfs.erofs" --quiet -zlz4hc:lzma --compress-hints="$T/hints" \
		"$T/r.erofs" "$T/p" > /dev/null 2>&1
	[ $? -lt 128 ] || skipc "mkfs.erofs 1.9.3 crashes on a hints line with an index"
	sed 's/ 1 / /' "$T/hints" > "$T/hints0"
	run "mkfs.erofs 1.9.3, hints without an index" "$P193/mkfs/mkfs.erofs" --quiet \
		-zlz4hc:lzma --compress-hints="$T/hints0" -T0 -Uclear "$T/r.erofs" "$T/src" > /dev/null &&
		run "ours, the same line" "$MKFS" --quiet -zlz4hc:lzma --compress-hints="$T/hints0" \
			-T0 -Uclear "$T/o.erofs" "$T/src" || return
	note "hints without an index: ours $(wc -c < "$T/o.erofs") bytes, mkfs.erofs 1.9.3's" \
		"$(wc -c < "$T/r.erofs")"
	judge_same_tree "hints, mkfs.erofs 1.9.3's" kernel erofs "$T/r.erofs" "$T/src" --ignore=mtime
	judge_same_tree "hints, ours" kernel erofs "$T/o.erofs" "$T/src" --ignore=mtime
}
if codec_built lzma; then hints_check; else skipc "two codecs: lzma not built"; fi
# a bad pattern, and one longer than the message it goes into
for bad in '(' "$(printf '%400s' | tr ' ' '(')"; do
	printf '4096 1 %s\n' "$bad" > "$T/badhints"
	rm -f "$T/r.erofs"
	"$MKFS" -zlz4:lzma --compress-hints="$T/badhints" "$T/r.erofs" "$T/src" > "$T/out" 2>&1
	rc=$?
	[ $rc -eq 1 ] && grep -qF "compress hints file '$T/badhints' line 1: bad regular expression" "$T/out" &&
		[ ! -e "$T/r.erofs" ] && pass "a bad hints line of ${#bad} bytes: $(head -c 100 "$T/out")" ||
		fail "a bad hints line of ${#bad} bytes: expected exit 1, the file, its line and no image: exit $rc: $(head -c 200 "$T/out")"
done
usage_refused "an EROFS option" "$DIR2IMG" --compress-hints "$T/hints" "$T/r.sqfs" "$T/src"

# --zD: every directory's listing wholly a fragment of the packed inode
# (the 300-name directory spans blocks), as mkfs.erofs makes them. The
# root inode's layout (i_format bits 1..3) says it is compressed.
root_layout() {
	rl_nid=$(od -An -tu2 -j1038 -N2 "$1" | tr -d ' ')
	rl_meta=$(od -An -tu4 -j1064 -N4 "$1" | tr -d ' ')
	rl_fmt=$(od -An -tu2 -j$((rl_meta * 4096 + rl_nid * 32)) -N2 "$1" | tr -d ' ')
	echo $(((rl_fmt >> 1) & 7))
}
for j in 1 2; do
	run "-zlz4hc -Efragments --zD, --workers=$j" "$MKFS" --quiet -zlz4hc -Efragments --zD \
		-T0 -Uclear --workers=$j "$T/zd$j.erofs" "$T/src" || finish
done
check "--zD: the same bytes for --workers=1 and 2" cmp -s "$T/zd1.erofs" "$T/zd2.erofs"
run "dir2img --erofs-compress-dirs" "$DIR2IMG" -q --format erofs -c lz4 -X hc \
	--erofs-fragments --erofs-compress-dirs --xattr-name-filter --mtime 0 --image-time 0 \
	--uuid "$Z" \
	"$T/zdd.erofs" "$T/src" &&
	check "--zD: the same bytes as dir2img --erofs-compress-dirs" cmp -s "$T/zd1.erofs" "$T/zdd.erofs"
check "--zD: the root directory is compressed (layout 1)" test "$(root_layout "$T/zd1.erofs")" = 1
run "--zD, no compressor" "$MKFS" --quiet --zD -T0 "$T/zdn.erofs" "$T/src"
for img in zd1 zdn; do
	judge_same_tree "--zD ($img)" kernel erofs "$T/$img.erofs" "$T/src" --ignore=mtime
	rm -rf "$T/x" && run "img2dir, --zD ($img)" "$SQP_BIN/img2dir" -q "$T/$img.erofs" "$T/x" &&
		same_tree "--zD ($img): img2dir reads the source" "$T/x" "$T/src" --ignore=mtime
done
run "imginfo check, --zD" "$SQP_BIN/imginfo" check -q "$T/zd1.erofs"
usage_refused "valid are 0 and 1" "$MKFS" --zD=2 "$T/r.erofs" "$T/src"
usage_refused "an EROFS option" "$DIR2IMG" --erofs-compress-dirs "$T/r.sqfs" "$T/src"
# mkfs.erofs 1.9.3's own: it reads --zD=1 as off, so no value is given.
if [ -x "$P193/mkfs/mkfs.erofs" ]; then
	run "mkfs.erofs 1.9.3 --zD" "$P193/mkfs/mkfs.erofs" --quiet -zlz4hc --zD "$T/zp.erofs" \
		"$T/src" > /dev/null &&
		check "mkfs.erofs 1.9.3 --zD: its root directory is compressed" \
			test "$(root_layout "$T/zp.erofs")" = 1 &&
		rm -rf "$T/x" && run "img2dir, mkfs.erofs 1.9.3's --zD" "$SQP_BIN/img2dir" -q \
			"$T/zp.erofs" "$T/x" &&
		same_tree "mkfs.erofs 1.9.3's --zD: img2dir reads the source" "$T/x" "$T/src" \
			--ignore=mtime
else
	skipc "mkfs.erofs 1.9.3's --zD image: none at $P193"
fi

# -m: every inode but the root's in the metabox, itself compressed
# (with --zD its listings too; -m8192:1 with -z's second algorithm);
# the superblock says so (incompat 0x100).
incompat() { od -An -tu4 -j1104 -N4 "$1" | tr -d ' '; }
for j in 1 2; do
	run "-zlz4hc -Eztailpacking --zD -m4096, --workers=$j" "$MKFS" --quiet -zlz4hc \
		-Eztailpacking --zD -m4096 -T0 -Uclear --workers=$j "$T/mb$j.erofs" "$T/src" || finish
done
check "-m: the same bytes for --workers=1 and 2" cmp -s "$T/mb1.erofs" "$T/mb2.erofs"
check "-m: the metabox feature" test $(($(incompat "$T/mb1.erofs") & 256)) = 256
run "dir2img --erofs-metabox" "$DIR2IMG" -q --format erofs -c lz4 -X hc --ztailpacking \
	--erofs-compress-dirs --erofs-metabox 4K --xattr-name-filter --mtime 0 --image-time 0 \
	--uuid "$Z" \
	"$T/mbd.erofs" "$T/src" &&
	check "-m: the same bytes as dir2img --erofs-metabox" cmp -s "$T/mb1.erofs" "$T/mbd.erofs"
if codec_built lzma; then
	run "-zlz4hc:lzma -m8192:1" "$MKFS" --quiet -zlz4hc:lzma -m8192:1 -T0 "$T/mbl.erofs" \
		"$T/src"
	mb_imgs="mb1 mbl"
else
	skipc "-m8192:1: lzma not built"
	mb_imgs=mb1
fi
for img in $mb_imgs; do
	judge_same_tree "-m ($img)" kernel erofs "$T/$img.erofs" "$T/src" --ignore=mtime
	rm -rf "$T/x" && run "img2dir, -m ($img)" "$SQP_BIN/img2dir" -q "$T/$img.erofs" "$T/x" &&
		same_tree "-m ($img): img2dir reads the source" "$T/x" "$T/src" --ignore=mtime
	run "imginfo check, -m ($img)" "$SQP_BIN/imginfo" check -q "$T/$img.erofs"
done
usage_refused "needs a compressor" "$MKFS" -m4096 "$T/r.erofs" "$T/src"
usage_refused "index of one of -z's" "$MKFS" -zlz4 -m4096:lzma "$T/r.erofs" "$T/src"
usage_refused "an EROFS option" "$DIR2IMG" -c lz4 --erofs-metabox 4K "$T/r.sqfs" "$T/src"
# mkfs.erofs 1.9.3 puts the root in the metabox too, which takes the
# 48-bit layout's root nid: read once this reader has that layout.
if [ -x "$P193/mkfs/mkfs.erofs" ]; then
	run "mkfs.erofs 1.9.3 -m4096" "$P193/mkfs/mkfs.erofs" --quiet -zlz4hc -m4096 "$T/mp.erofs" \
		"$T/src" > /dev/null
	rm -rf "$T/x"
	if "$SQP_BIN/img2dir" -q "$T/mp.erofs" "$T/x" > "$T/out" 2>&1; then
		same_tree "mkfs.erofs 1.9.3's -m: img2dir reads the source" "$T/x" "$T/src" \
			--ignore=mtime
	elif grep -q "features 0x80 not supported" "$T/out"; then
		skipc "mkfs.erofs 1.9.3's -m image: its 48-bit layout is not read yet"
	else
		fail "mkfs.erofs 1.9.3's -m image: $(head -c 200 "$T/out")"
	fi
else
	skipc "mkfs.erofs 1.9.3's -m image: none at $P193"
fi
finish
