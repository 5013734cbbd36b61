/* test_lesson_many_heads_one_matrix.c: what lesson 6, "Many heads, one
 * matrix", says (issue 14's first lesson beyond the documents). Its numbers
 * are expects checked by `qkv check`, from tests/ref/lesson_many_heads_one_matrix.py. */
#include "claims.h"

#define ID "many-heads-one-matrix"

Test(lesson_many_heads_one_matrix, should_be_the_sixth_lesson_on_the_path)
{
	const struct lesson *l = claims_lesson(ID);
	cr_expect_str_eq(l->title, "Many heads, one matrix");
	cr_expect(l->nsteps >= 8 && l->nsteps <= 12, "%d steps", l->nsteps);
}

Test(lesson_many_heads_one_matrix, step_4_should_stack_the_heads_weights_with_cat_along_dim_0)
{
	claim_says(ID, 4, "W_q = torch.cat([head.W_query.weight for head in wrapper.heads], dim=0)");
	claim_says(ID, 4, "rows 0-1 are head 0's, rows 2-3 head 1's");
}

Test(lesson_many_heads_one_matrix, step_6_should_copy_the_stacks_in_under_no_grad)
{
	claim_says(ID, 6, "with torch.no_grad():");
	claim_says(ID, 6, "mha.W_query.weight.copy_(W_q)");
}

Test(lesson_many_heads_one_matrix, step_7_should_say_the_outputs_are_equal_to_the_last_bit)
{
	claim_says(ID, 7, "`torch.equal(out_m, out_w)` is True and the largest difference is exactly 0");
}

Test(lesson_many_heads_one_matrix, step_8_should_say_which_columns_head_h_owns)
{
	claim_says(ID, 8, "head h owns columns h·head_dim to (h+1)·head_dim − 1");
	claim_says(ID, 8, "The order must be the same in all three stacks");
}

Test(lesson_many_heads_one_matrix, step_10_should_split_w_o_by_head_and_not_promise_bit_equality)
{
	claim_says(ID, 10, "concat · W^O = Σ_h head_h · W^O[h]");
	claim_says(ID, 10, "they need not agree to the last bit");
}

Test(lesson_many_heads_one_matrix, step_11_should_say_the_block_gives_back_the_width_it_took)
{
	claim_says(ID, 11, "`x + attn(x)` (a residual connection)");
	claim_says(ID, 11, "num_heads × head_dim = d_model");
	claim_says(ID, 11, "a W^O of shape (num_heads · head_dim) × d_model would bring any concatenated width back");
}
