/* ast.c: freeing syntax trees and naming operators.
 * Used by the parser (on errors), the evaluator (after each statement) and
 * tests. node_free walks with an explicit stack, so it never recurses deeply
 * however tall the tree is. */
#include "lang/ast.h"
#include "core/mem.h"

#include <stdlib.h>

/* Frees the strings and arrays a node owns, not its children. */
static void node_free_fields(struct node *n)
{
	int nnames = 0;
	if (n->kwnames) {
		if (n->kind == N_CALL)
			nnames = n->nkids - 1;
		else if (n->kind == N_IMPORT)
			nnames = n->nkids;
		for (int i = 0; i < nnames; i++)
			free(n->kwnames[i]);
	}
	free(n->kwnames);
	free(n->kids);
	free(n->str);
	free(n->values);
	free(n->text);
	free(n->cache);
	free(n);
}

void node_free(struct node *n)
{
	struct node **stack;
	size_t len = 0, cap = 32;
	if (!n)
		return;
	stack = xmalloc(cap * sizeof *stack);
	stack[len++] = n;
	while (len > 0) {
		struct node *m = stack[--len];
		for (int i = 0; i < m->nkids; i++) {
			if (!m->kids[i])
				continue;
			if (len == cap) {
				cap *= 2;
				stack = xrealloc(stack, cap * sizeof *stack);
			}
			stack[len++] = m->kids[i];
		}
		node_free_fields(m);
	}
	free(stack);
}

const struct node_cache *node_cache_get(const struct node *n)
{
	return __atomic_load_n(&n->cache, __ATOMIC_ACQUIRE);
}

void node_cache_set(const struct node *n, const struct value *module, struct value *attr)
{
	struct node_cache *c = xmalloc(sizeof *c), *none = NULL;
	*c = (struct node_cache){ module, attr };
	/* the cache is no part of the tree's meaning: set through a const node */
	if (!__atomic_compare_exchange_n(&((struct node *)n)->cache, &none, c, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		free(c);
}

const char *op_name(int op)
{
	switch (op) {
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_MUL: return "*";
	case OP_DIV: return "/";
	case OP_FLOORDIV: return "//";
	case OP_MOD: return "%";
	case OP_POW: return "**";
	case OP_MATMUL: return "@";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	case OP_AND: return "and";
	case OP_OR: return "or";
	case OP_BITAND: return "&";
	case OP_BITOR: return "|";
	case OP_BITXOR: return "^";
	case OP_LSHIFT: return "<<";
	case OP_RSHIFT: return ">>";
	case OP_IN: return "in";
	case OP_NOTIN: return "not in";
	case OP_IS: return "is";
	case OP_ISNOT: return "is not";
	/* the N_UNARY operators */
	case '-': return "-";
	case '+': return "+";
	case '!': return "not";
	case '~': return "~";
	}
	return "?";
}
