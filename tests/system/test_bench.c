/* test_bench.c: qkv bench --quick runs every case (the kernels on the three
 * variants, which agree on each; the interpreter's; the screen's), --case
 * picks cases by name and --kernel variants, every JSON row names the
 * kernel path; and the full
 * screen's opt-in frame log (QKV_FRAME_LOG) that tests/frame_time.sh reads.
 * The numbers themselves are not judged here (speed is read from qkv bench,
 * never from timed tests). */
#include "system.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The value after "key": in a JSON line, or NAN. */
static double field(const char *line, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = strstr(line, pat);
	return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The line of out that begins with {"case":"NAME","variant":"VARIANT", or NULL. */
static const char *row(const char *out, const char *name, const char *variant)
{
	char want[96];
	snprintf(want, sizeof want, "{\"case\":\"%s\",\"variant\":\"%s\",", name, variant);
	return strstr(out, want);
}

/* Every line of out is one JSON object naming the same kernel path, which
 * is returned (static), or the test fails. */
static const char *same_path_on_every_line(const char *out)
{
	static char path[32];
	path[0] = 0;
	for (const char *l = out; *l; l = strchr(l, '\n') + 1) {
		const char *nl = strchr(l, '\n');
		cr_assert(nl && *l == '{' && nl[-1] == '}', "not one object per line: %s", l);
		const char *p = strstr(l, "\"path\":\"");
		cr_assert(p && p < nl, "no path in %.*s", (int)(nl - l), l);
		p += 8;
		size_t n = strcspn(p, "\"");
		cr_assert(n > 0 && n < sizeof path, "%.*s", (int)(nl - l), l);
		if (!path[0])
			snprintf(path, sizeof path, "%.*s", (int)n, p);
		cr_assert(strncmp(p, path, n) == 0 && path[n] == 0, "path %.*s, before %s", (int)n, p, path);
	}
	cr_assert(path[0], "no lines");
	return path;
}

/* out has a measured peak, and names one kernel path on every line. */
static void peak_and_one_path(const char *out)
{
	const char *peak = strstr(out, "{\"case\":\"peak\"");
	cr_assert(peak && field(peak, "gflops") > 0, "%s", out);
	same_path_on_every_line(out);
}

Test(bench, quick_json_should_time_every_case_on_the_three_kernels_and_they_should_agree, .timeout = 120)
{
	const char *argv[] = { "qkv", "bench", "--quick", "--json", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	static const char *const cases[] = { "matmul_qkv", "attn_causal", "attn_full", "mha_gpt2",
					     "attn_T64", "attn_T128", "attn_T256" };
	static const char *const variants[] = { "simd", "unrolled", "loops" };
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *last = out;
		for (int v = 0; v < 3; v++) {
			const char *line = row(out, cases[i], variants[v]);
			cr_assert(line, "no %s line for %s in:\n%s", variants[v], cases[i], out);
			cr_assert(line > last, "%s before %s in:\n%s", variants[v], variants[v - 1], out);
			last = line;
			cr_assert_gt(field(line, "ms"), 0, "%s", line);
			cr_assert_gt(field(line, "gflops"), 0, "%s", line);
			cr_assert_gt(field(line, "speedup_vs_loops"), 0, "%s", line);
			if (v < 2) {
				double d = field(line, "max_rel_diff_vs_loops");
				cr_assert(d >= 0 && d < 1e-5, "loops and %s differ by %g: %s", variants[v], d, line);
			}
		}
		cr_assert_eq(field(row(out, cases[i], "loops"), "speedup_vs_loops"), 1, "%s", out);
	}
	/* the interpreter's cases and the screen's: a time each, none failed */
	static const char *const timed[][2] = { { "loops_seed003", "interp" }, { "loop_int_200k", "interp" },
						{ "small_ops", "interp" }, { "first_frame", "ui" },
						{ "redraw_64", "ui" }, { "redraw_2048", "ui" } };
	for (size_t i = 0; i < sizeof timed / sizeof *timed; i++) {
		const char *line = row(out, timed[i][0], timed[i][1]);
		cr_assert(line, "no %s line for %s in:\n%s", timed[i][1], timed[i][0], out);
		cr_assert_gt(field(line, "ms"), 0, "%s", line);
		cr_assert(!strstr(line, "failed") || strchr(line, '\n') < strstr(line, "failed"), "%s", line);
	}
	peak_and_one_path(out);
	free(out);
	free(err);
}

Test(bench, case_should_run_only_the_cases_named_in_the_order_of_the_table, .timeout = 60)
{
	const char *argv[] = { "qkv", "bench", "--json", "--quick", "--case", "redraw_64,attn_T64", "--case=small_ops",
			       NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	const char *t64 = row(out, "attn_T64", "simd"), *small = row(out, "small_ops", "interp"),
		   *redraw = row(out, "redraw_64", "ui");
	cr_assert(t64 && row(out, "attn_T64", "loops") && row(out, "attn_T64", "unrolled") && small && redraw, "%s",
		  out);
	cr_assert(t64 < small && small < redraw, "%s", out);
	/* the peak (a kernel case asked for it), and nothing else */
	int lines = 0;
	for (const char *l = out; *l; l = strchr(l, '\n') + 1)
		lines++;
	cr_assert_eq(lines, 6, "%s", out);
	peak_and_one_path(out);
	free(out);
	free(err);
}

Test(bench, case_without_a_kernel_case_should_measure_no_peak, .timeout = 60)
{
	const char *argv[] = { "qkv", "bench", "--case", "first_frame", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "no kernel case, no peak measured"), "%s", out);
	cr_assert(strstr(out, "\nfirst_frame    ui       "), "%s", out);
	cr_assert(!strstr(out, "matmul_qkv") && !strstr(out, "small_ops"), "%s", out);
	free(out);
	free(err);
}

Test(bench, json_rows_should_name_the_scalar_path_when_simd_is_off, .timeout = 60)
{
	const char *argv[] = { "qkv", "bench", "--json", "--quick", "--case", "attn_T64", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, "QKV_NO_SIMD=1", &out, &err), 0, "%s", err);
	cr_assert_str_eq(same_path_on_every_line(out), "scalar", "%s", out);
	free(out);
	free(err);
}

Test(bench, an_unknown_case_should_exit_2_naming_the_cases)
{
	const char *argv[] = { "qkv", "bench", "--quick", "--case", "small_ops,attn_T4096", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 2);
	cr_assert(strstr(err, "qkv: bench has no case 'attn_T4096' with --quick; its cases are: matmul_qkv, "
			      "attn_causal, attn_full, mha_gpt2, attn_T64, attn_T128, attn_T256, loops_seed003, "
			      "loop_int_200k, small_ops, first_frame, redraw_64, redraw_2048\n"),
		  "%s", err);
	cr_assert_str_eq(out, "");
	free(out);
	free(err);
}

Test(bench, a_case_option_without_a_name_should_exit_2)
{
	static const char *const bad[][2] = { { "--case", NULL }, { "--case=", NULL }, { "--case", "a,,b" },
					      { "--case", "small_ops," } };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *argv[] = { "qkv", "bench", bad[i][0], bad[i][1], NULL };
		char *out, *err;
		cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 2, "%s %s", bad[i][0], bad[i][1]);
		cr_assert(strstr(err, "qkv: bench --case "), "%s", err);
		cr_assert_str_eq(out, "");
		free(out);
		free(err);
	}
}

