/* test_lesson_loops_and_matrices.c: what lesson 4 (loops-and-matrices, seed
 * 003's notebook) says, pinned (issue 14, items 1 and 2): the seed is qkv's
 * choice, not a fresh process's; att[0].sum() prints what PyTorch 1.13
 * prints, for the reason the lesson gives. Torch's values come from
 * tests/ref/lesson_loops_and_matrices.py. */
#include "claims.h"

#include "core/rng.h"
#include "kernel/kernel.h"
#include "lesson/player.h"

#include <stdio.h>

#include "../ref/lesson_loops_and_matrices.inc"

#define ID "loops-and-matrices"

/* What step `step` (from 1) printed on the kernel kv (malloc'd). */
static char *step_output(enum kernel_variant kv, int step)
{
	struct player *p = player_new(claims_lesson(ID), kv);
	struct qkv_error err = { 0 };
	int at;
	cr_assert_eq(player_go(p, step - 1, &at, &err), 0, "%s", err.msg);
	cr_assert_eq(player_state(p, step - 1), STEP_RAN, "%s", player_failure(p));
	char *out = strdup(player_result(p, step - 1)->output);
	player_free(p);
	return out;
}

Test(lesson_loops_and_matrices, step_1_should_say_the_notebook_sets_no_seed_and_qkv_picks_one)
{
	char seed[64];
	snprintf(seed, sizeof seed, "torch.manual_seed(%llu)", (unsigned long long)TORCH_DEFAULT_SEED);
	claim_says(ID, 1, "The notebook sets no seed");
	claim_says(ID, 1, "a fresh Python process seeds torch's generator at random");
	claim_says(ID, 1, "qkv picks a seed so that runs repeat");
	claim_says(ID, 1, "the seed a new `torch.Generator()` starts from");
	claim_says(ID, 1, seed); /* the seed the lesson names is the one qkv starts from */
}

Test(lesson_loops_and_matrices, step_1_should_no_longer_say_a_fresh_process_starts_from_that_seed)
{
	claim_never_says(ID, 1, "starts from in a fresh Python process");
	claim_never_says(ID, 1, "the numbers the notebook computes when a fresh process runs it");
}

Test(lesson_loops_and_matrices, step_5_should_say_why_one_row_sum_prints_1_and_another_1_0000)
{
	claim_says(ID, 5, "one float32 step (an ulp, 2⁻²³ ≈ 1.19e-7) above 1");
	claim_says(ID, 5, "torch prints a whole number as `1.` and any other of this size with 4 decimals");
	claim_says(ID, 5, "PyTorch 1.13 with the AVX2 kernels");
	claim_says(ID, 5, "sums to 1 + 1.19e-7 and prints `tensor(1.0000)`");
	claim_never_says(ID, 5, "as it does in PyTorch");
}

Test(lesson_loops_and_matrices, step_5_should_print_tensor_1_and_1_0000_as_torch_does)
{
	/* exact text: qkv check lets 1. and 1.0000 pass for each other */
	char *out = step_output(KERNEL_SIMD, 5);
	cr_expect(strncmp(out, "tensor(1., grad_fn=<SumBackward0>)\n", 35) == 0, "%s", out);
	cr_expect(strstr(out, "\ntensor(1.0000, grad_fn=<MaxBackward1>)\n"
			      "tensor(1.1921e-07, grad_fn=<SubBackward0>)\n") != NULL, "%s", out);
	free(out);
}

Test(lesson_loops_and_matrices, step_5_on_the_loop_kernel_should_print_tensor_1_0000_as_the_lesson_says)
{
	char *out = step_output(KERNEL_LOOPS, 5);
	cr_expect(strncmp(out, "tensor(1.0000, grad_fn=<SumBackward0>)\n", 39) == 0, "%s", out);
	free(out);
}

Test(lesson_loops_and_matrices, float32_row_sums_should_add_torchs_weights_to_torchs_sums_bit_for_bit)
{
	float sums[10], row0;
	sum_dim_f32(sums, loops_att, 10, 10, 1); /* att.sum(-1) */
	sum_dim_f32(&row0, loops_att, 1, 10, 1); /* att[0].sum() */
	for (int r = 0; r < 10; r++)
		cr_expect(sums[r] == loops_att_rowsum[r], "row %d: %.9g, torch %.9g", r, sums[r],
			  loops_att_rowsum[r]);
	cr_expect(row0 == 1.0f, "att[0].sum() = %.9g, torch 1", row0);
	cr_expect(sums[3] == 1.0f + 0x1p-23f, "row 3 = %.9g, one ulp above 1 in torch", sums[3]);
}

Test(lesson_loops_and_matrices, float32_sums_should_add_in_torchs_order_for_rows_columns_and_long_vectors)
{
	/* the lesson's "qkv adds in torch's order", over each path of torch's
	 * cascade sum: x = torch.randn(shape) summed along dim, bit for bit */
	for (size_t c = 0; c < sizeof sum_cases / sizeof sum_cases[0]; c++) {
		const struct sum_case *k = &sum_cases[c];
		int64_t numel = k->shape[0] * k->shape[1] * k->shape[2], outer = 1, inner = 1, n = numel;
		if (k->dim >= 0) {
			n = k->shape[k->dim];
			for (int d = 0; d < k->dim; d++)
				outer *= k->shape[d];
			inner = numel / outer / n;
		}
		float *x = malloc((size_t)numel * sizeof *x), *y = malloc((size_t)(outer * inner) * sizeof *y);
		struct torch_gen g;
		torch_gen_seed(&g, k->seed);
		torch_fill_normal_f32(&g, x, numel, 0.0, 1.0);
		sum_dim_f32(y, x, outer, n, inner);
		int wrong = 0;
		for (int64_t i = 0; i < outer * inner; i++)
			wrong += y[i] != sum_case_sums[k->offset + i];
		cr_expect_eq(wrong, 0, "case %zu (seed %llu, dim %d): %d of %lld sums differ from torch's", c,
			     (unsigned long long)k->seed, k->dim, wrong, (long long)(outer * inner));
		free(x);
		free(y);
	}
}
