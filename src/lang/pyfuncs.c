/* pyfuncs.c: Python's own builtins that work on iterables, functions and
 * classes: range (lazy), enumerate, zip, map, filter, sorted, reversed, any,
 * all, min/max with key=, sum, list/tuple/dict/set, isinstance, type,
 * hasattr/getattr/setattr (through the sandboxed attribute lookup), super,
 * and torch.no_grad. The table is searched by builtins.c's lookups.
 * Never prints. */
#include "lang/args.h"
#include "lang/runtime.h"
#include "core/mem.h"

#include <stdio.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* An error about argument i (or the call) with err's message kept. */
static struct value *fail_at(struct call *c, int i, struct qkv_error *err)
{
	const struct node *at = i >= 0 && i < c->nargs ? c->arg_nodes[i] : c->node;
	err->line = at->line;
	err->col = at->col;
	return NULL;
}

static struct value *py_range(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("start", "stop", "step"), 1, &a, err) < 0)
		return NULL;
	int64_t s = 0, e, st;
	if (a.v[1]) {
		if (args_int(c, &a, 0, 0, &s, err) < 0 || args_int(c, &a, 1, 0, &e, err) < 0)
			return args_fail(&a);
	} else if (args_int(c, &a, 0, 0, &e, err) < 0) {
		return args_fail(&a);
	}
	if (args_int(c, &a, 2, 1, &st, err) < 0)
		return args_fail(&a);
	if (st == 0)
		return args_error(err, c, &a, 2, "ValueError: range() arg 3 must not be zero"), args_fail(&a);
	return args_return(&a, value_range(s, e, st));
}

static struct value *py_enumerate(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterable", "start"), 1, &a, err) < 0)
		return NULL;
	int64_t start;
	if (args_int(c, &a, 1, 0, &start, err) < 0)
		return args_fail(&a);
	struct value *r = runtime_iter_of(c->I, IT_ENUMERATE, NULL, 1, &a.v[0], start, err);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, r);
}

static struct value *py_zip(struct call *c, struct qkv_error *err)
{
	if (c->nkw)
		return error_set(err, c->kw_nodes[0]->line, c->kw_nodes[0]->col, "TypeError: zip() takes no keyword "
				 "arguments in qkv"), NULL;
	struct value *r = runtime_iter_of(c->I, IT_ZIP, NULL, c->nargs, c->args, 0, err);
	return r ? r : fail_at(c, -1, err);
}

static struct value *py_map(struct call *c, struct qkv_error *err)
{
	if (c->nargs < 2)
		return error_set(err, c->node->line, c->node->col, "TypeError: map() must have at least two arguments."),
		       NULL;
	struct value *r = runtime_iter_of(c->I, IT_MAP, c->args[0], c->nargs - 1, c->args + 1, 0, err);
	return r ? r : fail_at(c, -1, err);
}

static struct value *py_filter(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("function", "iterable"), 2, &a, err) < 0)
		return NULL;
	struct value *r = runtime_iter_of(c->I, IT_FILTER, a.v[0], 1, &a.v[1], 0, err);
	if (!r)
		return args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a);
	return args_return(&a, r);
}

static struct value *py_sorted(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterable", "key", "reverse"), 1, &a, err) < 0)
		return NULL;
	bool rev;
	if (args_bool(c, &a, 2, false, &rev, err) < 0)
		return args_fail(&a);
	struct value *l = runtime_to_list(c->I, a.v[0], err);
	if (!l)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	if (runtime_sort(c->I, c->node, l->items, l->n, a.v[1], rev, err) < 0) {
		value_unref(l);
		error_locate(err, c->node->line, c->node->col);
		return args_fail(&a);
	}
	return args_return(&a, l);
}

static struct value *py_reversed(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("sequence"), 1, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	if (v->kind == V_RANGE) {
		int64_t n = value_range_len(v);
		int64_t last = v->i + (n - 1) * v->step;
		return args_return(&a, value_range(n ? last : 0, n ? last - n * v->step : 0, -v->step));
	}
	if (v->kind != V_LIST && v->kind != V_TUPLE && v->kind != V_STR && v->kind != V_SIZE && v->kind != V_DICT &&
	    v->kind != V_TENSOR)
		return args_error(err, c, &a, 0, "TypeError: '%s' object is not reversible", value_type_name(v)),
		       args_fail(&a);
	struct value *l = runtime_to_list(c->I, v, err);
	if (!l)
		return args_fail(&a);
	for (int i = 0, j = l->n - 1; i < j; i++, j--) {
		struct value *t = l->items[i];
		l->items[i] = l->items[j];
		l->items[j] = t;
	}
	struct value *it = runtime_iter(c->I, l, err);
	value_unref(l);
	return args_return(&a, it);
}

