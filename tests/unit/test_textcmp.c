/* test_textcmp.c: core/textcmp.c in process, the rule `qkv check` applies to
 * a text or output expect: one unit in the last printed digit only for a
 * number written with digits after the point (0.1234 and 0.1235, where float
 * rounding can differ), as many of them and in the same notation; integers
 * (counts, shapes, indices) and whole floats printed with a bare point
 * (torch's 2.) exactly; never across the sign but for zero; a "tol" or the
 * float32 relative tolerance of the docs tests beside it. */
#include "core/textcmp.h"

#include <criterion/criterion.h>

#define F32_REL 2.5e-7 /* as in tests/system/test_docs.c */

static void passes(const char *got, const char *want, double f32_rel, double tol)
{
	char why[256] = "";
	cr_expect(textcmp_match(got, want, f32_rel, tol, false, why, sizeof why),
		  "got \"%s\" should pass for \"%s\" (f32_rel %g, tol %g): %s", got, want, f32_rel, tol, why);
}

static void fails(const char *got, const char *want, double f32_rel, double tol)
{
	char why[256] = "";
	cr_expect_not(textcmp_match(got, want, f32_rel, tol, false, why, sizeof why),
		      "got \"%s\" should fail for \"%s\" (f32_rel %g, tol %g)", got, want, f32_rel, tol);
}

Test(textcmp, integers_should_be_exact)
{
	fails("41", "42", 0, 0);
	fails("42", "41", 0, 0);
	fails("7\n", "8\n", 0, 0);
	fails("torch.Size([3])", "torch.Size([4])", 0, 0);
	fails("torch.Size([2, 3])", "torch.Size([2, 4])", 0, 0);
	fails("tensor([0, 2, 1])", "tensor([0, 1, 1])", 0, 0);
	fails("tensor(9)", "tensor(10)", 0, 0);
	fails("-1", "0", 0, 0);
	passes("torch.Size([3])", "torch.Size([3])", 0, 0);
	passes("41", "41", 0, 0);
}

Test(textcmp, whole_floats_with_a_bare_point_should_be_exact)
{
	fails("tensor(3.)", "tensor(2.)", 0, 0);
	fails("tensor([1., 1., 1.])", "tensor([1., 1., 2.])", 0, 0);
	fails("array([1. , 2.5])", "array([2. , 2.5])", 0, 0);
	fails("tensor(-1.)", "tensor(-2.)", 0, 0);
	passes("tensor([1., 1., 2.])", "tensor([1., 1., 2.])", 0, 0);
}

Test(textcmp, an_integer_and_a_float_of_the_same_value_should_differ)
{
	/* another dtype: torch prints tensor(2) for int64, tensor(2.) for float */
	fails("tensor(2)", "tensor(2.)", 0, 0);
	fails("tensor(2.)", "tensor(2)", 0, 0);
	fails("1", "1.0", F32_REL, 0);
	fails("1", "1.", 0, 1e-6);
}

Test(textcmp, decimals_should_pass_one_unit_in_the_last_digit_and_no_more)
{
	passes("0.1235", "0.1234", 0, 0);
	passes("0.1234", "0.1235", 0, 0);
	passes("tensor([0.1235])", "tensor([0.1234])", 0, 0);
	passes("-0.1235", "-0.1234", 0, 0);
	fails("0.1236", "0.1234", 0, 0);
	fails("0.1334", "0.1234", 0, 0);
	fails("1.1234", "0.1234", 0, 0);
	/* the ones place of a decimal with digits after the point is not its
	 * last digit: 3.5 and 2.5 differ by ten units */
	fails("3.5", "2.5", 0, 0);
	/* a carry over a rounding boundary is one unit too */
	passes("1.0000", "0.9999", 0, 0);
	passes("0.9999", "1.0000", 0, 0);
	/* one digit after the point, even a 0: a fixed-precision format
	 * (f"{x:.1f}", torch's 2.0000) rounds there */
	passes("2.1", "2.0", 0, 0);
	passes("2.0000", "1.9999", 0, 0);
	fails("2.2", "2.0", 0, 0);
}

