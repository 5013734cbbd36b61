/* lexer.h: the tokens of the notebook language (Python's lexical rules, with
 * INDENT and DEDENT tokens from a stack of indentation widths). The parser (parser.c) pulls one token at a time; a lexical
 * problem comes back as a T_ERROR or T_INCOMPLETE token carrying its message,
 * so the parser decides when (and whether) to report it. */
#ifndef QKV_LANG_LEXER_H
#define QKV_LANG_LEXER_H

#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tok_kind {
	T_EOF,          /* end of the input (or of an f-string field) */
	T_NEWLINE,      /* '\n' outside brackets */
	T_NAME,
	T_NUMBER,       /* is_int ? ival : num */
	T_STRING,       /* str: the decoded text */
	T_FSTRING,      /* parts: literal pieces and fields */
	T_ERROR,        /* err: message and place */
	T_INCOMPLETE,   /* err: the input ended inside a triple-quoted string or after '\' */
	T_LPAR, T_RPAR, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
	T_COMMA, T_COLON, T_SEMI, T_DOT, T_ASSIGN,
	T_AUGASSIGN,    /* op: the binary operator of +=, -=, ... */
	/* binary operators: op holds the enum tok_op code */
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_DSLASH, T_PERCENT, T_DSTAR, T_AT,
	T_AMP, T_PIPE, T_CARET, T_LSHIFT, T_RSHIFT, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_TILDE,
	T_UNSUPPORTED,  /* -> := ! ...: the parser explains */
	/* keywords */
	T_TRUE, T_FALSE, T_NONE, T_AND, T_OR, T_NOT, T_IN, T_IS,
	T_IMPORT, T_FROM, T_AS, T_PASS, T_LAMBDA,
	T_KEYWORD,      /* any other Python keyword (for, def, lambda, ...): the parser reads its text */
	T_INDENT,       /* a line indented deeper than the one before (len 0, at its first token;
	                   col is CPython's: the number of indentation characters) */
	T_DEDENT,       /* one level of indentation closed (len 0); several in a row for several */
};

/* One piece of an f-string: a literal run or a {field}. */
struct fstr_part {
	bool is_field;
	char *text;             /* literal: decoded text (owned) */
	int line, col;          /* literal: its first character; field: its '{' */
	size_t start, end;      /* field: byte range of the expression in the source */
	char conv;              /* field: 'r', 's' or 0 */
	char *spec;             /* field: format spec after ':' (owned), NULL when absent or empty */
};

struct token {
	enum tok_kind kind;
	int op;                 /* enum tok_op for operators and T_AUGASSIGN */
	size_t start, len;      /* the token's bytes in the source */
	int line, col;          /* its first character (1-based; columns count characters) */
	bool space_before;      /* whitespace, a comment or a line break precedes it */
	bool is_int;
	int64_t ival;
	double num;
	char *str;              /* T_STRING (owned) */
	struct fstr_part *parts;/* T_FSTRING (owned) */
	int nparts;
	struct qkv_error err;   /* T_ERROR, T_INCOMPLETE; last (lexer_next clears what is before it) */
};

#define LEX_MAX_OPEN 128        /* open brackets remembered for messages */
#define LEX_MAX_INDENT 100      /* indentation levels (CPython's MAXINDENT, level 0 included) */

struct lex_open {
	char ch;
	int line, col;
};

/* Plain data: a lexer may be copied to look ahead and thrown away. */
struct lexer {
	const char *src;
	size_t pos, end;
	int line, col;
	int depth;              /* open brackets: newlines inside them are spaces */
	struct lex_open open[LEX_MAX_OPEN];
	bool sub;               /* lexing one f-string field: newlines are spaces, never incomplete */
	/* indentation (off in f-string fields): CPython's tokenizer rules */
	bool atbol;             /* at the beginning of a line: measure its indentation next */
	bool line_has_tokens;   /* a token since the last NEWLINE: the end of input adds a NEWLINE */
	int nindent;            /* levels open above column 0 */
	int indstack[LEX_MAX_INDENT];   /* widths, tabs to multiples of 8 (indstack[0] = 0) */
	int altstack[LEX_MAX_INDENT];   /* widths, tabs as one column (for TabError) */
	int pending;            /* DEDENT tokens still to hand out */
};

/* Starts at src[0] on line first_line, column 1. src must outlive the lexer;
 * it may hold any bytes, NUL included (len is authoritative). Lines outside
 * brackets are measured for indentation; blank and comment-only lines are
 * skipped whole. At the end of the input a NEWLINE (len 0, when the last
 * line had tokens) and a DEDENT per open level come before T_EOF. CPython's
 * indentation errors (unindent mismatch, TabError, too many levels) are
 * T_ERROR tokens at CPython's place; an INDENT where no block may start is
 * the parser's "unexpected indent". */
void lexer_init(struct lexer *lx, const char *src, size_t len, int first_line);

/* A lexer over the f-string field src[start, end) whose first byte is at
 * line:col, so positions point into the original text. */
void lexer_init_sub(struct lexer *lx, const char *src, size_t start, size_t end, int line, int col);

/* Fills *t with the next token (never fails; problems become T_ERROR or
 * T_INCOMPLETE). The caller owns t's strings: release them with token_free.
 * After T_EOF every further call returns T_EOF again. */
void lexer_next(struct lexer *lx, struct token *t);

/* Frees what t owns and leaves it as a T_EOF without text. */
void token_free(struct token *t);

#endif
