/* parse_stmt.c: the parser's statements (see parser.c): assignments,
 * imports, simple statements, compound statements and their indented blocks
 * with CPython's messages, def and lambda parameters, and IPython's magics. */
#include "lang/parse_internal.h"
#include "core/mem.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct node *parse_compound(struct parser *p);
static struct node *parse_magic(struct parser *p);

/* ---- statements ------------------------------------------------------------------------ */

/* A statement must end at a newline, ';' or the end of the input. */
static struct node *parse_end(struct parser *p, struct node *n)
{
	if (p->tok.kind == T_NEWLINE || p->tok.kind == T_SEMI || p->tok.kind == T_EOF)
		return n;
	node_free(n);
	return parse_fail(p, NULL);
}

static const char *parse_target_noun(const struct node *t)
{
	switch (t->kind) {
	case N_NUM: return "a number";
	case N_STR: return "a string";
	case N_FSTR: return "an f-string";
	case N_CONST: return t->op == 'T' ? "True" : t->op == 'F' ? "False" : "None";
	case N_LIST: return "a list";
	case N_MATRIX: return "a matrix literal";
	case N_UNARY: case N_BINARY: return "an expression";
	case N_CALL: return "a call";
	case N_TUPLE: return "a tuple";
	case N_INDEX: return "a subscript";
	case N_ATTR: return "an attribute";
	default: return "this";
	}
}

/* Unpacking targets: names, x[i], obj.attr, and (nested) tuples or lists of
 * them, at most one *starred per level. Recursion is bounded by the
 * expression depth limit. */
static int parse_check_unpack(struct parser *p, const struct node *t, const struct token *op)
{
	int n = (int)op->len, starred = 0;
	const char *s = p->src + op->start;
	for (int i = 0; i < t->nkids; i++) {
		const struct node *k = t->kids[i];
		if (k->kind == N_STARRED) {
			if (++starred > 1) {
				parse_error_at(p, t->line, t->col, "multiple starred expressions in assignment");
				return -1;
			}
			k = k->kids[0];
		}
		if (k->kind == N_NAME || k->kind == N_INDEX || k->kind == N_ATTR)
			continue;
		if (k->kind == N_TUPLE || k->kind == N_LIST) {
			if (parse_check_unpack(p, k, op) < 0)
				return -1;
			continue;
		}
		parse_error_at(p, op->line, op->col, "'%.*s' cannot assign to %s", n, s, parse_target_noun(k));
		return -1;
	}
	return 0;
}

/* Checks what stands left of '=' (or '+=', ...): a name, x[i], obj.attr, or
 * (for '=' only) a tuple of names. Errors point at the operator. */
static int parse_check_target(struct parser *p, const struct node *t, const struct token *op, bool aug)
{
	int n = (int)op->len;
	const char *s = p->src + op->start;
	if (t->kind == N_NAME || t->kind == N_INDEX || t->kind == N_ATTR)
		return 0;
	if ((t->kind == N_TUPLE || t->kind == N_LIST) && !aug && t->nkids > 0)
		return parse_check_unpack(p, t, op);
	if (t->kind == N_STARRED && !aug)
		parse_error_at(p, t->line, t->col, "starred assignment target must be in a list or tuple");
	else if (t->kind == N_TUPLE && t->nkids == 0)
		parse_error_at(p, op->line, op->col, "'%.*s' cannot assign to an empty tuple", n, s);
	else if ((t->kind == N_BINARY || t->kind == N_UNARY) && !aug)
		parse_error_at(p, op->line, op->col, "'%.*s' cannot assign to an expression (to compare, "
			       "use '==')", n, s);
	else
		parse_error_at(p, op->line, op->col, "'%.*s' cannot assign to %s", n, s, parse_target_noun(t));
	return -1;
}

/* name = value, a, b = value, x[i] = value, obj.attr = value, x += value,
 * or an expression whose value is shown. */
static struct node *parse_assign_or_expr(struct parser *p)
{
	int line = p->tok.line, col = p->tok.col;
	struct node *lhs = parse_exprlist(p), *rhs, *n;
	struct token op;
	if (!lhs)
		return NULL;
	if (p->tok.kind != T_ASSIGN && p->tok.kind != T_AUGASSIGN) {
		if (lhs->kind == N_NAME && strcmp(lhs->str, "print") == 0 && parse_starts_expr(&p->tok) &&
		    p->tok.kind != T_LPAR) {
			node_free(lhs);
			return parse_fail(p, "print is a function: write print(...)");
		}
		n = parse_node_new(N_EXPR, line, col);
		parse_node_add(n, lhs);
		return parse_end(p, n);
	}
	op = p->tok;	/* positions only: op's strings stay owned by p->tok */
	if (parse_check_target(p, lhs, &op, op.kind == T_AUGASSIGN) < 0) {
		node_free(lhs);
		return NULL;
	}
	n = parse_node_new(op.kind == T_ASSIGN ? N_ASSIGN : N_AUGASSIGN, op.line, op.col);
	n->op = op.kind == T_AUGASSIGN ? op.op : 0;
	parse_node_add(n, lhs);
	parse_advance(p);
	rhs = parse_exprlist(p);
	if (!rhs) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, rhs);
	if (p->tok.kind == T_ASSIGN || p->tok.kind == T_AUGASSIGN) {
		node_free(n);
		return parse_fail(p, "chained assignment (a = b = ...) is not supported; assign one "
			       "target per statement");
	}
	return parse_end(p, n);
}

