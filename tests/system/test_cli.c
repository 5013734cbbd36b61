/* test_cli.c: qkv eval, qkv repl (statements and ':' commands), --help and
 * --version as a person runs them: the binary is started with pipes, its
 * output, errors and exit status read. Every bad input of the engine issue
 * must give one line naming the column, exit status 2, and no change to the
 * workspace. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int eval1(const char *stmt, char **out, char **err)
{
	const char *argv[] = { "qkv", "eval", "-e", stmt, NULL };
	return run_qkv(argv, NULL, NULL, out, err);
}

struct bad {
	const char *stmt;
	int col;
	const char *words;   /* must appear in the message */
};

/* One statement each; the column is where the caret belongs. */
static const struct bad bad_inputs[] = {
	{ "Y = undefined_name + 1", 5, "name 'undefined_name' is not defined" },
	{ "torch.dot(torch.ones(2))", 10, "missing required argument 'other'" },
	{ "torch.tril(torch.ones(2, 2), 0, 1)", 33, "takes at most 2 arguments" },
	{ "torch.softmax(torch.ones(2), dim=0, axis=1)", 37, "unexpected keyword argument 'axis'" },
	{ "torch.dot(1, 2)", 11, "must be a tensor, not int" },
	{ "torch.ones(2, 3) @ torch.ones(2, 3)", 18, "shapes [2, 3] and [2, 3] cannot be multiplied" },
	{ "torch.ones(2, 3) + torch.ones(4)", 18, "shapes [2, 3] and [4] do not broadcast" },
	{ "torch.matmul(torch.ones(2, 5), torch.ones(4, 3))", 13, "[2, 5] and [4, 3]" },
	{ "torch.ones(3)[5]", 15, "index 5 is out of range for dimension 0 with size 3" },
	{ "torch.randint(0, 5)", 18, "randint(): argument 'size' (position 2) must be tuple of ints, not int" },
	{ "torch.ones(2, 3)[0, 5]", 21, "index 5 is out of range for dimension 1 with size 3" },
	{ "torch.ones(2, 3)[None, 1, [0, 4]]", 27, "index 4 is out of range for dimension 1 with size 3" },
	{ "torch.ones(2, 3)[0, 1, 2]", 17, "too many indices" },
	{ "torch.ones(2, 3).T.view(6)", 24, "non-contiguous" },
	{ "torch.ones(2, 3).transpose(0, 4)", 31, "Dimension out of range (expected to be in range of [-2, 1], but got 4)" },
	{ "torch.softmax(torch.ones(2, 2), dim=-3)", 33, "Dimension out of range (expected to be in range of [-2, 1], but got -3)" },
	{ "torch.randn(-1, 3)", 13, "negative dimension -1: [-1, 3]" },
	{ "torch.ones(2, 3).view(4, 2)", 22, "invalid for a tensor of shape [2, 3]" },
	{ "print(\"abc)", 7, "unterminated string" },
	{ "X = [1 2 3; 4 5]", 16, "row 2 has 2 elements, row 1 has 3" },
	{ "torch.tensor([[1, 2], [3]])", 14, "ragged" },
	{ "np.array([[1.0], [2.0, 3.0]])", 10, "ragged" },
	{ "x = 1e999", 5, "out of range" },
	{ "torch.ones(100000, 100000)", 11, "over the limit" },
	{ "torch.ones(2).masked_fill(torch.ones(2), 0.0)", 27, "bool mask" },
	{ "torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)", 18, "same dtype" },
	{ "torch.softmax(torch.tensor([1, 2]), dim=0)", 15, "floating-point" },
	{ "float('abc')", 7, "could not convert string to float" },
	{ "1 / 0", 3, "division by zero" },
	{ "(1, 2)[3]", 8, "out of range" },
	{ "torch.nope(1)", 7, "has no attribute 'nope'" },
	{ "x = ", 3, "the input ends after '='" },
	{ "a b", 3, "" },
	{ "for i in range(3): y = i / 0", 26, "division by zero" },
	{ "def f(x): return x +* 2", 21, "unexpected '*'" },
	{ "try: x = 1", 1, "try" },
	{ "for i in 5: print(i)", 10, "'int' object is not iterable" },
};

