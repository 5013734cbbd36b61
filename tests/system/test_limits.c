/* test_limits.c: qkv eval at the limits of issue 15: exit(n) exits n as
 * Python does; a tensor, list or string too large is one message and exit 2
 * (QKV_MAX_ELEMS is capped at what a byte count holds, and holds for every
 * command, a lesson's steps and the full screen's prompt); running out of memory
 * under a lower address-space limit (ulimit -v) is a MemoryError and exit 2,
 * never 3 or a signal. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int eval_env(const char *env, const char *stmt, char **out, char **err)
{
	const char *argv[] = { "qkv", "eval", "-e", stmt, NULL };
	return run_qkv(argv, NULL, env, out, err);
}

/* err is one line holding words. */
static void expect_one_line(const char *err, const char *words, const char *what)
{
	cr_expect(strstr(err, words) != NULL, "%s: stderr lacks '%s': %s", what, words, err);
	const char *nl = strchr(err, '\n');
	cr_expect(nl && nl[1] == 0, "%s: want one line on stderr, got '%s'", what, err);
}

Test(limits, exit_with_a_number_should_end_eval_with_that_status)
{
	static const struct { const char *stmt; int status; const char *out; } cases[] = {
		{ "print(1); exit(3); print(2)", 3, "1\n" },
		{ "exit()", 0, "" },
		{ "quit(None)", 0, "" },
		{ "exit(True)", 1, "" },
		{ "exit(-1)", 255, "" },
		{ "exit('bye')", 1, "bye\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		int rc = eval_env(NULL, cases[i].stmt, &out, &err);
		cr_expect_eq(rc, cases[i].status, "%s: exit %d, want %d", cases[i].stmt, rc, cases[i].status);
		cr_expect_str_eq(out, cases[i].out, "%s", cases[i].stmt);
		cr_expect_str_empty(err, "%s: %s", cases[i].stmt, err);
		free(out);
		free(err);
	}
}

Test(limits, exit_in_a_statement_file_should_stop_it_with_that_status)
{
	char dir[64], path[96];
	dir_make_temp(dir, sizeof dir, "qkv-limits");
	snprintf(path, sizeof path, "%s/exit.qkv", dir);
	const char *src = "x = 1\nprint(x)\nexit(3)\nprint('after')\n";
	file_put(path, src, strlen(src));
	const char *argv[] = { "qkv", "eval", path, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_expect_eq(rc, 3);
	cr_expect_str_eq(out, "1\n");
	cr_expect_str_empty(err);
	free(out);
	free(err);
	dir_remove(dir);
}

Test(limits, exit_in_lines_piped_to_the_repl_should_end_it_with_that_status)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "print(1)\nexit(3)\nprint(2)\n", NULL, &out, &err);
	cr_expect_eq(rc, 3);
	cr_expect(strstr(out, "1\n") != NULL && strstr(out, "2") == NULL, "printed '%s'", out);
	free(out);
	free(err);
}

Test(limits, a_tensor_whose_bytes_overflow_should_be_over_the_limit_whatever_qkv_max_elems_says)
{
	char *out, *err;
	int rc = eval_env("QKV_MAX_ELEMS=9223372036854775807", "torch.zeros(2**62, dtype=torch.float64)", &out, &err);
	cr_expect_eq(rc, 2);
	cr_expect_str_empty(out, "printed '%s'", out);
	cr_expect(strstr(err, "QKV_MAX_ELEMS=9223372036854775807 is more than one tensor can hold; using "
			      "281474976710656") != NULL, "%s", err);
	cr_expect(strstr(err, "line 1, col 12: a tensor of shape [4611686018427387904] is over the limit of "
			      "281474976710656 elements\n") != NULL, "%s", err);
	free(out);
	free(err);

	rc = eval_env(NULL, "torch.ones(2**31, 2**31)", &out, &err);
	cr_expect_eq(rc, 2);
	expect_one_line(err, "a tensor of shape [2147483648, 2147483648] is over the limit", "ones(2**31, 2**31)");
	free(out);
	free(err);
}

Test(limits, a_bad_qkv_max_elems_should_give_one_message_and_exit_2)
{
	static const char *const bad[] = { "QKV_MAX_ELEMS=abc", "QKV_MAX_ELEMS=-5", "QKV_MAX_ELEMS=0",
					   "QKV_MAX_ELEMS=12x", "QKV_MAX_ELEMS=-99999999999999999999" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *out, *err;
		int rc = eval_env(bad[i], "1", &out, &err);
		cr_expect_eq(rc, 2, "%s: exit %d", bad[i], rc);
		expect_one_line(err, "QKV_MAX_ELEMS must be a positive whole number", bad[i]);
		cr_expect_str_empty(out, "%s", bad[i]);
		free(out);
		free(err);
	}
}

/* the limit is the process's: a lesson's step over it names its place in
 * the lesson, and a bad value stops any command before it starts */
Test(limits, qkv_max_elems_should_hold_for_a_lessons_steps_too)
{
	const char *argv[] = { "qkv", "run", "3", NULL };
	char *out, *err;
	cr_expect_eq(run_qkv(argv, NULL, "QKV_MAX_ELEMS=1000", &out, &err), 2, "%s", err);
	expect_one_line(err, ".json:", "run 3");
	cr_expect(strstr(err, "is over the limit of 1000 elements (set QKV_MAX_ELEMS to raise it)"), "%s", err);
	free(out);
	free(err);
	cr_expect_eq(run_qkv(argv, NULL, "QKV_MAX_ELEMS=many", &out, &err), 2, "%s", err);
	expect_one_line(err, "QKV_MAX_ELEMS must be a positive whole number, got 'many'", "run 3");
	cr_expect_str_empty(out);
	free(out);
	free(err);
}

