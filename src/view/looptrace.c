/* looptrace.c: the loops of a matmul, a row softmax or an attention (seed 003,
 * kernel/loops.c) one iteration at a time, for the ui's "loops beside
 * vectorised" view. Copies the operands to doubles at creation; seek rewrites
 * only the cells that change. Never draws, prints or allocates after creation;
 * a text cut to a buffer never ends in half a character (core/utf8). */
#include "view/looptrace.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 40

/* What an iteration does: its statement and its indices. */
enum step_kind {
	ST_NONE,    /* pos 0: nothing has run */
	ST_MATMUL,  /* s += a[i, p] * b[p, j]     r = i, c = j, p */
	ST_SCORE,   /* att[q_idx, k_idx] = ...    r = q_idx, c = k_idx */
	ST_MAX,     /* the max pass of a row      r = row, c = j */
	ST_ZERO,    /* a row of -inf zeroed       r = row */
	ST_EXP,     /* exp and sum                r = row, c = j */
	ST_DIV,     /* divide by the sum          r = row, c = j */
	ST_OUT,     /* out[row] += a[v_idx] * v   r = row, c = v_idx */
};

struct step {
	enum step_kind kind;
	int64_t r, c, p;
};

/* The phases, each with its own matrix (or its own meaning of it). */
enum group { G_MATMUL, G_SCORES, G_SOFTMAX, G_OUT };

/* The row softmax of kernel/loops.c over x (rows, cols), precomputed:
 * each row's max and sum, and where its iterations start. */
struct rowsoft {
	int64_t rows, cols;
	const double *x;
	double *max, *sum;
	int64_t *start;      /* rows + 1 entries; start[rows] = iterations in all */
	bool any_zero_row;   /* a row of -inf only (it gets zeroed) */
};

struct looptrace {
	enum trace_kind kind;
	int64_t total, pos;
	char slice[32];

	char **lines;
	int nlines;
	struct {
		int acc, store;                      /* matmul */
		int if_hidden, set_inf, skip, dot;   /* scores */
		int max, if_zero, zero, zskip;       /* softmax */
		int exp, sum, div;
		int out;                             /* weighted sum */
	} ln;
	char na[64], nb[64], nc[64], ny[8];      /* operand and result names in the code */

	/* matmul: a (m,k), b (k,n), c (m,n); attention: q (m,k), keys (n,k),
	 * values (n,dv), att (m,n), out (m,dv) */
	int64_t m, n, k, dv;
	double *a, *b, *v;
	bool a_vec, b_vec;    /* a 1-D operand of a matmul */
	double *res;          /* matmul: c; attention: out */
	double *scores;       /* attention: att after the scores */
	uint8_t *hidden;      /* attention: keys a query may not see */
	bool causal, has_mask, scaled;
	double scale;
	struct rowsoft sm;    /* softmax: of x; attention: of the scores */
	double *x;            /* softmax: the input */
	int64_t sm_begin, out_begin;   /* first iteration of each pass */

	/* partial sums of the current matmul cell (k) or output row (n x dv) */
	double *prefix;
	int64_t prefix_unit;

	/* what looptrace_matrix shows */
	enum group shown;
	bool shown_valid;
	int rows, cols;
	double *values;
	uint8_t *state;
	struct step cur;
};

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

