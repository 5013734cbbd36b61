/* app.c: the full-screen program's main loop. The screen is one base state
 * (menu, lesson, or the repl's workspace) with at most one state over it
 * (help, the prompt, go-to), each with its own draw and key functions in its
 * own file; this file picks whose they are, opens what the menu asks for,
 * and handles resize and signals. The terminal is restored on every way out:
 * q, an error exit, SIGINT, SIGTERM, SIGHUP (and a crash: term.c). Ctrl-C
 * stops what runs (a computation, the loop animation); with nothing running
 * it clears the prompt's line, or acts as q. */
#include "ui/internal.h"
#include "core/clock.h"
#include "export/export.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIN_COLS 80
#define MIN_ROWS 24

static void draw_too_small(struct app *a)
{
	erase();
	const char *msg = "enlarge the terminal to 80\u00d724";
	char size[64];
	snprintf(size, sizeof size, "(it is %d\u00d7%d; q quits)", a->cols, a->rows);
	int y = a->rows / 2;
	term_put(y > 0 ? y - 1 : 0, 0, msg, a->cols);
	term_put(y, 0, size, a->cols);
}

/* qkv --repl: only a workspace view and the prompt */
static void repl_draw(struct app *a)
{
	erase();
	attron(A_REVERSE);
	mvhline(0, 0, ' ', a->cols);
	term_put(0, 1, "qkv \u2014 workspace  (:help lists the commands, :quit or Ctrl-D leaves)", a->cols - 2);
	attroff(A_REVERSE);
	int bottom = a->rows - prompt_lines(a);
	prompt_draw_view(a, 2, 1, a->cols - 2, bottom - 3);
	prompt_draw(a, bottom);
}

/* Copies s into dst (size bytes), cut at a character boundary. */
static void put_line(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s);
	if (n >= size) {
		n = size - 1;
		while (n > 0 && (s[n] & 0xC0) == 0x80)
			n--;	/* not inside a character */
	}
	memmove(dst, s, n);
	dst[n] = 0;
}

/* A damaged state file set aside, or a save that failed (progress.json, the
 * history), shown once where the user looks: the prompt's news line when it
 * is open (before what it held), else the status line. */
static void show_state_news(struct app *a)
{
	const char *p = a->progress.problem, *h = prompt_history_news();
	if (!*p && !*h)
		return;
	char msg[1200];
	snprintf(msg, sizeof msg, "%s%s%s", p, *p && *h ? "; " : "", h);
	if (a->prompt.open && a->prompt.message[0]) {
		size_t l = strlen(msg);
		snprintf(msg + l, sizeof msg - l, " \u2014 %s", a->prompt.message);
	}
	if (a->prompt.open) {
		put_line(a->prompt.message, sizeof a->prompt.message, msg);
	} else {
		put_line(a->status, sizeof a->status, msg);
		a->status_error = true;
	}
	a->progress.problem[0] = 0;
	prompt_history_news_shown();
}

/* The states: each base screen, and each overlay, has a draw and a key
 * function (the prompt draws itself inside the lesson and repl screens,
 * which leave it its lines at the bottom). */
struct state {
	void (*draw)(struct app *a);
	void (*key)(struct app *a, int ch);
};

static void base_key(struct app *a, int ch);
static void prompt_state_key(struct app *a, int ch);

static const struct state base_states[] = {
	[SCREEN_MENU] = { menu_draw, base_key },
	[SCREEN_LESSON] = { screen_draw, base_key },
	[SCREEN_REPL] = { repl_draw, prompt_state_key },
};

static const struct state overlays[] = {
	[OVERLAY_NONE] = { NULL, NULL },
	[OVERLAY_HELP] = { help_draw, help_key },
	[OVERLAY_GOTO] = { goto_draw, goto_key },
};

void app_draw(struct app *a)
{
	show_state_news(a);
	term_cursor(false);	/* unless the prompt shows it */
	if (a->cols < MIN_COLS || a->rows < MIN_ROWS) {
		draw_too_small(a);
	} else {
		base_states[a->screen].draw(a);
		if (overlays[a->overlay].draw)
			overlays[a->overlay].draw(a);
	}
	term_cursor_apply();
	refresh();
}

/* One key for the prompt: a line it runs can be cancelled with Ctrl-C. */
static void prompt_feed(struct app *a, int ch)
{
	term_busy_begin();
	prompt_key(a, ch);
	term_busy_end();	/* an interrupted line says so itself */
}

