/* looptrace_words.c: what a trace says: numbers as the explanations print
 * them, the phase and matrix names and labels, the code lines and indices of
 * the current step, and its one-line explanation (the loops variant's here,
 * the others' in their own files). Pure; a text cut to a buffer never ends
 * in half a character (core/utf8). */
#include "view/looptrace_internal.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *looptrace_num(char *buf, size_t size, double v)
{
	if (isnan(v))
		return "nan";
	if (isinf(v))
		return v > 0 ? "inf" : "-inf";
	if (v == 0)
		v = 0;   /* no "-0.0000" */
	double a = fabs(v);
	utf8_snprintf(buf, size, a != 0 && (a < 1e-4 || a >= 1e6) ? "%.3e" : "%.4f", v);
	return buf;
}

/* "[0.1200, -0.5300, 0.2000, …]": the first three numbers of a row */
void looptrace_vec_text(char *buf, size_t size, const double *v, int64_t count)
{
	size_t len = (size_t)utf8_snprintf(buf, size, "[");
	for (int64_t i = 0; i < count && i < 3 && len < size; i++) {
		char nb[32];
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", looptrace_num(nb, sizeof nb, v[i]));
	}
	if (len < size)
		utf8_snprintf(buf + len, size - len, "%s]", count > 3 ? ", \u2026" : "");
}

/* "6,400": thousands separated by commas */
const char *looptrace_count(char *buf, size_t size, int64_t v)
{
	char digits[32];
	int n = snprintf(digits, sizeof digits, "%lld", (long long)(v < 0 ? -v : v));
	size_t len = 0;
	if (v < 0 && len + 1 < size)
		buf[len++] = '-';
	for (int i = 0; i < n && len + 1 < size; i++) {
		buf[len++] = digits[i];
		if ((n - 1 - i) % 3 == 0 && i < n - 1 && len + 1 < size)
			buf[len++] = ',';
	}
	if (size)
		buf[len < size ? len : size - 1] = 0;
	return buf;
}

/* "scale = 1 / math.sqrt(3)" (or its value), when the scores are scaled */
void looptrace_scale_line(struct looptrace *lt)
{
	if (lt->scaled && fabs(lt->scale * sqrt((double)lt->k) - 1.0) < 1e-9)
		looptrace_add_line(lt, "scale = 1 / math.sqrt(%lld)", (long long)lt->k);
	else if (lt->scaled)
		looptrace_add_line(lt, "scale = %.6g", lt->scale);
}

/* The lines that turn a row of -inf only into nan, when there is one. */

const char *looptrace_phase(const struct looptrace *lt)
{
	switch (lt->shown) {
	case G_MATMUL: return "matmul";
	case G_SCORES: return "scores";
	case G_SOFTMAX: return "softmax";
	case G_OUT: return "weighted sum";
	case G_FUSED: return "online softmax";
	}
	return "";
}

const char *looptrace_matrix_name(const struct looptrace *lt)
{
	switch (lt->shown) {
	case G_MATMUL: return lt->nc;
	case G_SCORES: return "att";
	case G_SOFTMAX: return lt->kind == TRACE_SOFTMAX ? lt->ny : "att";
	case G_OUT: return "out";
	case G_FUSED: return "out";
	}
	return "";
}

