#!/bin/sh
# SPDX-License-Identifier: MIT
# guixpack.sh - GNU Guix's `guix pack -f squashfs` (guix/scripts/pack.scm,
# squashfs-image), replayed whole, both as it is today and as it was in
# 2019, with Debian's mksquashfs and with sqpack-mksquashfs on the same
# lines: the two images must hold the same tree after every run, and the
# kernel must mount ours as the tree mksquashfs's holds.
#
# Today: the store items (absolute paths) and the Singularity environment
# file, a regular file among them, with -no-duplicates -comp zstd; the
# empty regular file `.empty` with -root-becomes store, then gnu; `.empty`
# with -p definitions (the /bin symlink, /.singularity.d with the
# environment link and the entry point's run and runscript links, the
# mount points); the var-etc directory holding /var/guix. Every run gets
# pack.scm's reproducibility options. In 2019 the runs had no options of
# their own beside -no-duplicates -comp, no environment file and fewer
# -p lines, and ran in the build environment, which sets
# SOURCE_DATE_EPOCH=1. The C locale, as the build environment's.
. "$top_srcdir/tests/append/both.sh"
export LC_ALL=C
S=$T/gnu/store
H=$S/0a1b2c3d-hello-2.12.1 G=$S/4e5f6a7b-glibc-2.35 P=$S/8c9d0e1f-profile
E=$S/9a8b7c6d-singularity-environment.sh
mkdir -p "$H/bin" "$H/share/doc/hello" "$G/lib" "$P/etc" \
	"$T/var-etc/var/guix/db" "$T/var-etc/var/guix/gcroots" \
	"$T/var-etc/var/guix/profiles/per-user/root" || exit 99
head -c 300000 /dev/urandom > "$H/bin/hello" && chmod 555 "$H/bin/hello" || exit 99
seq 1 20000 > "$H/share/doc/hello/NEWS"
head -c 200000 /dev/urandom > "$G/lib/libc.so.6"
ln -s libc.so.6 "$G/lib/libc.so"
ln "$G/lib/libc.so.6" "$G/lib/libc-hard.so"          # the store's hard links
ln -s ../0a1b2c3d-hello-2.12.1/bin "$P/bin"
printf 'export PATH=/bin\n' > "$P/etc/profile"
printf 'export PATH="/gnu/store/8c9d0e1f-profile/bin"\n' > "$E"
printf 'SQLite format 3\n' > "$T/var-etc/var/guix/db/db.sqlite"
ln -s /gnu/store/8c9d0e1f-profile "$T/var-etc/var/guix/gcroots/profile"
ln -s /gnu/store/8c9d0e1f-profile "$T/var-etc/var/guix/profiles/per-user/root/guix-profile"
find "$S" -exec touch -h -d @1 {} + && find "$S" -exec chmod -h a-w {} + 2>/dev/null
cd "$T" || exit 99
# (with-output-to-file ".empty" ...): an empty regular file
: > .empty

# kernel NAME: the kernel mounts our image as the tree mksquashfs's holds
# (extracted by the last step's compare into ref.d).
kernel() {
	judge_same_tree "$1" kernel "$2" "$T/our.img" "$T/ref.d"
}

# Today's (mksquashfs args): the options every run gets.
set -- -no-recovery -no-xattrs -all-time 1 -mkfs-time 1 -force-uid 0 -force-gid 0
rm -f ref.img our.img
step "today: store items and the environment file" "$H $G $P $E" \
	-no-duplicates -comp zstd "$@"
step "today: .empty -root-becomes store" .empty -root-becomes store "$@"
step "today: .empty -root-becomes gnu" .empty -root-becomes gnu "$@"
step "today: symlinks, .singularity.d and mount points" .empty \
	-p "/bin s 777 0 0 gnu/store/8c9d0e1f-profile/bin" \
	-p "/.singularity.d d 555 0 0" \
	-p "/.singularity.d/env d 555 0 0" \
	-p "/.singularity.d/env/90-environment.sh s 777 0 0 ../../gnu/store/9a8b7c6d-singularity-environment.sh" \
	-p "/.singularity.d/actions d 555 0 0" \
	-p "/.singularity.d/actions/run s 777 0 0 ../../gnu/store/8c9d0e1f-profile/bin/hello" \
	-p "/.singularity.d/runscript s 777 0 0 ../gnu/store/8c9d0e1f-profile/bin/hello" \
	-p "/proc d 555 0 0" -p "/sys d 555 0 0" -p "/dev d 555 0 0" \
	-p "/home d 555 0 0" -p "/tmp d 555 0 0" "$@"
step "today: /var/guix" var-etc "$@"
settings "today, after four appends"
check "today: the environment file is in the store" \
	grep -q ' squashfs-root/gnu/store/9a8b7c6d-singularity-environment.sh$' "$T/our.ls"
kernel "today" zstd

# 2019: no options beside these, in the build environment.
export SOURCE_DATE_EPOCH=1
rm -f ref.img our.img
step "2019: store items" "$H $G $P" -no-duplicates -comp xz
step "2019: .empty -root-becomes store" .empty -root-becomes store
step "2019: .empty -root-becomes gnu" .empty -root-becomes gnu
step "2019: symlinks and mount points" .empty \
	-p "/bin s 777 0 0 gnu/store/8c9d0e1f-profile/bin" \
	-p "/proc d 555 0 0" -p "/sys d 555 0 0" -p "/dev d 555 0 0"
step "2019: /var/guix" var-etc
settings "2019, after four appends"
check "2019: .empty at the root, renamed .empty_1 by the third append" \
	sh -c "grep -q ' squashfs-root/.empty\$' '$T/our.ls' &&
	       grep -q ' squashfs-root/.empty_1\$' '$T/our.ls' &&
	       grep -q ' squashfs-root/gnu/.empty\$' '$T/our.ls'"
kernel "2019" xz
finish
