#!/bin/sh
# SPDX-License-Identifier: MIT
# security.sh - Android's line (issue 39): --fs-config-file (owners,
# modes, capabilities), --file-contexts (SELinux labels), --mount-point
# and --product-out, in sqpack-mkfs.erofs, dir2img and tar2img, for both
# formats. What was written is read back by imginfo and through the
# kernel's mount (stat, getfattr) and must be what the two files say for
# /system/PATH, the directories a tar only implies included. A bad line
# in either file, or a path the fs_config file lacks, fails with exit 1
# and leaves nothing behind.
. "$top_srcdir/tests/lib/common.sh"
T=$SCRATCH
need_tool getfattr
mkdir -p "$T/src/bin" "$T/src/etc" "$T/out"
echo 'sh' > "$T/src/bin/sh"
echo 'su' > "$T/src/bin/su"
echo 'hosts' > "$T/src/etc/hosts"
ln -s sh "$T/src/bin/ash"
chmod 600 "$T/src/bin/sh" "$T/src/bin/su"
# The root as Android writes it; a later line for a path wins.
cat > "$T/fs_config" <<'EOF'
 0 0 0755
system/bin 0 2000 0751
system/bin/sh 0 2000 0700
system/bin/sh 0 2000 0755
system/bin/su 0 2000 04750 capabilities=0x1000000c0
system/bin/ash 0 2000 0777
system/etc 0 0 0755
/system/etc/hosts 1000 1001 0644 owner=ignored
EOF
# Exact paths win over regexes; "-l" matches symlinks only.
cat > "$T/file_contexts" <<'EOF'
/system(/.*)?		u:object_r:system_file:s0
/system/bin/su		u:object_r:su_exec:s0
/system/etc(/.*)?	u:object_r:system_etc_file:s0
/system/bin/ash	-l	u:object_r:sh_link:s0
/system/bin/sh	-l	u:object_r:not_a_link:s0
EOF
# PATH MODE UID:GID LABEL CAPABILITY (hex, "-": none)
cat > "$T/want" <<'EOF'
. 755 0:0 u:object_r:system_file:s0 -
bin 751 0:2000 u:object_r:system_file:s0 -
bin/ash 777 0:2000 u:object_r:sh_link:s0 -
bin/sh 755 0:2000 u:object_r:system_file:s0 -
bin/su 4750 0:2000 u:object_r:su_exec:s0 01000002c0000000000000000100000000000000
etc 755 0:0 u:object_r:system_etc_file:s0 -
etc/hosts 644 1000:1001 u:object_r:system_etc_file:s0 -
EOF
PATHS=". bin bin/ash bin/sh bin/su etc etc/hosts"

