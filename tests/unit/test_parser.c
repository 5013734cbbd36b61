/* test_parser.c: unit tests for the lexer and parser (src/lang/lexer.c,
 * parser.c, ast.c). Trees are compared as compact S-expressions printed by
 * sexp_node below; errors as "line:col: message". */
#include <criterion/criterion.h>

#include "core/mem.h"
#include "core/strbuf.h"
#include "lang/ast.h"
#include "lang/parser.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- S-expression printer ------------------------------------------------------ */

static void sexp_node(struct strbuf *b, const struct node *n);

static void sexp_number(struct strbuf *b, double v)
{
	char buf[64];
	if (isnan(v)) {
		strbuf_puts(b, "nan");
		return;
	}
	if (isinf(v)) {
		strbuf_puts(b, v < 0 ? "-inf" : "inf");
		return;
	}
	snprintf(buf, sizeof buf, "%.15g", v);
	strbuf_puts(b, buf);
	if (!strpbrk(buf, ".e"))
		strbuf_puts(b, ".0");
}

static void sexp_string(struct strbuf *b, const char *s)
{
	strbuf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n')
			strbuf_puts(b, "\\n");
		else if (c == '\t')
			strbuf_puts(b, "\\t");
		else if (c == '"' || c == '\\')
			strbuf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7F)
			strbuf_printf(b, "\\x%02x", c);
		else
			strbuf_putc(b, (char)c);
	}
	strbuf_putc(b, '"');
}

static void sexp_kids(struct strbuf *b, const char *head, const struct node *n, int from)
{
	strbuf_printf(b, "(%s", head);
	for (int i = from; i < n->nkids; i++) {
		strbuf_putc(b, ' ');
		sexp_node(b, n->kids[i]);
	}
	strbuf_putc(b, ')');
}

/* " kid kid)": the children after a head printed by the caller. */
static void sexp_tail(struct strbuf *b, const struct node *n)
{
	for (int i = 0; i < n->nkids; i++) {
		strbuf_putc(b, ' ');
		sexp_node(b, n->kids[i]);
	}
	strbuf_putc(b, ')');
}

static void sexp_node(struct strbuf *b, const struct node *n)
{
	if (!n) {
		strbuf_putc(b, '_');
		return;
	}
	switch (n->kind) {
	case N_NUM:
		if (n->is_int)
			strbuf_printf(b, "%lld", (long long)n->ival);
		else
			sexp_number(b, n->num);
		break;
	case N_STR:
		sexp_string(b, n->str);
		break;
	case N_FSTR:
		sexp_kids(b, "fstr", n, 0);
		break;
	case N_FMT:
		strbuf_puts(b, "(fmt ");
		sexp_node(b, n->kids[0]);
		if (n->op)
			strbuf_printf(b, " !%c", n->op);
		if (n->str)
			strbuf_printf(b, " :%s", n->str);
		strbuf_putc(b, ')');
		break;
	case N_NAME:
		strbuf_puts(b, n->str);
		break;
	case N_CONST:
		strbuf_puts(b, n->op == 'T' ? "True" : n->op == 'F' ? "False" : "None");
		break;
	case N_LIST:
		sexp_kids(b, "list", n, 0);
		break;
	case N_TUPLE:
		sexp_kids(b, "tuple", n, 0);
		break;
	case N_MATRIX: {
		int count = n->rows ? n->rows * n->cols : n->cols;
		if (n->rows)
			strbuf_printf(b, "(matrix %dx%d", n->rows, n->cols);
		else
			strbuf_printf(b, "(matrix %d", n->cols);
		for (int i = 0; i < count; i++) {
			strbuf_putc(b, ' ');
			if (n->values[i] == floor(n->values[i]) && fabs(n->values[i]) < 1e15)
				strbuf_printf(b, "%lld", (long long)n->values[i]);
			else
				sexp_number(b, n->values[i]);
		}
		strbuf_putc(b, ')');
		break;
	}
	case N_UNARY:
	case N_BINARY:
		sexp_kids(b, op_name(n->op), n, 0);
		break;
	case N_ATTR:
		strbuf_puts(b, "(. ");
		sexp_node(b, n->kids[0]);
		strbuf_printf(b, " %s)", n->str);
		break;
	case N_CALL:
		strbuf_puts(b, "(call ");
		sexp_node(b, n->kids[0]);
		for (int i = 1; i < n->nkids; i++) {
			strbuf_putc(b, ' ');
			if (n->kwnames && n->kwnames[i - 1])
				strbuf_printf(b, "%s=", n->kwnames[i - 1]);
			sexp_node(b, n->kids[i]);
		}
		strbuf_putc(b, ')');
		break;
	case N_INDEX:
		sexp_kids(b, "index", n, 0);
		break;
	case N_SLICE:
		sexp_kids(b, "slice", n, 0);
		break;
	case N_ASSIGN:
		sexp_kids(b, "=", n, 0);
		break;
	case N_AUGASSIGN: {
		char head[8];
		snprintf(head, sizeof head, "%s=", op_name(n->op));
		sexp_kids(b, head, n, 0);
		break;
	}
	case N_IMPORT:
		strbuf_printf(b, "(import %s", n->str);
		for (int i = 0; i < n->nkids; i++) {
			strbuf_printf(b, " %s", n->kids[i]->str);
			if (n->kwnames && n->kwnames[i])
				strbuf_printf(b, " as %s", n->kwnames[i]);
		}
		strbuf_putc(b, ')');
		break;
	case N_EXPR:
		sexp_node(b, n->kids[0]);
		break;
	case N_PASS:
		strbuf_puts(b, "(pass)");
		break;
	case N_BLOCK:
		sexp_kids(b, "block", n, 0);
		break;
	case N_IF:
		sexp_kids(b, "if", n, 0);
		break;
	case N_FOR:
		sexp_kids(b, "for", n, 0);
		break;
	case N_WHILE:
		sexp_kids(b, "while", n, 0);
		break;
	case N_BREAK:
		strbuf_puts(b, "(break)");
		break;
	case N_CONTINUE:
		strbuf_puts(b, "(continue)");
		break;
	case N_RETURN:
		sexp_kids(b, "return", n, 0);
		break;
	case N_ASSERT:
		sexp_kids(b, "assert", n, 0);
		break;
	case N_WITH:
		sexp_kids(b, "with", n, 0);
		break;
	case N_DEL:
		sexp_kids(b, "del", n, 0);
		break;
	case N_GLOBAL:
		sexp_kids(b, "global", n, 0);
		break;
	case N_NONLOCAL:
		sexp_kids(b, "nonlocal", n, 0);
		break;
	case N_DEF:
		strbuf_printf(b, "(def %s", n->str);
		sexp_tail(b, n);
		break;
	case N_PARAMS:
		sexp_kids(b, "params", n, 0);
		break;
	case N_PARAM:
		/* a  b=1  *args  *  ^kwonly  ^kwonly=2  **kwargs */
		strbuf_printf(b, "%s%s%s", n->is_int ? "^" : "", n->op == '*' ? "*" : n->op == 'K' ? "**" : "",
			      n->str ? n->str : "");
		if (n->nkids == 1 && n->kids[0]) {
			strbuf_putc(b, '=');
			sexp_node(b, n->kids[0]);
		}
		break;
	case N_LAMBDA:
		sexp_kids(b, "lambda", n, 0);
		break;
	case N_CLASS:
		strbuf_printf(b, "(class %s", n->str);
		sexp_tail(b, n);
		break;
	case N_DICT:
		sexp_kids(b, "dict", n, 0);
		break;
	case N_SET:
		sexp_kids(b, "set", n, 0);
		break;
	case N_COMP:
		sexp_kids(b, n->op == '[' ? "listcomp" : n->op == '{' ? "setcomp" : n->op == 'd' ? "dictcomp" : "genexp",
			  n, 0);
		break;
	case N_COMPFOR:
		sexp_kids(b, "compfor", n, 0);
		break;
	case N_IFEXP:
		sexp_kids(b, "ifexp", n, 0);
		break;
	case N_STARRED:
		sexp_kids(b, n->op == 'K' ? "**" : "*", n, 0);
		break;
	case N_MAGIC:
		strbuf_printf(b, "(%s%s", n->op == 'c' ? "%%" : "%", n->str);
		if (strcmp(n->str, "timeit") == 0)
			strbuf_printf(b, " -n%lld -r%d", (long long)n->ival, n->rows);
		sexp_tail(b, n);
		break;
	}
}

/* ---- helpers ------------------------------------------------------------------- */

static char result[16384];

/* Parses every statement of src: their S-expressions joined by " ; ", or the
 * failure as "error L:C: msg" / "incomplete L:C: msg" after what parsed. */
static const char *parse_all_n(const char *src, size_t len)
{
	struct parser *p = parser_new(src, len, 1);
	struct strbuf b;
	struct node *n;
	struct qkv_error err;
	enum parse_status st;
	bool first = true;
	strbuf_init(&b);
	error_clear(&err);
	while ((st = parser_next(p, &n, &err)) == PARSE_OK) {
		if (!first)
			strbuf_puts(&b, " ; ");
		sexp_node(&b, n);
		node_free(n);
		first = false;
	}
	if (st != PARSE_END) {
		if (!first)
			strbuf_puts(&b, " ; ");
		strbuf_printf(&b, "%s %d:%d: %s", st == PARSE_ERROR ? "error" : "incomplete", err.line, err.col,
			      err.msg);
	}
	parser_free(p);
	snprintf(result, sizeof result, "%s", b.s ? b.s : "");
	strbuf_free(&b);
	return result;
}

static const char *parse_all(const char *src)
{
	return parse_all_n(src, strlen(src));
}

/* The first statement's tree (caller frees), or NULL. */
static struct node *parse_first(const char *src)
{
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n = NULL;
	struct qkv_error err;
	if (parser_next(p, &n, &err) != PARSE_OK)
		n = NULL;
	parser_free(p);
	return n;
}

