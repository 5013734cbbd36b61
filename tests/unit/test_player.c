/* test_player.c: the lesson player (lesson/player.c) and the page model
 * (view/page.c), in-process, without a terminal: steps run once and are kept,
 * each step's workspace is a snapshot that later steps cannot change, a
 * failure blocks what follows, Ctrl-C leaves a step to run again, views are
 * computed again from a snapshot; and every step of every built-in lesson
 * gives one page that `qkv run --plain` paints line for line, its code's
 * continuation lines after "... ", its header naming the source by title. */
#include "core/strbuf.h"
#include "lang/interp.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "text/render.h"
#include "view/page.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char three_steps[] =
	"{ \"format\": 1, \"id\": \"three\", \"title\": \"Three\", \"source\": \"a test\", \"summary\": \"s\",\n"
	"  \"steps\": [\n"
	"    { \"title\": \"one\", \"text\": [\"First `X`.\"], \"code\": [\"X = [1 2; 3 4]\", \"X\"],\n"
	"      \"show\": [ { \"heatmap\": \"X\" } ] },\n"
	"    { \"title\": \"two\", \"text\": [\"In place.\"], \"code\": [\"X.fill_(40)\", \"Y = X + 1\"],\n"
	"      \"show\": [ { \"heatmap\": \"Y\" } ], \"note\": [\"A note.\"] },\n"
	"    { \"title\": \"three\", \"text\": [\"Last.\"], \"code\": [\"Z = Y @ Y\"] }\n"
	"  ] }\n";

static const char failing[] =
	"{ \"format\": 1, \"id\": \"bad\", \"title\": \"Bad\", \"source\": \"a test\", \"summary\": \"s\",\n"
	"  \"steps\": [\n"
	"    { \"title\": \"one\", \"text\": [\"ok\"], \"code\": [\"A = [1 2]\"] },\n"
	"    { \"title\": \"two\", \"text\": [\"fails\"], \"code\": [\"B = A @ [1 2; 3 4; 5 6]\"] },\n"
	"    { \"title\": \"three\", \"text\": [\"never\"], \"code\": [\"C = A\"] }\n"
	"  ] }\n";

static struct lesson *parse(const char *text)
{
	struct qkv_error err;
	struct lesson *l = lesson_parse("test.json", text, strlen(text), NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	return l;
}

static double value_at(struct interp *I, const char *name, int64_t i)
{
	struct value *v = interp_get(I, name);
	cr_assert(v && v->kind == V_TENSOR, "%s is not a tensor", name);
	return tensor_get(v->t, i);
}

Test(player, going_to_a_step_should_run_the_steps_before_it_once_and_keep_their_results)
{
	struct lesson *l = parse(three_steps);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 2, &at, &err), 0, "%s", err.msg);
	cr_expect_eq(at, 2);
	cr_expect_eq(player_ran(p), 3);
	for (int k = 0; k < 3; k++)
		cr_expect_eq(player_state(p, k), STEP_RAN);
	const struct step_result *r0 = player_result(p, 0);
	cr_assert(r0);
	cr_expect_str_eq(r0->output, "tensor([[1., 2.],\n        [3., 4.]])\n");
	/* going back runs nothing again: the same result object */
	cr_assert_eq(player_go(p, 0, &at, &err), 0);
	cr_expect_eq(at, 0);
	cr_expect_eq(player_ran(p), 3);
	cr_expect_eq(player_result(p, 0), r0);
	player_free(p);
	lesson_free(l);
}

Test(player, a_steps_workspace_should_be_as_it_left_it_even_after_later_steps_wrote_in_place)
{
	struct lesson *l = parse(three_steps);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 2, &at, &err), 0, "%s", err.msg);
	struct interp *w0 = player_workspace(p, 0), *w1 = player_workspace(p, 1), *w2 = player_workspace(p, 2);
	cr_assert(w0 && w1 && w2);
	cr_expect_eq(value_at(w0, "X", 3), 4.0, "step 2's X.fill_(40) reached step 1's snapshot");
	cr_expect_null(interp_get(w0, "Y"));
	cr_expect_eq(value_at(w1, "X", 3), 40.0);
	cr_expect_null(interp_get(w1, "Z"));
	cr_expect_not_null(interp_get(w2, "Z"));
	/* the shown tensor of step 1 is kept as it was shown */
	cr_expect_eq(tensor_get(player_result(p, 0)->shown[0].t, 3), 4.0);
	cr_expect_null(player_workspace(p, 3));
	player_free(p);
	lesson_free(l);
}