hexval() { # the escaped string imginfo prints, as plain hex
	$PYTHON3 -c 'import sys
print(sys.argv[1].encode().decode("unicode_escape").encode("latin-1").hex())' "$1"
}
# The listing imginfo stat gives of IMAGE, in want's form.
by_imginfo() {
	for p in $PATHS; do
		"$SQP_BIN/imginfo" stat "$1" "$p" > "$T/stat" || return 1
		mode=$(sed -n 's/^mode: 0*\([0-7]*\) .*/\1/p' "$T/stat")
		own=$(sed -n 's/^uid: //p' "$T/stat"):$(sed -n 's/^gid: //p' "$T/stat")
		label=$(sed -n 's/^xattr: security.selinux="\(.*\)"$/\1/p' "$T/stat")
		cap=$(sed -n 's/^xattr: security.capability="\(.*\)"$/\1/p' "$T/stat")
		[ -z "$cap" ] || cap=$(hexval "$cap")
		echo "$p $mode $own ${label:--} ${cap:--}"
	done
}
# The same through the kernel's mount at DIR.
by_kernel() {
	for p in $PATHS; do
		label=$(getfattr -h --only-values -n security.selinux "$1/$p" 2>/dev/null)
		cap=$(getfattr -h -e hex -n security.capability "$1/$p" 2>/dev/null |
		      sed -n 's/^security.capability=0x//p')
		echo "$p $(stat -c '%a %u:%g' "$1/$p") ${label:--} ${cap:--}"
	done
}
# readback WHAT IMAGE FSTYPE: imginfo and the kernel read want.
readback() {
	if by_imginfo "$2" > "$T/got" && cmp -s "$T/want" "$T/got"; then
		pass "$1: imginfo reads the owners, modes, labels and capabilities"
	else
		fail "$1: imginfo reads otherwise"; diff "$T/want" "$T/got"
	fi
	judge=gzip
	[ "$3" = squashfs ] || judge=erofs
	judge_ok "$1: the kernel's mount" kernel "$judge" || return 0
	mkdir -p "$T/m"
	if ! mount -t "$3" -o loop,ro "$2" "$T/m" 2> "$T/mount.err"; then
		fail "$1: the kernel refuses the image: $(cat "$T/mount.err")"
		return 0
	fi
	by_kernel "$T/m" > "$T/got"
	umount "$T/m"
	if cmp -s "$T/want" "$T/got"; then
		pass "$1: the kernel reads the owners, modes, labels and capabilities"
	else
		fail "$1: the kernel reads otherwise"; diff "$T/want" "$T/got"
	fi
}

ANDROID="--mount-point=/system --fs-config-file=$T/fs_config --file-contexts=$T/file_contexts"
labels=yes
"$SQP_BIN/dir2img" -q --file-contexts="$T/file_contexts" "$T/out/probe.img" "$T/src" \
	> "$T/probe.err" 2>&1
probe=$?
if [ $probe = 2 ] && grep -q "no libselinux" "$T/probe.err"; then
	# configure --without-selinux: refused by name, nothing written;
	# fs_config is checked all the same, without the labels
	check "--file-contexts refused without libselinux" test ! -e "$T/out/probe.img"
	skipc "this build has no libselinux: the labels cannot be checked"
	labels=no
	ANDROID="--mount-point=/system --fs-config-file=$T/fs_config"
	sed 's/ u:object_r:[a-z_]*:s0 / - /' "$T/want" > "$T/want.nolabels" &&
	mv "$T/want.nolabels" "$T/want"
else
	check "--file-contexts builds" test $probe = 0
fi

# shellcheck disable=SC2086
run "sqpack-mkfs.erofs, Android's line" "$SQP_BIN/sqpack-mkfs.erofs" --quiet -zlz4hc,9 \
	$ANDROID --product-out="$T" -T 0 -U clear "$T/out/mkfs.img" "$T/src" &&
	readback "sqpack-mkfs.erofs" "$T/out/mkfs.img" erofs
# shellcheck disable=SC2086
run "dir2img, SquashFS" "$SQP_BIN/dir2img" -q $ANDROID "$T/out/sq.img" "$T/src" &&
	readback "dir2img (SquashFS)" "$T/out/sq.img" squashfs
# shellcheck disable=SC2086
run "dir2img, EROFS" "$SQP_BIN/dir2img" -q --format erofs $ANDROID "$T/out/er.img" "$T/src" &&
	readback "dir2img (EROFS)" "$T/out/er.img" erofs
# shellcheck disable=SC2086
run "dir2img -j1" "$SQP_BIN/dir2img" -q -j1 $ANDROID "$T/out/sq1.img" "$T/src" &&
	check "the same bytes for -j1 and any other -j" cmp -s "$T/out/sq.img" "$T/out/sq1.img"
# A tar of the files alone: the root and the directories are implied,
# and take their lines and labels all the same.
tar -C "$T/src" -cf "$T/src.tar" bin/sh bin/su bin/ash etc/hosts
# shellcheck disable=SC2086
run "tar2img, SquashFS" "$TAR2IMG" -q $ANDROID "$T/out/tar.img" < "$T/src.tar" &&
	readback "tar2img (SquashFS), directories implied" "$T/out/tar.img" squashfs
