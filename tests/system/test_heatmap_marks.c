/* test_heatmap_marks.c: heatmaps on terminals with few colours or none, in
 * a real terminal (tmux), and the marks of `qkv run --plain`: without
 * colour (NO_COLOR) and with 8 colours (TERM=xterm) every row of a matrix
 * too tall for numbers keeps a line of its own (no half blocks, which there
 * could only be one shade for two rows), a negative value without colour
 * has a sign the legend names, a shade beside a number never touches its
 * digits, and -inf, +inf and nan each have a mark or word of their own that
 * the legend keys (tests/lessons/marks/off-the-scale.json). At 80x24 and
 * larger. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64];      /* XDG_STATE_HOME of the test, its own */

static const char *const lesson = "tests/lessons/marks/off-the-scale.json";

/* Starts qkv ARGS in a w x h tmux pane, env (NO_COLOR=1, TERM=xterm) before it. */
static void start(int w, int h, const char *env, const char *args)
{
	tmux_require();
	if (!state[0])
		dir_make_temp(state, sizeof state, "qkv-marks-state");
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
}

/* The last line of s that starts, after spaces, with label and a space (a
 * row of a heatmap, under column labels that may start so too), copied to
 * out; false when there is none. */
static bool line_of(const char *s, const char *label, char *out, size_t size)
{
	size_t ll = strlen(label);
	bool found = false;
	for (const char *p = s; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *q = p;
		while (q < p + n && *q == ' ')
			q++;
		if (q + ll < p + n && strncmp(q, label, ll) == 0 && q[ll] == ' ') {
			snprintf(out, size, "%.*s", (int)n, p);
			found = true;
		}
		p += n + (nl ? 1 : 0);
	}
	return found;
}

/* The text of s from the first from to the end of the line holding the
 * first to after it (malloc'd); the test fails when either is missing. */
static char *block(const char *s, const char *from, const char *to)
{
	const char *b = strstr(s, from);
	cr_assert(b, "no %s in\n%s", from, s);
	const char *e = strstr(b, to);
	cr_assert(e, "no %s after %s in\n%s", to, from, s);
	const char *eol = strchr(e, '\n');
	return strndup(b, (size_t)((eol ? eol : e + strlen(e)) - b));
}

/* The marks of heatmap cells: the shades and the marks off the scale. */
static const char *const marks[] = { "\u2591", "\u2592", "\u2593", "\u2588", "\u00b7", "\u25b2", "?", NULL };

/* Whether a mark stands right before or after a digit in s. */
static bool mark_touches_digit(const char *s)
{
	for (int i = 0; marks[i]; i++) {
		size_t n = strlen(marks[i]);
		for (const char *p = strstr(s, marks[i]); p; p = strstr(p + n, marks[i]))
			if ((p > s && p[-1] >= '0' && p[-1] <= '9') || (p[n] >= '0' && p[n] <= '9'))
				return true;
	}
	return false;
}

/* ---- every row a line ------------------------------------------------------------- */

/* At the prompt (--repl), X of 60 rows of 2 (-60 .. 59: negative in its
 * first 30 rows), too tall for numbers in a w x h screen: its rows 0 .. 4
 * each start a line of their own, in order, under the cursor at row 0. */
static char *tall_matrix(int w, int h, const char *env)
{
	start(w, h, env, "--repl");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "X = torch.arange(-60., 60.).reshape(60, 2)");
	char *s = tmux_see(session, "X: -60 \u2026 0 \u2026 60");
	char *grid = block(s, "(60\u00d72, float32)", "X: -60 \u2026 0 \u2026 60");
	for (int r = 0; r < 5; r++) {
		char label[16], line[512];
		snprintf(label, sizeof label, "%d", r);
		cr_assert(line_of(grid, label, line, sizeof line), "%dx%d, %s: row %d has no line of its own:\n%s", w,
			  h, env, r, s);
		cr_assert(strstr(line, "\u2588") || strstr(line, "\u2593"), "%dx%d, %s: row %d: %s", w, h, env, r, line);
	}
	free(grid);
	return s;
}

static void no_colour_rows_and_signs(int w, int h)
{
	char *s = tall_matrix(w, h, "NO_COLOR=1");
	char *grid = block(s, "float32)", "X: -60"), line[512];
	cr_assert(line_of(grid, "0", line, sizeof line));
	free(grid);
	cr_assert(strstr(line, "-\u2588"), "%dx%d: -60 and -59 without their sign: %s", w, h, line);
	cr_assert(strstr(s, "-\u2591 = negative"), "%dx%d: the legend does not say how negatives look:\n%s", w, h, s);
	free(s);
}

