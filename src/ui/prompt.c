/* prompt.c: the statement prompt inside the full-screen program (':' in a
 * lesson, or the whole screen for qkv --repl). Line editing is GNU readline
 * through its callback interface (set up by lesson/lineedit, as qkv repl's),
 * fed with the keys curses reads and drawn by us (readline never writes to
 * the terminal). A line that leaves a block or a bracket open continues
 * after "... ", indented, until an empty line; a pasted cell (bracketed
 * paste) runs statement by statement. Everything else goes through
 * lesson/session.h: this file never includes lang/ or core/ops.h. A failing
 * line or block leaves the workspace as it was and stays in the input, a
 * caret under its mistake as the line is drawn (a line wider than the
 * screen scrolls sideways) while the input up to it is unchanged; an
 * error raised inside a function typed earlier shows, under its traceback,
 * the function's line with the caret (view/errline, as qkv repl). The
 * view beside the input is prompt_view.c's; where the input, its error and
 * the matches Tab listed go, and their drawing, prompt_draw.c's. */
#include "ui/prompt_input.h"
#include "core/mem.h"
#include "core/utf8.h"
#include "export/command.h"
#include "lesson/codeplace.h"
#include "lesson/commands.h"
#include "lesson/compare.h"
#include "lesson/exercise.h"
#include "lesson/lineedit.h"
#include "lesson/statements.h"
#include "lesson/progress.h"
#include "lesson/session.h"
#include "view/errline.h"

#include <pthread.h>
#include <stdarg.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HISTORY_MAX 1000

static struct app *cur;            /* readline's callbacks carry no context */
struct prompt_input in;
static unsigned char queue[64];    /* bytes of the key being fed to readline */
static int qhead, qlen;
static bool readline_ready;
static char history_path[4096];
static char history_news[512];     /* a history problem not yet shown, or "" */
static char history_error[512];    /* why the last history save failed, or "" */
static bool history_keep_out;      /* damaged, and could not be set aside: never written */
static bool pasting;               /* between the brackets of a bracketed paste */
static struct strbuf paste;        /* what was pasted so far */
static char esc_seq[32];           /* the start of an escape sequence held back */
static char key_note[sizeof ((struct prompt *)0)->message];	/* Ctrl-C's or Esc's, until the next key */
static char before_note[sizeof key_note];	/* the message it hides */
static int esc_len;

/* ---- readline plumbing --------------------------------------------------------- */

static int getc_from_queue(FILE *f)
{
	(void)f;
	if (qhead < qlen)
		return queue[qhead++];
	return EOF;
}

/* readline batches typed characters when it sees more input waiting; the
 * only input it may see is the queue (stdin belongs to curses), or an empty
 * queue would read as EOF, which readline takes for Enter */
static int queue_has_input(void)
{
	return qhead < qlen;
}

static void redisplay_nothing(void)
{
	/* the screen is redrawn after every key by the main loop */
}

static void prep_nothing(int meta)
{
	(void)meta;
}

static void deprep_nothing(void)
{
}

static void forget_matches(void)
{
	for (int i = 0; i < in.nlisted; i++)
		free(in.listed[i]);
	free(in.listed);
	in.listed = NULL;
	in.nlisted = 0;
}

/* readline's listing of the matches (a second Tab, or the first when it
 * can add nothing to the word): kept to be drawn under the input until the
 * next key (draw_matches). matches[1..n] are sorted; file names are listed
 * without their directory, as readline lists them. */
static void show_matches(char **matches, int n, int longest)
{
	(void)longest;	/* bytes: the columns are measured as drawn */
	forget_matches();
	in.listed = xmalloc(sizeof *in.listed * (size_t)(n > 0 ? n : 1));
	for (int i = 0; i < n; i++) {
		const char *m = matches[i + 1], *slash = NULL;
		for (const char *c = m; rl_filename_completion_desired && *c; c++)
			if (*c == '/' && c[1])
				slash = c;
		in.listed[i] = xstrdup(slash ? slash + 1 : m);
	}
	in.nlisted = n;
}

static void on_line(char *line);

static void readline_start(void)
{
	if (!readline_ready) {
		rl_getc_function = getc_from_queue;
		rl_input_available_hook = queue_has_input;
		rl_redisplay_function = redisplay_nothing;
		rl_prep_term_function = prep_nothing;
		rl_deprep_term_function = deprep_nothing;
		rl_catch_signals = 0;
		rl_catch_sigwinch = 0;
		rl_change_environment = 0;
		lineedit_setup(COMMAND_SCREEN, cur->prompt.session);
		rl_completion_display_matches_hook = show_matches;
		rl_outstream = fopen("/dev/null", "w");	/* readline writes nothing itself */
		rl_instream = stdin;
		char *dir = progress_state_dir();	/* shared with progress.json */
		if (dir)
			snprintf(history_path, sizeof history_path, "%s/history", dir);
		free(dir);
		using_history();
		stifle_history(HISTORY_MAX);
		if (history_path[0]) {
			struct progress_history h;
			progress_history_load(&h, history_path, HISTORY_MAX);
			lineedit_history_load(h.lines, h.n);
			if (h.problem[0])
				memcpy(history_news, h.problem, sizeof history_news);
			history_keep_out = h.keep_out;
			progress_history_free(&h);
		}
		readline_ready = true;
	}
	lineedit_set_session(cur->prompt.session);
	rl_callback_handler_install(in.block.len ? "... " : ">>> ", on_line);
}

static int do_nothing(int count, int key)
{
	(void)count;
	(void)key;
	return 0;
}

/* readline 8.2 in callback mode can end a line inside a numeric argument
 * (vi's 5# comments the line out and accepts it) and return without handing
 * the line over: it goes only with the next key, after that key's command
 * has run on the ended line, and a search begun so (5#, then Ctrl-R) kept
 * pointers into lines freed under it (the key fuzzer found a use after free).
 * A key bound to nothing for the moment hands the line over at once. */
static void finish_ended_line(void)
{
	if (!rl_done)
		return;
	unsigned char rest[sizeof queue];	/* the bytes after it wait */
	int at = qhead, len = qlen;
	memcpy(rest, queue, sizeof rest);
	Keymap map = rl_get_keymap();
	KEYMAP_ENTRY was = map[0x1f];
	map[0x1f].type = ISFUNC;
	map[0x1f].function = do_nothing;
	queue[0] = 0x1f;
	qhead = 0;
	qlen = 1;
	rl_callback_read_char();
	map[0x1f] = was;
	memcpy(queue, rest, sizeof queue);
	qhead = at;
	qlen = len;
}

