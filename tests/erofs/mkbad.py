#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Corrupt and hostile EROFS images, made from good ones mkfs.erofs wrote.

usage: mkbad.py PLAIN.erofs CHUNK.erofs FULL.erofs COMPACT.erofs FRAG.erofs OUTDIR

PLAIN was made with -Eforce-inode-extended from hostile.sh's tree,
CHUNK the same with --chunksize=65536 -Eforce-chunk-indexes, FULL with
-zlz4hc -C16384 -Elegacy-compress (full cluster indexes, big pclusters)
and COMPACT with -zlz4 -Eztailpacking (compact indexes, an inline tail
pcluster); the compressed cases break d/seq, text that compresses, and
name their path "cat:d/seq" (imginfo cat, which decodes it). FRAG is
tests/erofs/fixtures/lz4frag.img, whose files lie whole in the packed
inode (its "mixed" is broken). Writes
OUTDIR/NAME for each case and OUTDIR/cases.txt, one "NAME PATH" a line
(PATH: the entry the case breaks, for imginfo stat; "-": the tree's
shape, for imginfo summary; "sb": the superblock, as Linux refuses it
at mount, which no reader read before), and OUTDIR/mounts.txt, the
cases Linux refuses at mount. An
image with the superblock checksum feature (mkfs.erofs 1.5 sets it) is
given its checksum again after each edit, but in sb_checksum_bad: the
checksum covers the rest of block 0, inodes too. Also writes OUTDIR/holes.erofs, a good
image: CHUNK with the all-zero chunks of "sparse" made holes (mkfs.erofs
1.5 writes no holes), which must read equal to the source; and
OUTDIR/longprefix.erofs, PLAIN with e's xattr user.x named through a
long prefix: user.long.x; and OUTDIR/extradev.erofs, PLAIN with an
extra device count but not the device table feature.
"""
import os
import struct
import sys


def crc32c_bitwise(crc, data):
    """CRC32C without the final inversion, as the kernel's crc32c(~0)."""
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc


# A byte at a time from a table of crc32c_bitwise's (the bitwise loop
# took 14 s on the cases' superblocks).
CRC32C_TABLE = [crc32c_bitwise(i, b"\0") for i in range(256)]


def crc32c_raw(crc, data):
    """CRC32C without the final inversion, as the kernel's crc32c(~0)."""
    t = CRC32C_TABLE
    for b in data:
        crc = (crc >> 8) ^ t[(crc ^ b) & 0xFF]
    return crc


# The table must give the bitwise loop's checksum.
assert crc32c_raw(0xFFFFFFFF, bytes(range(256)) * 3) == \
    crc32c_bitwise(0xFFFFFFFF, bytes(range(256)) * 3)


def fix_checksum(b):
    """The superblock checksum again, when the image has the feature."""
    if not b[1024 + 8] & 1:
        return
    n = 1 << b[1024 + 12]
    n = n - 1024 if n > 1024 else n
    struct.pack_into("<I", b, 1024 + 4, 0)
    struct.pack_into("<I", b, 1024 + 4, crc32c_raw(0xFFFFFFFF, b[1024:1024 + n]))


