#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write crafted broken tar archives into directory argv[1].

Each file is NAME.tar (or .tar.gz/.tar.zst), and cases.txt lists
"FILE<TAB>KEYWORD": tar2img must fail on FILE with a message containing
KEYWORD. Headers are built byte by byte so each defect is exactly one.
"""
import bz2
import gzip
import lzma
import os
import sys

B = 512


def octal(v, n):
    return (b"%0*o" % (n - 1, v)) + b"\0"


def header(name, size=0, typ=b"0", mode=0o644, link=b"", fix=None,
           uid=0, magic=b"ustar\x0000"):
    h = bytearray(B)
    h[0:len(name)] = name
    h[100:108] = octal(mode, 8)
    h[108:116] = octal(uid, 8)
    h[116:124] = octal(0, 8)
    h[124:136] = octal(size, 12) if isinstance(size, int) else size
    h[136:148] = octal(1700000000, 12)
    h[156:157] = typ
    h[157:157 + len(link)] = link
    h[257:265] = magic
    if fix:
        fix(h)
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def data(b):
    return b + bytes(-len(b) % B)


def pax(records, name=b"PaxHeader"):
    body = b"".join(records)
    return header(name, len(body), b"x") + data(body)


def rec(key, value):
    kv = b" " + key + b"=" + value + b"\n"
    n = len(kv) + 1
    while len(str(n).encode()) + len(kv) != n:
        n += 1
    return str(n).encode() + kv


END = bytes(2 * B)
GOOD = header(b"ok.txt", 5) + data(b"hello")


def put(field, value):
    def fix(h):
        h[field:field + len(value)] = value
    return fix


def main():
    out = sys.argv[1]
    cases = []

    def case(name, blob, keyword):
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)
        cases.append("%s\t%s" % (name, keyword))

    full = GOOD + header(b"second.txt", 3) + data(b"abc") + END
    case("truncated-header.tar", full[:2 * B + 300], "truncated tar header")
    case("truncated-data.tar", header(b"big.bin", 10000) + b"x" * 3000,
         "truncated data")
    bad = bytearray(GOOD + END)
    bad[3] ^= 0x20
    case("bad-checksum.tar", bytes(bad), "checksum")
    case("bad-octal-size.tar", header(b"f", b"0000012x456\0") + END,
         "bad size field")
    case("bad-octal-mode.tar", header(b"f", fix=put(100, b"00006a4\0")) + END,
         "bad mode field")
    case("bad-base256-size.tar",
         header(b"f", b"\x80" + b"\xff" * 11) + END, "bad size field")
    case("bad-base256-uid.tar",
         header(b"f", fix=put(108, b"\xc1\x00\x00\x00\x00\x00\x00\x01")) + END,
         "bad uid field")
    case("negative-size.tar", header(b"f", b"\xff" * 12) + END,
         "bad size field")
    case("bad-pax-length.tar",
         pax([b"99 path=short\n"]) + GOOD + END, "bad record length")
    case("bad-pax-digits.tar",
         pax([b"abc path=x\n"]) + GOOD + END, "bad record length")
    case("pax-no-equals.tar", pax([rec(b"path", b"x").replace(b"=", b"_")]) +
         GOOD + END, "key=")
    case("pax-bad-mtime.tar", pax([rec(b"mtime", b"abc")]) + GOOD + END,
         "mtime")
    case("pax-bad-size.tar", pax([rec(b"size", b"-5")]) + GOOD + END,
         "'size' is not a number")
    case("two-pax-headers.tar", pax([rec(b"uid", b"1")]) +
         pax([rec(b"gid", b"1")]) + GOOD + END, "two pax headers")
    sp = [rec(b"GNU.sparse.major", b"0"), rec(b"GNU.sparse.minor", b"1"),
          rec(b"GNU.sparse.size", b"1000"),
          rec(b"GNU.sparse.map", b"0,10,5000,10")]
    case("sparse-beyond-size.tar", pax(sp) + header(b"s", 20) +
         data(b"y" * 20) + END, "beyond the file's size")
    sp2 = sp[:3] + [rec(b"GNU.sparse.map", b"0,10,100,10")]
    case("sparse-map-vs-data.tar", pax(sp2) + header(b"s", 512) +
         data(b"y" * 512) + END, "sparse map describes 20 bytes")
    sp3 = [rec(b"GNU.sparse.major", b"1"), rec(b"GNU.sparse.minor", b"0"),
           rec(b"GNU.sparse.realsize", b"100"), rec(b"GNU.sparse.name", b"s")]
    case("sparse10-map-past-data.tar", pax(sp3) + header(b"s", 4) +
         data(b"9\n0\n") + END, "sparse map runs past")
    case("hardlink-missing.tar", header(b"link", 0, b"1", link=b"nothere") +
         END, "'nothere': the target is not an earlier entry")
    case("hardlink-to-dir.tar", header(b"d/", 0, b"5", mode=0o755) +
         header(b"l", 0, b"1", link=b"d") + END, "the target is a directory")
    case("dotdot-path.tar", header(b"a/../../etc/passwd", 5) + data(b"owned") +
         END, "'..' component")
    case("dotdot-link-target.tar", GOOD + header(b"l", 0, b"1",
         link=b"x/../../ok.txt") + END, "'..' component")
    case("absurd-size.tar", header(b"huge", 0o77777777777) + b"z" * 4096,
         "truncated data")
    case("absurd-pax-header.tar", header(b"p", 1 << 40, b"x") + END,
         "absurdly large")
    case("absurd-longname.tar", header(b"././@LongLink", 1 << 30, b"L",
         magic=b"ustar  \0") + END, "absurdly large")
    case("huge-base256-size.tar",
         header(b"f", b"\x80" + bytes(3) + b"\x40" + bytes(7)) + END,
         "too large")
    # The input may end after a complete entry (no end blocks), or
    # before any (no byte at all: liberal.sh), but not after a header
    # that announces one.
    case("cut-after-pax.tar", GOOD + pax([rec(b"uid", b"1")]),
         "end-of-archive")
    case("cut-after-longname.tar", GOOD + header(b"././@LongLink", 5, b"L",
         magic=b"ustar  \0") + data(b"long\0"), "end-of-archive")
    case("cut-in-padding.tar", GOOD[:B + 100], "truncated")
    case("cut-in-pax-record.tar", pax([rec(b"path", b"x" * 600)])[:B + 300],
         "truncated pax header")
    case("cut-in-sparse-ext.tar", header(b"s", 0, b"S", magic=b"ustar  \0",
         fix=put(482, b"\1")), "truncated extension block")
    case("pax-xattr-name-nul.tar", pax([rec(b"SCHILY.xattr.user.a\0b",
         b"v")]) + GOOD + END, "contains a NUL byte")
    case("skippable-then-plain.tar.zst", b"\x50\x2a\x4d\x18\x04\0\0\0abcd" +
         GOOD + END, "skippable frame")
    case("multi-volume.tar", header(b"m", 0, b"M") + END, "multi-volume")
    case("not-a-tar.tar", bytes(range(256)) * 8, "checksum")
    case("symlink-empty-target.tar", header(b"l", 0, b"2") + END,
         "empty link target")
    case("parent-is-file.tar", GOOD + header(b"ok.txt/child", 1) + data(b"c")
         + END, "is not a directory")
    case("bad-devmajor.tar", pax([rec(b"SCHILY.devmajor", b"99999999999")]) +
         header(b"dev", 0, b"3") + END, "device number out of range")
    gz = gzip.compress(GOOD + END * 20)
    case("truncated-gzip.tar.gz", gz[:len(gz) // 2], "truncated")
    bad = bytearray(gzip.compress(full * 50))
    for i in range(30, 60):
        bad[i] ^= 0x55
    case("corrupt-gzip.tar.gz", bytes(bad), "corrupt gzip")
    case("truncated-longname.tar", header(b"././@LongLink", 300, b"L",
         magic=b"ustar  \0") + b"x" * 100, "truncated GNU long name")
    case("hardlink-to-itself.tar", header(b"l", 0, b"1", link=b"l") + END,
         "the target is not an earlier entry")
    sp4 = sp3[:3] + [rec(b"GNU.sparse.name", b"s")]
    case("sparse10-absurd-count.tar", pax(sp4) + header(b"s", 512) +
         data(b"99999999999999\n0\n") + END, "sparse map claims")
    sp5 = sp[:3] + [rec(b"GNU.sparse.map", b"500,10,0,10")]
    case("sparse-out-of-order.tar", pax(sp5) + header(b"s", 20) +
         data(b"y" * 20) + END, "out of order")
    case("pax-uid-too-big.tar", pax([rec(b"uid", b"99999999999")]) + GOOD +
         END, "does not fit in 32 bits")
    case("parent-is-symlink.tar", header(b"s", 0, b"2", link=b"x") +
         header(b"s/child", 1) + data(b"c") + END, "is not a directory")
    case("root-is-a-file.tar", header(b".", 0) + END,
         "root entry is not a directory")
    xz = lzma.compress(full * 40)
    case("truncated-xz.tar.xz", xz[:len(xz) * 2 // 3], "truncated")
    bz = bz2.compress(full * 40)
    case("truncated-bzip2.tar.bz2", bz[:len(bz) // 2], "truncated")
    # A numeric field led by NULs reads as 0 (GNU tar and bsdtar), but
    # one NUL before a number is read as the number by GNU tar: refused.
    case("one-nul-then-size.tar", header(b"n", b"\0" + octal(14, 11)) +
         data(b"fourteen bytes") + END, "bad size field")
    # NULs then 0: no data follows, so the data is a header, and is not one
    case("nul-led-size-with-data.tar", header(b"n", bytes(7) +
         b"0016\0") + data(b"fourteen bytes") + END, "checksum")
    case("nul-led-junk.tar", header(b"n", 0, fix=put(100, b"\0\0abc\0")) +
         END, "bad mode field")
    # star's sparse map in extension blocks that the entry's size (which
    # counts them) does not hold, or that the input does not
    star = put(452, octal(9000, 12) + bytes(12) + b"%011o " % 1700000000 +
               b"%011o " % 1700000000 + bytes(8) + b"tar\0")
    case("star-sparse-ext-past-size.tar", header(b"s", 100, b"S", fix=star)
         + bytes(B) + data(b"x" * 100) + END, "run past the entry's size")
    case("star-sparse-cut-ext.tar", header(b"s", 1024, b"S", fix=star),
         "truncated extension block")
    # a directory with a size, then nothing, or something not a header
    case("dir-size-then-end.tar", header(b"d/", 1000, b"5"), "truncated")
    case("dir-size-then-cut-data.tar", header(b"d/", 1000, b"5") +
         b"x" * 600, "truncated")
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    main()
