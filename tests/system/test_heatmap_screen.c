/* test_heatmap_screen.c: heatmaps on the full screen in a real terminal
 * (tmux), as a class sees them: numbers in fixed point in columns of one
 * width, column labels whole or cut with "…", legends that name the scale
 * and only the colours there are, shades beside the colours on 8-colour
 * terminals, numbers apart from shades without colour (more in
 * test_heatmap_marks.c), and --big cells as
 * a solid grid. At 80x24 and 120x40, with NO_COLOR and TERM=xterm. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64];      /* XDG_STATE_HOME of the test, its own */

/* Starts qkv ARGS in a w x h tmux pane; env (may be NULL) is put before it
 * (TERM=xterm, NO_COLOR=1), after the default TERM=xterm-256color. */
static void start(int w, int h, const char *env, const char *args)
{
	tmux_require();
	if (!state[0])
		dir_make_temp(state, sizeof state, "qkv-heat-state");
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
}

/* The heatmap of screen s (malloc'd): its lines from the last one that
 * holds "heatmap:" before the line that holds legend, that one included. */
static char *heatmap_region(const char *s, const char *legend)
{
	const char *end = strstr(s, legend);
	cr_assert(end, "no legend %s in\n%s", legend, s);
	const char *eol = strchr(end, '\n');
	eol = eol ? eol : end + strlen(end);
	const char *begin = s;
	for (const char *p = strstr(s, "heatmap:"); p && p < end; p = strstr(p + 1, "heatmap:"))
		begin = p;
	while (begin > s && begin[-1] != '\n')
		begin--;
	return strndup(begin, (size_t)(eol - begin));
}

/* The last line of region that starts, after spaces, with label followed
 * by a space (a row of the heatmap, below a column label of the same name),
 * copied to out; false when there is none. */
static bool row_line(const char *region, const char *label, char *out, size_t size)
{
	bool found = false;
	for (const char *p = region; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *q = p;
		while (*q == ' ' && q < p + n)
			q++;
		size_t ll = strlen(label);
		if (q + ll < p + n && strncmp(q, label, ll) == 0 && q[ll] == ' ') {
			snprintf(out, size, "%.*s", (int)n, p);
			found = true;
		}
		p += n + (nl ? 1 : 0);
	}
	return found;
}

/* The byte offsets of the decimal points of line, as a string "12,20,..." */
static void points_of(const char *line, char *out, size_t size)
{
	size_t n = 0;
	out[0] = 0;
	for (const char *p = line; *p && n + 8 < size; p++)
		if (*p == '.')
			n += (size_t)snprintf(out + n, size - n, "%d,", (int)(p - line));
}

/* Starts qkv ARGS (see start) and waits for its heatmap, whose legend
 * holds legend: returns that heatmap's lines (heatmap_region, malloc'd);
 * the whole screen goes to *screen_text (malloc'd). */
static char *shown_heatmap(int w, int h, const char *env, const char *args, const char *legend, char **screen_text)
{
	start(w, h, env, args);
	*screen_text = tmux_see(session, legend);
	return heatmap_region(*screen_text, legend);
}

static bool has_shade(const char *s)
{
	return strstr(s, "\u2591") || strstr(s, "\u2592") || strstr(s, "\u2593") || strstr(s, "\u2588");
}

/* Lesson 3 step 4: scores from -5.35 to 3.58 over 3e-03, whose whole
 * matrix once printed as 4e+00 and 3e-03. */
