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
};

static struct node *parse_expr(struct parser *p);
static struct node *parse_exprlist(struct parser *p);

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

/* Statements are limited to PARSE_MAX_STMT bytes: a token reaching past that
 * becomes an error token. */
static void parse_check_length(struct parser *p)
{
	struct token *t = &p->tok;
	int line = t->line, col = t->col;
	if (!p->in_stmt || p->lex.sub || t->kind == T_EOF || t->kind == T_NEWLINE || t->kind == T_SEMI)
		return;
	if (t->start + t->len - p->span_start <= PARSE_MAX_STMT)
		return;
	token_free(t);
	t->kind = T_ERROR;
	t->line = line;
	t->col = col;
	error_set(&t->err, line, col, "statement is longer than %d bytes", PARSE_MAX_STMT);
}

static void parse_advance(struct parser *p)
{
	p->prev = tok_pos_of(&p->tok);
	if (p->in_stmt && !p->lex.sub && p->tok.kind != T_EOF)
		p->span_end = p->tok.start + p->tok.len;
	token_free(&p->tok);
	if (p->has_ahead) {
		p->tok = p->ahead;
		memset(&p->ahead, 0, sizeof p->ahead);
		p->has_ahead = false;
	} else {
		lexer_next(&p->lex, &p->tok);
	}
	parse_check_length(p);
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
	case T_TRUE: case T_FALSE: case T_NONE:
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
	while (p->tok.kind == T_NEWLINE)
		parse_advance(p);
	p->prev = op;
}

/* ---- messages ---------------------------------------------------------------------- */

static const struct {
	const char *word;
	const char *at_start;   /* the keyword begins a statement */
	const char *inside;     /* it turns up inside an expression (NULL: same) */
} parse_keywords[] = {
	{"for", "qkv runs single statements: 'for' loops are not supported; use tensor operations "
		"instead (torch.matmul adds up the products for you)",
		"comprehensions ('for' inside an expression) are not supported; use tensor operations "
		"such as torch.stack or torch.matmul"},
	{"while", "qkv runs single statements: 'while' loops are not supported; use tensor operations "
		  "instead", NULL},
	{"if", "qkv runs single statements: 'if' blocks are not supported; for an elementwise choice "
	       "use torch.where(condition, a, b)",
	       "conditional expressions (a if c else b) are not supported; use torch.where(c, a, b)"},
	{"elif", "qkv runs single statements: 'elif' belongs to an 'if' block, which qkv does not run", NULL},
	{"else", "qkv runs single statements: 'else' belongs to an 'if' block, which qkv does not run",
		 "conditional expressions (a if c else b) are not supported; use torch.where(c, a, b)"},
	{"def", "qkv runs single statements: defining functions with 'def' is not supported; type the "
		"body's statements one at a time", NULL},
	{"class", "qkv runs single statements: defining classes is not supported; use ready-made modules "
		  "such as nn.Linear", NULL},
	{"lambda", "'lambda' is not supported; write the expression out where you need it", NULL},
	{"return", "qkv runs single statements: 'return' only works inside a function; type the "
		   "expression itself to see its value", NULL},
	{"with", "qkv runs single statements: 'with' blocks are not supported; type the statements "
		 "inside the block directly", NULL},
	{"try", "qkv runs single statements: 'try' blocks are not supported", NULL},
	{"except", "qkv runs single statements: 'except' belongs to a 'try' block, which qkv does not run",
		   NULL},
	{"finally", "qkv runs single statements: 'finally' belongs to a 'try' block, which qkv does not "
		    "run", NULL},
	{"raise", "'raise' is not supported", NULL},
	{"del", "'del' is not supported; assign the name a new value instead", NULL},
	{"global", "'global' is not supported: qkv has no functions", NULL},
	{"nonlocal", "'nonlocal' is not supported: qkv has no functions", NULL},
	{"assert", "'assert' is not supported; print the condition instead, as in "
		   "print(torch.allclose(a, b))", NULL},
	{"yield", "'yield' is not supported: qkv has no functions", NULL},
	{"break", "'break' is not supported: qkv has no loops", NULL},
	{"continue", "'continue' is not supported: qkv has no loops", NULL},
	{"async", "'async' is not supported", NULL},
	{"await", "'await' is not supported", NULL},
};

