#!/bin/sh
# SPDX-License-Identifier: MIT
# messages.sh - the front ends speak the line the user typed: each bad
# value given to sqpack-mksquashfs (-X options, -b, -comp, -processors,
# -mem...) and to sqpack-mkfs.erofs (-z, -C, -T, -L, --force-uid,
# --workers) is refused with exit status 2, a message that names the
# option as typed and no dir2img option (the front ends once handed
# their values to dir2img, which answered "option 'level'" or
# "--pcluster-size"), and no image.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
MKSQ="$SQP_BIN/sqpack-mksquashfs"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
[ -x "$MKSQ" ] && [ -x "$MKFS" ] || skip "the front ends are not built"
T=$SCRATCH
mkdir -p "$T/src" && echo x > "$T/src/f" || exit 99

# said WHAT PROGRAM ARGS...: exit 2, WHAT in the message, none of
# dir2img's option names, no image.
said() {
	what=$1 prog=$2; shift 2
	rm -f "$T/o.img"
	case $prog in
	mksq) "$MKSQ" "$T/src" "$T/o.img" -noappend "$@" > "$T/out" 2>&1 ;;
	mkfs) "$MKFS" "$@" "$T/o.img" "$T/src" > "$T/out" 2>&1 ;;
	esac
	rc=$?
	if [ $rc -ne 2 ] || ! grep -q -- "$what" "$T/out" || [ -e "$T/o.img" ]; then
		fail "$prog $*: expected exit 2, '$what' and no image: exit $rc: $(head -c 200 "$T/out")"
	elif grep -qE -- "--(compressor|comp-opt|block-size|jobs|mem|pcluster-size|mtime|image-time|uid|gid|uuid|label|format)\b|option '(level|dict-size|window|filters|strategy|algorithm)'|(level|dict-size|window|filters|strategy|algorithm)=|dir2img" "$T/out"; then
		fail "$prog $*: the message speaks dir2img's options: $(head -c 300 "$T/out")"
	else
		pass "$prog $*: $(head -1 "$T/out")"
	fi
}

said -Xcompression-level mksq -comp gzip -Xcompression-level 99
said -Xcompression-level mksq -comp gzip -Xcompression-level 3,9
said -Xwindow-size mksq -comp gzip -Xwindow-size 20
said -Xstrategy mksq -comp gzip -Xstrategy fastest
said -Xbcj mksq -Xbcj x86
said -Xhc mksq -comp gzip -Xhc
said -b mksq -b 3000
said -comp mksq -comp brotli
said -processors mksq -processors 0
said -mem mksq -mem 10K
said -all-time mksq -all-time soon
if codec_built zstd; then
	said -Xcompression-level mksq -comp zstd -Xcompression-level 99
	said zstd mksq -comp zstd -Xcompression-level 99
else
	skipc "zstd not built"
fi
if codec_built xz; then
	said -Xdict-size mksq -comp xz -Xdict-size 3
	said -Xbcj mksq -comp xz -Xbcj sparc64
else
	skipc "xz not built"
fi
if codec_built lzo; then
	said -Xalgorithm mksq -comp lzo -Xalgorithm lzo2
else
	skipc "lzo not built"
fi

said -zzstd mkfs -zzstd,99
said -C mkfs -C65537
said -T mkfs -Tsoon
said -L mkfs -Lthis-label-is-too-long
said --force-uid mkfs --force-uid=me
said --workers mkfs --workers=1025
finish
