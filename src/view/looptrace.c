/* looptrace.c: the loops of a matmul, a row softmax or an attention (seed 003,
 * kernel/loops.c) one iteration at a time, for the ui's "loops beside
 * vectorised" view. Copies the operands to doubles at creation; seek rewrites
 * only the cells that change. Never draws, prints or allocates after creation;
 * a text cut to a buffer never ends in half a character (core/utf8). */
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

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

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

/* The i with start[i] <= t < start[i + 1], for start[0..n-1] ascending. */
int64_t looptrace_find(const int64_t *start, int64_t n, int64_t t)
{
	int64_t lo = 0, hi = n - 1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;
		if (start[mid] <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
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
static int64_t rowsoft_init(struct rowsoft *sm, const double *x, int64_t rows, int64_t cols,
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
			sm->start[r + 1] = sm->start[r] + ch + sm->merges + 1;
			continue;
		}
		/* 2. exponentiate the shifted entries and add them up; 3. divide */
		sm->sum[r] = rowsoft_sum(sm, row, max, cols);
		sm->start[r + 1] = sm->start[r] + 3 * ch + 2 * sm->merges;
	}
	return sm->start[rows];
}

static void rowsoft_free(struct rowsoft *sm)
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
static struct step rowsoft_decode(const struct rowsoft *sm, int64_t li)
{
	int64_t lo = looptrace_find(sm->start, sm->rows, li);
	int64_t off = li - sm->start[lo], ch = rowsoft_chunks(sm), mg = sm->merges;
	struct step s = { ST_MAX, lo, 0, 0, 1, false };
	if (off < ch) {
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

static void rowsoft_cell(const struct rowsoft *sm, struct step s, int64_t idx, double *v, uint8_t *st)
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
static void rowsoft_code(struct looptrace *lt, const char *y, const char *r, bool comments)
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

/* A new trace of variant v: for simd, with the shapes of the path in use. */
static struct looptrace *variant_new(enum trace_kind kind, enum trace_variant v)
{
	struct looptrace *lt = trace_new(kind);
	lt->variant = v;
	kernel_simd_tile(&lt->tile);
	if (lt->tile.lanes < 1)
		lt->tile.lanes = 1;
	if (lt->tile.tile_rows < 1)
		lt->tile.tile_rows = 1;
	if (lt->tile.tile_cols < lt->tile.lanes)
		lt->tile.tile_cols = lt->tile.lanes;
	if (lt->tile.att_rows < 1)
		lt->tile.att_rows = 1;
	if (lt->tile.att_keys < 1)
		lt->tile.att_keys = 1;
	lt->sm_lanes = lt->tile.softmax_lanes > 0 ? lt->tile.softmax_lanes : lt->tile.lanes;
	lt->blk_i0 = lt->blk_next = -1;
	return lt;
}

/* The steps of a matmul in variant v: multiply-adds, iterations and merges,
 * or one p across a register tile. */
static int64_t matmul_steps(const struct looptrace *lt, int64_t m, int64_t k, int64_t n)
{
	switch (lt->variant) {
	case TRACE_UNROLLED:
		return product3(m, n, looptrace_unrolled_iters(k) + 1);
	case TRACE_SIMD: {
		int64_t tr = lt->tile.tile_rows, tc = lt->tile.tile_cols;
		return product3((m + tr - 1) / tr, (n + tc - 1) / tc, k);
	}
	case TRACE_LOOPS:
		break;
	}
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

	struct looptrace *lt = variant_new(TRACE_MATMUL, variant);
	int64_t total = matmul_steps(lt, m, k, n);
	lt->m = m;
	lt->n = n;
	lt->k = k;
	lt->total = total;
	lt->a_vec = ta->ndim == 1;
	lt->b_vec = tb->ndim == 1;
	slice_text(lt, ta->ndim > tb->ndim ? ta->ndim : tb->ndim);
	lt->a = copy_first(ta, m * k);
	lt->b = copy_first(tb, k * n);
	lt->res = xmalloc((size_t)(m * n) * sizeof *lt->res);
	for (int64_t i = 0; i < m; i++) {
		for (int64_t j = 0; j < n; j++) {
			double s = 0.0, part[KERNEL_UNROLL];
			if (variant == TRACE_UNROLLED) {
				looptrace_unrolled_dot(part, &lt->a[i * k], 1, &lt->b[j], n, k);
				s = looptrace_unrolled_merge(part);
			} else {   /* the simd tile sums p in order too */
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
	if (variant != TRACE_LOOPS) {
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

	struct looptrace *lt = variant_new(TRACE_SOFTMAX, variant);
	lt->x = copy_first(tx, cells);
	lt->total = rowsoft_init(&lt->sm, lt->x, rows, cols, variant, softmax_width(lt));
	if (lt->total > LOOPTRACE_MAX_ITERATIONS) {
		looptrace_free(lt);
		return NULL;
	}
	slice_text(lt, tx->ndim);
	alloc_matrix(lt, cells);

	code_name(lt->na, sizeof lt->na, label, "x");
	snprintf(lt->ny, sizeof lt->ny, "%s", strcmp(lt->na, "y") ? "y" : "w");
	looptrace_add_line(lt, "%s = %s.clone()", lt->ny, lt->na);
	if (variant != TRACE_LOOPS) {
		variant_code(lt);
		looptrace_seek(lt, 0);
		return lt;
	}
	rowsoft_code(lt, lt->ny, "r", true);
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

	struct looptrace *lt = variant_new(TRACE_ATTENTION, variant);
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
	for (int64_t qi = 0; qi < m; qi++) {
		for (int64_t ki = 0; ki < n; ki++) {
			int64_t at = qi * n + ki;
			lt->hidden[at] = (causal && ki > qi) || (mask && mask_at(mask, mq, mk, qi, ki));
			if (lt->hidden[at]) {
				lt->scores[at] = -INFINITY;
				continue;
			}
			double similarity = 0.0, part[KERNEL_UNROLL];
			if (variant == TRACE_UNROLLED) {
				looptrace_unrolled_dot(part, &lt->a[qi * d], 1, &lt->b[ki * d], 1, d);
				similarity = looptrace_unrolled_merge(part);
			} else {
				for (int64_t c = 0; c < d; c++)
					similarity += lt->a[qi * d + c] * lt->b[ki * d + c];
			}
			lt->scores[at] = similarity * scale;
		}
	}
	lt->res = xmalloc((size_t)out_cells * sizeof *lt->res);
	if (variant == TRACE_SIMD) {   /* fused: blocks and an online softmax */
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
	/* 2. softmax each row */
	lt->sm_begin = variant == TRACE_UNROLLED ? unrolled_score_steps(lt) : cells;
	lt->out_begin = lt->sm_begin + rowsoft_init(&lt->sm, lt->scores, m, n, variant, softmax_width(lt));
	lt->total = lt->out_begin + (variant == TRACE_UNROLLED ? m * (looptrace_unrolled_iters(n) + 1) : cells);
	if (lt->total > LOOPTRACE_MAX_ITERATIONS) {
		looptrace_free(lt);
		return NULL;
	}
	/* 3. each output row is a weighted sum of all the value vectors */
	if (variant == TRACE_UNROLLED)
		lt->part_rows = xmalloc((size_t)(KERNEL_UNROLL * dv) * sizeof *lt->part_rows);
	for (int64_t row = 0; row < m && variant == TRACE_UNROLLED; row++)
		looptrace_unrolled_out(lt, row, n, &lt->res[row * dv]);
	for (int64_t row = 0; row < m && variant == TRACE_LOOPS; row++) {
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
	if (variant != TRACE_LOOPS) {
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
	rowsoft_code(lt, "att", "row", false);
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
	rowsoft_free(&lt->sm);
	free(lt->prefix);
	free(lt->cell_start);
	free(lt->part_rows);
	free(lt->blk_start);
	free(lt->blk_acc);
	free(lt->blk_m);
	free(lt->blk_l);
	free(lt->blk_alpha);
	free(lt->values);
	free(lt->state);
	free(lt);
}

/* ---- positions --------------------------------------------------------- */

/* The step of the iteration that brought the trace to position t. */
static struct step decode(const struct looptrace *lt, int64_t t)
{
	struct step s = { ST_NONE, 0, 0, 0, 1, false };
	if (t <= 0)
		return s;
	int64_t it = t - 1;
	if (lt->variant == TRACE_SIMD && lt->kind != TRACE_SOFTMAX)
		return looptrace_simd_decode(lt, it);
	if (lt->variant == TRACE_UNROLLED && lt->kind != TRACE_SOFTMAX &&
	    (lt->kind == TRACE_MATMUL || it < lt->sm_begin || it >= lt->out_begin))
		return looptrace_unrolled_decode(lt, it);
	switch (lt->kind) {
	case TRACE_MATMUL:
		s.kind = ST_MATMUL;
		s.p = it % lt->k;
		s.c = it / lt->k % lt->n;
		s.r = it / lt->k / lt->n;
		break;
	case TRACE_SOFTMAX:
		s = rowsoft_decode(&lt->sm, it);
		break;
	case TRACE_ATTENTION:
		if (it < lt->sm_begin) {
			s.kind = ST_SCORE;
			s.r = it / lt->n;
			s.c = it % lt->n;
			s.w = lt->k;
		} else if (it < lt->out_begin) {
			s = rowsoft_decode(&lt->sm, it - lt->sm_begin);
		} else {
			s.kind = ST_OUT;
			s.r = (it - lt->out_begin) / lt->n;
			s.c = (it - lt->out_begin) % lt->n;
		}
		break;
	}
	return s;
}

static enum group group_of(const struct looptrace *lt, struct step s)
{
	switch (s.kind) {
	case ST_NONE:
		if (lt->kind == TRACE_ATTENTION && lt->variant == TRACE_SIMD)
			return G_FUSED;
		return lt->kind == TRACE_MATMUL ? G_MATMUL : lt->kind == TRACE_SOFTMAX ? G_SOFTMAX : G_SCORES;
	case ST_MATMUL:
	case ST_TILE:
		return G_MATMUL;
	case ST_BLOCK:
		return G_FUSED;
	case ST_SCORE:
		return G_SCORES;
	case ST_OUT:
		return G_OUT;
	case ST_MAX:
	case ST_ZERO:
	case ST_EXP:
	case ST_DIV:
		break;
	}
	return G_SOFTMAX;
}

/* Makes prefix hold the running sums of the cell or output row of s, in the
 * order the loops add them (so the last one equals res bit for bit). */
static void load_prefix(struct looptrace *lt, struct step s)
{
	lt->npart = 0;
	if (lt->variant == TRACE_UNROLLED) {
		looptrace_unrolled_load(lt, s);
		return;
	}
	if (lt->variant == TRACE_SIMD) {
		looptrace_simd_load(lt, s);
		return;
	}
	if (s.kind == ST_MATMUL) {
		int64_t unit = s.r * lt->n + s.c;
		if (unit == lt->prefix_unit)
			return;
		double sum = 0.0;
		for (int64_t p = 0; p < lt->k; p++) {
			sum += lt->a[s.r * lt->k + p] * lt->b[p * lt->n + s.c];
			lt->prefix[p] = sum;
		}
		lt->prefix_unit = unit;
	} else if (s.kind == ST_OUT) {
		if (s.r == lt->prefix_unit)
			return;
		for (int64_t vi = 0; vi < lt->n; vi++) {
			double w = looptrace_weight(&lt->sm, s.r, vi);
			const double *prev = vi ? &lt->prefix[(vi - 1) * lt->dv] : NULL;
			for (int64_t c = 0; c < lt->dv; c++)
				lt->prefix[vi * lt->dv + c] = (prev ? prev[c] : 0.0) + w * lt->v[vi * lt->dv + c];
		}
		lt->prefix_unit = s.r;
	}
}

/* Cell idx of group g's matrix after step s. */
/* The unrolled partial sums of the current cell or output entry, merged. */
static double part_merged(const struct looptrace *lt, int64_t col)
{
	double s[KERNEL_UNROLL];
	for (int u = 0; u < KERNEL_UNROLL; u++)
		s[u] = col < 0 ? lt->part[u] : lt->part_rows[u * lt->dv + col];
	return looptrace_unrolled_merge(s);
}

/* Cell idx of the matrix after step s, for the variants other than loops. */
static void cell_variant(const struct looptrace *lt, enum group g, struct step s, int64_t idx, double *v,
			 uint8_t *st)
{
	int64_t cur = s.kind == ST_NONE ? -1 : s.r * lt->n + s.c;
	*v = 0.0;
	*st = 0;
	switch (g) {
	case G_MATMUL:
		if (lt->variant == TRACE_SIMD) {
			int64_t i = idx / lt->n, j = idx % lt->n, tr = lt->tile.tile_rows, tc = lt->tile.tile_cols;
			int64_t tiles_r = (lt->m + tr - 1) / tr;
			int64_t tile = j / tc * tiles_r + i / tr, ctile = s.c / tc * tiles_r + s.r / tr;
			if (s.kind == ST_NONE || tile > ctile)
				return;
			if (tile < ctile || s.merge) {
				*v = lt->res[idx];
				*st = 2;
				return;
			}
			double sum = 0.0;   /* the accumulator's lane: p = 0 .. s.p */
			for (int64_t p = 0; p <= s.p; p++)
				sum += lt->a[i * lt->k + p] * lt->b[p * lt->n + j];
			*v = sum;
			*st = 1;
			return;
		}
		if (idx < cur || (idx == cur && s.merge)) {
			*v = lt->res[idx];
			*st = 2;
		} else if (idx == cur) {
			*v = part_merged(lt, -1);
			*st = 1;
		}
		return;
	case G_SCORES:
		if (idx < cur || (idx == cur && (s.merge || lt->hidden[idx]))) {
			*v = lt->scores[idx];
			*st = 2;
		} else if (idx == cur) {
			*v = part_merged(lt, -1);
			*st = 1;
		}
		return;
	case G_SOFTMAX:
		rowsoft_cell(&lt->sm, s, idx, v, st);
		return;
	case G_OUT: {
		int64_t r = idx / lt->dv;
		if (s.kind != ST_NONE && (r < s.r || (r == s.r && s.merge))) {
			*v = lt->res[idx];
			*st = 2;
		} else if (s.kind != ST_NONE && r == s.r) {
			*v = part_merged(lt, idx % lt->dv);
			*st = 1;
		}
		return;
	}
	case G_FUSED: {
		int64_t r = idx / lt->dv;
		if (s.kind == ST_NONE || r >= s.r + lt->tile.att_rows)
			return;
		if (r < s.r || s.merge) {
			*v = lt->res[idx];
			*st = 2;
		} else {
			*v = lt->blk_acc[(r - s.r) * lt->dv + idx % lt->dv];
			*st = 1;
		}
		return;
	}
	}
}

/* Cell idx of group g's matrix after step s. */
static void cell_at(const struct looptrace *lt, enum group g, struct step s, int64_t idx, double *v, uint8_t *st)
{
	int64_t cur = s.kind == ST_NONE ? -1 : s.r * lt->n + s.c;
	if (lt->variant != TRACE_LOOPS) {
		cell_variant(lt, g, s, idx, v, st);
		return;
	}
	switch (g) {
	case G_MATMUL:
		if (idx < cur || (idx == cur && s.p == lt->k - 1)) {
			*v = lt->res[idx];
			*st = 2;
		} else if (idx == cur) {
			*v = lt->prefix[s.p];
			*st = 1;
		} else {
			*v = 0.0;
			*st = 0;
		}
		return;
	case G_SCORES:
		*v = idx <= cur ? lt->scores[idx] : 0.0;
		*st = idx <= cur ? 2 : 0;
		return;
	case G_SOFTMAX:
		rowsoft_cell(&lt->sm, s, idx, v, st);
		return;
	case G_OUT: {
		int64_t r = idx / lt->dv, c = idx % lt->dv;
		if (r < s.r || (r == s.r && s.c == lt->n - 1)) {
			*v = lt->res[idx];
			*st = 2;
		} else if (r == s.r) {
			*v = lt->prefix[s.c * lt->dv + c];
			*st = 1;
		} else {
			*v = 0.0;
			*st = 0;
		}
		return;
	}
	case G_FUSED:
		return;
	}
}

/* The cells [lo, hi) of group g's matrix that may differ between steps a
 * and b: those between the two frontiers. */
static void changed_cells(const struct looptrace *lt, enum group g, struct step a, struct step b, int64_t *lo,
			  int64_t *hi)
{
	int64_t ra = a.kind == ST_NONE ? 0 : a.r, rb = b.kind == ST_NONE ? 0 : b.r;
	int64_t ca = a.kind == ST_NONE ? 0 : a.c, cb = b.kind == ST_NONE ? 0 : b.c;
	switch (g) {
	case G_MATMUL:
	case G_SCORES:
		*lo = min64(ra * lt->n + ca, rb * lt->n + cb);
		*hi = max64(ra * lt->n + ca, rb * lt->n + cb) + 1;
		return;
	case G_SOFTMAX: {
		int64_t cols = lt->sm.cols;
		if (a.kind == b.kind && a.kind != ST_NONE && ra == rb) {
			*lo = ra * cols + min64(ca, cb);
			*hi = ra * cols + max64(ca + a.w, cb + b.w);
		} else {
			*lo = min64(ra, rb) * cols;
			*hi = (max64(ra, rb) + 1) * cols;
		}
		return;
	}
	case G_OUT:
		*lo = min64(ra, rb) * lt->dv;
		*hi = (max64(ra, rb) + 1) * lt->dv;
		return;
	case G_FUSED:
		*lo = min64(ra, rb) * lt->dv;
		*hi = min64(max64(ra, rb) + lt->tile.att_rows, lt->m) * lt->dv;
		return;
	}
}

/* The simd matmul's cells of the tiles between steps a and b. */
static void seek_tiles(struct looptrace *lt, struct step a, struct step b)
{
	int64_t tr = lt->tile.tile_rows, tc = lt->tile.tile_cols, tiles_r = (lt->m + tr - 1) / tr;
	int64_t ta = a.kind == ST_NONE ? 0 : a.c / tc * tiles_r + a.r / tr;
	int64_t tb = b.kind == ST_NONE ? 0 : b.c / tc * tiles_r + b.r / tr;
	for (int64_t t = min64(ta, tb); t <= max64(ta, tb); t++) {
		int64_t r0 = t % tiles_r * tr, c0 = t / tiles_r * tc;
		for (int64_t i = r0; i < min64(r0 + tr, lt->m); i++)
			for (int64_t j = c0; j < min64(c0 + tc, lt->n); j++)
				cell_at(lt, G_MATMUL, b, i * lt->n + j, &lt->values[i * lt->n + j], &lt->state[i * lt->n + j]);
	}
}

void looptrace_seek(struct looptrace *lt, int64_t t)
{
	if (t < 0)
		t = 0;
	if (t > lt->total)
		t = lt->total;
	struct step s = decode(lt, t);
	enum group g = group_of(lt, s);
	load_prefix(lt, s);
	int64_t lo, hi;
	if (lt->shown_valid && g == lt->shown && g == G_MATMUL && lt->variant == TRACE_SIMD) {
		seek_tiles(lt, lt->cur, s);
		lo = hi = 0;
	} else if (lt->shown_valid && g == lt->shown) {
		changed_cells(lt, g, lt->cur, s, &lo, &hi);
	} else {
		/* a new phase: its matrix from scratch */
		int64_t rows = lt->m, cols = g == G_OUT || g == G_FUSED ? lt->dv : lt->n;
		if (lt->kind == TRACE_SOFTMAX) {
			rows = lt->sm.rows;
			cols = lt->sm.cols;
		}
		lt->rows = (int)rows;
		lt->cols = (int)cols;
		lt->shown = g;
		lt->shown_valid = true;
		lo = 0;
		hi = rows * cols;
	}
	for (int64_t i = lo; i < hi; i++)
		cell_at(lt, g, s, i, &lt->values[i], &lt->state[i]);
	lt->cur = s;
	lt->pos = t;
}

enum trace_kind looptrace_kind(const struct looptrace *lt)
{
	return lt->kind;
}

int64_t looptrace_total(const struct looptrace *lt)
{
	return lt->total;
}

int64_t looptrace_pos(const struct looptrace *lt)
{
	return lt->pos;
}

void looptrace_phase_bounds(const struct looptrace *lt, int64_t *first, int64_t *last)
{
	*first = 0;
	*last = lt->total;
	if (lt->kind != TRACE_ATTENTION)
		return;
	switch (lt->shown) {
	case G_SCORES:
		*last = lt->sm_begin;
		break;
	case G_SOFTMAX:
		*first = lt->sm_begin + 1;
		*last = lt->out_begin;
		break;
	case G_OUT:
		*first = lt->out_begin + 1;
		break;
	case G_MATMUL:
	case G_FUSED:
		break;
	}
}

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
	char tiled[96];
	switch (lt->shown) {
	case G_MATMUL:
		what = "sums of products, one cell at a time";
		if (lt->variant == TRACE_SIMD) {
			utf8_snprintf(tiled, sizeof tiled, "sums of products, a %d\u00d7%d tile at a time",
				      lt->tile.tile_rows, lt->tile.tile_cols);
			what = tiled;
		}
		break;
	case G_FUSED: what = "blocks of queries against blocks of keys, an online softmax"; break;
	case G_SCORES: what = "the scores, one per query and key"; break;
	case G_SOFTMAX:
		what = lt->kind == TRACE_SOFTMAX ? "the rows turning into weights, one by one" :
		       "the scores turning into weights, row by row";
		break;
	case G_OUT: what = "each row a weighted sum of the value rows"; break;
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
	*col = s.kind == ST_ZERO || s.kind == ST_OUT || s.kind == ST_BLOCK || (s.merge && s.kind != ST_MATMUL &&
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
		utf8_snprintf(buf, size, "i0 = %lld, j0 = %lld, p = %lld", r, c, (long long)s.p);
		break;
	case ST_BLOCK:
		utf8_snprintf(buf, size, "i0 = %lld, j0 = %lld", r, c);
		break;
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

static void explain_softmax(const struct looptrace *lt, struct step s, char *buf, size_t size)
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
		explain_softmax(lt, s, buf, size);
		return;
	case ST_OUT:
		explain_out(lt, s, buf, size);
		return;
	case ST_TILE:
	case ST_BLOCK:
		utf8_snprintf(buf, size, "%s", "");
		return;
	}
}

void looptrace_matrix(const struct looptrace *lt, int *rows, int *cols, const double **values,
		      const uint8_t **state)
{
	*rows = lt->rows;
	*cols = lt->cols;
	*values = lt->values;
	*state = lt->state;
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
