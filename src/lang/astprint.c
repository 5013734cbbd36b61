/* astprint.c: expressions back to source text, and operand labels from them.
 * Called by the evaluator (eval.c) when a call or an operator made a tensor
 * with a derivation; the text only names things for the cell inspector.
 * Never evaluates, never allocates more than its bounded text, never fails. */
#include "lang/astprint.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/strbuf.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than this a subtree prints as "…": a label holds 47 bytes, so the
 * leaves of a long chain a + b + c + ... would never show anyway. */
#define MAX_DEPTH 24

struct printer {
	struct strbuf sb;
	size_t limit;   /* stop once the text is longer than this */
};

/* Binding strength, loosest first, as the parser (parser.c) nests them. */
enum { P_LAMBDA = 1, P_IFEXP, P_OR, P_AND, P_NOT, P_CMP, P_BITOR, P_BITXOR, P_BITAND, P_SHIFT,
       P_ARITH, P_TERM, P_UNARY, P_POW, P_ATOM };

static int binary_prec(int op)
{
	switch (op) {
	case OP_OR: return P_OR;
	case OP_AND: return P_AND;
	case OP_BITOR: return P_BITOR;
	case OP_BITXOR: return P_BITXOR;
	case OP_BITAND: return P_BITAND;
	case OP_LSHIFT: case OP_RSHIFT: return P_SHIFT;
	case OP_ADD: case OP_SUB: return P_ARITH;
	case OP_MUL: case OP_DIV: case OP_FLOORDIV: case OP_MOD: case OP_MATMUL: return P_TERM;
	case OP_POW: return P_POW;
	default: return P_CMP;	/* == != < <= > >= in, not in, is, is not */
	}
}

static int prec(const struct node *n)
{
	if (n->kind == N_BINARY)
		return binary_prec(n->op);
	if (n->kind == N_UNARY)
		return n->op == '!' ? P_NOT : P_UNARY;
	if (n->kind == N_IFEXP)
		return P_IFEXP;
	if (n->kind == N_LAMBDA)
		return P_LAMBDA;
	return P_ATOM;
}

static void print_node(struct printer *p, const struct node *n, int depth);

/* n, in parentheses when it binds looser than min */
static void print_at(struct printer *p, const struct node *n, int min, int depth)
{
	bool paren = prec(n) < min;
	if (paren)
		strbuf_putc(&p->sb, '(');
	print_node(p, n, depth);
	if (paren)
		strbuf_putc(&p->sb, ')');
}

static void print_string(struct printer *p, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	strbuf_putc(&p->sb, q);
	for (; *s && p->sb.len <= p->limit; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '\\' || ch == (unsigned char)q)
			strbuf_printf(&p->sb, "\\%c", ch);
		else if (ch == '\n')
			strbuf_puts(&p->sb, "\\n");
		else if (ch == '\t')
			strbuf_puts(&p->sb, "\\t");
		else if (ch < 0x20 || ch == 0x7f)
			strbuf_printf(&p->sb, "\\x%02x", ch);
		else
			strbuf_putc(&p->sb, (char)ch);
	}
	strbuf_putc(&p->sb, q);
}

/* a matrix element or a float literal */
static void print_number(struct printer *p, double v, bool as_int)
{
	if (as_int && fabs(v) < 1e15 && v == floor(v))
		strbuf_printf(&p->sb, "%.0f", v);
	else
		format_py_float(&p->sb, v);
}

static void print_fstring(struct printer *p, const struct node *n, int depth)
{
	strbuf_puts(&p->sb, "f'");
	for (int i = 0; i < n->nkids && p->sb.len <= p->limit; i++) {
		const struct node *k = n->kids[i];
		if (k->kind == N_STR) {
			for (const char *s = k->str; *s; s++) {
				if (*s == '{' || *s == '}')
					strbuf_putc(&p->sb, *s);
				if (*s == '\'' || *s == '\\')
					strbuf_putc(&p->sb, '\\');
				strbuf_putc(&p->sb, *s == '\n' ? ' ' : *s);
			}
		} else if (k->kind == N_FMT && k->nkids > 0) {
			strbuf_putc(&p->sb, '{');
			print_node(p, k->kids[0], depth + 1);
			if (k->op)
				strbuf_printf(&p->sb, "!%c", k->op);
			if (k->str)
				strbuf_printf(&p->sb, ":%s", k->str);
			strbuf_putc(&p->sb, '}');
		}
	}
	strbuf_putc(&p->sb, '\'');
}

