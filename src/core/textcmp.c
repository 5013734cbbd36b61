/* textcmp.c: printed-output comparison with a tolerance on numbers (see
 * textcmp.h). Pure: no I/O, allocation only through core/mem. */
#include "core/textcmp.h"
#include "core/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A number as printed: its value, and how it was written. */
struct number {
	size_t len;  /* characters, 0 when the text is no number */
	double v;
	bool neg;    /* written with a '-' */
	int frac;    /* digits after the point; -1 without a point */
	bool has_exp;
	double unit; /* one unit in the last printed digit */
};

static struct number number_at(const char *s)
{
	struct number n = { .frac = -1 };
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return n;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		n.frac = 0;
		while (isdigit((unsigned char)*p)) {
			p++;
			n.frac++;
		}
	}
	int exp = 0;
	if ((*p == 'e' || *p == 'E') && (isdigit((unsigned char)p[1]) ||
					 ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))) {
		char *end;
		exp = (int)strtol(p + 1, &end, 10);
		p = end;
		n.has_exp = true;
	}
	n.len = (size_t)(p - s);
	n.v = strtod(s, NULL);
	n.neg = *s == '-';
	n.unit = pow(10.0, exp - (n.frac > 0 ? n.frac : 0));
	return n;
}

/* Written as an integer (41, a shape, an index): no point, no exponent. */
static bool is_integer(const struct number *n)
{
	return n->frac < 0 && !n->has_exp;
}

/* One unit in the last digit, where float rounding can change that digit:
 * both written with digits after the point, as many of them, both with an
 * exponent or neither (0.1234 and 0.1235, 1.2346e-03 and 1.2345e-03, 0.9999
 * and 1.0000, 9.9999e-04 and 1.0000e-03 by the smaller unit). Never for a
 * whole float written with a bare point (torch's 2., numpy's 1.: exactly
 * that value), and never across the sign unless both are zero (-0.0000 and
 * 0.0000: a tiny value's sign; -0.0001 and 0.0000 cannot come from
 * rounding one value two ways). */
static bool within_last_place(const struct number *g, const struct number *w)
{
	if (g->frac < 1 || g->frac != w->frac || g->has_exp != w->has_exp)
		return false;
	if (g->neg != w->neg)
		return g->v == 0 && w->v == 0;
	return fabs(g->v - w->v) <= fmin(g->unit, w->unit) * 1.000001;
}

/* Does the printed number g pass for the expected w? */
static bool number_matches(const char *gs, const struct number *g, const char *ws, const struct number *w,
			   double f32_rel, double abs_tol)
{
	if (g->len == w->len && strncmp(gs, ws, w->len) == 0)
		return true;
	/* an integer is exact: 41 is not 42, nor 41. (another dtype) */
	if (is_integer(g) || is_integer(w))
		return false;
	if (within_last_place(g, w))
		return true;
	if (f32_rel > 0 && fabs(g->v - w->v) <= f32_rel * fabs(w->v))
		return true;
	return abs_tol > 0 && fabs(g->v - w->v) <= abs_tol;
}

static int line_of(const char *start, const char *at)
{
	int l = 1;
	for (const char *p = start; p < at; p++)
		l += *p == '\n';
	return l;
}

bool textcmp_match(const char *got_in, const char *want_in, double f32_rel, double abs_tol, bool prefix, char *why,
		   size_t whylen)
{
	char *got = xstrdup(got_in), *want = xstrdup(want_in);
	const char *g = got, *w = want;
	bool ok = true;
	while (*w) {
		struct number wn = { .len = 0 }, gn = { .len = 0 };
		if (w == want || !isalnum((unsigned char)w[-1]))
			wn = number_at(w);
		if (g == got || !isalnum((unsigned char)g[-1]))
			gn = number_at(g);
		if (wn.len && gn.len) {
			if (!number_matches(g, &gn, w, &wn, f32_rel, abs_tol)) {
				if (why && abs_tol > 0)
					snprintf(why, whylen, "line %d: got %.*s where %.*s was expected (tolerance %g)",
						 line_of(want, w), (int)gn.len, g, (int)wn.len, w, abs_tol);
				else if (why)
					snprintf(why, whylen, "line %d: got %.*s where %.*s was expected",
						 line_of(want, w), (int)gn.len, g, (int)wn.len, w);
				ok = false;
				break;
			}
			g += gn.len;
			w += wn.len;
			continue;
		}
		if (*g != *w) {
			/* quote the whole differing lines, one after the other */
			const char *gs = g, *ws = w;
			while (gs > got && gs[-1] != '\n')
				gs--;
			while (ws > want && ws[-1] != '\n')
				ws--;
			const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
			int gl = (int)(ge ? ge - gs : (long)strlen(gs)), wl = (int)(we ? we - ws : (long)strlen(ws));
			if (why)
				snprintf(why, whylen, "line %d: got \"%.*s\" where \"%.*s\" was expected",
					 line_of(want, w), gl > 70 ? 70 : gl, gs, wl > 70 ? 70 : wl, ws);
			ok = false;
			break;
		}
		g++;
		w++;
	}
	if (ok && *g && !prefix) {
		if (why)
			snprintf(why, whylen, "extra output after the expected text: %.80s", g);
		ok = false;
	}
	free(got);
	free(want);
	return ok;
}
