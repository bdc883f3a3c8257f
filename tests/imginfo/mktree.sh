# SPDX-License-Identifier: MIT
# mktree.sh - sourced by the imginfo tests: make_tree DIR builds a small
# tree with every entry type and what the summary counts: a duplicate
# file (dedup), a sparse file, an empty file, a hard-link pair, symlinks,
# devices, a fifo, xattrs, owners, suid, and names with a space and
# UTF-8. Fixed contents and times, so two calls give equal trees.
make_tree() {
	d=$1
	mkdir -p "$d/dir/deep/er" "$d/own" || return 1
	$PYTHON3 -c 'import random, sys
r = random.Random(11)
open(sys.argv[1], "wb").write(r.getrandbits(8 * 150000).to_bytes(150000, "little"))' "$d/rand" || return 1
	cp "$d/rand" "$d/dir/rand-copy"
	printf 'hello\n' > "$d/dir/h"
	ln "$d/dir/h" "$d/dir/h-link"
	printf 'text %.0s' $(seq 1 2000) > "$d/text"
	: > "$d/empty"
	truncate -s 1M "$d/sparse" && printf 'end' >> "$d/sparse"
	printf 'space\n' > "$d/with space"
	printf 'utf\n' > "$d/$(printf 'caf\303\251')"
	ln -s ../rand "$d/dir/sym"
	ln -s /nowhere/at/all "$d/abs-sym"
	mknod "$d/null" c 1 3 && mknod "$d/loop" b 7 0 || return 1
	mkfifo "$d/fifo"
	setfattr -n user.one -v 'value "1"' "$d/dir/h" &&
		setfattr -n user.two -v 0x00ff41 "$d/dir/h" &&
		setfattr -n user.dir -v d "$d/dir" || return 1
	chown 1000:100 "$d/own" && chown 2000:3000 "$d/text"
	chmod 4755 "$d/rand" && chmod 1777 "$d/own"
	find "$d" -exec touch -h -d @1700000000 {} +
}

# make_images SRC DIR: images of SRC by every packer and codec that can
# write here, as DIR/PACKER-CODEC.img; their names in DIR/list.
make_images() {
	src=$1 out=$2
	: > "$out/list"
	tar --xattrs --xattrs-include='*' --numeric-owner -C "$src" -cf "$out/src.tar" . || return 1
	for c in gzip lzma lzo xz lz4 zstd; do
		mksquashfs "$src" "$out/mksquashfs-$c.img" -comp $c -noappend -quiet \
			-no-progress > /dev/null 2>&1 && echo "mksquashfs-$c" >> "$out/list"
		gensquashfs -q -f -x -k -c $c -D "$src" "$out/gensquashfs-$c.img" \
			> /dev/null 2>&1 && echo "gensquashfs-$c" >> "$out/list"
		tar2sqfs -q -f -x -c $c "$out/tar2sqfs-$c.img" < "$out/src.tar" \
			> /dev/null 2>&1 && echo "tar2sqfs-$c" >> "$out/list"
		codec_built $c && "$TAR2IMG" -q -c $c "$out/tar2img-$c.img" "$out/src.tar" \
			2> /dev/null && echo "tar2img-$c" >> "$out/list"
	done
	return 0
}

# images_fixture: what summary.sh and browse.sh start from: the judges
# (or a skip), IMGINFO, T, the tree in $T/src and its images in $T.
images_fixture() {
	need_tool mksquashfs unsquashfs gensquashfs tar2sqfs setfattr "$PYTHON3"
	IMGINFO=$SQP_BIN/imginfo
	T=$SCRATCH
	make_tree "$T/src" || skip "cannot make the test tree here (xattrs, mknod)"
	make_images "$T/src" "$T" || exit 99
}
