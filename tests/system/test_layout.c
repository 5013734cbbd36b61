/* test_layout.c: what the lesson screen lays out at 80x24, 100x30 and
 * 120x40 in a real terminal (tmux), as testers found it cut or out of line:
 * the compare view's panels (lesson 4 step 4) start each part on the same
 * line and wrap their explanations (with "…" only where no room is left);
 * the cell inspector wraps its formula whole under the heatmap; titles cut
 * to the screen end in "…"; an exercise's question stays whole under a
 * "Not yet"; and b keeps the numbers at 80x24. */
#include "system.h"
#include "core/utf8.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *session;
static char state[64];

static void start(int w, int h, const char *env, const char *args)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-layout-state");
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
}

/* Line n (0-based) of screen s into out, "" past its end. */
static void line_n(const char *s, int n, char *out, size_t size)
{
	for (int i = 0; i < n && s; i++) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	size_t len = s ? strcspn(s, "\n") : 0;
	snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), s ? s : "");
}

/* The columns [col, col + width) of line (its characters one column each,
 * as every one of these screens has them) into out, trailing spaces off. */
static void columns(const char *line, int col, int width, char *out, size_t size)
{
	size_t n = strlen(line);
	size_t from = utf8_offset(line, (size_t)col), to = utf8_offset(line, (size_t)(col + width));
	from = from > n ? n : from;
	to = to < from ? from : to;
	while (to > from && line[to - 1] == ' ')
		to--;
	snprintf(out, size, "%.*s", (int)(to - from), line + from);
}

/* The line of s that holds text into out ("" when none). */
static void line_of(const char *s, const char *text, char *out, size_t size)
{
	const char *p = strstr(s, text);
	out[0] = 0;
	if (!p)
		return;
	while (p > s && p[-1] != '\n')
		p--;
	snprintf(out, size, "%.*s", (int)strcspn(p, "\n"), p);
}

/* The first line of s (0-based) on which text begins in column col, or -1. */
static int line_where(const char *s, const char *text, int col)
{
	int n = 0;
	for (const char *l = s; l; n++) {
		size_t len = strcspn(l, "\n");
		for (const char *p = strstr(l, text); p && p < l + len; p = strstr(p + 1, text))
			if (utf8_count_n(l, (size_t)(p - l)) == (size_t)col)
				return n;
		l = l[len] ? l + len + 1 : NULL;
	}
	return -1;
}

/* ---- the compare view's panels ------------------------------------------------------- */

/* One panel of lesson 4 step 4's compare view after 7 steps: where its
 * status begins, the first words of its explanation, and its last ones
 * (the explanation is whole when they are on screen). */
struct panel {
	const char *status, *begins, *ends;
};

static const struct panel loops = { "for-loops: 7 of 6400", "s += queries[0, 6]", "s = 0.5324" };
static const struct panel unrolled = { "unrolled \u00d74: 7 of 1700", "p = 24..27:", "-0.3860]" };
static const struct panel simd = { "vectorised (avx2, 6\u00d716 tile): 7 of 128", "p = 6: 6 broadcasts",
				   "padding)" };

/* Checks the panels of screen s (the first n of ps), each pw columns wide:
 * their explanations and their matrices' labels begin on one line, and each
 * explanation, read down its panel to the label, is whole or ends in "…". */
static void check_panels(const char *s, const struct panel *const *ps, int n, int pw)
{
	int expl = -1, label = -1;
	for (int i = 0; i < n; i++) {
		int col = screen_column(s, ps[i]->status);
		cr_assert(col >= 0, "no panel %s:\n%s", ps[i]->status, s);
		int e = line_where(s, ps[i]->begins, col), l = line_where(s, "c (10\u00d710)", col);
		cr_assert(e >= 0 && l > e, "panel %s: explanation on line %d, label on %d:\n%s", ps[i]->status, e, l, s);
		if (i == 0) {
			expl = e;
			label = l;
		}
		cr_assert_eq(e, expl, "the explanation of %s begins on line %d, the first panel's on %d:\n%s",
			     ps[i]->status, e, expl, s);
		cr_assert_eq(l, label, "the matrix of %s begins on line %d, the first panel's on %d:\n%s", ps[i]->status,
			     l, label, s);
		/* the explanation, down to the label (a line of partial sums, s0=..., aside) */
		char text[4096] = "", last[256] = "";
		for (int k = e; k < l; k++) {
			char line[1024], part[256];
			line_n(s, k, line, sizeof line);
			columns(line, col, pw, part, sizeof part);
			if (!part[0] || strncmp(part, "s0=", 3) == 0)
				continue;
			size_t len = strlen(text);
			snprintf(text + len, sizeof text - len, "%s%s", len ? " " : "", part);
			snprintf(last, sizeof last, "%s", part);
		}
		size_t ll = strlen(last), el = strlen("\u2026");
		bool cut = ll >= el && strcmp(last + ll - el, "\u2026") == 0;
		cr_assert(strstr(text, ps[i]->ends) || cut, "the explanation of %s is cut without \u2026: %s\n%s",
			  ps[i]->status, text, s);
	}
}

