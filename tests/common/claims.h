/* claims.h: what a built-in lesson says, for the tests that pin its sentences
 * (tests/unit/test_lesson_*.c): the words of one step, and the check that a
 * step says, or no longer says, a sentence. Loads lessons through the
 * catalog, as `qkv ID` does. */
#ifndef QKV_TEST_CLAIMS_H
#define QKV_TEST_CLAIMS_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson.h"

/* The built-in lesson with this id, loaded once and kept for the process;
 * the test fails when there is none. */
const struct lesson *claims_lesson(const char *id);

/* Everything step `step` (counted from 1, as the screen does) of lesson id
 * says: its title, text, code, notes, show titles and labels, and its
 * exercises' questions, hints and solutions, one per line (malloc'd). */
char *claims_step_words(const char *id, int step);

/* Everything the whole lesson says, steps in order (malloc'd). */
char *claims_lesson_words(const char *id);

/* Step `step` of lesson id says `words` (a substring of claims_step_words). */
#define claim_says(id, step, words)                                                            \
	do {                                                                                   \
		char *w_ = claims_step_words((id), (step));                                    \
		cr_expect(strstr(w_, (words)) != NULL, "%s step %d does not say \"%s\":\n%s",  \
			  (id), (step), (words), w_);                                          \
		free(w_);                                                                      \
	} while (0)

/* Step `step` of lesson id no longer says `words`. */
#define claim_never_says(id, step, words)                                                      \
	do {                                                                                   \
		char *w_ = claims_step_words((id), (step));                                    \
		cr_expect(strstr(w_, (words)) == NULL, "%s step %d still says \"%s\"", (id),   \
			  (step), (words));                                                    \
		free(w_);                                                                      \
	} while (0)

#endif
