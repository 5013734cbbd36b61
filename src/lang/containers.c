/* containers.c: Python's lists, tuples, dicts, sets, ranges and strings:
 * iteration (for loops, comprehensions, the builtins that take iterables),
 * indexing and slicing, `in`, and their methods (append, items, join, ...).
 * Every change to a list, dict or set is logged first (interp_will_change)
 * so a failing statement leaves it as it was. Never prints. */
#include "lang/args.h"
#include "lang/runtime.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* ---- iteration ------------------------------------------------------------------ */

static struct value *make_iter(enum iter_kind kind, struct value *src, int64_t n)
{
	struct value *v = value_seq(V_ITER, 0);
	v->it = xcalloc(1, sizeof *v->it);
	v->it->kind = kind;
	v->it->src = value_ref(src);
	v->it->n = n;
	v->it->step = 1;
	return v;
}

struct value *runtime_iter(struct interp *I, struct value *v, struct qkv_error *err)
{
	(void)I;
	switch (v->kind) {
	case V_LIST: case V_TUPLE: case V_SIZE:
		return make_iter(IT_SEQ, v, -1);
	case V_SET:	/* n: its size, which must not change while it is iterated */
		return make_iter(IT_SEQ, v, v->n);
	case V_STR:
		return make_iter(IT_STR, v, (int64_t)strlen(v->str));
	case V_RANGE:
		return make_iter(IT_RANGE, v, value_range_len(v));
	case V_DICT:
		return make_iter(IT_DICT_KEYS, v, v->n);
	case V_TENSOR:
		if (v->t->ndim == 0)
			return error_set(err, 0, 0, "TypeError: iteration over a 0-d tensor"), NULL;
		return make_iter(IT_TENSOR, v, v->t->shape[0]);
	case V_ITER:
		if (v->it->view) {	/* a dict view starts over each time */
			struct value *c = make_iter(v->it->kind, v->it->src, v->it->src->n);
			return c;
		}
		return value_ref(v);
	case V_INSTANCE:
		if (v->inst->modules && v->inst->cls->cls->builtin != CLS_USER)
			return make_iter(IT_DICT_VALUES, v->inst->modules, v->inst->modules->n);
		break;
	default:
		break;
	}
	return error_set(err, 0, 0, "TypeError: '%s' object is not iterable", value_type_name(v)), NULL;
}

int runtime_next(struct interp *I, struct value *itv, struct value **out, struct qkv_error *err)
{
	struct iter *it = itv->it;
	struct value *src = it->src;
	switch (it->kind) {
	case IT_SEQ:
		if (src->kind == V_SET && it->n >= 0 && src->n != it->n)
			return error_set(err, 0, 0, "RuntimeError: Set changed size during iteration");
		if (it->i >= src->n)
			return 0;
		if (it->i == 0)
			value_set_order(src);	/* a set's items in CPython's order, after any adds */
		*out = value_ref(src->items[it->i++]);
		return 1;
	case IT_STR: {
		if (it->i >= it->n)
			return 0;
		const char *s = src->str + it->i;
		uint32_t cp;
		int len = utf8_decode(s, (size_t)(it->n - it->i), &cp);
		*out = value_str_take(xstrndup(s, (size_t)len));
		it->i += len;
		return 1;
	}
	case IT_RANGE:
		if (it->i >= it->n)
			return 0;
		*out = value_int(src->i + it->i++ * src->step);
		return 1;
	case IT_TENSOR: {
		if (it->i >= it->n || it->i >= src->t->shape[0])
			return 0;
		struct tensor *t = ops_select(src->t, 0, it->i++, err);
		if (!t)
			return -1;
		*out = value_from_result(t);
		return 1;
	}
	case IT_DICT_KEYS: case IT_DICT_VALUES: case IT_DICT_ITEMS:
		if (it->n >= 0 && src->n != it->n)	/* n: the size it had when the iteration began */
			return error_set(err, 0, 0, "RuntimeError: dictionary changed size during iteration");
		if (it->i >= src->n)
			return 0;
		if (it->kind == IT_DICT_ITEMS) {
			struct value *t = value_seq(V_TUPLE, 2);
			t->items[0] = value_ref(src->keys[it->i]);
			t->items[1] = value_ref(src->items[it->i]);
			*out = t;
		} else {
			*out = value_ref(it->kind == IT_DICT_KEYS ? src->keys[it->i] : src->items[it->i]);
		}
		it->i++;
		return 1;
	case IT_ENUMERATE: {
		struct value *x;
		int rc = runtime_next(I, it->sub[0], &x, err);
		if (rc <= 0)
			return rc;
		struct value *t = value_seq(V_TUPLE, 2);
		t->items[0] = value_int(it->i++);
		t->items[1] = x;
		*out = t;
		return 1;
	}
	case IT_ZIP: case IT_MAP: {
		struct value *t = value_seq(V_TUPLE, it->nsub);
		for (int k = 0; k < it->nsub; k++) {
			int rc = runtime_next(I, it->sub[k], &t->items[k], err);
			if (rc <= 0) {
				t->n = k;
				value_unref(t);
				return rc;
			}
		}
		if (it->kind == IT_ZIP) {
			*out = t;
			return 1;
		}
		*out = runtime_call_values(I, I->frame ? I->frame->call : NULL, src, t->n, t->items, err);
		value_unref(t);
		return *out ? 1 : -1;
	}
	case IT_FILTER:
		for (;;) {
			struct value *x;
			int rc = runtime_next(I, it->sub[0], &x, err);
			if (rc <= 0)
				return rc;
			int keep;
			if (src->kind == V_NONE) {
				keep = value_truth(x, err);
			} else {
				struct value *r = runtime_call_values(I, I->frame ? I->frame->call : NULL, src, 1, &x, err);
				keep = r ? value_truth(r, err) : -1;
				value_unref(r);
			}
			if (keep < 0) {
				value_unref(x);
				return -1;
			}
			if (keep) {
				*out = x;
				return 1;
			}
			value_unref(x);
		}
	}
	return 0;
}

struct value *runtime_to_list(struct interp *I, struct value *v, struct qkv_error *err)
{
	struct value *it = runtime_iter(I, v, err);
	if (!it)
		return NULL;
	struct value *l = value_seq(V_LIST, 0), *x;
	int rc;
	while ((rc = runtime_next(I, it, &x, err)) == 1) {
		if (value_check_items(V_LIST, (int64_t)l->n + 1, err) < 0) {
			value_unref(x);
			rc = -1;
			break;
		}
		if ((l->n & 1023) == 1023 && interp_check_interrupt(I, NULL, err) < 0) {
			value_unref(x);
			rc = -1;
			break;
		}
		value_list_push(l, x);
	}
	value_unref(it);
	if (rc < 0) {
		value_unref(l);
		return NULL;
	}
	return l;
}