static void scores_in_fixed_point(int w, int h)
{
	char *s, *r = shown_heatmap(w, h, NULL, "3 --step 4", "-5.4 \u2026 0 \u2026 5.4", &s);
	cr_assert(!strstr(r, "e+") && !strstr(r, "e-"), "%dx%d: scientific notation:\n%s", w, h, r);
	cr_assert(strstr(r, " 3.58"), "%dx%d: 3.5843 not in fixed point:\n%s", w, h, r);
	cr_assert(strstr(r, " 0.0028") || strstr(r, " 0.003"), "%dx%d: 2.7663e-03:\n%s", w, h, r);
	/* every label whole: on two lines at 80 columns, one at 120 */
	static const char *const labels[] = { "k:hiking", "k:trail", "k:through", "k:country", "q:through", NULL };
	for (int i = 0; labels[i]; i++)
		cr_assert(strstr(r, labels[i]), "%dx%d: label %s cut:\n%s", w, h, labels[i], r);
	cr_assert(!strstr(r, "k:hiki ") && !strstr(r, "k:trai "), "%dx%d: label stubs:\n%s", w, h, r);
	/* one width per column: the decimal points of every row line up */
	static const char *const rows[] = { "q:The", "q:hiking", "q:trail", "q:led", "q:us", "q:through",
					    "q:bear", "q:country", NULL };
	char first[256] = "";
	for (int i = 0; rows[i]; i++) {
		char line[512], pts[256];
		cr_assert(row_line(r, rows[i], line, sizeof line), "%dx%d: no row %s:\n%s", w, h, rows[i], r);
		points_of(line, pts, sizeof pts);
		if (i == 0)
			snprintf(first, sizeof first, "%s", pts);
		cr_assert_str_eq(pts, first, "%dx%d: row %s's numbers out of line:\n%s", w, h, rows[i], r);
	}
	free(r);
	free(s);
}

Test(heatmap_screen, scores_should_print_in_fixed_point_at_80x24, .fini = finish) { scores_in_fixed_point(80, 24); }
Test(heatmap_screen, scores_should_print_in_fixed_point_at_120x40, .fini = finish)
{
	scores_in_fixed_point(120, 40);
}

Test(heatmap_screen, eight_colours_should_draw_shades_beside_signed_values, .fini = finish)
{
	char *s, *r = shown_heatmap(80, 24, "TERM=xterm", "2", "-2.2 \u2026 0 \u2026 2.2", &s);
	/* X's row "example" holds 2.2082, the largest magnitude: a full shade */
	char line[512];
	cr_assert(row_line(r, "example", line, sizeof line), "%s", r);
	cr_assert(strstr(line, "2.2082 \u2588"), "no shade beside the largest value: %s", line);
	cr_assert(row_line(r, "sequence", line, sizeof line), "%s", r);
	cr_assert(has_shade(line), "no shades in a row of signed values: %s", line);
	cr_assert(strstr(r, "\u2591\u2592\u2593\u2588 = size"), "the legend does not name the shades:\n%s", r);
	cr_assert(!strstr(r, "orange"), "8 colours have no orange:\n%s", r);
	free(r);
	free(s);
	/* and the colours are there */
	s = tmux_screen(session, true);
	cr_assert(strstr(s, "\x1b[4"), "no colours on 8 colours:\n%s", s);
	free(s);
}

/* Lesson 1 step 9 draws attention:weights, a local of a call titled
 * "self-attention weights (row: query, column: key)": at 80 columns the
 * legend and the inspector both call it weights, never a title cut to fit
 * ("self-attention weights (row: qu…: 0 … 1") nor the EXPR:NAME form. */
Test(heatmap_screen, a_local_of_a_call_should_be_named_weights_in_legend_and_inspector_at_80x24, .fini = finish)
{
	char *s, *r = shown_heatmap(80, 24, "NO_COLOR=1", "1 --step 9", ": 0 \u2026 1", &s);
	cr_assert(strstr(r, "\n weights: 0 \u2026 1"), "the legend's name:\n%s", s);
	cr_assert(!strstr(s, "qu\u2026"), "a title cut to fit:\n%s", s);
	free(r);
	free(s);
	/* Tab: the cursor on cell (0, 0), the inspector under the legend */
	tmux_keys(session, "Tab");
	s = tmux_see(session, "weights[0, 0] = ");
	cr_assert(!strstr(s, "attention:weights[") && !strstr(s, "key)[0, 0]"), "the inspector's name:\n%s", s);
	free(s);
}

