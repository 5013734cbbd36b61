/* parser.c: hand-written recursive descent from lexer.c tokens to one struct
 * node tree per statement, called by eval.c (interp_run) and the REPL.
 * Never recurses past PARSE_MAX_DEPTH, never returns a tree taller than
 * PARSE_MAX_HEIGHT, never calls merely unfinished input an error. */
#include "lang/parser.h"
#include "lang/lexer.h"
#include "core/mem.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a token was, kept after the token itself is gone. */
struct tok_pos {
	enum tok_kind kind;
	size_t start, len;
	int line, col;
};

struct parser {
	const char *src;
	size_t len;
	struct lexer lex;
	struct token tok;               /* the current token */
	struct token ahead;             /* the one after it, when has_ahead */
	bool has_ahead;
	bool started;
	struct tok_pos prev;            /* the last token consumed */
	int depth;                      /* nesting of sub-expressions */
	bool failed;                    /* err holds this statement's failure */
	enum parse_status fail_status;  /* PARSE_ERROR or PARSE_INCOMPLETE, once failed */
	enum parse_status status;       /* PARSE_OK while statements remain */
	struct qkv_error err;
	bool in_stmt;
	int span_line;
	size_t span_start, span_end;
	bool interactive;               /* a REPL: a block ends only at an empty line */
	/* where the statement being parsed stands, for CPython's compile-time errors */
	int loops;                      /* enclosing for/while of the current function or class body */
	bool in_func;                   /* inside a def (not a class directly in it) */
	int fblocks;                    /* enclosing for/while/with of the current body (CPython's 20) */
	int scope;                      /* SCOPE_MODULE, SCOPE_FUNC or SCOPE_CLASS */
};

enum { SCOPE_MODULE, SCOPE_FUNC, SCOPE_CLASS };

#define PARSE_MAX_BLOCKS 20             /* CPython's CO_MAXBLOCKS */

static struct node *parse_expr(struct parser *p);
static struct node *parse_exprlist(struct parser *p);
static struct node *parse_or(struct parser *p);
static struct node *parse_bitor(struct parser *p);
static struct node *parse_targets(struct parser *p, bool commas);
static int parse_check_targets(struct parser *p, struct node *t, const char *verb);
static struct node *parse_params(struct parser *p, enum tok_kind closer);

/* ---- nodes --------------------------------------------------------------------- */

static struct node *node_new(enum node_kind kind, int line, int col)
{
	struct node *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->line = line;
	n->col = col;
	return n;
}

/* Sets sline/scol of every node that has none yet to the earliest position
 * in its subtree: where the expression's text starts. Depth is bounded by
 * PARSE_MAX_HEIGHT. */
static void node_set_starts(struct node *n)
{
	if (!n)
		return;
	int line = n->line, col = n->col;
	for (int i = 0; i < n->nkids; i++) {
		struct node *k = n->kids[i];
		if (!k)
			continue;
		node_set_starts(k);
		if (k->sline < line || (k->sline == line && k->scol < col)) {
			line = k->sline;
			col = k->scol;
		}
	}
	if (n->sline == 0) {
		n->sline = line;
		n->scol = col;
	}
}

/* Appends a child (which may be NULL, for an absent slice bound). */
static void node_add(struct node *n, struct node *kid)
{
	if ((n->nkids & (n->nkids - 1)) == 0)
		n->kids = xrealloc(n->kids, (size_t)(n->nkids ? n->nkids * 2 : 1) * sizeof *n->kids);
	n->kids[n->nkids++] = kid;
}

static struct node *node_binary(int op, int line, int col, struct node *a, struct node *b)
{
	struct node *n = node_new(N_BINARY, line, col);
	n->op = op;
	node_add(n, a);
	node_add(n, b);
	return n;
}

static struct node *node_unary(int op, int line, int col, struct node *a)
{
	struct node *n = node_new(N_UNARY, line, col);
	n->op = op;
	node_add(n, a);
	return n;
}

/* Grows names alongside the children of a call or import, so node_free
 * always finds one name slot per argument. count is the slots in use. */
static void node_add_name(char ***names, int count, char *name)
{
	if ((count & (count - 1)) == 0)
		*names = xrealloc(*names, (size_t)(count ? count * 2 : 1) * sizeof **names);
	(*names)[count] = name;
}

/* ---- tokens ----------------------------------------------------------------------- */

static struct tok_pos tok_pos_of(const struct token *t)
{
	struct tok_pos tp;
	tp.kind = t->kind;
	tp.start = t->start;
	tp.len = t->len;
	tp.line = t->line;
	tp.col = t->col;
	return tp;
}

static void parse_advance(struct parser *p)
{
	enum tok_kind k = p->tok.kind;
	p->prev = tok_pos_of(&p->tok);
	if (p->in_stmt && !p->lex.sub && k != T_EOF && k != T_NEWLINE && k != T_SEMI && k != T_INDENT &&
	    k != T_DEDENT)
		p->span_end = p->tok.start + p->tok.len;
	token_free(&p->tok);
	if (p->has_ahead) {
		p->tok = p->ahead;
		memset(&p->ahead, 0, sizeof p->ahead);
		p->has_ahead = false;
	} else {
		lexer_next(&p->lex, &p->tok);
	}
}

static const struct token *parse_peek(struct parser *p)
{
	if (!p->has_ahead) {
		lexer_next(&p->lex, &p->ahead);
		p->has_ahead = true;
	}
	return &p->ahead;
}

static bool parse_prev_is_operator(const struct parser *p)
{
	switch (p->prev.kind) {
	case T_ASSIGN: case T_AUGASSIGN:
	case T_PLUS: case T_MINUS: case T_STAR: case T_SLASH: case T_DSLASH: case T_PERCENT:
	case T_DSTAR: case T_AT: case T_AMP: case T_PIPE: case T_TILDE:
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE:
	case T_AND: case T_OR: case T_NOT: case T_IN: case T_IS:
		return true;
	default:
		return false;
	}
}

/* Tokens that can begin an expression. */
static bool parse_starts_expr(const struct token *t)
{
	switch (t->kind) {
	case T_NAME: case T_NUMBER: case T_STRING: case T_FSTRING:
	case T_LPAR: case T_LBRACK: case T_LBRACE:
	case T_MINUS: case T_PLUS: case T_TILDE: case T_NOT:
	case T_TRUE: case T_FALSE: case T_NONE: case T_LAMBDA:
		return true;
	default:
		return false;
	}
}

/* After a trailing operator, a line break continues the statement (a REPL
 * sends "x = 1 +" and then "2"). prev keeps the operator, so the end of the
 * input right after it is still PARSE_INCOMPLETE. */
static void parse_skip_continuation(struct parser *p)
{
	struct tok_pos op = p->prev;
	if (p->tok.kind != T_NEWLINE || !parse_prev_is_operator(p))
		return;
	while (p->tok.kind == T_NEWLINE) {
		if (!p->has_ahead)
			p->lex.atbol = false;	/* the next line's indentation means nothing */
		parse_advance(p);
	}
	p->prev = op;
}

/* ---- messages ---------------------------------------------------------------------- */

