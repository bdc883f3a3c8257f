#!/bin/sh
# SPDX-License-Identifier: MIT
# timed-driver.sh - automake's test driver, timed: appends one line per
# test, "WALL USER SYS NAME" (seconds; USER and SYS include the test's
# children), to $TEST_TIMES (default test-times.txt in the build
# directory), so that the suite's costly tests can be found and a
# change's cost measured (CI's budget counts CPU time: 2 cores run
# make check -j2 and the ASan distcheck). From the build directory:
#   make check -j2 TEST_TIMES=$PWD/times.txt \
#     LOG_DRIVER='$(SHELL) $(top_srcdir)/tests/lib/timed-driver.sh'
#   sort -k2 -rn times.txt | head
# Needs GNU time (/usr/bin/time).
drv=$(dirname "$0")/../../build-aux/test-driver
name= prev=
for a in "$@"; do
	[ "$prev" = --test-name ] && name=$a
	prev=$a
done
exec /usr/bin/time -f "%e %U %S $name" -a -o "${TEST_TIMES:-test-times.txt}" \
	"$drv" "$@"
