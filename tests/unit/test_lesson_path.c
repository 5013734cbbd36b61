/* test_lesson_path.c: the built-in lessons as a learning path (issue 14):
 * the menu's order, simplest first, and exercises all along it. The
 * sentences of each lesson are pinned in a test_lesson_ID.c of its own. */
#include "claims.h"

#include "lesson/catalog.h"

static const char *const path[] = { "animal-attention", "attention-step-by-step", "projections-and-masks",
				    "loops-and-matrices", "self-attention-classes", "many-heads-one-matrix",
				    "order-and-position", "kv-cache-and-cross-attention" };
#define NPATH (int)(sizeof path / sizeof *path)

Test(lesson_path, the_lessons_should_be_listed_simplest_first_from_the_numpy_animals)
{
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	cr_assert_eq(c.n, NPATH, "qkv has %d built-in lessons", c.n);
	for (int i = 0; i < NPATH; i++) {
		cr_assert(c.entries[i].lesson, "%s", c.entries[i].error);
		cr_expect_str_eq(c.entries[i].lesson->id, path[i], "lesson %d", i + 1);
	}
	catalog_free(&c);
}

/* "at least one exercise for every two steps, each with a hint": steps 1-2,
 * 3-4, ... each hold one (a lone last step counts as a pair), and every
 * lesson asks for predictions too */
Test(lesson_path, every_two_steps_should_ask_an_exercise_with_a_hint)
{
	int predictions = 0;
	for (int i = 0; i < NPATH; i++) {
		const struct lesson *l = claims_lesson(path[i]);
		int lesson_predictions = 0;
		for (int k = 0; k < l->nsteps; k += 2) {
			int n = l->steps[k].nexercises + (k + 1 < l->nsteps ? l->steps[k + 1].nexercises : 0);
			cr_expect(n > 0, "%s: steps %d-%d ask no exercise", path[i], k + 1, k + 2);
		}
		for (int k = 0; k < l->nsteps; k++) {
			for (int e = 0; e < l->steps[k].nexercises; e++) {
				const struct exercise *x = &l->steps[k].exercises[e];
				cr_expect(x->nhints > 0, "%s step %d: '%s' has no hint", path[i], k + 1, x->ask);
				lesson_predictions += x->predict;
			}
		}
		cr_expect(lesson_predictions >= 3, "%s asks %d predictions", path[i], lesson_predictions);
		predictions += lesson_predictions;
	}
	cr_expect(predictions >= 20, "%d predictions in all", predictions);
}