/* The keywords qkv does not run, with what it says about them. */
static const struct {
	const char *word;
	const char *msg;
} parse_keywords[] = {
	{"try", "qkv does not run 'try' blocks: errors stop the cell, as they would without 'try'"},
	{"except", "qkv does not run 'except': it belongs to a 'try' block, which qkv does not run"},
	{"finally", "qkv does not run 'finally': it belongs to a 'try' block, which qkv does not run"},
	{"raise", "qkv does not run 'raise'; use assert cond, \"message\" to stop on a bad value"},
	{"yield", "qkv does not run generators ('yield'); build a list and return it"},
	{"async", "qkv does not run 'async' code"},
	{"await", "qkv does not run 'async' code ('await')"},
};

static bool parse_is_kw(const struct parser *p, const struct token *t, const char *word)
{
	size_t n = strlen(word);
	return t->kind == T_KEYWORD && t->len == n && memcmp(p->src + t->start, word, n) == 0;
}

static const char *parse_keyword_message(const struct parser *p, const struct token *t)
{
	for (size_t i = 0; i < sizeof parse_keywords / sizeof parse_keywords[0]; i++)
		if (parse_is_kw(p, t, parse_keywords[i].word))
			return parse_keywords[i].msg;
	return "invalid syntax";
}

static const char *parse_unsupported_message(const struct parser *p, const struct token *t)
{
	static const struct {
		const char *text;
		const char *msg;
	} hints[] = {
		{"^", "'^' (xor) is not supported; for powers use **"},
		{"^=", "'^=' (xor) is not supported; for powers use **="},
		{"<<", "shift operators are not supported"}, {">>", "shift operators are not supported"},
		{"<<=", "shift operators are not supported"}, {">>=", "shift operators are not supported"},
		{"!", "unexpected '!'; write 'not x' or 'a != b'"},
		{":=", "qkv does not run ':=' (assignment expressions); assign in a statement of its own"},
		{"->", "unexpected '->': function annotations are not supported"},
		{"...", "'...' (Ellipsis) is not supported; write ':' for each dimension"},
	};
	for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
		if (strlen(hints[i].text) == t->len && memcmp(hints[i].text, p->src + t->start, t->len) == 0)
			return hints[i].msg;
	return "unsupported operator";
}

/* "name 'x'", "number '3'", "')'", "end of line", ... for messages. */
static void parse_token_noun(const struct parser *p, const struct token *t, char *buf, size_t size)
{
	int n = (int)(t->len > 40 ? 40 : t->len);
	const char *s = p->src + t->start;
	switch (t->kind) {
	case T_EOF:
		/* the end of an f-string field is the '}' (or ':', '!') after it */
		if (p->lex.sub && t->start < p->len)
			snprintf(buf, size, "'%c'", p->src[t->start]);
		else
			snprintf(buf, size, "end of input");
		break;
	case T_NEWLINE:
		snprintf(buf, size, t->len == 0 ? "end of input" : "end of line");
		break;
	case T_INDENT:
		snprintf(buf, size, "indent");
		break;
	case T_DEDENT:
		snprintf(buf, size, "unindent");
		break;
	case T_NAME:
		snprintf(buf, size, "name '%.*s'", n, s);
		break;
	case T_NUMBER:
		snprintf(buf, size, "number '%.*s'", n, s);
		break;
	case T_STRING: case T_FSTRING:
		snprintf(buf, size, "string");
		break;
	default:
		snprintf(buf, size, "'%.*s'", n, s);
		break;
	}
}

/* The message for an unexpected current token. */
static void parse_describe(const struct parser *p, char *buf, size_t size)
{
	const struct token *t = &p->tok;
	char noun[64];
	switch (t->kind) {
	case T_KEYWORD:
		snprintf(buf, size, "%s", parse_keyword_message(p, t));
		return;
	case T_UNSUPPORTED:
		snprintf(buf, size, "%s", parse_unsupported_message(p, t));
		return;
	case T_ASSIGN:
		snprintf(buf, size, "unexpected '='; use '==' to compare");
		return;
	default:
		parse_token_noun(p, t, noun, sizeof noun);
		snprintf(buf, size, "unexpected %s", noun);
		return;
	}
}

/* Records an error at line:col (only the first failure of a statement counts).
 * Returns NULL so parse functions can `return parse_error_at(...)`. */
static struct node *parse_error_at(struct parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct node *parse_error_at(struct parser *p, int line, int col, const char *fmt, ...)
{
	va_list ap;
	if (p->failed)
		return NULL;
	p->failed = true;
	p->fail_status = PARSE_ERROR;
	va_start(ap, fmt);
	error_vset(&p->err, line, col, fmt, ap);
	va_end(ap);
	return NULL;
}

/* The input ended where more was needed. */
static struct node *parse_incomplete(struct parser *p)
{
	const struct token *t = &p->tok;
	p->failed = true;
	p->fail_status = PARSE_INCOMPLETE;
	if (t->kind == T_INCOMPLETE) {
		p->err = t->err;
	} else if (p->lex.depth > 0 && p->lex.depth <= LEX_MAX_OPEN) {
		const struct lex_open *o = &p->lex.open[p->lex.depth - 1];
		error_set(&p->err, o->line, o->col, "'%c' opened at %d:%d is never closed", o->ch, o->line, o->col);
	} else if (p->lex.depth > 0) {
		error_set(&p->err, t->line, t->col, "a bracket is never closed");
	} else {
		int n = (int)(p->prev.len > 40 ? 40 : p->prev.len);
		error_set(&p->err, p->prev.line, p->prev.col, "the input ends after '%.*s'", n,
			  p->src + p->prev.start);
	}
	return NULL;
}

/* The current token is the end of the input (or what the lexer adds there). */
static bool parse_at_end(const struct parser *p)
{
	const struct token *t = &p->tok;
	if (p->lex.sub)
		return false;
	return t->kind == T_EOF || ((t->kind == T_NEWLINE || t->kind == T_DEDENT) && t->start >= p->len);
}

/* Fails on the current token: its own lexical error, PARSE_INCOMPLETE when
 * the input simply ended too soon, else fmt (or "unexpected <token>"). */
static struct node *parse_fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static struct node *parse_fail(struct parser *p, const char *fmt, ...)
{
	const struct token *t = &p->tok;
	char msg[sizeof p->err.msg];
	va_list ap;
	if (p->failed)
		return NULL;
	if (t->kind == T_ERROR) {
		p->failed = true;
		p->fail_status = PARSE_ERROR;
		p->err = t->err;
		return NULL;
	}
	if (t->kind == T_INCOMPLETE ||
	    (parse_at_end(p) && (p->lex.depth > 0 || parse_prev_is_operator(p))))
		return parse_incomplete(p);
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
	} else {
		parse_describe(p, msg, sizeof msg);
	}
	return parse_error_at(p, t->line, t->col, "%s", msg);
}

/* Enters a nested sub-expression; false (with the error set) past the limit. */
static bool parse_enter(struct parser *p)
{
	if (p->depth >= PARSE_MAX_DEPTH) {
		parse_error_at(p, p->tok.line, p->tok.col, "expression nested too deeply");
		return false;
	}
	p->depth++;
	return true;
}

