/* SPDX-License-Identifier: MIT */
/*
 * tar_entry.c - turn one file header, plus the pax and GNU headers that
 * preceded it, into a struct sqp_entry.
 *
 * Precedence is that of tar extractors: pax records over GNU long names
 * over the header fields; local pax records over global ones. A v7
 * header has no type for directories: a name ending in '/' is one. star
 * and xstar headers are ustar with a shorter prefix and their own place
 * for the sparse map; star's original format is no ustar at all, and is
 * read as star reads it (star/star.h, header.c and hole.c of schilytools).
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "tar/tar_impl.h"

/* Header number helper: the field, or an error naming it and the entry. */
static int field(struct sqp_tar_reader *r, const uint8_t *h, int off,
		 size_t len, const char *what, uint64_t *out)
{
	if (tar_field_u64(h + off, len, out) == 0)
		return 0;
	return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%.100s': bad %s field "
		       "(neither octal nor base-256)", (const char *)h, what);
}

static int copy_str(struct sqp_tar_reader *r, struct tbuf *b, const char *a,
		    size_t alen, const char *c, size_t clen)
{
	if (tbuf_reserve(b, alen + clen + 2) != 0)
		return tar_err(r, SQP_ERR_NOMEM, "out of memory");
	memcpy(b->data, a, alen);
	b->len = alen;
	if (clen > 0) {
		b->data[b->len++] = '/';
		memcpy(b->data + b->len, c, clen);
		b->len += clen;
	}
	b->data[b->len] = '\0';
	return 0;
}

/*
 * star's original format: its "tar" signature at the end and, where
 * ustar has its magic, a version byte ('1' since 1986; older headers are
 * plain v7 to star too). star itself tells it apart by the signature
 * alone when the POSIX magic is absent.
 */
static int old_star(const uint8_t *h)
{
	return memcmp(h + TH_MAGIC, "ustar\0", 6) != 0 &&
	       memcmp(h + TH_XSTAR_MAGIC, "tar\0", 4) == 0 &&
	       h[TH_OSTAR_VERSION] >= '1';
}

/* How many bytes of the prefix field hold a name: none in v7 and GNU
 * headers, 131 in xstar's, 155 in ustar's and in star's original one. */
static size_t prefix_len(const uint8_t *h, int ustar)
{
	if (ustar)
		return memcmp(h + TH_XSTAR_MAGIC, "tar\0", 4) == 0 ?
		       TH_STAR_PREFIX_LEN : 155;
	return old_star(h) ? TH_OSTAR_PREFIX_LEN : 0;
}

/* The entry's path; *slash tells whether it ended in '/' before it was
 * normalised (old tars mark directories only that way). A star sparse
 * header has its map where the prefix would be. */
static int entry_path(struct sqp_tar_reader *r, const uint8_t *h, int ustar,
		      int *slash)
{
	const char *name = (const char *)h + TH_NAME;
	const char *prefix = (const char *)h + TH_PREFIX;
	size_t nlen = strnlen(name, 100), plen = prefix_len(h, ustar);
	int ret;

	if (r->pax.have & PAX_SPARSE_NAME)
		ret = copy_str(r, &r->path, r->pax.sparse_name,
			       strlen(r->pax.sparse_name), NULL, 0);
	else if (r->pax.have & PAX_PATH)
		ret = copy_str(r, &r->path, r->pax.path, strlen(r->pax.path),
			       NULL, 0);
	else if (r->gnu_longname.len > 0)
		ret = copy_str(r, &r->path, r->gnu_longname.data,
			       strlen(r->gnu_longname.data), NULL, 0);
	else if (plen > 0 && prefix[0] != '\0' && h[TH_TYPE] != 'S')
		ret = copy_str(r, &r->path, prefix, strnlen(prefix, plen),
			       name, nlen);
	else
		ret = copy_str(r, &r->path, name, nlen, NULL, 0);
	if (ret != 0)
		return ret;
	*slash = r->path.len > 0 && r->path.data[r->path.len - 1] == '/';
	if (tar_normalize_path(r->path.data) != 0)
		return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': path has a "
			       "'..' component", r->path.data);
	r->entry.path = r->path.data;
	return 0;
}

