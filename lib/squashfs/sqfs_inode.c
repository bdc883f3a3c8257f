/* SPDX-License-Identifier: MIT */
/*
 * inode.c - the SquashFS back end's inodes, directory listings and
 * xattrs, all read through the metadata reader of image.c, into the
 * core's records.
 *
 * Sizes read from the image bound every loop and allocation here: a
 * listing is read for exactly its stated size, a run has at most 256
 * entries, names at most 256 bytes and never contain '/', xattr values
 * are at most XATTR_VALUE_MAX bytes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "util/array.h"
#include "util/endian.h"

#define SYMLINK_MAX (1u << 20)
#define XATTR_VALUE_MAX (1u << 20)

static const uint32_t type_bits[8] = {
	0, S_IFDIR, S_IFREG, S_IFLNK, S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK,
};

static int inode_tail(struct sqp_image *img, struct meta_pos *p,
		      struct rd_inode *ino)
{
	struct sqfs_inode *r = &sqi(ino)->raw;
	uint32_t bs = sq(img)->sb.block_size;
	uint8_t word[4];
	int ret;

	switch (r->type) {
	case SQFS_FILE:
	case SQFS_LFILE:
		if (r->u.file.frag_index != SQFS_NO_FRAGMENT &&
		    (r->u.file.size % bs == 0 || r->u.file.frag_offset >= bs))
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: bad "
				      "fragment reference", img->name,
				      r->inode_number);
		ino->block_count = sqfs_file_block_count(r->u.file.size, bs,
				r->u.file.frag_index != SQFS_NO_FRAGMENT);
		sqi(ino)->blocks = *p;
		return 0;
	case SQFS_SYMLINK:
	case SQFS_LSYMLINK:
		if (r->u.symlink.target_size == 0 ||
		    r->u.symlink.target_size > SYMLINK_MAX)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: "
				      "symlink target of %u bytes", img->name,
				      r->inode_number, r->u.symlink.target_size);
		ino->target = malloc(r->u.symlink.target_size + 1);
		if (ino->target == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		ret = meta_read(img, p, ino->target, r->u.symlink.target_size);
		if (ret != 0)
			return ret;
		ino->target[r->u.symlink.target_size] = '\0';
		if (strlen(ino->target) != r->u.symlink.target_size)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: NUL "
				      "in a symlink target", img->name,
				      r->inode_number);
		if (r->type == SQFS_LSYMLINK) {
			if ((ret = meta_read(img, p, word, 4)) != 0)
				return ret;
			r->xattr_idx = sqp_get32(word);
		}
		return 0;
	case SQFS_DIR:
	case SQFS_LDIR:
		if (r->u.dir.size < SQFS_DIR_SIZE_BIAS)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: "
				      "directory size %u", img->name,
				      r->inode_number, r->u.dir.size);
		sqi(ino)->blocks = *p;
		return 0;
	default:
		return 0;
	}
}

/* The neutral fields from the decoded record. */
static void neutral(struct rd_inode *ino)
{
	const struct sqfs_inode *r = &sqi(ino)->raw;

	ino->inode_number = r->inode_number;
	ino->nlink = r->nlink;
	ino->mtime = r->mtime;
	ino->has_xattrs = r->xattr_idx != SQFS_NO_XATTR;
	if (S_ISREG(ino->mode))
		ino->size = r->u.file.size;
	else if (S_ISLNK(ino->mode))
		ino->size = r->u.symlink.target_size;
	else if (S_ISDIR(ino->mode))
		ino->size = r->u.dir.size - SQFS_DIR_SIZE_BIAS;
	else if (S_ISCHR(ino->mode) || S_ISBLK(ino->mode))
		sqfs_decode_rdev(r->u.dev.rdev, &ino->dev_major,
				 &ino->dev_minor);
}

int rd_sqfs_inode_read(struct sqp_image *img, uint64_t ref,
		       struct rd_inode *ino)
{
	uint8_t buf[64];
	struct meta_pos p;
	size_t fixed;
	unsigned type;
	int ret;