static struct value *any_all(struct call *c, bool all, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterable"), 1, &a, err) < 0)
		return NULL;
	struct value *it = runtime_iter(c->I, a.v[0], err), *x;
	if (!it)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	int rc, result = all;
	while ((rc = runtime_next(c->I, it, &x, err)) == 1) {
		int t = value_truth(x, err);
		value_unref(x);
		if (t < 0) {
			rc = -1;
			break;
		}
		if (t != all) {
			result = !all;
			break;
		}
	}
	value_unref(it);
	if (rc < 0)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, value_bool(result));
}

static struct value *py_any(struct call *c, struct qkv_error *err) { return any_all(c, false, err); }
static struct value *py_all(struct call *c, struct qkv_error *err) { return any_all(c, true, err); }

/* min/max over one iterable or several arguments, with key= and default= */
static struct value *minmax(struct call *c, bool is_max, struct qkv_error *err)
{
	struct value *key = NULL, *def = NULL;
	for (int k = 0; k < c->nkw; k++) {
		if (strcmp(c->kwnames[k], "key") == 0)
			key = c->kwargs[k];
		else if (strcmp(c->kwnames[k], "default") == 0)
			def = c->kwargs[k];
		else
			return error_set(err, c->kw_nodes[k]->line, c->kw_nodes[k]->col, "TypeError: %s() got an "
					 "unexpected keyword argument '%s'", c->name, c->kwnames[k]), NULL;
	}
	if (c->nargs == 0)
		return error_set(err, c->node->line, c->node->col, "TypeError: %s expected at least 1 argument, got 0",
				 c->name), NULL;
	struct value *items;
	if (c->nargs == 1) {
		items = runtime_to_list(c->I, c->args[0], err);
		if (!items)
			return fail_at(c, 0, err);
	} else {
		items = value_seq(V_LIST, 0);
		for (int i = 0; i < c->nargs; i++)
			value_list_push(items, value_ref(c->args[i]));
	}
	if (items->n == 0) {
		value_unref(items);
		if (def)
			return value_ref(def);
		return error_set(err, c->node->line, c->node->col, "ValueError: %s() arg is an empty sequence", c->name),
		       NULL;
	}
	struct value *best = NULL, *best_key = NULL;
	for (int i = 0; i < items->n; i++) {
		struct value *k = key && key->kind != V_NONE ?
			runtime_call_values(c->I, c->node, key, 1, &items->items[i], err) : value_ref(items->items[i]);
		if (!k)
			goto fail;
		int cmp = 0;
		if (best_key) {
			if (k->kind == V_TENSOR || best_key->kind == V_TENSOR) {
				double x, y;
				if (value_to_double(k, &x, "a compared value", err) < 0 ||
				    value_to_double(best_key, &y, "a compared value", err) < 0) {
					value_unref(k);
					goto fail;
				}
				cmp = x < y ? -1 : x > y;
			} else if (runtime_compare(k, best_key, &cmp, err) < 0) {
				value_unref(k);
				goto fail;
			}
		}
		if (!best_key || (is_max ? cmp > 0 : cmp < 0)) {
			value_unref(best_key);
			best_key = k;
			best = items->items[i];
		} else {
			value_unref(k);
		}
	}
	value_ref(best);
	value_unref(best_key);
	value_unref(items);
	return best;
fail:
	value_unref(best_key);
	value_unref(items);
	error_locate(err, c->node->line, c->node->col);
	return NULL;
}

static struct value *py_max(struct call *c, struct qkv_error *err)
{
	if (c->nargs == 1 && c->args[0]->kind == V_TENSOR && c->nkw == 0) {
		const struct builtin *b = runtime_find_function("torch.max");
		return b->fn(c, err);
	}
	return minmax(c, true, err);
}

static struct value *py_min(struct call *c, struct qkv_error *err)
{
	if (c->nargs == 1 && c->args[0]->kind == V_TENSOR && c->nkw == 0) {
		const struct builtin *b = runtime_find_function("torch.min");
		return b->fn(c, err);
	}
	return minmax(c, false, err);
}

