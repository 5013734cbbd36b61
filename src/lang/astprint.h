/* astprint.h: an expression's syntax tree back to source text, for labels.
 * The evaluator names the operands of a derivation (core/tensor.h) after the
 * code that produced them: torch.matmul(Q, K.transpose(0, 1)) gives "Q" and
 * "K.transpose(0, 1)", so the cell inspector can say which row and column it
 * multiplies. Pure: never evaluates anything. */
#ifndef QKV_LANG_ASTPRINT_H
#define QKV_LANG_ASTPRINT_H

#include "core/tensor.h"
#include "lang/ast.h"

#include <stddef.h>

/* Writes n as Python source with the fewest parentheses that keep its meaning
 * ("S / 4 ** 0.5", "x.masked_fill(mask == 0, float('-inf'))") into buf of
 * size bytes (at least 8). Text longer than size - 1 bytes is cut at a
 * character boundary and ends with "…". Returns buf. */
char *ast_print(const struct node *n, char *buf, size_t size);

/* An expression whose value a call or an operator used. */
struct ast_operand {
	const struct node *node;   /* the expression */
	const char *suffix;        /* appended to its text (".weight"), or NULL */
	const struct tensor *t;    /* its value when a tensor, else NULL */
};

/* Fills the empty labels of result->from, a derivation just made (no one
 * else holds it yet), from ops[0..n): an operand is named after the
 * expression whose tensor it is a view of (with ".T" appended when it is that
 * tensor transposed), the others after the remaining tensor expressions in
 * order. A scaling names only its tensor. When the result is one of the
 * operands' tensors, only an in-place op's new derivation (no names yet) is
 * named, never one an identity (dropout in eval mode) passed through. */
void ast_label_operands(struct tensor *result, const struct ast_operand *ops, int n);

#endif