Test(player, a_failing_step_should_say_where_and_block_the_steps_after_it)
{
	struct lesson *l = parse(failing);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 2, &at, &err), -1);
	cr_expect(strncmp(err.msg, "test.json:4:", 12) == 0, "%s", err.msg);
	cr_expect(strstr(err.msg, "steps[1].code"), "%s", err.msg);
	cr_expect_eq(player_state(p, 0), STEP_RAN);
	cr_expect_eq(player_state(p, 1), STEP_FAILED);
	cr_expect_eq(player_state(p, 2), STEP_BLOCKED);
	cr_expect_eq(player_failed_step(p), 1);
	cr_expect_str_eq(player_failure(p), err.msg);
	/* asking again runs nothing and reports no new failure */
	cr_expect_eq(player_go(p, 2, &at, &err), 0);
	struct page pg;
	page_build(&pg, p, 2);
	cr_expect_eq(pg.state, STEP_BLOCKED);
	cr_assert_gt(pg.nblocks, 0);
	bool said = false;
	for (int i = 0; i < pg.nblocks; i++)
		said |= pg.blocks[i].style == PAGE_STATUS && strcmp(pg.blocks[i].text, "(Not run: step 2 failed.)") == 0;
	cr_expect(said, "the blocked step's page does not say why it did not run");
	page_free(&pg);
	player_free(p);
	lesson_free(l);
}

static volatile sig_atomic_t stop;

Test(player, a_step_stopped_by_ctrl_c_in_its_code_should_not_have_run_and_run_again_when_gone_to)
{
	struct lesson *l = parse(three_steps);
	struct player *p = player_new(l, KERNEL_SIMD);
	player_set_interrupt(p, &stop);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 0, &at, &err), 0, "%s", err.msg);
	stop = 1;
	cr_expect_eq(player_go(p, 2, &at, &err), PLAYER_INTERRUPTED);
	stop = 0;
	cr_expect_eq(at, 1);
	cr_expect_eq(player_state(p, 1), STEP_NOT_RUN);
	cr_expect_null(player_result(p, 1));
	cr_expect_eq(value_at(player_workspace(p, 0), "X", 3), 4.0, "the stopped step was not undone");
	struct page pg;
	page_build(&pg, p, 1);
	cr_expect_eq(pg.nviews, 0);
	page_free(&pg);
	cr_assert_eq(player_go(p, 2, &at, &err), 0, "%s", err.msg);
	cr_expect_eq(value_at(player_workspace(p, 1), "X", 3), 40.0, "step 2 ran more than once");
	player_free(p);
	lesson_free(l);
}

Test(player, showing_an_earlier_steps_views_again_should_use_its_snapshot)
{
	struct lesson *l = parse(three_steps);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 2, &at, &err), 0, "%s", err.msg);
	cr_assert_eq(player_show_again(p, 0, &err), 0, "%s", err.msg);
	const struct step_result *r = player_result(p, 0);
	cr_assert_eq(r->nshown, 1);
	cr_expect_eq(tensor_get(r->shown[0].t, 3), 4.0, "the view was computed in a later workspace");
	/* and the snapshot is still what step 1 left */
	cr_expect_eq(value_at(player_workspace(p, 0), "X", 3), 4.0);
	player_free(p);
	lesson_free(l);
}

Test(player, expects_and_exercises_of_an_earlier_step_should_be_judged_in_its_workspace)
{
	static const char text[] =
		"{ \"format\": 1, \"id\": \"ex\", \"title\": \"Ex\", \"source\": \"a test\", \"summary\": \"s\",\n"
		"  \"steps\": [\n"
		"    { \"title\": \"one\", \"text\": [\"x\"], \"code\": [\"A = [1 2; 3 4]\"],\n"
		"      \"expect\": [ { \"tensor\": \"A\", \"values\": [[1, 2], [3, 4]] } ],\n"
		"      \"exercise\": [ { \"ask\": \"double A\", \"answer\": \"A * 2\", \"solution\": [\"B = A * 2\"] } ] },\n"
		"    { \"title\": \"two\", \"text\": [\"y\"], \"code\": [\"A.fill_(0)\"] }\n"
		"  ] }\n";
	struct lesson *l = parse(text);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 1, &at, &err), 0, "%s", err.msg);
	struct expect_result er;
	cr_assert_eq(player_expect(p, 0, 0, &er, &err), 0, "%s", err.msg);
	cr_expect(er.pass, "%s", er.detail);
	bool solved;
	char detail[256];
	cr_assert_eq(player_check_exercise(p, 0, 0, &solved, detail, sizeof detail, &err), 0, "%s", err.msg);
	cr_expect(solved, "%s", detail);
	cr_expect_null(interp_get(player_workspace(p, 0), "B"), "the solution's dry run changed the snapshot");
	player_free(p);
	lesson_free(l);
}

