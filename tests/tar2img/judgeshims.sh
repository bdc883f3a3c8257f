#!/bin/sh
# SPDX-License-Identifier: MIT
# judgeshims.sh - a judge that refuses our image fails the test; a judge
# that cannot run here is a counted skip, or a failure where
# SQPACK_REQUIRE_JUDGES asks for it. A refusal used to be a note, and the
# judge tests passed whatever the kernel or squashfuse said. Shown on
# longpath.sh, which has the kernel, squashfuse, unsquashfs and sqfs2tar
# judge every codec, with shims written here on PATH:
#  - a mount and a squashfuse that read a peer's image (common.sh's probe,
#    below judge-probe/) and refuse every other: red, naming both;
#  - the same refusing every image, the probe's too: they cannot run, a
#    skip counted with the reason; green;
#  - no mount, squashfuse, unsquashfs or sqfs2tar on PATH: every check
#    skipped, exit 77; with SQPACK_REQUIRE_JUDGES=kernel, red.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3"
[ "$(id -u)" = 0 ] || skip "longpath.sh needs root"
judge_can kernel || skip "the kernel cannot judge here: $judge_why"
judge_can squashfuse || skip "squashfuse cannot judge here: $judge_why"

T=$SCRATCH
# shims DIR PATTERN: a mount and a squashfuse in DIR that refuse the
# images whose path does not match PATTERN (as case does) and hand the
# others, and every non-squashfs mount, to the real ones.
shims() {
	mkdir -p "$1" &&
	cat > "$1/mount" <<EOF &&
#!/bin/sh
case "\$*" in *squashfs*) case "\$*" in $2) ;; *)
	echo "mount: wrong fs type, bad option, bad superblock on /dev/loop9" >&2; exit 32;; esac;; esac
exec $(command -v mount) "\$@"
EOF
	cat > "$1/squashfuse" <<EOF &&
#!/bin/sh
case "\$1" in $2) ;; *) echo "squashfuse: Failed to read image \$1" >&2; exit 1;; esac
exec $(command -v squashfuse) "\$@"
EOF
	chmod +x "$1/mount" "$1/squashfuse"
}
# longpath NAME ENV...: longpath.sh run with the environment ENV added;
# sets rc, its output in $T/NAME.out.
longpath() {
	out=$T/$1.out; shift
	env SQPACK_REQUIRE_JUDGES= "$@" sh "$top_srcdir/tests/tar2img/longpath.sh" > "$out" 2>&1
	rc=$?
}

shims "$T/refuse-ours" '*/judge-probe/*' || exit 99
longpath ours PATH="$T/refuse-ours:$PATH"
check "refusing our image: longpath.sh is red (exit $rc)" test $rc = 1
check "... the kernel's refusal is a failure" grep -q "^FAIL: gzip: the kernel refuses our image" "$T/ours.out"
check "... squashfuse's refusal is a failure" grep -q "^FAIL: gzip: squashfuse refuses our image" "$T/ours.out"
check "... the tally counts them" grep -Eq '^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$' "$T/ours.out"

shims "$T/refuse-all" 'nothing-matches-this' || exit 99
longpath all PATH="$T/refuse-all:$PATH"
check "refusing every image: they cannot run, green (exit $rc)" test $rc = 0
check "... the kernel skipped with the reason" \
	grep -q "^SKIP: gzip: kernel mount: kernel cannot read mksquashfs's gzip image: mount: .*wrong fs type" "$T/all.out"
check "... squashfuse skipped with the reason" \
	grep -q "^SKIP: gzip: squashfuse: squashfuse cannot read mksquashfs's gzip image: squashfuse: Failed" "$T/all.out"
check "... and counted" grep -Eq '^[1-9][0-9]* passed, 0 failed, [1-9][0-9]* skipped$' "$T/all.out"
longpath allreq PATH="$T/refuse-all:$PATH" SQPACK_REQUIRE_JUDGES="squashfuse kernel-lzma"
check "refusing every image, judges required: red (exit $rc)" test $rc = 1
check "... names the requirement" \
	grep -q "^FAIL: gzip: kernel mount: .*(SQPACK_REQUIRE_JUDGES requires kernel)" "$T/allreq.out"
check "... but not for a codec it may lack" sh -c "! grep -q '^FAIL: lzma: kernel' '$T/allreq.out'"

# A PATH of links to every command but the judges.
mkdir "$T/nojudges" || exit 99
echo "$PATH" | tr : '\n' | while read -r d; do
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		n=${f##*/}
		case $n in mount|squashfuse|unsquashfs|sqfs2tar) continue;; esac
		[ -x "$f" ] && [ ! -e "$T/nojudges/$n" ] && ln -s "$f" "$T/nojudges/$n"
	done
done
longpath none PATH="$T/nojudges"
check "judges missing: every check skipped, exit 77 (exit $rc)" test $rc = 77
check "... the tally says so" grep -Eq '^0 passed, 0 failed, [1-9][0-9]* skipped$' "$T/none.out"
check "... with the reason" grep -q "^SKIP: gzip: kernel mount: mount not installed" "$T/none.out"
longpath nonereq PATH="$T/nojudges" SQPACK_REQUIRE_JUDGES=kernel,unsquashfs
check "judges missing but required: red (exit $rc)" test $rc = 1
check "... names the missing judge" \
	grep -q "^FAIL: gzip: unsquashfs: unsquashfs not installed (SQPACK_REQUIRE_JUDGES requires unsquashfs)" "$T/nonereq.out"
finish
