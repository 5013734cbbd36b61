/* helpers.c: process and text helpers for the tests (see helpers.h).
 * Test-only code: runs ./qkv with pipes and compares printed numbers. */
#include "helpers.h"
#include "core/textcmp.h"

#include <ctype.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *qkv_binary(void)
{
	const char *q = getenv("QKV");
	return q && *q ? q : "./qkv";
}

char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0, n;
	char *s = malloc(cap);
	while ((n = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			s = realloc(s, cap *= 2);
	}
	fclose(f);
	s[len] = 0;
	return s;
}

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
		size_t left = strlen(stdin_text);
		const char *p = stdin_text;
		while (left > 0) {
			ssize_t w = write(pin[1], p, left);
			if (w <= 0)
				break;
			p += w;
			left -= (size_t)w;
		}
	}
	close(pin[1]);
	size_t ol = 0, oc = 256, el = 0, ec = 256;
	*out = calloc(oc, 1);
	*err = calloc(ec, 1);
	struct pollfd fds[2] = { { pout[0], POLLIN, 0 }, { perr[0], POLLIN, 0 } };
	int open_fds = 2;
	char buf[4096];
	while (open_fds > 0) {
		if (poll(fds, 2, 60000) <= 0)
			break;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
				continue;
			ssize_t r = read(fds[i].fd, buf, sizeof buf);
			if (r <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			} else if (i == 0) {
				append(out, &ol, &oc, buf, (size_t)r);
			} else {
				append(err, &el, &ec, buf, (size_t)r);
			}
		}
	}
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool text_matches(const char *got, const char *want, double f32_rel, bool prefix, char *why, size_t whylen)
{
	return textcmp_match(got, want, f32_rel, prefix, why, whylen);
}

static char tmux_dir[64];

void tmux_private_server(void)
{
	if (tmux_dir[0])
		return;
	snprintf(tmux_dir, sizeof tmux_dir, "/tmp/qkv-tmux-%d", (int)getpid());
	mkdir(tmux_dir, 0700);
	setenv("TMUX_TMPDIR", tmux_dir, 1);
}

void tmux_private_server_end(void)
{
	if (!tmux_dir[0])
		return;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "tmux kill-server 2>/dev/null; rm -rf %s", tmux_dir);
	if (system(cmd) != 0) {
		/* no server was running */
	}
	tmux_dir[0] = 0;
}

char *tmux_screen(const char *session, bool escapes)
{
	char cmd[256], path[128];
	snprintf(path, sizeof path, "/tmp/qkv-screen-%d.txt", (int)getpid());
	snprintf(cmd, sizeof cmd, "tmux capture-pane -p %s -t %s > %s 2>/dev/null", escapes ? "-e" : "", session, path);
	if (system(cmd) != 0)
		return strdup("");
	char *s = read_text(path);
	unlink(path);
	return s ? s : strdup("");
}

char *tmux_wait_for(const char *session, const char *want)
{
	for (int i = 0; i < 160; i++) {
		char *s = tmux_screen(session, false);
		if (strstr(s, want))
			return s;
		free(s);
		usleep(50000);
	}
	return tmux_screen(session, false);
}
