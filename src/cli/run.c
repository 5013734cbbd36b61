/* run.c: `qkv run [--plain|--json] LESSON...`: every step of each lesson as
 * text (text/render.c: narration, code, heatmaps) or one JSON object per
 * step, with a timing's progress on a terminal's stderr (text/progress.c).
 * Called by main.c; drives the lesson through lesson/player.h; a lesson
 * that fails prints nothing of itself and gives status 2. */
#include "cli/cli.h"
#include "core/strbuf.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "text/progress.h"
#include "text/render.h"
#include "view/page.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether `qkv run` may colour its heatmaps. */
static bool want_color(void)
{
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(nc && *nc) && term && strcmp(term, "dumb") != 0;
}

/* Runs every step of l into out (text or JSON lines). -1 with err when a
 * step fails: nothing of the lesson is printed then. */
static int run_lesson(const struct lesson *l, enum kernel_variant kv, bool json, struct strbuf *out,
		      struct qkv_error *err)
{
	struct render_opts o = { 80, !json && want_color() };
	struct player *p = player_new(l, kv);
	player_set_timeout(p, l->timeout > 0 ? l->timeout : LESSON_DEFAULT_TIMEOUT);
	struct text_progress tp;
	if (text_progress_start(&tp, stderr))
		player_set_progress(p, text_progress_draw, &tp);
	int rc = 0;
	if (!json)
		render_lesson_header(out, l, &o);
	for (int k = 0; k < l->nsteps && rc == 0; k++) {
		int at;
		rc = player_go(p, k, &at, err);
		text_progress_clear(&tp);
		for (int e = 0; rc == 0 && e < l->steps[k].nexpects; e++) {
			struct expect_result er;
			rc = player_expect(p, k, e, &er, err);
		}
		if (rc == 0 && json) {
			render_step_json(out, l, k, player_result(p, k));
			strbuf_putc(out, '\n');
		} else if (rc == 0) {
			struct page pg;
			page_build(&pg, p, k);
			render_step(out, &pg, &o);
			page_free(&pg);
		}
	}
	player_free(p);
	return rc;
}

int cli_run(int argc, char **argv, enum kernel_variant kv)
{
	bool json = false;
	int nlessons = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--plain") == 0)
			json = false;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("run: unknown option %s", argv[i]);
		else
			nlessons++;
	}
	if (nlessons == 0)
		return cli_usage_error("%s", "run needs a LESSON (a path, a number or an id; see qkv list)");
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	int status = 0;
	for (int i = 0; i < argc && status == 0; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		struct qkv_error err;
		struct lesson *l = catalog_resolve(&c, argv[i], cli_print_warning, NULL, &err);
		struct strbuf out;
		strbuf_init(&out);
		if (!l || run_lesson(l, kv, json, &out, &err) < 0) {
			cli_print_error("%s", err.msg);
			status = 2;
		} else {
			fputs(out.s, stdout);
		}
		strbuf_free(&out);
		lesson_free(l);
	}
	catalog_free(&c);
	return status;
}