/* A dotted module path: torch.nn.functional. Returns it (owned) or NULL. */
static char *parse_module_path(struct parser *p, const char *after)
{
	struct strbuf b;
	if (p->tok.kind == T_DOT) {
		parse_fail(p, "relative imports (from . import x) are not supported");
		return NULL;
	}
	if (p->tok.kind != T_NAME) {
		parse_fail(p, "expected a module name after '%s'", after);
		return NULL;
	}
	strbuf_init(&b);
	strbuf_putn(&b, p->src + p->tok.start, p->tok.len);
	parse_advance(p);
	while (p->tok.kind == T_DOT) {
		parse_advance(p);
		if (p->tok.kind != T_NAME) {
			strbuf_free(&b);
			parse_fail(p, "expected a name after '.'");
			return NULL;
		}
		strbuf_putc(&b, '.');
		strbuf_putn(&b, p->src + p->tok.start, p->tok.len);
		parse_advance(p);
	}
	return strbuf_detach(&b);
}

/* The name after 'as' (owned), NULL when there is no 'as'. *ok is false on errors. */
static char *parse_as_name(struct parser *p, bool *ok)
{
	char *name;
	*ok = true;
	if (p->tok.kind != T_AS)
		return NULL;
	parse_advance(p);
	if (p->tok.kind != T_NAME) {
		*ok = false;
		parse_fail(p, "expected a name after 'as'");
		return NULL;
	}
	name = xstrndup(p->src + p->tok.start, p->tok.len);
	parse_advance(p);
	return name;
}

/* import torch / import torch.nn as nn / import math, copy: the modules,
 * each a name (its path) with its `as` name; op 'i' tells it from `from`. */
static struct node *parse_import(struct parser *p)
{
	struct node *n = parse_node_new(N_IMPORT, p->tok.line, p->tok.col);
	n->op = 'i';
	parse_advance(p);
	for (;;) {
		int line = p->tok.line, col = p->tok.col;
		bool ok;
		char *path = parse_module_path(p, "import");
		if (!path) {
			node_free(n);
			return NULL;
		}
		char *as = parse_as_name(p, &ok);
		if (!ok) {
			free(path);
			node_free(n);
			return NULL;
		}
		struct node *name = parse_node_new(N_NAME, line, col);
		name->str = path;
		if (!n->str)
			n->str = xstrdup(path);
		parse_node_add_name(&n->kwnames, n->nkids, as);
		parse_node_add(n, name);
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
	}
	return parse_end(p, n);
}

/* from scipy.special import softmax / from torch import nn as tnn, optim / from m import (a, b) */
static struct node *parse_from_import(struct parser *p)
{
	struct node *n = parse_node_new(N_IMPORT, p->tok.line, p->tok.col);
	struct tok_pos open = {0};
	bool paren = false;
	parse_advance(p);
	n->str = parse_module_path(p, "from");
	if (!n->str) {
		node_free(n);
		return NULL;
	}
	if (p->tok.kind != T_IMPORT) {
		node_free(n);
		return parse_fail(p, "expected 'import' after the module name");
	}
	parse_advance(p);
	if (p->tok.kind == T_LPAR) {
		open = parse_tok_pos(&p->tok);
		paren = true;
		parse_advance(p);
	}
	if (p->tok.kind == T_STAR) {
		node_free(n);
		return parse_fail(p, "'import *' is not supported; name what you import, as in "
			       "from torch import nn");
	}
	for (;;) {
		struct node *name;
		char *as;
		bool ok;
		if (p->tok.kind != T_NAME) {
			node_free(n);
			return parse_fail(p, "expected a name to import");
		}
		name = parse_node_new(N_NAME, p->tok.line, p->tok.col);
		name->str = xstrndup(p->src + p->tok.start, p->tok.len);
		parse_advance(p);
		as = parse_as_name(p, &ok);
		if (!ok) {
			node_free(name);
			node_free(n);
			return NULL;
		}
		parse_node_add_name(&n->kwnames, n->nkids, as);
		parse_node_add(n, name);
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
		if (paren && p->tok.kind == T_RPAR)
			break;
	}
	if (paren && !parse_close(p, T_RPAR, &open)) {
		node_free(n);
		return NULL;
	}
	return parse_end(p, n);
}

/* ---- simple statements ------------------------------------------------------------------- */

