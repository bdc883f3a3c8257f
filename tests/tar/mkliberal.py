#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hand-made tar archives that GNU tar and bsdtar both read, one per
liberal-reading rule of the tar reader, and the checks of their images.

usage: mkliberal.py make DIR      write the archives and DIR/cases.txt
       mkliberal.py check ROOT CHECK...
                                  check an extracted tree

cases.txt has one line per archive, tab-separated: FILE, the warning
tar2img must print ("-": none required), the treecmp options for the
comparison with bsdtar's extraction ("none": bsdtar reads this one
differently, only the checks judge), and the CHECKs: PATH:d (a
directory), PATH:f=TEXT (a file holding TEXT), PATH:h=OTHER (a hard link
of OTHER), PATH:m=SECONDS (its mtime), PATH:u=UID, PATH:c=MAJOR,MINOR (a
character device), PATH:z=SIZE,OFFSET,TEXT (SIZE bytes, TEXT at OFFSET,
zeros elsewhere). Each CHECK fails without its rule.
"""
import os
import stat
import sys

sys.dont_write_bytecode = True  # the source tree may be read-only
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tar2img"))
from mkbad import B, data, octal, rec  # noqa: E402 (the shared helpers)


def b256(v, n):
    """GNU base-256: 0x80 (or 0xff when negative) then big-endian."""
    raw = (v % (1 << (8 * n))).to_bytes(n, "big")
    return bytes([0xff if v < 0 else 0x80]) + raw[1:]


def header(name, size=0, typ=b"0", mode=0o644, link=b"", magic=b"ustar\x0000",
           mtime=1700000000, fields=()):
    h = bytearray(B)
    h[0:len(name)] = name
    h[100:108] = octal(mode, 8)
    h[108:116] = octal(0, 8)
    h[116:124] = octal(0, 8)
    h[124:136] = octal(size, 12)
    h[136:148] = octal(mtime, 12)
    h[156:157] = typ
    h[157:157 + len(link)] = link
    h[257:265] = magic
    for off, value in fields:
        h[off:off + len(value)] = value
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def pax(records):
    body = b"".join(records)
    return header(b"PaxHeader", len(body), b"x") + data(body)


def entry(name, text, **kw):
    return header(name, len(text), **kw) + data(text)


END = bytes(2 * B)
GNU = b"ustar  \0"


def star_times():
    """star's atime and ctime fields (GNU tar's test for a star header)."""
    return [(476, b"%011o " % 1700000000), (488, b"%011o " % 1700000000)]


def star_sparse(name, real, runs, body, sign=True, records=()):
    """A sparse file as star writes it (xstar, or with sign=False xustar;
    exustar when records gives the pax header it always writes): no map in
    the header, the real size at 452, the map in extension blocks of 21
    slots (at least one block, whatever the flag at 355 says), each but
    the last flagged '1' at 504; the entry's size counts the blocks."""
    blocks = b""
    for i in range(0, max(len(runs), 1), 21):
        blk = bytearray(B)
        for j, (off, n) in enumerate(runs[i:i + 21]):
            blk[24 * j:24 * j + 24] = octal(off, 12) + octal(n, 12)
        if i + 21 < len(runs):
            blk[504] = ord("1")
        blocks += bytes(blk)
    fields = [(452, octal(real, 12))] + star_times()
    if sign:
        fields.append((508, b"tar\0"))
    out = header(name, len(blocks) + len(body), b"S", fields=fields) + \
        blocks + data(body)
    return (pax(list(records)) if records else b"") + out


