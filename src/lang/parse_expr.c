/* parse_expr.c: the parser's expressions (see parser.c): literals, strings
 * and f-strings, brackets, displays and comprehensions, calls and
 * subscripts, operators by precedence, lambda and conditional expressions.
 * Nesting is bounded by parse_enter (PARSE_MAX_DEPTH). */
#include "lang/parse_internal.h"
#include "core/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct node *parse_or(struct parser *p);

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
	last = parse_node_new(N_STR, line, col);
	last->str = xstrdup(text);
	parse_node_add(f, last);
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
	f = parse_node_new(N_FMT, part->line, part->col);
	f->op = part->conv;
	f->str = part->spec ? xstrdup(part->spec) : NULL;
	parse_node_add(f, e);
	return f;
}

/* One or more adjacent string literals ("a" "b" f"{c}"), joined as Python does. */
static struct node *parse_strings(struct parser *p)
{
	struct node *f = parse_node_new(N_FSTR, p->tok.line, p->tok.col), *s;
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
			parse_node_add(f, field);
			has_field = true;
		}
		parse_advance(p);
	}
	if (has_field)
		return f;
	s = parse_node_new(N_STR, f->line, f->col);
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

/* [1 2 3; 4 5 6], [1, 2; 3, 4], [1 2 3] (1-D), [1 2 3;] (one row, 2-D); a
 * line break between two elements ends a row as ';' does ([1 2\n3 4]). */
