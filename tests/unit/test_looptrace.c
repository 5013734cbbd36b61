/* test_looptrace.c: the model of the loop animation (view/looptrace.c):
 * after the last iteration the matrix is the real result (computed by the
 * interpreter in-process), partial states cell by cell, masks, seeking both
 * ways, the iteration limit and traces built from derivations. */
#include "view/looptrace.h"
#include "view/heatmap.h"
#include "lang/interp.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static struct interp *session(const char *src)
{
	struct interp *I = interp_new(KERNEL_SIMD);
	struct qkv_error err;
	cr_assert_eq(interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s: %s", src,
		     err.msg);
	return I;
}

static struct tensor *var(struct interp *I, const char *name)
{
	struct value *v = interp_get(I, name);
	cr_assert(v && v->kind == V_TENSOR, "%s is not a tensor", name);
	return v->t;
}

/* The matrix shown is want's first rows x cols matrix, every cell done. */
static void assert_matrix(const struct looptrace *lt, const struct tensor *want, int rows, int cols, double tol)
{
	int r, c;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &r, &c, &v, &st);
	cr_assert_eq(r, rows);
	cr_assert_eq(c, cols);
	for (int i = 0; i < rows * cols; i++) {
		double w = tensor_get(want, i);
		cr_assert_eq(st[i], 2, "cell %d not done", i);
		if (isnan(w))
			cr_assert(isnan(v[i]), "cell %d: %g, want nan", i, v[i]);
		else if (isinf(w))
			cr_assert_eq(v[i], w, "cell %d: %g, want %g", i, v[i], w);
		else
			cr_assert(fabs(v[i] - w) <= tol, "cell %d: %.9g, want %.9g", i, v[i], w);
	}
}

/* After the last iteration the matrix is want's. */
static void assert_result(struct looptrace *lt, const struct tensor *want, int rows, int cols, double tol)
{
	looptrace_seek(lt, looptrace_total(lt));
	assert_matrix(lt, want, rows, cols, tol);
}

static const char *line(const struct looptrace *lt, int i)
{
	const char *const *lines;
	int n = looptrace_code(lt, &lines);
	cr_assert(i >= 0 && i < n, "line %d of %d", i, n);
	return lines[i];
}

