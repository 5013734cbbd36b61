/* test_parser_print.c: unit tests for ast_print (src/lang/astprint.c) on the
 * expressions issue 13 added: each parsed expression prints back as the
 * source it came from, with the fewest parentheses that keep its meaning. */
#include <criterion/criterion.h>

#include "lang/astprint.h"
#include "lang/parser.h"

#include <string.h>

/* The text ast_print gives the expression statement src. */
static const char *print_expr(const char *src, char *buf, size_t size)
{
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n = NULL;
	struct qkv_error err;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK, "%s: %s", src, err.msg);
	cr_assert_eq(n->kind, N_EXPR, "%s", src);
	ast_print(n->kids[0], buf, size);
	node_free(n);
	parser_free(p);
	return buf;
}

Test(astprint, new_expressions_should_print_back_as_written)
{
	static const char *const srcs[] = {
		"a if c else b",
		"(a if c else b) + 1",
		"a if c else b if d else e",
		"(a if c else b) if d else e",
		"lambda: 0",
		"lambda x, *a, k=1, **kw: x + k",
		"{}",
		"{'a': 1, 'b': x + 1}",
		"{1, 2, *t}",
		"[x * 2 for x in xs if x]",
		"{k: v for k, v in d.items()}",
		"{x for x in y}",
		"(x for x in y)",
		"sum(p.numel() for p in m.parameters())",
		"f(*args, x, **kw)",
		"[*a, b]",
		"[i for i in range(3) for j in range(i) if i if j]",
	};
	char buf[256];
	for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++)
		cr_expect_str_eq(print_expr(srcs[i], buf, sizeof buf), srcs[i]);
	cr_expect_str_eq(print_expr("(a if b else c)", buf, sizeof buf), "a if b else c");
	cr_expect_str_eq(print_expr("((lambda: 1))()", buf, sizeof buf), "(lambda: 1)()");
}
