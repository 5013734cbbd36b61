/* test_looptrace_variants.c: the three variants of a trace (issue 18): the
 * step counts and tile shapes from KERNEL_UNROLL and kernel_simd_tile (avx2
 * and avx512 forced in turn), each animation ending with its kernel's float64
 * result, seeking both ways, the partial sums, the rectangle of a step, the
 * code, and every sentence of every step and cell built without a crash. */
#include "view/looptrace.h"
#include "kernel/kernel.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The unrolled kernels come with the `unrolled` round: until they are linked
 * in, the unrolled traces are checked against the loops within a tolerance;
 * once they are, bit for bit against them. */
#pragma weak matmul_f64_unrolled
#pragma weak softmax_rows_f64_unrolled
#pragma weak attention_f64_unrolled

/* A (rows, cols) tensor of dtype dt of values that make no sum exact. */
static struct tensor *matrix_of(enum dtype dt, int64_t rows, int64_t cols, unsigned seed)
{
	int64_t shape[2] = { rows, cols };
	struct tensor *t = tensor_new(dt, FLAVOR_TORCH, 2, shape);
	for (int64_t i = 0; i < rows * cols; i++) {
		seed = seed * 1103515245u + 12345u;
		double x = ((double)(seed >> 8 & 0xffff) / 65536.0 - 0.5) * 3.1;
		if (dt == DT_F64)
			((double *)tensor_data(t))[i] = x;
		else
			((float *)tensor_data(t))[i] = (float)x;
	}
	return t;
}

/* A (rows, cols) float64 tensor of values that make no sum exact. */
static struct tensor *matrix(int64_t rows, int64_t cols, unsigned seed)
{
	return matrix_of(DT_F64, rows, cols, seed);
}

static void fini_simd(void)
{
	kernel_force_simd(NULL);
	kernel_set_attention_small(-1);
}

TestSuite(looptrace_variants, .fini = fini_simd);

static const char *steps(const struct looptrace *lt)
{
	static char buf[256];
	looptrace_steps_text(lt, buf, sizeof buf);
	return buf;
}

static const char *title(const struct looptrace *lt)
{
	static char buf[128];
	looptrace_variant_title(lt, buf, sizeof buf);
	return buf;
}

static bool code_has(const struct looptrace *lt, const char *text)
{
	const char *const *lines;
	int n = looptrace_code(lt, &lines);
	for (int i = 0; i < n; i++)
		if (strstr(lines[i], text))
			return true;
	return false;
}

/* The state of cell (row, col) after step t. */
static uint8_t state_at(struct looptrace *lt, int64_t t, int row, int col)
{
	int r, c;
	const double *v;
	const uint8_t *st;
	looptrace_seek(lt, t);
	looptrace_matrix(lt, &r, &c, &v, &st);
	return st[row * c + col];
}

/* After the last step the matrix is want (rows x cols), every cell done,
 * within rel (0: bit for bit). */
static void assert_ends_with(struct looptrace *lt, const double *want, int rows, int cols, double rel)
{
	int r, c;
	const double *v;
	const uint8_t *st;
	looptrace_seek(lt, looptrace_total(lt));
	looptrace_matrix(lt, &r, &c, &v, &st);
	cr_assert(r == rows && c == cols, "%dx%d, want %dx%d", r, c, rows, cols);
	for (int i = 0; i < rows * cols; i++) {
		cr_assert_eq(st[i], 2, "cell %d not done", i);
		if (isnan(want[i]))
			cr_assert(isnan(v[i]), "cell %d: %.17g, want nan", i, v[i]);
		else if (rel == 0)
			cr_assert(v[i] == want[i], "cell %d: %.17g, want %.17g", i, v[i], want[i]);
		else
			cr_assert(fabs(v[i] - want[i]) <= rel * (1 + fabs(want[i])), "cell %d: %.17g, want %.17g", i,
				  v[i], want[i]);
	}
}

/* Seeking straight to t shows what stepping there (forwards, then back)
 * shows: every cell, line, index and explanation. */
static void assert_seeks_agree(struct looptrace *walk, struct looptrace *jump)
{
	int64_t total = looptrace_total(walk);
	for (int pass = 0; pass < 2; pass++) {
		for (int64_t i = 0; i <= total; i++) {
			int64_t t = pass == 0 ? i : total - i;
			looptrace_seek(walk, t);
			looptrace_seek(jump, (t * 7919) % (total + 1));
			looptrace_seek(jump, t);
			int r1, c1, r2, c2;
			const double *v1, *v2;
			const uint8_t *s1, *s2;
			looptrace_matrix(walk, &r1, &c1, &v1, &s1);
			looptrace_matrix(jump, &r2, &c2, &v2, &s2);
			cr_assert(r1 == r2 && c1 == c2, "at %lld", (long long)t);
			for (int k = 0; k < r1 * c1; k++)
				cr_assert(s1[k] == s2[k] && (v1[k] == v2[k] || (isnan(v1[k]) && isnan(v2[k]))),
					  "at %lld, cell %d: %g (%d) against %g (%d)", (long long)t, k, v1[k], s1[k], v2[k],
					  s2[k]);
			char e1[512], e2[512];
			looptrace_explain(walk, e1, sizeof e1);
			looptrace_explain(jump, e2, sizeof e2);
			cr_assert_str_eq(e1, e2, "at %lld", (long long)t);
			cr_assert_eq(looptrace_current_line(walk), looptrace_current_line(jump));
		}
	}
}

/* Every sentence of every step, and the story of every cell, is built. */
static void assert_every_step_speaks(struct looptrace *lt)
{
	char buf[512];
	for (int64_t t = 0; t <= looptrace_total(lt); t++) {
		looptrace_seek(lt, t);
		int first, last, row, col, rows, cols;
		looptrace_explain(lt, buf, sizeof buf);
		cr_assert(t == 0 || buf[0], "no explanation at %lld", (long long)t);
		looptrace_indices(lt, buf, sizeof buf);
		looptrace_current_span(lt, &first, &last);
		cr_assert(t == 0 || (first >= 0 && first <= last), "no line at %lld", (long long)t);
		cr_assert_eq(looptrace_current_rect(lt, &row, &col, &rows, &cols), t > 0);
		looptrace_matrix_label(lt, buf, sizeof buf);
		const double *v;
		const uint8_t *st;
		looptrace_matrix(lt, &rows, &cols, &v, &st);
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < cols; c++) {
				looptrace_cell_story(lt, r, c, buf, sizeof buf);
				cr_assert(buf[0], "no story of (%d, %d) at %lld", r, c, (long long)t);
			}
	}
}