static enum parse_status parse_status_of(const char *src)
{
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n;
	struct qkv_error err;
	enum parse_status st;
	while ((st = parser_next(p, &n, &err)) == PARSE_OK)
		node_free(n);
	parser_free(p);
	return st;
}

#define expect_parse(src, want) cr_expect_str_eq(parse_all(src), want, "source: %s\n   got: %s\nwanted: %s", \
						     src, result, want)

struct parse_case {
	const char *src;
	const char *want;
};

static void expect_cases(const struct parse_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(parse_all(cases[i].src), cases[i].want, "source: %s\n   got: %s\nwanted: %s",
				 cases[i].src, result, cases[i].want);
}

#define EXPECT_CASES(arr) expect_cases(arr, sizeof arr / sizeof arr[0])

/* ---- statements ------------------------------------------------------------------ */

Test(parser, assignment_should_bind_a_name_to_an_expression)
{
	expect_parse("x = 1", "(= x 1)");
	expect_parse("x=y", "(= x y)");
	expect_parse("t = 1, 2", "(= t (tuple 1 2))");
}

Test(parser, tuple_unpacking_should_target_a_tuple_of_names)
{
	expect_parse("a, b = b, a", "(= (tuple a b) (tuple b a))");
	expect_parse("(q, k) = pair", "(= (tuple q k) pair)");
	expect_parse("a, = xs", "(= (tuple a) xs)");
	expect_parse("(a, b), c = pairs", "(= (tuple (tuple a b) c) pairs)");
}

Test(parser, subscript_and_attribute_assignment_should_target_index_and_attr)
{
	expect_parse("x[i, j] = 0", "(= (index x i j) 0)");
	expect_parse("x[:, 1] = v", "(= (index x (slice _ _ _) 1) v)");
	expect_parse("layer.weight = w", "(= (. layer weight) w)");
}

Test(parser, augmented_assignment_should_keep_its_operator)
{
	expect_parse("x += 1", "(+= x 1)");
	expect_parse("x -= 1", "(-= x 1)");
	expect_parse("x *= 2", "(*= x 2)");
	expect_parse("x /= n", "(/= x n)");
	expect_parse("x @= W", "(@= x W)");
	expect_parse("x[0] += 1", "(+= (index x 0) 1)");
	expect_parse("x //= 2; x %= 3; x **= 2", "(//= x 2) ; (%= x 3) ; (**= x 2)");
	expect_parse("x ^= m; x <<= 2; x >>= 1", "(^= x m) ; (<<= x 2) ; (>>= x 1)");
}

Test(parser, a_bare_expression_should_become_an_expression_statement)
{
	struct node *n = parse_first("K.shape, Q.shape, V.shape");
	cr_assert_not_null(n);
	cr_expect_eq(n->kind, N_EXPR);
	cr_expect_eq(n->kids[0]->kind, N_TUPLE);
	node_free(n);
	expect_parse("K.shape, Q.shape, V.shape", "(tuple (. K shape) (. Q shape) (. V shape))");
	expect_parse("x,", "(tuple x)");
}

Test(parser, imports_should_record_module_path_names_and_aliases)
{
	struct node *n = parse_first("import torch");
	cr_assert_not_null(n);
	cr_expect_eq(n->kind, N_IMPORT);
	cr_expect_str_eq(n->str, "torch");
	cr_expect_eq(n->nkids, 1);
	cr_expect_str_eq(n->kids[0]->str, "torch");
	cr_expect_null(n->kwnames[0]);
	node_free(n);
	expect_parse("import torch.nn as nn", "(import torch.nn torch.nn as nn)");
	expect_parse("import numpy as np", "(import numpy numpy as np)");
	expect_parse("from scipy.special import softmax", "(import scipy.special softmax)");
	expect_parse("from torch import nn", "(import torch nn)");
	expect_parse("from torch.nn import functional as F, Linear",
		     "(import torch.nn functional as F Linear)");
	expect_parse("from torch import (nn,\n  optim,)", "(import torch nn optim)");
}

Test(parser, statements_should_be_separated_by_newlines_and_semicolons)
{
	expect_parse("a = 1\nb = 2", "(= a 1) ; (= b 2)");
	expect_parse("a = 1; b = 2;", "(= a 1) ; (= b 2)");
	expect_parse("a = 1\r\nb = 2\r\n", "(= a 1) ; (= b 2)");
}

Test(parser, blank_lines_comments_and_stray_semicolons_should_produce_nothing)
{
	expect_parse("", "");
	expect_parse("\n\n   \n", "");
	expect_parse("# just a comment\n  # another", "");
	expect_parse(";;\n;", "");
	expect_parse("x = 1  # set x\n\n# done\n", "(= x 1)");
}

Test(parser, pass_should_produce_an_empty_statement)
{
	struct node *n = parse_first("pass");
	cr_assert_not_null(n);
	cr_expect_eq(n->kind, N_PASS);
	node_free(n);
}

/* ---- lexical rules ------------------------------------------------------------------ */

Test(parser, numbers_should_follow_python_literal_rules)
{
	static const struct parse_case cases[] = {
		{"0", "0"},
		{"42", "42"},
		{"1_000_000", "1000000"},
		{"9223372036854775807", "9223372036854775807"},
		{"1.0", "1.0"},
		{"1.", "1.0"},
		{".5", "0.5"},
		{"1e-3", "0.001"},
		{"2.5E+4", "25000.0"},
		{"1_0.2_5", "10.25"},
		{"0x1F", "31"},
		{"0b101", "5"},
		{"0o17", "15"},
		{"1e-400", "0.0"},
		{"00", "0"},
	};
	EXPECT_CASES(cases);
}

Test(parser, numbers_out_of_range_should_be_errors_at_their_column)
{
	expect_parse("x = 9223372036854775808", "error 1:5: number out of range");
	expect_parse("y = 2 * 1e999", "error 1:9: number out of range");
	expect_parse("z = 0xFFFFFFFFFFFFFFFFF", "error 1:5: number out of range");
}

Test(parser, malformed_numbers_should_be_errors)
{
	expect_parse("1__0", "error 1:1: invalid number '1__0'");
	expect_parse("x = 1_", "error 1:5: invalid number '1_'");
	expect_parse("1e", "error 1:1: invalid number '1e'");
	expect_parse("3x", "error 1:1: invalid number '3x'");
	expect_parse("007", "error 1:1: leading zeros are not allowed in integers (write 7, not 07)");
	expect_parse("2j", "error 1:1: complex numbers are not supported");
}

Test(parser, strings_should_resolve_escapes)
{
	static const struct parse_case cases[] = {
		{"'abc'", "\"abc\""},
		{"\"a'b\"", "\"a'b\""},
		{"'a\\nb\\tc'", "\"a\\nb\\tc\""},
		{"'\\\\ \\' \\\"'", "\"\\\\ ' \\\"\""},
		{"'\\x41\\x7e'", "\"A~\""},
		{"'\\xe9'", "\"\xc3\xa9\""},
		{"'\\u00e9'", "\"\xc3\xa9\""},
		{"'\\d'", "\"\\\\d\""},
		{"r'\\n'", "\"\\\\n\""},
		{"''", "\"\""},
		{"'caf\xc3\xa9 \xe2\x9c\x93'", "\"caf\xc3\xa9 \xe2\x9c\x93\""},
		{"'a\\\nb'", "\"ab\""},
	};
	EXPECT_CASES(cases);
}

Test(parser, triple_quoted_strings_should_span_lines)
{
	expect_parse("s = '''one\ntwo'''", "(= s \"one\\ntwo\")");
	expect_parse("\"\"\"a \"quoted\" word\"\"\"", "\"a \\\"quoted\\\" word\"");
	expect_parse("s = '''x''' ; t = 1", "(= s \"x\") ; (= t 1)");
}

Test(parser, adjacent_strings_should_be_joined)
{
	expect_parse("'ab' \"cd\"", "\"abcd\"");
	expect_parse("('a'\n 'b')", "\"ab\"");
	expect_parse("f'{x}' 'y'", "(fstr (fmt x) \"y\")");
}

Test(parser, fstrings_should_split_into_text_and_fields)
{
	static const struct parse_case cases[] = {
		{"f'a{x}b'", "(fstr \"a\" (fmt x) \"b\")"},
		{"f\"{x:.2f}\"", "(fstr (fmt x :.2f))"},
		{"f'{x!r}'", "(fstr (fmt x !r))"},
		{"f'{x!s:>10}'", "(fstr (fmt x !s :>10))"},
		{"f'{{literal}} {y}'", "(fstr \"{literal} \" (fmt y))"},
		{"f'{a[0] + b.c(1, d=2)}'", "(fstr (fmt (+ (index a 0) (call (. b c) 1 d=2))))"},
		{"f'{d[\"k\"]}'", "(fstr (fmt (index d \"k\")))"},
		{"f'{x == y}'", "(fstr (fmt (== x y)))"},
		{"f'{x=}'", "(fstr \"x=\" (fmt x !r))"},
		{"f'{x = :.1f}'", "(fstr \"x = \" (fmt x :.1f))"},
		{"f''", "\"\""},
		{"f'plain'", "\"plain\""},
		{"f'''multi\n{x}'''", "(fstr \"multi\\n\" (fmt x))"},
		{"f'tab\\t{x}'", "(fstr \"tab\\t\" (fmt x))"},
		{"f'{f\"{x}\"}'", "(fstr (fmt (fstr (fmt x))))"},
		{"f\"\"\"{x[\"a\"]}\"\"\"", "(fstr (fmt (index x \"a\")))"},
		{"rf'\\d{x}'", "(fstr \"\\\\d\" (fmt x))"},
	};
	EXPECT_CASES(cases);
}

