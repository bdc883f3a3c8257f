#!/bin/bash
# SPDX-License-Identifier: MIT
# same-bytes.sh - do two builds of sqpack write the same bytes? The proof
# a refactor owes: both builds pack the test suite's inputs with every
# codec, format, layout, layer, append, conversion and verity option the
# tests use, and every image, img2tar stream and imginfo output of one is
# compared with cmp against the other's.
#
#   extras/same-bytes.sh [-k] [-s REGEX] OLD [NEW]
#
# OLD and NEW are each a build directory (one holding bin/tar2img) or a
# commit of this repository, which is built in a temporary directory
# (git archive, autogen.sh, configure, make -j; ccache when installed).
# NEW defaults to the working tree's tracked files (git stash create).
# Prints one line per difference, then "N images compared, M differ";
# exits 0 when nothing differs, 1 when something does, 2 on bad usage or
# a build that fails. -k keeps the work directory (its path is printed);
# -s runs only the option sets whose names REGEX (grep -E) matches.
# The work directory is made in TMPDIR (about 300 MB).
set -u
shopt -s nullglob
top=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '9p' "$0" >&2; exit 2; }
keep=no only=
while [ $# -gt 0 ]; do
	case $1 in
	-k) keep=yes; shift;;
	-s) [ $# -ge 2 ] || usage; only=$2; shift 2;;
	-*) usage;;
	*) break;;
	esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage
jobs=$(nproc 2>/dev/null || echo 2)
W=$(mktemp -d "${TMPDIR:-/tmp}/same-bytes.XXXXXX") || exit 2
[ $keep = no ] || echo "same-bytes: work directory $W"
trap '[ $keep = yes ] || rm -rf "$W"' EXIT
export SOURCE_DATE_EPOCH=1700000000 LC_ALL=C TZ=UTC0

# bindir SIDE WHAT: the bin/ directory of WHAT (a build directory or a
# commit, built in $W/SIDE), printed.
bindir() {
	if [ -x "$2/bin/tar2img" ]; then
		(cd "$2/bin" && pwd)
		return
	fi
	rev=$2
	if [ "$rev" = . ]; then
		rev=$(git -C "$top" stash create) || return 1
		[ -n "$rev" ] || rev=HEAD
	fi
	git -C "$top" rev-parse -q --verify "$rev^{commit}" > /dev/null ||
		{ echo "same-bytes: $2 is neither a build directory nor a commit" >&2; return 1; }
	mkdir -p "$W/$1/build" &&
	git -C "$top" archive --format=tar "$rev" | tar -xf - -C "$W/$1" || return 1
	cc=${CC:-gcc}
	! command -v ccache > /dev/null || cc="ccache $cc"
	# the two trees differ only in $W/SIDE: ccache hits across them, and
	# across runs of this script
	if ! (cd "$W/$1" && ./autogen.sh && cd build && ../configure CC="$cc" &&
	      CCACHE_BASEDIR=$W CCACHE_NOHASHDIR=1 make -j"$jobs") > "$W/$1.build.log" 2>&1; then
		echo "same-bytes: building $2 failed; the end of $W/$1.build.log:" >&2
		tail -20 "$W/$1.build.log" >&2
		return 1
	fi
	echo "$W/$1/build/bin"
}

# inputs DIR: what the tests pack, made once for both builds: the edge
# cases' tar (tests/tar2img/mktar.py), the EROFS tests' tree
# (tests/erofs/mktree.sh), lines of words (tests/lib/words.py) in files
# of sizes around 4K clusters and 64K blocks, twins and near-twins, the
# tree and the words as a tar, and the container layers of
# tests/layers/mklayers.py. The words' times are cut to whole seconds,
# as erofs_tree's are: an EROFS image keeps nanoseconds (since issue 36;
# tests/erofs_write/limits.sh tests them), an earlier build did not, and
# what is compared here is the layout, not the time a file was written.
inputs() {
	PYTHON3=python3
	# shellcheck source=../tests/erofs/mktree.sh
	. "$top/tests/erofs/mktree.sh"
	python3 "$top/tests/tar2img/mktar.py" "$1/edge.tar" &&
	erofs_tree "$1/tree" &&
	mkdir -p "$1/words/sub" "$1/layers" &&
	python3 -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from words import text
d = sys.argv[2]
for i, n in enumerate([0, 1, 100, 4095, 4096, 4097, 9000, 65535, 65536, 70000, 200000, 600000]):
    with open("%s/w%d" % (d, i), "wb") as f:
        f.write(text(n, i))
big = text(300000, 99)
for name, data in [("twin1", big), ("sub/twin2", big), ("near", big[:150000] + b"X" + big[150001:]),
                   ("tail1", big[:70000]), ("sub/tail2", big[:70000])]:
    with open("%s/%s" % (d, name), "wb") as f:
        f.write(data)' "$top/tests/lib" "$1/words" &&
	whole_seconds "$1/words" &&
	tar --sort=name --format=pax --xattrs -C "$1" -cf "$1/mix.tar" tree words 2> /dev/null &&
	python3 "$top/tests/layers/mklayers.py" "$1/layers"
}

