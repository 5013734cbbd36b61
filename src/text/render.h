/* render.h: a lesson step as text, for `qkv run --plain` and pipes.
 * Narration wrapped to a width, the code with its output, each shown tensor
 * as a text heatmap (numbers with shade characters ░▒▓█ for magnitude, and
 * ANSI colours when asked), comparisons, token views and timings. Pure:
 * appends to a strbuf. */
#ifndef QKV_TEXT_RENDER_H
#define QKV_TEXT_RENDER_H

#include "core/strbuf.h"
#include "lesson/runner.h"
#include "view/heatmap.h"
#include "view/page.h"

#include <stdbool.h>

struct render_opts {
	int width;       /* columns, at least 40 */
	bool color;      /* ANSI 256-colour backgrounds on heatmap cells */
};

/* The lesson's header: title, source, summary. */
void render_lesson_header(struct strbuf *out, const struct lesson *l, const struct render_opts *o);
/* A step's page: a heading rule, its text, code and output as page_layout
 * lays them out at o->width, its views, its notes. */
void render_step(struct strbuf *out, const struct page *pg, const struct render_opts *o);
/* One view of a page, as render_step prints it (`qkv export -o FILE.txt`). */
void render_view(struct strbuf *out, const struct page_view *v, const struct render_opts *o);
/* A heatmap alone, indented by indent columns. */
void render_heatmap(struct strbuf *out, const struct heatmap *h, int indent, const struct render_opts *o);
/* The step as one JSON object (`qkv run --json`). */
void render_step_json(struct strbuf *out, const struct lesson *l, int k, const struct step_result *res);

#endif