Test(cli, every_bad_input_should_give_one_line_with_its_column_and_exit_2)
{
	for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; i++) {
		const struct bad *b = &bad_inputs[i];
		char *out, *err;
		int rc = eval1(b->stmt, &out, &err);
		cr_expect_eq(rc, 2, "%s: exit %d", b->stmt, rc);
		char prefix[64];
		snprintf(prefix, sizeof prefix, "qkv: line 1, col %d: ", b->col);
		cr_expect(strncmp(err, prefix, strlen(prefix)) == 0, "%s: want '%s...', got '%s'", b->stmt, prefix, err);
		cr_expect(strstr(err, b->words) != NULL, "%s: message lacks '%s': %s", b->stmt, b->words, err);
		char *nl = strchr(err, '\n');
		cr_expect(nl && nl[1] == 0, "%s: want exactly one line on stderr, got '%s'", b->stmt, err);
		cr_expect_str_empty(out, "%s: printed '%s'", b->stmt, out);
		free(out);
		free(err);
	}
}

Test(cli, eval_should_run_the_statements_before_an_error_and_none_after)
{
	const char *argv[] = { "qkv", "eval", "-e", "print(1)", "-e", "x = 2; print(x); bad(", "-e", "print(3)", NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 2);
	cr_assert_str_eq(out, "1\n2\n");
	cr_assert(strncmp(err, "qkv: line 2, col ", 17) == 0, "%s", err);
	free(out);
	free(err);
}