static const char *current_text(const struct looptrace *lt)
{
	return line(lt, looptrace_current_line(lt));
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

static const char *indices(const struct looptrace *lt)
{
	static char buf[128];
	looptrace_indices(lt, buf, sizeof buf);
	return buf;
}

static const char *explain(const struct looptrace *lt)
{
	static char buf[512];
	looptrace_explain(lt, buf, sizeof buf);
	return buf;
}

/* Two traces show the same thing, bit for bit. */
static void assert_same_view(const struct looptrace *a, const struct looptrace *b, const char *what)
{
	int ra, ca, rb, cb;
	const double *va, *vb;
	const uint8_t *sa, *sb;
	looptrace_matrix(a, &ra, &ca, &va, &sa);
	looptrace_matrix(b, &rb, &cb, &vb, &sb);
	cr_assert_eq(looptrace_pos(a), looptrace_pos(b), "%s", what);
	cr_assert(ra == rb && ca == cb, "%s at %lld: %dx%d vs %dx%d", what, (long long)looptrace_pos(a), ra, ca, rb,
		  cb);
	cr_assert(memcmp(va, vb, (size_t)(ra * ca) * sizeof *va) == 0, "%s at %lld: values differ", what,
		  (long long)looptrace_pos(a));
	cr_assert(memcmp(sa, sb, (size_t)(ra * ca)) == 0, "%s at %lld: states differ", what,
		  (long long)looptrace_pos(a));
	cr_assert_eq(looptrace_current_line(a), looptrace_current_line(b), "%s", what);
	cr_assert_str_eq(looptrace_phase(a), looptrace_phase(b), "%s", what);
	char ia[128], ib[128];
	looptrace_indices(a, ia, sizeof ia);
	looptrace_indices(b, ib, sizeof ib);
	cr_assert_str_eq(ia, ib, "%s", what);
}

/* Walks trace `make()` forward one step at a time, back one step at a time
 * and by jumps; at every position it must show what a fresh trace shows
 * after a single jump there, from 0 and from the end. */
static void assert_paths_agree(struct looptrace *(*make)(struct interp *), struct interp *I)
{
	struct looptrace *walk = make(I);
	cr_assert_not_null(walk);
	int64_t total = looptrace_total(walk);
	for (int64_t t = 0; t <= total; t++) {
		looptrace_seek(walk, t);
		struct looptrace *up = make(I), *down = make(I);
		looptrace_seek(up, t);
		looptrace_seek(down, total);
		looptrace_seek(down, t);
		assert_same_view(walk, up, "forward step vs jump from 0");
		assert_same_view(walk, down, "forward step vs jump back from the end");
		looptrace_free(up);
		looptrace_free(down);
	}
	struct looptrace *fresh = make(I);
	for (int64_t t = total; t >= 0; t--) {
		looptrace_seek(walk, t);
		looptrace_seek(fresh, 0);
		looptrace_seek(fresh, t);
		assert_same_view(walk, fresh, "backward step vs jump");
	}
	uint64_t x = 12345;
	for (int i = 0; i < 200; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t t = (int64_t)((x >> 33) % (uint64_t)(total + 1));
		looptrace_seek(walk, t);
		struct looptrace *once = make(I);
		looptrace_seek(once, t);
		assert_same_view(walk, once, "random jumps vs one jump");
		looptrace_free(once);
	}
	looptrace_free(fresh);
	looptrace_free(walk);
}

static const char *fmt4(char *buf, double v)
{
	snprintf(buf, 32, "%.4f", v);
	return buf;
}

/* ---- matmul -------------------------------------------------------------- */

#define MATMUL_SRC "torch.manual_seed(0); A = torch.randn(3, 4); B = torch.randn(4, 5); C = A @ B"

Test(looptrace, a_matmul_after_its_last_iteration_should_hold_the_product)
{
	struct interp *I = session(MATMUL_SRC);
	struct looptrace *lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	cr_assert_not_null(lt);
	cr_assert_eq(looptrace_kind(lt), TRACE_MATMUL);
	cr_assert_eq(looptrace_total(lt), 3 * 5 * 4);
	assert_result(lt, var(I, "C"), 3, 5, 1e-5);
	cr_assert_eq(looptrace_pos(lt), 60);
	cr_assert_str_eq(looptrace_phase(lt), "matmul");
	cr_assert_str_eq(looptrace_matrix_name(lt), "c");
	cr_assert_str_eq(looptrace_slice(lt), "");
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, a_matmul_before_its_first_iteration_should_be_zeros_on_no_line)
{
	struct interp *I = session(MATMUL_SRC);
	struct looptrace *lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	int rows, cols, first, last, r, c;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert_eq(rows, 3);
	cr_assert_eq(cols, 5);
	for (int i = 0; i < 15; i++)
		cr_assert(v[i] == 0 && st[i] == 0);
	cr_assert_eq(looptrace_pos(lt), 0);
	cr_assert_eq(looptrace_current_line(lt), -1);
	looptrace_current_span(lt, &first, &last);
	cr_assert(first == -1 && last == -1);
	cr_assert_not(looptrace_current_cell(lt, &r, &c));
	cr_assert_str_eq(indices(lt), "");
	cr_assert_str_eq(explain(lt), "c = torch.zeros(3, 5): no product computed yet");
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, a_matmul_partway_should_show_done_current_and_untouched_cells)
{
	struct interp *I = session(MATMUL_SRC);
	struct tensor *A = var(I, "A"), *B = var(I, "B"), *C = var(I, "C");
	struct looptrace *lt = looptrace_matmul(A, B);
	/* 30 iterations: cells (0,0)..(1,1) done, then p = 0 and 1 of (1,2) */
	looptrace_seek(lt, 30);
	int rows, cols, r, c;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	for (int i = 0; i < 7; i++) {
		cr_assert_eq(st[i], 2, "cell %d", i);
		cr_assert(fabs(v[i] - tensor_get(C, i)) < 1e-5);
	}
	double a0 = tensor_get(A, 4), a1 = tensor_get(A, 5), b0 = tensor_get(B, 2), b1 = tensor_get(B, 7);
	cr_assert_eq(st[7], 1);
	cr_assert_eq(v[7], a0 * b0 + a1 * b1);
	for (int i = 8; i < 15; i++)
		cr_assert(st[i] == 0 && v[i] == 0, "cell %d", i);
	cr_assert_str_eq(current_text(lt), "            s += a[i, p] * b[p, j]");
	cr_assert_str_eq(indices(lt), "i = 1, j = 2, p = 1");
	cr_assert(looptrace_current_cell(lt, &r, &c));
	cr_assert(r == 1 && c == 2);
	char want[256], n1[32], n2[32], n3[32];
	snprintf(want, sizeof want, "s += a[1, 1] \u00b7 b[1, 2] = %s \u00d7 %s \u2192 s = %s", fmt4(n1, a1),
		 fmt4(n2, b1), fmt4(n3, a0 * b0 + a1 * b1));
	cr_assert_str_eq(explain(lt), want);
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, the_last_p_of_a_cell_should_store_it_and_span_the_store_line)
{
	struct interp *I = session(MATMUL_SRC);
	struct tensor *C = var(I, "C");
	struct looptrace *lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	looptrace_seek(lt, 32);
	int rows, cols, first, last;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert_eq(st[7], 2);
	cr_assert(fabs(v[7] - tensor_get(C, 7)) < 1e-5);
	cr_assert_eq(st[8], 0);
	cr_assert_str_eq(indices(lt), "i = 1, j = 2, p = 3");
	looptrace_current_span(lt, &first, &last);
	cr_assert_str_eq(line(lt, first), "            s += a[i, p] * b[p, j]");
	cr_assert_str_eq(line(lt, last), "        c[i, j] = s");
	char tail[64], n[32];
	snprintf(tail, sizeof tail, "; c[1, 2] = %s", fmt4(n, v[7]));
	const char *e = explain(lt);
	cr_assert(strlen(e) > strlen(tail) && !strcmp(e + strlen(e) - strlen(tail), tail), "%s", e);
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, seeking_should_clamp_to_the_ends)
{
	struct interp *I = session(MATMUL_SRC);
	struct looptrace *lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	looptrace_seek(lt, 1000);
	cr_assert_eq(looptrace_pos(lt), 60);
	looptrace_seek(lt, -5);
	cr_assert_eq(looptrace_pos(lt), 0);
	looptrace_free(lt);
	interp_free(I);
}

static struct looptrace *make_matmul(struct interp *I)
{
	return looptrace_matmul(var(I, "A"), var(I, "B"));
}

Test(looptrace, a_matmul_should_show_the_same_whichever_way_it_was_seeked)
{
	struct interp *I = session(MATMUL_SRC);
	assert_paths_agree(make_matmul, I);
	interp_free(I);
}

Test(looptrace, a_64_cubed_matmul_should_step_and_jump_quickly, .timeout = 20)
{
	struct interp *I = session("torch.manual_seed(1); A = torch.randn(64, 64); B = torch.randn(64, 64); C = A @ B");
	struct looptrace *lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	cr_assert_eq(looptrace_total(lt), 262144);
	for (int64_t t = 1; t <= 262144; t++)
		looptrace_seek(lt, t);
	assert_result(lt, var(I, "C"), 64, 64, 1e-4);
	uint64_t x = 7;
	for (int i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		looptrace_seek(lt, (int64_t)((x >> 33) % 262145));
	}
	for (int64_t t = 262144; t >= 200000; t--)
		looptrace_seek(lt, t);
	assert_result(lt, var(I, "C"), 64, 64, 1e-4);
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, a_vector_operand_should_be_one_row_or_one_column)
{
	struct interp *I = session("torch.manual_seed(2); x = torch.randn(4); W = torch.randn(4, 3); y = x @ W; "
				   "z = W.T @ x");
	struct looptrace *lt = looptrace_matmul(var(I, "x"), var(I, "W"));
	cr_assert_not_null(lt);
	assert_result(lt, var(I, "y"), 1, 3, 1e-5);
	cr_assert(code_has(lt, "s += a[p] * b[p, j]"));
	looptrace_free(lt);
	lt = looptrace_matmul(var(I, "W"), var(I, "x"));
	cr_assert_null(lt, "(4,3) @ (4,) does not fit");
	struct qkv_error err;
	struct value *wt = interp_eval(I, "W.T", 3, &err);
	cr_assert_not_null(wt, "%s", err.msg);
	lt = looptrace_matmul(wt->t, var(I, "x"));
	assert_result(lt, var(I, "z"), 3, 1, 1e-5);
	cr_assert(code_has(lt, "s += a[i, p] * b[p]"));
	looptrace_free(lt);
	value_unref(wt);
	interp_free(I);
}

Test(looptrace, batched_operands_should_be_traced_through_their_first_matrix)
{
	struct interp *I = session("torch.manual_seed(3); A = torch.randn(2, 3, 4); B = torch.randn(2, 4, 5); "
				   "C = A @ B; P = torch.randn(2, 2, 3, 4); Q = torch.randn(2, 2, 4, 2); R = P @ Q; "
				   "S = A @ torch.randn(4, 2)");
	struct looptrace *lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	cr_assert_str_eq(looptrace_slice(lt), "batch 0");
	assert_result(lt, var(I, "C"), 3, 5, 1e-5);
	looptrace_free(lt);
	lt = looptrace_matmul(var(I, "P"), var(I, "Q"));
	cr_assert_str_eq(looptrace_slice(lt), "batch 0, head 0");
	assert_result(lt, var(I, "R"), 3, 2, 1e-5);
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, shapes_that_do_not_fit_or_are_empty_should_give_no_trace)
{
	struct interp *I = session("A = torch.ones(3, 4); B = torch.ones(5, 2); E = torch.ones(3, 0); "
				   "F = torch.ones(0, 2); s = torch.tensor(2.0)");
	cr_assert_null(looptrace_matmul(var(I, "A"), var(I, "B")));
	cr_assert_null(looptrace_matmul(var(I, "E"), var(I, "F")));
	cr_assert_null(looptrace_matmul(var(I, "s"), var(I, "B")));
	cr_assert_null(looptrace_softmax(var(I, "E")));
	cr_assert_null(looptrace_softmax(var(I, "s")));
	cr_assert_null(looptrace_attention(var(I, "A"), var(I, "B"), var(I, "B"), NULL, false, 1.0));
	interp_free(I);
}

Test(looptrace, traces_over_fifty_million_iterations_should_be_refused)
{
	int64_t s400[2] = { 400, 400 }, s500[2] = { 500, 100 }, s1000[2] = { 100, 1000 }, s8k[2] = { 8000, 1 };
	struct tensor *a = tensor_new(DT_F32, FLAVOR_TORCH, 2, s400);
	cr_assert_null(looptrace_matmul(a, a), "400 x 400 x 400 = 64M iterations");
	struct tensor *b = tensor_new(DT_F32, FLAVOR_TORCH, 2, s500), *c = tensor_new(DT_F32, FLAVOR_TORCH, 2, s1000);
	struct looptrace *lt = looptrace_matmul(b, c);
	cr_assert_not_null(lt, "500 x 1000 x 100 = 50M iterations exactly");
	cr_assert_eq(looptrace_total(lt), LOOPTRACE_MAX_ITERATIONS);
	looptrace_free(lt);
	struct tensor *q = tensor_new(DT_F32, FLAVOR_TORCH, 2, s8k);
	cr_assert_null(looptrace_attention(q, q, q, NULL, false, 1.0), "8000 x 8000 scores alone are 64M");
	tensor_unref(a);
	tensor_unref(b);
	tensor_unref(c);
	tensor_unref(q);
}

/* ---- softmax ------------------------------------------------------------- */

#define SOFTMAX_SRC "torch.manual_seed(4); X = torch.randn(3, 5) * 2; W = torch.softmax(X, dim=-1)"

Test(looptrace, a_softmax_after_its_last_iteration_should_hold_the_weights)
{
	struct interp *I = session(SOFTMAX_SRC);
	struct looptrace *lt = looptrace_softmax(var(I, "X"));
	cr_assert_not_null(lt);
	cr_assert_eq(looptrace_kind(lt), TRACE_SOFTMAX);
	cr_assert_eq(looptrace_total(lt), 3 * 3 * 5);
	assert_result(lt, var(I, "W"), 3, 5, 1e-6);
	cr_assert_str_eq(looptrace_phase(lt), "softmax");
	cr_assert_str_eq(looptrace_matrix_name(lt), "y");
	cr_assert_not(code_has(lt, "float('-inf'):"), "no row of -inf only: no zeroing lines");
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, a_softmax_should_start_as_a_copy_of_its_input)
{
	struct interp *I = session(SOFTMAX_SRC);
	struct tensor *X = var(I, "X");
	struct looptrace *lt = looptrace_softmax(X);
	int rows, cols;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	for (int i = 0; i < 15; i++)
		cr_assert(v[i] == tensor_get(X, i) && st[i] == 0);
	cr_assert_str_eq(line(lt, 0), "y = x.clone()");
	cr_assert_str_eq(explain(lt), "y starts as a copy of x");
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, each_softmax_pass_should_mark_the_cells_it_reached)
{
	struct interp *I = session(SOFTMAX_SRC);
	struct tensor *X = var(I, "X"), *W = var(I, "W");
	struct looptrace *lt = looptrace_softmax(X);
	int rows, cols, first, last, r, c;
	const double *v;
	const uint8_t *st;
	double x[5], max = -INFINITY, sum = 0;
	for (int j = 0; j < 5; j++) {
		x[j] = tensor_get(X, 5 + j);
		max = fmax(max, x[j]);
	}
	for (int j = 0; j < 5; j++)
		sum += exp(x[j] - max);

	/* row 1 starts after 15 iterations: its max pass, j = 2 */
	looptrace_seek(lt, 15 + 3);
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	for (int i = 0; i < 5; i++)
		cr_assert(st[i] == 2 && fabs(v[i] - tensor_get(W, i)) < 1e-6);
	for (int j = 0; j < 5; j++)
		cr_assert(st[5 + j] == (j <= 2 ? 1 : 0) && v[5 + j] == x[j], "j = %d", j);
	for (int i = 10; i < 15; i++)
		cr_assert(st[i] == 0 && v[i] == tensor_get(X, i));
	cr_assert_str_eq(current_text(lt), "        if y[r, j] > max: max = y[r, j]");
	cr_assert_str_eq(indices(lt), "r = 1, j = 2");

	/* the exp pass, j = 2 */
	looptrace_seek(lt, 15 + 5 + 3);
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	for (int j = 0; j < 5; j++) {
		cr_assert_eq(st[5 + j], j <= 2 ? 1 : 0, "j = %d", j);
		cr_assert_eq(v[5 + j], j <= 2 ? exp(x[j] - max) : x[j], "j = %d", j);
	}
	cr_assert_str_eq(current_text(lt), "        y[r, j] = exp(y[r, j] - max)");
	looptrace_current_span(lt, &first, &last);
	cr_assert_str_eq(line(lt, last), "        sum += y[r, j]");
	cr_assert_str_eq(looptrace_phase(lt), "softmax");
	cr_assert(strstr(explain(lt), "y[1, 2] = exp("), "%s", explain(lt));

	/* the division pass, j = 1 */
	looptrace_seek(lt, 15 + 10 + 2);
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	for (int j = 0; j < 5; j++) {
		cr_assert_eq(st[5 + j], j <= 1 ? 2 : 1, "j = %d", j);
		cr_assert(fabs(v[5 + j] - (j <= 1 ? exp(x[j] - max) / sum : exp(x[j] - max))) < 1e-12, "j = %d", j);
	}
	cr_assert_str_eq(current_text(lt), "        y[r, j] = y[r, j] / sum");
	cr_assert_str_eq(indices(lt), "r = 1, j = 1");
	cr_assert(looptrace_current_cell(lt, &r, &c));
	cr_assert(r == 1 && c == 1);
	char want[128], n1[32], n2[32], n3[32];
	snprintf(want, sizeof want, "y[1, 1] = %s / %s = %s", fmt4(n1, exp(x[1] - max)), fmt4(n2, sum),
		 fmt4(n3, exp(x[1] - max) / sum));
	cr_assert_str_eq(explain(lt), want);
	looptrace_free(lt);
	interp_free(I);
}

#define MASKED_ROW_SRC "X = torch.tensor([[1.0, 2.0], [float('-inf'), float('-inf')], [0.0, 3.0]]); " \
		       "W = torch.softmax(X, dim=-1)"

Test(looptrace, a_row_of_minus_inf_only_should_become_nan_in_one_iteration)
{
	struct interp *I = session(MASKED_ROW_SRC);
	struct looptrace *lt = looptrace_softmax(var(I, "X"));
	cr_assert_eq(looptrace_total(lt), 6 + 3 + 6, "the masked row: 2 max steps and the nan");
	cr_assert(code_has(lt, "if max == float('-inf'):"));
	looptrace_seek(lt, 6 + 3);
	int rows, cols, first, last, r, c;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert(st[2] == 2 && st[3] == 2 && isnan(v[2]) && isnan(v[3]), "0/0, as torch gives");
	cr_assert(st[4] == 0 && st[5] == 0 && v[4] == 0.0 && v[5] == 3.0, "row 2 not reached");
	cr_assert_str_eq(current_text(lt), "        y[r] = float('nan')  # 0/0: every exp is 0");
	looptrace_current_span(lt, &first, &last);
	cr_assert_str_eq(line(lt, first), "    if max == float('-inf'):  # a row of -inf only");
	cr_assert_str_eq(line(lt, last), "        continue");
	cr_assert_str_eq(indices(lt), "r = 1");
	cr_assert(looptrace_current_cell(lt, &r, &c));
	cr_assert(r == 1 && c == -1);
	looptrace_seek(lt, 6 + 1);
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert(isinf(v[2]) && v[2] < 0 && st[2] == 1, "the max pass still shows -inf");
	assert_result(lt, var(I, "W"), 3, 2, 1e-6);
	looptrace_free(lt);
	interp_free(I);
}

static struct looptrace *make_masked_softmax(struct interp *I)
{
	return looptrace_softmax(var(I, "X"));
}

Test(looptrace, a_softmax_should_show_the_same_whichever_way_it_was_seeked)
{
	struct interp *I = session(MASKED_ROW_SRC);
	assert_paths_agree(make_masked_softmax, I);
	interp_free(I);
}

/* ---- attention ----------------------------------------------------------- */

#define ATTN_SRC \
	"import math; import torch.nn.functional as F; torch.manual_seed(5); " \
	"Q = torch.randn(4, 3); K = torch.randn(4, 3); V = torch.randn(4, 2); " \
	"S = Q @ K.T / math.sqrt(3); S = S.masked_fill(torch.tril(torch.ones(4, 4)) == 0, float('-inf')); " \
	"W = F.softmax(S, dim=-1); O = W @ V; O2 = F.scaled_dot_product_attention(Q, K, V, is_causal=True)"

static struct looptrace *make_causal(struct interp *I)
{
	return looptrace_attention(var(I, "Q"), var(I, "K"), var(I, "V"), NULL, true, 1 / sqrt(3.0));
}

Test(looptrace, a_causal_attention_should_give_minus_inf_scores_then_zero_weights)
{
	struct interp *I = session(ATTN_SRC);
	struct looptrace *lt = make_causal(I);
	cr_assert_not_null(lt);
	cr_assert_eq(looptrace_kind(lt), TRACE_ATTENTION);
	cr_assert_eq(looptrace_total(lt), 16 + 3 * 16 + 16);
	int64_t first, last;

	/* the scores: masked keys are -inf, the rest match S */
	cr_assert_str_eq(looptrace_phase(lt), "scores");
	looptrace_phase_bounds(lt, &first, &last);
	cr_assert(first == 0 && last == 16);
	looptrace_seek(lt, 16);
	cr_assert_str_eq(looptrace_phase(lt), "scores");
	cr_assert_str_eq(looptrace_matrix_name(lt), "att");
	assert_matrix(lt, var(I, "S"), 4, 4, 1e-5);
	int rows, cols;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert(rows == 4 && cols == 4);
	for (int q = 0; q < 4; q++) {
		for (int k = 0; k < 4; k++) {
			cr_assert_eq(st[q * 4 + k], 2);
			if (k > q)
				cr_assert(isinf(v[q * 4 + k]) && v[q * 4 + k] < 0, "(%d, %d)", q, k);
			else
				cr_assert(fabs(v[q * 4 + k] - tensor_get(var(I, "S"), q * 4 + k)) < 1e-5);
		}
	}

	/* the weights: 0 where the scores were -inf */
	looptrace_seek(lt, 17);
	cr_assert_str_eq(looptrace_phase(lt), "softmax");
	looptrace_phase_bounds(lt, &first, &last);
	cr_assert(first == 17 && last == 64);
	looptrace_seek(lt, last);
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert(rows == 4 && cols == 4);
	for (int i = 0; i < 16; i++) {
		cr_assert_eq(st[i], 2);
		cr_assert(fabs(v[i] - tensor_get(var(I, "W"), i)) < 1e-6, "cell %d", i);
		if (i % 4 > i / 4)
			cr_assert_eq(v[i], 0.0);
	}

	/* the weighted sums: the output of both vectorised forms */
	looptrace_seek(lt, 65);
	cr_assert_str_eq(looptrace_phase(lt), "weighted sum");
	cr_assert_str_eq(looptrace_matrix_name(lt), "out");
	looptrace_phase_bounds(lt, &first, &last);
	cr_assert(first == 65 && last == 80);
	assert_result(lt, var(I, "O"), 4, 2, 1e-5);
	assert_result(lt, var(I, "O2"), 4, 2, 1e-5);
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, a_masked_key_should_run_the_if_and_continue_lines)
{
	struct interp *I = session(ATTN_SRC);
	struct looptrace *lt = make_causal(I);
	looptrace_seek(lt, 2);   /* (q_idx 0, k_idx 1): a later token */
	int first, last;
	cr_assert_str_eq(current_text(lt), "            att[q_idx, k_idx] = float('-inf')");
	looptrace_current_span(lt, &first, &last);
	cr_assert_str_eq(line(lt, first), "        if k_idx > q_idx:");
	cr_assert_str_eq(line(lt, last), "            continue");
	cr_assert_str_eq(indices(lt), "q_idx = 0, k_idx = 1");
	cr_assert_str_eq(explain(lt), "k_idx 1 > q_idx 0, a later token: att[0, 1] = -inf");
	int rows, cols;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert(st[0] == 2 && st[1] == 2 && st[2] == 0 && isinf(v[1]) && v[2] == 0);

	looptrace_seek(lt, 1);   /* (0, 0): a real dot product, scaled */
	cr_assert_str_eq(current_text(lt), "        att[q_idx, k_idx] = torch.dot(q, k) * scale");
	looptrace_current_span(lt, &first, &last);
	cr_assert(first == last);
	cr_assert(code_has(lt, "scale = 1 / math.sqrt(3)"));
	cr_assert(strstr(explain(lt), "att[0, 0] = queries[0] \u00b7 keys[0] \u00d7 scale = "), "%s", explain(lt));

	looptrace_seek(lt, 64 + 6);   /* out row 1, v_idx 1 */
	cr_assert_str_eq(current_text(lt), "        out[row] += a[v_idx] * v");
	cr_assert_str_eq(indices(lt), "row = 1, v_idx = 1");
	cr_assert(strstr(explain(lt), "out[1] += a[1] \u00b7 values[1] = "), "%s", explain(lt));
	int r, c;
	cr_assert(looptrace_current_cell(lt, &r, &c));
	cr_assert(r == 1 && c == -1);
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert(rows == 4 && cols == 2);
	cr_assert(st[0] == 2 && st[1] == 2 && st[2] == 1 && st[3] == 1 && st[4] == 0);
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, an_attention_should_show_the_same_whichever_way_it_was_seeked)
{
	struct interp *I = session(ATTN_SRC);
	assert_paths_agree(make_causal, I);
	interp_free(I);
}

#define MASK_SRC \
	"import torch.nn.functional as F; torch.manual_seed(6); " \
	"Q = torch.randn(3, 2); K = torch.randn(3, 2); V = torch.randn(3, 4); " \
	"M = torch.tensor([[False, True, False], [True, True, True], [False, False, True]]); " \
	"S = (Q @ K.T).masked_fill(M, float('-inf')); W = F.softmax(S, dim=-1); O = W @ V"

static struct looptrace *make_masked(struct interp *I)
{
	return looptrace_attention(var(I, "Q"), var(I, "K"), var(I, "V"), var(I, "M"), false, 1.0);
}

Test(looptrace, a_mask_should_hide_keys_and_a_fully_masked_query_should_get_nan)
{
	struct interp *I = session(MASK_SRC);
	struct looptrace *lt = make_masked(I);
	cr_assert_not_null(lt);
	cr_assert(code_has(lt, "        if mask[q_idx, k_idx]:"));
	cr_assert(code_has(lt, "        att[q_idx, k_idx] = torch.dot(q, k)"));
	cr_assert_not(code_has(lt, "scale"));
	cr_assert(code_has(lt, "        att[row] = float('nan')  # 0/0: every exp is 0"));
	cr_assert_eq(looptrace_total(lt), 9 + (9 + 4 + 9) + 9);
	int64_t first, last;
	looptrace_seek(lt, 10);
	cr_assert_str_eq(looptrace_phase(lt), "softmax");
	looptrace_phase_bounds(lt, &first, &last);
	cr_assert(first == 10 && last == 31);
	looptrace_seek(lt, 9);
	assert_matrix(lt, var(I, "S"), 3, 3, 1e-5);
	looptrace_seek(lt, last);
	assert_matrix(lt, var(I, "W"), 3, 3, 1e-6);
	int rows, cols;
	const double *v;
	const uint8_t *st;
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	cr_assert(v[1] == 0 && isnan(v[3]) && isnan(v[4]) && isnan(v[5]) && v[8] == 0);
	assert_result(lt, var(I, "O"), 3, 4, 1e-5);
	looptrace_matrix(lt, &rows, &cols, &v, &st);
	for (int c = 0; c < 4; c++)
		cr_assert(isnan(v[4 + c]), "query 1 sees nothing: its output is nan, as in torch");
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, a_masked_attention_should_show_the_same_whichever_way_it_was_seeked)
{
	struct interp *I = session(MASK_SRC);
	assert_paths_agree(make_masked, I);
	interp_free(I);
}

/* ---- derivations --------------------------------------------------------- */

/* A result tensor of shape (r, c) computed as d says (takes d). */
static struct tensor *derived(struct derivation *d, int64_t r, int64_t c)
{
	int64_t shape[2] = { r, c };
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape);
	t->from = d;
	return t;
}

