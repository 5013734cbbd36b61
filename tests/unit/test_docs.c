/* test_docs.c: the comparator the acceptance tests of the engine issue use
 * (tests/system/test_docs.c runs the notebooks' cells through ./qkv and
 * compares with it): numbers may differ by one unit in the last printed
 * digit, or by a float32 ulp or two when printed with 17 digits. In-process. */
#include "helpers.h"

#include <criterion/criterion.h>

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
