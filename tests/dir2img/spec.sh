#!/bin/sh
# SPDX-License-Identifier: MIT
# spec.sh - --spec and --spec-line (mksquashfs pseudo definitions) give a
# build without root rights its device nodes, directories, symlinks,
# fifos, hard links and root-owned setuid files: dir2img runs as nobody
# (setpriv) on a tree nobody owns, and unsquashfs must list what the spec
# says. Bad lines are usage errors naming file and line; dynamic files are
# refused.
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG="$SQP_BIN/dir2img"
need_tool unsquashfs
T=$SCRATCH
chmod 755 "$T"
mkdir -p "$T/src/usr/bin" "$T/out"
echo '#!/bin/sh' > "$T/src/usr/bin/sudo"
chmod 755 "$T/src/usr/bin/sudo"
cat > "$T/spec" <<'SPEC'
# devices for a rootless build
dev           d 755 0 0
dev/console   c 600 0 5 5 1
dev/loop0     B 1700000000 660 0 6 7 0
dev/initctl   i 600 0 0 f
"dev/with space" i 644 0 0 s
bin/sh        s 777 0 0 /usr/bin/sudo
usr/bin/sudo  m 4755 0 0
usr/bin/sudo2 l usr/bin/sudo
SPEC

as_user=""
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null 2>&1 || skip "setpriv missing: cannot drop root"
	chown -R 65534:65534 "$T/src" "$T/out"
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if $as_user "$DIR2IMG" -q --spec "$T/spec" --spec-line 'etc d 700 0 0' \
	"$T/out/i.img" "$T/src" 2> "$T/err"; then
	pass "dir2img --spec as uid $($as_user id -u)"
	unsquashfs -lln "$T/out/i.img" | sed 's/^\([^ ]*\) \([^ ]*\) *\([0-9, ]*\) [^ ]* [^ ]* squashfs-root/\1 \2 \3 /; s/  */ /g' > "$T/ls"
	for want in "crw------- 0/5 5, 1 /dev/console" "brw-rw---- 0/6 7, 0 /dev/loop0" \
		"prw------- 0/0 0 /dev/initctl" "srw-r--r-- 0/0 0 /dev/with space" \
		"lrwxrwxrwx 0/0 13 /bin/sh -> /usr/bin/sudo" "-rwsr-xr-x 0/0 10 /usr/bin/sudo" \
		"drwx------ 0/0 3 /etc" "drwxr-xr-x 0/0 [0-9]* /dev"; do
		check "spec: $want" grep -qx -- "$want" "$T/ls"
	done
	check "spec: B line's own time" sh -c "unsquashfs -lln -UTC '$T/out/i.img' | grep -q '2023-11-14 22:13 squashfs-root/dev/loop0'"
	rm -rf "$T/u" && unsquashfs -q -n -d "$T/u" "$T/out/i.img" >/dev/null 2>&1
	check "spec: l makes a hard link" test "$(stat -c %h "$T/u/usr/bin/sudo2")" = 2
else
	fail "dir2img --spec as an unprivileged user"; cat "$T/err"
fi
"$DIR2IMG" -q "$T/out/n.img" "$T/src"
check "without --spec: sudo keeps its owner and mode" sh -c "unsquashfs -lln '$T/out/n.img' | grep -q '^-rwxr-xr-x $(stat -c %u/%g "$T/src/usr/bin/sudo") .*usr/bin/sudo\$'"

bad() { # bad WHAT LINE EXPECTED-MESSAGE
	printf '%s\n' "# a comment" "$2" > "$T/bad"
	"$DIR2IMG" -q "$T/out/b.img" "$T/src" --spec "$T/bad" 2> "$T/err"
	rc=$?
	if [ $rc = 2 ] && grep -q "line 2: .*$3" "$T/err" && [ ! -e "$T/out/b.img" ]; then
		pass "bad spec ($1): exit 2 naming line 2"
	else
		fail "bad spec ($1): exit $rc: $(cat "$T/err")"
	fi
}
bad "dynamic file" "date f 444 0 0 date" "not supported"
bad "mode not octal" "x d 999 0 0" "octal"
bad "minor too big" "x c 600 0 0 1 99999999" "out of range"
bad "missing fields" "x c 600 0 0" "number of fields"
bad "unknown type" "x q 600 0 0" "unknown type"
bad "dot-dot path" "../x d 755 0 0" "not allowed"
finish
