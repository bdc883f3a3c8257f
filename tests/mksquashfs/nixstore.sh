#!/bin/sh
# SPDX-License-Identifier: MIT
# nixstore.sh - Nix store images as nixpkgs and liminix make them, with
# Debian's mksquashfs and with sqpack-mksquashfs on the same lines: the
# two images must hold the same tree after every run, and the kernel must
# mount ours as the tree mksquashfs's holds.
#
# Every one passes the `nix-path-registration` file (a regular file, a
# relative path) before the store paths (absolute; a store path may be a
# file too, as writeText makes them) with -keep-as-directory, so that the
# store paths land in the root under their names:
# - nixos/lib/make-squashfs.nix today: SOURCE_DATE_EPOCH=0, -no-hardlinks,
#   -all-root, -b 1048576, -comp xz -Xdict-size 100%, -processors and
#   -root-mode 0755;
# - the same file from 2019 to 2023: no -no-hardlinks, no -root-mode,
#   under stdenv's SOURCE_DATE_EPOCH (315532800);
# - liminix (pkgs/liminix-tools's squashfs builder): that first run, then
#   two appends of no source ("-") that move the store under /store and
#   /nix with a "/" definition, the second with liminix's pseudo file
#   (-pf: its children before their directory, as it writes them).
# The C locale, as in the Nix build sandbox.
. "$top_srcdir/tests/append/both.sh"
export LC_ALL=C
S=$T/nix/store
A=$S/1a2b3c4d-busybox-1.36.1 B=$S/5e6f7a8b-glibc-2.39 F=$S/9c0d1e2f-hosts
mkdir -p "$A/bin" "$B/lib" || exit 99
head -c 200000 /dev/urandom > "$A/bin/busybox" && chmod 555 "$A/bin/busybox" || exit 99
ln -s busybox "$A/bin/sh"
head -c 150000 /dev/urandom > "$B/lib/libc.so.6"
ln "$B/lib/libc.so.6" "$B/lib/libc-hard.so.6"     # the store's optimised links
printf '127.0.0.1 localhost\n' > "$F"
find "$S" -exec touch -h -d @1 {} + && find "$S" -exec chmod -h a-w {} + 2>/dev/null
cd "$T" || exit 99
# cp $closureInfo/registration nix-path-registration
printf '%s\n' "$A" "" 0 "$B" "" 0 "$F" "" 0 > nix-path-registration
PATHS="nix-path-registration $A $B $F"

kernel() {
	judge_same_tree "$1" kernel "$2" "$T/our.img" "$T/ref.d"
}

export SOURCE_DATE_EPOCH=0
rm -f ref.img our.img
step "nixos today" "$PATHS" -no-hardlinks -keep-as-directory \
	-all-root -b 1048576 -comp xz -Xdict-size 100% -processors 2 -root-mode 0755
settings "nixos today"
check "nixos today: the registration file at the root" \
	grep -q '^-r.* 0/0 .* squashfs-root/nix-path-registration$' "$T/our.ls"
kernel "nixos today" xz

export SOURCE_DATE_EPOCH=315532800
rm -f ref.img our.img
step "nixos 2019-2023" "$PATHS" -keep-as-directory -all-root -b 1048576 \
	-comp xz -Xdict-size 100%
settings "nixos 2019-2023"
kernel "nixos 2019-2023" xz

# liminix: the file its pseudofile package writes (no dynamic "f" files
# here: sqpack's -pf does not run commands).
cat > files.pf <<EOF || exit 99
/etc/hosts s 0644 0 0 $F
/etc/ppp/options s 0644 0 0 /run/ppp/options
/etc/ppp d 0755 0 0
/etc d 0755 0 0
/bin s 0644 0 0 $A/bin
/run d 0755 0 0
EOF
rm -f ref.img our.img
step "liminix: the store" "$PATHS" -no-hardlinks -keep-as-directory -all-root \
	-b 1048576 -comp xz -Xdict-size 100% -processors 2
step "liminix: - -root-becomes store" - -exit-on-error -no-recovery -quiet \
	-no-progress -root-becomes store -p "/ d 0755 0 0"
step "liminix: - -root-becomes nix -pf" - -exit-on-error -no-recovery -quiet \
	-no-progress -root-becomes nix -p "/ d 0755 0 0" -pf files.pf
settings "liminix, after two appends"
check "liminix: the registration file under /nix/store" \
	grep -q ' squashfs-root/nix/store/nix-path-registration$' "$T/our.ls"
kernel "liminix" xz
finish