static void print_list(struct printer *p, const struct node *n, int first, int depth)
{
	for (int i = first; i < n->nkids && p->sb.len <= p->limit; i++) {
		if (i > first)
			strbuf_puts(&p->sb, ", ");
		print_node(p, n->kids[i], depth + 1);
	}
}

static void print_slice(struct printer *p, const struct node *n, int depth)
{
	for (int i = 0; i < 3 && i < n->nkids; i++) {
		if (i == 2 && !n->kids[2])
			break;
		if (i > 0)
			strbuf_putc(&p->sb, ':');
		if (n->kids[i])
			print_node(p, n->kids[i], depth + 1);
	}
}

static void print_binary(struct printer *p, const struct node *n, int depth)
{
	int L = binary_prec(n->op), left_min = L, right_min = L + 1;
	if (n->op == OP_POW) {	/* base is a primary, exponent a unary factor */
		left_min = P_ATOM;
		right_min = P_UNARY;
	} else if (L == P_CMP) {	/* comparisons do not chain */
		left_min = P_CMP + 1;
	}
	print_at(p, n->kids[0], left_min, depth + 1);
	strbuf_printf(&p->sb, " %s ", op_name(n->op));
	print_at(p, n->kids[1], right_min, depth + 1);
}

/* A for or with target: a tuple without its parentheses (for k, v in ...). */
static void print_target(struct printer *p, const struct node *t, int depth)
{
	if (t->kind == N_TUPLE && t->nkids > 0)
		print_list(p, t, 0, depth);
	else
		print_at(p, t, P_BITOR, depth + 1);
}

/* lambda's parameters: a, b=1, *args, c, **kw */
static void print_params(struct printer *p, const struct node *params, int depth)
{
	for (int i = 0; i < params->nkids && p->sb.len <= p->limit; i++) {
		const struct node *a = params->kids[i];
		strbuf_puts(&p->sb, i ? ", " : " ");
		strbuf_printf(&p->sb, "%s%s", a->op == '*' ? "*" : a->op == 'K' ? "**" : "", a->str ? a->str : "");
		if (a->nkids > 0 && a->kids[0]) {
			strbuf_putc(&p->sb, '=');
			print_at(p, a->kids[0], P_IFEXP, depth + 1);
		}
	}
}

/* [x for x in y if c], {k: v for ...}, (x for ...) without its brackets. */
static void print_comprehension(struct printer *p, const struct node *n, int depth)
{
	print_at(p, n->kids[0], P_IFEXP, depth + 1);
	if (n->kids[1]) {
		strbuf_puts(&p->sb, ": ");
		print_at(p, n->kids[1], P_IFEXP, depth + 1);
	}
	for (int i = 2; i < n->nkids && p->sb.len <= p->limit; i++) {
		const struct node *c = n->kids[i];
		strbuf_puts(&p->sb, " for ");
		print_target(p, c->kids[0], depth + 1);
		strbuf_puts(&p->sb, " in ");
		print_at(p, c->kids[1], P_OR, depth + 1);
		for (int k = 2; k < c->nkids; k++) {
			strbuf_puts(&p->sb, " if ");
			print_at(p, c->kids[k], P_OR, depth + 1);
		}
	}
}

