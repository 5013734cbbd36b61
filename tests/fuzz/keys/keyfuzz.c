/* keyfuzz.c: a key fuzzer for the full-screen prompt (make fuzz runs it on
 * ./qkv-san --repl). It starts the program in a pseudo-terminal of its own
 * and types random key streams into it, seeded and reproducible: control
 * keys, Alt sequences, vi mode and back, searches, history, bracketed
 * pastes, Ctrl-C, mouse clicks and window resizes (TIOCSWINSZ, SIGWINCH).
 * Each episode is a fresh process in a fresh state directory; it ends with
 * Ctrl-C and Ctrl-D, and the program must then exit 0 with no sanitizer
 * report. A crash, a report, another exit status or a program that stops
 * reading its keys fails the run; the seed and the episode's key stream go
 * to a file that --replay types again. Not linked with qkv. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <utmp.h>

#define KEY_MAX 256         /* the longest key (a paste) in bytes */
#define STALL_MS 30000      /* a program that reads no key for this long hangs */
#define QUIT_MS 30000       /* Ctrl-C, Ctrl-D: the time it has to exit */
/* What qkv writes once curses and its signal handlers are set up (it asks
 * for bracketed paste): keys typed before it would go to the terminal's
 * line editing, and a Ctrl-C would stop it as it starts. */
#define READY "\033[?2004h"
#define SCREEN_KEEP (1 << 20)
#define SETTLE_MS 150       /* more than qkv's 100 ms tick, when it reads signals */
#define ESC_MS 100          /* more than the 25 + 30 ms qkv waits after Esc */

/* ---- the random stream: xorshift64*, the same on every machine ---------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static int pick(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

static void rng_seed(uint64_t s)
{
	rng_state = s * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
	if (!rng_state)
		rng_state = 1;
	for (int i = 0; i < 8; i++)
		rnd();
}

/* ---- one step of a stream: a key's bytes, or a resize ----------------- */

struct step {
	bool resize;
	int cols, rows;
	int len;
	unsigned char b[KEY_MAX];
};

static void put(struct step *s, const char *bytes, int n)
{
	if (n > KEY_MAX - s->len)
		n = KEY_MAX - s->len;
	memcpy(s->b + s->len, bytes, (size_t)n);
	s->len += n;
}

static void puts_step(struct step *s, const char *text)
{
	put(s, text, (int)strlen(text));
}

static const char *const named[] = {
	"\033[A", "\033[B", "\033[C", "\033[D", "\033[H", "\033[F", "\033[3~", "\033[2~",
	"\033[5~", "\033[6~", "\033OP", "\033OQ", "\033OR", "\033OS", "\033[15~", "\033[24~",
	"\033[Z", "\177", "\033[1;5C", "\033[1;5D", "\033[1;3A", "\033OA", "\033OB",
};

/* Words a person types, so that lines run, fail, enter the history and
 * complete; typed one key at a time. */
static const char *const words[] = {
	"x = [1 2; 3 4]", "x", "x @ x.T", "torch.softmax(x, dim=-1)", "torch.", "y = x + 1",
	":ls", ":help", ":show x", ":show x loops", ":reset", ":clear", "for i in range(3):",
	"    print(i)", "def f(a):", "    return a", "print(", "(((", "\"abc", "# note", "tor",
	":save s.json", ":load s.json", "if x:", "1/0", "import torch", "x.shape",
};

