/* ast.h: the syntax tree of the notebook language.
 * The parser (parser.c) builds one tree per statement; the evaluator (eval.c)
 * walks it. Every node records the 1-based line and column of the character
 * an error about it should point at. */
#ifndef QKV_LANG_AST_H
#define QKV_LANG_AST_H

#include <stdbool.h>
#include <stdint.h>

enum node_kind {
	N_NUM,      /* number literal: is_int ? ival : num */
	N_STR,      /* string literal (escapes resolved): str */
	N_FSTR,     /* f-string: kids are N_STR pieces and N_FMT fields, in order */
	N_FMT,      /* f-string field {expr!conv:spec}: kids[0] expr; str = spec or NULL; op = 'r', 's' or 0 */
	N_NAME,     /* identifier: str */
	N_CONST,    /* True, False, None: op = 'T', 'F', 'N' */
	N_LIST,     /* [a, b, ...]: kids */
	N_TUPLE,    /* a, b  or (a, b) or (): kids */
	N_MATRIX,   /* [1 2; 3 4]: rows, cols, values (row-major); rows == 0 for a 1-D literal [1 2 3];
	               is_int when every element was an integer literal */
	N_UNARY,    /* op: '-', '+', '!' (not), '~'; kids[0] */
	N_BINARY,   /* op: a token code from enum tok_op below; kids[0], kids[1] */
	N_ATTR,     /* kids[0].str */
	N_CALL,     /* kids[0] callee; kids[1..] arguments; kwnames[i] names kids[i+1] or is NULL */
	N_INDEX,    /* kids[0][kids[1], kids[2], ...]: each index is an expression, N_SLICE or N_CONST None */
	N_SLICE,    /* kids[0]:kids[1]:kids[2], each may be NULL */
	N_ASSIGN,   /* statement: kids[0] target (N_NAME, N_TUPLE of N_NAME, N_INDEX, N_ATTR), kids[1] value */
	N_AUGASSIGN,/* statement: kids[0] target op= kids[1]; op as in N_BINARY */
	N_IMPORT,   /* statement: import/from ... import: str = module path ("torch.nn.functional"),
	               kids are N_NAME nodes for the imported names (from-import), asname in kwnames */
	N_EXPR,     /* statement: kids[0] is an expression whose value is printed unless None */
	N_PASS,     /* empty statement (a lone ';' or a comment-only line never produces one) */
};

/* binary operator codes (N_BINARY, N_AUGASSIGN) */
enum tok_op {
	OP_ADD = 1, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_MATMUL,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_AND, OP_OR,          /* `and`, `or` (short-circuit) */
	OP_BITAND, OP_BITOR,    /* `&`, `|` (elementwise on bool tensors) */
	OP_IN, OP_NOTIN, OP_IS, OP_ISNOT,
};

struct node {
	enum node_kind kind;
	int line, col;
	int sline, scol;       /* where the expression's text starts (a keyword
	                          argument's value: at its keyword), for carets
	                          under a whole argument */
	int op;
	bool is_int;
	int64_t ival;
	double num;
	char *str;
	int nkids;
	struct node **kids;
	char **kwnames;        /* N_CALL: nkids-1 entries; N_IMPORT: nkids entries (as-names) */
	int rows, cols;        /* N_MATRIX */
	double *values;        /* N_MATRIX */
};

/* Frees n and its whole subtree (NULL is fine); iterative, so any height is safe. */
void node_free(struct node *n);
/* Short human name of an operator for messages: "+", "@", "==", ... (also the
 * N_UNARY ops: '-' "-", '!' "not", ...); "?" for anything else. */
const char *op_name(int op);

#endif
