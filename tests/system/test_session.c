/* test_session.c: a session saved by :save (lesson/save.h) is a lesson
 * that ./qkv checks and runs: qkv check passes every expect it pins, qkv run
 * --plain prints what the session printed. The rest of :save and :load is
 * tested in process in tests/unit/test_session.c. */
#include "fixture.h"
#include "system.h"
#include "lesson/save.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(session, .init = fixture_dir_make, .fini = fixture_dir_remove);

/* qkv check path exits 0 and prints want ("3 passed, 0 failed"). */
static void assert_check_passes(const char *path, const char *want)
{
	const char *argv[] = { "qkv", "check", path, NULL };
	char *out, *errs;
	int rc = run_qkv(argv, NULL, NULL, &out, &errs);
	cr_assert_eq(rc, 0, "exit %d: %s%s", rc, out, errs);
	cr_assert(strstr(out, want), "%s", out);
	free(out);
	free(errs);
}

/* The basic statements, run in I, saved as name in the test directory. */
static char *saved_basic(struct interp *I, const char *name, const char *title)
{
	char *path = fixture_in_dir(name);
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, title, fixture_basic, FIXTURE_NBASIC, I, &err), 0, "%s", err.msg);
	return path;
}

Test(session, qkv_check_should_pass_every_expect_of_a_saved_session)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = saved_basic(I, "basic.json", "basic");
	assert_check_passes(path, "3 passed, 0 failed");
	free(path);
	interp_free(I);
}

Test(session, qkv_run_plain_should_print_what_the_session_printed)
{
	struct interp *I = fixture_session_typed(fixture_basic, FIXTURE_NBASIC);
	char *path = saved_basic(I, "basic.json", "basic");
	const char *argv[] = { "qkv", "run", "--plain", path, NULL };
	char *out, *errs;
	int rc = run_qkv(argv, NULL, NULL, &out, &errs);
	cr_assert_eq(rc, 0, "exit %d: %s", rc, errs);
	/* W and R as the prompt showed them, each under its statement */
	cr_assert(strstr(fixture_printed()->s, "tensor([[ 1.5410, -0.2934, -2.1788],"), "%s", fixture_printed()->s);
	const char *names[] = { "W", "R" };
	for (int k = 0; k < 2; k++) {
		struct strbuf want;
		strbuf_init(&want);
		strbuf_printf(&want, ">>> %s\n", names[k]);
		value_repr(&want, interp_get(I, names[k]));
		strbuf_putc(&want, '\n');
		cr_assert(strstr(fixture_printed()->s, want.s + strlen(names[k]) + 5), "the session showed:\n%s", fixture_printed()->s);
		cr_assert(strstr(out, want.s), "want:\n%s\nqkv run printed:\n%s", want.s, out);
		strbuf_free(&want);
	}
	cr_assert(strstr(out, ">>> R = torch.randn(3, 3)\n"), "%s", out);
	free(out);
	free(errs);
	free(path);
	interp_free(I);
}