/* ---- the page model -------------------------------------------------------------- */

static bool contains_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == 0))
			return true;
	return false;
}

Test(page, code_output_should_be_the_printed_text_verbatim_under_its_line)
{
	struct lesson *l = parse(three_steps);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 1, &at, &err), 0, "%s", err.msg);
	struct page pg;
	page_build(&pg, p, 0);
	struct page_lines pl = { 0 };
	page_layout(&pg, 0, -1, 80, &pl);
	/* "First `X`.", blank, ">>> X = [1 2; 3 4]", ">>> X", then torch's two lines as printed */
	cr_assert_eq(pl.n, 6);
	cr_expect_str_eq(pl.lines[0].text, "First `X`.");
	cr_expect_eq(pl.lines[1].style, PAGE_BLANK);
	cr_expect_str_eq(pl.lines[2].text, ">>> X = [1 2; 3 4]");
	cr_expect_str_eq(pl.lines[3].text, ">>> X");
	cr_expect_str_eq(pl.lines[4].text, "tensor([[1., 2.],");
	cr_expect_str_eq(pl.lines[5].text, "        [3., 4.]])", "the continuation row lost its spacing");
	cr_expect_eq(pl.lines[5].style, PAGE_OUTPUT);
	page_lines_free(&pl);
	page_free(&pg);
	player_free(p);
	lesson_free(l);
}

Test(page, a_long_code_line_should_continue_after_dots_and_no_line_should_pass_the_width)
{
	struct lesson *l = parse(three_steps);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 0, &at, &err), 0, "%s", err.msg);
	struct page pg;
	page_build(&pg, p, 0);
	free(pg.blocks[0].text);
	pg.blocks[0].text = strdup("a b c d e f g h i j k l m n o p q r s t u v w x y z");
	pg.blocks[1].text[0] = 'Y';	/* "Y = [1 2; 3 4]" */
	struct page_lines pl = { 0 };
	page_layout(&pg, 0, -1, 14, &pl);
	for (int i = 0; i < pl.n; i++) {
		if (pl.lines[i].style == PAGE_OUTPUT)
			continue;	/* torch's own lines are kept whole up to width + 2 */
		cr_expect_leq(strlen(pl.lines[i].text), 14, "line %d is too long: '%s'", i, pl.lines[i].text);
	}
	cr_expect_str_eq(pl.lines[0].text, "a b c d e f g");
	int code = -1;
	for (int i = 0; i < pl.n && code < 0; i++)
		code = pl.lines[i].style == PAGE_CODE ? i : -1;
	cr_assert_geq(code, 0);
	cr_expect_str_eq(pl.lines[code].text, ">>> Y = [1 2;");
	cr_expect_str_eq(pl.lines[code + 1].text, "... 3 4]");
	page_lines_free(&pl);
	page_free(&pg);
	player_free(p);
	lesson_free(l);
}

static const char continued[] =
	"{ \"format\": 1, \"id\": \"cont\", \"title\": \"Cont\", \"source\": \"a test\", \"summary\": \"s\",\n"
	"  \"steps\": [ { \"title\": \"one\", \"text\": [\"t\"], \"code\": [\n"
	"    \"values = [[1, 2], # one\",\n"
	"    \"          [3, 4]] # two\",\n"
	"    \"y = 1 + \\\\\",\n"
	"    \"    2; z = (3,\",\n"
	"    \"\",\n"
	"    \"  4)\",\n"
	"    \"print(len(values), y, z)\" ] } ] }\n";

/* Runs l's player up to step k and lays out that step's page at width;
 * the caller frees the three. */
