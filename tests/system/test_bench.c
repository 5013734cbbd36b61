/* test_bench.c: qkv bench --quick runs every case on both kernels, and the
 * two kernels agree on each; the numbers themselves are not judged here
 * (speed is read from qkv bench, never from timed tests). */
#include "system.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value after "key": in a JSON line, or NAN. */
static double field(const char *line, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = strstr(line, pat);
	return p ? strtod(p + strlen(pat), NULL) : NAN;
}

Test(bench, quick_json_should_time_every_case_on_both_kernels_and_they_should_agree, .timeout = 120)
{
	const char *argv[] = { "qkv", "bench", "--quick", "--json", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	static const char *const cases[] = { "matmul_qkv", "attn_causal", "attn_full", "mha_gpt2",
					     "attn_T64", "attn_T128", "attn_T256" };
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		for (int v = 0; v < 2; v++) {
			char want[96];
			snprintf(want, sizeof want, "{\"case\":\"%s\",\"variant\":\"%s\",", cases[i], v ? "loops" : "simd");
			const char *line = strstr(out, want);
			cr_assert(line, "no line for %s in:\n%s", want, out);
			cr_assert_gt(field(line, "ms"), 0, "%s", line);
			cr_assert_gt(field(line, "gflops"), 0, "%s", line);
			if (!v) {
				double d = field(line, "max_rel_diff_vs_loops");
				cr_assert(d >= 0 && d < 1e-5, "loops and simd differ by %g: %s", d, line);
			}
		}
	}
	const char *peak = strstr(out, "{\"case\":\"peak\"");
	cr_assert(peak && field(peak, "gflops") > 0, "%s", out);
	/* one JSON object per line */
	for (char *l = out; *l; l = strchr(l, '\n') + 1) {
		cr_assert_eq(*l, '{', "%s", l);
		cr_assert(strchr(l, '\n') && strchr(l, '\n')[-1] == '}', "%s", l);
	}
	free(out);
	free(err);
}

Test(bench, an_unknown_option_should_exit_2)
{
	const char *argv[] = { "qkv", "bench", "--fast", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 2);
	cr_assert(strstr(err, "bench takes --json and --quick, got --fast"), "%s", err);
	free(out);
	free(err);
}