	memset(ino, 0, sizeof(*ino));
	if (sqfs_ref_block(ref) >= sq(img)->sb.dir_table - sq(img)->sb.inode_table ||
	    sqfs_ref_offset(ref) >= SQFS_META_SIZE)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode reference %llx "
			      "out of range", img->name, (unsigned long long)ref);
	p = (struct meta_pos){ sq(img)->sb.inode_table, sqfs_ref_block(ref),
			       sqfs_ref_offset(ref) };
	if ((ret = meta_read(img, &p, buf, 16)) != 0)
		return ret;
	type = sqp_get16(buf);
	fixed = sqfs_inode_fixed_size(type);
	if (fixed == 0 || fixed > sizeof(buf))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: unknown inode type %u",
			      img->name, type);
	if ((ret = meta_read(img, &p, buf + 16, fixed - 16)) != 0)
		return ret;
	if (sqfs_inode_decode_fixed(&sqi(ino)->raw, buf, fixed) != 0)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: bad inode", img->name);
	if (sqi(ino)->raw.uid_idx >= sq(img)->sb.id_count ||
	    sqi(ino)->raw.gid_idx >= sq(img)->sb.id_count)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: owner index "
			      "out of range", img->name, sqi(ino)->raw.inode_number);
	ino->uid = sq(img)->ids[sqi(ino)->raw.uid_idx];
	ino->gid = sq(img)->ids[sqi(ino)->raw.gid_idx];
	type = type > SQFS_EXT_OFFSET ? type - SQFS_EXT_OFFSET : type;
	ino->mode = type_bits[type] | (sqi(ino)->raw.mode & 07777);
	ret = inode_tail(img, &p, ino);
	if (ret != 0)
		rd_inode_free(ino);
	else
		neutral(ino);
	return ret;
}

int rd_sqfs_dir_open(struct sqp_image *img, const struct rd_inode *dir,
		     struct rd_dir *it)
{
	memset(it, 0, sizeof(*it));
	if (!S_ISDIR(dir->mode))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: not a directory",
			      img->name);
	sqd(it)->pos = (struct meta_pos){ sq(img)->sb.dir_table,
				     sqi(dir)->raw.u.dir.start_block,
				     sqi(dir)->raw.u.dir.offset };
	sqd(it)->left = sqi(dir)->raw.u.dir.size - SQFS_DIR_SIZE_BIAS;
	it->inode_number = sqi(dir)->raw.inode_number;
	return 0;
}

static int dir_bytes(struct sqp_image *img, struct rd_dir *it, void *dst,
		     size_t n)
{
	if (sqd(it)->left < n)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory listing "
			      "ends inside an entry", img->name);
	sqd(it)->left -= n;
	return meta_read(img, &sqd(it)->pos, dst, n);
}

int rd_sqfs_dir_next(struct sqp_image *img, struct rd_dir *it,
		     struct rd_dirent *e)
{
	uint8_t raw[SQFS_DIR_HEADER_SIZE];
	struct sqfs_dir_entry de;
	int ret;

	if (sqd(it)->left == 0)
		return 0;
	if (sqd(it)->run_left == 0) {
		if ((ret = dir_bytes(img, it, raw, SQFS_DIR_HEADER_SIZE)) != 0)
			return ret;
		sqfs_dir_header_decode(&sqd(it)->hdr, raw);
		if (sqd(it)->hdr.count == 0 || sqd(it)->hdr.count > SQFS_DIR_MAX_RUN)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: directory header "
				      "with %u entries", img->name,
				      sqd(it)->hdr.count);
		sqd(it)->run_left = sqd(it)->hdr.count;
	}
	if ((ret = dir_bytes(img, it, raw, SQFS_DIR_ENTRY_SIZE)) != 0)
		return ret;
	sqfs_dir_entry_decode(&de, raw);
	if (de.name_size > SQFS_NAME_MAX)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory entry name of "
			      "%u bytes", img->name, de.name_size);
	if ((ret = dir_bytes(img, it, e->name, de.name_size)) != 0)
		return ret;
	e->name[de.name_size] = '\0';
	if (strlen(e->name) != de.name_size)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "a name holding a NUL byte", img->name,
			      it->inode_number);
	if ((ret = rd_dir_name(img, it, e->name)) != 0)
		return ret;
	e->inode_ref = sqfs_ref(sqd(it)->hdr.start_block, de.offset);
	e->inode_number = sqd(it)->hdr.inode_number + (uint32_t)(int32_t)de.inode_delta;
	e->type = de.type;
	sqd(it)->run_left--;
	return 1;
}

/* Append skip bytes of room and n bytes read at p to the blob, and a
 * NUL; *off is where the room starts. */