/* The result of a @ b, derived as the interpreter would (a view of a and b). */
static struct tensor *product(struct tensor *a, struct tensor *b)
{
	struct derivation *d = derivation_new(DERIV_MATMUL, a, b, NULL);
	int64_t shape[2] = { a->shape[0], b->shape[1] };
	struct tensor *c = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	c->from = d;
	return c;
}

/* ---- step counts and tiles ---------------------------------------------------- */

Test(looptrace_variants, a_20x16_by_16x20_matmul_should_count_each_variants_steps)
{
	struct tensor *a = matrix(20, 16, 1), *b = matrix(16, 20, 2);
	struct looptrace *lt = looptrace_matmul(a, b);
	cr_assert_eq(looptrace_variant(lt), TRACE_LOOPS);
	cr_assert_eq(looptrace_total(lt), 6400);
	cr_assert_str_eq(steps(lt), "6,400 multiply-adds");
	cr_assert_str_eq(title(lt), "for-loops");
	looptrace_free(lt);
	cr_assert_eq(KERNEL_UNROLL, 4, "the counts below are for 4 accumulators");
	struct tensor *c = product(a, b);
	lt = looptrace_for_variant(c, TRACE_UNROLLED);
	cr_assert_not_null(lt);
	cr_assert_eq(looptrace_total(lt), 1600 + 400);
	cr_assert_str_eq(steps(lt), "1,600 iterations of 4 + 400 merges");
	cr_assert_str_eq(title(lt), "unrolled \u00d74");
	looptrace_free(lt);

	if (kernel_force_simd("avx2") != 0)
		cr_skip_test("no avx2 on this machine");
	struct kernel_tile tile;
	kernel_simd_tile(&tile);
	cr_assert(tile.tile_rows == 6 && tile.tile_cols == 16 && tile.lanes == 8);
	cr_assert(tile.gemm[0].tile_rows == 6 && tile.gemm[0].tile_cols == 16 && tile.gemm[0].lanes == 8);
	/* float64 operands: the float64 kernel's tile, half as wide */
	for (int path = 0; path < 2; path++) {
		if (kernel_force_simd(path ? "avx512" : "avx2") != 0)
			continue;
		kernel_simd_tile(&tile);
		const struct kernel_gemm_shape *g = &tile.gemm[1];
		long long tiles = (20 + g->tile_rows - 1) / g->tile_rows * ((20 + g->tile_cols - 1) / g->tile_cols);
		char want[128];
		lt = looptrace_for_variant(c, TRACE_SIMD);
		cr_assert_eq(looptrace_total(lt), tiles * 16, "ceil(20/rows)·ceil(20/cols) tiles, 16 p each");
		snprintf(want, sizeof want, "%lld steps of %d FMAs of %d lanes", tiles * 16,
			 g->tile_rows * g->tile_cols / g->lanes, g->lanes);
		cr_assert_str_eq(steps(lt), want);
		snprintf(want, sizeof want, "vectorised (%s, %d\u00d7%d tile)", tile.path, g->tile_rows, g->tile_cols);
		cr_assert_str_eq(title(lt), want);
		looptrace_free(lt);
	}
	kernel_force_simd(NULL);
	tensor_unref(c);
	tensor_unref(a);
	tensor_unref(b);
}

Test(looptrace_variants, a_depth_that_is_not_a_multiple_of_4_should_take_a_short_iteration)
{
	struct tensor *a = matrix(3, 18, 3), *b = matrix(18, 5, 4);
	struct tensor *c = product(a, b);
	struct looptrace *lt = looptrace_for_variant(c, TRACE_UNROLLED);
	cr_assert_eq(looptrace_total(lt), 15 * (4 + 1 + 1));
	cr_assert_str_eq(steps(lt), "60 iterations of 4 + 15 of 2 + 15 merges");
	cr_assert(code_has(lt, "        for p in range(0, 16, 4):"));
	cr_assert(code_has(lt, "            s3 += a[i, p + 3] * b[p + 3, j]"));
	cr_assert(code_has(lt, "        s1 += a[i, 17] * b[17, j]  # the remainder"));
	cr_assert(code_has(lt, "        c[i, j] = (s0 + s1) + (s2 + s3)"));
	looptrace_free(lt);
	tensor_unref(c);
	tensor_unref(a);
	tensor_unref(b);
}

/* ---- the partial sums ---------------------------------------------------------- */

Test(looptrace_variants, an_unrolled_step_should_give_each_partial_sum_one_term_then_merge)
{
	struct tensor *a = matrix(2, 9, 5), *b = matrix(9, 3, 6);
	struct tensor *c = product(a, b);
	const double *A = tensor_data(a), *B = tensor_data(b);
	struct looptrace *lt = looptrace_for_variant(c, TRACE_UNROLLED);
	const double *s;
	cr_assert_eq(looptrace_partials(lt, &s), 0, "nothing before the first step");
	looptrace_seek(lt, 1);   /* cell (0, 0), p = 0..3 */
	cr_assert_eq(looptrace_partials(lt, &s), 4);
	for (int u = 0; u < 4; u++)
		cr_assert(s[u] == A[u] * B[u * 3], "s%d", u);
	int row, col, rows, cols;
	cr_assert(looptrace_current_rect(lt, &row, &col, &rows, &cols));
	cr_assert(row == 0 && col == 0 && rows == 1 && cols == 1);
	const char *const *lines;
	looptrace_code(lt, &lines);
	int first, last;
	looptrace_current_span(lt, &first, &last);
	cr_assert_eq(last - first, 3, "the four accumulator lines");
	cr_assert(strstr(lines[first], "s0 +="), "%s", lines[first]);
	looptrace_seek(lt, 3);   /* p = 8: the remainder goes to s0 */
	looptrace_partials(lt, &s);
	cr_assert(s[0] == (A[0] * B[0] + A[4] * B[12]) + A[8] * B[24]);
	cr_assert(s[1] == A[1] * B[3] + A[5] * B[15]);
	looptrace_seek(lt, 4);   /* the merge */
	cr_assert_eq(looptrace_partials(lt, &s), 4);
	double want = (s[0] + s[1]) + (s[2] + s[3]);
	int r, cc;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &r, &cc, &v, &st);
	cr_assert(v[0] == want && st[0] == 2);
	char buf[256];
	looptrace_cell_story(lt, 0, 0, buf, sizeof buf);
	cr_assert_str_eq(buf, "c[0, 0]: s0..s3 each took every 4th of the 9 terms (s0: p = 0, 4, 8), merged as "
			      "(s0 + s1) + (s2 + s3) in step 4");
	looptrace_free(lt);
	tensor_unref(c);
	tensor_unref(a);
	tensor_unref(b);
}

