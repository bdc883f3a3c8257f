#!/bin/sh
# The dependency rule (tests/unit/layering.rules) checked on the built
# objects: layering.sh sees only #include lines, so a call into another
# folder through a public header (lib/util once created compressors
# through sqpack/codec.h) passed it. Here every global symbol is mapped to
# the folder whose object defines it, and each object's undefined symbols
# must come from its own folder, an INTERNAL one, or an API one through a
# symbol libsqpack.so exports; the folders' use of each other must have no
# cycle. The same check runs on tests/unit/plant/, objects built to
# break the rule, and must report exactly their faults: so a check that
# stopped seeing anything would fail here, on every run.
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/unit/layering_rules.sh"
for tool in nm tsort; do
	command -v $tool >/dev/null 2>&1 || { echo "skip: $tool not found" >&2; exit 77; }
done
passed=0 failed=0 skipped=0

# objects DIR: the objects built in DIR and below, libtool's PIC copy
# (.libs/X.o) where there is one
objects() {
	[ -d "$1" ] || return 0
	find "$1" -name '*.o' | sort | while read -r o; do
		case $o in
		*/.libs/*) echo "$o" ;;
		*) [ -f "${o%/*}/.libs/${o##*/}" ] || echo "$o" ;;
		esac
	done
}

# nm_lines ROOT LAYER OBJECT...: the "D" and "U" lines of the objects
# (below), or status 1 when nm cannot read one. One nm for a layer's
# objects (-A names the object on each line): one nm and one awk per
# object took two minutes of a loaded make check for 400 objects.
nm_lines() {
	nl_root=$1/ nl_layer=$2; shift 2
	nl_syms=$(nm -A -P -g "$@") || return 1
	echo "$nl_syms" | awk -v f="$nl_layer" -v root="$nl_root" 'NF >= 3 {
		o = substr($1, 1, length($1) - 1)
		if (index(o, root) == 1)
			o = substr(o, length(root) + 1)
		print ($3 == "U" || $3 == "w" || $3 == "v" ? "U" : "D"), f, $2, o
	}'
}

# symbols ROOT: "D layer symbol object" for each global symbol defined,
# "U layer symbol object" for each used, of every layer's objects under
# ROOT (ROOT/lib/LAYER, or ROOT/LAYER for bin and extras); "E" when nm fails.
symbols() {
	for f in $(awk '$1 == "layer" { print $2 }' "$rules"); do
		d=$1/lib/$f
		[ -d "$d" ] || d=$1/$f
		objs=$(objects "$d")
		[ -n "$objs" ] || continue
		# shellcheck disable=SC2086
		nm_lines "$1" "$f" $objs 2> /dev/null && continue
		# an object nm cannot read: the layer one object at a time
		for o in $objs; do
			nm_lines "$1" "$f" "$o" || echo "E $f - $o"
		done
	done
}

# check ROOT EXPORTED: the verdict on ROOT's objects, one line each:
#   bad LAYER FROM SYMBOL OBJECT WHY   (tab-separated) a use the rule forbids
#   passed LAYER, failed LAYER         each layer with objects
#   edge FROM LAYER                    LAYER uses FROM
#   unchecked N                        API uses not checked for lack of
#                                      EXPORTED ("-": no list)
#   nm OBJECT                          nm could not read OBJECT
# EXPORTED is a file of the symbols the public API exports, one a line.
check() {
	{
		if [ "$2" != - ]; then sed 's/^/X /' "$2"; fi
		symbols "$1"
	} | awk "$RULES_AWK"'
	$1 == "X" { exported[$2] = 1; have_exports = 1; next }
	$1 == "E" { print "nm " $4; next }
	$1 == "D" { def[$3] = $2; seen[$2] = 1; next }
	$1 == "U" { n++; uf[n] = $2; us[n] = $3; uo[n] = $4; next }
	END {
		for (i = 1; i <= n; i++) {
			f = uf[i]; s = us[i]
			if (!(s in def) || def[s] == f)
				continue
			g = def[s]
			edge[g, f] = 1
			if (ok(f, g, 0))
				continue
			if (!ok(f, g, 1))
				why = "not in its rule"
			else if (!have_exports) {
				unchecked++
				continue
			} else if (s in exported)
				continue
			else
				why = "not exported: " f " may use " g "'"'"'s public API only"
			print "bad\t" f "\t" g "\t" s "\t" uo[i] "\t" why
			nbad[f] = 1
		}
		for (f in seen)
			print (f in nbad ? "failed " : "passed ") f
		for (k in edge) {
			split(k, e, SUBSEP)
			print "edge", e[1], e[2]
		}
		print "unchecked", unchecked + 0
	}' "$rules" -
}

