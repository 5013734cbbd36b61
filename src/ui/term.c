/* term.c: the terminal: curses setup and teardown, signals that must restore
 * the terminal, colour pairs allocated on demand, UTF-8 text output. The only
 * file that starts or ends curses; every exit path goes through term_stop. */
#include "ui/internal.h"
#include "core/mem.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <unistd.h>
#include <wchar.h>

static volatile sig_atomic_t signalled;
static bool started;
static bool utf8;	/* the locale is UTF-8: draw lines with box characters */

static void on_signal(int sig)
{
	signalled = sig;
}

bool term_signalled(void)
{
	return signalled != 0;
}

void term_stop(void)
{
	if (started) {
		started = false;
		endwin();
	}
}

/* Leaving: the terminal is restored and nothing more will be drawn, so
 * leave its session too. Otherwise, when its window closes after this
 * point, a hangup's SIGCONT (or the one the kernel sends to a process group
 * orphaned by the shell's exit) can arrive in the middle of what runs at
 * exit: LeakSanitizer's check stops the process with ptrace, SIGCONT cancels
 * that stop, and the process spins for ever. A process that is no group's
 * leader starts a session of its own; a session's leader gives up the
 * terminal, which sends any hangup signals at once, while harmless. */
void term_detach(void)
{
	if (setsid() < 0 && getsid(0) == getpid() && isatty(STDIN_FILENO))
		ioctl(STDIN_FILENO, TIOCNOTTY);
}

/* Out of memory: put the terminal back before mem.c prints and exits. */
static void oom_hook(void)
{
	term_stop();
}

void term_start(struct app *a)
{
	setlocale(LC_ALL, "");
	const char *cs = nl_langinfo(CODESET);
	utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	mem_set_oom_hook(oom_hook);
	initscr();
	started = true;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	term_cursor(false);
	term_cursor_apply();
	timeout(100);	/* ticks for the animation and for signals */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	set_escdelay(25);
	int colors = 0;
	if (has_colors()) {
		start_color();
		use_default_colors();
		colors = COLORS;
	}
	a->cmode = palette_mode(getenv("NO_COLOR"), a->opt.no_color, getenv("COLORTERM"), colors);
	a->direct_color = a->cmode == COLOR_TRUE && tigetflag("RGB") > 0;
	if (a->cmode == COLOR_TRUE && !a->direct_color)
		a->cmode = COLOR_256;	/* the terminfo cannot take 24-bit numbers */
	getmaxyx(stdscr, a->rows, a->cols);
}

/* ---- colour pairs, allocated as cells need them ------------------------------ */

#define PAIR_SLOTS 4096

static struct {
	int fg, bg;
	short pair;
} pairs[PAIR_SLOTS];
static int npairs;

static int color_number(struct app *a, struct rgb c)
{
	switch (a->cmode) {
	case COLOR_TRUE: return (c.r << 16) | (c.g << 8) | c.b;
	case COLOR_256: return palette_index256(c);
	case COLOR_16: return palette_index16(c, false);
	case COLOR_8: return palette_index16(c, true);
	default: return -1;
	}
}

static short pair_for(int fg, int bg)
{
	for (int i = 0; i < npairs; i++)
		if (pairs[i].fg == fg && pairs[i].bg == bg)
			return pairs[i].pair;
	if (npairs >= PAIR_SLOTS || npairs + 1 >= COLOR_PAIRS)
		npairs = 0;	/* start over: old pairs are redefined */
	short p = (short)(npairs + 1);
	init_extended_pair(p, fg, bg);
	pairs[npairs].fg = fg;
	pairs[npairs].bg = bg;
	pairs[npairs].pair = p;
	npairs++;
	return p;
}

short term_pair(struct app *a, struct rgb fg, const struct rgb *bg)
{
	if (a->cmode == COLOR_NONE)
		return 0;
	return pair_for(color_number(a, fg), bg ? color_number(a, *bg) : -1);
}

attr_t term_cell_attr(struct app *a, struct rgb bg, short *pair)
{
	*pair = 0;
	if (a->cmode == COLOR_NONE)
		return A_NORMAL;
	struct rgb fg = palette_text_on(bg);
	*pair = pair_for(color_number(a, fg), color_number(a, bg));
	return A_NORMAL;
}

/* ---- text ------------------------------------------------------------------ */

int term_width_of(const char *s)
{
	int w = 0;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	const char *p = s;
	while (*p) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, p, strlen(p), &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			p++;
			w++;
			memset(&st, 0, sizeof st);
			continue;
		}
		int cw = wcwidth(wc);
		w += cw > 0 ? cw : 0;
		p += n;
	}
	return w;
}

void term_put(int y, int x, const char *s, int maxw)
{
	if (maxw <= 0 || y < 0 || x < 0)
		return;
	/* cut to maxw columns at a character boundary */
	mbstate_t st;
	memset(&st, 0, sizeof st);
	const char *p = s;
	int w = 0;
	size_t bytes = 0;
	while (p[bytes]) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, p + bytes, strlen(p + bytes), &st);
		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			n = 1;
			wc = L'?';
			memset(&st, 0, sizeof st);
		}
		int cw = wcwidth(wc);
		cw = cw > 0 ? cw : 0;
		if (w + cw > maxw)
			break;
		w += cw;
		bytes += n;
	}
	mvaddnstr(y, x, s, (int)bytes);
}

/* ---- lines ------------------------------------------------------------------ */

void term_hline(int y, int x, int n)
{
	if (!utf8) {
		mvhline(y, x, ACS_HLINE, n);
		return;
	}
	for (int i = 0; i < n; i++)
		mvaddstr(y, x + i, "\u2500");
}

void term_vline(int y, int x, int n)
{
	if (!utf8) {
		mvvline(y, x, ACS_VLINE, n);
		return;
	}
	for (int i = 0; i < n; i++)
		mvaddstr(y + i, x, "\u2502");
}

void term_box(int y, int x, int h, int w)
{
	term_hline(y, x + 1, w - 2);
	term_hline(y + h - 1, x + 1, w - 2);
	term_vline(y + 1, x, h - 2);
	term_vline(y + 1, x + w - 1, h - 2);
	if (utf8) {
		mvaddstr(y, x, "\u250c");
		mvaddstr(y, x + w - 1, "\u2510");
		mvaddstr(y + h - 1, x, "\u2514");
		mvaddstr(y + h - 1, x + w - 1, "\u2518");
	} else {
		mvaddch(y, x, ACS_ULCORNER);
		mvaddch(y, x + w - 1, ACS_URCORNER);
		mvaddch(y + h - 1, x, ACS_LLCORNER);
		mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
	}
}

/* The cursor is hidden by each frame and shown again by the prompt: ask
 * curses only when the frame's wish differs from the last one, so an idle
 * screen sends nothing to the terminal (over SSH too). */
static bool cursor_wanted;
static int cursor_shown = -1;

void term_cursor(bool visible)
{
	cursor_wanted = visible;
}

void term_cursor_apply(void)
{
	if ((int)cursor_wanted != cursor_shown) {
		curs_set(cursor_wanted ? 1 : 0);
		cursor_shown = cursor_wanted;
	}
}
