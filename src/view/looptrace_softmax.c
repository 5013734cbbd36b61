/* looptrace_softmax.c: the row softmax of a trace (a softmax, or the middle
 * phase of an attention), as kernel/loops.c computes it and as the unrolled
 * and vectorised variants take it several entries a step: each row's max and
 * sum in the variant's order, the steps of its three passes, the cells of
 * the matrix after a step, its code and its explanations. For the other
 * looptrace files; pure, no drawing, no allocation after creation. */
#include "view/looptrace_internal.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void looptrace_zero_row_lines(struct looptrace *lt, const char *y, const char *r)
{
	if (!lt->sm.any_zero_row)
		return;
	lt->ln.if_zero = looptrace_add_line(lt, "    if max == float('-inf'):  # a row of -inf only");
	lt->ln.zero = looptrace_add_line(lt, "        %s[%s] = float('nan')  # 0/0: every exp is 0", y, r);
	lt->ln.zskip = looptrace_add_line(lt, "        continue");
}

/* ---- the row softmax --------------------------------------------------- */

/* The sum of a row's exp(x - max) in the order of variant: one by one
 * (loops), in KERNEL_UNROLL partial sums merged (unrolled), or in `lanes`
 * lane sums added lane after lane (simd: vsum, then the horizontal sum). */
static double rowsoft_sum(const struct rowsoft *sm, const double *row, double max, int64_t upto)
{
	if (sm->variant == TRACE_UNROLLED) {
		double s[KERNEL_UNROLL] = { 0 };
		for (int64_t j = 0; j < upto; j++)
			s[j % KERNEL_UNROLL] += exp(row[j] - max);
		return looptrace_unrolled_merge(s);
	}
	if (sm->variant == TRACE_SIMD && sm->width > 1) {
		double lane[64] = { 0 };
		for (int64_t j = 0; j < upto; j++)
			lane[j % sm->width] += exp(row[j] - max);
		double s = lane[0];
		for (int l = 1; l < sm->width; l++)
			s += lane[l];
		return s;
	}
	double sum = 0.0;
	for (int64_t j = 0; j < upto; j++)
		sum += exp(row[j] - max);
	return sum;
}

/* Steps of one pass over a row: one per width entries. */
static int64_t rowsoft_chunks(const struct rowsoft *sm)
{
	return (sm->cols + sm->width - 1) / sm->width;
}

/* The softmax passes over every row (kernel/loops.c's, or the variant's),
 * keeping each row's max and sum; returns the steps in all. width is the
 * entries one step takes (1, KERNEL_UNROLL, the lanes). */
int64_t looptrace_rowsoft_init(struct rowsoft *sm, const double *x, int64_t rows, int64_t cols,
			       enum trace_variant variant, int width)
{
	sm->x = x;
	sm->rows = rows;
	sm->cols = cols;
	sm->variant = variant;
	sm->width = width < 1 ? 1 : width > 64 ? 64 : width;
	sm->merges = variant == TRACE_LOOPS ? 0 : 1;
	sm->max = xmalloc((size_t)rows * sizeof *sm->max);
	sm->sum = xmalloc((size_t)rows * sizeof *sm->sum);
	sm->start = xmalloc((size_t)(rows + 1) * sizeof *sm->start);
	sm->start[0] = 0;
	int64_t ch = rowsoft_chunks(sm);
	for (int64_t r = 0; r < rows; r++) {
		const double *row = &x[r * cols];
		/* 1. the largest entry of the row (a NaN, once seen, sticks; the
		 * partial maxima and the lanes end with the same number) */
		double max = -INFINITY;
		for (int64_t j = 0; j < cols; j++)
			if (row[j] > max || row[j] != row[j])
				max = row[j];
		sm->max[r] = max;
		/* a row of -inf only: one more step fills it with nan (0/0) */
		if (max == -INFINITY) {
			sm->sum[r] = 0;
			sm->any_zero_row = true;
			sm->start[r + 1] = sm->start[r] + sm->pre + ch + sm->merges + 1;
			continue;
		}
		/* 2. exponentiate the shifted entries and add them up; 3. divide */
		sm->sum[r] = rowsoft_sum(sm, row, max, cols);
		sm->start[r + 1] = sm->start[r] + sm->pre + 3 * ch + 2 * sm->merges;
	}
	return sm->start[rows];
}

