/* test_lesson_loops_and_matrices.c: what lesson 4 (loops-and-matrices, seed
 * 003's notebook) says, pinned (issue 14, items 1 and 2): the seed is qkv's
 * choice, not a fresh process's; att[0].sum() prints what PyTorch 1.13
 * prints, for the reason the lesson gives. Torch's values come from
 * tests/ref/lesson_loops_and_matrices.py. */
#include "claims.h"

#include "core/rng.h"
#include "kernel/kernel.h"
#include "lesson/player.h"
#include "view/looptrace.h"

#include <math.h>
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

/* ---- the three kernels (issue 18): what each one teaches, pinned to the kernels' own parameters ---- */

/* n with a comma between thousands, as the lesson writes it: "1,600" */
static void with_commas(char *buf, size_t size, long n)
{
	if (n >= 1000)
		snprintf(buf, size, "%ld,%03ld", n / 1000, n % 1000);
	else
		snprintf(buf, size, "%ld", n);
}

Test(lesson_loops_and_matrices, step_3_should_say_what_each_of_the_three_kernels_teaches)
{
	claim_says(ID, 3, "one of three kernels");
	claim_says(ID, 3, "do one multiply-add at a time, each waiting for the one before");
	claim_says(ID, 3, "split over four independent sums, which the CPU works on at the same time");
	claim_says(ID, 3, "keeps a tile of the result in its registers and multiplies 8 numbers in one instruction "
			  "(16 with AVX-512), so the whole tile grows at once");
	claim_never_says(ID, 3, "one of two kernels");
}

Test(lesson_loops_and_matrices, step_4_should_count_the_unrolled_loops_iterations_by_KERNEL_UNROLL)
{
	/* queries @ keys.T: 10 × 10 cells of 64 products */
	char want[160], n[32];
	cr_assert_eq(64 % KERNEL_UNROLL, 0);
	with_commas(n, sizeof n, 10L * 10 * 64);
	snprintf(want, sizeof want, "10 × 10 cells of 64 products, %s steps", n);
	claim_says(ID, 4, want);
	with_commas(n, sizeof n, 10L * 10 * 64 / KERNEL_UNROLL);
	snprintf(want, sizeof want, "%s iterations of %d, then 100 merges", n, KERNEL_UNROLL);
	claim_says(ID, 4, want);
	claim_says(ID, 4, "the cell is (s0 + s1) + (s2 + s3)");
	/* and the prediction's answer */
	claim_says(ID, 4, "How many iterations does it make for all 10 × 10 scores?");
	snprintf(n, sizeof n, "\n%ld\n", 10L * 10 * 64 / KERNEL_UNROLL);
	claim_says(ID, 4, n);
	claim_says(ID, 4, "adding in another order rounds differently, so the last digits may change");
	/* att @ values: 10 terms a cell, the remainder to s0 and s1 */
	cr_assert_eq(10 / KERNEL_UNROLL, 2);
	cr_assert_eq(10 % KERNEL_UNROLL, 2);
	claim_says(ID, 6, "the unrolled loop makes two iterations of 4 and gives the last two, v_idx = 8 and 9, to s0 and s1");
}

/* The tile the lesson names for each x86 path is the one that path's
 * micro-kernel uses (kernel_simd_tile); a path this CPU lacks is left out. */