Test(cli, eval_should_read_a_file_or_standard_input)
{
	const char *argv[] = { "qkv", "eval", "-", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "X = [1 2; 3 4]\nX.sum()\n\nX.T\n", NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_str_eq(out, "tensor(10.)\ntensor([[1., 3.],\n        [2., 4.]])\n");
	free(out);
	free(err);
	const char *argv2[] = { "qkv", "eval", "tests/docs/no-such-file.qkv", NULL };
	rc = run_qkv(argv2, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 2);
	cr_assert(strstr(err, "no-such-file.qkv") != NULL, "%s", err);
	free(out);
	free(err);
}

Test(cli, eval_errors_in_a_file_should_name_the_file_line_and_column)
{
	const char *argv[] = { "qkv", "eval", "-", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "a = 1\nb = [1 2; 3 4]\nc = b @ torch.ones(3)\n", NULL, &out, &err);
	cr_assert_eq(rc, 2);
	cr_assert_str_eq(err, "qkv: line 3, col 7: matmul: shapes [2, 2] and [3] cannot be multiplied "
			 "(2 columns on the left, 3 rows on the right)\n");
	free(out);
	free(err);
}

/* a named file's lines are its own, whatever -e statements ran before it */
Test(cli, eval_errors_in_a_file_after_e_statements_should_count_the_files_lines)
{
	char path[] = "/tmp/qkv-eval-lines-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "print(2)\nzz\n", 12), 12);
	close(fd);
	const char *argv[] = { "qkv", "eval", "-e", "x = 1", "-e", "y = 2", path, NULL };
	char *out, *err, want[128];
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	unlink(path);
	cr_assert_eq(rc, 2);
	cr_expect_str_eq(out, "2\n");
	snprintf(want, sizeof want, "qkv: %s: line 2, col 1: name 'zz' is not defined\n", path);
	cr_expect_str_eq(err, want);
	free(out);
	free(err);
}

/* into one pipe (2>&1), what a statement printed comes before the error
 * after it, in eval and in repl */
Test(cli, printed_lines_should_come_before_the_error_in_one_pipe)
{
	static const char *const cmds[] = { "eval -", "repl" };
	for (int i = 0; i < 2; i++) {
		char cmd[512];
		snprintf(cmd, sizeof cmd, "printf 'print(\"before\")\\nx = 1 / 0\\n' | %s %s 2>&1", qkv_binary(),
			 cmds[i]);
		FILE *p = popen(cmd, "r");
		cr_assert(p);
		char all[1024];
		size_t n = fread(all, 1, sizeof all - 1, p);
		all[n] = 0;
		pclose(p);
		const char *before = strstr(all, "before"), *error = strstr(all, "division by zero");
		cr_expect(before && error && before < error, "%s:\n%s", cmds[i], all);
	}
}

Test(cli, json_should_print_shape_dtype_and_full_precision_data)
{
	const char *argv[] = { "qkv", "eval", "--json", "-e",
			       "x = torch.tensor([[1.5, float('-inf')], [0.1, float('nan')]]); x; x.shape[-1]; 2.5; "
			       "print('hi'); torch.tensor([True, False]); np.array([0.1, 1e300])", NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_str_eq(out,
			 "{\"shape\":[2,2],\"dtype\":\"float32\",\"data\":[1.5,\"-inf\",0.1,\"nan\"]}\n"
			 "{\"shape\":[],\"dtype\":\"int64\",\"data\":[2]}\n"
			 "{\"shape\":[],\"dtype\":\"float64\",\"data\":[2.5]}\n"
			 "{\"text\":\"hi\"}\n"
			 "{\"shape\":[2],\"dtype\":\"bool\",\"data\":[true,false]}\n"
			 "{\"shape\":[2],\"dtype\":\"float64\",\"data\":[0.1,1e+300]}\n");
	free(out);
	free(err);
}

Test(cli, kernels_should_be_selectable_before_or_after_the_command)
{
	const char *argv[] = { "qkv", "eval", "--kernel=loops", "-e", "torch.softmax([1 2; 3 5], dim=-1)", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "tensor([[0.2689, 0.7311],\n        [0.1192, 0.8808]])\n");
	free(out);
	free(err);
	const char *bad[] = { "qkv", "--kernel=fast", "eval", "-e", "1", NULL };
	cr_assert_eq(run_qkv(bad, NULL, NULL, &out, &err), 2);
	cr_assert(strstr(err, "qkv: --kernel must be simd, unrolled or loops, got '--kernel=fast'") != NULL, "%s", err);
	free(out);
	free(err);
}

/* matmul, softmax and attention (causal, over two heads) on each kernel,
 * chosen before or after the command: the same printed digits */
Test(cli, the_unrolled_kernel_should_print_what_loops_and_simd_print)
{
	static const char *const kernels[][2] = { { "--kernel=simd", NULL }, { "--kernel=loops", NULL },
						  { NULL, "--kernel=unrolled" }, { "--kernel=unrolled", NULL } };
	char *first = NULL;
	for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
		const char *before = kernels[i][0] ? kernels[i][0] : "eval";
		const char *after = kernels[i][0] ? "eval" : kernels[i][1];
		const char *argv[] = { "qkv", before, after, "-e", "import torch.nn.functional as F",
				       "-e", "q = torch.arange(24.).reshape(2, 3, 4) / 10",
				       "-e", "F.scaled_dot_product_attention(q, q, q, is_causal=True)",
				       "-e", "torch.softmax(q @ q.transpose(-2, -1), dim=-1)", NULL };
		char *out, *err;
		cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s %s: %s", before, after, err);
		cr_assert(strstr(out, "[1.5209, 1.6209, 1.7209, 1.8209]"), "%s %s: %s", before, after, out);
		if (first)
			cr_assert_str_eq(out, first, "%s %s", before, after);
		else
			first = strdup(out);
		free(out);
		free(err);
	}
	free(first);
}

Test(cli, repl_should_show_a_caret_and_keep_the_workspace_after_an_error)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv,
			 "X = [1 2; 3 4]\n"
			 "X = X @ torch.ones(3)\n"
			 "X\n"
			 "torch.manual_seed(1); a = torch.rand(1)\n"
			 "X = X.T; b = torch.rand(2); c = b @ b @ b\n"
			 "X; torch.rand(2)\n"
			 "torch.manual_seed(1); a = torch.rand(1); torch.rand(2)\n",
			 NULL, &out, &err);
	cr_assert_eq(rc, 2, "an error in piped input makes the exit status 2");
	/* the failing lines left X alone and rolled the random stream back: the
	 * last two lines draw the same numbers */
	const char *want_x = "tensor([[1., 2.],\n        [3., 4.]])\n";
	cr_assert(strncmp(out, want_x, strlen(want_x)) == 0, "%s", out);
	const char *rest = out + strlen(want_x);
	cr_assert(strncmp(rest, want_x, strlen(want_x)) == 0, "X changed: %s", out);
	rest += strlen(want_x);
	const char *nl = strchr(rest, '\n');
	cr_assert(nl && strcmp(nl + 1, rest) != 0);
	cr_assert(strncmp(rest, nl + 1, (size_t)(nl - rest + 1)) == 0, "random stream not rolled back: %s", out);
	cr_assert(strstr(err, "    X = X @ torch.ones(3)\n          ^\nerror: matmul: shapes [2, 2] and [3]") == err,
		  "%s", err);
	free(out);
	free(err);
}

