/* checks.h: the checks of src/kernel/, written once as plain C and run by two
 * drivers: tests/unit/test_kernel.c (one Criterion test per group, named as
 * the group) and tests/cross/kernel_cross.c (a standalone program, built
 * natively and statically for aarch64, run under qemu-aarch64). Needs
 * src/kernel/ and libc alone: no Criterion, no other part of qkv. */
#ifndef QKV_TEST_KERNEL_CHECKS_H
#define QKV_TEST_KERNEL_CHECKS_H

#include <stdbool.h>

/* Every group: X(name, each_path). each_path: the driver runs the group on
 * every simd path of the machine (kcheck_npaths()); otherwise the group
 * chooses its paths itself, or has none to choose, and runs once. */
#define KCHECK_GROUPS(X) \
	X(matmul_simd_should_match_loops_f32, true) \
	X(matmul_simd_should_match_loops_f64, true) \
	X(matmul_simd_should_match_loops_across_block_edges, true) \
	X(matmul_simd_should_be_exact_on_small_integers_f32, true) \
	X(matmul_with_k_zero_should_give_zeros, true) \
	X(matmul_should_compute_a_small_product_exactly, true) \
	X(matmul_simd_f64_should_equal_loops_bit_for_bit, true) \
	X(a_threaded_matmul_should_equal_the_one_thread_result_bit_for_bit, true) \
	X(softmax_simd_should_match_loops_f32, true) \
	X(softmax_simd_should_match_loops_f64, true) \
	X(softmax_rows_should_sum_to_one, true) \
	X(softmax_of_an_all_minus_inf_row_should_be_nan, true) \
	X(softmax_with_plus_inf_or_nan_should_give_a_nan_row, true) \
	X(softmax_should_not_overflow_on_large_scores, true) \
	X(softmax_should_match_torch_on_special_rows, true) \
	X(attention_simd_should_match_loops_f32, true) \
	X(attention_simd_should_match_loops_f64, true) \
	X(attention_simd_should_match_loops_when_dv_differs_from_d, true) \
	X(attention_fused_should_match_loops_past_its_tile_sizes, true) \
	X(attention_fused_should_hide_every_later_key_across_its_blocks, true) \
	X(attention_of_a_small_head_without_weights_should_round_as_with_them, true) \
	X(attention_fully_masked_row_should_give_nan_weights_and_output, true) \
	X(attention_causal_first_query_should_copy_the_first_value, true) \
	X(attention_heads_should_give_the_same_bits_on_any_number_of_threads, true) \
	X(attention_heads_should_match_loops_with_masks_and_threads, true) \
	X(masked_attention_should_match_torch, true) \
	X(strided_attention_should_give_the_bits_of_gathered_heads, false) \
	X(the_scalar_path_should_match_loops_fused_or_not, false) \
	X(matmul_unrolled_should_match_loops, false) \
	X(matmul_unrolled_should_sum_in_four_partial_sums, false) \
	X(softmax_unrolled_should_match_loops, false) \
	X(attention_unrolled_should_match_loops, false) \
	X(exp_f32_simd_should_be_within_one_ulp_of_expf, true) \
	X(exp_f64_simd_should_be_within_one_ulp_of_exp, true) \
	X(exp_simd_should_handle_special_values_exactly, true) \
	X(exp_simd_should_be_within_two_ulp_of_libm_over_finer_sweeps, true) \
	X(the_online_softmax_exp2_should_be_within_one_ulp_of_exp2f, true) \
	X(kernel_simd_name_should_report_the_forced_path, false) \
	X(avx512_should_give_the_bits_of_avx2, false) \
	X(ew_binary_should_broadcast_a_row_and_a_column, true) \
	X(ew_binary_should_broadcast_a_scalar_and_handle_ndim_zero, true) \
	X(ew_binary_should_follow_strides_in_four_dims, true) \
	X(ew_pow_should_special_case_like_torch, true) \
	X(floordiv_and_mod_should_follow_python_signs, true) \
	X(ew_max_and_min_should_propagate_nan, true) \
	X(ew_compare_should_broadcast_and_treat_nan_as_unordered, true) \
	X(ew_unary_should_apply_each_function, true) \
	X(copy_strided_should_copy_a_transpose, true) \
	X(copy_strided_should_expand_and_permute_four_dims, true) \
	X(masked_fill_should_broadcast_the_mask, true) \
	X(tri_zero_should_match_tril_and_triu, true) \
	X(sum_dim_should_sum_along_each_axis, true) \
	X(sum_dim_f32_should_round_in_float_like_torch, true) \
	X(sum_dim_numpy_should_add_as_numpys_pairwise_sum, true) \
	X(max_dim_should_find_the_maximum_and_propagate_nan, true) \
	X(dot_should_follow_strides, true) \
	X(dropout_should_scale_kept_and_zero_dropped, true)

#define KCHECK_ID(name, each_path) KCHECK_##name,
enum kcheck_id { KCHECK_GROUPS(KCHECK_ID) KCHECK_COUNT };
#undef KCHECK_ID

#define KCHECK_TEXT 4096	/* room for the failures shown per run */

/* What one run of a group found. */
struct kcheck_result {
	const char *path;	/* kernel_simd_name() when the group began */
	long checks, failures;
	double worst;		/* the largest error seen: relative, or in ulp when ulp */
	bool ulp;
	double seconds;
	char text[KCHECK_TEXT];	/* the first failures, one a line; the rest are counted */
};

/* The group's name (the Criterion test's) and whether it runs per path. */
const char *kcheck_name(enum kcheck_id id);
bool kcheck_each_path(enum kcheck_id id);

/* The simd paths of this machine: 2 on x86-64 (the CPU's best, then the
 * SSE2 baseline forced), 1 elsewhere. */
int kcheck_npaths(void);

/* Runs group id on path (0 .. kcheck_npaths() - 1; 0 for a group that
 * chooses its own) from the same random inputs every time, fills *r, and
 * leaves the kernels' settings as it found them (no forced path, default
 * threads and small-head bound). */
void kcheck_run(enum kcheck_id id, int path, struct kcheck_result *r);

#endif
