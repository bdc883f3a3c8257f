# SPDX-License-Identifier: MIT
"""An OCI layer tar for the EROFS tests (containerd.sh, tarindex.sh):
Python's tarfile in pax format, so that xattrs go in pax records and a
device needs no root. Every entry has the same mtime (1600000000)."""
import io
import tarfile


class Layer:
    def __init__(self, path):
        self.t = tarfile.open(path, "w", format=tarfile.PAX_FORMAT)

    def add(self, name, kind=tarfile.REGTYPE, data=b"", mode=0o644, uid=0, gid=0, **kw):
        ti = tarfile.TarInfo(name)
        ti.type, ti.mode, ti.uid, ti.gid, ti.mtime = kind, mode, uid, gid, 1600000000
        for k, v in kw.items():
            setattr(ti, k, v)
        regular = kind == tarfile.REGTYPE
        ti.size = len(data) if regular else 0
        self.t.addfile(ti, io.BytesIO(data) if regular else None)

    def close(self):
        self.t.close()