static int add_line(struct looptrace *lt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int add_line(struct looptrace *lt, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	utf8_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (lt->nlines >= MAX_LINES)
		return lt->nlines - 1;
	lt->lines[lt->nlines] = xstrdup(buf);
	return lt->nlines++;
}

/* A new trace with its line table; the caller fills the rest. */
static struct looptrace *trace_new(enum trace_kind kind)
{
	struct looptrace *lt = xcalloc(1, sizeof *lt);
	lt->kind = kind;
	lt->lines = xcalloc(MAX_LINES, sizeof *lt->lines);
	lt->prefix_unit = -1;
	memset(&lt->ln, -1, sizeof lt->ln);   /* every line index -1: not in this code */
	return lt;
}

/* Numbers in explanations: 4 decimals, or 4 significant digits in
 * scientific notation when very large or small. */
static const char *num(char *buf, size_t size, double v)
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
static void vec_text(char *buf, size_t size, const double *v, int64_t count)
{
	size_t len = (size_t)utf8_snprintf(buf, size, "[");
	for (int64_t i = 0; i < count && i < 3 && len < size; i++) {
		char nb[32];
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", num(nb, sizeof nb, v[i]));
	}
	if (len < size)
		utf8_snprintf(buf + len, size - len, "%s]", count > 3 ? ", \u2026" : "");
}

/* ---- the row softmax --------------------------------------------------- */

/* kernel/loops.c's passes over every row, keeping each row's max and sum;
 * returns the iterations in all. */
static int64_t rowsoft_init(struct rowsoft *sm, const double *x, int64_t rows, int64_t cols)
{
	sm->x = x;
	sm->rows = rows;
	sm->cols = cols;
	sm->max = xmalloc((size_t)rows * sizeof *sm->max);
	sm->sum = xmalloc((size_t)rows * sizeof *sm->sum);
	sm->start = xmalloc((size_t)(rows + 1) * sizeof *sm->start);
	sm->start[0] = 0;
	for (int64_t r = 0; r < rows; r++) {
		const double *row = &x[r * cols];
		/* 1. the largest entry of the row (a NaN, once seen, sticks) */
		double max = -INFINITY;
		for (int64_t j = 0; j < cols; j++)
			if (row[j] > max || row[j] != row[j])
				max = row[j];
		sm->max[r] = max;
		/* a row of -inf only: one more iteration fills it with nan (0/0) */
		if (max == -INFINITY) {
			sm->sum[r] = 0;
			sm->any_zero_row = true;
			sm->start[r + 1] = sm->start[r] + cols + 1;
			continue;
		}
		/* 2. exponentiate the shifted entries and add them up; 3. divide */
		double sum = 0.0;
		for (int64_t j = 0; j < cols; j++)
			sum += exp(row[j] - max);
		sm->sum[r] = sum;
		sm->start[r + 1] = sm->start[r] + 3 * cols;
	}
	return sm->start[rows];
}

static void rowsoft_free(struct rowsoft *sm)
{
	free(sm->max);
	free(sm->sum);
	free(sm->start);
}

/* The step of iteration li (0-based) of the softmax passes. */
static struct step rowsoft_decode(const struct rowsoft *sm, int64_t li)
{
	int64_t lo = 0, hi = sm->rows - 1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo + 1) / 2;
		if (sm->start[mid] <= li)
			lo = mid;
		else
			hi = mid - 1;
	}
	int64_t off = li - sm->start[lo];
	struct step s = { ST_MAX, lo, off, 0 };
	if (off >= sm->cols) {
		if (sm->max[lo] == -INFINITY) {
			s.kind = ST_ZERO;
			s.c = 0;
		} else {
			s.kind = off / sm->cols == 1 ? ST_EXP : ST_DIV;
			s.c = off % sm->cols;
		}
	}
	return s;
}

static double rowsoft_exp(const struct rowsoft *sm, int64_t r, int64_t j)
{
	return exp(sm->x[r * sm->cols + j] - sm->max[r]);
}

static double rowsoft_weight(const struct rowsoft *sm, int64_t r, int64_t j)
{
	if (sm->max[r] == -INFINITY)
		return NAN;	/* every exp is 0: 0/0, as torch gives */
	return rowsoft_exp(sm, r, j) / sm->sum[r];
}

static void rowsoft_cell(const struct rowsoft *sm, struct step s, int64_t idx, double *v, uint8_t *st)
{
	int64_t r = idx / sm->cols, j = idx % sm->cols;
	double x = sm->x[idx];
	if (s.kind == ST_NONE || r > s.r) {
		*v = x;
		*st = 0;
	} else if (r < s.r) {
		*v = rowsoft_weight(sm, r, j);
		*st = 2;
	} else if (s.kind == ST_MAX) {
		*v = x;
		*st = j <= s.c ? 1 : 0;
	} else if (s.kind == ST_ZERO) {
		*v = NAN;
		*st = 2;
	} else if (s.kind == ST_EXP) {
		*v = j <= s.c ? rowsoft_exp(sm, r, j) : x;
		*st = j <= s.c ? 1 : 0;
	} else {   /* ST_DIV */
		*v = j <= s.c ? rowsoft_weight(sm, r, j) : rowsoft_exp(sm, r, j);
		*st = j <= s.c ? 2 : 1;
	}
}

