/* test_ops_sort.c: unit tests for the ops that order, pick and spread
 * (src/core/ops_sort.c, ops_reduce.c's max over a dim and var, ops.c's
 * linspace, ops_view.c's flatten): equal elements come in the order torch
 * 1.13 and numpy 1.24 give them (the values below are theirs), NaN is the
 * largest, and the bad arguments fail with the libraries' messages. */
#include <criterion/criterion.h>

#include "core/ops.h"

#include <math.h>
#include <string.h>

static struct ops_ctx ctx;

static void setup(void)
{
	ops_ctx_init(&ctx, KERNEL_SIMD);
}

TestSuite(ops_sort, .init = setup);

/* a 1-d tensor of these n values */
static struct tensor *vec(enum dtype dt, enum flavor fl, const double *v, int64_t n)
{
	struct tensor *t = tensor_new(dt, fl, 1, &n);
	for (int64_t i = 0; i < n; i++)
		tensor_set(t, i, v[i]);
	return t;
}

static void expect_indices(const struct tensor *idx, const int64_t *want, int64_t n, const char *what)
{
	cr_assert_eq(idx->dtype, DT_I64, "%s", what);
	cr_assert_eq(tensor_numel(idx), n, "%s", what);
	for (int64_t i = 0; i < n; i++)
		cr_expect_eq(tensor_get_i64(idx, i), want[i], "%s: index %lld is %lld, torch/numpy give %lld", what,
			     (long long)i, (long long)tensor_get_i64(idx, i), (long long)want[i]);
}

/* 20 values of 0, 1, 2: more than the 16 std::sort leaves to insertion */
static const double TIES[20] = { 2, 0, 1, 2, 0, 1, 1, 2, 0, 0, 2, 1, 2, 0, 1, 1, 2, 0, 1, 2 };

Test(ops_sort, torch_sort_should_order_ties_as_std_sort_does_and_stable_as_given)
{
	struct tensor *x = vec(DT_F32, FLAVOR_TORCH, TIES, 20), *v, *i;
	struct qkv_error err;
	static const int64_t unstable[20] = { 1, 4, 8, 9, 17, 13, 2, 5, 6, 18, 11, 14, 15, 19, 0, 16, 12, 10, 7, 3 };
	static const int64_t stable[20] = { 1, 4, 8, 9, 13, 17, 2, 5, 6, 11, 14, 15, 18, 0, 3, 7, 10, 12, 16, 19 };
	static const int64_t desc[20] = { 10, 19, 16, 12, 0, 7, 3, 6, 5, 11, 14, 15, 2, 18, 8, 9, 4, 13, 17, 1 };
	cr_assert_eq(ops_sort(&ctx, x, -1, false, SORT_TORCH, &v, &i, &err), 0);
	expect_indices(i, unstable, 20, "sort");
	for (int k = 1; k < 20; k++)
		cr_expect_leq(tensor_get(v, k - 1), tensor_get(v, k));
	tensor_unref(v);
	tensor_unref(i);
	cr_assert_eq(ops_sort(&ctx, x, 0, false, SORT_STABLE, &v, &i, &err), 0);
	expect_indices(i, stable, 20, "sort(stable=True)");
	tensor_unref(v);
	tensor_unref(i);
	cr_assert_eq(ops_sort(&ctx, x, 0, true, SORT_TORCH, &v, &i, &err), 0);
	expect_indices(i, desc, 20, "sort(descending=True)");
	tensor_unref(v);
	tensor_unref(i);
	tensor_unref(x);
}

Test(ops_sort, numpy_argsort_should_order_ties_as_its_quicksort_and_heapsort_do)
{
	struct tensor *x = vec(DT_F64, FLAVOR_NUMPY, TIES, 20), *v, *i;
	struct qkv_error err;
	static const int64_t quick[20] = { 9, 1, 17, 4, 8, 13, 2, 5, 6, 18, 15, 11, 14, 16, 0, 10, 7, 3, 12, 19 };
	static const int64_t heap[20] = { 17, 8, 13, 1, 4, 9, 6, 2, 14, 18, 11, 5, 15, 12, 10, 19, 16, 7, 3, 0 };
	cr_assert_eq(ops_sort(&ctx, x, 0, false, SORT_NUMPY_QUICK, &v, &i, &err), 0);
	expect_indices(i, quick, 20, "np.argsort");
	tensor_unref(v);
	tensor_unref(i);
	cr_assert_eq(ops_sort(&ctx, x, 0, false, SORT_NUMPY_HEAP, &v, &i, &err), 0);
	expect_indices(i, heap, 20, "np.argsort(kind='heapsort')");
	tensor_unref(v);
	tensor_unref(i);
	tensor_unref(x);
}