/* ---- the register tile ----------------------------------------------------------- */

Test(looptrace_variants, a_simd_step_should_grow_the_whole_tile_and_edge_tiles_should_be_clipped)
{
	if (kernel_force_simd("avx2") != 0)
		cr_skip_test("no avx2 on this machine");
	struct kernel_tile tile;
	kernel_simd_tile(&tile);
	const struct kernel_gemm_shape *g = &tile.gemm[1];   /* float64 operands */
	int tr = g->tile_rows, tc = g->tile_cols, tiles_r = (20 + tr - 1) / tr, tiles_c = (20 + tc - 1) / tc;
	struct tensor *a = matrix(20, 16, 7), *b = matrix(16, 20, 8);
	struct tensor *c = product(a, b);
	struct looptrace *lt = looptrace_for_variant(c, TRACE_SIMD);
	int row, col, rows, cols;
	looptrace_seek(lt, 1);
	cr_assert(looptrace_current_rect(lt, &row, &col, &rows, &cols));
	cr_assert(row == 0 && col == 0 && rows == tr && cols == tc);
	int r, cc;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &r, &cc, &v, &st);
	int growing = 0;
	for (int i = 0; i < 400; i++)
		growing += st[i] == 1;
	cr_assert_eq(growing, tr * tc, "one step touches every cell of the tile");
	looptrace_seek(lt, (tiles_r - 1) * 16 + 1);   /* the last tile of the first panel */
	looptrace_current_rect(lt, &row, &col, &rows, &cols);
	cr_assert(row == (tiles_r - 1) * tr && col == 0 && rows == 20 - row && cols == tc);
	looptrace_seek(lt, (tiles_c - 1) * tiles_r * 16 + 1);   /* the last panel: its edge columns */
	looptrace_current_rect(lt, &row, &col, &rows, &cols);
	cr_assert(row == 0 && col == (tiles_c - 1) * tc && rows == tr && cols == 20 - col);
	char buf[512], want[512];
	looptrace_explain(lt, buf, sizeof buf);
	snprintf(want, sizeof want, "%d FMAs of %d lanes", tr * tc / g->lanes, g->lanes);
	cr_assert(strstr(buf, want) && strstr(buf, "edge tile"), "%s", buf);
	snprintf(want, sizeof want, "acc[r, %d:%d] += x * b1", g->lanes, 2 * g->lanes);
	cr_assert(code_has(lt, want), "%s", want);
	int c0 = 19 / tc * tc, first = (19 / tc * tiles_r) * 16 + 1;
	looptrace_cell_story(lt, 2, 19, buf, sizeof buf);
	snprintf(want, sizeof want, "c[2, 19]: lane %d of vector %d, row 2 of the %d\u00d7%d tile at rows 0-%d, cols %d-%d, "
		 "grown in steps %d-%d (one FMA per p)", (19 - c0) % g->lanes, (19 - c0) / g->lanes, tr, tc, tr - 1, c0,
		 c0 + tc - 1, first, first + 15);
	cr_assert_str_eq(buf, want);
	looptrace_free(lt);
	tensor_unref(c);
	tensor_unref(a);
	tensor_unref(b);
}

/* ---- each animation ends with its kernel's result ----------------------------------- */

Test(looptrace_variants, each_matmul_variant_should_end_with_its_kernels_float64_result)
{
	const int64_t m = 7, k = 33, n = 17;
	struct tensor *a = matrix(m, k, 9), *b = matrix(k, n, 10);
	struct tensor *c = product(a, b);
	double want[7 * 17];
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		matmul_f64_simd(want, tensor_data(a), tensor_data(b), m, k, n);
		struct looptrace *lt = looptrace_for_variant(c, TRACE_SIMD);
		assert_ends_with(lt, want, (int)m, (int)n, 0);   /* p in order, product and sum rounded apart */
		looptrace_free(lt);
	}
	kernel_force_simd(NULL);
	matmul_f64_loops(want, tensor_data(a), tensor_data(b), m, k, n);
	struct looptrace *lt = looptrace_for_variant(c, TRACE_LOOPS);
	assert_ends_with(lt, want, (int)m, (int)n, 0);
	looptrace_free(lt);
	/* the unrolled order of sums: its kernel's bits, or near the loops' */
	double rel = 1e-12;
	if (matmul_f64_unrolled) {
		matmul_f64_unrolled(want, tensor_data(a), tensor_data(b), m, k, n);
		rel = 0;
	}
	lt = looptrace_for_variant(c, TRACE_UNROLLED);
	assert_ends_with(lt, want, (int)m, (int)n, rel);
	looptrace_free(lt);
	tensor_unref(c);
	tensor_unref(a);
	tensor_unref(b);
}

Test(looptrace_variants, each_softmax_variant_should_end_with_its_kernels_float64_result)
{
	const int64_t rows = 5, cols = 19;
	struct tensor *x = matrix(rows, cols, 11);
	double *X = tensor_data(x);
	for (int j = 0; j < cols; j++)
		X[3 * cols + j] = -INFINITY;   /* a row with nothing to attend to */
	struct derivation *d = derivation_new(DERIV_SOFTMAX, x, NULL, NULL);
	d->dim = -1;
	int64_t shape[2] = { rows, cols };
	struct tensor *y = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	y->from = d;
	double want[5 * 19];
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		softmax_rows_f64_simd(want, X, rows, cols);
		struct looptrace *lt = looptrace_for_variant(y, TRACE_SIMD);
		assert_ends_with(lt, want, (int)rows, (int)cols, 1e-14);   /* its exp is not libm's */
		looptrace_free(lt);
	}
	kernel_force_simd(NULL);
	softmax_rows_f64_loops(want, X, rows, cols);
	struct looptrace *lt = looptrace_for_variant(y, TRACE_LOOPS);
	assert_ends_with(lt, want, (int)rows, (int)cols, 0);
	looptrace_free(lt);
	double rel = 1e-14;
	if (softmax_rows_f64_unrolled) {
		softmax_rows_f64_unrolled(want, X, rows, cols);
		rel = 0;
	}
	lt = looptrace_for_variant(y, TRACE_UNROLLED);
	assert_ends_with(lt, want, (int)rows, (int)cols, rel);
	looptrace_free(lt);
	tensor_unref(y);
	tensor_unref(x);
}