static void panels_in_line(int w, int h, const struct panel *const *ps, int n, bool whole)
{
	start(w, h, "QKV_SIMD=avx2", "4 --step 4");
	free(tmux_see(session, "for-loops: 0 of 6400"));
	tmux_keys(session, "s s s s s s s");
	char *s = tmux_see_all(session, (const char *const[]){ ps[0]->status, ps[n - 1]->status, NULL });
	int pw = (w - 2 - (n - 1)) / n;
	check_panels(s, ps, n, pw);
	if (whole) {
		/* where the room allows, every explanation whole */
		for (int i = 0; i < n; i++)
			cr_assert(strstr(s, ps[i]->ends), "%s: %s not whole\n%s", ps[i]->status, ps[i]->ends, s);
	}
	cr_assert(strstr(s, loops.ends), "the for-loops' explanation should be whole:\n%s", s);
	free(s);
}

Test(layout, two_panels_should_start_their_parts_on_one_line_at_80x24, .fini = finish, .timeout = 120)
{
	panels_in_line(80, 24, (const struct panel *const[]){ &loops, &simd }, 2, false);
}

Test(layout, two_panels_should_start_their_parts_on_one_line_at_100x30, .fini = finish, .timeout = 120)
{
	panels_in_line(100, 30, (const struct panel *const[]){ &loops, &simd }, 2, true);
}

Test(layout, three_panels_should_start_their_parts_on_one_line_at_120x40, .fini = finish, .timeout = 120)
{
	panels_in_line(120, 40, (const struct panel *const[]){ &loops, &unrolled, &simd }, 3, true);
}

/* ---- the cell inspector ---------------------------------------------------------------- */

/* Lesson 1 step 9's weights, the cursor on lizard's own weight: the
 * inspector's formula, wrapped, down to its result. */
static void inspector_whole(int w, int h)
{
	start(w, h, NULL, "1 --step 9");
	free(tmux_see(session, "step 9/14"));
	tmux_keys(session, "Tab Right Down");
	char *s = tmux_see(session, "weights[1, 1] = exp(");
	cr_assert(strstr(s, "9.660e-12) = 0.2514"), "the formula is cut:\n%s", s);
	free(s);
}

Test(layout, the_inspector_should_wrap_its_formula_whole_at_80x24, .fini = finish)
{
	inspector_whole(80, 24);
}

Test(layout, the_inspector_should_show_its_formula_whole_at_100x30, .fini = finish)
{
	inspector_whole(100, 30);
}

/* ---- titles ---------------------------------------------------------------------------- */

Test(layout, titles_cut_at_80x24_should_end_in_an_ellipsis, .fini = finish)
{
	start(80, 24, NULL, "");
	char *s = tmux_see(session, "Decoding with a KV cache");
	char line[1024];
	line_of(s, "Decoding with", line, sizeof line);
	cr_assert(strstr(line, "attention across sequen") && strstr(line, "\u2026"), "menu: %s\n%s", line, s);
	free(s);
	tmux_keys(session, "8");
	s = tmux_see(session, "step 1/12");
	tmux_keys(session, "g 8 Enter");
	free(s);
	s = tmux_see(session, "step 8/12");
	line_n(s, 0, line, sizeof line);
	cr_assert(strstr(line, "attention across sequen") && strstr(line, "\u2026  step 8/12"), "header: %s", line);
	/* the view's title: what it shows cut, the key to the next view kept */
	cr_assert(strstr(s, "6 target queries \u00d7 5 sourc\u2026  (v: next)") ||
		  strstr(s, "\u2026  (v: next)"), "view title:\n%s", s);
	free(s);
}

/* ---- an exercise's question under "Not yet" ---------------------------------------------- */

static void question_whole(int w, int h)
{
	start(w, h, NULL, "1 --step 1");
	free(tmux_see(session, "step 1/14"));
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "mammal");
	char *s = tmux_see(session, "Not yet");
	cr_assert(strstr(s, "Exercise: The dot product"), "%s", s);
	cr_assert(strstr(s, "the first cell of the picture."), "the question lost its end:\n%s", s);
	free(s);
}

Test(layout, a_question_should_stay_whole_under_not_yet_at_80x24, .fini = finish)
{
	question_whole(80, 24);
}

Test(layout, a_question_should_stay_whole_under_not_yet_at_100x30, .fini = finish)
{
	question_whole(100, 30);
}

/* ---- b, big cells, at 80x24 ---------------------------------------------------------------- */

Test(layout, big_cells_should_keep_the_numbers_at_80x24, .fini = finish)
{
	/* lesson 4's 10x10 scores, with numbers in normal cells at 80x24 */
	start(80, 24, "NO_COLOR=1", "4 --step 3");
	char *s = tmux_see(session, " 0  1.808  1.535 -5.444");
	free(s);
	tmux_keys(session, "b");
	s = tmux_see_gone(session, " 0  1.808  1.535 -5.444");
	cr_assert(strstr(s, "1.808") && strstr(s, "-5.444"), "b hid the numbers:\n%s", s);
	cr_assert(!strstr(s, "\u2580"), "b drew half blocks:\n%s", s);
	free(s);
}