/* enumerate, zip, map, filter: a lazy iterator over iterators of srcs. */
struct value *runtime_iter_of(struct interp *I, enum iter_kind kind, struct value *fn, int n, struct value **srcs,
			      int64_t start, struct qkv_error *err)
{
	struct value *v = make_iter(kind, fn ? fn : NULL, 0);
	v->it->i = start;
	v->it->sub = xcalloc((size_t)(n ? n : 1), sizeof *v->it->sub);
	for (int k = 0; k < n; k++) {
		v->it->sub[k] = runtime_iter(I, srcs[k], err);
		if (!v->it->sub[k]) {
			v->it->nsub = k;
			value_unref(v);
			return NULL;
		}
		v->it->nsub = k + 1;
	}
	return v;
}

/* ---- membership, indexing ----------------------------------------------------------- */

int container_contains(struct interp *I, struct value *seq, struct value *x, struct qkv_error *err)
{
	switch (seq->kind) {
	case V_SET:
		return value_set_has(seq, x);
	case V_LIST: case V_TUPLE: case V_SIZE:
		for (int i = 0; i < seq->n; i++)
			if (value_equal(x, seq->items[i]))
				return 1;
		return 0;
	case V_DICT:
		return value_dict_find(seq, x) >= 0;
	case V_STR:
		if (x->kind != V_STR)
			return error_set(err, 0, 0, "TypeError: 'in <string>' requires string as left operand, not %s",
					 value_type_name(x));
		return strstr(seq->str, x->str) != NULL;
	case V_RANGE: {
		if (x->kind != V_INT && x->kind != V_BOOL)
			return 0;
		int64_t k = x->kind == V_INT ? x->i : x->b;
		int64_t len = value_range_len(seq);
		if (len == 0)
			return 0;
		__int128 off = (__int128)k - seq->i;
		if (off % seq->step != 0)
			return 0;
		__int128 idx = off / seq->step;
		return idx >= 0 && idx < len;
	}
	case V_TENSOR: {	/* torch and numpy: (seq == x).any() */
		double want;
		if (value_is_number(x))
			want = value_as_double(x);
		else if (x->kind == V_TENSOR && x->t->ndim == 0)
			want = tensor_get(x->t, 0);
		else
			return error_set(err, 0, 0, "qkv looks for a number in a tensor, not %s", value_type_name(x));
		int64_t n = tensor_numel(seq->t);
		for (int64_t k = 0; k < n; k++)
			if (tensor_get(seq->t, k) == want)
				return 1;
		return 0;
	}
	case V_ITER: {
		struct value *it = runtime_iter(I, seq, err), *y;
		int rc, found = 0;
		while (!found && (rc = runtime_next(I, it, &y, err)) == 1) {
			found = value_equal(x, y);
			value_unref(y);
		}
		value_unref(it);
		return rc < 0 && !found ? -1 : found;
	}
	default:
		return error_set(err, 0, 0, "TypeError: argument of type '%s' is not iterable", value_type_name(seq));
	}
}

static int seq_len(const struct value *v)
{
	return v->kind == V_STR ? (int)utf8_count(v->str) : v->n;
}

/* A normalised index into a sequence of length len, or -1 with err. */
static int norm_index(const struct value *base, const struct value *key, int64_t len, int64_t *out,
		      struct qkv_error *err)
{
	int64_t k;
	if (value_to_int(key, &k, "an index", err) < 0)
		return error_set(err, 0, 0, "TypeError: %s indices must be integers or slices, not %s",
				 value_type_name(base), value_type_name(key));
	if (k < -len || k >= len)
		return error_set(err, 0, 0, "IndexError: %s index out of range", base->kind == V_STR ? "string" :
				 base->kind == V_RANGE ? "range object" : value_type_name(base));
	*out = k < 0 ? k + len : k;
	return 0;
}

struct value *container_index(struct interp *I, struct value *base, struct value *key, struct qkv_error *err)
{
	int64_t k;
	switch (base->kind) {
	case V_LIST: case V_TUPLE: case V_SIZE:
		if (norm_index(base, key, base->n, &k, err) < 0)
			return NULL;
		return value_ref(base->items[k]);
	case V_STR: {
		/* characters (UTF-8 sequences), not bytes */
		if (norm_index(base, key, (int64_t)utf8_count(base->str), &k, err) < 0)
			return NULL;
		const char *p = base->str + utf8_offset(base->str, (size_t)k);
		uint32_t cp;
		int len = utf8_decode(p, strlen(p), &cp);
		return value_str_take(xstrndup(p, (size_t)len));
	}
	case V_RANGE:
		if (norm_index(base, key, value_range_len(base), &k, err) < 0)
			return NULL;
		return value_int(base->i + k * base->step);
	case V_DICT: {
		int i = value_dict_find(base, key);
		if (i < 0) {
			if (value_check_hashable(key, err) < 0)
				return NULL;
			struct strbuf sb;
			strbuf_init(&sb);
			value_repr(&sb, key);
			error_set(err, 0, 0, "KeyError: %s", sb.s);
			strbuf_free(&sb);
			return NULL;
		}
		return value_ref(base->items[i]);
	}
	case V_INSTANCE: {
		if (base->inst->modules && base->inst->cls->cls->builtin != CLS_USER) {
			struct value *m = base->inst->modules;
			if (norm_index(base, key, m->n, &k, err) < 0)
				return NULL;
			return value_ref(m->items[k]);
		}
		struct value *r;
		int rc = class_call_dunder(I, I->frame ? I->frame->call : NULL, base, "__getitem__", 1, &key, &r, err);
		if (rc != 0)
			return rc > 0 ? r : NULL;
		break;
	}
	default:
		break;
	}
	return error_set(err, 0, 0, "TypeError: '%s' object is not subscriptable", value_type_name(base)), NULL;
}

