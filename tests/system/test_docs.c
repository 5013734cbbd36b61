/* test_docs.c: the documents' code cells as they print them (classes, def,
 * loops, %%time: tests/docs/seedNNN.qkv) and the language sessions
 * (tests/docs/lang_*.qkv) run through ./qkv eval print what PyTorch, NumPy or
 * Python print (NAME.ref, from tests/ref/docs_refs.py, grad_fn included) and
 * what the documents printed (NAME.doc); both kernels, but for the
 * GPT-2-sized cells, which run on the SIMD kernel only. */
#include "doccmp.h"
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* float32 values printed with Python's 17 digits may differ by two float32
 * ulps where BLAS sums in another order (seed 000's dot products do, even
 * between dot(a, b) and dot(b, a)). */
#define F32_REL 2.5e-7

/* Seed 002's GPT-2 cells hold 10 x 12 x 512 x 512 scores: more than the
 * default cap of one tensor's elements. */
#define GPT2_ENV "QKV_MAX_ELEMS=67108864"

static char *read_docs(const char *name, const char *ext)
{
	char path[256];
	snprintf(path, sizeof path, "tests/docs/%s.%s", name, ext);
	char *text = read_text(path);
	cr_assert(text, "cannot read %s", path);
	return text;
}

static char *concat(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 1);
	strcpy(s, a);
	strcat(s, b);
	return s;
}

/* Runs `qkv KERNEL eval` on cells (argv holds "qkv", KERNEL, "eval", then
 * "-" with source on standard input, or "-e CELL" for each cell) and
 * compares what it prints with want. */
static void check_run(const char *what, const char *const *argv, const char *source, const char *env,
		      const char *want, double f32_rel, bool prefix)
{
	char *out, *err;
	int rc = run_qkv(argv, source, env, &out, &err);
	cr_assert_eq(rc, 0, "%s (%s) exited %d: %s", what, argv[1], rc, err);
	cr_assert_str_empty(err, "%s (%s) stderr: %s", what, argv[1], err);
	char why[1024];
	cr_assert(doccmp_match(out, want, f32_rel, prefix, why, sizeof why), "%s %s: %s", what, argv[1], why);
	free(out);
	free(err);
}

static void check_text(const char *what, const char *source, const char *kernel, const char *want, double f32_rel,
		       bool prefix)
{
	const char *argv[] = { "qkv", kernel, "eval", "-", NULL };
	check_run(what, argv, source, NULL, want, f32_rel, prefix);
}

/* tests/docs/NAME.qkv on one kernel against NAME.AGAINST ("ref" or "doc"). */
static void check_session(const char *name, const char *kernel, const char *against, double f32_rel, bool prefix)
{
	char *source = read_docs(name, "qkv"), *want = read_docs(name, against);
	char what[128];
	snprintf(what, sizeof what, "%s.qkv vs %s.%s", name, name, against);
	check_text(what, source, kernel, want, f32_rel, prefix);
	free(source);
	free(want);
}

static void check_both(const char *name, const char *against, double f32_rel, bool prefix)
{
	check_session(name, "--kernel=simd", against, f32_rel, prefix);
	check_session(name, "--kernel=loops", against, f32_rel, prefix);
}

/* seed002.qkv followed by seed002_gpt2.qkv, one session, SIMD only. A
 * notebook runs each cell by itself, and %%time must open its cell (as in
 * IPython), so the cells of seed002_gpt2.qkv (from one `# In [N]:` line to
 * the next) are given one -e each, the first with seed002.qkv before it. */
static void check_gpt2(const char *against)
{
	char *a = read_docs("seed002", "qkv"), *b = read_docs("seed002_gpt2", "qkv");
	char *wa = read_docs("seed002", against), *wb = read_docs("seed002_gpt2", against);
	char *want = concat(wa, wb);
	/* where the lines that open a cell begin */
	const char *marks[8];
	int nmarks = 0;
	for (const char *p = b; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, "# In [", 6) == 0 && nmarks < 7)
			marks[nmarks++] = p;
	cr_assert_geq(nmarks, 3, "seed002_gpt2.qkv should hold In [14], In [15] and In [16]");
	marks[nmarks] = b + strlen(b);
	/* cell 0: seed002.qkv, then seed002_gpt2.qkv's header and first cell */
	char *cells[8];
	char *head = strndup(b, (size_t)(marks[1] - b));
	cells[0] = concat(a, head);
	free(head);
	for (int i = 1; i < nmarks; i++)
		cells[i] = strndup(marks[i], (size_t)(marks[i + 1] - marks[i]));
	const char *argv[24] = { "qkv", "--kernel=simd", "eval" };
	int argc = 3;
	for (int i = 0; i < nmarks; i++) {
		argv[argc++] = "-e";
		argv[argc++] = cells[i];
	}
	argv[argc] = NULL;
	char what[128];
	snprintf(what, sizeof what, "seed002.qkv + seed002_gpt2.qkv vs .%s", against);
	check_run(what, argv, NULL, GPT2_ENV, want, 0, false);
	for (int i = 0; i < nmarks; i++)
		free(cells[i]);
	free(a);
	free(b);
	free(wa);
	free(wb);
	free(want);
}

Test(docs, seed000_should_print_what_the_notebook_printed_up_to_dropout)
{
	check_both("seed000", "doc", F32_REL, true);
}

Test(docs, seed000_should_print_what_pytorch_prints)
{
	check_both("seed000", "ref", F32_REL, false);
}

Test(docs, seed001_should_print_what_numpy_and_pytorch_print)
{
	check_both("seed001", "ref", 0, false);
}

Test(docs, seed002_should_print_what_the_notebook_printed)
{
	check_both("seed002", "doc", 0, false);
}

Test(docs, seed002_should_print_what_pytorch_prints)
{
	check_both("seed002", "ref", 0, false);
}

Test(docs, seed002_gpt2_cells_should_print_what_the_notebook_printed_on_simd, .timeout = 600)
{
	check_gpt2("doc");
}

Test(docs, seed002_gpt2_cells_should_print_what_pytorch_prints_on_simd, .timeout = 600)
{
	check_gpt2("ref");
}

Test(docs, seed003_loops_should_print_what_pytorch_prints_from_a_fresh_start)
{
	check_both("seed003", "ref", 0, false);
}

Test(docs, seed004_should_print_what_the_notebook_printed)
{
	check_both("seed004", "doc", 0, false);
}

Test(docs, seed004_should_print_what_numpy_prints)
{
	check_both("seed004", "ref", 0, false);
}

/* The language's semantics against real PyTorch, NumPy and Python: views,
 * strides, indexing, broadcasting, dtypes, reductions, printing. */
Test(docs, tensor_semantics_should_match_pytorch)
{
	check_both("lang_tensors", "ref", 0, false);
}

Test(docs, array_semantics_should_match_numpy)
{
	check_both("lang_numpy", "ref", 0, false);
}

Test(docs, python_values_should_print_as_python_prints_them)
{
	check_session("lang_python", "--kernel=simd", "ref", 0, false);
}