/* The caret stands as many columns in as the characters before the mistake
 * take on a terminal: 2 for a wide one, a tab for a tab. */
Test(cli, repl_should_put_the_caret_under_a_mistake_after_wide_characters)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "x = \"\u65e5\u672c\u8a9e\" + y\nprint(\"\t\", qq)\n", NULL, &out, &err);
	cr_assert_eq(rc, 2, "%s", err);
	cr_assert(strstr(err, "    x = \"\u65e5\u672c\u8a9e\" + y\n"
			      "                   ^\n"	/* 4 + 15 columns: 日本語 takes 6 */
			      "error: name 'y' is not defined\n"),
		  "%s", err);
	cr_assert(strstr(err, "    print(\"\t\", qq)\n"
			      "           \t   ^\n"),	/* print(" then a tab, then ", */
		  "%s", err);
	free(out);
	free(err);
}

Test(cli, repl_should_continue_a_statement_over_open_brackets)
{
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, "inputs = torch.tensor([[0.43, 0.15],\n   [0.55, 0.87]])\ninputs.shape\n", NULL, &out,
			 &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_str_eq(out, "torch.Size([2, 2])\n");
	free(out);
	free(err);
}

Test(cli, repl_should_run_the_prompt_commands_and_put_a_caret_under_a_bad_one)
{
	char state[64], file[128], in[1024];
	dir_make_temp(state, sizeof state, "qkv-repl-cmd");
	snprintf(file, sizeof file, "%s/kept.json", state);
	snprintf(in, sizeof in,
		 "X = [1 2; 3 4]\n"
		 ":ls\n"
		 ":show X @ X\n"
		 "  :frob X\n"
		 ":help\n"
		 ":help keys\n"
		 ":help nope\n"
		 ":clear\n"
		 ":save %s\n"
		 ":reset\n"
		 ":ls\n"
		 ":load %s\n"
		 ":show X.sum()\n"
		 ":quit\n"
		 "print('not reached')\n", file, file);
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, in, NULL, &out, &err);
	cr_expect_eq(rc, 2, "the bad commands make a pipe's exit status 2");
	/* :ls, :show as text, :help's overview and line-mode keys, :save, :reset, :load */
	cr_expect(strstr(out, "X                Tensor     [2, 2]           float32\ntensor([[ 7., 10.],\n"
			 "        [15., 22.]])\n"), "%s", out);
	cr_expect(strstr(out, ":show EXPR          print a value"), "%s", out);
	cr_expect(strstr(out, "Ctrl-D on an empty line, :quit or quit() leaves"), "%s", out);
	cr_expect(!strstr(out, "Esc"), "the full screen's keys: %s", out);
	cr_expect(strstr(out, "Saved ") && strstr(out, "The workspace is empty again.\n(the workspace is empty)\n"),
		  "%s", out);
	cr_expect(strstr(out, "Loaded ") && strstr(out, "tensor(10.)\n"), "%s", out);
	cr_expect(!strstr(out, "not reached"), ":quit did not leave: %s", out);
	/* one message each, the line and a caret under the ':' or the argument */
	cr_expect(strstr(err, "      :frob X\n      ^\nerror: unknown command ':frob' (:help lists them)\n"), "%s",
		  err);
	cr_expect(strstr(err, "    :help nope\n          ^\nerror: no help on 'nope'"), "%s", err);
	cr_expect(strstr(err, "    :clear\n    ^\nerror: ':clear' works only in the full screen's prompt"), "%s",
		  err);
	free(out);
	free(err);
	dir_remove(state);
}

