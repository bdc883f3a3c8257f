/* SPDX-License-Identifier: MIT */
/*
 * codec_util.c - the one walker of the codecs' option tables
 * (struct codec_opt in codec_impl.h), so every codec takes a number, a
 * size, a name or a flag by the same rules and reports a bad option in
 * the same words and with its help text. A codec file only says which
 * keys it has; the rule that a row's value fits its field and range
 * before the field changes is kept here, once.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_impl.h"

static int bad_option(const struct sqp_codec_ops *ops, const char *key,
		      const char *why, char *msg, size_t msg_size)
{
	if (msg_size > 0)
		snprintf(msg, msg_size, "%s: %s '%s'; valid options:\n%s",
			 ops->name, why, key, ops->help);
	return SQP_ERR_ARG;
}

/* A decimal number in [lo, hi], with a K or M suffix when sizes is set. */
static int parse_uint(const char *key, const char *value, unsigned long lo,
		      unsigned long hi, int sizes, unsigned long *out,
		      char *msg, size_t msg_size)
{
	unsigned long v;
	char *end;

	if (value == NULL || value[0] < '0' || value[0] > '9')
		goto bad;
	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno != 0)
		goto bad;
	if (sizes && (*end == 'K' || *end == 'k') && v <= (hi >> 10)) {
		v <<= 10;
		end++;
	} else if (sizes && (*end == 'M' || *end == 'm') && v <= (hi >> 20)) {
		v <<= 20;
		end++;
	}
	if (*end != '\0' || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	if (msg_size > 0)
		snprintf(msg, msg_size, "option '%s': '%s' is not a number in "
			 "%lu..%lu", key, value ? value : "", lo, hi);
	return SQP_ERR_ARG;
}

/* Set (or, for bit sets, add to) the field a row names. */
static void store(struct sqp_codec_config *cfg, enum codec_opt_field field,
		  unsigned long v, int add)
{
	unsigned *u = NULL;

	switch (field) {
	case CODEC_FIELD_LEVEL:
		cfg->level = (int)v;
		return;
	case CODEC_FIELD_DICT_SIZE:
		cfg->dict_size = (uint32_t)v;
		return;
	case CODEC_FIELD_WINDOW: u = &cfg->window; break;
	case CODEC_FIELD_STRATEGIES: u = &cfg->strategies; break;
	case CODEC_FIELD_FILTERS: u = &cfg->filters; break;
	case CODEC_FIELD_ALGORITHM: u = &cfg->algorithm; break;
	case CODEC_FIELD_FLAGS: u = &cfg->flags; break;
	}
	*u = add ? *u | (unsigned)v : (unsigned)v;
}

static const struct codec_opt *find(const struct sqp_codec_ops *ops,
				    const char *key)
{
	for (const struct codec_opt *o = ops->opts; o->key != NULL; o++)
		if (strcmp(o->key, key) == 0)
			return o;
	return NULL;
}

/* The value of a row: its number, or its name's index, in *v. */
static int row_value(const struct sqp_codec_ops *ops,
		     const struct sqp_codec_config *cfg,
		     const struct codec_opt *o, const char *value,
		     unsigned long *v, char *msg, size_t msg_size)
{
	unsigned long hi = o->hi_of != NULL ? o->hi_of(cfg) : o->hi;
	int ret;

	switch (o->kind) {
	case CODEC_OPT_UINT:
	case CODEC_OPT_SIZE:
		ret = parse_uint(o->key, value, o->lo, hi,
				 o->kind == CODEC_OPT_SIZE, v, msg, msg_size);
		if (ret == 0 && o->valid != NULL && !o->valid(*v))
			return bad_option(ops, value, o->why, msg, msg_size);
		return ret;
	case CODEC_OPT_ENUM:
	case CODEC_OPT_BITS:
		if (value == NULL)
			break;
		for (*v = 0; o->names[*v] != NULL; (*v)++)
			if (strcmp(o->names[*v], value) == 0)
				return 0;
		return bad_option(ops, value, o->why, msg, msg_size);
	case CODEC_OPT_FLAG:
		if (value != NULL)
			break;
		*v = o->lo;
		return 0;
	}
	return bad_option(ops, o->key, "unknown option", msg, msg_size);
}

int codec_opt_apply(const struct sqp_codec_ops *ops,
		    struct sqp_codec_config *cfg, const char *key,
		    const char *value, char *msg, size_t msg_size)
{
	const struct codec_opt *o = find(ops, key);
	/* row_value sets v on success; gcc -O1 (TSan builds) cannot see it. */
	unsigned long v = 0;
	int ret;

	if (o == NULL)
		return bad_option(ops, key, "unknown option", msg, msg_size);
	ret = row_value(ops, cfg, o, value, &v, msg, msg_size);
	if (ret != 0)
		return ret;
	if (o->kind == CODEC_OPT_BITS)
		store(cfg, o->field, 1ul << v, 1);
	else
		store(cfg, o->field, v, o->kind == CODEC_OPT_FLAG);
	cfg->flags |= o->also_flags;
	return 0;
}

int codec_opt_is_list(const struct sqp_codec_ops *ops, const char *key)
{
	const struct codec_opt *o = find(ops, key);

	return o != NULL && o->kind == CODEC_OPT_BITS;
}

unsigned long codec_opt_block_size(const struct sqp_codec_config *cfg)
{
	return cfg->block_size;
}