static void print_node(struct printer *p, const struct node *n, int depth)
{
	if (p->sb.len > p->limit)
		return;
	if (depth > MAX_DEPTH) {
		strbuf_puts(&p->sb, "…");
		return;
	}
	switch (n->kind) {
	case N_NUM:
		if (n->is_int)
			strbuf_printf(&p->sb, "%lld", (long long)n->ival);
		else
			print_number(p, n->num, false);
		break;
	case N_STR:
		print_string(p, n->str ? n->str : "");
		break;
	case N_FSTR:
		print_fstring(p, n, depth);
		break;
	case N_NAME:
		strbuf_puts(&p->sb, n->str);
		break;
	case N_CONST:
		strbuf_puts(&p->sb, n->op == 'T' ? "True" : n->op == 'F' ? "False" : "None");
		break;
	case N_LIST:
		strbuf_putc(&p->sb, '[');
		print_list(p, n, 0, depth);
		strbuf_putc(&p->sb, ']');
		break;
	case N_TUPLE:
		strbuf_putc(&p->sb, '(');
		print_list(p, n, 0, depth);
		strbuf_puts(&p->sb, n->nkids == 1 ? ",)" : ")");
		break;
	case N_MATRIX: {
		int rows = n->rows > 0 ? n->rows : 1;
		strbuf_putc(&p->sb, '[');
		for (int r = 0; r < rows && p->sb.len <= p->limit; r++) {
			if (r > 0)
				strbuf_puts(&p->sb, "; ");
			for (int c = 0; c < n->cols && p->sb.len <= p->limit; c++) {
				if (c > 0)
					strbuf_putc(&p->sb, ' ');
				print_number(p, n->values[(size_t)r * (size_t)n->cols + (size_t)c], true);
			}
		}
		strbuf_putc(&p->sb, ']');
		break;
	}
	case N_UNARY:
		if (n->op == '!') {
			strbuf_puts(&p->sb, "not ");
			print_at(p, n->kids[0], P_NOT, depth + 1);
		} else {
			strbuf_putc(&p->sb, (char)n->op);
			print_at(p, n->kids[0], P_UNARY, depth + 1);
		}
		break;
	case N_BINARY:
		print_binary(p, n, depth);
		break;
	case N_ATTR: {
		const struct node *base = n->kids[0];
		bool paren = prec(base) < P_ATOM || base->kind == N_NUM;	/* (2).real, not 2.real */
		if (paren)
			strbuf_putc(&p->sb, '(');
		print_node(p, base, depth + 1);
		if (paren)
			strbuf_putc(&p->sb, ')');
		strbuf_printf(&p->sb, ".%s", n->str);
		break;
	}
	case N_CALL:
		print_at(p, n->kids[0], P_ATOM, depth + 1);
		strbuf_putc(&p->sb, '(');
		for (int i = 1; i < n->nkids && p->sb.len <= p->limit; i++) {
			if (i > 1)
				strbuf_puts(&p->sb, ", ");
			if (n->kwnames && n->kwnames[i - 1])
				strbuf_printf(&p->sb, "%s=", n->kwnames[i - 1]);
			if (n->nkids == 2 && n->kids[1]->kind == N_COMP && n->kids[1]->op == '(')
				print_comprehension(p, n->kids[1], depth + 1);	/* sum(x for x in y) */
			else
				print_node(p, n->kids[i], depth + 1);
		}
		strbuf_putc(&p->sb, ')');
		break;
	case N_INDEX:
		print_at(p, n->kids[0], P_ATOM, depth + 1);
		strbuf_putc(&p->sb, '[');
		print_list(p, n, 1, depth);
		strbuf_putc(&p->sb, ']');
		break;
	case N_SLICE:
		print_slice(p, n, depth);
		break;
	case N_IFEXP:
		print_at(p, n->kids[0], P_OR, depth + 1);
		strbuf_puts(&p->sb, " if ");
		print_at(p, n->kids[1], P_OR, depth + 1);
		strbuf_puts(&p->sb, " else ");
		print_at(p, n->kids[2], P_IFEXP, depth + 1);
		break;
	case N_LAMBDA:
		strbuf_puts(&p->sb, "lambda");
		print_params(p, n->kids[0], depth);
		strbuf_puts(&p->sb, ": ");
		print_at(p, n->kids[1], P_LAMBDA, depth + 1);
		break;
	case N_DICT:
		strbuf_putc(&p->sb, '{');
		for (int i = 0; i + 1 < n->nkids && p->sb.len <= p->limit; i += 2) {
			if (i > 0)
				strbuf_puts(&p->sb, ", ");
			print_at(p, n->kids[i], P_IFEXP, depth + 1);
			strbuf_puts(&p->sb, ": ");
			print_at(p, n->kids[i + 1], P_IFEXP, depth + 1);
		}
		strbuf_putc(&p->sb, '}');
		break;
	case N_SET:
		strbuf_putc(&p->sb, '{');
		print_list(p, n, 0, depth);
		strbuf_putc(&p->sb, '}');
		break;
	case N_COMP:
		strbuf_putc(&p->sb, n->op == '[' ? '[' : n->op == '(' ? '(' : '{');
		print_comprehension(p, n, depth);
		strbuf_putc(&p->sb, n->op == '[' ? ']' : n->op == '(' ? ')' : '}');
		break;
	case N_STARRED:
		strbuf_puts(&p->sb, n->op == 'K' ? "**" : "*");
		print_at(p, n->kids[0], P_BITOR, depth + 1);
		break;
	default:	/* statements never reach here; say so rather than guess */
		strbuf_puts(&p->sb, "…");
		break;
	}
}

