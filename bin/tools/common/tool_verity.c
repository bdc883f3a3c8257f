/* SPDX-License-Identifier: MIT */
/*
 * tool_verity.c - --verity for the packers (tar2img, dir2img and
 * sqpack-mksquashfs share it): the option values, the separate hash file
 * (a temporary file renamed into place only after the image is, so a
 * failed or interrupted run leaves neither), the root hash as a hex line (systemd's
 * .roothash convention), the summary line and the JSON fields.
 *
 * The root hash file is written after both files are committed: a root
 * hash that exists always belongs to an image that exists.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool_hex.h"
#include "tool_mains.h"
#include "tool_optvals.h"
#include "tool_signals.h"
#include "tool_verity.h"

static int parse_salt(struct sqp_verity_desc *d, const char *arg)
{
	size_t len = strlen(arg);

	/* "-" is veritysetup's spelling of the empty salt. */
	if (strcmp(arg, "-") == 0)
		len = 0;
	if (len % 2 != 0 || len / 2 > SQP_VERITY_SALT_MAX)
		return tool_bad_usage("--verity-salt '%s' is not an even number of hex "
				      "digits, at most 256 bytes", arg);
	if (tool_hex_decode(arg, len, d->salt) != 0)
		return tool_bad_usage("--verity-salt '%s' is not hexadecimal", arg);
	d->salt_len = len / 2;
	d->salt_given = 1;
	return 0;
}

int tool_verity_option(struct tool_verity *v, int which, const char *arg)
{
	uint64_t n;

	if (which != TOOL_VERITY)
		v->other_given = 1;
	switch (which) {
	case TOOL_VERITY:
		v->on = 1;
		v->hash_file = arg;
		if (arg != NULL && arg[0] == '\0')
			return tool_bad_usage("%s", "--verity=FILE: FILE is empty");
		return 0;
	case TOOL_VERITY_BLOCK_SIZE:
		if (tool_parse_bytes(arg, &n) != 0 || n < SQP_VERITY_BLOCK_MIN ||
		    n > SQP_VERITY_BLOCK_MAX || (n & (n - 1)) != 0)
			return tool_bad_usage("--verity-block-size '%s' is not a power of two "
					      "between 512 and 64K", arg);
		v->desc.block_size = (uint32_t)n;
		return 0;
	case TOOL_VERITY_SALT:
		return parse_salt(&v->desc, arg);
	case TOOL_VERITY_NO_SUPERBLOCK:
		v->desc.no_superblock = 1;
		return 0;
	default:
		v->roothash_file = arg;
		return 0;
	}
}

int tool_verity_check(const struct tool_verity *v)
{
	if (v->other_given && !v->on)
		return tool_bad_usage("%s", "the --verity-* options need --verity");
	if (v->on && !sqp_verity_available())
		return tool_bad_usage("%s", "--verity: dm-verity is not built in "
				      "(configure found no libcrypto)");
	return 0;
}

int tool_verity_begin(struct tool_verity *v, int force, struct sqp_writer_desc *desc)
{
	int ret;

	if (!v->on)
		return 0;
	if (v->hash_file != NULL) {
		ret = tool_signals_create_second(v->hash_file, force, &v->hash_of);
		if (ret != 0) {
			fprintf(stderr, "%s: %s\n", tool_progname(),
				v->hash_of ? sqp_outfile_error(v->hash_of) : sqp_strerror(ret));
			return 1;
		}
		v->desc.separate = 1;
		v->desc.hash_fd = sqp_outfile_fd(v->hash_of);
	}
	desc->verity = &v->desc;
	return 0;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int write_roothash(const struct tool_verity *v, const char *root)
{
	FILE *f = fopen(v->roothash_file, "w");

	if (f == NULL || fprintf(f, "%s\n", root) < 0 || fclose(f) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), v->roothash_file,
			strerror(errno));
		return 1;
	}
	return 0;
}

int tool_verity_commit(struct tool_verity *v, struct sqp_writer *w)
{
	char root[2 * SQP_VERITY_DIGEST_SIZE + 1], salt[2 * SQP_VERITY_SALT_MAX + 1];

	if (!v->on)
		return 0;
	if (sqp_writer_get_verity(w, &v->res) != 0) {
		fprintf(stderr, "%s: no verity result after a finished image\n",
			tool_progname());
		return 1;
	}
	if (v->hash_of != NULL && sqp_outfile_commit(v->hash_of) != 0) {
		fprintf(stderr, "%s: %s\n", tool_progname(), sqp_outfile_error(v->hash_of));
		return 1;
	}
	hex(root, v->res.root_hash, sizeof(v->res.root_hash));
	hex(salt, v->res.salt, v->res.salt_len);
	snprintf(v->json, sizeof(v->json), ",\"verity_root_hash\":\"%s\",\"verity_salt\":\"%s\","
		 "\"verity_data_bytes\":%llu,\"verity_block_size\":%u,"
		 "\"verity_hash_offset\":%llu", root, salt,
		 (unsigned long long)v->res.data_bytes, v->res.block_size,
		 (unsigned long long)v->res.hash_offset);
	return v->roothash_file != NULL ? write_roothash(v, root) : 0;
}

void tool_verity_print(const struct tool_verity *v, FILE *f)
{
	char root[2 * SQP_VERITY_DIGEST_SIZE + 1], salt[2 * SQP_VERITY_SALT_MAX + 1];

	if (!v->on)
		return;
	hex(root, v->res.root_hash, sizeof(v->res.root_hash));
	hex(salt, v->res.salt, v->res.salt_len);
	fprintf(f, "  verity: root hash %s, salt %s, data %llu bytes (%llu blocks of %u), "
		"hash offset %llu%s%s, %llu bytes of tree%s\n", root, salt[0] ? salt : "-",
		(unsigned long long)v->res.data_bytes, (unsigned long long)v->res.data_blocks,
		v->res.block_size, (unsigned long long)v->res.hash_offset,
		v->hash_file ? " in " : "", v->hash_file ? v->hash_file : "",
		(unsigned long long)v->res.hash_bytes,
		v->res.has_superblock ? " with superblock" : ", no superblock");
}

void tool_verity_end(struct tool_verity *v)
{
	sqp_outfile_destroy(v->hash_of);
	v->hash_of = NULL;
}