static struct node *parse_matrix(struct parser *p, const struct tok_pos *open)
{
	struct node *n = parse_node_new(N_MATRIX, open->line, open->col);
	size_t total = 0, cap = 0;
	int rows = 0, cols = -1, count = 0, extra_line = 0, extra_col = 0, last_line = open->line;
	bool saw_semi = false, after_separator = true, after_comma = false;
	n->is_int = true;
	parse_advance(p);
	for (;;) {
		enum tok_kind k = p->tok.kind;
		double v;
		bool is_int;
		int line = p->tok.line, col = p->tok.col;
		bool new_row = count > 0 && line > last_line && k != T_SEMI && k != T_RBRACK && k != T_COMMA;
		if (k == T_SEMI || k == T_RBRACK || new_row) {
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
			last_line = line;
			if (!new_row)
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
			last_line = line;
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
		last_line = line;
	}
	n->rows = saw_semi ? rows : 0;
	n->cols = cols;
	parse_advance(p);	/* the ']' */
	return n;
}

/* *x in a display, a target or a call (op '*'), **x in a call (op 'K'). */
struct node *parse_starred(struct parser *p, bool full)
{
	struct node *n = parse_node_new(N_STARRED, p->tok.line, p->tok.col), *e;
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
	parse_node_add(n, e);
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
		struct node *c = parse_node_new(N_COMPFOR, p->tok.line, p->tok.col), *e;
		parse_node_add(comp, c);
		parse_advance(p);
		e = parse_targets(p, true);
		if (!e)
			return false;
		parse_node_add(c, e);
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
			parse_node_add(c, e);
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
	struct node *n = parse_node_new(N_COMP, open->line, open->col);
	n->op = op;
	parse_node_add(n, elem);
	parse_node_add(n, value);
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
	struct tok_pos open = parse_tok_pos(&p->tok);
	struct node *n;
	if (parse_bracket_is_matrix(p))
		return parse_matrix(p, &open);
	n = parse_node_new(N_LIST, open.line, open.col);
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
		parse_node_add(n, e);
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
	struct tok_pos open = parse_tok_pos(&p->tok);
	struct node *n = NULL;
	bool dict = true;
	parse_advance(p);
	if (p->tok.kind == T_RBRACE) {
		parse_advance(p);
		return parse_node_new(N_DICT, open.line, open.col);
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
			n = parse_node_new(dict ? N_DICT : N_SET, open.line, open.col);
		}
		if (dict) {
			if (p->tok.kind != T_COLON) {
				bool starred = k->kind == N_STARRED;
				parse_node_starts(k);
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
		parse_node_add(n, k);
		if (dict)
			parse_node_add(n, v);
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
	struct tok_pos open = parse_tok_pos(&p->tok);
	struct node *first, *n;
	parse_advance(p);
	if (p->tok.kind == T_RPAR) {
		parse_advance(p);
		return parse_node_new(N_TUPLE, open.line, open.col);
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
		n = parse_node_new(N_TUPLE, open.line, open.col);
		parse_node_add(n, first);
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
			parse_node_add(n, e);
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
	struct tok_pos open = parse_tok_pos(&p->tok);
	struct node *n = parse_node_new(N_CALL, open.line, open.col);
	bool seen_keyword = false, seen_kwunpack = false;
	const char *misplaced = NULL;
	int first_line = 0, first_col = 0;
	parse_node_add(n, callee);
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
		parse_node_add_name(&n->kwnames, nargs, kw);
		parse_node_add(n, e);
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
	s = parse_node_new(N_SLICE, line, col);
	parse_node_add(s, lower);
	parse_node_add(s, upper);
	parse_node_add(s, step);
	return s;
fail:
	node_free(lower);
	node_free(upper);
	return NULL;
}

/* obj[i], obj[i, j], obj[a:b, ::2] with obj already parsed. */
static struct node *parse_index(struct parser *p, struct node *obj)
{
	struct tok_pos open = parse_tok_pos(&p->tok);
	struct node *n = parse_node_new(N_INDEX, open.line, open.col);
	parse_node_add(n, obj);
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
		parse_node_add(n, e);
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
	switch (p->tok.kind) {
	case T_NAME:
		n = parse_node_new(N_NAME, p->tok.line, p->tok.col);
		n->str = xstrndup(p->src + p->tok.start, p->tok.len);
		parse_advance(p);
		return n;
	case T_NUMBER:
		n = parse_node_new(N_NUM, p->tok.line, p->tok.col);
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
		n = parse_node_new(N_CONST, p->tok.line, p->tok.col);
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
			a = parse_node_new(N_ATTR, p->tok.line, p->tok.col);
			a->str = xstrndup(p->src + p->tok.start, p->tok.len);
			parse_node_add(a, n);
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
	return parse_node_binary(OP_POW, line, col, base, exp);
}

/* Unary - + ~ */
static struct node *parse_factor(struct parser *p)
{
	struct node *operand;
	int op, line, col;
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
	return parse_node_unary(op, line, col, operand);
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
		left = parse_node_binary(op, line, col, left, right);
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

/* Python's order, tightest first: shifts, &, ^, | */
static struct node *parse_shift(struct parser *p)
{
	static const enum tok_kind k[] = {T_LSHIFT, T_RSHIFT, T_EOF};
	return parse_chain(p, parse_arith, k);
}

static struct node *parse_bitand(struct parser *p)
{
	static const enum tok_kind k[] = {T_AMP, T_EOF};
	return parse_chain(p, parse_shift, k);
}

static struct node *parse_bitxor(struct parser *p)
{
	static const enum tok_kind k[] = {T_CARET, T_EOF};
	return parse_chain(p, parse_bitand, k);
}

struct node *parse_bitor(struct parser *p)
{
	static const enum tok_kind k[] = {T_PIPE, T_EOF};
	return parse_chain(p, parse_bitxor, k);
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
	left = parse_node_binary(op, line, col, left, right);
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
	return parse_node_unary('!', line, col, operand);
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
	struct node *n = parse_node_new(N_LAMBDA, p->tok.line, p->tok.col), *e;
	parse_advance(p);
	e = parse_params(p, T_COLON);
	if (!e) {
		node_free(n);
		return NULL;
	}
	parse_node_add(n, e);
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
	parse_node_add(n, e);
	return n;
}

/* A full expression (a if c else b, lambda, or an or-expression), one
 * level deeper. */
struct node *parse_expr(struct parser *p)
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
		parse_node_starts(n);
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
	ifexp = parse_node_new(N_IFEXP, line, col);
	parse_node_add(ifexp, n);
	parse_node_add(ifexp, cond);
	parse_node_add(ifexp, other);
	return ifexp;
}

/* expr or expr, expr, ... (a bare tuple, as in `K.shape, Q.shape`); elements
 * may be *starred. A lone starred expression is refused unless '=' follows
 * (where the assignment says why). */
struct node *parse_exprlist(struct parser *p)
{
	struct node *first;
	int line, col;
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
	return parse_comma_rest(p, first, line, col, parse_element);
}

struct node *parse_comma_rest(struct parser *p, struct node *first, int line, int col,
			      struct node *(*element)(struct parser *))
{
	struct node *tuple = parse_node_new(N_TUPLE, line, col);
	parse_node_add(tuple, first);
	while (p->tok.kind == T_COMMA) {
		struct node *e;
		parse_advance(p);
		if (!parse_starts_expr(&p->tok) && p->tok.kind != T_STAR)
			break;
		e = element(p);
		if (!e) {
			node_free(tuple);
			return NULL;
		}
		parse_node_add(tuple, e);
	}
	return tuple;
}