/* Copies s into buf (size bytes), cutting at a UTF-8 character boundary and
 * ending with "…" when it does not fit. */
static void fit(char *buf, size_t size, const char *s)
{
	size_t len = strlen(s);
	if (len < size) {
		memcpy(buf, s, len + 1);
		return;
	}
	size_t cut = size >= 4 ? size - 4 : 0;	/* room for "…" (3 bytes) and the NUL */
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(buf, s, cut);
	memcpy(buf + cut, "…", 4);
}

/* n's text, then suffix; n is put in parentheses when it is an operation
 * and the suffix an attribute */
static char *print_with_suffix(const struct node *n, const char *suffix, char *buf, size_t size)
{
	struct printer p;
	strbuf_init(&p.sb);
	p.limit = size + 8;
	print_at(&p, n, suffix ? P_ATOM : 0, 0);
	if (suffix)
		strbuf_puts(&p.sb, suffix);
	fit(buf, size, p.sb.s);
	strbuf_free(&p.sb);
	return buf;
}

char *ast_print(const struct node *n, char *buf, size_t size)
{
	return print_with_suffix(n, NULL, buf, size);
}

/* ---- labels ----------------------------------------------------------------- */

#define LABEL_SIZE sizeof ((struct derivation *)0)->label_a

/* n's label and text in one block, n->text, made on first use by
 * node_label_make (out of line) and kept (a loop names the same operands
 * every time): first its label as print_with_suffix(n, NULL, buf,
 * LABEL_SIZE) gives it (LABEL_SIZE bytes), then its text as that prints it
 * before fitting. */
static __attribute__((noinline)) const char *node_label_make(const struct node *n)
{
	struct printer p;
	strbuf_init(&p.sb);
	p.limit = LABEL_SIZE + 8;
	print_at(&p, n, 0, 0);
	char *block = xcalloc(1, LABEL_SIZE + p.sb.len + 1);
	fit(block, LABEL_SIZE, p.sb.s);
	memcpy(block + LABEL_SIZE, p.sb.s, p.sb.len + 1);
	strbuf_free(&p.sb);
	((struct node *)n)->text = block;
	return block;
}

static inline const char *node_label_block(const struct node *n)
{
	return n->text ? n->text : node_label_make(n);
}

/* The label print_with_suffix(n, suffix, buf, LABEL_SIZE) gives, from the
 * node's text: printing stops past LABEL_SIZE + 8 bytes either way, and fit
 * keeps fewer than LABEL_SIZE of them, so the two always agree. */
static void label_of(const struct node *n, const char *suffix, char *buf)
{
	const char *block = node_label_block(n);
	if (!suffix) {
		memcpy(buf, block, LABEL_SIZE);
		return;
	}
	const char *text = block + LABEL_SIZE;
	char tmp[2 * LABEL_SIZE + 16];
	size_t len = 0;
	bool paren = prec(n) < P_ATOM;
	const char *part[4] = { paren ? "(" : "", text, paren ? ")" : "", suffix };
	for (int i = 0; i < 4; i++)	/* fit reads no further than LABEL_SIZE bytes: cut the rest */
		for (const char *c = part[i]; *c && len + 1 < sizeof tmp; c++)
			tmp[len++] = *c;
	tmp[len] = 0;
	fit(buf, LABEL_SIZE, tmp);
}