Test(heatmap_marks, no_color_should_give_each_row_of_a_tall_matrix_a_line_and_a_sign_at_80x24, .fini = finish)
{
	no_colour_rows_and_signs(80, 24);
}

Test(heatmap_marks, no_color_should_give_each_row_of_a_tall_matrix_a_line_and_a_sign_at_120x40, .fini = finish)
{
	no_colour_rows_and_signs(120, 40);
}

Test(heatmap_marks, eight_colours_should_give_each_row_of_a_tall_matrix_a_line, .fini = finish)
{
	char *s = tall_matrix(80, 24, "TERM=xterm");
	cr_assert(strstr(s, "cyan negative"), "%s", s);
	free(s);
	s = tmux_screen(session, true);
	cr_assert(strstr(s, "\x1b[46m") || strstr(s, "\x1b[36m"), "no cyan for the negative rows:\n%s", s);
	free(s);
}

/* ---- a gap between marks and digits ---------------------------------------------------- */

/* The lines of s from the one holding "heatmap:" to the one holding the
 * legend, or when the cell inspector took the legend's line, to the line
 * before the inspector's (it starts with name and "["); malloc'd. */
static char *heatmap_lines(const char *s, const char *legend, const char *name)
{
	const char *b = strstr(s, "heatmap:"), *e = strstr(s, legend);
	cr_assert(b, "%s", s);
	char insp[32];
	snprintf(insp, sizeof insp, "\n %s[", name);
	const char *i = strstr(b, insp);
	if (e && (!i || e < i)) {
		const char *eol = strchr(e, '\n');
		return strndup(b, (size_t)((eol ? eol : e + strlen(e)) - b));
	}
	cr_assert(i, "neither the legend nor the inspector:\n%s", s);
	return strndup(b, (size_t)(i - b));
}

/* On 8 colours, lesson ARGS's heatmap of name (its legend holding legend)
 * has a shade beside its numbers at every zoom, none touching a digit. */
static void marks_apart(int w, int h, const char *args, const char *name, const char *legend)
{
	start(w, h, "TERM=xterm", args);
	char *s = tmux_see(session, legend);
	tmux_keys(session, "Tab");
	free(s);
	s = tmux_see(session, "+/- zoom");
	static const char *const keys[] = { NULL, "-", "-", "+", "+", "+", "+" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i]) {
			free(s);
			char *before = tmux_screen(session, false);
			tmux_keys(session, keys[i]);
			/* a new frame, unless the zoom was at its end */
			free(tmux_wait_without(session, before));
			free(before);
			s = tmux_see(session, "+/- zoom");
		}
		char *r = heatmap_lines(s, legend, name);
		bool shaded = false;
		for (int k = 0; k < 4; k++)
			shaded |= strstr(r, marks[k]) != NULL;
		cr_assert(shaded, "%dx%d, %s, zoom step %zu: no shades beside the numbers:\n%s", w, h, args, i, r);
		cr_assert(!mark_touches_digit(r), "%dx%d, %s, zoom step %zu: a shade touches a number:\n%s", w, h, args,
			  i, r);
		free(r);
	}
	free(s);
}

Test(heatmap_marks, eight_colours_shades_should_not_touch_numbers_at_80x24, .fini = finish)
{
	marks_apart(80, 24, "2", "X", "X: -2.2 \u2026 0 \u2026 2.2");
}

Test(heatmap_marks, eight_colours_shades_should_not_touch_numbers_of_a_wide_matrix_at_80x24, .fini = finish)
{
	marks_apart(80, 24, "3 --step 4", "S", "S: -5.4 \u2026 0 \u2026 5.4");
}

Test(heatmap_marks, eight_colours_shades_should_not_touch_numbers_at_120x40, .fini = finish)
{
	marks_apart(120, 40, "3 --step 4", "S", "S: -5.4 \u2026 0 \u2026 5.4");
}

Test(heatmap_marks, eight_colours_big_cells_should_keep_shades_apart_from_numbers, .fini = finish)
{
	marks_apart(120, 40, "2 --big", "X", "X: -2.2 \u2026 0 \u2026 2.2");
}

