#!/bin/sh
# Regenerates the build system (configure, Makefile.in) from configure.ac
# and the Makefile.am / Makemodule.am files.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf --force --install