/* Python's sum: start + x0 + x1 + ..., in order (a tensor adds its rows) */
static struct value *py_sum(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterable", "start"), 1, &a, err) < 0)
		return NULL;
	if (a.v[1] && a.v[1]->kind == V_STR)
		return args_error(err, c, &a, 1, "TypeError: sum() can't sum strings [use ''.join(seq) instead]"),
		       args_fail(&a);
	struct value *it = runtime_iter(c->I, a.v[0], err), *x;
	if (!it)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	struct value *acc = a.v[1] ? value_ref(a.v[1]) : value_int(0);
	int rc;
	while ((rc = runtime_next(c->I, it, &x, err)) == 1) {
		struct value *r = eval_binop(c->I, OP_ADD, acc, x, err);
		value_unref(x);
		value_unref(acc);
		acc = r;
		if (!r) {
			rc = -1;
			break;
		}
	}
	value_unref(it);
	if (rc < 0) {
		value_unref(acc);
		error_locate(err, c->node->line, c->node->col);
		return args_fail(&a);
	}
	return args_return(&a, acc);
}

static struct value *to_seq(struct call *c, enum value_kind kind, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterable"), 0, &a, err) < 0)
		return NULL;
	if (!a.v[0])
		return args_return(&a, kind == V_SET ? value_set() : value_seq(kind, 0));
	if (kind == V_SET) {	/* CPython's order: a set or dict merged, else item by item */
		struct value *s = value_set();
		if (runtime_set_update(c->I, s, a.v[0], err) < 0) {
			value_unref(s);
			return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
		}
		return args_return(&a, s);
	}
	struct value *l = runtime_to_list(c->I, a.v[0], err);
	if (!l)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	if (kind == V_LIST)
		return args_return(&a, l);
	struct value *r = value_seq(kind, 0);
	for (int i = 0; i < l->n; i++)
		value_list_push(r, value_ref(l->items[i]));
	value_unref(l);
	return args_return(&a, r);
}

static struct value *py_list(struct call *c, struct qkv_error *err) { return to_seq(c, V_LIST, err); }
static struct value *py_tuple(struct call *c, struct qkv_error *err) { return to_seq(c, V_TUPLE, err); }
static struct value *py_set(struct call *c, struct qkv_error *err) { return to_seq(c, V_SET, err); }

static struct value *py_dict(struct call *c, struct qkv_error *err)
{
	if (c->nargs > 1)
		return error_set(err, c->node->line, c->node->col, "TypeError: dict expected at most 1 argument, got %d",
				 c->nargs), NULL;
	struct value *d = value_dict();
	struct call u = *c;
	u.self = d;
	u.name = "update";
	struct value *r = container_call(&u, err);
	if (!r) {
		value_unref(d);
		return NULL;
	}
	value_unref(r);
	return d;
}

/* the builtin type a V_FUNC names ("builtins.int"), for isinstance and type() */
static bool func_type_matches(const char *type, const struct value *v)
{
	static const struct { const char *name; enum value_kind kind; } types[] = {
		{ "builtins.bool", V_BOOL }, { "builtins.str", V_STR }, { "builtins.list", V_LIST },
		{ "builtins.tuple", V_TUPLE }, { "builtins.dict", V_DICT }, { "builtins.set", V_SET },
		{ "builtins.range", V_RANGE }, { "builtins.float", V_FLOAT }, { "torch.Tensor", V_TENSOR },
		{ "numpy.ndarray", V_TENSOR },
	};
	if (strcmp(type, "builtins.int") == 0)
		return v->kind == V_INT || v->kind == V_BOOL;
	if (strcmp(type, "builtins.object") == 0)
		return true;
	if (strcmp(type, "torch.nn.Parameter") == 0)
		return v->kind == V_TENSOR && v->parameter;
	if (strncmp(type, "torch.nn.", 9) == 0)	/* Linear, Dropout, Embedding, LayerNorm */
		return v->kind == V_OBJECT && strcmp(type + 9, object_kind_name(v->obj->kind)) == 0;
	if (strcmp(type, "builtins.tuple") == 0 && v->kind == V_SIZE)
		return true;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		if (strcmp(types[i].name, type) == 0) {
			if (v->kind == V_TENSOR)
				return types[i].kind == V_TENSOR &&
				       (v->t->flavor == FLAVOR_NUMPY) == (strcmp(type, "numpy.ndarray") == 0);
			return v->kind == types[i].kind;
		}
	}
	return false;
}

static int isinstance_of(const struct value *v, const struct value *cls, struct qkv_error *err)
{
	if (cls->kind == V_TUPLE) {
		for (int i = 0; i < cls->n; i++) {
			int r = isinstance_of(v, cls->items[i], err);
			if (r != 0)
				return r;
		}
		return 0;
	}
	if (cls->kind == V_CLASS)
		return class_isinstance(v, cls);
	if (cls->kind == V_FUNC)
		return func_type_matches(cls->str, v);
	return error_set(err, 0, 0, "TypeError: isinstance() arg 2 must be a type or tuple of types");
}

