#!/bin/sh
# SPDX-License-Identifier: MIT
# containerd.sh - containerd's EROFS snapshotter line, replayed:
#   mkfs.erofs --tar=f --aufs --quiet -Enoinline_data --sort=none
#       [-U UUID] LAYER.erofs LAYER.tar
# on a layer tar with OCI whiteouts (a file's, one in the root, an opaque
# directory's, one whose directory the tar never lists), a hard link, xattrs, a device
# and a sparse file. The kernel's mount shows the whiteouts as 0/0
# character devices (mode 0000, the marker's owner and time), their
# directories with an empty trusted.overlay.origin, the opaque ones with
# trusted.overlay.opaque=y, everything else as in the tar; overlayfs,
# with the image as the upper of two lower layers, hides what they
# delete; fsck.erofs checks and extracts it. The tar as SOURCE and on
# stdin give the same bytes, so do --workers=1 and 2 and -E^inline_data;
# no file's tail is inline (-Enoinline_data) while one is without it;
# SOURCE_DATE_EPOCH is the build time; tar2img --whiteouts=overlay is
# the same packer, and gives SquashFS the same tree; --aufs leaves a
# directory's .wh. files as they are, as mkfs.erofs does. --ovlfs-strip
# leaves out whiteouts and overlayfs's xattrs, the tar's and a
# directory's.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar "$PYTHON3"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
T=$SCRATCH
U=6a5c4b3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d

# The layer: Python's tarfile for what it writes (pax xattrs, a device
# without root), GNU tar for the sparse file, appended.
cat > "$T/mk.py" << 'EOF'
import sys, tarfile
sys.path.insert(0, sys.argv[2])
from layertar import Layer
t = Layer(sys.argv[1])
add = t.add
add("etc", tarfile.DIRTYPE, mode=0o755)
add("etc/passwd", data=b"root:x:0:0::/root:/bin/sh\n",
    pax_headers={"SCHILY.xattr.user.note": "kept"})
add("etc/hl", tarfile.LNKTYPE, linkname="etc/passwd")
add("etc/.wh.shadow", mode=0o600, uid=5, gid=6)
add("opt", tarfile.DIRTYPE, mode=0o750)
add("opt/.wh..wh..opq")
add("opt/new", data=b"x" * 5000)
add("dev", tarfile.DIRTYPE, mode=0o755)
add("dev/null", tarfile.CHRTYPE, mode=0o666, devmajor=1, devminor=3)
add("implied/.wh..wh..opq")
add(".wh.gone", mode=0o640, uid=3)
t.close()
EOF
# One line per path: type, mode, owner, device, size, mtime, the first
# path of its inode (in directory order), xattrs (with-xattrs only) and a digest.
cat > "$T/ls.py" << 'EOF'
import hashlib, os, stat, sys
root, xattrs = sys.argv[1], sys.argv[2] == "xattrs"
seen, lines = {}, []
def entry(p, rel):
    st = os.lstat(p)
    first = seen.setdefault((st.st_ino, stat.S_IFMT(st.st_mode)) if not
                            stat.S_ISDIR(st.st_mode) else rel, rel)
    line = "%s %o %d:%d %d:%d %d %d =%s" % (rel, st.st_mode, st.st_uid, st.st_gid,
        os.major(st.st_rdev), os.minor(st.st_rdev),
        0 if stat.S_ISDIR(st.st_mode) else st.st_size, st.st_mtime, first)
    if xattrs:
        line += " " + ",".join("%s=%r" % (k, os.getxattr(p, k, follow_symlinks=False))
                               for k in sorted(os.listxattr(p, follow_symlinks=False)))
    if stat.S_ISREG(st.st_mode):
        line += " " + hashlib.sha256(open(p, "rb").read()).hexdigest()[:16]
    lines.append(line)