Test(lesson_loops_and_matrices, step_4_should_name_the_register_tile_of_each_x86_path)
{
	int tried = 0;
	char want[200];
	if (kernel_force_simd("avx2") == 0) {
		struct kernel_tile t;
		kernel_simd_tile(&t);
		snprintf(want, sizeof want, "%d rows by %d columns of the result, in %d registers of %d floats with AVX2",
			 t.tile_rows, t.tile_cols, t.tile_rows * t.tile_cols / t.lanes, t.lanes);
		claim_says(ID, 4, want);
		cr_expect_eq(t.tile_rows * t.tile_cols, 96, "the lesson's 96 multiply-adds a step");
		tried++;
	}
	if (kernel_force_simd("avx512") == 0) {
		struct kernel_tile t;
		kernel_simd_tile(&t);
		snprintf(want, sizeof want, "(%d by %d in registers of %d with AVX-512)", t.tile_rows, t.tile_cols,
			 t.lanes);
		claim_says(ID, 4, want);
		cr_expect_eq(t.tile_rows * t.tile_cols / t.lanes, 12, "the lesson's 12 registers");
		cr_expect_eq(t.tile_rows * t.tile_cols, 192, "the lesson's 192 multiply-adds a step");
		tried++;
	}
	kernel_force_simd(NULL);
#if defined(__x86_64__)
	cr_assert_geq(tried, 1, "no AVX2 on this x86-64: the tile claims went untested");
#endif
	claim_says(ID, 4, "12 instructions do 96 (or 192) multiply-adds");
}

/* "each cell still adds its 64 products in the loops' order, p = 0, 1, 2, …,
 * and differs from the loops only because an FMA rounds once": on the FMA
 * paths matmul_f32_simd is fmaf folded over p, bit for bit, at the lesson's
 * shapes and at one split over threads. */
Test(lesson_loops_and_matrices, the_simd_matmul_should_sum_each_cell_in_the_loops_order_with_fma)
{
	static const int64_t shapes[][3] = { { 10, 64, 10 }, { 10, 10, 64 }, { 300, 64, 300 } };
	int tried = 0;
	for (int path = 0; kernel_simd_path(path) != NULL; path++) {
		const char *name = kernel_simd_path(path);
		if (strcmp(name, "avx2") != 0 && strcmp(name, "avx512") != 0)
			continue;
		cr_assert_eq(kernel_force_simd(name), 0, "%s", name);
		for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
			int64_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
			float *a = malloc((size_t)(m * k) * sizeof *a), *b = malloc((size_t)(k * n) * sizeof *b);
			float *c = malloc((size_t)(m * n) * sizeof *c), *l = malloc((size_t)(m * n) * sizeof *l);
			struct torch_gen g;
			torch_gen_seed(&g, 3 + (uint64_t)s);
			torch_fill_normal_f32(&g, a, m * k, 0.0, 1.0);
			torch_fill_normal_f32(&g, b, k * n, 0.0, 1.0);
			matmul_f32_simd(c, a, b, m, k, n);
			matmul_f32_loops(l, a, b, m, k, n);
			int wrong = 0, unlike_loops = 0;
			for (int64_t i = 0; i < m; i++)
				for (int64_t j = 0; j < n; j++) {
					float sum = 0.0f;
					for (int64_t p = 0; p < k; p++)
						sum = fmaf(a[i * k + p], b[p * n + j], sum);
					wrong += memcmp(&sum, &c[i * n + j], sizeof sum) != 0;
					unlike_loops += l[i * n + j] != c[i * n + j];
				}
			cr_expect_eq(wrong, 0, "%s, (%lld,%lld)@(%lld,%lld): %d cells are not fmaf over p in order", name,
				     (long long)m, (long long)k, (long long)k, (long long)n, wrong);
			/* and the one rounding is what tells them from the loops */
			cr_expect_gt(unlike_loops, 0, "%s: no cell differs from the loops", name);
			free(a), free(b), free(c), free(l);
		}
		tried++;
	}
	kernel_force_simd(NULL);
#if defined(__x86_64__)
	cr_assert_geq(tried, 1, "no FMA path on this x86-64: the claim went untested");
#endif
	claim_says(ID, 4, "each cell still adds its 64 products in the loops' order, p = 0, 1, 2, …, and differs from "
			  "the loops only because an FMA rounds once where `s += a · b` rounds twice");
}