Test(looptrace, a_matmul_derivation_should_name_the_operands_by_their_labels)
{
	struct interp *I = session("torch.manual_seed(7); Q = torch.randn(3, 4); K = torch.randn(5, 4); KT = K.T; "
				   "S = Q @ K.T");
	struct derivation *d = derivation_new(DERIV_MATMUL, var(I, "Q"), var(I, "KT"), NULL);
	snprintf(d->label_a, sizeof d->label_a, "Q");
	snprintf(d->label_b, sizeof d->label_b, "K.T");
	struct tensor *t = derived(d, 3, 5);
	struct looptrace *lt = looptrace_for(t);
	cr_assert_not_null(lt);
	cr_assert(code_has(lt, "            s += Q[i, p] * K.T[p, j]"));
	looptrace_seek(lt, 1);
	cr_assert(!strncmp(explain(lt), "s += Q[0, 0] \u00b7 K.T[0, 0] = ", strlen("s += Q[0, 0] \u00b7 K.T[0, 0] = ")),
		  "%s", explain(lt));
	assert_result(lt, var(I, "S"), 3, 5, 1e-5);
	looptrace_free(lt);

	/* an expression as a label is parenthesised before indexing */
	snprintf(d->label_a, sizeof d->label_a, "x @ W_q");
	lt = looptrace_for(t);
	cr_assert(code_has(lt, "s += (x @ W_q)[i, p] * K.T[p, j]"));
	looptrace_free(lt);

	/* no labels: a and b */
	d->label_a[0] = d->label_b[0] = 0;
	lt = looptrace_for(t);
	cr_assert(code_has(lt, "s += a[i, p] * b[p, j]"));
	looptrace_free(lt);
	tensor_unref(t);
	interp_free(I);
}