void looptrace_rowsoft_free(struct rowsoft *sm)
{
	free(sm->max);
	free(sm->sum);
	free(sm->start);
}

/* The step of a chunk of a pass: entries ch·width .. */
static void rowsoft_chunk(const struct rowsoft *sm, struct step *s, enum step_kind kind, int64_t chunk)
{
	s->kind = kind;
	s->c = chunk * sm->width;
	s->w = sm->cols - s->c < sm->width ? sm->cols - s->c : sm->width;
}

/* The step li (0-based) of the softmax passes. */
struct step looptrace_rowsoft_decode(const struct rowsoft *sm, int64_t li)
{
	int64_t lo = looptrace_find(sm->start, sm->rows, li);
	int64_t off = li - sm->start[lo] - sm->pre, ch = rowsoft_chunks(sm), mg = sm->merges;
	struct step s = { ST_MAX, lo, 0, 0, 1, false, 0, 0 };
	if (off < 0) {
		s.kind = ST_SCALE;
		s.w = sm->cols;
	} else if (off < ch) {
		rowsoft_chunk(sm, &s, ST_MAX, off);
	} else if (off < ch + mg) {
		s.w = sm->cols;
		s.merge = true;
	} else if (sm->max[lo] == -INFINITY) {
		s.kind = ST_ZERO;
		s.w = sm->cols;
	} else if (off < 2 * ch + mg) {
		rowsoft_chunk(sm, &s, ST_EXP, off - ch - mg);
	} else if (off < 2 * ch + 2 * mg) {
		s.kind = ST_EXP;
		s.w = sm->cols;
		s.merge = true;
	} else {
		rowsoft_chunk(sm, &s, ST_DIV, off - 2 * ch - 2 * mg);
	}
	return s;
}

double looptrace_exp(const struct rowsoft *sm, int64_t r, int64_t j)
{
	return exp(sm->x[r * sm->cols + j] - sm->max[r]);
}

double looptrace_weight(const struct rowsoft *sm, int64_t r, int64_t j)
{
	if (sm->max[r] == -INFINITY)
		return NAN;	/* every exp is 0: 0/0, as torch gives */
	return looptrace_exp(sm, r, j) / sm->sum[r];
}

void looptrace_rowsoft_cell(const struct rowsoft *sm, struct step s, int64_t idx, double *v, uint8_t *st)
{
	int64_t r = idx / sm->cols, j = idx % sm->cols;
	bool reached = j < s.c + s.w;   /* by this pass, up to this step */
	double x = sm->x[idx];
	if (s.kind == ST_NONE || r > s.r) {
		*v = x;
		*st = 0;
	} else if (r < s.r) {
		*v = looptrace_weight(sm, r, j);
		*st = 2;
	} else if (s.kind == ST_MAX) {
		*v = x;
		*st = reached ? 1 : 0;
	} else if (s.kind == ST_SCALE) {
		*v = x;
		*st = 1;
	} else if (s.kind == ST_ZERO) {
		*v = NAN;
		*st = 2;
	} else if (s.kind == ST_EXP) {
		*v = reached ? looptrace_exp(sm, r, j) : x;
		*st = reached ? 1 : 0;
	} else {   /* ST_DIV */
		*v = reached ? looptrace_weight(sm, r, j) : looptrace_exp(sm, r, j);
		*st = reached ? 2 : 1;
	}
}

/* The code of the passes, over matrix y in place, rows named by r. */
void looptrace_rowsoft_code(struct looptrace *lt, const char *y, const char *r, bool comments)
{
	const struct rowsoft *sm = &lt->sm;
	looptrace_add_line(lt, "for %s in range(%lld):", r, (long long)sm->rows);
	if (comments)
		looptrace_add_line(lt, "    # 1. the largest entry of the row");
	looptrace_add_line(lt, "    max = float('-inf')");
	looptrace_add_line(lt, "    for j in range(%lld):", (long long)sm->cols);
	lt->ln.max = looptrace_add_line(lt, "        if %s[%s, j] > max: max = %s[%s, j]", y, r, y, r);
	looptrace_zero_row_lines(lt, y, r);
	if (comments)
		looptrace_add_line(lt, "    # 2. exponentiate the shifted entries and add them up");
	looptrace_add_line(lt, "    sum = 0");
	looptrace_add_line(lt, "    for j in range(%lld):", (long long)sm->cols);
	lt->ln.exp = looptrace_add_line(lt, "        %s[%s, j] = exp(%s[%s, j] - max)", y, r, y, r);
	lt->ln.sum = looptrace_add_line(lt, "        sum += %s[%s, j]", y, r);
	if (comments)
		looptrace_add_line(lt, "    # 3. divide so the row sums to 1");
	looptrace_add_line(lt, "    for j in range(%lld):", (long long)sm->cols);
	lt->ln.div = looptrace_add_line(lt, "        %s[%s, j] = %s[%s, j] / sum", y, r, y, r);
}