/* A Ctrl-C with no computation to cancel: true when the program should end. */
static bool ctrl_c_quits(struct app *a)
{
	if (a->prompt.open) {
		prompt_interrupt(a);	/* clears the line, as in a shell or Python */
		return false;
	}
	if (a->screen == SCREEN_LESSON && a->loops.running) {
		a->loops.running = false;	/* the loop animation stops, and the lesson stays */
		snprintf(a->status, sizeof a->status, " Stopped (Ctrl-C). r runs the animation on.");
		a->status_error = false;
		return false;
	}
	if (term_busy_recent(1000)) {
		/* the computation it meant to cancel had just ended */
		snprintf(a->status, sizeof a->status, " Nothing left to cancel: it had finished. (q quits)");
		a->status_error = false;
		return false;
	}
	/* nothing runs: as q, back to the menu from a lesson opened from it */
	if (a->screen == SCREEN_LESSON && !a->opt.lesson) {
		screen_close(a);
		a->screen = SCREEN_MENU;
		return false;
	}
	return true;
}

/* The prompt's keys: a lone Esc closes it in a lesson, clears what is
 * typed in qkv --repl (prompt_escape); Esc then a key is Alt+key. */
static void prompt_state_key(struct app *a, int ch)
{
	if (ch == 27) {
		timeout(30);
		int next = getch();
		timeout(100);
		if (next == ERR) {
			prompt_escape(a);
			return;
		}
		prompt_feed(a, 27);
		prompt_feed(a, next);
		return;
	}
	if (ch == KEY_MOUSE) {
		MEVENT ev;
		getmouse(&ev);
		return;
	}
	prompt_feed(a, ch);
}

/* The keys of the base screen, and q and ? on it. */
static void base_key(struct app *a, int ch)
{
	if (ch == '?') {
		a->overlay = OVERLAY_HELP;
		return;
	}
	if (ch == 'q') {
		if (a->screen == SCREEN_LESSON && !a->opt.lesson) {
			screen_close(a);
			a->screen = SCREEN_MENU;
		} else {
			a->quit = true;
		}
		return;
	}
	if (ch == 27 || a->cols < MIN_COLS || a->rows < MIN_ROWS)
		return;
	if (ch == KEY_MOUSE) {
		MEVENT ev;
		if (getmouse(&ev) == OK && a->screen == SCREEN_LESSON)
			screen_mouse(a, ev.y, ev.x);
		return;
	}
	if (a->screen == SCREEN_MENU) {
		menu_key(a, ch);
		if (a->open_request) {
			char num[16];
			snprintf(num, sizeof num, "%d", a->open_request);
			a->open_request = 0;
			screen_open(a, num, 0);
		}
	} else {
		screen_key(a, ch);
	}
}

/* Saves the progress a step change (or an exercise) made, at most once a
 * second: a crash, or another qkv's save, loses nothing older. */
static void save_progress_soon(struct app *a)
{
	progress_save_pending(&a->progress, clock_now_ms(), PROGRESS_SAVE_GAP_MS);
}

/* A frame drawn while a job computes (job.c): a change still waiting to be
 * saved is saved first, before the long computation can end in a crash. */
static void job_frame(struct app *a)
{
	progress_save_pending(&a->progress, clock_now_ms(), 0);
	app_draw(a);
}

/* One key, to the state on top. */
static void key(struct app *a, int ch)
{
	if (a->test_crash && ch == KEY_F(12))
		term_test_crash(a->test_crash);	/* QKV_TEST_CRASH: tests only */
	if (ch == KEY_RESIZE) {
		getmaxyx(stdscr, a->rows, a->cols);
		return;
	}
	/* the state on top: an overlay, the prompt, else the base screen */
	if (overlays[a->overlay].key)
		overlays[a->overlay].key(a, ch);
	else if (a->prompt.open)
		prompt_state_key(a, ch);
	else
		base_states[a->screen].key(a, ch);
}

/* QKV_FRAME_LOG=FILE, for measuring what a person waits for
 * (tests/frame_time.sh): a line appended to FILE for the first frame the
 * main loop draws and for each frame that answers a key (frames a job
 * draws while a computation runs, and the idle redraws between keys, are
 * not written), "N UNIX SINCE AFTER": the frame's number from 1, the wall
 * clock when it was drawn (seconds, to the microsecond), the ms since the
 * full screen began (ui_run), and the ms since its key was read ("-" for the
 * first). Off (f NULL) when the variable is unset or empty. */
struct frame_log {
	FILE *f;
	int n;
	double start, key;	/* clock_now_ms() at ui_run, and at the last key (0: none) */
};