Test(looptrace, a_softmax_derivation_should_be_traced_only_over_the_last_dim)
{
	struct interp *I = session(SOFTMAX_SRC);
	struct tensor *X = var(I, "X");
	struct derivation *d = derivation_new(DERIV_SOFTMAX, X, NULL, NULL);
	d->dim = -1;
	snprintf(d->label_a, sizeof d->label_a, "scores");
	struct tensor *t = derived(d, 3, 5);
	struct looptrace *lt = looptrace_for(t);
	cr_assert_not_null(lt);
	cr_assert_str_eq(line(lt, 0), "y = scores.clone()");
	assert_result(lt, var(I, "W"), 3, 5, 1e-6);
	looptrace_free(lt);
	d->dim = 1;
	lt = looptrace_for(t);
	cr_assert_not_null(lt, "dim 1 of a 2-D tensor is the last");
	looptrace_free(lt);
	d->dim = 0;
	cr_assert_null(looptrace_for(t));
	d->dim = -2;
	cr_assert_null(looptrace_for(t));
	tensor_unref(t);
	interp_free(I);
}

Test(looptrace, an_attention_derivation_should_carry_its_scale_causality_and_labels)
{
	struct interp *I = session(ATTN_SRC);
	struct derivation *d = derivation_new(DERIV_ATTENTION, var(I, "Q"), var(I, "K"), var(I, "V"));
	d->scalar = 1 / sqrt(3.0);
	d->causal = true;
	snprintf(d->label_a, sizeof d->label_a, "Q");
	snprintf(d->label_b, sizeof d->label_b, "K");
	snprintf(d->label_c, sizeof d->label_c, "V");
	struct tensor *t = derived(d, 4, 2);
	struct looptrace *lt = looptrace_for(t);
	cr_assert_not_null(lt);
	cr_assert(code_has(lt, "for q_idx, q in enumerate(Q):"));
	cr_assert(code_has(lt, "    for k_idx, k in enumerate(K):"));
	cr_assert(code_has(lt, "    for v_idx, v in enumerate(V):"));
	cr_assert(code_has(lt, "        if k_idx > q_idx:"));
	assert_result(lt, var(I, "O2"), 4, 2, 1e-5);
	looptrace_free(lt);
	tensor_unref(t);
	interp_free(I);
}