Test(parser, fstring_errors_should_point_into_the_line)
{
	expect_parse("print(f'{x +}')", "error 1:13: unexpected '}'");
	expect_parse("f'{}'", "error 1:3: f-string: empty expression in '{}'");
	expect_parse("f'a } b'", "error 1:5: f-string: single '}' is not allowed; write '}}'");
	expect_parse("f'{x'", "error 1:5: f-string: expected '}' to close '{' opened at 1:3");
	expect_parse("f'{x!z}'", "error 1:5: f-string: the conversion after '!' must be r or s");
	expect_parse("f'{(x}'", "error 1:6: expected ')' to close '(' opened at 1:4");
	expect_parse("f'{x y}'", "error 1:6: unexpected name 'y'");
	expect_parse("f'{x:{w}}'", "error 1:6: f-string: nested '{...}' in a format spec is not supported");
	expect_parse("f'{a\\n}'", "error 1:5: f-string expressions cannot contain '\\'");
}

Test(parser, fstring_field_nodes_should_carry_positions_in_the_line)
{
	struct node *n = parse_first("print(f'x = {value:.3f}')");
	struct node *f, *field;
	cr_assert_not_null(n);
	f = n->kids[0]->kids[1];
	cr_assert_eq(f->kind, N_FSTR);
	cr_expect_eq(f->line, 1);
	cr_expect_eq(f->col, 7);
	field = f->kids[1];
	cr_assert_eq(field->kind, N_FMT);
	cr_expect_eq(field->col, 13);
	cr_expect_eq(field->kids[0]->kind, N_NAME);
	cr_expect_eq(field->kids[0]->col, 14);
	node_free(n);
	n = parse_first("s = f'''a\n  {b}'''");
	cr_assert_not_null(n);
	field = n->kids[1]->kids[1];
	cr_expect_eq(field->kids[0]->line, 2);
	cr_expect_eq(field->kids[0]->col, 4);
	node_free(n);
}

Test(parser, comments_and_backslash_continuations_should_be_whitespace)
{
	expect_parse("x = 1 + \\\n    2", "(= x (+ 1 2))");
	expect_parse("x = (1 +  # first\n 2)  # second", "(= x (+ 1 2))");
	expect_parse("x = 1 \\\n", "incomplete 1:7: the input ends after a line continuation '\\'");
	expect_parse("x = 1 \\ y", "error 1:7: '\\' continues a line only at the end of the line");
}

Test(parser, newlines_inside_brackets_should_be_whitespace)
{
	expect_parse("f(a,\n  b\n)", "(call f a b)");
	expect_parse("[\n1,\n2\n]", "(list 1 2)");
	expect_parse("x = (\n\n  y\n)", "(= x y)");
}

/* As in CPython, only brackets and a backslash join lines: a line that ends
 * after an operator or '=' is a syntax error at that operator, never a
 * statement that goes on (which would silently read the next line as the
 * operand) and never unfinished input (a REPL reports it at once). */
Test(parser, a_line_break_after_an_operator_should_be_a_syntax_error_on_that_line)
{
	static const struct parse_case cases[] = {
		{"x = 1 -\n5\nprint(x)\n", "error 1:7: the line ends after '-'"},
		{"x = not\nTrue\nx\n", "error 1:5: the line ends after 'not'"},
		{"x =\n5\nx\n", "error 1:3: the line ends after '='"},
		{"x =\n  y", "error 1:3: the line ends after '='"},
		{"print(1)\nx = 1 +\nprint(2)\n", "(call print 1) ; error 2:7: the line ends after '+'"},
		{"x = 1 +\ny = 2\n", "error 1:7: the line ends after '+'"},
		{"x = 2 *\n3\n", "error 1:7: the line ends after '*'"},
		{"b = x ==\n1\n", "error 1:7: the line ends after '=='"},
		{"c = a and\nb\n", "error 1:7: the line ends after 'and'"},
		{"y = A @\nB\n", "error 1:7: the line ends after '@'"},
		{"x = -\n5\n", "error 1:5: the line ends after '-'"},
		{"x = 1 + -\n5\n", "error 1:9: the line ends after '-'"},
		{"x +=\n1\n", "error 1:3: the line ends after '+='"},
		{"a, b =\n1, 2\n", "error 1:6: the line ends after '='"},
		{"x = 2 **\n3\n", "error 1:7: the line ends after '**'"},
		{"x = 1 +   # a comment\n5\n", "error 1:7: the line ends after '+'"},
		{"x = 1 -\n\n5\n", "error 1:7: the line ends after '-'"},
		{"x = 1 -\n    5\n", "error 1:7: the line ends after '-'"},
		{"for i in\nrange(3): pass\n", "error 1:7: the line ends after 'in'"},
		{"if a:\n  x = 1 -\n  5\n", "error 2:9: the line ends after '-'"},
		{"def f(x):\n  return x *\n  2\n", "error 2:12: the line ends after '*'"},
		/* nothing follows: the same error, worded for the end of the input */
		{"x = 1 -", "error 1:7: the input ends after '-'"},
		{"x = 1 -\n", "error 1:7: the input ends after '-'"},
		{"x = 1 -  # c\n\n", "error 1:7: the input ends after '-'"},
		{"x = 1\ny =", "(= x 1) ; error 2:3: the input ends after '='"},
	};
	EXPECT_CASES(cases);
}

Test(parser, a_line_ending_after_an_operator_should_fill_the_error_with_its_line_and_column)
{
	const char *src = "a = 1\nx = 10 -\n3\nprint(x)\n";
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n = NULL;
	struct qkv_error err;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK);
	node_free(n);
	n = NULL;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_ERROR);
	cr_assert_null(n);
	cr_expect_eq(err.line, 2);
	cr_expect_eq(err.col, 8);
	cr_expect_str_eq(err.msg, "the line ends after '-'");
	cr_expect_eq(parser_next(p, &n, &err), PARSE_ERROR, "the error is sticky");
	parser_free(p);
	/* an interactive parser (a REPL) says the same at once, with nothing to wait for */
	p = parser_new("x = 1 -\n", 8, 1);
	parser_set_interactive(p, true);
	cr_assert_eq(parser_next(p, &n, &err), PARSE_ERROR);
	cr_expect_eq(err.line, 1);
	cr_expect_eq(err.col, 7);
	cr_expect_str_eq(err.msg, "the input ends after '-'");
	parser_free(p);
}

Test(parser, brackets_backslashes_and_blocks_should_still_join_lines)
{
	static const struct parse_case cases[] = {
		{"x = (1 -\n5)", "(= x (- 1 5))"},
		{"x = (1 -\n\n    5)\ny", "(= x (- 1 5)) ; y"},
		{"[1,\n2]", "(list 1 2)"},
		{"x = [1 +\n2]", "(= x (list (+ 1 2)))"},
		{"f(a,\nb)", "(call f a b)"},
		{"f(a +\n  b)", "(call f (+ a b))"},
		{"d = {'a':\n 1,\n 'b': 2}", "(= d (dict \"a\" 1 \"b\" 2))"},
		{"d = {'a': 1 -\n 2}", "(= d (dict \"a\" (- 1 2)))"},
		{"x = 1 - \\\n5", "(= x (- 1 5))"},
		{"x = 1 -\\\n  5\ny", "(= x (- 1 5)) ; y"},
		{"x = 1 # -\ny = 2", "(= x 1) ; (= y 2)"},
		{"x = 1  # y =\n", "(= x 1)"},
		{"def f(x):\n  return (x -\n    1)\n", "(def f (params x) (block (return (- x 1))))"},
		{"for i in a:\n  s = s + \\\n    i\n", "(for i a (block (= s (+ s i))) _)"},
		{"if a:\n  b = [1,\n2]\nelse:\n  b = 3\n", "(if a (block (= b (list 1 2))) (block (= b 3)))"},
	};
	EXPECT_CASES(cases);
}

Test(parser, leading_indentation_should_be_an_unexpected_indent)
{
	expect_parse("    x = 1\n", "error 1:4: unexpected indent");
	expect_parse("x = 1\n\t\ty = 2", "(= x 1) ; error 2:2: unexpected indent");
}

Test(parser, tabs_and_utf8_characters_should_count_as_one_column)
{
	expect_parse("if x:\n\tx = )", "error 2:6: unexpected ')'");
	expect_parse("s = 'h\xc3\xa9'; )", "(= s \"h\xc3\xa9\") ; error 1:11: unexpected ')'");
}

/* ---- expressions -------------------------------------------------------------------- */

Test(parser, precedence_should_follow_python)
{
	static const struct parse_case cases[] = {
		{"a + b * c", "(+ a (* b c))"},
		{"a * b + c", "(+ (* a b) c)"},
		{"a - b - c", "(- (- a b) c)"},
		{"a / b / c", "(/ (/ a b) c)"},
		{"a @ b / c", "(/ (@ a b) c)"},
		{"a // b % c", "(% (// a b) c)"},
		{"a | b & c", "(| a (& b c))"},
		{"a | b ^ c", "(| a (^ b c))"},
		{"a ^ b | c", "(| (^ a b) c)"},
		{"a ^ b & c", "(^ a (& b c))"},
		{"a & b ^ c", "(^ (& a b) c)"},
		{"a ^ b ^ c", "(^ (^ a b) c)"},
		{"a & b << c", "(& a (<< b c))"},
		{"a << b + c", "(<< a (+ b c))"},
		{"a >> b << c", "(<< (>> a b) c)"},
		{"a ^ b == c", "(== (^ a b) c)"},
		{"~a ^ b", "(^ (~ a) b)"},
		{"a & b == c", "(== (& a b) c)"},
		{"a == b | c", "(== a (| b c))"},
		{"a + b < c * d", "(< (+ a b) (* c d))"},
		{"not a == b", "(not (== a b))"},
		{"a or b and c", "(or a (and b c))"},
		{"a and not b or c", "(or (and a (not b)) c)"},
		{"not not a", "(not (not a))"},
		{"-a * b", "(* (- a) b)"},
		{"~m & k", "(& (~ m) k)"},
		{"+x", "(+ x)"},
		{"(a + b) * c", "(* (+ a b) c)"},
		{"a.b.c(d)[e]", "(index (call (. (. a b) c) d) e)"},
		{"-x.y", "(- (. x y))"},
		{"a / b ** c", "(/ a (** b c))"},
	};
	EXPECT_CASES(cases);
}