static struct tensor *attention_result(struct tensor *q, struct tensor *k, struct tensor *v, bool causal,
				       double scale)
{
	struct derivation *d = derivation_new(DERIV_ATTENTION, q, k, v);
	d->causal = causal;
	d->scalar = scale;
	int64_t shape[2] = { q->shape[0], v->shape[1] };
	struct tensor *o = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	o->from = d;
	return o;
}

Test(looptrace_variants, each_attention_variant_should_end_with_its_kernels_float64_result)
{
	const int64_t tq = 53, tk = 53, dd = 8, dv = 5;
	struct tensor *q = matrix(tq, dd, 12), *k = matrix(tk, dd, 13), *v = matrix(tk, dv, 14);
	double want[53 * 5], *w = malloc(tq * tk * sizeof *w);
	for (int causal = 0; causal < 2; causal++) {
		struct tensor *o = attention_result(q, k, v, causal, 1 / sqrt(8.0));
		kernel_set_attention_small(0);   /* the fused kernel, whatever the size */
		for (int path = 0; kernel_simd_path(path); path++) {
			cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
			attention_f64_simd(want, NULL, tensor_data(q), tensor_data(k), tensor_data(v), NULL, causal,
					   1 / sqrt(8.0), tq, tk, dd, dv);
			struct looptrace *lt = looptrace_for_variant(o, TRACE_SIMD);
			cr_assert_not_null(lt);
			assert_ends_with(lt, want, (int)tq, (int)dv, 1e-13);
			looptrace_free(lt);
		}
		kernel_force_simd(NULL);
		attention_f64_loops(want, w, tensor_data(q), tensor_data(k), tensor_data(v), NULL, causal, 1 / sqrt(8.0),
				    tq, tk, dd, dv);
		struct looptrace *lt = looptrace_for_variant(o, TRACE_LOOPS);
		assert_ends_with(lt, want, (int)tq, (int)dv, 0);
		looptrace_free(lt);
		double rel = 1e-13;
		if (attention_f64_unrolled) {
			attention_f64_unrolled(want, w, tensor_data(q), tensor_data(k), tensor_data(v), NULL, causal,
					       1 / sqrt(8.0), tq, tk, dd, dv);
			rel = 0;
		}
		lt = looptrace_for_variant(o, TRACE_UNROLLED);
		assert_ends_with(lt, want, (int)tq, (int)dv, rel);
		looptrace_free(lt);
		tensor_unref(o);
	}
	free(w);
	tensor_unref(q);
	tensor_unref(k);
	tensor_unref(v);
}

Test(looptrace_variants, a_fused_attention_should_take_one_step_per_key_block_and_one_division)
{
	if (kernel_force_simd("avx2") != 0)
		cr_skip_test("no avx2 on this machine");
	struct kernel_tile tile;
	kernel_simd_tile(&tile);
	cr_assert(tile.att_rows == 48 && tile.att_keys == 96);
	struct tensor *q = matrix(100, 4, 15), *k = matrix(200, 4, 16), *v = matrix(200, 3, 17);
	struct tensor *o = attention_result(q, k, v, false, 0.5);
	struct looptrace *lt = looptrace_for_variant(o, TRACE_SIMD);
	/* 3 blocks of queries (48, 48, 4), each against 3 blocks of keys, then out = acc / l */
	cr_assert_eq(looptrace_total(lt), 3 * (3 + 1));
	cr_assert_str_eq(steps(lt), "12 steps: 9 key blocks against query blocks of 48 + 3 divisions");
	cr_assert_str_eq(title(lt), "vectorised (avx2, fused 48\u00d796 blocks)");
	int row, col, rows, cols;
	looptrace_seek(lt, 1);   /* the last block first, as dispatch.c takes them: its first key block */
	looptrace_current_rect(lt, &row, &col, &rows, &cols);
	cr_assert(row == 96 && col == 0 && rows == 4 && cols == 3);
	looptrace_seek(lt, 9);   /* the first block's first key block, last */
	looptrace_current_rect(lt, &row, &col, &rows, &cols);
	cr_assert(row == 0 && col == 0 && rows == 48 && cols == 3);
	cr_assert_eq(state_at(lt, 9, 99, 0), 2, "the last block is done by then");
	cr_assert_eq(state_at(lt, 9, 0, 0), 1);
	cr_assert_eq(state_at(lt, 8, 0, 0), 0, "the first block has not begun");
	cr_assert_str_eq(looptrace_phase(lt), "online softmax");
	looptrace_free(lt);
	tensor_unref(o);
	o = attention_result(q, k, v, true, 0.5);   /* causal: a block sees keys up to its last query */
	lt = looptrace_for_variant(o, TRACE_SIMD);
	cr_assert_eq(looptrace_total(lt), (1 + 1) + (1 + 1) + (2 + 1));
	looptrace_free(lt);
	tensor_unref(o);
	tensor_unref(q);
	tensor_unref(k);
	tensor_unref(v);
}

/* ---- seeking, and every sentence ---------------------------------------------------- */

static struct tensor *matmul_result(void)
{
	struct tensor *a = matrix(7, 6, 18), *b = matrix(6, 9, 19), *c = product(a, b);
	tensor_unref(a);
	tensor_unref(b);
	return c;
}

static struct tensor *softmax_result(void)
{
	struct tensor *x = matrix(4, 11, 20);
	double *X = tensor_data(x);
	for (int j = 0; j < 11; j++)
		X[11 + j] = -INFINITY;
	struct derivation *d = derivation_new(DERIV_SOFTMAX, x, NULL, NULL);
	tensor_unref(x);
	d->dim = -1;
	int64_t shape[2] = { 4, 11 };
	struct tensor *y = tensor_new(DT_F64, FLAVOR_TORCH, 2, shape);
	y->from = d;
	return y;
}

static struct tensor *causal_result(void)
{
	struct tensor *q = matrix(6, 5, 21), *k = matrix(6, 5, 22), *v = matrix(6, 3, 23);
	struct tensor *o = attention_result(q, k, v, true, 1 / sqrt(5.0));
	tensor_unref(q);
	tensor_unref(k);
	tensor_unref(v);
	return o;
}

