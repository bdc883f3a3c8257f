#!/bin/sh
# SPDX-License-Identifier: MIT
# tarindex.sh - sqpack-mkfs.erofs --tar=i, the index containerd's EROFS
# snapshotter writes in its index mode (mkfs.erofs --tar=i --aufs
# --quiet, then the layer's tar appended so that it keeps its digest):
# on a tiny layer (a hard link, a pax xattr, a symlink, a device, an
# empty file, files of 1 and of 137 blocks of 512 bytes), the kernel
# mounts the index with the tar appended, and with the tar as the
# device named by -o device=, and every file reads as the tar's
# (GNU tar's extraction); img2dir and img2tar read the appended form,
# img2dir the tar given as --device;
# the tar's bytes are unchanged; the tar on stdin, through a pipe and
# --workers give the same bytes; the members' data is sought over, not
# read. Records cross 512-byte blocks (files' indexes, inodes; not
# inline tails): two layers fit in fewer blocks, and the kernel reads
# them. With --aufs a whiteout is a 0/0 device. Sparse members
# in GNU tar's four forms: each hole a chunk without a block, the kernel
# reads them as GNU tar extracts them. A compressed tar, a sparse member
# whose data is off 512-byte blocks and a codec are refused. --tar=headerball (the tar's
# headers alone): the kernel mounts the tree, every file its size in
# zeros. tar2img's --index, --headers-only and --whiteouts=overlay give
# the same bytes, only with --format erofs. Debian's fsck.erofs 1.5
# reads no 512-byte blocks (neither those of mkfs.erofs 1.9.3's own
# --tar=i images): where it says so, its check is a counted skip.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar "$PYTHON3"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
IMG2DIR="$SQP_BIN/img2dir"
T=$SCRATCH

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
add("etc/.wh.shadow", mode=0o600)
add("big", data=bytes((i * 7 + i // 251) & 0xFF for i in range(70000)))
add("empty")
add("link", tarfile.SYMTYPE, linkname="etc/passwd")
add("dev", tarfile.DIRTYPE, mode=0o755)
add("dev/null", tarfile.CHRTYPE, mode=0o666, devmajor=1, devminor=3)
add("tail", data=b"t" * 600, uid=7, gid=8)
t.close()
EOF
run "make the layer" "$PYTHON3" "$T/mk.py" "$T/layer.tar" "$top_srcdir/tests/erofs_write" || finish
DIGEST=$(sha256sum < "$T/layer.tar")
mkdir "$T/ref" && tar --xattrs --xattrs-include='*' -xpf "$T/layer.tar" -C "$T/ref" ||
	{ fail "GNU tar extracts the layer"; finish; }
# The layer names no root: mkfs.erofs 1.9 makes it 0777 (tar2img 0755).
chmod 0777 "$T/ref"

run "--tar=i" "$MKFS" --tar=i --quiet -Uclear "$T/i.erofs" "$T/layer.tar" || finish
run "--tar=i, the tar on stdin" sh -c '"$1" --tar=i --quiet -Uclear "$2" < "$3"' - \
	"$MKFS" "$T/stdin.erofs" "$T/layer.tar" &&
	check "the tar on stdin: the same bytes" cmp -s "$T/i.erofs" "$T/stdin.erofs"
run "--tar=i --workers=1" "$MKFS" --tar=i --quiet -Uclear --workers=1 "$T/w1.erofs" \
	"$T/layer.tar" && check "--workers=1: the same bytes" cmp -s "$T/i.erofs" "$T/w1.erofs"
run "--tar=i, the tar through a pipe" sh -c 'cat "$3" | "$1" --tar=i --quiet -Uclear "$2"' - \
	"$MKFS" "$T/pipe.erofs" "$T/layer.tar" &&
	check "the tar through a pipe: the same bytes" cmp -s "$T/i.erofs" "$T/pipe.erofs"
check "the layer's tar is unchanged (its digest)" test "$(sha256sum < "$T/layer.tar")" = "$DIGEST"
check "the index holds no file data (under 4 KiB)" test "$(wc -c < "$T/i.erofs")" -lt 4096
cat "$T/i.erofs" "$T/layer.tar" > "$T/layer.erofs"
check "the appended tar is the layer's bytes" test \
	"$(tail -c "$(wc -c < "$T/layer.tar")" "$T/layer.erofs" | sha256sum)" = "$DIGEST"

# The index reads the tar's headers and seeks past its data, as
# mkfs.erofs 1.9 does: for a layer with a 12 MiB member, under 1 MiB
# read (rchar, which counts a reaped child's reads in its parent's; a
# read-ahead would read most of the member).
mkdir "$T/bigm" && truncate -s 12M "$T/bigm/zeros" && cp "$T/ref/etc/passwd" "$T/bigm/after" &&
	tar -C "$T/bigm" -cf "$T/bigm.tar" zeros after || fail "the layer with a 12 MiB member"
if [ -r /proc/self/io ]; then
	got=$(bytes_read "$MKFS" --tar=i --quiet "$T/bigm.erofs" "$T/bigm.tar") ||
		fail "--tar=i of the layer with a 12 MiB member"
	check "--tar=i seeks past the data: ${got:-?} of $(wc -c < "$T/bigm.tar") bytes read" \
		test -n "$got" -a "${got:-$((1 << 20))}" -lt $((1 << 20))
else
	skipc "--tar=i seeks past the data: no /proc/self/io (task I/O accounting)"
fi

rm -rf "$T/x" && run "img2dir of the index with its tar" "$IMG2DIR" "$T/layer.erofs" "$T/x" &&
	same_tree "img2dir: the tar's tree" "$T/x" "$T/ref"
rm -rf "$T/y" && mkdir "$T/y" &&
	run "img2tar of it" sh -c '"$1" "$2" > "$3"' - "$IMG2TAR" "$T/layer.erofs" "$T/t2.tar" &&
	run "GNU tar extracts img2tar's" tar --xattrs --xattrs-include='*' -xpf "$T/t2.tar" -C "$T/y" &&
	same_tree "img2tar: the tar's tree" "$T/y" "$T/ref"
"$IMG2DIR" "$T/i.erofs" "$T/z" > "$T/err" 2>&1
check "the index alone: img2dir names the missing device" grep -q "extra device 1" "$T/err"
rm -rf "$T/x" && run "img2dir --device TAR" "$IMG2DIR" --device "$T/layer.tar" "$T/i.erofs" "$T/x" &&
	same_tree "img2dir --device: the tar's tree" "$T/x" "$T/ref"

if judge_ok "the kernel's EROFS mount" kernel erofs; then
	mkdir -p "$T/m"
	erofs_device_mounts "the tar" "$T/layer.erofs" "$T/i.erofs" "$T/layer.tar" "$T/ref" "$T/m"
	# containerd's line: a whiteout is overlayfs's 0/0 device.
	if run "--tar=i --aufs" "$MKFS" --tar=i --aufs --quiet "$T/a.erofs" "$T/layer.tar" &&
		cat "$T/a.erofs" "$T/layer.tar" > "$T/al.erofs" &&
		mount -t erofs -o loop,ro "$T/al.erofs" "$T/m" 2> "$T/err"; then
		check "--tar=i --aufs: etc/shadow is a 0/0 device, etc/passwd the tar's" sh -c \
			'test "$(stat -c %F:%t:%T "$1/etc/shadow")" = "character special file:0:0" &&
			cmp -s "$1/etc/passwd" "$2/etc/passwd"' - "$T/m" "$T/ref"
		umount "$T/m"
	else
		fail "--tar=i --aufs: not mounted: $(head -c 200 "$T/err")"
	fi
fi
check "the layer's tar is still unchanged" test "$(sha256sum < "$T/layer.tar")" = "$DIGEST"

# index_layer NAME WHAT BLOCKS LABEL: --tar=i of $T/NAME.tar fits in
# BLOCKS blocks of 512 bytes; with the tar appended img2dir reads it as
# GNU tar extracts the tar, and so does the kernel (appended, and as a
# device).
index_layer() {
	local n=$1 what=$2 blocks=$3 label=$4
	run "--tar=i of $what" "$MKFS" --tar=i --quiet -Uclear "$T/$n.erofs" "$T/$n.tar" ||
		return 0
	check "$label: $(wc -c < "$T/$n.erofs") bytes, at most $blocks blocks" \
		test "$(wc -c < "$T/$n.erofs")" -le $((blocks * 512))
	mkdir "$T/${n}ref" && tar -xf "$T/$n.tar" -C "$T/${n}ref" && chmod 0777 "$T/${n}ref" &&
		cat "$T/$n.erofs" "$T/$n.tar" > "$T/${n}l.erofs" ||
		fail "GNU tar extracts $what"
	rm -rf "$T/x" && run "img2dir of $what" "$IMG2DIR" "$T/${n}l.erofs" "$T/x" &&
		same_tree "img2dir: $what's tree" "$T/x" "$T/${n}ref"
	if judge_ok "$what: the kernel's EROFS mount" kernel erofs; then
		erofs_device_mounts "$what's tar" "$T/${n}l.erofs" "$T/$n.erofs" \
			"$T/$n.tar" "$T/${n}ref" "$T/m"
	fi
}

# A file's chunk index may cross into the next block (only its inode
# must not), as mkfs.erofs 1.9 lays them: 40 groups of a symlink of 3
# slots and 7 files of 2 (an inode and one index) fill 57 blocks of 512
# bytes, where each group's last file would open a block (59). The
# kernel and img2dir read every file of it.
"$PYTHON3" - "$T/cross.tar" << 'EOF'
import io, sys, tarfile
t = tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT)
for g in range(40):
    ti = tarfile.TarInfo("l%02d" % g)
    ti.type, ti.linkname, ti.mtime = tarfile.SYMTYPE, "t" * 40, 1700000000
    t.addfile(ti)
    for i in range(7):
        ti = tarfile.TarInfo("f%02d.%d" % (g, i))
        ti.size, ti.mtime = 1, 1700000000
        t.addfile(ti, io.BytesIO(b"%d" % i))
t.close()
EOF
index_layer cross "the crossing layer" 57 "indexes cross blocks"

# An inode and its xattrs may cross a block too, only an inline tail
# must not (the kernel reads the rest by its own place): 160 files of
# extended inodes and one index (3 slots each: 5 to a block of 16
# slots, and the 6th would open one), then 40 symlinks (3 slots, 40
# bytes inline) fill 47 blocks, where records kept whole in blocks
# took 49 (mkfs.erofs 1.9.3 too). The kernel and img2dir read them.
"$PYTHON3" - "$T/ext.tar" << 'EOF'
import io, sys, tarfile
t = tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT)
for g in range(160):
    ti = tarfile.TarInfo("e%03d" % g)
    ti.size, ti.mtime = 1, 1600000000 + g
    t.addfile(ti, io.BytesIO(b"%d" % (g % 10)))
for g in range(40):
    ti = tarfile.TarInfo("l%03d" % g)
    ti.type, ti.linkname, ti.mtime = tarfile.SYMTYPE, "./" * 18 + "e%03d" % g, 1700000000
    t.addfile(ti)
t.close()
EOF
index_layer ext "the extended inodes' layer" 47 "inodes cross blocks"

if judge_ok "fsck.erofs" fsck.erofs erofs; then
	if fsck.erofs "$T/layer.erofs" > "$T/err" 2>&1; then
		pass "fsck.erofs checks the index with its tar"
	elif grep -q "blksize 512 isn't supported" "$T/err"; then
		skipc "fsck.erofs: $(grep -o "blksize 512 isn't supported" "$T/err") (nor in mkfs.erofs 1.9.3's own --tar=i images)"
	else
		fail "fsck.erofs refuses the index: $(tail -3 "$T/err" | tr '\n' ' ')"
	fi
