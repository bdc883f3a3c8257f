/* SPDX-License-Identifier: MIT */
/*
 * glob.c - shell glob matching for --exclude, with "**" crossing '/'.
 *
 * fnmatch(3) has no "**" and its FNM_PATHNAME rules differ between C
 * libraries, and exclusion must give the same image everywhere, so the
 * matcher is our own. Backtracking is bounded by the pattern length times
 * the path length per star, and both are short (paths <= PATH_MAX).
 */
#include "config.h"

#include <string.h>

#include "policy/policy_impl.h"

/* A bracket expression at p (just after '['): does it take c? Sets *end to
 * the character after the closing ']', or returns -1 when unterminated (the
 * '[' is then an ordinary character). */
static int match_class(const char *p, char c, const char **end)
{
	int negate = 0, found = 0;
	const char *q = p;

	if (*q == '!' || *q == '^') {
		negate = 1;
		q++;
	}
	if (*q == ']') {              /* a leading ']' is a member */
		found |= c == ']';
		q++;
	}
	for (; *q != '\0' && *q != ']'; q++) {
		char lo = *q, hi = *q;

		if (lo == '\\' && q[1] != '\0')
			lo = hi = *++q;
		if (q[1] == '-' && q[2] != '\0' && q[2] != ']') {
			hi = q[2] == '\\' && q[3] != '\0' ? q[3] : q[2];
			q += q[2] == '\\' ? 3 : 2;
		}
		if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi)
			found = 1;
	}
	if (*q != ']')
		return -1;
	*end = q + 1;
	return c != '/' && found != negate;
}

int policy_glob_match(const char *pat, const char *s)
{
	const char *end;
	int r;

	for (; *pat != '\0'; pat++) {
		switch (*pat) {
		case '*':
			if (pat[1] == '*') {
				while (*pat == '*')
					pat++;
				/* "**" followed by '/' also matches no directory at all */
				if (*pat == '/' && policy_glob_match(pat + 1, s))
					return 1;
				for (;; s++) {
					if (policy_glob_match(pat, s))
						return 1;
					if (*s == '\0')
						return 0;
				}
			}
			for (;; s++) {
				if (policy_glob_match(pat + 1, s))
					return 1;
				if (*s == '\0' || *s == '/')
					return 0;
			}
		case '?':
			if (*s == '\0' || *s == '/')
				return 0;
			s++;
			break;
		case '[':
			if (*s == '\0')
				return 0;
			r = match_class(pat + 1, *s, &end);
			if (r == 0)
				return 0;
			if (r > 0) {
				s++;
				pat = end - 1;
				break;
			}
			if (*s++ != '[')
				return 0;
			break;
		case '\\':
			if (pat[1] != '\0')
				pat++;
			/* fall through */
		default:
			if (*s++ != *pat)
				return 0;
			break;
		}
	}
	return *s == '\0';
}
