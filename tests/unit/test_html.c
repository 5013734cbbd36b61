/* test_html.c: a lesson as one HTML page (export/html.c), in-process: every
 * step a section with its text, code and output escaped as the page blocks
 * hold them, control characters shown as on the screen, every view an inline
 * SVG whose ids (and references to them) are unique across the page, the
 * notes in an aside, the exercises' answers folded in <details>; no script,
 * no URL; a failing step gives one message and no page. */
#include "core/strbuf.h"
#include "export/export.h"
#include "export/svg_inline.h"
#include "lesson/player.h"
#include "view/page.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two steps with two heatmaps each in one (cairo names the glyphs of each
 * figure alike), an escape character and markup in the titles, a note, an
 * exercise with hints and a prediction. */
static const char lesson_text[] =
	"{ \"format\": 1, \"id\": \"html-test\", \"title\": \"Tags <b> & \\u001b[2J escapes\",\n"
	"  \"source\": \"a test\", \"summary\": \"Weights `softmax(S)` & more.\\nSecond line.\",\n"
	"  \"steps\": [\n"
	"    { \"title\": \"one <i>\", \"text\": [\"First `X < Y`.\"], \"code\": [\"X = [1 0; 0 1; 1 1]\", \"X\"],\n"
	"      \"show\": [ { \"heatmap\": \"X\", \"rows\": [\"I\", \"saw\", \"it\"] } ] },\n"
	"    { \"title\": \"two\", \"text\": [\"Scores & weights.\"],\n"
	"      \"code\": [\"S = X @ X.T\", \"W = torch.softmax(S,\", \"    dim=-1)\", \"print('a<b')\",\n"
	"               \"print('bell\\\\x07, erase\\\\x1b[2J, \\\\xc2\\\\x9b')\"],\n"
	"      \"show\": [ { \"heatmap\": \"S\" }, { \"heatmap\": \"W\", \"title\": \"weights \\\"W\\\"\" } ],\n"
	"      \"note\": [\"The document says W where it means S.\", \"A second note.\"],\n"
	"      \"exercise\": [ { \"ask\": \"Compute `S / 2`.\", \"answer\": \"S / 2\", \"hints\": [\"Divide.\"],\n"
	"                      \"solution\": [\"H = S / 2\"] },\n"
	"                    { \"ask\": \"How many cells?\", \"predict\": true, \"answer\": \"S.numel()\",\n"
	"                      \"solution\": \"9\" } ] }\n"
	"  ] }\n";

/* cairo's and fontconfig's caches freed after each test, for the leak checker */
TestSuite(html, .fini = export_cleanup);

static struct lesson *parse(const char *text)
{
	struct qkv_error err;
	struct lesson *l = lesson_parse("test.json", text, strlen(text), NULL, NULL, &err);
	cr_assert(l, "%s", err.msg);
	return l;
}

/* The page of lesson text (the test fails when export_lesson_html does). */
static char *page_of(const char *text, struct lesson **lp, struct player **pp)
{
	struct lesson *l = parse(text);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct strbuf out;
	strbuf_init(&out);
	struct export_opts o = { PALETTE_COLOR, NULL };
	struct qkv_error err;
	cr_assert_eq(export_lesson_html(&out, p, &o, &err), 0, "%s", err.msg);
	*lp = l;
	*pp = p;
	return strbuf_detach(&out);
}

static void page_done(char *html, struct lesson *l, struct player *p)
{
	free(html);
	player_free(p);
	lesson_free(l);
}

/* The value of each attr="..." in html, one after another (static). */
static int attr_values(const char *html, const char *attr, char values[][96], int max)
{
	char pat[32];
	snprintf(pat, sizeof pat, " %s=\"", attr);
	int n = 0;
	for (const char *p = strstr(html, pat); p && n < max; p = strstr(p + 1, pat)) {
		const char *v = p + strlen(pat), *e = strchr(v, '"');
		cr_assert(e && e - v < 95, "a %s value too long at %.40s", attr, v);
		snprintf(values[n++], 96, "%.*s", (int)(e - v), v);
	}
	return n;
}

