/* test_lesson_projections_and_masks.c: what lesson 3 (projections-and-masks,
 * retelling document 001) says, pinned after issue 14: the heads numbered as
 * the view numbers them, the exact second largest weight of the x100
 * experiment, "pointing the same way" for "close to", a seeded numpy, and the
 * document's slips flagged where the lesson retells them. */
#include "claims.h"

#include "lesson/player.h"
#include "view/heatmap.h"

#include <stdio.h>

#define ID "projections-and-masks"

/* The caption the heatmap of show `k` of step `step` (from 1) gets: its slice's name. */
static void shown_slice_name(int step, int k, char *out, size_t size)
{
	const struct lesson *l = claims_lesson(ID);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, step - 1, &at, &err), 0, "%s", err.msg);
	const struct step_result *r = player_result(p, step - 1);
	cr_assert(r && k < r->nshown && r->shown[k].t, "step %d has no show %d", step, k);
	const struct show *s = r->shown[k].show;
	struct heatmap h;
	heatmap_build(&h, r->shown[k].t, s->slice, s->nslice, s->rows, s->nrows, s->cols, s->ncols, s->scale);
	snprintf(out, size, "%s", h.slice_name);
	heatmap_free(&h);
	player_free(p);
}

Test(lesson_projections_and_masks, step_13_should_number_the_heads_0_1_2_as_the_view_does)
{
	claim_says(ID, 13, "head 0 is the head we built");
	claim_says(ID, 13, "heads 1 and 2 get their own random W^q and W^k");
	claim_says(ID, 13, "head 1 happens to look mostly at \"us\", and head 2 leans towards \"led\"");
	claim_says(ID, 13, "head 0\nhead 1\nhead 2\n");	/* the token views' columns */
	claim_never_says(ID, 13, "Head 1 is the head we built");
	claim_never_says(ID, 13, "head 3");
}

Test(lesson_projections_and_masks, step_13_should_caption_a_head_as_a_head_never_as_a_batch)
{
	char name[96];
	shown_slice_name(13, 2, name, sizeof name);
	cr_expect_str_eq(name, "batch 0, head 1", "the heatmap of the heads is captioned \"%s\"", name);
	claim_never_says(ID, 13, "batch 1");
}

Test(lesson_projections_and_masks, step_5_should_give_the_second_largest_weight_exactly)
{
	claim_says(ID, 5, "the second largest is 6.1e-17 (element 4: 6.11304906e-17)");
	claim_never_says(ID, 5, "every other is 1e-17 or far smaller");
}

Test(lesson_projections_and_masks, steps_2_and_4_should_say_pointing_the_same_way_not_close_to)
{
	claim_says(ID, 2, "end up pointing the same way as the query (a large dot product)");
	claim_never_says(ID, 2, "the keys that best answer a query end up close to it");
	claim_says(ID, 4, "end up pointing the same way as it (a large dot product)");
	claim_never_says(ID, 4, "the keys that can change a query the most end up close to it");
	/* the counterexample: the winning key is far, the nearest loses */
	claim_says(ID, 4, "dist = ((K - Q[6]) ** 2).sum(-1).sqrt()");
}

Test(lesson_projections_and_masks, step_5_should_seed_numpy_so_that_python_draws_the_same_vector)
{
	claim_says(ID, 5, "np.random.seed(0)  # not in the document");
	claim_never_says(ID, 5, "qkv's numpy starts from seed 0, so");
	const struct lesson *l = claims_lesson(ID);
	const struct step *st = &l->steps[4];
	/* the seed comes before the draw */
	const char *seed = strstr(st->code, "np.random.seed(0)"), *draw = strstr(st->code, "np.random.randn(8)");
	cr_expect(seed && draw && seed < draw, "%s", st->code);
	bool pinned = false;
	for (int i = 0; i < st->nexpects; i++)
		if (st->expects[i].expr && strcmp(st->expects[i].expr, "vector") == 0)
			pinned = true;
	cr_expect(pinned, "step 5 does not pin `vector` with an expect");
}

Test(lesson_projections_and_masks, the_documents_slips_should_be_flagged_where_the_lesson_retells_them)
{
	claim_says(ID, 2, "\"will end up close to it\"");
	claim_says(ID, 2, "\"The premise that that after training…\"");
	claim_says(ID, 4, "\"After training the keys that can the most to change the query will end up close to it\"");
	claim_says(ID, 5, "\"is done in to prevent the softmax from saturating\"");
	claim_says(ID, 6, "\"The division by the √d_k prevents this behavior.\" It does not prevent it");
	claim_says(ID, 6, "S_big = (X @ (10 * Wq)) @ (X @ (10 * Wk)).T");
	claim_says(ID, 11, "\"Why purpose the values play though…\"");
	claim_says(ID, 13, "\"Bertiviz example\"");
	claim_never_says(ID, 5, "so that softmax does not saturate");
}
