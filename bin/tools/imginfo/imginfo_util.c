/* SPDX-License-Identifier: MIT */
/*
 * imginfo_util.c - the helpers every imginfo command uses: opening an
 * image with a message on failure, the usage and failure messages, and
 * the formatting of modes, times and untrusted bytes.
 *
 * Why escaping lives here: names, symlink targets and xattr values come
 * from the image, which may be hostile; printing them raw could send
 * terminal control sequences or forge extra output lines. Everything
 * from the image that is not a number goes through imginfo_escape().
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "imginfo.h"

/* The options before the command; set once by main(). */
static uint64_t image_offset;

void imginfo_set_offset(uint64_t offset)
{
	image_offset = offset;
}

static const char *image_device;

void imginfo_set_device(const char *path)
{
	image_device = path;
}

const char *imginfo_device(void)
{
	return image_device;
}

uint64_t imginfo_offset(void)
{
	return image_offset;
}

int imginfo_open(const char *path, struct sqp_image **img, int *fd)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = path, .warn = tool_warn,
				    .offset = image_offset, .device = image_device };
	int ret;

	*img = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return imginfo_fail(path, strerror(errno));
	d.fd = *fd;
	ret = sqp_image_create(&d, img);
	if (ret != 0) {
		close(*fd);
		*fd = -1;
		fprintf(stderr, "imginfo: %s\n", *img != NULL ? sqp_image_error(*img) :
			sqp_strerror(ret));
		sqp_image_destroy(*img);
		*img = NULL;
		return 1;
	}
	return 0;
}

void imginfo_close(struct sqp_image *img, int fd)
{
	sqp_image_destroy(img);
	if (fd >= 0)
		close(fd);
}

int imginfo_fail(const char *what, const char *why)
{
	fprintf(stderr, "imginfo: %s: %s\n", what, why);
	return 1;
}

const char *imginfo_why(const struct sqp_image *img, int ret)
{
	const char *m = sqp_image_error(img);

	return m[0] ? m : sqp_strerror(ret);
}

int imginfo_bad_usage(const char *fmt, const char *arg)
{
	return tool_bad_usage(fmt, arg);
}

int imginfo_each_path(int argc, char **argv, const char *help,
		      imginfo_path_fn fn, void *user)
{
	static const struct option longs[] = {
		TOOL_LONG_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct tool_args a = { .prog = "imginfo", .cmd = argv[0],
			       .shorts = ":h", .longs = longs, .help = help };
	struct sqp_image *img;
	int fd, ret, status = 0;

	ret = tool_args_parse(&a, argc, argv);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (argc - optind < 2)
		return imginfo_bad_usage("%s: needs IMAGE and PATH...", argv[0]);
	if (imginfo_open(argv[optind], &img, &fd) != 0)
		return 1;
	for (int i = optind + 1; i < argc; i++)
		status |= fn(img, argv[i], i - optind - 1, user);
	imginfo_close(img, fd);
	return imginfo_flush() | status;
}

int imginfo_flush(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		return imginfo_fail("standard output", strerror(errno));
	return 0;
}

void imginfo_time(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (localtime_r(&tt, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%d %H:%M", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)t);
}

void imginfo_escape(FILE *f, const void *data, size_t len, int binary)
{
	const unsigned char *s = data;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\' || (binary && s[i] == '"'))
			fprintf(f, "\\%c", s[i]);
		else if (s[i] < 0x20 || s[i] == 0x7F || (binary && s[i] > 0x7F))
			fprintf(f, "\\x%02x", s[i]);
		else
			fputc(s[i], f);
	}
}

uint64_t imginfo_size(const struct sqp_inode_info *in)
{
	/* The format counts "." and ".." as 3 bytes of a listing; the
	 * kernel's st_size and unsquashfs show that sum, so do we. */
	return S_ISDIR(in->mode) ? in->size + 3 : in->size;
}

const char *imginfo_type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return "directory";
	case S_IFREG: return "regular file";
	case S_IFLNK: return "symbolic link";
	case S_IFBLK: return "block device";
	case S_IFCHR: return "character device";
	case S_IFIFO: return "fifo";
	default: return "socket";
	}
}
