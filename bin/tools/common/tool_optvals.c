/* SPDX-License-Identifier: MIT */
/*
 * tool_optvals.c - option values for both packers: numbers, sizes, times,
 * codecs, the --uncompressed list, and the policy built from the options.
 *
 * Every bad value is a usage error (exit 2) naming the option and what
 * would have been valid, never a silent default.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "tool_hex.h"
#include "tool_mains.h"
#include "tool_optvals.h"

int tool_parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int tool_parse_size(const char *s, uint32_t *out)
{
	uint64_t v;

	if (tool_parse_bytes(s, &v) != 0 || v < 4096 || v > (1u << 20) || (v & (v - 1)) != 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int tool_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

int tool_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int tool_parse_time(const char *opt, const char *s, int64_t *out)
{
	uint64_t v;

	if (s[0] == '@')
		s++;
	if (tool_parse_u64(s, UINT32_MAX, &v) != 0) {
		fprintf(stderr, "%s: %s '%s' is not a time in seconds since 1970 "
			"(0..4294967295)\n", tool_progname(), opt, s);
		tool_try_help();
		return 2;
	}
	*out = (int64_t)v;
	return 0;
}

int tool_parse_uuid(const char *s, uint8_t out[16])
{
	static const unsigned char group[] = { 8, 4, 4, 4, 12 };
	size_t g;

	if (strlen(s) != 36)
		return -1;
	for (g = 0; g < sizeof(group); g++) {
		if (g > 0 && *s++ != '-')
			return -1;
		if (tool_hex_decode(s, group[g], out) != 0)
			return -1;
		s += group[g];
		out += group[g] / 2;
	}
	return 0;
}

int tool_uuid_arg(const char *s, uint8_t out[16])
{
	if (strcmp(s, "clear") == 0) {
		memset(out, 0, 16);
		return 0;
	}
	if (strcmp(s, "random") != 0)
		return tool_parse_uuid(s, out);
	/* The one source of chance in the packers, asked for by name: the
	 * library takes the bytes as a given UUID. */
	if (getrandom(out, 16, 0) != 16)
		return -2;
	out[6] = (uint8_t)((out[6] & 0x0F) | 0x40);
	out[8] = (uint8_t)((out[8] & 0x3F) | 0x80);
	return 0;
}

int tool_parse_uncompressed(const char *list, unsigned *flags)
{
	static const struct { const char *name; unsigned flag; } parts[] = {
		{ "inodes", SQP_WRITE_RAW_INODES }, { "data", SQP_WRITE_RAW_DATA },
		{ "fragments", SQP_WRITE_RAW_FRAGMENTS }, { "xattrs", SQP_WRITE_RAW_XATTRS },
		{ "all", SQP_WRITE_RAW_INODES | SQP_WRITE_RAW_DATA |
			 SQP_WRITE_RAW_FRAGMENTS | SQP_WRITE_RAW_XATTRS },
	};
	const char *s = list, *e;
	size_t i;

	while (*s != '\0') {
		e = strchr(s, ',');
		if (e == NULL)
			e = s + strlen(s);
		for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			if (strlen(parts[i].name) == (size_t)(e - s) &&
			    strncmp(parts[i].name, s, (size_t)(e - s)) == 0)
				break;
		}
		if (i == sizeof(parts) / sizeof(parts[0]))
			return tool_bad_usage("--uncompressed '%s': parts are inodes, data, "
					      "fragments, xattrs or all, comma separated", list);
		*flags |= parts[i].flag;
		s = *e ? e + 1 : e;
	}
	return 0;
}

static int codec_list_error(const char *name)
{
	int id;

	fprintf(stderr, "%s: unknown compressor '%s'; valid:", tool_progname(), name);
	for (id = 1; id <= SQP_CODEC_MAX; ++id) {
		if (sqp_codec_available(id))
			fprintf(stderr, " %s", sqp_codec_name(id));
	}
	fputc('\n', stderr);
	return 2;
}

int tool_finish_codec(struct sqp_writer_desc *desc, const char *codec,
		      const char *comp_opts, uint32_t block_size)
{
	char msg[512];
	int id = codec ? sqp_codec_by_name(codec) : SQP_CODEC_ZSTD;

	if (id < 0 || !sqp_codec_available(id))
		return codec_list_error(codec ? codec : "zstd");
	if (sqp_codec_config_init(&desc->codec, id, block_size) != 0)
		return tool_bad_usage("cannot use block size %s", "");
	if (comp_opts != NULL &&
	    sqp_codec_config_parse(&desc->codec, comp_opts, msg, sizeof(msg)) != 0)
		return tool_bad_usage("%s", msg);
	return 0;
}

/* The library's reason, without its own option names: "option 'level':
 * '99' is not a number in 1..22" and "xz: unknown filter 'foo'; valid
 * options: <the library's keys>". */
