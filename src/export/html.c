/* html.c: a whole lesson as one self-contained HTML5 page (export_lesson_html,
 * see export.h): its header, every step's blocks as view/page builds them for
 * the screen, every view as inline SVG (export_view, put in by svg_inline.c),
 * the notes, the exercises with their answers folded in <details>. Called by
 * cli/export.c. The page holds no script and names no URL: it reads offline
 * and prints. */
#include "export/export.h"
#include "export/svg_inline.h"
#include "core/visible.h"
#include "lesson/exercise.h"
#include "lesson/statements.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef QKV_VERSION
#define QKV_VERSION "?"
#endif

/* How html_put writes a newline. */
enum { HTML_NEWLINE_KEEP, HTML_NEWLINE_BR };

/* Appends s[0..n) as HTML text (or an attribute's value): its control
 * characters shown as the screen shows them (core/visible), then & < > "
 * escaped, tabs kept, newlines kept or written as <br>. */
static void html_put(struct strbuf *out, const char *s, size_t n, int newline)
{
	struct strbuf v;
	strbuf_init(&v);
	visible_put(&v, s, n, VISIBLE_NEWLINES);
	for (size_t i = 0; i < v.len; i++) {
		char c = v.s[i];
		if (c == '&')
			strbuf_puts(out, "&amp;");
		else if (c == '<')
			strbuf_puts(out, "&lt;");
		else if (c == '>')
			strbuf_puts(out, "&gt;");
		else if (c == '"')
			strbuf_puts(out, "&quot;");
		else if (c == '\n' && newline == HTML_NEWLINE_BR)
			strbuf_puts(out, "<br>\n");
		else
			strbuf_putc(out, c);
	}
	strbuf_free(&v);
}

static void html_puts(struct strbuf *out, const char *s)
{
	html_put(out, s, strlen(s), HTML_NEWLINE_KEEP);
}

/* Narration: escaped, each `inline code` span (backquotes kept, as the
 * screen shows them) in <code>, line breaks kept. */
static void put_prose(struct strbuf *out, const char *text)
{
	const char *p = text;
	for (;;) {
		const char *open = strchr(p, '`');
		const char *close = open ? strchr(open + 1, '`') : NULL;
		if (!close) {
			html_put(out, p, strlen(p), HTML_NEWLINE_BR);
			return;
		}
		html_put(out, p, (size_t)(open - p), HTML_NEWLINE_BR);
		strbuf_puts(out, "<code>");
		html_put(out, open, (size_t)(close + 1 - open), HTML_NEWLINE_BR);
		strbuf_puts(out, "</code>");
		p = close + 1;
	}
}

/* ---- the page ---------------------------------------------------------------- */

static const char page_css[] =
	":root{color-scheme:light}\n"
	"body{font-family:\"DejaVu Sans\",sans-serif;max-width:62em;margin:2em auto;padding:0 1em;"
	"line-height:1.45;color:#1a1a1a;background:#fff}\n"
	"h1{font-size:1.8em;margin:0 0 .2em}\n"
	"h2{font-size:1.3em;margin:0 0 .6em}\n"
	"header .source{color:#555;margin-top:0}\n"
	"nav ol{padding-left:2em}\n"
	"section.step{border-top:1px solid #ccc;margin-top:2.5em;padding-top:1em}\n"
	"pre,code{font-family:\"DejaVu Sans Mono\",monospace}\n"
	"pre{font-size:.88em;line-height:1.3;background:#f5f5f2;padding:.6em .8em;overflow-x:auto;tab-size:8}\n"
	"code{font-size:.92em}\n"
	"pre .prompt{color:#777;user-select:none}\n"
	"figure{margin:1.5em 0}\n"
	"figure svg{display:block;max-width:100%;height:auto}\n"
	"figcaption{font-size:.9em;color:#555;margin-top:.3em}\n"
	".status{font-weight:bold;color:#a00}\n"
	".exercise .ask{font-weight:bold;margin-bottom:.2em}\n"
	"details{margin:0 0 1em 1.5em}\n"
	"summary{cursor:pointer;color:#245}\n"
	"aside.note{border-left:4px solid #c77c00;background:#fff8ec;padding:.1em 1em;margin:1em 0}\n"
	"footer{margin-top:3em;font-size:.85em;color:#777}\n"
	"@media print{\n"
	"body{max-width:none;margin:0;padding:0;font-size:10.5pt;color:#000}\n"
	"nav,footer{display:none}\n"
	"section.step{break-before:page;border-top:none;margin-top:0;padding-top:0}\n"
	"pre{background:none;border:1px solid #999;white-space:pre-wrap;overflow:visible}\n"
	"pre .prompt,figcaption,header .source,summary{color:#000}\n"
	"figure,aside.note{break-inside:avoid}\n"
	"aside.note{background:none;border-left:3px solid #000}\n"
	"h2{break-after:avoid}\n"
	"}\n";

