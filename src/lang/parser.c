/* parser.c: hand-written recursive descent from lexer.c tokens to one struct
 * node tree per statement, called by eval.c (interp_run) and the REPL: the
 * API, tokens, nodes and failures. Expressions are parse_expr.c's, statements
 * and blocks parse_stmt.c's. Never recurses past PARSE_MAX_DEPTH, never
 * returns a tree taller than PARSE_MAX_HEIGHT, never calls merely unfinished
 * input an error. */
#include "lang/parse_internal.h"
#include "core/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- nodes --------------------------------------------------------------------- */

struct node *parse_node_new(enum node_kind kind, int line, int col)
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
void parse_node_starts(struct node *n)
{
	if (!n)
		return;
	int line = n->line, col = n->col;
	for (int i = 0; i < n->nkids; i++) {
		struct node *k = n->kids[i];
		if (!k)
			continue;
		parse_node_starts(k);
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
void parse_node_add(struct node *n, struct node *kid)
{
	if ((n->nkids & (n->nkids - 1)) == 0)
		n->kids = xrealloc(n->kids, (size_t)(n->nkids ? n->nkids * 2 : 1) * sizeof *n->kids);
	n->kids[n->nkids++] = kid;
}

struct node *parse_node_binary(int op, int line, int col, struct node *a, struct node *b)
{
	struct node *n = parse_node_new(N_BINARY, line, col);
	n->op = op;
	parse_node_add(n, a);
	parse_node_add(n, b);
	return n;
}

struct node *parse_node_unary(int op, int line, int col, struct node *a)
{
	struct node *n = parse_node_new(N_UNARY, line, col);
	n->op = op;
	parse_node_add(n, a);
	return n;
}

/* Grows names alongside the children of a call or import, so node_free
 * always finds one name slot per argument. count is the slots in use. */
void parse_node_add_name(char ***names, int count, char *name)
{
	if ((count & (count - 1)) == 0)
		*names = xrealloc(*names, (size_t)(count ? count * 2 : 1) * sizeof **names);
	(*names)[count] = name;
}

/* ---- tokens ----------------------------------------------------------------------- */

struct tok_pos parse_tok_pos(const struct token *t)
{
	struct tok_pos tp;
	tp.kind = t->kind;
	tp.start = t->start;
	tp.len = t->len;
	tp.line = t->line;
	tp.col = t->col;
	return tp;
}

void parse_advance(struct parser *p)
{
	enum tok_kind k = p->tok.kind;
	p->prev = parse_tok_pos(&p->tok);
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

const struct token *parse_peek(struct parser *p)
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
	case T_DSTAR: case T_AT: case T_AMP: case T_PIPE: case T_CARET: case T_LSHIFT: case T_RSHIFT: case T_TILDE:
	case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT: case T_GE:
	case T_AND: case T_OR: case T_NOT: case T_IN: case T_IS:
		return true;
	default:
		return false;
	}
}

/* Tokens that can begin an expression. */
bool parse_starts_expr(const struct token *t)
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

bool parse_is_kw(const struct parser *p, const struct token *t, const char *word)
{
	size_t n = strlen(word);
	return t->kind == T_KEYWORD && t->len == n && memcmp(p->src + t->start, word, n) == 0;
}

const char *parse_keyword_message(const struct parser *p, const struct token *t)
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
struct node *parse_error_at(struct parser *p, int line, int col, const char *fmt, ...)
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

/* The input ended where more was needed: inside brackets, or on a token
 * the lexer found unfinished (a string, a backslash continuation). */
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
	} else {
		error_set(&p->err, t->line, t->col, "a bracket is never closed");
	}
	return NULL;
}

/* The current token is the end of the input (or what the lexer adds there). */
bool parse_at_end(const struct parser *p)
{
	const struct token *t = &p->tok;
	if (p->lex.sub)
		return false;
	return t->kind == T_EOF || ((t->kind == T_NEWLINE || t->kind == T_DEDENT) && t->start >= p->len);
}

/* The logical line ends (outside brackets) right after an operator or '='
 * that needs an operand: as in Python, a line break there ends the statement
 * (only brackets and a backslash join lines), so this is a syntax error, not
 * unfinished input, even at the end of the input ("x = 1 -" at a REPL). */
static bool parse_line_ends_after_operator(const struct parser *p)
{
	enum tok_kind k = p->tok.kind;
	if (p->lex.sub || p->lex.depth > 0 || !parse_prev_is_operator(p))
		return false;
	return k == T_NEWLINE || k == T_EOF;
}

/* Whether nothing but spaces, line breaks and comments follows byte from. */
static bool parse_only_blank_after(const struct parser *p, size_t from)
{
	for (size_t i = from; i < p->len; i++) {
		char c = p->src[i];
		if (c == '#') {
			while (i + 1 < p->len && p->src[i + 1] != '\n')
				i++;
		} else if (c != ' ' && c != '\t' && c != '\f' && c != '\v' && c != '\r' && c != '\n') {
			return false;
		}
	}
	return true;
}

/* Fails on the current token: its own lexical error, PARSE_INCOMPLETE when
 * the input simply ended too soon (inside brackets), a syntax error when a
 * line ends after an operator, else fmt (or "unexpected <token>"). */
struct node *parse_fail(struct parser *p, const char *fmt, ...)
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
	if (t->kind == T_INCOMPLETE || (parse_at_end(p) && p->lex.depth > 0))
		return parse_incomplete(p);
	if (parse_line_ends_after_operator(p)) {
		int n = (int)(p->prev.len > 40 ? 40 : p->prev.len);
		bool last = parse_only_blank_after(p, p->prev.start + p->prev.len);
		return parse_error_at(p, p->prev.line, p->prev.col, "the %s ends after '%.*s'",
				      last ? "input" : "line", n, p->src + p->prev.start);
	}
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
bool parse_enter(struct parser *p)
{
	if (p->depth >= PARSE_MAX_DEPTH) {
		parse_error_at(p, p->tok.line, p->tok.col, "expression nested more than %d deep", PARSE_MAX_DEPTH);
		return false;
	}
	p->depth++;
	return true;
}

/* Consumes the closing bracket of one opened at open, or fails. */
bool parse_close(struct parser *p, enum tok_kind closer, const struct tok_pos *open)
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
	p->nstmts++;
	n = parse_statement(p);
	if (n && (tall = parse_too_tall(n, 1)) != NULL) {
		while (tall->nkids > 0 && tall->kids[0])	/* where the long chain starts */
			tall = tall->kids[0];
		parse_error_at(p, tall->line, tall->col, "expression too long: more than %d operations in a chain "
			       "(such as 1 + 1 + ...)", PARSE_MAX_HEIGHT);
		node_free(n);
		n = NULL;
	}
	parse_node_starts(n);
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