static struct value *py_isinstance(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("obj", "class_or_tuple"), 2, &a, err) < 0)
		return NULL;
	int r = isinstance_of(a.v[0], a.v[1], err);
	if (r < 0)
		return args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a);
	return args_return(&a, value_bool(r));
}

static struct value *py_type(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("object"), 1, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	if (v->kind == V_INSTANCE)
		return args_return(&a, value_ref(v->inst->cls));
	if (value_is_number(v) && v->np) {	/* np.float64, np.float32, np.int64, np.bool_ */
		struct value *d = value_dtype(v->kind == V_BOOL ? DT_BOOL : v->kind == V_INT ? DT_I64 :
					      v->f32 ? DT_F32 : DT_F64, FLAVOR_NUMPY);
		d->np = true;
		return args_return(&a, d);
	}
	const char *name;
	char module[40];
	switch (v->kind) {
	case V_BOOL: name = "builtins.bool"; break;
	case V_INT: name = "builtins.int"; break;
	case V_FLOAT: name = "builtins.float"; break;
	case V_STR: name = "builtins.str"; break;
	case V_LIST: name = "builtins.list"; break;
	case V_TUPLE: name = "builtins.tuple"; break;
	case V_DICT: name = "builtins.dict"; break;
	case V_SET: name = "builtins.set"; break;
	case V_RANGE: name = "builtins.range"; break;
	case V_TENSOR: name = v->t->flavor == FLAVOR_NUMPY ? "numpy.ndarray" : "torch.Tensor"; break;
	case V_CLASS: name = "builtins.type"; break;
	case V_OBJECT:
		snprintf(module, sizeof module, "torch.nn.%s", object_kind_name(v->obj->kind));
		name = module;
		break;
	default:
		return args_error(err, c, &a, 0, "type() of %s is not known to qkv", value_type_name(v)), args_fail(&a);
	}
	return args_return(&a, value_named(V_FUNC, name));
}

/* getattr(obj, name[, default]), hasattr, setattr: the same sandboxed lookup as obj.name */
static int attr_name(struct call *c, struct args *a, struct qkv_error *err)
{
	if (a->v[1]->kind != V_STR)
		return args_error(err, c, a, 1, "TypeError: attribute name must be string, not '%s'",
				  value_type_name(a->v[1]));
	return 0;
}

static struct value *py_getattr(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("object", "name", "default"), 2, &a, err) < 0)
		return NULL;
	if (attr_name(c, &a, err) < 0)
		return args_fail(&a);
	struct value *r = runtime_attr(c->I, a.v[0], a.v[1]->str, err);
	if (!r && a.v[2] && strncmp(err->msg, "AttributeError", 14) == 0)
		r = value_ref(a.v[2]);
	if (!r)
		return args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a);
	return args_return(&a, r);
}

static struct value *py_hasattr(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("object", "name"), 2, &a, err) < 0)
		return NULL;
	if (attr_name(c, &a, err) < 0)
		return args_fail(&a);
	struct qkv_error e;
	struct value *r = runtime_attr(c->I, a.v[0], a.v[1]->str, &e);
	value_unref(r);
	return args_return(&a, value_bool(r != NULL));
}

static struct value *py_setattr(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("object", "name", "value"), 3, &a, err) < 0)
		return NULL;
	if (attr_name(c, &a, err) < 0)
		return args_fail(&a);
	if (a.v[0]->kind != V_INSTANCE && a.v[0]->kind != V_CLASS)
		return args_error(err, c, &a, 0, "AttributeError: cannot set attributes of %s in qkv",
				  value_type_name(a.v[0])), args_fail(&a);
	if (class_set_attr(c->I, a.v[0], a.v[1]->str, a.v[2], err) < 0)
		return args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a);
	return args_return(&a, value_none());
}

static struct value *py_callable(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("obj"), 1, &a, err) < 0)
		return NULL;
	enum value_kind k = a.v[0]->kind;
	bool yes = k == V_FUNC || k == V_METHOD || k == V_FUNCTION || k == V_BOUND || k == V_CLASS ||
		   k == V_OBJECT || (k == V_INSTANCE && a.v[0]->inst->modules);
	return args_return(&a, value_bool(yes));
}

static struct value *py_iter(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("object"), 1, &a, err) < 0)
		return NULL;
	struct value *it = runtime_iter(c->I, a.v[0], err);
	if (!it)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	if (it->it->view) {
		struct value *fresh = runtime_iter(c->I, it, err);
		value_unref(it);
		it = fresh;
	}
	return args_return(&a, it);
}