Test(cli, help_and_version_should_print_and_exit_0)
{
	const char *h[] = { "qkv", "--help", NULL };
	const char *v[] = { "qkv", "--version", NULL };
	const char *u[] = { "qkv", "frobnicate", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(h, NULL, NULL, &out, &err), 0);
	cr_assert(strstr(out, "usage: qkv") == out);
	free(out);
	free(err);
	cr_assert_eq(run_qkv(v, NULL, NULL, &out, &err), 0);
	cr_assert(strncmp(out, "qkv ", 4) == 0);
	free(out);
	free(err);
	cr_assert_eq(run_qkv(u, NULL, NULL, &out, &err), 2);
	cr_assert(strstr(err, "'frobnicate' is not a command") != NULL, "%s", err);
	free(out);
	free(err);
}

Test(cli, max_elems_should_come_from_the_environment_and_be_checked)
{
	const char *argv[] = { "qkv", "eval", "-e", "torch.ones(10, 10)", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, "QKV_MAX_ELEMS=50", &out, &err), 2);
	cr_assert(strstr(err, "over the limit of 50 elements") != NULL, "%s", err);
	free(out);
	free(err);
	cr_assert_eq(run_qkv(argv, NULL, "QKV_MAX_ELEMS=lots", &out, &err), 2);
	cr_assert(strstr(err, "QKV_MAX_ELEMS must be a positive whole number") != NULL, "%s", err);
	free(out);
	free(err);
}

Test(cli, qkv_threads_should_be_checked_and_not_change_a_result)
{
	const char *argv[] = { "qkv", "eval", "-e", "torch.manual_seed(0); A = torch.randn(300, 200); "
			       "B = torch.randn(200, 250); C = A @ B; C.sum().item(), C[299, 249].item()", NULL };
	char *one, *many, *err;
	cr_assert_eq(run_qkv(argv, NULL, "QKV_THREADS=1", &one, &err), 0, "%s", err);
	free(err);
	cr_assert_eq(run_qkv(argv, NULL, "QKV_THREADS=3", &many, &err), 0, "%s", err);
	free(err);
	cr_assert_str_eq(one, many);
	free(one);
	free(many);
	static const char *const bad[] = { "QKV_THREADS=0", "QKV_THREADS=many", "QKV_THREADS=65", "QKV_THREADS=2x" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *out;
		cr_assert_eq(run_qkv(argv, NULL, bad[i], &out, &err), 2, "%s", bad[i]);
		cr_assert(strstr(err, "QKV_THREADS must be a whole number from 1 to 64, got '"), "%s", err);
		free(out);
		free(err);
	}
}

