#!/bin/sh
# SPDX-License-Identifier: MIT
# roundtrip.sh - tar2img of the tar img2tar wrote gives the same image:
# for a tar in directory order (GNU tar --sort=name), image -> tar ->
# image is byte-identical for every codec, and tar -> image -> tar is too.
# img2tar writes the same bytes for -j 1 to 8 (CI runs this under TSan).
# Also: a write error (/dev/full) exits 1 with a message.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar bsdtar "$PYTHON3"
[ -x "$IMG2TAR" ] || skip "img2tar not built"

T=$SCRATCH
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99
tar -C "$T/src" --sort=name --format=posix --xattrs --xattrs-include='*' \
	--numeric-owner -cf "$T/sorted.tar" . || exit 99

for codec in $ALL_CODECS; do
	codec_built "$codec" || continue
	"$TAR2IMG" -q -c "$codec" "$T/a.img" "$T/sorted.tar" 2>/dev/null || { fail "$codec: tar2img"; continue; }
	"$IMG2TAR" "$T/a.img" > "$T/t1.tar" || { fail "$codec: img2tar"; continue; }
	"$TAR2IMG" -q -c "$codec" "$T/b.img" "$T/t1.tar" || { fail "$codec: tar2img of img2tar's tar"; continue; }
	check "$codec: image -> tar -> image is byte-identical" cmp -s "$T/a.img" "$T/b.img"
	run "$codec: img2tar of the second image" "$IMG2TAR" "$T/b.img" > "$T/t2.tar" &&
		check "$codec: tar -> image -> tar is byte-identical" cmp -s "$T/t1.tar" "$T/t2.tar"
	for j in 1 3 8; do
		run "$codec: img2tar -j $j" "$IMG2TAR" -j $j "$T/b.img" > "$T/t2.tar" &&
			check "$codec: img2tar -j $j writes the same tar" cmp -s "$T/t1.tar" "$T/t2.tar"
	done
	rm -f "$T"/*.img "$T"/t?.tar
done
# A lone file longer than the read-ahead window (4 blocks at -j 1, 12 at
# -j 2, 36 at -j 8) reaches the writer with no entry in front of it.
mkdir "$T/lone"
head -c $((40 * 131072 + 77)) /dev/urandom > "$T/lone/big.bin"
tar -C "$T/lone" -cf "$T/lone.tar" big.bin || exit 99
"$TAR2IMG" -q "$T/lone.img" "$T/lone.tar" || exit 99
for j in 1 2 8; do
	run "img2tar -j $j of the lone file" "$IMG2TAR" -j $j "$T/lone.img" > "$T/lone.out" &&
		check "a lone 40-block file, -j $j: its contents come back" sh -c \
			"tar -xOf '$T/lone.out' big.bin | cmp -s - '$T/lone/big.bin'"
done

run "tar2img of the sorted tar" "$TAR2IMG" -q "$T/a.img" "$T/sorted.tar" || finish
if [ -w /dev/full ]; then
	"$IMG2TAR" "$T/a.img" > /dev/full 2> "$T/err"; rc=$?
	check "writing to a full device: exit 1 with a message" \
		sh -c "[ $rc -eq 1 ] && grep -q 'No space' '$T/err'"
fi
run "img2tar -o" "$IMG2TAR" -o "$T/o.tar" "$T/a.img" &&
	run "img2tar to stdout" "$IMG2TAR" "$T/a.img" > "$T/s.tar" &&
	check "-o FILE writes the same tar as stdout" cmp -s "$T/o.tar" "$T/s.tar"
"$IMG2TAR" -o "$T/o.tar" "$T/a.img" 2> "$T/err"; rc=$?
check "-o onto an existing file without -f: exit 1" test $rc -eq 1
"$IMG2TAR" "$T/a.img" nosuch/path > /dev/null 2> "$T/err"; rc=$?
check "a missing PATH: exit 1 naming it" sh -c "[ $rc -eq 1 ] && grep -q nosuch '$T/err'"
"$IMG2TAR" --bogus "$T/a.img" > /dev/null 2>&1; rc=$?
check "an unknown option: exit 2" test $rc -eq 2
"$IMG2TAR" -z nope "$T/a.img" > /dev/null 2>&1; rc=$?
check "an unknown -z: exit 2" test $rc -eq 2
finish