fi

# --tar=headerball: the layer's headers alone (pax ones whole), as a
# builder makes one to index data kept elsewhere: the same tree, every
# file of its size and all zeros; fsck.erofs checks it.
"$PYTHON3" "$top_srcdir/tests/lib/headerball.py" "$T/layer.tar" "$T/hb.tar" ||
	fail "making the headerball"
run "--tar=headerball" "$MKFS" --tar=headerball --quiet "$T/hb.erofs" "$T/hb.tar"
# (a symlink's mode is the extractor's, a directory's size the file
# system's: not compared)
listing() {
	(cd "$1" && find . \( -type l -printf '%p l %U:%G %l\n' \) -o \
		\( -type f -printf '%p f %s %m %U:%G\n' \) -o -printf '%p %y %m %U:%G\n' |
		LC_ALL=C sort)
}
zeros() { find "$1" -type f -exec cat {} + | tr -d '\000' | wc -c; }
if judge_ok "--tar=headerball: the kernel's EROFS mount" kernel erofs; then
	if mount -t erofs -o loop,ro "$T/hb.erofs" "$T/m" 2> "$T/err"; then
		listing "$T/m" > "$T/hb.got"
		listing "$T/ref" > "$T/hb.exp"
		check "--tar=headerball, the kernel: the tar's tree, sizes and owners" \
			diff "$T/hb.exp" "$T/hb.got"
		check "--tar=headerball, the kernel: every file reads as zeros" \
			test "$(zeros "$T/m")" = 0 -a "$(zeros "$T/ref")" != 0
		umount "$T/m"
	else
		fail "the kernel does not mount the headerball's image: $(head -c 200 "$T/err")"
	fi