/* readline 8.2 in callback mode keeps undo lists in two places at once
 * (the line being edited and the history line it came from, or the line
 * saved while the history is browsed) and, in enough key sequences, frees
 * one twice or reads it after it was freed: the key fuzzer found five such
 * crashes (Ctrl-C in vi mode, Up then Ctrl-W then Esc ?, a search after
 * Esc 5 #, revert-all-at-newline after Ctrl-P Ctrl-S ...), and a test
 * program feeding readline random keys crashed in 1 of 100 streams of 80
 * keys. With no undo list kept from one key to the next none of that can
 * happen (0 in 3,000 streams), at the price of undo (Ctrl-_, vi's u), which
 * then rings the bell; a history line edited and left stays edited, as in
 * bash. */
static void forget_undo(void)
{
	if (rl_undo_list)
		rl_free_undo_list();
}

/* A NUL byte inside readline's line (rl_end past it), which some key
 * sequence of the key fuzzer's left there (seed 31355062485), sent
 * readline's character search round forever; a line never holds one: it is
 * taken out. */
static void drop_nul_bytes(void)
{
	if (!rl_line_buffer)
		return;
	int to = 0, point = rl_point;
	for (int i = 0; i < rl_end; i++) {
		if (rl_line_buffer[i] == 0) {
			point -= i < rl_point;
			continue;
		}
		rl_line_buffer[to++] = rl_line_buffer[i];
	}
	if (to == rl_end)
		return;
	rl_end = to;
	rl_line_buffer[to] = 0;
	rl_point = point < rl_end ? point : rl_end;
	if (rl_mark > rl_end)
		rl_mark = rl_end;
}

/* Runs readline on the bytes seq (n of them) as typed keys. */
static void feed_bytes(struct app *a, const char *seq, size_t n)
{
	lineedit_callback_keymaps();	/* (Ctrl-X Ctrl-R reads ~/.inputrc again) */
	cur = a;
	memcpy(queue, seq, n);
	qhead = 0;
	qlen = (int)n;
	while (qhead < qlen && a->prompt.open) {
		rl_callback_read_char();
		if (a->prompt.open)
			finish_ended_line();
		forget_undo();
		drop_nul_bytes();
		prompt_cursor_to_error(a);	/* a line that failed came back */
	}
	qhead = qlen = 0;
}

/* Drops the line being typed, whatever readline was in the middle of, for
 * Ctrl-C. Freeing readline's line state from outside (rl_free_line_state,
 * as its own SIGINT handler and Python's readline module do) frees undo
 * lists that readline still holds elsewhere (the line saved while the
 * history is browsed): in vi mode, after Up, Ctrl-W, Ctrl-C, Esc ? reached a
 * double free. So readline ends the line itself, as on Enter, which puts
 * back a history entry the line changed and frees the undo list once, and
 * on_line drops it: a search in a line of its own (vi's ?, Alt-P) is left
 * with Ctrl-G, any other state (Ctrl-R, Alt-3, Ctrl-X, Ctrl-V) by
 * rl_callback_sigcleanup, then Ctrl-J (accept-line) ends the line. */
static bool dropping;	/* the line on_line gets next is dropped */
static bool paste_cell;	/* ... and the block run as a pasted cell (end_paste) */

/* Ctrl-J (readline's accept-line, unless ~/.inputrc binds it to another
 * command) ends the line as Enter does. */
static bool accept_line_key(void)
{
	return rl_get_keymap()['\n'].type == ISFUNC && rl_get_keymap()['\n'].function == rl_newline;
}

/* Ends what readline is in the middle of (a search, an argument, a key
 * sequence), so that the line is only a line again. */
static void end_readline_state(struct app *a)
{
	if (RL_ISSTATE(RL_STATE_NSEARCH))
		feed_bytes(a, "\a", 1);
	rl_callback_sigcleanup();
}

static void drop_line(struct app *a)
{
	end_readline_state(a);
	rl_set_prompt(">>> ");
	if (accept_line_key()) {
		dropping = true;
		feed_bytes(a, "\n", 1);
		dropping = false;
	}
	if (rl_end > 0 || RL_ISSTATE(RL_STATE_ISEARCH | RL_STATE_NSEARCH)) {
		/* Ctrl-J does something else (~/.inputrc): readline's own way */
		rl_free_line_state();
		rl_callback_handler_remove();
		readline_start();
	}
}

/* Writes readline's history (HISTORY_MAX lines at most) through
 * progress_history_save, atomically and mode 0600; a failure is news for the
 * user and, until a later save works, for stderr when qkv ends. */
