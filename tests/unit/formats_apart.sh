#!/bin/sh
# The format cut (doc/architecture.md): only a format's back end knows
# that format. The reader's core (lib/read), the writer's (lib/write),
# the jobs over them (lib/unpack, lib/check, lib/inspect, lib/rebuild),
# the FUSE file system (lib/fuse) and the tools (bin) name nothing of
# the back ends: no include of
# lib/squashfs or lib/erofs, no name those folders' headers declare
# (records, functions, the back ends' tables, their accessors), no
# access to a back end's part of the core's records. They reach an
# image's format only through the table its open chose (img->fmt), or
# the writer's that lib/formats picked (w->fmt). The check then proves itself: a test of the format
# planted into a copy of img2tar.c and of check.c must be found.
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
cd "$top_srcdir" || exit 1
passed=0 failed=0 skipped=0

backs="lib/squashfs lib/erofs"
neutral="lib/read lib/write lib/unpack lib/check lib/inspect lib/rebuild lib/fuse bin"
for d in $backs $neutral; do
	[ -d "$d" ] || { echo "FAIL: no folder $d"; exit 1; }
done

# The back ends' names: every identifier their headers hold that starts
# with a format's prefix (sqfs_, erofs_, rd_sqfs_, rd_erofs_, SQFS_,
# EROFS_, RD_EROFS_), their extent and map names (rd_z*, RD_Z*), and the
# accessors of their state and records.
names=$(cat lib/squashfs/*.h lib/erofs/*.h |
	grep -oE '\b[A-Za-z_][A-Za-z0-9_]*\b' |
	grep -E '^(rd_)?(sqfs|erofs|SQFS|EROFS)_|^RD_EROFS_|^(rd|RD)_[zZ]|^(sq|sqi|sqd|eri|erd|rd_ero)$' |
	sort -u)
if [ "$(echo "$names" | wc -l)" -lt 50 ]; then
	echo "FAIL: only $(echo "$names" | wc -l) back-end names found"
	exit 1
fi
words=$(mktemp "${TMPDIR:-/tmp}/formats_apart.XXXXXX") || exit 99
plant=$(mktemp -d "${TMPDIR:-/tmp}/formats_apart.XXXXXX") || exit 99
trap 'rm -rf "$words" "$plant"' EXIT
echo "$names" > "$words"

# scan FILE...: each line that names a back end, "file:line: text"; the
# fields a back end kept in the core's records once (ero, a record's
# raw, a superblock sb) count too.
scan() {
	grep -nHE '#[[:space:]]*include[[:space:]]*"(squashfs|erofs)/' "$@"
	grep -nHwF -f "$words" "$@"
	grep -nHE '(->|\.)ero\b|(->|\.)(raw|sb)\.' "$@"
}

files=$(find $neutral -name '*.[ch]' | sort)
found=$(scan $files | sort -u)
if [ -n "$found" ]; then
	echo "FAIL: format-neutral code names a back end:"
	echo "$found" | head -40
	failed=$((failed + 1))
else
	echo "ok: $(echo "$files" | wc -l) files of $neutral name no back end"
	passed=$((passed + 1))
fi

# The proof: each planted test must be seen, and nothing in the copies
# before the plant. (The plant goes in after the includes.)
try() { # FILE LINE WHAT
	cp "$1" "$plant/clean.c" || exit 99
	awk -v add="$2" '{ print } /^#include "/ { last = NR }
		END { }' "$1" > /dev/null
	awk -v add="$2" '
		{ line[NR] = $0 } /^#include "/ { last = NR }
		END { for (i = 1; i <= NR; i++) { print line[i]; if (i == last) print add } }
	' "$1" > "$plant/planted.c" || exit 99
	if [ -n "$(scan "$plant/clean.c")" ]; then
		echo "FAIL: the copy of $1 is flagged before the plant"
		failed=$((failed + 1))
	elif [ -z "$(scan "$plant/planted.c")" ]; then
		echo "FAIL: $3 planted into $1 went unseen"
		failed=$((failed + 1))
	else
		echo "ok: $3 planted into $1 is seen"
		passed=$((passed + 1))
	fi
}
try lib/unpack/img2tar.c 'static int is_erofs(const struct sqp_image *img) { return img->ero != NULL; }' \
	'an img->ero test'
try lib/unpack/img2tar.c 'static int is_erofs(const struct sqp_image *img) { return img->fmt == &rd_erofs_format; }' \
	'a test of the back end'"'"'s table'
try lib/check/check.c 'static int ldir(const struct rd_inode *d) { return sqi(d)->raw.type == SQFS_LDIR; }' \
	'a SquashFS record field'
try lib/check/check.c '#include "erofs/rd_erofs.h"' 'an EROFS private header'

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