# The owner options come after fs_config's, as in mkfs.erofs.
# shellcheck disable=SC2086
run "sqpack-mkfs.erofs --force-uid" "$SQP_BIN/sqpack-mkfs.erofs" --quiet $ANDROID \
	--force-uid=7 "$T/out/uid.img" "$T/src" &&
	check "--force-uid wins over fs_config" \
	sh -c "'$SQP_BIN/imginfo' stat '$T/out/uid.img' etc/hosts | grep -qx 'uid: 7'"

# refused TOOL... : exit 1, the message names the file's line 2, and
# neither the image nor a temporary file is left in out/.
refused() {
	what=$1 msg=$2; shift 2
	rm -rf "$T/out" && mkdir "$T/out"
	"$@" > "$T/err" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q -- "$msg" "$T/err" && [ -z "$(ls -A "$T/out")" ]; then
		pass "$what: exit 1: $(head -1 "$T/err")"
	else
		fail "$what: expected exit 1, '$msg' and no file: exit $rc: $(cat "$T/err"; ls "$T/out")"
	fi
}
printf '%s\n' ' 0 0 0755' 'system/bin 0 x 0751' > "$T/bad_fs"
printf '%s\n' ' 0 0 0755' 'system/bin 0 0 0751 capabilities' > "$T/bad_fs2"
printf '%s\n' ' 0 0 0755' 'system/bin 0 0 08' > "$T/bad_fs3"
printf '%s\n' '/system(/.*)? u:object_r:a:s0' '/system/bin' > "$T/bad_fc"
printf '%s\n' '/system(/.*)? u:object_r:a:s0' '/system/x -q u:object_r:a:s0' > "$T/bad_fc2"
refused "fs_config: a gid that is no number" "bad_fs' line 2" \
	"$SQP_BIN/sqpack-mkfs.erofs" --fs-config-file="$T/bad_fs" "$T/out/b.img" "$T/src"
refused "fs_config: a key without a value" "bad_fs2' line 2" \
	"$SQP_BIN/dir2img" --fs-config-file="$T/bad_fs2" "$T/out/b.img" "$T/src"
refused "fs_config: a mode that is not octal" "bad_fs3' line 2" \
	"$TAR2IMG" --fs-config-file="$T/bad_fs3" "$T/out/b.img" "$T/src.tar"
if [ $labels = yes ]; then
	refused "file_contexts: a line without a label" "bad_fc:  *line 2" \
		"$SQP_BIN/sqpack-mkfs.erofs" --file-contexts="$T/bad_fc" "$T/out/b.img" "$T/src"
	refused "file_contexts: an unknown file type" "bad_fc2:  *line 2" \
		"$TAR2IMG" --file-contexts="$T/bad_fc2" "$T/out/b.img" "$T/src.tar"
fi
# mkfs.erofs stops at a path its canned fs_config lacks.
head -3 "$T/fs_config" > "$T/short_fs"
refused "fs_config without a line for a path" "is not in the fs_config file" \
	"$SQP_BIN/dir2img" --mount-point=/system --fs-config-file="$T/short_fs" \
	"$T/out/b.img" "$T/src"
grep -v ' 0 2000 0751$' "$T/fs_config" > "$T/nobin_fs"
refused "fs_config without a line for an implied directory" "'bin' (a directory the input implies)" \
	"$TAR2IMG" --mount-point=/system --fs-config-file="$T/nobin_fs" "$T/out/b.img" "$T/src.tar"

