/* internal.h: what the ui's modules share: the program state, the terminal
 * helpers (term.c), drawing (draw.c) and the screens (menu.c, screen.c).
 * Only for src/ui. */
#ifndef QKV_UI_INTERNAL_H
#define QKV_UI_INTERNAL_H

#define _XOPEN_SOURCE_EXTENDED 1
#include <curses.h>

#include "lesson/catalog.h"
#include "lesson/progress.h"
#include "lesson/player.h"
#include "ui/ui.h"
#include "view/heatmap.h"
#include "view/looptrace.h"
#include "view/palette.h"

/* The base screen, and the state over it (the prompt's is prompt.open). */
enum screen_id { SCREEN_MENU, SCREEN_LESSON, SCREEN_REPL };
enum overlay { OVERLAY_NONE, OVERLAY_HELP, OVERLAY_GOTO };

/* The loops, unrolled and vectorised animation (loops.c): one trace per
 * variant of the tensor it animates, built when first drawn (NULL for a
 * variant that has no version to animate), all stepped and run together. */
struct loops_anim {
	struct looptrace *trace[TRACE_VARIANTS];   /* by enum trace_variant */
	const struct tensor *of;        /* the tensor the traces were built for */
	bool running;
	int code_top[TRACE_VARIANTS];   /* first line of each panel's code */
	int pair;                       /* the two panels shown where three do not fit:
	                                   LOOPS_PAIRS of them, changed by LOOPS_PAIR_KEY */
	bool inspecting;                /* the cell cursor moved since the last step: the
	                                   panels tell its cell's story */
	int seen_r, seen_c;             /* the cursor as last drawn (seen_r -1: not yet) */
};
#define LOOPS_PAIRS 3
#define LOOPS_PAIR_KEY 'x'

/* The prompt: a workspace of its own (lesson/session.h: a copy of the
 * step's, or empty for qkv --repl) and what its view shows. */
struct session;
struct session_value;
struct compare;
struct prompt {
	bool open;
	struct session *session;      /* the workspace (owned) */
	struct session_value *shown;  /* the value the view shows (owned), or NULL */
	char shown_name[400];
	struct compare *loops;        /* :show EXPR loops: both results, their times and whether
	                                 they agree (owned), or NULL */
	struct loops_anim anim;       /* its loop animation */
	bool view_focus;              /* keys move the view's cursor, not the line's (Tab) */
	int cur_r, cur_c;             /* the view's cell cursor */
	int64_t slice[2];             /* the leading indices of a 3-D or 4-D tensor shown */
	struct heatmap heat;          /* the model of the slice of the value shown, built when
	                                 first drawn and kept for the frames after it (a key
	                                 then costs the same whatever the value's size) until
	                                 the value or the slice changes: prompt_view_forget */
	bool heat_built;
	const struct tensor *heat_of; /* what it was built of: the tensor and the slice */
	int64_t heat_slice[2];
	bool heat_drawn;              /* the last frame drew the value as a heatmap, laid out */
	struct heatmap_layout heat_layout;  /* so (the e key exports its numbers so) */
	char *out;                    /* what the last line printed */
	char error[ERROR_MSG_MAX];    /* the last error, with its column */
	int error_col;
	char *listing;                /* :ls / :help text */
	char message[800];            /* news (saved, solved...), or a verdict and the
	                                 exercise's question */
	/* the exercises of the step the prompt was opened on */
	const struct step *step;
	int step_index;
	int hint;                     /* hints shown so far */
};
enum pane { PANE_TEXT, PANE_VIEW };

struct app {
	struct ui_options opt;
	enum color_mode cmode;
	bool direct_color;          /* the terminal takes 24-bit colour numbers */
	enum screen_id screen;
	enum overlay overlay;       /* help, or the go-to line of the lesson screen */
	bool quit;
	const char *test_crash;     /* $QKV_TEST_CRASH: F12 crashes (term_test_crash), for tests */
	int rows, cols;             /* terminal size */
	char status[400];           /* a message for the status line */
	bool status_error;

	struct catalog catalog;
	struct progress progress;
	int menu_sel;

	int open_request;               /* 1-based lesson the menu asked to open, or 0 */

	/* the open lesson */
	struct lesson *lesson;
	struct player *player;          /* runs it and keeps every step's result and workspace */
	int step;                       /* 0-based current step */
	enum pane focus;
	int text_scroll;
	int text_h;                     /* text lines the last frame showed */
	int show;                       /* which show of the step the view draws */
	int cur_r, cur_c;               /* the cell cursor */
	int zoom;
	int temper;                     /* the temperature knob: scores × 2^temper (0: as the lesson has them) */
	bool big;
	int64_t slice[2];