Test(lesson_loops_and_matrices, every_comparison_should_be_said_to_run_on_the_three_kernels)
{
	claim_says(ID, 5, "The unrolled kernel runs the same passes with the maximum and the sum each split over four "
			  "partial results");
	claim_says(ID, 5, "8 exponentials at once, added into 8 lane sums");
	claim_says(ID, 6, "The comparison runs `att @ values`, a matrix product, on the three kernels.");
	claim_says(ID, 7, "on them, on the unrolled loops and on SIMD");
	claim_says(ID, 7, "the three kernels add the same products in different orders and roundings");
	claim_says(ID, 8, "on it, on its unrolled twin and on SIMD");
	claim_says(ID, 10, "the comparison runs it on the three kernels");
	claim_says(ID, 11, "Each runs on the three kernels, and each gives its time and its speed against the loops.");
	for (int step = 3; step <= 11; step++) {
		claim_never_says(ID, step, "on the loops and SIMD");
		claim_never_says(ID, step, "on the loops and on SIMD");
		claim_never_says(ID, step, "beside the SIMD kernel");
		claim_never_says(ID, step, "gives both times");
	}
}

/* Step 8: "On 10 tokens the SIMD kernel runs the loops' three stages ... At
 * 512 tokens it fuses them"; step 11: the online softmax there. Without
 * weights asked for, the 10-token head gives the bits of the two-pass kernel
 * (weights formed), the 512-token one other bits (fused), on every path. */
Test(lesson_loops_and_matrices, simd_attention_should_fuse_at_512_tokens_and_not_at_10)
{
	static const int64_t lengths[] = { 10, 512 };
	const int64_t d = 64;
	claim_says(ID, 8, "On 10 tokens the SIMD kernel runs the loops' three stages, each vectorised");
	claim_says(ID, 8, "At 512 tokens (the last step) it fuses them.");
	claim_says(ID, 11, "and at this length the attention is fused");
	claim_says(ID, 11, "the running maximum and sum of its softmax (an online softmax)");
	for (int path = 0; kernel_simd_path(path) != NULL; path++) {
		const char *name = kernel_simd_path(path);
		if (strcmp(name, "scalar") == 0)
			continue;
		cr_assert_eq(kernel_force_simd(name), 0, "%s", name);
		for (int i = 0; i < 2; i++) {
			int64_t t = lengths[i];
			float *q = malloc((size_t)(t * d) * sizeof *q), *k = malloc((size_t)(t * d) * sizeof *k);
			float *v = malloc((size_t)(t * d) * sizeof *v), *w = malloc((size_t)(t * t) * sizeof *w);
			float *two = malloc((size_t)(t * d) * sizeof *two), *one = malloc((size_t)(t * d) * sizeof *one);
			struct torch_gen g;
			torch_gen_seed(&g, 0);
			torch_fill_normal_f32(&g, q, t * d, 0.0, 1.0);
			torch_fill_normal_f32(&g, k, t * d, 0.0, 1.0);
			torch_fill_normal_f32(&g, v, t * d, 0.0, 1.0);
			attention_f32_simd(two, w, q, k, v, NULL, true, 0.125f, t, t, d, d);
			attention_f32_simd(one, NULL, q, k, v, NULL, true, 0.125f, t, t, d, d);
			bool same = memcmp(two, one, (size_t)(t * d) * sizeof *one) == 0;
			if (t == 10)
				cr_expect(same, "%s: 10 tokens without weights are not the two-pass kernel's bits", name);
			else
				cr_expect(!same, "%s: 512 tokens without weights give the two-pass bits: not fused?", name);
			free(q), free(k), free(v), free(w), free(two), free(one);
		}
	}
	kernel_force_simd(NULL);
}

/* Step 11: "The loops and the unrolled kernels run the explicit expression
 * as written ... The SIMD side sees that it is an attention ... and runs it
 * as one, as it runs `F.scaled_dot_product_attention`": the first comparison's
 * loops result comes from a product (its last step), its SIMD one from the
 * attention kernel; the second comparison's both from the attention kernels. */
