#!/bin/sh
# SPDX-License-Identifier: MIT
# symlinks.sh - `-cat`, sqfscat and -follow-symlinks through the symbolic
# links of a PATH, on a usrmerge tree (/bin -> usr/bin): relative
# targets, ".." in a target and in the PATH (the parent of where a link
# led, as the kernel), chains, absolute targets (from the image's root),
# each file written as the kernel reads it in the source tree (or, for
# absolute targets, as the file they name); what does not resolve is
# named in unsquashfs's words and the others still written.
# unsquashfs 4.5.1 follows no link at all ("directory loop detected" on
# each), so it judges only what fails for both: a link loop and a
# dangling link refused with its message and exit status 2, and with
# -follow-symlinks the tree it extracts for them; -missing-symlinks
# alone follows links and ends at one that does not resolve (exit 1,
# nothing made), as it does.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
SQFSCAT=$(dirname "$UNSQ")/sqfscat
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
[ -x "$SQFSCAT" ] || skip "sqfscat not built"

T=$SCRATCH
s=$T/src
mkdir -p "$s/usr/bin" "$s/usr/lib/gnu" "$s/usr/lib64" "$s/usr/share" \
	"$s/etc/alternatives"
echo true > "$s/usr/bin/true"
echo env > "$s/usr/bin/env"
echo ld > "$s/usr/lib64/ld.so"
echo share > "$s/usr/share/f"
ln -s usr/bin "$s/bin"
ln -s usr/lib "$s/lib"
ln -s usr/lib64 "$s/lib64"
ln -s ../../bin/true "$s/usr/lib/sh"             # "..", then a link
ln -s sh "$s/usr/lib/sh2"                        # a chain
ln -s /lib64/ld.so "$s/usr/lib/gnu/ld.so"        # absolute, via a link
ln -s /etc/alternatives/editor "$s/usr/bin/editor"
ln -s /usr/bin/env "$s/etc/alternatives/editor"  # absolute chain
ln -s loop2 "$s/etc/loop1"
ln -s loop1 "$s/etc/loop2"
ln -s nowhere "$s/etc/dangling"
mksquashfs "$s" "$T/s.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99

# The relative ones, as the kernel reads them in the source tree.
rel="/bin/true bin/env usr/lib/sh /usr/lib/sh2 lib/../share/f ./bin/./true"
abs="usr/lib/gnu/ld.so /usr/bin/editor lib/gnu/ld.so"
(cd "$s" && for p in $rel; do cat "./$p"; done) > "$T/rel.want" || exit 99
cat "$s/usr/lib64/ld.so" "$s/usr/bin/env" "$s/usr/lib64/ld.so" > "$T/abs.want"

for prog in "$UNSQ -cat" "$SQFSCAT"; do
	name=${prog##*/}
	# shellcheck disable=SC2086
	$prog "$T/s.img" $rel > "$T/got" 2> "$T/err"; rc=$?
	[ $rc -eq 0 ] && cmp -s "$T/got" "$T/rel.want" &&
		pass "$name: relative links, '..', a chain: as the kernel reads them" ||
		fail "$name: relative links: exit $rc: $(head -c 300 "$T/err")"
	# shellcheck disable=SC2086
	$prog "$T/s.img" $abs > "$T/got" 2> "$T/err"; rc=$?
	[ $rc -eq 0 ] && cmp -s "$T/got" "$T/abs.want" &&
		pass "$name: absolute targets from the image's root" ||
		fail "$name: absolute targets: exit $rc: $(head -c 300 "$T/err")"
	# what does not resolve is named, what follows still written
	$prog "$T/s.img" etc/loop1 bin/true etc/dangling bin usr/bin/true/x \
		bin/env > "$T/got" 2> "$T/err"; rc=$?
	cat "$s/usr/bin/true" "$s/usr/bin/env" > "$T/want"
	if [ $rc -ne 0 ] && cmp -s "$T/got" "$T/want" &&
	   grep -qx 'cat: /etc/loop1 failed to resolve symbolic link' "$T/err" &&
	   grep -qx 'cat: /etc/dangling failed to resolve symbolic link' "$T/err" &&
	   grep -qx 'cat: /bin symbolic link does not resolve to a regular file' "$T/err" &&
	   grep -qx 'cat: /usr/bin/true is not a directory' "$T/err"; then
		pass "$name: a loop, a dangling link, a link to a directory refused; the rest written"
	else
		fail "$name: refusals: exit $rc: $(head -c 400 "$T/err")"
	fi
done

if command -v unsquashfs > /dev/null 2>&1 &&
   unsquashfs -v 2>&1 | grep -q 'unsquashfs version 4\.5\.1'; then
	# A loop and a dangling link as unsquashfs refuses them: the same
	# stdout (the files around them), exit status and message.
	for p in etc/loop1 etc/dangling; do
		unsquashfs -cat "$T/s.img" usr/bin/true $p > "$T/ref" 2> "$T/ref.err"; r1=$?
		"$UNSQ" -cat "$T/s.img" bin/true $p > "$T/got" 2> "$T/err"; r2=$?
		line="cat: /$p failed to resolve symbolic link"
		[ $r1 -eq $r2 ] && cmp -s "$T/ref" "$T/got" && grep -qx "$line" "$T/ref.err" &&
			grep -qx "$line" "$T/err" &&
			pass "-cat $p: refused as unsquashfs (exit $r2)" ||
			fail "-cat $p: exit $r2, unsquashfs $r1: $(head -c 300 "$T/err")"
	done
	# -follow-symlinks: a PATH that does not resolve stays as given,
	# none of the links met added; -missing-symlinks alone follows
	# too, and ends there.
	for opts in "-L" "-missing"; do
		for d in ref our; do
			prog=unsquashfs
			[ $d = our ] && prog=$UNSQ
			rm -rf "$T/$d.d"
			# shellcheck disable=SC2086
			$prog -n -q $opts -d "$T/$d.d" "$T/s.img" etc/loop1 etc/dangling \
				> /dev/null 2>&1
			echo "rc=$? $(cd "$T/$d.d" 2> /dev/null && find . | sort | tr '\n' ' ')" \
				> "$T/$d.tree"
		done
		cmp -s "$T/ref.tree" "$T/our.tree" &&
			pass "$opts: a loop and a dangling link: $(cat "$T/our.tree") as unsquashfs" ||
			fail "$opts: got '$(cat "$T/our.tree")', unsquashfs '$(cat "$T/ref.tree")'"
	done
else
	skipc "unsquashfs 4.5.1 not installed: refusals not compared"
fi
finish
