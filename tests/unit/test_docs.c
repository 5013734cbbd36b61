/* test_docs.c: the comparator the acceptance tests of the engine issue use
 * (tests/system/test_docs.c runs the notebooks' cells through ./qkv and
 * compares with it): numbers may differ by one unit in the last printed
 * digit, or by a float32 ulp or two when printed with 17 digits; the times
 * of IPython's magics are masked, torch's grad_fn marks must agree.
 * In-process. */
#include "doccmp.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdlib.h>

/* as in tests/system/test_docs.c: float32 values printed with Python's 17
 * digits may differ by two float32 ulps where BLAS sums in another order */
#define F32_REL 2.5e-7

Test(docs, comparator_should_allow_one_unit_in_the_last_digit_only)
{
	char why[256];
	cr_assert(text_matches("tensor([0.1235])", "tensor([0.1234])", 0, false, why, sizeof why));
	cr_assert_not(text_matches("tensor([0.1236])", "tensor([0.1234])", 0, false, why, sizeof why));
	cr_assert_not(text_matches("tensor([0.1234]) x", "tensor([0.1234])", 0, false, why, sizeof why));
	cr_assert(text_matches("a = -0.12174583971500397", "a = -0.12174582481384277", F32_REL, false, why,
			       sizeof why));
	cr_assert_not(text_matches("a = -0.12174583971500397", "a = -0.12174582481384277", 0, false, why,
				   sizeof why));
	/* grad_fn is compared as text: qkv prints it where torch does */
	cr_assert_not(text_matches("tensor([[1.]])", "tensor([[1.]], grad_fn=<MmBackward0>)", 0, false, why,
				   sizeof why));
	cr_assert(text_matches("tensor([[1.0001]], grad_fn=<MmBackward0>)", "tensor([[1.0000]], grad_fn=<MmBackward0>)",
			       0, false, why, sizeof why));
	cr_assert_not(text_matches("tensor([[1.]], grad_fn=<MmBackward0>)", "tensor([[1.]], grad_fn=<MvBackward0>)", 0,
				   false, why, sizeof why));
}

Test(docs, comparator_should_mask_the_times_of_time_and_timeit_lines)
{
	char why[512];
	const char *doc = "CPU times: user 911 ms, sys: 998 ms, total: 1.91 s\nWall time: 2.28 s\n";
	cr_assert(doccmp_match("CPU times: user 1.2 s, sys: 3 µs, total: 1min 3s\nWall time: 812 ns\n", doc, 0, false,
			       why, sizeof why), "%s", why);
	cr_assert(doccmp_match("1.07 ms ± 2.1 µs per loop (mean ± std. dev. of 7 runs, 1,000 loops each)\n",
			       "3.2 s ± 15 ms per loop (mean ± std. dev. of 7 runs, 1 loop each)\n", 0, false, why,
			       sizeof why), "%s", why);
	/* a time without its unit, a missing field, other text: not masked */
	cr_assert_not(doccmp_match("CPU times: user 1.2, sys: 3 µs, total: 1 s\nWall time: 2.28 s\n", doc, 0, false,
				   why, sizeof why));
	cr_assert_not(doccmp_match("CPU times: user 1.2 s, total: 1 s\nWall time: 2.28 s\n", doc, 0, false, why,
				   sizeof why));
	cr_assert_not(doccmp_match("CPU times: user 1 s, sys: 1 s, total: 2 s\nWall time: 2.28 s\nx\n", doc, 0, false,
				   why, sizeof why));
	char *masked = doccmp_mask_times("a\nWall time: 2.28 s\nb 1.5 s");
	cr_assert_str_eq(masked, "a\nWall time: T\nb 1.5 s");
	free(masked);
}

Test(docs, comparator_should_require_the_same_grad_fn_marks)
{
	char why[512];
	cr_assert(doccmp_match("tensor([[1.]], grad_fn=<MmBackward0>)", "tensor([[1.]], grad_fn=<MmBackward0>)", 0,
			       false, why, sizeof why));
	cr_assert_not(doccmp_match("tensor([[1.]])", "tensor([[1.]], grad_fn=<MmBackward0>)", 0, false, why,
				   sizeof why));
	cr_assert_not(doccmp_match("tensor([[1.]], grad_fn=<ViewBackward0>)", "tensor([[1.]], grad_fn=<MmBackward0>)",
				   0, false, why, sizeof why));
	cr_assert_not(doccmp_match("tensor([1.], requires_grad=True)", "tensor([1.])", 0, false, why, sizeof why));
	cr_assert(doccmp_match("tensor([1.])\ntensor([2.], grad_fn=<MulBackward0>)", "tensor([1.])\n", 0, true, why,
			       sizeof why), "%s", why);
	char *marks = doccmp_grad_marks("a grad_fn=<CatBackward0>) b requires_grad=True)");
	cr_assert_str_eq(marks, "grad_fn=<CatBackward0>\nrequires_grad=True\n");
	free(marks);
}
