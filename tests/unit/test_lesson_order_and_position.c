/* test_lesson_order_and_position.c: what lesson 7, "Order and position" (issue
 * 14, beyond the documents), says: attention without a mask follows a
 * permutation of its tokens, the causal mask breaks that, position vectors give
 * the order back. Its numbers are pinned as expects (qkv check), from torch 1.13
 * by tests/ref/lesson_order_and_position.py. */
#include "claims.h"

#define ID "order-and-position"

Test(lesson_order_and_position, step_4_should_state_that_permuting_the_tokens_permutes_the_outputs)
{
	claim_says(ID, 4, "Attn(P·X) = P·Attn(X)");
	claim_says(ID, 4, "torch.allclose(Yp, P @ Y)");
	claim_says(ID, 4, "Attention alone cannot tell who chases whom.");
}

Test(lesson_order_and_position, step_5_should_say_why_rows_and_columns_move_together)
{
	claim_says(ID, 5, "`Sp = Qp·Kpᵀ = P·Q·Kᵀ·Pᵀ = P·S·Pᵀ`");
	claim_says(ID, 5, "The softmax works on each row alone");
	claim_says(ID, 5, "`Wp·Vp = P·W·Pᵀ·P·V = P·W·V`");
}

Test(lesson_order_and_position, step_7_should_show_the_causal_mask_breaking_the_symmetry)
{
	claim_says(ID, 7, "The mask belongs to the positions, not to the tokens.");
	claim_says(ID, 7, "torch.allclose(Ycp, P @ Yc)");
}

Test(lesson_order_and_position, step_8_should_say_a_causal_output_sees_the_set_of_earlier_tokens)
{
	claim_says(ID, 8, "a causal output depends on the token and on the set of tokens before it, not on their order");
}

Test(lesson_order_and_position, step_9_should_give_the_sinusoidal_formula_with_frequencies_one_over_10000_to_2i_over_d)
{
	claim_says(ID, 9, "sin(pos / 10000^(2i/d))");
	claim_says(ID, 9, "cos(pos / 10000^(2i/d))");
	claim_says(ID, 9, "pe[:, 0::2] = torch.sin(pos * freq)");
	claim_says(ID, 9, "pe[:, 1::2] = torch.cos(pos * freq)");
}

Test(lesson_order_and_position, step_10_should_say_the_dot_product_of_positions_depends_only_on_their_distance)
{
	claim_says(ID, 10, "depends only on their distance");
	claim_says(ID, 10, "for any fixed offset k");
}

Test(lesson_order_and_position, step_11_should_show_positions_breaking_the_permutation)
{
	claim_says(ID, 11, "So `Zp` is no longer a permutation of `Z`'s rows");
	claim_says(ID, 11, "torch.allclose(attention(Zp), P @ attention(Z))");
}