Test(ops_sort, nan_should_sort_as_the_largest_number)
{
	static const double xs[5] = { 3, 1, NAN, 1, 2 };
	struct tensor *x = vec(DT_F32, FLAVOR_TORCH, xs, 5), *v, *i;
	struct qkv_error err;
	static const int64_t up[5] = { 1, 3, 4, 0, 2 }, down[5] = { 2, 0, 4, 1, 3 };
	cr_assert_eq(ops_sort(&ctx, x, 0, false, SORT_TORCH, &v, &i, &err), 0);
	expect_indices(i, up, 5, "sort with a NaN");
	cr_expect(isnan(tensor_get(v, 4)));
	tensor_unref(v);
	tensor_unref(i);
	cr_assert_eq(ops_sort(&ctx, x, 0, true, SORT_TORCH, &v, &i, &err), 0);
	expect_indices(i, down, 5, "descending sort with a NaN");
	tensor_unref(v);
	tensor_unref(i);
	tensor_unref(x);
}

Test(ops_sort, topk_should_pick_as_torchs_partial_sort_and_nth_element_do)
{
	double many[200];
	for (int k = 0; k < 200; k++)
		many[k] = TIES[k % 20];
	struct tensor *x = vec(DT_F32, FLAVOR_TORCH, many, 200), *v, *i;
	struct qkv_error err;
	static const int64_t top3[3] = { 7, 0, 3 }, low5[5] = { 77, 81, 173, 84, 73 };
	cr_assert_eq(ops_topk(&ctx, x, 3, -1, true, true, &v, &i, &err), 0);	/* 3 * 64 <= 200: partial_sort */
	expect_indices(i, top3, 3, "topk(3)");
	tensor_unref(v);
	tensor_unref(i);
	cr_assert_eq(ops_topk(&ctx, x, 5, 0, false, true, &v, &i, &err), 0);
	expect_indices(i, low5, 5, "topk(5, largest=False)");
	tensor_unref(v);
	tensor_unref(i);
	tensor_unref(x);
	x = vec(DT_F32, FLAVOR_TORCH, TIES, 20);	/* 4 * 64 > 20: nth_element, then std::sort */
	static const int64_t top4[4] = { 12, 7, 0, 10 };
	cr_assert_eq(ops_topk(&ctx, x, 4, 0, true, false, &v, &i, &err), 0);
	expect_indices(i, top4, 4, "topk(4, sorted=False)");
	tensor_unref(v);
	tensor_unref(i);
	cr_expect_eq(ops_topk(&ctx, x, 21, 0, true, true, &v, &i, &err), -1);
	cr_expect_str_eq(err.msg, "selected index k out of range");
	cr_expect_eq(ops_topk(&ctx, x, -1, 0, true, true, &v, &i, &err), -1);
	tensor_unref(x);
}

Test(ops_sort, max_over_a_dim_should_give_the_first_largest_and_the_first_nan)
{
	static const double xs[6] = { 1, 3, 3, NAN, 2, NAN };
	int64_t shape[2] = { 2, 3 };
	struct tensor *x = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape), *v, *i;
	for (int k = 0; k < 6; k++)
		tensor_set(x, k, xs[k]);
	struct qkv_error err;
	cr_assert_eq(ops_max_dim(&ctx, x, 1, false, false, &v, &i, &err), 0);
	static const int64_t rows[2] = { 1, 0 };
	expect_indices(i, rows, 2, "max(1)");
	cr_expect_eq(tensor_get(v, 0), 3);
	cr_expect(isnan(tensor_get(v, 1)));
	tensor_unref(v);
	tensor_unref(i);
	cr_assert_eq(ops_max_dim(&ctx, x, 0, true, true, &v, &i, &err), 0);
	static const int64_t cols[3] = { 1, 1, 1 };
	expect_indices(i, cols, 3, "min(0)");
	cr_expect_eq(v->ndim, 2);
	cr_expect_eq(v->shape[0], 1);
	tensor_unref(v);
	tensor_unref(i);
	cr_expect_eq(ops_max_dim(&ctx, x, 2, false, false, &v, &i, &err), -1);
	cr_expect_str_eq(err.msg, "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
	tensor_unref(x);
	int64_t empty[2] = { 2, 0 };
	x = tensor_new(DT_F32, FLAVOR_TORCH, 2, empty);
	cr_expect_eq(ops_max_dim(&ctx, x, 1, false, false, &v, &i, &err), -1);
	cr_expect_str_eq(err.msg, "IndexError: max(): Expected reduction dim 1 to have non-zero size.");
	tensor_unref(x);
}