Test(parser, power_should_be_right_associative_and_bind_tighter_than_unary_minus)
{
	expect_parse("-2**2", "(- (** 2 2))");
	expect_parse("2**3**2", "(** 2 (** 3 2))");
	expect_parse("2**-1", "(** 2 (- 1))");
	expect_parse("a ** -b ** c", "(** a (- (** b c)))");
	expect_parse("x.shape[-1] ** 0.5", "(** (index (. x shape) (- 1)) 0.5)");
}

Test(parser, comparisons_should_include_membership_and_identity)
{
	static const struct parse_case cases[] = {
		{"a == b", "(== a b)"}, {"a != b", "(!= a b)"}, {"a < b", "(< a b)"}, {"a <= b", "(<= a b)"},
		{"a > b", "(> a b)"}, {"a >= b", "(>= a b)"}, {"a in b", "(in a b)"},
		{"a not in b", "(not in a b)"}, {"a is None", "(is a None)"}, {"a is not None", "(is not a None)"},
		{"True or False", "(or True False)"},
	};
	EXPECT_CASES(cases);
}

Test(parser, chained_comparisons_should_be_rejected_with_a_hint)
{
	expect_parse("a < b < c", "error 1:7: qkv does not run chained comparisons such as a < b < c; "
		     "write a < b and b < c");
}

Test(parser, calls_should_take_positional_and_keyword_arguments)
{
	expect_parse("f()", "(call f)");
	expect_parse("f(a, b)", "(call f a b)");
	expect_parse("f(a, key=value)", "(call f a key=value)");
	expect_parse("f(a, b,)", "(call f a b)");
	expect_parse("torch.softmax(s, dim=-1)", "(call (. torch softmax) s dim=(- 1))");
	expect_parse("f(x == 0)", "(call f (== x 0))");
	expect_parse("f()()", "(call (call f))");
	expect_parse("(a + b).sum()", "(call (. (+ a b) sum))");
	expect_parse("'x'.upper()", "(call (. \"x\" upper))");
}

Test(parser, call_argument_errors_should_be_reported)
{
	expect_parse("f(dim=1, x)", "error 1:11: positional argument follows keyword argument");
	expect_parse("f(dim=1, dim=2)", "error 1:10: keyword argument 'dim' is given twice");
	expect_parse("f(**k, *a)", "error 1:3: iterable argument unpacking follows keyword argument unpacking");
	expect_parse("f(a b)", "error 1:5: expected ',' or ')' before name 'b'");
	expect_parse("f(a.b=1)", "error 1:6: unexpected '='; use '==' to compare");
}

Test(parser, subscripts_should_parse_indices_and_slices)
{
	static const struct parse_case cases[] = {
		{"x[0]", "(index x 0)"},
		{"x[i, j]", "(index x i j)"},
		{"x[a:b]", "(index x (slice a b _))"},
		{"x[:, 1]", "(index x (slice _ _ _) 1)"},
		{"x[::2]", "(index x (slice _ _ 2))"},
		{"x[1::]", "(index x (slice 1 _ _))"},
		{"x[:-1]", "(index x (slice _ (- 1) _))"},
		{"x[a:b:c, :]", "(index x (slice a b c) (slice _ _ _))"},
		{"x[None]", "(index x None)"},
		{"x[:, None]", "(index x (slice _ _ _) None)"},
		{"x[0,]", "(index x 0)"},
		{"x[(0, 1)]", "(index x (tuple 0 1))"},
		{"x[0][1]", "(index (index x 0) 1)"},
	};
	EXPECT_CASES(cases);
	expect_parse("x[]", "error 1:3: expected an index between '[' and ']'");
}

Test(parser, tuples_and_lists_should_parse_every_form)
{
	static const struct parse_case cases[] = {
		{"(a, b)", "(tuple a b)"},
		{"(a,)", "(tuple a)"},
		{"()", "(tuple)"},
		{"(a)", "a"},
		{"((a))", "a"},
		{"[a, b]", "(list a b)"},
		{"[]", "(list)"},
		{"[a, b,]", "(list a b)"},
		{"[[1, 2], [3, 4]]", "(list (list 1 2) (list 3 4))"},
		{"[(1, 2)]", "(list (tuple 1 2))"},
		{"[x - 1]", "(list (- x 1))"},
		{"[1 - 2]", "(list (- 1 2))"},
		{"[1, -2]", "(list 1 (- 2))"},
		{"[a -1]", "(list (- a 1))"},
		{"[inf, nan]", "(list inf nan)"},
	};
	EXPECT_CASES(cases);
}

/* ---- matrix literals ---------------------------------------------------------------- */

Test(parser, matrix_literal_should_parse_rows_and_columns)
{
	struct node *n = parse_first("X = [1 2 3; 4 5 6]");
	cr_assert_not_null(n);
	cr_assert_eq(n->kids[1]->kind, N_MATRIX);
	cr_expect_eq(n->kids[1]->rows, 2);
	cr_expect_eq(n->kids[1]->cols, 3);
	cr_expect(n->kids[1]->is_int);
	cr_expect_eq(n->kids[1]->values[5], 6.0);
	node_free(n);
	expect_parse("X = [1 2 3; 4 5 6]", "(= X (matrix 2x3 1 2 3 4 5 6))");
	expect_parse("[1, 2; 3, 4]", "(matrix 2x2 1 2 3 4)");
	expect_parse("[1; 2; 3]", "(matrix 3x1 1 2 3)");
	expect_parse("[0.5 1e-3; -1 +2]", "(matrix 2x2 0.5 0.001 -1 2)");
	expect_parse("[1 2;\n 3 4]", "(matrix 2x2 1 2 3 4)");
}

Test(parser, a_line_break_between_matrix_rows_should_end_a_row_as_a_semicolon_does)
{
	expect_parse("[1 2\n 3 4]", "(matrix 2x2 1 2 3 4)");
	expect_parse("[1, 2\n3, 4]", "(matrix 2x2 1 2 3 4)");
	expect_parse("[\n1 2\n3 4\n]", "(matrix 2x2 1 2 3 4)");
	expect_parse("[1 -2\n-3 4]", "(matrix 2x2 1 -2 -3 4)");
	expect_parse("[1\n2]", "(matrix 2x1 1 2)");
	expect_parse("[1 2 3\n]", "(matrix 3 1 2 3)");
	/* a Python list stays a list: a comma before the break continues it */
	expect_parse("[1, 2,\n3, 4]", "(list 1 2 3 4)");
	cr_expect_str_eq(parse_all("[1 2 3\n4 5]"), "error 2:4: row 2 has 2 elements, row 1 has 3");
}

Test(parser, matrix_literal_without_semicolon_should_be_one_dimensional)
{
	struct node *n = parse_first("[1 2 3]");
	cr_assert_not_null(n);
	cr_assert_eq(n->kids[0]->kind, N_MATRIX);
	cr_expect_eq(n->kids[0]->rows, 0);
	cr_expect_eq(n->kids[0]->cols, 3);
	node_free(n);
	expect_parse("[1 2 3]", "(matrix 3 1 2 3)");
	expect_parse("[1 2, 3]", "(matrix 3 1 2 3)");
}

Test(parser, matrix_trailing_semicolon_should_make_one_row_two_dimensional)
{
	expect_parse("[1 2 3;]", "(matrix 1x3 1 2 3)");
	expect_parse("[1 2; 3 4;]", "(matrix 2x2 1 2 3 4)");
	expect_parse("[5;]", "(matrix 1x1 5)");
}

Test(parser, matrix_elements_should_allow_signs_inf_and_nan)
{
	struct node *n = parse_first("[1 -2 +3 -inf nan; 1.5 inf -nan 0 0]");
	cr_assert_not_null(n);
	cr_assert_eq(n->kids[0]->kind, N_MATRIX);
	cr_expect_not(n->kids[0]->is_int);
	node_free(n);
	expect_parse("[1 -2 +3 -inf nan; 1.5 inf -nan 0 0]",
		     "(matrix 2x5 1 -2 3 -inf nan 1.5 inf nan 0 0)");
	expect_parse("[-1 -2]", "(matrix 2 -1 -2)");
	expect_parse("[1 -2]", "(matrix 2 1 -2)");
	expect_parse("[1,-2; 3,-4]", "(matrix 2x2 1 -2 3 -4)");
	expect_parse("[inf nan]", "(matrix 2 inf nan)");
}

Test(parser, matrix_elements_that_are_not_numbers_should_be_errors)
{
	expect_parse("[1 - 2 3]", "error 1:4: matrix elements must be numbers");
	expect_parse("[1-2 3]", "error 1:3: matrix elements must be numbers");
	expect_parse("[1 2 x]", "error 1:6: matrix elements must be numbers");
	expect_parse("[a; b]", "error 1:2: matrix elements must be numbers");
	expect_parse("[1 2; 3 (4)]", "error 1:9: matrix elements must be numbers");
	expect_parse("[1 2, , 3]", "error 1:7: unexpected ','");
	expect_parse("[;]", "error 1:2: row 1 of the matrix is empty");
	expect_parse("[1 2;; 3 4]", "error 1:6: row 2 of the matrix is empty");
	expect_parse("[1 2; 3 4)", "error 1:10: expected ']' to close '[' opened at 1:1");
}

Test(parser, ragged_matrix_should_name_the_row_and_column)
{
	expect_parse("[1 2 3; 4 5]", "error 1:12: row 2 has 2 elements, row 1 has 3");
	expect_parse("[1 2; 3 4 5]", "error 1:11: row 2 has 3 elements, row 1 has 2");
	expect_parse("X = [1 2 3;\n     4 5 6;\n     7]", "error 3:7: row 3 has 1 element, row 1 has 3");
}

