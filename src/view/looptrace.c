/* looptrace.c: making a trace: the operands of a matmul, a row softmax or an
 * attention (seed 003, kernel/loops.c) copied to doubles, each variant's
 * result and step table computed, and the code of the loops variant written
 * (the other variants' in looptrace_unrolled.c and looptrace_simd.c). For
 * the ui's "loops beside vectorised" view; never draws or prints. Seeking is
 * looptrace_seek.c, the words looptrace_words.c, the row softmax
 * looptrace_softmax.c. */
#include "view/looptrace.h"
#include "view/looptrace_internal.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------- */

/* a·b·c, or -1 when it overflows */
static int64_t product3(int64_t a, int64_t b, int64_t c)
{
	int64_t ab, abc;
	if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc))
		return -1;
	return abc;
}

/* Rows and cols of t's first matrix (batch 0, head 0): its last two dims; a
 * 1-D t is one row, or one column when column is set. */
static bool first_matrix(const struct tensor *t, bool column, int64_t *rows, int64_t *cols)
{
	if (!t || t->ndim == 0)
		return false;
	if (t->ndim == 1) {
		*rows = column ? t->shape[0] : 1;
		*cols = column ? 1 : t->shape[0];
	} else {
		*rows = t->shape[t->ndim - 2];
		*cols = t->shape[t->ndim - 1];
	}
	return true;
}

/* The first count elements of t in row-major order: its first matrix. */
static double *copy_first(const struct tensor *t, int64_t count)
{
	double *d = xmalloc((size_t)count * sizeof *d);
	for (int64_t i = 0; i < count; i++)
		d[i] = tensor_get(t, i);
	return d;
}

static void slice_text(struct looptrace *lt, int ndim)
{
	snprintf(lt->slice, sizeof lt->slice, "%s", ndim == 3 ? "batch 0" : ndim >= 4 ? "batch 0, head 0" : "");
}

/* How the code names an operand: its label, in parentheses when it is an
 * expression that indexing would bind into ("(Q @ K.T)[i, p]"). */
static void code_name(char *dst, size_t size, const char *label, const char *fallback)
{
	if (!label || !label[0]) {
		utf8_snprintf(dst, size, "%s", fallback);
		return;
	}
	int depth = 0;
	bool bare = true;
	for (const char *s = label; *s; s++) {
		if (*s == '(' || *s == '[')
			depth++;
		else if ((*s == ')' || *s == ']') && depth > 0)
			depth--;
		else if (depth == 0 && strchr(" +-*/@%<>=!&|~^", *s))
			bare = false;
	}
	if (bare)
		utf8_snprintf(dst, size, "%s", label);
	else
		utf8_snprintf(dst, size, "(%s)", label);
}

int looptrace_add_line(struct looptrace *lt, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	utf8_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (lt->nlines >= LT_MAX_LINES)
		return lt->nlines - 1;
	lt->lines[lt->nlines] = xstrdup(buf);
	return lt->nlines++;
}

/* A new trace with its line table; the caller fills the rest. */
static struct looptrace *trace_new(enum trace_kind kind)
{
	struct looptrace *lt = xcalloc(1, sizeof *lt);
	lt->kind = kind;
	lt->lines = xcalloc(LT_MAX_LINES, sizeof *lt->lines);
	lt->prefix_unit = -1;
	memset(&lt->ln, -1, sizeof lt->ln);   /* every line index -1: not in this code */
	return lt;
}

/* Numbers in explanations: 4 decimals, or 4 significant digits in
 * scientific notation when very large or small. */
/* ---- creation ---------------------------------------------------------- */

static void alloc_matrix(struct looptrace *lt, int64_t cells)
{
	lt->values = xmalloc((size_t)cells * sizeof *lt->values);
	lt->state = xmalloc((size_t)cells * sizeof *lt->state);
}

/* The code of a variant other than the loops. */
static void variant_code(struct looptrace *lt)
{
	if (lt->variant == TRACE_UNROLLED)
		looptrace_unrolled_code(lt);
	else
		looptrace_simd_code(lt);
}

