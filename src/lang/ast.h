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
	N_ASSIGN,   /* statement: kids[0] target (N_NAME, N_TUPLE of N_NAME, N_INDEX, N_ATTR), kids[1] value.
	               Since issue 13 a tuple target may also be an N_LIST and hold any targets,
	               nested, and at most one N_STARRED per level (a, [b, c.d], *e = ...) */
	N_AUGASSIGN,/* statement: kids[0] target op= kids[1]; op as in N_BINARY */
	N_IMPORT,   /* statement: import/from ... import: str = module path ("torch.nn.functional"),
	               kids are N_NAME nodes for the imported names (from-import), asname in kwnames */
	N_EXPR,     /* statement: kids[0] is an expression whose value is printed unless None */
	N_PASS,     /* empty statement (a lone ';' or a comment-only line never produces one) */

	/* ---- blocks and compound statements (issue 13). A kid documented "or
	   NULL" is a NULL slot in kids (node_free skips NULL kids). Every
	   statement inside a block is a full statement node with its own line. */
	N_BLOCK,    /* an indented suite (or the statements after ':' on one line): kids */
	N_IF,       /* kids[0] test, kids[1] N_BLOCK, kids[2] else: N_BLOCK, N_IF (an elif) or NULL */
	N_FOR,      /* for kids[0] in kids[1]: kids[2] N_BLOCK; kids[3] else N_BLOCK or NULL.
	               kids[0] is a target as for N_ASSIGN (N_NAME, N_TUPLE/N_LIST of targets,
	               N_INDEX, N_ATTR) */
	N_WHILE,    /* kids[0] test, kids[1] N_BLOCK, kids[2] else N_BLOCK or NULL */
	N_BREAK, N_CONTINUE,
	N_RETURN,   /* kids[0] value or NULL (a bare return) */
	N_ASSERT,   /* kids[0] test, kids[1] message or NULL */
	N_WITH,     /* with kids[0] as kids[1]: kids[2] N_BLOCK; kids[1] (a target) may be NULL.
	               Several items (with a, b:) nest as N_WITH inside N_WITH's block */
	N_DEL,      /* del kids (each N_NAME, N_INDEX or N_ATTR) */
	N_GLOBAL,   /* global kids (N_NAME) */
	N_NONLOCAL, /* nonlocal kids (N_NAME) */
	N_DEF,      /* def str(kids[0]): kids[1]; kids[0] N_PARAMS, kids[1] N_BLOCK;
	               line/col at 'def', sline/scol at the name */
	N_PARAMS,   /* kids: N_PARAM in source order */
	N_PARAM,    /* str = name; op: 0 plain, '*' *args (str NULL for a bare '*'),
	               'K' **kwargs; is_int: keyword-only (after '*' or *args);
	               kids[0] default value or NULL (nkids 1) */
	N_LAMBDA,   /* lambda kids[0]: kids[1]; kids[0] N_PARAMS, kids[1] an expression */
	N_CLASS,    /* class str(kids[0]): kids[1]; kids[0] N_TUPLE of base expressions
	               (possibly empty), kids[1] N_BLOCK */
	N_DICT,     /* {k: v, ...}: kids alternate key, value (nkids even) */
	N_SET,      /* {a, b}: kids (never empty: {} is an N_DICT) */
	N_COMP,     /* comprehension; op: '[' list, '{' set, 'd' dict, '(' generator;
	               kids[0] element (dict: key), kids[1] dict value or NULL,
	               kids[2..] N_COMPFOR clauses in source order */
	N_COMPFOR,  /* for kids[0] in kids[1] if kids[2] if kids[3] ...: kids[2..] conditions */
	N_IFEXP,    /* kids[0] if kids[1] else kids[2] */
	N_STARRED,  /* *kids[0] (op '*') in a call, a list/tuple display or a target;
	               **kids[0] (op 'K') in a call (its kwnames entry is NULL) */
	N_MAGIC,    /* an IPython magic; str = "time" or "timeit"; op: 'l' line magic
	               (%time stmt: kids[0] the statement), 'c' cell magic (%%time on its
	               own line: kids[0] N_BLOCK of the rest of the input).
	               %timeit [-n N] [-r R] STMT: ival = N (0: IPython's automatic
	               count), rows = R (0: IPython's default of 7); lang/magic.c runs it */
};

/* binary operator codes (N_BINARY, N_AUGASSIGN) */
enum tok_op {
	OP_ADD = 1, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_MATMUL,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_AND, OP_OR,          /* `and`, `or` (short-circuit) */
	OP_BITAND, OP_BITOR, OP_BITXOR, /* `&`, `|`, `^` (elementwise on bool and integer tensors) */
	OP_LSHIFT, OP_RSHIFT,   /* `<<`, `>>` (Python ints and bools) */
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
	char *text;            /* an expression's text as its labels print it (astprint.c), made
	                          on first use, or NULL */
	struct node_cache *cache; /* N_ATTR, N_NAME: what a first lookup found (node_cache_set), or NULL */
};

/* An attribute of a module (torch.softmax) and a built-in name (torch,
 * print) are immortal values that every interpreter and thread shares: the
 * N_ATTR node keeps the first module it was looked up on and the answer
 * (eval.c), the N_NAME node the built-in value its name means when the
 * workspace does not define it (scope.c, module NULL). */
struct value;
struct node_cache {
	const struct value *module;
	struct value *attr;
};

/* n's cache, or NULL (read with acquire: a cache is published whole). */
const struct node_cache *node_cache_get(const struct node *n);
/* Publishes module and attr as n's cache unless it has one (a thread that
 * lost the race keeps the first). */
void node_cache_set(const struct node *n, const struct value *module, struct value *attr);

/* Frees n and its whole subtree (NULL is fine); iterative, so any height is safe. */
void node_free(struct node *n);
/* Short human name of an operator for messages: "+", "@", "==", ... (also the
 * N_UNARY ops: '-' "-", '!' "not", ...); "?" for anything else. */
const char *op_name(int op);

#endif