	char goto_buf[8];

	struct prompt prompt;

	/* the loops-beside-vectorised animation of the current compare show */
	struct loops_anim loops;
	int speed;                      /* iterations per tick, a power of 2 */

	/* a timing show running now (ui/job.c): the last progress the player
	 * reported, copied for the frames with its label and times; NULL when
	 * none runs */
	const struct runner_progress *timing;
	struct runner_progress timing_now;
	char timing_label[256];
	double *timing_done;
	int timing_cap;
	/* draws a whole frame (app_draw): the lesson screen draws while a job
	 * runs through it */
	void (*frame)(struct app *a);

	/* where the last frame drew the view's heatmap, for the mouse */
	bool heat_drawn;
	int heat_y, heat_x;
	struct heatmap_layout heat_layout;
};

/* app.c: draws the whole frame of the current state and refreshes */
void app_draw(struct app *a);

/* term.c */
/* Whether curses can drive the terminal TERM names (terminfo is read,
 * nothing written): 0, or -1 with the reason in why ("TERM=dumb cannot
 * move the cursor"). Called before term_start. */
int term_check(char *why, size_t size);
/* Starts curses: 0, or -1 (nothing drawn, nothing to stop) when it cannot. */
int term_start(struct app *a);
void term_stop(void);
/* COLUMNS or LINES set to what no terminal has (not a number, 0, more than
 * 2000): writes to msg a line for the status saying that the terminal's own
 * size is used instead (it always is), else leaves msg as it is. */
void term_size_news(char *msg, size_t size);
void term_detach(void);
/* The signal that asks the program to end (SIGTERM, SIGHUP, or SIGINT while
 * no computation ran), or 0; term_signal_clear forgets it (a Ctrl-C the
 * program answers otherwise). */
int term_signal(void);
void term_signal_clear(void);
/* Around a computation that Ctrl-C cancels (running steps, a prompt line):
 * a SIGINT (or SIGTERM, SIGHUP) in between raises term_interrupt_flag(),
 * which the interpreters read (interp_set_interrupt). term_busy_end says
 * whether it rose, and lowers it. Nest. */
const volatile sig_atomic_t *term_interrupt_flag(void);
void term_busy_begin(void);
/* A thread of qkv's own that runs computations: its own stack for the
 * crash handler (term.c), so a crash in it restores the terminal too. */
void term_thread_start(void);
/* Follows a resize of the terminal while no key is read (a job runs). */
void term_follow_size(struct app *a);
bool term_busy_end(void);
/* Whether a computation that took long enough to want to cancel (300 ms)
 * ended less than ms ago: a Ctrl-C then meant to cancel it, not to quit. */
bool term_busy_recent(double ms);
/* The test hook behind QKV_TEST_CRASH (term.c). */
void term_test_crash(const char *how);
/* attribute for a cell of colour c with readable text on it */
attr_t term_cell_attr(struct app *a, struct rgb bg, short *pair);
/* a colour pair for fg on bg (NULL: the terminal's background) */
short term_pair(struct app *a, struct rgb fg, const struct rgb *bg);
/* Text: UTF-8 in, drawn as it is in a UTF-8 locale, else as its ASCII twin
 * (ascii.c); widths are those of what is drawn. */
bool term_utf8(void);                                   /* the locale is UTF-8 */
void term_put(int y, int x, const char *s, int maxw);   /* UTF-8, cut to maxw columns */
void term_put_n(int y, int x, const char *s, size_t n, int maxw);   /* the first n bytes of s */
int term_width_of(const char *s);
/* s as it will be drawn, to lay it out before drawing (word wrap): NULL in
 * a UTF-8 locale (s itself), else its ASCII form (free it). */
char *term_text(const char *s);
/* utf8_fit (core/utf8.h) of s as it will be drawn: labels, code lines. */
struct strbuf;
void term_fit(struct strbuf *out, const char *s, int width, int align);
void term_cursor(bool visible);        /* for this frame; applied by term_cursor_apply */
void term_cursor_apply(void);
/* lines and boxes: Unicode box characters in a UTF-8 locale, else - | + */
void term_hline(int y, int x, int n);
void term_vline(int y, int x, int n);
void term_box(int y, int x, int h, int w);

