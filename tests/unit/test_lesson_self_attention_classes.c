/* test_lesson_self_attention_classes.c: what lesson 5 (self-attention-classes,
 * seed 002) says, pinned after issue 14: the race of step 17 without fixed
 * figures of ours, the -inf mask against zeroing after the softmax (steps 7-8),
 * the mask's slice, the notebook's one %%time run flagged, and its exercises.
 * The numbers are the lesson's expects, verified by `qkv check`; these tests
 * pin the sentences and that those expects stay. */
#include "claims.h"

#include <ctype.h>

#define ID "self-attention-classes"

static const struct step *step_of(int n)
{
	const struct lesson *l = claims_lesson(ID);
	cr_assert(n >= 1 && n <= l->nsteps);
	return &l->steps[n - 1];
}

/* The step has an expect that EXPR prints TEXT. */
static bool has_text_expect(const struct step *st, const char *expr, const char *text)
{
	for (int i = 0; i < st->nexpects; i++) {
		const struct expect *e = &st->expects[i];
		if (e->kind == EXPECT_TEXT && strcmp(e->expr, expr) == 0 && strcmp(e->text, text) == 0)
			return true;
	}
	return false;
}

static const struct show *timing_of(const struct step *st)
{
	for (int i = 0; i < st->nshows; i++)
		if (st->shows[i].kind == SHOW_TIMING)
			return &st->shows[i];
	cr_assert_fail("step has no timing show");
	return NULL;
}

Test(lesson_self_attention_classes, step_17_should_drop_the_figures_that_do_not_reproduce)
{
	claim_never_says(ID, 17, "0.41 s");
	claim_never_says(ID, 17, "0.52 s");
	claim_never_says(ID, 17, "took about");
}

/* Every "N.NN s" or "N ms" the step says is one the notebook printed: the
 * machine's own times are measured by the timing, never written down. */
Test(lesson_self_attention_classes, step_17_should_quote_no_seconds_but_the_documents)
{
	static const char *const notebook[] = { "2.28 s", "1.83 s", "1.91 s", "1.84 s", "1.07 s", "773 ms", NULL };
	char *w = claims_step_words(ID, 17);
	for (const char *p = w; *p; p++) {
		if (!isdigit((unsigned char)*p) || (p > w && (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
			continue;
		const char *q = p;
		while (isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (strncmp(q, " s", 2) != 0 && strncmp(q, " ms", 3) != 0)
			continue;
		if (isalpha((unsigned char)q[q[2] == 's' ? 3 : 2]))
			continue; /* " sequences", " mask": a count, not a time */
		bool quoted = false;
		for (int i = 0; notebook[i]; i++)
			quoted |= strncmp(p, notebook[i], strlen(notebook[i])) == 0;
		cr_expect(quoted, "step 17 states a time the notebook never printed: %.12s", p);
	}
	free(w);
	claim_says(ID, 17, "the notebook's 2.28 s and 1.83 s were its machine's, one run each");
}

Test(lesson_self_attention_classes, step_17_should_time_each_module_repeated_in_eval_mode_without_a_graph)
{
	const struct show *t = timing_of(step_of(17));
	cr_assert_eq(t->ntimings, 3);
	for (int i = 0; i < t->ntimings; i++) {
		const char *c = t->timings[i].code;
		cr_expect(strstr(c, ".eval()"), "entry %d is not in evaluation mode:\n%s", i, c);
		cr_expect(strstr(c, "with torch.no_grad():"), "entry %d records a graph:\n%s", i, c);
		cr_expect_eq(t->timings[i].repeat, 3, "entry %d is not the best of three runs", i);
	}
	/* test_interrupt cancels the first entry by this label */
	cr_expect(strstr(t->timings[0].label, "one after another"));
	claim_says(ID, 17, "each entry first puts its module in evaluation mode (`.eval()`: dropout off) and runs "
			   "under `torch.no_grad()`");
	claim_says(ID, 17, "and shows the best of the three");
}

Test(lesson_self_attention_classes, step_7_should_say_the_two_masks_agree_only_in_exact_arithmetic)
{
	claim_never_says(ID, 7, "Both give the same weights");
	claim_says(ID, 7, "In exact arithmetic both give the same weights");
	claim_says(ID, 7, "In floating point the two ways can part");
}

Test(lesson_self_attention_classes, step_8_should_show_scores_0_and_200_where_zeroing_after_softmax_gives_nan)
{
	claim_says(ID, 8, "two_scores = torch.tensor([0., 200.])");
	claim_says(ID, 8, "hidden = torch.tensor([False, True])");
	claim_says(ID, 8, "Zeroing that key leaves [0, 0], and rescaling divides 0 by 0: NaN");
	const struct step *st = step_of(8);
	/* what PyTorch 1.13 prints (tests/ref/lesson_self_attention_classes.py) */
	cr_expect(has_text_expect(st, "zeroed_two / zeroed_two.sum(-1, keepdim=True)", "tensor([nan, nan])"));
	cr_expect(has_text_expect(st, "torch.softmax(two_scores.masked_fill(hidden, -torch.inf), dim=-1)",
				  "tensor([1., 0.])"));
	cr_expect(has_text_expect(st, "torch.exp(two_scores)", "tensor([1., inf])"));
	cr_expect(strstr(st->expects[0].text, "tensor([0., 1.])\ntensor([nan, nan])\ntensor([1., 0.])"),
		  "step 8's printed output is not torch's: %s", st->expects[0].text);
}

Test(lesson_self_attention_classes, step_7_should_say_why_the_mask_is_sliced_where_the_class_slices_it)
{
	claim_says(ID, 7, "attention_scores.masked_fill_(self.mask.bool()[:attention_scores.shape[1], "
			  ":attention_scores.shape[1]], -torch.inf)");
	claim_says(ID, 7, "A sequence may be shorter, so `forward` cuts out the top-left corner it needs, "
			  "`self.mask.bool()[:num_tokens, :num_tokens]`");
	claim_says(ID, 7, "max length is context length, but sequence only has num_tokens tokens");
}

Test(lesson_self_attention_classes, step_16_should_flag_the_notebooks_one_timed_run_in_training_mode)
{
	claim_says(ID, 16, "The notebook times one run of each forward, in training mode with autograd on");
	claim_says(ID, 16, "That is not a fair timing of inference.");
	claim_says(ID, 16, "Dropout is active");
	claim_says(ID, 16, "autograd records a graph");
}