Test(lesson_loops_and_matrices, at_512_tokens_simd_should_run_the_explicit_expression_as_an_attention, .timeout = 120)
{
	claim_says(ID, 11, "The loops and the unrolled kernels run the explicit expression as written");
	claim_says(ID, 11, "The SIMD side sees that it is an attention");
	struct player *p = player_new(claims_lesson(ID), KERNEL_SIMD);
	struct qkv_error err = { 0 };
	int at;
	cr_assert_eq(player_go(p, 10, &at, &err), 0, "%s", err.msg);
	const struct step_result *r = player_result(p, 10);
	cr_assert_eq(r->nshown, 2);
	static const enum trace_kind want[2][2] = { { TRACE_ATTENTION, TRACE_MATMUL },
						    { TRACE_ATTENTION, TRACE_ATTENTION } };
	for (int i = 0; i < 2; i++) {
		const struct tensor *ts[] = { r->shown[i].t, r->shown[i].loops };
		for (int j = 0; j < 2; j++) {
			struct looptrace *lt = looptrace_for(ts[j]);
			cr_assert(lt, "comparison %d (%s): no loop trace", i, j ? "loops" : "SIMD");
			cr_expect_eq(looptrace_kind(lt), want[i][j], "comparison %d (%s): trace kind %d", i,
				     j ? "loops" : "SIMD", (int)looptrace_kind(lt));
			looptrace_free(lt);
		}
	}
	player_free(p);
}

/* Step 8: "On 10 tokens the SIMD kernel runs the loops' three stages, each
 * vectorised: the scores as a matrix product in register tiles (the tiles
 * wholly in the future skipped), the softmax of each row, the weighted sums
 * as another product": the vectorised panel of its comparison animates
 * those three stages (the two-pass kernel dispatch runs for a head that
 * small), where step 11's 512-token one animates the fused blocks. */
Test(lesson_loops_and_matrices, the_vectorised_panel_should_show_three_stages_at_10_tokens_and_blocks_at_512,
     .timeout = 120)
{
	claim_says(ID, 8, "the scores as a matrix product in register tiles (the tiles wholly in the future skipped)");
	struct kernel_tile tile;
	kernel_simd_tile(&tile);
	if (tile.att_loops)
		cr_skip_test("the scalar path runs the loops");
	struct player *p = player_new(claims_lesson(ID), KERNEL_SIMD);
	struct qkv_error err = { 0 };
	int at;
	static const int steps[2] = { 8, 11 };
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(player_go(p, steps[i] - 1, &at, &err), 0, "%s", err.msg);
		const struct step_result *r = player_result(p, steps[i] - 1);
		struct looptrace *lt = NULL;   /* the comparison's: an attention */
		for (int j = 0; j < r->nshown && !lt; j++) {
			lt = r->shown[j].t ? looptrace_for_variant(r->shown[j].t, TRACE_SIMD) : NULL;
			if (lt && looptrace_kind(lt) != TRACE_ATTENTION) {
				looptrace_free(lt);
				lt = NULL;
			}
		}
		cr_assert(lt, "step %d: no vectorised trace of an attention", steps[i]);
		looptrace_seek(lt, 1);
		if (i == 0) {
			cr_expect_str_eq(looptrace_phase(lt), "scores");
			int64_t first, last;
			looptrace_phase_bounds(lt, &first, &last);
			looptrace_seek(lt, last + 1);
			cr_expect_str_eq(looptrace_phase(lt), "softmax");
			looptrace_seek(lt, looptrace_total(lt));
			cr_expect_str_eq(looptrace_phase(lt), "weighted sum");
			const char *const *lines;
			int n = looptrace_code(lt, &lines);
			bool skipped = false;
			for (int l = 0; l < n; l++)
				skipped |= strstr(lines[l], "(wholly future: skipped)") != NULL;
			cr_expect(skipped, "the code should say the future tiles are skipped");
		} else {
			cr_expect_str_eq(looptrace_phase(lt), "online softmax");
		}
		looptrace_free(lt);
	}
	player_free(p);
}