fi
if judge_ok "--tar=headerball: fsck.erofs" fsck.erofs erofs; then
	check "--tar=headerball: fsck.erofs checks it" fsck.erofs "$T/hb.erofs"
fi

# tar2img's spelling of the three lines (--format erofs --index,
# --headers-only, --whiteouts=overlay for --aufs): their bytes. Only
# EROFS holds an index, which compresses nothing and reads one tar.
# The one difference: the root the tar does not name (0755 here, 0777
# in mkfs.erofs's line).
T2I="$TAR2IMG -q --format erofs --uuid clear"
but_root() {   # DEVICE (- for none) IMAGE1 IMAGE2
	if [ "$1" = - ]; then set -- diff "$2" "$3"; else set -- --device "$1" diff "$2" "$3"; fi
	"$SQP_BIN/imginfo" "$@" > "$T/root.diff"
	test "$(cat "$T/root.diff")" = "/: mode 0755 != 0777"
}
run "tar2img --index" $T2I --index "$T/t-i.erofs" "$T/layer.tar" &&
	check "tar2img --index: --tar=i's tree but the root's mode" \
		but_root "$T/layer.tar" "$T/t-i.erofs" "$T/i.erofs"
run "--tar=i --aufs -Uclear" "$MKFS" --tar=i --aufs --quiet -Uclear "$T/ac.erofs" \
	"$T/layer.tar" && run "tar2img --index --whiteouts=overlay" $T2I --index \
	--whiteouts=overlay "$T/t-a.erofs" "$T/layer.tar" &&
	check "tar2img --index --whiteouts=overlay: --tar=i --aufs's tree but the root's mode" \
		but_root "$T/layer.tar" "$T/t-a.erofs" "$T/ac.erofs"