Test(textcmp, scientific_notation_should_pass_one_unit_of_the_mantissas_last_digit)
{
	passes("1.2346e-03", "1.2345e-03", 0, 0);
	passes("1.2345e-03", "1.2346e-03", 0, 0);
	passes("tensor([3.2830e-03, 9.9635e-01])", "tensor([3.2831e-03, 9.9634e-01])", 0, 0);
	passes("1.5e-3", "1.6e-3", 0, 0);
	fails("1.2347e-03", "1.2345e-03", 0, 0);
	fails("1.2345e-04", "1.2345e-03", 0, 0);
	fails("1.2345e-03", "1.2345e-04", 0, 0);
	/* across a power of ten: one unit of the smaller of the two */
	passes("9.9999e-04", "1.0000e-03", 0, 0);
	fails("9.9998e-04", "1.0000e-03", 0, 0);
	/* an exponent without digits after the point is exact */
	fails("2e-05", "1e-05", 0, 0);
	/* the same value in another notation prints differently */
	fails("1.0000e-03", "0.0010", 0, 0);
}

Test(textcmp, another_number_of_digits_after_the_point_should_differ)
{
	fails("0.123", "0.1234", 0, 0);
	fails("0.1234", "0.123", 0, 0);
	fails("1.00", "1.0", 0, 0);
	fails("0.30000000000000004", "0.3", 0, 0);
	fails("1.0000", "1.", 0, 0);
}

Test(textcmp, the_sign_should_matter_but_for_zero)
{
	fails("-0.0001", "0.0001", 0, 0);
	fails("0.0001", "-0.0001", 0, 0);
	fails("-0.0001", "0.0000", 0, 0);
	fails("0.0000", "-0.0001", 0, 0);
	fails("-0.1234", "0.1234", 0, 0);
	/* a tiny value rounds to zero with either sign */
	passes("x = -0.0000", "x = 0.0000", 0, 0);
	passes("-0.0001", "-0.0000", 0, 0);
	fails("tensor(-0.)", "tensor(0.)", 0, 0);
}

Test(textcmp, a_tol_should_allow_that_much_beside_the_last_digit_but_not_on_integers)
{
	/* lesson 3's score that cancels, a row sum one float32 step from 1 */
	passes("2.7665e-03", "2.7663e-03", 0, 1e-6);
	fails("2.7665e-03", "2.7663e-03", 0, 0);
	passes("tensor(0.)", "tensor(1.1921e-07)", 0, 1e-6);
	passes("tensor([1.0000, 1.0000])", "tensor([1., 1.])", 0, 1e-6);
	fails("tensor([1.0001, 1.0000])", "tensor([1., 1.])", 0, 1e-6);
	passes("0.5761", "0.5771", 0, 0.002);
	fails("0.5761", "0.5771", 0, 0.0005);
	/* a count does not depend on the order of sums */
	fails("41", "42", 0, 2);
	fails("torch.Size([3])", "torch.Size([4])", 0, 2);
}

Test(textcmp, seventeen_digit_float32_values_should_pass_within_f32_rel)
{
	passes("a = -0.12174583971500397", "a = -0.12174582481384277", F32_REL, 0);
	fails("a = -0.12174583971500397", "a = -0.12174582481384277", 0, 0);
	fails("a = -0.12184583971500397", "a = -0.12174582481384277", F32_REL, 0);
}

Test(textcmp, a_mismatch_should_name_the_line_and_both_numbers)
{
	char why[256] = "";
	cr_assert_not(textcmp_match("a\ntorch.Size([2, 3])\n", "a\ntorch.Size([2, 4])\n", 0, 0, false, why, sizeof why));
	cr_assert_str_eq(why, "line 2: got 3 where 4 was expected");
	cr_assert_not(textcmp_match("tensor(3.)", "tensor(2.)", 0, 1e-6, false, why, sizeof why));
	cr_assert_str_eq(why, "line 1: got 3. where 2. was expected (tolerance 1e-06)");
}

Test(textcmp, digits_inside_a_name_should_be_text)
{
	fails("x1 = 0.5000", "x2 = 0.5000", 0, 0);
	passes("MmBackward0>", "MmBackward0>", 0, 0);
	fails("MmBackward0>", "MmBackward1>", 0, 0);
}