class Img:
    def __init__(self, path):
        self.b = bytearray(open(path, "rb").read())
        sb = 1024
        self.bits = self.b[sb + 12]
        self.bs = 1 << self.bits
        self.root = struct.unpack_from("<H", self.b, sb + 14)[0]
        self.meta = struct.unpack_from("<I", self.b, sb + 40)[0] * self.bs

    def inode(self, nid):
        pos = self.meta + nid * 32
        fmt, icount, mode = struct.unpack_from("<HHH", self.b, pos)
        ext = fmt & 1
        size = struct.unpack_from("<Q" if ext else "<I", self.b, pos + 8)[0]
        u = struct.unpack_from("<I", self.b, pos + 16)[0]
        isz = 64 if ext else 32
        xsz = 12 + 4 * (icount - 1) if icount else 0
        return dict(pos=pos, ext=ext, layout=(fmt >> 1) & 7, size=size,
                    u=u, isz=isz, xsz=xsz, mode=mode, icount=icount)

    def data_pos(self, ino, off):
        """Position of byte off of a flat (plain or inline) inode."""
        last = (ino["size"] - 1) // self.bs
        if ino["layout"] == 2 and off // self.bs == last:
            return ino["pos"] + ino["isz"] + ino["xsz"] + off % self.bs
        return (ino["u"] + off // self.bs) * self.bs + off % self.bs

    def entries(self, nid):
        ino = self.inode(nid)
        for blk in range((ino["size"] + self.bs - 1) // self.bs):
            at = self.data_pos(ino, blk * self.bs)
            blen = min(self.bs, ino["size"] - blk * self.bs)
            n = struct.unpack_from("<H", self.b, at + 8)[0] // 12
            for i in range(n):
                enid, off, ft = struct.unpack_from("<QHB", self.b, at + 12 * i)
                end = (struct.unpack_from("<H", self.b, at + 12 * i + 20)[0]
                       if i + 1 < n else blen)
                name = bytes(self.b[at + off:at + end]).rstrip(b"\0")
                yield dict(name=name.decode(), nid=enid, ft=ft,
                           ent=at + 12 * i, namepos=at + off)

    def find(self, path):
        nid, ent = self.root, None
        for part in path.split("/"):
            ent = next(e for e in self.entries(nid) if e["name"] == part)
            nid = ent["nid"]
        return nid, ent


def main():
    plain, chunk, full, compact, frag, out = sys.argv[1:7]
    os.makedirs(out, exist_ok=True)
    cases = []
    mounts = []

    def case(name, path, src, edit, mount=None):
        img = Img(src)
        edit(img)
        if name != "sb_checksum_bad":
            fix_checksum(img.b)
        open(os.path.join(out, name), "wb").write(img.b)
        cases.append("%s %s" % (name, path))
        if mount if mount is not None else path == "sb":
            mounts.append(name)

    def put(fmt, off, *v):
        return lambda i: struct.pack_into(fmt, i.b, off(i), *v)

    def ino(path):
        return lambda i: i.inode(i.find(path)[0])

    # The superblock; all but the first refused by Linux at mount
    # (fs/erofs/super.c and the decompressors' config loaders), which
    # reads the block count for statfs only. The first five were refused
    # here before the "sb" ones.
    case("blocks_past_end", "-", plain, put("<I", lambda i: 1024 + 36, 1 << 30))
    case("bad_block_size", "-", plain, put("<B", lambda i: 1024 + 12, 30), True)
    case("unknown_feature", "-", plain, put("<I", lambda i: 1024 + 80, 1 << 31), True)
    case("root_nid_past_end", "-", plain, put("<H", lambda i: 1024 + 14, 0xFFFF), True)
    case("dir_block_bits", "-", plain, put("<B", lambda i: 1024 + 90, 1), True)
    case("sb_checksum_bad", "sb", plain,
         lambda i: struct.pack_into("<I", i.b, 1024 + 4,
                                    struct.unpack_from("<I", i.b, 1024 + 4)[0] ^ 1))
    case("root_not_dir", "sb", plain,
         lambda i: struct.pack_into("<H", i.b, 1024 + 14, i.find("a.txt")[0]))
    case("sb_extslots_past_block", "sb", plain, put("<B", lambda i: 1024 + 13, 185))
    # A packed inode the kernel reads at mount, though no file of PLAIN
    # lies in it.
    case("packed_nid_past_end", "sb", plain,
         lambda i: (i.b.__setitem__(1024 + 80, i.b[1024 + 80] | 0x20),
                    struct.pack_into("<Q", i.b, 1024 + 96, 1 << 40)))
    # Compression configurations: FULL has one record, lz4's (big
    # pclusters), at 1152; the others are put in its place.
    assert Img(full).b[1024 + 80] & 2, "FULL has no compression configurations"

    def cfg(alg, body):
        def edit(i):
            struct.pack_into("<H", i.b, 1024 + 84, 1 << alg)
            struct.pack_into("<H", i.b, 1152, len(body))
            i.b[1154:1154 + len(body)] = body
        return edit

    case("compr_alg_unknown", "sb", full, put("<H", lambda i: 1024 + 84, 0x11))
    case("lz4_cfg_short", "sb", full, put("<H", lambda i: 1152, 12))
    case("lz4_pcluster_blocks", "sb", full, put("<H", lambda i: 1154 + 2, 257))
    case("lzma_dict_huge", "sb", full, cfg(1, struct.pack("<IH8x", (8 << 20) + 1, 0)))
    case("lzma_dict_tiny", "sb", full, cfg(1, struct.pack("<IH8x", 4095, 0)))
    case("lzma_format", "sb", full, cfg(1, struct.pack("<IH8x", 1 << 20, 1)))
    case("deflate_window", "sb", full, cfg(2, struct.pack("<B5x", 16)))
    case("zstd_window", "sb", full, cfg(3, struct.pack("<BB4x", 0, 11)))
    case("zstd_format", "sb", full, cfg(3, struct.pack("<BB4x", 1, 10)))
    # Listings: loops, names, counts.
    case("dir_contains_itself", "-", plain,
         lambda i: struct.pack_into("<Q", i.b, i.find("d/sub")[1]["ent"],
                                    i.find("d")[0]))
    case("dir_contains_root", "-", plain,
         lambda i: struct.pack_into("<Q", i.b, i.find("d/sub")[1]["ent"],
                                    i.root))
    case("name_with_slash", "-", plain,
         lambda i: i.b.__setitem__(i.find("a.txt")[1]["namepos"] + 1, ord("/")))
    case("name_dotdot", "-", plain,
         lambda i: i.b.__setitem__(slice(i.find("zz")[1]["namepos"],
                                         i.find("zz")[1]["namepos"] + 2), b".."))
    case("name_dot_elsewhere", "-", plain,
         lambda i: i.b.__setitem__(i.find("e")[1]["namepos"], ord(".")))
    case("name_twice", "-", plain,
         lambda i: i.b.__setitem__(slice(i.find("aa")[1]["namepos"],
                                         i.find("aa")[1]["namepos"] + 2), b"zz"))
    case("entry_count_odd", "-", plain,
         lambda i: struct.pack_into("<H", i.b,
                                    i.data_pos(i.inode(i.root), 0) + 8, 13))
    case("name_past_block", "-", plain,
         lambda i: struct.pack_into("<H", i.b, i.find("zz")[1]["ent"] + 8, 0xFFF0))
    case("nid_past_end", "-", plain,
         lambda i: struct.pack_into("<Q", i.b, i.find("a.txt")[1]["ent"], 1 << 40))
    # Inodes: formats, sizes, where data is.
    case("inode_format_bad", "a.txt", plain, put("<H", lambda i: ino("a.txt")(i)["pos"], 0x31))
    case("file_size_huge", "a.txt", plain,
         put("<Q", lambda i: ino("a.txt")(i)["pos"] + 8, 1 << 62))
    case("file_past_end", "d/big", plain,
         put("<Q", lambda i: ino("d/big")(i)["pos"] + 8, 1 << 40))
    case("blkaddr_past_end", "d/big", plain,
         put("<I", lambda i: ino("d/big")(i)["pos"] + 16, 0xFFFFFF00))
    case("compressed_layout", "d/big", plain,
         put("<H", lambda i: ino("d/big")(i)["pos"], 1 | (3 << 1)))
    case("symlink_huge", "link", plain,
         put("<Q", lambda i: ino("link")(i)["pos"] + 8, 1 << 20))
    case("dir_size_huge", "-", plain,
         put("<Q", lambda i: ino("d")(i)["pos"] + 8, 1 << 40))
    # Xattrs: counts and positions.
    case("xattr_shared_count", "e", plain,
         put("<B", lambda i: ino("e")(i)["pos"] + ino("e")(i)["isz"] + 4, 255))
    case("xattr_icount_past_end", "e", plain,
         put("<H", lambda i: ino("e")(i)["pos"] + 2, 0xFFFF))
    # Long xattr name prefixes (mkfs.erofs 1.5 writes none): e's user.x
    # as long prefix 0, "user." + "long.", from a table in a block added
    # at the end.
    def long_prefix(i, index=0x80, length=6):
        at = len(i.b)
        i.b += bytes(i.bs)
        struct.pack_into("<I", i.b, 1024 + 36, len(i.b) // i.bs)
        struct.pack_into("<HB5s", i.b, at, length, 1, b"long.")
        i.b[1024 + 80] |= 0x40
        i.b[1024 + 91] = 1
        struct.pack_into("<I", i.b, 1024 + 92, at // 4)
        n = i.inode(i.find("e")[0])
        entry = n["pos"] + n["isz"] + 12 + 4 * i.b[n["pos"] + n["isz"] + 4]
        assert i.b[entry:entry + 2] == bytes([1, 1]), "e's xattr moved"
        i.b[entry + 1] = index

    case("xattr_long_prefix_past_table", "e", plain, lambda i: long_prefix(i, 0x81))
    case("xattr_long_prefix_too_long", "-", plain, lambda i: long_prefix(i, 0x80, 0xFFFF))
    # Chunks.
    def chunk0(i, path):
        n = i.inode(i.find(path)[0])
        return ((n["pos"] + n["isz"] + n["xsz"] + 7) & ~7) + 4

    case("chunk_past_end", "d/big", chunk, put("<I", lambda i: chunk0(i, "d/big"), 0xFFFFFFF0))
    case("chunk_device", "d/big", chunk,
         put("<H", lambda i: chunk0(i, "d/big") - 2, 3))
    # Compressed files: the map header, full indexes (8 bytes each, 16
    # bytes after the header), compact ones (4 bytes each here: the
    # index starts 8-aligned and has no 2-byte packs without -C).
    def zhead(i):
        n = i.inode(i.find("d/seq")[0])
        assert n["layout"] in (1, 3), "d/seq is not compressed"
        return (n["pos"] + n["isz"] + n["xsz"] + 7) & ~7

    def lci(i, lcn):
        return zhead(i) + 16 + 8 * lcn

    zc = "cat:d/seq"
    case("z_algorithm_unknown", zc, full, put("<B", lambda i: zhead(i) + 6, 9))
    case("z_cluster_bits", zc, full, put("<B", lambda i: zhead(i) + 7, 3))
    case("z_blkaddr_past_end", zc, full, put("<I", lambda i: lci(i, 0) + 4, 0xFFFFFF00))
    case("z_clusterofs_past_cluster", zc, full, put("<H", lambda i: lci(i, 0) + 2, 0xFFFF))
    case("z_pcluster_too_big", zc, full, put("<H", lambda i: lci(i, 1) + 4, 0x800 | 0x7FF))
    case("z_lookback_zero", zc, full,
         lambda i: struct.pack_into("<HHHH", i.b, lci(i, 2), 2, 0, 0, 1))
    case("z_lookback_past_start", zc, full,
         lambda i: struct.pack_into("<HHHH", i.b, lci(i, 2), 2, 0, 9, 1))
    case("z_no_head", zc, full,
         lambda i: [struct.pack_into("<HHHH", i.b, lci(i, k), 2, 0, 1, 1)
                    for k in range(i.inode(i.find("d/seq")[0])["size"] // i.bs)])
    case("z_size_lies", zc, full,
         put("<Q", lambda i: ino("d/seq")(i)["pos"] + 8, 1 << 30))
    case("z_data_garbage", zc, full,
         lambda i: i.b.__setitem__(slice(
             struct.unpack_from("<I", i.b, lci(i, 0) + 4)[0] * i.bs + 2000,
             struct.unpack_from("<I", i.b, lci(i, 0) + 4)[0] * i.bs + 2400),
             bytes(range(200)) * 2))
    case("zc_base_past_end", zc, compact, put("<I", lambda i: zhead(i) + 8 + 4, 0xFFFFFF00))
    case("zc_inline_too_long", zc, compact, put("<H", lambda i: zhead(i) + 2, 0xFFFF))
    case("zc_all_nonhead", zc, compact,
         lambda i: [i.b.__setitem__(zhead(i) + 8 + 4 * k + 1,
                                    i.b[zhead(i) + 8 + 4 * k + 1] | 0x20)
                    for k in range(i.inode(i.find("d/seq")[0])["size"] // i.bs)])
    # A whole file in the packed inode: its size, or where it starts
    # there, past the packed inode's end (the map header's 63 bits).
    case("frag_size_huge", "cat:mixed", frag,
         lambda i: struct.pack_into("<I", i.b, ino("mixed")(i)["pos"] + 8, 0xFFFFFFF0))
    case("frag_offset_past_packed", "cat:mixed", frag,
         lambda i: struct.pack_into("<Q", i.b, (ino("mixed")(i)["pos"] + 32 +
                                                ino("mixed")(i)["xsz"] + 7) & ~7,
                                    (1 << 63) | (1 << 40)))
    # Good: an extra device count without the device table feature,
    # which Linux ignores.
    img = Img(plain)
    struct.pack_into("<H", img.b, 1024 + 86, 1)
    fix_checksum(img.b)
    open(os.path.join(out, "extradev.erofs"), "wb").write(img.b)
    img = Img(plain)
    long_prefix(img)
    fix_checksum(img.b)
    open(os.path.join(out, "longprefix.erofs"), "wb").write(img.b)
    # Good: holes where "sparse" is zeros (all but the chunk with "abc").
    img = Img(chunk)
    n = img.inode(img.find("sparse")[0])
    first = (n["pos"] + n["isz"] + n["xsz"] + 7) & ~7
    for c in range((n["size"] + 65535) // 65536):
        if c != (2 << 20) // 65536:
            struct.pack_into("<I", img.b, first + 8 * c + 4, 0xFFFFFFFF)
    fix_checksum(img.b)
    open(os.path.join(out, "holes.erofs"), "wb").write(img.b)
    with open(os.path.join(out, "cases.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")
    with open(os.path.join(out, "mounts.txt"), "w") as f:
        f.write("\n".join(mounts) + "\n")


if __name__ == "__main__":
    main()
