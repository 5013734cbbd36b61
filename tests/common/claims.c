/* claims.c: the words of a built-in lesson's steps, for the tests that pin
 * what the lessons say (see claims.h). Reads the catalog once per process;
 * never runs a step. */
#include "claims.h"

#include "core/strbuf.h"
#include "lesson/catalog.h"

static struct catalog cat;
static bool loaded;

const struct lesson *claims_lesson(const char *id)
{
	if (!loaded) {
		catalog_load(&cat, NULL, NULL);
		loaded = true;
	}
	for (int i = 0; i < cat.n; i++)
		if (cat.entries[i].lesson && strcmp(cat.entries[i].lesson->id, id) == 0)
			return cat.entries[i].lesson;
	cr_assert_fail("no built-in lesson has the id %s", id);
	return NULL;
}

static void lines(struct strbuf *b, char *const *s, int n)
{
	for (int i = 0; i < n; i++)
		strbuf_printf(b, "%s\n", s[i]);
}

static void step_words(struct strbuf *b, const struct step *st)
{
	strbuf_printf(b, "%s\n", st->title);
	lines(b, st->text, st->ntext);
	strbuf_printf(b, "%s\n", st->code);
	lines(b, st->note, st->nnote);
	for (int i = 0; i < st->nshows; i++) {
		const struct show *sh = &st->shows[i];
		if (sh->title)
			strbuf_printf(b, "%s\n", sh->title);
		lines(b, sh->rows, sh->nrows);
		lines(b, sh->cols, sh->ncols);
		lines(b, sh->heads, sh->nheads);
	}
	for (int i = 0; i < st->nexercises; i++) {
		const struct exercise *x = &st->exercises[i];
		strbuf_printf(b, "%s\n", x->ask);
		lines(b, x->hints, x->nhints);
		strbuf_printf(b, "%s\n", x->solution);
	}
}

char *claims_step_words(const char *id, int step)
{
	const struct lesson *l = claims_lesson(id);
	cr_assert(step >= 1 && step <= l->nsteps, "%s has no step %d (it has %d)", id, step, l->nsteps);
	struct strbuf b;
	strbuf_init(&b);
	step_words(&b, &l->steps[step - 1]);
	return b.s;
}

char *claims_lesson_words(const char *id)
{
	const struct lesson *l = claims_lesson(id);
	struct strbuf b;
	strbuf_init(&b);
	for (int k = 0; k < l->nsteps; k++)
		step_words(&b, &l->steps[k]);
	return b.s;
}