/* Text as html_put escapes it. */
static char *escaped(const char *s)
{
	struct strbuf b;
	strbuf_init(&b);
	for (; *s; s++) {
		switch (*s) {
		case '&': strbuf_puts(&b, "&amp;"); break;
		case '<': strbuf_puts(&b, "&lt;"); break;
		case '>': strbuf_puts(&b, "&gt;"); break;
		case '"': strbuf_puts(&b, "&quot;"); break;
		default: strbuf_putc(&b, *s);
		}
	}
	return strbuf_detach(&b);
}

Test(html, a_lesson_should_be_one_page_with_a_section_per_step_and_no_script_or_url)
{
	struct lesson *l;
	struct player *p;
	char *html = page_of(lesson_text, &l, &p);
	cr_assert(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0, "%.80s", html);
	cr_expect(strstr(html, "</html>\n") && strcmp(strstr(html, "</html>\n"), "</html>\n") == 0);
	cr_expect(strstr(html, "<section class=\"step\" id=\"step-1\">\n<h2>Step 1/2: one &lt;i&gt;</h2>"));
	cr_expect(strstr(html, "<section class=\"step\" id=\"step-2\">\n<h2>Step 2/2: two</h2>"));
	cr_expect(strstr(html, "<a href=\"#step-2\">two</a>"));
	cr_expect_null(strstr(html, "<script"));
	cr_expect_null(strstr(html, "http:"));
	cr_expect_null(strstr(html, "https:"));
	cr_expect_null(strstr(html, "<?xml"));
	cr_expect_null(strstr(html, "xmlns"), "the inline SVG keeps an xmlns");
	cr_expect_null(strstr(html, "<link"));
	cr_expect(strstr(html, "<style>"));
	page_done(html, l, p);
}

Test(html, text_and_titles_should_be_escaped_with_control_characters_shown_as_on_the_screen)
{
	struct lesson *l;
	struct player *p;
	char *html = page_of(lesson_text, &l, &p);
	cr_expect(strstr(html, "<title>Tags &lt;b&gt; &amp; ^[[2J escapes</title>"), "%.1200s", html);
	cr_expect(strstr(html, "<h1>Tags &lt;b&gt; &amp; ^[[2J escapes</h1>"));
	cr_expect_null(strchr(html, '\x1b'));
	cr_expect(strstr(html, "<p>First <code>`X &lt; Y`</code>.</p>"));
	cr_expect(strstr(html, "<p class=\"summary\">Weights <code>`softmax(S)`</code> &amp; more.<br>\nSecond line.</p>"));
	cr_expect(strstr(html, "<p class=\"source\">retells a test; 2 steps</p>"));
	page_done(html, l, p);
}

Test(html, code_and_output_should_be_the_page_blocks_verbatim_after_the_screens_prompts)
{
	struct lesson *l;
	struct player *p;
	char *html = page_of(lesson_text, &l, &p);
	cr_expect(strstr(html, "<span class=\"prompt\">&gt;&gt;&gt; </span><span class=\"in\">X = [1 0; 0 1; 1 1]</span>"));
	cr_expect(strstr(html, "<span class=\"prompt\">&gt;&gt;&gt; </span><span class=\"in\">W = torch.softmax(S,</span>\n"
			       "<span class=\"prompt\">... </span><span class=\"in\">    dim=-1)</span>"));
	cr_expect(strstr(html, "</span>\na&lt;b\n<span"));
	/* control characters as the screen shows them: ^G, ^[, ~[ for the C1 CSI */
	cr_expect(strstr(html, "</span>\nbell^G, erase^[[2J, \u00c2~[</pre>"), "%s", strstr(html, "a&lt;b"));
	cr_expect_null(strchr(html, '\x07'));
	cr_expect_null(strstr(html, "\xc2\x9b"));
	/* every output line of every step, as page_build holds it */
	for (int k = 0; k < l->nsteps; k++) {
		struct page pg;
		page_build(&pg, p, k);
		int outputs = 0;
		for (int b = 0; b < pg.nblocks; b++) {
			if (pg.blocks[b].style != PAGE_OUTPUT)
				continue;
			if (strchr(pg.blocks[b].text, '\x1b'))
				continue;	/* shown as ^[ (above) */
			char *e = escaped(pg.blocks[b].text);
			cr_expect(strstr(html, e), "step %d: output line '%s' missing", k + 1, e);
			free(e);
			outputs++;
		}
		cr_expect_gt(outputs, 0, "step %d printed nothing", k + 1);
		page_free(&pg);
	}
	page_done(html, l, p);
}

