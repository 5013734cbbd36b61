/* check.c: `qkv check [LESSON...]`: validates lessons (all of the catalog
 * when none is named) and verifies every expected value and exercise, with
 * a timing's progress on a terminal's stderr (text/progress.c). Called by
 * main.c; drives lessons through lesson/player.h, each step within the
 * lesson's "timeout". Status 0 when everything
 * holds, 1 when a value is wrong, 2 when a lesson is refused. */
#include "cli/cli.h"
#include "core/strbuf.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "text/progress.h"
#include "core/visible.h"

#include <stdbool.h>
#include <stdio.h>

/* Checks one lesson: every step runs, every expect holds. Returns 2 when the
 * lesson is invalid (refused whole: none of its expects count), else adds to
 * the counts. */
static int check_lesson(const struct lesson *l, enum kernel_variant kv, int *passed_total, int *failed_total)
{
	struct player *p = player_new(l, kv);
	player_set_timeout(p, l->timeout > 0 ? l->timeout : LESSON_DEFAULT_TIMEOUT);
	struct text_progress tp;
	if (text_progress_start(&tp, stderr))
		player_set_progress(p, text_progress_draw, &tp);
	struct qkv_error err;
	int status = 0, passed = 0, failed = 0;
	struct strbuf fails;
	strbuf_init(&fails);
	for (int k = 0; k < l->nsteps && status == 0; k++) {
		const struct step *st = &l->steps[k];
		int at, rc = player_go(p, k, &at, &err);
		text_progress_clear(&tp);
		if (rc < 0) {
			cli_print_error("%s", err.msg);
			status = 2;
		}
		for (int e = 0; status == 0 && e < st->nexpects; e++) {
			struct expect_result er;
			if (player_expect(p, k, e, &er, &err) < 0) {
				cli_print_error("%s", err.msg);
				status = 2;
			} else if (er.pass) {
				passed++;
			} else {
				failed++;
				const struct expect *x = &st->expects[e];
				strbuf_printf(&fails, "%s:%d:%d: %s: step %d (%s): %s%s%s\n", l->name, x->at.line,
					      x->at.col, x->path, k + 1, st->title, er.detail, x->why ? " \u2014 " : "",
					      x->why ? x->why : "");
			}
		}
		for (int e = 0; status == 0 && e < st->nexercises; e++) {
			bool solved;
			char detail[1024];	/* quotes the answer: cut at a character if longer */
			if (player_check_exercise(p, k, e, &solved, detail, sizeof detail, &err) < 0) {
				cli_print_error("%s", err.msg);
				status = 2;
			} else if (solved) {
				passed++;
			} else {
				failed++;
				const struct exercise *x = &st->exercises[e];
				strbuf_printf(&fails, "%s:%d:%d: %s: step %d (%s): %s\n", l->name, x->answer_at.line,
					      x->answer_at.col, x->path, k + 1, st->title, detail);
			}
		}
	}
	player_free(p);
	if (status == 0) {
		visible_fputs(fails.s, stdout);	/* titles and details quote the lesson */
		*passed_total += passed;
		*failed_total += failed;
	}
	strbuf_free(&fails);
	return status;
}

struct tally {
	int passed, failed, refused;
};

/* Resolves and checks one LESSON argument; 2 when it is refused. */
static int check_one(const struct catalog *c, const char *arg, enum kernel_variant kv, struct tally *t)
{
	struct qkv_error err;
	struct lesson *l = catalog_resolve(c, arg, cli_print_warning, NULL, &err);
	int status = 2;
	if (!l)
		cli_print_error("%s", err.msg);
	else
		status = check_lesson(l, kv, &t->passed, &t->failed);
	t->refused += status == 2;
	lesson_free(l);
	return status;
}

int cli_check(int argc, char **argv, enum kernel_variant kv)
{
	for (int i = 0; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("check: unknown option %s", argv[i]);
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	if (c.note && argc == 0)
		cli_print_error("%s", c.note);
	struct tally t = { 0, 0, 0 };
	int status = 0;
	/* no argument: every lesson of the catalog, by number */
	for (int i = 0; i < (argc ? argc : c.n); i++) {
		char num[16];
		snprintf(num, sizeof num, "%d", i + 1);
		if (check_one(&c, argc ? argv[i] : num, kv, &t) == 2)
			status = 2;
	}
	catalog_free(&c);
	if (t.refused)
		printf("%d passed, %d failed, %d lesson%s refused\n", t.passed, t.failed, t.refused,
		       t.refused == 1 ? "" : "s");
	else
		printf("%d passed, %d failed\n", t.passed, t.failed);
	if (status)
		return status;
	return t.failed ? 1 : 0;
}