static const char *parse_keyword_message(const struct parser *p, const struct token *t, bool at_start)
{
	for (size_t i = 0; i < sizeof parse_keywords / sizeof parse_keywords[0]; i++) {
		const char *w = parse_keywords[i].word;
		if (strlen(w) == t->len && memcmp(w, p->src + t->start, t->len) == 0) {
			if (!at_start && parse_keywords[i].inside)
				return parse_keywords[i].inside;
			return parse_keywords[i].at_start;
		}
	}
	return "this Python keyword is not supported";
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
		{":=", "':=' is not supported; assign in a separate statement"},
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
		snprintf(buf, size, "end of line");
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
		snprintf(buf, size, "%s", parse_keyword_message(p, t, false));
		return;
	case T_UNSUPPORTED:
		snprintf(buf, size, "%s", parse_unsupported_message(p, t));
		return;
	case T_ASSIGN:
		snprintf(buf, size, "unexpected '='; use '==' to compare");
		return;
	case T_LBRACE:
		snprintf(buf, size, "'{...}' dicts and sets are not supported");
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
	if (p->len - p->span_start > PARSE_MAX_STMT)
		return parse_error_at(p, t->line, t->col, "statement is longer than %d bytes", PARSE_MAX_STMT);
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
	    (t->kind == T_EOF && !p->lex.sub && (p->lex.depth > 0 || parse_prev_is_operator(p))))
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
		if (t.kind == T_EOF || t.kind == T_ERROR || t.kind == T_INCOMPLETE ||
		    (!lx.sub && t.start > p->span_start + PARSE_MAX_STMT))
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

