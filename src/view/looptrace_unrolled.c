/* looptrace_unrolled.c: the unrolled variant of a trace (kernel.h's
 * _unrolled kernels): every sum runs as KERNEL_UNROLL partial sums s0..s3,
 * one step is one iteration that gives each of them one term, and a last
 * step merges them as (s0 + s1) + (s2 + s3). Its code, steps, partial sums,
 * explanations and the inspector's story, for looptrace.c; pure, no drawing. */
#include "view/looptrace_internal.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define U KERNEL_UNROLL

/* ---- the order of sums -------------------------------------------------- */

void looptrace_unrolled_dot(double s[KERNEL_UNROLL], const double *a, int64_t sa, const double *b, int64_t sb,
			    int64_t upto)
{
	for (int u = 0; u < U; u++)
		s[u] = 0.0;
	for (int64_t p = 0; p < upto; p++)
		s[p % U] += a[p * sa] * b[p * sb];
}

/* s[lo] .. s[hi - 1] added in pairs, halves first */
static double merge_range(const double *s, int lo, int hi)
{
	if (hi - lo == 1)
		return s[lo];
	int mid = (lo + hi) / 2;
	return merge_range(s, lo, mid) + merge_range(s, mid, hi);
}

double looptrace_unrolled_merge(const double s[KERNEL_UNROLL])
{
	return merge_range(s, 0, U);
}

int64_t looptrace_unrolled_iters(int64_t terms)
{
	return (terms + U - 1) / U;
}

/* The merge as code: "(s0 + s1) + (s2 + s3)", or with max:
 * "max(max(m0, m1), max(m2, m3))". */
static size_t merge_text(char *buf, size_t size, char name, bool max, int lo, int hi, bool top)
{
	if (hi - lo == 1)
		return (size_t)utf8_snprintf(buf, size, "%c%d", name, lo);
	int mid = (lo + hi) / 2;
	size_t len = 0;
	char left[128], right[128];
	merge_text(left, sizeof left, name, max, lo, mid, false);
	merge_text(right, sizeof right, name, max, mid, hi, false);
	if (max)
		len = (size_t)utf8_snprintf(buf, size, "max(%s, %s)", left, right);
	else
		len = (size_t)utf8_snprintf(buf, size, top ? "%s + %s" : "(%s + %s)", left, right);
	return len;
}

/* "s0 = s1 = s2 = s3 = " */
static void init_text(char *buf, size_t size, char name)
{
	size_t len = 0;
	buf[0] = 0;
	for (int u = 0; u < U && len < size; u++)
		len += (size_t)utf8_snprintf(buf + len, size - len, "%c%d = ", name, u);
}

/* "p", "p + 1", ... */
static void plus(char *buf, size_t size, const char *var, int u)
{
	if (u == 0)
		utf8_snprintf(buf, size, "%s", var);
	else
		utf8_snprintf(buf, size, "%s + %d", var, u);
}

/* ---- code ------------------------------------------------------------------- */

/* The accumulator lines of a sum: the loop body (U lines) when there are
 * whole iterations, then one line per term of the remainder; term(u, idx)
 * is written by fmt with the index twice. */
static void sum_lines(struct looptrace *lt, int64_t terms, const char *indent, const char *var, char name,
		      const char *fmt, int *first, int *last, int *rfirst, int *rlast)
{
	int64_t whole = terms / U * U;
	char idx[32], term[160];
	if (whole > 0) {
		looptrace_add_line(lt, "%sfor %s in range(0, %lld, %d):", indent, var, (long long)whole, U);
		for (int u = 0; u < U; u++) {
			plus(idx, sizeof idx, var, u);
			utf8_snprintf(term, sizeof term, fmt, idx, idx);
			int l = looptrace_add_line(lt, "%s    %c%d += %s", indent, name, u, term);
			if (u == 0)
				*first = l;
			*last = l;
		}
	}
	for (int64_t p = whole; p < terms; p++) {
		utf8_snprintf(idx, sizeof idx, "%lld", (long long)p);
		utf8_snprintf(term, sizeof term, fmt, idx, idx);
		int l = looptrace_add_line(lt, "%s%c%d += %s  # the remainder", indent, name, (int)(p - whole), term);
		if (p == whole)
			*rfirst = l;
		*rlast = l;
	}
}