void prompt_history_save(void)
{
	if (!readline_ready || !history_path[0] || history_keep_out)
		return;
	HIST_ENTRY **list = history_list();
	int n = 0;
	while (list && list[n])
		n++;
	/* a block's lines are one entry, marked to join again (lesson/lineedit) */
	char **lines = xmalloc(sizeof *lines * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		struct strbuf sb;
		strbuf_init(&sb);
		lineedit_history_encode(&sb, list[i]->line);
		lines[i] = sb.s ? strbuf_detach(&sb) : xstrdup("");
	}
	if (progress_history_save(history_path, (const char *const *)lines, n, HISTORY_MAX, history_error,
				  sizeof history_error) != 0)
		memcpy(history_news, history_error, sizeof history_news);
	else
		history_error[0] = 0;
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

const char *prompt_history_news(void)
{
	return history_news;
}

void prompt_history_news_shown(void)
{
	history_news[0] = 0;
}

const char *prompt_history_error(void)
{
	return history_error;
}

/* ---- running lines ------------------------------------------------------------- */

/* What the statements print. They run on a worker thread (ui/job.c) while
 * the main thread draws frames that show it as it grows: both hold the lock
 * while a statement runs. */
static struct strbuf printed;
static size_t printed_total;       /* bytes ever added to printed */
static pthread_mutex_t printed_lock = PTHREAD_MUTEX_INITIALIZER;

#define PRINTED_MAX (1 << 20)      /* a loop that prints forever keeps its last lines */

static void capture(void *udata, const struct session_output *o)
{
	(void)udata;
	pthread_mutex_lock(&printed_lock);
	size_t was = printed.len;
	strbuf_puts(&printed, o->text);
	strbuf_putc(&printed, '\n');
	printed_total += printed.len - was;
	if (printed.len > PRINTED_MAX) {
		char *cut = memchr(printed.s + printed.len - PRINTED_MAX / 2, '\n', PRINTED_MAX / 2);
		size_t drop = cut ? (size_t)(cut - printed.s) + 1 : printed.len - PRINTED_MAX / 2;
		memmove(printed.s, printed.s + drop, printed.len - drop + 1);
		printed.len -= drop;
	}
	pthread_mutex_unlock(&printed_lock);
}

char *prompt_running_output(void)
{
	if (!in.running)
		return NULL;
	pthread_mutex_lock(&printed_lock);
	char *now = xstrdup(printed.s ? printed.s : "");
	pthread_mutex_unlock(&printed_lock);
	return now;
}

/* session_run (or :load's session_load, file set) on the worker thread,
 * the frames drawn meanwhile. */
struct run_call {
	struct session *s;
	const char *src, *file;
	size_t len;
	int rc;
	struct qkv_error err;
};

static void run_call(void *ctx)
{
	struct run_call *c = ctx;
	if (c->file)
		c->rc = session_load(c->s, c->file, &c->err);
	else
		c->rc = session_run(c->s, c->src, c->len, 1, SESSION_ATOMIC, &c->err);
}

/* Runs c on a worker thread: Ctrl-C stops it (term.c raises the interrupt
 * flag); the frames drawn meanwhile show what it prints. */
static int run_job(struct app *a, struct run_call *c)
{
	c->s = a->prompt.session;
	struct job j = { .kind = JOB_CALL, .fn = run_call, .ctx = c };
	in.running = true;
	job_run(a, &j);
	in.running = false;
	prompt_view_forget(&a->prompt);	/* it may have changed the value shown in place */
	return c->rc;
}

/* Runs src (len bytes) all or nothing in the prompt's session. */
static enum session_status run_src(struct app *a, const char *src, size_t len, struct qkv_error *err)
{
	struct run_call c = { .src = src, .len = len };
	enum session_status st = run_job(a, &c);
	*err = c.err;
	return st;
}

/* The view shows v (taken) under name ("" for a value a line made), its
 * cursor on the first cell of the first matrix. */
static void show_value(struct prompt *p, struct session_value *v, const char *name)
{
	prompt_view_forget(p);
	if (p->shown)
		session_value_free(p->shown);
	else
		p->shown = xcalloc(1, sizeof *p->shown);
	*p->shown = *v;
	snprintf(p->shown_name, sizeof p->shown_name, "%s", name);
	p->cur_r = p->cur_c = 0;
	p->slice[0] = p->slice[1] = 0;
}

static void drop_shown(struct prompt *p)
{
	prompt_view_forget(p);
	if (p->shown)
		session_value_free(p->shown);
	free(p->shown);
	p->shown = NULL;
	p->shown_name[0] = 0;
}

/* Ends :show EXPR loops (its SIMD result stays shown). */
static void drop_loops(struct prompt *p)
{
	if (p->loops)
		compare_free(p->loops);
	free(p->loops);
	p->loops = NULL;
	loops_stop(&p->anim);
}

/* An error for the line just entered, with the caret at column col of it
 * (1-based); the line goes back into the input when it is shown. An error
 * inside a function the line called carries its traceback ("\n  line 3, in
 * f") and its place is in the function, not the line: no caret under the
 * input then (set_run_error finds the function's line). */
static void set_error(struct prompt *p, int col, const char *msg)
{
	snprintf(p->error, sizeof p->error, "%s", msg);
	p->error_col = strchr(msg, '\n') ? 0 : col > 0 ? col : 1;
	free(in.error_fn_text);
	in.error_fn_text = NULL;
}

/* For an error raised inside a function (err's traceback; its line and
 * column in the source that defines it): the function's line, with the
 * caret under its column, as qkv repl shows it (view/errline), into
 * error_fn. It is looked for in the lesson's steps (on a lesson's prompt),
 * the statements run since (each numbered from 1, as run_src runs them)
 * and last in extra (the code :load ran, its lines numbered from 1 too)
 * when not NULL: the last of them whose line it can be, a def run later
 * replacing one before it. */
/* The error shown (p->error), its traceback's lines that are the lesson's
 * (source 0 of the n given; the steps' lines count lesson-wide) named as
 * "step S, line K", as a notebook names a cell's: a line the sources after
 * it define the function on too is theirs, a def run later replacing one
 * before it; the innermost's is the one whose line is shown (from_lesson). */
static void name_lesson_lines(struct prompt *p, const struct lesson *l, const struct errline_source *sources,
			      int n, bool from_lesson)
{
	const char *tb = strstr(p->error, "\n  line ");
	if (!tb)
		return;
	struct strbuf out;
	strbuf_init(&out);
	strbuf_putn(&out, p->error, (size_t)(tb - p->error));
	while (tb) {
		const char *next = strstr(tb + 1, "\n  line ");
		size_t len = next ? (size_t)(next - tb) : strlen(tb);
		int line, at = 0, step;
		char name[128];
		bool lessons = false;
		if (sscanf(tb, "\n  line %d, in %n%127[^\n]", &line, &at, name) == 2) {
			lessons = next ? errline_defines(&sources[0], line, name) : from_lesson;
			for (int i = 1; next && lessons && i < n; i++)
				lessons = !errline_defines(&sources[i], line, name);
		}
		struct loc where;
		char *path = NULL;
		if (lessons && codeplace_find(l, line, 1, &where, &path, &step) && step >= 0) {
			strbuf_printf(&out, "\n  step %d, line %d, in ", step + 1,
				      line - codeplace_first_line(l, l->steps[step].lines) + 1);
			strbuf_putn(&out, tb + at, len - (size_t)at);
		} else {
			strbuf_putn(&out, tb, len);
		}
		free(path);
		tb = next;
	}
	utf8_snprintf(p->error, sizeof p->error, "%s", out.s ? out.s : "");
	strbuf_free(&out);
}

static void find_function_line(struct prompt *p, const struct errline_source *extra, const struct qkv_error *err)
{
	int ntyped, n = 0;
	const char *const *typed = session_statements(p->session, &ntyped);
	struct errline_source *sources = xcalloc((size_t)ntyped + 3, sizeof *sources);
	/* a function of the lesson's: its steps ran numbered lesson-wide */
	struct strbuf lesson_code;
	strbuf_init(&lesson_code);
	if (p->step && cur && cur->lesson) {
		codeplace_steps_code(cur->lesson, &lesson_code);
		sources[n++] = (struct errline_source){ lesson_code.s ? lesson_code.s : "", lesson_code.len, 1 };
	}
	for (int i = 0; i < ntyped; i++)
		sources[n++] = (struct errline_source){ typed[i], strlen(typed[i]), 1 };
	if (extra)
		sources[n++] = *extra;
	struct errline e;
	bool found = errline_in_function(&e, sources, n, ERRLINE_LAST, err);
	if (found) {
		in.error_fn_text = xstrndup(e.text, e.len);
		in.error_fn = (struct errline){ in.error_fn_text, e.len, e.col };
	}
	if (lesson_code.s)
		name_lesson_lines(p, cur->lesson, sources, n,
				  found && e.text >= lesson_code.s && e.text < lesson_code.s + lesson_code.len);
	strbuf_free(&lesson_code);
	free(sources);
}

/* set_error of a statement that failed (col: its column in the input, as
 * set_error's); an error raised inside a function gets that function's
 * line (find_function_line). */
static void set_run_error(struct prompt *p, int col, const struct qkv_error *err)
{
	set_error(p, col, err->msg);
	if (!p->error_col)	/* else the statement's own mistake: the caret goes under the input */
		find_function_line(p, NULL, err);
}

/* Puts text, the input that failed (set_error's, its failing line
 * error_row), back into the line for fixing, and remembers it: the caret
 * stays under the mistake while the input up to it is unchanged. Columns
 * count characters (the lexer's): error_at is the byte the caret is under. */
static void put_back(const struct prompt *p, const char *text)
{
	lineedit_set_next(text);
	free(in.error_input);
	in.error_input = xstrdup(text ? text : "");
	const char *row = in.error_input;
	for (int r = 1; r < in.error_row && strchr(row, '\n'); r++)
		row = strchr(row, '\n') + 1;
	size_t k = p->error_col > 1 ? (size_t)p->error_col - 1 : 0;
	in.error_at = (size_t)(row - in.error_input) + utf8_offset_n(row, strcspn(row, "\n"), k);
	in.error_fresh = true;
}

static void clear_error(struct prompt *p)
{
	p->error[0] = 0;
	in.error_row = 0;
	free(in.error_input);
	in.error_input = NULL;
	in.error_fresh = false;
	free(in.error_fn_text);
	in.error_fn_text = NULL;
}

static void show_listing(struct prompt *p, const char *text)
{
	free(p->listing);
	p->listing = xstrdup(text);
}

static void cmd_ls(struct prompt *p)
{
	struct strbuf sb;
	strbuf_init(&sb);
	session_list(p->session, &sb);
	show_listing(p, sb.s);
	strbuf_free(&sb);
}

/* :help, :help TOPIC; a module's name lists its functions (lesson/commands) */
static void cmd_help(struct app *a, const char *topic, int argcol)
{
	struct prompt *p = &a->prompt;
	struct strbuf sb;
	strbuf_init(&sb);
	struct qkv_error err;
	if (command_help(&sb, COMMAND_SCREEN, p->session, topic, a->cols - 4, &err) < 0)
		set_error(p, argcol, err.msg);
	else
		show_listing(p, sb.s);
	strbuf_free(&sb);
}

/* What a line (or :load's code) that ran whole changes: the printed text,
 * an exercise's verdict, the exercises it solved
 * (kept in progress.json). */
static void after_run(struct app *a)
{
	struct prompt *p = &a->prompt;
	free(p->out);
	p->out = xstrdup(printed.s ? printed.s : "");
	const char *verdict = session_exercise_verdict(p->session);
	/* not yet: the question stays in view under the verdict */
	int open = -1;
	for (int k = 0; p->step && k < p->step->nexercises && open < 0; k++)
		open = session_exercise_solved(p->session, k) ? -1 : k;
	if (*verdict && open >= 0 && strncmp(verdict, "Not yet", 7) == 0)
		snprintf(p->message, sizeof p->message, "%s\n%s: %s", verdict, exercise_kind(&p->step->exercises[open]),
			 p->step->exercises[open].ask);
	else if (*verdict)
		snprintf(p->message, sizeof p->message, "%s", verdict);
	for (int k = 0; p->step && k < p->step->nexercises; k++) {
		if (session_exercise_solved_now(p->session, k)) {
			char key[160];
			snprintf(key, sizeof key, "%.120s#%d.%d", a->lesson ? a->lesson->id : "", p->step_index, k);
			progress_mark(&a->progress, key, 1, 1);
			progress_save(&a->progress);
		}
	}
	free(p->listing);	/* the new value replaces a listing or help */
	p->listing = NULL;
	drop_loops(p);
}

/* Whether a and b are the same value shown: the very tensor, or text alike. */
static bool same_value(const struct session_value *a, const struct session_value *b)
{
	if (a->t || b->t)
		return a->t == b->t;
	return a->text && b->text && strcmp(a->text, b->text) == 0;
}

/* The name the value a line made goes by (lesson/statements.h): the
 * variable its last statement assigns ("X = [1 2; 3 4]", "X += 1"), when
 * the workspace holds that very value under it; else the statement itself
 * when it is an expression ("Q @ K.T", "X.shape"); else "". */
static void name_value(struct prompt *p, const char *line)
{
	if (!p->shown)
		return;
	char st[sizeof p->shown_name];
	switch (statements_value_name(line, st, sizeof st)) {
	case STATEMENTS_NAME_ASSIGNED: {
		struct session_value v;
		struct qkv_error err;
		if (session_show(p->session, st, &v, &err) == 0) {
			if (same_value(&v, p->shown))
				snprintf(p->shown_name, sizeof p->shown_name, "%s", st);
			session_value_free(&v);
		}
		break;
	}
	case STATEMENTS_NAME_EXPRESSION:
		snprintf(p->shown_name, sizeof p->shown_name, "%s", st);
		break;
	case STATEMENTS_NAME_NONE:
		break;
	}
}

/* The view shows the value the statements just run (stmt, or NULL for
 * :load's code) made, named after stmt when it is one line: a tensor as a
 * heatmap, anything else (`X.shape`, a list, a number) as its text. True
 * when they made one; else the view keeps the value it shows, under the
 * name of the statement that made it (never stmt's, which made nothing:
 * `print(X)` or `def f` is no title for an older tensor). */
static bool take_value(struct prompt *p, const char *stmt)
{
	struct session_value v;
	if (!session_last_value(p->session, &v))
		return false;
	show_value(p, &v, "");
	if (stmt && !strchr(stmt, '\n'))
		name_value(p, stmt);
	return true;
}

/* Runs a typed line, all or nothing. */
static void run_line(struct app *a, const char *line)
{
	struct prompt *p = &a->prompt;
	strbuf_reset(&printed);
	struct qkv_error err;
	if (run_src(a, line, strlen(line), &err) != SESSION_OK) {
		set_run_error(p, err.col, &err);	/* nothing of the line counts */
		put_back(p, line);	/* it stays in the input for fixing */
		return;
	}
	after_run(a);
	take_value(p, line);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The lines of src (len bytes) into the printed text as they were typed,
 * after ">>> " and "... ", blank lines around them left out. */
static void echo_lines(const char *src, size_t len)
{
	while (len > 0 && blank(src[len - 1]))
		len--;
	size_t b = 0;
	for (size_t i = 0; i < len; i++) {
		if (src[i] == '\n')
			b = i + 1;
		else if (src[i] != ' ' && src[i] != '\t' && src[i] != '\r')
			break;
	}
	for (bool first = true; b < len; first = false) {
		const char *nl = memchr(src + b, '\n', len - b);
		size_t e = nl ? (size_t)(nl - src) : len;
		strbuf_puts(&printed, first ? ">>> " : "... ");
		strbuf_putn(&printed, src + b, e - b);
		strbuf_putc(&printed, '\n');
		b = e + 1;
	}
}

/* Runs a block or a pasted cell (whole lines) as a notebook runs a cell: one
 * statement, with the lines that belong to it, at a time, each all or
 * nothing, echoed as typed in the printed text. The first that fails stops
 * it and goes back in the input with the lines after it, the caret on its
 * failing line (error_row); the ones before it stay done. */
static void run_cell(struct app *a, const char *src, size_t len)
{
	struct prompt *p = &a->prompt;
	strbuf_reset(&printed);
	size_t off = 0;
	bool ran = false;
	while (off < len) {
		size_t end;
		if (statements_first(src + off, len - off, &end) == STATEMENTS_NONE)
			break;
		size_t before = printed.len;
		echo_lines(src + off, end);
		size_t echoed = printed_total;
		struct qkv_error err;
		if (run_src(a, src + off, end, &err) != SESSION_OK) {
			bool printing = printed_total > echoed;
			if (!printing) {	/* it printed nothing: it is in the input, not above */
				printed.len = before;
				printed.s[before] = 0;
			}
			if (ran || printing) {	/* what ran, and what this one printed */
				if (ran)
					after_run(a);
				free(p->out);
				p->out = xstrdup(printed.s);
			}
			/* from the failing statement's first line on, back in the input */
			size_t b = off;
			int skipped = 0;
			for (size_t i = off; i < off + end; i++) {
				if (src[i] == '\n') {
					b = i + 1;
					skipped++;
				} else if (src[i] != ' ' && src[i] != '\t' && src[i] != '\r') {
					break;
				}
			}
			set_run_error(p, err.col, &err);
			size_t n = len - b;
			while (n > 0 && blank(src[b + n - 1]))
				n--;
			char *back = xstrndup(src + b, n);
			in.error_row = strchr(back, '\n') && p->error_col ? err.line - skipped : 0;
			put_back(p, back);
			free(back);
			return;
		}
		ran = true;
		/* the value it made, by its name when it is one line: the last
		 * statement that made one is the one shown */
		size_t b = 0, n = end;
		while (b < n && blank(src[off + b]))
			b++;
		while (n > b && blank(src[off + n - 1]))
			n--;
		char *one = xstrndup(src + off + b, n - b);
		take_value(p, one);
		free(one);
		off += end;
	}
	after_run(a);
}

/* :show EXPR computes EXPR (twice for :show EXPR loops, the loops taking
 * long): on the worker thread (ui/job.c), drawn meanwhile, its progress
 * shown and Ctrl-C stopping it, as a line does. */
struct show_call {
	struct session *s;
	const char *expr;
	bool loops;
	struct compare c;          /* loops */
	struct session_value v;    /* else */
	struct qkv_error err;
	int rc;
};

static void show_call(void *ctx)
{
	struct show_call *c = ctx;
	if (c->loops)
		c->rc = session_compare(c->s, c->expr, &c->c, &c->err);
	else
		c->rc = session_show(c->s, c->expr, &c->v, &c->err);
}

static void show_loops(struct app *a, struct compare c, const char *expr)
{
	struct prompt *p = &a->prompt;
	struct session_value v = { tensor_ref(c.simd), NULL };
	show_value(p, &v, expr);
	drop_loops(p);
	p->loops = xmalloc(sizeof *p->loops);
	*p->loops = c;
	loops_play(&p->anim, c.simd);	/* it runs at once; Tab gives its keys */
}

static void clear_view(struct prompt *p)
{
	drop_shown(p);
	drop_loops(p);
	free(p->out);
	p->out = NULL;
}

static void cmd_show(struct app *a, char *arg, int argcol)
{
	struct prompt *p = &a->prompt;
	size_t n = strlen(arg);
	while (n && arg[n - 1] == ' ')
		arg[--n] = 0;
	bool loops = n > 6 && strcmp(arg + n - 6, " loops") == 0;
	if (loops)
		arg[n - 6] = 0;
	if (!arg[0]) {
		set_error(p, argcol, ":show needs a name or an expression: :show W");
		return;
	}
	struct show_call c = { .s = p->session, .expr = arg, .loops = loops };
	struct job j = { .kind = JOB_CALL, .fn = show_call, .ctx = &c };
	in.showing = true;
	job_run(a, &j);
	in.showing = false;
	prompt_view_forget(p);	/* (an expression may change a value in place) */
	if (c.rc < 0) {
		set_run_error(p, argcol + (c.err.col > 0 ? c.err.col - 1 : 0), &c.err);
		return;
	}
	if (loops) {
		show_loops(a, c.c, arg);
		return;
	}
	show_value(p, &c.v, arg);
	drop_loops(p);
}

static void cmd_exercise(struct prompt *p, bool solution)
{
	if (!p->step || p->step->nexercises == 0) {
		snprintf(p->message, sizeof p->message, "This step has no exercise.");
		return;
	}
	int k = 0;
	while (k < p->step->nexercises - 1 && session_exercise_solved(p->session, k))
		k++;
	const struct exercise *x = &p->step->exercises[k];
	if (solution) {
		struct strbuf sb;
		strbuf_init(&sb);
		strbuf_printf(&sb, "A solution:\n%s", x->solution);
		show_listing(p, sb.s);
		strbuf_free(&sb);
	} else if (x->nhints == 0) {
		snprintf(p->message, sizeof p->message, "No hint for this one: :solution shows it.");
	} else {
		snprintf(p->message, sizeof p->message, "Hint: %s", x->hints[p->hint < x->nhints ? p->hint : x->nhints - 1]);
		if (p->hint < x->nhints)
			p->hint++;
	}
}

static void cmd_save(struct app *a, const char *file, bool overwrite, int argcol)
{
	struct prompt *p = &a->prompt;
	if (!file[0]) {
		set_error(p, argcol, ":save needs a file name: :save my-session.json");
		return;
	}
	/* the lesson's code up to this step, then what was typed */
	int n = 0;
	if (a->lesson)
		for (int s = 0; s <= p->step_index && s < a->lesson->nsteps; s++)
			n += a->lesson->steps[s].nlines;
	const char **lines = xcalloc((size_t)n + 1, sizeof *lines);
	n = 0;
	if (a->lesson)
		for (int s = 0; s <= p->step_index && s < a->lesson->nsteps; s++)
			for (int l = 0; l < a->lesson->steps[s].nlines; l++)
				lines[n++] = a->lesson->steps[s].lines[l].text;
	struct qkv_error err;
	if (session_save(p->session, file, overwrite, "A qkv session", lines, n, &err) < 0)
		set_error(p, argcol, err.msg);
	else
		snprintf(p->message, sizeof p->message, "Saved %.150s (qkv check %.150s reproduces it).", file, file);
	free(lines);
}

static void cmd_load(struct app *a, const char *file, int argcol)
{
	struct prompt *p = &a->prompt;
	if (!file[0]) {
		set_error(p, argcol, ":load needs a file: :load notes.qkv");
		return;
	}
	strbuf_reset(&printed);
	struct run_call c = { .file = file };
	if (run_job(a, &c) < 0) {
		set_error(p, argcol, c.err.msg);
		/* raised inside a function (of the file, or typed earlier): its
		 * line with the caret, from the code as it ran (for a lesson, its
		 * statements, not the JSON around them), as qkv eval shows it */
		size_t len;
		struct qkv_error ran;
		const char *code = session_load_failure(p->session, &len, &ran);
		if (code && strchr(ran.msg, '\n')) {
			struct errline_source src = { code, len, 1 };
			find_function_line(p, &src, &ran);
		}
		return;
	}
	after_run(a);
	take_value(p, NULL);
	snprintf(p->message, sizeof p->message, "Loaded %.300s.", file);
}

/* :export NAME FILE (and :export!): export/command.h's, on ui/job's worker
 * as :show's computation, so Ctrl-C stops a long expression. */
struct export_call {
	struct session *s;
	const struct command *c;
	char done[400];
	struct qkv_error err;
	int rc;
};

static void export_call(void *ctx)
{
	struct export_call *x = ctx;
	x->rc = export_command(x->s, x->c, NULL, x->done, sizeof x->done, &x->err);
}

static void cmd_export(struct app *a, const struct command *c)
{
	struct prompt *p = &a->prompt;
	struct export_call x = { .s = p->session, .c = c };
	struct job j = { .kind = JOB_CALL, .fn = export_call, .ctx = &x };
	in.showing = true;
	job_run(a, &j);
	in.showing = false;
	prompt_view_forget(p);	/* (an expression may change a value in place) */
	if (x.rc < 0)
		set_error(p, x.err.col, x.err.msg);
	else
		snprintf(p->message, sizeof p->message, "%s", x.done);
}

/* A ':' line: the command word, then its argument from column argcol
 * (lesson/commands parses it, as qkv repl's does). */
static void run_command(struct app *a, const char *line)
{
	struct prompt *p = &a->prompt;
	struct command c;
	command_parse(line, &c);
	char *arg = c.arg;
	int argcol = c.argcol;
	free(p->listing);
	p->listing = NULL;
	struct qkv_error err;
	if (!command_check(&c, COMMAND_SCREEN, &err)) {
		set_error(p, err.col, err.msg);
		return;
	}
	switch (c.id) {
	case CMD_QUIT:
		prompt_close(a);
		break;
	case CMD_LS:
		cmd_ls(p);
		break;
	case CMD_HELP:
		cmd_help(a, arg, argcol);
		break;
	case CMD_CLEAR:
		clear_view(p);
		p->message[0] = 0;
		break;
	case CMD_RESET: {
		bool copy = session_reset(p->session);	/* a :save after this holds only what follows */
		clear_view(p);
		snprintf(p->message, sizeof p->message, "%s", copy ? "The workspace is the step's again." :
			 "The workspace is empty again.");
		break;
	}
	case CMD_SHOW:
		cmd_show(a, arg, argcol);
		break;
	case CMD_HINT:
	case CMD_SOLUTION:
		cmd_exercise(p, c.id == CMD_SOLUTION);
		break;
	case CMD_SAVE:
	case CMD_SAVE_FORCE:
		cmd_save(a, arg, c.id == CMD_SAVE_FORCE, argcol);
		break;
	case CMD_LOAD:
		cmd_load(a, arg, argcol);
		break;
	case CMD_EXPORT:
	case CMD_EXPORT_FORCE:
		cmd_export(a, &c);
		break;
	case CMD_UNKNOWN:
		break;	/* command_check said so */
	}
}

/* Called with the block when a line was added to it: runs it once it is
 * finished (session_is_complete, or, for several lines at once, a cell
 * whose end ends its blocks), else the next line continues it after
 * "... ", indented (lesson/statements). */
static void take_block(struct app *a, bool cell)
{
	bool done;
	if (cell) {
		strbuf_putc(&in.block, '\n');	/* the end of a pasted cell ends its blocks */
		done = session_is_complete(in.block.s, in.block.len);
		in.block.s[--in.block.len] = 0;
	} else {
		done = session_is_complete(in.block.s, in.block.len);
	}
	if (!done) {
		rl_set_prompt("... ");
		lineedit_offer_indent(in.block.s, in.block.len);
		return;
	}
	rl_set_prompt(">>> ");
	size_t len = in.block.len;
	char *src = strbuf_detach(&in.block);
	strbuf_init(&in.block);
	lineedit_history_add(src);	/* a block is one entry: Up brings it back whole */
	if (memchr(src, '\n', len) == src + len - 1) {
		src[len - 1] = 0;
		run_line(a, src);
	} else {
		run_cell(a, src, len);
	}
	free(src);
}

static void on_line(char *line)
{
	struct app *a = cur;
	struct prompt *p = &a->prompt;
	if (dropping || paste_cell) {	/* Ctrl-C's (drop_line), or a paste's (end_paste) */
		free(line);
		if (paste_cell)
			take_block(a, true);
		return;
	}
	clear_error(p);
	forget_matches();
	if (!line) {	/* Ctrl-D: on an empty line it leaves; in a block, it ends the block */
		if (!in.block.len) {
			prompt_close(a);
			return;
		}
		line = xstrdup("");
	}
	const char *s = line + strspn(line, " \t");
	bool several = strchr(line, '\n') != NULL;	/* from the history, or a fix put back */
	if (!in.block.len && !several && *s == ':') {
		lineedit_history_add(line);
		run_command(a, line);
		if (a->prompt.open && a->prompt.error[0])
			put_back(p, line);	/* the line stays in the input for fixing */
		free(line);
		return;
	}
	if (!in.block.len && !*s && !several) {
		free(line);
		return;
	}
	strbuf_puts(&in.block, *s ? line : "");	/* a line of only indentation is empty */
	strbuf_putc(&in.block, '\n');
	free(line);
	take_block(a, several);
}

/* Bracketed paste (term.c asks the terminal for it): the pasted text comes
 * between ESC[200~ and ESC[201~. Text of one line goes into the line; text
 * of several runs at once with the line and any block typed before it, as
 * a cell. */
static const char paste_begin[] = "\033[200~", paste_end[] = "\033[201~";

/* Appends the whole UTF-8 characters of s (n bytes) to out, leaving out
 * bytes that make none. */
static void put_valid_utf8(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		int k = utf8_decode(s + i, n - i, &cp);
		if (!(k == 1 && cp == 0xfffd))
			strbuf_putn(out, s + i, (size_t)k);
		i += (size_t)k;
	}
}

static void end_paste(struct app *a)
{
	struct prompt *p = &a->prompt;
	pasting = false;
	struct strbuf text;
	strbuf_init(&text);
	size_t len = 0;
	for (size_t i = 0; i < paste.len; i++) {
		char c = paste.s[i];
		if (c == '\r' && i + 1 < paste.len && paste.s[i + 1] == '\n')
			continue;
		paste.s[len++] = c == '\r' ? '\n' : c;
	}
	put_valid_utf8(&text, paste.s ? paste.s : "", len);	/* (see take_utf8) */
	strbuf_reset(&paste);
	/* the text goes into the line itself: a search (whose line is its own,
	 * and which readline keeps copies of) ends first */
	end_readline_state(a);
	if (!strchr(text.s, '\n')) {
		rl_insert_text(text.s);
		strbuf_free(&text);
		return;
	}
	clear_error(p);
	forget_matches();
	strbuf_putn(&in.block, rl_line_buffer, (size_t)rl_point);
	strbuf_puts(&in.block, text.s);
	strbuf_puts(&in.block, rl_line_buffer + rl_point);
	if (in.block.s[in.block.len - 1] != '\n')
		strbuf_putc(&in.block, '\n');
	strbuf_free(&text);
	rl_delete_text(0, rl_end);	/* undoably: the undo list stays true to the line */
	rl_point = 0;
	if (accept_line_key()) {
		/* the line ends as on Enter (readline changed a line it had in
		 * the middle of editing, after a statement failed, and later met
		 * its undo list freed), and on_line runs the cell; a statement
		 * that fails goes back into the next line */
		paste_cell = true;
		feed_bytes(a, "\n", 1);
		paste_cell = false;
		return;
	}
	take_block(a, true);
	lineedit_take_next();	/* the line goes on: what the next one starts with, now */
	prompt_cursor_to_error(a);
}

/* ---- opening, keys, drawing ------------------------------------------------------ */

void prompt_open(struct app *a, struct interp *from, const struct step *st, int step_index)
{
	struct prompt *p = &a->prompt;
	if (!p->open) {
		p->session = from ? session_new_copy(from) : session_new(a->opt.variant, 0);
		session_set_interrupt(p->session, term_interrupt_flag());	/* Ctrl-C stops a line */
		session_set_output(p->session, capture, NULL);
		if (st)
			session_set_exercises(p->session, st->exercises, st->nexercises);
		p->step = st;
		p->step_index = step_index;
		p->hint = 0;
		if (!printed.s) {
			strbuf_init(&printed);
			strbuf_init(&in.block);
			strbuf_init(&paste);
		}
	}
	p->open = true;
	cur = a;
	readline_start();
	if (st && st->nexercises)
		snprintf(p->message, sizeof p->message, "%s: %s", exercise_kind(&st->exercises[0]), st->exercises[0].ask);
}

void prompt_close(struct app *a)
{
	struct prompt *p = &a->prompt;
	if (!p->open)
		return;
	rl_callback_handler_remove();
	strbuf_reset(&in.block);
	lineedit_set_next(NULL);
	pasting = false;
	esc_len = 0;
	clear_error(p);
	forget_matches();
	key_note[0] = 0;
	prompt_history_save();
	session_free(p->session);
	clear_view(p);
	free(p->listing);
	memset(p, 0, sizeof *p);
	if (a->screen == SCREEN_REPL)
		a->quit = true;
}

/* Whether readline edits in vi mode (`set editing-mode vi` in ~/.inputrc or
 * $INPUTRC, or M-C-j since): rl_editing_mode is 1 in emacs mode, 0 in vi. */
static bool vi_editing(void)
{
	return readline_ready && rl_editing_mode == 0;
}

static void feed_key(struct app *a, int ch);

/* A note for a key that acts on the prompt as a whole (Ctrl-C, Esc), shown
 * in the message line until the next key, which brings back what it hid
 * (key_note, before_note). */
static void show_note(struct prompt *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void show_note(struct prompt *p, const char *fmt, ...)
{
	if (!key_note[0])
		memcpy(before_note, p->message, sizeof before_note);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(key_note, sizeof key_note, fmt, ap);
	va_end(ap);
	memcpy(p->message, key_note, sizeof key_note);
}

/* The next key: the message the note hid comes back (unless something
 * else was said since). */
static void end_note(struct prompt *p)
{
	if (key_note[0] && strcmp(p->message, key_note) == 0)
		memcpy(p->message, before_note, sizeof before_note);
	key_note[0] = 0;
}

/* Drops the line and the block being typed, whatever readline was in the
 * middle of (a search, an argument), as Python's KeyboardInterrupt at the
 * prompt does, and the error shown; "block", "line", or NULL when nothing
 * was typed. */
static const char *drop_input(struct app *a)
{
	const char *what = in.block.len ? "block" : rl_end > 0 || RL_ISSTATE(RL_STATE_ISEARCH | RL_STATE_NSEARCH) ?
			   "line" : NULL;
	strbuf_reset(&in.block);
	lineedit_set_next(NULL);	/* (before the new line takes it) */
	drop_line(a);
	pasting = false;
	esc_len = 0;
	clear_error(&a->prompt);
	forget_matches();
	return what;
}

/* Ctrl-C while no line runs (a running one is stopped by the interpreter
 * and fails with "interrupted (Ctrl-C)"): the line being typed is dropped,
 * as a shell or Python does; while the loop animation of :show EXPR loops
 * runs, it stops that instead. It never closes the prompt. */
void prompt_interrupt(struct app *a)
{
	struct prompt *p = &a->prompt;
	cur = a;
	if (p->anim.running) {
		/* the loop animation of :show EXPR loops stops; the line stays */
		p->anim.running = false;
		show_note(p, "Ctrl-C: the animation stopped. (%s)", p->view_focus ? "r runs it on" : "Tab, then r, runs it on");
		return;
	}
	const char *what = drop_input(a);
	show_note(p, "Ctrl-C: %s cleared. (Ctrl-C stops a line that runs; %s.)", what ? what : "line",
		  a->screen == SCREEN_REPL ? ":quit or Ctrl-D leaves"
		  : vi_editing()           ? ":quit or Ctrl-D closes the prompt"	/* Esc is vi's */
					   : "Esc closes the prompt");
}

void prompt_escape(struct app *a)
{
	struct prompt *p = &a->prompt;
	cur = a;
	if (vi_editing()) {
		/* Esc is vi's own: from insert to command mode (0, i, ...); the
		 * prompt closes with :quit or Ctrl-D, Ctrl-C clears the line */
		forget_matches();
		end_note(p);
		feed_key(a, 27);
		return;
	}
	if (a->screen != SCREEN_REPL) {
		prompt_close(a);
		return;
	}
	p->view_focus = false;	/* the keys go back to the line */
	const char *what = drop_input(a);
	if (what)
		show_note(p, "Esc: %s cleared. (:quit or Ctrl-D on an empty line leaves qkv.)", what);
	else
		show_note(p, "Nothing to clear: :quit or Ctrl-D leaves qkv.");
}

/* Feeds one curses key to readline as the bytes a terminal would send; with
 * the view's focus (Tab on an empty line), to the view first. The brackets
 * of a paste are taken out first: ESC and what follows it wait until it is
 * clear whether they begin one. */
void prompt_key(struct app *a, int ch)
{
	forget_matches();	/* listed until the next key (a Tab lists them again) */
	end_note(&a->prompt);
	const char *want = pasting ? paste_end : paste_begin;
	if (ch == 27 || esc_len) {
		if (ch >= 0 && ch < 256 && (size_t)esc_len < strlen(want) && want[esc_len] == (char)ch) {
			esc_seq[esc_len++] = (char)ch;
			if ((size_t)esc_len < strlen(want))
				return;
			esc_len = 0;
			if (pasting) {
				end_paste(a);
			} else {
				pasting = true;
				strbuf_reset(&paste);
			}
			return;
		}
		/* a key curses did not know (ESC [ 3 O): its escape sequence is
		 * left out whole, as a terminal's unknown key; fed to readline a
		 * byte at a time, it walked readline's key sequences in vi mode
		 * into a crash (the key fuzzer's, seed 21) */
		if (!pasting && esc_len >= 2 && esc_seq[1] == '[' && ch >= 0x20 && ch <= 0x7e) {
			if (ch >= 0x40 || esc_len == (int)sizeof esc_seq) {
				esc_len = 0;	/* its last byte, or longer than any key's */
				return;
			}
			esc_seq[esc_len++] = (char)ch;	/* a parameter */
			return;
		}
		/* not a bracket: the keys held back go on as they came, except
		 * an escape sequence cut short (ESC [ 1 ' then a control key),
		 * left out as a whole one is: readline 8.2 in callback mode
		 * crashes on ESC [ 1 ' in vi's command mode (the key fuzzer's
		 * seed 51), so ESC [ reaches it only as the keys feed_key
		 * spells */
		char held[sizeof esc_seq];
		int n = esc_len;
		memcpy(held, esc_seq, sizeof held);
		esc_len = 0;
		if (!pasting && n >= 2 && held[1] == '[')
			n = 0;
		for (int i = 0; i < n; i++) {
			if (pasting)
				strbuf_putc(&paste, held[i]);
			else
				feed_key(a, (unsigned char)held[i]);
		}
		if (ch == 27) {
			prompt_key(a, ch);
			return;
		}
	}
	if (pasting) {
		if (ch == KEY_ENTER || ch == '\r' || ch == '\n')
			strbuf_putc(&paste, '\n');
		else if (ch == '\t' || (ch >= ' ' && ch < 256))
			strbuf_putc(&paste, (char)ch);
		return;
	}
	feed_key(a, ch);
}

/* readline 8.2 in callback mode crashes (a NULL pointer in
 * rl_callback_read_char; Python's readline module crashes the same way) when
 * a key that begins a key sequence, such as Ctrl-X, comes in an incremental
 * search (Ctrl-R Ctrl-X a): the search ends on it and hands it and the key
 * after it back to readline, which loses its place. Readline means such a
 * key to end the search and then start its sequence in the line: this ends
 * the search first (keeping the line found, as Esc does), and the key then
 * goes to the line. */
static void end_search_before_prefix(unsigned char c)
{
	if (!RL_ISSTATE(RL_STATE_ISEARCH))
		return;
	bool ends_search = (c < 32 || c >= 127) && c != 7;	/* a control or meta key, not Ctrl-G */
	/* Esc ends a search by itself, unless ~/.inputrc sets other terminators */
	bool terminator = c == 27 && !rl_variable_value("isearch-terminators");
	if (ends_search && !terminator && rl_get_keymap()[c].type == ISKMAP)
		rl_callback_sigcleanup();
}

/* UTF-8 comes from curses a byte at a time: a character goes to readline
 * whole, and bytes that make none (a stray byte, a character cut short) are
 * left out: readline's vi-mode % (match bracket) looped forever on a line
 * holding "\xe4\xb8" (the key fuzzer's seed 52). True when ch was taken so. */
static char mb[4];
static int mb_len, mb_want;

static int utf8_length(int lead)
{
	return lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xc2 && lead <= 0xdf ? 2 : 0;
}

static bool take_utf8(struct app *a, int ch)
{
	if (ch < 0x80 || ch > 0xff) {
		mb_len = 0;	/* anything else ends a character cut short */
		return false;
	}
	if (mb_len && (ch & 0xc0) == 0x80) {
		mb[mb_len++] = (char)ch;
		if (mb_len < mb_want)
			return true;
		uint32_t cp;
		int n = utf8_decode(mb, (size_t)mb_len, &cp);
		mb_len = 0;
		if (n == mb_want)
			feed_bytes(a, mb, (size_t)n);
		return true;
	}
	mb_want = utf8_length(ch);
	mb_len = 0;
	if (mb_want)
		mb[mb_len++] = (char)ch;
	return true;
}

static void feed_key(struct app *a, int ch)
{
	struct prompt *p = &a->prompt;
	if (p->view_focus || (ch == '\t' && rl_end == 0 && !in.block.len)) {
		if (prompt_view_key(a, ch))
			return;
		p->view_focus = false;	/* any other key goes to the line */
	}
	if (take_utf8(a, ch))
		return;
	const char *seq = NULL;
	char one[2] = { 0, 0 };
	switch (ch) {
	case KEY_UP: seq = "\033[A"; break;
	case KEY_DOWN: seq = "\033[B"; break;
	case KEY_RIGHT: seq = "\033[C"; break;
	case KEY_LEFT: seq = "\033[D"; break;
	case KEY_HOME: seq = "\033[H"; break;
	case KEY_END: seq = "\033[F"; break;
	case KEY_DC: seq = "\033[3~"; break;
	case KEY_BACKSPACE: seq = "\177"; break;
	case KEY_ENTER: seq = "\n"; break;
	default:
		if (ch < 0 || ch > 255)
			return;
		one[0] = (char)ch;
		seq = one;
		if (ch == 0)
			return;
	}
	end_search_before_prefix((unsigned char)seq[0]);
	feed_bytes(a, seq, strlen(seq));
}