static const char printable[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				"         ()[]{}:;.,=+-*/@%<>!\"'#\\_~`^&|$?";

static char any_printable(void)
{
	return printable[pick((int)sizeof printable - 1)];
}

/* A control key the terminal hands over as a byte: not Ctrl-Z or Ctrl-\
 * (the pty's suspend and quit characters are off, but a person's terminal
 * would stop or kill the program: not the prompt's business). */
static char any_control(void)
{
	for (;;) {
		int c = pick(32);
		/* Ctrl-C, Ctrl-D and Esc have their own, rarer, turns: the fuzzer
		 * waits after Ctrl-C and Esc (see child_type) */
		if (c != 0x1a && c != 0x1c && c != 0x04 && c != 0x03 && c != 0x1b)
			return (char)c;
	}
}

static void random_text(struct step *s, int max, bool lines)
{
	int n = 1 + pick(max);
	for (int i = 0; i < n; i++) {
		int r = pick(20);
		if (lines && r == 0)
			puts_step(s, pick(2) ? "\n" : "\r\n");
		else if (r == 1)
			puts_step(s, words[pick((int)(sizeof words / sizeof *words))]);
		else {
			char c = any_printable();
			put(s, &c, 1);
		}
	}
}

/* The next step of a stream (the key categories and their weights). */
static void next_step(struct step *s)
{
	memset(s, 0, sizeof *s);
	int r = pick(1000);
	char c;
	if (r < 380) {			/* a printable character */
		c = any_printable();
		put(s, &c, 1);
	} else if (r < 450) {		/* Enter */
		puts_step(s, "\r");
	} else if (r < 580) {		/* a control key */
		c = any_control();
		put(s, &c, 1);
	} else if (r < 660) {		/* Alt+key: ESC and a character, or a control key */
		char two[2] = { 27, pick(3) ? any_printable() : any_control() };
		put(s, two, 2);
	} else if (r < 740) {		/* arrows, Home, End, Delete, F-keys, Backspace */
		puts_step(s, named[pick((int)(sizeof named / sizeof *named))]);
	} else if (r < 750) {		/* Ctrl-C (a signal: the fuzzer waits for its frame) */
		puts_step(s, "\003");
	} else if (r < 770) {		/* Backspace */
		puts_step(s, "\177");
	} else if (r < 800) {		/* vi mode (Alt-Ctrl-J), back to emacs (Esc Ctrl-E), vi commands */
		static const char *const vi[] = { "\033\n", "\033\005", "\033i", "\033a", "\033k", "\033j",
						  "\033?", "\033/", "\033n", "\033N", "\033u", "\033dd",
						  "\033cw", "\033.", "\033p", "\033x", "\033~", "\033r" };
		puts_step(s, vi[pick((int)(sizeof vi / sizeof *vi))]);
	} else if (r < 840) {		/* searches and the history */
		static const char *const se[] = { "\022", "\023", "\007", "\020", "\016", "\033<", "\033>",
						  "\033.", "\033_", "\033p", "\033n", "\033\022", "\030\022" };
		puts_step(s, se[pick((int)(sizeof se / sizeof *se))]);
	} else if (r < 870) {		/* Ctrl-X and a key */
		char two[2] = { 0x18, pick(2) ? any_printable() : any_control() };
		if (two[1] == 0x1a || two[1] == 0x1c)
			two[1] = 'a';
		put(s, two, 2);
	} else if (r < 890) {		/* a word, in one piece (as fast typing) */
		puts_step(s, words[pick((int)(sizeof words / sizeof *words))]);
	} else if (r < 910) {		/* a bracketed paste, now and then unfinished */
		puts_step(s, "\033[200~");
		random_text(s, 40, true);
		if (pick(8))
			puts_step(s, "\033[201~");
	} else if (r < 930) {		/* UTF-8, whole or broken */
		static const char *const u[] = { "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xc3",
						 "\xe4\xb8", "\xff", "\x80", "\xcc\x81" };
		puts_step(s, u[pick((int)(sizeof u / sizeof *u))]);
	} else if (r < 945) {		/* Tab */
		puts_step(s, "\t");
	} else if (r < 955) {		/* a mouse click, X10 or SGR */
		char m[32];
		snprintf(m, sizeof m, pick(2) ? "\033[M %c%c" : "\033[<0;%d;%dM", 33 + pick(90), 33 + pick(40));
		puts_step(s, m);
	} else if (r < 962) {		/* Ctrl-D (on an empty line it leaves) */
		puts_step(s, "\004");
	} else if (r < 965) {		/* a lone Esc (rarer: it waits) */
		puts_step(s, "\033");
	} else if (r < 975) {		/* an escape sequence no key sends */
		char m[5] = { 27, '[', (char)('0' + pick(10)), any_printable(), 0 };
		puts_step(s, m);
	} else if (r < 995) {		/* a digit argument (Alt-3), then a key */
		char m[3] = { 27, (char)('0' + pick(10)), any_printable() };
		put(s, m, 3);
	} else {			/* a resize, tiny to large (a signal: the fuzzer waits) */
		s->resize = true;
		s->cols = pick(4) ? 20 + pick(180) : 1 + pick(40);
		s->rows = pick(4) ? 8 + pick(60) : 1 + pick(12);
	}
}

/* ---- the key file: a failing episode, typed again by --replay ------------ */

static void write_step(FILE *f, const struct step *s)
{
	if (s->resize) {
		fprintf(f, "resize %dx%d\n", s->cols, s->rows);
		return;
	}
	fputs("key ", f);
	for (int i = 0; i < s->len; i++) {
		unsigned char c = s->b[i];
		if (c == '\\')
			fputs("\\\\", f);
		else if (c > ' ' && c < 127)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
	fputc('\n', f);
}

static int read_step(const char *line, struct step *s)
{
	memset(s, 0, sizeof *s);
	if (sscanf(line, "resize %dx%d", &s->cols, &s->rows) == 2) {
		s->resize = true;
		return 0;
	}
	if (strncmp(line, "key ", 4) != 0)
		return -1;
	for (const char *p = line + 4; *p && *p != '\n' && s->len < KEY_MAX; p++) {
		if (p[0] == '\\' && p[1] == '\\') {
			s->b[s->len++] = '\\';
			p++;
		} else if (p[0] == '\\' && p[1] == 'x') {
			unsigned v;
			if (sscanf(p + 2, "%2x", &v) != 1)
				return -1;
			s->b[s->len++] = (unsigned char)v;
			p += 3;
		} else {
			s->b[s->len++] = (unsigned char)*p;
		}
	}
	return 0;
}

/* ---- the program under test in a pseudo-terminal -------------------------- */

struct child {
	pid_t pid;
	int master, slave;
	char dir[256];       /* its state directory and working directory */
	int status;          /* once it has ended */
	bool ended;
	bool ready;          /* its terminal modes are set: keys go to it */
	size_t seen;         /* the bytes of READY seen so far */
	char *screen;        /* the last SCREEN_KEEP bytes it wrote, a ring */
	size_t screen_at;
};

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Reads what the program wrote (it would block on a full terminal);
 * true once the bytes READY have gone by. */
static bool drain(struct child *c, int wait_ms)
{
	struct pollfd p = { .fd = c->master, .events = POLLIN };
	char buf[65536];
	while (poll(&p, 1, wait_ms) > 0 && (p.revents & POLLIN)) {
		ssize_t n = read(c->master, buf, sizeof buf);
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			c->screen[c->screen_at++ % SCREEN_KEEP] = buf[i];
		for (ssize_t i = 0; i < n && !c->ready; i++) {
			c->seen = buf[i] == READY[c->seen] ? c->seen + 1 : buf[i] == READY[0];
			c->ready = READY[c->seen] == 0;
		}
		wait_ms = 0;
	}
	return c->ready;
}

static bool reap(struct child *c, int options)
{
	if (c->ended)
		return true;
	int st;
	pid_t r = waitpid(c->pid, &st, options);
	if (r == c->pid) {
		c->ended = true;
		c->status = st;
	}
	return c->ended;
}

static void rm_tree(const char *dir)
{
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "keyfuzz: could not remove %s\n", dir);
}

static int child_start(struct child *c, char **argv, int cols, int rows, const char *base, int episode)
{
	memset(c, 0, sizeof *c);
	c->screen = malloc(SCREEN_KEEP);
	if (!c->screen)
		return -1;
	snprintf(c->dir, sizeof c->dir, "%s/ep%d", base, episode);
	rm_tree(c->dir);
	if (mkdir(c->dir, 0700) != 0) {
		fprintf(stderr, "keyfuzz: %s: %s\n", c->dir, strerror(errno));
		return -1;
	}
	struct termios t;
	memset(&t, 0, sizeof t);
	t.c_iflag = ICRNL | IUTF8;
	t.c_oflag = OPOST | ONLCR;
	t.c_cflag = CS8 | CREAD;
	t.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | IEXTEN;
	t.c_cc[VINTR] = 3;
	t.c_cc[VEOF] = 4;
	t.c_cc[VERASE] = 0x7f;
	t.c_cc[VMIN] = 1;
	/* no suspend, quit, stop/start or literal-next characters: the keys go to the program */
	t.c_cc[VQUIT] = t.c_cc[VSUSP] = t.c_cc[VSTOP] = t.c_cc[VSTART] = _POSIX_VDISABLE;
	t.c_cc[VLNEXT] = t.c_cc[VDISCARD] = t.c_cc[VWERASE] = t.c_cc[VREPRINT] = _POSIX_VDISABLE;
	cfsetispeed(&t, B38400);
	cfsetospeed(&t, B38400);
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	if (openpty(&c->master, &c->slave, NULL, &t, &ws) != 0) {
		fprintf(stderr, "keyfuzz: openpty: %s\n", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		close(c->master);
		if (login_tty(c->slave) != 0)
			_exit(126);
		if (chdir(c->dir) != 0)
			_exit(126);
		char env[1200];
		const char *more = getenv("ASAN_OPTIONS");	/* the caller's come last and win */
		setenv("TERM", "xterm-256color", 1);
		setenv("XDG_STATE_HOME", c->dir, 1);
		unsetenv("NO_COLOR");
		snprintf(env, sizeof env, "detect_leaks=1:abort_on_error=0:log_path=%s/san:%.500s", c->dir, more ? more : "");
		setenv("ASAN_OPTIONS", env, 1);
		snprintf(env, sizeof env, "print_stacktrace=1:log_path=%s/san", c->dir);
		setenv("UBSAN_OPTIONS", env, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "keyfuzz: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	fcntl(c->master, F_SETFL, fcntl(c->master, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* After a signal (Ctrl-C, a resize), until the program has begun to draw
 * the frame that follows it (or SETTLE_MS went by: nothing changed on
 * screen), so that the next key comes after it each run. */
static void settle(struct child *c)
{
	size_t was = c->screen_at;
	double start = now_ms();
	while (now_ms() - start < SETTLE_MS && c->screen_at == was)
		drain(c, 2);
}

/* Writes a step and waits until the program has read all of it (so that
 * keys reach it in the same pieces each run); false when it never does or
 * the program ended. */
static bool child_type(struct child *c, const struct step *s)
{
	if (s->resize) {
		struct winsize ws = { .ws_row = (unsigned short)s->rows, .ws_col = (unsigned short)s->cols };
		ioctl(c->master, TIOCSWINSZ, &ws);	/* the kernel sends SIGWINCH on a change */
		kill(c->pid, SIGWINCH);
		settle(c);
		return !reap(c, WNOHANG);
	}
	int off = 0;
	double start = now_ms();
	for (;;) {
		if (off < s->len) {
			ssize_t n = write(c->master, s->b + off, (size_t)(s->len - off));
			if (n > 0)
				off += (int)n;
		}
		drain(c, 0);
		int pending = 0;
		if (off == s->len && ioctl(c->slave, FIONREAD, &pending) == 0 && pending == 0) {
			if (memchr(s->b, 3, (size_t)s->len))
				settle(c);	/* Ctrl-C is a signal: it overtakes the keys before it */
			if (s->b[s->len - 1] == 27)
				drain(c, ESC_MS);	/* a lone Esc: the next key is not Alt+key */
			return true;
		}
		if (reap(c, WNOHANG))
			return false;
		if (now_ms() - start > STALL_MS)
			return false;
		drain(c, 1);	/* it is busy: let it run */
	}
}

/* Ctrl-C, then Ctrl-D on the empty line: the program must leave. Keys
 * typed while a line runs may go unread, so they come again now and then. */
static void child_quit(struct child *c)
{
	double start = now_ms(), last = 0;
	while (!reap(c, WNOHANG) && now_ms() - start < QUIT_MS) {
		if (now_ms() - last > 2000) {
			last = now_ms();
			for (int i = 0; i < 2 && !c->ended; i++) {
				struct step s = { .len = 1 };
				s.b[0] = i == 0 ? 3 : 4;
				child_type(c, &s);
				drain(c, 50);
			}
		}
		drain(c, 10);
	}
}

static void child_end(struct child *c)
{
	if (!reap(c, WNOHANG)) {
		kill(c->pid, SIGKILL);
		reap(c, 0);
	}
	close(c->master);
	close(c->slave);
}

/* What it wrote last, raw (`cat FILE` in a terminal of the episode's size
 * shows the screen it left) */
static void child_save_screen(const struct child *c, const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	size_t n = c->screen_at < SCREEN_KEEP ? c->screen_at : SCREEN_KEEP;
	for (size_t i = c->screen_at - n; i < c->screen_at; i++)
		fputc(c->screen[i % SCREEN_KEEP], f);
	fclose(f);
}

/* What went wrong, or "" when the episode ended well: the program exited
 * 0 with no sanitizer log. */
static void verdict(const struct child *c, bool read_all, char *why, size_t size)
{
	why[0] = 0;
	char cmd[400];
	snprintf(cmd, sizeof cmd, "cat '%s'/san.* 2>/dev/null | grep -qE 'ERROR|runtime error|SUMMARY'", c->dir);
	bool report = system(cmd) == 0;
	if (!c->ended)
		snprintf(why, size, "%s", read_all ? "did not exit after Ctrl-C, Ctrl-D" :
			 "stopped reading its keys (hang)");
	else if (WIFSIGNALED(c->status))
		snprintf(why, size, "killed by signal %d (%s)", WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
	else if (WEXITSTATUS(c->status) != 0)
		snprintf(why, size, "exit status %d", WEXITSTATUS(c->status));
	if (report)
		snprintf(why + strlen(why), size - strlen(why), "%ssanitizer report", why[0] ? ", " : "");
}

/* ---- the runs ---------------------------------------------------------------- */

struct run {
	char **argv;
	const char *base;     /* a scratch directory */
	const char *out;      /* where a failing episode's keys go */
	uint64_t seed;
	long keys;            /* typed in all */
	long max_keys;        /* 0, or the keys to type in all */
	double stop_ms;       /* 0, or when to stop typing (the episode then ends as usual) */
};

static bool run_over(const struct run *r)
{
	return (r->stop_ms && now_ms() >= r->stop_ms) || (r->max_keys && r->keys >= r->max_keys);
}

/* Types steps into one fresh program; true when it ended well, else writes
 * the key file (and the sanitizer's report beside it). */
static bool episode(struct run *r, int ep, const struct step *steps, int n, int cols, int rows)
{
	struct child c;
	if (child_start(&c, r->argv, cols, rows, r->base, ep) != 0)
		exit(2);
	double t0 = now_ms();
	while (!drain(&c, 10) && !reap(&c, WNOHANG) && now_ms() - t0 < STALL_MS)
		;
	bool read_all = c.ready;
	int i;
	for (i = 0; i < n && read_all && !run_over(r); i++) {
		read_all = child_type(&c, &steps[i]);
		r->keys += !steps[i].resize;
	}
	if (read_all)
		child_quit(&c);
	char why[200];
	verdict(&c, read_all, why, sizeof why);
	child_end(&c);
	if (!why[0]) {
		rm_tree(c.dir);
		free(c.screen);
		return true;
	}
	char path[1100];
	snprintf(path, sizeof path, "%s.screen", r->out);
	child_save_screen(&c, path);
	free(c.screen);
	FILE *f = fopen(r->out, "w");
	if (!f) {
		fprintf(stderr, "keyfuzz: %s: %s\n", r->out, strerror(errno));
		exit(2);
	}
	fprintf(f, "# qkv key fuzzer: seed %llu, episode %d: %s\n", (unsigned long long)r->seed, ep, why);
	fprintf(f, "# %d steps typed of %d; replay: keyfuzz --replay THIS-FILE -- PROGRAM ARGS\n", i, n);
	fprintf(f, "size %dx%d\n", cols, rows);
	for (int k = 0; k < i; k++)
		write_step(f, &steps[k]);
	fclose(f);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "cat '%s'/san.* > '%s.log' 2>/dev/null; [ -s '%s.log' ] || rm -f '%s.log'", c.dir,
		 r->out, r->out, r->out);
	if (system(cmd) != 0) {
		/* no report to keep */
	}
	fprintf(stderr, "keyfuzz: FAILED: %s (seed %llu, episode %d, %d keys); the keys are in %s\n", why,
		(unsigned long long)r->seed, ep, i, r->out);
	rm_tree(c.dir);
	return false;
}

static int replay(struct run *r, const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "keyfuzz: %s: %s\n", file, strerror(errno));
		return 2;
	}
	int cap = 1024, n = 0, cols = 100, rows = 30;
	struct step *steps = malloc(sizeof *steps * (size_t)cap);
	char line[4 * KEY_MAX + 64];
	while (steps && fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "size %dx%d", &cols, &rows) == 2)
			continue;
		if (n == cap)
			steps = realloc(steps, sizeof *steps * (size_t)(cap *= 2));
		if (!steps || read_step(line, &steps[n]) != 0) {
			fprintf(stderr, "keyfuzz: %s: not a key file line: %s", file, line);
			return 2;
		}
		n++;
	}
	fclose(f);
	bool ok = episode(r, 0, steps, n, cols, rows);
	free(steps);
	printf("keyfuzz: replayed %d steps of %s: %s\n", n, file, ok ? "no failure" : "FAILED");
	return ok ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: keyfuzz [-t SECONDS] [-k KEYS] [-s SEED] [-o FILE] [--replay FILE] -- PROGRAM ARGS\n"
			"  types random keys into PROGRAM in a pseudo-terminal for SECONDS (default 10)\n"
			"  or until KEYS keys; a failing episode's keys go to FILE (default keyfuzz-fail.keys)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	double seconds = 10;
	long max_keys = 0;
	const char *replay_file = NULL;
	struct run r = { .out = "keyfuzz-fail.keys", .seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20) };
	int i = 1;
	for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "-t") == 0)
			seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "-k") == 0)
			max_keys = atol(argv[++i]);
		else if (strcmp(argv[i], "-s") == 0)
			r.seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "-o") == 0)
			r.out = argv[++i];
		else if (strcmp(argv[i], "--replay") == 0)
			replay_file = argv[++i];
		else
			usage();
	}
	if (i + 1 >= argc)
		usage();
	r.argv = argv + i + 1;
	char *prog = strchr(r.argv[0], '/') ? realpath(r.argv[0], NULL) : NULL;	/* it runs elsewhere */
	if (prog)
		r.argv[0] = prog;
	signal(SIGPIPE, SIG_IGN);
	char base[] = "/tmp/qkv-keyfuzz-XXXXXX";
	if (!mkdtemp(base)) {
		fprintf(stderr, "keyfuzz: mkdtemp: %s\n", strerror(errno));
		return 2;
	}
	r.base = base;
	if (replay_file) {
		int rc = replay(&r, replay_file);
		rm_tree(base);
		return rc;
	}
	printf("keyfuzz: seed %llu (-s %llu repeats this run)\n", (unsigned long long)r.seed,
	       (unsigned long long)r.seed);
	fflush(stdout);
	double start = now_ms();
	r.stop_ms = start + seconds * 1e3;
	r.max_keys = max_keys;
	int ep = 0, status = 0;
	struct step *steps = malloc(sizeof *steps * 4000);
	while (steps && !run_over(&r)) {
		rng_seed(r.seed + (uint64_t)ep * 1000003);
		int n = 200 + pick(3800);
		int cols = 30 + pick(170), rows = 10 + pick(50);
		for (int k = 0; k < n; k++)
			next_step(&steps[k]);
		if (!episode(&r, ep, steps, n, cols, rows)) {
			status = 1;
			break;
		}
		ep++;
	}
	free(steps);
	double secs = (now_ms() - start) / 1e3;
	printf("keyfuzz: %ld keys in %d programs in %.0f s (%.0f keys/s)%s\n", r.keys, ep + status, secs,
	       secs > 0 ? r.keys / secs : 0.0, status ? ", FAILED" : ", no failure");
	rm_tree(base);
	return status;
}
