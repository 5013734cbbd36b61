/* test_lesson_path.c: the built-in lessons as a learning path (issue 14):
 * the menu's order, simplest first. The sentences of each lesson are pinned
 * in a test_lesson_ID.c of its own. */
#include "claims.h"

#include "lesson/catalog.h"

Test(lesson_path, the_lessons_should_be_listed_simplest_first_from_the_numpy_animals)
{
	static const char *const path[] = { "animal-attention", "attention-step-by-step", "projections-and-masks",
					    "loops-and-matrices", "self-attention-classes" };
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	cr_assert(c.n >= 5);
	for (int i = 0; i < 5; i++) {
		cr_assert(c.entries[i].lesson, "%s", c.entries[i].error);
		cr_expect_str_eq(c.entries[i].lesson->id, path[i], "lesson %d", i + 1);
	}
	catalog_free(&c);
	cr_expect(claims_lesson("animal-attention")->nsteps > 0);
}