/* draw.c */
void draw_heatmap(struct app *a, const struct heatmap *h, int y, int x, int h_lines, int w, int cur_r,
		  int cur_c, bool cursor, int zoom, bool big);
/* What this terminal draws heatmaps with, for heatmap_layout: every layout
 * of a heatmap draw_heatmap draws must be made with it. */
struct heatmap_ink draw_heatmap_ink(const struct app *a);
int draw_wrapped(const char *text, int y, int x, int w, int max_lines, int skip, attr_t attr);
/* Puts s at y, x: whole when it fits w columns, else cut with "…". */
void draw_fit(int y, int x, const char *s, int w);
/* Puts head, mid and tail one after the other at y, x in w columns: whole
 * when they fit, else mid cut with "…" so that head and tail stay whole,
 * while mid keeps 8 columns (else the three as one line, cut with "…"). */
void draw_fit_parts(int y, int x, int w, const char *head, const char *mid, const char *tail);
int draw_lines(const char *text, int y, int x, int w, int max_lines, int skip);

/* menu.c */
void menu_draw(struct app *a);
void menu_key(struct app *a, int ch);

/* screen.c: the lesson screen. screen_open opens LESSON arg at step (1-based,
 * 0 for the first). */
int screen_open(struct app *a, const char *arg, int step);
void screen_close(struct app *a);
void screen_draw(struct app *a);
void screen_key(struct app *a, int ch);
void screen_mouse(struct app *a, int y, int x);

/* loops.c: the view of a compare show (the lesson screen's and the
 * prompt's `:show EXPR loops`): the kernel's three variants side by side.
 * What one drawing needs: the SIMD result (its derivation gives the traces),
 * its expression, the comparison's times and verdicts, its scale and labels,
 * and the cell cursor when the view has it (the inspector). */
struct loops_view {
	const struct tensor *t;
	const char *expr;
	double loops_ms, simd_ms, max_diff;
	bool agree;
	double unrolled_ms, unrolled_diff;  /* issue 18 */
	bool unrolled_agree;
	enum scale_kind scale;
	char *const *rows, *const *cols;
	int nrows, ncols;
	bool cursor;                        /* the view has the cell cursor at: */
	int cur_r, cur_c;
};
/* Draws v in w x h at y, x: a panel per variant (three where w allows, else
 * the pair an->pair picks), each with its status, step count and time, the
 * code following the line being run, the step explained with its numbers
 * and the matrix it fills; the keys and the verdicts on the last two lines.
 * Builds an's traces when v->t is not the tensor they were built for. */
void loops_draw(struct app *a, struct loops_anim *an, const struct loops_view *v, int y, int x, int w, int h);
/* s one step of every panel, r run or pause (from the start again at the
 * end), e to the end, < > slower, faster, LOOPS_PAIR_KEY the next pair: true
 * when ch was one of them. */
bool loops_key(struct app *a, struct loops_anim *an, int ch);
/* Every 100 ms: moves the animations that run (the lesson's, the prompt's). */
void loops_tick(struct app *a);
/* Forgets an's traces (the tensor they animate goes away). */
void loops_stop(struct loops_anim *an);
/* Builds an's traces of t and runs them from the start (`:show EXPR loops`). */
void loops_play(struct loops_anim *an, const struct tensor *t);

/* loops_panel.c: one panel of that view: trace lt of variant (NULL when it
 * has none), *code_top its code's scroll, ms its measured time, result the
 * scale of the result (for the matrices that hold it), inspecting whether
 * the cell cursor is shown with its cell's story (else the step's cells and
 * the step explained). */
struct loops_panel {
	struct looptrace *lt;
	enum trace_variant variant;
	int *code_top;
	double ms;
	enum scale_kind result;
	bool inspecting;
	struct heatmap map;        /* the matrix lt fills, built by loops_panels_build */
};
/* Builds the matrices of the n panels that have a trace, those that hold the
 * same thing (name, size and scale) on one colour scale, the union of
 * theirs, so a colour means the same number in each panel;
 * loops_panels_free drops them. */
void loops_panels_build(struct loops_panel *p, int n);
void loops_panels_free(struct loops_panel *p, int n);
/* The lines each part of a panel takes, the same in every panel of a view,
 * so that side by side each part starts on the same line: the status (its
 * steps text on steps lines), the code, the indices, the explanation (the
 * cell's story in its place when the story is not below), the partial sums,
 * then the matrix, which takes what is left but the story's lines under it. */
