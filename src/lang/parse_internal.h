/* parse_internal.h: what the parser's files share (parser.c: tokens,
 * messages and the API; parse_expr.c: expressions; parse_stmt.c: statements,
 * blocks, parameters and magics). Not for use outside them. */
#ifndef QKV_LANG_PARSE_INTERNAL_H
#define QKV_LANG_PARSE_INTERNAL_H

#include "lang/lexer.h"
#include "lang/parser.h"

#include <stdbool.h>
#include <stddef.h>

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
	int nstmts;                     /* top-level statements begun (a %%time cell must be the first) */
};

enum { SCOPE_MODULE, SCOPE_FUNC, SCOPE_CLASS };

#define PARSE_MAX_BLOCKS 20             /* CPython's CO_MAXBLOCKS */

/* ---- parser.c: nodes, tokens, failures ---- */
struct node *parse_node_new(enum node_kind kind, int line, int col);
void parse_node_starts(struct node *n);
void parse_node_add(struct node *n, struct node *kid);
struct node *parse_node_binary(int op, int line, int col, struct node *a, struct node *b);
struct node *parse_node_unary(int op, int line, int col, struct node *a);
void parse_node_add_name(char ***names, int count, char *name);
struct tok_pos parse_tok_pos(const struct token *t);
void parse_advance(struct parser *p);
const struct token *parse_peek(struct parser *p);
bool parse_starts_expr(const struct token *t);
bool parse_is_kw(const struct parser *p, const struct token *t, const char *word);
const char *parse_keyword_message(const struct parser *p, const struct token *t);
struct node *parse_error_at(struct parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool parse_at_end(const struct parser *p);
struct node *parse_fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool parse_enter(struct parser *p);
bool parse_close(struct parser *p, enum tok_kind closer, const struct tok_pos *open);

/* ---- parse_expr.c ---- */
struct node *parse_starred(struct parser *p, bool full);
struct node *parse_bitor(struct parser *p);
struct node *parse_expr(struct parser *p);
struct node *parse_exprlist(struct parser *p);
/* The rest of a comma list whose first element is parsed: `, e, e` with each
 * e from element (a trailing comma allowed), as an N_TUPLE at line/col that
 * holds first; NULL (first freed) on error. */
struct node *parse_comma_rest(struct parser *p, struct node *first, int line, int col,
			      struct node *(*element)(struct parser *));

/* ---- parse_stmt.c ---- */
int parse_check_targets(struct parser *p, struct node *t, const char *verb);
struct node *parse_targets(struct parser *p, bool commas);
struct node *parse_params(struct parser *p, enum tok_kind closer);
struct node *parse_statement(struct parser *p);

#endif