/* The code of the passes, over matrix y in place, rows named by r. */
static void rowsoft_code(struct looptrace *lt, const char *y, const char *r, bool comments)
{
	const struct rowsoft *sm = &lt->sm;
	add_line(lt, "for %s in range(%lld):", r, (long long)sm->rows);
	if (comments)
		add_line(lt, "    # 1. the largest entry of the row");
	add_line(lt, "    max = float('-inf')");
	add_line(lt, "    for j in range(%lld):", (long long)sm->cols);
	lt->ln.max = add_line(lt, "        if %s[%s, j] > max: max = %s[%s, j]", y, r, y, r);
	if (sm->any_zero_row) {
		lt->ln.if_zero = add_line(lt, "    if max == float('-inf'):  # a row of -inf only");
		lt->ln.zero = add_line(lt, "        %s[%s] = float('nan')  # 0/0: every exp is 0", y, r);
		lt->ln.zskip = add_line(lt, "        continue");
	}
	if (comments)
		add_line(lt, "    # 2. exponentiate the shifted entries and add them up");
	add_line(lt, "    sum = 0");
	add_line(lt, "    for j in range(%lld):", (long long)sm->cols);
	lt->ln.exp = add_line(lt, "        %s[%s, j] = exp(%s[%s, j] - max)", y, r, y, r);
	lt->ln.sum = add_line(lt, "        sum += %s[%s, j]", y, r);
	if (comments)
		add_line(lt, "    # 3. divide so the row sums to 1");
	add_line(lt, "    for j in range(%lld):", (long long)sm->cols);
	lt->ln.div = add_line(lt, "        %s[%s, j] = %s[%s, j] / sum", y, r, y, r);
}

/* ---- creation ---------------------------------------------------------- */

static void alloc_matrix(struct looptrace *lt, int64_t cells)
{
	lt->values = xmalloc((size_t)cells * sizeof *lt->values);
	lt->state = xmalloc((size_t)cells * sizeof *lt->state);
}

static struct looptrace *make_matmul(const struct tensor *ta, const struct tensor *tb, const char *label_a,
				     const char *label_b)
{
	int64_t m, k, k2, n;
	if (!first_matrix(ta, false, &m, &k) || !first_matrix(tb, true, &k2, &n) || k != k2)
		return NULL;
	int64_t total = product3(m, n, k);
	if (total <= 0 || total > LOOPTRACE_MAX_ITERATIONS)
		return NULL;

	struct looptrace *lt = trace_new(TRACE_MATMUL);
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
			double s = 0.0;
			for (int64_t p = 0; p < k; p++)
				s += lt->a[i * k + p] * lt->b[p * n + j];
			lt->res[i * n + j] = s;
		}
	}
	lt->prefix = xmalloc((size_t)k * sizeof *lt->prefix);
	alloc_matrix(lt, m * n);

	code_name(lt->na, sizeof lt->na, label_a, "a");
	code_name(lt->nb, sizeof lt->nb, label_b, "b");
	snprintf(lt->nc, sizeof lt->nc, "%s", strcmp(lt->na, "c") && strcmp(lt->nb, "c") ? "c" : "out");
	add_line(lt, "%s = torch.zeros(%lld, %lld)", lt->nc, (long long)m, (long long)n);
	add_line(lt, "for i in range(%lld):", (long long)m);
	add_line(lt, "    for j in range(%lld):", (long long)n);
	add_line(lt, "        s = 0");
	add_line(lt, "        for p in range(%lld):", (long long)k);
	lt->ln.acc = add_line(lt, "            s += %s%s * %s%s", lt->na, lt->a_vec ? "[p]" : "[i, p]", lt->nb,
			      lt->b_vec ? "[p]" : "[p, j]");
	lt->ln.store = add_line(lt, "        %s[i, j] = s", lt->nc);
	looptrace_seek(lt, 0);
	return lt;
}

static struct looptrace *make_softmax(const struct tensor *tx, const char *label)
{
	int64_t rows, cols;
	if (!first_matrix(tx, false, &rows, &cols) || rows <= 0 || cols <= 0)
		return NULL;
	int64_t cells = product3(rows, cols, 1);
	if (cells < 0 || cells > LOOPTRACE_MAX_ITERATIONS)
		return NULL;

