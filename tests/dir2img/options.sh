#!/bin/sh
# SPDX-License-Identifier: MIT
# options.sh - every entry and layout option of dir2img changes the image
# the way its manual says, each checked so that the check fails without
# the option: owners, times, exclusions, --sort (where the data lands),
# --uncompressed (superblock flags, raw bytes findable), --offset (kernel
# mount at the offset, the bytes in front kept), --keep-dir and several
# trees, --one-file-system, --no-hardlinks, --no-xattrs, --verbose. A
# directory given as OUTPUT (mksquashfs's order) is a usage error.
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG="$SQP_BIN/dir2img"
need_tool unsquashfs "$PYTHON3"
[ "$(id -u)" = 0 ] || skip "needs root: owners, a tmpfs mount, loop mounts"

unset SOURCE_DATE_EPOCH
T=$SCRATCH
S=$T/src
mkdir -p "$S/etc" "$S/boot" "$S/var/cache/apt" "$S/usr/share/locale/de" "$S/links"
echo root > "$S/etc/passwd"
$PYTHON3 -c 'import os, sys
for i, name in enumerate(sys.argv[2:]):
    with open(os.path.join(sys.argv[1], name), "wb") as f:
        f.write((b"%s-%d " % (name.encode(), i)) * 30000)' "$S" boot/vmlinuz boot/initrd usr/zzz var/cache/apt/pkgcache
echo mo > "$S/usr/share/locale/de/x.mo"
echo txt > "$S/usr/share/locale/de/x.txt"
echo same > "$S/links/a" && ln "$S/links/a" "$S/links/b"
setfattr -n user.note -v kept "$S/etc/passwd"
chown -R 1234:5678 "$S"
touch -d @1400000000 "$S/etc/passwd"
touch -d @1600000000 "$S/usr/zzz"

ls_of() { unsquashfs -lln "$1" 2>/dev/null | sed 's/^[^ ]* \([^ ]*\) *[0-9,]* *\([0-9-]* [0-9:]*\) squashfs-root/\1 \2 /'; }
owner_of() { unsquashfs -lln "$1" 2>/dev/null | awk -v p="squashfs-root/$2" '$NF == p || $(NF-2) == p { print $2 }'; }
mtime_of() { unsquashfs -lln -UTC "$1" 2>/dev/null | awk -v p="squashfs-root/$2" '$NF == p { print $4, $5 }'; }
run() { "$DIR2IMG" -q -f "$@" 2> "$T/err" || { echo "dir2img $*: $(cat "$T/err")"; return 1; }; }

run "$T/plain.img" "$S"
check "without options: owners kept (1234/5678)" test "$(owner_of "$T/plain.img" etc/passwd)" = 1234/5678
run --all-root "$T/i.img" "$S"
check "--all-root: 0/0" test "$(owner_of "$T/i.img" etc/passwd)" = 0/0
run --uid 7 --gid 9 "$T/i.img" "$S"
check "--uid 7 --gid 9" test "$(owner_of "$T/i.img" usr/zzz)" = 7/9
run --uid-offset -1000 --gid-offset 100 "$T/i.img" "$S"
check "--uid-offset -1000 --gid-offset 100: 234/5778" test "$(owner_of "$T/i.img" boot/initrd)" = 234/5778

