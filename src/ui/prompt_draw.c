/* prompt_draw.c: where the full screen's prompt goes and how it is drawn:
 * the message above it, the block typed so far, readline's line (several
 * rows when it came back from the history or an error, the cursor's row
 * scrolled sideways to keep it in view), the caret under a mistake with
 * the message beside it or wrapped below, the line of a function an error
 * was raised in, and the matches Tab listed, as readline lists them. What
 * it draws is prompt.c's state (prompt_input.h). */
#include "ui/prompt_input.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of the character at s (1 for a byte that begins none). */
static size_t char_bytes(const char *s)
{
	uint32_t cp;
	int n = utf8_decode(s, strlen(s), &cp);
	return n > 0 ? (size_t)n : 1;
}

/* The columns the first n bytes of s take on the screen, as drawn (a
 * character's ASCII twin where the locale is not UTF-8): the cursor stands
 * after them, not n columns in. */
static int columns_of(const char *s, size_t n)
{
	char *part = xstrndup(s, n);
	int w = term_width_of(part);
	free(part);
	return w;
}

/* ---- where the input and its error go ------------------------------------------- */

/* The lines of the input: the block typed so far (its last lines, after
 * ">>> " and "... ") above readline's line, which holds several when it
 * came back from the history or an error. */
static int count_lines(const char *s)
{
	int n = 1;
	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

static int rows_cap(const struct app *a)
{
	return a->rows / 3 > 2 ? a->rows / 3 : 2;
}

static int block_rows(const struct app *a)
{
	int n = in.block.len ? count_lines(in.block.s) - 1 : 0;	/* it ends with '\n' */
	return n < rows_cap(a) ? n : rows_cap(a);
}

static int input_rows(const struct app *a)
{
	int n = count_lines(rl_line_buffer);
	return n < rows_cap(a) ? n : rows_cap(a);
}

/* How readline's line is drawn: its rows, those shown (the cursor's among
 * them), and how far the cursor's row is scrolled sideways to keep the
 * cursor in view; the other rows are not scrolled. */
struct input_view {
	const char *buf;
	int nrows, shown, first;   /* rows of the line, rows shown, the first shown */
	int cur_row;               /* the cursor's */
	int cursor_col;            /* its column in its row, the row's prompt included, unscrolled */
	size_t skip;               /* bytes of the cursor's row (its prompt included) left of the screen */
	int skipped;               /* the columns they take */
};

/* The prompt before row r of the line: readline's (or its search's) on
 * the first, "... " on the others. */
static const char *row_prompt(int r)
{
	return r > 0 ? "... " : rl_display_prompt ? rl_display_prompt : ">>> ";
}

/* Row r of buf (n bytes long, without its '\n'). */
static const char *row_of(const char *buf, int r, int *n)
{
	for (; r > 0 && strchr(buf, '\n'); r--)
		buf = strchr(buf, '\n') + 1;
	*n = (int)strcspn(buf, "\n");
	return buf;
}

/* Row r as drawn before scrolling: its prompt, then its text. */
static void row_text(struct strbuf *sb, const char *buf, int r)
{
	int n;
	const char *l = row_of(buf, r, &n);
	strbuf_reset(sb);
	strbuf_puts(sb, row_prompt(r));
	strbuf_putn(sb, l, (size_t)n);
}

static void input_view(const struct app *a, struct input_view *v)
{
	int w = a->cols;
	memset(v, 0, sizeof *v);
	v->buf = rl_line_buffer ? rl_line_buffer : "";
	v->nrows = count_lines(v->buf);
	v->shown = input_rows(a);
	int line_at = 0;
	for (int i = 0; i < rl_point && v->buf[i]; i++)
		if (v->buf[i] == '\n') {
			v->cur_row++;
			line_at = i + 1;
		}
	v->first = v->cur_row >= v->shown ? v->cur_row - v->shown + 1 : 0;
	v->cursor_col = term_width_of(row_prompt(v->cur_row)) +
			columns_of(v->buf + line_at, (size_t)(rl_point > line_at ? rl_point - line_at : 0));
	int shift = v->cursor_col >= w - 1 ? v->cursor_col - (w - 2) : 0;
	if (shift > 0) {
		struct strbuf row;
		strbuf_init(&row);
		row_text(&row, v->buf, v->cur_row);
		while (row.s[v->skip] && v->skipped < shift) {
			size_t n1 = char_bytes(row.s + v->skip);
			v->skipped += columns_of(row.s + v->skip, n1);
			v->skip += n1;
		}
		strbuf_free(&row);
	}
}

/* Whether the line still holds the input the error is about, up to the
 * mistake and its first byte (or the whole input, for a mistake at its
 * end): the caret then belongs under it. Once that changed (Ctrl-U, a
 * line from the history, a search) the error is the last input's, shown
 * apart from the line, without a caret. */
static bool error_attached(void)
{
	const char *buf = rl_line_buffer ? rl_line_buffer : "";
	if (!in.error_input || RL_ISSTATE(RL_STATE_ISEARCH | RL_STATE_NSEARCH))
		return false;
	size_t len = strlen(in.error_input), n = in.error_at < len ? in.error_at + 1 : len;
	return strncmp(buf, in.error_input, n) == 0;
}

/* The screen column of the caret under the mistake, in the line as it is
 * drawn now (scrolled sideways, its first rows out of view), or -1 when
 * there is none to draw: an error without a column (a traceback), the line
 * no longer the input that failed, the mistake out of view. */
static int error_caret_x(const struct app *a)
{
	if (!a->prompt.error[0] || !a->prompt.error_col || !error_attached())
		return -1;
	struct input_view v;
	input_view(a, &v);
	int er = in.error_row > 0 ? in.error_row - 1 : 0;
	if (er >= v.nrows || er < v.first || er >= v.first + v.shown)
		return -1;
	int n;
	const char *l = row_of(v.buf, er, &n);
	size_t at = in.error_at - (size_t)(l - v.buf);	/* (the line is the input up to it) */
	int x = term_width_of(row_prompt(er)) + columns_of(l, at) - (er == v.cur_row ? v.skipped : 0);
	return x >= 0 && x < a->cols ? x : -1;
}

/* Just after the input that failed came back into the line, the cursor
 * at its end: when the caret would be out of view there (the line from the
 * mistake to its end is wider than the screen, or the mistake is on a row
 * of a long block not shown), the cursor goes to the mistake instead, and
 * the line scrolls to show it with the caret under it. */
void prompt_cursor_to_error(struct app *a)
{
	if (!in.error_fresh || !rl_line_buffer)
		return;
	in.error_fresh = false;
	if (!a->prompt.error_col || !error_attached() || error_caret_x(a) >= 0)
		return;
	rl_point = in.error_at <= (size_t)rl_end ? (int)in.error_at : rl_end;
}

/* The error's text as drawn: the message, or, once the line is no longer
 * the input it is about, the message as the last input's. */
static const char *error_text(const struct app *a)
{
	static char detached[sizeof ((struct prompt *)0)->error + 16];
	if (error_attached() || !a->prompt.error[0])
		return a->prompt.error;
	snprintf(detached, sizeof detached, "Last error: %s", a->prompt.error);
	return detached;
}

/* The error under the input: whether the message fits beside the caret,
 * and the lines the message takes below it (one blank if beside). */
static bool error_beside(const struct app *a)
{
	int x = error_caret_x(a);
	return x >= 0 && x + 2 + term_width_of(error_text(a)) <= a->cols;
}

/* The rows of the function's line an error was raised on and of its
 * caret, under the message (2), or 0 when there is none. */
static int error_fn_lines(void)
{
	return in.error_fn_text ? 2 : 0;
}

/* The lines the error may take: the message's, up to half the screen, less
 * the input's (a message naming a long path keeps its end), 4 at least (6
 * for a traceback), and the function's line with its caret. */
static int error_lines(const struct app *a)
{
	if (error_beside(a))
		return 1;
	const char *text = error_text(a);
	bool traceback = strchr(text, '\n') != NULL;
	int room = a->rows / 2 - block_rows(a) - input_rows(a) - error_fn_lines(), least = traceback ? 6 : 4;
	int cap = room > least ? room : least;
	int n = draw_wrapped(text, 0, 0, a->cols - 2, 0, 0, A_NORMAL);	/* counts, draws nothing */
	return (n < cap ? n : cap) + error_fn_lines();
}

/* The message above the input (an exercise's question may be long, and a
 * verdict comes before it): the lines it takes wrapped, all of them up to a
 * third of the screen (3 at least). */
static const char *message_text(const struct app *a)
{
	static char note[160];
	if (in.running || in.showing) {
		char done[96];
		job_progress_note(done, sizeof done);	/* after half a second: how far */
		snprintf(note, sizeof note, "Running...%s%s%s (Ctrl-C stops it; nothing of it is kept then)",
			 done[0] ? " [" : "", done, done[0] ? "]" : "");
		return note;
	}
	return a->prompt.message;
}

static int message_lines(const struct app *a)
{
	int n = draw_wrapped(message_text(a), 0, 0, a->cols - 2, 0, 0, A_NORMAL);	/* counts, draws nothing */
	int most = a->rows / 3 > 3 ? a->rows / 3 : 3;
	return n < 1 ? 1 : n < most ? n : most;
}

/* The matches Tab listed, under the input as readline lists them: sorted
 * down the columns, each column as wide as the widest match and 2 more,
 * as many columns as the width takes; at most rows_cap rows (fewer when
 * the rest of the prompt takes the screen), the last of them then saying
 * how many more there are. */
struct match_grid {
	int rows, cols, colw;      /* rows of matches */
	int shown;                 /* the matches shown (the first ones) */
	bool more;                 /* a row saying how many are not */
};

static void match_grid(const struct app *a, struct match_grid *g)
{
	memset(g, 0, sizeof *g);
	if (!in.nlisted)
		return;
	int widest = 0;
	for (int i = 0; i < in.nlisted; i++) {
		int w = term_width_of(in.listed[i]);
		widest = w > widest ? w : widest;
	}
	int room = a->cols - 2;	/* a column of margin each side, as the other lines */
	g->colw = widest + 2;
	g->cols = room / g->colw > 0 ? room / g->colw : 1;
	g->rows = (in.nlisted + g->cols - 1) / g->cols;
	/* a third of the screen, less when a long error takes the room */
	int others = message_lines(a) + block_rows(a) + input_rows(a) + (a->prompt.error[0] ? 1 + error_lines(a) : 0);
	int cap = rows_cap(a) < a->rows - 4 - others ? rows_cap(a) : a->rows - 4 - others;
	cap = cap > 2 ? cap : 2;
	if (g->rows > cap) {
		g->rows = cap - 1;
		g->more = true;
	}
	g->shown = g->rows * g->cols < in.nlisted ? g->rows * g->cols : in.nlisted;
	if (g->more) {	/* the columns only as many as the matches shown fill */
		g->cols = (g->shown + g->rows - 1) / g->rows;
	}
}

static int match_lines(const struct app *a)
{
	struct match_grid g;
	match_grid(a, &g);
	return g.rows + g.more;
}

/* Draws the listing from row y; the rows used. */
static int draw_matches(const struct app *a, int y)
{
	struct match_grid g;
	match_grid(a, &g);
	for (int r = 0; r < g.rows; r++) {
		move(y + r, 0);
		clrtoeol();
		for (int c = 0; c < g.cols; c++) {
			int i = c * g.rows + r;	/* down the columns */
			int x = 1 + c * g.colw;
			if (i < g.shown && x < a->cols - 1)
				term_put(y + r, x, in.listed[i], a->cols - 1 - x);
		}
	}
	if (g.more) {
		char more[96];
		snprintf(more, sizeof more, "\u2026 and %d more: type more of the name", in.nlisted - g.shown);
		move(y + g.rows, 0);
		clrtoeol();
		attron(A_DIM);
		term_put(y + g.rows, 1, more, a->cols - 2);
		attroff(A_DIM);
	}
	return g.rows + g.more;
}

/* The error goes under its line of a multi-line input when its caret is
 * drawn, else above the line, as for one line. */
static bool error_in_input(const struct app *a)
{
	return a->prompt.error[0] && in.error_row > 0 && input_rows(a) > 1 && error_caret_x(a) >= 0;
}

int prompt_lines(const struct app *a)
{
	const struct prompt *p = &a->prompt;
	if (!p->open)
		return 0;
	int n = message_lines(a) + block_rows(a) + input_rows(a) + match_lines(a);
	if (error_in_input(a))
		return n + 1 + (error_beside(a) ? 0 : error_lines(a));
	return n + (p->error[0] ? 1 + error_lines(a) : 0);
}

/* Under the message of an error raised inside a function, at y: the
 * function's line and the caret under its column (view/errline), fitted
 * to the width w less a column of margin each side. */
static void draw_fn_line(int y, int w)
{
	struct strbuf row, caret;
	strbuf_init(&row);
	strbuf_init(&caret);
	errline_fit(&in.error_fn, w - 2, &row, &caret);
	attroff(A_BOLD);
	term_put(y, 1, row.s, w - 2);
	attron(A_BOLD);
	term_put(y + 1, 1, caret.s, w - 2);
	strbuf_free(&row);
	strbuf_free(&caret);
}

/* The caret row at y and the message beside it or wrapped below; the rows used. */
static int draw_error(struct app *a, int y, bool below)
{
	int w = a->cols;
	int col = error_caret_x(a);
	const char *text = error_text(a);
	move(y, 0);
	clrtoeol();
	attron(A_BOLD);
	if (col >= 0)
		term_put(y, col, "^", 1);
	if (error_beside(a))
		term_put(y, col + 2, text, w - col - 2);
	y++;
	int rows = 1;
	if (!error_beside(a) || !below) {
		for (int i = 0; i < error_lines(a); i++) {
			move(y + i, 0);
			clrtoeol();
		}
		if (!error_beside(a)) {
			int ml = error_lines(a) - error_fn_lines();
			draw_wrapped(text, y, 1, w - 2, ml, 0, A_BOLD);
			if (in.error_fn_text)
				draw_fn_line(y + ml, w);
		}
		rows += error_lines(a);
	}
	attroff(A_BOLD);
	return rows;
}

void prompt_draw(struct app *a, int y)
{
	struct prompt *p = &a->prompt;
	int w = a->cols;
	/* the message (exercise, news) */
	int ml = message_lines(a);
	for (int i = 0; i < ml; i++) {
		move(y + i, 0);
		clrtoeol();
	}
	draw_wrapped(message_text(a), y, 1, w - 2, ml, 0, A_BOLD);
	y += ml;
	/* a caret under the failing column and the message beside it, or
	 * wrapped on the lines below when they do not fit side by side */
	if (p->error[0] && !error_in_input(a))
		y += draw_error(a, y, false);
	/* the block typed so far: its last lines */
	int br = block_rows(a), total = in.block.len ? count_lines(in.block.s) - 1 : 0;
	const char *l = in.block.s;
	for (int i = 0; i < total; i++) {
		const char *nl = strchr(l, '\n');
		if (i >= total - br) {
			char row[1024];
			snprintf(row, sizeof row, "%s%.*s", i == 0 ? ">>> " : "... ", (int)(nl - l), l);
			move(y, 0);
			clrtoeol();
			term_put(y++, 0, row, w);
		}
		l = nl + 1;
	}
	/* the input: readline's prompt (or its search prompt) and text, a line
	 * of it after another, the cursor's kept in view */
	struct input_view v;
	input_view(a, &v);
	struct strbuf row;
	strbuf_init(&row);
	int cy = y, cx = 0;
	for (int r = v.first; r < v.nrows && r < v.first + v.shown; r++) {
		row_text(&row, v.buf, r);
		size_t skip = 0;	/* bytes of row left of the screen */
		if (r == v.cur_row) {
			skip = v.skip;
			cy = y;
			cx = v.cursor_col - v.skipped;
		}
		move(y, 0);
		clrtoeol();
		term_put(y++, 0, row.s + skip, w);
		if (error_in_input(a) && r == in.error_row - 1)
			y += draw_error(a, y, true);
	}
	strbuf_free(&row);
	y += draw_matches(a, y);
	move(cy, cx);
	term_cursor(!p->view_focus);
}
