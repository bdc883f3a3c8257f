# SPDX-License-Identifier: MIT
# vlib.sh - sourced by the tests/verity scripts after common.sh: the
# source tree and its tar, and the verity figures of a packer's summary.
#
# mksrc DIR: DIR/src (text that compresses, random bytes that do not, a
# 130 KiB file whose data spans a known block, small files for fragments)
# and DIR/src.tar.
# vfields SUMMARY: sets ROOT SALT DATA BLOCKS HOFF from the "verity:" line.
# vuuid IMAGE HASH_OFFSET: the verity superblock's UUID (veritysetup dump).
# VERITYSETUP: its path, empty when not installed (need_tool veritysetup
# in the scripts that cannot do without it).
VERITYSETUP=$(command -v veritysetup)
IMGINFO="$SQP_BIN/imginfo"
# A build without libcrypto refuses --verity as a usage error (exit 2).
tar -cf "$SCRATCH/probe.tar" -T /dev/null || exit 99
"$TAR2IMG" -q --verity "$SCRATCH/probe.img" "$SCRATCH/probe.tar" 2> "$SCRATCH/probe.err"
[ $? = 2 ] && grep -q 'not built in' "$SCRATCH/probe.err" &&
	skip "this build has no dm-verity (configure found no libcrypto)"
rm -f "$SCRATCH/probe.tar" "$SCRATCH/probe.img" "$SCRATCH/probe.err"

mksrc() {
	mkdir -p "$1/src/d" &&
	seq 1 150000 > "$1/src/d/text" &&
	head -c 700000 /dev/urandom > "$1/src/d/random" &&
	for i in $(seq 1 30); do printf 'small %d\n' "$i" > "$1/src/d/s$i" || return 1; done &&
	touch -d @1700000000 "$1/src" "$1/src/d" "$1/src/d/"* &&
	tar -C "$1/src" --sort=name --mtime=@1700000000 --owner=0 --group=0 -cf "$1/src.tar" .
}

vfields() {
	line=$(grep '^  verity: ' "$1") || return 1
	ROOT=$(echo "$line" | sed -n 's/.*root hash \([0-9a-f]*\),.*/\1/p')
	SALT=$(echo "$line" | sed -n 's/.*salt \([0-9a-f-]*\),.*/\1/p')
	DATA=$(echo "$line" | sed -n 's/.*data \([0-9]*\) bytes.*/\1/p')
	BLOCKS=$(echo "$line" | sed -n 's/.*(\([0-9]*\) blocks of.*/\1/p')
	HOFF=$(echo "$line" | sed -n 's/.*hash offset \([0-9]*\).*/\1/p')
	[ -n "$ROOT" ] && [ -n "$DATA" ] && [ -n "$HOFF" ]
}

vuuid() {
	"$VERITYSETUP" dump --hash-offset="$2" "$1" | sed -n 's/^UUID:[[:space:]]*//p'
}
