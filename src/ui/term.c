/* term.c: the terminal: curses setup and teardown (its size from the
 * terminal, not COLUMNS and LINES; XON/XOFF off), signals that must restore
 * the terminal (SIGINT, SIGTERM, SIGHUP through a flag the main loop reads;
 * a crash, SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, in its handler), Ctrl-C
 * during a computation, colour pairs allocated on demand, text output (UTF-8,
 * or its ASCII twin when the locale is not UTF-8; widths and cuts from
 * core/utf8, never from the locale).
 * The only file that starts or ends curses (after term_check found that it
 * can drive the terminal); every exit path goes through term_stop. */
#include "ui/internal.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static bool started;
static bool utf8;	/* the locale is UTF-8: text as it is, else its ASCII twin */
static struct strbuf ascii_buf;	/* the ASCII form of the text being drawn */

/* ---- SIGINT, SIGTERM, SIGHUP ---------------------------------------------------
 * The handler only sets flags. While a computation runs (term_busy) any of
 * them raises the interrupt flag the interpreter reads, so that it stops at
 * its next check; SIGTERM and SIGHUP, and SIGINT with nothing to cancel, also
 * ask the main loop to end (term_signal). */
static volatile sig_atomic_t signalled;     /* the signal that asks to leave, or 0 */
static volatile sig_atomic_t interrupt_req; /* read by the interpreter (interp_set_interrupt) */
static volatile sig_atomic_t busy;          /* computations running (nested) */
static double busy_began;                   /* when the outermost one began (ms) */
static double busy_ended;                   /* when the last long one ended (ms), for term_busy_recent */

static void on_signal(int sig)
{
	if (busy)
		interrupt_req = 1;
	if (sig != SIGINT || !busy)
		signalled = sig;
}

int term_signal(void)
{
	return signalled;
}

void term_signal_clear(void)
{
	signalled = 0;
}

const volatile sig_atomic_t *term_interrupt_flag(void)
{
	return &interrupt_req;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void term_busy_begin(void)
{
	if (busy == 0) {
		interrupt_req = 0;	/* an old Ctrl-C cancels nothing new */
		busy_began = now_ms();
	}
	busy = busy + 1;
}

bool term_busy_end(void)
{
	busy = busy - 1;
	if (busy > 0)
		return interrupt_req != 0;
	bool was = interrupt_req != 0;
	interrupt_req = 0;
	/* one long enough to want to cancel: a Ctrl-C just after it was late */
	double t = now_ms();
	if (t - busy_began >= 300)
		busy_ended = t;
	return was;
}

bool term_busy_recent(double ms)
{
	return busy_ended > 0 && now_ms() - busy_ended < ms;
}

/* ---- crashes ----------------------------------------------------------------------
 * SIGSEGV, SIGABRT, SIGBUS, SIGFPE and SIGILL: put the terminal back as it was
 * before curses, say so in one line, and let the signal do what it would
 * have done (a core dump, the exit status the shell reports), or the
 * handler that was there before ours (AddressSanitizer's report in qkv-san).
 * Everything here is async-signal-safe: the termios and the escape sequences
 * that undo curses are saved at start, and only tcsetattr, write, sigaction
 * and raise run in the handler. It runs on an alternate stack, so a stack
 * overflow is caught too. */
static const int crash_signals[] = { SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL };
#define NCRASH ((int)(sizeof crash_signals / sizeof *crash_signals))
static struct sigaction crash_old[NCRASH];  /* the handlers before ours */
static volatile sig_atomic_t curses_on;      /* the terminal is in curses' modes */
static struct termios tty_saved;            /* the terminal before curses */
static bool tty_saved_ok;
static char undo_seq[512];                  /* what endwin would send */
static size_t undo_len;
static char alt_stack[64 * 1024];

static void put_fd(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void put_str(int fd, const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	put_fd(fd, s, n);
}

static void on_crash(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	int k = 0;
	while (k < NCRASH - 1 && crash_signals[k] != sig)
		k++;
	if (curses_on) {
		curses_on = 0;
		put_fd(STDOUT_FILENO, undo_seq, undo_len);
		if (tty_saved_ok)
			tcsetattr(STDIN_FILENO, TCSANOW, &tty_saved);
		static const char *const names[] = { "Segmentation fault", "Aborted", "Bus error",
						     "Floating point exception", "Illegal instruction" };
		put_str(STDERR_FILENO, "qkv: crashed (");
		put_str(STDERR_FILENO, names[k]);
		put_str(STDERR_FILENO, "); the terminal has been restored\n");
	}
	/* SA_RESETHAND made the action the default again; a handler there before
	 * ours (a sanitizer's) gets the signal as if we had not been there */
	const struct sigaction *old = &crash_old[k];
	if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction)
		old->sa_sigaction(sig, info, uctx);
	else if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
		old->sa_handler(sig);
	errno = saved_errno;
	raise(sig);	/* delivered when the handler returns (a fault comes back anyway) */
}

/* Appends terminfo capability cap (a string) to the sequence the crash
 * handler sends. */
static void undo_add(const char *s)
{
	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (undo_len + n < sizeof undo_seq) {
		memcpy(undo_seq + undo_len, s, n);
		undo_len += n;
	}
}

/* Before initscr: the termios to go back to, the handlers, their stack. */
void term_follow_size(struct app *a)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0)
		return;
	if (ws.ws_row != a->rows || ws.ws_col != a->cols) {
		resizeterm(ws.ws_row, ws.ws_col);
		getmaxyx(stdscr, a->rows, a->cols);
		clearok(curscr, TRUE);
	}
}