/* Python's slice.indices: start, stop, step clipped to a length. */
static int64_t slice_indices(int64_t len, bool hs, int64_t s, bool he, int64_t e, int64_t st, int64_t *start)
{
	if (st > 0) {
		if (!hs) s = 0;
		else if (s < 0) s = s + len < 0 ? 0 : s + len;
		else if (s > len) s = len;
		if (!he) e = len;
		else if (e < 0) e = e + len < 0 ? 0 : e + len;
		else if (e > len) e = len;
		*start = s;
		return e > s ? (e - s + st - 1) / st : 0;
	}
	if (!hs) s = len - 1;
	else if (s < 0) s = s + len < 0 ? -1 : s + len;
	else if (s >= len) s = len - 1;
	if (!he) e = -1;
	else if (e < 0) e = e + len < 0 ? -1 : e + len;
	else if (e >= len) e = len - 1;
	*start = s;
	return s > e ? (s - e - st - 1) / -st : 0;
}

/* n characters of s from character start, step st apart (by character, not byte). */
static struct value *str_slice(const char *s, int64_t start, int64_t n, int64_t st)
{
	size_t count = utf8_count(s);
	size_t *offs = xmalloc((count + 1) * sizeof *offs);
	utf8_offsets(s, offs, count);
	struct strbuf sb;
	strbuf_init(&sb);
	for (int64_t i = 0; i < n; i++) {
		size_t c = (size_t)(start + i * st);
		strbuf_putn(&sb, s + offs[c], offs[c + 1] - offs[c]);
	}
	free(offs);
	return value_str_take(strbuf_detach(&sb));
}

struct value *container_slice(struct interp *I, struct value *base, bool hs, int64_t s, bool he, int64_t e,
			      bool hst, int64_t st, struct qkv_error *err)
{
	(void)I;
	if (!hst)
		st = 1;
	if (st == 0)
		return error_set(err, 0, 0, "ValueError: slice step cannot be zero"), NULL;
	if (base->kind == V_RANGE) {
		int64_t start, n = slice_indices(value_range_len(base), hs, s, he, e, st, &start);
		int64_t first = base->i + start * base->step;
		return value_range(first, first + n * base->step * st, base->step * st);
	}
	if (base->kind != V_LIST && base->kind != V_TUPLE && base->kind != V_SIZE && base->kind != V_STR)
		return error_set(err, 0, 0, "TypeError: '%s' object is not subscriptable", value_type_name(base)), NULL;
	int64_t start, n = slice_indices(seq_len(base), hs, s, he, e, st, &start);
	if (base->kind == V_STR)
		return str_slice(base->str, start, n, st);
	struct value *r = value_seq(base->kind, (int)n);
	for (int64_t i = 0; i < n; i++)
		r->items[i] = value_ref(base->items[start + i * st]);
	return r;
}

int container_set_item(struct interp *I, struct value *base, struct value *key, struct value *v, struct qkv_error *err)
{
	if (base->kind == V_LIST) {
		int64_t k;
		if (norm_index(base, key, base->n, &k, err) < 0) {
			if (strncmp(err->msg, "IndexError", 10) == 0)
				error_set(err, 0, 0, "IndexError: list assignment index out of range");
			return -1;
		}
		interp_will_change(I, base);
		value_unref(base->items[k]);
		base->items[k] = value_ref(v);
		return 0;
	}
	if (base->kind == V_DICT) {
		if (value_check_hashable(key, err) < 0 ||
		    (value_dict_find(base, key) < 0 && value_check_items(V_DICT, (int64_t)base->n + 1, err) < 0))
			return -1;
		interp_will_change(I, base);
		value_dict_set(base, key, value_ref(v));
		return 0;
	}
	return error_set(err, 0, 0, "TypeError: '%s' object does not support item assignment", value_type_name(base));
}

int container_set_slice(struct interp *I, struct value *base, bool hs, int64_t s, bool he, int64_t e,
			struct value *v, struct qkv_error *err)
{
	if (base->kind != V_LIST)
		return error_set(err, 0, 0, "TypeError: '%s' object does not support slice assignment",
				 value_type_name(base));
	struct value *items = runtime_to_list(I, v, err);
	if (!items)
		return error_set(err, 0, 0, "TypeError: can only assign an iterable");
	int64_t start, n = slice_indices(base->n, hs, s, he, e, 1, &start);
	if (value_check_items(V_LIST, base->n - n + items->n, err) < 0) {
		value_unref(items);
		return -1;
	}
	interp_will_change(I, base);
	int newn = base->n - (int)n + items->n;
	struct value **out = xcalloc((size_t)(newn ? newn : 1), sizeof *out);
	int k = 0;
	for (int64_t i = 0; i < start; i++)
		out[k++] = base->items[i];
	for (int i = 0; i < items->n; i++)
		out[k++] = value_ref(items->items[i]);
	for (int64_t i = start; i < start + n; i++)
		value_unref(base->items[i]);
	for (int64_t i = start + n; i < base->n; i++)
		out[k++] = base->items[i];
	free(base->items);
	base->items = out;
	base->n = newn;
	base->cap = newn ? newn : 1;
	value_unref(items);
	return 0;
}

int container_del_item(struct interp *I, struct value *base, struct value *key, struct qkv_error *err)
{
	if (base->kind == V_LIST) {
		int64_t k;
		if (norm_index(base, key, base->n, &k, err) < 0) {
			if (strncmp(err->msg, "IndexError", 10) == 0)
				error_set(err, 0, 0, "IndexError: list assignment index out of range");
			return -1;
		}
		interp_will_change(I, base);
		value_unref(base->items[k]);
		memmove(base->items + k, base->items + k + 1, sizeof *base->items * (size_t)(base->n - k - 1));
		base->n--;
		return 0;
	}
	if (base->kind == V_DICT) {
		int i = value_dict_find(base, key);
		if (i < 0) {
			struct strbuf sb;
			strbuf_init(&sb);
			value_repr(&sb, key);
			error_set(err, 0, 0, "KeyError: %s", sb.s);
			strbuf_free(&sb);
			return -1;
		}
		interp_will_change(I, base);
		value_dict_remove(base, i);
		return 0;
	}
	return error_set(err, 0, 0, "TypeError: '%s' object does not support item deletion", value_type_name(base));
}

/* ---- methods -------------------------------------------------------------------------- */

static struct value *SELF(struct call *c)
{
	return c->self;
}

static int no_args(struct call *c, struct qkv_error *err)
{
	if (c->nargs || c->nkw)
		return error_set(err, c->node->line, c->node->col, "TypeError: %s() takes no arguments", c->name);
	return 0;
}

/* list methods */
static struct value *l_append(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("object"), 1, &a, err) < 0)
		return NULL;
	if (value_check_items(V_LIST, (int64_t)SELF(c)->n + 1, err) < 0)
		return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
	interp_will_change(c->I, SELF(c));
	value_list_push(SELF(c), value_ref(a.v[0]));
	return args_return(&a, value_none());
}

