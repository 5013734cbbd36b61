/* test_memory.c: running out of memory ends the statement, not the session.
 * Under an address-space limit (ulimit -v, set by sh -c) a tensor, a list or
 * a string that cannot be had is a MemoryError at its statement, in qkv eval
 * (exit 2, as for any error), qkv repl and the full screen, and the next
 * statement runs. Skipped for the sanitizer build (./qkv-san, or
 * QKV_SANITIZED set): its shadow memory takes terabytes of address space and
 * its allocator reports and aborts where malloc returns NULL. */
#include "system.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define LIMIT_KB "600000"
/* tensors up to a billion elements, so that memory runs out before the limit */
#define BIG_ENV "QKV_MAX_ELEMS=1000000000"

static void skip_sanitized(void)
{
	if (strstr(qkv_binary(), "-san") || getenv("QKV_SANITIZED"))
		cr_skip_test("%s is the sanitizer build: ulimit -v cannot hold its shadow memory", qkv_binary());
}

/* qkv ARGS under ulimit -v with input on standard input: the exit status,
 * standard output and error (malloc'd). */
static int run_limited(const char *args, const char *input, char **out, char **err)
{
	char dir[64], path[128], cmd[1024];
	dir_make_temp(dir, sizeof dir, "qkv-mem");
	snprintf(path, sizeof path, "%s/in", dir);
	file_put(path, input, strlen(input));
	snprintf(cmd, sizeof cmd, "sh -c 'ulimit -v " LIMIT_KB "; " BIG_ENV " exec %s %s' <%s/in >%s/out 2>%s/err",
		 qkv_binary(), args, dir, dir, dir);
	int st = system(cmd);
	snprintf(path, sizeof path, "%s/out", dir);
	*out = read_text(path);
	snprintf(path, sizeof path, "%s/err", dir);
	*err = read_text(path);
	dir_remove(dir);
	cr_assert(*out && *err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the statements that run out, each followed by one that must work */
static const char REPL_INPUT[] =
	"import torch\n"
	"x = torch.zeros(30000, 30000)\n"
	"print('after the tensor', torch.ones(2).sum().item())\n"
	"m = [[i] for i in range(9000000)]\n"
	"print('after the list')\n"
	"s = 'ab' * 30000000\n"
	"t = [s + str(i) for i in range(100)]\n"
	"print('after the strings', len(s))\n";

Test(memory, a_statement_that_runs_out_should_be_a_memory_error_in_repl_and_the_next_one_run)
{
	skip_sanitized();
	char *out, *err;
	int rc = run_limited("repl", REPL_INPUT, &out, &err);
	cr_expect_eq(rc, 2, "exit %d (2: a statement failed): %s", rc, err);
	const char *all = strstr(err, "MemoryError: out of memory");
	cr_expect(all != NULL, "no MemoryError:\n%s\n%s", out, err);
	/* three statements ran out, each with its MemoryError */
	int n = 0;
	for (const char *p = err; (p = strstr(p, "MemoryError: out of memory")) != NULL; p++)
		n++;
	cr_expect_eq(n, 3, "%d MemoryErrors:\n%s", n, err);
	cr_expect(strstr(err, "asked for 3600000000 bytes") != NULL, "the tensor's size is not named:\n%s", err);
	cr_expect(strstr(out, "after the tensor 2.0\n") != NULL, "%s", out);
	cr_expect(strstr(out, "after the list\n") != NULL, "%s", out);
	cr_expect(strstr(out, "after the strings 60000000\n") != NULL, "%s", out);
	cr_expect(!strstr(err, "qkv: out of memory"), "the session ended:\n%s", err);
	free(out);
	free(err);
}

Test(memory, a_statement_that_runs_out_should_end_eval_with_exit_2_at_its_line)
{
	skip_sanitized();
	char *out, *err;
	int rc = run_limited("eval -", "import torch\nprint('before')\ny = torch.ones(30000, 30000) * 2\nprint('never')\n",
			     &out, &err);
	cr_expect_eq(rc, 2, "exit %d: %s", rc, err);
	cr_expect_str_eq(out, "before\n");
	cr_expect_str_eq(err, "qkv: line 3, col 1: MemoryError: out of memory (asked for 3600000000 bytes); "
			      "the statement was undone\n");
	free(out);
	free(err);
}

/* the full screen (its own limit of 64 Mi elements a tensor): the error
 * under the statement, the prompt still there */
Test(memory, a_statement_that_runs_out_should_leave_the_full_screen_running)
{
	skip_sanitized();
	char state[64], cmd[1024];
	dir_make_temp(state, sizeof state, "qkv-mem-state");
	snprintf(cmd, sizeof cmd, "ulimit -v " LIMIT_KB "; TERM=xterm-256color XDG_STATE_HOME=%s " BIG_ENV " %s --repl; "
		 "echo QKV-EXIT=$?; sleep 30", state, qkv_binary());
	const char *session = tmux_start(100, 30, cmd);
	free(tmux_see(session, ">>>"));
	tmux_line(session, "xs = [torch.zeros(8000, 8000) for i in range(10)]");
	free(tmux_see(session, "MemoryError: out of memory (asked for 256000000 bytes)"));
	tmux_keys(session, "C-u");	/* the failed statement stays on the line, for editing */
	tmux_line(session, "y = torch.ones(3) * 7");
	tmux_line(session, "print(y.sum().item())");
	char *s = tmux_see(session, "21.0");
	cr_expect(!strstr(s, "QKV-EXIT"), "qkv ended:\n%s", s);
	free(s);
	tmux_private_server_end();
	dir_remove(state);
}
