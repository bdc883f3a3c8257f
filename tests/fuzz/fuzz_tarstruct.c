/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tarstruct.c - the tar reader harness of fuzz_tar.c with a
 * structure-aware mutator (LLVMFuzzerCustomMutator): it finds the header
 * blocks of the input (those whose checksum is right), changes one thing a
 * tar writer could have written differently - a numeric field in octal,
 * base-256 or with junk, the type, the magic (ustar, GNU, star, xstar),
 * a name, the records of a pax header, an old GNU or star sparse map, a
 * zero block in between, a cut - and then recomputes the checksum, so the
 * change reaches the parsers behind the checksum test. Byte-level
 * mutations (libFuzzer's own) still happen one time in four.
 *
 * The target is fuzz_tar.c's, included, so both harnesses test the same
 * thing and their corpora are interchangeable.
 */
#include "fuzz_tar.c"

#include <stdio.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
	__attribute__((weak)); /* libFuzzer's; absent in the replay build */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

#define BLK 512
#define MAX_HEADERS 64

static uint32_t rnd_state;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return n ? rnd_state % n : 0;
}

static unsigned checksum_of(const uint8_t *h)
{
	unsigned sum = 0;

	for (int i = 0; i < BLK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return sum;
}

static int is_header(const uint8_t *h)
{
	unsigned want = 0;
	int i = 148, digits = 0;

	while (i < 156 && h[i] == ' ')
		i++;
	for (; i < 156 && h[i] >= '0' && h[i] <= '7'; i++, digits++)
		want = want * 8 + (unsigned)(h[i] - '0');
	return digits > 0 && want == checksum_of(h);
}

static void fix_checksum(uint8_t *h)
{
	snprintf((char *)h + 148, 8, "%06o", checksum_of(h));
	h[155] = ' ';
}

/* A number as a tar writer (or a broken one) might put it in a field. */
static void put_number(uint8_t *f, size_t len)
{
	static const uint64_t nice[] = {
		0, 1, 511, 512, 513, 0777, 07777, 0x7fffffff, 0xffffffff,
		1ull << 32, 1ull << 33, 077777777777ull, 1ull << 62,
	};
	uint64_t v = rnd(4) ? nice[rnd(sizeof(nice) / sizeof(nice[0]))] : rnd(0x7fffffff);
	char tmp[32];

	memset(f, 0, len);
	switch (rnd(6)) {
	case 0: /* base-256, positive or negative */
		f[0] = rnd(2) ? 0x80 : 0xff;
		for (size_t i = len - 1; i > 0; i--, v >>= 8)
			f[i] = f[0] == 0xff ? (uint8_t)~v : (uint8_t)v;
		return;
	case 1: /* leading spaces, space-terminated */
		snprintf(tmp, sizeof(tmp), "%*llo ", (int)len - 2,
			 (unsigned long long)v);
		break;
	case 2: /* no terminator at all */
		snprintf(tmp, sizeof(tmp), "%0*llo", (int)len,
			 (unsigned long long)v);
		break;
	case 3: /* junk after the digits */
		snprintf(tmp, sizeof(tmp), "%llo%c", (unsigned long long)v,
			 "x9-.8 "[rnd(6)]);
		break;
	default:
		snprintf(tmp, sizeof(tmp), "%0*llo", (int)len - 1,
			 (unsigned long long)v);
		break;
	}
	memcpy(f, tmp, strlen(tmp) < len ? strlen(tmp) : len);
}

static void mutate_number(uint8_t *h)
{
	static const struct { int off, len; } fields[] = {
		{ 100, 8 }, { 108, 8 }, { 116, 8 }, { 124, 12 }, { 136, 12 },
		{ 329, 8 }, { 337, 8 }, { 483, 12 }, { 452, 12 },
		{ 386, 12 }, { 398, 12 }, { 410, 12 }, { 356, 12 }, { 368, 12 },
	};
	int i = (int)rnd(sizeof(fields) / sizeof(fields[0]));

	put_number(h + fields[i].off, (size_t)fields[i].len);
}

static void mutate_kind(uint8_t *h)
{
	static const char types[] = "0\0001234567gxLKSDVMA";
	static const char *const magics[] = {
		"ustar\00000", "ustar  ", "\0\0\0\0\0\0\0", "ustar\0xx",
	};

	if (rnd(2)) {
		h[156] = (uint8_t)types[rnd(sizeof(types) - 1)];
		return;
	}
	memcpy(h + 257, magics[rnd(4)], 8);
	memcpy(h + 508, rnd(2) ? "tar\0" : "\0\0\0\0", 4);
}

static void mutate_name(uint8_t *h)
{
	static const char *const names[] = {
		"a/", "../x", "./", "/", "a/b/c", "d/./e//", "x/..", ".", "",
		"a\\b", "link", "ok.txt",
	};
	static const int fields[][2] = { { 0, 100 }, { 157, 100 }, { 345, 155 } };
	int f = (int)rnd(3);
	const char *n = names[rnd(sizeof(names) / sizeof(names[0]))];

	memset(h + fields[f][0], 0, (size_t)fields[f][1]);
	if (rnd(8) == 0) /* the whole field, no NUL */
		memset(h + fields[f][0], 'n', (size_t)fields[f][1]);
	else
		memcpy(h + fields[f][0], n, strlen(n));
}

/* Replace del bytes at off by ins[0, len); the new size or 0. */
static size_t splice(uint8_t *data, size_t size, size_t max, size_t off,
		     size_t del, const uint8_t *ins, size_t len)
{
	if (off + del > size || size - del + len > max)
		return 0;
	memmove(data + off + len, data + off + del, size - off - del);
	memcpy(data + off, ins, len);
	return size - del + len;
}

static size_t append_record(char *buf, size_t at, size_t cap)
{
	static const char *const recs[] = {
		"path=dir/file", "path=a\\0b", "linkpath=target", "size=5",
		"size=99999999999", "mtime=1700000000.5junk", "mtime=-1.25",
		"mtime=99999999999999999999", "uid=4294967296", "gid=7",
		"GNU.sparse.major=1", "GNU.sparse.minor=0", "GNU.sparse.minor=1",
		"GNU.sparse.size=4096", "GNU.sparse.realsize=100000",
		"GNU.sparse.name=sp", "GNU.sparse.map=0,5,4000,5",
		"GNU.sparse.offset=10", "GNU.sparse.numbytes=5",
		"SCHILY.xattr.user.k=v", "SCHILY.xattr.user.k\\0x=v",
		"LIBARCHIVE.xattr.user.%41=YWJj", "RHT.security.selinux=l",
		"SCHILY.devmajor=8", "SCHILY.acl.access=x", "hdrcharset=BINARY",
	};
	const char *r = recs[rnd(sizeof(recs) / sizeof(recs[0]))];
	char kv[64];
	size_t n = 0, total;

	/* "\\0" in the table stands for a NUL byte */
	for (const char *p = r; *p != '\0' && n < sizeof(kv) - 1; p++)
		kv[n++] = (p[0] == '\\' && p[1] == '0') ? (p++, '\0') : *p;
	total = n + 3; /* " ", "\n", one length digit */
	while (total != n + 2 + (size_t)snprintf(NULL, 0, "%zu", total))
		total++;
	if (rnd(16) == 0)
		total += rnd(3) - 1; /* a wrong length now and then */
	if (at + total + 1 > cap)
		return at;
	at += (size_t)sprintf(buf + at, "%zu ", total);
	memcpy(buf + at, kv, n);
	at += n;
	buf[at++] = '\n';
	return at;
}

/* Make h a pax header ('x' or 'g') with fresh records as its data. */
static size_t mutate_pax(uint8_t *data, size_t size, size_t max, size_t hoff)
{
	uint8_t *h = data + hoff;
	uint8_t blocks[4 * BLK] = { 0 };
	char rec[4 * BLK];
	size_t len = 0, old = 0, res;
	uint64_t v = 0;

	for (int i = 124; i < 135 && h[i] >= '0' && h[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(h[i] - '0');
	if (h[156] == 'x' || h[156] == 'g')
		old = (size_t)((v + BLK - 1) / BLK * BLK);
	for (uint32_t n = 1 + rnd(6); n > 0; n--)
		len = append_record(rec, len, sizeof(rec));
	memcpy(blocks, rec, len);
	h[156] = rnd(8) ? 'x' : 'g';
	snprintf((char *)h + 124, 12, "%011zo", len);
	fix_checksum(h);
	res = splice(data, size, max, hoff + BLK, old < size - hoff - BLK ?
		     old : size - hoff - BLK, blocks, (len + BLK - 1) / BLK * BLK);
	return res ? res : size;
}

static size_t mutate_blocks(uint8_t *data, size_t size, size_t max, size_t hoff)
{
	static const uint8_t zero[BLK];
	size_t res = 0;

	switch (rnd(4)) {
	case 0: /* a lone zero block before this header */
		res = splice(data, size, max, hoff, 0, zero, BLK);
		break;
	case 1: /* the header twice */
		if (size + BLK <= max) {
			memmove(data + hoff + BLK, data + hoff, size - hoff);
			res = size + BLK;
		}
		break;
	case 2: /* a cut anywhere after the header starts */
		return hoff + rnd((uint32_t)(size - hoff));
	default: /* the end blocks go */
		return hoff + BLK + rnd((uint32_t)(size - hoff - BLK + 1)) / BLK * BLK;
	}
	return res ? res : size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	size_t headers[MAX_HEADERS], n = 0, hoff;
	uint8_t *h;

	rnd_state = seed | 1;
	for (size_t off = 0; off + BLK <= size && n < MAX_HEADERS; off += BLK)
		if (is_header(data + off))
			headers[n++] = off;
	if (n == 0 || rnd(4) == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	hoff = headers[rnd((uint32_t)n)];
	h = data + hoff;
	switch (rnd(7)) {
	case 0: case 1:
		mutate_number(h);
		break;
	case 2:
		mutate_kind(h);
		break;
	case 3:
		mutate_name(h);
		break;
	case 4:
		return mutate_pax(data, size, max_size, hoff);
	case 5:
		return mutate_blocks(data, size, max_size, hoff);
	default: /* a sparse header, old GNU or star, extended or not */
		h[156] = 'S';
		memcpy(h + 257, rnd(2) ? "ustar  " : "ustar\00000", 8);
		h[rnd(2) ? 482 : 355] = (uint8_t)rnd(2);
		mutate_number(h);
		break;
	}
	if (rnd(16) != 0)
		fix_checksum(h);
	return size;
}