run "tar2img --headers-only" "$TAR2IMG" -q --format erofs --headers-only "$T/t-hb.erofs" \
	"$T/hb.tar" &&
	check "tar2img --headers-only: --tar=headerball's tree but the root's mode" \
		but_root - "$T/t-hb.erofs" "$T/hb.erofs"
usage_refused "index: only EROFS" "$TAR2IMG" -q --index "$T/r.img" "$T/layer.tar"
usage_refused "headers-only: only EROFS" "$TAR2IMG" -q --headers-only "$T/r.img" "$T/hb.tar"
usage_refused "no file data to compress" $T2I -c lz4 --index "$T/r.img" "$T/layer.tar"
usage_refused "one tar, not layers" $T2I --index "$T/r.img" "$T/layer.tar" "$T/layer.tar"
usage_refused "give one" $T2I --index --headers-only "$T/r.img" "$T/layer.tar"
usage_refused "is an option of tar2img" "$SQP_BIN/dir2img" --format erofs --index \
	"$T/r.img" "$T/ref"
usage_refused "is an option of tar2img" "$SQP_BIN/img2img" --headers-only "$T/r.img" \
	"$T/i.erofs"
check "nothing left behind by the refusals" test ! -e "$T/r.img"

# Refused: what the index cannot point into.
gzip -c "$T/layer.tar" > "$T/layer.tgz"
"$MKFS" --tar=i --quiet "$T/r.erofs" "$T/layer.tgz" > "$T/err" 2>&1
rc=$?
check "a compressed tar: refused (exit 1, the member named)" sh -c \
	'test "$1" = 1 && grep -q "etc/passwd.*uncompressed tar" "$2"' - "$rc" "$T/err"
# A sparse map whose data region is not on a 512-byte block of the file
# (GNU.sparse.map 0.1: 5 bytes at 100): no chunk can point at it. One
# whose 512 bytes at 512 would cut a 1 TiB file into 2^31 chunks: over
# the limit, not a heap of that many words.
"$PYTHON3" - "$T" << 'EOF'
import io, sys, tarfile
for name, size, at, n in (("odd", 10000, 100, 5), ("huge", 1 << 40, 512, 512)):
    t = tarfile.open("%s/%s.tar" % (sys.argv[1], name), "w", format=tarfile.PAX_FORMAT)
    ti = tarfile.TarInfo(name)
    ti.size = n
    ti.pax_headers = {"GNU.sparse.size": str(size), "GNU.sparse.numblocks": "1",
                      "GNU.sparse.map": "%d,%d" % (at, n)}
    t.addfile(ti, io.BytesIO(b"x" * n))
    t.close()
