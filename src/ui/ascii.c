/* ascii.c: the ASCII twin of every character the full screen draws, for a
 * terminal whose locale is not UTF-8 (LANG=C): box lines, arrows, shades,
 * marks, the mathematics of lessons and views. term.c decides when to use
 * it (the locale's codeset); this table is the only place that says how.
 * Characters that take one column keep one wherever text is laid out by
 * columns (lines, shades, "…", "×", "·"), so layouts stay as they are. */
#include "ui/internal.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <stddef.h>
#include <stdint.h>

/* How a twin joins its neighbours: a run of superscripts follows "^" and
 * one of subscripts "_" (Kᵀ is K^T, 10⁻⁶ is 10^-6, s₁₂ is s_12). */
enum run { PLAIN, SUPER, SUB };

struct twin {
	uint32_t cp;
	const char *ascii;
	enum run run;
};

/* Sorted by code point (ascii_twin searches it). */
static const struct twin twins[] = {
	{ 0x00A0, " ", PLAIN },      /* no-break space */
	{ 0x00B1, "+-", PLAIN },
	{ 0x00B2, "2", SUPER },
	{ 0x00B3, "3", SUPER },
	{ 0x00B7, ".", PLAIN },      /* middle dot: a product, a masked cell */
	{ 0x00B9, "1", SUPER },
	{ 0x00D7, "x", PLAIN },
	{ 0x00F7, "/", PLAIN },
	{ 0x0394, "Delta", PLAIN },
	{ 0x03A3, "sum", PLAIN },
	{ 0x03B1, "alpha", PLAIN },
	{ 0x03B2, "beta", PLAIN },
	{ 0x03B3, "gamma", PLAIN },
	{ 0x03B4, "delta", PLAIN },
	{ 0x03B5, "epsilon", PLAIN },
	{ 0x03B7, "eta", PLAIN },
	{ 0x03B8, "theta", PLAIN },
	{ 0x03BB, "lambda", PLAIN },
	{ 0x03BC, "mu", PLAIN },
	{ 0x03C0, "pi", PLAIN },
	{ 0x03C3, "sigma", PLAIN },
	{ 0x03C4, "tau", PLAIN },
	{ 0x03C6, "phi", PLAIN },
	{ 0x03C9, "omega", PLAIN },
	{ 0x1D40, "T", SUPER },      /* modifier capital T: a transpose */
	{ 0x1D62, "i", SUB },
	{ 0x2010, "-", PLAIN },
	{ 0x2011, "-", PLAIN },
	{ 0x2013, "-", PLAIN },      /* en dash */
	{ 0x2014, "--", PLAIN },     /* em dash */
	{ 0x2018, "'", PLAIN },
	{ 0x2019, "'", PLAIN },
	{ 0x201C, "\"", PLAIN },
	{ 0x201D, "\"", PLAIN },
	{ 0x2022, "*", PLAIN },
	{ 0x2026, "~", PLAIN },      /* "…": one column, as where labels are cut to fit */
	{ 0x2070, "0", SUPER },
	{ 0x2071, "i", SUPER },
	{ 0x2074, "4", SUPER },
	{ 0x2075, "5", SUPER },
	{ 0x2076, "6", SUPER },
	{ 0x2077, "7", SUPER },
	{ 0x2078, "8", SUPER },
	{ 0x2079, "9", SUPER },
	{ 0x207A, "+", SUPER },
	{ 0x207B, "-", SUPER },
	{ 0x207F, "n", SUPER },
	{ 0x2080, "0", SUB },
	{ 0x2081, "1", SUB },
	{ 0x2082, "2", SUB },
	{ 0x2083, "3", SUB },
	{ 0x2084, "4", SUB },
	{ 0x2085, "5", SUB },
	{ 0x2086, "6", SUB },
	{ 0x2087, "7", SUB },
	{ 0x2088, "8", SUB },
	{ 0x2089, "9", SUB },
	{ 0x208B, "-", SUB },
	{ 0x2096, "k", SUB },
	{ 0x2099, "n", SUB },
	{ 0x2190, "<-", PLAIN },
	{ 0x2191, "^", PLAIN },      /* up and down: one column, as scroll marks */
	{ 0x2192, "->", PLAIN },
	{ 0x2193, "v", PLAIN },
	{ 0x2194, "<->", PLAIN },
	{ 0x21D2, "=>", PLAIN },
	{ 0x2211, "sum", PLAIN },
	{ 0x2212, "-", PLAIN },      /* minus sign */
	{ 0x221A, "sqrt", PLAIN },
	{ 0x221E, "inf", PLAIN },
	{ 0x2248, "~=", PLAIN },
	{ 0x2260, "!=", PLAIN },
	{ 0x2264, "<=", PLAIN },
	{ 0x2265, ">=", PLAIN },
	{ 0x22EE, ":", PLAIN },      /* vertical ellipsis: rows left out */
	{ 0x2500, "-", PLAIN },      /* box drawing: one column each */
	{ 0x2502, "|", PLAIN },
	{ 0x250C, "+", PLAIN },
	{ 0x2510, "+", PLAIN },
	{ 0x2514, "+", PLAIN },
	{ 0x2518, "+", PLAIN },
	{ 0x251C, "+", PLAIN },
	{ 0x2524, "+", PLAIN },
	{ 0x252C, "+", PLAIN },
	{ 0x2534, "+", PLAIN },
	{ 0x253C, "+", PLAIN },
	{ 0x2550, "=", PLAIN },
	{ 0x2551, "|", PLAIN },
	{ 0x2580, "\"", PLAIN },     /* half blocks (never drawn in ASCII: heatmap_layout) */
	{ 0x2584, ",", PLAIN },
	{ 0x2588, "#", PLAIN },      /* the shades, palette_shade's, lightest first: */
	{ 0x2591, ":", PLAIN },      /* apart from the other marks of cells (".", "^", */
	{ 0x2592, "=", PLAIN },      /* "?") and from the sign before them ("-") */
	{ 0x2593, "*", PLAIN },
	{ 0x25B2, "^", PLAIN },      /* a +inf cell */
	{ 0x25B6, ">", PLAIN },
	{ 0x25C0, "<", PLAIN },
	{ 0x25CF, "*", PLAIN },
	{ 0x25D0, "o", PLAIN },      /* a lesson part done */
	{ 0x26A0, "!", PLAIN },
	{ 0x270E, "*", PLAIN },      /* an exercise */
	{ 0x2713, "+", PLAIN },      /* check marks: done, solved */
	{ 0x2714, "+", PLAIN },
	{ 0x2C7C, "j", SUB },
};

static const struct twin *ascii_twin(uint32_t cp)
{
	size_t lo = 0, hi = sizeof twins / sizeof *twins;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (twins[mid].cp == cp)
			return &twins[mid];
		if (twins[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ascii_append(struct strbuf *out, const char *s, size_t n)
{
	enum run prev = PLAIN;
	size_t i = 0;
	while (i < n && s[i]) {
		if ((unsigned char)s[i] < 0x80) {
			strbuf_putc(out, s[i++]);
			prev = PLAIN;
			continue;
		}
		uint32_t cp;
		i += (size_t)utf8_decode(s + i, n - i, &cp);
		const struct twin *t = ascii_twin(cp);
		if (t) {
			if (t->run != PLAIN && t->run != prev)
				strbuf_putc(out, t->run == SUPER ? '^' : '_');
			strbuf_puts(out, t->ascii);
			prev = t->run;
			continue;
		}
		/* anything else: a "?" a column (nothing for a combining mark) */
		strbuf_pad(out, '?', (size_t)utf8_cp_width(cp));
		prev = PLAIN;
	}
}
