/* system.c: processes, tmux and waiting for the system tests (see system.h).
 * Test-only code, linked into build/qkv-system alone: the in-process tests
 * (build/qkv-unit) cannot start qkv. Every wait polls for its condition up
 * to system_wait_ms(); none sleeps for a fixed time in place of a check. */
#include "system.h"
#include "core/utf8.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 50		/* between two looks at a screen, a file, a process */
#define STILL_MS 100		/* a screen unchanged this long is drawn whole */

int system_wait_ms(void)
{
	const char *s = getenv("QKV_TEST_WAIT");
	int secs = s && *s ? atoi(s) : 0;
	return (secs > 0 ? secs : 60) * 1000;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void pause_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

const char *qkv_binary(void)
{
	const char *q = getenv("QKV");
	return q && *q ? q : "./qkv";
}

/* ---- running qkv with pipes ------------------------------------------------------ */

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		while (*len + n + 1 > *cap)
			*cap *= 2;
		*buf = realloc(*buf, *cap);
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = 0;
}

int run_qkv(const char *const *argv, const char *stdin_text, const char *env, char **out, char **err)
{
	int pin[2], pout[2], perr[2];
	if (pipe(pin) || pipe(pout) || pipe(perr))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		if (env)
			putenv((char *)env);
		int n = 0;
		while (argv[n])
			n++;
		char **args = calloc((size_t)n + 1, sizeof *args);
		args[0] = (char *)qkv_binary();
		for (int i = 1; i < n; i++)
			args[i] = (char *)argv[i];
		execv(args[0], args);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	if (stdin_text) {
		/* a program that ends without reading all of it must not kill the
		 * test with SIGPIPE: the write fails with EPIPE instead */
		struct sigaction ign = { .sa_handler = SIG_IGN }, old;
		sigemptyset(&ign.sa_mask);
		sigaction(SIGPIPE, &ign, &old);
		size_t left = strlen(stdin_text);
		const char *p = stdin_text;
		while (left > 0) {
			ssize_t w = write(pin[1], p, left);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			p += w;
			left -= (size_t)w;
		}
		sigaction(SIGPIPE, &old, NULL);
	}
	close(pin[1]);
	size_t ol = 0, oc = 256, el = 0, ec = 256;
	*out = calloc(oc, 1);
	*err = calloc(ec, 1);
	struct pollfd fds[2] = { { pout[0], POLLIN, 0 }, { perr[0], POLLIN, 0 } };
	int open_fds = 2;
	char buf[4096];
	/* until both are closed, however long the program computes silently
	 * (the test's own .timeout is the limit) */
	while (open_fds > 0) {
		int r = poll(fds, 2, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(fds[i].fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			} else if (i == 0) {
				append(out, &ol, &oc, buf, (size_t)n);
			} else {
				append(err, &el, &ec, buf, (size_t)n);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- processes --------------------------------------------------------------------- */

/* What /proc/PID/stat says: the command name (up to 15 bytes), the state
 * letter, the parent and the CPU time in clock ticks; false when there is
 * no such process. */
struct proc_stat {
	char comm[32];
	char state;
	pid_t ppid;
	unsigned long long ticks;
};

static bool proc_read(pid_t pid, struct proc_stat *st)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	if (!open || !close || close < open)
		return false;
	snprintf(st->comm, sizeof st->comm, "%.*s", (int)(close - open - 1), open + 1);
	/* after the name: state ppid pgrp session tty_nr tpgid flags minflt
	 * cminflt majflt cmajflt utime stime */
	int ppid;
	unsigned long long utime, stime;
	if (sscanf(close + 2, "%c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &st->state, &ppid, &utime,
		   &stime) != 4)
		return false;
	st->ppid = ppid;
	st->ticks = utime + stime;
	return true;
}

static bool proc_alive(pid_t pid)
{
	struct proc_stat st;
	return proc_read(pid, &st) && st.state != 'Z' && st.state != 'X';
}

double proc_cpu_ms(pid_t pid)
{
	struct proc_stat st;
	if (!proc_read(pid, &st))
		return -1;
	return (double)st.ticks * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

bool proc_wait_cpu(pid_t pid, double ms)
{
	double end = now_ms() + system_wait_ms();
	for (;;) {
		if (!proc_alive(pid))
			return false;
		if (proc_cpu_ms(pid) >= ms)
			return true;
		if (now_ms() > end)
			return false;
		pause_ms(10);
	}
}

bool proc_wait_gone(pid_t pid)
{
	double end = now_ms() + system_wait_ms();
	while (proc_alive(pid)) {
		if (now_ms() > end)
			return false;
		pause_ms(POLL_MS);
	}
	return true;
}

/* Adds to pids (n of them, room for max) every process whose parent is
 * already in it, until no more are found: the descendants of the first n. */
static int proc_add_descendants(pid_t *pids, int n, int max)
{
	for (bool grew = true; grew && n < max;) {
		grew = false;
		DIR *d = opendir("/proc");
		if (!d)
			return n;
		struct dirent *e;
		while ((e = readdir(d)) && n < max) {
			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			pid_t pid = (pid_t)atoi(e->d_name);
			struct proc_stat st;
			if (!proc_read(pid, &st))
				continue;
			bool known = false, child = false;
			for (int i = 0; i < n; i++) {
				known |= pids[i] == pid;
				child |= pids[i] == st.ppid;
			}
			if (child && !known) {
				pids[n++] = pid;
				grew = true;
			}
		}
		closedir(d);
	}
	return n;
}

bool file_wait(const char *path)
{
	double end = now_ms() + system_wait_ms();
	while (access(path, F_OK) != 0) {
		if (now_ms() > end)
			return false;
		pause_ms(POLL_MS);
	}
	return true;
}

char *file_wait_text(const char *path, const char *want)
{
	double end = now_ms() + system_wait_ms();
	for (;;) {
		char *s = read_text(path);
		if (s && strstr(s, want))
			return s;
		free(s);
		if (now_ms() > end)
			return NULL;
		pause_ms(POLL_MS);
	}
}

/* ---- tmux ------------------------------------------------------------------------------ */

static char tmux_dir[64];

void tmux_private_server(void)
{
	if (tmux_dir[0])
		return;
	snprintf(tmux_dir, sizeof tmux_dir, "/tmp/qkv-tmux-%d", (int)getpid());
	mkdir(tmux_dir, 0700);
	setenv("TMUX_TMPDIR", tmux_dir, 1);
}

/* The output of a shell command (malloc'd), or NULL when it fails. */
static char *command_output(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	size_t len = 0, cap = 4096, n;
	char *s = malloc(cap);
	while ((n = fread(s + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 2)
			s = realloc(s, cap *= 2);
	}
	s[len] = 0;
	if (pclose(p) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

bool tmux_private_server_end(void)
{
	if (!tmux_dir[0])
		return true;
	enum { MAXP = 256 };
	pid_t pids[MAXP];
	int n = 0;
	char *panes = command_output("tmux list-panes -a -F '#{pane_pid}' 2>/dev/null");
	for (char *p = panes; p && *p && n < MAXP; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (atoi(p) > 0)
			pids[n++] = (pid_t)atoi(p);
	free(panes);
	n = proc_add_descendants(pids, n, MAXP);
	if (system("tmux kill-server 2>/dev/null") != 0) {
		/* no server was running */
	}
	bool ended = true;
	for (int i = 0; i < n; i++)
		if (!proc_wait_gone(pids[i])) {
			kill(pids[i], SIGKILL);	/* it ignored SIGHUP: do not leave it behind */
			ended = false;
		}
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmux_dir);
	if (system(cmd) != 0) {
		/* left in /tmp */
	}
	tmux_dir[0] = 0;
	return ended;
}

void tmux_require(void)
{
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("tmux is not installed");
}

const char *tmux_start(int w, int h, const char *command)
{
	static char session[64];
	static int n;
	tmux_require();
	tmux_private_server();
	snprintf(session, sizeof session, "qkv%d_%d", (int)getpid(), n++);
	char cmd[8192];
	size_t len = (size_t)snprintf(cmd, sizeof cmd, "tmux new-session -d -s %s -x %d -y %d '", session, w, h);
	for (const char *c = command; *c && len + 8 < sizeof cmd; c++) {
		if (*c == '\'') {	/* ' ends the quotes, \' is one, ' opens them again */
			memcpy(cmd + len, "'\\''", 4);
			len += 4;
		} else {
			cmd[len++] = *c;
		}
	}
	cmd[len] = 0;
	cr_assert(len + 8 < sizeof cmd, "tmux command too long: %s", command);
	snprintf(cmd + len, sizeof cmd - len, "'");
	cr_assert_eq(system(cmd), 0, "tmux failed to start: %s", cmd);
	return session;
}

const char *tmux_start_qkv(int w, int h, const char *state, const char *env, const char *args, const char *after)
{
	char command[2048];
	int len = snprintf(command, sizeof command, "TERM=xterm-256color XDG_STATE_HOME=%s %s %s %s%s%s", state,
			   env ? env : "", qkv_binary(), args, after ? "; " : "", after ? after : "");
	cr_assert(len > 0 && (size_t)len < sizeof command, "qkv command too long: %s", args);
	return tmux_start(w, h, command);
}

/* Runs the tmux command fmt, whose %s are session and arg. */
static void tmux_run(const char *fmt, const char *session, const char *arg)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, fmt, session, arg);
	if (system(cmd) != 0) {
		/* a failed tmux command shows up as a missing screen */
	}
}

void tmux_keys(const char *session, const char *keys)
{
	tmux_run("tmux send-keys -t %s %s", session, keys);
}

void tmux_resize(const char *session, int w, int h)
{
	char size[64];
	snprintf(size, sizeof size, "-x %d -y %d", w, h);
	tmux_run("tmux resize-window -t %s %s", session, size);
}

void tmux_type(const char *session, const char *text)
{
	tmux_run("tmux send-keys -t %s -l '%s'", session, text);
}

void tmux_line(const char *session, const char *text)
{
	tmux_type(session, text);
	tmux_keys(session, "Enter");
}

void tmux_paste(const char *session, const char *text)
{
	char cmd[8192];
	snprintf(cmd, sizeof cmd, "tmux set-buffer -b qkvpaste -- '%s' && tmux paste-buffer -p -d -b qkvpaste -t %s",
		 text, session);
	if (system(cmd) != 0) {
		/* shows up in what the screen lacks */
	}
}

int tmux_cursor_x(const char *session)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "tmux display -p -t %s '#{cursor_x}'", session);
	FILE *f = popen(cmd, "r");
	int x = -1;
	if (!f || fscanf(f, "%d", &x) != 1)
		x = -1;
	if (f)
		pclose(f);
	return x;
}

int tmux_cursor_x_at(const char *session, int want)
{
	int x = tmux_cursor_x(session);
	for (int waited = 0; x != want && waited < system_wait_ms(); waited += 100) {
		usleep(100000);
		x = tmux_cursor_x(session);
	}
	return x;
}

char *tmux_screen(const char *session, bool escapes)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "tmux capture-pane -p %s -t %s 2>/dev/null", escapes ? "-e" : "", session);
	char *s = command_output(cmd);
	return s ? s : strdup("");
}

static bool shows_all(const char *s, const char *const *want)
{
	for (int k = 0; want[k]; k++)
		if (!strstr(s, want[k]))
			return false;
	return true;
}

static char *wait_screen(const char *session, const char *const *want, bool still)
{
	double end = now_ms() + system_wait_ms();
	char *prev = NULL;
	for (;;) {
		char *s = tmux_screen(session, false);
		bool all = shows_all(s, want);
		if (all && (!still || (prev && strcmp(prev, s) == 0))) {
			free(prev);
			return s;
		}
		free(prev);
		prev = s;
		if (now_ms() > end)
			return prev;
		pause_ms(all ? STILL_MS : POLL_MS);
	}
}

char *tmux_wait_without(const char *session, const char *gone)
{
	double end = now_ms() + system_wait_ms();
	char *prev = NULL;
	for (;;) {
		char *s = tmux_screen(session, false);
		bool without = strstr(s, gone) == NULL;
		if (without && prev && strcmp(prev, s) == 0) {
			free(prev);
			return s;
		}
		free(prev);
		prev = s;
		if (now_ms() > end)
			return prev;
		pause_ms(without ? STILL_MS : POLL_MS);
	}
}

char *tmux_wait_for(const char *session, const char *want)
{
	const char *const one[] = { want, NULL };
	return wait_screen(session, one, true);
}

char *tmux_wait_for_all(const char *session, const char *const *want)
{
	return wait_screen(session, want, true);
}

char *tmux_wait_moving(const char *session, const char *const *want)
{
	return wait_screen(session, want, false);
}

pid_t tmux_pane_qkv(const char *session)
{
	/* the kernel keeps the first 15 bytes of the program's name */
	const char *name = strrchr(qkv_binary(), '/');
	name = name ? name + 1 : qkv_binary();
	char comm[16], cmd[160];
	snprintf(comm, sizeof comm, "%s", name);
	snprintf(cmd, sizeof cmd, "tmux display-message -p -t %s '#{pane_pid}' 2>/dev/null", session);
	double end = now_ms() + system_wait_ms();
	do {
		char *out = command_output(cmd);
		pid_t pids[64];
		int n = 0;
		if (out && atoi(out) > 0)
			pids[n++] = (pid_t)atoi(out);
		free(out);
		n = proc_add_descendants(pids, n, 64);
		for (int i = 0; i < n; i++) {
			struct proc_stat st;
			if (proc_read(pids[i], &st) && strcmp(st.comm, comm) == 0 && st.state != 'Z')
				return pids[i];
		}
		pause_ms(POLL_MS);
	} while (now_ms() < end);
	return -1;
}

char *tmux_see(const char *session, const char *want)
{
	char *s = tmux_wait_for(session, want);
	cr_assert(strstr(s, want), "never shown: %s\n%s", want, s);
	return s;
}

char *tmux_see_all(const char *session, const char *const *want)
{
	char *s = tmux_wait_for_all(session, want);
	for (int i = 0; want[i]; i++)
		cr_assert(strstr(s, want[i]), "never shown: %s\n%s", want[i], s);
	return s;
}

char *tmux_see_gone(const char *session, const char *gone)
{
	char *s = tmux_wait_without(session, gone);
	cr_assert(!strstr(s, gone), "still shown: %s\n%s", gone, s);
	return s;
}

/* ---- columns on a captured screen --------------------------------------------- */

/* The terminal column where want begins on the first line of screen s that
 * holds it (a wide character takes two), or -1. */
int screen_column(const char *s, const char *want)
{
	const char *at = strstr(s, want);
	if (!at)
		return -1;
	const char *l = at;
	while (l > s && l[-1] != '\n')
		l--;
	return utf8_width_n(l, (size_t)(at - l));
}

/* The column of the caret of error msg: beside it, or on the line above
 * it; -1 when neither has one. */
int screen_caret_column(const char *s, const char *msg)
{
	char beside[256];
	snprintf(beside, sizeof beside, "^ %s", msg);
	if (strstr(s, beside))
		return screen_column(s, beside);
	const char *m = strstr(s, msg);
	if (!m)
		return -1;
	const char *line = m;
	while (line > s && line[-1] != '\n')
		line--;
	if (line == s)
		return -1;
	const char *prev = line - 1;
	while (prev > s && prev[-1] != '\n')
		prev--;
	const char *caret = memchr(prev, '^', (size_t)(line - prev));
	return caret ? utf8_width_n(prev, (size_t)(caret - prev)) : -1;
}