def star_cases():
    """star's own sparse output: runs start and end on 512-byte
    boundaries except at the end of the file, and a file that ends in a
    hole ends its map with a run of length 0 there."""
    runs = [(0, 512), (6656, 512), (9000, 0)]
    body = b"a" * 512 + b"d" * 512
    check = "sp:z=9000,0,aaaa sp:z=9000,6656,dddd"
    times = [rec(b"atime", b"1700000000.5"), rec(b"ctime", b"1700000000.5"),
             rec(b"mtime", b"1700000000.25")]
    after = entry(b"after", b"after\n") + END
    yield ("star-sparse-xstar.tar", star_sparse(b"sp", 9000, runs, body) +
           after, check)
    yield ("star-sparse-xustar.tar", star_sparse(b"sp", 9000, runs, body,
           sign=False) + after, check)
    yield ("star-sparse-exustar.tar", star_sparse(b"sp", 9000, runs, body,
           sign=False, records=times) + after, check)
    # 30 runs: a second extension block
    many = [(i * 2048, 512) for i in range(30)] + [(70000, 0)]
    body = b"".join(bytes([65 + i % 26]) * 512 for i in range(30))
    yield ("star-sparse-xstar-30runs.tar", star_sparse(
           b"sp", 70000, many, body) + after,
           "sp:z=70000,2048,BBBB sp:z=70000,59392,DDDD")


def cases():
    one = entry(b"one.txt", b"one\n")
    two = entry(b"two.txt", b"two\n")
    yield ("no-end-blocks.tar", one + two, "no end-of-archive marker", "",
           "one.txt:f=one\n two.txt:f=two\n")
    yield ("no-end-blocks-after-dir.tar", header(b"d/", 0, b"5", 0o755),
           "no end-of-archive marker", "", "d:d")
    # bsdtar 3.6 and GNU tar stop at a lone zero block (GNU tar warns):
    # the entries after it are read here, so bsdtar is no judge of that
    yield ("lone-zero-block.tar", one + bytes(B) + two + END,
           "lone zero block", "none", "one.txt:f=one\n two.txt:f=two\n")
    yield ("lone-zero-block-then-junk.tar", one + bytes(B) + b"junk" * 128,
           "lone zero block", "", "one.txt:f=one\n")
    for fmt, magic in (("ustar", b"ustar\x0000"), ("gnu", GNU),
                       ("v7", bytes(8))):
        yield ("olddir-%s.tar" % fmt, header(b"old/", 0, b"0", 0o755,
               magic=magic) + entry(b"old/f", b"in\n", magic=magic) + END,
               "-", "", "old:d old/f:f=in\n")
    yield ("hardlink-with-size.tar", one + header(b"hl", 4, b"1",
           link=b"one.txt") + two + END, "-", "",
           "hl:h=one.txt two.txt:f=two\n")
    big = [(108, b256(70000, 8)), (116, b256(5, 8)), (100, b256(0o750, 8)),
           (124, b256(4, 12)), (136, b256(1600000000, 12))]
    yield ("base256-fields.tar", header(b"b256", 0, fields=big) +
           data(b"b256") + END, "-", "", "b256:f=b256 b256:u=70000 "
           "b256:m=1600000000")
    # old writers summed the header as signed chars: bytes >= 0x80 (here
    # in the owner's name) then count 256 less each
    h = bytearray(header(b"sig", 4, fields=[(265, b"\xc3\xa9t\xc3\xa9")]))
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(c - 256 if c >= 0x80 else c for c in h)
    yield ("signed-checksum.tar", bytes(h) + data(b"sign") + END, "-", "",
           "sig:f=sign")
    yield ("base256-device.tar", header(b"dev", 0, b"3", fields=[
           (329, b256(4, 8)), (337, b256(300, 8))]) + END, "-", "",
           "dev:c=4,300")
    yield ("base256-times.tar", header(b"future", 0, fields=[
           (136, b256(1 << 34, 12))]) + header(b"past", 0, fields=[
           (136, b256(-86400 * 365, 12))]) + END, "clamped",
           "--ignore=mtime", "future:m=4294967295 past:m=0")
    yield ("pax-mtime-junk.tar", pax([rec(b"mtime", b"1600000000.5junk")]) +
           one + pax([rec(b"mtime", b"1600000001xyz")]) + two + END, "-",
           "", "one.txt:m=1600000000 two.txt:m=1600000001")
    yield ("pax-path-nul.tar", pax([rec(b"path", b"cut\0junk")]) + one + END,
           "-", "", "cut:f=one\n")
    # star: ustar with a 131-byte prefix and its times after it
    yield ("star.tar", entry(b"f", b"star\n", fields=[(345, b"pre/fix")] +
           star_times()) + END, "-", "", "pre/fix/f:f=star\n")
    # xstar signs with "tar"; a prefix of all its 131 bytes has no NUL
    # (bsdtar reads 155 bytes there, into the times: not its judgement)
    pre = b"p" * 131
    yield ("xstar-full-prefix.tar", entry(b"f", b"x\n", fields=[
           (345, pre), (508, b"tar\0")] + star_times()) + END, "-", "none",
           "%s/f:f=x\n" % pre.decode())
    # star sparse: 'S' with the POSIX magic, map at 356, real size at 452
    sp = [(356, octal(0, 12)), (368, octal(3, 12)), (380, octal(7000, 12)),
          (392, octal(2, 12)), (452, octal(9000, 12))] + star_times()
    yield ("star-sparse.tar", header(b"sp", 5, b"S", fields=sp) +
           data(b"abcde") + END, "-", "none", "sp:z=9000,0,abc "
           "sp:z=9000,7000,de")
    # bsdtar reads star's extension blocks as file data: GNU tar judges
    # these (tests/tar/conformance.sh)
    for name, blob, check in star_cases():
        yield (name, blob, "-", "none", check + " after:f=after\n")
    # a numeric field led by NULs is 0 for GNU tar and bsdtar: here the
    # size (no data follows), mode, owner, time and device numbers
    nul = [(100, bytes(4) + b"0644"), (108, bytes(3) + b"0001\0"),
           (116, bytes(7) + b"7"), (136, bytes(7) + b"0016\0")]
    dev = [(329, bytes(5) + b"01\0"), (337, bytes(8))]
    yield ("nul-led-fields.tar", header(b"empty", 0, fields=[
           (124, bytes(7) + b"0016\0")]) + header(b"nums", 3, fields=nul) +
           data(b"ok\n") + header(b"dev", 0, b"3", fields=dev) +
           entry(b"after", b"after\n") + END, "-", "",
           "empty:f= nums:f=ok\n nums:u=0 nums:m=0 dev:c=0,0 after:f=after\n")
    # a directory with a size and no data: the next header follows it
    yield ("dir-size-no-data.tar", header(b"old/", 1000, b"0", 0o755) +
           entry(b"old/f", b"in\n") + header(b"d5", 700, b"5", 0o755) +
           entry(b"d5/g", b"g\n") + END, "size taken as 0", "",
           "old:d old/f:f=in\n d5:d d5/g:f=g\n")