Test(html, every_view_should_be_an_inline_svg_whose_ids_and_references_are_unique_in_the_page)
{
	struct lesson *l;
	struct player *p;
	char *html = page_of(lesson_text, &l, &p);
	int svgs = 0;
	for (const char *s = strstr(html, "<svg"); s; s = strstr(s + 1, "<svg"))
		svgs++;
	cr_expect_eq(svgs, 3);
	cr_expect(strstr(html, "<figure class=\"view\" id=\"step-2-view-2\">\n<svg role=\"img\" aria-label=\"weights "
			       "&quot;W&quot;\""));
	cr_expect(strstr(html, "<figcaption>heatmap: weights &quot;W&quot;</figcaption>"));
	static char ids[4096][96], refs[4096][96];
	int nids = attr_values(html, "id", ids, 4096);
	cr_assert_lt(nids, 4096);
	cr_expect_gt(nids, 5);
	for (int i = 0; i < nids; i++)
		for (int j = i + 1; j < nids; j++)
			cr_expect_str_neq(ids[i], ids[j], "id %s twice", ids[i]);
	/* each reference names an id of the page */
	int nrefs = attr_values(html, "xlink:href", refs, 4096);
	nrefs += attr_values(html, "href", refs + nrefs, 4096 - nrefs);
	for (const char *u = strstr(html, "url(#"); u && nrefs < 4096; u = strstr(u + 1, "url(#")) {
		const char *e = strchr(u, ')');
		snprintf(refs[nrefs++], 96, "#%.*s", (int)(e - u - 5), u + 5);
	}
	int internal = 0;
	for (int r = 0; r < nrefs; r++) {
		if (strncmp(refs[r], "data:", 5) == 0)
			continue;
		cr_assert_eq(refs[r][0], '#', "a reference out of the page: %s", refs[r]);
		bool found = false;
		for (int i = 0; i < nids && !found; i++)
			found = strcmp(ids[i], refs[r] + 1) == 0;
		cr_expect(found, "%s names no id", refs[r]);
		internal++;
	}
	cr_expect_gt(internal, 3);
	page_done(html, l, p);
}

Test(html, notes_should_be_marked_and_answers_folded_away)
{
	struct lesson *l;
	struct player *p;
	char *html = page_of(lesson_text, &l, &p);
	cr_expect(strstr(html, "<aside class=\"note\" role=\"note\">\n<p>Note: The document says W where it means S.</p>\n"
			       "<p>A second note.</p>\n</aside>"));
	const char *ex = strstr(html, "<div class=\"exercise\">\n<p class=\"ask\">\u270e Exercise: Compute <code>`S / 2`</code>.</p>\n"
				      "<details class=\"answer\">\n<summary>Answer</summary>\n");
	cr_assert(ex, "%s", strstr(html, "id=\"step-2\""));
	cr_expect(strstr(ex, "<li>Divide.</li>"));
	cr_expect(strstr(ex, "<span class=\"prompt\">&gt;&gt;&gt; </span>H = S / 2</pre>"));
	cr_expect(strstr(ex, "\u270e Predict: How many cells?</p>\n<details class=\"answer\">"));
	cr_expect(strstr(ex, "<p>The answer:</p>\n<pre class=\"code\"><span class=\"prompt\">&gt;&gt;&gt; </span>9</pre>"));
	cr_expect_null(strstr(html, "<details open"));
	/* the views come before the exercises, the notes last */
	cr_expect_lt(strstr(html, "id=\"step-2-view-2\""), ex);
	cr_expect_lt(ex, strstr(html, "<aside class=\"note\""));
	page_done(html, l, p);
}