/* The entries one step of the softmax takes. */
static int softmax_width(const struct looptrace *lt)
{
	return lt->variant == TRACE_UNROLLED ? KERNEL_UNROLL : lt->variant == TRACE_SIMD ? lt->sm_lanes : 1;
}

static void attention_names(struct looptrace *lt, const struct derivation *labels)
{
	code_name(lt->na, sizeof lt->na, labels ? labels->label_a : NULL, "queries");
	code_name(lt->nb, sizeof lt->nb, labels ? labels->label_b : NULL, "keys");
	code_name(lt->nc, sizeof lt->nc, labels ? labels->label_c : NULL, "values");
}

/* Unrolled scores: a hidden key is one step, a dot product its iterations
 * and a merge; fills cell_start and returns the steps in all. */
static int64_t unrolled_score_steps(struct looptrace *lt)
{
	int64_t cells = lt->m * lt->n, per = looptrace_unrolled_iters(lt->k) + 1;
	lt->cell_start = xmalloc((size_t)(cells + 1) * sizeof *lt->cell_start);
	lt->cell_start[0] = 0;
	for (int64_t i = 0; i < cells; i++)
		lt->cell_start[i + 1] = lt->cell_start[i] + (lt->hidden[i] ? 1 : per);
	return lt->cell_start[cells];
}

/* Unrolled weighted sum of row `row` over its first upto value rows: the
 * KERNEL_UNROLL partial rows in part_rows; merged into o unless o is NULL. */
void looptrace_unrolled_out(struct looptrace *lt, int64_t row, int64_t upto, double *o)
{
	int64_t dv = lt->dv;
	for (int64_t i = 0; i < KERNEL_UNROLL * dv; i++)
		lt->part_rows[i] = 0.0;
	for (int64_t vi = 0; vi < upto; vi++) {
		double w = looptrace_weight(&lt->sm, row, vi);
		double *pr = &lt->part_rows[(vi % KERNEL_UNROLL) * dv];
		for (int64_t c = 0; c < dv; c++)
			pr[c] += w * lt->v[vi * dv + c];
	}
	for (int64_t c = 0; o && c < dv; c++) {
		double s[KERNEL_UNROLL];
		for (int u = 0; u < KERNEL_UNROLL; u++)
			s[u] = lt->part_rows[u * dv + c];
		o[c] = looptrace_unrolled_merge(s);
	}
}

/* The product a simd trace shows: its register tile and lanes in lt->tile. */
void looptrace_product_shape(struct looptrace *lt, const struct kernel_gemm_shape *sh)
{
	lt->tile.lanes = sh->lanes < 1 ? 1 : sh->lanes;
	lt->tile.tile_rows = sh->tile_rows < 1 ? 1 : sh->tile_rows;
	lt->tile.tile_cols = sh->tile_cols < lt->tile.lanes ? lt->tile.lanes : sh->tile_cols;
}

/* A new trace of variant v: for simd, with the shapes of the path in use
 * for float64 operands (f64) or float32 ones. */
static struct looptrace *variant_new(enum trace_kind kind, enum trace_variant v, bool f64)
{
	struct looptrace *lt = trace_new(kind);
	lt->variant = lt->asked = v;
	lt->f64 = f64;
	kernel_simd_tile(&lt->tile);
	looptrace_product_shape(lt, &lt->tile.gemm[f64]);
	if (lt->tile.att_rows < 1)
		lt->tile.att_rows = 1;
	if (lt->tile.att_keys < 1)
		lt->tile.att_keys = 1;
	int sl = f64 ? lt->tile.softmax_lanes_f64 : lt->tile.softmax_lanes;
	lt->sm_lanes = sl > 0 ? sl : 1;
	lt->blk_i0 = lt->blk_next = -1;
	return lt;
}

/* The steps of a matmul in variant v other than simd: multiply-adds, or
 * iterations and merges. */
static int64_t matmul_steps(const struct looptrace *lt, int64_t m, int64_t k, int64_t n)
{
	if (lt->variant == TRACE_UNROLLED)
		return product3(m, n, looptrace_unrolled_iters(k) + 1);
	return product3(m, n, k);
}