# pack NAME COMMAND...: run COMMAND (its tools are this build's: PATH)
# in NAME's directory, where it writes NAME's images; its exit status
# and stderr are kept beside them, and its time in ms (for whoever trims
# the list: -k keeps them). OFFSET=N: the images start N bytes into
# their files.
pack() {
	[ -z "$only" ] || echo "$1" | grep -qE -- "$only" || return 0
	mkdir -p "$OUT/$1" "$RD/$1" || exit 2
	echo "${OFFSET:-0}" > "$RD/$1/offset"
	t=$(date +%s%N)
	(cd "$OUT/$1" && shift && "$@") > "$RD/$1/stdout" 2> "$RD/$1/stderr"
	echo $? > "$RD/$1/status"
	echo $((($(date +%s%N) - t) / 1000000)) > "$RD/$1/ms"
}
# sets SIDE: every option set, once per build.
sets() {
	local I=$IN c j
	# SquashFS: each codec at its default level, on the edge cases and
	# on the tree (dir2img), at -j 1 and -j 2
	for c in gzip lzma lzo xz lz4 zstd; do
		pack "t-$c" tar2img -q -j 2 -c "$c" img "$I/edge.tar"
		for j in 1 2; do pack "d-$c-j$j" dir2img -q -j $j -c "$c" img "$I/tree" "$I/words"; done
	done
	# levels and codec options the tests use
	pack t-gzip-1 tar2img -q -c gzip -X level=1 img "$I/mix.tar"
	pack t-gzip-9 tar2img -q -c gzip -X level=9 img "$I/mix.tar"
	pack t-xz-0 tar2img -q -c xz -X level=0 img "$I/mix.tar"
	pack t-lz4-hc tar2img -q -c lz4 -X hc img "$I/mix.tar"
	pack t-zstd-1 tar2img -q -c zstd -X level=1 img "$I/mix.tar"
	pack t-zstd-19 tar2img -q -c zstd -X level=19 img "$I/mix.tar"
	# block sizes and layout options
	for b in 4K 64K 1M; do pack "t-b$b" tar2img -q -b "$b" img "$I/mix.tar"; done
	pack t-b4k-edge tar2img -q -c lz4 -b 4K img "$I/edge.tar"
	for o in --no-dedup --no-fragments --no-tailends --always-fragments --exportable \
		--no-xattrs --no-pad --try-all-blocks --uncompressed=all \
		--uncompressed=data,fragments --uncompressed=inodes --all-root --clamp-mtime; do
		pack "t$o" tar2img -q -c gzip "$o" img "$I/mix.tar"
	done
	pack t-mem1M tar2img -q -j 2 --mem 1M img "$I/edge.tar"
	pack t-owners tar2img -q --uid 7 --gid-offset 1000 --mtime 1600000000 img "$I/mix.tar"
	pack t-exclude tar2img -q --exclude 'd/sub/*' --exclude-regex 'w1[01]$' img "$I/mix.tar"
	pack t-prefix tar2img -q --prefix opt/x img "$I/mix.tar"
	OFFSET=8192 pack t-offset tar2img -q --offset 8192 img "$I/mix.tar"
	pack t-stdin sh -c 'tar2img -q -c lz4 img < "$1"' - "$I/mix.tar"
	pack d-keep-dir dir2img -q --keep-dir img "$I/tree"
	pack d-no-hardlinks dir2img -q --no-hardlinks img "$I/tree"
	# EROFS: each codec at its default level, then clusters, tails,
	# fragments, dedupe at a fast level (at -j 2; -j 1 once per codec
	# with all of them): deflate's and zstd's defaults (9, 15) on 4K
	# clusters took a minute a set on a loaded machine
	for c in none lz4 lz4hc lzma deflate zstd; do
		x=(-c "$c")
		[ "$c" != lz4hc ] || x=(-c lz4 -X hc)
		pack "e-$c" dir2img -q -j 2 --format erofs "${x[@]}" img "$I/tree" "$I/words"
		case $c in lzma) x=(-c lzma -X level=0);; deflate|zstd) x=(-c "$c" -X level=1);; esac
		for l in "--pcluster-size 65536" --ztailpacking --erofs-fragments --erofs-dedupe; do
			[ "$c" != none ] || [ "$l" = --erofs-dedupe ] || continue
			# shellcheck disable=SC2086
			pack "e-$c${l// /}" dir2img -q -j 2 --format erofs "${x[@]}" $l img "$I/tree" "$I/words"
		done
		[ "$c" = none ] ||
		for j in 1 2; do
			pack "e-$c-all-j$j" dir2img -q -j $j --format erofs "${x[@]}" --pcluster-size 65536 \
				--ztailpacking --erofs-fragments --erofs-dedupe img "$I/tree" "$I/words"
		done
		pack "et-$c" tar2img -q --format erofs "${x[@]}" --ztailpacking --erofs-fragments img "$I/edge.tar"
	done
	pack e-lzma-9e dir2img -q --format erofs -c lzma -X level=9,extreme img "$I/words"
	pack e-mem1M dir2img -q --mem 1M --format erofs -c lz4 --erofs-fragments --erofs-dedupe img "$I/tree" "$I/words"
	pack e-label tar2img -q --format erofs --uuid 01234567-89ab-cdef-0123-456789abcdef --label sb img "$I/mix.tar"
	# container layers
	pack t-layers-oci tar2img -q --whiteouts=oci img "$I"/layers/l[123].tar
	pack t-layers-none tar2img -q --whiteouts=none img "$I"/layers/l[123].tar
	pack e-layers-oci tar2img -q --format erofs -c lz4 --whiteouts=oci img "$I"/layers/l[123].tar
	pack i-layers sh -c 'tar2img -q base "$1" && img2img -q --whiteouts=oci img base "$2" "$3"' - \
		"$I"/layers/l[123].tar
	# the front ends, and appends
	pack m-dir sqpack-mksquashfs "$I/tree" img -noappend -quiet
	pack m-xz sqpack-mksquashfs "$I/tree" "$I/words" img -comp xz -Xdict-size 50% -b 65536 -noappend -quiet
	pack m-tar sh -c 'sqpack-mksquashfs - img -tar -noappend -quiet < "$1"' - "$I/mix.tar"
	pack m-append sh -c 'sqpack-mksquashfs "$1" img -noappend -quiet &&
		sqpack-mksquashfs "$2" img -quiet' - "$I/tree" "$I/words"
	pack m-append-xz sh -c 'sqpack-mksquashfs "$1" img -comp xz -noappend -quiet &&
		sqpack-mksquashfs "$2" img -quiet -processors 1' - "$I/words" "$I/tree"
	pack f-lz4 sqpack-mkfs.erofs --quiet -zlz4 img "$I/tree"
	pack f-lz4hc sqpack-mkfs.erofs --quiet -zlz4hc,9 -C65536 -Eztailpacking img "$I/words"
	pack f-frag sqpack-mkfs.erofs --quiet -zlz4hc -Efragments,dedupe img "$I/words"
	pack f-zstd sqpack-mkfs.erofs --quiet -zzstd img "$I/words"
	pack f-lzma sqpack-mkfs.erofs --quiet -zlzma -C16384 img "$I/words"
	pack f-deflate sqpack-mkfs.erofs --quiet -zdeflate img "$I/words"
	pack f-tar sqpack-mkfs.erofs --quiet --tar=f -zlz4 img "$I/mix.tar"
	# conversions between codecs and formats
	for c in gzip xz lz4 zstd; do
		pack "i-xz-$c" sh -c 'tar2img -q -c xz base "$2" && img2img -q -c "$1" img base' - "$c" "$I/mix.tar"
	done
	pack i-same sh -c 'tar2img -q base "$1" && img2img -q -j 1 img base' - "$I/edge.tar"
	pack i-b64K sh -c 'tar2img -q base "$1" && img2img -q -b 64K img base' - "$I/mix.tar"
	pack i-layer sh -c 'tar2img -q base "$1" && img2img -q img base "$2"' - "$I/mix.tar" "$I/words"
	for j in 1 2; do
		pack "i-erofs-j$j" sh -c 'tar2img -q base "$2" && img2img -q -j "$1" --format erofs img base' - $j "$I/mix.tar"
	done
	pack i-erofs-lz4 sh -c 'tar2img -q base "$1" &&
		img2img -q --format erofs -c lz4 --ztailpacking --erofs-fragments img base' - "$I/mix.tar"
	pack i-from-erofs sh -c 'tar2img -q --format erofs -c lz4 base "$1" && img2img -q -c gzip img base' - "$I/mix.tar"
	pack i-erofs-erofs sh -c 'dir2img -q --format erofs base "$1" &&
		img2img -q --format erofs -c zstd img base "$2"' - "$I/tree" "$I/layers/l1.tar"
	# dm-verity, appended and in a file of its own
	for c in gzip lz4; do
		for j in 1 2; do pack "v-$c-j$j" tar2img -q -j $j -c "$c" --verity img "$I/mix.tar"; done
	done
	pack v-file tar2img -q --verity=tree --verity-roothash root img "$I/mix.tar"
	pack v-opts tar2img -q --verity --verity-block-size 1024 --verity-salt 0102ab \
		--verity-no-superblock img "$I/edge.tar"
	pack v-img2img sh -c 'tar2img -q -c xz base "$1" && img2img -q -c lz4 --verity img base' - "$I/mix.tar"
}
# read: img2tar's stream and imginfo's outputs of every file the option
# sets wrote (a file that is no image fails the same in both builds).
read_all() {
	local d f off
	for d in "$OUT"/*/; do
		d=${d%/}
		off=$(cat "$RD/${d##*/}/offset")
		# in the image's directory, so that the name it prints is the same
		(cd "$d" && for f in *; do
			r=$RD/${d##*/}/$f
			img2tar -q -j 2 --offset "$off" "$f" > "$r.tar" 2> "$r.tar.err"; echo "exit $?" >> "$r.tar.err"
			{ imginfo --offset "$off" --json "$f"; echo "exit $?"
			  imginfo --offset "$off" ls -l -R "$f"; echo "exit $?"
			  imginfo --offset "$off" check -j 2 "$f"; echo "exit $?"; } > "$r.info" 2>&1
		done)
	done
}
# side SIDE BINDIR: every option set and every reading with that build,
# under $W/out.SIDE (images) and $W/read.SIDE (outputs).
side() {
	OUT=$W/out.$1 RD=$W/read.$1
	mkdir -p "$OUT" "$RD" &&
	PATH=$2:$PATH && export PATH && sets && read_all
}