static void put_head(struct strbuf *out, const struct lesson *l)
{
	strbuf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	/* nothing may be fetched: no script, no style or image from elsewhere */
	strbuf_puts(out, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			 "style-src 'unsafe-inline'; img-src data:\">\n");
	strbuf_puts(out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
	strbuf_puts(out, "<meta name=\"generator\" content=\"qkv " QKV_VERSION "\">\n<title>");
	html_puts(out, l->title);
	strbuf_printf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", page_css);
	strbuf_puts(out, "<header>\n<h1>");
	html_puts(out, l->title);
	/* as `qkv run` heads it: a lesson beyond the documents retells none */
	const char *doc = l->source_title ? l->source_title : l->source;
	strbuf_puts(out, "</h1>\n<p class=\"source\">");
	strbuf_puts(out, strncmp(doc, "beyond ", 7) == 0 ? "" : "retells ");
	html_puts(out, doc);
	strbuf_printf(out, "; %d step%s</p>\n<p class=\"summary\">", l->nsteps, l->nsteps == 1 ? "" : "s");
	put_prose(out, l->summary);
	strbuf_puts(out, "</p>\n</header>\n<nav>\n<h2>Steps</h2>\n<ol>\n");
	for (int k = 0; k < l->nsteps; k++) {
		strbuf_printf(out, "<li><a href=\"#step-%d\">", k + 1);
		html_puts(out, l->steps[k].title);
		strbuf_puts(out, "</a></li>\n");
	}
	strbuf_puts(out, "</ol>\n</nav>\n");
}

/* Code lines as the screen shows them, after ">>> " (after "... " when a
 * line continues a statement), from blocks [from, to) of pg (code and
 * output) in one <pre>. */
static void put_code(struct strbuf *out, const struct page *pg, int from, int to)
{
	strbuf_puts(out, "<pre class=\"code\">");
	for (int b = from; b < to; b++) {
		const struct page_block *bl = &pg->blocks[b];
		if (bl->style == PAGE_CODE) {
			strbuf_printf(out, "<span class=\"prompt\">%s</span><span class=\"in\">",
				      bl->continued ? "... " : "&gt;&gt;&gt; ");
			html_puts(out, bl->text);
			strbuf_puts(out, "</span>");
		} else {
			html_puts(out, bl->text);
		}
		strbuf_puts(out, b + 1 < to ? "\n" : "");
	}
	strbuf_puts(out, "</pre>\n");
}

/* Exercise x's answer, folded: its hints, a solution and what it is
 * checked against. */
static void put_answer(struct strbuf *out, const struct exercise *x)
{
	strbuf_puts(out, "<details class=\"answer\">\n<summary>Answer</summary>\n");
	if (x->nhints > 0) {
		strbuf_printf(out, "<p>Hint%s:</p>\n<ol class=\"hints\">\n", x->nhints > 1 ? "s" : "");
		for (int h = 0; h < x->nhints; h++) {
			strbuf_puts(out, "<li>");
			put_prose(out, x->hints[h]);
			strbuf_puts(out, "</li>\n");
		}
		strbuf_puts(out, "</ol>\n");
	}
	strbuf_puts(out, x->predict ? "<p>The answer:</p>\n" : "<p>A solution:</p>\n");
	bool *cont = calloc((size_t)x->nsolution + 1, sizeof *cont);
	if (cont)
		statements_mark_continued(x->solution, x->nsolution, cont);
	strbuf_puts(out, "<pre class=\"code\">");
	for (int i = 0; i < x->nsolution; i++) {
		strbuf_printf(out, "<span class=\"prompt\">%s</span>", cont && cont[i] ? "... " : "&gt;&gt;&gt; ");
		html_puts(out, x->solution_lines[i].text);
		strbuf_puts(out, i + 1 < x->nsolution ? "\n" : "");
	}
	strbuf_puts(out, "</pre>\n<p>Checked against <code>");
	free(cont);
	html_puts(out, x->answer);
	strbuf_printf(out, "</code> within %g.</p>\n</details>\n", x->tol);
}

/* The views of pg, each a <figure> with its SVG inline. -1 with err when a
 * figure cannot be drawn. */
static int put_views(struct strbuf *out, const struct page *pg, const struct export_opts *o, struct svg_glyphs *g,
		     struct qkv_error *err)
{
	struct strbuf svg, attrs;
	strbuf_init(&svg);
	strbuf_init(&attrs);
	int rc = 0;
	for (int i = 0; i < pg->nviews && rc == 0; i++) {
		const struct page_view *v = &pg->views[i];
		strbuf_reset(&svg);
		rc = export_view(&svg, EXPORT_SVG, v, o, err);
		if (rc < 0) {
			char why[sizeof err->msg];
			snprintf(why, sizeof why, "%s", err->msg);
			error_set(err, 0, 0, "step %d, view %d: %s", pg->step + 1, i + 1, why);
			break;
		}
		strbuf_reset(&attrs);
		strbuf_puts(&attrs, " role=\"img\" aria-label=\"");
		html_puts(&attrs, v->what);
		strbuf_putc(&attrs, '"');
		char prefix[48];
		snprintf(prefix, sizeof prefix, "s%d-v%d-", pg->step + 1, i + 1);
		strbuf_printf(out, "<figure class=\"view\" id=\"step-%d-view-%d\">\n", pg->step + 1, i + 1);
		svg_inline(out, svg.s, svg.len, prefix, attrs.s, g);
		strbuf_puts(out, "<figcaption>");
		html_puts(out, v->kind);
		strbuf_puts(out, ": ");
		html_puts(out, v->what);
		strbuf_puts(out, "</figcaption>\n</figure>\n");
	}
	strbuf_free(&attrs);
	strbuf_free(&svg);
	return rc;
}

/* Step k as a <section id="step-K+1">: its narration, code and output, its
 * views, then the status, the exercises and the notes, in page_build's
 * order. */
static int put_step(struct strbuf *out, struct player *p, int k, const struct export_opts *o, struct svg_glyphs *g,
		    struct qkv_error *err)
{
	const struct step *st = &player_lesson(p)->steps[k];
	struct page pg;
	page_build(&pg, p, k);
	strbuf_printf(out, "<section class=\"step\" id=\"step-%d\">\n<h2>Step %d/%d: ", k + 1, k + 1, pg.nsteps);
	html_puts(out, pg.title);
	strbuf_puts(out, "</h2>\n");
	int rc = 0, exercise = 0, b = 0;
	bool viewed = false, in_notes = false;
	while (b < pg.nblocks || !viewed) {
		enum page_style s = b < pg.nblocks ? pg.blocks[b].style : PAGE_BLANK;
		if (!viewed && (b == pg.nblocks || s == PAGE_STATUS || s == PAGE_EXERCISE || s == PAGE_NOTE)) {
			viewed = true;
			if ((rc = put_views(out, &pg, o, g, err)) < 0)
				break;
			continue;
		}
		if (in_notes && s != PAGE_NOTE) {
			strbuf_puts(out, "</aside>\n");
			in_notes = false;
		}
		if (s == PAGE_CODE || s == PAGE_OUTPUT) {
			int e = b;
			while (e < pg.nblocks && (pg.blocks[e].style == PAGE_CODE || pg.blocks[e].style == PAGE_OUTPUT))
				e++;
			put_code(out, &pg, b, e);
			b = e;
			continue;
		}
		if (s == PAGE_NOTE && !in_notes) {
			strbuf_puts(out, "<aside class=\"note\" role=\"note\">\n");
			in_notes = true;
		}
		if (s == PAGE_EXERCISE && exercise < st->nexercises) {
			strbuf_puts(out, "<div class=\"exercise\">\n<p class=\"ask\">");
			put_prose(out, pg.blocks[b].text);
			strbuf_puts(out, "</p>\n");
			put_answer(out, &st->exercises[exercise++]);
			strbuf_puts(out, "</div>\n");
		} else {
			strbuf_puts(out, s == PAGE_STATUS ? "<p class=\"status\">" : "<p>");
			put_prose(out, pg.blocks[b].text);
			strbuf_puts(out, "</p>\n");
		}
		b++;
	}
	if (in_notes)
		strbuf_puts(out, "</aside>\n");
	strbuf_puts(out, "</section>\n");
	page_free(&pg);
	return rc;
}

int export_lesson_html(struct strbuf *out, struct player *p, const struct export_opts *o, struct qkv_error *err)
{
	const struct lesson *l = player_lesson(p);
	for (int k = 0; k < l->nsteps; k++) {
		int at;
		if (player_go(p, k, &at, err) != 0)
			return -1;
		if (player_state(p, k) != STEP_RAN)	/* it failed before this call */
			return error_set(err, 0, 0, "%s", player_failure(p) ? player_failure(p) : "a step failed");
	}
	struct strbuf page;
	strbuf_init(&page);
	put_head(&page, l);
	/* a glyph's outline is written once, in the first figure that draws it */
	struct svg_glyphs *g = svg_glyphs_new();
	int rc = 0;
	for (int k = 0; k < l->nsteps && rc == 0; k++)
		rc = put_step(&page, p, k, o, g, err);
	svg_glyphs_free(g);
	if (rc < 0) {
		strbuf_free(&page);
		return -1;
	}
	strbuf_puts(&page, "<footer>\n<p>Exported by qkv " QKV_VERSION " from the lesson ");
	html_puts(&page, l->id);
	strbuf_puts(&page, ".</p>\n</footer>\n</body>\n</html>\n");
	strbuf_putn(out, page.s, page.len);
	strbuf_free(&page);
	return 0;
}