Test(session, masks_integers_booleans_numpy_scalars_and_strings_should_survive_the_round_trip)
{
	const char *const st[] = {
		"M = torch.triu(torch.ones(3, 3), diagonal=1).bool()",
		"S = torch.zeros(3, 3).masked_fill(M, float(\"-inf\"))",
		"idx = torch.arange(6).view(2, 3)",
		"a = np.array([0.1, 1e-30, 1e30])",
		"c = torch.tensor(2.5)",
		"z = torch.zeros(0, 3)",
		"note = \"say \\\"hi\\\"\\tthen\\\\go\"; print(note)",
		"Y = [1 2;\n     3 4]",
	};
	int n = 8;
	struct interp *I = fixture_session_typed(st, n);
	char *path = fixture_in_dir("mixed.json");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "mixed \"dtypes\"\nand masks", st, n, I, &err), 0, "%s", err.msg);
	struct lesson *l = fixture_load(path);
	const struct step *s0 = &l->steps[0];
	cr_assert_str_eq(l->title, "mixed \"dtypes\"\nand masks");
	/* the statement holding a newline became two code lines */
	cr_assert_eq(s0->nlines, n + 1);
	cr_assert_str_eq(s0->lines[6].text, st[6]);
	cr_assert_str_eq(s0->code, "M = torch.triu(torch.ones(3, 3), diagonal=1).bool()\n"
			 "S = torch.zeros(3, 3).masked_fill(M, float(\"-inf\"))\n"
			 "idx = torch.arange(6).view(2, 3)\n"
			 "a = np.array([0.1, 1e-30, 1e30])\n"
			 "c = torch.tensor(2.5)\n"
			 "z = torch.zeros(0, 3)\n"
			 "note = \"say \\\"hi\\\"\\tthen\\\\go\"; print(note)\n"
			 "Y = [1 2;\n     3 4]");
	const struct expect *e = fixture_expect(s0, "S");
	cr_assert_eq(e->kind, EXPECT_VALUES);
	cr_assert(e->values[1] < 0 && isinf(e->values[1]));
	cr_assert_eq(fixture_expect(s0, "c")->ndim, 0);
	cr_assert_eq(fixture_expect(s0, "z")->kind, EXPECT_TEXT);
	cr_assert_str_eq(fixture_expect(s0, "z")->text, "tensor([], size=(0, 3))");
	cr_assert_eq(fixture_expect(s0, "a")->values[2], 1e30);
	cr_assert_eq(s0->nexpects, 7, "M, S, idx, a, c, z, Y; the string is not a tensor");
	/* the empty tensor gets no heatmap */
	for (int i = 0; i < s0->nshows; i++)
		cr_assert_str_neq(s0->shows[i].expr, "z");
	lesson_free(l);

	assert_check_passes(path, "7 passed, 0 failed");
	free(path);
	interp_free(I);
}

Test(session, a_large_tensor_should_be_pinned_by_its_printed_text_and_still_check)
{
	const char *const st[] = { "torch.manual_seed(1)", "B = torch.randn(100, 50)", "s = B.sum(0)" };
	struct interp *I = fixture_session_typed(st, 3);
	char *path = fixture_in_dir("large.json");
	struct qkv_error err;
	cr_assert_eq(save_write_lesson(path, false, "large", st, 3, I, &err), 0, "%s", err.msg);
	struct lesson *l = fixture_load(path);
	cr_assert_eq(fixture_expect(&l->steps[0], "B")->kind, EXPECT_TEXT);
	cr_assert_eq(fixture_expect(&l->steps[0], "s")->kind, EXPECT_VALUES);
	struct strbuf want;
	strbuf_init(&want);
	value_repr(&want, interp_get(I, "B"));
	cr_assert_str_eq(fixture_expect(&l->steps[0], "B")->text, want.s);
	strbuf_free(&want);
	lesson_free(l);
	assert_check_passes(path, "2 passed, 0 failed");
	free(path);
	interp_free(I);
}

Test(session, repl_save_should_take_a_255_byte_name_and_name_the_real_reason_it_cannot_save)
{
	char name[256], in[1024];
	memset(name, 'a', 250);
	memcpy(name + 250, ".json", 6);	/* NAME_MAX bytes */
	char *path = fixture_in_dir(name);
	snprintf(in, sizeof in, "X = torch.ones(2)\n:save %s\n:save! /proc/self/mem\n", path);
	const char *argv[] = { "qkv", "repl", NULL };
	char *out, *err;
	int rc = run_qkv(argv, in, NULL, &out, &err);
	cr_assert_eq(rc, 2, "the failed save makes the exit status 2: %s%s", out, err);
	cr_assert(strstr(out, "Saved "), "%s%s", out, err);
	cr_assert_null(strstr(err, "too long"), "%s", err);
	cr_assert(strstr(err, "cannot save /proc/self/mem: cannot create a temporary file in /proc/self: No such file "
			 "or directory"), "%s", err);
	assert_check_passes(path, "1 passed, 0 failed");
	free(out);
	free(err);
	free(path);
}