Test(ops_sort, var_should_be_torchs_to_the_last_bit_and_refuse_integers)
{
	static const double xs[8] = { 1, 2, 4, 8, 3, 3, 5, 9 };
	int64_t shape[2] = { 2, 4 };
	struct tensor *x = tensor_new(DT_F32, FLAVOR_TORCH, 2, shape);
	for (int k = 0; k < 8; k++)
		tensor_set(x, k, xs[k]);
	struct qkv_error err;
	struct tensor *r = ops_var(&ctx, x, false, 1, false, 1, false, &err);	/* Welford per row */
	cr_assert_not_null(r);
	cr_expect_eq(tensor_get(r, 0), 9.583333015441895);
	cr_expect_eq(tensor_get(r, 1), 8.0);
	tensor_unref(r);
	r = ops_var(&ctx, x, true, 0, false, 1, false, &err);	/* two passes */
	cr_expect_eq(tensor_get(r, 0), 7.982142925262451);
	tensor_unref(r);
	r = ops_var(&ctx, x, false, 0, false, 0, true, &err);	/* std, unbiased=False */
	cr_expect_eq(tensor_get(r, 0), 1.0);
	cr_expect_eq(tensor_get(r, 3), 0.5);
	tensor_unref(r);
	tensor_unref(x);
	x = tensor_new(DT_I64, FLAVOR_TORCH, 2, shape);
	cr_expect_null(ops_var(&ctx, x, true, 0, false, 1, false, &err));
	cr_expect_str_eq(err.msg, "std and var only support floating point and complex dtypes");
	tensor_unref(x);
}

static uint32_t bits_f32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

Test(ops_sort, linspace_should_be_torchs_and_numpys_to_the_last_bit)
{
	struct qkv_error err;
	struct tensor *t = ops_linspace(&ctx, FLAVOR_TORCH, 0, 1, 50, true, DT_F32, &err);
	const float *y = tensor_data(t);
	cr_expect_eq(bits_f32(y[15]), 0x3e9cbc14);	/* torch.linspace(0, 1, 50)[15], its bits */
	cr_expect_eq(bits_f32(y[21]), 0x3edb6db6);
	cr_expect_eq(bits_f32(y[33]), 0x3f2c687d);
	cr_expect_eq(bits_f32(y[47]), 0x3f758d10);
	cr_expect_eq(y[49], 1.0f);
	tensor_unref(t);
	t = ops_linspace(&ctx, FLAVOR_NUMPY, 0.1, 0.9, 100, true, DT_F64, &err);
	const double *d = tensor_data(t);
	cr_expect_eq(d[0], 0.1);
	cr_expect_eq(d[37], 37 * ((0.9 - 0.1) / 99) + 0.1);	/* i * step + start */
	cr_expect_eq(d[99], 0.9);
	tensor_unref(t);
	cr_expect_null(ops_linspace(&ctx, FLAVOR_TORCH, 0, 1, -2, true, DT_F32, &err));
	cr_expect_str_eq(err.msg, "number of steps must be non-negative");
}

Test(ops_sort, flatten_should_be_a_view_and_refuse_start_after_end)
{
	int64_t shape[3] = { 2, 3, 4 };
	struct tensor *x = tensor_new(DT_F32, FLAVOR_TORCH, 3, shape);
	struct qkv_error err;
	struct tensor *f = ops_flatten(&ctx, x, 1, -1, &err);
	cr_assert_not_null(f);
	cr_expect_eq(f->ndim, 2);
	cr_expect_eq(f->shape[1], 12);
	cr_expect_eq(f->storage, x->storage);
	tensor_unref(f);
	cr_expect_null(ops_flatten(&ctx, x, 2, 0, &err));
	cr_expect_str_eq(err.msg, "flatten() has invalid args: start_dim cannot come after end_dim");
	tensor_unref(x);
}
