/* test_export_html.c: `qkv export LESSON -o FILE.html` as a reader meets the
 * page, in headless Chromium (Debian's chromium): the DOM holds every step's
 * title, narration, code lines, output lines, notes and exercises as the page
 * blocks (view/page, what the screen shows) hold them, and a figure per view;
 * the page has no script, fetches nothing and its ids are unique; a
 * screenshot of a one-step lesson shows the heatmap's cells in the palette's
 * colours, in their rows and columns. Without chromium the tests fail and
 * say `make deps-test`. */
#include "system.h"
#include "core/strbuf.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "view/heatmap.h"
#include "view/page.h"
#include "view/palette.h"

#include <cairo.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The chromium program on PATH; the test fails when there is none. */
static void chromium_require(void)
{
	const char *path = getenv("PATH");
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path ? path : "/usr/bin:/bin");
	for (char *d = strtok(buf, ":"); d; d = strtok(NULL, ":")) {
		char exe[4200];
		snprintf(exe, sizeof exe, "%s/chromium", d);
		if (access(exe, X_OK) == 0)
			return;
	}
	cr_assert_fail("chromium is not installed: `make deps-test` installs it (Debian's chromium), which the HTML "
		       "export's tests open the page in");
}

/* Runs headless chromium on file dir/page with what ("--dump-dom", or
 * "--screenshot=..." and a window size), its standard output into dir/out,
 * with a profile and a home of its own in dir (as root without its sandbox,
 * which root cannot have); the test fails when it does not end well within
 * the wait limit (doubled: it starts slowly). */
static void chromium_run(const char *dir, const char *page, const char *what)
{
	chromium_require();
	char cmd[2048];
	snprintf(cmd, sizeof cmd,
		 "HOME=%s timeout -k 10 %d chromium --headless --disable-gpu %s --user-data-dir=%s/profile "
		 "--no-first-run --no-default-browser-check --force-color-profile=srgb --force-device-scale-factor=1 "
		 "--hide-scrollbars %s file://%s/%s >%s/out 2>%s/chromium.log </dev/null",
		 dir, 2 * system_wait_ms() / 1000, geteuid() == 0 ? "--no-sandbox" : "", dir, what, dir, page, dir, dir);
	int st = system(cmd);
	char log[600];
	snprintf(log, sizeof log, "%s/chromium.log", dir);
	char *text = read_text(log);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "chromium failed (status %d): %s\n%s", st, cmd,
		  text ? text : "");
	free(text);
}

/* Runs `qkv export LESSON -o dir/name` (with --palette when palette is not
 * NULL); the test fails unless it succeeds silently. */
static void export_html(const char *lesson, const char *dir, const char *name, const char *palette)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	const char *argv[] = { "qkv", "export", lesson, "-o", path, palette ? "--palette" : NULL, palette, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 0, "qkv export %s -o %s: status %d\n%s%s", lesson, path, rc, out, err);
	cr_expect_str_empty(err);
	free(out);
	free(err);
}

/* The text of serialised HTML with its tags taken out and the entities
 * Chromium writes (&amp; &lt; &gt; &quot; &nbsp;) read back (malloc'd). */
