/* looptrace_internal.h: view-internal. The trace's state, shared by its
 * creation (looptrace.c), seeking (looptrace_seek.c), words
 * (looptrace_words.c), the row softmax (looptrace_softmax.c), the unrolled
 * variant (looptrace_unrolled.c), the vectorised one (looptrace_simd.c) and
 * the variant API (looptrace_variant.c). Nothing outside src/view/looptrace*
 * includes it. */
#ifndef QKV_VIEW_LOOPTRACE_INTERNAL_H
#define QKV_VIEW_LOOPTRACE_INTERNAL_H

#include "view/looptrace.h"
#include "kernel/kernel.h"

#define LT_MAX_LINES 64

/* What a step does: its statement and its indices. */
enum step_kind {
	ST_NONE,    /* pos 0: nothing has run */
	ST_MATMUL,  /* s += a[i, p] * b[p, j]     r = i, c = j, terms p..p+w-1 */
	ST_SCORE,   /* att[q_idx, k_idx] = ...    r = q_idx, c = k_idx, terms p..p+w-1 */
	ST_MAX,     /* the max pass of a row      r = row, entries c..c+w-1 */
	ST_ZERO,    /* a row of -inf made nan     r = row */
	ST_EXP,     /* exp and sum                r = row, entries c..c+w-1 */
	ST_DIV,     /* divide by the sum          r = row, entries c..c+w-1 */
	ST_OUT,     /* out[row] += a[v_idx] * v   r = row, c = first v_idx, w of them */
	ST_TILE,    /* simd product: one p across the unit u of walk gw at (r, c) */
	ST_SCALE,   /* simd two-pass: a row of scores scaled, the hidden ones -inf   r = row */
	ST_BLOCK,   /* simd fused: the query block at r against the key block at c,
		       value columns p..p+dvc-1 */
};

struct step {
	enum step_kind kind;
	int64_t r, c, p;
	int64_t w;    /* terms, entries or keys the step covers (1 for loops) */
	bool merge;   /* unrolled: merges the partial sums (or maxima); simd: the
			 lanes reduced (softmax), the store of a tile's pass or the
			 block's last step (out = acc / l) */
	int64_t u;    /* ST_TILE: the unit of its walk */
	int gw;       /* ST_TILE: the walk (0: the matmul or the scores, 1: out) */
};

/* ---- the walk of a SIMD product (looptrace_gemm.c) ----
 * c = a·b for a(i, p) = a[i·lda + p], b(p, j) = b[p·brs + j·bcs], (m,k)·(k,n),
 * as the kernel of shape sh walks it: units (a register tile of c for one
 * pass of kc of the depth; or, tiny, one row's group of uc columns) in the
 * kernel's order, each taking kc steps (one p each). */
struct gemm_unit {
	int64_t r, c, rows, cols;   /* the cells */
	int64_t p0, kc, pass;       /* the depth p0 .. p0+kc-1, the pass's number */
};

struct gemm_walk {
	struct kernel_gemm_shape sh;
	const double *a, *b;
	int64_t lda, brs, bcs;
	int64_t m, k, n;
	bool skip_upper;            /* the scores: tiles wholly right of the diagonal skipped */
	bool tiny;                  /* the tiny path runs (set by the plan) */
	int64_t kc, mc, nc;         /* the blocking in use (the whole size when unblocked) */
	int ur, uc;                 /* a unit's rows and columns at most */
	int64_t units_r, units_c, passes;
	int64_t nunits;
	struct gemm_unit *unit;
	int64_t *start;             /* nunits + 1: the first step of each unit */
	int64_t *unit_of;           /* (unit row · units_c + unit col) · passes + pass -> unit, -1: skipped */
	double *c;                  /* the result as the kernel leaves it */
	uint8_t *written;           /* cells some unit wrote (the rest the kernel never touches) */
};

/* Fills in the walk of g (sh, a, b, strides, sizes and skip_upper set; the
 * tiny path only when tiny_path: matmul_*_simd has it, the attention's
 * products not) and computes c; the steps in all. */
int64_t looptrace_gemm_plan(struct gemm_walk *g, bool tiny_path);
void looptrace_gemm_free(struct gemm_walk *g);
/* The unit that step it (0-based) belongs to. */
int64_t looptrace_gemm_unit_at(const struct gemm_walk *g, int64_t it);
/* The units that cover cell (i, j), first and last (-1: none): how many. */
int64_t looptrace_gemm_units_of(const struct gemm_walk *g, int64_t i, int64_t j, int64_t *first, int64_t *last);
/* Cell (i, j) after `done` steps of unit u (u = -1: before any): what the
 * kernel holds for it (its accumulator on top of the passes before), and
 * 2 when every pass is stored, 1 when some, 0 none. */
void looptrace_gemm_cell(const struct gemm_walk *g, int64_t u, int64_t done, int64_t i, int64_t j, double *v,
			 uint8_t *st);

/* The phases, each with its own matrix (or its own meaning of it). */
enum group { G_MATMUL, G_SCORES, G_SOFTMAX, G_OUT, G_FUSED };