static const char *library_why(char *msg, const char *codec)
{
	char *why = msg, *cut;

	if (strncmp(why, "option '", 8) == 0 && (cut = strstr(why, "': ")) != NULL)
		why = cut + 3;
	else if (strncmp(why, codec, strlen(codec)) == 0 && why[strlen(codec)] == ':')
		why += strlen(codec) + 2;
	if ((cut = strstr(why, "; valid options")) != NULL)
		*cut = '\0';
	return why;
}

int tool_codec_option(struct sqp_codec_config *cfg, const char *what, const char *key,
		      const char *value, int list, char *out, size_t size)
{
	const char *part = value, *end;
	char opt[128], msg[512];
	int ret;

	if (!list && value != NULL && strchr(value, ',') != NULL) {
		snprintf(out, size, "%s: '%s' is one value, not a list (%s)", what, value,
			 sqp_codec_name(cfg->id));
		return 2;
	}
	/* A list's parts each on its own, as KEY=PART: each adds to the set
	 * (the library's own "filters=x86,arm" reads later words as further
	 * options unless the key is a list). */
	do {
		end = part != NULL ? strchr(part, ',') : NULL;
		if (part == NULL)
			snprintf(opt, sizeof(opt), "%s", key);
		else
			snprintf(opt, sizeof(opt), "%s=%.*s", key,
				 (int)(end ? (size_t)(end - part) : strlen(part)), part);
		ret = sqp_codec_config_parse(cfg, opt, msg, sizeof(msg));
		part = end != NULL ? end + 1 : NULL;
	} while (ret == 0 && part != NULL);
	if (ret == SQP_ERR_NOMEM) {
		snprintf(out, size, "out of memory");
		return 1;
	}
	if (ret != 0)
		snprintf(out, size, "%s: %s (%s)", what,
			 library_why(msg, sqp_codec_name(cfg->id)), sqp_codec_name(cfg->id));
	return ret == 0 ? 0 : 2;
}

int tool_source_date_epoch(int64_t *out)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	uint64_t v;

	*out = SQP_TIME_NEWEST;
	if (s == NULL || s[0] == '\0')
		return 0;
	if (tool_parse_u64(s, UINT32_MAX, &v) != 0)
		return tool_bad_usage("SOURCE_DATE_EPOCH='%s' is not a time between 0 and 2^32-1", s);
	*out = (int64_t)v;
	return 0;
}

static int policy_needed(const struct tool_options *opt)
{
	const struct sqp_policy_desc *d = &opt->policy;

	/* --shard: tar2img's first pass hands the policy the paths to keep */
	return opt->pargs.n > 0 || d->flags != 0 || d->uid_offset != 0 || d->gid_offset != 0 ||
	       tool_security_wanted(&opt->security) ||
	       (opt->tool == TOOL_TAR2IMG && opt->shard_count != 0);
}

int tool_make_policy(const struct tool_options *opt, struct sqp_policy **out)
{
	struct sqp_policy *p = NULL;
	size_t i;
	int ret;

	*out = NULL;
	if (!policy_needed(opt))
		return 0;
	ret = sqp_policy_create(&opt->policy, &p);
	for (i = 0; ret == 0 && i < opt->pargs.n; i++) {
		const char *arg = opt->pargs.v[i].arg;

		switch (opt->pargs.v[i].kind) {
		case PARG_EXCLUDE: ret = sqp_policy_add_exclude(p, arg); break;
		case PARG_EXCLUDE_FROM: ret = sqp_policy_load_excludes(p, arg); break;
		case PARG_EXCLUDE_REGEX: ret = sqp_policy_add_exclude_regex(p, arg); break;
		case PARG_SORT: ret = sqp_policy_load_sort(p, arg); break;
		case PARG_SPEC: ret = sqp_policy_load_spec(p, arg); break;
		case PARG_DELETE: break;
		default: ret = sqp_policy_add_spec_line(p, arg); break;
		}
	}
	if (ret != 0) {
		fprintf(stderr, "%s: %s\n", tool_progname(),
			p ? sqp_policy_error(p) : sqp_strerror(ret));
		sqp_policy_destroy(p);
		/* a file that cannot be read is a failure; a bad line, bad usage */
		return ret == SQP_ERR_ARG ? 2 : 1;
	}
	/* a bad fs_config or file_contexts line fails the build (exit 1),
	 * as mkfs.erofs fails it */
	if ((ret = tool_security_policy(&opt->security, p)) != 0) {
		sqp_policy_destroy(p);
		return ret;
	}
	*out = p;
	return 0;
}

int tool_chunk_size(struct sqp_writer_desc *d, const char *arg)
{
	uint64_t v;

	if (tool_parse_bytes(arg, &v) != 0 || v < 512 || v > ((uint64_t)1 << 30) ||
	    (v & (v - 1)) != 0)
		return -1;
	d->erofs_chunk_size = (uint32_t)v;
	return 0;
}