/* Consumes the closing bracket of one opened at open, or fails. */
static bool parse_close(struct parser *p, enum tok_kind closer, const struct tok_pos *open)
{
	char want = closer == T_RPAR ? ')' : closer == T_RBRACK ? ']' : '}';
	char opener = p->src[open->start];
	char noun[64];
	if (p->tok.kind == closer) {
		parse_advance(p);
		return true;
	}
	if (p->tok.kind == T_KEYWORD || p->tok.kind == T_UNSUPPORTED || p->tok.kind == T_ASSIGN) {
		parse_fail(p, NULL);
	} else if (parse_starts_expr(&p->tok)) {
		parse_token_noun(p, &p->tok, noun, sizeof noun);
		parse_fail(p, "expected ',' or '%c' before %s", want, noun);
	} else {
		parse_fail(p, "expected '%c' to close '%c' opened at %d:%d", want, opener, open->line, open->col);
	}
	return false;
}

/* ---- strings ------------------------------------------------------------------------- */

/* Appends literal text to an f-string under construction, joining it to a
 * literal right before it. */
static void parse_add_text(struct node *f, const char *text, int line, int col)
{
	struct node *last = f->nkids ? f->kids[f->nkids - 1] : NULL;
	if (last && last->kind == N_STR) {
		size_t a = strlen(last->str), b = strlen(text);
		last->str = xrealloc(last->str, a + b + 1);
		memcpy(last->str + a, text, b + 1);
		return;
	}
	last = node_new(N_STR, line, col);
	last->str = xstrdup(text);
	node_add(f, last);
}

/* Parses the expression of one f-string field with a lexer over its bytes
 * of the source, so positions in errors point into the original line. */
static struct node *parse_fstring_field(struct parser *p, const struct fstr_part *part)
{
	struct lexer saved_lex = p->lex;
	struct token saved_tok = p->tok, saved_ahead = p->ahead;
	bool saved_has_ahead = p->has_ahead;
	struct tok_pos saved_prev = p->prev;
	struct node *e, *f;
	lexer_init_sub(&p->lex, p->src, part->start, part->end, part->line, part->col + 1);
	memset(&p->ahead, 0, sizeof p->ahead);
	p->has_ahead = false;
	lexer_next(&p->lex, &p->tok);
	e = parse_exprlist(p);
	if (e && p->tok.kind != T_EOF) {
		node_free(e);
		e = parse_fail(p, NULL);
	}
	token_free(&p->tok);
	if (p->has_ahead)
		token_free(&p->ahead);
	p->lex = saved_lex;
	p->tok = saved_tok;
	p->ahead = saved_ahead;
	p->has_ahead = saved_has_ahead;
	p->prev = saved_prev;
	if (!e)
		return NULL;
	f = node_new(N_FMT, part->line, part->col);
	f->op = part->conv;
	f->str = part->spec ? xstrdup(part->spec) : NULL;
	node_add(f, e);
	return f;
}

/* One or more adjacent string literals ("a" "b" f"{c}"), joined as Python does. */
static struct node *parse_strings(struct parser *p)
{
	struct node *f = node_new(N_FSTR, p->tok.line, p->tok.col), *s;
	bool has_field = false;
	while (p->tok.kind == T_STRING || p->tok.kind == T_FSTRING) {
		if (p->tok.kind == T_STRING) {
			parse_add_text(f, p->tok.str, p->tok.line, p->tok.col);
		}
		for (int i = 0; p->tok.kind == T_FSTRING && i < p->tok.nparts; i++) {
			const struct fstr_part *part = &p->tok.parts[i];
			struct node *field;
			if (!part->is_field) {
				parse_add_text(f, part->text, part->line, part->col);
				continue;
			}
			if (!parse_enter(p)) {
				node_free(f);
				return NULL;
			}
			field = parse_fstring_field(p, part);
			p->depth--;
			if (!field) {
				node_free(f);
				return NULL;
			}
			node_add(f, field);
			has_field = true;
		}
		parse_advance(p);
	}
	if (has_field)
		return f;
	s = node_new(N_STR, f->line, f->col);
	if (f->nkids > 0) {
		s->str = f->kids[0]->str;
		f->kids[0]->str = NULL;
	} else {
		s->str = xstrdup("");
	}
	node_free(f);
	return s;
}

/* ---- brackets ------------------------------------------------------------------------ */

/* A number, or the names inf and nan: what a matrix literal may hold. */
static bool parse_is_matrix_number(const struct parser *p, const struct token *t)
{
	if (t->kind == T_NUMBER)
		return true;
	return t->kind == T_NAME && t->len == 3 &&
	       (memcmp(p->src + t->start, "inf", 3) == 0 || memcmp(p->src + t->start, "nan", 3) == 0);
}

/* With the current token a '[' that opens a literal: does a ';' or two
 * numbers side by side ("1 2", "1 -2") follow before its ']'? Then it is a
 * matrix literal. Looks ahead with a copy of the lexer. */
static bool parse_bracket_is_matrix(struct parser *p)
{
	struct lexer lx = p->lex;
	struct token t;
	bool num1 = false, num2 = false, sign1 = false, spaced1 = false, found = false;
	int depth = 0;
	lx.pos = p->tok.start + 1;
	lx.line = p->tok.line;
	lx.col = p->tok.col + 1;
	lx.depth = 1;
	for (;;) {
		bool num = false, sign = false;
		lexer_next(&lx, &t);
		if (t.kind == T_EOF || t.kind == T_ERROR || t.kind == T_INCOMPLETE)
			break;
		if (t.kind == T_LPAR || t.kind == T_LBRACK || t.kind == T_LBRACE) {
			/* the parse fails on nesting before it gets back here */
			if (++depth > PARSE_MAX_DEPTH)
				break;
		} else if (t.kind == T_RPAR || t.kind == T_RBRACK || t.kind == T_RBRACE) {
			if (depth-- == 0)
				break;
		} else if (depth == 0) {
			if (t.kind == T_SEMI) {
				found = true;
				break;
			}
			num = parse_is_matrix_number(p, &t);
			sign = t.kind == T_PLUS || t.kind == T_MINUS;
			if (num && (num1 || (sign1 && spaced1 && !t.space_before && num2))) {
				found = true;
				break;
			}
		}
		num2 = num1;
		num1 = num;
		sign1 = sign;
		spaced1 = t.space_before;
		token_free(&t);
	}
	token_free(&t);
	return found;
}

/* One matrix element: a number, inf or nan with an optional sign attached.
 * A sign must touch its number, and must follow a space or a separator. */
static bool parse_matrix_element(struct parser *p, bool after_separator, double *v, bool *is_int)
{
	bool negative = false;
	if (p->tok.kind == T_PLUS || p->tok.kind == T_MINUS) {
		const struct token *next = parse_peek(p);
		if (!parse_is_matrix_number(p, next) || next->space_before ||
		    !(p->tok.space_before || after_separator)) {
			parse_fail(p, "matrix elements must be numbers");
			return false;
		}
		negative = p->tok.kind == T_MINUS;
		parse_advance(p);
	}
	if (p->tok.kind == T_NUMBER) {
		*v = p->tok.is_int ? (double)p->tok.ival : p->tok.num;
		*is_int = p->tok.is_int;
	} else if (parse_is_matrix_number(p, &p->tok)) {
		*v = p->src[p->tok.start] == 'i' ? INFINITY : NAN;
		*is_int = false;
	} else {
		parse_fail(p, "matrix elements must be numbers");
		return false;
	}
	if (negative)
		*v = -*v;
	parse_advance(p);
	return true;
}

