/* fixture.c: typed workspaces and loaded lessons for the session tests (see
 * fixture.h). Test-only code in both test binaries; calls the library in
 * process and never starts qkv. */
#include "fixture.h"

#include <criterion/criterion.h>
#include <string.h>

static void fixture_capture(void *udata, const struct value *v, const char *text)
{
	struct strbuf *printed = udata;
	(void)v;
	strbuf_puts(printed, text);
	strbuf_putc(printed, '\n');
}

struct interp *fixture_typed(const char *const *st, int n, struct strbuf *printed)
{
	struct interp *I = interp_new(KERNEL_SIMD);
	interp_set_output(I, fixture_capture, printed);
	struct qkv_error err;
	for (int i = 0; i < n; i++)
		cr_assert_eq(interp_run(I, st[i], strlen(st[i]), 1, INTERP_ATOMIC, &err), INTERP_OK, "%s: %s", st[i],
			     err.msg);
	return I;
}

struct lesson *fixture_load(const char *path)
{
	struct qkv_error err;
	struct lesson *l = lesson_load_file(path, NULL, NULL, &err);
	cr_assert_not_null(l, "%s", err.msg);
	return l;
}

const struct expect *fixture_expect(const struct step *st, const char *name)
{
	for (int i = 0; i < st->nexpects; i++)
		if (st->expects[i].expr && strcmp(st->expects[i].expr, name) == 0)
			return &st->expects[i];
	cr_assert_fail("no expect for '%s'", name);
	return NULL;
}