static void softmax_code(struct looptrace *lt, const char *y, const char *r)
{
	const struct rowsoft *sm = &lt->sm;
	int64_t cols = sm->cols, whole = cols / U * U;
	char init[64], merged[160], term[96], idx[32];
	looptrace_add_line(lt, "for %s in range(%lld):", r, (long long)sm->rows);
	init_text(init, sizeof init, 'm');
	looptrace_add_line(lt, "    %sfloat('-inf')", init);
	if (whole > 0)
		looptrace_add_line(lt, "    for j in range(0, %lld, %d):", (long long)whole, U);
	for (int u = 0; u < U && whole > 0; u++) {
		plus(idx, sizeof idx, "j", u);
		int l = looptrace_add_line(lt, "        m%d = max(m%d, %s[%s, %s])", u, u, y, r, idx);
		if (u == 0)
			lt->ln.mx_first = l;
		lt->ln.mx_last = l;
	}
	for (int64_t j = whole; j < cols; j++) {
		int l = looptrace_add_line(lt, "    m0 = max(m0, %s[%s, %lld])  # the remainder", y, r, (long long)j);
		if (j == whole)
			lt->ln.mxr_first = l;
		lt->ln.mxr_last = l;
	}
	merge_text(merged, sizeof merged, 'm', true, 0, U, true);
	lt->ln.mx_merge = looptrace_add_line(lt, "    max = %s", merged);
	looptrace_zero_row_lines(lt, y, r);
	init_text(init, sizeof init, 's');
	looptrace_add_line(lt, "    %s0", init);
	if (whole > 0) {
		looptrace_add_line(lt, "    for j in range(0, %lld, %d):", (long long)whole, U);
		lt->ln.ex_first = looptrace_add_line(lt, "        %s[%s, j:j + %d] = exp(%s[%s, j:j + %d] - max)", y, r, U,
						     y, r, U);
		for (int u = 0; u < U; u++) {
			plus(idx, sizeof idx, "j", u);
			lt->ln.ex_last = looptrace_add_line(lt, "        s%d += %s[%s, %s]", u, y, r, idx);
		}
	}
	if (whole < cols) {
		lt->ln.exr_first = looptrace_add_line(lt, "    %s[%s, %lld:] = exp(%s[%s, %lld:] - max)  # the remainder", y,
						      r, (long long)whole, y, r, (long long)whole);
		for (int64_t j = whole; j < cols; j++) {
			utf8_snprintf(term, sizeof term, "%s[%s, %lld]", y, r, (long long)j);
			lt->ln.exr_last = looptrace_add_line(lt, "    s%d += %s", (int)(j - whole), term);
		}
	}
	merge_text(merged, sizeof merged, 's', false, 0, U, true);
	lt->ln.ex_merge = looptrace_add_line(lt, "    sum = %s", merged);
	looptrace_add_line(lt, "    for j in range(0, %lld, %d):", (long long)cols, U);
	lt->ln.div = looptrace_add_line(lt, "        %s[%s, j:j + %d] = %s[%s, j:j + %d] / sum", y, r, U, y, r, U);
}

static void matmul_code(struct looptrace *lt)
{
	char init[64], merged[160], fmt[160];
	looptrace_add_line(lt, "%s = torch.zeros(%lld, %lld)", lt->nc, (long long)lt->m, (long long)lt->n);
	looptrace_add_line(lt, "for i in range(%lld):", (long long)lt->m);
	looptrace_add_line(lt, "    for j in range(%lld):", (long long)lt->n);
	init_text(init, sizeof init, 's');
	looptrace_add_line(lt, "        %s0", init);
	utf8_snprintf(fmt, sizeof fmt, "%s%s * %s%s", lt->na, lt->a_vec ? "[%s]" : "[i, %s]", lt->nb,
		 lt->b_vec ? "[%s]" : "[%s, j]");
	sum_lines(lt, lt->k, "        ", "p", 's', fmt, &lt->ln.u_first, &lt->ln.u_last, &lt->ln.rem_first,
		  &lt->ln.rem_last);
	merge_text(merged, sizeof merged, 's', false, 0, U, true);
	lt->ln.merge = looptrace_add_line(lt, "        %s[i, j] = %s", lt->nc, merged);
}

