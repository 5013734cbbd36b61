/* doccmp.c: masks the times of IPython's magic lines and lists torch's
 * autograd marks, for comparing qkv's output with a notebook's (see
 * doccmp.h). Test-only code, linked into both test binaries. */
#include "doccmp.h"
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One time as IPython's _format_time writes it: "2.28 s", "911 ms",
 * "3.4 µs", "1min 3s", "1h 2min 3s". Moves *p past it; false when *p does
 * not start with one. */
static bool skip_time(const char **p)
{
	static const char *const units[] = { "ns", "µs", "us", "ms", "min", "s", "h", "d" };
	const char *s = *p;
	for (;;) {
		if (*s < '0' || *s > '9')
			return false;
		const char *num = s;
		while ((*s >= '0' && *s <= '9') || *s == '.' || (s > num && (*s == 'e' || *s == '+' || *s == '-')))
			s++;
		const char *u = *s == ' ' ? s + 1 : s;
		size_t i = 0, n = sizeof units / sizeof *units;
		while (i < n && !starts(u, units[i]))
			i++;
		if (i == n)
			return false;
		s = u + strlen(units[i]);
		if (!(s[0] == ' ' && s[1] >= '0' && s[1] <= '9'))
			break;
		s++;
	}
	*p = s;
	return true;
}

/* Whether line (up to its end, excluding the newline) is the fields of
 * pattern with a time at each '@'; the rest must be equal. */
static bool time_line(const char *line, size_t len, const char *pattern)
{
	char *copy = strndup(line, len);
	const char *s = copy;
	bool ok = true;
	for (const char *q = pattern; *q && ok; q++) {
		if (*q == '@')
			ok = skip_time(&s);
		else
			ok = *s++ == *q;
	}
	ok = ok && *s == 0;
	free(copy);
	return ok;
}

/* A %timeit line: "T ± T per loop (mean ± std. dev. of N runs, N loops
 * each)", or "T per loop (mean of N runs, N loops each)" for one run. */
static bool timeit_line(const char *line, size_t len)
{
	char *copy = strndup(line, len);
	const char *s = copy, *tail = NULL;
	bool ok = skip_time(&s);
	if (ok && starts(s, " ± ")) {
		s += strlen(" ± ");
		ok = skip_time(&s);
	}
	if (ok && starts(s, " per loop (mean "))
		tail = s + strlen(" per loop (mean ");
	ok = ok && tail && len >= 6 && strcmp(copy + len - 6, " each)") == 0;
	free(copy);
	return ok;
}

char *doccmp_mask_times(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1), *o = out;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *masked = NULL;
		if (starts(line, "CPU times: ") && time_line(line, len, "CPU times: user @, sys: @, total: @"))
			masked = "CPU times: user T, sys: T, total: T";
		else if (starts(line, "Wall time: ") && time_line(line, len, "Wall time: @"))
			masked = "Wall time: T";
		else if (timeit_line(line, len))
			masked = "T per loop";
		if (masked && strlen(masked) <= len) {
			memcpy(o, masked, strlen(masked));
			o += strlen(masked);
		} else {
			memcpy(o, line, len);
			o += len;
		}
		line += len;
		if (*line == '\n')
			*o++ = *line++;
	}
	*o = 0;
	return out;
}

char *doccmp_grad_marks(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;
	for (const char *s = text; *s; s++) {
		if (starts(s, "grad_fn=<")) {
			const char *end = strchr(s, '>');
			size_t len = end ? (size_t)(end - s) + 1 : strlen(s);
			memcpy(o, s, len);
			o += len;
			*o++ = '\n';
			s += len - 1;
		} else if (starts(s, "requires_grad=True")) {
			o += sprintf(o, "requires_grad=True\n");
			s += strlen("requires_grad=True") - 1;
		}
	}
	*o = 0;
	return out;
}

bool doccmp_match(const char *got, const char *want, double f32_rel, bool prefix, char *why, size_t whylen)
{
	char *g = doccmp_mask_times(got), *w = doccmp_mask_times(want);
	bool ok = text_matches(g, w, f32_rel, prefix, why, whylen);
	free(g);
	free(w);
	if (!ok)
		return false;
	g = doccmp_grad_marks(got);
	w = doccmp_grad_marks(want);
	ok = prefix ? starts(g, w) : strcmp(g, w) == 0;
	if (!ok && why)
		snprintf(why, whylen, "the autograd marks differ:\n got:\n%s want:\n%s", g, w);
	free(g);
	free(w);
	return ok;
}
