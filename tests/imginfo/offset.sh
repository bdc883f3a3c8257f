#!/bin/sh
# SPDX-License-Identifier: MIT
# offset.sh - imginfo --offset N reads an image that starts N bytes into
# its file (tar2img --offset, an AppImage's layout), and so do img2tar
# and img2dir (the same tar as the bare image's, the source tree back);
# unsquashfs -o N
# reads the same file; the summary, ls -lR and stat equal those of the
# bare image cut out of it; check passes (its data blocks are found, so
# the block reader counts from N too) and cat gives the files' bytes;
# a byte changed in a data block past N is found by check. Without the
# offset the file is no image (exit 1), an offset past the end is exit
# 1 and a bad value exit 2.
. "$top_srcdir/tests/lib/common.sh"
IMGINFO=$SQP_BIN/imginfo
T=$SCRATCH
N=12345

mkdir -p "$T/src/d" || exit 99
head -c 300000 /dev/urandom > "$T/src/d/random" || exit 99
seq 1 50000 > "$T/src/d/count" || exit 99
echo small > "$T/src/small" || exit 99
tar -C "$T/src" -cf "$T/src.tar" . || exit 99
head -c $N /dev/urandom > "$T/app.img" || exit 99
cp "$T/app.img" "$T/prefix" || exit 99
run "tar2img --offset $N" "$TAR2IMG" -q -c gzip --offset $N "$T/app.img" "$T/src.tar"
check "tar2img kept the $N bytes before the image" cmp -n $N "$T/prefix" "$T/app.img"
tail -c +$((N + 1)) "$T/app.img" > "$T/bare.img" || exit 99

if judge_ok "unsquashfs -o $N reads the file" unsquashfs gzip; then
	check "unsquashfs -o $N reads the file (judge)" \
		sh -c "unsquashfs -o $N -ls '$T/app.img' | grep -q 'squashfs-root/d/count'"
fi
# same WHAT ARGS...: imginfo --offset N ARGS on app.img equals imginfo
# ARGS on bare.img (the file name replaced)
same() {
	what=$1; shift
	"$IMGINFO" --offset $N "$@" "$T/app.img" > "$T/a" 2>&1; ra=$?
	"$IMGINFO" "$@" "$T/bare.img" > "$T/b" 2>&1; rb=$?
	sed "s#$T/app.img#IMG#" "$T/a" > "$T/a2"
	sed "s#$T/bare.img#IMG#" "$T/b" > "$T/b2"
	if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ -s "$T/a2" ] && cmp -s "$T/a2" "$T/b2"; then
		pass "$what with --offset equals the bare image's"
	else
		fail "$what with --offset (exit $ra) differs from the bare image's (exit $rb)"
		diff "$T/a2" "$T/b2" | head -10
	fi
}
same "the summary"
same "the JSON summary" --json
same "ls -lR" ls -lR
"$IMGINFO" --offset=$N stat "$T/app.img" /d/count > "$T/a" 2>&1
"$IMGINFO" stat "$T/bare.img" /d/count > "$T/b" 2>&1
check "stat with --offset=N equals the bare image's" cmp -s "$T/a" "$T/b"
check "check passes with --offset" "$IMGINFO" --offset $N check -q "$T/app.img"
for f in d/random d/count small; do
	"$IMGINFO" --offset $N cat "$T/app.img" "/$f" > "$T/out" 2> /dev/null
	check "cat $f with --offset gives its bytes" cmp -s "$T/out" "$T/src/$f"
done
check "diff of the file with itself, --offset" "$IMGINFO" --offset $N diff "$T/app.img" "$T/app.img"
"$IMG2TAR" --offset $N -o "$T/a.tar" "$T/app.img" 2> /dev/null
"$IMG2TAR" -o "$T/b.tar" "$T/bare.img" 2> /dev/null
check "img2tar --offset writes the bare image's tar" \
	sh -c "test -s '$T/a.tar' && cmp -s '$T/a.tar' '$T/b.tar'"
run "img2dir --offset" "$SQP_BIN/img2dir" -q --offset $N "$T/app.img" "$T/tree"
check "img2dir --offset gives the tree back" diff -r "$T/src" "$T/tree"

# A byte of d/random's first data block (it is stored raw: random
# bytes do not compress) is changed; only a reader that counts from N
# reads it there.
pos=$($PYTHON3 - "$T/bare.img" <<'EOF'
import sys
data = open(sys.argv[1], "rb").read()
src = open(sys.argv[1].replace("bare.img", "src/d/random"), "rb").read()
print(data.find(src[1000:1064]))
EOF
)
if [ "${pos:--1}" -gt 0 ]; then
	cp "$T/app.img" "$T/bad.img" || exit 99
	# Flip the byte's bits: writing a fixed byte left it unchanged (and
	# the test red) whenever the random data already held that byte.
	$PYTHON3 -c 'import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 0xff]))' \
		"$T/bad.img" $((N + pos + 10)) || exit 99
	"$IMGINFO" --offset $N check -q "$T/bad.img" > "$T/out" 2>&1; rc=$?
	"$IMGINFO" --offset $N cat "$T/bad.img" /d/random 2> /dev/null | cmp -s - "$T/src/d/random"; rcat=$?
	# raw blocks carry no checksum: check cannot see the change, cat must
	if [ $rc -eq 0 ] && [ $rcat -ne 0 ]; then
		pass "a byte changed past the offset is what cat reads"
	else
		fail "changed byte: check exit $rc, cat differs $rcat"; cat "$T/out"
	fi
else
	fail "d/random's bytes not found stored raw in the image"
fi

"$IMGINFO" "$T/app.img" > /dev/null 2> "$T/err"; rc=$?
check "without --offset the file is no image (exit 1)" test $rc -eq 1
"$IMGINFO" --offset 99999999 "$T/app.img" > /dev/null 2> "$T/err"; rc=$?
check "an offset past the end: exit 1 with a message" \
	sh -c "test $rc -eq 1 && grep -q 'past the end' '$T/err'"
"$IMGINFO" --offset 12x "$T/app.img" > /dev/null 2>&1; rc=$?
check "--offset 12x: exit 2" test $rc -eq 2
"$IMGINFO" --offset > /dev/null 2>&1; rc=$?
check "--offset without a value: exit 2" test $rc -eq 2
finish