Test(looptrace, an_attention_derivation_should_take_its_mask_from_the_inner_masked_fill)
{
	struct interp *I = session(MASK_SRC);
	struct derivation *d = derivation_new(DERIV_ATTENTION, var(I, "Q"), var(I, "K"), var(I, "V"));
	d->scalar = 1.0;
	d->inner = derivation_new(DERIV_MASKED_FILL, NULL, var(I, "M"), NULL);
	d->inner->scalar = -INFINITY;
	struct tensor *t = derived(d, 3, 4);
	struct looptrace *lt = looptrace_for(t);
	cr_assert_not_null(lt);
	cr_assert(code_has(lt, "        if mask[q_idx, k_idx]:"));
	assert_result(lt, var(I, "O"), 3, 4, 1e-5);
	looptrace_free(lt);
	tensor_unref(t);
	interp_free(I);
}

Test(looptrace, other_derivations_and_plain_tensors_should_give_no_trace)
{
	struct interp *I = session("X = torch.ones(2, 2); Y = torch.ones(2, 2)");
	cr_assert_null(looptrace_for(var(I, "Y")));
	struct derivation *d = derivation_new(DERIV_SCALE, var(I, "X"), NULL, NULL);
	d->scalar = 2;
	struct tensor *t = derived(d, 2, 2);
	cr_assert_null(looptrace_for(t));
	tensor_unref(t);
	d = derivation_new(DERIV_MASKED_FILL, var(I, "X"), var(I, "Y"), NULL);
	t = derived(d, 2, 2);
	cr_assert_null(looptrace_for(t));
	tensor_unref(t);
	cr_assert_null(looptrace_for(NULL));
	interp_free(I);
}