static int entry_link(struct sqp_tar_reader *r, const uint8_t *h, int hard)
{
	const char *l = (const char *)h + TH_LINKNAME;
	size_t llen = strnlen(l, 100);

	if (r->pax.have & PAX_LINK) {
		l = r->pax.link;
		llen = strlen(l);
	} else if (r->gnu_longlink.len > 0) {
		l = r->gnu_longlink.data;
		llen = strlen(l);
	}
	if (copy_str(r, &r->link, l, llen, NULL, 0) != 0)
		return r->err.code;
	if (hard && tar_normalize_path(r->link.data) != 0)
		return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': hard link "
			       "target '%s' has a '..' component", r->path.data,
			       r->link.data);
	if (r->link.data[0] == '\0')
		return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': empty link "
			       "target", r->path.data);
	r->entry.link_target = r->link.data;
	return 0;
}

/* The numeric attributes: header, then global pax, then local pax. */
static int entry_numbers(struct sqp_tar_reader *r, const uint8_t *h)
{
	struct sqp_entry *e = &r->entry;
	const struct pax_fields *px[2] = { &r->global, &r->pax };
	uint64_t mode;
	int ret;

	if ((ret = field(r, h, TH_MODE, 8, "mode", &mode)) != 0 ||
	    (ret = field(r, h, TH_UID, 8, "uid", &e->uid)) != 0 ||
	    (ret = field(r, h, TH_GID, 8, "gid", &e->gid)) != 0)
		return ret;
	if (tar_field_i64(h + TH_MTIME, 12, &e->mtime) != 0)
		return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%.100s': bad "
			       "mtime field", (const char *)h);
	e->mode = (uint32_t)(mode & 07777);
	for (int i = 0; i < 2; i++) {
		if (px[i]->have & PAX_UID)
			e->uid = px[i]->uid;
		if (px[i]->have & PAX_GID)
			e->gid = px[i]->gid;
		if (px[i]->have & PAX_MTIME) {
			e->mtime = px[i]->mtime;
			e->mtime_nsec = px[i]->mtime_nsec;
		}
	}
	return 0;
}

/*
 * star's original format keeps the device number whole, and after it
 * '@' plus how many of its low bits are the minor. '@' alone means the
 * writer's minors were not contiguous bits: star then splits the number
 * as its own system does, and star on Linux writes Linux's encoding (8
 * low minor bits, 12 major bits, then the rest of the minor and of the
 * major), which is how it is read here. A count below '@' comes from
 * star before the count existed: 8 bits, as star assumes.
 */
static int old_star_device(struct sqp_tar_reader *r, const uint8_t *h,
			   uint64_t *major, uint64_t *minor)
{
	int bits = (int)h[TH_OSTAR_MINORBITS] - '@';
	uint64_t dev;
	int ret;

	if ((ret = field(r, h, TH_OSTAR_RDEV, 11, "rdev", &dev)) != 0)
		return ret;
	if (bits == 0) {
		*major = (dev >> 8 & 0xfff) | (dev >> 32 & ~(uint64_t)0xfff);
		*minor = (dev & 0xff) | (dev >> 12 & ~(uint64_t)0xff);
		return 0;
	}
	if (bits < 0 || bits >= 64)
		bits = 8;
	*major = dev >> bits;
	*minor = dev & (((uint64_t)1 << bits) - 1);
	return 0;
}

static int entry_device(struct sqp_tar_reader *r, const uint8_t *h)
{
	uint64_t major, minor;
	int ret;

	if (old_star(h))
		ret = old_star_device(r, h, &major, &minor);
	else if ((ret = field(r, h, TH_DEVMAJOR, 8, "devmajor", &major)) == 0)
		ret = field(r, h, TH_DEVMINOR, 8, "devminor", &minor);
	if (ret != 0)
		return ret;
	if (r->pax.have & PAX_DEVMAJOR)
		major = r->pax.devmajor;
	if (r->pax.have & PAX_DEVMINOR)
		minor = r->pax.devminor;
	if (major > UINT32_MAX || minor > UINT32_MAX)
		return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': device "
			       "number out of range", r->path.data);
	r->entry.dev_major = (uint32_t)major;
	r->entry.dev_minor = (uint32_t)minor;
	return 0;
}