entry(root, ".")
for d, dirs, files in os.walk(root):
    dirs.sort()
    for name in sorted(dirs + files):
        p = os.path.join(d, name)
        entry(p, os.path.relpath(p, root))
print("\n".join(sorted(lines)))
EOF
run "make the layer" "$PYTHON3" "$T/mk.py" "$T/layer.tar" "$top_srcdir/tests/erofs_write" || finish
mkdir "$T/sp" && head -c 3000 /dev/urandom > "$T/sp/data" &&
	truncate -s 1M "$T/sp/holey" && printf tail >> "$T/sp/holey" &&
	tar --sparse --format=posix --mtime=@1600000000 --owner=0 --group=0 \
		-C "$T/sp" -cf "$T/sparse.tar" holey &&
	tar -A -f "$T/layer.tar" "$T/sparse.tar" || { fail "the sparse member"; finish; }
tar -tvf "$T/layer.tar" 2> /dev/null | grep -q '^-.* 1048580 .* holey$' ||
	{ fail "the layer's sparse member: $(tar -tvf "$T/layer.tar" 2>&1 | tail -1)"; finish; }
sum() { sha256sum | cut -c1-16; }
SUM=$(sum < "$T/sp/holey")
PW=$(printf 'root:x:0:0::/root:/bin/sh\n' | sum)
NEW=$(printf "%05000d" 0 | tr 0 x | sum)

mkfs_line() {
	env SOURCE_DATE_EPOCH=${SDE:-1600000000} "$MKFS" --tar=f --aufs --quiet \
		-Enoinline_data --sort=none "$@"
}
run "the line, the tar as SOURCE" mkfs_line -U $U "$T/l.erofs" "$T/layer.tar" || finish
run "the line, the tar on stdin" sh -c '"$@" < "$0"' "$T/layer.tar" \
	env SOURCE_DATE_EPOCH=1600000000 "$MKFS" --tar=f --aufs --quiet -Enoinline_data \
	--sort=none -U $U "$T/stdin.erofs" &&
	check "the tar on stdin: the same bytes" cmp -s "$T/l.erofs" "$T/stdin.erofs"
run "--workers=1" mkfs_line -U $U --workers=1 "$T/w1.erofs" "$T/layer.tar" &&
	run "--workers=2" mkfs_line -U $U --workers=2 "$T/w2.erofs" "$T/layer.tar" &&
	check "the same bytes for --workers=1 and 2" cmp -s "$T/w1.erofs" "$T/w2.erofs" &&
	check "and for the default" cmp -s "$T/w1.erofs" "$T/l.erofs"
run "-E^inline_data" env SOURCE_DATE_EPOCH=1600000000 "$MKFS" --tar=f --aufs --quiet \
	-E^inline_data --sort=none -U $U "$T/caret.erofs" "$T/layer.tar" &&
	check "-E^inline_data: the same bytes as -Enoinline_data" cmp -s "$T/caret.erofs" "$T/l.erofs"
run "without --sort" env SOURCE_DATE_EPOCH=1600000000 "$MKFS" --tar=f --aufs --quiet \
	-Enoinline_data -U $U "$T/nosort.erofs" "$T/layer.tar" &&
	check "--sort=none: the same bytes as without (data in the tar's order)" \
		cmp -s "$T/nosort.erofs" "$T/l.erofs"
SDE=1700000000 run "SOURCE_DATE_EPOCH=1700000000" mkfs_line -U $U "$T/sde.erofs" "$T/layer.tar"
le64() { od -An -v -tu8 -j"$2" -N8 "$1" | tr -d ' '; }
check "SOURCE_DATE_EPOCH is the build time" \
	test "$(le64 "$T/l.erofs" 1048)/$(le64 "$T/sde.erofs" 1048)" = 1600000000/1700000000
check "the UUID is -U's" test "$(od -An -v -tx1 -j1072 -N16 "$T/l.erofs" | tr -d ' \n')" = \
	"$(echo $U | tr -d -)"
