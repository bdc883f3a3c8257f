#!/bin/sh
# SPDX-License-Identifier: MIT
# limits.sh - the reader's core holds what EROFS can say (issue 36): an
# image of mkfs.erofs 1.5 with 70,000 distinct owners, times of -100 s
# and 2^33 + 5 s with nanoseconds, and devices with a 20-bit minor and a
# 12-bit major reads the same through img2dir, img2tar and imginfo stat
# as through the kernel's mount of the image, the judge: owners, times
# to the nanosecond, device numbers and modes of every entry.
. "$top_srcdir/tests/lib/common.sh"
need_tool mkfs.erofs "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
[ "$(id -u)" = 0 ] || skip "owners and devices need root"

run "make the tree" "$PYTHON3" - "$T/src" <<'PY' || finish
import os, sys
top = sys.argv[1]
os.makedirs(top)
# 70,000 files, each of its own owner (uid and gid past 16 bits).
for d in range(70):
    sub = os.path.join(top, "o%02d" % d)
    os.mkdir(sub)
    for i in range(1000):
        n = d * 1000 + i
        p = os.path.join(sub, "f%03d" % i)
        open(p, "w").close()
        os.chown(p, 100000 + n, 300000 + n)
t = os.path.join(top, "times")
os.mkdir(t)
for name, ns in (("before1970", -100 * 10**9 + 250000000),
                 ("past2038", (2**33 + 5) * 10**9 + 123456789),
                 ("nsec", 1700000000 * 10**9 + 999999999)):
    p = os.path.join(t, name)
    with open(p, "w") as f:
        f.write(name)
    os.utime(p, ns=(ns, ns))
dev = os.path.join(top, "dev")
os.mkdir(dev)
os.mknod(os.path.join(dev, "minor20"), 0o20640, os.makedev(259, 0xABCDE))
os.mknod(os.path.join(dev, "major12"), 0o60600, os.makedev(0xFFF, 0xFFFFF))
os.utime(dev, ns=(-5 * 10**9 + 1, -5 * 10**9 + 1))
PY
img=$T/limits.erofs
run "mkfs.erofs" peer_mkfs_erofs --quiet "$img" "$T/src" > /dev/null || finish

# list ROOT: one line per entry, sorted: path, mode, owner, mtime in
# nanoseconds, device numbers (the directory times of the tree's root
# and of o* hold the extraction's, not compared).
list() {
	"$PYTHON3" - "$1" <<'PY'
import os, stat, sys
top = sys.argv[1]
out = []
# scandir's lstat of each entry, descending into directories (not
# links), as os.walk then lstat by whole path and relpath did, faster
def scan(d, prefix):
    with os.scandir(d) as it:
        for e in it:
            st = e.stat(follow_symlinks=False)
            rel = prefix + e.name
            t = st.st_mtime_ns if not (rel.startswith("o") and "/" not in rel) else "-"
            dev = "%d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)) if st.st_rdev else "-"
            out.append("%s %o %d %d %s %s" % (rel, st.st_mode, st.st_uid, st.st_gid, t, dev))
            if stat.S_ISDIR(st.st_mode):
                scan(e.path, rel + "/")
scan(top, "")
sys.stdout.write("".join(line + "\n" for line in sorted(out)))
PY
}

# tarlist TAR: the same lines from img2tar's tar (pax times exact).
tarlist() {
	"$PYTHON3" - "$1" <<'PY'
import stat, sys, tarfile
from decimal import Decimal
out = []
with tarfile.open(sys.argv[1], format=tarfile.PAX_FORMAT) as tf:
    for m in tf:
        rel = m.name.rstrip("/")
        if rel in ("", "."):
            continue
        if "mtime" in m.pax_headers:
            t = int(Decimal(m.pax_headers["mtime"]) * 10**9)
        else:
            t = int(m.mtime) * 10**9
        if rel.startswith("o") and "/" not in rel:
            t = "-"
        kind = {tarfile.DIRTYPE: stat.S_IFDIR, tarfile.REGTYPE: stat.S_IFREG,
                tarfile.CHRTYPE: stat.S_IFCHR, tarfile.BLKTYPE: stat.S_IFBLK}[m.type]
        dev = "%d,%d" % (m.devmajor, m.devminor) if m.ischr() or m.isblk() else "-"
        out.append("%s %o %d %d %s %s" % (rel, kind | m.mode, m.uid, m.gid, t, dev))
for line in sorted(out):
    print(line)
PY
}

if judge_ok "the kernel's EROFS mount" kernel erofs; then
	mkdir -p "$T/mnt"
	if mount -t erofs -o loop,ro "$img" "$T/mnt" 2> "$T/err"; then
		list "$T/mnt" > "$T/kernel.ls"
		umount "$T/mnt"
	else
		fail "the kernel refuses mkfs.erofs's image: $(head -1 "$T/err")"
	fi
fi
# Without the kernel, the source tree is the reference (mkfs.erofs
# keeps all of it).
[ -s "$T/kernel.ls" ] || list "$T/src" > "$T/kernel.ls"
check "70,000 owners in the reference" \
	test "$(cut -d' ' -f3 "$T/kernel.ls" | sort -u | wc -l)" -gt 70000

# compare WHAT LIST: LIST equals the reference, or the first lines that
# differ are shown.
compare() {
	if diff "$T/kernel.ls" "$2" > "$T/diff"; then
		pass "$1"
	else
		fail "$1 (< judge, > ours)"
		head -10 "$T/diff"
	fi
}

rm -rf "$T/x"
if "$IMG2DIR" -j 2 "$img" "$T/x" 2> "$T/err"; then
	list "$T/x" > "$T/img2dir.ls"
	compare "img2dir reads owners, times and devices as the judge" "$T/img2dir.ls"
else
	fail "img2dir: $(head -c 300 "$T/err")"
fi
if "$IMG2TAR" -j 2 "$img" > "$T/x.tar" 2> "$T/err"; then
	tarlist "$T/x.tar" > "$T/img2tar.ls"
	compare "img2tar reads owners, times and devices as the judge" "$T/img2tar.ls"
else
	fail "img2tar: $(head -c 300 "$T/err")"
fi

# imginfo stat: the seconds, owner and device numbers of the odd ones.
for p in times/before1970 times/past2038 dev/minor20 dev/major12 o69/f999; do
	line=$(grep "^$p " "$T/kernel.ls")
	want_sec=$("$PYTHON3" -c "import sys; print(int(sys.argv[1]) // 10**9)" \
		"$(echo "$line" | cut -d' ' -f5)")
	"$IMGINFO" stat "$img" "$p" > "$T/stat" 2>&1 || { fail "imginfo stat $p: $(head -1 "$T/stat")"; continue; }
	uid=$(echo "$line" | cut -d' ' -f3) gid=$(echo "$line" | cut -d' ' -f4)
	dev=$(echo "$line" | cut -d' ' -f6)
	ok=yes
	grep -q "mtime: *$want_sec\b\|($want_sec)" "$T/stat" || ok="mtime not $want_sec"
	grep -Eq "uid[: ]+$uid\b" "$T/stat" || ok="uid not $uid"
	grep -Eq "gid[: ]+$gid\b" "$T/stat" || ok="gid not $gid"
	[ "$dev" = - ] || grep -q "$dev\|$(echo "$dev" | tr , :)" "$T/stat" || ok="device not $dev"
	if [ "$ok" = yes ]; then
		pass "imginfo stat $p as the judge"
	else
		fail "imginfo stat $p: $ok"; cat "$T/stat"
	fi
done
finish