/* The derivations the ops attach (core/ops.c), once they do. */
Test(looptrace, the_derivations_of_real_results_should_trace_back_to_them)
{
	struct interp *I = session("import math; import torch.nn.functional as F; torch.manual_seed(8); "
				   "Q = torch.randn(4, 3); K = torch.randn(4, 3); V = torch.randn(4, 2); "
				   "S = Q @ K.T; W = torch.softmax(S, dim=-1); "
				   "O = F.scaled_dot_product_attention(Q, K, V, is_causal=True); "
				   "M = torch.tensor([[True, False, True, True], [False, False, False, False], "
				   "[True, True, True, False], [True, True, True, True]]); "
				   "OM = F.scaled_dot_product_attention(Q, K, V, attn_mask=M); "
				   "WM = F.softmax((Q @ K.T / math.sqrt(3)).masked_fill(~M, float('-inf')), dim=-1); "
				   "OM2 = WM @ V");
	if (!var(I, "S")->from || !var(I, "W")->from || !var(I, "O")->from || !var(I, "OM")->from) {
		interp_free(I);
		cr_skip_test("the ops attach no derivations yet");
	}
	struct looptrace *lt = looptrace_for(var(I, "S"));
	cr_assert_not_null(lt);
	cr_assert_eq(looptrace_kind(lt), TRACE_MATMUL);
	assert_result(lt, var(I, "S"), 4, 4, 1e-5);
	looptrace_free(lt);
	lt = looptrace_for(var(I, "W"));
	cr_assert_not_null(lt);
	cr_assert_eq(looptrace_kind(lt), TRACE_SOFTMAX);
	assert_result(lt, var(I, "W"), 4, 4, 1e-6);
	looptrace_free(lt);
	lt = looptrace_for(var(I, "O"));
	cr_assert_not_null(lt);
	cr_assert_eq(looptrace_kind(lt), TRACE_ATTENTION);
	assert_result(lt, var(I, "O"), 4, 2, 1e-5);
	looptrace_free(lt);
	/* attn_mask marks who takes part; query 1 may see nothing: zeros */
	lt = looptrace_for(var(I, "OM"));
	cr_assert_not_null(lt);
	cr_assert(code_has(lt, "        if mask[q_idx, k_idx]:"));
	assert_result(lt, var(I, "OM"), 4, 2, 1e-5);
	assert_result(lt, var(I, "OM2"), 4, 2, 1e-5);
	looptrace_free(lt);
	interp_free(I);
}