/* A regular file's size and, for sparse files, its map. */
static int entry_file(struct sqp_tar_reader *r, const uint8_t *h, int old_sparse)
{
	struct sqp_entry *e = &r->entry;
	uint64_t real = r->stored_left;
	int ret;

	if (old_sparse) {
		/* 'S' is GNU's; star writes it with the POSIX magic or in
		 * its original format, and lays the map out its own way. */
		int star = memcmp(h + TH_MAGIC, "ustar\0", 6) == 0 ||
			   old_star(h);

		ret = field(r, h, star ? TH_STAR_REALSIZE : TH_GNU_REALSIZE, 12,
			    "real size", &real);
		if (ret != 0 || (ret = tar_sparse_old_gnu(r, h, star)) != 0)
			return ret;
	} else if ((r->pax.have & PAX_SPARSE_MAJOR) && r->pax.sparse_major == 1) {
		if ((ret = tar_sparse_map_10(r)) != 0)
			return ret;
	}
	if (r->sparse && !old_sparse) {
		if (!(r->pax.have & PAX_SPARSE_SIZE))
			return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': sparse "
				       "file without its real size", r->path.data);
		real = r->pax.sparse_size;
	}
	if (r->sparse && (ret = tar_sparse_check(r, real)) != 0)
		return ret;
	e->size = real;
	r->logical_size = real;
	if (r->sparse) {
		e->sparse = r->runs;
		e->sparse_count = r->run_count;
	}
	return 0;
}

int tar_build_entry(struct sqp_tar_reader *r, const uint8_t *h)
{
	struct sqp_entry *e = &r->entry;
	int ustar = memcmp(h + TH_MAGIC, "ustar\0", 6) == 0;
	char type = (char)h[TH_TYPE];
	int ret, slash;

	memset(e, 0, sizeof(*e));
	e->struct_size = sizeof(*e);
	if ((ret = entry_path(r, h, ustar, &slash)) != 0 ||
	    (ret = entry_numbers(r, h)) != 0)
		return ret;
	switch (type) {
	case '0': case '\0': case '7':
		/* A "file" named with a trailing '/' is a directory: the
		 * convention of tars older than the directory type, which GNU
		 * tar and bsdtar honour whatever the header's format. */
		if (slash) {
			e->mode |= S_IFDIR;
			break;
		}
		e->mode |= S_IFREG;
		ret = entry_file(r, h, 0);
		break;
	case 'S':
		e->mode |= S_IFREG;
		ret = entry_file(r, h, 1);
		break;
	case '1':
		e->mode |= S_IFREG;
		e->is_hardlink = 1;
		/* Old writers put the target's size in a hard link's header
		 * but no data after it; GNU tar ignores the field. Only an
		 * explicit pax size says the data is there. */
		if (!(r->pax.have & PAX_SIZE))
			r->stored_left = r->padding = 0;
		ret = entry_link(r, h, 1);
		break;
	case '2':
		e->mode |= S_IFLNK;
		ret = entry_link(r, h, 0);
		break;
	case '3': case '4':
		e->mode |= type == '3' ? S_IFCHR : S_IFBLK;
		ret = entry_device(r, h);
		break;
	case '5': case 'D':
		e->mode |= S_IFDIR;
		break;
	case '6':
		e->mode |= S_IFIFO;
		break;
	default:
		tar_warn(r, "tar entry '%s': unknown type '%c', skipped",
			 e->path, type);
		return 0;
	}
	if (ret != 0)
		return ret;
	e->xattrs = r->xattr_count ? r->xattrs : NULL;
	e->xattr_count = r->xattr_count;
	return 1;
}