	struct looptrace *lt = trace_new(TRACE_SOFTMAX);
	lt->x = copy_first(tx, cells);
	lt->total = rowsoft_init(&lt->sm, lt->x, rows, cols);
	if (lt->total > LOOPTRACE_MAX_ITERATIONS) {
		looptrace_free(lt);
		return NULL;
	}
	slice_text(lt, tx->ndim);
	alloc_matrix(lt, cells);

	code_name(lt->na, sizeof lt->na, label, "x");
	snprintf(lt->ny, sizeof lt->ny, "%s", strcmp(lt->na, "y") ? "y" : "w");
	add_line(lt, "%s = %s.clone()", lt->ny, lt->na);
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
					const struct derivation *labels)
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

	struct looptrace *lt = trace_new(TRACE_ATTENTION);
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
			double similarity = 0.0;
			for (int64_t c = 0; c < d; c++)
				similarity += lt->a[qi * d + c] * lt->b[ki * d + c];
			lt->scores[at] = similarity * scale;
		}
	}
	/* 2. softmax each row */
	lt->sm_begin = cells;
	lt->out_begin = cells + rowsoft_init(&lt->sm, lt->scores, m, n);
	lt->total = lt->out_begin + cells;
	if (lt->total > LOOPTRACE_MAX_ITERATIONS) {
		looptrace_free(lt);
		return NULL;
	}
	/* 3. each output row is a weighted sum of all the value vectors */
	lt->res = xmalloc((size_t)out_cells * sizeof *lt->res);
	for (int64_t row = 0; row < m; row++) {
		double *o = &lt->res[row * dv];
		for (int64_t c = 0; c < dv; c++)
			o[c] = 0.0;
		for (int64_t vi = 0; vi < n; vi++) {
			double w = rowsoft_weight(&lt->sm, row, vi);
			for (int64_t c = 0; c < dv; c++)
				o[c] += w * lt->v[vi * dv + c];
		}
	}
	lt->prefix = xmalloc((size_t)(n * dv) * sizeof *lt->prefix);
	alloc_matrix(lt, cells > out_cells ? cells : out_cells);

	code_name(lt->na, sizeof lt->na, labels ? labels->label_a : NULL, "queries");
	code_name(lt->nb, sizeof lt->nb, labels ? labels->label_b : NULL, "keys");
	code_name(lt->nc, sizeof lt->nc, labels ? labels->label_c : NULL, "values");
	add_line(lt, "# 1. scores: how well does each query match each key?");
	add_line(lt, "att = torch.zeros(%lld, %lld)", (long long)m, (long long)n);
	if (lt->scaled && fabs(scale * sqrt((double)d) - 1.0) < 1e-9)
		add_line(lt, "scale = 1 / math.sqrt(%lld)", (long long)d);
	else if (lt->scaled)
		add_line(lt, "scale = %.6g", scale);
	add_line(lt, "for q_idx, q in enumerate(%s):", lt->na);
	add_line(lt, "    for k_idx, k in enumerate(%s):", lt->nb);
	if (causal || mask) {
		lt->ln.if_hidden = add_line(lt, "        if %s%s%s:", causal ? "k_idx > q_idx" : "",
					    causal && mask ? " or " : "", mask ? "mask[q_idx, k_idx]" : "");
		lt->ln.set_inf = add_line(lt, "            att[q_idx, k_idx] = float('-inf')");
		lt->ln.skip = add_line(lt, "            continue");
	}
	lt->ln.dot = add_line(lt, "        att[q_idx, k_idx] = torch.dot(q, k)%s", lt->scaled ? " * scale" : "");
	add_line(lt, "# 2. softmax each row, so each query's weights sum to 1");
	rowsoft_code(lt, "att", "row", false);
	add_line(lt, "# 3. each output row is a weighted sum of all the value vectors");
	add_line(lt, "out = torch.zeros(%lld, %lld)", (long long)m, (long long)dv);
	add_line(lt, "for row, a in enumerate(att):");
	add_line(lt, "    for v_idx, v in enumerate(%s):", lt->nc);
	lt->ln.out = add_line(lt, "        out[row] += a[v_idx] * v");
	looptrace_seek(lt, 0);
	return lt;
}