static void check_all_variants(struct tensor *(*make)(void))
{
	struct tensor *t = make();
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		for (int var = 0; var < TRACE_VARIANTS; var++) {
			struct looptrace *walk = looptrace_for_variant(t, var), *jump = looptrace_for_variant(t, var);
			cr_assert(walk && jump, "variant %d on %s", var, kernel_simd_path(path));
			assert_seeks_agree(walk, jump);
			assert_every_step_speaks(walk);
			looptrace_free(walk);
			looptrace_free(jump);
		}
	}
	kernel_force_simd(NULL);
	tensor_unref(t);
}

Test(looptrace_variants, every_matmul_variant_should_show_the_same_whichever_way_it_was_seeked)
{
	check_all_variants(matmul_result);
}

Test(looptrace_variants, every_softmax_variant_should_show_the_same_whichever_way_it_was_seeked)
{
	check_all_variants(softmax_result);
}

Test(looptrace_variants, every_attention_variant_should_show_the_same_whichever_way_it_was_seeked)
{
	check_all_variants(causal_result);
}

/* A causal head of 20 queries and 5 keys with 70 value columns: more than
 * one pass of att_dvc. */
static struct tensor *wide_result(void)
{
	struct tensor *q = matrix(20, 3, 27), *k = matrix(5, 3, 28), *v = matrix(5, 70, 29);
	struct tensor *o = attention_result(q, k, v, true, 0.7);
	tensor_unref(q);
	tensor_unref(k);
	tensor_unref(v);
	return o;
}

Test(looptrace_variants, every_fused_attention_should_show_the_same_whichever_way_it_was_seeked)
{
	kernel_set_attention_small(0);   /* the fused kernel, whatever the size */
	check_all_variants(causal_result);
	check_all_variants(wide_result);
}

Test(looptrace_variants, the_loops_variant_should_be_the_loops_trace)
{
	struct tensor *t = causal_result();
	struct looptrace *a = looptrace_for(t), *b = looptrace_for_variant(t, TRACE_LOOPS);
	cr_assert_eq(looptrace_total(a), looptrace_total(b));
	cr_assert_str_eq(steps(b), "180 steps, one at a time: 36 for the scores, 108 for the softmax, 36 for the "
				   "weighted sums");
	const char *const *la, *const *lb;
	int na = looptrace_code(a, &la), nb = looptrace_code(b, &lb);
	cr_assert_eq(na, nb);
	for (int i = 0; i < na; i++)
		cr_assert_str_eq(la[i], lb[i]);
	looptrace_free(a);
	looptrace_free(b);
	tensor_unref(t);
}

Test(looptrace_variants, the_softmax_should_run_8_lanes_on_avx512_too_as_its_kernel_does)
{
	struct tensor *x = matrix_of(DT_F32, 4, 11, 20);
	float *X = tensor_data(x);
	for (int j = 0; j < 11; j++)
		X[11 + j] = -INFINITY;
	struct derivation *d = derivation_new(DERIV_SOFTMAX, x, NULL, NULL);
	tensor_unref(x);
	d->dim = -1;
	int64_t shape[2] = { 4, 11 };
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape), *t64 = softmax_result();
	t->from = d;
	const char *want[][2] = { { "avx2", "vectorised (avx2, 8 lanes)" }, { "avx512", "vectorised (avx512, 8 lanes)" } };
	int tried = 0;
	for (int i = 0; i < 2; i++) {
		if (kernel_force_simd(want[i][0]) != 0)
			continue;
		struct looptrace *lt = looptrace_for_variant(t, TRACE_SIMD);
		cr_assert_str_eq(title(lt), want[i][1]);
		/* 4 rows of 11: 2 vectors a pass; the all -inf row stops after its max */
		cr_assert_eq(looptrace_total(lt), 3 * (2 + 1 + 2 + 1 + 2) + (2 + 1 + 1));
		looptrace_free(lt);
		/* float64: the float64 kernel's lanes, half as many */
		struct kernel_tile tile;
		kernel_simd_tile(&tile);
		int L = tile.softmax_lanes_f64, ch = (11 + L - 1) / L;
		cr_assert_eq(L * 2, tile.softmax_lanes);
		lt = looptrace_for_variant(t64, TRACE_SIMD);
		cr_assert_eq(looptrace_total(lt), 3 * (3 * ch + 2) + (ch + 2));
		looptrace_free(lt);
		tried++;
	}
	kernel_force_simd(NULL);
	tensor_unref(t);
	tensor_unref(t64);
	if (!tried)
		cr_skip_test("neither avx2 nor avx512 on this machine");
}

Test(looptrace_variants, a_query_that_may_see_no_key_should_end_as_nan_in_every_variant)
{
	struct tensor *q = matrix(3, 4, 24), *k = matrix(5, 4, 25), *v = matrix(5, 2, 26);
	int64_t mshape[2] = { 3, 5 };
	struct tensor *mask = tensor_new(DT_BOOL, FLAVOR_TORCH, 2, mshape);
	uint8_t *M = tensor_data(mask);
	for (int i = 0; i < 15; i++)
		M[i] = i / 5 == 1 || i % 5 == 3;   /* query 1 sees nothing, key 3 is hidden from all */
	struct tensor *o = attention_result(q, k, v, false, 0.5);
	o->from->inner = derivation_new(DERIV_MASKED_FILL, NULL, mask, NULL);
	o->from->inner->scalar = -INFINITY;
	double want[3 * 2], w[3 * 5];
	attention_f64_loops(want, w, tensor_data(q), tensor_data(k), tensor_data(v), M, false, 0.5, 3, 5, 4, 2);
	cr_assert(isnan(want[2]) && isnan(want[3]) && !isnan(want[0]));
	struct kernel_tile tile;
	kernel_simd_tile(&tile);
	for (int var = 0; var < TRACE_VARIANTS; var++) {
		struct looptrace *lt = looptrace_for_variant(o, var);
		cr_assert_not_null(lt);
		/* a 3x5 head runs the two-pass kernel (the loops on the scalar path) */
		cr_assert(code_has(lt, var == TRACE_SIMD && !tile.att_loops ? "att[row][mask[row]] = float('-inf')" :
				   "mask[q_idx, k_idx]"), "variant %d", var);
		assert_ends_with(lt, want, 3, 2, 1e-13);
		looptrace_free(lt);
	}
	tensor_unref(o);
	tensor_unref(mask);
	tensor_unref(q);
	tensor_unref(k);
	tensor_unref(v);
}