old=$(bindir old "$1") || exit 2
new=$(bindir new "${2:-.}") || exit 2
IN=$W/in
mkdir -p "$IN" && inputs "$IN" > "$W/inputs.log" 2>&1 ||
	{ echo "same-bytes: making the inputs failed:" >&2; tail -5 "$W/inputs.log" >&2; exit 2; }
t0=$(date +%s)
(side a "$old") & (side b "$new")
wait
images=0 differ=0
for d in "$W"/out.a/*/; do
	n=$(basename "$d")
	sa=$(cat "$W/read.a/$n/status") sb=$(cat "$W/read.b/$n/status")
	if [ "$sa" != 0 ] || [ "$sb" != 0 ]; then
		echo "$n: exit status $sa (old), $sb (new): $(head -c 200 "$W/read.a/$n/stderr"; head -c 200 "$W/read.b/$n/stderr")"
		differ=$((differ + 1))
		continue
	fi
	for f in "$d"*; do
		images=$((images + 1))
		g=${f#"$W"/out.a/}
		bad=
		cmp -s "$f" "$W/out.b/$g" || bad="$bad image"
		for r in stderr stdout; do cmp -s "$W/read.a/$n/$r" "$W/read.b/$n/$r" || bad="$bad $r"; done
		cmp -s "$W/read.a/$g.tar" "$W/read.b/$g.tar" || bad="$bad img2tar"
		cmp -s "$W/read.a/$g.tar.err" "$W/read.b/$g.tar.err" || bad="$bad img2tar-stderr"
		cmp -s "$W/read.a/$g.info" "$W/read.b/$g.info" || bad="$bad imginfo"
		[ -z "$bad" ] || { echo "$g differs:$bad"; differ=$((differ + 1)); }
	done
done
# a file only the new build wrote
for f in "$W"/out.b/*/*; do
	[ -e "$W/out.a/${f#"$W"/out.b/}" ] || { echo "${f#"$W"/out.b/}: only the new build writes it"; differ=$((differ + 1)); }
done
echo "same-bytes: old $old, new $new, $(($(date +%s) - t0)) s"
echo "$images images compared, $differ differ"
[ "$differ" -eq 0 ]