# Android's built-in fs_config (no --fs-config-file): the tables the
# build generated under --product-out (system's before vendor's), then
# libcutils' own (bin is root:shell 0751, bin/* 0755 with run-as's
# CAP_SETUID and CAP_SETGID, system/vendor/bin/* as vendor/bin/*), then
# root's 0755 or 0644. records FILE "PREFIX MODE UID GID CAPS"...
# writes a generated table: little-endian len, mode, uid, gid (16 bits),
# capabilities (64), the prefix and its NUL padded to 8 bytes.
records() {
	$PYTHON3 -c 'import struct, sys
with open(sys.argv[1], "wb") as f:
	for r in sys.argv[2:]:
		p, mode, uid, gid, caps = r.split()
		b = p.encode() + b"\0"
		b += b"\0" * (-(16 + len(b)) % 8)
		f.write(struct.pack("<HHHHQ", 16 + len(b), int(mode, 8), int(uid),
				    int(gid), int(caps, 0)) + b)' "$@"
}
mkdir -p "$T/prod/system/etc" "$T/prod/vendor/etc" "$T/droid/bin" "$T/droid/etc" \
	"$T/droid/vendor/bin"
for f in bin/sh bin/run-as etc/hosts etc/motd vendor/bin/tool; do echo "$f" > "$T/droid/$f"; done
ln -s sh "$T/droid/bin/ash"
records "$T/prod/system/etc/fs_config_files" "system/bin/sh 0700 1000 1000 0x2000" \
	"system/etc/mo* 0604 5 6 0"
records "$T/prod/system/etc/fs_config_dirs" "system/etc/ 0750 1000 1001 0"
records "$T/prod/vendor/etc/fs_config_files" "system/bin/sh 0111 7 7 0" \
	"system/etc/hosts 0600 2 3 0"
cat > "$T/want" <<'EOF'
. 755 0:0 - -
bin 751 0:2000 - -
bin/ash 755 0:2000 - -
bin/run-as 750 0:2000 - 01000002c0000000000000000000000000000000
bin/sh 700 1000:1000 - 0100000200200000000000000000000000000000
etc 750 1000:1001 - -
etc/hosts 600 2:3 - -
etc/motd 604 5:6 - -
vendor 755 0:2000 - -
vendor/bin 755 0:2000 - -
vendor/bin/tool 755 0:2000 - -
EOF
PATHS=". bin bin/ash bin/run-as bin/sh etc etc/hosts etc/motd vendor vendor/bin vendor/bin/tool"
DROID="--mount-point=/system --product-out=$T/prod/system/"
# shellcheck disable=SC2086
run "sqpack-mkfs.erofs, built-in fs_config" "$SQP_BIN/sqpack-mkfs.erofs" --quiet -zlz4hc,9 \
	$DROID -T 0 -U clear "$T/out/droid.img" "$T/droid" &&
	readback "sqpack-mkfs.erofs, built-in fs_config" "$T/out/droid.img" erofs
# shellcheck disable=SC2086
run "dir2img, built-in fs_config" "$SQP_BIN/dir2img" -q $DROID "$T/out/droid.sq" "$T/droid" &&
	readback "dir2img (SquashFS), built-in fs_config" "$T/out/droid.sq" squashfs
# A record cut short, or whose length leaves no prefix: the file and the
# record's offset, exit 1, nothing written.
mkdir -p "$T/bad1/system/etc" "$T/bad2/vendor/etc"
head -c 50 "$T/prod/system/etc/fs_config_files" > "$T/bad1/system/etc/fs_config_files"
records "$T/bad2/vendor/etc/fs_config_dirs" "system/etc 0755 0 0 0"
printf '\010\000' | dd of="$T/bad2/vendor/etc/fs_config_dirs" conv=notrunc 2> /dev/null
refused "a generated fs_config record cut short" \
	"bad1/system/etc/fs_config_files' offset 32: the record is cut short" \
	"$SQP_BIN/sqpack-mkfs.erofs" --mount-point=/system --product-out="$T/bad1" \
	"$T/out/b.img" "$T/droid"
refused "a generated fs_config record without room for its prefix" \
	"bad2/vendor/etc/fs_config_dirs' offset 0: a record's length" \
	"$SQP_BIN/dir2img" --mount-point=system --product-out="$T/bad2" "$T/out/b.img" "$T/droid"
finish