/* ---- the vectorised trace follows the kernel that runs (issue 18) ------------------------
 * Each count below is the test's own walk of simd_tmpl.h's loops over
 * kernel_simd_tile's fields; each last frame is the kernel's own result,
 * through the dispatch entry, on every path this CPU runs. */

/* Steps of a product (m,k)·(k,n) walked as gemm walks it with shape sh: one
 * a p per tile and pass; with skip, the tiles wholly right of the diagonal
 * left out. */
static int64_t walk_steps(const struct kernel_gemm_shape *sh, int64_t m, int64_t k, int64_t n, bool skip)
{
	int64_t steps = 0;
	for (int64_t jc = 0; jc < n; jc += sh->nc)
		for (int64_t p0 = 0; p0 < k; p0 += sh->kc)
			for (int64_t i0 = 0; i0 < m; i0 += sh->mc)
				for (int64_t j0 = jc; j0 < jc + sh->nc && j0 < n; j0 += sh->tile_cols)
					for (int64_t r0 = i0; r0 < i0 + sh->mc && r0 < m; r0 += sh->tile_rows) {
						int64_t last = (r0 + sh->tile_rows < m ? r0 + sh->tile_rows : m) - 1;
						if (!(skip && j0 > last))
							steps += k - p0 < sh->kc ? k - p0 : sh->kc;
					}
	return steps;
}

/* Reads a number of text at *at (thousands commas skipped). */
static long read_count(const char **at)
{
	long v = 0;
	for (; isdigit((unsigned char)**at) || (**at == ',' && isdigit((unsigned char)(*at)[1])); (*at)++)
		if (**at != ',')
			v = v * 10 + (**at - '0');
	return v;
}

/* The steps after `key` in text: "steps 1-8" gives 1 and 8, "steps 1-384,
 * 1,537-1,552" (a cell over several passes) 1 and 1,552, "step 7" 7 and 7. */
static bool story_range(const char *text, const char *key, long *a, long *b)
{
	const char *at = strstr(text, key);
	if (!at)
		return false;
	at += strlen(key);
	*a = *b = read_count(&at);
	while (*at == '-') {
		at++;
		*b = read_count(&at);
		if (at[0] == ',' && at[1] == ' ' && isdigit((unsigned char)at[2])) {
			at += 2;
			read_count(&at);
		}
	}
	return true;
}

/* The cell's story names the steps that compute it: before its first the
 * cell is untouched, its last finishes it (and before it, it was not). */
static void assert_story_steps(struct looptrace *lt, int64_t in_phase, int row, int col, const char *key)
{
	char buf[512];
	long a, b;
	looptrace_seek(lt, in_phase);
	looptrace_cell_story(lt, row, col, buf, sizeof buf);
	cr_assert(story_range(buf, key, &a, &b), "no \"%s\" in: %s", key, buf);
	cr_assert_eq(state_at(lt, b, row, col), 2, "step %ld should finish (%d, %d): %s", b, row, col, buf);
	cr_assert_neq(state_at(lt, b - 1, row, col), 2, "step %ld should not have finished it: %s", b - 1, buf);
	if (a < b)
		cr_assert_eq(state_at(lt, a, row, col), 1, "step %ld should have begun it: %s", a, buf);
}

static struct tensor *masked_attention(struct tensor *q, struct tensor *k, struct tensor *v, struct tensor *mask,
				       bool causal, double scale)
{
	struct tensor *o = attention_result(q, k, v, causal, scale);
	if (mask) {
		o->from->inner = derivation_new(DERIV_MASKED_FILL, NULL, mask, NULL);
		o->from->inner->scalar = -INFINITY;
	}
	return o;
}

Test(looptrace_variants, a_small_head_should_run_the_two_pass_kernel_its_tiles_softmax_and_tiles)
{
	const int64_t t = 10, dd = 8, dv = 5;
	struct tensor *q = matrix(t, dd, 31), *k = matrix(t, dd, 32), *v = matrix(t, dv, 33);
	int64_t mshape[2] = { t, t };
	struct tensor *mask = tensor_new(DT_BOOL, FLAVOR_TORCH, 2, mshape);
	uint8_t *M = tensor_data(mask);
	for (int i = 0; i < t * t; i++)
		M[i] = i / t == 4 || (i % t) % 3 == 2;   /* query 4 sees nothing: a row of nan */
	double want[10 * 5];
	int tried = 0;
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		struct kernel_tile tile;
		kernel_simd_tile(&tile);
		cr_assert_geq(tile.att_small, t * t, "a 10-token head is a small one");
		for (int variant = 0; variant < 3; variant++) {
			bool causal = variant != 1;
			struct tensor *mk = variant == 2 ? mask : NULL;
			struct tensor *o = masked_attention(q, k, v, mk, causal, 1 / sqrt(8.0));
			attention_f64_simd(want, NULL, tensor_data(q), tensor_data(k), tensor_data(v), mk ? M : NULL, causal,
					   1 / sqrt(8.0), t, t, dd, dv);
			struct looptrace *lt = looptrace_for_variant(o, TRACE_SIMD);
			cr_assert_not_null(lt);
			assert_ends_with(lt, want, (int)t, (int)dv, 1e-13);
			if (tile.att_loops) {   /* the scalar path: kernel/loops.c's attention */
				cr_assert(strstr(title(lt), "for-loops"), "%s", title(lt));
				looptrace_free(lt);
				tensor_unref(o);
				continue;
			}
			const struct kernel_gemm_shape *g = &tile.att_gemm[1];
			int L = tile.softmax_lanes_f64;
			int64_t ch = (t + L - 1) / L, scores = walk_steps(g, t, dd, t, causal);
			int64_t soft = mk ? (t - 1) * (1 + 3 * ch + 2) + (1 + ch + 1 + 1) : t * (1 + 3 * ch + 2);
			cr_assert_eq(looptrace_total(lt), scores + soft + walk_steps(g, t, t, dv, false), "%s", steps(lt));
			cr_assert(strstr(title(lt), "two-pass"), "%s", title(lt));
			/* the three phases, each with its own code */
			int64_t first, last;
			looptrace_seek(lt, 1);
			cr_assert_str_eq(looptrace_phase(lt), "scores");
			looptrace_phase_bounds(lt, &first, &last);
			cr_assert_eq(last, scores);
			looptrace_seek(lt, scores + 1);
			cr_assert_str_eq(looptrace_phase(lt), "softmax");
			char buf[512];
			looptrace_explain(lt, buf, sizeof buf);
			cr_assert(strstr(buf, "*= ") && strstr(buf, causal ? "later keys -inf" : ""), "%s", buf);
			int f, l;
			const char *const *lines;
			looptrace_code(lt, &lines);
			looptrace_current_span(lt, &f, &l);
			cr_assert(strstr(lines[f], "att[row, :"), "%s", lines[f]);
			looptrace_seek(lt, scores + soft + 1);
			cr_assert_str_eq(looptrace_phase(lt), "weighted sum");
			looptrace_current_span(lt, &f, &l);
			cr_assert(strstr(lines[f], "acc += att[i0:i0 + "), "%s", lines[f]);
			/* the stories name the steps that compute each cell */
			assert_story_steps(lt, 1, 0, 0, "steps ");
			assert_story_steps(lt, 1, 9, 9, "steps ");
			assert_story_steps(lt, scores + 1, 9, 3, "divided in step ");
			assert_story_steps(lt, scores + soft + 1, 9, 4, "steps ");
			looptrace_free(lt);
			tensor_unref(o);
			tried++;
		}
	}
	kernel_force_simd(NULL);
	cr_assert_gt(tried, 0, "no vector path on this machine");
	tensor_unref(mask);
	tensor_unref(q);
	tensor_unref(k);
	tensor_unref(v);
}