struct looptrace *looptrace_matmul(const struct tensor *a, const struct tensor *b)
{
	return make_matmul(a, b, NULL, NULL);
}

struct looptrace *looptrace_softmax(const struct tensor *x)
{
	return make_softmax(x, NULL);
}

struct looptrace *looptrace_attention(const struct tensor *q, const struct tensor *k, const struct tensor *v,
				      const struct tensor *mask, bool causal, double scale)
{
	return make_attention(q, k, v, mask, causal, scale, NULL);
}

struct looptrace *looptrace_for(const struct tensor *t)
{
	const struct derivation *d = t ? t->from : NULL;
	if (!d || !d->a)
		return NULL;
	switch (d->kind) {
	case DERIV_MATMUL:
		return d->b ? make_matmul(d->a, d->b, d->label_a, d->label_b) : NULL;
	case DERIV_SOFTMAX:
		if (d->a->ndim == 0 || (d->dim != -1 && d->dim != d->a->ndim - 1))
			return NULL;
		return make_softmax(d->a, d->label_a);
	case DERIV_ATTENTION: {
		/* a mask (true = masked) rides in inner as a masked_fill with b = mask */
		const struct derivation *in = d->inner;
		const struct tensor *mask = in && in->kind == DERIV_MASKED_FILL ? in->b : NULL;
		if (!d->b || !d->c)
			return NULL;
		return make_attention(d->a, d->b, d->c, mask, d->causal, d->scalar, d);
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
	free(lt->values);
	free(lt->state);
	free(lt);
}

/* ---- positions --------------------------------------------------------- */

/* The step of the iteration that brought the trace to position t. */
static struct step decode(const struct looptrace *lt, int64_t t)
{
	struct step s = { ST_NONE, 0, 0, 0 };
	if (t <= 0)
		return s;
	int64_t it = t - 1;
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
		return lt->kind == TRACE_MATMUL ? G_MATMUL : lt->kind == TRACE_SOFTMAX ? G_SOFTMAX : G_SCORES;
	case ST_MATMUL:
		return G_MATMUL;
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
			double w = rowsoft_weight(&lt->sm, s.r, vi);
			const double *prev = vi ? &lt->prefix[(vi - 1) * lt->dv] : NULL;
			for (int64_t c = 0; c < lt->dv; c++)
				lt->prefix[vi * lt->dv + c] = (prev ? prev[c] : 0.0) + w * lt->v[vi * lt->dv + c];
		}
		lt->prefix_unit = s.r;
	}
}

/* Cell idx of group g's matrix after step s. */
static void cell_at(const struct looptrace *lt, enum group g, struct step s, int64_t idx, double *v, uint8_t *st)
{
	int64_t cur = s.kind == ST_NONE ? -1 : s.r * lt->n + s.c;
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
			*hi = ra * cols + max64(ca, cb) + 1;
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
	if (lt->shown_valid && g == lt->shown) {
		changed_cells(lt, g, lt->cur, s, &lo, &hi);
	} else {
		/* a new phase: its matrix from scratch */
		int64_t rows = lt->m, cols = g == G_OUT ? lt->dv : lt->n;
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
	}
	return "";
}