/* [1 2 3; 4 5 6], [1, 2; 3, 4], [1 2 3] (1-D), [1 2 3;] (one row, 2-D). */
static struct node *parse_matrix(struct parser *p, const struct tok_pos *open)
{
	struct node *n = node_new(N_MATRIX, open->line, open->col);
	size_t total = 0, cap = 0;
	int rows = 0, cols = -1, count = 0, extra_line = 0, extra_col = 0;
	bool saw_semi = false, after_separator = true, after_comma = false;
	n->is_int = true;
	parse_advance(p);
	for (;;) {
		enum tok_kind k = p->tok.kind;
		double v;
		bool is_int;
		int line = p->tok.line, col = p->tok.col;
		if (k == T_SEMI || k == T_RBRACK) {
			if (count == 0 && k == T_RBRACK && saw_semi)
				break;
			if (count == 0) {
				node_free(n);
				return parse_error_at(p, line, col, "row %d of the matrix is empty", rows + 1);
			}
			if (cols < 0) {
				cols = count;
			} else if (count != cols) {
				if (count > cols) {
					line = extra_line;
					col = extra_col;
				}
				node_free(n);
				return parse_error_at(p, line, col, "row %d has %d element%s, row 1 has %d", rows + 1,
						      count, count == 1 ? "" : "s", cols);
			}
			rows++;
			count = 0;
			if (k == T_RBRACK)
				break;
			saw_semi = true;
			after_separator = true;
			after_comma = false;
			parse_advance(p);
			continue;
		}
		if (k == T_COMMA) {
			if (count == 0 || after_comma) {
				node_free(n);
				return parse_fail(p, NULL);
			}
			after_comma = true;
			after_separator = true;
			parse_advance(p);
			continue;
		}
		if (k == T_RPAR || k == T_RBRACE) {
			node_free(n);
			return parse_fail(p, "expected ']' to close '[' opened at %d:%d", open->line, open->col);
		}
		if (!parse_matrix_element(p, after_separator, &v, &is_int)) {
			node_free(n);
			return NULL;
		}
		if (total == cap) {
			cap = cap ? cap * 2 : 8;
			n->values = xrealloc(n->values, cap * sizeof *n->values);
		}
		n->values[total++] = v;
		n->is_int = n->is_int && is_int;
		count++;
		if (cols >= 0 && count == cols + 1) {
			extra_line = line;
			extra_col = col;
		}
		after_separator = false;
		after_comma = false;
	}
	n->rows = saw_semi ? rows : 0;
	n->cols = cols;
	parse_advance(p);	/* the ']' */
	return n;
}

/* *x in a display, a target or a call (op '*'), **x in a call (op 'K'). */
static struct node *parse_starred(struct parser *p, bool full)
{
	struct node *n = node_new(N_STARRED, p->tok.line, p->tok.col), *e;
	n->op = p->tok.kind == T_DSTAR ? 'K' : '*';
	parse_advance(p);
	if (!parse_enter(p)) {
		node_free(n);
		return NULL;
	}
	e = full ? parse_expr(p) : parse_bitor(p);
	p->depth--;
	if (!e) {
		node_free(n);
		return NULL;
	}
	node_add(n, e);
	return n;
}

/* An element of a list, tuple or set display: an expression or *iterable. */
static struct node *parse_element(struct parser *p)
{
	if (p->tok.kind == T_STAR)
		return parse_starred(p, false);
	return parse_expr(p);
}

/* The 'for ... in ... if ...' clauses after a comprehension's element,
 * appended to comp as N_COMPFOR nodes. The iterable and the conditions are
 * or-expressions, as in Python (so 'if' starts a condition, never a
 * conditional expression). */
static bool parse_comp_clauses(struct parser *p, struct node *comp)
{
	while (parse_is_kw(p, &p->tok, "for")) {
		struct node *c = node_new(N_COMPFOR, p->tok.line, p->tok.col), *e;
		node_add(comp, c);
		parse_advance(p);
		e = parse_targets(p, true);
		if (!e)
			return false;
		node_add(c, e);
		if (parse_check_targets(p, e, "assign to") < 0)
			return false;
		if (p->tok.kind != T_IN) {
			parse_fail(p, "expected 'in' after the comprehension's variable");
			return false;
		}
		parse_advance(p);
		do {
			if (c->nkids > 1)
				parse_advance(p);	/* the 'if' */
			if (!parse_enter(p))
				return false;
			e = parse_or(p);
			p->depth--;
			if (!e)
				return false;
			node_add(c, e);
		} while (parse_is_kw(p, &p->tok, "if"));
	}
	if (parse_is_kw(p, &p->tok, "async")) {
		parse_fail(p, "%s", parse_keyword_message(p, &p->tok));
		return false;
	}
	return true;
}

/* A comprehension of kind op ('[', '{', 'd', '(') whose element (and dict
 * value) are parsed; the current token is its first 'for'. */
