/* test_temper.c: the temperature knob's what-if tensors (view/temper.c):
 * which tensors it applies to, softmax recomputed from factor × scores
 * (masked keys stay at 0, an all-masked row is NaN as in torch), scores
 * multiplied, the entropy of a row, the factor's label. */
#include "lang/interp.h"
#include "view/temper.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static struct interp *I;

static const struct tensor *run_get(const char *src, const char *name)
{
	struct qkv_error err;
	cr_assert_eq(interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	struct value *v = interp_get(I, name);
	cr_assert(v && v->kind == V_TENSOR);
	return v->t;
}

static void setup(void)
{
	I = interp_new(KERNEL_SIMD);
}

static void teardown(void)
{
	interp_free(I);
}

TestSuite(temper, .init = setup, .fini = teardown);

Test(temper, softmax_weights_should_be_computed_again_from_the_scores_times_the_factor)
{
	const struct tensor *w = run_get("S = torch.tensor([[0., 0.6931471805599453]])\nW = torch.softmax(S, dim=-1)", "W");
	cr_assert_eq(temper_kind_of(w), TEMPER_WEIGHTS);
	struct tensor *t = temper_apply(w, 2.0);
	cr_assert(t);
	/* softmax([0, 2 ln 2]) = [1/5, 4/5] */
	cr_expect_float_eq(tensor_get(t, 0), 0.2, 1e-6);
	cr_expect_float_eq(tensor_get(t, 1), 0.8, 1e-6);
	cr_expect_float_eq(tensor_get(w, 0), 1.0 / 3, 1e-6, "the lesson's own weights changed");
	tensor_unref(t);
	t = temper_apply(w, 0.5);	/* ÷2 flattens: softmax([0, ln 2 / 2]) */
	cr_expect_float_eq(tensor_get(t, 1), sqrt(2.0) / (1 + sqrt(2.0)), 1e-6);
	tensor_unref(t);
}

Test(temper, masked_keys_should_stay_at_zero_and_an_all_masked_row_should_be_nan_as_in_torch)
{
	const struct tensor *w = run_get("S = torch.tensor([[1., float('-inf')], [float('-inf'), float('-inf')]])\n"
					 "W = torch.softmax(S, dim=-1)", "W");
	struct tensor *t = temper_apply(w, 4.0);
	cr_assert(t);
	cr_expect_eq(tensor_get(t, 0), 1.0);
	cr_expect_eq(tensor_get(t, 1), 0.0);
	cr_expect(isnan(tensor_get(t, 2)) && isnan(tensor_get(t, 3)));
	tensor_unref(t);
}

Test(temper, scores_should_be_multiplied_and_other_tensors_left_alone)
{
	const struct tensor *s = run_get("Q = torch.tensor([[1., 2.]])\nS = Q @ Q.T", "S");
	cr_assert_eq(temper_kind_of(s), TEMPER_SCORES);
	struct tensor *t = temper_apply(s, 0.25);
	cr_expect_eq(tensor_get(t, 0), 1.25);
	tensor_unref(t);
	const struct tensor *x = run_get("X = torch.tensor([1., 2.])", "X");
	cr_expect_eq(temper_kind_of(x), TEMPER_NONE);
	cr_expect_null(temper_apply(x, 2.0));
	cr_expect_null(temper_apply(s, 0.0));
	cr_expect_null(temper_apply(s, INFINITY));
}

Test(temper, entropy_should_be_ln_n_for_a_uniform_row_and_zero_for_a_one_hot_row)
{
	const struct tensor *w = run_get("W = torch.tensor([[0.5, 0.5, 0.], [1., 0., 0.], [-1., 2., 0.]])", "W");
	cr_expect_float_eq(temper_entropy(w, 0, 3), log(2.0), 1e-12);
	cr_expect_eq(temper_entropy(w, 3, 3), 0.0);
	cr_expect(isnan(temper_entropy(w, 6, 3)), "not weights");
}

Test(temper, the_label_should_say_times_or_divided_by_a_power_of_two)
{
	char b[16];
	temper_label(b, sizeof b, 2);
	cr_expect_str_eq(b, "\u00d74");
	temper_label(b, sizeof b, -1);
	cr_expect_str_eq(b, "\u00f72");
	temper_label(b, sizeof b, 0);
	cr_expect_str_eq(b, "\u00d71");
}