/* 0, or -1 with a message on stderr when FILE cannot be opened. */
static int frame_log_open(struct frame_log *fl)
{
	const char *path = getenv("QKV_FRAME_LOG");
	if (!path || !*path)
		return 0;
	fl->f = fopen(path, "a");
	if (!fl->f) {
		fprintf(stderr, "qkv: QKV_FRAME_LOG: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void frame_log_frame(struct frame_log *fl)
{
	if (!fl->f || (fl->n > 0 && fl->key == 0))
		return;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	double t = clock_now_ms();
	fprintf(fl->f, "%d %lld.%06ld %.3f ", ++fl->n, (long long)now.tv_sec, now.tv_nsec / 1000, t - fl->start);
	if (fl->key > 0)
		fprintf(fl->f, "%.3f\n", t - fl->key);
	else
		fputs("-\n", fl->f);
	fflush(fl->f);
	fl->key = 0;
}

/* One line on stderr for a terminal curses cannot drive: why, and what to
 * do instead (another TERM, or the text form of what was asked for). */
static void refuse_terminal(const struct ui_options *o, const char *why)
{
	char instead[160];
	if (o->repl)
		snprintf(instead, sizeof instead, "'qkv repl' to type statements line by line");
	else
		snprintf(instead, sizeof instead, "'qkv run --plain %.100s' for plain text",
			 o->lesson ? o->lesson : "LESSON");
	fprintf(stderr, "qkv: %s; set TERM to a terminal qkv can drive (e.g. TERM=xterm-256color), or use %s\n",
		why, instead);
}

int ui_run(const struct ui_options *o)
{
	struct app a;
	memset(&a, 0, sizeof a);
	struct frame_log fl = { .start = clock_now_ms() };
	a.opt = *o;
	a.big = o->big;
	a.speed = 1;
	a.frame = job_frame;
	a.test_crash = getenv("QKV_TEST_CRASH");
	catalog_load(&a.catalog, NULL, NULL);
	/* a lesson named on the command line must open, or nothing starts */
	if (o->lesson) {
		struct qkv_error err;
		struct lesson *l = catalog_resolve(&a.catalog, o->lesson, NULL, NULL, &err);
		if (!l) {
			fprintf(stderr, "qkv: %s\n", err.msg);
			catalog_free(&a.catalog);
			return 2;
		}
		lesson_free(l);
	}
	/* a terminal curses cannot drive: say what to do instead, having
	 * written nothing to it */
	char why[200];
	if (term_check(why, sizeof why) < 0) {
		refuse_terminal(o, why);
		catalog_free(&a.catalog);
		return 2;
	}
	if (frame_log_open(&fl) < 0) {
		catalog_free(&a.catalog);
		return 2;
	}
	progress_load(&a.progress);	/* a damaged file is set aside here: shown by app_draw */
	for (int i = 0; a.progress.last_lesson && i < a.catalog.n; i++)	/* the menu on the lesson used last */
		if (a.catalog.entries[i].lesson && strcmp(a.catalog.entries[i].lesson->id, a.progress.last_lesson) == 0)
			a.menu_sel = i;
	if (term_start(&a) < 0) {
		snprintf(why, sizeof why, "curses cannot start on TERM=%.60s", getenv("TERM"));
		refuse_terminal(o, why);
		catalog_free(&a.catalog);
		progress_free(&a.progress);
		if (fl.f)
			fclose(fl.f);
		return 2;
	}
	if (o->repl) {
		a.screen = SCREEN_REPL;
		prompt_open(&a, NULL, NULL, 0);
	} else if (o->lesson) {
		screen_open(&a, o->lesson, o->step);
	}
	if (!a.status[0])
		term_size_news(a.status, sizeof a.status);
	int fast_errors = 0, ended_by = 0;
	while (!a.quit) {
		int sig = term_signal();
		if (sig == SIGINT && !ctrl_c_quits(&a))
			term_signal_clear();
		else if (sig) {
			ended_by = sig == SIGINT ? 0 : sig;	/* Ctrl-C with nothing to stop is q */
			break;
		}
		app_draw(&a);
		frame_log_frame(&fl);
		/* a key's change is saved after its frame is drawn, not before:
		 * the file's fsync (several ms) is not waited for on the screen */
		save_progress_soon(&a);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int ch = getch();
		if (ch == ERR) {
			/* getch waits up to 100 ms for a key; failing at once, again and
			 * again, means the terminal is gone (its window closed): end */
			clock_gettime(CLOCK_MONOTONIC, &t1);
			double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
			fast_errors = ms < 5 ? fast_errors + 1 : 0;
			if (fast_errors > 50)
				break;
			loops_tick(&a);
			save_progress_soon(&a);
			continue;
		}
		fast_errors = 0;
		fl.key = clock_now_ms();
		key(&a, ch);
	}
	screen_close(&a);
	prompt_close(&a);
	term_stop();
	term_detach();
	/* after the terminal is restored, where it stays readable */
	if (progress_save(&a.progress) != 0 || a.progress.problem[0])
		fprintf(stderr, "qkv: %s\n", a.progress.problem);
	if (prompt_history_error()[0])
		fprintf(stderr, "qkv: %s\n", prompt_history_error());
	catalog_free(&a.catalog);
	progress_free(&a.progress);
	free(a.timing_done);
	export_cleanup();	/* the font caches of the figures e and :export drew */
	if (fl.f)
		fclose(fl.f);
	return ended_by ? 128 + ended_by : 0;	/* SIGTERM 143, SIGHUP 129, as the shell reports a kill */
}