static int blob_read(struct sqp_image *img, struct rd_xattrs *x,
		     struct meta_pos *p, size_t skip, size_t n, size_t *off)
{
	n += skip;
	if (x->blob_len + n + 1 > x->blob_cap) {
		uint8_t *b = sqp_array_grow(x->blob, &x->blob_cap,
					    x->blob_len + n + 1, 1, 1024);

		if (b == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		x->blob = b;
	}
	*off = x->blob_len;
	x->blob_len += n + 1;
	x->blob[*off + n] = 0;
	return meta_read(img, p, x->blob + *off + skip, n - skip);
}

static int xattr_pair(struct sqp_image *img, struct rd_xattrs *x,
		      struct meta_pos *p, size_t *koff, size_t *voff,
		      size_t *vlen)
{
	static const char *const prefixes[] = { "user.", "trusted.", "security." };
	uint8_t head[8];
	uint16_t type, nlen;
	uint32_t size;
	struct meta_pos vp;
	size_t pre;
	int ret;

	if ((ret = meta_read(img, p, head, 4)) != 0)
		return ret;
	type = sqp_get16(head);
	nlen = sqp_get16(head + 2);
	if ((type & 0xff) > 2 || (type & ~(0xff | SQFS_XATTR_VALUE_OOL)) != 0)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: unknown xattr prefix "
			      "%u", img->name, type);
	pre = strlen(prefixes[type & 0xff]);
	if ((ret = blob_read(img, x, p, pre, nlen, koff)) != 0)
		return ret;
	memcpy(x->blob + *koff, prefixes[type & 0xff], pre);
	if ((ret = meta_read(img, p, head, 4)) != 0)
		return ret;
	size = sqp_get32(head);
	vp = *p;
	if (type & SQFS_XATTR_VALUE_OOL) {
		uint64_t ref;

		if (size != 8 || (ret = meta_read(img, p, head, 8)) != 0)
			return ret ? ret : rd_err(img, SQP_ERR_CORRUPT, "%s: bad "
					      "out-of-line xattr", img->name);
		ref = sqp_get64(head);
		vp = (struct meta_pos){ sq(img)->xattr_hdr.kv_start,
					sqfs_ref_block(ref), sqfs_ref_offset(ref) };
		if ((ret = meta_read(img, &vp, head, 4)) != 0)
			return ret;
		size = sqp_get32(head);
	}
	if (size > XATTR_VALUE_MAX)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: xattr value of %u "
			      "bytes", img->name, size);
	*vlen = size;
	ret = blob_read(img, x, &vp, 0, size, voff);
	if (ret == 0 && !(type & SQFS_XATTR_VALUE_OOL))
		*p = vp;
	return ret;
}

int rd_xattrs_read(struct sqp_image *img, uint32_t idx, struct rd_xattrs *x)
{
	struct sqfs_xattr_id id;
	struct meta_pos p;
	int ret;

	x->count = 0;
	x->blob_len = 0;
	if (idx == SQFS_NO_XATTR)
		return 0;
	if ((ret = rd_xattr_id(img, idx, &id)) != 0)
		return ret;
	if (id.count > id.size / 8 + 1 || id.count > 65536)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: xattr set with %u "
			      "entries", img->name, id.count);
	if (id.count > x->cap) {
		struct sqp_xattr *it = realloc(x->items, id.count * sizeof(*it));

		if (it == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		x->items = it;
		x->cap = id.count;
	}
	p = (struct meta_pos){ sq(img)->xattr_hdr.kv_start, sqfs_ref_block(id.ref),
			       sqfs_ref_offset(id.ref) };
	/* Offsets first: the blob may move while it grows. */
	for (uint32_t i = 0; i < id.count; i++) {
		size_t koff = 0, voff = 0, vlen = 0;

		if ((ret = xattr_pair(img, x, &p, &koff, &voff, &vlen)) != 0)
			return ret;
		x->items[i].key = (const char *)(uintptr_t)koff;
		x->items[i].value = (const uint8_t *)(uintptr_t)voff;
		x->items[i].value_len = vlen;
	}
	for (uint32_t i = 0; i < id.count; i++) {
		x->items[i].key = (const char *)x->blob + (uintptr_t)x->items[i].key;
		x->items[i].value = x->blob + (uintptr_t)x->items[i].value;
	}
	x->count = id.count;
	return 0;
}

int rd_sqfs_xattrs(struct sqp_image *img, const struct rd_inode *ino,
		   struct rd_xattrs *x)
{
	return rd_xattrs_read(img, sqi(ino)->raw.xattr_idx, x);
}