void looptrace_explain_softmax(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	const struct rowsoft *sm = &lt->sm;
	const char *y = lt->kind == TRACE_SOFTMAX ? lt->ny : "att";
	const double *row = &sm->x[s.r * sm->cols];
	long long r = (long long)s.r, j = (long long)s.c;
	char n1[32], n2[32], n3[32], n4[32];
	switch (s.kind) {
	case ST_MAX: {
		double max = -INFINITY;
		for (int64_t i = 0; i < s.c; i++)
			if (row[i] > max || row[i] != row[i])
				max = row[i];
		double x = row[s.c];
		if (isnan(x))
			utf8_snprintf(buf, size, "%s[%lld, %lld] = nan \u2192 max = nan", y, r, j);
		else if (isnan(max))
			utf8_snprintf(buf, size, "%s[%lld, %lld] = %s, max stays nan", y, r, j, looptrace_num(n1, sizeof n1, x));
		else if (x > max)
			utf8_snprintf(buf, size, "%s[%lld, %lld] = %s > max = %s \u2192 max = %s", y, r, j,
				 looptrace_num(n1, sizeof n1, x), looptrace_num(n2, sizeof n2, max), n1);
		else
			utf8_snprintf(buf, size, "%s[%lld, %lld] = %s \u2264 max = %s: max stays", y, r, j,
				 looptrace_num(n1, sizeof n1, x), looptrace_num(n2, sizeof n2, max));
		return;
	}
	case ST_ZERO:
		utf8_snprintf(buf, size, "max = -inf: every entry of row %lld is -inf, nothing to attend to: every exp is 0 "
			      "and 0/0 is nan, so %s[%lld] = nan, as in torch", r, y, r);
		return;
	case ST_EXP: {
		double sum = 0.0;
		for (int64_t i = 0; i <= s.c; i++)
			sum += exp(row[i] - sm->max[s.r]);
		/* subtracting a negative max reads as adding its magnitude */
		double max = sm->max[s.r];
		bool neg = max < 0;
		utf8_snprintf(buf, size, "%s[%lld, %lld] = exp(%s %s %s) = %s \u2192 sum = %s", y, r, j,
			 looptrace_num(n1, sizeof n1, row[s.c]), neg ? "+" : "-", looptrace_num(n2, sizeof n2, neg ? -max : max),
			 looptrace_num(n3, sizeof n3, looptrace_exp(sm, s.r, s.c)), looptrace_num(n4, sizeof n4, sum));
		return;
	}
	case ST_DIV:
		utf8_snprintf(buf, size, "%s[%lld, %lld] = %s / %s = %s", y, r, j, looptrace_num(n1, sizeof n1, looptrace_exp(sm, s.r, s.c)),
			 looptrace_num(n2, sizeof n2, sm->sum[s.r]), looptrace_num(n3, sizeof n3, looptrace_weight(sm, s.r, s.c)));
		return;
	default:
		utf8_snprintf(buf, size, "%s", "");
		return;
	}
}

/* ---- the softmax of the variants: several entries a step ---------------- */

void looptrace_softmax_partials(const struct looptrace *lt, struct step s, double *part, int count)
{
	const struct rowsoft *sm = &lt->sm;
	const double *row = &sm->x[s.r * sm->cols];
	int64_t upto = s.c + s.w;
	for (int u = 0; u < count; u++)
		part[u] = s.kind == ST_MAX ? -INFINITY : 0.0;
	/* the unrolled max's remainder all goes to m0 (kernel/unrolled.c) */
	int64_t whole = sm->variant == TRACE_UNROLLED ? sm->cols / count * count : sm->cols;
	for (int64_t j = 0; j < upto && j < sm->cols; j++) {
		double *p = &part[s.kind == ST_MAX && j >= whole ? 0 : j % count];
		if (s.kind == ST_MAX) {
			if (row[j] > *p || row[j] != row[j] || *p != *p)
				*p = *p != *p ? *p : row[j];
		} else {
			*p += looptrace_exp(sm, s.r, j);
		}
	}
}