Test(looptrace_variants, a_head_just_over_the_threshold_should_run_fused_and_one_at_it_two_pass)
{
	const int64_t dd = 4, dv = 3;
	struct tensor *k = matrix(64, dd, 41), *v = matrix(64, dv, 42);
	double *want = malloc(65 * dv * sizeof *want);
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		struct kernel_tile tile;
		kernel_simd_tile(&tile);
		for (int64_t tq = tile.att_small / 64; tq <= tile.att_small / 64 + 1; tq++) {
			struct tensor *q = matrix(tq, dd, 43);
			struct tensor *o = attention_result(q, k, v, true, 0.5);
			attention_f64_simd(want, NULL, tensor_data(q), tensor_data(k), tensor_data(v), NULL, true, 0.5, tq, 64,
					   dd, dv);
			struct looptrace *lt = looptrace_for_variant(o, TRACE_SIMD);
			cr_assert_not_null(lt);
			assert_ends_with(lt, want, (int)tq, (int)dv, 1e-13);
			if (tq * 64 <= tile.att_small) {
				cr_assert(strstr(title(lt), tile.att_loops ? "for-loops" : "two-pass"), "%s", title(lt));
			} else {
				cr_assert(strstr(title(lt), "fused"), "%s: %s", kernel_simd_path(path), title(lt));
				int64_t ar = tile.att_rows, ak = tile.att_keys, count = 0;
				for (int64_t i0 = 0; i0 < tq; i0 += ar) {
					int64_t bq = tq - i0 < ar ? tq - i0 : ar, kend = i0 + bq < 64 ? i0 + bq : 64;
					count += (kend + ak - 1) / ak + 1;
				}
				cr_assert_eq(looptrace_total(lt), count, "%s", steps(lt));
				cr_assert_str_eq(looptrace_phase(lt), "online softmax");
			}
			looptrace_free(lt);
			tensor_unref(o);
			tensor_unref(q);
		}
	}
	kernel_force_simd(NULL);
	free(want);
	tensor_unref(k);
	tensor_unref(v);
}

Test(looptrace_variants, a_depth_over_kc_should_grow_each_tile_over_several_passes_as_the_kernel_does)
{
	const int64_t m = 7, k = 400, n = 9;
	struct tensor *a = matrix(m, k, 51), *b = matrix(k, n, 52);
	struct tensor *c = product(a, b);
	const double *A = tensor_data(a), *B = tensor_data(b);
	double want[7 * 9];
	int tried = 0;
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		struct kernel_tile tile;
		kernel_simd_tile(&tile);
		const struct kernel_gemm_shape *g = &tile.gemm[1];
		matmul_f64_simd(want, A, B, m, k, n);
		struct looptrace *lt = looptrace_for_variant(c, TRACE_SIMD);
		assert_ends_with(lt, want, (int)m, (int)n, 0);   /* the kernel's sums, pass by pass, bit for bit */
		if (g->loops) {
			cr_assert_eq(looptrace_total(lt), m * n * k);
			looptrace_free(lt);
			continue;
		}
		cr_assert_gt(k, g->kc, "the depth should take more than one pass");
		cr_assert_eq(looptrace_total(lt), walk_steps(g, m, k, n, false));
		/* after the first pass over every tile each cell holds the sum of
		 * its first kc products, in order, and is not done */
		int64_t tiles = (m + g->tile_rows - 1) / g->tile_rows * ((n + g->tile_cols - 1) / g->tile_cols);
		int r, cc;
		const double *v;
		const uint8_t *st;
		looptrace_seek(lt, tiles * g->kc);
		looptrace_matrix(lt, &r, &cc, &v, &st);
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++) {
				double s = 0;
				for (int p = 0; p < g->kc; p++)
					s += A[i * k + p] * B[p * n + j];
				cr_assert(st[i * n + j] == 1 && v[i * n + j] == s, "(%d, %d): %.17g (%d), want %.17g", i, j,
					  v[i * n + j], st[i * n + j], s);
			}
		char buf[512], want_steps[128];
		looptrace_cell_story(lt, 0, 0, buf, sizeof buf);
		char *w = buf;   /* the numbers without their thousands commas */
		for (const char *x = buf; *x; x++)
			if (!(*x == ',' && isdigit((unsigned char)x[1]) && x > buf && isdigit((unsigned char)x[-1])))
				*w++ = *x;
		*w = 0;
		snprintf(want_steps, sizeof want_steps, "grown in steps 1-%d, %lld-%lld", g->kc,
			 (long long)(tiles * g->kc + 1), (long long)(tiles * g->kc + k - g->kc));
		cr_assert(strstr(buf, want_steps) && strstr(buf, "of the depth each, added up"), "%s", buf);
		snprintf(want_steps, sizeof want_steps, "the depth in 2 passes of %d", g->kc);
		cr_assert(strstr(steps(lt), want_steps), "%s", steps(lt));
		cr_assert(code_has(lt, "for p0 in range(0, 400, "));
		assert_story_steps(lt, 1, (int)m - 1, (int)n - 1, "grown in steps ");
		looptrace_free(lt);
		tried++;
	}
	kernel_force_simd(NULL);
	cr_assert_gt(tried, 0);
	tensor_unref(c);
	tensor_unref(a);
	tensor_unref(b);
}