Test(parser, lists_with_commas_should_not_become_matrices)
{
	expect_parse("[1, 2, 3]", "(list 1 2 3)");
	expect_parse("[[1 2], [3 4]]", "(list (matrix 2 1 2) (matrix 2 3 4))");
	expect_parse("[f(1 2)]", "error 1:6: expected ',' or ')' before number '2'");
}

/* ---- positions ---------------------------------------------------------------------- */

static void expect_pos(const struct node *n, int line, int col, const char *what)
{
	cr_assert_not_null(n, "%s: no node", what);
	cr_expect_eq(n->line, line, "%s: line %d, want %d", what, n->line, line);
	cr_expect_eq(n->col, col, "%s: col %d, want %d", what, n->col, col);
}

Test(parser, node_positions_should_point_where_errors_belong)
{
	struct node *n = parse_first("y = a.b(c)[d] + -e");
	struct node *sum, *idx, *call, *attr;
	cr_assert_not_null(n);
	expect_pos(n, 1, 3, "assign at '='");
	sum = n->kids[1];
	expect_pos(sum, 1, 15, "binary at operator");
	idx = sum->kids[0];
	expect_pos(idx, 1, 11, "index at '['");
	call = idx->kids[0];
	expect_pos(call, 1, 8, "call at '('");
	attr = call->kids[0];
	expect_pos(attr, 1, 7, "attr at the name after '.'");
	expect_pos(attr->kids[0], 1, 5, "name");
	expect_pos(sum->kids[1], 1, 17, "unary at operator");
	expect_pos(sum->kids[1]->kids[0], 1, 18, "operand");
	node_free(n);

	n = parse_first("K.shape, [1, 2], (3, 4)");
	cr_assert_not_null(n);
	expect_pos(n, 1, 1, "expression statement at its first token");
	expect_pos(n->kids[0], 1, 1, "bare tuple at its first element");
	expect_pos(n->kids[0]->kids[1], 1, 10, "list at '['");
	expect_pos(n->kids[0]->kids[2], 1, 18, "tuple at '('");
	node_free(n);

	n = parse_first("x[1:2] += 'a'");
	cr_assert_not_null(n);
	expect_pos(n, 1, 8, "augassign at operator");
	expect_pos(n->kids[0]->kids[1], 1, 3, "slice at its first character");
	expect_pos(n->kids[1], 1, 11, "string at quote");
	node_free(n);

	n = parse_first("\nfrom torch import nn");
	cr_assert_not_null(n);
	expect_pos(n, 2, 1, "import at 'from'");
	expect_pos(n->kids[0], 2, 19, "imported name");
	node_free(n);

	n = parse_first("a not in b");
	cr_assert_not_null(n);
	expect_pos(n->kids[0], 1, 3, "'not in' at 'not'");
	node_free(n);
}

/* ---- the notebooks --------------------------------------------------------------------- */

Test(parser, notebook_lines_should_parse)
{
	static const struct parse_case cases[] = {
		{"S = torch.matmul(X, X.transpose(0, 1))",
		 "(= S (call (. torch matmul) X (call (. X transpose) 0 1)))"},
		{"masked_S = S.masked_fill(mask == 0, float(\"-inf\"))",
		 "(= masked_S (call (. S masked_fill) (== mask 0) (call float \"-inf\")))"},
		{"masked_S = masked_S / (4 ** 0.5)", "(= masked_S (/ masked_S (** 4 0.5)))"},
		{"1 / 3 * X[0] + 1 / 3 * X[1] + 1 / 3 * X[2]",
		 "(+ (+ (* (/ 1 3) (index X 0)) (* (/ 1 3) (index X 1))) (* (/ 1 3) (index X 2)))"},
		{"W[0, 0] * X[0] + W[0, 1] * X[1]",
		 "(+ (* (index W 0 0) (index X 0)) (* (index W 0 1) (index X 1)))"},
		{"K.shape, Q.shape, V.shape", "(tuple (. K shape) (. Q shape) (. V shape))"},
		{"attention_scores.masked_fill_(self_mask.bool()[:attention_scores.shape[1], "
		 ":attention_scores.shape[1]], -torch.inf)",
		 "(call (. attention_scores masked_fill_) (index (call (. self_mask bool)) "
		 "(slice _ (index (. attention_scores shape) 1) _) (slice _ (index (. attention_scores shape) 1) _)) "
		 "(- (. torch inf)))"},
		{"attention_weights = torch.softmax(attention_scores/value.shape[-1] ** 0.5, dim=-1)",
		 "(= attention_weights (call (. torch softmax) (/ attention_scores (** (index (. value shape) (- 1)) "
		 "0.5)) dim=(- 1)))"},
		{"K_view = K.view(2, n_tokens, n_heads, head_dim)",
		 "(= K_view (call (. K view) 2 n_tokens n_heads head_dim))"},
		{"R_combined = R.contiguous().view(2, n_tokens, d_out)",
		 "(= R_combined (call (. (call (. R contiguous)) view) 2 n_tokens d_out))"},
		{"print((sa_v1_outs_new == sa_v2_outs).all())",
		 "(call print (call (. (== sa_v1_outs_new sa_v2_outs) all)))"},
		{"weights = softmax(query@animals.T/scaling, axis=1)",
		 "(= weights (call softmax (/ (@ query (. animals T)) scaling) axis=1))"},
		{"animals = np.stack([kitten, lizard, salmon, whale, wolf], axis=0)",
		 "(= animals (call (. np stack) (list kitten lizard salmon whale wolf) axis=0))"},
		{"print(f'Updated mammal embedding: {animal_output[0]}')",
		 "(call print (fstr \"Updated mammal embedding: \" (fmt (index animal_output 0))))"},
		{"print(f\"attention({i}, {j}) = {dot_product}\")",
		 "(call print (fstr \"attention(\" (fmt i) \", \" (fmt j) \") = \" (fmt dot_product)))"},
		{"X = [1 2 3; 4 5 6]", "(= X (matrix 2x3 1 2 3 4 5 6))"},
		{"import torch", "(import torch torch)"},
		{"import torch.nn as nn", "(import torch.nn torch.nn as nn)"},
		{"import numpy as np", "(import numpy numpy as np)"},
		{"from scipy.special import softmax", "(import scipy.special softmax)"},
		{"import math, copy, torch.nn as nn", "(import math math copy torch.nn as nn)"},
	};
	EXPECT_CASES(cases);
}

Test(parser, multi_line_tensor_literal_should_parse)
{
	const char *src =
		"inputs = torch.tensor([[0.43, 0.15, 0.89], # Your     (x^1)\n"
		"   [0.55, 0.87, 0.66], # journey  (x^2)\n"
		"   [0.57, 0.85, 0.64], # starts   (x^3)\n"
		"   [0.22, 0.58, 0.33], # with     (x^4)\n"
		"   [0.77, 0.25, 0.10], # one      (x^5)\n"
		"   [0.05, 0.80, 0.55]] # step     (x^6)\n"
		")\n"
		"print(inputs.shape)\n";
	expect_parse(src,
		     "(= inputs (call (. torch tensor) (list (list 0.43 0.15 0.89) (list 0.55 0.87 0.66) "
		     "(list 0.57 0.85 0.64) (list 0.22 0.58 0.33) (list 0.77 0.25 0.1) (list 0.05 0.8 0.55)))) ; "
		     "(call print (. inputs shape))");
}

/* ---- errors ----------------------------------------------------------------------------- */

Test(parser, bad_inputs_should_report_the_exact_line_and_column)
{
	static const struct parse_case cases[] = {
		{"x = 1)", "error 1:6: unexpected ')'"},
		{"x = )", "error 1:5: unexpected ')'"},
		{"print('abc)", "error 1:7: unterminated string"},
		{"s = 'abc\nt = 1", "error 1:5: unterminated string"},
		{"x = [1, 2)", "error 1:10: expected ']' to close '[' opened at 1:5"},
		{"x = (1, 2]", "error 1:10: expected ')' to close '(' opened at 1:5"},
		{"f(x) = 1", "error 1:6: '=' cannot assign to a call"},
		{"1 = x", "error 1:3: '=' cannot assign to a number"},
		{"a + b = c", "error 1:7: '=' cannot assign to an expression (to compare, use '==')"},
		{"a, f() = x", "error 1:8: '=' cannot assign to a call"},
		{"a, f(b) = x", "error 1:9: '=' cannot assign to a call"},
		{"a, b += 1", "error 1:6: '+=' cannot assign to a tuple"},
		{"None = 1", "error 1:6: '=' cannot assign to None"},
		{"[a, 1] = c", "error 1:8: '=' cannot assign to a number"},
		{"a = b = 1", "error 1:7: chained assignment (a = b = ...) is not supported; assign one target "
			      "per statement"},
		{"x = 1 2", "error 1:7: unexpected number '2'"},
		{"x = y z", "error 1:7: unexpected name 'z'"},
		{"ok = 1\n\nx = $", "(= ok 1) ; error 3:5: unexpected character '$'"},
		{"x = a.", "error 1:7: expected a name after '.'"},
		{"x = a.1", "error 1:6: unexpected number '.1'"},
		{"x = {1: 2, 3}", "error 1:12: ':' expected after dictionary key"},
		{"x = a ^", "error 1:7: the input ends after '^'"},
		{"x = a << >> 1", "error 1:10: unexpected '>>'"},
		{"x = !a", "error 1:5: unexpected '!'; write 'not x' or 'a != b'"},
		{"x[...]", "error 1:3: '...' (Ellipsis) is not supported; write ':' for each dimension"},
		{"(x := 1)", "error 1:4: qkv does not run ':=' (assignment expressions); assign in a statement of its own"},
		{"x = b'abc'", "error 1:5: bytes literals (b'...') are not supported"},
		{"x = '\\x4'", "error 1:6: invalid \\x escape: it needs 2 hex digits"},
		{"x = '\\0'", "error 1:6: strings cannot contain NUL characters"},
		{"import", "error 1:7: expected a module name after 'import'"},
		{"import torch, numpy as", "error 1:23: expected a name after 'as'"},
		{"from . import x", "error 1:6: relative imports (from . import x) are not supported"},
		{"from torch import *", "error 1:19: 'import *' is not supported; name what you import, as in "
					"from torch import nn"},
		{"from torch nn", "error 1:12: expected 'import' after the module name"},
		{"import torch as", "error 1:16: expected a name after 'as'"},
		{"x = 1\ny = 2\nz = (3 +\n 4))", "(= x 1) ; (= y 2) ; error 4:4: unexpected ')'"},
		{"x = \xe2\x80\x9chi\xe2\x80\x9d", "error 1:5: unexpected character U+201C: it is a curly quote; "
						   "use a plain ' or \""},
		{"x\xc2\xa0= 1", "error 1:2: unexpected character U+00A0: it is a non-breaking space; retype "
				 "it as a plain space"},
		{"\xcf\x80 = 3", "error 1:1: unexpected character '\xcf\x80' (U+03C0): names must be ASCII"},
		{"x = 1 +", "error 1:7: the input ends after '+'"},
		{"print \"hi\"", "error 1:7: print is a function: write print(...)"},
	};
	EXPECT_CASES(cases);
}