Test(html, a_failing_step_should_give_one_message_naming_it_and_no_page)
{
	static const char failing[] =
		"{ \"format\": 1, \"id\": \"bad\", \"title\": \"Bad\", \"source\": \"a test\", \"summary\": \"s\",\n"
		"  \"steps\": [\n"
		"    { \"title\": \"fine\", \"text\": [\"A heatmap.\"], \"code\": [\"A = [1 2]\"], \"show\": { \"heatmap\": \"A\" } },\n"
		"    { \"title\": \"broken\", \"text\": [\"No such name.\"], \"code\": [\"B = A + missing\"] }\n"
		"  ] }\n";
	struct lesson *l = parse(failing);
	struct player *p = player_new(l, KERNEL_SIMD);
	struct strbuf out;
	strbuf_init(&out);
	strbuf_puts(&out, "before");
	struct export_opts o = { PALETTE_COLOR, NULL };
	struct qkv_error err;
	cr_assert_eq(export_lesson_html(&out, p, &o, &err), -1);
	cr_expect(strstr(err.msg, "test.json:4:"), "%s", err.msg);
	cr_expect(strstr(err.msg, "steps[1]"), "%s", err.msg);
	cr_expect_str_eq(out.s, "before");
	/* asked again, the player's failure is the message */
	cr_assert_eq(export_lesson_html(&out, p, &o, &err), -1);
	cr_expect(strstr(err.msg, "steps[1]"), "%s", err.msg);
	cr_expect_str_eq(out.s, "before");
	strbuf_free(&out);
	player_free(p);
	lesson_free(l);
}

/* ---- svg_inline: one figure's SVG as an element of the page ------------------------ */

