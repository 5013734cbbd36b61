/* test_lesson_attention_step_by_step.c: what lesson 2, "Attention, step by
 * step" (seed 000), says after issue 14: one test per corrected claim, and
 * the places it cites in other lessons still saying what it cites them for. */
#include "claims.h"

#define ID "attention-step-by-step"

Test(lesson_attention_step_by_step, step_3_should_say_a_token_beats_itself_here_not_always)
{
	claim_never_says(ID, 3, "Every token is most similar to itself");
	claim_says(ID, 3, "Here each token is most similar to itself");
	claim_says(ID, 3, "That holds here, not always.");
	claim_says(ID, 3, "So a token scores itself highest only if no other token points its way with a larger length.");
	claim_says(ID, 3, "Lesson 1, step 10 has a counterexample: lizard·salmon = 76.64 beats lizard·lizard = 74.75");
	/* the counterexample is where step 3 says it is */
	claim_says("animal-attention", 10, "lizard scores salmon's key 76.64, above its own key, 74.75");
}

Test(lesson_attention_step_by_step, step_9_should_not_say_a_token_used_to_have_to_like_itself_best)
{
	claim_never_says(ID, 9, "no longer has to like itself best");
	claim_says(ID, 9, "a token's own score is no longer its squared length");
}

Test(lesson_attention_step_by_step, step_22_should_define_d_model_and_restore_the_width_with_w_o)
{
	claim_says(ID, 22, "In a transformer every layer reads and writes token vectors of one width, called d_model");
	claim_says(ID, 22, "so these heads take 5 in and give 4 out");
	claim_says(ID, 22, "a multi-head layer ends with an output projection W^O");
	claim_says(ID, 22, "W_O = nn.Linear(n_heads * d_out, d_in, bias=False)");
	/* and the step checks the width it claims W^O gives back */
	const struct step *st = &claims_lesson(ID)->steps[21];
	bool checked = false;
	for (int i = 0; i < st->nexpects; i++)
		if (st->expects[i].kind == EXPECT_TEXT && strcmp(st->expects[i].expr, "W_O(head_out_combined).shape") == 0)
			checked = strcmp(st->expects[i].text, "torch.Size([2, 3, 5])") == 0;
	cr_expect(checked, "step 22 does not check that W^O gives (2, 3, 5)");
}

Test(lesson_attention_step_by_step, step_23_should_not_say_heads_one_after_another_are_slow)
{
	claim_never_says(ID, 23, "Running the heads one after another is slow");
	claim_says(ID, 23, "does the same work in fewer, larger operations, which is usually faster on a big model");
	claim_says(ID, 23, "At this size, 3 tokens and 2 heads, either way is instant.");
	claim_says(ID, 23, "Lesson 5 measures the two at GPT-2's size on this machine (its step 17)");
	/* lesson 5 step 17 is a timing */
	const struct step *st = &claims_lesson("self-attention-classes")->steps[16];
	bool timed = false;
	for (int i = 0; i < st->nshows; i++)
		timed = timed || st->shows[i].kind == SHOW_TIMING;
	cr_expect(timed, "lesson 5 step 17 (%s) times nothing", st->title);
}

Test(lesson_attention_step_by_step, token_views_before_the_heads_should_not_name_a_head)
{
	/* heads appear at step 20; before it, one set of weights is no "head 0" */
	const struct lesson *l = claims_lesson(ID);
	int seen = 0;
	for (int k = 0; k < 19; k++)
		for (int i = 0; i < l->steps[k].nshows; i++) {
			const struct show *sh = &l->steps[k].shows[i];
			if (sh->kind != SHOW_TOKENS)
				continue;
			seen++;
			cr_expect(sh->nheads == 1, "step %d's token view has no name for its one column", k + 1);
			for (int h = 0; h < sh->nheads; h++)
				cr_expect(!strstr(sh->heads[h], "head"), "step %d labels a column \"%s\"", k + 1,
					  sh->heads[h]);
		}
	cr_expect_eq(seen, 3, "the token views of steps 6 and 10 are gone");
}

Test(lesson_attention_step_by_step, step_19_should_give_the_documents_d_in_equals_d_out_and_flag_its_example)
{
	claim_says(ID, 19, "in practice the number of input and output dimensions is usually the same, d_in = d_out");
	claim_says(ID, 19, "it only mixes information among the tokens");
	claim_says(ID, 19, "The document says d_in and d_out are usually equal, then builds its example layer with d_in = 5 "
			   "and d_out = 4.");
}
