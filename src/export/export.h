/* export.h: figures for slides and handouts. Paints the view/ models (the
 * heatmap, the token view, loops beside SIMD, a timing: the ones the full
 * screen and `qkv run` paint) as SVG, PDF or PNG through cairo, one drawing
 * code for the three, and a whole lesson as one self-contained HTML page.
 * Called by cli/export.c (`qkv export`) and by ui/ (the e key, :export).
 * The only place cairo is used; never touches a terminal. */
#ifndef QKV_EXPORT_EXPORT_H
#define QKV_EXPORT_EXPORT_H

#include "core/error.h"
#include "core/strbuf.h"
#include "lesson/player.h"
#include "view/heatmap.h"
#include "view/page.h"
#include "view/palette.h"

#include <stdbool.h>
#include <stddef.h>

enum export_format {
	EXPORT_UNKNOWN,
	EXPORT_SVG,
	EXPORT_PDF,
	EXPORT_PNG,
	EXPORT_HTML,   /* the whole lesson (export_lesson_html) */
	EXPORT_TXT,    /* plain text: text/render, done by the caller */
	EXPORT_ANSI,   /* text with ANSI colours: text/render, done by the caller */
};

/* The format named by path's extension (".svg", ".PDF", ...; case does not
 * matter), EXPORT_UNKNOWN for any other or none. */
enum export_format export_format_of(const char *path);
/* "svg", "pdf", "png", "html", "txt", "ansi" ("" for EXPORT_UNKNOWN). */
const char *export_format_ext(enum export_format f);

struct export_opts {
	enum palette_kind palette;          /* PALETTE_COLOR (the screen's) or PALETTE_GRAY */
	const struct heatmap_numfmt *fmt;   /* the cells' number format, or NULL: the one
	                                       `qkv run` picks (the screen passes its own) */
};

/* The figure of one view of a page (heatmap, loops beside SIMD, token view
 * or timing) in f (SVG, PDF or PNG), appended to out. Returns 0, or -1 with
 * err->msg when f is not a figure format or the view has nothing to draw. */
int export_view(struct strbuf *out, enum export_format f, const struct page_view *v, const struct export_opts *o,
		struct qkv_error *err);
/* A heatmap alone (the prompt's :export NAME FILE): title (may be NULL)
 * above it, the name and shape under it. */
int export_heatmap(struct strbuf *out, enum export_format f, const struct heatmap *h, const char *title,
		   const struct export_opts *o, struct qkv_error *err);

/* The whole lesson of p as one HTML page (html.c): every step's narration,
 * code and output as printed, every view as inline SVG, the notes, the
 * exercises with their answers folded away; no script, no network. Runs
 * every step through p. -1 with err when a step fails. */
int export_lesson_html(struct strbuf *out, struct player *p, const struct export_opts *o, struct qkv_error *err);

/* Writes data to path through core/file's atomic writer (never half a
 * file). An existing path is replaced only when force; else -1 with
 * "PATH exists (--force replaces it)". A directory, a path that cannot be
 * written or a full disk: -1 with err->msg naming the path and the reason. */
int export_save(const char *path, const char *data, size_t len, bool force, struct qkv_error *err);

/* The name (without directory or extension) the exports of a view get when
 * none is given, the same for `qkv export` and the e key: "ID-step-N" for a
 * step's first view, "ID-step-N-viewK" for the others (step and view
 * 1-based; the id cut at 120 bytes). */
void export_view_stem(char *buf, size_t size, const char *lesson_id, int step, int view);

/* A path in dir (NULL or "": the current directory) for stem.ext that does
 * not exist yet: "DIR/STEM.EXT", else "DIR/STEM-2.EXT", "-3", ... up to
 * "-999". Returns 0 with the path in buf, -1 with err when all are taken or
 * it does not fit. */
int export_unused_path(char *buf, size_t size, const char *dir, const char *stem, const char *ext,
		       struct qkv_error *err);

/* Frees what cairo and fontconfig keep between figures (font caches,
 * the font configuration), so that a leak checker sees none at exit. Call
 * once no figure is being drawn (at exit); an export after it loads them
 * again. */
void export_cleanup(void);

#endif
