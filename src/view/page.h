/* page.h: a lesson step as the front ends show it, computed without a
 * terminal. A page is the step's text as blocks (narration, code lines, the
 * output each printed, verbatim, the step's state, notes) and its views (one
 * per show, with what was computed for it). page_layout turns the blocks
 * into lines for a width, by one set of rules, so the full screen and
 * `qkv run --plain` print the same lines. Pure: builds from the player's
 * results and never draws. */
#ifndef QKV_VIEW_PAGE_H
#define QKV_VIEW_PAGE_H

#include "lesson/player.h"

#include <stddef.h>

enum page_style {
	PAGE_TEXT,       /* narration, wrapped at spaces (a short `code` span is never broken) */
	PAGE_CODE,       /* one code line, after ">>> " (after "... " when it continues a
	                    statement); a long one continues after "... " */
	PAGE_OUTPUT,     /* one line the code printed, verbatim (tabs expanded; a line over
	                    width + 2 columns wraps at a space, continuing 4 columns in) */
	PAGE_STATUS,     /* why the step shows no result: failed, not run, cancelled */
	PAGE_EXERCISE,   /* an exercise: "✎ Exercise: ASK" (✓ when solved), then how to answer */
	PAGE_NOTE,       /* a note (an erratum), 2 columns in; the first reads "Note: ..." */
	PAGE_BLANK,      /* (page_layout only) an empty line between blocks */
};

struct page_block {
	enum page_style style;
	char *text;      /* without a newline */
	bool continued;  /* PAGE_CODE: the line goes on with a statement begun on a line
	                    before it (an open bracket): laid out after "... " */
};

/* One show of the step, with what it computed (NULL before it ran). */
struct page_view {
	const struct show *show;
	const struct shown *shown;
	char kind[32];            /* "heatmap", "loops beside SIMD", "token view", "timing" */
	char what[400];           /* the show's title, else its expression */
	bool cancelled;           /* Ctrl-C stopped it (a timing keeps what it finished) */
};

struct page {
	const struct lesson *lesson;
	int step, nsteps;         /* 0-based step, and how many */
	const char *title;        /* the step's title */
	enum step_state state;
	struct page_block *blocks;
	int nblocks;
	struct page_view *views;  /* one per show whose computation is there (page_shown_ready) */
	int nviews;
};

/* Whether a show's computation is there to draw: its tensors (a heatmap, a
 * token view, both results of a comparison) or its times (a timing). A
 * show that failed, or was cancelled before it had them, has not. */
bool page_shown_ready(const struct shown *sh);

/* Builds the page of step k from the player (which must have run up to it,
 * or it reads as not run). Owns its block texts; borrows the lesson and the
 * results, which must outlive it. */
void page_build(struct page *pg, struct player *p, int k);
/* The same, with the step's exercises marked solved where solved[e] is true
 * (may be NULL), and how (may be NULL) as a line after them saying how to
 * answer ("Press : ..."; a front end's own keys). */
void page_build_exercises(struct page *pg, struct player *p, int k, const bool *solved, const char *how);
void page_free(struct page *pg);

/* One laid-out line: a slice of a block's text (or of a continuation prefix
 * it owns). */
struct page_line {
	enum page_style style;
	int block;                /* the block it comes from, -1 for a blank */
	char *text;               /* owned, without a newline */
};

struct page_lines {
	struct page_line *lines;
	int n;
};

/* Lays out blocks [from, to) of pg (to = -1: all) at width columns: blank
 * lines between paragraphs, before the code, before the status and before
 * each note; the code and its output together. Appends to out (zeroed by
 * the caller before the first call). */
void page_layout(const struct page *pg, int from, int to, int width, struct page_lines *out);
void page_lines_free(struct page_lines *out);
/* Any text laid out as narration is (PAGE_TEXT lines, block -1), indent
 * columns in: a lesson's title page uses it. */
void page_layout_text(struct page_lines *out, const char *text, int indent, int width);
/* The first block of notes (the blocks before it are text, code, output and
 * status): the plain text prints the views between the two. */
int page_notes_start(const struct page *pg);

/* The lesson screen's split: from PAGE_WIDE_COLS columns the text on the
 * left (page_wide_text_cols of them, the rule between included) and the
 * view on the right; narrower, the text above the view. The full screen
 * draws so, and the bench times frames so. */
#define PAGE_WIDE_COLS 140
static inline int page_wide_text_cols(int cols)
{
	return cols * 2 / 5;
}

#endif