static struct value *l_extend(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterable"), 1, &a, err) < 0)
		return NULL;
	struct value *items = runtime_to_list(c->I, a.v[0], err);
	if (!items)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	if (value_check_items(V_LIST, (int64_t)SELF(c)->n + items->n, err) < 0) {
		value_unref(items);
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	}
	interp_will_change(c->I, SELF(c));
	for (int i = 0; i < items->n; i++)
		value_list_push(SELF(c), value_ref(items->items[i]));
	value_unref(items);
	return args_return(&a, value_none());
}

static struct value *l_insert(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("index", "object"), 2, &a, err) < 0)
		return NULL;
	int64_t k;
	if (args_int(c, &a, 0, 0, &k, err) < 0)
		return args_fail(&a);
	struct value *l = SELF(c);
	if (value_check_items(V_LIST, (int64_t)l->n + 1, err) < 0)
		return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
	if (k < 0)
		k = k + l->n < 0 ? 0 : k + l->n;
	if (k > l->n)
		k = l->n;
	interp_will_change(c->I, l);
	value_list_push(l, NULL);
	memmove(l->items + k + 1, l->items + k, sizeof *l->items * (size_t)(l->n - 1 - k));
	l->items[k] = value_ref(a.v[1]);
	return args_return(&a, value_none());
}

static struct value *l_pop(struct call *c, struct qkv_error *err)
{
	struct value *l = SELF(c);
	if (l->kind == V_DICT) {
		struct args a;
		if (args_bind(c, P("key", "default"), 1, &a, err) < 0)
			return NULL;
		int i = value_dict_find(l, a.v[0]);
		if (i < 0) {
			if (a.v[1])
				return args_return(&a, value_ref(a.v[1]));
			struct strbuf sb;
			strbuf_init(&sb);
			value_repr(&sb, a.v[0]);
			args_error(err, c, &a, 0, "KeyError: %s", sb.s);
			strbuf_free(&sb);
			return args_fail(&a);
		}
		interp_will_change(c->I, l);
		struct value *v = value_ref(l->items[i]);
		value_dict_remove(l, i);
		return args_return(&a, v);
	}
	struct args a;
	if (args_bind(c, P("index"), 0, &a, err) < 0)
		return NULL;
	int64_t k;
	if (args_int(c, &a, 0, -1, &k, err) < 0)
		return args_fail(&a);
	if (l->n == 0)
		return args_error(err, c, &a, -1, "IndexError: pop from empty list"), args_fail(&a);
	if (k < -l->n || k >= l->n)
		return args_error(err, c, &a, 0, "IndexError: pop index out of range"), args_fail(&a);
	if (k < 0)
		k += l->n;
	interp_will_change(c->I, l);
	struct value *v = l->items[k];
	memmove(l->items + k, l->items + k + 1, sizeof *l->items * (size_t)(l->n - k - 1));
	l->n--;
	return args_return(&a, v);
}

static struct value *l_remove(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("value"), 1, &a, err) < 0)
		return NULL;
	struct value *l = SELF(c);
	int i = l->kind == V_SET && value_set_has(l, a.v[0]) ? 0 : -1;
	for (int k = 0; l->kind != V_SET && i < 0 && k < l->n; k++)
		if (value_equal(l->items[k], a.v[0]))
			i = k;
	if (i >= 0) {
		interp_will_change(c->I, l);
		if (l->kind == V_SET) {
			value_set_discard(l, a.v[0]);	/* a dummy in its slot, as CPython's */
			return args_return(&a, value_none());
		}
		value_unref(l->items[i]);
		memmove(l->items + i, l->items + i + 1, sizeof *l->items * (size_t)(l->n - i - 1));
		l->n--;
		return args_return(&a, value_none());
	}
	if (l->kind == V_SET) {
		struct strbuf sb;
		strbuf_init(&sb);
		value_repr(&sb, a.v[0]);
		args_error(err, c, &a, 0, "KeyError: %s", sb.s);
		strbuf_free(&sb);
		return args_fail(&a);
	}
	return args_error(err, c, &a, 0, "ValueError: list.remove(x): x not in list"), args_fail(&a);
}

static struct value *l_index(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("value"), 1, &a, err) < 0)
		return NULL;
	struct value *l = SELF(c);
	if (l->kind == V_STR) {
		if (a.v[0]->kind != V_STR)
			return args_error(err, c, &a, 0, "TypeError: must be str, not %s", value_type_name(a.v[0])),
			       args_fail(&a);
		const char *p = strstr(l->str, a.v[0]->str);
		if (!p)
			return args_error(err, c, &a, 0, "ValueError: substring not found"), args_fail(&a);
		return args_return(&a, value_int((int64_t)utf8_count_n(l->str, (size_t)(p - l->str))));
	}
	for (int i = 0; i < l->n; i++)
		if (value_equal(l->items[i], a.v[0]))
			return args_return(&a, value_int(i));
	struct strbuf sb;
	strbuf_init(&sb);
	value_repr(&sb, a.v[0]);
	args_error(err, c, &a, 0, "ValueError: %s is not in %s", sb.s, value_type_name(l));
	strbuf_free(&sb);
	return args_fail(&a);
}

static struct value *l_count(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("value"), 1, &a, err) < 0)
		return NULL;
	struct value *l = SELF(c);
	int64_t n = 0;
	if (l->kind == V_STR) {
		if (a.v[0]->kind != V_STR)
			return args_error(err, c, &a, 0, "TypeError: must be str"), args_fail(&a);
		size_t len = strlen(a.v[0]->str);
		for (const char *p = l->str; len && (p = strstr(p, a.v[0]->str)); p += len)
			n++;
		if (!len)
			n = (int64_t)utf8_count(l->str) + 1;
		return args_return(&a, value_int(n));
	}
	for (int i = 0; i < l->n; i++)
		n += value_equal(l->items[i], a.v[0]);
	return args_return(&a, value_int(n));
}

static struct value *l_reverse(struct call *c, struct qkv_error *err)
{
	if (no_args(c, err) < 0)
		return NULL;
	struct value *l = SELF(c);
	interp_will_change(c->I, l);
	for (int i = 0, j = l->n - 1; i < j; i++, j--) {
		struct value *t = l->items[i];
		l->items[i] = l->items[j];
		l->items[j] = t;
	}
	return value_none();
}

