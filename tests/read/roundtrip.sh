#!/bin/sh
# SPDX-License-Identifier: MIT
# roundtrip.sh - tar2img of the tar img2tar wrote gives the same image:
# for a tar in directory order (GNU tar --sort=name), image -> tar ->
# image is byte-identical for every codec, and tar -> image -> tar is too.
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
	"$IMG2TAR" "$T/b.img" > "$T/t2.tar"
	check "$codec: tar -> image -> tar is byte-identical" cmp -s "$T/t1.tar" "$T/t2.tar"
	rm -f "$T"/*.img "$T"/t?.tar
done
"$TAR2IMG" -q "$T/a.img" "$T/sorted.tar" 2>/dev/null
if [ -w /dev/full ]; then
	"$IMG2TAR" "$T/a.img" > /dev/full 2> "$T/err"; rc=$?
	check "writing to a full device: exit 1 with a message" \
		sh -c "[ $rc -eq 1 ] && grep -q 'No space' '$T/err'"
fi
"$IMG2TAR" -o "$T/o.tar" "$T/a.img" && "$IMG2TAR" "$T/a.img" > "$T/s.tar" &&
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
