#!/bin/sh
# SPDX-License-Identifier: MIT
# rootbecomes.sh - what NixOS-based firmware builders do to a store
# image: append runs with -root-becomes and -p/-pf definitions (a root
# file system's directory joined to it, symlinks into the store, mount
# points), and appends whose new names are taken. Run with Debian's
# mksquashfs and with sqpack-mksquashfs, the images must hold the same
# tree after every run: the old root moved under NAME, clashing new
# top-level names renamed NAME_1, NAME_2..., -p/-pf lines under the
# image's names ignored, the image's codec and block size kept whatever
# -comp and -b say; and an image at an -offset in its file.
. "$top_srcdir/tests/append/both.sh"
mkdir -p "$T/s/abc-init/bin" "$T/s/def-busybox/bin" "$T/rootfs/etc" "$T/rootfs/sbin" \
	"$T/more/etc/ssh" "$T/more/nix" "$T/more/new" "$T/empty" || exit 99
printf '#!/bin/sh\n' > "$T/s/abc-init/bin/init"; chmod 755 "$T/s/abc-init/bin/init"
head -c 600000 /dev/urandom > "$T/s/def-busybox/bin/busybox"
ln -s busybox "$T/s/def-busybox/bin/sh"
printf 'root:x:0:0::/root:/bin/sh\n' > "$T/rootfs/etc/passwd"
ln -s /nix/store/def-busybox/bin/busybox "$T/rootfs/sbin/mount"
printf 'x\n' > "$T/more/etc/ssh/sshd_config"
printf 'y\n' > "$T/more/nix/y"
printf 'z\n' > "$T/more/new/z"
chmod 700 "$T/more/nix"
# -pf: mount points, a link into the store, a device, a line on the
# store (which an append cannot change) and a comment.
cat > "$T/defs" <<'EOD'
# mount points
/dev d 755 0 0
/proc d 555 0 0
/run d 755 0 0
/dev/console c 600 0 0 5 1
/init s 777 0 0 nix/store/abc-init/bin/init
/nix/store/added d 755 0 0
EOD
find "$T/s" "$T/rootfs" "$T/more" "$T/empty" -exec touch -h -d @1600000000 {} +
# mksquashfs gives its own root and the pseudo entries the time now,
# or SOURCE_DATE_EPOCH: the latter, for images that can be compared.
export SOURCE_DATE_EPOCH=1700000000
cd "$T" || exit 99

rm -f ref.img our.img
step "the store" "s/abc-init s/def-busybox" -noappend -b 256K -comp gzip -all-root -no-progress
step "-root-becomes store" empty -root-becomes store -all-root -no-progress
step "-root-becomes nix, rootfs, -pf and -p" rootfs -root-becomes nix -pf defs \
	-p "/sys d 555 0 0" -p "/nix/store/x s 777 0 0 y" -comp xz -b 4K -all-root -no-progress
step "clashing sources renamed" "more/etc more/nix more/new" -all-root -no-progress
step "-keep-as-directory, renamed twice" more/etc -keep-as-directory -all-root -no-progress
check "the renames are told as mksquashfs tells them" \
	grep -q "^Source directory entry etc_1 already used! - trying etc_2" our.err
settings "after four appends"

# An image after other bytes (an AppImage's runtime): -offset on both
# runs, and the bytes in front kept.
head -c 8192 /dev/urandom > prefix
cp prefix ref.img && cp prefix our.img || exit 99
OFF=8192
step "-offset: the image" more/new -noappend -o 8192 -all-root -no-progress
step "-offset: appended" more/etc -o 8192 -keep-as-directory -all-root -no-progress
check "-offset: the bytes in front kept" cmp -n 8192 prefix our.img
finish