static struct value *l_clear(struct call *c, struct qkv_error *err)
{
	if (no_args(c, err) < 0)
		return NULL;
	struct value *l = SELF(c);
	interp_will_change(c->I, l);
	if (l->kind == V_SET) {
		value_set_clear(l);
		return value_none();
	}
	while (l->n > 0) {
		if (l->kind == V_DICT)
			value_dict_remove(l, l->n - 1);
		else
			value_unref(l->items[--l->n]);
	}
	value_index_drop(l);
	return value_none();
}

static struct value *l_copy(struct call *c, struct qkv_error *err)
{
	if (no_args(c, err) < 0)
		return NULL;
	struct value *l = SELF(c);
	if (l->kind == V_DICT) {
		struct value *d = value_dict();
		for (int i = 0; i < l->n; i++)
			value_dict_set(d, l->keys[i], value_ref(l->items[i]));
		return d;
	}
	if (l->kind == V_SET)
		return value_set_copy(l);
	struct value *r = value_seq(V_LIST, 0);
	for (int i = 0; i < l->n; i++)
		value_list_push(r, value_ref(l->items[i]));
	return r;
}

/* sorted() and list.sort(): a stable merge sort on keys, as Python's. */
int runtime_sort(struct interp *I, const struct node *at, struct value **items, int n, struct value *key,
		 bool reverse, struct qkv_error *err)
{
	struct value **keys = xcalloc((size_t)(n ? n : 1), sizeof *keys);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		if (key && key->kind != V_NONE) {
			keys[i] = runtime_call_values(I, at, key, 1, &items[i], err);
			if (!keys[i])
				rc = -1;
		} else {
			keys[i] = value_ref(items[i]);
		}
	}
	/* bottom-up merge sort of indices */
	int *idx = xmalloc(sizeof *idx * (size_t)(n ? n : 1)), *tmp = xmalloc(sizeof *tmp * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (int width = 1; rc == 0 && width < n; width *= 2) {
		for (int lo = 0; lo < n && rc == 0; lo += 2 * width) {
			int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
			int i = lo, j = mid, k = lo;
			while (i < mid && j < hi) {
				int cmp;
				if (runtime_compare(keys[idx[j]], keys[idx[i]], &cmp, err) < 0) {
					rc = -1;
					break;
				}
				/* reverse keeps stability: take the right one only when strictly greater */
				bool take_right = reverse ? cmp > 0 : cmp < 0;
				tmp[k++] = take_right ? idx[j++] : idx[i++];
			}
			if (rc < 0)
				break;
			while (i < mid)
				tmp[k++] = idx[i++];
			while (j < hi)
				tmp[k++] = idx[j++];
			memcpy(idx + lo, tmp + lo, sizeof *idx * (size_t)(hi - lo));
		}
	}
	if (rc == 0) {
		struct value **sorted = xmalloc(sizeof *sorted * (size_t)(n ? n : 1));
		for (int i = 0; i < n; i++)
			sorted[i] = items[idx[i]];
		memcpy(items, sorted, sizeof *items * (size_t)n);
		free(sorted);
	}
	for (int i = 0; i < n; i++)
		value_unref(keys[i]);
	free(keys);
	free(idx);
	free(tmp);
	return rc;
}

static struct value *l_sort(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("key", "reverse"), 0, &a, err) < 0)
		return NULL;
	if (c->nargs)
		return args_error(err, c, &a, 0, "TypeError: sort() takes no positional arguments"), args_fail(&a);
	bool rev;
	if (args_bool(c, &a, 1, false, &rev, err) < 0)
		return args_fail(&a);
	struct value *l = SELF(c);
	interp_will_change(c->I, l);
	if (runtime_sort(c->I, c->node, l->items, l->n, a.v[0], rev, err) < 0)
		return args_fail(&a);
	return args_return(&a, value_none());
}

/* dict methods */
static struct value *view(struct call *c, enum iter_kind kind, struct qkv_error *err)
{
	if (no_args(c, err) < 0)
		return NULL;
	struct value *v = make_iter(kind, SELF(c), -1);
	v->it->view = true;
	return v;
}

static struct value *d_keys(struct call *c, struct qkv_error *err) { return view(c, IT_DICT_KEYS, err); }
static struct value *d_values(struct call *c, struct qkv_error *err) { return view(c, IT_DICT_VALUES, err); }
static struct value *d_items(struct call *c, struct qkv_error *err) { return view(c, IT_DICT_ITEMS, err); }

static struct value *d_get(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("key", "default"), 1, &a, err) < 0)
		return NULL;
	int i = value_dict_find(SELF(c), a.v[0]);
	return args_return(&a, i >= 0 ? value_ref(SELF(c)->items[i]) : a.v[1] ? value_ref(a.v[1]) : value_none());
}

static struct value *d_setdefault(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("key", "default"), 1, &a, err) < 0)
		return NULL;
	int i = value_dict_find(SELF(c), a.v[0]);
	if (i >= 0)
		return args_return(&a, value_ref(SELF(c)->items[i]));
	if (value_check_hashable(a.v[0], err) < 0)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	struct value *d = a.v[1] ? value_ref(a.v[1]) : value_none();
	interp_will_change(c->I, SELF(c));
	value_dict_set(SELF(c), a.v[0], value_ref(d));
	return args_return(&a, d);
}

static struct value *d_update(struct call *c, struct qkv_error *err)
{
	struct value *d = SELF(c);
	if (c->nargs > 1)
		return error_set(err, c->node->line, c->node->col, "TypeError: update expected at most 1 argument"), NULL;
	interp_will_change(c->I, d);
	if (c->nargs == 1) {
		struct value *src = c->args[0];
		if (src->kind == V_DICT) {
			for (int i = 0; i < src->n; i++)
				value_dict_set(d, src->keys[i], value_ref(src->items[i]));
		} else {
			struct value *pairs = runtime_to_list(c->I, src, err);
			if (!pairs)
				return NULL;
			for (int i = 0; i < pairs->n; i++) {
				struct value *p = pairs->items[i];
				if ((p->kind != V_TUPLE && p->kind != V_LIST) || p->n != 2 ||
				    value_check_hashable(p->items[0], err) < 0) {
					value_unref(pairs);
					return error_set(err, c->node->line, c->node->col, "ValueError: dictionary update "
							 "sequence element #%d has the wrong length or kind", i), NULL;
				}
				value_dict_set(d, p->items[0], value_ref(p->items[1]));
			}
			value_unref(pairs);
		}
	}
	for (int i = 0; i < c->nkw; i++)
		value_dict_set_str(d, c->kwnames[i], value_ref(c->kwargs[i]));
	return value_none();
}