/* Gives the calling thread stack (size bytes) for the crash handler, unless
 * it has one (a sanitizer runtime may have set up its own: kept). */
static void use_alt_stack(void *stack, size_t size)
{
	stack_t ss;
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_DISABLE)) {
		ss.ss_sp = stack;
		ss.ss_size = size;
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
	}
}

void term_thread_start(void)
{
	static _Thread_local char stack[64 * 1024];
	use_alt_stack(stack, sizeof stack);
}

static void crash_setup(void)
{
	tty_saved_ok = tcgetattr(STDIN_FILENO, &tty_saved) == 0;
	use_alt_stack(alt_stack, sizeof alt_stack);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (int k = 0; k < NCRASH; k++)
		sigaction(crash_signals[k], &sa, &crash_old[k]);
}

/* Bracketed paste: the terminal wraps pasted text in ESC[200~ ... ESC[201~,
 * so the prompt can run a pasted cell whole (ui/prompt.c). A terminal that
 * does not know the mode ignores it. */
#define PASTE_ON "\033[?2004h"
#define PASTE_OFF "\033[?2004l"

/* After initscr: the escape sequences that undo curses' modes, as endwin
 * sends them: keypad and mouse reporting off, attributes reset, the cursor
 * shown, the alternate screen left. CAN first ends an escape sequence a crash
 * may have cut in two. */
static void crash_sequences(void)
{
	undo_len = 0;
	undo_add("\030");
	undo_add(tigetstr("rmkx"));
	const char *xm = tigetstr("XM");	/* ncurses' mouse mode switch, %p1 = on */
	if (xm && xm != (char *)-1)
		undo_add(tiparm(xm, 0));
	else if (tigetstr("kmous") && tigetstr("kmous") != (char *)-1)
		undo_add("\033[?1000l");
	undo_add(PASTE_OFF);
	undo_add(tigetstr("sgr0"));
	undo_add(tigetstr("cnorm"));
	undo_add(tigetstr("rmcup"));
	curses_on = 1;
}

void term_stop(void)
{
	if (started) {
		started = false;
		curses_on = 0;
		endwin();
		put_fd(STDOUT_FILENO, PASTE_OFF, strlen(PASTE_OFF));
		strbuf_free(&ascii_buf);
	}
}

/* A test hook, for tests/unit/test_ui.c alone: QKV_TEST_CRASH=segv, stack or
 * abort in the environment makes F12 crash the program that way (a write
 * to an unmapped address, a stack overflow, abort()), to check that the
 * terminal comes back. Nothing else calls it. */
static int overflow(int depth)
{
	volatile char pad[4096];
	pad[0] = (char)depth;
	if (depth == INT_MAX)
		return pad[0];
	return overflow(depth + 1) + pad[0];
}