/* As cairo writes them: a declaration, namespaces, glyphs as symbols, a clip. */
static const char svg_a[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"40px\" "
	"height=\"20px\" viewBox=\"0 0 40 20\" version=\"1.1\">\n"
	"<defs>\n<g>\n"
	"<symbol overflow=\"visible\" id=\"glyph0-0\">\n<path style=\"stroke:none;\" d=\"M 1 1 L 2 2 Z\"/>\n</symbol>\n"
	"<symbol overflow=\"visible\" id=\"glyph0-1\">\n<path style=\"stroke:none;\" d=\"M 3 3 L 4 4 Z\"/>\n</symbol>\n"
	"</g>\n<clipPath id=\"clip1\">\n  <path d=\"M 0 0 L 40 0 L 40 20 Z\"/>\n</clipPath>\n</defs>\n"
	"<!-- a comment -->\n"
	"<g id=\"surface1\" clip-path=\"url(#clip1)\">\n"
	"<use xlink:href=\"#glyph0-0\" x=\"1\" y=\"2\"/>\n<use xlink:href=\"#glyph0-1\" x=\"3\" y=\"4\"/>\n"
	"<rect x=\"0\" y=\"0\" width=\"5\" height=\"5\" style=\"fill:url(#clip1);\"/>\n"
	"</g>\n</svg>\n";

/* Another figure: glyph0-0 is another outline, glyph0-1 and glyph0-2 both
 * the first figure's glyph0-1. */
static const char svg_b[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"40px\">\n"
	"<defs>\n<g>\n"
	"<symbol overflow=\"visible\" id=\"glyph0-0\">\n<path style=\"stroke:none;\" d=\"M 9 9 Z\"/>\n</symbol>\n"
	"<symbol overflow=\"visible\" id=\"glyph0-1\">\n<path style=\"stroke:none;\" d=\"M 3 3 L 4 4 Z\"/>\n</symbol>\n"
	"<symbol overflow=\"visible\" id=\"glyph0-2\">\n<path style=\"stroke:none;\" d=\"M 3 3 L 4 4 Z\"/>\n</symbol>\n"
	"</g>\n</defs>\n"
	"<use xlink:href=\"#glyph0-0\"/><use xlink:href=\"#glyph0-1\"/><use xlink:href=\"#glyph0-2\"/>\n"
	"</svg>\n";

Test(html, svg_inline_should_drop_the_declaration_and_namespaces_and_prefix_every_id_and_reference)
{
	struct strbuf out;
	strbuf_init(&out);
	svg_inline(&out, svg_a, strlen(svg_a), "f1-", " role=\"img\"", NULL);
	cr_expect(strncmp(out.s, "<svg role=\"img\" width=\"40px\" height=\"20px\" viewBox=\"0 0 40 20\" version=\"1.1\">\n"
				 "<defs>", 84) == 0, "%s", out.s);
	cr_expect_null(strstr(out.s, "<?xml"));
	cr_expect_null(strstr(out.s, "xmlns"));
	cr_expect_null(strstr(out.s, "http"));
	cr_expect_null(strstr(out.s, "comment"));
	cr_expect(strstr(out.s, "<symbol overflow=\"visible\" id=\"f1-glyph0-0\">\n<path style=\"stroke:none;\" "
				"d=\"M 1 1 L 2 2 Z\"/>\n</symbol>"));
	cr_expect(strstr(out.s, "<clipPath id=\"f1-clip1\">"));
	cr_expect(strstr(out.s, "<g id=\"f1-surface1\" clip-path=\"url(#f1-clip1)\">"));
	cr_expect(strstr(out.s, "<use xlink:href=\"#f1-glyph0-1\" x=\"3\" y=\"4\"/>"));
	cr_expect(strstr(out.s, "style=\"fill:url(#f1-clip1);\""));
	cr_expect(strstr(out.s, "</g>\n</svg>\n"));
	strbuf_free(&out);
}

Test(html, svg_inline_should_write_a_glyph_outline_once_per_page_and_point_later_figures_at_it)
{
	struct svg_glyphs *g = svg_glyphs_new();
	struct strbuf a, b;
	strbuf_init(&a);
	strbuf_init(&b);
	svg_inline(&a, svg_a, strlen(svg_a), "f1-", "", g);
	svg_inline(&b, svg_b, strlen(svg_b), "f2-", "", g);
	cr_expect(strstr(a.s, "id=\"f1-glyph0-0\""));
	cr_expect(strstr(a.s, "id=\"f1-glyph0-1\""));
	/* the second figure keeps only its own outline */
	cr_expect(strstr(b.s, "<symbol overflow=\"visible\" id=\"f2-glyph0-0\">\n<path style=\"stroke:none;\" "
			      "d=\"M 9 9 Z\"/>\n</symbol>\n</g>"), "%s", b.s);
	cr_expect_null(strstr(b.s, "f2-glyph0-1"));
	cr_expect_null(strstr(b.s, "f2-glyph0-2"));
	cr_expect(strstr(b.s, "<use xlink:href=\"#f2-glyph0-0\"/><use xlink:href=\"#f1-glyph0-1\"/>"
			      "<use xlink:href=\"#f1-glyph0-1\"/>"), "%s", b.s);
	strbuf_free(&a);
	strbuf_free(&b);
	svg_glyphs_free(g);
}

Test(html, svg_inline_should_copy_what_it_does_not_know_and_never_read_past_the_end)
{
	static const char *const odd[] = {
		"<svg width='3' a=b c>text<g id='x' href='#x'/></svg>",
		"<svg id=\"unterminated",
		"<svg><symbol id=\"s\">no end",
		"<!-- never closed",
		"<svg = x=\"1\">",
		"just text",
		"<",
	};
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
		struct svg_glyphs *g = svg_glyphs_new();
		struct strbuf out;
		strbuf_init(&out);
		/* a copy of the exact length: the sanitizers see any read past it */
		size_t n = strlen(odd[i]);
		char *s = malloc(n);
		memcpy(s, odd[i], n);
		svg_inline(&out, s, n, "p-", "", g);
		cr_expect(out.len > 0 && out.s[out.len - 1] == '\n', "%s", odd[i]);
		free(s);
		strbuf_free(&out);
		svg_glyphs_free(g);
	}
	struct strbuf out;
	strbuf_init(&out);
	svg_inline(&out, odd[0], strlen(odd[0]), "p-", "", NULL);
	cr_expect_str_eq(out.s, "<svg width='3' a=b c>text<g id='p-x' href='#p-x'/></svg>\n");
	strbuf_free(&out);
}