/* set methods */
static struct value *s_add(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("elem"), 1, &a, err) < 0)
		return NULL;
	if (!value_set_has(SELF(c), a.v[0]) && value_check_items(V_SET, (int64_t)SELF(c)->n + 1, err) < 0)
		return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
	interp_will_change(c->I, SELF(c));
	if (runtime_set_add(SELF(c), value_ref(a.v[0]), err) < 0)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, value_none());
}

static struct value *s_discard(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("elem"), 1, &a, err) < 0)
		return NULL;
	struct value *s = SELF(c);
	if (value_set_has(s, a.v[0])) {
		interp_will_change(c->I, s);
		value_set_discard(s, a.v[0]);
	}
	return args_return(&a, value_none());
}

static struct value *s_pop(struct call *c, struct qkv_error *err)
{
	if (no_args(c, err) < 0)
		return NULL;
	if (SELF(c)->n == 0)
		return error_set(err, c->node->line, c->node->col, "KeyError: 'pop from an empty set'"), NULL;
	interp_will_change(c->I, SELF(c));
	return value_set_pop(SELF(c));
}

/* CPython's set_update_internal: a set merged (one resize first), a dict's
 * keys likewise, any other iterable's items added one by one. */
int runtime_set_update(struct interp *I, struct value *set, struct value *from, struct qkv_error *err)
{
	if (from->kind == V_SET || from->kind == V_DICT) {
		if (value_check_items(V_SET, (int64_t)set->n + from->n, err) < 0)
			return -1;
		if (from->kind == V_SET)
			value_set_merge(set, from);
		else
			value_set_merge_keys(set, from);
		return 0;
	}
	struct value *items = runtime_to_list(I, from, err);
	if (!items)
		return -1;
	int rc = value_check_items(V_SET, (int64_t)set->n + items->n, err);
	for (int i = 0; rc == 0 && i < items->n; i++)
		rc = runtime_set_add(set, value_ref(items->items[i]), err);
	value_unref(items);
	return rc;
}

/* The methods that take other iterables: set.union(*others) and the rest,
 * each built as CPython builds it (the order of the result depends on it). */
enum set_method { SM_UPDATE, SM_UNION, SM_INTERSECTION, SM_DIFFERENCE, SM_SYMMETRIC };

/* A set of v's items: v itself (a new reference) when it is a set. */
static struct value *set_of(struct interp *I, struct value *v, struct qkv_error *err)
{
	if (v->kind == V_SET)
		return value_ref(v);
	struct value *s = value_set();
	if (runtime_set_update(I, s, v, err) < 0) {
		value_unref(s);
		return NULL;
	}
	return s;
}

/* One step of an operation: r (a new set, or self for the updates) with other. */
static struct value *set_step(struct interp *I, enum set_method m, bool in_place, struct value *r,
			      struct value *other, struct qkv_error *err)
{
	if (m == SM_UPDATE || m == SM_UNION)
		return runtime_set_update(I, r, other, err) < 0 ? NULL : r;
	if (m == SM_INTERSECTION && other->kind != V_SET) {
		/* the other's items in its own order, those r has */
		struct value *items = runtime_to_list(I, other, err), *out = value_set();
		if (!items) {
			value_unref(out);
			return NULL;
		}
		for (int i = 0; i < items->n; i++)
			if (value_check_hashable(items->items[i], err) < 0) {
				value_unref(items);
				value_unref(out);
				return NULL;
			} else if (value_set_has(r, items->items[i])) {
				value_set_add(out, value_ref(items->items[i]));
			}
		value_unref(items);
		return out;
	}
	struct value *o = set_of(I, other, err);
	if (!o)
		return NULL;
	struct value *out = r;
	if (m == SM_INTERSECTION) {
		out = value_set_intersection(r, o);
	} else if (m == SM_DIFFERENCE && !in_place && other->kind == V_SET) {
		out = value_set_difference(r, o);
	} else if (m == SM_DIFFERENCE) {
		if (!in_place)	/* a copy of r, less the other's items */
			out = value_set_copy(r);
		value_set_difference_update(out, o);
	} else if (in_place) {
		value_set_symmetric_difference_update(r, o);
	} else {
		/* a set of the other's items, then r's removed or added */
		out = other->kind == V_SET ? value_set_copy(o) : value_ref(o);
		value_set_symmetric_difference_update(out, r);
	}
	value_unref(o);
	return out;
}

static struct value *set_method(struct call *c, enum set_method m, bool in_place, struct qkv_error *err)
{
	if (c->nkw)
		return error_set(err, c->node->line, c->node->col, "TypeError: %s() takes no keyword arguments",
				 c->name), NULL;
	if (m == SM_SYMMETRIC && c->nargs != 1)
		return error_set(err, c->node->line, c->node->col, "TypeError: %s() takes exactly one argument "
				 "(%d given)", c->name, c->nargs), NULL;
	struct value *self = SELF(c), *r;
	if (in_place)
		interp_will_change(c->I, self);
	/* union copies self first; the others start from self, their first step makes the new set */
	r = !in_place && (m == SM_UNION || c->nargs == 0) ? value_set_copy(self) : value_ref(self);
	for (int i = 0; i < c->nargs; i++) {
		if (m == SM_UNION && c->args[i] == self)
			continue;	/* as CPython's set_union */
		bool step_in_place = in_place || i > 0 || m == SM_UNION;
		struct value *next = set_step(c->I, m, step_in_place, r, c->args[i], err);
		if (!next) {
			value_unref(r);
			return error_locate(err, c->arg_nodes[i]->line, c->arg_nodes[i]->col), NULL;
		}
		if (next != r) {
			value_unref(r);
			r = next;
		}
	}
	if (!in_place)
		return r;
	if (r != self)	/* intersection_update: self takes the result's body */
		value_set_take_body(self, r);
	value_unref(r);
	return value_none();
}

static struct value *s_update(struct call *c, struct qkv_error *err) { return set_method(c, SM_UPDATE, true, err); }
static struct value *s_union(struct call *c, struct qkv_error *err) { return set_method(c, SM_UNION, false, err); }
static struct value *s_intersection(struct call *c, struct qkv_error *err)
{
	return set_method(c, SM_INTERSECTION, false, err);
}
static struct value *s_intersection_update(struct call *c, struct qkv_error *err)
{
	return set_method(c, SM_INTERSECTION, true, err);
}
static struct value *s_difference(struct call *c, struct qkv_error *err)
{
	return set_method(c, SM_DIFFERENCE, false, err);
}
static struct value *s_difference_update(struct call *c, struct qkv_error *err)
{
	return set_method(c, SM_DIFFERENCE, true, err);
}
static struct value *s_symmetric_difference(struct call *c, struct qkv_error *err)
{
	return set_method(c, SM_SYMMETRIC, false, err);
}
static struct value *s_symmetric_difference_update(struct call *c, struct qkv_error *err)
{
	return set_method(c, SM_SYMMETRIC, true, err);
}