static struct looptrace *make_matmul(const struct tensor *ta, const struct tensor *tb, const char *label_a,
				     const char *label_b, enum trace_variant variant)
{
	int64_t m, k, k2, n;
	if (!first_matrix(ta, false, &m, &k) || !first_matrix(tb, true, &k2, &n) || k != k2)
		return NULL;
	int64_t loops = product3(m, n, k);
	if (loops <= 0 || loops > LOOPTRACE_MAX_ITERATIONS)
		return NULL;

	struct looptrace *lt = variant_new(TRACE_MATMUL, variant, ta->dtype == DT_F64);
	if (variant == TRACE_SIMD && lt->tile.gemm[lt->f64].loops)
		lt->variant = TRACE_LOOPS;   /* the scalar path runs kernel/loops.c's matmul */
	lt->m = m;
	lt->n = n;
	lt->k = k;
	lt->a_vec = ta->ndim == 1;
	lt->b_vec = tb->ndim == 1;
	slice_text(lt, ta->ndim > tb->ndim ? ta->ndim : tb->ndim);
	lt->a = copy_first(ta, m * k);
	lt->b = copy_first(tb, k * n);
	lt->res = xmalloc((size_t)(m * n) * sizeof *lt->res);
	if (lt->variant == TRACE_SIMD) {   /* the kernel's walk, and its sums */
		lt->total = looptrace_simd_matmul(lt);
		if (lt->total <= 0 || lt->total > LOOPTRACE_MAX_ITERATIONS) {
			looptrace_free(lt);
			return NULL;
		}
	} else {
		lt->total = matmul_steps(lt, m, k, n);
	}
	for (int64_t i = 0; i < m && lt->variant != TRACE_SIMD; i++) {
		for (int64_t j = 0; j < n; j++) {
			double s = 0.0, part[KERNEL_UNROLL];
			if (lt->variant == TRACE_UNROLLED) {
				looptrace_unrolled_dot(part, &lt->a[i * k], 1, &lt->b[j], n, k);
				s = looptrace_unrolled_merge(part);
			} else {
				for (int64_t p = 0; p < k; p++)
					s += lt->a[i * k + p] * lt->b[p * n + j];
			}
			lt->res[i * n + j] = s;
		}
	}
	lt->prefix = xmalloc((size_t)k * sizeof *lt->prefix);
	alloc_matrix(lt, m * n);

	code_name(lt->na, sizeof lt->na, label_a, "a");
	code_name(lt->nb, sizeof lt->nb, label_b, "b");
	snprintf(lt->nc, sizeof lt->nc, "%s", strcmp(lt->na, "c") && strcmp(lt->nb, "c") ? "c" : "out");
	if (lt->variant != TRACE_LOOPS) {
		variant_code(lt);
		looptrace_seek(lt, 0);
		return lt;
	}
	looptrace_add_line(lt, "%s = torch.zeros(%lld, %lld)", lt->nc, (long long)m, (long long)n);
	looptrace_add_line(lt, "for i in range(%lld):", (long long)m);
	looptrace_add_line(lt, "    for j in range(%lld):", (long long)n);
	looptrace_add_line(lt, "        s = 0");
	looptrace_add_line(lt, "        for p in range(%lld):", (long long)k);
	lt->ln.acc = looptrace_add_line(lt, "            s += %s%s * %s%s", lt->na, lt->a_vec ? "[p]" : "[i, p]", lt->nb,
			      lt->b_vec ? "[p]" : "[p, j]");
	lt->ln.store = looptrace_add_line(lt, "        %s[i, j] = s", lt->nc);
	looptrace_seek(lt, 0);
	return lt;
}

static struct looptrace *make_softmax(const struct tensor *tx, const char *label, enum trace_variant variant)
{
	int64_t rows, cols;
	if (!first_matrix(tx, false, &rows, &cols) || rows <= 0 || cols <= 0)
		return NULL;
	int64_t cells = product3(rows, cols, 1);
	if (cells < 0 || cells > LOOPTRACE_MAX_ITERATIONS)
		return NULL;