run "--aufs alone (tails inline)" env SOURCE_DATE_EPOCH=1600000000 "$MKFS" --tar=f \
	--aufs --quiet "$T/inl.erofs" "$T/layer.tar"
# The layer names neither / nor implied/: mkfs.erofs 1.9 makes the root
# 0777 and a directory it implies 0755 with its parent's write bits (so
# 0777 here); tar2img keeps 0755, as sqfstar and tar2sqfs do.
IMGINFO=$SQP_BIN/imginfo
printf '%s\n' "/: mode 0755 != 0777" "/implied: mode 0755 != 0777" > "$T/exp.implied"
implied_only() { "$IMGINFO" diff "$1" "$2" > "$T/got.implied"; cmp -s "$T/exp.implied" "$T/got.implied"; }
run "tar2img --whiteouts=overlay" env SOURCE_DATE_EPOCH=1600000000 "$TAR2IMG" -q \
	--format erofs --whiteouts=overlay "$T/t2i.erofs" "$T/layer.tar" &&
	check "tar2img --whiteouts=overlay: --aufs's tree, but for the implied directories" \
		implied_only "$T/t2i.erofs" "$T/inl.erofs"

# The data layout of etc/passwd (26 bytes): its inode's i_format bits
# 1-3, at meta_blkaddr * 4096 + nid * 32; the nid is the mount's inode
# number.
layout() {
	mkdir -p "$T/m" && mount -t erofs -o loop,ro "$1" "$T/m" || return 1
	ly_nid=$(stat -c %i "$T/m/etc/passwd")
	umount "$T/m"
	ly_meta=$(od -An -tu4 -j$((1024 + 40)) -N4 "$1" | tr -d ' ')
	ly_fmt=$(od -An -tu2 -j$((ly_meta * 4096 + ly_nid * 32)) -N2 "$1" | tr -d ' ')
	echo $(((ly_fmt >> 1) & 7))
}

cat > "$T/expected" << EOF
. 40777 0:0 0:0 0 1600000000 =. trusted.overlay.origin=b''
dev 40755 0:0 0:0 0 1600000000 =dev 
dev/null 20666 0:0 1:3 0 1600000000 =dev/null 
etc 40755 0:0 0:0 0 1600000000 =etc trusted.overlay.origin=b''
etc/hl 100644 0:0 0:0 26 1600000000 =etc/hl user.note=b'kept' $PW
etc/passwd 100644 0:0 0:0 26 1600000000 =etc/hl user.note=b'kept' $PW
etc/shadow 20000 5:6 0:0 0 1600000000 =etc/shadow 
gone 20000 3:0 0:0 0 1600000000 =gone 
holey 100644 0:0 0:0 1048580 1600000000 =holey  $SUM
implied 40777 0:0 0:0 0 1600000000 =implied trusted.overlay.opaque=b'y'
opt 40750 0:0 0:0 0 1600000000 =opt trusted.overlay.opaque=b'y'
opt/new 100644 0:0 0:0 5000 1600000000 =opt/new  $NEW
EOF
if judge_ok "the kernel's EROFS mount" kernel erofs; then
	mkdir -p "$T/m"
	if mount -t erofs -o loop,ro "$T/l.erofs" "$T/m" 2> "$T/err"; then
		"$PYTHON3" "$T/ls.py" "$T/m" xattrs > "$T/got" 2>&1
		if diff "$T/expected" "$T/got" > "$T/diff"; then
			pass "the kernel's mount: the layer, whiteouts in overlayfs's form"
		else
			fail "the kernel's mount (< expected, > read)"; head -30 "$T/diff"
		fi
		# The image as containerd stacks it: over a lower layer.
		mkdir -p "$T/low/etc" "$T/low/opt" "$T/ov" && echo s > "$T/low/etc/shadow" &&
			echo o > "$T/low/opt/old" && echo k > "$T/low/keep"
		if mount -t overlay overlay -o "lowerdir=$T/m:$T/low" "$T/ov" 2> "$T/err"; then
			check "overlayfs: the whiteout hides etc/shadow, opt is opaque, keep stays" \
				test ! -e "$T/ov/etc/shadow" -a ! -e "$T/ov/opt/old" -a -f "$T/ov/keep" \
				-a -f "$T/ov/opt/new"
			umount "$T/ov"
		else
			skipc "no overlayfs mount here: $(head -1 "$T/err")"
		fi
		umount "$T/m"
		check "-Enoinline_data: etc/passwd is flat plain (no inline tail)" \
			test "$(layout "$T/l.erofs")" = 0
		check "without it: its tail is inline" test "$(layout "$T/inl.erofs")" = 2
	else
		fail "the kernel does not mount it: $(head -c 200 "$T/err")"
	fi