void looptrace_matrix_label(const struct looptrace *lt, char *buf, size_t size)
{
	/* no operand names: they may be long expressions, and the code shows them */
	const char *what = "";
	char tiled[96], full[160];
	bool simd = lt->variant == TRACE_SIMD;
	const struct gemm_walk *w = &lt->gw[lt->shown == G_OUT];
	if (simd && w->tiny && w->uc > 1)
		utf8_snprintf(tiled, sizeof tiled, "a tiny product, %d columns of a row at a time", w->uc);
	else if (simd && w->tiny)
		utf8_snprintf(tiled, sizeof tiled, "a tiny product, one cell at a time");
	else
		utf8_snprintf(tiled, sizeof tiled, "a %d\u00d7%d tile at a time", lt->tile.tile_rows, lt->tile.tile_cols);
	switch (lt->shown) {
	case G_MATMUL:
		what = "sums of products, one cell at a time";
		if (simd) {
			utf8_snprintf(full, sizeof full, "sums of products, %s", tiled);
			what = full;
		}
		break;
	case G_FUSED:
		what = "blocks of queries against blocks of keys, an online softmax";
		if (lt->chunks > 1) {
			utf8_snprintf(full, sizeof full, "%s, %lld value columns a pass", what, (long long)lt->dvc);
			what = full;
		}
		break;
	case G_SCORES:
		what = "the scores, one per query and key";
		if (simd) {
			utf8_snprintf(full, sizeof full, "the scores q\u00b7k\u1d40, %s, not yet scaled", tiled);
			what = full;
		}
		break;
	case G_SOFTMAX:
		what = lt->kind == TRACE_SOFTMAX ? "the rows turning into weights, one by one" :
		       simd ? "each row scaled, then turning into weights" : "the scores turning into weights, row by row";
		break;
	case G_OUT:
		what = "each row a weighted sum of the value rows";
		if (simd) {
			utf8_snprintf(full, sizeof full, "weights times values, %s", tiled);
			what = full;
		}
		break;
	}
	utf8_snprintf(buf, size, "%s (%d\u00d7%d): %s%s%s", looptrace_matrix_name(lt), lt->rows, lt->cols, what,
		      lt->slice[0] ? ", " : "", lt->slice);
}

const char *looptrace_slice(const struct looptrace *lt)
{
	return lt->slice;
}

/* ---- the current iteration -------------------------------------------- */

int looptrace_code(const struct looptrace *lt, const char *const **lines)
{
	*lines = (const char *const *)lt->lines;
	return lt->nlines;
}

/* The lines the current iteration runs (first..last) and its statement. */
static void current_lines(const struct looptrace *lt, int *stmt, int *first, int *last)
{
	struct step s = lt->cur;
	*stmt = *first = *last = -1;
	if (s.kind != ST_NONE && lt->variant == TRACE_UNROLLED)
		looptrace_unrolled_lines(lt, stmt, first, last);
	else if (s.kind != ST_NONE && lt->variant == TRACE_SIMD)
		looptrace_simd_lines(lt, stmt, first, last);
	switch (lt->variant == TRACE_LOOPS ? s.kind : ST_NONE) {
	case ST_NONE:
	case ST_TILE:
	case ST_SCALE:
	case ST_BLOCK:
		break;
	case ST_MATMUL:
		*stmt = lt->ln.acc;
		*last = s.p == lt->k - 1 ? lt->ln.store : -1;
		break;
	case ST_SCORE:
		if (lt->hidden[s.r * lt->n + s.c]) {
			*stmt = lt->ln.set_inf;
			*first = lt->ln.if_hidden;
			*last = lt->ln.skip;
		} else {
			*stmt = lt->ln.dot;
		}
		break;
	case ST_MAX:
		*stmt = lt->ln.max;
		break;
	case ST_ZERO:
		*stmt = lt->ln.zero;
		*first = lt->ln.if_zero;
		*last = lt->ln.zskip;
		break;
	case ST_EXP:
		*stmt = lt->ln.exp;
		*last = lt->ln.sum;
		break;
	case ST_DIV:
		*stmt = lt->ln.div;
		break;
	case ST_OUT:
		*stmt = lt->ln.out;
		break;
	}
	if (*first < 0)
		*first = *stmt;
	if (*last < 0)
		*last = *stmt;
}

void looptrace_current_span(const struct looptrace *lt, int *first, int *last)
{
	int stmt;
	current_lines(lt, &stmt, first, last);
}

int looptrace_current_line(const struct looptrace *lt)
{
	int stmt, first, last;
	current_lines(lt, &stmt, &first, &last);
	return stmt;
}