run --mtime 1000000000 "$T/i.img" "$S"
check "--mtime: every entry" test "$(unsquashfs -lln -UTC "$T/i.img" | grep -vc '2001-09-09 01:46')" = 0
SOURCE_DATE_EPOCH=1500000000 run --clamp-mtime "$T/i.img" "$S"
check "--clamp-mtime: newer clamped" test "$(mtime_of "$T/i.img" usr/zzz)" = "2017-07-14 02:40"
check "--clamp-mtime: older kept" test "$(mtime_of "$T/i.img" etc/passwd)" = "2014-05-13 16:53"
check "without --clamp-mtime: newer kept" test "$(mtime_of "$T/plain.img" usr/zzz)" = "2020-09-13 12:26"
check "--clamp-mtime without an image time: exit 2" sh -c "env -u SOURCE_DATE_EPOCH '$DIR2IMG' -q --clamp-mtime '$T/c.img' '$S' 2>/dev/null; test \$? = 2 && ! test -e '$T/c.img'"
sb_time() { $PYTHON3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(12); print(struct.unpack("<I", d[8:12])[0])' "$1"; }
run --image-time 1234567890 "$T/i.img" "$S"
check "--image-time: superblock time" test "$(sb_time "$T/i.img")" = 1234567890
check "default image time: the newest mtime" test "$(sb_time "$T/plain.img")" = "$(find "$S" -printf '%Ts\n' | sort -n | tail -1)"

run --exclude cache --exclude 'usr/share/**/*.mo' "$T/i.img" "$S"
ls_of "$T/i.img" > "$T/i.ls"
check "--exclude cache: the directory and its contents left out" sh -c "! grep -q cache '$T/i.ls'"
check "--exclude with **: x.mo left out, x.txt kept" sh -c "! grep -q 'x.mo' '$T/i.ls' && grep -q x.txt '$T/i.ls'"
check "without --exclude: both there" sh -c "ls_of() { unsquashfs -lln \"\$1\"; }; ls_of '$T/plain.img' | grep -q cache/apt/pkgcache"
printf '# comment\n\nboot/*\n' > "$T/excl"
run --exclude-from "$T/excl" "$T/i.img" "$S"
check "--exclude-from: boot/* left out, boot kept" sh -c "unsquashfs -lln '$T/i.img' | grep -q 'squashfs-root/boot\$' && ! unsquashfs -lln '$T/i.img' | grep -q vmlinuz"

# --sort: with raw data the files can be found; priorities put usr/zzz first
pos() { $PYTHON3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(d.find(open(sys.argv[2], "rb").read(64)))' "$1" "$2"; }
run --uncompressed=data,fragments "$T/raw.img" "$S"
printf 'usr/zzz 100\nboot/initrd 50\n' > "$T/sort"
run --uncompressed=data,fragments --sort "$T/sort" "$T/sorted.img" "$S"
a=$(pos "$T/raw.img" "$S/usr/zzz") b=$(pos "$T/raw.img" "$S/boot/vmlinuz")
check "unsorted: usr/zzz after boot/vmlinuz ($a > $b)" test "$a" -gt "$b"
a=$(pos "$T/sorted.img" "$S/usr/zzz") b=$(pos "$T/sorted.img" "$S/boot/initrd") c=$(pos "$T/sorted.img" "$S/boot/vmlinuz")
check "--sort: usr/zzz, then boot/initrd, then the rest ($a < $b < $c)" test "$a" -lt "$b" -a "$b" -lt "$c"
flags() { $PYTHON3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(26); print(struct.unpack("<H", d[24:26])[0])' "$1"; }
check "--uncompressed=data,fragments: flags 0x2 and 0x8" test $(( $(flags "$T/raw.img") & 10 )) = 10
check "default: neither flag" test $(( $(flags "$T/plain.img") & 10 )) = 0
check "default: data not stored raw" test "$(pos "$T/plain.img" "$S/usr/zzz")" = -1
run --uncompressed=all "$T/all.img" "$S"
check "--uncompressed=all: flags 0x1 0x2 0x8 0x100 0x800" test $(( $(flags "$T/all.img") & 0x90b )) = $((0x90b))
rm -rf "$T/u" && unsquashfs -q -n -d "$T/u" "$T/all.img" >/dev/null 2>&1
same_tree "--uncompressed=all: unsquashfs extracts the same tree" "$T/u" "$S"

# --offset: a runtime in front stays, the kernel mounts at the offset
head -c 8192 /dev/urandom > "$T/runtime"
cp "$T/runtime" "$T/app"
run --offset 8192 "$T/app" "$S"
check "--offset: the 8192 bytes in front kept" cmp -n 8192 "$T/runtime" "$T/app"
mkdir -p "$T/mnt"
if ! judge_ok "--offset: kernel mount" kernel zstd; then
	:
elif mount -t squashfs -o loop,ro,offset=8192 "$T/app" "$T/mnt" 2> "$T/err"; then
	same_tree "--offset: kernel mount at offset 8192 equals the source" "$T/mnt" "$S"
	umount "$T/mnt"
else
	fail "--offset: the kernel refuses our image at offset 8192: $(head -1 "$T/err")"
fi
check "--offset: unsquashfs -o 8192 lists it" sh -c "unsquashfs -o 8192 -lln '$T/app' | grep -q vmlinuz"
check "without --offset: not at 8192" sh -c "! unsquashfs -o 8192 -lln '$T/plain.img' >/dev/null 2>&1"

# several trees, --keep-dir, clashing names
run "$T/i.img" "$S/etc" "$S/boot"
check "two DIRs: top-level etc and boot" sh -c "unsquashfs -lln '$T/i.img' | grep -q 'squashfs-root/etc/passwd\$' && unsquashfs -lln '$T/i.img' | grep -q 'squashfs-root/boot/initrd\$'"
run --keep-dir "$T/i.img" "$S/etc"
check "--keep-dir: etc/passwd" sh -c "unsquashfs -lln '$T/i.img' | grep -q 'squashfs-root/etc/passwd\$'"
run "$T/i.img" "$S/etc"
check "one DIR: its contents at the root" sh -c "unsquashfs -lln '$T/i.img' | grep -q 'squashfs-root/passwd\$'"
"$DIR2IMG" -q "$T/clash.img" "$S/etc" "$S/usr/../etc" 2> "$T/err"
check "clashing top-level names: exit 2, no image" test $? = 2 -a ! -e "$T/clash.img"
# mksquashfs's order (the image last), with and without -f: a usage error
# that says the image comes first; the tree is left alone.
for f in "" -f; do
	"$DIR2IMG" -q $f "$S/etc" "$T/swapped.img" 2> "$T/err"
	check "DIR OUTPUT swapped ${f:-without -f}: exit 2, the hint, nothing written" \
		sh -c "test $? = 2 && grep -q 'is a directory; the image comes first' '$T/err' &&
		       test -f '$S/etc/passwd' && ! test -e '$T/swapped.img'"
done

# --one-file-system: the mount point is packed, its contents are not
mkdir -p "$S/proc"
if mount -t tmpfs tmpfs "$S/proc" 2>/dev/null; then
	echo other > "$S/proc/other"
	run --one-file-system "$T/i.img" "$S"
	check "--one-file-system: mount point kept, contents left out" sh -c "unsquashfs -lln '$T/i.img' | grep -q 'squashfs-root/proc\$' && ! unsquashfs -lln '$T/i.img' | grep -q proc/other"
	run "$T/i.img" "$S"
	check "without --one-file-system: contents packed" sh -c "unsquashfs -lln '$T/i.img' | grep -q proc/other"
	umount "$S/proc"
else
	skipc "--one-file-system: cannot mount a tmpfs here"
fi
rmdir "$S/proc"

links_of() { rm -rf "$T/u" && unsquashfs -q -n -d "$T/u" "$1" >/dev/null 2>&1 && stat -c %h "$T/u/links/a"; }
check "hard links kept by default" test "$(links_of "$T/plain.img")" = 2
run --no-hardlinks "$T/i.img" "$S"
check "--no-hardlinks: each path its own inode" test "$(links_of "$T/i.img")" = 1
check "xattrs kept by default" sh -c "rm -rf '$T/u' && unsquashfs -q -n -d '$T/u' '$T/plain.img' >/dev/null 2>&1 && getfattr -n user.note '$T/u/etc/passwd' 2>/dev/null | grep -q kept"
run --no-xattrs "$T/i.img" "$S"
check "--no-xattrs: none" sh -c "rm -rf '$T/u' && unsquashfs -q -n -d '$T/u' '$T/i.img' >/dev/null 2>&1 && ! getfattr -n user.note '$T/u/etc/passwd' 2>/dev/null"
"$DIR2IMG" -f --verbose "$T/i.img" "$S" > "$T/out" 2> "$T/err"
check "--verbose: each path on stderr, nothing but the summary on stdout" sh -c "grep -q \"adding '/usr/zzz'\" '$T/err' && ! grep -q adding '$T/out'"
check "without --verbose: no list" sh -c "'$DIR2IMG' -f '$T/i.img' '$S' 2>&1 >/dev/null | grep -vq adding; test \$? -ne 0"

# --skip-unreadable, as a user who cannot read one file
if command -v setpriv >/dev/null 2>&1; then
	U=$T/unreadable
	mkdir -p "$U/tree/d" "$U/out"
	echo ok > "$U/tree/d/readable"
	echo secret > "$U/tree/d/secret"
	chmod 600 "$U/tree/d/secret"
	ln "$U/tree/d/secret" "$U/tree/d/secret2"   # its hard link goes too
	chown 65534:65534 "$U/out"
	chmod 755 "$T" "$U"
	nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$nobody "$DIR2IMG" -q "$U/out/a.img" "$U/tree" 2> "$T/err"
	check "unreadable file: exit 1 naming it, no image" \
		sh -c "test $? = 1 && grep -q \"'d/secret': Permission denied\" '$T/err' && test ! -e '$U/out/a.img'"
	$nobody "$DIR2IMG" -q --skip-unreadable "$U/out/b.img" "$U/tree" 2> "$T/err"
	check "--skip-unreadable: exit 0 with a warning naming it" \
		sh -c "test $? = 0 && grep -q \"warning: 'd/secret'.*left out\" '$T/err'"
	check "--skip-unreadable: its hard link left out with a warning naming both" \
		grep -q "warning: 'd/secret2': hard link to 'd/secret', which was left out" "$T/err"
	check "--skip-unreadable: the file left out, the rest packed" \
		sh -c "unsquashfs -lln '$U/out/b.img' | grep -q d/readable && ! unsquashfs -lln '$U/out/b.img' | grep -q secret"
else
	skipc "--skip-unreadable: setpriv missing, cannot drop root"
fi
finish
