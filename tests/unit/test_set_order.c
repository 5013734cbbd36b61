/* test_set_order.c: what qkv's sets do beyond the CPython references of
 * tests/ref/python_semantics.py: strings (whose order CPython salts per
 * process) keep the order they came in, and CPython's order (its hash table,
 * dummies and all) survives a failed statement's undo and interp_clone. */
#include "lang/interp.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static struct strbuf printed;

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)udata;
	(void)v;
	strbuf_puts(&printed, text);
	strbuf_putc(&printed, '\n');
}

static struct interp *fresh(void)
{
	strbuf_init(&printed);
	struct interp *I = interp_new(KERNEL_SIMD);
	interp_set_output(I, capture, NULL);
	return I;
}

static const char *run_ok(struct interp *I, const char *src)
{
	struct qkv_error err;
	strbuf_reset(&printed);
	cr_assert_eq(interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s: %s", src,
		     err.msg);
	return printed.s;
}

Test(set_order, strings_should_keep_the_order_they_came_in)
{
	struct interp *I = fresh();
	cr_expect_str_eq(run_ok(I, "print({'b', 'a', 'c'}, {'z', 'y'} | {'a'}, set('hello'))"),
			 "{'b', 'a', 'c'} {'z', 'y', 'a'} {'h', 'e', 'l', 'o'}\n");
	/* the ints before a string keep CPython's order; what comes after follows */
	cr_expect_str_eq(run_ok(I, "s = {3, 1, 2, 10, 100}\ns.add('x')\ns.add(-1)\ns.discard(2)\nprint(s)"),
			 "{1, 3, 100, 10, 'x', -1}\n");
	/* None and nan are hashed by address in CPython 3.11: insertion order too */
	cr_expect_str_eq(run_ok(I, "print({8, None, 1}, {float('nan'), 8, 1})"), "{8, None, 1} {nan, 8, 1}\n");
	interp_free(I);
	strbuf_free(&printed);
}

/* u's table after the discards has dummies in slots 0-9: CPython puts 0 and
 * 4 back in the last dummy on each one's probe sequence ([4, 0, 10, ...]);
 * a table rebuilt from the items would put them in slots 0 and 4 */
Test(set_order, a_failed_statement_should_leave_the_sets_table_as_it_was)
{
	struct interp *I = fresh();
	run_ok(I, "u = set(range(40))\nfor i in range(10):\n    u.discard(i)");
	struct qkv_error err;
	static const char failing[] = "for v in [50, 60, None]:\n    u.add(v + 0)";
	cr_assert_eq(interp_run(I, failing, strlen(failing), 1, INTERP_PER_STATEMENT, &err), INTERP_ERROR);
	cr_expect_str_eq(run_ok(I, "print(len(u), 50 in u)"), "30 False\n");
	cr_expect_str_eq(run_ok(I, "u.add(0)\nu.add(4)\nprint(list(u)[:5])"), "[4, 0, 10, 11, 12]\n");
	interp_free(I);
	strbuf_free(&printed);
}

Test(set_order, a_cloned_workspace_should_keep_the_sets_table)
{
	struct interp *I = fresh();
	run_ok(I, "u = set(range(40))\nfor i in range(10):\n    u.discard(i)");
	struct interp *C = interp_clone(I);
	interp_set_output(C, capture, NULL);
	cr_expect_str_eq(run_ok(C, "u.add(0)\nu.add(4)\nprint(list(u)[:5])"), "[4, 0, 10, 11, 12]\n");
	cr_expect_str_eq(run_ok(I, "print(0 in u, len(u))"), "False 30\n");
	interp_free(C);
	interp_free(I);
	strbuf_free(&printed);
}

/* an add goes at the end of items[] and the set is put in order when read
 * (an add in the middle of items[] made 100,000 of them take a second; the
 * time is qkv bench's business, not a test's): many scattered adds, then
 * membership and the count (CPython's order of such a set:
 * tests/ref/python_semantics.py, set_of_many_scattered_adds) */
Test(set_order, many_scattered_adds_should_all_be_found)
{
	struct interp *I = fresh();
	run_ok(I, "s = set()\nfor i in range(100000):\n    s.add(i * 7919 % 1000003)\nn = len(list(s))");
	cr_expect_str_eq(run_ok(I, "print(n, 7919 in s, 7920 in s)"), "100000 True False\n");
	interp_free(I);
	strbuf_free(&printed);
}

/* the copy of a set is built by adds that may resize it into another order
 * than the original's: the clone still gets the original's table */
Test(set_order, a_cloned_workspace_should_keep_a_large_sets_table)
{
	struct interp *I = fresh();
	run_ok(I, "u = set()\nfor i in range(3000):\n    u.add(i * 7919 % 100003)\nfor i in range(0, 3000, 3):\n"
		  "    u.discard(i * 7919 % 100003)");
	struct interp *C = interp_clone(I);
	interp_set_output(C, capture, NULL);
	static const char more[] = "for i in range(40):\n    u.add(i * 31)\nprint(list(u)[:40], len(u))";
	char *from_clone = strdup(run_ok(C, more));
	cr_expect_str_eq(run_ok(I, more), from_clone);
	free(from_clone);
	interp_free(C);
	interp_free(I);
	strbuf_free(&printed);
}