static char *dom_text(const char *html, size_t n)
{
	struct strbuf b;
	strbuf_init(&b);
	static const char *const ent[][2] = { { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" },
					      { "&quot;", "\"" }, { "&nbsp;", "\u00a0" } };
	for (size_t i = 0; i < n;) {
		if (html[i] == '<') {
			const char *e = memchr(html + i, '>', n - i);
			i = e ? (size_t)(e - html) + 1 : n;
			continue;
		}
		size_t k = 0;
		while (html[i] == '&' && k < 5 && strncmp(html + i, ent[k][0], strlen(ent[k][0])) != 0)
			k++;
		if (html[i] == '&' && k < 5) {
			strbuf_puts(&b, ent[k][1]);
			i += strlen(ent[k][0]);
		} else {
			strbuf_putc(&b, html[i++]);
		}
	}
	if (!b.s)
		strbuf_puts(&b, "");
	return strbuf_detach(&b);
}

/* The test fails unless text holds each line of s (split at '\n'), after
 * prefix. */
static void expect_lines(const char *text, const char *prefix, const char *s, int step, const char *what)
{
	for (const char *p = s;;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *want = malloc(strlen(prefix) + n + 1);
		sprintf(want, "%s%.*s", prefix, (int)n, p);
		cr_expect(strstr(text, want), "step %d: the page lacks the %s line '%s'", step, what, want);
		free(want);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static int str_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The static checks of a page: a whole document, no script, no attribute
 * that loads or links anything outside the page, no URL at all, each id
 * once. */
static void check_page_source(const char *html)
{
	cr_assert(strncmp(html, "<!DOCTYPE html>", 15) == 0, "%.100s", html);
	cr_expect(strstr(html, "</html>"));
	for (const char *p = html; *p; p++) {
		cr_assert(strncasecmp(p, "<script", 7) != 0, "a script at %.80s", p);
		cr_assert(strncasecmp(p, "http:", 5) != 0 && strncasecmp(p, "https:", 6) != 0, "a URL at %.80s", p);
		bool src = strncmp(p, " src=\"", 6) == 0, href = strncmp(p, "href=\"", 6) == 0;
		if (src || href) {
			const char *v = p + 6;
			cr_assert(*v == '#' || strncmp(v, "data:", 5) == 0, "a link out of the page: %.80s", p);
		}
	}
	/* every id once */
	size_t cap = 1024, n = 0;
	char **ids = malloc(cap * sizeof *ids);
	for (const char *p = strstr(html, " id=\""); p; p = strstr(p + 1, " id=\"")) {
		const char *v = p + 5, *e = strchr(v, '"');
		cr_assert(e);
		if (n == cap)
			ids = realloc(ids, (cap *= 2) * sizeof *ids);
		ids[n++] = strndup(v, (size_t)(e - v));
	}
	cr_expect_gt(n, 3);
	qsort(ids, n, sizeof *ids, str_order);
	for (size_t i = 0; i + 1 < n; i++)
		cr_expect_str_neq(ids[i], ids[i + 1], "the id %s is given twice", ids[i]);
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* The DOM of step k's section (from its <section> to its </section>), or
 * the test fails. */
static const char *dom_section(const char *dom, int k, size_t *len)
{
	char id[48];
	snprintf(id, sizeof id, "<section class=\"step\" id=\"step-%d\">", k + 1);
	const char *s = strstr(dom, id);
	cr_assert(s, "the DOM has no %s", id);
	const char *e = strstr(s, "</section>");
	cr_assert(e, "step %d's section does not end", k + 1);
	*len = (size_t)(e - s);
	return s;
}

static int count(const char *s, size_t n, const char *what)
{
	int c = 0;
	size_t w = strlen(what);
	for (size_t i = 0; i + w <= n; i++)
		c += memcmp(s + i, what, w) == 0;
	return c;
}

/* qkv export of lesson arg as HTML, opened in Chromium: the DOM of each
 * step's section holds its title, each line of its narration, code (after
 * the screen's prompt), output, exercises and notes as page_build makes
 * them, and one inline SVG figure per view. */
static void check_lesson_page(const char *arg)
{
	char dir[64], path[128];
	dir_make_temp(dir, sizeof dir, "qkv-html");
	export_html(arg, dir, "lesson.html", NULL);
	snprintf(path, sizeof path, "%s/lesson.html", dir);
	char *html = read_text(path);
	cr_assert(html, "no %s", path);
	check_page_source(html);
	chromium_run(dir, "lesson.html", "--dump-dom");
	snprintf(path, sizeof path, "%s/out", dir);
	char *dom = read_text(path);
	cr_assert(dom && strstr(dom, "</html>"), "chromium dumped no DOM: %.200s", dom ? dom : "");

	struct catalog c;
	catalog_load(&c, NULL, NULL);
	struct qkv_error err;
	struct lesson *l = catalog_resolve(&c, arg, NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	struct player *p = player_new(l, KERNEL_SIMD);
	char *all = dom_text(dom, strlen(dom));
	cr_expect(strstr(all, l->title), "the page lacks the lesson's title %s", l->title);
	for (int k = 0; k < l->nsteps; k++) {
		int at;
		cr_assert_eq(player_go(p, k, &at, &err), 0, "%s", err.msg);
		struct page pg;
		page_build(&pg, p, k);
		size_t n;
		const char *sec = dom_section(dom, k, &n);
		char *text = dom_text(sec, n);
		char head[600];
		snprintf(head, sizeof head, "Step %d/%d: %s", k + 1, l->nsteps, pg.title);
		cr_expect(strstr(text, head), "step %d: no heading '%s'", k + 1, head);
		int code = 0;
		for (int b = 0; b < pg.nblocks; b++) {
			const struct page_block *bl = &pg.blocks[b];
			static const char *const what[] = { "narration", "code", "output", "status", "exercise", "note", "" };
			const char *prefix = bl->style != PAGE_CODE ? "" : bl->continued ? "... " : ">>> ";
			expect_lines(text, prefix, bl->text, k + 1, what[bl->style]);
			code += bl->style == PAGE_CODE;
			cr_expect_neq(bl->style, PAGE_STATUS, "step %d: %s", k + 1, bl->text);
		}
		cr_expect_eq(code, l->steps[k].nlines);
		cr_expect_eq(count(sec, n, "<svg"), pg.nviews, "step %d: %d views, %d SVGs", k + 1, pg.nviews,
			     count(sec, n, "<svg"));
		cr_expect_eq(count(sec, n, "<figure"), pg.nviews);
		cr_expect_eq(count(sec, n, "<details"), l->steps[k].nexercises);
		free(text);
		page_free(&pg);
	}
	free(all);
	player_free(p);
	lesson_free(l);
	catalog_free(&c);
	free(dom);
	free(html);
	dir_remove(dir);
}

TestSuite(export_html, .timeout = 300);

Test(export_html, lesson_1_should_open_in_chromium_with_every_steps_text_code_output_and_figures)
{
	check_lesson_page("1");
}

Test(export_html, lesson_3_with_masked_cells_should_open_in_chromium_with_every_step_whole)
{
	check_lesson_page("3");
}

Test(export_html, lesson_4_with_loops_beside_simd_should_open_in_chromium_with_every_step_whole)
{
	check_lesson_page("4");
}

/* ---- printed: each step on a page of its own ------------------------------------ */

Test(export_html, printed_by_chromium_each_step_should_begin_a_page_of_its_own)
{
	cr_assert_eq(system("command -v pdftotext >/dev/null"), 0,
		     "pdftotext is not installed: `make deps-test` installs it (poppler-utils)");
	char dir[64], cmd[512];
	dir_make_temp(dir, sizeof dir, "qkv-print");
	export_html("1", dir, "lesson.html", NULL);
	char what[128];
	snprintf(what, sizeof what, "--no-pdf-header-footer --print-to-pdf=%s/lesson.pdf", dir);
	chromium_run(dir, "lesson.html", what);
	snprintf(cmd, sizeof cmd, "cd %s && pdftotext -enc UTF-8 lesson.pdf lesson.txt", dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	snprintf(cmd, sizeof cmd, "%s/lesson.txt", dir);
	char *text = read_text(cmd);
	cr_assert(text, "no %s", cmd);
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	struct qkv_error err;
	struct lesson *l = catalog_resolve(&c, "1", NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	/* pdftotext ends each page with a form feed: a step's heading is the
	 * first line of a page */
	for (int k = 0; k < l->nsteps; k++) {
		char head[64];
		snprintf(head, sizeof head, "Step %d/%d: ", k + 1, l->nsteps);
		const char *at = strstr(text, head);
		cr_expect(at, "the printed page lacks '%s'", head);
		if (!at)
			continue;
		const char *before = at;
		while (before > text && (before[-1] == '\n' || before[-1] == ' '))
			before--;
		cr_expect(before > text && before[-1] == '\f', "'%s' does not begin a page: ...%.60s", head,
			  before - 60 > text ? before - 60 : text);
	}
	cr_expect_null(strstr(text, "Checked against"), "an answer is printed unfolded");
	lesson_free(l);
	catalog_free(&c);
	free(text);
	dir_remove(dir);
}

/* ---- a screenshot: the cells in their colours, in their places ---------------- */

/* One step, one heatmap of 3 x 4 cells of distinct colours. */
static const char shot_lesson[] =
	"{ \"format\": 1, \"id\": \"html-shot\", \"title\": \"One heatmap\", \"source\": \"a test\",\n"
	"  \"summary\": \"Twelve cells.\", \"steps\": [\n"
	"  { \"title\": \"cells\", \"text\": [\"Three rows of four.\"],\n"
	"    \"code\": [\"S = [-3 -2 -1 -0.4; 0.5 1.2 2 3; -2.5 -1.5 0.9 2.5]\"],\n"
	"    \"show\": [ { \"heatmap\": \"S\", \"rows\": [\"a\", \"b\", \"c\"], \"cols\": [\"w\", \"x\", \"y\", \"z\"],\n"
	"                \"scale\": \"diverging\" } ] } ] }\n";

struct image {
	int w, h;
	const uint32_t *px;   /* w x h, 0xXXRRGGBB */
	int stride;           /* in pixels */
};

static bool near_colour(uint32_t px, struct rgb c, int tol)
{
	int r = (int)(px >> 16 & 0xff), g = (int)(px >> 8 & 0xff), b = (int)(px & 0xff);
	return abs(r - c.r) <= tol && abs(g - c.g) <= tol && abs(b - c.b) <= tol;
}

struct blob {
	int area;
	int x0, y0, x1, y1;
};

/* The largest 4-connected region of pixels within tol of colour c. */
static struct blob largest_blob(const struct image *im, struct rgb c, int tol)
{
	size_t n = (size_t)im->w * (size_t)im->h;
	unsigned char *seen = calloc(n, 1);
	int *stack = malloc(n * sizeof *stack);
	struct blob best = { 0, 0, 0, -1, -1 };
	for (size_t start = 0; start < n; start++) {
		int sx = (int)(start % (size_t)im->w), sy = (int)(start / (size_t)im->w);
		if (seen[start] || !near_colour(im->px[sy * im->stride + sx], c, tol))
			continue;
		struct blob b = { 0, sx, sy, sx, sy };
		int top = 0;
		stack[top++] = (int)start;
		seen[start] = 1;
		while (top > 0) {
			int i = stack[--top], x = i % im->w, y = i / im->w;
			b.area++;
			b.x0 = x < b.x0 ? x : b.x0;
			b.x1 = x > b.x1 ? x : b.x1;
			b.y0 = y < b.y0 ? y : b.y0;
			b.y1 = y > b.y1 ? y : b.y1;
			static const int dx[] = { 1, -1, 0, 0 }, dy[] = { 0, 0, 1, -1 };
			for (int d = 0; d < 4; d++) {
				int nx = x + dx[d], ny = y + dy[d];
				if (nx < 0 || ny < 0 || nx >= im->w || ny >= im->h)
					continue;
				int j = ny * im->w + nx;
				if (!seen[j] && near_colour(im->px[ny * im->stride + nx], c, tol)) {
					seen[j] = 1;
					stack[top++] = j;
				}
			}
		}
		if (b.area > best.area)
			best = b;
	}
	free(stack);
	free(seen);
	return best;
}

/* The heatmap of the shot lesson's one view, as qkv builds it. */
static void shot_heatmap(const char *lesson_path, struct heatmap *h)
{
	struct qkv_error err;
	struct lesson *l = lesson_load_file(lesson_path, NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	struct player *p = player_new(l, KERNEL_SIMD);
	int at;
	cr_assert_eq(player_go(p, 0, &at, &err), 0, "%s", err.msg);
	struct page pg;
	page_build(&pg, p, 0);
	cr_assert_eq(pg.nviews, 1);
	const struct shown *sh = pg.views[0].shown;
	const struct show *s = sh->show;
	heatmap_build(h, sh->t, s->slice, s->nslice, s->rows, s->nrows, s->cols, s->ncols, s->scale);
	page_free(&pg);
	player_free(p);
	lesson_free(l);
}

/* Exports the shot lesson in palette pal (its --palette name), takes
 * Chromium's screenshot of the page and finds each cell of the heatmap by
 * its colour: every one is there, as a patch of a cell's size, in its row
 * (one height) and its column (one x), rows downwards and columns to the
 * right in the matrix's order. */
static void check_screenshot(const char *pal_name, enum palette_kind pal)
{
	char dir[64], lesson[128], png[128];
	dir_make_temp(dir, sizeof dir, "qkv-shot");
	snprintf(lesson, sizeof lesson, "%s/shot.json", dir);
	file_put(lesson, shot_lesson, strlen(shot_lesson));
	export_html(lesson, dir, "shot.html", pal_name);
	snprintf(png, sizeof png, "%s/shot.png", dir);
	char what[256];
	snprintf(what, sizeof what, "--window-size=1000,1400 --screenshot=%s", png);
	chromium_run(dir, "shot.html", what);

	struct heatmap h;
	shot_heatmap(lesson, &h);
	cr_assert_eq(h.rows, 3);
	cr_assert_eq(h.cols, 4);
	struct rgb want[3][4];
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 4; c++)
			want[r][c] = palette_rgb_in(pal, h.scale, heatmap_position(&h, heatmap_value(&h, r, c)));
	/* the test's own premise: no two cells alike within twice the tolerance */
	int tol = 3;
	for (int i = 0; i < 12; i++)
		for (int j = i + 1; j < 12; j++) {
			struct rgb a = want[i / 4][i % 4], b = want[j / 4][j % 4];
			cr_assert(abs(a.r - b.r) > 2 * tol || abs(a.g - b.g) > 2 * tol || abs(a.b - b.b) > 2 * tol,
				  "cells %d and %d have one colour", i, j);
		}

	cairo_surface_t *s = cairo_image_surface_create_from_png(png);
	cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "%s: %s", png,
		     cairo_status_to_string(cairo_surface_status(s)));
	cairo_surface_flush(s);
	struct image im = { cairo_image_surface_get_width(s), cairo_image_surface_get_height(s),
			    (const uint32_t *)cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s) / 4 };
	cr_assert_eq(im.w, 1000);
	struct blob b[3][4];
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 4; c++) {
			b[r][c] = largest_blob(&im, want[r][c], tol);
			cr_expect_geq(b[r][c].area, 80, "cell (%d, %d), %g: #%02x%02x%02x covers %d pixels", r, c,
				      heatmap_value(&h, r, c), want[r][c].r, want[r][c].g, want[r][c].b, b[r][c].area);
		}
	}
	/* one grid: the same centre in a row (y) and in a column (x), in order */
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 4; c++) {
			int cx = (b[r][c].x0 + b[r][c].x1) / 2, cy = (b[r][c].y0 + b[r][c].y1) / 2;
			int rx = (b[0][c].x0 + b[0][c].x1) / 2, ry = (b[r][0].y0 + b[r][0].y1) / 2;
			cr_expect_leq(abs(cx - rx), 3, "cell (%d, %d) at x %d, column %d at x %d", r, c, cx, c, rx);
			cr_expect_leq(abs(cy - ry), 3, "cell (%d, %d) at y %d, row %d at y %d", r, c, cy, r, ry);
			if (c > 0)
				cr_expect_gt(b[r][c].x0, b[r][c - 1].x1, "cell (%d, %d) is not right of (%d, %d)", r, c, r,
					     c - 1);
			if (r > 0)
				cr_expect_gt(b[r][c].y0, b[r - 1][c].y1, "cell (%d, %d) is not below (%d, %d)", r, c,
					     r - 1, c);
		}
	}
	cairo_surface_destroy(s);
	heatmap_free(&h);
	dir_remove(dir);
}

Test(export_html, a_screenshot_should_show_each_heatmap_cell_in_its_colour_at_its_place)
{
	check_screenshot(NULL, PALETTE_COLOR);
}

Test(export_html, a_screenshot_of_the_gray_palette_should_show_each_cell_in_its_gray)
{
	check_screenshot("gray", PALETTE_GRAY);
}

/* ---- bad input ------------------------------------------------------------- */

Test(export_html, a_lesson_whose_step_fails_should_give_one_message_exit_2_and_write_nothing)
{
	char dir[64], lesson[128], page[128];
	dir_make_temp(dir, sizeof dir, "qkv-html-bad");
	snprintf(lesson, sizeof lesson, "%s/bad.json", dir);
	static const char bad[] =
		"{ \"format\": 1, \"id\": \"bad\", \"title\": \"Bad\", \"source\": \"a test\", \"summary\": \"s\",\n"
		"  \"steps\": [\n"
		"    { \"title\": \"one\", \"text\": [\"ok\"], \"code\": [\"A = [1 2]\"] },\n"
		"    { \"title\": \"two\", \"text\": [\"fails\"], \"code\": [\"B = A.reshape(3)\"] }\n"
		"  ] }\n";
	file_put(lesson, bad, strlen(bad));
	snprintf(page, sizeof page, "%s/bad.html", dir);
	const char *argv[] = { "qkv", "export", lesson, "-o", page, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_expect_eq(rc, 2, "status %d: %s", rc, err);
	cr_expect_str_empty(out);
	cr_expect(strstr(err, "bad.json:4:") && strstr(err, "steps[1]"), "%s", err);
	cr_expect_eq(count(err, strlen(err), "\n"), 1, "%s", err);
	struct stat st;
	cr_expect_neq(stat(page, &st), 0, "%s was written", page);
	free(out);
	free(err);
	dir_remove(dir);
}