void term_test_crash(const char *how)
{
	if (strcmp(how, "segv") == 0) {
		/* an unmapped address, not NULL: UBSan (qkv-san) would stop a
		 * store through NULL itself, before any signal */
		volatile int *volatile p = (volatile int *)(uintptr_t)16;
		*p = 1;
	} else if (strcmp(how, "stack") == 0) {
		overflow(0);
	} else if (strcmp(how, "abort") == 0) {
		abort();
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

/* Whether curses can drive the terminal TERM names, asked of terminfo
 * alone: setupterm reads the entry and writes nothing to the terminal (its
 * modes, the screen), unlike initscr, which prints and exits when it cannot.
 * A terminal without cursor addressing (dumb), a hardcopy or generic type,
 * a name with no entry on this machine (xterm-16color without
 * ncurses-term) or no TERM at all would garble the screen into one line. */
int term_check(char *why, size_t size)
{
	const char *name = getenv("TERM");
	if (!name || !*name) {
		snprintf(why, size, "TERM is not set");
		return -1;
	}
	int err = 0;
	if (setupterm(name, STDOUT_FILENO, &err) != OK) {
		if (err == 1)
			snprintf(why, size, "TERM=%.60s is a hardcopy terminal", name);
		else if (err == 0)
			snprintf(why, size, "TERM=%.60s has no terminfo entry on this machine", name);
		else
			snprintf(why, size, "no terminfo database was found for TERM=%.60s", name);
		return -1;
	}
	const char *cup = tigetstr("cup");
	bool ok = cup && cup != (char *)-1;
	if (tigetflag("hc") > 0)
		snprintf(why, size, "TERM=%.60s is a hardcopy terminal", name);
	else if (tigetflag("gn") > 0)
		snprintf(why, size, "TERM=%.60s names no particular terminal", name);
	else if (!ok)
		snprintf(why, size, "TERM=%.60s cannot move the cursor", name);
	ok = ok && tigetflag("hc") <= 0 && tigetflag("gn") <= 0;
	del_curterm(cur_term);
	return ok ? 0 : -1;
}

/* Ctrl-S and Ctrl-Q are keys, not the terminal's XON/XOFF (with IXON on,
 * Ctrl-S freezes the screen until Ctrl-Q). cbreak leaves IXON as it was;
 * raw would also turn Ctrl-C into a key. Curses' program mode is saved with
 * it off, so that curses puts it back after a suspend; endwin restores the
 * shell's modes, saved by newterm, and with them IXON. */
static void flow_control_off(void)
{
	struct termios t;
	if (tcgetattr(STDIN_FILENO, &t) != 0 || !(t.c_iflag & IXON))
		return;
	t.c_iflag &= ~(tcflag_t)IXON;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
		def_prog_mode();
}

/* A terminal larger than this in either direction is not believed. */
#define SIZE_LIMIT 2000

/* Home, End, PgUp and PgDn as the common terminals send them, whatever
 * TERM's terminfo says: over SSH or in tmux or screen, TERM often names
 * another terminal than the one that sends the keys, and an unknown
 * sequence would arrive as Esc and its letters (the 4 of ESC[4~ opening
 * lesson 4 in the menu). */
static void define_other_keys(void)
{
	static const struct {
		const char *seq;
		int key;
	} keys[] = {
		{ "\033[1~", KEY_HOME }, { "\033[7~", KEY_HOME }, { "\033[H", KEY_HOME }, { "\033OH", KEY_HOME },
		{ "\033[4~", KEY_END }, { "\033[8~", KEY_END }, { "\033[F", KEY_END }, { "\033OF", KEY_END },
		{ "\033[5~", KEY_PPAGE }, { "\033[6~", KEY_NPAGE },
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (key_defined(keys[i].seq) == 0)	/* (a sequence terminfo has keeps its key) */
			define_key(keys[i].seq, keys[i].key);
}

/* What term_size_news says; found before newterm, which with use_tioctl
 * sets COLUMNS and LINES to the terminal's size. */
static char size_msg[160];

static void size_check(char *msg, size_t size)
{
	static const char *const names[] = { "COLUMNS", "LINES" };
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(names[i]);
		if (!v || !*v)
			continue;
		char *end;
		errno = 0;
		long n = strtol(v, &end, 10);
		if (*end || errno || n < 1) {
			snprintf(msg, size, " %s is not a size: the terminal's own size is used.", names[i]);
			return;
		}
		if (n > SIZE_LIMIT) {
			snprintf(msg, size, " %s=%ld is more than any terminal: the terminal's own size is used.",
				 names[i], n);
			return;
		}
	}
}

void term_size_news(char *msg, size_t size)
{
	if (size_msg[0])
		snprintf(msg, size, "%s", size_msg);
}

int term_start(struct app *a)
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
	crash_setup();
	mem_set_oom_hook(oom_hook);
	/* the size is the terminal's own (the ioctl), never COLUMNS and LINES,
	 * which curses would otherwise believe (COLUMNS=99999: screens of
	 * 10^10 cells, newterm fails); an absurd one is named on the status
	 * line (term_size_news) */
	size_msg[0] = 0;
	size_check(size_msg, sizeof size_msg);
	use_tioctl(TRUE);
	/* term_check passed: newterm fails only for a reason it missed, and
	 * then, unlike initscr, returns having drawn nothing */
	if (!newterm(NULL, stdout, stdin))
		return -1;
	started = true;
	cbreak();
	flow_control_off();
	noecho();
	keypad(stdscr, TRUE);
	define_other_keys();
	term_cursor(false);
	term_cursor_apply();
	timeout(100);	/* ticks for the animation and for signals */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	mouseinterval(0);
	set_escdelay(25);
	refresh();	/* curses' own start first: the mode goes after it */
	put_fd(STDOUT_FILENO, PASTE_ON, strlen(PASTE_ON));
	crash_sequences();
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
	return 0;
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

/* ---- text ------------------------------------------------------------------
 * Text is UTF-8 everywhere in qkv. In a UTF-8 locale it goes to curses as it
 * is; in any other (LANG=C) curses would send its bytes one by one and the
 * terminal would show them mangled, so each character is drawn as its ASCII
 * twin (ui/ascii.c). This is the one place that decides which. */

bool term_utf8(void)
{
	return utf8;
}

/* The n bytes at s as they will be drawn: s itself, or its ASCII form. */
static const char *drawn(const char *s, size_t *n)
{
	if (utf8)
		return s;
	if (!ascii_buf.s)
		strbuf_init(&ascii_buf);
	strbuf_reset(&ascii_buf);
	ascii_append(&ascii_buf, s, *n);
	*n = ascii_buf.len;
	return ascii_buf.s;
}

/* Columns of s on the terminal, as drawn: core/utf8's table, whatever the
 * locale says, of s or of its ASCII form. */
int term_width_of(const char *s)
{
	size_t n = strlen(s);
	return utf8_width_n(drawn(s, &n), n);
}

void term_put_n(int y, int x, const char *s, size_t n, int maxw)
{
	if (maxw <= 0 || y < 0 || x < 0)
		return;
	s = drawn(s, &n);
	mvaddnstr(y, x, s, (int)utf8_cut_n(s, n, maxw, NULL));
}

/* Draws s at y, x cut to maxw columns, never inside a character; nothing
 * when maxw <= 0 or the position is off the screen. */
void term_put(int y, int x, const char *s, int maxw)
{
	term_put_n(y, x, s, strlen(s), maxw);
}

char *term_text(const char *s)
{
	if (utf8)
		return NULL;
	struct strbuf b;
	strbuf_init(&b);
	ascii_append(&b, s, strlen(s));
	return strbuf_detach(&b);
}

void term_fit(struct strbuf *out, const char *s, int width, int align)
{
	char *t = term_text(s);
	utf8_fit(out, t ? t : s, width, align);
	free(t);
}

/* ---- lines ------------------------------------------------------------------ */

void term_hline(int y, int x, int n)
{
	for (int i = 0; i < n; i++)
		term_put(y, x + i, "\u2500", 1);
}

void term_vline(int y, int x, int n)
{
	for (int i = 0; i < n; i++)
		term_put(y + i, x, "\u2502", 1);
}

void term_box(int y, int x, int h, int w)
{
	term_hline(y, x + 1, w - 2);
	term_hline(y + h - 1, x + 1, w - 2);
	term_vline(y + 1, x, h - 2);
	term_vline(y + 1, x + w - 1, h - 2);
	term_put(y, x, "\u250c", 1);
	term_put(y, x + w - 1, "\u2510", 1);
	term_put(y + h - 1, x, "\u2514", 1);
	term_put(y + h - 1, x + w - 1, "\u2518", 1);
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