/* the full screen's prompt, in a lesson whose own steps fit the limit */
Test(limits, qkv_max_elems_should_hold_at_the_full_screens_prompt)
{
	char state[] = "/tmp/qkv-limits-state-XXXXXX";
	cr_assert(mkdtemp(state) != NULL);
	const char *session = tmux_start_qkv(80, 24, state, "QKV_MAX_ELEMS=50", "1", "sleep 30");
	free(tmux_see(session, "step 1/"));
	tmux_keys(session, ":");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "x = torch.ones(10, 10)");
	char *s = tmux_see(session, "over the limit of 50 elements");
	cr_expect(strstr(s, "a tensor of shape [10, 10] is over the limit of 50 elements"), "%s", s);
	free(s);
	tmux_keys(session, "C-u");	/* the line failed: it stays, to be mended */
	tmux_line(session, "y = torch.ones(5, 10)");
	free(tmux_see(session, "y  (5\u00d710, float32)"));	/* 50 elements: made */
	tmux_private_server_end();
	dir_remove(state);
}

Test(limits, arange_over_the_limit_should_name_its_real_shape)
{
	char *out, *err;
	int rc = eval_env(NULL, "torch.arange(10**12)", &out, &err);
	cr_expect_eq(rc, 2);
	expect_one_line(err, "a tensor of shape [1000000000000] is over the limit of 67108864 elements", "arange");
	free(out);
	free(err);
}

Test(limits, lists_and_strings_past_their_limit_should_be_a_memory_error_at_the_operation)
{
	static const struct { const char *stmt; const char *words; } cases[] = {
		{ "l = [0] * 10000000; l = l + l", "line 1, col 27: MemoryError: a list of 20000000 items is over "
		  "qkv's limit of 10000000 items" },
		{ "l = [0] * 10000000; l += [1]", "col 23: MemoryError: a list of 10000001 items" },
		{ "l = [0] * 10000000; l.append(1)", "col 29: MemoryError: a list of 10000001 items" },
		{ "x = 1; s = f'{x:>60000}'\nfor i in range(20): s = s + s",
		  "line 2, col 27: MemoryError: a string of 122880000 bytes is over qkv's limit of 67108864 bytes" },
		{ "s = 'ab' * (2**25 + 1)", "col 10: MemoryError: 2 x 33554433 bytes is over qkv's limit of 67108864 bytes" },
		{ "s = str(['a' * 2**20] * 70)", "col 8: MemoryError: str() would be over qkv's limit of 67108864 bytes" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out, *err;
		int rc = eval_env(NULL, cases[i].stmt, &out, &err);
		cr_expect_eq(rc, 2, "%s: exit %d", cases[i].stmt, rc);
		expect_one_line(err, cases[i].words, cases[i].stmt);
		free(out);
		free(err);
	}
}

/* qkv eval -e stmt in an address space of limit bytes (ulimit -v): its exit
 * status (128 + a signal), stderr into *err (malloc'd). */
static int eval_limited(rlim_t limit, const char *stmt, char **err)
{
	int perr[2];
	cr_assert_eq(pipe(perr), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { limit, limit };
		setrlimit(RLIMIT_AS, &rl);
		dup2(perr[1], 2);
		close(perr[0]);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		execl(qkv_binary(), qkv_binary(), "eval", "-e", stmt, (char *)NULL);
		_exit(127);
	}
	close(perr[1]);
	size_t len = 0, cap = 4096;
	*err = calloc(cap, 1);
	ssize_t n;
	while ((n = read(perr[0], *err + len, cap - len - 1)) != 0) {
		if (n < 0) {
			cr_assert_eq(errno, EINTR);
			continue;
		}
		len += (size_t)n;
		if (cap - len < 2)
			*err = realloc(*err, cap *= 2);
		(*err)[len] = 0;
	}
	close(perr[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		cr_assert_eq(errno, EINTR);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* the statement that runs out is a MemoryError (tests/system/test_memory.c
 * has the session going on after it); eval exits 2 as for any error */
Test(limits, running_out_of_memory_should_be_a_memory_error_and_exit_2)
{
	rlim_t limit = (rlim_t)400 << 20;
	char *err;
	if (eval_limited(limit, "1", &err) != 0)	/* AddressSanitizer maps terabytes of shadow first */
		cr_skip_test("%s cannot start in 400 MiB of address space (a sanitizer build?): %.80s", qkv_binary(), err);
	free(err);
	static const struct { const char *stmt, *words; } cases[] = {
		{ "m = [[i] for i in range(9000000)]", "qkv: line 1, col 5: MemoryError: out of memory; the statement "
		  "was undone" },
		{ "x = torch.zeros(2**26)\ny = x + 1\nz = y + 1", "qkv: line 2, col 1: MemoryError: out of memory "
		  "(asked for 268435456 bytes); the statement was undone" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = eval_limited(limit, cases[i].stmt, &err);
		cr_expect_eq(rc, 2, "%s: exit %d (%s)", cases[i].stmt, rc, err);
		expect_one_line(err, cases[i].words, cases[i].stmt);
		free(err);
	}
}