bool looptrace_current_cell(const struct looptrace *lt, int *row, int *col)
{
	struct step s = lt->cur;
	*row = *col = -1;
	if (s.kind == ST_NONE)
		return false;
	*row = (int)s.r;
	*col = s.kind == ST_ZERO || s.kind == ST_OUT || s.kind == ST_BLOCK || s.kind == ST_SCALE || (s.merge && s.kind != ST_MATMUL &&
	       s.kind != ST_SCORE && s.kind != ST_TILE) ? -1 : (int)s.c;
	return true;
}

/* the name of the rows in a softmax pass */
static const char *row_var(const struct looptrace *lt)
{
	return lt->kind == TRACE_SOFTMAX ? "r" : "row";
}

void looptrace_indices(const struct looptrace *lt, char *buf, size_t size)
{
	struct step s = lt->cur;
	long long r = (long long)s.r, c = (long long)s.c;
	bool merge = s.merge && lt->variant == TRACE_UNROLLED;
	switch (s.kind) {
	case ST_NONE:
		utf8_snprintf(buf, size, "%s", "");
		break;
	case ST_MATMUL:
		if (merge)
			utf8_snprintf(buf, size, "i = %lld, j = %lld", r, c);
		else
			utf8_snprintf(buf, size, "i = %lld, j = %lld, p = %lld", r, c, (long long)s.p);
		break;
	case ST_SCORE:
		utf8_snprintf(buf, size, "q_idx = %lld, k_idx = %lld", r, c);
		break;
	case ST_TILE:
		if (lt->gw[s.gw].tiny)
			utf8_snprintf(buf, size, "i = %lld, j = %lld, p = %lld", r, c, (long long)s.p);
		else
			utf8_snprintf(buf, size, "i0 = %lld, j0 = %lld, p = %lld", r, c, (long long)s.p);
		break;
	case ST_BLOCK:
		if (lt->chunks > 1)
			utf8_snprintf(buf, size, "i0 = %lld, c0 = %lld, j0 = %lld", r, (long long)s.p, c);
		else
			utf8_snprintf(buf, size, "i0 = %lld, j0 = %lld", r, c);
		break;
	case ST_SCALE:
	case ST_ZERO:
		utf8_snprintf(buf, size, "%s = %lld", row_var(lt), r);
		break;
	case ST_MAX:
	case ST_EXP:
	case ST_DIV:
		if (s.merge)
			utf8_snprintf(buf, size, "%s = %lld", row_var(lt), r);
		else
			utf8_snprintf(buf, size, "%s = %lld, j = %lld", row_var(lt), r, c);
		break;
	case ST_OUT:
		if (merge)
			utf8_snprintf(buf, size, "row = %lld", r);
		else
			utf8_snprintf(buf, size, "row = %lld, v_idx = %lld", r, c);
		break;
	}
}

static void explain_matmul(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	char ai[48], bi[48], n1[32], n2[32], n3[32];
	if (lt->a_vec)
		snprintf(ai, sizeof ai, "[%lld]", (long long)s.p);
	else
		snprintf(ai, sizeof ai, "[%lld, %lld]", (long long)s.r, (long long)s.p);
	if (lt->b_vec)
		snprintf(bi, sizeof bi, "[%lld]", (long long)s.p);
	else
		snprintf(bi, sizeof bi, "[%lld, %lld]", (long long)s.p, (long long)s.c);
	double s_now = lt->prefix[s.p];
	int len = utf8_snprintf(buf, size, "s += %s%s \u00b7 %s%s = %s \u00d7 %s \u2192 s = %s", lt->na, ai, lt->nb, bi,
			   looptrace_num(n1, sizeof n1, lt->a[s.r * lt->k + s.p]), looptrace_num(n2, sizeof n2, lt->b[s.p * lt->n + s.c]),
			   looptrace_num(n3, sizeof n3, s_now));
	if (s.p == lt->k - 1 && len >= 0 && (size_t)len < size)
		utf8_snprintf(buf + len, size - (size_t)len, "; %s[%lld, %lld] = %s", lt->nc, (long long)s.r,
			 (long long)s.c, n3);
}

