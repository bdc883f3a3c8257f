#!/bin/sh
# SPDX-License-Identifier: MIT
# pathrules.sh - how tar2img reads names and attributes, checked on the
# image (unsquashfs): a leading "/" or "./" is stripped; implied parent
# directories get 0755, 0:0 and the image time (SOURCE_DATE_EPOCH, else
# the newest mtime); the "./" entry gives the root its attributes; a path
# given twice keeps the later entry and warns naming it, and a directory
# given twice keeps its children; a directory entry after its children
# gives them their parent's attributes; xattrs with prefixes other than
# user./trusted./security. are warned about and skipped (the others on
# the same entry kept); --no-xattrs drops them all; a hard link to an
# entry not seen before is an error naming both paths.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" unsquashfs

T=$SCRATCH
$PYTHON3 - "$T" <<'PY' || exit 99
import io, sys, tarfile
def tar(name, entries):
    with tarfile.open(sys.argv[1] + "/" + name, "w", format=tarfile.PAX_FORMAT) as t:
        for path, kind, mode, uid, mtime, data, extra in entries:
            ti = tarfile.TarInfo(path)
            ti.type, ti.mode, ti.uid, ti.gid, ti.mtime = kind, mode, uid, uid, mtime
            ti.uname = ti.gname = ""
            ti.pax_headers = extra
            if kind == tarfile.LNKTYPE:
                ti.linkname = data
                data = b""
            ti.size = len(data) if kind == tarfile.REGTYPE else 0
            t.addfile(ti, io.BytesIO(data) if ti.size else None)
F, D, L = tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.LNKTYPE
tar("rules.tar", [
    ("./", D, 0o750, 5, 1500000000, b"", {}),
    ("/abs/file", F, 0o644, 0, 1500000001, b"abs\n", {}),
    ("./dot/file", F, 0o644, 0, 1500000002, b"dot\n", {}),
    ("imp/a/b/file", F, 0o600, 7, 1600000000, b"implied\n", {}),
    ("twice", F, 0o644, 0, 1500000003, b"first\n", {}),
    ("twice", F, 0o600, 9, 1500000004, b"second wins\n", {}),
    ("dir2/", D, 0o700, 0, 1500000005, b"", {}),
    ("dir2/kid", F, 0o644, 0, 1500000005, b"kid\n", {}),
    ("dir2/", D, 0o751, 3, 1500000006, b"", {}),
    ("late/kid", F, 0o644, 0, 1500000007, b"kid\n", {}),
    ("late", D, 0o710, 4, 1500000008, b"", {}),
    ("xa", F, 0o644, 0, 1500000009, b"x\n", {
        "SCHILY.xattr.user.keep": "kept",
        "SCHILY.xattr.system.posix_acl_access": "\x02\x00\x00\x00",
        "SCHILY.xattr.weird.ns": "skipped"}),
])
tar("badlink.tar", [
    ("a", F, 0o644, 0, 1, b"a\n", {}),
    ("the-link", L, 0o644, 0, 1, "the-missing-target", {}),
])
PY

# attrs PATH: "MODE UID:GID MTIME" of PATH in the extracted tree $T/u.
attrs() { stat -c '%a %u:%g %Y' "$T/u/$1" 2>/dev/null; }
# is WHAT GOT WANT
is() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', want '$3'"; fi; }

unset SOURCE_DATE_EPOCH
if "$TAR2IMG" -q "$T/r.img" "$T/rules.tar" 2> "$T/err" &&
   unsquashfs -q -n -d "$T/u" "$T/r.img" > /dev/null 2>&1; then
	pass "the rules tar packs and extracts"
else
	fail "tar2img or unsquashfs: $(head -c 300 "$T/err")"
fi
is "leading / stripped" "$(cat "$T/u/abs/file" 2>&1)" "abs"
is "leading ./ stripped" "$(cat "$T/u/dot/file" 2>&1)" "dot"
is "root takes the ./ entry's attributes" "$(attrs .)" "750 5:5 1500000000"
for d in imp imp/a imp/a/b abs dot; do
	is "implied $d: 0755 0:0, newest mtime" "$(attrs $d)" "755 0:0 1600000000"
done
is "the implied parent's file keeps its own attributes" "$(attrs imp/a/b/file)" "600 7:7 1600000000"
is "a path given twice: the later entry" "$(cat "$T/u/twice" 2>&1) $(attrs twice)" \
	"second wins 600 9:9 1500000004"
check "a path given twice: warned, naming it" grep -q "twice" "$T/err"
is "a directory given twice: the later attributes" "$(attrs dir2)" "751 3:3 1500000006"
is "a directory given twice: its children kept" "$(cat "$T/u/dir2/kid" 2>&1)" "kid"
is "a directory after its children: its attributes" "$(attrs late)" "710 4:4 1500000008"
is "a directory after its children: the children kept" "$(cat "$T/u/late/kid" 2>&1)" "kid"
check "unsupported xattr prefix: warned, naming it" grep -q "weird.ns" "$T/err"
check "system.* xattr: warned, naming it" grep -q "system.posix_acl_access" "$T/err"
if command -v getfattr > /dev/null 2>&1; then
	is "only the user.* xattr is kept" \
		"$(getfattr -h -d -m - --absolute-names "$T/u/xa" 2>/dev/null | grep '=')" 'user.keep="kept"'
	rm -rf "$T/u"
	"$TAR2IMG" -q --no-xattrs "$T/n.img" "$T/rules.tar" 2> /dev/null &&
		unsquashfs -q -n -d "$T/u" "$T/n.img" > /dev/null 2>&1
	is "--no-xattrs drops them" \
		"$(getfattr -h -d -m - --absolute-names "$T/u/xa" 2>/dev/null | grep '=')" ""
else
	skipc "xattr contents: getfattr missing"
fi

SOURCE_DATE_EPOCH=1234567890 "$TAR2IMG" -q "$T/e.img" "$T/rules.tar" 2> /dev/null
rm -rf "$T/u"; unsquashfs -q -n -d "$T/u" "$T/e.img" > /dev/null 2>&1
is "with SOURCE_DATE_EPOCH implied directories take it" "$(attrs imp/a)" "755 0:0 1234567890"
is "with SOURCE_DATE_EPOCH explicit times stay" "$(attrs late)" "710 4:4 1500000008"

mkdir "$T/o"
"$TAR2IMG" -q "$T/o/b.img" "$T/badlink.tar" 2> "$T/err"; rc=$?
is "hard link to an unseen entry: exit 1" "$rc" 1
check "hard link to an unseen entry: names the link" grep -q "the-link" "$T/err"
check "hard link to an unseen entry: names the target" grep -q "the-missing-target" "$T/err"
check "hard link to an unseen entry: no file left" test -z "$(ls -A "$T/o")"
finish