Test(cli, qkv_no_simd_should_run_the_scalar_kernels_and_refuse_other_values)
{
	const char *argv[] = { "qkv", "eval", "-e", "torch.manual_seed(0); q = torch.randn(3, 90, 16); "
			       "o = F.scaled_dot_product_attention(q, q, q, is_causal=True); "
			       "w = torch.softmax(q @ q.mT, dim=-1) @ q; print(o[2, 89, :3], w.sum())", NULL };
	char *simd, *scalar, *err;
	cr_assert_eq(run_qkv(argv, NULL, "QKV_NO_SIMD=0", &simd, &err), 0, "%s", err);
	free(err);
	cr_assert_eq(run_qkv(argv, NULL, "QKV_NO_SIMD=1", &scalar, &err), 0, "%s", err);
	free(err);
	cr_assert_str_eq(simd, scalar);	/* four digits agree; the bits need not */
	free(simd);
	free(scalar);
	const char *bench[] = { "qkv", "bench", "--quick", NULL };
	cr_assert_eq(run_qkv(bench, NULL, "QKV_NO_SIMD=1", &scalar, &err), 0, "%s", err);
	cr_assert(strstr(scalar, ": scalar kernels"), "%s", scalar);
	free(scalar);
	free(err);
	cr_assert_eq(run_qkv(argv, NULL, "QKV_NO_SIMD=yes", &scalar, &err), 2);
	cr_assert(strstr(err, "QKV_NO_SIMD must be 1 (scalar kernels) or 0, got 'yes'"), "%s", err);
	free(scalar);
	free(err);
}

/* QKV_SIMD picks a path by name (the bench says which); the same statement
 * prints the same digits on each. A path this CPU lacks, an unknown one or a
 * clash with QKV_NO_SIMD=1 is one message and status 2. */