static struct value *py_next(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("iterator", "default"), 1, &a, err) < 0)
		return NULL;
	if (a.v[0]->kind != V_ITER || a.v[0]->it->view)
		return args_error(err, c, &a, 0, "TypeError: '%s' object is not an iterator", value_type_name(a.v[0])),
		       args_fail(&a);
	struct value *x;
	int rc = runtime_next(c->I, a.v[0], &x, err);
	if (rc < 0)
		return args_fail(&a);
	if (rc == 0) {
		if (a.v[1])
			return args_return(&a, value_ref(a.v[1]));
		return args_error(err, c, &a, -1, "StopIteration"), args_fail(&a);
	}
	return args_return(&a, x);
}

static struct value *py_divmod(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x", "y"), 2, &a, err) < 0)
		return NULL;
	struct value *q = eval_binop(c->I, OP_FLOORDIV, a.v[0], a.v[1], err);
	struct value *r = q ? eval_binop(c->I, OP_MOD, a.v[0], a.v[1], err) : NULL;
	if (!r) {
		value_unref(q);
		return args_error(err, c, &a, -1, "%s", err->msg), args_fail(&a);
	}
	struct value *t = value_seq(V_TUPLE, 2);
	t->items[0] = q;
	t->items[1] = r;
	return args_return(&a, t);
}

static struct value *py_format(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("value", "format_spec"), 1, &a, err) < 0)
		return NULL;
	if (a.v[1] && a.v[1]->kind != V_STR)
		return args_error(err, c, &a, 1, "TypeError: format() argument 2 must be str"), args_fail(&a);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_puts(&sb, "");
	if (runtime_format_field(c->I, c->node, &sb, a.v[0], 0, a.v[1] ? a.v[1]->str : NULL, err) < 0) {
		strbuf_free(&sb);
		return args_error(err, c, &a, 1, "%s", err->msg), args_fail(&a);
	}
	return args_return(&a, value_str_take(strbuf_detach(&sb)));
}

static struct value *py_super(struct call *c, struct qkv_error *err)
{
	return class_super(c, err);
}

static struct value *py_object(struct call *c, struct qkv_error *err)
{
	return error_set(err, c->node->line, c->node->col, "qkv has no plain object(); write a class"), NULL;
}

/* torch.no_grad() is its own context manager for `with` (exec.c) */
static struct value *f_no_grad(struct call *c, struct qkv_error *err)
{
	(void)err;
	return value_named(V_FUNC, strcmp(c->name, "torch.inference_mode") == 0 ? "torch.inference_mode"
										 : "torch.no_grad");
}

static struct value *f_tensor_type(struct call *c, struct qkv_error *err)
{
	return error_set(err, c->node->line, c->node->col, "use torch.tensor(...) to make a tensor"), NULL;
}

/* copy.deepcopy(x) and copy.copy(x) */
static struct value *copy_common(struct call *c, bool deep, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 1, &a, err) < 0)
		return NULL;
	struct value *r = deep ? runtime_deepcopy(a.v[0], err) : runtime_copy(a.v[0], err);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, r);
}

static struct value *py_deepcopy(struct call *c, struct qkv_error *err) { return copy_common(c, true, err); }
static struct value *py_copy(struct call *c, struct qkv_error *err) { return copy_common(c, false, err); }

const struct builtin py_functions[] = {
	{ "copy.deepcopy", py_deepcopy }, { "copy.copy", py_copy },
	{ "builtins.range", py_range }, { "builtins.enumerate", py_enumerate }, { "builtins.zip", py_zip },
	{ "builtins.map", py_map }, { "builtins.filter", py_filter }, { "builtins.sorted", py_sorted },
	{ "builtins.reversed", py_reversed }, { "builtins.any", py_any }, { "builtins.all", py_all },
	{ "builtins.min", py_min }, { "builtins.max", py_max }, { "builtins.sum", py_sum },
	{ "builtins.list", py_list }, { "builtins.tuple", py_tuple }, { "builtins.set", py_set },
	{ "builtins.dict", py_dict }, { "builtins.isinstance", py_isinstance }, { "builtins.type", py_type },
	{ "builtins.getattr", py_getattr }, { "builtins.hasattr", py_hasattr }, { "builtins.setattr", py_setattr },
	{ "builtins.callable", py_callable }, { "builtins.iter", py_iter }, { "builtins.next", py_next },
	{ "builtins.divmod", py_divmod }, { "builtins.format", py_format }, { "builtins.super", py_super },
	{ "builtins.object", py_object },
	{ "torch.no_grad", f_no_grad }, { "torch.inference_mode", f_no_grad }, { "torch.Tensor", f_tensor_type },
	{ NULL, NULL },
};
