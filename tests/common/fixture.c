/* fixture.c: typed workspaces and loaded lessons for the session tests (see
 * fixture.h). Test-only code in both test binaries; calls the library in
 * process and never starts qkv. */
#include "fixture.h"

#include <criterion/criterion.h>
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
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

const char *const fixture_basic[] = {
	"torch.manual_seed(0); X = [1 2; 3 4]",
	"W = torch.softmax(X @ X.T, dim=-1)",
	"R = torch.randn(3, 3)",
	"W",
	"R",
};

char fixture_dir[64];
static struct strbuf printed;   /* what the session showed */

void fixture_dir_make(void)
{
	dir_make_temp(fixture_dir, sizeof fixture_dir, "qkv-session");
	strbuf_init(&printed);
}

void fixture_dir_remove(void)
{
	dir_remove(fixture_dir);
	strbuf_free(&printed);
}

char *fixture_in_dir(const char *name)
{
	char *p = malloc(strlen(fixture_dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", fixture_dir, name);
	return p;
}

struct interp *fixture_session_typed(const char *const *st, int n)
{
	return fixture_typed(st, n, &printed);
}

struct strbuf *fixture_printed(void)
{
	return &printed;
}