Test(cli, qkv_simd_should_force_a_path_and_refuse_what_this_cpu_lacks)
{
	const char *argv[] = { "qkv", "eval", "-e", "torch.manual_seed(0); q = torch.randn(3, 90, 16); "
			       "o = F.scaled_dot_product_attention(q, q, q, is_causal=True); "
			       "w = torch.softmax(q @ q.mT, dim=-1) @ q; print(o[2, 89, :3], w.sum())", NULL };
	const char *bench[] = { "qkv", "bench", "--quick", NULL };
	static const char *const paths[] = { "avx512", "avx2", "sse2", "scalar" };
	char *first = NULL, *out, *err;
	int ran = 0;
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		char env[32], want[48];
		snprintf(env, sizeof env, "QKV_SIMD=%s", paths[i]);
		int rc = run_qkv(argv, NULL, env, &out, &err);
		if (rc == 2) {	/* not on this CPU: said so, naming what it has */
			cr_assert(strstr(err, "this CPU has no ") && strstr(err, "(it has "), "%s: %s", env, err);
			cr_assert(strcmp(paths[i], "scalar") != 0 && strcmp(paths[i], "sse2") != 0, "%s: %s", env, err);
			free(out);
			free(err);
			continue;
		}
		cr_assert_eq(rc, 0, "%s: %s", env, err);
		ran++;
		if (first == NULL)
			first = out;
		else {
			cr_assert_str_eq(out, first, "%s", env);	/* four digits agree; the bits need not */
			free(out);
		}
		free(err);
		cr_assert_eq(run_qkv(bench, NULL, env, &out, &err), 0, "%s: %s", env, err);
		snprintf(want, sizeof want, ": %s kernels", paths[i]);
		cr_assert(strstr(out, want), "%s: %s", env, out);
		free(out);
		free(err);
	}
	free(first);
	cr_assert_geq(ran, 2, "sse2 and scalar run everywhere on x86-64");
	static const char *const bad[][2] = {
		{ "QKV_SIMD=avx3", "QKV_SIMD must be avx512, avx2, sse2, neon or scalar, got 'avx3'" },
		{ "QKV_SIMD=neon", "QKV_SIMD=neon: this CPU has no neon path (it has " },
		{ "QKV_SIMD=AVX2", "QKV_SIMD must be avx512, avx2, sse2, neon or scalar, got 'AVX2'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cr_assert_eq(run_qkv(argv, NULL, bad[i][0], &out, &err), 2, "%s", bad[i][0]);
		cr_assert(strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
		cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
		free(out);
		free(err);
	}
}

/* QKV_NO_SIMD=1 with QKV_SIMD naming a vector path: they disagree, status 2;
 * with QKV_SIMD=scalar they agree. */
Test(cli, qkv_no_simd_with_a_vector_qkv_simd_should_be_refused)
{
	const char *argv[] = { "qkv", "bench", "--quick", NULL };
	char *out, *err;
	setenv("QKV_NO_SIMD", "1", 1);	/* this test's own process: qkv inherits it */
	cr_assert_eq(run_qkv(argv, NULL, "QKV_SIMD=sse2", &out, &err), 2, "%s", out);
	cr_assert(strstr(err, "QKV_SIMD=sse2 and QKV_NO_SIMD=1 disagree"), "%s", err);
	free(out);
	free(err);
	cr_assert_eq(run_qkv(argv, NULL, "QKV_SIMD=scalar", &out, &err), 0, "%s", err);
	cr_assert(strstr(out, ": scalar kernels"), "%s", out);
	free(out);
	free(err);
}

/* Inputs a fuzzer found crashing (or tripping a sanitizer) before they were
 * fixed: each must end with status 0 or 2 and at most one line of error,
 * which under the sanitizer build (make test-san) also means no report. */
static const char *const fuzz_regressions[] = {
	"nn.Linear(0, 9223372036854775807)",
	"range(-9223372036854775807 - 1, 9223372036854775807)",
	"range(-9223372036854775807, -3, 65)",
	"range(0, 9223372036854775807, 3)",
	"range(10, 0, -9223372036854775807 - 1)",
	"range(9223372036854775807)",
	"torch.arange(9223372036854775807, -9223372036854775807 - 1, -2**62)",
	"torch.cat([torch.zeros(9223372036854775807, 0), torch.zeros(9223372036854775807, 0)])",
	"torch.full((2,), 9223372036854775807)",
	"torch.zeros(2**62, 4, 0, 3)",
	"torch.zeros(2, 9223372036854775807, 0).transpose(0, 1).contiguous()",
	"torch.zeros(9223372036854775807, 0).tolist()",
	"torch.zeros(9223372036854775807, 0)[::4611686018427387904]",
	"torch.zeros(9223372036854775807, 0, 2) @ torch.zeros(2, 3)",
	"x = torch.zeros(0).view(2**32, 2**32); x[1, 1] = 1.0",
	"torch.zeros(0).reshape(2**32, 2**32)",
	"torch.zeros(2**40, 0).sum(0)",
	"torch.ones(0, 2**40).softmax(0)",
	"torch.stack([torch.zeros(2**40, 0)])",
	"np.zeros((2**40, 0)).sum(axis=0)",
	"torch.arange(3) + 9223372036854775807",
	"torch.tensor(7).fill_(float('inf'))",
	"torch.arange(6).masked_fill_(torch.arange(6) > 2, 1e19)",
	"sum([9223372036854775807, 1])",
	"torch.triu(torch.ones(3, 3), 9223372036854775807)",
	"torch.arange(5.)[::9223372036854775807]",
	"torch.arange(6.).view(2, 3)[::2**62]",
	"range(-9223372036854775807, 0, 5)",
	"torch.arange(3) // 0",
};

Test(cli, inputs_that_once_crashed_should_end_cleanly)
{
	for (size_t i = 0; i < sizeof fuzz_regressions / sizeof fuzz_regressions[0]; i++) {
		char *out, *err;
		int rc = eval1(fuzz_regressions[i], &out, &err);
		cr_expect(rc == 0 || rc == 2, "%s: exit %d: %s", fuzz_regressions[i], rc, err);
		char *nl = strchr(err, '\n');
		cr_expect(!nl || nl[1] == 0, "%s: more than one line on stderr: %s", fuzz_regressions[i], err);
		cr_expect(rc == 0 || strncmp(err, "qkv: line 1, col ", 17) == 0, "%s: %s", fuzz_regressions[i], err);
		free(out);
		free(err);
	}
}
