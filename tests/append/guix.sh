#!/bin/sh
# SPDX-License-Identifier: MIT
# guix.sh - GNU Guix's `guix pack -f squashfs` (guix/scripts/pack.scm)
# builds its image in appending mksquashfs runs, every one with the same
# reproducibility options: the store items (a profile's closure) with
# -no-duplicates and -comp; `.empty -root-becomes store`, then
# `-root-becomes gnu`, moving them to /gnu/store; an empty source with
# -p definitions for the profile's symlinks, Singularity's directories
# and the mount points; then the directory holding /var/guix. Run with
# Debian's mksquashfs and with sqpack-mksquashfs, the two images must
# hold the same tree after every run, with the first run's codec.
. "$top_srcdir/tests/append/both.sh"
S=$T/gnu/store
H=$S/0a1b2c3d-hello-2.12.1 G=$S/4e5f6a7b-glibc-2.35 P=$S/8c9d0e1f-profile
mkdir -p "$H/bin" "$H/share/doc/hello" "$G/lib" "$G/share/locale/de" \
	"$P/etc" "$T/.empty" "$T/var-etc/var/guix/db" "$T/var-etc/var/guix/gcroots" \
	"$T/var-etc/var/guix/profiles/per-user/root" || exit 99
head -c 300000 /dev/urandom > "$H/bin/hello"; chmod 555 "$H/bin/hello"
seq 1 20000 > "$H/share/doc/hello/NEWS"
head -c 200000 /dev/urandom > "$G/lib/libc.so.6"
ln -s libc.so.6 "$G/lib/libc.so"
cp "$H/share/doc/hello/NEWS" "$G/share/locale/de/NEWS"     # a duplicate
ln "$G/lib/libc.so.6" "$G/lib/libc-hard.so"                # the store's hard links
ln -s ../0a1b2c3d-hello-2.12.1/bin "$P/bin"
printf 'export PATH=/bin\n' > "$P/etc/profile"
printf 'SQLite format 3\n' > "$T/var-etc/var/guix/db/db.sqlite"
ln -s /gnu/store/8c9d0e1f-profile "$T/var-etc/var/guix/gcroots/profile"
ln -s /gnu/store/8c9d0e1f-profile "$T/var-etc/var/guix/profiles/per-user/root/guix-profile"
find "$S" -exec chmod -h u-w {} + 2>/dev/null
cd "$T" || exit 99

# pack.scm's (mksquashfs args): the options every run gets.
set -- -no-recovery -no-xattrs -all-time 1 -mkfs-time 1 -force-uid 0 -force-gid 0 -no-progress
rm -f ref.img our.img
step "store items" "$H $G $P" -no-duplicates -comp xz "$@"
step "-root-becomes store" .empty -root-becomes store "$@"
step "-root-becomes gnu" .empty -root-becomes gnu "$@"
step "symlinks and mount points" .empty \
	-p "/bin s 777 0 0 gnu/store/8c9d0e1f-profile/bin" \
	-p "/.singularity.d d 555 0 0" \
	-p "/.singularity.d/env d 555 0 0" \
	-p "/.singularity.d/env/90-environment.sh s 777 0 0 ../../gnu/store/8c9d0e1f-profile/etc/profile" \
	-p "/.singularity.d/actions d 555 0 0" \
	-p "/proc d 555 0 0" -p "/sys d 555 0 0" -p "/dev d 555 0 0" \
	-p "/home d 555 0 0" -p "/tmp d 555 0 0" "$@"
step "/var/guix" var-etc "$@"
settings "after four appends"
finish
