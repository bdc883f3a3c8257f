#!/bin/sh
# The dependency rule of doc/architecture.md (tests/unit/layering.rules),
# checked on the sources: each #include "FOLDER/..." of lib/, bin/, extras/
# and include/sqpack/ names a layer its own may use, private headers only
# of its INTERNAL layers, public ones of its API layers too; and the rule
# itself has no cycle. tests/unit/layering_symbols.sh checks the same
# table on the built objects, which includes cannot show.
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
. "$top_srcdir/tests/unit/layering_rules.sh"
cd "$top_srcdir" || exit 1
passed=0 failed=0 skipped=0

# One line per include, "path:line:#include ...", and one "path:0:" per
# public header so an unlisted header with no include is still seen.
report=$({
	for h in include/sqpack/*.h; do echo "$h:0:"; done
	find lib bin extras include/sqpack -name '*.[ch]' | sort |
		xargs grep -nE '^#[[:space:]]*include[[:space:]]*"' /dev/null
} | awk "$RULES_AWK"'
function bad(why) {
	print "FAIL: " where ": " why
	seen[who] = 1
	nbad[who]++
}
{
	split($0, c, ":")
	where = c[2] == "0" ? c[1] : c[1] ":" c[2]
	split(c[1], p, "/")
	inc = ""
	if (match($0, /"[^"]*"/))
		inc = substr($0, RSTART + 1, RLENGTH - 2)
	if (p[1] == "include") {
		who = owner[p[3]]
		if (who == "") {
			who = "include/sqpack"
			bad("public header not listed in layering.rules")
			next
		}
		if (who == "-")
			next
	} else {
		who = p[1] == "lib" ? p[2] : p[1]
	}
	seen[who] = 1
	if (!(who in layer)) {
		bad("folder " who " is not in layering.rules")
		next
	}
	if ((slash = index(inc, "/")) == 0)
		next
	top = substr(inc, 1, slash - 1)
	if (top == "sqpack") {
		h = substr(inc, slash + 1)
		if (!(h in owner))
			bad("includes " inc ", which layering.rules does not list")
		else if (!ok(who, owner[h], 1))
			bad(who " includes " inc " (" owner[h] "), not in its rule")
	} else if (top in layer && (p[1] == "include" || !ok(who, top, 0))) {
		bad(who " includes the private " inc ", not in its rule")
	}
}
END {
	for (w in seen)
		print (w in nbad ? "failed " : "passed ") w
}' "$rules" -)
echo "$report" | grep '^FAIL'
passed=$(echo "$report" | grep -c '^passed ')
failed=$(echo "$report" | grep -c '^failed ')
if [ "$passed" -lt 10 ]; then
	echo "FAIL: only $passed layers seen: is the rule read at all?"
	failed=$((failed + 1))
fi

# The rule must be an order: a cycle in it would allow a symbol cycle.
if command -v tsort >/dev/null 2>&1; then
	loop=$(awk "$RULES_AWK"'
	END {
		for (k in may) {
			split(k, e, SUBSEP)
			if (e[1] != e[2])
				print e[2], e[1]
		}
	}' "$rules" /dev/null | tsort 2>&1 >/dev/null)
	if [ -n "$loop" ]; then
		echo "FAIL: layering.rules has a cycle:"; echo "$loop"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
else
	echo "skip: tsort not found, the rule's own order is not checked" >&2
	skipped=$((skipped + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