Test(parser, keywords_qkv_does_not_run_should_be_rejected_with_specific_messages)
{
	static const struct parse_case cases[] = {
		{"try:\n  x = 1", "error 1:1: qkv does not run 'try' blocks: errors stop the cell, as they "
				 "would without 'try'"},
		{"raise ValueError", "error 1:1: qkv does not run 'raise'; use assert cond, \"message\" to stop "
				     "on a bad value"},
		{"else:", "error 1:1: invalid syntax"},
	};
	EXPECT_CASES(cases);
}

Test(parser, unfinished_input_should_be_incomplete)
{
	static const char *const srcs[] = {
		"x = (1,", "x = torch.tensor([[1, 2],\n", "print(f'{x}'", "s = '''abc", "s = f'''{x}\n",
		"x = 1 + \\", "x = 1 \\\n", "X = [1 2 3;", "X = [1 2", "s = 'abc\\", "s = 'abc\\\n", "f(a,\n  b",
		"x[1:", "x = (1 +", "x = [1 -\n",
	};
	for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++)
		cr_expect_eq(parse_status_of(srcs[i]), PARSE_INCOMPLETE, "source: %s -> %s", srcs[i], parse_all(srcs[i]));
	expect_parse("x = 1\ny = f(a,\n", "(= x 1) ; incomplete 2:6: '(' opened at 2:6 is never closed");
	expect_parse("s = '''abc", "incomplete 1:5: unterminated triple-quoted string");
	/* complete or plainly wrong input is not incomplete */
	cr_expect_eq(parse_status_of("x = a."), PARSE_ERROR);
	cr_expect_eq(parse_status_of("x = (1 2"), PARSE_ERROR);
	cr_expect_eq(parse_status_of("s = 'abc"), PARSE_ERROR);
	cr_expect_eq(parse_status_of("x = 1,"), PARSE_END);
	/* a line that ends after an operator is an error, as in CPython's REPL */
	static const char *const errors[] = {
		"x = 1 +", "x = 1 *\n", "y = a and", "z = not", "x =", "x +=", "a, b =", "x is", "x = -",
	};
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		cr_expect_eq(parse_status_of(errors[i]), PARSE_ERROR, "source: %s -> %s", errors[i], parse_all(errors[i]));
}

Test(parser, deep_nesting_should_be_an_error_not_a_crash)
{
	struct strbuf b;
	strbuf_init(&b);
	strbuf_puts(&b, "x = ");
	for (int i = 0; i < PARSE_MAX_DEPTH - 1; i++)
		strbuf_putc(&b, '(');
	strbuf_putc(&b, '1');
	for (int i = 0; i < PARSE_MAX_DEPTH - 1; i++)
		strbuf_putc(&b, ')');
	cr_expect_eq(parse_status_of(b.s), PARSE_END, "%d nested parentheses should parse", PARSE_MAX_DEPTH - 1);
	strbuf_reset(&b);
	strbuf_puts(&b, "x = ");
	for (int i = 0; i < 100000; i++)
		strbuf_putc(&b, '[');
	cr_expect_str_eq(parse_all(b.s), "error 1:69: expression nested more than 64 deep");
	strbuf_reset(&b);
	for (int i = 0; i < 10000; i++)
		strbuf_puts(&b, "-");
	strbuf_puts(&b, "1");
	cr_expect_str_eq(parse_all(b.s), "error 1:65: expression nested more than 64 deep");
	strbuf_free(&b);
}

Test(parser, tall_trees_should_be_rejected_by_the_height_limit)
{
	struct strbuf b;
	strbuf_init(&b);
	/* CPython 3.11 runs x = 1 + 1 + ... up to 2993 terms: a chain is no nesting */
	strbuf_puts(&b, "x = 1");
	for (int i = 1; i < 2990; i++)
		strbuf_puts(&b, " + 1");
	cr_expect_eq(parse_status_of(b.s), PARSE_END, "a 2990-term sum should parse");
	strbuf_reset(&b);
	strbuf_puts(&b, "x = 1");
	for (int i = 1; i < 100000; i++)
		strbuf_puts(&b, "+1");
	cr_expect_str_eq(parse_all(b.s), "error 1:5: expression too long: more than 3000 operations in a chain "
			 "(such as 1 + 1 + ...)");
	strbuf_reset(&b);
	strbuf_puts(&b, "x = a");
	for (int i = 0; i < 20000; i++)
		strbuf_puts(&b, ".b");
	cr_expect_str_eq(parse_all(b.s), "error 1:5: expression too long: more than 3000 operations in a chain "
			 "(such as 1 + 1 + ...)");
	strbuf_free(&b);
}

Test(parser, a_255_term_sum_should_parse_as_a_left_chain)
{
	struct strbuf b;
	strbuf_init(&b);
	strbuf_puts(&b, "x = 1");
	for (int i = 1; i < 255; i++)
		strbuf_puts(&b, " + 1");
	cr_expect_eq(parse_status_of(b.s), PARSE_END, "the issue's 255-term sum should parse");
	cr_expect_eq(strncmp(parse_all(b.s), "(= x (+ (+ (+ 1 1) 1) 1)", 10), 0, "%.40s", parse_all(b.s));
	strbuf_free(&b);
}

Test(parser, a_byte_order_mark_at_the_start_should_be_skipped)
{
	cr_expect_str_eq(parse_all("\xef\xbb\xbfx = 1\ny = 2"), "(= x 1) ; (= y 2)");
	cr_expect_str_eq(parse_all("\xef\xbb\xbfx = )"), "error 1:5: unexpected ')'");
	/* only at the start, as Python: elsewhere it is a character */
	cr_expect_str_eq(parse_all("x = 1\n\xef\xbb\xbfy = 2"),
			 "(= x 1) ; error 2:1: unexpected character '\xef\xbb\xbf' (U+FEFF): names must be ASCII");
}

Test(parser, a_statement_of_any_length_should_parse)
{
	struct strbuf b;
	strbuf_init(&b);
	strbuf_puts(&b, "x = [");
	for (int i = 0; i < 70; i++) {
		strbuf_puts(&b, "[");
		for (int j = 0; j < 70; j++)
			strbuf_puts(&b, "-1.234567890123e-01, ");
		strbuf_puts(&b, "],\n");
	}
	strbuf_puts(&b, "]");
	cr_assert_gt(b.len, 100000);
	cr_expect_eq(parse_status_of(b.s), PARSE_END, "a 70x70 literal of %zu bytes should parse", b.len);
	strbuf_reset(&b);
	strbuf_puts(&b, "s = '");
	for (int i = 0; i < 100000; i++)
		strbuf_putc(&b, 'a');
	strbuf_puts(&b, "'");
	cr_expect_eq(parse_status_of(b.s), PARSE_END);
	strbuf_free(&b);
}

Test(parser, nul_bytes_and_invalid_utf8_should_be_rejected_cleanly)
{
	static const char src1[] = "x = 1\0 + 2";
	static const char src2[] = "s = 'a\0b'";
	static const char src3[] = "x = \xff\xfe";
	static const char src4[] = "s = '\xff\xfe'";
	cr_expect_str_eq(parse_all_n(src1, sizeof src1 - 1), "error 1:6: unexpected character (byte 0x00)");
	cr_expect_str_eq(parse_all_n(src2, sizeof src2 - 1), "error 1:7: strings cannot contain NUL characters");
	cr_expect_str_eq(parse_all_n(src3, sizeof src3 - 1), "error 1:5: unexpected character (byte 0xFF)");
	/* as Python, which reads source as UTF-8: a string holds characters, never stray bytes */
	cr_expect_str_eq(parse_all_n(src4, sizeof src4 - 1),
			 "error 1:6: invalid UTF-8 (byte 0xFF) in a string: qkv reads source text as UTF-8");
	cr_expect_str_eq(parse_all("s = 'h\xc3llo'"),
			 "error 1:7: invalid UTF-8 (byte 0xC3) in a string: qkv reads source text as UTF-8");
	cr_expect_str_eq(parse_all("s = r'\\\xc3\xa9'"), "(= s \"\\\\\xc3\xa9\")");
	/* the length given is authoritative: the rest of the buffer is never read */
	cr_expect_str_eq(parse_all_n("x = 12345", 5), "(= x 1)");
}

/* ---- the API ----------------------------------------------------------------------------- */

