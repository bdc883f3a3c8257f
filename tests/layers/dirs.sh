#!/bin/sh
# SPDX-License-Identifier: MIT
# dirs.sh - dir2img --layers merges directory layers as tar2img merges
# tars, and --prefix DIR puts the merged tree below DIR in both tools.
# The layers of mklayers.py are extracted into directories (markers
# included, as files; the links to lower layers cannot be made there and
# are left out); the reference is apply.py on tars of those directories,
# and unsquashfs extracts our images. The spec's entries stand above the
# layers; a link one pass cannot keep fails by name; usage errors of the
# new options.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" tar
[ "$(id -u)" = 0 ] || skip "needs root (the reference tree's owners)"
umask 022
export SOURCE_DATE_EPOCH=1700000000
DIR2IMG=$SQP_BIN/dir2img

T=$SCRATCH
run "make the layers" $PYTHON3 "$top_srcdir/tests/layers/mklayers.py" "$T" || finish
for i in 1 2 3; do
	mkdir -p "$T/d$i" &&
	# links to a lower layer's file fail here by design: left out
	tar -C "$T/d$i" --numeric-owner --xattrs --xattrs-include='user.*' \
		-xf "$T/l$i.tar" 2> /dev/null
	run "tar of layer directory $i" tar -C "$T/d$i" --sort=name --numeric-owner \
		--xattrs --xattrs-include='user.*' -cf "$T/t$i.tar" . || finish
done
run "apply the layer directories (reference)" \
	$PYTHON3 "$top_srcdir/tests/layers/apply.py" "$T/ref" "$T/t1.tar" "$T/t2.tar" "$T/t3.tar" || finish

run "dir2img --layers --whiteouts=oci" "$DIR2IMG" -q -c gzip --layers --whiteouts=oci \
	"$T/dirs.img" "$T/d1" "$T/d2" "$T/d3" &&
if unsquashfs_ref "dir2img --layers" ours gzip "$T/dirs.img" "$T/out"; then
	check "dir2img --layers is the applied tree (unsquashfs)" \
		$TREECMP --ignore-root-mtime "$T/ref" "$T/out"
fi
run "tar2img of the same layers as tars" "$TAR2IMG" -q -c gzip --whiteouts=oci "$T/tars.img" \
	"$T/t1.tar" "$T/t2.tar" "$T/t3.tar" &&
if unsquashfs_ref "tar2img of the directory tars" ours gzip "$T/tars.img" "$T/out2"; then
	check "tar2img of the same layers gives the same tree" \
		$TREECMP --ignore-root-mtime "$T/out" "$T/out2"
fi

# --prefix: the tree below a/b; a is implied.
run "tar2img --prefix" "$TAR2IMG" -q -c gzip --whiteouts=oci --prefix /a/b/ "$T/pre.img" \
	"$T/t1.tar" "$T/t2.tar" "$T/t3.tar" &&
if unsquashfs_ref "tar2img --prefix" ours gzip "$T/pre.img" "$T/pre"; then
	check "tar2img --prefix a/b: the tree is below a/b" \
		$TREECMP --ignore-root-mtime "$T/ref" "$T/pre/a/b"
	check "tar2img --prefix a/b: nothing else at the top" \
		test "$(ls -A "$T/pre")" = a -a "$(ls -A "$T/pre/a")" = b
fi
run "dir2img --layers --prefix" "$DIR2IMG" -q -c gzip --layers --whiteouts=oci --prefix a/b \
	"$T/dpre.img" "$T/d1" "$T/d2" "$T/d3" &&
if unsquashfs_ref "dir2img --prefix" ours gzip "$T/dpre.img" "$T/dpre"; then
	check "dir2img --prefix a/b: the tree is below a/b" \
		$TREECMP --ignore-root-mtime "$T/ref" "$T/dpre/a/b"
fi

# The spec's entries stand above every layer (they come last).
run "tar2img of layers with a spec line" "$TAR2IMG" -q --whiteouts=oci \
	--spec-line 'etc d 700 5 5' "$T/spec.img" "$T/t1.tar" "$T/t2.tar" "$T/t3.tar" &&
"$IMG2TAR" "$T/spec.img" | tar tvf - --numeric-owner > "$T/spec.list" &&
check "a spec line's directory stands above the layers" \
	grep -qE '^drwx------ 5/5 .* etc/$' "$T/spec.list"

# A link to a file its own layer has, which an upper layer replaced: one
# pass has skipped the data; an error naming both, not a dropped link.
mkdir -p "$T/s1" "$T/s2" && echo one > "$T/s1/tool" && ln "$T/s1/tool" "$T/s1/tool-alias" &&
echo two > "$T/s2/tool" || fail "make the skipped-target directories"
"$DIR2IMG" -q --layers "$T/skip.img" "$T/s1" "$T/s2" 2> "$T/skip.err"
rc=$?
check "dir2img --layers, a link to a skipped file: exit 1 (got $rc)" test $rc -eq 1
check "dir2img --layers, a link to a skipped file: the message names both" \
	grep -q "hard link 'tool-alias' -> 'tool'.*one pass" "$T/skip.err"

# Hostile markers: a whiteout without a name, or of '..': exit 1, named.
for bad in "d/.wh." "d/.wh..." ; do
	$PYTHON3 -c 'import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    t.addfile(tarfile.TarInfo(sys.argv[2]), io.BytesIO(b""))' "$T/hostile.tar" "$bad" &&
	"$TAR2IMG" -q --whiteouts=oci "$T/hostile.img" "$T/t1.tar" "$T/hostile.tar" 2> "$T/hostile.err"
	rc=$?
	check "a marker '$bad': exit 1 (got $rc), named" \
		sh -c "test $rc -eq 1 && grep -qF \"'$bad': a whiteout without a name\" '$T/hostile.err'"
done

# Usage errors: exit 2, nothing made.
for bad in "--prefix a/../b" "--prefix ./a" "--prefix a//b" "--whiteouts=aufs"; do
	# shellcheck disable=SC2086
	"$TAR2IMG" -q $bad "$T/bad.img" "$T/t1.tar" 2> "$T/bad.err"
	rc=$?
	check "tar2img $bad: exit 2 (got $rc)" test $rc -eq 2 -a ! -e "$T/bad.img"
done
"$TAR2IMG" -q --layers "$T/bad.img" "$T/t1.tar" 2> /dev/null
rc=$?
check "tar2img --layers: exit 2 (got $rc)" test $rc -eq 2
"$TAR2IMG" -q "$T/bad.img" - "$T/t1.tar" - < "$T/t1.tar" 2> /dev/null
rc=$?
check "tar2img with '-' twice: exit 2 (got $rc)" test $rc -eq 2
finish