/* The row softmax over x (rows, cols), precomputed for one variant: each
 * row's max and sum (in the variant's order of sums) and where its steps
 * start. width entries per step (1, KERNEL_UNROLL or the lanes), merges the
 * steps that merge the partial maxima and sums (0 or 1). */
struct rowsoft {
	int64_t rows, cols;
	const double *x;
	double *max, *sum;
	int64_t *start;      /* rows + 1 entries; start[rows] = steps in all */
	bool any_zero_row;   /* a row of -inf only (it becomes nan) */
	int width, merges;
	int pre;             /* steps before a row's passes: 1 for the simd two-pass
				attention (the row scaled, its hidden keys -inf) */
	enum trace_variant variant;
};

struct looptrace {
	enum trace_kind kind;
	enum trace_variant variant;   /* the steps it takes: TRACE_LOOPS for a
					 simd trace whose path runs the loops */
	enum trace_variant asked;     /* the variant asked for (looptrace_variant) */
	bool f64;                     /* the operands are float64: that kernel's shapes */
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
		/* unrolled: the U accumulator lines of the loop body, the first
		 * and last remainder lines, the merge; per phase */
		int u_first, u_last, rem_first, rem_last, merge;
		int mx_first, mx_last, mxr_first, mxr_last, mx_merge;
		int ex_first, ex_last, exr_first, exr_last, ex_merge;
		int o_first, o_last, or_first, or_last, o_merge;
		/* simd: matmul body and store, softmax lines, fused block */
		int fma_first, fma_last, vmax, hmax, tail, vexp, hsum, vdiv;
		int blk_first, blk_last, fin;
		/* simd two-pass attention: the out tiles' body and store, the
		 * row's scaling and hiding */
		int t2_first, t2_last, t2_store, sc_first, sc_last;
	} ln;
	char na[64], nb[64], nc[64], ny[8];      /* operand and result names in the code */

	/* matmul: a (m,k), b (k,n), c (m,n); attention: q (m,k), keys (n,k),
	 * values (n,dv), att (m,n), out (m,dv) */
	int64_t m, n, k, dv;
	double *a, *b, *v;
	bool a_vec, b_vec;    /* a 1-D operand of a matmul */
	double *res;          /* matmul: c; attention: out (in the variant's order) */
	double *scores;       /* attention: att after the scores */
	uint8_t *hidden;      /* attention: keys a query may not see */
	bool causal, has_mask, scaled;
	double scale;
	struct rowsoft sm;    /* softmax: of x; attention: of the scores */
	double *x;            /* softmax: the input */
	int64_t sm_begin, out_begin;   /* first step of each pass */

	/* partial sums of the current matmul cell (k) or output row (n x dv) */
	double *prefix;
	int64_t prefix_unit;

	/* unrolled */
	int64_t *cell_start;  /* attention: the first step of each score (m·n + 1) */
	double part[KERNEL_UNROLL];   /* the current cell's partial sums or maxima */
	int npart;
	double *part_rows;    /* attention: the partial output rows (KERNEL_UNROLL x dv) */

	/* simd */
	struct kernel_tile tile;   /* tile_rows, tile_cols, lanes: of the product shown */
	int sm_lanes;         /* lanes of the softmax kernel in use */
	bool two_pass;        /* attention: the per-head two-pass kernel (a small head) */
	struct gemm_walk gw[2];   /* the matmul (0); the two-pass scores (0) and out (1) */
	double *wts;          /* two-pass: the weights, gw[1]'s a */
	int64_t dvc, chunks;  /* fused: value columns a pass, and the passes */
	int64_t *blk_start;   /* fused attention: the first step of each query block */
	double *blk_acc, *blk_m, *blk_l, *blk_alpha;   /* its running state (att_rows x dv, att_rows) */
	int64_t blk_i0, blk_next;   /* the block held, and the first key not folded in (-1: none) */

	/* what looptrace_matrix shows */
	enum group shown;
	bool shown_valid;
	int rows, cols;
	double *values;
	uint8_t *state;
	struct step cur;
};