struct loops_rows {
	int status, steps, code, idx, expl, parts, story;
	bool story_below;
};
/* Lays out the n panels p, each w x h: the explanation whole before the
 * matrix grows beyond its label and the code beyond its first 3 lines
 * (a fourth, the partial sums and the indices come after the matrix at its
 * least). */
void loops_panels_layout(const struct loops_panel *p, int n, const struct loops_view *v, int w, int h,
			 struct loops_rows *rows);
void loops_panel_draw(struct app *a, const struct loops_panel *p, const struct loops_view *v,
		      const struct loops_rows *rows, int y, int x, int w, int h);
/* Puts the first of forms (NULL-terminated) that fits w columns whole; the
 * last one cut with "…" when none does. Returns the form put. */
const char *loops_put_fitting(int y, int x, int w, const char *const *forms);

/* export_key.c: the e key. exportkey_view writes the lesson step's view as
 * the screen draws it, exportkey_value the tensor (or the loops) the prompt's
 * view shows, each to a new SVG file named after the lesson and step (in
 * qkv --repl after the value) in $QKV_EXPORT_DIR or the current directory;
 * the status line (the prompt's message) says where, or why not. */
void exportkey_view(struct app *a);
void exportkey_value(struct app *a);

/* job.c: a computation of the player (or the prompt's statements) on a
 * worker thread, the main thread drawing frames (a->frame) with its
 * progress until it ends. */
enum job_kind { JOB_GO, JOB_SHOW_AGAIN, JOB_CALL };
struct job {
	enum job_kind kind;
	struct player *player;
	int k;                     /* the step to go to, or to show again */
	int at, rc;                /* player_go's (or player_show_again's) results */
	struct qkv_error err;
	void (*fn)(void *ctx);     /* JOB_CALL: what runs, fn(ctx) */
	void *ctx;
};
void job_run(struct app *a, struct job *j);
/* The player's progress callback (player_set_progress(p, job_progress, NULL)). */
void job_progress(void *ctx, const struct runner_progress *p);
/* For a frame while a job has run half a second or more: how far the
 * operation running now is and the time so far ("42% of the operation
 * done, 3.1 s"); "" otherwise. */
void job_progress_note(char *buf, size_t size);

/* ascii.c: appends to out the ASCII twin of the n bytes of UTF-8 at s (stops
 * at a NUL): term.c's text in a locale that is not UTF-8. */
void ascii_append(struct strbuf *out, const char *s, size_t n);

/* help.c: the keys overlay */
void help_draw(struct app *a);
void help_key(struct app *a, int ch);
/* goto.c: 'g' and a step number, in the lesson screen's status line */
void goto_draw(struct app *a);
void goto_key(struct app *a, int ch);
/* screen.c: go to step k (0-based) of the open lesson */
void screen_go_to(struct app *a, int k);

/* prompt.c */
void prompt_open(struct app *a, struct interp *from, const struct step *st, int step_index);
void prompt_close(struct app *a);
void prompt_key(struct app *a, int ch);
/* Ctrl-C with no line running: forgets the line being typed. */
void prompt_interrupt(struct app *a);
/* A lone Esc: in a lesson, closes the prompt; in qkv --repl (the prompt is
 * all there is) drops the line or block typed, or says how to leave; in
 * readline's vi editing mode, goes to readline (vi's command mode). */
void prompt_escape(struct app *a);
/* Draws the prompt's lines at the bottom (the caller leaves them free) and
 * returns how many lines it uses; prompt_draw_view draws its result. */
int prompt_lines(const struct app *a);
void prompt_draw(struct app *a, int y);
/* While a statement runs (on ui/job's worker): a copy of what it printed
 * so far (free it); NULL when none runs. */
char *prompt_running_output(void);
/* prompt_view.c: the view beside the input; its keys while it has the focus
 * (Tab): false for a key that is not the view's (it goes to the line). */
void prompt_draw_view(struct app *a, int y, int x, int w, int h);
bool prompt_view_key(struct app *a, int ch);
/* Drops the view's model of the value shown (prompt.heat): whenever the
 * value shown changes, or a statement ran that may have changed it in place. */
void prompt_view_forget(struct prompt *p);
/* The history file (see prompt.c): saved when the prompt closes; a damaged
 * file found on loading or a failed save is news (one line, "" when none)
 * until shown; prompt_history_error is why the last save failed, or "". */
void prompt_history_save(void);
const char *prompt_history_news(void);
void prompt_history_news_shown(void);
const char *prompt_history_error(void);

#endif