fi

# --ovlfs-strip (mkfs.erofs 1.9): the same layer as a tree of its own,
# no whiteout, no overlayfs xattr; an opaque marker still implies its
# directory. =0 is the default's bytes.
run "--ovlfs-strip" mkfs_line --ovlfs-strip -U $U "$T/strip.erofs" "$T/layer.tar"
run "--ovlfs-strip=0" mkfs_line --ovlfs-strip=0 -U $U "$T/strip0.erofs" "$T/layer.tar" &&
	check "--ovlfs-strip=0: the line's bytes" cmp -s "$T/strip0.erofs" "$T/l.erofs"
# tar2img's spelling (--whiteouts=overlay --ovlfs-strip): the same
# bytes; img2img's strips an image that holds overlayfs's metadata.
run "--aufs --ovlfs-strip (tails inline)" env SOURCE_DATE_EPOCH=1600000000 "$MKFS" \
	--tar=f --aufs --ovlfs-strip --quiet "$T/inl-strip.erofs" "$T/layer.tar" &&
	run "tar2img --whiteouts=overlay --ovlfs-strip" env SOURCE_DATE_EPOCH=1600000000 \
	"$TAR2IMG" -q --format erofs --whiteouts=overlay --ovlfs-strip "$T/t2i-strip.erofs" \
	"$T/layer.tar" && check "tar2img --ovlfs-strip: mkfs.erofs --aufs --ovlfs-strip's tree, but for the implied directories" \
		implied_only "$T/t2i-strip.erofs" "$T/inl-strip.erofs"
strip_seen() {
	"$IMGINFO" ls -R "$1" > "$T/ls.out" && "$IMGINFO" stat "$1" opt > "$T/stat.out" &&
		! grep -q -e 'etc/shadow$' -e '^gone$' "$T/ls.out" && ! grep -q overlay.opaque "$T/stat.out"
}
check "the overlay image holds whiteouts and an opaque directory" \
	sh -c '"$1" ls -R "$2" | grep -q "etc/shadow$" && "$1" stat "$2" opt | grep -q overlay.opaque' \
	- "$IMGINFO" "$T/t2i.erofs"
run "img2img --ovlfs-strip" "$SQP_BIN/img2img" -q --format erofs --ovlfs-strip \
	"$T/i2i.erofs" "$T/t2i.erofs" &&
	check "img2img --ovlfs-strip: no whiteout, opt not opaque" strip_seen "$T/i2i.erofs"
run "img2img --ovlfs-strip, SquashFS" "$SQP_BIN/img2img" -q --format squashfs --ovlfs-strip \
	"$T/i2i.sqfs" "$T/t2i.erofs" &&
	check "img2img --ovlfs-strip, SquashFS: no whiteout, opt not opaque" strip_seen "$T/i2i.sqfs"
sed -e '/^etc\/shadow /d' -e '/^gone /d' -e "s/trusted\.overlay\.[a-z]*=b'y*'//" \
	"$T/expected" > "$T/exp.strip"
