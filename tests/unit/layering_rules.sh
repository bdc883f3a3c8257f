# Sourced by tests/unit/layering.sh and layering_symbols.sh (not a test
# itself): where the rule is, and the awk code that reads it, so both
# checks apply the same table the same way. Needs $top_srcdir.
rules=$top_srcdir/tests/unit/layering.rules

# Prepended to each check's awk program; the rules file must be awk's
# first input. After it:
#   layer[F]     F is a layer (lib/ folder, bin or extras)
#   may[F, G]    F may use G's internals ("in", G is F or one of F's
#                INTERNAL folders) or G's public API only ("api")
#   owner[H]     the layer whose API include/sqpack/H declares ("-": anyone's)
#   ok(F, G, pub) whether F may use G, through the public API when pub
RULES_AWK='
function ok(f, g, pub) {
	if (g == "-")
		return 1
	if (!((f, g) in may))
		return 0
	return may[f, g] == "in" || (pub && may[f, g] == "api")
}
FNR == NR && $1 == "layer" {
	split($0, r_part, ":")
	split(r_part[1], r_w, " ")
	layer[r_w[2]] = 1
	may[r_w[2], r_w[2]] = "in"
	r_n = split(r_part[2], r_v, " ")
	for (r_i = 1; r_i <= r_n; r_i++)
		may[r_w[2], r_v[r_i]] = "in"
	r_n = split(r_part[3], r_v, " ")
	for (r_i = 1; r_i <= r_n; r_i++)
		may[r_w[2], r_v[r_i]] = "api"
	next
}
FNR == NR && $1 == "header" { owner[$2] = $3; next }
FNR == NR { next }
'