void looptrace_explain_hidden(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	long long qi = (long long)s.r, ki = (long long)s.c;
	if (lt->causal && s.c > s.r)
		utf8_snprintf(buf, size, "k_idx %lld > q_idx %lld, a later token: att[%lld, %lld] = -inf", ki, qi, qi, ki);
	else
		utf8_snprintf(buf, size, "mask[%lld, %lld] is set: att[%lld, %lld] = -inf", qi, ki, qi, ki);
}

static void explain_score(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	long long qi = (long long)s.r, ki = (long long)s.c;
	char n1[32], n2[32], n3[32];
	if (lt->hidden[s.r * lt->n + s.c]) {
		looptrace_explain_hidden(lt, s, buf, size);
		return;
	}
	double dot = 0.0;
	for (int64_t c = 0; c < lt->k; c++)
		dot += lt->a[s.r * lt->k + c] * lt->b[s.c * lt->k + c];
	if (lt->scaled)
		utf8_snprintf(buf, size, "att[%lld, %lld] = %s[%lld] \u00b7 %s[%lld] \u00d7 scale = %s \u00d7 %s = %s", qi, ki,
			 lt->na, qi, lt->nb, ki, looptrace_num(n1, sizeof n1, dot), looptrace_num(n2, sizeof n2, lt->scale),
			 looptrace_num(n3, sizeof n3, lt->scores[s.r * lt->n + s.c]));
	else
		utf8_snprintf(buf, size, "att[%lld, %lld] = %s[%lld] \u00b7 %s[%lld] = %s", qi, ki, lt->na, qi, lt->nb, ki,
			 looptrace_num(n1, sizeof n1, dot));
}

static void explain_out(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	char n1[32], vv[96], ov[96];
	long long r = (long long)s.r, vi = (long long)s.c;
	looptrace_vec_text(vv, sizeof vv, &lt->v[s.c * lt->dv], lt->dv);
	looptrace_vec_text(ov, sizeof ov, &lt->prefix[s.c * lt->dv], lt->dv);
	utf8_snprintf(buf, size, "out[%lld] += a[%lld] \u00b7 %s[%lld] = %s \u00d7 %s \u2192 out[%lld] = %s", r, vi, lt->nc, vi,
		 looptrace_num(n1, sizeof n1, looptrace_weight(&lt->sm, s.r, s.c)), vv, r, ov);
}

void looptrace_explain(const struct looptrace *lt, char *buf, size_t size)
{
	struct step s = lt->cur;
	if (size == 0)
		return;
	if (s.kind != ST_NONE && lt->variant == TRACE_UNROLLED) {
		looptrace_unrolled_explain(lt, buf, size);
		return;
	}
	if (lt->variant == TRACE_SIMD && (s.kind != ST_NONE || lt->kind == TRACE_ATTENTION)) {
		looptrace_simd_explain(lt, buf, size);
		return;
	}
	switch (s.kind) {
	case ST_NONE:
		if (lt->kind == TRACE_MATMUL)
			utf8_snprintf(buf, size, "%s = torch.zeros(%lld, %lld): no product computed yet", lt->nc,
				 (long long)lt->m, (long long)lt->n);
		else if (lt->kind == TRACE_SOFTMAX)
			utf8_snprintf(buf, size, "%s starts as a copy of %s", lt->ny, lt->na);
		else
			utf8_snprintf(buf, size, "att = torch.zeros(%lld, %lld): no score computed yet", (long long)lt->m,
				 (long long)lt->n);
		return;
	case ST_MATMUL:
		explain_matmul(lt, s, buf, size);
		return;
	case ST_SCORE:
		explain_score(lt, s, buf, size);
		return;
	case ST_MAX:
	case ST_ZERO:
	case ST_EXP:
	case ST_DIV:
		looptrace_explain_softmax(lt, s, buf, size);
		return;
	case ST_OUT:
		explain_out(lt, s, buf, size);
		return;
	case ST_TILE:
	case ST_SCALE:
	case ST_BLOCK:
		utf8_snprintf(buf, size, "%s", "");
		return;
	}
}