Test(parser, span_should_cover_each_statement)
{
	const char *src = "a = 1  # one\nb = f(2,\n  3); c\n";
	struct parser *p = parser_new(src, strlen(src), 10);
	struct node *n;
	struct qkv_error err;
	int line;
	size_t start, end;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK);
	parser_last_span(p, &line, &start, &end);
	cr_expect_eq(line, 10);
	cr_expect_eq(n->line, 10);
	cr_expect_eq(strncmp(src + start, "a = 1", end - start), 0);
	cr_expect_eq(end - start, 5);
	node_free(n);
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK);
	parser_last_span(p, &line, &start, &end);
	cr_expect_eq(line, 11);
	cr_expect_eq(end - start, strlen("b = f(2,\n  3)"));
	cr_expect_eq(strncmp(src + start, "b = f(2,\n  3)", end - start), 0);
	node_free(n);
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK);
	parser_last_span(p, &line, &start, &end);
	cr_expect_eq(line, 12);
	cr_expect_eq(end - start, 1);
	cr_expect_eq(src[start], 'c');
	node_free(n);
	cr_expect_eq(parser_next(p, &n, &err), PARSE_END);
	cr_expect_eq(parser_next(p, &n, &err), PARSE_END);
	cr_expect_null(n);
	parser_free(p);
}

Test(parser, incomplete_span_should_start_at_the_unfinished_statement)
{
	const char *src = "x = 1\ny = (2,\n";
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n;
	struct qkv_error err;
	size_t start, end;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK);
	node_free(n);
	cr_assert_eq(parser_next(p, &n, &err), PARSE_INCOMPLETE);
	parser_last_span(p, NULL, &start, &end);
	cr_expect_eq(start, 6);
	cr_expect_eq(end, strlen(src));
	parser_free(p);
}

Test(parser, errors_should_be_sticky)
{
	const char *src = "x = )\ny = 1";
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n;
	struct qkv_error err;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_ERROR);
	error_clear(&err);
	cr_expect_eq(parser_next(p, &n, &err), PARSE_ERROR);
	cr_expect_eq(err.line, 1);
	cr_expect_eq(err.col, 5);
	cr_expect_null(n);
	cr_expect_eq(parser_next(p, &n, NULL), PARSE_ERROR);
	parser_free(p);
}

Test(parser, first_line_should_offset_line_numbers)
{
	const char *src = "a = 1\nb = )";
	struct parser *p = parser_new(src, strlen(src), 41);
	struct node *n;
	struct qkv_error err;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK);
	cr_expect_eq(n->line, 41);
	node_free(n);
	cr_assert_eq(parser_next(p, &n, &err), PARSE_ERROR);
	cr_expect_eq(err.line, 42);
	cr_expect_eq(err.col, 5);
	parser_free(p);
}

Test(parser, op_name_should_name_every_operator)
{
	cr_expect_str_eq(op_name(OP_ADD), "+");
	cr_expect_str_eq(op_name(OP_MATMUL), "@");
	cr_expect_str_eq(op_name(OP_FLOORDIV), "//");
	cr_expect_str_eq(op_name(OP_NOTIN), "not in");
	cr_expect_str_eq(op_name(OP_ISNOT), "is not");
	cr_expect_str_eq(op_name('!'), "not");
	cr_expect_str_eq(op_name(0), "?");
	for (int op = OP_ADD; op <= OP_ISNOT; op++)
		cr_expect_str_neq(op_name(op), "?", "op %d", op);
}

Test(parser, node_free_should_accept_null_and_tall_trees)
{
	struct node *n = NULL;
	node_free(NULL);
	for (int i = 0; i < 100000; i++) {
		struct node *u = xcalloc(1, sizeof *u);
		u->kind = N_UNARY;
		u->op = '-';
		if (n) {
			u->kids = xmalloc(sizeof *u->kids);
			u->kids[0] = n;
			u->nkids = 1;
		}
		n = u;
	}
	node_free(n);
}

/* ---- blocks (issue 13) ------------------------------------------------------------------- */

Test(parser, compound_statements_should_hold_their_indented_blocks)
{
	static const struct parse_case cases[] = {
		{"if x:\n    a = 1\n    b\nc", "(if x (block (= a 1) b) _) ; c"},
		{"if x: a; b\nelif y: c\nelse: d\n", "(if x (block a b) (if y (block c) (block d)))"},
		{"if x:\n  a\nelif y:\n  b\nelif z:\n  c\n", "(if x (block a) (if y (block b) (if z (block c) _)))"},
		{"for i in range(3):\n  for j in x:\n    print(i, j)\n", "(for i (call range 3) (block (for j x "
									 "(block (call print i j)) _)) _)"},
		{"for a, (b, c) in z: pass\nelse: pass", "(for (tuple a (tuple b c)) z (block (pass)) (block (pass)))"},
		{"for x[0] in y, z:\n  break\n", "(for (index x 0) (tuple y z) (block (break)) _)"},
		{"while n > 0:\n\tn -= 1\n\tcontinue\nelse:\n\tn = 5", "(while (> n 0) (block (-= n 1) (continue)) "
									   "(block (= n 5)))"},
		{"with torch.no_grad():\n  y = f(x)\n", "(with (call (. torch no_grad)) _ (block (= y (call f x))))"},
		{"with a as b, c:\n  pass", "(with a b (block (with c _ (block (pass)))))"},
		{"def f(x, y):\n  return x + y\n", "(def f (params x y) (block (return (+ x y))))"},
		{"def f():\n  return\n", "(def f (params) (block (return _)))"},
		{"def f():\n  def g():\n    nonlocal a\n    return 1, 2\n  global b\n",
		 "(def f (params) (block (def g (params) (block (nonlocal a) (return (tuple 1 2)))) (global b)))"},
		{"assert x > 0, 'positive'\nassert y", "(assert (> x 0) \"positive\") ; (assert y _)"},
		{"del x, y[0], z.w", "(del x (index y 0) (. z w))"},
		{"class A(nn.Module):\n  def forward(self, x):\n    return x\n",
		 "(class A (tuple (. nn Module)) (block (def forward (params self x) (block (return x)))))"},
		{"class B:\n  pass", "(class B (tuple) (block (pass)))"},
		/* blank lines, comments and bracketed lines say nothing about indentation */
		{"if x:\n\n  a = (1,\n2)\n    # note\n\n  b\n", "(if x (block (= a (tuple 1 2)) b) _)"},
		{"if x:\n  pass\n# end\ny", "(if x (block (pass)) _) ; y"},
		{"x = 1 + \\\n    2\ny", "(= x (+ 1 2)) ; y"},
	};
	EXPECT_CASES(cases);
}

Test(parser, nested_blocks_should_close_several_levels_at_once)
{
	expect_parse("for i in a:\n  for j in b:\n    if c:\n      d\ne", "(for i a (block (for j b (block (if c "
		     "(block d) _)) _)) _) ; e");
	expect_parse("if a:\n  if b:\n    c\n  else:\n    d\nelse:\n  e", "(if a (block (if b (block c) (block d))) "
		     "(block e))");
}

Test(parser, parameters_should_take_every_form)
{
	static const struct parse_case cases[] = {
		{"def f(a, b=1, *args, c, d=2, **kw): pass", "(def f (params a b=1 *args ^c ^d=2 **kw) (block (pass)))"},
		{"def f(*, key=None,): pass", "(def f (params * ^key=None) (block (pass)))"},
		{"def f(a, /): pass", "error 1:10: qkv does not run positional-only parameters ('/'); leave the '/' out"},
		{"def f(a: int): pass", "error 1:8: qkv does not run annotations ('x: type'); leave them out"},
		{"def f() -> int: pass", "error 1:9: qkv does not run annotations ('-> type'); leave them out"},
	};
	EXPECT_CASES(cases);
}

/* ---- CPython's own outcomes (tests/ref/parser_refs.py) ------------------------------------ */

#define PARSER_REFS_SYNTAX
#include "../ref/parser_refs.inc"

/* Every input parses when CPython compiles it, and fails with CPython's
 * message at CPython's line and column when it does not. */
static void expect_cpython(const struct parse_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = parse_all(cases[i].src);
		if (strcmp(cases[i].want, "ok") == 0) {
			cr_expect(!strstr(got, "error ") && !strstr(got, "incomplete "), "source: %s\n   got: %s",
				  cases[i].src, got);
		} else {
			const char *err = strstr(got, "error ");
			cr_expect(err && strcmp(err, cases[i].want) == 0, "source: %s\n   got: %s\nwanted: %s",
				  cases[i].src, got, cases[i].want);
		}
	}
}

Test(parser, blocks_should_parse_and_fail_as_cpython_does)
{
	expect_cpython(parser_refs_blocks, sizeof parser_refs_blocks / sizeof parser_refs_blocks[0]);
}

Test(parser, parameters_should_parse_and_fail_as_cpython_does)
{
	expect_cpython(parser_refs_params, sizeof parser_refs_params / sizeof parser_refs_params[0]);
}

/* ---- expressions of issue 13 --------------------------------------------------------------- */