static void attention_code(struct looptrace *lt)
{
	char init[64], merged[160];
	looptrace_add_line(lt, "# 1. scores: each dot product in %d partial sums", U);
	looptrace_add_line(lt, "att = torch.zeros(%lld, %lld)", (long long)lt->m, (long long)lt->n);
	looptrace_scale_line(lt);
	looptrace_add_line(lt, "for q_idx, q in enumerate(%s):", lt->na);
	looptrace_add_line(lt, "    for k_idx, k in enumerate(%s):", lt->nb);
	if (lt->causal || lt->has_mask) {
		lt->ln.if_hidden = looptrace_add_line(lt, "        if %s%s%s:", lt->causal ? "k_idx > q_idx" : "",
						      lt->causal && lt->has_mask ? " or " : "",
						      lt->has_mask ? "mask[q_idx, k_idx]" : "");
		lt->ln.set_inf = looptrace_add_line(lt, "            att[q_idx, k_idx] = float('-inf')");
		lt->ln.skip = looptrace_add_line(lt, "            continue");
	}
	init_text(init, sizeof init, 's');
	looptrace_add_line(lt, "        %s0", init);
	sum_lines(lt, lt->k, "        ", "c", 's', "q[%s] * k[%s]", &lt->ln.u_first, &lt->ln.u_last, &lt->ln.rem_first,
		  &lt->ln.rem_last);
	merge_text(merged, sizeof merged, 's', false, 0, U, true);
	lt->ln.dot = looptrace_add_line(lt, lt->scaled ? "        att[q_idx, k_idx] = (%s) * scale" :
							 "        att[q_idx, k_idx] = %s", merged);
	looptrace_add_line(lt, "# 2. softmax each row: its max and its sum in %d partials", U);
	softmax_code(lt, "att", "row");
	looptrace_add_line(lt, "# 3. each output row: %d partial rows of the weighted sum", U);
	looptrace_add_line(lt, "out = torch.zeros(%lld, %lld)", (long long)lt->m, (long long)lt->dv);
	looptrace_add_line(lt, "for row, a in enumerate(att):");
	init_text(init, sizeof init, 'o');
	looptrace_add_line(lt, "    %storch.zeros(%lld)", init, (long long)lt->dv);
	char fmt[96];
	utf8_snprintf(fmt, sizeof fmt, "a[%%s] * %s[%%s]", lt->nc);
	sum_lines(lt, lt->n, "    ", "v_idx", 'o', fmt, &lt->ln.o_first, &lt->ln.o_last, &lt->ln.or_first,
		  &lt->ln.or_last);
	merge_text(merged, sizeof merged, 'o', false, 0, U, true);
	lt->ln.o_merge = looptrace_add_line(lt, "    out[row] = %s", merged);
}

void looptrace_unrolled_code(struct looptrace *lt)
{
	switch (lt->kind) {
	case TRACE_MATMUL:
		matmul_code(lt);
		break;
	case TRACE_SOFTMAX:
		softmax_code(lt, lt->ny, "r");
		break;
	case TRACE_ATTENTION:
		attention_code(lt);
		break;
	}
}

/* ---- steps -------------------------------------------------------------------- */

/* Step u of a sum of terms (iters iterations, then the merge). */
static void sum_step(struct step *s, int64_t u, int64_t terms)
{
	int64_t iters = looptrace_unrolled_iters(terms);
	if (u >= iters) {
		s->p = 0;
		s->w = terms;
		s->merge = true;
	} else {
		s->p = u * U;
		s->w = terms - s->p < U ? terms - s->p : U;
	}
}

