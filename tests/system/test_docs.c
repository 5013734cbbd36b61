/* test_docs.c: the acceptance tests of the engine issue, through ./qkv eval:
 * the seeds' code cells (000 to its dropout cell) and the language sessions
 * (tests/docs/NAME.qkv) print what PyTorch, NumPy or Python print (NAME.ref)
 * and, for the seeds, what the documents printed (NAME.doc); both kernels. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* float32 values printed with Python's 17 digits may differ by two float32
 * ulps where BLAS sums in another order (seed 000's dot products do, even
 * between dot(a, b) and dot(b, a)). */
#define F32_REL 2.5e-7

static void check_session(const char *name, const char *kernel, const char *against, double f32_rel, bool prefix)
{
	char qkv_path[256], want_path[256];
	snprintf(qkv_path, sizeof qkv_path, "tests/docs/%s.qkv", name);
	snprintf(want_path, sizeof want_path, "tests/docs/%s.%s", name, against);
	char *want = read_text(want_path);
	cr_assert(want, "cannot read %s", want_path);
	const char *argv[] = { "qkv", kernel, "eval", qkv_path, NULL };
	char *out, *err;
	int rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s exited %d: %s", qkv_path, rc, err);
	cr_assert_str_empty(err, "stderr: %s", err);
	char why[512];
	cr_assert(text_matches(out, want, f32_rel, prefix, why, sizeof why), "%s %s vs %s: %s", name, kernel,
		  against, why);
	free(out);
	free(err);
	free(want);
}

Test(docs, seed000_should_print_what_the_notebook_printed_up_to_dropout)
{
	check_session("seed000", "--kernel=simd", "doc", F32_REL, true);
	check_session("seed000", "--kernel=loops", "doc", F32_REL, true);
}

Test(docs, seed000_should_print_what_pytorch_prints)
{
	check_session("seed000", "--kernel=simd", "ref", F32_REL, false);
	check_session("seed000", "--kernel=loops", "ref", F32_REL, false);
}

Test(docs, seed002_should_print_what_the_notebook_printed)
{
	check_session("seed002", "--kernel=simd", "doc", 0, false);
	check_session("seed002", "--kernel=loops", "doc", 0, false);
}

Test(docs, seed002_should_print_what_pytorch_prints)
{
	check_session("seed002", "--kernel=simd", "ref", 0, false);
	check_session("seed002", "--kernel=loops", "ref", 0, false);
}

Test(docs, seed003_should_print_what_pytorch_prints_from_a_fresh_start)
{
	check_session("seed003", "--kernel=simd", "ref", 0, false);
	check_session("seed003", "--kernel=loops", "ref", 0, false);
}

Test(docs, seed004_should_print_what_the_notebook_printed)
{
	check_session("seed004", "--kernel=simd", "doc", 0, false);
	check_session("seed004", "--kernel=loops", "doc", 0, false);
}

Test(docs, seed004_should_print_what_numpy_prints)
{
	check_session("seed004", "--kernel=simd", "ref", 0, false);
	check_session("seed004", "--kernel=loops", "ref", 0, false);
}

/* The language's semantics against real PyTorch, NumPy and Python: views,
 * strides, indexing, broadcasting, dtypes, reductions, printing. */
Test(docs, tensor_semantics_should_match_pytorch)
{
	check_session("lang_tensors", "--kernel=simd", "ref", 0, false);
	check_session("lang_tensors", "--kernel=loops", "ref", 0, false);
}

Test(docs, array_semantics_should_match_numpy)
{
	check_session("lang_numpy", "--kernel=simd", "ref", 0, false);
	check_session("lang_numpy", "--kernel=loops", "ref", 0, false);
}

Test(docs, python_values_should_print_as_python_prints_them)
{
	check_session("lang_python", "--kernel=simd", "ref", 0, false);
}
