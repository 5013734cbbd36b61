/* test_timing_text.c: the words of view/timing for the three kernel
 * variants: each panel's time and speed against the loops, a comparison's
 * three times, and each variant's verdict; below a millisecond of loops
 * the clock measures noise and the texts say so. */
#include <criterion/criterion.h>

#include "view/timing.h"

#include <math.h>
#include <string.h>

Test(timing_text, each_variant_should_say_its_time_and_its_speed_against_the_loops)
{
	char buf[128];
	timing_variant_text(buf, sizeof buf, KERNEL_UNROLLED, 9.1, 35.49);
	cr_expect_str_eq(buf, "unrolled \u00d74: 9.1 ms, 3.9\u00d7 the loops' speed");
	timing_variant_text(buf, sizeof buf, KERNEL_SIMD, 0.81, 35.2);
	cr_expect_str_eq(buf, "SIMD: 0.81 ms, 43\u00d7 the loops' speed");
	timing_variant_text(buf, sizeof buf, KERNEL_LOOPS, 35.2, 35.2);
	cr_expect_str_eq(buf, "loops: 35.2 ms");
	/* slower than the loops is said as it is */
	timing_variant_text(buf, sizeof buf, KERNEL_UNROLLED, 4.0, 2.0);
	cr_expect_str_eq(buf, "unrolled \u00d74: 4.0 ms, 0.5\u00d7 the loops' speed");
}

Test(timing_text, under_a_millisecond_of_loops_each_variant_should_be_too_quick_to_time)
{
	char buf[128];
	timing_variant_text(buf, sizeof buf, KERNEL_UNROLLED, 0.2, 0.9);
	cr_expect_str_eq(buf, "unrolled \u00d74: too quick to time");
	timing_variant_text(buf, sizeof buf, KERNEL_SIMD, 0, 5);
	cr_expect_str_eq(buf, "SIMD: too quick to time");
	timing_compare_all_text(buf, sizeof buf, 0.9, 0.5, 0.01);
	cr_expect_str_eq(buf, "all three too quick to time");
	timing_compare_all_text(buf, sizeof buf, 5, 0, 0.01);
	cr_expect_str_eq(buf, "all three too quick to time");
}

Test(timing_text, a_comparison_should_name_the_three_times_and_both_ratios)
{
	char buf[160];
	timing_compare_all_text(buf, sizeof buf, 35.2, 9.1, 0.81);
	cr_expect_str_eq(buf, "loops 35.2 ms, unrolled 9.1 ms (3.9\u00d7), SIMD 0.81 ms (43\u00d7 the loops' speed)");
	/* cut to the buffer at a character, never half of the × */
	timing_compare_all_text(buf, 40, 35.2, 9.1, 0.81);
	cr_expect_lt(strlen(buf), 40u);
	cr_expect_eq(strncmp(buf, "loops 35.2 ms, unrolled 9.1 ms (3.9", 35), 0, "%s", buf);
}

Test(timing_text, each_verdict_should_name_its_variant)
{
	char buf[128];
	timing_variant_verdict_text(buf, sizeof buf, KERNEL_UNROLLED, true, 2.4e-7);
	cr_expect_str_eq(buf, "loops and unrolled agree (largest difference 2.4e-07)");
	timing_variant_verdict_text(buf, sizeof buf, KERNEL_UNROLLED, false, INFINITY);
	cr_expect_str_eq(buf, "loops and unrolled DIFFER (largest difference inf)");
	timing_verdict_text(buf, sizeof buf, true, 0);
	cr_expect_str_eq(buf, "loops and SIMD agree (largest difference 0)");
}