EOF
"$MKFS" --tar=i --quiet "$T/r.erofs" "$T/odd.tar" > "$T/err" 2>&1
rc=$?
check "a sparse member off 512-byte blocks: refused, named" sh -c \
	'test "$1" = 1 && grep -q "odd.*not on 512-byte blocks" "$2"' - "$rc" "$T/err"
"$MKFS" --tar=i --quiet "$T/r.erofs" "$T/huge.tar" > "$T/err" 2>&1
rc=$?
check "a sparse member of 2^31 chunks: refused, named" sh -c \
	'test "$1" = 1 && grep -q "huge.*2147483648 chunks" "$2"' - "$rc" "$T/err"
"$MKFS" --tar=i -zlz4 --quiet "$T/r.erofs" "$T/layer.tar" > "$T/err" 2>&1
check "a codec: refused" grep -q "no codec" "$T/err"
usage_refused "valid are f, i and headerball" "$MKFS" --tar=x "$T/r.erofs" "$T/layer.tar"
check "nothing left behind by the failures" test ! -e "$T/r.erofs"

# Sparse members, as GNU tar writes them in its four forms (pax 0.0,
# 0.1, 1.0, old GNU 'S'): data, a hole, data, a hole, an unaligned tail;
# a file that is all hole; a dense one after them. Each hole a chunk
# with no block, each data region chunks into the tar: the kernel reads
# every file as GNU tar extracts it, the tar's bytes unchanged.
mkdir "$T/sp" && head -c 4096 "$T/layer.tar" > "$T/sp/multi" &&
	truncate -s 64K "$T/sp/multi" && head -c 8192 "$T/layer.tar" >> "$T/sp/multi" &&
	truncate -s 200K "$T/sp/multi" && printf tail >> "$T/sp/multi" &&
	truncate -s 64K "$T/sp/allhole" && head -c 1000 "$T/layer.tar" > "$T/sp/dense" ||
	{ fail "the sparse files"; finish; }
for form in 0.0 0.1 1.0 gnu; do
	case $form in
	gnu) fmt="--format=gnu" ;;
	*) fmt="--format=posix --sparse-version=$form" ;;
	esac
	# shellcheck disable=SC2086
	tar --sparse $fmt -C "$T/sp" -cf "$T/sp-$form.tar" multi allhole dense ||
		{ fail "GNU tar $form: the sparse tar"; continue; }
	check "sparse $form: GNU tar stored the holes as holes" \
		test "$(wc -c < "$T/sp-$form.tar")" -lt 102400
	sum=$(sha256sum < "$T/sp-$form.tar")
	mkdir "$T/spref-$form" && tar -xf "$T/sp-$form.tar" -C "$T/spref-$form" ||
		{ fail "GNU tar $form extracts its tar"; continue; }
	chmod 0777 "$T/spref-$form"   # no root in the tar: 1.9's 0777
	run "--tar=i, sparse $form" "$MKFS" --tar=i --quiet "$T/sp-$form.erofs" \
		"$T/sp-$form.tar" || continue
	cat "$T/sp-$form.erofs" "$T/sp-$form.tar" > "$T/spl-$form.erofs"
	check "sparse $form: the tar unchanged" test "$(sha256sum < "$T/sp-$form.tar")" = "$sum"
	if judge_ok "sparse $form: the kernel's EROFS mount" kernel erofs; then
		if mount -t erofs -o loop,ro "$T/spl-$form.erofs" "$T/m" 2> "$T/err"; then
			same_tree "sparse $form, the kernel: every file as GNU tar extracts it" \
				"$T/m" "$T/spref-$form"
			umount "$T/m"
		else
			fail "sparse $form: not mounted: $(head -c 200 "$T/err")"
		fi
	fi
done
rm -rf "$T/x" && run "img2dir of a sparse index with its tar" "$IMG2DIR" "$T/spl-1.0.erofs" \
	"$T/x" && same_tree "img2dir: the sparse tar's tree" "$T/x" "$T/spref-1.0"
check "imginfo check: the sparse index with its tar" "$SQP_BIN/imginfo" check "$T/spl-1.0.erofs"
finish