# cycles: tsort's account of the loops among "edge" lines on stdin
cycles() {
	awk '$1 == "edge" { print $2, $3 }' | tsort 2>&1 >/dev/null
}

list=$(mktemp "${TMPDIR:-/tmp}/layering_symbols.XXXXXX") || exit 99
trap 'rm -f "$list"' EXIT

# The library and the tools.
lib=$top_builddir/.libs/libsqpack.so
exports=-
if [ -f "$lib" ]; then
	exports=$list
	dyn=$(nm -D --defined-only "$lib") || { echo "nm cannot read $lib" >&2; exit 99; }
	# Names without their version node (sqp_x@@SQPACK_0).
	echo "$dyn" | awk '{ sub(/@.*/, "", $NF); print $NF }' > "$list" || exit 99
	# libsqpack-fuse's too, where built: its API is the fuse layer's.
	fuse=$top_builddir/.libs/libsqpack-fuse.so
	if [ -f "$fuse" ]; then
		dyn=$(nm -D --defined-only "$fuse") || { echo "nm cannot read $fuse" >&2; exit 99; }
		echo "$dyn" | awk '{ sub(/@.*/, "", $NF); print $NF }' >> "$list" || exit 99
	fi
fi
report=$(check "$top_builddir" "$exports")
echo "$report" | awk -F '\t' '$1 == "bad" {
	print "FAIL: " $5 ": " $2 " uses " $3 "'"'"'s " $4 " (" $6 ")"
}'
echo "$report" | awk '$1 == "nm" { print "FAIL: nm cannot read " $2 }'
passed=$(echo "$report" | grep -c '^passed ')
failed=$(echo "$report" | grep -c '^failed ')
if [ $((passed + failed)) -lt 12 ]; then
	echo "FAIL: objects of only $((passed + failed)) layers found under $top_builddir: not built?"
	failed=$((failed + 1))
fi
failed=$((failed + $(echo "$report" | grep -c '^nm ')))
loops=$(echo "$report" | cycles)
if [ -n "$loops" ]; then
	echo "FAIL: the folders' symbols use each other in a cycle:"
	echo "$loops"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
unchecked=$(echo "$report" | awk '$1 == "unchecked" { print $2 }')
if [ "$exports" = - ]; then
	echo "skip: $lib not built: $unchecked uses of public APIs not checked for export" >&2
	skipped=$((skipped + 1))
fi

# The planted faults: util calls codec (not in util's rule) and codec
# calls util back (a cycle); dir calls write's plant_api (exported: fine)
# and plant_hidden (not exported). Exactly those two must be reported.
plant=$top_builddir/tests/unit/plant
echo plant_api > "$list" || exit 99
planted=$(check "$plant" "$list")
found=$(echo "$planted" | awk -F '\t' '$1 == "bad" { print $2, $3, $4 }' | sort | tr '\n' ' ')
if [ "$found" = "dir write plant_hidden util codec plant_codec " ]; then
	passed=$((passed + 1))
else
	echo "FAIL: in $plant (built by make check), expected the faults 'dir write plant_hidden'"
	echo "      and 'util codec plant_codec', found: '$found'"
	failed=$((failed + 1))
fi
if echo "$planted" | cycles | grep -q util; then
	passed=$((passed + 1))
else
	echo "FAIL: the planted cycle between util and codec was not found"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