	struct looptrace *lt = variant_new(TRACE_SOFTMAX, variant, tx->dtype == DT_F64);
	if (variant == TRACE_SIMD && lt->sm_lanes == 1)
		lt->variant = TRACE_LOOPS;   /* the scalar path runs kernel/loops.c's softmax */
	lt->x = copy_first(tx, cells);
	lt->total = looptrace_rowsoft_init(&lt->sm, lt->x, rows, cols, lt->variant, softmax_width(lt));
	if (lt->total > LOOPTRACE_MAX_ITERATIONS) {
		looptrace_free(lt);
		return NULL;
	}
	slice_text(lt, tx->ndim);
	alloc_matrix(lt, cells);

	code_name(lt->na, sizeof lt->na, label, "x");
	snprintf(lt->ny, sizeof lt->ny, "%s", strcmp(lt->na, "y") ? "y" : "w");
	looptrace_add_line(lt, "%s = %s.clone()", lt->ny, lt->na);
	if (lt->variant != TRACE_LOOPS) {
		variant_code(lt);
		looptrace_seek(lt, 0);
		return lt;
	}
	looptrace_rowsoft_code(lt, lt->ny, "r", true);
	looptrace_seek(lt, 0);
	return lt;
}

/* Whether the mask hides (q_idx, k_idx): element of its first (mq, mk)
 * matrix, size-1 dims broadcast. */
static bool mask_at(const struct tensor *mask, int64_t mq, int64_t mk, int64_t qi, int64_t ki)
{
	return tensor_get(mask, (mq == 1 ? 0 : qi) * mk + (mk == 1 ? 0 : ki)) != 0;
}