struct step looptrace_unrolled_decode(const struct looptrace *lt, int64_t it)
{
	struct step s = { ST_MATMUL, 0, 0, 0, 1, false, 0, 0 };
	if (lt->kind == TRACE_MATMUL) {
		int64_t per = looptrace_unrolled_iters(lt->k) + 1, cell = it / per;
		s.r = cell / lt->n;
		s.c = cell % lt->n;
		sum_step(&s, it % per, lt->k);
	} else if (it < lt->sm_begin) {
		int64_t lo = looptrace_find(lt->cell_start, lt->m * lt->n, it);
		s.kind = ST_SCORE;
		s.r = lo / lt->n;
		s.c = lo % lt->n;
		if (lt->hidden[lo])
			s.w = lt->k;
		else
			sum_step(&s, it - lt->cell_start[lo], lt->k);
	} else {
		int64_t per = looptrace_unrolled_iters(lt->n) + 1, o = it - lt->out_begin;
		s.kind = ST_OUT;
		s.r = o / per;
		sum_step(&s, o % per, lt->n);
		s.c = s.p;   /* the first value row of the iteration */
	}
	return s;
}

void looptrace_unrolled_load(struct looptrace *lt, struct step s)
{
	lt->npart = 0;
	switch (s.kind) {
	case ST_MATMUL:
		looptrace_unrolled_dot(lt->part, &lt->a[s.r * lt->k], 1, &lt->b[s.c], lt->n, s.p + s.w);
		lt->npart = U;
		break;
	case ST_SCORE:
		if (lt->hidden[s.r * lt->n + s.c])
			break;
		looptrace_unrolled_dot(lt->part, &lt->a[s.r * lt->k], 1, &lt->b[s.c * lt->k], 1, s.p + s.w);
		lt->npart = U;
		break;
	case ST_MAX:
	case ST_EXP:
		looptrace_softmax_partials(lt, s, lt->part, U);
		lt->npart = U;
		break;
	case ST_OUT:
		looptrace_unrolled_out(lt, s.r, s.c + s.w, NULL);
		for (int u = 0; u < U; u++)
			lt->part[u] = lt->part_rows[u * lt->dv];   /* column 0 */
		lt->npart = U;
		break;
	default:
		break;
	}
}

/* the body's lines for a whole iteration, the remainder's for a short one,
 * the merge's for the merge */
static void pick(const struct step *s, int body_first, int body_last, int rem_first, int rem_last, int merge,
		 int *stmt, int *first, int *last)
{
	if (s->merge) {
		*stmt = *first = *last = merge;
	} else if (s->w == U) {
		*stmt = *first = body_first;
		*last = body_last;
	} else {
		*stmt = *first = rem_first;
		*last = rem_last;
	}
}

void looptrace_unrolled_lines(const struct looptrace *lt, int *stmt, int *first, int *last)
{
	struct step s = lt->cur;
	const typeof(lt->ln) *ln = &lt->ln;
	switch (s.kind) {
	case ST_MATMUL:
		pick(&s, ln->u_first, ln->u_last, ln->rem_first, ln->rem_last, ln->merge, stmt, first, last);
		break;
	case ST_SCORE:
		if (lt->hidden[s.r * lt->n + s.c]) {
			*stmt = ln->set_inf;
			*first = ln->if_hidden;
			*last = ln->skip;
		} else {
			pick(&s, ln->u_first, ln->u_last, ln->rem_first, ln->rem_last, ln->dot, stmt, first, last);
		}
		break;
	case ST_MAX:
		pick(&s, ln->mx_first, ln->mx_last, ln->mxr_first, ln->mxr_last, ln->mx_merge, stmt, first, last);
		break;
	case ST_ZERO:
		*stmt = ln->zero;
		*first = ln->if_zero;
		*last = ln->zskip;
		break;
	case ST_EXP:
		pick(&s, ln->ex_first, ln->ex_last, ln->exr_first, ln->exr_last, ln->ex_merge, stmt, first, last);
		break;
	case ST_DIV:
		*stmt = *first = *last = ln->div;
		break;
	case ST_OUT:
		pick(&s, ln->o_first, ln->o_last, ln->or_first, ln->or_last, ln->o_merge, stmt, first, last);
		break;
	default:
		break;
	}
}