Test(looptrace_variants, a_fused_head_with_more_value_columns_than_a_pass_should_take_a_pass_per_chunk)
{
	const int64_t tq = 50, tk = 90, dd = 4, dv = 80;
	struct tensor *q = matrix(tq, dd, 61), *k = matrix(tk, dd, 62), *v = matrix(tk, dv, 63);
	double *want = malloc(tq * dv * sizeof *want);
	for (int path = 0; kernel_simd_path(path); path++) {
		cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
		struct kernel_tile tile;
		kernel_simd_tile(&tile);
		cr_assert_gt(tq * tk, tile.att_small, "a fused head");
		cr_assert_lt(tile.att_dvc, dv, "more value columns than one pass takes");
		for (int causal = 0; causal < 2; causal++) {
			struct tensor *o = attention_result(q, k, v, causal, 0.5);
			attention_f64_simd(want, NULL, tensor_data(q), tensor_data(k), tensor_data(v), NULL, causal, 0.5, tq, tk,
					   dd, dv);
			struct looptrace *lt = looptrace_for_variant(o, TRACE_SIMD);
			assert_ends_with(lt, want, (int)tq, (int)dv, 1e-13);
			int64_t ar = tile.att_rows, ak = tile.att_keys, dvc = tile.att_dvc, chunks = (dv + dvc - 1) / dvc;
			int64_t count = 0, first_block = 0, last_i0 = (tq - 1) / ar * ar;
			for (int64_t i0 = 0; i0 < tq; i0 += ar) {
				int64_t bq = tq - i0 < ar ? tq - i0 : ar, kend = causal && i0 + bq < tk ? i0 + bq : tk;
				count += chunks * ((kend + ak - 1) / ak + 1);
				if (i0 == last_i0)   /* the block run first */
					first_block = (kend + ak - 1) / ak + 1;
			}
			cr_assert_eq(looptrace_total(lt), count, "%s", steps(lt));
			char want_text[96];
			snprintf(want_text, sizeof want_text, "(%lld passes of %lld value columns)", (long long)chunks,
				 (long long)dvc);
			cr_assert(strstr(steps(lt), want_text), "%s", steps(lt));
			/* the block run first (the last), its second pass: the columns after the first dvc */
			int row, col, rows, cols;
			looptrace_seek(lt, first_block + 1);
			looptrace_current_rect(lt, &row, &col, &rows, &cols);
			cr_assert(row == last_i0 && col == dvc && cols == dv - dvc, "%d %d %d %d", row, col, rows, cols);
			cr_assert_eq(state_at(lt, first_block + 1, (int)tq - 1, 0), 2, "the first pass's columns are done");
			cr_assert_eq(state_at(lt, first_block + 1, (int)tq - 1, (int)dvc), 1);
			cr_assert_eq(state_at(lt, first_block + 1, 0, 0), last_i0 ? 0 : 2, "the first block runs last");
			assert_story_steps(lt, 1, 0, (int)dv - 1, "divided by its l in step ");
			assert_story_steps(lt, 1, (int)tq - 1, 0, "divided by its l in step ");
			looptrace_free(lt);
			tensor_unref(o);
		}
	}
	kernel_force_simd(NULL);
	free(want);
	tensor_unref(q);
	tensor_unref(k);
	tensor_unref(v);
}

Test(looptrace_variants, a_4x4_product_should_show_the_tiny_path_it_takes)
{
	for (int dt = 0; dt < 2; dt++) {
		enum dtype type = dt ? DT_F64 : DT_F32;
		struct tensor *a = matrix_of(type, 4, 4, 71), *b = matrix_of(type, 4, 4, 72);
		struct derivation *d = derivation_new(DERIV_MATMUL, a, b, NULL);
		int64_t shape[2] = { 4, 4 };
		struct tensor *c = tensor_new(type, FLAVOR_TORCH, 2, shape);
		c->from = d;
		for (int path = 0; kernel_simd_path(path); path++) {
			cr_assert_eq(kernel_force_simd(kernel_simd_path(path)), 0);
			struct kernel_tile tile;
			kernel_simd_tile(&tile);
			const struct kernel_gemm_shape *g = &tile.gemm[dt];
			double want[16];
			if (dt) {
				matmul_f64_simd(want, tensor_data(a), tensor_data(b), 4, 4, 4);
			} else {
				float w32[16];
				matmul_f32_simd(w32, tensor_data(a), tensor_data(b), 4, 4, 4);
				for (int i = 0; i < 16; i++)
					want[i] = w32[i];
			}
			struct looptrace *lt = looptrace_for_variant(c, TRACE_SIMD);
			/* float64: the kernel's bits; float32: within its float roundings */
			assert_ends_with(lt, want, 4, 4, dt ? 0 : 1e-6);
			if (g->loops) {
				cr_assert_eq(looptrace_total(lt), 64);
				looptrace_free(lt);
				continue;
			}
			cr_assert(g->tiny > 0 && 4 <= g->kc && 16 <= g->tiny / 4, "a 4x4 product is a tiny one");
			int uc = g->tiny_cols > 1 && 4 % g->tiny_cols == 0 ? g->tiny_cols : 1;
			cr_assert_eq(looptrace_total(lt), 4 * (4 / uc) * 4);
			char want_text[96];
			if (uc > 1)
				snprintf(want_text, sizeof want_text, "vectorised (%s, tiny: %d columns at a time)", tile.path, uc);
			else
				snprintf(want_text, sizeof want_text, "vectorised (%s, tiny: one cell at a time)", tile.path);
			cr_assert_str_eq(title(lt), want_text);
			int row, col, rows, cols;
			looptrace_seek(lt, 4 * 1 + 1);   /* row 0's second group of columns (or cell) */
			looptrace_current_rect(lt, &row, &col, &rows, &cols);
			cr_assert(row == (uc == 4 ? 1 : 0) && col == (uc == 4 ? 0 : 1) && rows == 1 && cols == uc);
			cr_assert(code_has(lt, uc > 1 ? "acc += a[i, p] * b[p, j:j + 4]" : "acc += a[i, p] * b[p, j]"));
			assert_story_steps(lt, 1, 3, 2, "steps ");
			looptrace_free(lt);
		}
		kernel_force_simd(NULL);
		tensor_unref(c);
		tensor_unref(a);
		tensor_unref(b);
	}
}