/* "y[1, 4:8]" (or "y[1, 4]" for one entry) */
static void range_text(char *buf, size_t size, const char *y, struct step s)
{
	if (s.w == 1)
		utf8_snprintf(buf, size, "%s[%lld, %lld]", y, (long long)s.r, (long long)s.c);
	else
		utf8_snprintf(buf, size, "%s[%lld, %lld:%lld]", y, (long long)s.r, (long long)s.c,
			      (long long)(s.c + s.w));
}

void looptrace_explain_softmax_wide(const struct looptrace *lt, char *buf, size_t size)
{
	struct step s = lt->cur;
	const struct rowsoft *sm = &lt->sm;
	const char *y = lt->kind == TRACE_SOFTMAX ? lt->ny : "att";
	bool unrolled = lt->variant == TRACE_UNROLLED;
	int count = unrolled ? KERNEL_UNROLL : sm->width;
	double part[64], vals[64] = { 0 };
	char rg[64], v1[160], n1[32], n2[32];
	int64_t w = s.w < 64 ? s.w : 64;
	range_text(rg, sizeof rg, y, s);
	switch (s.kind) {
	case ST_MAX:
		looptrace_softmax_partials(lt, s, part, count);
		looptrace_vec_text(v1, sizeof v1, part, count);
		if (unrolled)
			looptrace_parts_text(v1, sizeof v1, part, count);
		if (s.merge)
			utf8_snprintf(buf, size, "max = %s of %s = %s",
				      unrolled ? "max(max(m0, m1), max(m2, m3))" : "the largest lane", v1,
				      looptrace_num(n1, sizeof n1, sm->max[s.r]));
		else
			utf8_snprintf(buf, size, "%s: %lld entr%s compared at once \u2192 %s = %s", rg, (long long)s.w,
				      s.w == 1 ? "y" : "ies", unrolled ? "m0..m3" : "vmax", v1);
		return;
	case ST_ZERO:
		utf8_snprintf(buf, size, "max = -inf: every entry of row %lld is -inf, nothing to attend to: 0/0 is nan, "
			      "so %s[%lld] = nan, as in torch", (long long)s.r, y, (long long)s.r);
		return;
	case ST_EXP:
		looptrace_softmax_partials(lt, s, part, count);
		looptrace_vec_text(v1, sizeof v1, part, count);
		if (unrolled)
			looptrace_parts_text(v1, sizeof v1, part, count);
		if (s.merge) {
			utf8_snprintf(buf, size, "sum = %s = %s", unrolled ? "(s0 + s1) + (s2 + s3)" : "vsum[0] + vsum[1] + \u2026",
				      looptrace_num(n1, sizeof n1, sm->sum[s.r]));
			return;
		}
		for (int64_t j = 0; j < w; j++)
			vals[j] = looptrace_exp(sm, s.r, s.c + j);
		{
			char ev[160];
			looptrace_vec_text(ev, sizeof ev, vals, w);
			utf8_snprintf(buf, size, "%s = exp(%s - %s): %lld exponential%s = %s \u2192 %s = %s", rg, rg,
				      looptrace_num(n2, sizeof n2, sm->max[s.r]), (long long)s.w, s.w == 1 ? "" : "s", ev,
				      unrolled ? "s0..s3" : "vsum", v1);
		}
		return;
	case ST_DIV:
		for (int64_t j = 0; j < w; j++)
			vals[j] = looptrace_weight(sm, s.r, s.c + j);
		looptrace_vec_text(v1, sizeof v1, vals, w);
		utf8_snprintf(buf, size, "%s = %s / %s: %lld division%s = %s", rg, rg,
			      looptrace_num(n1, sizeof n1, sm->sum[s.r]), (long long)s.w, s.w == 1 ? "" : "s", v1);
		return;
	default:
		utf8_snprintf(buf, size, "%s", "");
		return;
	}
}