/* ---- words ---------------------------------------------------------------------- */

/* "[0.1200, -0.5300, 0.2000, 0.0100]": all the partial sums */
void looptrace_parts_text(char *buf, size_t size, const double *v, int count)
{
	size_t len = (size_t)utf8_snprintf(buf, size, "[");
	for (int i = 0; i < count && len < size; i++) {
		char nb[32];
		len += (size_t)utf8_snprintf(buf + len, size - len, "%s%s", i ? ", " : "", looptrace_num(nb, sizeof nb, v[i]));
	}
	if (len < size)
		utf8_snprintf(buf + len, size - len, "]");
}

/* "p = 4..7" / "p = 16" */
static void terms_text(char *buf, size_t size, const char *var, const struct step *s)
{
	if (s->w == 1)
		utf8_snprintf(buf, size, "%s = %lld", var, (long long)s->p);
	else
		utf8_snprintf(buf, size, "%s = %lld..%lld", var, (long long)s->p, (long long)(s->p + s->w - 1));
}

void looptrace_unrolled_explain(const struct looptrace *lt, char *buf, size_t size)
{
	struct step s = lt->cur;
	char parts[160], terms[48], merged[160], n1[32];
	long long r = (long long)s.r, c = (long long)s.c;
	looptrace_parts_text(parts, sizeof parts, lt->part, lt->npart);
	terms_text(terms, sizeof terms, s.kind == ST_OUT ? "v_idx" : s.kind == ST_SCORE ? "c" : "p", &s);
	merge_text(merged, sizeof merged, s.kind == ST_OUT ? 'o' : 's', false, 0, U, true);
	switch (s.kind) {
	case ST_MATMUL:
		if (s.merge)
			utf8_snprintf(buf, size, "%s[%lld, %lld] = %s = %s (the loops add in another order: the last digits "
				      "may differ)", lt->nc, r, c, merged, looptrace_num(n1, sizeof n1, lt->res[s.r * lt->n + s.c]));
		else
			utf8_snprintf(buf, size, "%s: %lld independent multiply-add%s, s%d..s%d one term each \u2192 s0..s%d = %s",
				      terms, (long long)s.w, s.w == 1 ? "" : "s", 0, (int)s.w - 1, U - 1, parts);
		return;
	case ST_SCORE:
		if (lt->hidden[s.r * lt->n + s.c]) {
			looptrace_explain_hidden(lt, s, buf, size);
		} else if (s.merge) {
			utf8_snprintf(buf, size, "att[%lld, %lld] = (%s)%s = %s", r, c, merged, lt->scaled ? " \u00d7 scale" : "",
				      looptrace_num(n1, sizeof n1, lt->scores[s.r * lt->n + s.c]));
		} else {
			utf8_snprintf(buf, size, "%s of %s[%lld] \u00b7 %s[%lld]: %lld multiply-add%s side by side \u2192 s0..s%d = %s",
				      terms, lt->na, r, lt->nb, c, (long long)s.w, s.w == 1 ? "" : "s", U - 1, parts);
		}
		return;
	case ST_OUT:
		if (s.merge) {
			char ov[96];
			looptrace_vec_text(ov, sizeof ov, &lt->res[s.r * lt->dv], lt->dv);
			utf8_snprintf(buf, size, "out[%lld] = %s = %s", r, merged, ov);
		} else {
			utf8_snprintf(buf, size, "%s: o0..o%d each add a[v_idx] \u00b7 %s[v_idx], %lld row%s at once \u2192 "
				      "column 0: %s", terms, (int)s.w - 1, lt->nc, (long long)s.w, s.w == 1 ? "" : "s", parts);
		}
		return;
	default:
		looptrace_explain_softmax_wide(lt, buf, size);
		return;
	}
}