/* str methods */
static struct value *str_join(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterable"), 1, &a, err) < 0)
		return NULL;
	struct value *items = runtime_to_list(c->I, a.v[0], err);
	if (!items)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_puts(&sb, "");
	for (int i = 0; i < items->n; i++) {
		if (items->items[i]->kind != V_STR) {
			strbuf_free(&sb);
			args_error(err, c, &a, 0, "TypeError: sequence item %d: expected str instance, %s found", i,
				   value_type_name(items->items[i]));
			value_unref(items);
			return args_fail(&a);
		}
		if (i)
			strbuf_puts(&sb, SELF(c)->str);
		strbuf_puts(&sb, items->items[i]->str);
		if (value_check_str((int64_t)sb.len, err) < 0) {
			strbuf_free(&sb);
			value_unref(items);
			return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
		}
	}
	value_unref(items);
	return args_return(&a, value_str_take(strbuf_detach(&sb)));
}

static struct value *str_case(struct call *c, int (*fn)(int), struct qkv_error *err)
{
	if (no_args(c, err) < 0)
		return NULL;
	char *s = xstrdup(SELF(c)->str);
	for (char *p = s; *p; p++)
		if (!((unsigned char)*p & 0x80))
			*p = (char)fn((unsigned char)*p);
	return value_str_take(s);
}

static struct value *str_upper(struct call *c, struct qkv_error *err) { return str_case(c, toupper, err); }
static struct value *str_lower(struct call *c, struct qkv_error *err) { return str_case(c, tolower, err); }

static struct value *str_strip_common(struct call *c, bool left, bool right, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("chars"), 0, &a, err) < 0)
		return NULL;
	const char *chars = a.v[0] && a.v[0]->kind == V_STR ? a.v[0]->str : NULL;
	const char *s = SELF(c)->str, *e = s + strlen(s);
#define STRIPPED(ch) (chars ? strchr(chars, (ch)) != NULL : isspace((unsigned char)(ch)))
	while (left && s < e && STRIPPED(*s))
		s++;
	while (right && e > s && STRIPPED(e[-1]))
		e--;
#undef STRIPPED
	return args_return(&a, value_str_take(xstrndup(s, (size_t)(e - s))));
}

static struct value *str_strip(struct call *c, struct qkv_error *err) { return str_strip_common(c, true, true, err); }
static struct value *str_lstrip(struct call *c, struct qkv_error *err) { return str_strip_common(c, true, false, err); }
static struct value *str_rstrip(struct call *c, struct qkv_error *err) { return str_strip_common(c, false, true, err); }

static struct value *str_split(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("sep", "maxsplit"), 0, &a, err) < 0)
		return NULL;
	int64_t maxsplit;
	if (args_int(c, &a, 1, -1, &maxsplit, err) < 0)
		return args_fail(&a);
	const char *s = SELF(c)->str;
	struct value *r = value_seq(V_LIST, 0);
	if (!a.v[0] || a.v[0]->kind == V_NONE) {
		for (;;) {
			while (*s && isspace((unsigned char)*s))
				s++;
			if (!*s)
				break;
			const char *e = s;
			if (maxsplit >= 0 && r->n == maxsplit) {
				e = s + strlen(s);
				while (e > s && isspace((unsigned char)e[-1]))
					e--;
			} else {
				while (*e && !isspace((unsigned char)*e))
					e++;
			}
			if (value_check_items(V_LIST, (int64_t)r->n + 1, err) < 0) {
				value_unref(r);
				return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
			}
			value_list_push(r, value_str_take(xstrndup(s, (size_t)(e - s))));
			s = e;
		}
		return args_return(&a, r);
	}
	if (a.v[0]->kind != V_STR || !a.v[0]->str[0]) {
		value_unref(r);
		return args_error(err, c, &a, 0, "ValueError: empty separator"), args_fail(&a);
	}
	const char *sep = a.v[0]->str;
	size_t sl = strlen(sep);
	for (;;) {
		const char *p = (maxsplit < 0 || r->n < maxsplit) ? strstr(s, sep) : NULL;
		if (!p) {
			value_list_push(r, value_str(s));
			break;
		}
		if (value_check_items(V_LIST, (int64_t)r->n + 2, err) < 0) {
			value_unref(r);
			return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
		}
		value_list_push(r, value_str_take(xstrndup(s, (size_t)(p - s))));
		s = p + sl;
	}
	return args_return(&a, r);
}

static struct value *str_replace(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("old", "new", "count"), 2, &a, err) < 0)
		return NULL;
	int64_t count;
	if (args_int(c, &a, 2, -1, &count, err) < 0)
		return args_fail(&a);
	if (a.v[0]->kind != V_STR || a.v[1]->kind != V_STR)
		return args_error(err, c, &a, 0, "TypeError: replace() arguments must be str"), args_fail(&a);
	const char *s = SELF(c)->str, *old = a.v[0]->str, *new = a.v[1]->str;
	size_t ol = strlen(old);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_puts(&sb, "");
	for (int64_t done = 0;;) {
		/* an empty old matches before each character and at the end */
		const char *p = count >= 0 && done >= count ? NULL : ol ? strstr(s, old) : s;
		if (!p) {
			strbuf_puts(&sb, s);
			break;
		}
		strbuf_putn(&sb, s, (size_t)(p - s));
		strbuf_puts(&sb, new);
		done++;
		if (ol == 0) {	/* past the next character (all of its UTF-8 bytes) */
			if (!*p)
				break;
			size_t n = utf8_offset(p, 1);
			strbuf_putn(&sb, p, n);
			s = p + n;
		} else {
			s = p + ol;
		}
		if (value_check_str((int64_t)(sb.len + strlen(s)), err) < 0) {
			strbuf_free(&sb);
			return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
		}
	}
	return args_return(&a, value_str_take(strbuf_detach(&sb)));
}

