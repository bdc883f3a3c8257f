/* SPDX-License-Identifier: MIT */
/*
 * xattrs.c - interning xattr sets.
 *
 * A set is serialised once, in SquashFS's key/value record form (the
 * writer's own: see xattrs.h), sorted by full key name (a later duplicate
 * key wins, as setting it twice would); the serialised bytes are both the
 * interning key and what the back ends write or re-encode.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "util/endian.h"
#include "write/xattrs.h"

int xattr_store_init(struct xattr_store *s, struct sqp_errbuf *err,
		     sqp_warn_fn warn, void *warn_user)
{
	memset(s, 0, sizeof(*s));
	s->err = err;
	s->warn = warn;
	s->warn_user = warn_user;
	return 0;
}

void xattr_store_cleanup(struct xattr_store *s)
{
	size_t i;

	for (i = 0; i < s->count; ++i)
		free(s->sets[i].blob);
	free(s->sets);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

/* The prefixes a set keeps, at their WR_XATTR_* index. */
static const char *const prefixes[] = {
	[WR_XATTR_USER] = "user.",
	[WR_XATTR_TRUSTED] = "trusted.",
	[WR_XATTR_SECURITY] = "security.",
};

/* key's prefix id, the length of its prefix in *name_off; -1 for a
 * prefix the store does not keep. */
static int prefix_id(const char *key, size_t *name_off)
{
	size_t i, n;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); ++i) {
		n = strlen(prefixes[i]);
		if (strncmp(key, prefixes[i], n) == 0) {
			*name_off = n;
			return (int)i;
		}
	}
	return -1;
}

static int cmp_xattr(const void *a, const void *b)
{
	const struct sqp_xattr *const *x = a, *const *y = b;
	int c = strcmp((*x)->key, (*y)->key);

	/* Equal keys: keep input order, so the last one can win. */
	if (c == 0)
		c = (*x < *y) ? -1 : (*x > *y);
	return c;
}

/* Serialise the storable attributes into a new blob. */
static int serialise(struct xattr_store *s, const char *path,
		     const struct sqp_xattr *xattrs, size_t n, struct xattr_set *set)
{
	const struct sqp_xattr **sorted = malloc((n ? n : 1) * sizeof(*sorted));
	size_t i, size = 0, name_off;
	uint8_t *p;
	int type;

	if (sorted == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < n; ++i) {
		sorted[i] = &xattrs[i];
		size += 8 + strlen(xattrs[i].key) + xattrs[i].value_len;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_xattr);
	set->blob = p = malloc(size ? size : 1);
	if (p == NULL) {
		free(sorted);
		return SQP_ERR_NOMEM;
	}
	for (i = 0; i < n; ++i) {
		const struct sqp_xattr *x = sorted[i];
		size_t name_len;

		if (i + 1 < n && strcmp(x->key, sorted[i + 1]->key) == 0)
			continue;
		type = prefix_id(x->key, &name_off);
		name_len = strlen(x->key) - name_off;
		if (type < 0 || name_len == 0 || name_len > UINT16_MAX ||
		    x->value_len > UINT32_MAX - 8) {
			if (s->warn != NULL) {
				char msg[600];

				snprintf(msg, sizeof(msg), "'%s': xattr '%.200s' cannot be "
					 "stored in SquashFS; skipped", path, x->key);
				s->warn(s->warn_user, msg);
			}
			continue;
		}
		sqp_put16(p, (uint16_t)type);
		sqp_put16(p + 2, (uint16_t)name_len);
		memcpy(p + 4, x->key + name_off, name_len);
		p += 4 + name_len;
		sqp_put32(p, (uint32_t)x->value_len);
		memcpy(p + 4, x->value, x->value_len);
		p += 4 + x->value_len;
		set->count++;
	}
	free(sorted);
	if ((size_t)(p - set->blob) > UINT32_MAX)
		return SQP_ERR_LIMIT;
	set->len = (uint32_t)(p - set->blob);
	set->hash = XXH3_64bits(set->blob, set->len);
	return 0;
}

static int grow_slots(struct xattr_store *s)
{
	size_t n = s->slot_count ? s->slot_count * 2 : 256, i;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (slots == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < s->count; ++i) {
		size_t j = s->sets[i].hash & (n - 1);

		while (slots[j] != 0)
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->slot_count = n;
	return 0;
}

int xattr_store_intern(struct xattr_store *s, const char *path,
		       const struct sqp_xattr *xattrs, size_t count, uint32_t *id)
{
	struct xattr_set set = { 0 };
	size_t j;
	int ret;

	*id = WR_NO_XATTR;
	if (count == 0)
		return 0;
	ret = serialise(s, path, xattrs, count, &set);
	if (ret != 0 || set.count == 0) {
		free(set.blob);
		return ret == 0 ? 0 : sqp_err(s->err, ret, "'%s': xattrs: %s", path,
					      sqp_strerror(ret));
	}
	if ((s->count + 1) * 2 > s->slot_count && grow_slots(s) != 0)
		goto nomem;
	for (j = set.hash & (s->slot_count - 1); s->slots[j] != 0;
	     j = (j + 1) & (s->slot_count - 1)) {
		const struct xattr_set *o = &s->sets[s->slots[j] - 1];

		if (o->hash == set.hash && o->len == set.len &&
		    memcmp(o->blob, set.blob, set.len) == 0) {
			free(set.blob);
			*id = s->slots[j] - 1;
			return 0;
		}
	}
	if (s->count == s->cap) {
		struct xattr_set *n = sqp_array_grow(s->sets, &s->cap, s->count + 1,
						     sizeof(*n), 64);

		if (n == NULL)
			goto nomem;
		s->sets = n;
	}
	s->sets[s->count] = set;
	s->slots[j] = (uint32_t)++s->count;
	*id = (uint32_t)s->count - 1;
	return 0;
nomem:
	free(set.blob);
	return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
}

/* The set's records back into keys and values (pointing into keys and
 * the blob), so that an attribute can be added to a set already interned
 * (overlayfs's markers land on directories already added). */
int xattr_store_with(struct xattr_store *s, const char *path, uint32_t id,
		     const char *key, const uint8_t *value, size_t len, uint32_t *out)
{
	const struct xattr_set *set = id == WR_NO_XATTR ? NULL : &s->sets[id];
	uint32_t n = set != NULL ? set->count : 0, i;
	size_t room = set != NULL ? set->len + (size_t)n * 16 : 1;
	struct sqp_xattr *x = malloc((n + 1) * sizeof(*x));
	char *keys = malloc(room), *k = keys;
	const uint8_t *p = set != NULL ? set->blob : NULL;
	int ret;

	if (x == NULL || keys == NULL) {
		free(x);
		free(keys);
		return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		uint16_t type = sqp_get16(p);
		const char *prefix = type < sizeof(prefixes) / sizeof(prefixes[0]) ?
				     prefixes[type] : NULL;
		uint16_t nlen = sqp_get16(p + 2);

		x[i].key = k;
		k += sprintf(k, "%s%.*s", prefix != NULL ? prefix : "", (int)nlen,
			     (const char *)p + 4) + 1;
		p += 4 + nlen;
		x[i].value_len = sqp_get32(p);
		x[i].value = p + 4;
		p += 4 + x[i].value_len;
	}
	/* Last among equal keys: serialise keeps it. */
	x[n].key = key;
	x[n].value = value;
	x[n].value_len = len;
	ret = xattr_store_intern(s, path, x, n + 1, out);
	free(x);
	free(keys);
	return ret;
}