Test(bench, an_unknown_option_should_exit_2)
{
	const char *argv[] = { "qkv", "bench", "--fast", NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 2);
	cr_assert(strstr(err, "bench takes --json, --quick, --case NAME and --kernel=VARIANTS, got --fast"), "%s", err);
	free(out);
	free(err);
}

/* --kernel=unrolled,loops: those rows alone, in the table's order (simd,
 * unrolled, loops), the unrolled one against the loops; in text a "vs loops"
 * column */
Test(bench, kernel_should_time_only_the_variants_named, .timeout = 60)
{
	const char *argv[] = { "qkv", "bench", "--json", "--quick", "--kernel=loops,unrolled", "--case", "attn_T64",
			       NULL };
	char *out, *err;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	const char *unrolled = row(out, "attn_T64", "unrolled"), *loops = row(out, "attn_T64", "loops");
	cr_assert(unrolled && loops && unrolled < loops && !row(out, "attn_T64", "simd"), "%s", out);
	double d = field(unrolled, "max_rel_diff_vs_loops");
	cr_assert(d >= 0 && d < 1e-5, "%s", unrolled);
	cr_assert_gt(field(unrolled, "speedup_vs_loops"), 0, "%s", unrolled);
	free(out);
	free(err);

	const char *simd[] = { "qkv", "bench", "--quick", "--kernel=simd", "--case", "matmul_qkv", NULL };
	cr_assert_eq(run_qkv(simd, NULL, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "of peak  vs loops\n"), "%s", out);
	cr_assert(strstr(out, "\nmatmul_qkv     simd     "), "%s", out);
	cr_assert(!strstr(out, "unrolled") && !strstr(out, "loops-simd"), "%s", out);
	free(out);
	free(err);
}