# A directory's own whiteouts (0/0 devices) and opaque xattr, as
# overlayfs leaves them in an upper directory: stripped too.
if judge_ok "--ovlfs-strip: the kernel's EROFS mount" kernel erofs; then
	mkdir -p "$T/m" "$T/nd/o"
	if mount -t erofs -o loop,ro "$T/strip.erofs" "$T/m" 2> "$T/err"; then
		"$PYTHON3" "$T/ls.py" "$T/m" xattrs > "$T/got" 2>&1
		umount "$T/m"
		if diff "$T/exp.strip" "$T/got" > "$T/diff"; then
			pass "--ovlfs-strip: the layer without whiteouts or overlayfs xattrs"
		else
			fail "--ovlfs-strip (< expected, > read)"; head -30 "$T/diff"
		fi
	else
		fail "the kernel does not mount the --ovlfs-strip image: $(head -c 200 "$T/err")"
	fi
	if mknod "$T/nd/gone" c 0 0 && mknod "$T/nd/null" c 1 3 &&
		setfattr -n trusted.overlay.opaque -v y "$T/nd/o" &&
		setfattr -n user.k -v v "$T/nd/o" 2> "$T/err"; then
		run "--ovlfs-strip, a directory" "$MKFS" --ovlfs-strip --quiet "$T/nd.erofs" "$T/nd" &&
			mount -t erofs -o loop,ro "$T/nd.erofs" "$T/m" 2> "$T/err" &&
			"$PYTHON3" "$T/ls.py" "$T/m" xattrs | cut -d' ' -f1,2,4,8 > "$T/got" 2>&1
		umount "$T/m" 2> /dev/null
		printf '%s\n' ". 40755 0:0 " "null 20644 1:3 " "o 40755 0:0 user.k=b'v'" > "$T/exp.nd"
		check "--ovlfs-strip, a directory: no 0/0 device, no opaque xattr" \
			diff "$T/exp.nd" "$T/got"
		run "dir2img --ovlfs-strip" "$SQP_BIN/dir2img" -q --format erofs --ovlfs-strip \
			--xattr-name-filter "$T/nd2.erofs" "$T/nd" &&
			check "dir2img --ovlfs-strip: mkfs.erofs --ovlfs-strip's bytes" \
				cmp -s "$T/nd2.erofs" "$T/nd.erofs"
	else
		skipc "--ovlfs-strip, a directory: no device or trusted xattr made here"
	fi
fi

# The flag is the writer's, not EROFS's: SquashFS gets the same tree.
if judge_ok "tar2img --whiteouts=overlay, SquashFS: the kernel's mount" kernel; then
	mkdir -p "$T/sq"
	if ! env SOURCE_DATE_EPOCH=1600000000 "$TAR2IMG" -q --whiteouts=overlay "$T/l.sqfs" \
		"$T/layer.tar" 2> "$T/err"; then
		fail "tar2img --whiteouts=overlay (SquashFS): $(head -c 200 "$T/err")"
	elif mount -t squashfs -o loop,ro "$T/l.sqfs" "$T/sq" 2> "$T/err"; then
		"$PYTHON3" "$T/ls.py" "$T/sq" xattrs > "$T/got" 2>&1
		sed 's/^\(\.\|implied\) 40777 /\1 40755 /' "$T/expected" > "$T/exp.t2i"
		if diff "$T/exp.t2i" "$T/got" > "$T/diff"; then
			pass "tar2img --whiteouts=overlay: SquashFS holds the same tree"
		else
			fail "SquashFS (< expected, > read)"; head -30 "$T/diff"
		fi
		umount "$T/sq"
	else
		fail "the kernel does not mount the SquashFS image: $(head -c 200 "$T/err")"
	fi
fi