/* ---- the inspector ---------------------------------------------------------------- */

/* "s0: p = 0, 4, 8, 12" (the first few terms of accumulator 0) */
static void s0_terms(char *buf, size_t size, const char *var, int64_t terms)
{
	size_t len = (size_t)utf8_snprintf(buf, size, "%s = ", var);
	int shown = 0;
	for (int64_t p = 0; p < terms && len < size; p += U, shown++) {
		if (shown == 4) {
			utf8_snprintf(buf + len, size - len, ", \u2026");
			return;
		}
		len += (size_t)utf8_snprintf(buf + len, size - len, "%s%lld", shown ? ", " : "", (long long)p);
	}
}

void looptrace_unrolled_story(const struct looptrace *lt, int row, int col, char *buf, size_t size)
{
	char cnt[32], t0[96], merged[160], step[32];
	const char *ph = looptrace_phase(lt);
	merge_text(merged, sizeof merged, 's', false, 0, U, true);
	if (!strcmp(ph, "matmul") || !strcmp(ph, "scores")) {
		bool mm = lt->kind == TRACE_MATMUL;
		int64_t idx = (int64_t)row * lt->n + col, per = looptrace_unrolled_iters(lt->k) + 1;
		if (!mm && lt->hidden[idx]) {
			utf8_snprintf(buf, size, "att[%d, %d]: hidden from query %d: -inf in step %s, no dot product", row, col,
				      row, looptrace_count(step, sizeof step, lt->cell_start[idx] + 1));
			return;
		}
		int64_t merge_step = mm ? idx * per + per : lt->cell_start[idx] + per;
		s0_terms(t0, sizeof t0, mm ? "p" : "c", lt->k);
		utf8_snprintf(buf, size, "%s[%d, %d]: s0..s%d each took every %dth of the %s terms (s0: %s), merged as %s "
			      "in step %s", mm ? lt->nc : "att", row, col, U - 1, U, looptrace_count(cnt, sizeof cnt, lt->k), t0,
			      merged, looptrace_count(step, sizeof step, merge_step));
		return;
	}
	if (!strcmp(ph, "softmax")) {
		const struct rowsoft *sm = &lt->sm;
		int64_t start = sm->start[row] + (lt->kind == TRACE_ATTENTION ? lt->sm_begin : 0);
		int64_t ch = (sm->cols + U - 1) / U, chunk = col / U;
		const char *y = lt->kind == TRACE_SOFTMAX ? lt->ny : "att";
		if (sm->max[row] == -INFINITY) {
			utf8_snprintf(buf, size, "%s[%d, %d]: its row is all -inf: nan in step %s", y, row, col,
				      looptrace_count(step, sizeof step, start + ch + 2));
			return;
		}
		char s1[32], s2[32];
		int mu = col >= sm->cols / U * U ? 0 : col % U;   /* the max's remainder goes to m0 */
		utf8_snprintf(buf, size, "%s[%d, %d]: into m%d and s%d, compared in step %s, exp in step %s, "
			      "divided in step %s", y, row, col, mu, col % U,
			      looptrace_count(step, sizeof step, start + chunk + 1),
			      looptrace_count(s1, sizeof s1, start + ch + 1 + chunk + 1),
			      looptrace_count(s2, sizeof s2, start + 2 * ch + 2 + chunk + 1));
		return;
	}
	/* the weighted sum */
	int64_t per = looptrace_unrolled_iters(lt->n) + 1;
	s0_terms(t0, sizeof t0, "v_idx", lt->n);
	merge_text(merged, sizeof merged, 'o', false, 0, U, true);
	utf8_snprintf(buf, size, "out[%d, %d]: o0..o%d each took every %dth of the %s value rows (o0: %s), merged as %s "
		      "in step %s", row, col, U - 1, U, looptrace_count(cnt, sizeof cnt, lt->n), t0, merged,
		      looptrace_count(step, sizeof step, lt->out_begin + (int64_t)row * per + per));
}
