#!/bin/sh
# SPDX-License-Identifier: MIT
# formats.sh - the tar dialects and compressions real producers write,
# each packed by tar2img and compared (unsquashfs -d) with the source
# tree: GNU tar's gnu, oldgnu, ustar, v7 and posix formats, its sparse
# formats (old GNU, pax 0.0, 0.1, 1.0), bsdtar's pax with LIBARCHIVE.xattr
# records, and gzip/xz/zstd/lz4/bzip2 streams (also concatenated gzip).
. "$top_srcdir/tests/lib/common.sh"
need_tool tar bsdtar unsquashfs gzip "$PYTHON3"

T=$SCRATCH
src=$T/src
mkdir -p "$src/dir/sub" "$src/long"
printf 'plain\n' > "$src/dir/a"
head -c 300000 /dev/urandom > "$src/dir/rand"
ln -s a "$src/dir/sym"
ln "$src/dir/a" "$src/dir/sub/hard"
long=$src/long/$(printf 'n%.0s' $(seq 1 150))
printf 'long name\n' > "$long"
# sparse: data islands in holes, and a file that ends in a hole
$PYTHON3 - "$src/sparse1" "$src/sparse2" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    for off in (0, 1 << 20, 5 << 20):
        f.seek(off); f.write(b"island %d\n" % off * 100)
with open(sys.argv[2], "wb") as f:
    f.write(b"head"); f.truncate(3 << 20)
PY
touch -d @1600000000 "$src"/dir/* "$src"/sparse* "$long"
if [ "$(id -u)" = 0 ]; then setfattr -n user.note -v hello "$src/dir/a" 2>/dev/null || true; fi

compare() { # compare DESCRIPTION TARFILE [treecmp options] (against $ref)
	desc=$1 tarfile=$2; shift 2
	rm -rf "$T/u" "$T/img"
	if ! "$TAR2IMG" -q "$T/img" "$tarfile" 2> "$T/err"; then
		fail "$desc: tar2img: $(head -c 300 "$T/err")"; return
	fi
	unsquashfs -q -n -d "$T/u" "$T/img" > /dev/null 2>&1 || { fail "$desc: unsquashfs"; return; }
	if $TREECMP --ignore-root-mtime --ignore-dir-mtime "$@" "$T/u" "$ref" > "$T/diff"; then
		pass "$desc"
	else
		fail "$desc"; head -10 "$T/diff"
	fi
}

ref=$src
for fmt in gnu oldgnu posix; do
	run "GNU tar --format=$fmt" tar -C "$src" --format=$fmt -cf "$T/$fmt.tar" . &&
		compare "GNU tar --format=$fmt" "$T/$fmt.tar" --no-xattrs
done
run "GNU tar --xattrs" tar -C "$src" --format=posix --xattrs --xattrs-include='*' -cf "$T/px.tar" . &&
	compare "GNU tar posix with --xattrs (SCHILY.xattr)" "$T/px.tar"
for sv in 0.0 0.1 1.0; do
	run "GNU tar sparse $sv" tar -C "$src" --format=posix --sparse --sparse-version=$sv -cf "$T/sp$sv.tar" . &&
		compare "GNU tar sparse $sv" "$T/sp$sv.tar" --no-xattrs
done
run "GNU tar old GNU sparse" tar -C "$src" --format=oldgnu --sparse -cf "$T/spold.tar" . &&
	compare "GNU tar old GNU sparse" "$T/spold.tar" --no-xattrs
# The sparse files must come out as holes, not stored zeros.
run "tar2img of sparse 1.0" "$TAR2IMG" -q "$T/s.img" "$T/sp1.0.tar" &&
	check "a 3 MiB hole costs no data blocks" \
		test "$(stat -c %s "$T/s.img")" -lt 1000000
run "bsdtar --format=pax" bsdtar -C "$src" --format=pax --xattrs -cf "$T/bsd.tar" . &&
	compare "bsdtar pax (LIBARCHIVE.xattr)" "$T/bsd.tar"
# ustar and v7 cannot hold the long name: those pack dir/ alone.
ref=$src/dir
run "GNU tar --format=ustar" tar -C "$ref" --format=ustar -cf "$T/ustar.tar" . &&
	compare "GNU tar --format=ustar" "$T/ustar.tar" --no-xattrs
run "GNU tar --format=v7" tar -C "$ref" --format=v7 -cf "$T/v7.tar" . &&
	compare "GNU tar --format=v7 (directories by trailing slash)" "$T/v7.tar" --no-xattrs
ref=$src
for z in gzip xz zstd lz4 bzip2; do
	command -v $z >/dev/null 2>&1 || { skipc "$z-compressed input: $z not installed"; continue; }
	$z -c < "$T/px.tar" > "$T/px.tar.z"
	compare "$z-compressed input" "$T/px.tar.z"
done
# two gzip members, as "cat a.gz b.gz" makes; the first holds no end marker
head -c $(( $(stat -c %s "$T/px.tar") - 1024 )) "$T/px.tar" > "$T/part1"
tail -c 1024 "$T/px.tar" > "$T/part2"
{ gzip -c < "$T/part1"; gzip -c < "$T/part2"; } > "$T/multi.tar.gz"
compare "concatenated gzip members" "$T/multi.tar.gz"
finish