void looptrace_matrix_label(const struct looptrace *lt, char *buf, size_t size)
{
	/* no operand names: they may be long expressions, and the code shows them */
	const char *what = "";
	switch (lt->shown) {
	case G_MATMUL: what = "sums of products, one cell at a time"; break;
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
	switch (s.kind) {
	case ST_NONE:
		return;
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
	*col = s.kind == ST_ZERO || s.kind == ST_OUT ? -1 : (int)s.c;
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
	switch (s.kind) {
	case ST_NONE:
		utf8_snprintf(buf, size, "%s", "");
		break;
	case ST_MATMUL:
		utf8_snprintf(buf, size, "i = %lld, j = %lld, p = %lld", r, c, (long long)s.p);
		break;
	case ST_SCORE:
		utf8_snprintf(buf, size, "q_idx = %lld, k_idx = %lld", r, c);
		break;
	case ST_ZERO:
		utf8_snprintf(buf, size, "%s = %lld", row_var(lt), r);
		break;
	case ST_MAX:
	case ST_EXP:
	case ST_DIV:
		utf8_snprintf(buf, size, "%s = %lld, j = %lld", row_var(lt), r, c);
		break;
	case ST_OUT:
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
			   num(n1, sizeof n1, lt->a[s.r * lt->k + s.p]), num(n2, sizeof n2, lt->b[s.p * lt->n + s.c]),
			   num(n3, sizeof n3, s_now));
	if (s.p == lt->k - 1 && len >= 0 && (size_t)len < size)
		utf8_snprintf(buf + len, size - (size_t)len, "; %s[%lld, %lld] = %s", lt->nc, (long long)s.r,
			 (long long)s.c, n3);
}

static void explain_score(const struct looptrace *lt, struct step s, char *buf, size_t size)
{
	long long qi = (long long)s.r, ki = (long long)s.c;
	char n1[32], n2[32], n3[32];
	if (lt->hidden[s.r * lt->n + s.c]) {
		if (lt->causal && s.c > s.r)
			utf8_snprintf(buf, size, "k_idx %lld > q_idx %lld, a later token: att[%lld, %lld] = -inf", ki, qi, qi,
				 ki);
		else
			utf8_snprintf(buf, size, "mask[%lld, %lld] is set: att[%lld, %lld] = -inf", qi, ki, qi, ki);
		return;
	}
	double dot = 0.0;
	for (int64_t c = 0; c < lt->k; c++)
		dot += lt->a[s.r * lt->k + c] * lt->b[s.c * lt->k + c];
	if (lt->scaled)
		utf8_snprintf(buf, size, "att[%lld, %lld] = %s[%lld] \u00b7 %s[%lld] \u00d7 scale = %s \u00d7 %s = %s", qi, ki,
			 lt->na, qi, lt->nb, ki, num(n1, sizeof n1, dot), num(n2, sizeof n2, lt->scale),
			 num(n3, sizeof n3, lt->scores[s.r * lt->n + s.c]));
	else
		utf8_snprintf(buf, size, "att[%lld, %lld] = %s[%lld] \u00b7 %s[%lld] = %s", qi, ki, lt->na, qi, lt->nb, ki,
			 num(n1, sizeof n1, dot));
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
			utf8_snprintf(buf, size, "%s[%lld, %lld] = %s, max stays nan", y, r, j, num(n1, sizeof n1, x));
		else if (x > max)
			utf8_snprintf(buf, size, "%s[%lld, %lld] = %s > max = %s \u2192 max = %s", y, r, j,
				 num(n1, sizeof n1, x), num(n2, sizeof n2, max), n1);
		else
			utf8_snprintf(buf, size, "%s[%lld, %lld] = %s \u2264 max = %s: max stays", y, r, j,
				 num(n1, sizeof n1, x), num(n2, sizeof n2, max));
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
			 num(n1, sizeof n1, row[s.c]), neg ? "+" : "-", num(n2, sizeof n2, neg ? -max : max),
			 num(n3, sizeof n3, rowsoft_exp(sm, s.r, s.c)), num(n4, sizeof n4, sum));
		return;
	}
	case ST_DIV:
		utf8_snprintf(buf, size, "%s[%lld, %lld] = %s / %s = %s", y, r, j, num(n1, sizeof n1, rowsoft_exp(sm, s.r, s.c)),
			 num(n2, sizeof n2, sm->sum[s.r]), num(n3, sizeof n3, rowsoft_weight(sm, s.r, s.c)));
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
	vec_text(vv, sizeof vv, &lt->v[s.c * lt->dv], lt->dv);
	vec_text(ov, sizeof ov, &lt->prefix[s.c * lt->dv], lt->dv);
	utf8_snprintf(buf, size, "out[%lld] += a[%lld] \u00b7 %s[%lld] = %s \u00d7 %s \u2192 out[%lld] = %s", r, vi, lt->nc, vi,
		 num(n1, sizeof n1, rowsoft_weight(&lt->sm, s.r, s.c)), vv, r, ov);
}

void looptrace_explain(const struct looptrace *lt, char *buf, size_t size)
{
	struct step s = lt->cur;
	if (size == 0)
		return;
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
