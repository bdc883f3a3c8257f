#!/bin/sh
# SPDX-License-Identifier: MIT
# taropts.sh - tar2img takes the entry options dir2img takes, with the
# same effect (one implementation in lib/policy): for each option set, the
# image of a tree and the image of a tar of it list the same entries, and
# differ from the image made without the option. Directory-only options
# are refused by tar2img with exit 2.
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG="$SQP_BIN/dir2img"
need_tool unsquashfs
unset SOURCE_DATE_EPOCH
T=$SCRATCH
S=$T/src
mkdir -p "$S/etc" "$S/var/cache" "$S/usr/lib"
echo a > "$S/etc/passwd"
echo b > "$S/var/cache/junk"
echo c > "$S/usr/lib/libc.so"
ln -s libc.so "$S/usr/lib/libc.so.6"
ln "$S/etc/passwd" "$S/etc/passwd-"
touch -d @1600000000 "$S/usr/lib/libc.so"
touch -d @1300000000 "$S/etc/passwd"
[ "$(id -u)" = 0 ] && chown -R 1000:1000 "$S"
find "$S" -exec touch -h -d @1300000000 {} + 2>/dev/null
touch -d @1600000000 "$S/usr/lib/libc.so"
tar cf "$T/src.tar" -C "$S" .

listing() { unsquashfs -lln -UTC "$1" 2>/dev/null | sed 's/^l[rwx-]\{9\}/lrwxrwxrwx/'; }
"$DIR2IMG" -q "$T/plain.img" "$S" || exit 99
listing "$T/plain.img" > "$T/plain.ls"

same_both() { # same_both WHAT OPTIONS...
	what=$1; shift
	if ! "$DIR2IMG" -qf "$@" "$T/d.img" "$S" 2> "$T/err" ||
	   ! "$TAR2IMG" -qf "$@" "$T/t.img" "$T/src.tar" 2>> "$T/err"; then
		fail "$what: $(cat "$T/err")"; return
	fi
	listing "$T/d.img" > "$T/d.ls"; listing "$T/t.img" > "$T/t.ls"
	if ! cmp -s "$T/d.ls" "$T/t.ls"; then
		fail "$what: dir2img and tar2img differ"; diff "$T/d.ls" "$T/t.ls" | head -10
	elif cmp -s "$T/d.ls" "$T/plain.ls"; then
		fail "$what: the option changed nothing"
	else
		pass "$what: same entries from the tree and the tar, not those without it"
	fi
}
same_both "--all-root" --all-root
same_both "--uid/--gid" --uid 5 --gid 6
same_both "--uid-offset/--gid-offset" --uid-offset 7 --gid-offset 8
same_both "--mtime" --mtime 1000000000
same_both "--clamp-mtime" --clamp-mtime --image-time 1500000000
same_both "--exclude" --exclude cache --exclude 'usr/**/*.so.6'
same_both "--exclude of a hard link's target" --exclude passwd
same_both "--spec-line" --spec-line 'dev/null c 666 0 0 1 3' --spec-line 'etc/passwd m 600 0 0'
same_both "--uncompressed and --offset" --uncompressed=all --offset 4096 --spec-line 'x d 700 0 0'
"$TAR2IMG" -qf --offset 4096 "$T/o.img" "$T/src.tar"
check "tar2img --offset: unsquashfs -o 4096 reads it" sh -c "unsquashfs -o 4096 -lln '$T/o.img' | grep -q etc/passwd"
for opt in "--sort $T/x" --keep-dir --one-file-system --no-hardlinks --skip-unreadable \
	--on-change=warn --verbose; do
	"$TAR2IMG" -q $opt "$T/r.img" "$T/src.tar" 2> "$T/err"
	rc=$?
	check "tar2img $opt: refused with exit 2 and a reason ($(head -1 "$T/err"))" \
		test $rc = 2 -a ! -e "$T/r.img"
done
finish
