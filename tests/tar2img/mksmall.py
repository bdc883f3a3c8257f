#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mksmall.py OUT.tar DIRS FILES: a tar of DIRS directories of FILES small
files each (24 to 120 bytes of text), like a source tree or a mail spool:
an image of it is mostly inode and directory tables."""
import io, sys, tarfile

dirs, files = int(sys.argv[2]), int(sys.argv[3])
out = tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT)
for d in range(dirs):
    ti = tarfile.TarInfo("d%04d" % d)
    ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, 1700000000
    out.addfile(ti)
    for f in range(files):
        data = b"file %d of directory %d\n" % (f, d) * (1 + (f * 7 + d) % 5)
        ti = tarfile.TarInfo("d%04d/f%04d.txt" % (d, f))
        ti.size, ti.mode, ti.mtime = len(data), 0o644, 1700000000
        out.addfile(ti, io.BytesIO(data))
out.close()
