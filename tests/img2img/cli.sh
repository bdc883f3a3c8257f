#!/bin/sh
# SPDX-License-Identifier: MIT
# cli.sh - img2img's command line: usage errors exit 2; OUTPUT may be
# BASE (with -f, as any existing OUTPUT), and a failed run leaves it as
# it was; the packers' entry options apply to the base's entries;
# -X or -b alone keep the base's codec; --offset reads an image inside
# another file and writes the new one after the same leading bytes.
. "$top_srcdir/tests/lib/common.sh"
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
codec_built gzip || skip "gzip not built"

S=$SCRATCH/src
mkdir -p "$S/d" && seq 1 100000 > "$S/big" && echo small > "$S/d/small" &&
chown 5:6 "$S/d/small" && touch -d @1500000000 "$S/d/small" || exit 99
tar -C "$S" --sort=name -cf "$SCRATCH/src.tar" . || exit 99
base=$SCRATCH/base.img
run "tar2img" "$TAR2IMG" -q -c gzip "$base" "$SCRATCH/src.tar" || finish

usage() { # usage WHAT ARGS...: exit 2 and a message
	what=$1; shift
	"$IMG2IMG" "$@" > /dev/null 2> "$SCRATCH/err"
	rc=$?
	check "$what: exit 2 (got $rc) and a message" sh -c "test $rc = 2 && test -s '$SCRATCH/err'"
}
usage "no operands"
usage "no BASE" "$SCRATCH/x.img"
usage "unknown option" --frobnicate "$SCRATCH/x.img" "$base"
"$TAR2IMG" --delete x "$SCRATCH/x.img" "$SCRATCH/src.tar" > /dev/null 2>&1
check "tar2img refuses --delete (exit 2)" test $? = 2
check "--help names --delete" sh -c "'$IMG2IMG' --help | grep -q -- --delete"
"$IMG2IMG" -q "$SCRATCH/x.img" "$SCRATCH/nonexistent.img" 2> "$SCRATCH/err"
check "a missing BASE: exit 1 with its name" \
	sh -c "test $? = 1 && grep -q nonexistent.img '$SCRATCH/err' && test ! -e '$SCRATCH/x.img'"

cp "$base" "$SCRATCH/self.img" && cp "$base" "$SCRATCH/orig.img" || exit 99
"$IMG2IMG" -q "$SCRATCH/self.img" "$SCRATCH/self.img" 2> /dev/null
check "OUTPUT = BASE without -f: refused, the image untouched" \
	sh -c "test $? = 1 && cmp -s '$SCRATCH/self.img' '$SCRATCH/orig.img'"
mkdir -p "$SCRATCH/fix/d" && echo fixed > "$SCRATCH/fix/d/small" || exit 99
run "OUTPUT = BASE with -f" "$IMG2IMG" -q -f "$SCRATCH/self.img" "$SCRATCH/self.img" "$SCRATCH/fix" &&
check "OUTPUT = BASE: patched in place" test "$("$IMGINFO" cat "$SCRATCH/self.img" d/small)" = fixed
printf 'not a tar' > "$SCRATCH/bad.tar"
cp "$SCRATCH/self.img" "$SCRATCH/before.img"
"$IMG2IMG" -q -f "$SCRATCH/self.img" "$SCRATCH/self.img" "$SCRATCH/bad.tar" 2> /dev/null
check "a failed run in place: exit 1, the image as it was" \
	sh -c "test $? = 1 && cmp -s '$SCRATCH/self.img' '$SCRATCH/before.img'"

run "--all-root --mtime" "$IMG2IMG" -q --all-root --mtime 1234567890 "$SCRATCH/own.img" "$base" &&
{
	"$IMGINFO" stat "$SCRATCH/own.img" d/small > "$SCRATCH/stat"
	check "--all-root: owner 0:0" sh -c "grep -qx 'uid: 0' '$SCRATCH/stat' && grep -qx 'gid: 0' '$SCRATCH/stat'"
	check "--mtime: the time" grep -q '^mtime: 1234567890 ' "$SCRATCH/stat"
}
run "--uid --gid --exclude" "$IMG2IMG" -q --uid 7 --gid 8 --exclude big "$SCRATCH/ex.img" "$base" &&
{
	"$IMGINFO" stat "$SCRATCH/ex.img" d/small > "$SCRATCH/stat"
	check "--uid --gid: 7:8" sh -c "grep -qx 'uid: 7' '$SCRATCH/stat' && grep -qx 'gid: 8' '$SCRATCH/stat'"
	check "--exclude: big is gone" sh -c "! '$IMGINFO' stat '$SCRATCH/ex.img' big > /dev/null 2>&1"
}
run "-b 64K alone" "$IMG2IMG" -q -b 64K "$SCRATCH/b.img" "$base" &&
{
	"$IMGINFO" "$SCRATCH/b.img" > "$SCRATCH/sum"
	check "-b alone keeps gzip" grep -q '^codec: *gzip' "$SCRATCH/sum"
	check "-b alone: block size 65536" grep -q '^block size: *65536' "$SCRATCH/sum"
	check "-b alone: reads equal" "$IMGINFO" diff -q "$base" "$SCRATCH/b.img"
}

# An option only EROFS can hold, for a SquashFS output (the base's
# format): refused by name once the format is known, no image.
usage_refused "--pcluster-size: an EROFS option" "$IMG2IMG" -q --pcluster-size 64K \
	"$SCRATCH/e.img" "$base"
check "no image left by the refusal" test ! -e "$SCRATCH/e.img"

# An AppImage: 8192 bytes of runtime, then the image.
head -c 8192 /dev/urandom > "$SCRATCH/runtime" &&
cat "$SCRATCH/runtime" "$base" > "$SCRATCH/app.AppImage" || exit 99
run "--offset 8192" "$IMG2IMG" -q --offset 8192 "$SCRATCH/new.AppImage" \
	"$SCRATCH/app.AppImage" "$SCRATCH/fix" &&
{
	check "--offset: the runtime is copied" \
		sh -c "head -c 8192 '$SCRATCH/new.AppImage' | cmp -s - '$SCRATCH/runtime'"
	check "--offset: the image after it has the layer" \
		test "$("$IMGINFO" --offset 8192 cat "$SCRATCH/new.AppImage" d/small)" = fixed
	check "--offset: and the rest of the base" \
		sh -c "'$IMGINFO' --offset 8192 cat '$SCRATCH/new.AppImage' big | cmp -s - '$S/big'"
}
finish