static struct value *str_affix(struct call *c, bool start, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("prefix"), 1, &a, err) < 0)
		return NULL;
	const char *s = SELF(c)->str;
	size_t sl = strlen(s);
	struct value *p = a.v[0];
	int n = p->kind == V_TUPLE ? p->n : 1;
	for (int i = 0; i < n; i++) {
		struct value *x = p->kind == V_TUPLE ? p->items[i] : p;
		if (x->kind != V_STR)
			return args_error(err, c, &a, 0, "TypeError: %s arg must be str or a tuple of str",
					  c->name), args_fail(&a);
		size_t xl = strlen(x->str);
		if (xl <= sl && memcmp(start ? s : s + sl - xl, x->str, xl) == 0)
			return args_return(&a, value_bool(true));
	}
	return args_return(&a, value_bool(false));
}

static struct value *str_startswith(struct call *c, struct qkv_error *err) { return str_affix(c, true, err); }
static struct value *str_endswith(struct call *c, struct qkv_error *err) { return str_affix(c, false, err); }

static struct value *str_find(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("sub"), 1, &a, err) < 0)
		return NULL;
	if (a.v[0]->kind != V_STR)
		return args_error(err, c, &a, 0, "TypeError: must be str"), args_fail(&a);
	const char *s = SELF(c)->str, *p = strstr(s, a.v[0]->str);
	return args_return(&a, value_int(p ? (int64_t)utf8_count_n(s, (size_t)(p - s)) : -1));
}

/* "{} and {:.2f}".format(a, b) */
static struct value *str_format(struct call *c, struct qkv_error *err)
{
	const char *s = SELF(c)->str;
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_puts(&sb, "");
	int auto_idx = 0;
	while (*s) {
		if (s[0] == '{' && s[1] == '{') {
			strbuf_putc(&sb, '{');
			s += 2;
			continue;
		}
		if (s[0] == '}' && s[1] == '}') {
			strbuf_putc(&sb, '}');
			s += 2;
			continue;
		}
		if (*s != '{') {
			strbuf_putc(&sb, *s++);
			continue;
		}
		const char *e = strchr(s, '}');
		if (!e) {
			strbuf_free(&sb);
			return error_set(err, c->node->line, c->node->col, "ValueError: Single '{' encountered in format string"), NULL;
		}
		char field[128];
		size_t fl = (size_t)(e - s - 1) < sizeof field - 1 ? (size_t)(e - s - 1) : sizeof field - 1;
		memcpy(field, s + 1, fl);
		field[fl] = 0;
		char *spec = strchr(field, ':');
		if (spec)
			*spec++ = 0;
		char conv = 0;
		char *bang = strchr(field, '!');
		if (bang) {
			conv = bang[1];
			*bang = 0;
		}
		struct value *v = NULL;
		if (!field[0]) {
			if (auto_idx < c->nargs)
				v = c->args[auto_idx++];
		} else if (isdigit((unsigned char)field[0])) {
			int k = atoi(field);
			if (k < c->nargs)
				v = c->args[k];
		} else {
			for (int i = 0; i < c->nkw; i++)
				if (strcmp(c->kwnames[i], field) == 0)
					v = c->kwargs[i];
		}
		if (!v) {
			strbuf_free(&sb);
			return error_set(err, c->node->line, c->node->col, field[0] && !isdigit((unsigned char)field[0]) ?
					 "KeyError: '%s'" : "IndexError: Replacement index %s out of range for positional "
					 "args tuple", field[0] ? field : "0"), NULL;
		}
		int rc = runtime_format_field(c->I, c->node, &sb, v, conv == 'r' || conv == 's' ? conv : 0, spec, err);
		if (rc == 0)
			rc = value_check_str((int64_t)sb.len, err);
		if (rc < 0) {
			strbuf_free(&sb);
			return error_locate(err, c->node->line, c->node->col), NULL;
		}
		s = e + 1;
	}
	return value_str_take(strbuf_detach(&sb));
}

static const struct builtin list_methods[] = {
	{ "append", l_append }, { "extend", l_extend }, { "insert", l_insert }, { "pop", l_pop },
	{ "remove", l_remove }, { "index", l_index }, { "count", l_count }, { "sort", l_sort },
	{ "reverse", l_reverse }, { "clear", l_clear }, { "copy", l_copy }, { NULL, NULL },
};
static const struct builtin tuple_methods[] = {
	{ "index", l_index }, { "count", l_count }, { NULL, NULL },
};
static const struct builtin dict_methods[] = {
	{ "keys", d_keys }, { "values", d_values }, { "items", d_items }, { "get", d_get },
	{ "pop", l_pop }, { "setdefault", d_setdefault }, { "update", d_update }, { "clear", l_clear },
	{ "copy", l_copy }, { NULL, NULL },
};
static const struct builtin set_methods[] = {
	{ "add", s_add }, { "discard", s_discard }, { "remove", l_remove }, { "clear", l_clear },
	{ "copy", l_copy }, { "pop", s_pop }, { "update", s_update }, { "union", s_union },
	{ "intersection", s_intersection }, { "intersection_update", s_intersection_update },
	{ "difference", s_difference }, { "difference_update", s_difference_update },
	{ "symmetric_difference", s_symmetric_difference },
	{ "symmetric_difference_update", s_symmetric_difference_update }, { NULL, NULL },
};
static const struct builtin str_methods[] = {
	{ "join", str_join }, { "upper", str_upper }, { "lower", str_lower }, { "strip", str_strip },
	{ "lstrip", str_lstrip }, { "rstrip", str_rstrip }, { "split", str_split }, { "replace", str_replace },
	{ "startswith", str_startswith }, { "endswith", str_endswith }, { "find", str_find },
	{ "format", str_format }, { "index", l_index }, { "count", l_count }, { NULL, NULL },
};

static const struct builtin *methods_of(const struct value *v)
{
	switch (v->kind) {
	case V_LIST: return list_methods;
	case V_TUPLE: case V_SIZE: return tuple_methods;
	case V_DICT: return dict_methods;
	case V_SET: return set_methods;
	case V_STR: return str_methods;
	default: return NULL;
	}
}

static const struct builtin *find_method(const struct value *v, const char *name)
{
	const struct builtin *t = methods_of(v);
	for (; t && t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

struct value *container_attr(struct value *self, const char *name)
{
	return find_method(self, name) ? value_method(self, name) : NULL;
}

struct value *container_call(struct call *c, struct qkv_error *err)
{
	const struct builtin *b = find_method(c->self, c->name);
	if (!b)
		return error_set(err, 0, 0, "AttributeError: '%s' object has no attribute '%s'",
				 value_type_name(c->self), c->name), NULL;
	return b->fn(c, err);
}

void container_each_method(const struct value *v, void (*fn)(void *udata, const char *name), void *udata)
{
	for (const struct builtin *t = methods_of(v); t && t->name; t++)
		fn(udata, t->name);
}