/* ---- the explanation's signs and the matrix's label ------------------------ */

Test(looptrace, an_exp_of_a_score_minus_a_negative_max_should_read_as_adding_its_magnitude)
{
	/* issue 12: lesson 2 step 10 read exp(-3.3173 - -0.0801) */
	struct interp *I = session("X = torch.tensor([[-3.3173, -0.0801, -1.0], [1.0, 2.0, 0.5]], dtype=torch.float64)");
	struct looptrace *lt = looptrace_softmax(var(I, "X"));
	looptrace_seek(lt, 3 + 1);	/* row 0's exp pass, j = 0 */
	char want[128], n3[32], n4[32];
	double e = exp(-3.3173 + 0.0801);
	snprintf(want, sizeof want, "y[0, 0] = exp(-3.3173 + 0.0801) = %s \u2192 sum = %s", fmt4(n3, e), fmt4(n4, e));
	cr_assert_str_eq(explain(lt), want);
	/* a positive max is subtracted as it is */
	looptrace_seek(lt, 9 + 3 + 1);	/* row 1's exp pass, j = 0 */
	cr_assert(strstr(explain(lt), "y[1, 0] = exp(1.0000 - 2.0000) = "), "%s", explain(lt));
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, no_explanation_of_an_attention_should_subtract_or_add_a_negative_number)
{
	struct interp *I = session(ATTN_SRC);
	struct looptrace *lt = make_causal(I);
	int negatives = 0;
	for (int64_t t = 0; t <= looptrace_total(lt); t++) {
		looptrace_seek(lt, t);
		const char *e = explain(lt);
		cr_assert(!strstr(e, "- -") && !strstr(e, "+ -"), "at %lld: %s", (long long)t, e);
		negatives += strstr(e, "exp(-") != NULL;
	}
	cr_assert(negatives > 0, "the test should see negative scores");
	looptrace_free(lt);
	interp_free(I);
}