static struct looptrace *make_attention(const struct tensor *tq, const struct tensor *tk, const struct tensor *tv,
					const struct tensor *mask, bool causal, double scale,
					const struct derivation *labels, enum trace_variant variant)
{
	int64_t m, d, n, d2, n2, dv, mq = 1, mk = 1;
	if (!first_matrix(tq, false, &m, &d) || !first_matrix(tk, false, &n, &d2) ||
	    !first_matrix(tv, false, &n2, &dv) || d != d2 || n != n2 || tq->ndim < 2 || tk->ndim < 2 ||
	    tv->ndim < 2)
		return NULL;
	if (mask && (!first_matrix(mask, false, &mq, &mk) || (mq != 1 && mq != m) || (mk != 1 && mk != n)))
		return NULL;
	int64_t cells = product3(m, n, 1), out_cells = product3(m, dv, 1);
	int64_t work = product3(m, n, d + dv);
	if (cells <= 0 || out_cells <= 0 || d <= 0 || work < 0 || cells > LOOPTRACE_MAX_ITERATIONS ||
	    out_cells > LOOPTRACE_MAX_ITERATIONS || work > LOOPTRACE_MAX_WORK)
		return NULL;

	struct looptrace *lt = variant_new(TRACE_ATTENTION, variant, tq->dtype == DT_F64);
	if (variant == TRACE_SIMD) {
		/* DERIV_ATTENTION comes from ops_attention, whose callers (lang's
		 * builtins.c, scaled_dot_product_attention, and fuse.c, a fused
		 * softmax(Q @ K.T) @ V) never ask for the weights: dispatch.c then
		 * runs a head through the per-head two-pass kernel exactly when
		 * tq·tk <= att_small, fused otherwise */
		lt->two_pass = cells <= lt->tile.att_small;
		if (lt->two_pass && lt->tile.att_loops)
			lt->variant = TRACE_LOOPS;   /* the scalar path: kernel/loops.c's attention */
		else if (lt->two_pass)
			looptrace_product_shape(lt, &lt->tile.att_gemm[lt->f64]);
	}
	lt->m = m;
	lt->n = n;
	lt->k = d;
	lt->dv = dv;
	lt->causal = causal;
	lt->has_mask = mask != NULL;
	lt->scale = scale;
	lt->scaled = scale != 1.0;
	slice_text(lt, tq->ndim);
	lt->a = copy_first(tq, m * d);
	lt->b = copy_first(tk, n * d);
	lt->v = copy_first(tv, n * dv);

	/* 1. scores: how well does each query match each key? */
	lt->hidden = xmalloc((size_t)cells);
	lt->scores = xmalloc((size_t)cells * sizeof *lt->scores);
	for (int64_t qi = 0; qi < m; qi++)
		for (int64_t ki = 0; ki < n; ki++)
			lt->hidden[qi * n + ki] = (causal && ki > qi) || (mask && mask_at(mask, mq, mk, qi, ki));
	bool two_pass = lt->variant == TRACE_SIMD && lt->two_pass;
	int64_t score_steps = two_pass ? looptrace_simd_scores(lt) : cells;   /* the tiles of q·kᵀ */
	for (int64_t at = 0; at < cells && !two_pass; at++) {
		int64_t qi = at / n, ki = at % n;
		if (lt->hidden[at]) {
			lt->scores[at] = -INFINITY;
			continue;
		}
		double similarity = 0.0, part[KERNEL_UNROLL];
		if (lt->variant == TRACE_UNROLLED) {
			looptrace_unrolled_dot(part, &lt->a[qi * d], 1, &lt->b[ki * d], 1, d);
			similarity = looptrace_unrolled_merge(part);
		} else {
			for (int64_t c = 0; c < d; c++)
				similarity += lt->a[qi * d + c] * lt->b[ki * d + c];
		}
		lt->scores[at] = similarity * scale;
	}
	lt->res = xmalloc((size_t)out_cells * sizeof *lt->res);
	if (lt->variant == TRACE_SIMD && !two_pass) {   /* fused: blocks and an online softmax */
		lt->prefix = xmalloc(sizeof *lt->prefix);
		alloc_matrix(lt, out_cells);
		looptrace_simd_attention(lt);
		if (lt->total > LOOPTRACE_MAX_ITERATIONS) {
			looptrace_free(lt);
			return NULL;
		}
		attention_names(lt, labels);
		variant_code(lt);
		looptrace_seek(lt, 0);
		return lt;
	}
	/* 2. softmax each row (two-pass: each row first scaled, its hidden keys -inf) */
	lt->sm_begin = lt->variant == TRACE_UNROLLED ? unrolled_score_steps(lt) : score_steps;
	lt->sm.pre = two_pass ? 1 : 0;
	lt->out_begin = lt->sm_begin + looptrace_rowsoft_init(&lt->sm, lt->scores, m, n, lt->variant, softmax_width(lt));
	/* 3. each output row is a weighted sum of all the value vectors (two-pass:
	 * the weights times v, in tiles) */
	int64_t out_steps = lt->variant == TRACE_UNROLLED ? m * (looptrace_unrolled_iters(n) + 1) : cells;
	if (two_pass)
		out_steps = looptrace_simd_out(lt);
	lt->total = lt->out_begin + out_steps;
	if (lt->total > LOOPTRACE_MAX_ITERATIONS) {
		looptrace_free(lt);
		return NULL;
	}
	if (lt->variant == TRACE_UNROLLED)
		lt->part_rows = xmalloc((size_t)(KERNEL_UNROLL * dv) * sizeof *lt->part_rows);
	for (int64_t row = 0; row < m && lt->variant == TRACE_UNROLLED; row++)
		looptrace_unrolled_out(lt, row, n, &lt->res[row * dv]);
	for (int64_t row = 0; row < m && lt->variant == TRACE_LOOPS; row++) {
		double *o = &lt->res[row * dv];
		for (int64_t c = 0; c < dv; c++)
			o[c] = 0.0;
		for (int64_t vi = 0; vi < n; vi++) {
			double w = looptrace_weight(&lt->sm, row, vi);
			for (int64_t c = 0; c < dv; c++)
				o[c] += w * lt->v[vi * dv + c];
		}
	}
	lt->prefix = xmalloc((size_t)(n * dv) * sizeof *lt->prefix);
	alloc_matrix(lt, cells > out_cells ? cells : out_cells);

	attention_names(lt, labels);
	if (lt->variant != TRACE_LOOPS) {
		variant_code(lt);
		looptrace_seek(lt, 0);
		return lt;
	}
	looptrace_add_line(lt, "# 1. scores: how well does each query match each key?");
	looptrace_add_line(lt, "att = torch.zeros(%lld, %lld)", (long long)m, (long long)n);
	looptrace_scale_line(lt);
	looptrace_add_line(lt, "for q_idx, q in enumerate(%s):", lt->na);
	looptrace_add_line(lt, "    for k_idx, k in enumerate(%s):", lt->nb);
	if (causal || mask) {
		lt->ln.if_hidden = looptrace_add_line(lt, "        if %s%s%s:", causal ? "k_idx > q_idx" : "",
					    causal && mask ? " or " : "", mask ? "mask[q_idx, k_idx]" : "");
		lt->ln.set_inf = looptrace_add_line(lt, "            att[q_idx, k_idx] = float('-inf')");
		lt->ln.skip = looptrace_add_line(lt, "            continue");
	}
	lt->ln.dot = looptrace_add_line(lt, "        att[q_idx, k_idx] = torch.dot(q, k)%s", lt->scaled ? " * scale" : "");
	looptrace_add_line(lt, "# 2. softmax each row, so each query's weights sum to 1");
	looptrace_rowsoft_code(lt, "att", "row", false);
	looptrace_add_line(lt, "# 3. each output row is a weighted sum of all the value vectors");
	looptrace_add_line(lt, "out = torch.zeros(%lld, %lld)", (long long)m, (long long)dv);
	looptrace_add_line(lt, "for row, a in enumerate(att):");
	looptrace_add_line(lt, "    for v_idx, v in enumerate(%s):", lt->nc);
	lt->ln.out = looptrace_add_line(lt, "        out[row] += a[v_idx] * v");
	looptrace_seek(lt, 0);
	return lt;
}

