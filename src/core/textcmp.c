/* textcmp.c: printed-output comparison with a tolerance on numbers (see
 * textcmp.h). Pure: no I/O, allocation only through core/mem. */
#include "core/textcmp.h"
#include "core/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static size_t number_at(const char *s, double *v, double *unit)
{
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	int frac = 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			frac++;
		}
	}
	int exp = 0;
	if ((*p == 'e' || *p == 'E') && (isdigit((unsigned char)p[1]) ||
					 ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))) {
		char *end;
		exp = (int)strtol(p + 1, &end, 10);
		p = end;
	}
	*v = strtod(s, NULL);
	*unit = pow(10.0, exp - frac);
	return (size_t)(p - s);
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
		double gv, wv, gu, wu;
		size_t wn = (w == want || !isalnum((unsigned char)w[-1])) ? number_at(w, &wv, &wu) : 0;
		size_t gn = (g == got || !isalnum((unsigned char)g[-1])) ? number_at(g, &gv, &gu) : 0;
		if (wn && gn) {
			/* one unit in the last digit (same number of characters),
			 * a float32 rounding difference in a 17-digit print, or
			 * within the expect's absolute tolerance */
			bool same_text = wn == gn && strncmp(g, w, wn) == 0;
			bool unit = gn == wn && fabs(gv - wv) <= wu * 1.000001;
			bool f32 = fabs(gv - wv) <= f32_rel * fabs(wv);
			bool near = fabs(gv - wv) <= abs_tol;
			if (!same_text && !unit && !f32 && !near) {
				if (why && abs_tol > 0)
					snprintf(why, whylen, "line %d: got %.*s where %.*s was expected (tolerance %g)",
						 line_of(want, w), (int)gn, g, (int)wn, w, abs_tol);
				else if (why)
					snprintf(why, whylen, "line %d: got %.*s where %.*s was expected",
						 line_of(want, w), (int)gn, g, (int)wn, w);
				ok = false;
				break;
			}
			g += gn;
			w += wn;
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