Test(heatmap_screen, no_color_should_keep_numbers_apart_from_shades_and_name_no_colours, .fini = finish)
{
	char *s, *r = shown_heatmap(80, 24, "NO_COLOR=1", "1 --step 9", ": 0 \u2026 1", &s);
	/* attention:weights, a local of a call, names the legend by its name */
	cr_assert(strstr(s, " weights: 0 \u2026 1") && !strstr(s, "qu\u2026"), "the legend's name:\n%s", s);
	char line[512];
	cr_assert(row_line(r, "kitten", line, sizeof line), "%s", r);
	cr_assert(strstr(line, "0.8035 0.0000"), "8.03e-01 and 1.44e-18 as fixed numbers apart: %s", line);
	/* no shade touches a digit */
	static const char *const shades[] = { "\u2591", "\u2592", "\u2593", "\u2588", NULL };
	for (int i = 0; shades[i]; i++) {
		for (const char *p = strstr(r, shades[i]); p; p = strstr(p + 1, shades[i])) {
			bool before = p > r && p[-1] >= '0' && p[-1] <= '9';
			bool after = p[3] >= '0' && p[3] <= '9';
			cr_assert(!before && !after, "a shade touches a number:\n%s", r);
		}
	}
	static const char *const colours[] = { "blue", "orange", "pale", "cyan", "yellow", NULL };
	for (int i = 0; colours[i]; i++)
		cr_assert(!strstr(r, colours[i]), "\"%s\" in the legend without colour:\n%s", colours[i], r);
	free(r);
	free(s);
}

Test(heatmap_screen, colour_legends_should_name_a_sequential_and_a_diverging_scale, .fini = finish)
{
	/* a dropout output of weights: 0 or scaled by 1/(1-p) = 2, never
	 * negative, so on the sequential scale (once on a diverging one) */
	start(80, 24, NULL, "2 --step 13");
	char *s = tmux_see(session, ": 0 \u2026 2 (pale to deep blue)");
	cr_assert(!strstr(s, "blue negative"), "non-negative data on a diverging scale:\n%s", s);
	free(s);
	tmux_keys(session, "q");
	tmux_private_server_end();
	start(80, 24, NULL, "2 --step 1");	/* (it would resume at step 13) */
	free(tmux_see(session, ": -2.2 \u2026 0 \u2026 2.2 (blue negative, orange positive)"));
}

Test(heatmap_screen, no_color_cells_without_numbers_should_show_shades, .fini = finish)
{
	start(80, 24, "NO_COLOR=1", "--repl");
	free(tmux_see(session, ">>>"));
	tmux_keys(session, "'X = torch.randn(30, 30)' Enter");
	char *s = tmux_see(session, "= size, -\u2591 = negative)");
	cr_assert(has_shade(s), "no shades for colour-only cells without colour:\n%s", s);
	free(s);
}

Test(heatmap_screen, big_cells_should_make_a_solid_grid, .fini = finish)
{
	/* tmux's own TERM: without ech, curses writes the spaces of a blank
	 * line whose colours the capture then shows */
	start(120, 40, "TERM=tmux-256color", "2 --step 5 --big");
	free(tmux_see(session, ": 0 \u2026 1 (pale to deep blue)"));
	char *s = tmux_screen(session, true);
	/* the two lines of the row "example" (its label, then its cells'
	 * colours): between the first cell's colour and the last one's, never
	 * the terminal's own background */
	const char *row = strstr(s, "  example \x1b[");
	cr_assert(row, "%s", s);
	for (int line = 0; line < 2; line++) {
		const char *nl = strchr(row, '\n');
		cr_assert(nl);
		char *text = strndup(row, (size_t)(nl - row));
		const char *first = strstr(text, "\x1b[48"), *last = first;
		for (const char *p = first; p; p = strstr(p + 1, "\x1b[48"))
			last = p;
		cr_assert(first && last > first, "line %d of the row has fewer than two cell colours: %s", line, text);
		char *between = strndup(first, (size_t)(last - first));
		cr_assert(!strstr(between, "49m") && !strstr(between, "\x1b[0m") && !strstr(between, "\x1b[m"),
			  "line %d: a gap between big cells: %s", line, text);
		free(between);
		free(text);
		row = nl + 1;
	}
	free(s);
	/* the numbers keep padding between them */
	s = tmux_screen(session, false);
	cr_assert(strstr(s, "0.0032 ") && strstr(s, " 0.9933 "), "%s", s);
	free(s);
}