static inline int64_t lt_min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static inline int64_t lt_max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- looptrace.c ---- */
/* The product a simd trace shows: its register tile and lanes in lt->tile. */
void looptrace_product_shape(struct looptrace *lt, const struct kernel_gemm_shape *sh);
int looptrace_add_line(struct looptrace *lt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* attention: the partial rows of row's weighted sum over its first upto
 * values into part_rows, merged into o (unless NULL) */
void looptrace_unrolled_out(struct looptrace *lt, int64_t row, int64_t upto, double *o);

/* ---- looptrace_words.c ---- */
/* 4 decimals, or 4 significant digits when very large or small; "nan", "inf" */
const char *looptrace_num(char *buf, size_t size, double v);
/* "[0.1200, -0.5300, 0.2000, …]" */
void looptrace_vec_text(char *buf, size_t size, const double *v, int64_t count);
/* "6,400" */
const char *looptrace_count(char *buf, size_t size, int64_t v);
/* The code's "scale = ..." line. */
void looptrace_scale_line(struct looptrace *lt);

/* ---- looptrace_seek.c ---- */
/* The i with start[i] <= t < start[i + 1], for start[0..n-1] ascending. */
int64_t looptrace_find(const int64_t *start, int64_t n, int64_t t);

/* ---- looptrace_softmax.c ---- */
/* The softmax passes over every row (kernel/loops.c's, or the variant's),
 * keeping each row's max and sum; returns the steps in all. width is the
 * entries one step takes (1, KERNEL_UNROLL, the lanes). */
int64_t looptrace_rowsoft_init(struct rowsoft *sm, const double *x, int64_t rows, int64_t cols,
			       enum trace_variant variant, int width);
void looptrace_rowsoft_free(struct rowsoft *sm);
/* The step li (0-based) of the softmax passes. */
struct step looptrace_rowsoft_decode(const struct rowsoft *sm, int64_t li);
/* Cell idx of the matrix after step s. */
void looptrace_rowsoft_cell(const struct rowsoft *sm, struct step s, int64_t idx, double *v, uint8_t *st);
/* The loops' code of the passes, over matrix y in place, rows named by r. */
void looptrace_rowsoft_code(struct looptrace *lt, const char *y, const char *r, bool comments);
/* The lines that make a row of -inf only nan (when the softmax has one),
 * with the matrix y and rows r. */
void looptrace_zero_row_lines(struct looptrace *lt, const char *y, const char *r);
/* The explanation of a loops softmax step. */
void looptrace_explain_softmax(const struct looptrace *lt, struct step s, char *buf, size_t size);
double looptrace_weight(const struct rowsoft *sm, int64_t r, int64_t j);
double looptrace_exp(const struct rowsoft *sm, int64_t r, int64_t j);
/* The count partial maxima (ST_MAX) or exp sums (ST_EXP) of s's row over its
 * entries up to the step's last, entry j into part[j % count]. */
void looptrace_softmax_partials(const struct looptrace *lt, struct step s, double *part, int count);
/* "k_idx 1 > q_idx 0, a later token: att[0, 1] = -inf" (or the mask's) */
void looptrace_explain_hidden(const struct looptrace *lt, struct step s, char *buf, size_t size);
/* The explanation of a softmax step of the unrolled or simd variant. */
void looptrace_explain_softmax_wide(const struct looptrace *lt, char *buf, size_t size);

/* ---- the order of sums (looptrace_unrolled.c) ----
 * s[u] = the terms t_p, p < upto, with p % KERNEL_UNROLL == u, in order of p;
 * merged as kernel.h says: (s0 + s1) + (s2 + s3). */
void looptrace_unrolled_dot(double s[KERNEL_UNROLL], const double *a, int64_t sa, const double *b, int64_t sb,
			    int64_t upto);
double looptrace_unrolled_merge(const double s[KERNEL_UNROLL]);
/* "[0.1200, -0.5300, 0.2000, 0.0100]": every one of count numbers */
void looptrace_parts_text(char *buf, size_t size, const double *v, int count);
/* Steps of a sum of terms: its iterations of KERNEL_UNROLL (the last may be
 * shorter), not counting the merge. */
int64_t looptrace_unrolled_iters(int64_t terms);
void looptrace_unrolled_code(struct looptrace *lt);
struct step looptrace_unrolled_decode(const struct looptrace *lt, int64_t it);
void looptrace_unrolled_load(struct looptrace *lt, struct step s);
void looptrace_unrolled_lines(const struct looptrace *lt, int *stmt, int *first, int *last);
void looptrace_unrolled_explain(const struct looptrace *lt, char *buf, size_t size);
void looptrace_unrolled_story(const struct looptrace *lt, int row, int col, char *buf, size_t size);

/* ---- looptrace_simd.c ---- */
/* The kernel's walk of the matmul (gw[0]) and its result in res; the steps. */
int64_t looptrace_simd_matmul(struct looptrace *lt);
/* Two-pass attention: the tiles of q·kᵀ (gw[0]), the scores they give
 * (scaled, hidden -inf) in scores; the steps. */
int64_t looptrace_simd_scores(struct looptrace *lt);
/* Two-pass attention, after the softmax: the weights (wts) times v in tiles
 * (gw[1]), out in res; the steps. */
int64_t looptrace_simd_out(struct looptrace *lt);
void looptrace_simd_code(struct looptrace *lt);
/* fused attention: out (res) as the kernel computes it, and the block table */
void looptrace_simd_attention(struct looptrace *lt);
struct step looptrace_simd_decode(const struct looptrace *lt, int64_t it);
/* fused attention: the running state of s's block after its key block */
void looptrace_simd_load(struct looptrace *lt, struct step s);
void looptrace_simd_lines(const struct looptrace *lt, int *stmt, int *first, int *last);
void looptrace_simd_explain(const struct looptrace *lt, char *buf, size_t size);
void looptrace_simd_story(const struct looptrace *lt, int row, int col, char *buf, size_t size);
/* the walk of step s's phase: the matmul or scores (0), out (1) */
const struct gemm_walk *looptrace_simd_walk(const struct looptrace *lt, struct step s);

#endif