Test(bench, an_unknown_kernel_should_exit_2)
{
	static const char *const bad[][2] = { { "bench", "--kernel=loops,fast" }, { "bench", "--kernel=" },
					      { "--kernel=loops", "bench" } };
	static const char *const want[] = { ("qkv: bench --kernel takes loops, unrolled or simd, separated by "
					     "commas, got 'loops,fast'"),
					    "qkv: bench --kernel takes loops, unrolled or simd, separated by commas, got ''",
					    "qkv: bench takes its --kernel after it: qkv bench --kernel=loops" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		const char *argv[] = { "qkv", bad[i][0], bad[i][1], NULL };
		char *out, *err;
		cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 2, "%s %s", bad[i][0], bad[i][1]);
		cr_assert(strstr(err, want[i]), "%s", err);
		cr_assert_str_eq(out, "");
		free(out);
		free(err);
	}
}

/* ---- the full screen's frame log ----------------------------------------------- */

static char state[64];

static void stop(void)
{
	tmux_private_server_end();
	dir_remove(state);
}

/* A frame log line, "N UNIX SINCE AFTER": its fields, or the test fails. */
static void log_line(const char *line, int n, double *unix_s, double *since, char *after, size_t size)
{
	int got;
	char fmt[32];
	snprintf(fmt, sizeof fmt, "%%d %%lf %%lf %%%zus", size - 1);
	cr_assert_eq(sscanf(line, fmt, &got, unix_s, since, after), 4, "%s", line);
	cr_assert_eq(got, n, "%s", line);
	cr_assert(*since > 0, "%s", line);
	cr_assert(fabs(*unix_s - (double)time(NULL)) < 600, "not the wall clock: %s", line);
}

Test(frame_log, qkv_should_log_its_first_frame_and_each_frame_a_key_asks_for, .init = tmux_private_server,
     .fini = stop, .timeout = 60)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-frame-log");
	char env[160], path[128];
	snprintf(path, sizeof path, "%s/frames.log", state);
	snprintf(env, sizeof env, "QKV_FRAME_LOG=%s", path);
	const char *session = tmux_start_qkv(80, 24, state, env, "1", "sleep 30");
	char *text = file_wait_text(path, "\n");
	cr_assert(text, "no first frame in %s", path);
	free(text);
	tmux_keys(session, "Tab");
	text = file_wait_text(path, "\n2 ");
	cr_assert(text, "no frame after Tab");
	free(text);
	tmux_keys(session, "Down");
	text = file_wait_text(path, "\n3 ");
	cr_assert(text, "no frame after Down");
	cr_assert(strchr(strstr(text, "\n3 ") + 1, '\n'), "%s", text);
	/* three lines: the idle redraws between the keys are not written */
	double unix_s[3], since[3];
	char after[3][32];
	const char *l = text;
	for (int i = 0; i < 3; i++, l = strchr(l, '\n') + 1)
		log_line(l, i + 1, &unix_s[i], &since[i], after[i], sizeof after[i]);
	cr_assert_eq(*l, 0, "more than 3 frames logged:\n%s", text);
	cr_assert_str_eq(after[0], "-", "%s", text);
	for (int i = 1; i < 3; i++) {
		char *end;
		double ms = strtod(after[i], &end);
		cr_assert(*end == 0 && ms >= 0 && ms <= since[i] - since[0], "%s", text);
		cr_assert(unix_s[i] >= unix_s[i - 1] && since[i] >= since[i - 1], "%s", text);
	}
	free(text);
}

Test(frame_log, a_frame_log_that_cannot_be_opened_should_stop_qkv_with_a_message, .init = tmux_private_server,
     .fini = stop, .timeout = 60)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-frame-log");
	char env[160];
	snprintf(env, sizeof env, "QKV_FRAME_LOG=%s/no/such/dir/frames.log", state);
	const char *session = tmux_start_qkv(200, 24, state, env, "1", "echo QKV-EXIT=$?; sleep 30");
	char *screen = tmux_wait_for(session, "QKV-EXIT=2");
	cr_assert(strstr(screen, "qkv: QKV_FRAME_LOG: cannot open "), "%s", screen);
	cr_assert(strstr(screen, "frames.log: No such file or directory"), "%s", screen);
	free(screen);
}
