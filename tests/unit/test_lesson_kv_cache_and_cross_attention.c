/* test_lesson_kv_cache_and_cross_attention.c: what lesson 8 (decoding with a
 * KV cache, and attention across sequences; issue 14) says. Its numbers are
 * pinned by its expects, checked against torch 1.13 by
 * tests/ref/lesson_kv_cache_and_cross_attention.py; these pin its sentences. */
#include "claims.h"

#define ID "kv-cache-and-cross-attention"

Test(lesson_kv_cache, step_1_should_say_a_key_depends_on_its_own_token_alone)
{
	claim_says(ID, 1, "A token's key and its value are computed from that token alone");
	claim_says(ID, 1, "what PyTorch 1.13 prints for the same code");
}

Test(lesson_kv_cache, step_3_should_compute_row_t_from_the_first_t_plus_1_keys_and_values)
{
	claim_says(ID, 3, "w_t = torch.softmax(Q[t] @ K[:t+1].T / d ** 0.5, dim=-1)");
	claim_says(ID, 3, "out_t = w_t @ V[:t+1]");
	claim_says(ID, 3, "(out_t - out[t]).abs().max()");
}

Test(lesson_kv_cache, step_4_should_grow_the_cache_with_torch_cat_one_token_per_step)
{
	claim_says(ID, 4, "k_cache = torch.cat([k_cache, x @ W_k], dim=0)");
	claim_says(ID, 4, "v_cache = torch.cat([v_cache, x @ W_v], dim=0)");
	claim_says(ID, 4, "no mask is needed: the causal order is built into the loop");
	claim_says(ID, 5, "(cached - out).abs().max()");
}

Test(lesson_kv_cache, step_6_should_count_t_t_plus_1_over_2_against_a_full_pass_and_no_cache)
{
	claim_says(ID, 6, "T(T + 1)/2 = 21 dot products");
	claim_says(ID, 6, "all T² = 36 scores and masks 15 of them");
	claim_says(ID, 6, "1 + 4 + ... + 36 = 91 in all");
}

Test(lesson_kv_cache, step_7_should_name_lesson_1s_queries_as_cross_attention_by_the_new_number)
{
	claim_says(ID, 7, "Lesson 1 did exactly that");
	claim_says(ID, 7, "That was cross-attention.");
	claim_never_says(ID, 7, "lesson 5's mammal");
}

Test(lesson_kv_cache, step_8_should_say_cross_attention_has_no_causal_mask)
{
	claim_says(ID, 8, "The weights `W_c` are 6×5");
	claim_says(ID, 8, "There is no causal mask");
}

Test(lesson_kv_cache, step_10_should_mask_padded_keys_with_a_b_1_t_mask)
{
	claim_says(ID, 10, "key_mask = pad[:, None, :]");
	claim_says(ID, 10, "Sb.masked_fill(key_mask, float('-inf'))");
	claim_says(ID, 10, "has shape (3, 1, 6)");
}

Test(lesson_kv_cache, step_11_should_say_a_row_of_all_minus_inf_gives_nan_as_torch_prints)
{
	claim_says(ID, 11, "torch prints `tensor([nan, nan, nan])`");
	claim_says(ID, 11, "0 times NaN is NaN, not 0");
}

Test(lesson_kv_cache, step_12_should_guard_the_rows_with_no_key)
{
	claim_says(ID, 12, "Wg = Wl.masked_fill(dead, 0.0)");
	claim_says(ID, 12, "Wf = torch.softmax(Sl.masked_fill(mask_l, -1e9), dim=-1)");
}