/* The names a statement keyword is given in messages. */
static bool parse_is_compound(const struct parser *p, const struct token *t)
{
	static const char *const words[] = {"if", "for", "while", "def", "class", "with"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (parse_is_kw(p, t, words[i]))
			return true;
	return false;
}

/* CPython's compile-time errors point at the statement: fails there. */
static struct node *parse_refuse(struct parser *p, struct node *n, const char *msg)
{
	int line = n->line, col = n->col;
	node_free(n);
	return parse_error_at(p, line, col, "%s", msg);
}

/* return [value] */
static struct node *parse_return(struct parser *p)
{
	struct node *n = parse_node_new(N_RETURN, p->tok.line, p->tok.col), *v = NULL;
	parse_advance(p);
	if (parse_starts_expr(&p->tok)) {
		v = parse_exprlist(p);
		if (!v) {
			node_free(n);
			return NULL;
		}
	}
	parse_node_add(n, v);
	n = parse_end(p, n);
	if (n && !p->in_func)
		return parse_refuse(p, n, "'return' outside function");
	return n;
}

/* break, continue, pass */
static struct node *parse_word(struct parser *p, enum node_kind kind)
{
	struct node *n = parse_node_new(kind, p->tok.line, p->tok.col);
	parse_advance(p);
	n = parse_end(p, n);
	if (n && kind == N_BREAK && p->loops == 0)
		return parse_refuse(p, n, "'break' outside loop");
	if (n && kind == N_CONTINUE && p->loops == 0)
		return parse_refuse(p, n, "'continue' not properly in loop");
	return n;
}

/* What CPython calls an expression that cannot be assigned or deleted. */
static const char *parse_cpython_noun(const struct node *t)
{
	switch (t->kind) {
	case N_CALL: return "function call";
	case N_NUM: case N_STR: case N_CONST: case N_MATRIX: return "literal";
	case N_FSTR: return "f-string expression";
	case N_COMP: return t->op == '(' ? "generator expression" : t->op == '[' ? "list comprehension" :
			    t->op == '{' ? "set comprehension" : "dict comprehension";
	case N_DICT: return "dict literal";
	case N_SET: return "set display";
	case N_LAMBDA: return "lambda";
	case N_IFEXP: return "conditional expression";
	case N_BINARY: return t->op >= OP_EQ && t->op <= OP_GE ? "comparison" : "expression";
	default: return "expression";
	}
}

/* Checks a target of for, with ... as, del (verb "delete") or a
 * comprehension: names, x[i], obj.attr, and tuples or lists of them. Errors
 * point where the bad part starts. Recursion is bounded by PARSE_MAX_DEPTH. */
int parse_check_targets(struct parser *p, struct node *t, const char *verb)
{
	bool del = strcmp(verb, "delete") == 0;
	if (t->kind == N_NAME || t->kind == N_INDEX || t->kind == N_ATTR)
		return 0;
	if (t->kind == N_TUPLE || t->kind == N_LIST) {
		int starred = 0;
		for (int i = 0; i < t->nkids; i++) {
			struct node *k = t->kids[i];
			if (k->kind == N_STARRED && !del) {
				if (++starred > 1) {
					parse_error_at(p, t->line, t->col, "multiple starred expressions in assignment");
					return -1;
				}
				k = k->kids[0];
			}
			if (parse_check_targets(p, k, verb) < 0)
				return -1;
		}
		return 0;
	}
	if (t->kind == N_STARRED && !del) {
		parse_error_at(p, t->line, t->col, "starred assignment target must be in a list or tuple");
		return -1;
	}
	if (t->kind == N_STARRED) {
		parse_error_at(p, t->line, t->col, "cannot delete starred");
		return -1;
	}
	parse_node_starts(t);
	parse_error_at(p, t->sline, t->scol, "cannot %s %s", verb, parse_cpython_noun(t));
	return -1;
}

/* del a, b[i], c.d: the targets become the node's children, tuples flattened. */
static void parse_del_flatten(struct node *n, struct node *t)
{
	if (t->kind == N_TUPLE || t->kind == N_LIST) {
		for (int i = 0; i < t->nkids; i++)
			parse_del_flatten(n, t->kids[i]);
		t->nkids = 0;
		node_free(t);
		return;
	}
	parse_node_add(n, t);
}

static struct node *parse_del(struct parser *p)
{
	struct node *n = parse_node_new(N_DEL, p->tok.line, p->tok.col), *t;
	parse_advance(p);
	if (p->tok.kind == T_STAR) {
		node_free(n);
		return parse_error_at(p, p->tok.line, p->tok.col, "cannot delete starred");
	}
	if (!parse_starts_expr(&p->tok)) {
		node_free(n);
		return parse_fail(p, "expected a name to delete after 'del'");
	}
	t = parse_exprlist(p);
	if (!t || parse_check_targets(p, t, "delete") < 0) {
		node_free(t);
		node_free(n);
		return NULL;
	}
	parse_del_flatten(n, t);
	return parse_end(p, n);
}

/* global a, b / nonlocal a, b */
static struct node *parse_names(struct parser *p, enum node_kind kind)
{
	struct node *n = parse_node_new(kind, p->tok.line, p->tok.col);
	parse_advance(p);
	for (;;) {
		struct node *name;
		if (p->tok.kind != T_NAME) {
			node_free(n);
			return parse_fail(p, "expected a name after '%s'", kind == N_GLOBAL ? "global" : "nonlocal");
		}
		name = parse_node_new(N_NAME, p->tok.line, p->tok.col);
		name->str = xstrndup(p->src + p->tok.start, p->tok.len);
		parse_node_add(n, name);
		parse_advance(p);
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
	}
	n = parse_end(p, n);
	if (n && kind == N_NONLOCAL && !p->in_func && p->scope == SCOPE_MODULE)
		return parse_refuse(p, n, "nonlocal declaration not allowed at module level");
	return n;
}

/* assert test [, message] */
static struct node *parse_assert(struct parser *p)
{
	struct node *n = parse_node_new(N_ASSERT, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_expr(p);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	e = NULL;
	if (p->tok.kind == T_COMMA) {
		parse_advance(p);
		e = parse_expr(p);
		if (!e) {
			node_free(n);
			return NULL;
		}
	}
	parse_node_add(n, e);
	return parse_end(p, n);
}

/* `match x:` (a soft keyword: `match = 1` and `match(x)` stay names). */
static bool parse_is_match(struct parser *p)
{
	const struct token *next;
	if (p->tok.len != 5 || memcmp(p->src + p->tok.start, "match", 5) != 0)
		return false;
	next = parse_peek(p);
	switch (next->kind) {
	case T_NAME: case T_NUMBER: case T_STRING: case T_FSTRING: case T_LBRACE:
	case T_TRUE: case T_FALSE: case T_NONE:
		return true;
	default:
		return false;
	}
}

/* One simple statement, ending (not consuming) at a newline, ';' or the end. */
static struct node *parse_simple(struct parser *p)
{
	const struct token *t = &p->tok;
	switch (t->kind) {
	case T_IMPORT:
		return parse_import(p);
	case T_FROM:
		return parse_from_import(p);
	case T_PASS:
		return parse_word(p, N_PASS);
	case T_INDENT:
		return parse_error_at(p, t->line, t->col, "unexpected indent");
	case T_PERCENT:
		return parse_magic(p);
	case T_AT:
		return parse_fail(p, "qkv does not run decorators ('@name' before def or class); apply it "
				  "after the def instead: f = name(f)");
	case T_NAME:
		if (parse_is_match(p))
			return parse_fail(p, "qkv does not run 'match' statements; use if/elif/else");
		return parse_assign_or_expr(p);
	case T_KEYWORD:
		if (parse_is_kw(p, t, "return"))
			return parse_return(p);
		if (parse_is_kw(p, t, "break"))
			return parse_word(p, N_BREAK);
		if (parse_is_kw(p, t, "continue"))
			return parse_word(p, N_CONTINUE);
		if (parse_is_kw(p, t, "del"))
			return parse_del(p);
		if (parse_is_kw(p, t, "global"))
			return parse_names(p, N_GLOBAL);
		if (parse_is_kw(p, t, "nonlocal"))
			return parse_names(p, N_NONLOCAL);
		if (parse_is_kw(p, t, "assert"))
			return parse_assert(p);
		return parse_fail(p, "%s", parse_keyword_message(p, t));
	default:
		return parse_assign_or_expr(p);
	}
}

/* ---- blocks ---------------------------------------------------------------------------------- */

/* A statement that holds a block: if, for, while, with, def, class, and a
 * magic timing one of them or a whole cell. */
static bool parse_holds_block(const struct node *n)
{
	switch (n->kind) {
	case N_IF: case N_FOR: case N_WHILE: case N_WITH: case N_DEF: case N_CLASS:
		return true;
	case N_MAGIC:
		return n->op == 'c' || parse_holds_block(n->kids[0]);
	default:
		return false;
	}
}

/* Fails with PARSE_INCOMPLETE and a message of our own. */
static struct node *parse_incomplete_at(struct parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct node *parse_incomplete_at(struct parser *p, int line, int col, const char *fmt, ...)
{
	va_list ap;
	if (p->failed)
		return NULL;
	p->failed = true;
	p->fail_status = PARSE_INCOMPLETE;
	va_start(ap, fmt);
	error_vset(&p->err, line, col, fmt, ap);
	va_end(ap);
	return NULL;
}

/* Where CPython reports a block missing at the end of the input: the last
 * newline of the input (or its very end when there is none). */
static void parse_end_position(const struct parser *p, int *line, int *col)
{
	size_t at = p->len, from;
	*line = p->lex.line;
	if (at > 0 && p->src[at - 1] == '\n') {
		at--;
		(*line)--;
	}
	from = at;
	while (from > 0 && p->src[from - 1] != '\n')
		from--;
	*col = 1;
	for (size_t i = from; i < at; i++)
		if (((unsigned char)p->src[i] & 0xC0) != 0x80)
			(*col)++;
}

/* Statements on one line, separated by ';', into block; consumes the
 * newline. A compound statement cannot follow on the same line. */
static bool parse_simple_line(struct parser *p, struct node *block)
{
	for (;;) {
		struct node *n;
		if (p->tok.kind == T_KEYWORD && parse_is_compound(p, &p->tok)) {
			parse_fail(p, "invalid syntax");
			return false;
		}
		n = parse_simple(p);
		if (!n)
			return false;
		parse_node_add(block, n);
		if (parse_holds_block(n))
			return true;	/* %time for ...: its block ended the line */
		while (p->tok.kind == T_SEMI)
			parse_advance(p);
		if (p->tok.kind == T_NEWLINE) {
			parse_advance(p);
			return true;
		}
		if (p->tok.kind == T_EOF)
			return true;
	}
}

/* ':' and the block of a compound statement: statements on the same line,
 * or an indented block on the lines after. what names the statement as
 * CPython's "expected an indented block after 'if' statement on line 3". */
static struct node *parse_suite(struct parser *p, const char *what, int line)
{
	struct node *b;
	if (p->tok.kind != T_COLON)
		return parse_fail(p, "expected ':'");
	parse_advance(p);
	b = parse_node_new(N_BLOCK, p->tok.line, p->tok.col);
	if (p->tok.kind != T_NEWLINE) {
		if (!parse_simple_line(p, b)) {
			node_free(b);
			return NULL;
		}
		return b;
	}
	parse_advance(p);
	if (p->tok.kind != T_INDENT) {
		int eline = p->tok.line, ecol = p->tok.col;
		node_free(b);
		if (p->tok.kind == T_ERROR || p->tok.kind == T_INCOMPLETE)
			return parse_fail(p, NULL);
		if (p->tok.kind == T_EOF || parse_at_end(p)) {
			parse_end_position(p, &eline, &ecol);
			if (p->interactive)
				return parse_incomplete_at(p, eline, ecol, "expected an indented block after %s on "
							   "line %d", what, line);
		}
		return parse_error_at(p, eline, ecol, "expected an indented block after %s on line %d", what, line);
	}
	parse_advance(p);
	b->line = p->tok.line;
	b->col = p->tok.col;
	while (p->tok.kind != T_DEDENT && p->tok.kind != T_EOF) {
		bool ok;
		if (p->tok.kind == T_KEYWORD && parse_is_compound(p, &p->tok)) {
			struct node *n = parse_compound(p);
			ok = n != NULL;
			if (n)
				parse_node_add(b, n);
		} else {
			ok = parse_simple_line(p, b);
		}
		if (!ok) {
			node_free(b);
			return NULL;
		}
	}
	if (p->tok.kind == T_DEDENT)
		parse_advance(p);
	return b;
}

/* if / elif / else: each elif is an N_IF in its predecessor's else slot. */
static struct node *parse_if(struct parser *p)
{
	struct node *first = NULL, *last = NULL;
	const char *what = "'if' statement";
	for (;;) {
		struct node *n = parse_node_new(N_IF, p->tok.line, p->tok.col), *e;
		int line = p->tok.line;
		parse_advance(p);
		if (last)
			parse_node_add(last, n);
		else
			first = n;
		last = n;
		e = parse_expr(p);
		if (!e) {
			node_free(first);
			return NULL;
		}
		parse_node_add(n, e);
		e = parse_suite(p, what, line);
		if (!e) {
			node_free(first);
			return NULL;
		}
		parse_node_add(n, e);
		if (!parse_is_kw(p, &p->tok, "elif"))
			break;
		what = "'elif' statement";
	}
	if (parse_is_kw(p, &p->tok, "else")) {
		int line = p->tok.line;
		struct node *e;
		parse_advance(p);
		e = parse_suite(p, "'else' statement", line);
		if (!e) {
			node_free(first);
			return NULL;
		}
		parse_node_add(last, e);
	} else {
		parse_node_add(last, NULL);
	}
	return first;
}

/* Enters a for/while/with body: CPython allows 20 of them nested. */
static bool parse_enter_block(struct parser *p, const struct node *n)
{
	if (p->fblocks >= PARSE_MAX_BLOCKS) {
		parse_error_at(p, n->line, n->col, "too many statically nested blocks");
		return false;
	}
	p->fblocks++;
	return true;
}

/* The body of a loop (break and continue allowed) and its else block (not). */
static bool parse_loop_body(struct parser *p, struct node *n, const char *what, int line)
{
	struct node *b;
	if (!parse_enter_block(p, n))
		return false;
	p->loops++;
	b = parse_suite(p, what, line);
	p->loops--;
	p->fblocks--;
	if (!b)
		return false;
	parse_node_add(n, b);
	b = NULL;
	if (parse_is_kw(p, &p->tok, "else")) {
		int eline = p->tok.line;
		parse_advance(p);
		b = parse_suite(p, "'else' statement", eline);
		if (!b)
			return false;
	}
	parse_node_add(n, b);
	return true;
}

static struct node *parse_while(struct parser *p)
{
	struct node *n = parse_node_new(N_WHILE, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_expr(p);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	if (!parse_loop_body(p, n, "'while' statement", n->line)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* One target: an or-expression (no comparison, so a following 'in' stays)
 * or *target. */
static struct node *parse_target(struct parser *p)
{
	struct node *n;
	if (p->tok.kind == T_STAR)
		return parse_starred(p, false);
	if (!parse_enter(p))
		return NULL;
	n = parse_bitor(p);
	p->depth--;
	return n;
}

/* The targets of for and with ... as: a, b[i], (c, d) — without comparisons,
 * so that the 'in' after them stays. A tuple when there are commas (and
 * commas are allowed). */
struct node *parse_targets(struct parser *p, bool commas)
{
	int line = p->tok.line, col = p->tok.col;
	struct node *first;
	first = parse_target(p);
	if (!first || !commas || p->tok.kind != T_COMMA)
		return first;
	return parse_comma_rest(p, first, line, col, parse_target);
}

/* for target in iterable: block [else: block] */
static struct node *parse_for(struct parser *p)
{
	struct node *n = parse_node_new(N_FOR, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_targets(p, true);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	if (parse_check_targets(p, e, "assign to") < 0) {
		node_free(n);
		return NULL;
	}
	if (p->tok.kind != T_IN) {
		node_free(n);
		return parse_fail(p, "expected 'in' after the loop variable");
	}
	parse_advance(p);
	e = parse_exprlist(p);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	if (!parse_loop_body(p, n, "'for' statement", n->line)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* with a as x, b: block — several items nest, the first outermost. */
static struct node *parse_with(struct parser *p)
{
	struct node *outer = NULL, *inner = NULL, *b;
	int line = p->tok.line, col = p->tok.col, entered = 0;
	parse_advance(p);
	for (;;) {
		struct node *n = parse_node_new(N_WITH, line, col), *e;
		if (inner) {
			b = parse_node_new(N_BLOCK, line, col);
			parse_node_add(b, n);
			parse_node_add(inner, b);
		} else {
			outer = n;
		}
		inner = n;
		if (!parse_enter_block(p, outer))
			goto fail;
		entered++;
		e = parse_expr(p);
		if (!e)
			goto fail;
		parse_node_add(n, e);
		e = NULL;
		if (p->tok.kind == T_AS) {
			parse_advance(p);
			e = parse_targets(p, false);
			if (!e)
				goto fail;
			parse_node_add(n, e);
			if (parse_check_targets(p, e, "assign to") < 0)
				goto fail;
		} else {
			parse_node_add(n, NULL);
		}
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
		line = p->tok.line;
		col = p->tok.col;
	}
	b = parse_suite(p, "'with' statement", outer->line);
	if (!b)
		goto fail;
	parse_node_add(inner, b);
	p->fblocks -= entered;
	return outer;
fail:
	p->fblocks -= entered;
	node_free(outer);
	return NULL;
}

/* ---- parameters ------------------------------------------------------------------------------ */

/* The parameters of a def or lambda up to closer (')' or ':', left for the
 * caller): a, b=1, *args, c, d=2, **kwargs, with CPython's checks and
 * messages. */
struct node *parse_params(struct parser *p, enum tok_kind closer)
{
	struct node *params = parse_node_new(N_PARAMS, p->tok.line, p->tok.col), *n = NULL, *def;
	bool kwonly = false, seen_default = false, star = false, kwargs = false;
	int bare_line = 0, bare_col = 0;
	while (p->tok.kind != closer) {
		int op = 0, line = p->tok.line, col = p->tok.col;
		if (kwargs) {
			parse_error_at(p, line, col, "arguments cannot follow var-keyword argument");
			goto fail;
		}
		if (p->tok.kind == T_SLASH) {
			parse_fail(p, "qkv does not run positional-only parameters ('/'); leave the '/' out");
			goto fail;
		}
		if (p->tok.kind == T_STAR) {
			if (star) {
				parse_error_at(p, line, col, "* argument may appear only once");
				goto fail;
			}
			star = true;
			op = '*';
			parse_advance(p);
			if (p->tok.kind == T_COMMA || p->tok.kind == closer) {
				n = parse_node_new(N_PARAM, line, col);
				n->op = '*';
				parse_node_add(n, NULL);
				parse_node_add(params, n);
				kwonly = true;
				bare_line = line;
				bare_col = col;
				goto next;
			}
		} else if (p->tok.kind == T_DSTAR) {
			op = 'K';
			parse_advance(p);
		}
		if (p->tok.kind != T_NAME) {
			parse_fail(p, p->tok.kind == T_KEYWORD || p->tok.kind == T_UNSUPPORTED ? NULL : "invalid syntax");
			goto fail;
		}
		for (int i = 0; i < params->nkids; i++) {
			const char *s = params->kids[i]->str;
			if (s && strlen(s) == p->tok.len && memcmp(s, p->src + p->tok.start, p->tok.len) == 0) {
				parse_error_at(p, p->tok.line, p->tok.col, "duplicate argument '%s' in function definition",
					       s);
				goto fail;
			}
		}
		n = parse_node_new(N_PARAM, p->tok.line, p->tok.col);
		n->str = xstrndup(p->src + p->tok.start, p->tok.len);
		n->op = op;
		n->is_int = kwonly && op == 0;
		n->sline = line;
		n->scol = col;
		parse_advance(p);
		if (closer == T_RPAR && p->tok.kind == T_COLON) {
			node_free(n);
			parse_fail(p, "qkv does not run annotations ('x: type'); leave them out");
			goto fail;
		}
		def = NULL;
		if (p->tok.kind == T_ASSIGN) {
			if (op) {
				node_free(n);
				parse_error_at(p, p->tok.line, p->tok.col, "var-%s argument cannot have default value",
					       op == '*' ? "positional" : "keyword");
				goto fail;
			}
			parse_advance(p);
			def = parse_expr(p);
			if (!def) {
				node_free(n);
				goto fail;
			}
			seen_default = seen_default || !kwonly;
		} else if (op == 0 && !kwonly && seen_default) {
			node_free(n);
			parse_error_at(p, line, col, "non-default argument follows default argument");
			goto fail;
		}
		parse_node_add(n, def);
		parse_node_add(params, n);
		if (op == '*')
			kwonly = true;
		else if (op == 'K')
			kwargs = true;
		else if (kwonly)
			bare_line = 0;
next:
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
	}
	if (bare_line) {
		parse_error_at(p, bare_line, bare_col, "named arguments must follow bare *");
		goto fail;
	}
	return params;
fail:
	node_free(params);
	return NULL;
}

/* The body of a def or class: its own scope for return, break and the
 * block count. */
static struct node *parse_body(struct parser *p, int scope, const char *what, int line)
{
	int loops = p->loops, fblocks = p->fblocks, saved_scope = p->scope;
	bool in_func = p->in_func;
	struct node *b;
	p->loops = 0;
	p->fblocks = 0;
	p->scope = scope;
	p->in_func = scope == SCOPE_FUNC;
	b = parse_suite(p, what, line);
	p->loops = loops;
	p->fblocks = fblocks;
	p->scope = saved_scope;
	p->in_func = in_func;
	return b;
}

/* def name(params): block */
static struct node *parse_def(struct parser *p)
{
	struct node *n = parse_node_new(N_DEF, p->tok.line, p->tok.col), *e;
	struct tok_pos open;
	parse_advance(p);
	if (p->tok.kind != T_NAME) {
		node_free(n);
		return parse_fail(p, "expected the function's name after 'def'");
	}
	n->str = xstrndup(p->src + p->tok.start, p->tok.len);
	n->sline = p->tok.line;
	n->scol = p->tok.col;
	parse_advance(p);
	if (p->tok.kind != T_LPAR) {
		node_free(n);
		return parse_fail(p, "expected '('");
	}
	open = parse_tok_pos(&p->tok);
	parse_advance(p);
	e = parse_params(p, T_RPAR);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	if (!parse_close(p, T_RPAR, &open)) {
		node_free(n);
		return NULL;
	}
	if (p->tok.kind == T_UNSUPPORTED && p->tok.len == 2 && memcmp(p->src + p->tok.start, "->", 2) == 0) {
		node_free(n);
		return parse_fail(p, "qkv does not run annotations ('-> type'); leave them out");
	}
	e = parse_body(p, SCOPE_FUNC, "function definition", n->line);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	return n;
}

/* class Name(bases): block */
static struct node *parse_class(struct parser *p)
{
	struct node *n = parse_node_new(N_CLASS, p->tok.line, p->tok.col), *bases, *e;
	parse_advance(p);
	if (p->tok.kind != T_NAME) {
		node_free(n);
		return parse_fail(p, "expected the class's name after 'class'");
	}
	n->str = xstrndup(p->src + p->tok.start, p->tok.len);
	n->sline = p->tok.line;
	n->scol = p->tok.col;
	parse_advance(p);
	bases = parse_node_new(N_TUPLE, p->tok.line, p->tok.col);
	parse_node_add(n, bases);
	if (p->tok.kind == T_LPAR) {
		struct tok_pos open = parse_tok_pos(&p->tok);
		parse_advance(p);
		while (p->tok.kind != T_RPAR) {
			if (p->tok.kind == T_NAME && parse_peek(p)->kind == T_ASSIGN) {
				node_free(n);
				return parse_fail(p, "qkv does not run class keywords such as metaclass=...");
			}
			e = parse_expr(p);
			if (!e) {
				node_free(n);
				return NULL;
			}
			parse_node_add(bases, e);
			if (p->tok.kind != T_COMMA)
				break;
			parse_advance(p);
		}
		if (!parse_close(p, T_RPAR, &open)) {
			node_free(n);
			return NULL;
		}
	}
	e = parse_body(p, SCOPE_CLASS, "class definition", n->line);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	return n;
}

/* if, for, while, with, def, class: the whole statement, its blocks included. */
static struct node *parse_compound(struct parser *p)
{
	const struct token *t = &p->tok;
	if (parse_is_kw(p, t, "if"))
		return parse_if(p);
	if (parse_is_kw(p, t, "for"))
		return parse_for(p);
	if (parse_is_kw(p, t, "while"))
		return parse_while(p);
	if (parse_is_kw(p, t, "with"))
		return parse_with(p);
	if (parse_is_kw(p, t, "def"))
		return parse_def(p);
	return parse_class(p);
}

/* A line of the input holding nothing but spaces and tabs, after from. */
static bool parse_empty_line_after(const struct parser *p, size_t from)
{
	const char *nl = memchr(p->src + from, '\n', p->len - from);
	while (nl) {
		size_t i = (size_t)(nl - p->src) + 1;
		while (i < p->len && (p->src[i] == ' ' || p->src[i] == '\t' || p->src[i] == '\r' || p->src[i] == '\f'))
			i++;
		if (i < p->len && p->src[i] == '\n')
			return true;
		nl = i < p->len ? memchr(p->src + i, '\n', p->len - i) : NULL;
	}
	return false;
}

/* ---- IPython magics ---------------------------------------------------------------------------- */

/* A number after %timeit's -n or -r at src[*i]; -1 when there is none. */
static int64_t parse_magic_count(const struct parser *p, size_t *i)
{
	int64_t v = 0;
	size_t start;
	while (*i < p->len && (p->src[*i] == ' ' || p->src[*i] == '\t'))
		(*i)++;
	start = *i;
	while (*i < p->len && p->src[*i] >= '0' && p->src[*i] <= '9' && v < 1000000000)
		v = v * 10 + (p->src[(*i)++] - '0');
	return *i > start && v > 0 ? v : -1;
}

/* Moves the lexer to src[to] on the current line and reads the token there;
 * the magic's text before it counts as a name (so no operator is pending). */
static void parse_skip_to(struct parser *p, size_t to)
{
	struct tok_pos name = parse_tok_pos(&p->tok);
	p->lex.line = p->tok.line;
	p->lex.col = p->tok.col;
	for (size_t i = p->tok.start; i < to; i++)
		if (((unsigned char)p->src[i] & 0xC0) != 0x80)
			p->lex.col++;
	p->lex.pos = to;
	p->lex.depth = 0;
	name.kind = T_NAME;
	name.len = to - name.start;
	token_free(&p->tok);
	if (p->has_ahead) {
		token_free(&p->ahead);
		p->has_ahead = false;
	}
	p->span_end = to;
	p->prev = name;
	lexer_next(&p->lex, &p->tok);
}

/* The rest of the input as the block of a %%time cell. */
static struct node *parse_cell_block(struct parser *p)
{
	struct node *b = parse_node_new(N_BLOCK, p->tok.line, p->tok.col);
	for (;;) {
		struct node *n;
		while (p->tok.kind == T_NEWLINE || p->tok.kind == T_SEMI)
			parse_advance(p);
		if (p->tok.kind == T_EOF)
			return b;
		if (b->nkids == 0) {
			b->line = p->tok.line;
			b->col = p->tok.col;
		}
		if (p->tok.kind == T_KEYWORD && parse_is_compound(p, &p->tok))
			n = parse_compound(p);
		else
			n = parse_simple(p);
		if (!n) {
			node_free(b);
			return NULL;
		}
		parse_node_add(b, n);
	}
}

/* %time STMT, %timeit [-n N] [-r R] STMT, or (first in the input) %%time
 * with the cell below it. The current token is the '%'. */
static struct node *parse_magic_body(struct parser *p)
{
	size_t at = p->tok.start, i, name;
	bool cell = at + 1 < p->len && p->src[at + 1] == '%';
	struct node *n, *e;
	n = parse_node_new(N_MAGIC, p->tok.line, p->tok.col);
	n->op = cell ? 'c' : 'l';
	i = name = at + (cell ? 2 : 1);
	while (i < p->len && (isalnum((unsigned char)p->src[i]) || p->src[i] == '_'))
		i++;
	if (i - name == 4 && memcmp(p->src + name, "time", 4) == 0) {
		n->str = xstrdup("time");
	} else if (!cell && i - name == 6 && memcmp(p->src + name, "timeit", 6) == 0) {
		n->str = xstrdup("timeit");
	} else {
		node_free(n);
		return parse_error_at(p, p->tok.line, p->tok.col, "qkv runs only the magics %%time, %%%%time and "
				      "%%timeit (this is %.*s)", (int)(i - at > 40 ? 40 : i - at), p->src + at);
	}
	if (cell && (p->nstmts > 1 || at != p->span_start)) {
		node_free(n);
		return parse_error_at(p, p->tok.line, p->tok.col, "%%%%time must be the first line of the cell");
	}
	while (strcmp(n->str, "timeit") == 0) {
		size_t opt = i;
		int64_t v;
		while (opt < p->len && (p->src[opt] == ' ' || p->src[opt] == '\t'))
			opt++;
		if (opt >= p->len || p->src[opt] != '-' || opt + 1 >= p->len || !isalpha((unsigned char)p->src[opt + 1]))
			break;
		i = opt + 2;
		v = parse_magic_count(p, &i);
		if ((p->src[opt + 1] != 'n' && p->src[opt + 1] != 'r') || v < 0) {
			int col = p->tok.col + (int)(opt - at);
			node_free(n);
			return parse_error_at(p, p->tok.line, col, "qkv's %%timeit takes -n LOOPS and -r RUNS (whole "
					      "numbers), nothing else");
		}
		if (p->src[opt + 1] == 'n')
			n->ival = v;
		else
			n->rows = (int)(v > 100 ? 100 : v);
	}
	parse_skip_to(p, i);
	if (cell) {
		if (p->tok.kind != T_NEWLINE && p->tok.kind != T_EOF) {
			node_free(n);
			return parse_fail(p, "Can't use statement directly after '%%%%time'!");
		}
		e = parse_cell_block(p);
	} else if (p->tok.kind == T_NEWLINE || p->tok.kind == T_EOF || p->tok.kind == T_SEMI) {
		e = parse_node_new(N_PASS, p->tok.line, p->tok.col);
	} else if (p->tok.kind == T_KEYWORD && parse_is_compound(p, &p->tok)) {
		e = parse_compound(p);
	} else if (p->tok.kind == T_PERCENT) {
		node_free(n);
		return parse_fail(p, "a magic cannot time another magic");
	} else {
		e = parse_simple(p);
	}
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
	return n;
}

/* A magic, counted as a level of nesting: "%time if x: %time if y: ..."
 * nests on one line, and must not nest without bound. */
static struct node *parse_magic(struct parser *p)
{
	struct node *n;
	if (!parse_enter(p))
		return NULL;
	n = parse_magic_body(p);
	p->depth--;
	return n;
}

/* One top-level statement: a simple one (its ';' and newline left for the
 * next call) or a whole compound one. */
struct node *parse_statement(struct parser *p)
{
	struct node *n;
	if (p->tok.kind == T_KEYWORD && parse_is_compound(p, &p->tok))
		n = parse_compound(p);
	else
		n = parse_simple(p);
	if (n && parse_holds_block(n) && p->interactive && p->tok.kind == T_EOF &&
	    !parse_empty_line_after(p, p->span_end)) {
		node_free(n);
		return parse_incomplete_at(p, p->span_line, 1, "the block that starts on line %d ends at an "
					   "empty line", p->span_line);
	}
	return n;
}