def make(out):
    lines = []
    for name, blob, warn, judge, checks in cases():
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)
        lines.append("\t".join((name, warn, judge or "-", checks.replace(
            "\n", "\\n"))))
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def check_one(root, spec):
    path, what = spec.split(":", 1)
    kind, _, arg = what.partition("=")
    arg = arg.replace("\\n", "\n")
    p = os.path.join(root, path)
    st = os.lstat(p)
    if kind == "d":
        return stat.S_ISDIR(st.st_mode)
    if kind == "f":
        with open(p, "rb") as f:
            return stat.S_ISREG(st.st_mode) and f.read() == arg.encode()
    if kind == "h":
        return os.path.samestat(st, os.lstat(os.path.join(root, arg)))
    if kind == "m":
        return st.st_mtime == int(arg)
    if kind == "u":
        return st.st_uid == int(arg)
    if kind == "c":
        major, minor = (int(x) for x in arg.split(","))
        return (stat.S_ISCHR(st.st_mode) and os.major(st.st_rdev) == major
                and os.minor(st.st_rdev) == minor)
    if kind == "z":
        size, off, text = arg.split(",", 2)
        with open(p, "rb") as f:
            body = f.read()
        off = int(off)
        return len(body) == int(size) and body[off:off + len(text)] == \
            text.encode()
    raise SystemExit("bad check " + spec)


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2])
        return 0
    root, bad = sys.argv[2], 0
    for spec in sys.argv[3:]:
        try:
            ok = check_one(root, spec)
        except OSError as e:
            ok = False
            print("%s: %s" % (spec, e))
        if not ok:
            print("check failed: %s" % spec)
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