/* ---- -inf, +inf, nan ------------------------------------------------------------------ */

Test(heatmap_marks, eight_colours_should_mark_each_cell_off_the_scale_as_its_legend_says, .fini = finish)
{
	char args[128];
	snprintf(args, sizeof args, "%s", lesson);
	start(80, 24, "TERM=xterm", args);
	char *s = tmux_see(session, "S: -2 \u2026 0 \u2026 2");
	char *r = heatmap_lines(s, "S: -2 \u2026 0 \u2026 2", "S");
	cr_assert(strstr(r, "inf \u25b2") && strstr(r, "-inf \u00b7") && strstr(r, "nan ?"), "%s", r);
	cr_assert(strstr(r, "\u00b7 = masked (-inf)") && strstr(r, "\u25b2 = +inf") && strstr(r, "? magenta = nan"),
		  "%s", r);
	free(r);
	free(s);
	/* +inf without nan: never keyed as nan */
	tmux_keys(session, "Right");
	s = tmux_see(session, "P: -2 \u2026 0 \u2026 2");
	r = heatmap_lines(s, "P: -2 \u2026 0 \u2026 2", "P");
	cr_assert(strstr(r, "inf \u25b2") && strstr(r, "\u25b2 = +inf") && !strstr(r, "?") && !strstr(r, "nan"), "%s",
		  r);
	free(r);
	free(s);
}

Test(heatmap_marks, no_color_should_key_only_what_the_cells_show, .fini = finish)
{
	start(80, 24, "NO_COLOR=1", lesson);
	char *s = tmux_see(session, "S: -2 \u2026 0 \u2026 2");
	char *r = heatmap_lines(s, "S: -2 \u2026 0 \u2026 2", "S");
	/* numbers without marks: the words, and what -inf means; no key to a
	 * mark that is not drawn */
	cr_assert(strstr(r, " inf ") && strstr(r, "-inf") && strstr(r, "nan"), "%s", r);
	cr_assert(strstr(r, "-inf = masked") && !strstr(r, "? = nan") && !strstr(r, "\u00b7"), "%s", r);
	free(r);
	free(s);
}

/* ---- run --plain ------------------------------------------------------------------------ */

static char *run_plain(const char *what)
{
	const char *argv[] = { "qkv", "run", "--plain", what, NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	free(err);
	return out;
}

Test(heatmap_marks, run_plain_should_mark_infinities_and_nan_each_their_own_way)
{
	char *out = run_plain(lesson);
	char *grid = block(out, "  S\n", "S: -2"), line[512];
	cr_assert(line_of(grid, "0", line, sizeof line), "%s", out);
	cr_assert(strstr(line, "1.5000 \u2593") && strstr(line, "inf \u25b2"), "row 0: %s", line);
	cr_assert(line_of(grid, "1", line, sizeof line));
	free(grid);
	cr_assert(strstr(line, "-inf \u00b7") && strstr(line, "nan ?"), "row 1: %s", line);
	cr_assert(strstr(out, "S: -2 \u2026 0 \u2026 2 (\u2591\u2592\u2593\u2588 = size)   \u00b7 = masked (-inf)   "
			      "\u25b2 = +inf   ? = nan\n"),
		  "%s", out);
	/* P: +inf and no nan */
	const char *p = strstr(out, "  P\n");
	cr_assert(p, "%s", out);
	cr_assert(strstr(p, "inf \u25b2") && !strstr(p, "?") && strstr(p, "   \u25b2 = +inf\n"), "%s", p);
	free(out);
}

Test(heatmap_marks, run_plain_should_keep_marks_apart_from_digits_and_mark_the_causal_mask)
{
	char *out = run_plain("2");
	/* step 11's masked_S: its first row, 0.7593 and two masked cells */
	char *m = block(out, "  masked_S\n", "masked_S: "), line[512];
	cr_assert(line_of(m, "an", line, sizeof line), "%s", m);
	cr_assert(strstr(line, "-inf \u00b7") && !mark_touches_digit(line), "%s", line);
	cr_assert(line_of(m, "example", line, sizeof line));
	cr_assert(strstr(line, "0.7593 \u2591") && !mark_touches_digit(line), "%s", line);
	cr_assert(strstr(m, "\u00b7 = masked (-inf)"), "%s", m);
	free(m);
	free(out);
}
