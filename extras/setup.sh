#!/bin/sh
# Set up sqpack on a fresh Debian 12 machine: install the build and test
# dependencies, build in ./build, and pack a real tar stream (a tar of
# /usr/share/doc) into build/doc.img as a first run.
#
#   extras/setup.sh            (as root, or with sudo available)
set -eu
cd "$(dirname "$0")/.."
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	libxxhash-dev libdeflate-dev zlib1g-dev liblzma-dev liblzo2-dev \
	liblz4-dev libzstd-dev libbz2-dev libssl-dev libfuse3-dev libselinux1-dev \
	squashfs-tools squashfs-tools-ng erofs-utils libarchive-tools 7zip squashfuse fuse3 fuse-overlayfs \
	bash-completion python3 tar gzip xz-utils zstd lz4 bzip2 pbzip2 attr file util-linux strace cryptsetup-bin \
	clang libclang-rt-14-dev abigail-tools >/dev/null

./autogen.sh >/dev/null
mkdir -p build
cd build
../configure --enable-werror
make -j"$(nproc)"

# The main job on a real tar stream.
tar -C /usr/share -cf - doc | ./bin/tar2img -f doc.img
unsquashfs -s doc.img | sed -n '1,4p'
# ...and back: the image as a tar stream.
./bin/img2tar doc.img | tar -tf - | wc -l | sed 's/$/ entries read back by img2tar/'
