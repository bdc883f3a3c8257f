/* SPDX-License-Identifier: MIT */
/*
 * tool_usage.c - the --help texts of tar2img, dir2img and img2img, which
 * share most of their options.
 */
#include "config.h"

#include "sqpack/sqpack.h"
#include "tool_mains.h"
#include "tool_options.h"
#include "tool_usage.h"

static const char common_help[] =
	"  -c, --compressor NAME   block compressor (default zstd)\n"
	"  -X, --comp-opt OPTS     compressor options, comma separated\n"
	"  -b, --block-size SIZE   4K .. 1M, a power of two (default 128K; EROFS:\n"
	"                          512 .. 4K, default 4K)\n"
	"  -j, --jobs N            compression threads (default: CPUs online)\n"
	"  -f, --force             replace OUTPUT if it exists\n"
	"  -q, --quiet             no summary, no progress\n"
	"      --no-dedup          store duplicate files, blocks and tails again\n"
	"      --no-fragments      store file tails as short blocks\n"
	"      --always-fragments  pack the tail of every file into fragments\n"
	"                          (default; also --tailends)\n"
	"      --no-tailends       pack only files smaller than a block\n"
	"      --exportable        add an NFS export table\n"
	"      --no-xattrs         drop extended attributes\n"
	"      --no-pad            do not pad the image to 4 KiB\n"
	"      --try-all-blocks    run the compressor even on blocks that look\n"
	"                          incompressible (random-looking bytes)\n"
	"      --uncompressed=PARTS  store these uncompressed: inodes, data,\n"
	"                          fragments, xattrs (comma list) or all\n"
	"      --offset N          the image starts N bytes into OUTPUT (bytes\n"
	"                          before it are kept from an existing OUTPUT)\n"
	"      --image-time T      superblock time (default SOURCE_DATE_EPOCH,\n"
	"                          else the newest mtime)\n"
	"      --mem SIZE          memory for the tree and tables (K, M, G;\n"
	"                          default a quarter of RAM); past it they\n"
	"                          spill to a temporary file next to OUTPUT\n"
	"EROFS:\n"
	"      --format FMT        squashfs (default) or erofs: an EROFS image\n"
	"                          (4K blocks; -c none (default), lz4 (-X hc\n"
	"                          for lz4hc), lzma, deflate or zstd, in\n"
	"                          clusters of --pcluster-size)\n"
	"      --uuid UUID         EROFS: the superblock's UUID, stored as given;\n"
	"                          clear: none (zeros); random: a random one\n"
	"                          (default: derived from the image's bytes)\n"
	"      --label LABEL       EROFS: the volume label (16 bytes at most)\n"
	"      --pcluster-size SIZE  EROFS: compress into clusters of up to SIZE\n"
	"                          (a multiple of -b up to 1M; default -b's)\n"
	"      --ztailpacking      EROFS: a compressed file's last cluster\n"
	"                          inline after its inode when it fits\n"
	"      --erofs-fragments   EROFS: compressed files' tails, and files of\n"
	"                          a cluster or less, compressed together in\n"
	"                          one packed inode\n"
	"      --erofs-dedupe      EROFS: a file equal to an earlier one shares\n"
	"                          its blocks, a cluster one of equal input\n"
	"                          (checked byte for byte)\n"
	"      --erofs-compress-dirs  EROFS: every directory's listing in the\n"
	"                          packed inode, compressed with it\n"
	"      --erofs-metabox SIZE  EROFS, with -c: every inode but the root's\n"
	"                          in the metabox, compressed in clusters of\n"
	"                          up to SIZE (a multiple of -b up to 1M)\n"
	"      --xattr-name-filter EROFS: each inode's xattr names in a filter,\n"
	"                          so that Linux 6.6+ finds most absent names\n"
	"                          absent without reading them\n"
	"      --erofs-48bit       EROFS: the 48-bit layout (Linux 6.15 or\n"
	"                          later): compact inodes keep their times\n"
	"      --erofs-metazone    EROFS: every inode in a zone of its own after\n"
	"                          the data, none in the superblock's block\n"
	"      --max-extent-bytes SIZE  EROFS: a compressed cluster holds at most\n"
	"                          SIZE bytes of a file (at least -b; what\n"
	"                          reading one byte may decompress)\n"
	"      --chunk-size SIZE   EROFS: files chunk based, in chunks of SIZE (a\n"
	"                          power of two, -b to 1G), stored as they are;\n"
	"                          equal chunks shared (checked byte for byte),\n"
	"                          chunks of zeros holes\n"
	"      --blobdev FILE      EROFS, with --chunk-size: the chunks in FILE,\n"
	"                          the image's extra device (mount -o device=,\n"
	"                          or FILE appended to the image)\n"
	"      --compress-hints FILE  EROFS, with -c: lines PCLUSTER [INDEX] REGEX;\n"
	"                          a file whose path matches REGEX (extended,\n"
	"                          first line wins) is compressed in clusters of\n"
	"                          up to PCLUSTER (0: stored as it is) with\n"
	"                          -c's compressor (INDEX 0) or the second (1)\n"
	"      --hint-compressor NAME[,OPTS]  EROFS: the second compressor (-X\n"
	"                          OPTS as for -c), for INDEX 1 of the hints\n"
	"dm-verity:\n"
	"      --verity[=FILE]     pad the image and append a dm-verity hash tree\n"
	"                          (or write the tree to FILE); the root hash is\n"
	"                          in the summary\n"
	"      --verity-block-size SIZE  data and hash blocks (default 4K)\n"
	"      --verity-salt HEX   salt (default: derived from the image time and\n"
	"                          the options, so rebuilds give the same hash)\n"
	"      --verity-no-superblock  no verity superblock before the tree\n"
	"      --verity-roothash FILE  write the root hash there as a hex line\n"
	"Entries:\n"
	"      --all-root          every entry owned by 0:0\n"
	"      --uid N, --gid N    every entry owned by uid / group N\n"
	"      --uid-offset N, --gid-offset N  add N to every uid / gid\n"
	"      --mtime T           every entry's mtime is T (seconds)\n"
	"      --clamp-mtime       mtimes newer than the image time are clamped\n"
	"      --exclude PATTERN   leave out matching paths (glob; ** crosses /;\n"
	"                          without / it matches any one component)\n"
	"      --exclude-from FILE  patterns, one per line\n"
	"      --exclude-regex RE  leave out paths a POSIX extended regex matches\n"
	"                          (anywhere in the path, as mkfs.erofs's)\n"
	"      --spec FILE         mksquashfs pseudo definitions (see the manual)\n"
	"      --spec-line LINE    one definition\n"
	"      --progress=MODE     auto (a line on a terminal), none, tty, json\n"
	"SELinux and Android (as mkfs.erofs; both formats):\n"
	"      --file-contexts FILE  SELinux labels (security.selinux) from a\n"
	"                          file_contexts file, by libselinux\n"
	"      --fs-config-file FILE  owners, modes and capabilities from\n"
	"                          Android's canned fs_config file; every path\n"
	"                          must have a line\n"
	"      --mount-point PATH  the paths looked up are PATH/... (\"/system\")\n"
	"      --product-out DIR   without --fs-config-file, with --mount-point:\n"
	"                          Android's built-in fs_config, under the\n"
	"                          tables DIR/*/etc/fs_config_{dirs,files}\n"
	"Layers:\n"
	"      --whiteouts=MODE    oci: '.wh.NAME' deletes NAME from the layers\n"
	"                          below, '.wh..wh..opq' empties its directory of\n"
	"                          them; the markers are left out. overlay: kept\n"
	"                          as overlayfs reads them (mkfs.erofs --aufs):\n"
	"                          NAME a 0/0 device, trusted.overlay.opaque=y.\n"
	"                          none (default): they are files like any other\n"
	"      --ovlfs-strip       leave overlayfs's metadata out (mkfs.erofs\n"
	"                          --ovlfs-strip): no whiteout (a 0/0 device, or\n"
	"                          with --whiteouts=overlay a '.wh.' marker), no\n"
	"                          trusted.overlay.opaque, no .origin added;\n"
	"                          both formats\n"
	"      --prefix PATH       put everything below directory PATH\n";

