/* test_lang_semantics.c: Python's semantics as CPython 3.11 shows them:
 * each program of tests/ref/python_semantics.py runs through interp_run and
 * must print what CPython printed, or stop with CPython's error message
 * (qkv's message may carry the error's type in front, as Python prints it). */
#include "lang/interp.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <string.h>

struct program {
	const char *name, *src, *out, *err_type, *err_msg;
};

static const struct program programs[] = {
#include "../ref/python_semantics.inc"
};

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)v;
	strbuf_puts(udata, text);
	strbuf_putc(udata, '\n');
}

/* The first line of qkv's message, without a "Type: " in front. */
static bool same_message(const char *msg, const struct program *p)
{
	size_t len = strcspn(msg, "\n");
	size_t tl = strlen(p->err_type);
	if (strncmp(msg, p->err_type, tl) == 0 && strncmp(msg + tl, ": ", 2) == 0) {
		msg += tl + 2;
		len -= tl + 2;
	}
	return len == strlen(p->err_msg) && strncmp(msg, p->err_msg, len) == 0;
}

Test(lang_semantics, every_program_should_print_what_cpython_prints_or_fail_as_it_does)
{
	int failures = 0;
	for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
		const struct program *p = &programs[i];
		struct strbuf out;
		strbuf_init(&out);
		strbuf_puts(&out, "");
		struct interp *I = interp_new(KERNEL_SIMD);
		interp_set_output(I, capture, &out);
		struct qkv_error err;
		enum interp_status st = interp_run(I, p->src, strlen(p->src), 1, INTERP_PER_STATEMENT, &err);
		/* print(..., end=' ') leaves a partial line: the capture ends each piece with a newline */
		bool ok_out = strcmp(out.s, p->out) == 0;
		bool ok_err = p->err_type[0] ? st == INTERP_ERROR && same_message(err.msg, p) : st == INTERP_OK;
		if (!ok_out || !ok_err) {
			failures++;
			cr_log_error("%s:\n--- printed\n%s--- expected\n%s--- status %d: %s (expected %s: %s)", p->name,
				     out.s, p->out, st, st == INTERP_OK ? "" : err.msg, p->err_type, p->err_msg);
		}
		interp_free(I);
		strbuf_free(&out);
	}
	cr_assert_eq(failures, 0, "%d of %zu programs differ from CPython", failures,
		     sizeof programs / sizeof programs[0]);
}