# Debian's fsck.erofs 1.5 extracts no xattrs and no hard links.
# Extracting devices and owners needs root; the check alone does not.
if judge_ok "fsck.erofs" fsck.erofs erofs; then
	if ! fsck.erofs "$T/l.erofs" > "$T/err" 2>&1; then
		fail "fsck.erofs refuses it: $(tail -3 "$T/err" | tr '\n' ' ')"
	elif [ "$(id -u)" != 0 ]; then
		pass "fsck.erofs checks it"
		skipc "fsck.erofs --extract: devices and owners need root"
	elif fsck.erofs --extract="$T/x" "$T/l.erofs" >> "$T/err" 2>&1; then
		"$PYTHON3" "$T/ls.py" "$T/x" none | sed 's/ =[^ ]*//; s/ *$//' | grep -v '^etc/hl ' > "$T/got"
		sed 's/ =[^ ]*//; s/ [a-z.]*=b'"'"'[^ ]*//; s/  / /; s/ *$//' "$T/expected" |
			grep -v '^etc/hl ' > "$T/exp2"
		if diff "$T/exp2" "$T/got" > "$T/diff"; then
			pass "fsck.erofs checks it and extracts the layer"
		else
			fail "fsck.erofs --extract (< expected, > read)"; head -30 "$T/diff"
		fi
	else
		fail "fsck.erofs --extract refuses it: $(tail -3 "$T/err" | tr '\n' ' ')"
	fi
fi
# mkfs.erofs reads the markers of a tar alone: a directory's stay files.
mkdir -p "$T/wd/a" && echo x > "$T/wd/.wh.gone" && : > "$T/wd/a/.wh..wh..opq"
run "--aufs with a directory" "$MKFS" --aufs --quiet "$T/wd.erofs" "$T/wd" &&
	run "img2tar of it" sh -c '"$1" "$2" | tar -tvf - > "$3"' - "$IMG2TAR" "$T/wd.erofs" "$T/wd.ls" &&
	check "--aufs with a directory: the .wh. files stored as files" sh -c \
		'grep -q "^-.* \.wh\.gone$" "$1" && grep -q "^-.* a/\.wh\.\.wh\.\.opq$" "$1"' - "$T/wd.ls"
# A layer that deletes a directory of the layers below and makes it
# again (.wh.d, then d/): the later entry wins, which the packer warns
# about; --quiet, as the snapshotter runs it, prints no warning, as
# mkfs.erofs --quiet prints errors alone. The tar comes on a pipe, as
# the snapshotter feeds it.
cat > "$T/again.py" << 'EOF'
import sys, tarfile
sys.path.insert(0, sys.argv[2])
from layertar import Layer
t = Layer(sys.argv[1])
t.add(".wh.d")
t.add("d", tarfile.DIRTYPE, mode=0o700)
t.add("d/f", data=b"f")
t.close()
EOF
run "a layer that makes a deleted directory again" \
	"$PYTHON3" "$T/again.py" "$T/again.tar" "$top_srcdir/tests/erofs_write" &&
	cat "$T/again.tar" | mkfs_line -U $U "$T/again.erofs" > "$T/again.out" 2>&1 &&
	check "--quiet: no warning (mkfs.erofs prints none)" test ! -s "$T/again.out" &&
	cat "$T/again.tar" | env SOURCE_DATE_EPOCH=1600000000 "$MKFS" --tar=f --aufs \
		-Enoinline_data --sort=none -U $U "$T/again2.erofs" > "$T/again2.out" 2>&1 &&
	check "without --quiet: the warning, the same bytes" sh -c \
		'grep -q "warning: .d. appears again" "$1" && cmp -s "$2" "$3"' - \
		"$T/again2.out" "$T/again.erofs" "$T/again2.erofs"
usage_refused "valid are none and path" "$MKFS" --tar=f --sort=bogus "$T/r.erofs" "$T/layer.tar"
usage_refused "valid are 0 and 1" "$MKFS" --tar=f --ovlfs-strip=yes "$T/r.erofs" "$T/layer.tar"
finish
