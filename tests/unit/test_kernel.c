/* test_kernel.c: the kernel checks of tests/kernel/checks.c as Criterion
 * tests, one per group and named as it, each run on every simd path of this
 * machine (kernel_simd_path: the CPU's best down to scalar) unless it chooses its
 * own; a failure shows the harness's lines. Run with --verbose for errors. */

/* tests/cross/kernel_cross.c runs the same groups without Criterion, on
 * aarch64 too: every simd kernel against its loops twin at sizes 1, 3, 7,
 * 17, 33, 64, 100, the vectorised exp against libm, the plain kernels
 * against hand-computed cases. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "checks.h"

static void kernel_test_group(enum kcheck_id id)
{
	int npaths = kcheck_each_path(id) ? kcheck_npaths() : 1;
	for (int path = 0; path < npaths; path++) {
		struct kcheck_result r;
		kcheck_run(id, path, &r);
		cr_log_info("%s on %s: %ld checks, max %s %.3g, %.2f s", kcheck_name(id), r.path, r.checks,
			    r.ulp ? "ulp" : "error", r.worst, r.seconds);
		cr_assert_eq(r.failures, 0, "%s on %s: %ld of %ld checks failed:\n%s", kcheck_name(id), r.path, r.failures,
			     r.checks, r.text);
		cr_assert_gt(r.checks, 0, "%s on %s checked nothing", kcheck_name(id), r.path);
	}
}

#define KERNEL_TEST(name, each_path) \
	Test(kernel, name) \
	{ \
		kernel_test_group(KCHECK_##name); \
	}
KCHECK_GROUPS(KERNEL_TEST)
#undef KERNEL_TEST