struct looptrace *looptrace_matmul(const struct tensor *a, const struct tensor *b)
{
	return make_matmul(a, b, NULL, NULL, TRACE_LOOPS);
}

struct looptrace *looptrace_softmax(const struct tensor *x)
{
	return make_softmax(x, NULL, TRACE_LOOPS);
}

struct looptrace *looptrace_attention(const struct tensor *q, const struct tensor *k, const struct tensor *v,
				      const struct tensor *mask, bool causal, double scale)
{
	return make_attention(q, k, v, mask, causal, scale, NULL, TRACE_LOOPS);
}

struct looptrace *looptrace_for(const struct tensor *t)
{
	return looptrace_for_variant(t, TRACE_LOOPS);
}

struct looptrace *looptrace_for_variant(const struct tensor *t, enum trace_variant v)
{
	const struct derivation *d = t ? t->from : NULL;
	if (!d || !d->a)
		return NULL;
	switch (d->kind) {
	case DERIV_MATMUL:
		return d->b ? make_matmul(d->a, d->b, d->label_a, d->label_b, v) : NULL;
	case DERIV_SOFTMAX:
		if (d->a->ndim == 0 || (d->dim != -1 && d->dim != d->a->ndim - 1))
			return NULL;
		return make_softmax(d->a, d->label_a, v);
	case DERIV_ATTENTION: {
		/* a mask (true = masked) rides in inner as a masked_fill with b = mask */
		const struct derivation *in = d->inner;
		const struct tensor *mask = in && in->kind == DERIV_MASKED_FILL ? in->b : NULL;
		if (!d->b || !d->c)
			return NULL;
		return make_attention(d->a, d->b, d->c, mask, d->causal, d->scalar, d, v);
	}
	case DERIV_SCALE:
	case DERIV_MASKED_FILL:
		return NULL;
	}
	return NULL;
}

void looptrace_free(struct looptrace *lt)
{
	if (!lt)
		return;
	for (int i = 0; i < lt->nlines; i++)
		free(lt->lines[i]);
	free(lt->lines);
	free(lt->a);
	free(lt->b);
	free(lt->v);
	free(lt->res);
	free(lt->scores);
	free(lt->hidden);
	free(lt->x);
	looptrace_rowsoft_free(&lt->sm);
	free(lt->prefix);
	free(lt->cell_start);
	free(lt->part_rows);
	free(lt->blk_start);
	free(lt->blk_acc);
	free(lt->blk_m);
	free(lt->blk_l);
	free(lt->blk_alpha);
	looptrace_gemm_free(&lt->gw[0]);
	looptrace_gemm_free(&lt->gw[1]);
	free(lt->wts);
	free(lt->values);
	free(lt->state);
	free(lt);
}