Test(parser, displays_and_comprehensions_should_parse)
{
	static const struct parse_case cases[] = {
		{"d = {}", "(= d (dict))"},
		{"d = {'a': 1, 'b': x + 1,}", "(= d (dict \"a\" 1 \"b\" (+ x 1)))"},
		{"s = {1, 2, *t}", "(= s (set 1 2 (* t)))"},
		{"[x * 2 for x in xs]", "(listcomp (* x 2) _ (compfor x xs))"},
		{"[(i, j) for i in a if i for j in b if j > i if j]",
		 "(listcomp (tuple i j) _ (compfor i a i) (compfor j b (> j i) j))"},
		{"{k: v for k, v in d.items()}", "(dictcomp k v (compfor (tuple k v) (call (. d items))))"},
		{"{x for x in y}", "(setcomp x _ (compfor x y))"},
		{"g = (x for x in y)", "(= g (genexp x _ (compfor x y)))"},
		{"sum(p.numel() for p in m.parameters())",
		 "(call sum (genexp (call (. p numel)) _ (compfor p (call (. m parameters)))))"},
		{"[a if c else b for a in x if a]", "(listcomp (ifexp a c b) _ (compfor a x a))"},
		{"y = a if c else b if d else e", "(= y (ifexp a c (ifexp b d e)))"},
		{"f = lambda: 0", "(= f (lambda (params) 0))"},
		{"f = lambda x, *a, k=1, **kw: x if k else a", "(= f (lambda (params x *a ^k=1 **kw) (ifexp x k a)))"},
		{"sorted(xs, key=lambda t: t[1])", "(call sorted xs key=(lambda (params t) (index t 1)))"},
		{"f(*args, x, **kw)", "(call f (* args) x (** kw))"},
		{"f(a=1, *b)", "(call f a=1 (* b))"},
		{"[*a, b]", "(list (* a) b)"},
		{"(*a, b)", "(tuple (* a) b)"},
		{"x = *a, b", "(= x (tuple (* a) b))"},
		{"a, *b = c", "(= (tuple a (* b)) c)"},
		{"[a, (b, c.d), e[0]] = x", "(= (list a (tuple b (. c d)) (index e 0)) x)"},
		{"for i, *rest in rows: pass", "(for (tuple i (* rest)) rows (block (pass)) _)"},
		{"class C(A, B):\n  x = {1: [2]}\n", "(class C (tuple A B) (block (= x (dict 1 (list 2)))))"},
	};
	EXPECT_CASES(cases);
}

Test(parser, constructs_qkv_does_not_run_should_each_say_so)
{
	static const struct parse_case cases[] = {
		{"try:\n  x = 1\nexcept E:\n  pass", "error 1:1: qkv does not run 'try' blocks: errors stop the "
						      "cell, as they would without 'try'"},
		{"raise ValueError('x')", "error 1:1: qkv does not run 'raise'; use assert cond, \"message\" to stop "
					  "on a bad value"},
		{"def f():\n  yield 1", "error 2:3: qkv does not run generators ('yield'); build a list and return it"},
		{"async def f(): pass", "error 1:1: qkv does not run 'async' code"},
		{"match x:\n  case 1: pass", "error 1:1: qkv does not run 'match' statements; use if/elif/else"},
		{"match = 1; match(2)", "(= match 1) ; (call match 2)"},
		{"if (n := 10) > 5: pass", "error 1:7: qkv does not run ':=' (assignment expressions); assign in a "
					   "statement of its own"},
		{"@torch.no_grad()\ndef f(): pass", "error 1:1: qkv does not run decorators ('@name' before def or "
						    "class); apply it after the def instead: f = name(f)"},
		{"def f(a, /, b): pass", "error 1:10: qkv does not run positional-only parameters ('/'); leave the "
					 "'/' out"},
		{"0 < x < 1", "error 1:7: qkv does not run chained comparisons such as a < b < c; write a < b and "
			      "b < c"},
	};
	EXPECT_CASES(cases);
}

Test(parser, expressions_should_parse_and_fail_as_cpython_does)
{
	expect_cpython(parser_refs_exprs, sizeof parser_refs_exprs / sizeof parser_refs_exprs[0]);
}

/* ---- interactive mode ------------------------------------------------------------------------ */

static enum parse_status parse_interactive(const char *src, struct qkv_error *err)
{
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n;
	enum parse_status st;
	parser_set_interactive(p, true);
	while ((st = parser_next(p, &n, err)) == PARSE_OK)
		node_free(n);
	parser_free(p);
	return st;
}

Test(parser, interactive_blocks_should_need_an_empty_line_to_end)
{
	static const char *const incomplete[] = {
		"for i in range(3):\n", "for i in range(3):\n  print(i)\n", "def f():\n  return 1\n",
		"if x:\n  a\nelse:\n", "if x: pass\n", "if x:\n  a\n  # note\n", "x = 1\nwhile x:\n  x -= 1\n",
		"class C:\n  x = 1\n\n  def f(self):\n    return 2\n", "for i in x:\n  y = (1,\n",
	};
	static const char *const complete[] = {
		"x = 1\n", "for i in range(3):\n  print(i)\n\n", "def f():\n  return 1\n   \n",
		"if x:\n  a\nelse:\n  b\n\n", "if x:\n  a\nb = 1\n", "",
	};
	struct qkv_error err;
	for (size_t i = 0; i < sizeof incomplete / sizeof incomplete[0]; i++)
		cr_expect_eq(parse_interactive(incomplete[i], &err), PARSE_INCOMPLETE, "source: %s", incomplete[i]);
	for (size_t i = 0; i < sizeof complete / sizeof complete[0]; i++)
		cr_expect_eq(parse_interactive(complete[i], &err), PARSE_END, "source: %s", complete[i]);
	cr_expect_eq(parse_interactive("for i in x:\n  )\n", &err), PARSE_ERROR);
	cr_expect_eq(parse_interactive("for i in x:\nprint(i)\n", &err), PARSE_ERROR);
	cr_expect_str_eq(err.msg, "expected an indented block after 'for' statement on line 1");
	/* the same inputs in a file: the end of the input ends every block */
	cr_expect_eq(parse_status_of("def f():\n  return 1\n"), PARSE_END);
	cr_expect_eq(parse_status_of("if x: pass"), PARSE_END);
	cr_expect_eq(parse_status_of("for i in range(3):\n"), PARSE_ERROR);
}

Test(parser, interactive_incomplete_span_should_cover_the_whole_block)
{
	const char *src = "x = 1\nfor i in y:\n  print(i)\n";
	struct parser *p = parser_new(src, strlen(src), 1);
	struct node *n;
	struct qkv_error err;
	size_t start, end;
	parser_set_interactive(p, true);
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK);
	node_free(n);
	cr_expect_eq(parser_next(p, &n, &err), PARSE_INCOMPLETE);
	parser_last_span(p, NULL, &start, &end);
	cr_expect_eq(start, 6);
	cr_expect_eq(end, strlen(src));
	parser_free(p);
}

/* ---- IPython magics -------------------------------------------------------------------------------- */

Test(parser, magics_should_wrap_the_statement_or_the_cell_they_time)
{
	static const struct parse_case cases[] = {
		{"%time y = f(x)", "(%time (= y (call f x)))"},
		{"%time sum(range(10))\nz", "(%time (call sum (call range 10))) ; z"},
		{"%time", "(%time (pass))"},
		{"%time for i in x: s += i\ny", "(%time (for i x (block (+= s i)) _)) ; y"},
		{"%%time\nmhsa_outputs = gpt2_mhsa(batch)\n", "(%%time (block (= mhsa_outputs (call gpt2_mhsa batch))))"},
		{"%%time\nfor i in x:\n  a\nb\n", "(%%time (block (for i x (block a) _) b))"},
		{"%%time\n", "(%%time (block))"},
		{"%timeit x @ y", "(%timeit -n0 -r0 (@ x y))"},
		{"%timeit -n 100 -r 3 x @ y", "(%timeit -n100 -r3 (@ x y))"},
		{"%timeit -r5 -n10 f(x)", "(%timeit -n10 -r5 (call f x))"},
		{"for i in x:\n  %time f(i)\n", "(for i x (block (%time (call f i))) _)"},
		{"x = 10 % 3", "(= x (% 10 3))"},
	};
	EXPECT_CASES(cases);
}

Test(parser, bad_magics_should_say_what_qkv_runs)
{
	static const struct parse_case cases[] = {
		{"%matplotlib inline", "error 1:1: qkv runs only the magics %time, %%time and %timeit (this is "
				       "%matplotlib)"},
		{"%%timeit\nx", "error 1:1: qkv runs only the magics %time, %%time and %timeit (this is %%timeit)"},
		{"x = 1\n%%time\ny = 2", "(= x 1) ; error 2:1: %%time must be the first line of the cell"},
		{"%%time x = 1\n", "error 1:8: Can't use statement directly after '%%time'!"},
		{"%timeit -q x", "error 1:9: qkv's %timeit takes -n LOOPS and -r RUNS (whole numbers), nothing else"},
		{"%timeit -n x", "error 1:9: qkv's %timeit takes -n LOOPS and -r RUNS (whole numbers), nothing else"},
		{"%time %time x", "error 1:7: a magic cannot time another magic"},
		{"%time x = (", "incomplete 1:11: '(' opened at 1:11 is never closed"},
	};
	EXPECT_CASES(cases);
}

Test(parser, an_interactive_timed_cell_should_end_at_an_empty_line)
{
	struct qkv_error err;
	cr_expect_eq(parse_interactive("%%time\nx = 1\n", &err), PARSE_INCOMPLETE);
	cr_expect_eq(parse_interactive("%%time\nx = 1\n\n", &err), PARSE_END);
	cr_expect_eq(parse_interactive("%time x = 1\n", &err), PARSE_END);
	cr_expect_eq(parse_interactive("%time for i in x: pass\n", &err), PARSE_INCOMPLETE);
}

Test(parser, statements_nested_on_one_line_or_in_deep_blocks_should_never_overflow)
{
	struct strbuf b;
	strbuf_init(&b);
	for (int i = 0; i < 10000; i++)
		strbuf_puts(&b, "%time if x: ");
	strbuf_puts(&b, "pass");
	cr_expect_str_eq(parse_all(b.s), "error 1:766: expression nested more than 64 deep");
	strbuf_reset(&b);
	for (int i = 0; i < 99; i++) {
		for (int k = 0; k < i; k++)
			strbuf_putc(&b, ' ');
		strbuf_puts(&b, "def f(a=(((1,),),)):\n");
	}
	for (int k = 0; k < 99; k++)
		strbuf_putc(&b, ' ');
	strbuf_puts(&b, "return [[[a]]]\n");
	cr_expect_eq(parse_status_of(b.s), PARSE_END, "%s", parse_all(b.s));
	strbuf_free(&b);
}