/* The label at position t: the matrix's name, its size and what it holds. */
static const char *label_at(struct looptrace *lt, int64_t t)
{
	static char buf[256];
	looptrace_seek(lt, t);
	looptrace_matrix_label(lt, buf, sizeof buf);
	return buf;
}

Test(looptrace, the_label_of_the_matrix_should_name_it_in_every_phase)
{
	struct interp *I = session(ATTN_SRC);
	struct looptrace *lt = make_causal(I);
	/* scores 0..16, softmax 17..64, weighted sums 65..80 */
	for (int64_t t = 0; t <= 16; t++)
		cr_assert_str_eq(label_at(lt, t), "att (4\u00d74): the scores, one per query and key", "at %lld",
				 (long long)t);
	for (int64_t t = 17; t <= 64; t++)
		cr_assert_str_eq(label_at(lt, t), "att (4\u00d74): the scores turning into weights, row by row",
				 "at %lld", (long long)t);
	for (int64_t t = 65; t <= 80; t++)
		cr_assert_str_eq(label_at(lt, t), "out (4\u00d72): each row a weighted sum of the value rows",
				 "at %lld", (long long)t);
	/* every label starts with looptrace_matrix_name */
	for (int64_t t = 0; t <= 80; t++) {
		const char *l = label_at(lt, t);
		cr_assert(!strncmp(l, looptrace_matrix_name(lt), strlen(looptrace_matrix_name(lt))), "%s", l);
	}
	looptrace_free(lt);
	interp_free(I);

	I = session(MATMUL_SRC);
	lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	cr_assert_str_eq(label_at(lt, 0), "c (3\u00d75): sums of products, one cell at a time");
	cr_assert_str_eq(label_at(lt, 7), "c (3\u00d75): sums of products, one cell at a time");
	looptrace_free(lt);
	interp_free(I);

	I = session(SOFTMAX_SRC);
	lt = looptrace_softmax(var(I, "X"));
	cr_assert_str_eq(label_at(lt, 0), "y (3\u00d75): the rows turning into weights, one by one");
	cr_assert_str_eq(label_at(lt, looptrace_total(lt)), "y (3\u00d75): the rows turning into weights, one by one");
	looptrace_free(lt);
	interp_free(I);

	/* a batched operand: the slice followed */
	I = session("torch.manual_seed(1); A = torch.randn(2, 3, 4); B = torch.randn(2, 4, 2)");
	lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	cr_assert_str_eq(label_at(lt, 5), "c (3\u00d72): sums of products, one cell at a time, batch 0");
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, a_scores_matmul_should_be_labelled_by_its_result_not_as_weights)
{
	/* issue 12: lesson 4 step 4's scores, queries @ keys.T, read "weights" */
	struct interp *I = session("torch.manual_seed(3); queries = torch.randn(4, 6); keys = torch.randn(4, 6); "
				   "S = queries @ keys.transpose(-2, -1)");
	struct looptrace *lt = looptrace_for(var(I, "S"));
	cr_assert_not_null(lt);
	for (int64_t t = 0; t <= looptrace_total(lt); t += 7) {
		const char *l = label_at(lt, t);
		cr_assert(!strstr(l, "weight"), "%s", l);
		cr_assert_str_eq(l, "c (4\u00d74): sums of products, one cell at a time");
	}
	looptrace_free(lt);
	interp_free(I);
}

Test(looptrace, the_heatmap_of_a_trace_should_leave_cells_not_reached_blank)
{
	/* issue 12: qkv 2 --step 12 at 200x60 drew them as "nan?" */
	struct interp *I = session(MATMUL_SRC);
	struct looptrace *lt = looptrace_matmul(var(I, "A"), var(I, "B"));
	looptrace_seek(lt, 4 * 2 + 1);	/* (0, 0) and (0, 1) done, (0, 2) begun */
	struct heatmap h;
	heatmap_build_trace(&h, lt, SCALE_DIVERGING);
	cr_assert(h.blank);
	cr_assert(h.rows == 3 && h.cols == 5);
	for (int i = 0; i < 15; i++) {
		int r = i / 5, c = i % 5;
		if (i <= 2)
			cr_assert_eq(heatmap_cell_kind(&h, r, c), CELL_VALUE, "cell %d", i);
		else
			cr_assert_eq(heatmap_cell_kind(&h, r, c), CELL_BLANK, "cell %d", i);
	}
	/* nor does the legend call the blank cells NaN */
	cr_assert(!h.any_nan);
	char legend[512];
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_WORDS, legend, sizeof legend, 200);
	cr_assert(!strstr(legend, "nan"), "%s", legend);
	heatmap_free(&h);
	/* a tensor's own NaN is a value to show */
	heatmap_build(&h, var(I, "A"), NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	cr_assert(!h.blank);
	heatmap_free(&h);
	looptrace_free(lt);
	interp_free(I);
}
