/* test_lesson_animal_attention.c: what lesson 1 (animal-attention, seed
 * document 004) says, pinned as issue 14 corrected it: what "long vectors"
 * means, no "head 0" on a single set of weights, the notebook's opening
 * claim about embeddings flagged, and step 10 as the plain counterexample to
 * "every token is most similar to itself" that lesson 2 points to. */
#include "claims.h"

#include "core/tensor.h"
#include "view/tokens.h"

#define ID "animal-attention"

Test(lesson_animal_attention, step_1_should_say_long_vectors_means_many_components_not_a_large_norm)
{
	claim_says(ID, 1, "Dot products of long vectors, meaning vectors of many components (not vectors with a "
			  "large length, or norm)");
	claim_says(ID, 1, "√d_k, the square root of the number of components of a key");
	claim_never_says(ID, 1, "Dot products of long vectors grow with their length");
	claim_never_says(ID, 1, "the square root of the key length");
}

Test(lesson_animal_attention, step_1_should_say_what_a_vector_and_a_dot_product_are_before_using_them)
{
	claim_says(ID, 1, "A vector, here, is simply a list of numbers, its components");
	claim_says(ID, 1, "mammal·kitten = 8.7×9.1 + 3.2×1.0 + 4.1×2.1 = 79.17 + 3.2 + 8.61 = 90.98");
	claim_says(ID, 4, "Softmax turns the scaled scores into weights that are positive and sum to 1");
}

/* The token view of a single set of weights, as the screen and `qkv run`
 * label it (view/tokens.c), for the one `tokens` show of the step. */
static void single_head_label_at(int step)
{
	const struct lesson *l = claims_lesson(ID);
	const struct step *st = &l->steps[step - 1];
	int found = 0;
	for (int i = 0; i < st->nshows; i++) {
		const struct show *sh = &st->shows[i];
		if (sh->kind != SHOW_TOKENS)
			continue;
		found++;
		int64_t shape[2] = { 5, 5 };
		struct tensor *w = tensor_new(DT_F64, FLAVOR_NUMPY, 2, shape);
		struct tokens_view tv;
		tokens_build(&tv, sh, w, -1);
		cr_expect_eq(tv.nheads, 1);
		cr_expect_str_eq(tv.heads[0], "weight", "step %d labels its one set of weights '%s'", step,
				 tv.heads[0]);
		cr_expect(strstr(tv.heads[0], "head") == NULL, "step %d: '%s' before heads exist", step, tv.heads[0]);
		tokens_free(&tv);
		tensor_unref(w);
	}
	cr_expect_eq(found, 1, "step %d has %d token views", step, found);
}

Test(lesson_animal_attention, single_head_bar_charts_of_steps_9_and_13_should_not_say_head_0)
{
	single_head_label_at(9);
	single_head_label_at(13);
	claim_never_says(ID, 9, "head view");
	claim_says(ID, 9, "the bar chart of one query's weights (the token view)");
}

Test(lesson_animal_attention, step_1_should_flag_the_claim_that_attention_learns_the_embeddings)
{
	claim_says(ID, 1, "\"The goal of attention and multi-headed self-attention is to learn good word "
			  "embeddings based on word-word relationships in the training data.\" Not quite");
	claim_says(ID, 1, "the embeddings (one vector per word) are learned by the whole network, trained as "
			  "one; attention mixes them into context-dependent ones");
}

Test(lesson_animal_attention, step_10_should_show_lizard_scoring_salmon_above_itself)
{
	claim_says(ID, 10, "a token need not be most similar to itself");
	claim_says(ID, 10, "As a query, lizard scores salmon's key 76.64, above its own key, 74.75");
	claim_says(ID, 10, "0.75 against 0.25");
	claim_says(ID, 10, "whale·wolf = 81.88 and whale·kitten = 79.96 are both above whale·whale = 79.52");
	claim_says(ID, 10, "lizard's scores: salmon 76.64 above lizard itself 74.75");
	/* the numbers themselves are the lesson's expects, checked by `qkv check` */
}