static const char shard_help[] =
	"Shards (one image built by N processes; img2img --shards merges them):\n"
	"      --shard I/N         pack shard I of N: runs of the sorted paths,\n"
	"                          balanced by bytes, hard links kept together,\n"
	"                          with the directories on the way (a tar must\n"
	"                          be a seekable file: its headers are read first)\n"
	"      --shard-plan N      print where each of N shards starts and its\n"
	"                          entries and bytes (no OUTPUT, no data read)\n";

static const char index_help[] =
	"Tar index (EROFS only; one plain tar, no -c):\n"
	"      --index             the files' data stays in the tar: the image\n"
	"                          points into it (512-byte blocks), to be\n"
	"                          mounted with the tar appended to it or as its\n"
	"                          device (mkfs.erofs --tar=i)\n"
	"      --headers-only      INPUT is a tar's headers without the data\n"
	"                          (mkfs.erofs --tar=headerball): every file\n"
	"                          its size, read as zeros\n";

static const char dir_help[] =
	"Directory:\n"
	"      --keep-dir          one DIR becomes a top-level directory too\n"
	"      --one-file-system   do not cross into other file systems\n"
	"      --no-hardlinks      every path its own inode\n"
	"      --sort FILE         mksquashfs sort file: data of higher\n"
	"                          priorities first\n"
	"      --on-change=fail|warn  a file changed while read: fail (default)\n"
	"                          or store it as read with a warning\n"
	"      --skip-unreadable   warn and leave out unreadable files\n"
	"      --verbose           list entries on stderr as they are added\n"
	"      --layers            the DIRs are container layers, lowest first,\n"
	"                          merged in one pass (not side by side)\n";