static struct node *parse_comprehension(struct parser *p, int op, const struct tok_pos *open,
					struct node *elem, struct node *value)
{
	struct node *n = node_new(N_COMP, open->line, open->col);
	n->op = op;
	node_add(n, elem);
	node_add(n, value);
	if (elem->kind == N_STARRED) {
		parse_error_at(p, elem->line, elem->col, "iterable unpacking cannot be used in comprehension");
		node_free(n);
		return NULL;
	}
	if (!parse_comp_clauses(p, n)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* [a, b, ...], [x for x in y] or a matrix literal. */
static struct node *parse_list(struct parser *p)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *n;
	if (parse_bracket_is_matrix(p))
		return parse_matrix(p, &open);
	n = node_new(N_LIST, open.line, open.col);
	parse_advance(p);
	while (p->tok.kind != T_RBRACK) {
		struct node *e = parse_element(p);
		if (!e) {
			node_free(n);
			return NULL;
		}
		if (n->nkids == 0 && parse_is_kw(p, &p->tok, "for")) {
			node_free(n);
			n = parse_comprehension(p, '[', &open, e, NULL);
			if (!n)
				return NULL;
			break;
		}
		node_add(n, e);
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
	}
	if (!parse_close(p, T_RBRACK, &open)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* {}, {k: v, ...}, {a, b}, {k: v for ...}, {x for ...}. */
static struct node *parse_brace(struct parser *p)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *n = NULL;
	bool dict = true;
	parse_advance(p);
	if (p->tok.kind == T_RBRACE) {
		parse_advance(p);
		return node_new(N_DICT, open.line, open.col);
	}
	for (;;) {
		struct node *k, *v = NULL;
		if (p->tok.kind == T_DSTAR) {
			node_free(n);
			return parse_fail(p, "qkv does not run '**' in a dict display; use d = dict(a) and "
				       "d.update(b)");
		}
		k = parse_element(p);
		if (!k) {
			node_free(n);
			return NULL;
		}
		if (!n) {
			dict = p->tok.kind == T_COLON && k->kind != N_STARRED;
			n = node_new(dict ? N_DICT : N_SET, open.line, open.col);
		}
		if (dict) {
			if (p->tok.kind != T_COLON) {
				bool starred = k->kind == N_STARRED;
				node_set_starts(k);
				if (!starred && p->tok.kind != T_ERROR && p->tok.kind != T_INCOMPLETE && !parse_at_end(p))
					parse_error_at(p, k->sline, k->scol, "':' expected after dictionary key");
				node_free(k);
				node_free(n);
				return parse_fail(p, NULL);
			}
			parse_advance(p);
			v = parse_expr(p);
			if (!v) {
				node_free(k);
				node_free(n);
				return NULL;
			}
		}
		if (n->nkids == 0 && parse_is_kw(p, &p->tok, "for")) {
			node_free(n);
			n = parse_comprehension(p, dict ? 'd' : '{', &open, k, v);
			if (!n)
				return NULL;
			break;
		}
		node_add(n, k);
		if (dict)
			node_add(n, v);
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
		if (p->tok.kind == T_RBRACE)
			break;
	}
	if (!parse_close(p, T_RBRACE, &open)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* (expr), a tuple (a, b) / (a,), the empty tuple (), or (x for x in y). */
static struct node *parse_paren(struct parser *p)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *first, *n;
	parse_advance(p);
	if (p->tok.kind == T_RPAR) {
		parse_advance(p);
		return node_new(N_TUPLE, open.line, open.col);
	}
	first = parse_element(p);
	if (!first)
		return NULL;
	n = first;
	if (parse_is_kw(p, &p->tok, "for")) {
		n = parse_comprehension(p, '(', &open, first, NULL);
		if (!n)
			return NULL;
	} else if (p->tok.kind == T_COMMA) {
		n = node_new(N_TUPLE, open.line, open.col);
		node_add(n, first);
		while (p->tok.kind == T_COMMA) {
			struct node *e;
			parse_advance(p);
			if (p->tok.kind == T_RPAR)
				break;
			e = parse_element(p);
			if (!e) {
				node_free(n);
				return NULL;
			}
			node_add(n, e);
		}
	} else if (first->kind == N_STARRED) {
		node_free(first);
		return parse_error_at(p, open.line, open.col + 1, "cannot use starred expression here");
	}
	if (!parse_close(p, T_RPAR, &open)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* f(a, *rest, key=value, **options) or f(x for x in y), the callee
 * already parsed. */
static struct node *parse_call(struct parser *p, struct node *callee)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *n = node_new(N_CALL, open.line, open.col);
	bool seen_keyword = false, seen_kwunpack = false;
	const char *misplaced = NULL;
	int first_line = 0, first_col = 0;
	node_add(n, callee);
	parse_advance(p);
	first_line = p->tok.line;
	first_col = p->tok.col;
	while (p->tok.kind != T_RPAR) {
		char *kw = NULL;
		struct node *e;
		int nargs = n->nkids - 1;
		int arg_line = p->tok.line, arg_col = p->tok.col;
		if (p->tok.kind == T_STAR && seen_kwunpack) {
			parse_error_at(p, first_line, first_col, "iterable argument unpacking follows keyword argument "
				       "unpacking");
			node_free(n);
			return NULL;
		}
		if (p->tok.kind == T_STAR || p->tok.kind == T_DSTAR) {
			seen_kwunpack = seen_kwunpack || p->tok.kind == T_DSTAR;
			e = parse_starred(p, true);
		} else {
			if (p->tok.kind == T_NAME && parse_peek(p)->kind == T_ASSIGN) {
				kw = xstrndup(p->src + p->tok.start, p->tok.len);
				for (int i = 0; i < nargs; i++) {
					if (n->kwnames[i] && strcmp(n->kwnames[i], kw) == 0) {
						parse_error_at(p, p->tok.line, p->tok.col,
							       "keyword argument '%s' is given twice", kw);
						free(kw);
						node_free(n);
						return NULL;
					}
				}
				parse_advance(p);
				parse_advance(p);
			} else if ((seen_keyword || seen_kwunpack) && !misplaced) {
				/* CPython reports it at the call's ')' */
				misplaced = seen_kwunpack ? "positional argument follows keyword argument unpacking"
					    : "positional argument follows keyword argument";
			}
			e = parse_expr(p);
		}
		if (!e) {
			free(kw);
			node_free(n);
			return NULL;
		}
		if (kw) {
			e->sline = arg_line;
			e->scol = arg_col;
		} else if (parse_is_kw(p, &p->tok, "for") && e->kind != N_STARRED) {
			struct tok_pos at = {T_EOF, 0, 0, arg_line, arg_col};
			e = parse_comprehension(p, '(', &at, e, NULL);
			if (!e) {
				node_free(n);
				return NULL;
			}
			if (nargs > 0 || p->tok.kind != T_RPAR) {
				node_free(e);
				node_free(n);
				return parse_error_at(p, arg_line, arg_col, "Generator expression must be parenthesized");
			}
		}
		node_add_name(&n->kwnames, nargs, kw);
		node_add(n, e);
		seen_keyword = seen_keyword || kw;
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
	}
	if (misplaced && p->tok.kind == T_RPAR) {
		node_free(n);
		return parse_error_at(p, p->tok.line, p->tok.col, "%s", misplaced);
	}
	if (!parse_close(p, T_RPAR, &open)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* One subscript: an expression or a slice a:b:c with any part left out. */
static struct node *parse_subscript(struct parser *p)
{
	int line = p->tok.line, col = p->tok.col;
	struct node *lower = NULL, *upper = NULL, *step = NULL, *s;
	if (p->tok.kind != T_COLON) {
		lower = parse_expr(p);
		if (!lower || p->tok.kind != T_COLON)
			return lower;
	}
	parse_advance(p);
	if (p->tok.kind != T_COLON && p->tok.kind != T_COMMA && p->tok.kind != T_RBRACK) {
		upper = parse_expr(p);
		if (!upper)
			goto fail;
	}
	if (p->tok.kind == T_COLON) {
		parse_advance(p);
		if (p->tok.kind != T_COMMA && p->tok.kind != T_RBRACK) {
			step = parse_expr(p);
			if (!step)
				goto fail;
		}
	}
	s = node_new(N_SLICE, line, col);
	node_add(s, lower);
	node_add(s, upper);
	node_add(s, step);
	return s;
fail:
	node_free(lower);
	node_free(upper);
	return NULL;
}

/* obj[i], obj[i, j], obj[a:b, ::2] with obj already parsed. */
static struct node *parse_index(struct parser *p, struct node *obj)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *n = node_new(N_INDEX, open.line, open.col);
	node_add(n, obj);
	parse_advance(p);
	if (p->tok.kind == T_RBRACK) {
		node_free(n);
		return parse_fail(p, "expected an index between '[' and ']'");
	}
	for (;;) {
		struct node *e = parse_subscript(p);
		if (!e) {
			node_free(n);
			return NULL;
		}
		node_add(n, e);
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
		if (p->tok.kind == T_RBRACK)
			break;
	}
	if (!parse_close(p, T_RBRACK, &open)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* ---- expressions, loosest binding last ---------------------------------------------- */

static struct node *parse_atom(struct parser *p)
{
	struct node *n;
	parse_skip_continuation(p);
	switch (p->tok.kind) {
	case T_NAME:
		n = node_new(N_NAME, p->tok.line, p->tok.col);
		n->str = xstrndup(p->src + p->tok.start, p->tok.len);
		parse_advance(p);
		return n;
	case T_NUMBER:
		n = node_new(N_NUM, p->tok.line, p->tok.col);
		n->is_int = p->tok.is_int;
		n->ival = p->tok.ival;
		n->num = p->tok.is_int ? (double)p->tok.ival : p->tok.num;
		parse_advance(p);
		return n;
	case T_STRING:
	case T_FSTRING:
		return parse_strings(p);
	case T_TRUE:
	case T_FALSE:
	case T_NONE:
		n = node_new(N_CONST, p->tok.line, p->tok.col);
		n->op = p->tok.kind == T_TRUE ? 'T' : p->tok.kind == T_FALSE ? 'F' : 'N';
		parse_advance(p);
		return n;
	case T_LPAR:
		return parse_paren(p);
	case T_LBRACK:
		return parse_list(p);
	case T_LBRACE:
		return parse_brace(p);
	case T_KEYWORD:
		return parse_fail(p, "%s", parse_keyword_message(p, &p->tok));
	default:
		return parse_fail(p, NULL);
	}
}

/* Calls, subscripts and attributes: f(x)[0].T */
static struct node *parse_postfix(struct parser *p)
{
	struct node *n = parse_atom(p);
	while (n) {
		if (p->tok.kind == T_LPAR) {
			n = parse_call(p, n);
		} else if (p->tok.kind == T_LBRACK) {
			n = parse_index(p, n);
		} else if (p->tok.kind == T_DOT) {
			struct node *a;
			parse_advance(p);
			if (p->tok.kind != T_NAME) {
				node_free(n);
				return parse_fail(p, "expected a name after '.'");
			}
			a = node_new(N_ATTR, p->tok.line, p->tok.col);
			a->str = xstrndup(p->src + p->tok.start, p->tok.len);
			node_add(a, n);
			n = a;
			parse_advance(p);
		} else {
			break;
		}
	}
	return n;
}

static struct node *parse_factor(struct parser *p);

/* a ** b: binds tighter than a unary minus on its left, so -2**2 is -(2**2),
 * and is right-associative through parse_factor. */
static struct node *parse_power(struct parser *p)
{
	struct node *base = parse_postfix(p), *exp;
	int line, col;
	if (!base || p->tok.kind != T_DSTAR)
		return base;
	line = p->tok.line;
	col = p->tok.col;
	parse_advance(p);
	if (!parse_enter(p)) {
		node_free(base);
		return NULL;
	}
	exp = parse_factor(p);
	p->depth--;
	if (!exp) {
		node_free(base);
		return NULL;
	}
	return node_binary(OP_POW, line, col, base, exp);
}

/* Unary - + ~ */
static struct node *parse_factor(struct parser *p)
{
	struct node *operand;
	int op, line, col;
	parse_skip_continuation(p);
	if (p->tok.kind != T_MINUS && p->tok.kind != T_PLUS && p->tok.kind != T_TILDE)
		return parse_power(p);
	op = p->tok.kind == T_MINUS ? '-' : p->tok.kind == T_PLUS ? '+' : '~';
	line = p->tok.line;
	col = p->tok.col;
	parse_advance(p);
	if (!parse_enter(p))
		return NULL;
	operand = parse_factor(p);
	p->depth--;
	if (!operand)
		return NULL;
	return node_unary(op, line, col, operand);
}

typedef struct node *(*parse_fn)(struct parser *p);

/* A left-associative chain of the operators in kinds (ended by T_EOF). */
static struct node *parse_chain(struct parser *p, parse_fn next, const enum tok_kind *kinds)
{
	struct node *left = next(p);
	while (left) {
		struct node *right;
		int op, line, col;
		size_t i;
		for (i = 0; kinds[i] != T_EOF && kinds[i] != p->tok.kind; i++)
			;
		if (kinds[i] == T_EOF)
			break;
		op = p->tok.kind == T_AND ? OP_AND : p->tok.kind == T_OR ? OP_OR : p->tok.op;
		line = p->tok.line;
		col = p->tok.col;
		parse_advance(p);
		right = next(p);
		if (!right) {
			node_free(left);
			return NULL;
		}
		left = node_binary(op, line, col, left, right);
	}
	return left;
}

static struct node *parse_term(struct parser *p)
{
	static const enum tok_kind k[] = {T_STAR, T_SLASH, T_DSLASH, T_PERCENT, T_AT, T_EOF};
	return parse_chain(p, parse_factor, k);
}

static struct node *parse_arith(struct parser *p)
{
	static const enum tok_kind k[] = {T_PLUS, T_MINUS, T_EOF};
	return parse_chain(p, parse_term, k);
}

static struct node *parse_bitand(struct parser *p)
{
	static const enum tok_kind k[] = {T_AMP, T_EOF};
	return parse_chain(p, parse_arith, k);
}

static struct node *parse_bitor(struct parser *p)
{
	static const enum tok_kind k[] = {T_PIPE, T_EOF};
	return parse_chain(p, parse_bitand, k);
}

/* The comparison operator at the current token (peeking for "not in"), or 0. */
static int parse_comparison_op(struct parser *p)
{
	switch (p->tok.kind) {
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE:
		return p->tok.op;
	case T_IN:
		return OP_IN;
	case T_IS:
		return OP_IS;
	case T_NOT:
		return parse_peek(p)->kind == T_IN ? OP_NOTIN : 0;
	default:
		return 0;
	}
}

/* a == b, a in b, a is not None, ...: one comparison, no chains. */
static struct node *parse_comparison(struct parser *p)
{
	struct node *left = parse_bitor(p), *right;
	int op, line, col;
	if (!left)
		return NULL;
	op = parse_comparison_op(p);
	if (!op)
		return left;
	line = p->tok.line;
	col = p->tok.col;
	parse_advance(p);
	if (op == OP_NOTIN) {
		parse_advance(p);
	} else if (op == OP_IS && p->tok.kind == T_NOT) {
		op = OP_ISNOT;
		parse_advance(p);
	}
	right = parse_bitor(p);
	if (!right) {
		node_free(left);
		return NULL;
	}
	left = node_binary(op, line, col, left, right);
	if (parse_comparison_op(p)) {
		node_free(left);
		return parse_fail(p, "qkv does not run chained comparisons such as a < b < c; write "
			       "a < b and b < c");
	}
	return left;
}

static struct node *parse_not(struct parser *p)
{
	struct node *operand;
	int line, col;
	if (p->tok.kind != T_NOT)
		return parse_comparison(p);
	line = p->tok.line;
	col = p->tok.col;
	parse_advance(p);
	if (!parse_enter(p))
		return NULL;
	operand = parse_not(p);
	p->depth--;
	if (!operand)
		return NULL;
	return node_unary('!', line, col, operand);
}

static struct node *parse_and(struct parser *p)
{
	static const enum tok_kind k[] = {T_AND, T_EOF};
	return parse_chain(p, parse_not, k);
}

static struct node *parse_or(struct parser *p)
{
	static const enum tok_kind k[] = {T_OR, T_EOF};
	return parse_chain(p, parse_and, k);
}

/* lambda params: body */
static struct node *parse_lambda(struct parser *p)
{
	struct node *n = node_new(N_LAMBDA, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_params(p, T_COLON);
	if (!e) {
		node_free(n);
		return NULL;
	}
	node_add(n, e);
	if (p->tok.kind != T_COLON) {
		node_free(n);
		return parse_fail(p, "expected ':'");
	}
	parse_advance(p);
	e = parse_expr(p);
	if (!e) {
		node_free(n);
		return NULL;
	}
	node_add(n, e);
	return n;
}

/* A full expression (a if c else b, lambda, or an or-expression), one
 * level deeper. */
static struct node *parse_expr(struct parser *p)
{
	struct node *n, *cond, *other, *ifexp;
	int line, col;
	if (!parse_enter(p))
		return NULL;
	if (p->tok.kind == T_LAMBDA) {
		n = parse_lambda(p);
		p->depth--;
		return n;
	}
	n = parse_or(p);
	if (!n || !parse_is_kw(p, &p->tok, "if")) {
		p->depth--;
		return n;
	}
	line = p->tok.line;
	col = p->tok.col;
	parse_advance(p);
	cond = parse_or(p);
	if (cond && !parse_is_kw(p, &p->tok, "else")) {
		node_free(cond);
		node_set_starts(n);
		cond = parse_error_at(p, n->sline, n->scol, "expected 'else' after 'if' expression");
	}
	if (!cond) {
		node_free(n);
		p->depth--;
		return NULL;
	}
	parse_advance(p);
	other = parse_expr(p);
	p->depth--;
	if (!other) {
		node_free(n);
		node_free(cond);
		return NULL;
	}
	ifexp = node_new(N_IFEXP, line, col);
	node_add(ifexp, n);
	node_add(ifexp, cond);
	node_add(ifexp, other);
	return ifexp;
}

/* expr or expr, expr, ... (a bare tuple, as in `K.shape, Q.shape`); elements
 * may be *starred. A lone starred expression is refused unless '=' follows
 * (where the assignment says why). */
static struct node *parse_exprlist(struct parser *p)
{
	struct node *first, *tuple;
	int line, col;
	parse_skip_continuation(p);
	line = p->tok.line;
	col = p->tok.col;
	first = parse_element(p);
	if (!first)
		return NULL;
	if (p->tok.kind != T_COMMA) {
		if (first->kind == N_STARRED && p->tok.kind != T_ASSIGN) {
			node_free(first);
			return parse_error_at(p, line, col, "can't use starred expression here");
		}
		return first;
	}
	tuple = node_new(N_TUPLE, line, col);
	node_add(tuple, first);
	while (p->tok.kind == T_COMMA) {
		struct node *e;
		parse_advance(p);
		if (!parse_starts_expr(&p->tok) && p->tok.kind != T_STAR)
			break;
		e = parse_element(p);
		if (!e) {
			node_free(tuple);
			return NULL;
		}
		node_add(tuple, e);
	}
	return tuple;
}

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
		n = node_new(N_EXPR, line, col);
		node_add(n, lhs);
		return parse_end(p, n);
	}
	op = p->tok;	/* positions only: op's strings stay owned by p->tok */
	if (parse_check_target(p, lhs, &op, op.kind == T_AUGASSIGN) < 0) {
		node_free(lhs);
		return NULL;
	}
	n = node_new(op.kind == T_ASSIGN ? N_ASSIGN : N_AUGASSIGN, op.line, op.col);
	n->op = op.kind == T_AUGASSIGN ? op.op : 0;
	node_add(n, lhs);
	parse_advance(p);
	rhs = parse_exprlist(p);
	if (!rhs) {
		node_free(n);
		return NULL;
	}
	node_add(n, rhs);
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

/* import torch / import torch.nn as nn */
static struct node *parse_import(struct parser *p)
{
	struct node *n = node_new(N_IMPORT, p->tok.line, p->tok.col), *name;
	int line, col;
	char *as;
	bool ok;
	parse_advance(p);
	line = p->tok.line;
	col = p->tok.col;
	n->str = parse_module_path(p, "import");
	if (!n->str) {
		node_free(n);
		return NULL;
	}
	as = parse_as_name(p, &ok);
	if (!ok) {
		node_free(n);
		return NULL;
	}
	name = node_new(N_NAME, line, col);
	name->str = xstrdup(n->str);
	node_add_name(&n->kwnames, 0, as);
	node_add(n, name);
	if (p->tok.kind == T_COMMA) {
		node_free(n);
		return parse_fail(p, "import one module per statement");
	}
	return parse_end(p, n);
}

/* from scipy.special import softmax / from torch import nn as tnn, optim / from m import (a, b) */
static struct node *parse_from_import(struct parser *p)
{
	struct node *n = node_new(N_IMPORT, p->tok.line, p->tok.col);
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
		open = tok_pos_of(&p->tok);
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
		name = node_new(N_NAME, p->tok.line, p->tok.col);
		name->str = xstrndup(p->src + p->tok.start, p->tok.len);
		parse_advance(p);
		as = parse_as_name(p, &ok);
		if (!ok) {
			node_free(name);
			node_free(n);
			return NULL;
		}
		node_add_name(&n->kwnames, n->nkids, as);
		node_add(n, name);
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
	struct node *n = node_new(N_RETURN, p->tok.line, p->tok.col), *v = NULL;
	parse_advance(p);
	if (parse_starts_expr(&p->tok)) {
		v = parse_exprlist(p);
		if (!v) {
			node_free(n);
			return NULL;
		}
	}
	node_add(n, v);
	n = parse_end(p, n);
	if (n && !p->in_func)
		return parse_refuse(p, n, "'return' outside function");
	return n;
}

/* break, continue, pass */
static struct node *parse_word(struct parser *p, enum node_kind kind)
{
	struct node *n = node_new(kind, p->tok.line, p->tok.col);
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
static int parse_check_targets(struct parser *p, struct node *t, const char *verb)
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
	node_set_starts(t);
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
	node_add(n, t);
}

static struct node *parse_del(struct parser *p)
{
	struct node *n = node_new(N_DEL, p->tok.line, p->tok.col), *t;
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
	struct node *n = node_new(kind, p->tok.line, p->tok.col);
	parse_advance(p);
	for (;;) {
		struct node *name;
		if (p->tok.kind != T_NAME) {
			node_free(n);
			return parse_fail(p, "expected a name after '%s'", kind == N_GLOBAL ? "global" : "nonlocal");
		}
		name = node_new(N_NAME, p->tok.line, p->tok.col);
		name->str = xstrndup(p->src + p->tok.start, p->tok.len);
		node_add(n, name);
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
	struct node *n = node_new(N_ASSERT, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_expr(p);
	if (!e) {
		node_free(n);
		return NULL;
	}
	node_add(n, e);
	e = NULL;
	if (p->tok.kind == T_COMMA) {
		parse_advance(p);
		e = parse_expr(p);
		if (!e) {
			node_free(n);
			return NULL;
		}
	}
	node_add(n, e);
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

static struct node *parse_compound(struct parser *p);

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
		node_add(block, n);
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
	b = node_new(N_BLOCK, p->tok.line, p->tok.col);
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
				node_add(b, n);
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
		struct node *n = node_new(N_IF, p->tok.line, p->tok.col), *e;
		int line = p->tok.line;
		parse_advance(p);
		if (last)
			node_add(last, n);
		else
			first = n;
		last = n;
		e = parse_expr(p);
		if (!e) {
			node_free(first);
			return NULL;
		}
		node_add(n, e);
		e = parse_suite(p, what, line);
		if (!e) {
			node_free(first);
			return NULL;
		}
		node_add(n, e);
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
		node_add(last, e);
	} else {
		node_add(last, NULL);
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
	node_add(n, b);
	b = NULL;
	if (parse_is_kw(p, &p->tok, "else")) {
		int eline = p->tok.line;
		parse_advance(p);
		b = parse_suite(p, "'else' statement", eline);
		if (!b)
			return false;
	}
	node_add(n, b);
	return true;
}

static struct node *parse_while(struct parser *p)
{
	struct node *n = node_new(N_WHILE, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_expr(p);
	if (!e) {
		node_free(n);
		return NULL;
	}
	node_add(n, e);
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
static struct node *parse_targets(struct parser *p, bool commas)
{
	int line = p->tok.line, col = p->tok.col;
	struct node *first, *tuple;
	first = parse_target(p);
	if (!first || !commas || p->tok.kind != T_COMMA)
		return first;
	tuple = node_new(N_TUPLE, line, col);
	node_add(tuple, first);
	while (p->tok.kind == T_COMMA) {
		struct node *e;
		parse_advance(p);
		if (!parse_starts_expr(&p->tok) && p->tok.kind != T_STAR)
			break;
		e = parse_target(p);
		if (!e) {
			node_free(tuple);
			return NULL;
		}
		node_add(tuple, e);
	}
	return tuple;
}

/* for target in iterable: block [else: block] */
static struct node *parse_for(struct parser *p)
{
	struct node *n = node_new(N_FOR, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_targets(p, true);
	if (!e) {
		node_free(n);
		return NULL;
	}
	node_add(n, e);
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
	node_add(n, e);
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
		struct node *n = node_new(N_WITH, line, col), *e;
		if (inner) {
			b = node_new(N_BLOCK, line, col);
			node_add(b, n);
			node_add(inner, b);
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
		node_add(n, e);
		e = NULL;
		if (p->tok.kind == T_AS) {
			parse_advance(p);
			e = parse_targets(p, false);
			if (!e)
				goto fail;
			node_add(n, e);
			if (parse_check_targets(p, e, "assign to") < 0)
				goto fail;
		} else {
			node_add(n, NULL);
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
	node_add(inner, b);
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
static struct node *parse_params(struct parser *p, enum tok_kind closer)
{
	struct node *params = node_new(N_PARAMS, p->tok.line, p->tok.col), *n = NULL, *def;
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
				n = node_new(N_PARAM, line, col);
				n->op = '*';
				node_add(n, NULL);
				node_add(params, n);
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
		n = node_new(N_PARAM, p->tok.line, p->tok.col);
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
		node_add(n, def);
		node_add(params, n);
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
	struct node *n = node_new(N_DEF, p->tok.line, p->tok.col), *e;
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
	open = tok_pos_of(&p->tok);
	parse_advance(p);
	e = parse_params(p, T_RPAR);
	if (!e) {
		node_free(n);
		return NULL;
	}
	node_add(n, e);
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
	node_add(n, e);
	return n;
}

/* class Name(bases): block */
static struct node *parse_class(struct parser *p)
{
	struct node *n = node_new(N_CLASS, p->tok.line, p->tok.col), *bases, *e;
	parse_advance(p);
	if (p->tok.kind != T_NAME) {
		node_free(n);
		return parse_fail(p, "expected the class's name after 'class'");
	}
	n->str = xstrndup(p->src + p->tok.start, p->tok.len);
	n->sline = p->tok.line;
	n->scol = p->tok.col;
	parse_advance(p);
	bases = node_new(N_TUPLE, p->tok.line, p->tok.col);
	node_add(n, bases);
	if (p->tok.kind == T_LPAR) {
		struct tok_pos open = tok_pos_of(&p->tok);
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
			node_add(bases, e);
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
	node_add(n, e);
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

/* One top-level statement: a simple one (its ';' and newline left for the
 * next call) or a whole compound one. */
static struct node *parse_statement(struct parser *p)
{
	struct node *n;
	if (p->tok.kind != T_KEYWORD || !parse_is_compound(p, &p->tok))
		return parse_simple(p);
	n = parse_compound(p);
	if (n && p->interactive && p->tok.kind == T_EOF && !parse_empty_line_after(p, p->span_end)) {
		node_free(n);
		return parse_incomplete_at(p, p->span_line, 1, "the block that starts on line %d ends at an "
					   "empty line", p->span_line);
	}
	return n;
}

/* The first node deeper than PARSE_MAX_HEIGHT, or NULL. Recursion is bounded
 * by the limit itself. */
static const struct node *parse_too_tall(const struct node *n, int height)
{
	if (height > PARSE_MAX_HEIGHT)
		return n;
	for (int i = 0; i < n->nkids; i++) {
		const struct node *t = n->kids[i] ? parse_too_tall(n->kids[i], height + 1) : NULL;
		if (t)
			return t;
	}
	return NULL;
}

/* ---- the API ------------------------------------------------------------------------------ */

struct parser *parser_new(const char *src, size_t len, int first_line)
{
	struct parser *p = xcalloc(1, sizeof *p);
	p->src = src ? src : "";
	p->len = src ? len : 0;
	lexer_init(&p->lex, p->src, p->len, first_line);
	p->status = PARSE_OK;
	p->span_line = first_line;
	return p;
}

void parser_set_interactive(struct parser *p, bool on)
{
	p->interactive = on;
}

void parser_free(struct parser *p)
{
	if (!p)
		return;
	token_free(&p->tok);
	if (p->has_ahead)
		token_free(&p->ahead);
	free(p);
}

enum parse_status parser_next(struct parser *p, struct node **out, struct qkv_error *err)
{
	struct node *n;
	const struct node *tall;
	*out = NULL;
	if (p->status != PARSE_OK) {
		if (err && p->status != PARSE_END)
			*err = p->err;
		return p->status;
	}
	if (!p->started) {
		lexer_next(&p->lex, &p->tok);
		p->started = true;
	}
	p->in_stmt = false;
	while (p->tok.kind == T_NEWLINE || p->tok.kind == T_SEMI)
		parse_advance(p);
	if (p->tok.kind == T_EOF) {
		p->status = PARSE_END;
		return PARSE_END;
	}
	p->in_stmt = true;
	p->failed = false;
	p->depth = 0;
	p->span_line = p->tok.line;
	p->span_start = p->tok.start;
	p->span_end = p->tok.start + p->tok.len;
	n = parse_statement(p);
	if (n && (tall = parse_too_tall(n, 1)) != NULL) {
		parse_error_at(p, tall->line, tall->col, "expression nested too deeply");
		node_free(n);
		n = NULL;
	}
	node_set_starts(n);
	p->in_stmt = false;
	if (!n) {
		if (!p->failed)
			parse_error_at(p, p->tok.line, p->tok.col, "invalid syntax");
		p->status = p->fail_status;
		if (p->status == PARSE_INCOMPLETE)
			p->span_end = p->len;
		else if (p->tok.start + p->tok.len > p->span_end && !p->lex.sub)
			p->span_end = p->tok.start + p->tok.len;
		if (err)
			*err = p->err;
		return p->status;
	}
	*out = n;
	return PARSE_OK;
}

void parser_last_span(const struct parser *p, int *line, size_t *start, size_t *end)
{
	if (line)
		*line = p->span_line;
	if (start)
		*start = p->span_start;
	if (end)
		*end = p->span_end;
}