/* [a, b, ...] or a matrix literal. */
static struct node *parse_list(struct parser *p)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *n;
	if (parse_bracket_is_matrix(p))
		return parse_matrix(p, &open);
	n = node_new(N_LIST, open.line, open.col);
	parse_advance(p);
	while (p->tok.kind != T_RBRACK) {
		struct node *e = parse_expr(p);
		if (!e) {
			node_free(n);
			return NULL;
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

/* (expr), a tuple (a, b) / (a,), or the empty tuple (). */
static struct node *parse_paren(struct parser *p)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *first, *n;
	parse_advance(p);
	if (p->tok.kind == T_RPAR) {
		parse_advance(p);
		return node_new(N_TUPLE, open.line, open.col);
	}
	first = parse_expr(p);
	if (!first)
		return NULL;
	n = first;
	if (p->tok.kind == T_COMMA) {
		n = node_new(N_TUPLE, open.line, open.col);
		node_add(n, first);
		while (p->tok.kind == T_COMMA) {
			struct node *e;
			parse_advance(p);
			if (p->tok.kind == T_RPAR)
				break;
			e = parse_expr(p);
			if (!e) {
				node_free(n);
				return NULL;
			}
			node_add(n, e);
		}
	}
	if (!parse_close(p, T_RPAR, &open)) {
		node_free(n);
		return NULL;
	}
	return n;
}

/* f(a, b, key=value) with the callee already parsed. */
static struct node *parse_call(struct parser *p, struct node *callee)
{
	struct tok_pos open = tok_pos_of(&p->tok);
	struct node *n = node_new(N_CALL, open.line, open.col);
	bool seen_keyword = false;
	node_add(n, callee);
	parse_advance(p);
	while (p->tok.kind != T_RPAR) {
		char *kw = NULL;
		struct node *e;
		int nargs = n->nkids - 1;
		int kw_line = 0, kw_col = 0;
		if (p->tok.kind == T_STAR || p->tok.kind == T_DSTAR) {
			node_free(n);
			return parse_fail(p, "argument unpacking with '%s' is not supported",
					  p->tok.kind == T_STAR ? "*" : "**");
		}
		if (p->tok.kind == T_NAME && parse_peek(p)->kind == T_ASSIGN) {
			kw = xstrndup(p->src + p->tok.start, p->tok.len);
			kw_line = p->tok.line;
			kw_col = p->tok.col;
			for (int i = 0; i < nargs; i++) {
				if (n->kwnames[i] && strcmp(n->kwnames[i], kw) == 0) {
					parse_error_at(p, p->tok.line, p->tok.col, "keyword argument '%s' is given twice",
						       kw);
					free(kw);
					node_free(n);
					return NULL;
				}
			}
			parse_advance(p);
			parse_advance(p);
		} else if (seen_keyword && parse_starts_expr(&p->tok)) {
			node_free(n);
			return parse_fail(p, "positional argument follows keyword argument");
		}
		int arg_line = kw ? kw_line : p->tok.line, arg_col = kw ? kw_col : p->tok.col;
		e = parse_expr(p);
		if (!e) {
			free(kw);
			node_free(n);
			return NULL;
		}
		if (kw) {
			e->sline = arg_line;
			e->scol = arg_col;
		}
		node_add_name(&n->kwnames, nargs, kw);
		node_add(n, e);
		seen_keyword = seen_keyword || kw;
		if (p->tok.kind != T_COMMA)
			break;
		parse_advance(p);
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
	case T_KEYWORD:
		return parse_fail(p, "%s", parse_keyword_message(p, &p->tok, true));
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
		return parse_fail(p, "chained comparisons like a < b < c are not supported; write "
			       "(a < b) and (b < c)");
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

/* A full expression, one level deeper. */
static struct node *parse_expr(struct parser *p)
{
	struct node *n;
	if (!parse_enter(p))
		return NULL;
	n = parse_or(p);
	p->depth--;
	return n;
}

/* expr or expr, expr, ... (a bare tuple, as in `K.shape, Q.shape`). */
static struct node *parse_exprlist(struct parser *p)
{
	struct node *first, *tuple;
	int line, col;
	parse_skip_continuation(p);
	line = p->tok.line;
	col = p->tok.col;
	first = parse_expr(p);
	if (!first || p->tok.kind != T_COMMA)
		return first;
	tuple = node_new(N_TUPLE, line, col);
	node_add(tuple, first);
	while (p->tok.kind == T_COMMA) {
		struct node *e;
		parse_advance(p);
		if (!parse_starts_expr(&p->tok))
			break;
		e = parse_expr(p);
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

/* Unpacking targets: names, or (nested) tuples of names. */
static int parse_check_unpack(struct parser *p, const struct node *t, const struct token *op)
{
	int n = (int)op->len;
	const char *s = p->src + op->start;
	for (int i = 0; i < t->nkids; i++) {
		const struct node *k = t->kids[i];
		if (k->kind == N_NAME)
			continue;
		if (k->kind == N_TUPLE && k->nkids > 0) {
			if (parse_check_unpack(p, k, op) < 0)
				return -1;
			continue;
		}
		if (k->kind == N_INDEX || k->kind == N_ATTR || k->kind == N_TUPLE)
			parse_error_at(p, op->line, op->col, "'%.*s' can only unpack into plain names, as in "
				       "a, b = ...", n, s);
		else
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
	if (t->kind == N_TUPLE && !aug && t->nkids > 0)
		return parse_check_unpack(p, t, op);
	if (t->kind == N_TUPLE && t->nkids == 0)
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

static struct node *parse_statement(struct parser *p)
{
	struct node *n;
	switch (p->tok.kind) {
	case T_IMPORT:
		return parse_import(p);
	case T_FROM:
		return parse_from_import(p);
	case T_PASS:
		n = node_new(N_PASS, p->tok.line, p->tok.col);
		parse_advance(p);
		return parse_end(p, n);
	case T_KEYWORD:
		return parse_fail(p, "%s", parse_keyword_message(p, &p->tok, true));
	default:
		return parse_assign_or_expr(p);
	}
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
	parse_check_length(p);
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