static void lay_out_step(struct lesson *l, int k, int width, struct player **p, struct page *pg,
			 struct page_lines *pl)
{
	*p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(*p, k, &at, &err), 0, "%s", err.msg);
	page_build(pg, *p, k);
	memset(pl, 0, sizeof *pl);
	page_layout(pg, 0, -1, width, pl);
}

static void free_step(struct player *p, struct page *pg, struct page_lines *pl)
{
	page_lines_free(pl);
	page_free(pg);
	player_free(p);
}

/* Lesson 1 step 5's `values = np.array([[...],` over five lines: the lines
 * after the first of one statement are "... " lines, as Python prompts for
 * them; a blank line inside brackets too; the next statement ">>> " again. */
Test(page, the_lines_after_the_first_of_a_statement_should_follow_dots)
{
	struct lesson *l = parse(continued);
	struct player *p;
	struct page pg;
	struct page_lines pl;
	lay_out_step(l, 0, 80, &p, &pg, &pl);
	const char *want[] = { ">>> values = [[1, 2], # one", "...           [3, 4]] # two", ">>> y = 1 + \\",
			       "...     2; z = (3,", "... ", "...   4)", ">>> print(len(values), y, z)", "2 3 (3, 4)" };
	cr_assert_eq(pl.n, 2 + 8, "%d lines", pl.n);
	for (int i = 0; i < 8; i++)
		cr_expect_str_eq(pl.lines[2 + i].text, want[i], "line %d", i);
	free_step(p, &pg, &pl);
	lesson_free(l);
	/* the built-in lesson the issue names: 05 step 5 */
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	struct qkv_error err;
	l = catalog_resolve(&c, "1", NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	lay_out_step(l, 4, 80, &p, &pg, &pl);
	int first = -1;
	for (int i = 0; i < pl.n && first < 0; i++)
		if (strncmp(pl.lines[i].text, ">>> values = np.array(", 22) == 0)
			first = i;
	cr_assert_geq(first, 0);
	for (int i = 1; i <= 4; i++)
		cr_expect(strncmp(pl.lines[first + i].text, "... ", 4) == 0 && strstr(pl.lines[first + i].text, "]"),
			  "%s", pl.lines[first + i].text);
	cr_expect_str_eq(pl.lines[first + 5].text, ">>> output = weights@values");
	free_step(p, &pg, &pl);
	lesson_free(l);
	catalog_free(&c);
}

/* run --plain's header names the document a lesson retells by its title
 * (source_title), never by a file name like 000_49f43e13ae5f8a7a.txt; a
 * lesson without one by its source. */
Test(page, the_header_should_name_the_source_document_by_its_title)
{
	struct render_opts o = { 80, false };
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	for (int i = 1; i <= 5; i++) {
		char num[16];
		snprintf(num, sizeof num, "%d", i);
		struct qkv_error err;
		struct lesson *l = catalog_resolve(&c, num, NULL, NULL, &err);
		cr_assert(l, "%s", err.msg);
		cr_expect(l->source_title && *l->source_title, "lesson %d has no source_title", i);
		struct strbuf out;
		strbuf_init(&out);
		render_lesson_header(&out, l, &o);
		char want[300];
		snprintf(want, sizeof want, "(retells %s; %d steps)", l->source_title, l->nsteps);
		cr_expect(strstr(out.s, want), "lesson %d: %s", i, out.s);
		cr_expect(!strstr(out.s, ".txt"), "lesson %d names a file: %s", i, out.s);
		strbuf_free(&out);
		lesson_free(l);
	}
	catalog_free(&c);
	struct catalog c2;
	catalog_load(&c2, NULL, NULL);
	/* without a source_title: the source as it is */
	struct lesson *l = parse(three_steps);
	cr_expect_null(l->source_title);
	struct strbuf out;
	strbuf_init(&out);
	render_lesson_header(&out, l, &o);
	cr_expect(strstr(out.s, "(retells a test; 3 steps)"), "%s", out.s);
	strbuf_free(&out);
	lesson_free(l);
	/* a lesson beyond the documents retells none */
	struct qkv_error rerr;
	l = catalog_resolve(&c2, "kv-cache-and-cross-attention", NULL, NULL, &rerr);
	cr_assert(l, "%s", rerr.msg);
	strbuf_init(&out);
	render_lesson_header(&out, l, &o);
	cr_expect(strstr(out.s, "(beyond the documents: a KV cache"), "%s", out.s);
	cr_expect(!strstr(out.s, "retells"), "%s", out.s);
	strbuf_free(&out);
	lesson_free(l);
	catalog_free(&c2);
	/* an empty or non-string title is refused where it is */
	const char *bad[] = { "\"\"", "3" };
	const char *why[] = { "source_title: must not be empty", "source_title: must be a string, not a number" };
	for (int i = 0; i < 2; i++) {
		char text[sizeof three_steps + 64];
		const char *at = strstr(three_steps, "\"summary\"");
		snprintf(text, sizeof text, "%.*s\"source_title\": %s, %s", (int)(at - three_steps), three_steps, bad[i], at);
		struct qkv_error err;
		l = lesson_parse("test.json", text, strlen(text), NULL, NULL, &err);
		cr_expect_null(l, "%s was taken", bad[i]);
		cr_expect(strstr(err.msg, why[i]), "%s", err.msg);
		lesson_free(l);
	}
}

/* Every step of every built-in lesson: `qkv run --plain`'s text (render_step)
 * holds the page's laid-out lines, in order, text and output alike. */
Test(page, run_plain_should_paint_exactly_the_lines_of_each_steps_page, .timeout = 600)
{
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	int steps = 0;
	for (int i = 0; i < c.n; i++) {
		const struct lesson *l = c.entries[i].lesson;
		cr_assert(l, "%s", c.entries[i].error);
		struct player *p = player_new(l, KERNEL_SIMD);
		struct render_opts o = { 80, false };
		for (int k = 0; k < l->nsteps; k++) {
			struct qkv_error err;
			int at;
			cr_assert_eq(player_go(p, k, &at, &err), 0, "%s", err.msg);
			struct page pg;
			page_build(&pg, p, k);
			struct strbuf out;
			strbuf_init(&out);
			render_step(&out, &pg, &o);
			struct page_lines pl = { 0 };
			page_layout(&pg, 0, -1, 80, &pl);
			const char *from = out.s;
			for (int j = 0; j < pl.n; j++) {
				if (pl.lines[j].style == PAGE_BLANK)
					continue;
				cr_assert(contains_line(from, pl.lines[j].text), "%s step %d: '%s' is not in run --plain's text",
					  l->id, k + 1, pl.lines[j].text);
				from = strstr(from, pl.lines[j].text) + 1;
			}
			/* every printed line of the result is on the page, as printed */
			const struct step_result *r = player_result(p, k);
			for (const char *s = r->output; *s;) {
				const char *nl = strchr(s, '\n');
				char line[512];
				snprintf(line, sizeof line, "%.*s", (int)(nl ? nl - s : (long)strlen(s)), s);
				if (strlen(line) <= 82 && !strchr(line, '\t'))
					cr_assert(contains_line(out.s, line), "%s step %d: output '%s' missing", l->id, k + 1,
						  line);
				s = nl ? nl + 1 : s + strlen(s);
			}
			page_lines_free(&pl);
			strbuf_free(&out);
			page_free(&pg);
			steps++;
		}
		player_free(p);
	}
	cr_expect_geq(steps, 81);
	catalog_free(&c);
}

Test(page, a_step_whose_show_failed_should_have_no_view_to_draw_and_still_paint)
{
	static const char text[] =
		"{ \"format\": 1, \"id\": \"sf\", \"title\": \"Show fails\", \"source\": \"a test\", \"summary\": \"s\",\n"
		"  \"steps\": [\n"
		"    { \"title\": \"one\", \"text\": [\"x\"], \"code\": [\"A = [1 2; 3 4]\"],\n"
		"      \"show\": [ { \"heatmap\": \"A\" }, { \"heatmap\": \"A @ [1 2 3]\" } ] }\n"
		"  ] }\n";
	struct lesson *l = parse(text);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct qkv_error err;
	int at;
	cr_assert_eq(player_go(p, 0, &at, &err), -1);
	cr_expect_eq(player_state(p, 0), STEP_FAILED);
	struct page pg;
	page_build(&pg, p, 0);
	cr_expect_eq(pg.nviews, 1, "only the heatmap that was computed is a view");
	struct strbuf out;
	strbuf_init(&out);
	struct render_opts o = { 80, false };
	render_step(&out, &pg, &o);
	cr_expect(strstr(out.s, "This step's code failed:"), "%s", out.s);
	strbuf_free(&out);
	page_free(&pg);
	player_free(p);
	lesson_free(l);
}
