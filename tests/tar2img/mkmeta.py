#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkmeta.py OUT.tar LIST: a tar whose inode and directory tables span
hundreds of metadata blocks: 1,200 directories two levels deep holding 0-60
entries each (files, symlinks, devices, hard links), and three directories
of 4,000 files each, whose listings need directory indexes. LIST gets every
path, one a line, sorted. Files are empty or tiny: this is about metadata."""
import random, sys, tarfile, io

rnd = random.Random(13)
paths = []
out = tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT)

def add(name, typ=tarfile.REGTYPE, data=b"", **kw):
    ti = tarfile.TarInfo(name)
    ti.type, ti.size, ti.mtime, ti.mode = typ, len(data), 1700000000 + len(paths), 0o644
    for k, v in kw.items():
        setattr(ti, k, v)
    if typ == tarfile.DIRTYPE:
        ti.mode = 0o755
    out.addfile(ti, io.BytesIO(data) if data else None)
    paths.append(name)

for a in range(40):
    top = "top%02d" % a
    add(top, tarfile.DIRTYPE)
    for b in range(30):
        d = "%s/sub-%03d-%s" % (top, b, "x" * rnd.randint(0, 40))
        add(d, tarfile.DIRTYPE)
        first = None
        for f in range(rnd.randint(0, 60)):
            name = "%s/e%03d-%s" % (d, f, "n" * rnd.randint(1, 60))
            kind = rnd.randint(0, 9)
            if kind == 0:
                add(name, tarfile.SYMTYPE, linkname="../" + "t" * rnd.randint(1, 200))
            elif kind == 1:
                add(name, tarfile.CHRTYPE, devmajor=1, devminor=f)
            elif kind == 2 and first is not None:
                add(name, tarfile.LNKTYPE, linkname=first)
            else:
                add(name, data=b"%d\n" % len(paths) if kind > 5 else b"")
                first = first or name
for big in range(3):
    d = "big%d" % big
    add(d, tarfile.DIRTYPE)
    for f in range(4000):
        add("%s/file-%05d-%s" % (d, f, "z" * rnd.randint(1, 30)))
out.close()
with open(sys.argv[2], "w") as f:
    f.write("\n".join(sorted(paths)) + "\n")