static const char img_help[] =
	"Image:\n"
	"      --shards            BASE.img and the LAYERs are the shards of one\n"
	"                          build (--shard): images only, no path but a\n"
	"                          directory in two of them; the output takes\n"
	"                          the first shard's format and codec\n"
	"      --plan FILE         with --shards: FILE is what --shard-plan N\n"
	"                          printed; the shards must be its N, in order\n"
	"                          (a missing one is refused)\n"
	"      --delete PATTERN    leave out the entries of BASE that PATTERN\n"
	"                          matches (glob, as --exclude), and what is\n"
	"                          below them; a LAYER may add them again\n"
	"  Without -c, -X and -b the image keeps BASE's codec, options and block\n"
	"  size, and BASE's blocks are copied as they are; with them it is\n"
	"  converted. --offset N: BASE's image starts N bytes into it, and so\n"
	"  does OUTPUT's, after BASE's first N bytes (an AppImage's runtime).\n";

void tool_usage(int tool, FILE *f)
{
	int id;

	if (tool == TOOL_IMG2IMG)
		fputs("Usage: img2img [OPTIONS] OUTPUT BASE.img [LAYER...]\n"
		      "A new SquashFS 4.0 or EROFS image (--format) from BASE.img, SquashFS\n"
		      "or EROFS, plus LAYERs (tar archives, directories, or SquashFS or\n"
		      "EROFS images, told apart by their magic), applied over it in order,\n"
		      "as container layers: a later layer replaces what an earlier one\n"
		      "holds (see --whiteouts). An image layer's blocks are copied as they\n"
		      "are stored when its codec and block size are the output's.\n"
		      "A LAYER that is none of these is an error.\n"
		      "OUTPUT may be BASE.img (with -f): it is replaced when complete.\n\n", f);
	else if (tool == TOOL_DIR2IMG)
		fputs("Usage: dir2img [OPTIONS] OUTPUT DIR...\n"
		      "Pack directory trees into a SquashFS 4.0 image, or an EROFS one\n"
		      "(--format erofs).\n\n", f);
	else
		fputs("Usage: tar2img [OPTIONS] OUTPUT [INPUT...]\n"
		      "Pack a tar archive (a file, or stdin when INPUT is absent or '-'; plain\n"
		      "or gzip/xz/zstd/lz4/bzip2 compressed) into a SquashFS 4.0 image, or\n"
		      "an EROFS one (--format erofs).\n"
		      "Several INPUTs are container layers, lowest first, merged in one pass:\n"
		      "what a later layer replaces or deletes is never read into the image.\n\n", f);
	fputs(common_help, f);
	if (tool != TOOL_IMG2IMG)
		fputs(shard_help, f);
	if (tool == TOOL_TAR2IMG)
		fputs(index_help, f);
	if (tool != TOOL_TAR2IMG)
		fputs(dir_help, f);
	if (tool == TOOL_IMG2IMG)
		fputs(img_help, f);
	fputs("  -h, --help              show this help\n"
	      "  -V, --version           show the version\n\n"
	      "Compressors in this build:\n", f);
	for (id = 1; id <= SQP_CODEC_MAX; ++id) {
		fprintf(f, "  %-5s %s\n", sqp_codec_name(id),
			sqp_codec_available(id) ? "" : "(not built)");
		if (sqp_codec_available(id) && sqp_codec_options_help(id) != NULL)
			fprintf(f, "%s", sqp_codec_options_help(id));
	}
}