static inline __attribute__((always_inline)) bool same_view(const struct tensor *x, const struct tensor *t)
{
	if (x == t)	/* a derivation holds an operand without a derivation itself */
		return true;
	if (x->storage != t->storage || x->offset != t->offset || x->ndim != t->ndim)
		return false;
	for (int i = 0; i < x->ndim; i++)
		if (x->shape[i] != t->shape[i] || (x->shape[i] > 1 && x->strides[i] != t->strides[i]))
			return false;
	return true;
}

/* x is t with its dims reversed (t.T), and not simply t */
static bool transposed_view(const struct tensor *x, const struct tensor *t)
{
	if (x->storage != t->storage || x->offset != t->offset || x->ndim != t->ndim || x->ndim < 2)
		return false;
	for (int i = 0; i < x->ndim; i++) {
		int j = x->ndim - 1 - i;
		if (x->shape[i] != t->shape[j] || (x->shape[i] > 1 && x->strides[i] != t->strides[j]))
			return false;
	}
	return true;
}

/* Names slot (a derivation's operand, label its name) after the first
 * operand not used yet whose tensor it is a view of, or that tensor
 * transposed (".T" appended); false when none is. Inline in its one caller's
 * three places: a label is made for every product and scaling. */
static inline __attribute__((always_inline)) bool label_view(const struct tensor *slot, char *label,
							     const struct ast_operand *ops, int n, bool *used)
{
	for (int i = 0; i < n; i++) {
		if (used[i] || !ops[i].t)
			continue;
		const char *suffix = ops[i].suffix;
		char both[32];
		if (same_view(slot, ops[i].t)) {
			if (suffix && suffix[0])
				label_of(ops[i].node, suffix, label);
			else	/* the common case: the node's own label */
				memcpy(label, node_label_block(ops[i].node), LABEL_SIZE);
		} else if (transposed_view(slot, ops[i].t)) {
			if (suffix) {
				snprintf(both, sizeof both, "%s.T", suffix);
				suffix = both;
			}
			label_of(ops[i].node, suffix ? suffix : ".T", label);
		} else {
			continue;
		}
		used[i] = true;
		return true;
	}
	return false;
}

void ast_label_operands(struct tensor *result, const struct ast_operand *ops, int n)
{
	struct derivation *d = result->from;
	if (!d || d->refs != 1 || n <= 0)
		return;
	/* the result is an operand's own tensor: an in-place op (x.masked_fill_)
	 * made d just now, unless d already has names (x returned as it was) */
	if (d->label_a[0] || d->label_b[0] || d->label_c[0])
		for (int i = 0; i < n; i++)
			if (ops[i].t == result)
				return;
	bool used_in[8] = { false };
	bool *used = n <= 8 ? used_in : xcalloc((size_t)n, sizeof *used);
	/* first the operands that are views of an argument's tensor (a
	 * scaling's b, c are its product's, named already) */
	bool scale = d->kind == DERIV_SCALE;
	int left = 0;	/* slots still to name */
	if (d->a && !d->label_a[0])
		left += !label_view(d->a, d->label_a, ops, n, used);
	if (!scale && d->b && !d->label_b[0])
		left += !label_view(d->b, d->label_b, ops, n, used);
	if (!scale && d->c && !d->label_c[0])
		left += !label_view(d->c, d->label_c, ops, n, used);
	/* then the rest (converted copies: softmax(x, dtype=...)) in order */
	if (left > 0) {
		struct tensor *slot[3] = { d->a, d->b, d->c };
		char *label[3] = { d->label_a, d->label_b, d->label_c };
		for (int s = 0, i = 0; s < (scale ? 1 : 3); s++) {
			if (!slot[s] || label[s][0])
				continue;
			while (i < n && (used[i] || !ops[i].t))
				i++;
			if (i == n)
				break;
			label_of(ops[i].node, ops[i].suffix, label[s]);
			used[i] = true;
		}
	}
	if (used != used_in)
		free(used);
}
