/* value.c: construction, reference counting and printing of language values.
 * Printing delegates tensors to core/format.c so that everything a student
 * sees matches what Python, torch and numpy print. Never fails. */
#include "lang/value.h"
#include "core/format.h"
#include "core/mem.h"

#include <stdlib.h>
#include <string.h>

static struct value *make(enum value_kind kind)
{
	struct value *v = xcalloc(1, sizeof *v);
	v->refs = 1;
	v->kind = kind;
	return v;
}

struct value *value_none(void) { return make(V_NONE); }

struct value *value_bool(bool b)
{
	struct value *v = make(V_BOOL);
	v->b = b;
	return v;
}

struct value *value_int(int64_t i)
{
	struct value *v = make(V_INT);
	v->i = i;
	return v;
}

struct value *value_float(double f)
{
	struct value *v = make(V_FLOAT);
	v->f = f;
	return v;
}

struct value *value_str_take(char *s)
{
	struct value *v = make(V_STR);
	v->str = s;
	return v;
}

struct value *value_str(const char *s)
{
	return value_str_take(xstrdup(s));
}

struct value *value_tensor(struct tensor *t)
{
	struct value *v = make(V_TENSOR);
	v->t = t;
	return v;
}

struct value *value_from_result(struct tensor *t)
{
	if (!t)
		return NULL;
	if (t->ndim == 0 && t->flavor == FLAVOR_NUMPY) {
		struct value *s = t->dtype == DT_BOOL ? value_bool(tensor_get(t, 0) != 0)
				: t->dtype == DT_I64 ? value_int(tensor_get_i64(t, 0))
				: value_float(tensor_get(t, 0));
		s->f32 = t->dtype == DT_F32;
		tensor_unref(t);
		return s;
	}
	return value_tensor(t);
}

struct value *value_parameter(struct tensor *t)
{
	struct value *v = value_tensor(t);
	v->parameter = true;
	t->grad = (struct grad_state){ .requires_grad = true };
	return v;
}

struct value *value_seq(enum value_kind kind, int n)
{
	struct value *v = make(kind);
	v->n = n;
	v->items = xcalloc((size_t)(n ? n : 1), sizeof *v->items);
	return v;
}

struct value *value_named(enum value_kind kind, const char *name)
{
	struct value *v = make(kind);
	v->str = xstrdup(name);
	return v;
}

struct value *value_method(struct value *self, const char *name)
{
	struct value *v = value_named(V_METHOD, name);
	v->self = value_ref(self);
	return v;
}

struct value *value_object(struct object *obj)
{
	struct value *v = make(V_OBJECT);
	v->obj = obj;
	return v;
}

struct value *value_dtype(enum dtype dt, enum flavor fl)
{
	struct value *v = make(V_DTYPE);
	v->dtype = dt;
	v->flavor = fl;
	return v;
}

struct value *value_ref(struct value *v)
{
	if (v)
		v->refs++;
	return v;
}

void value_unref(struct value *v)
{
	if (!v || --v->refs > 0)
		return;
	free(v->str);
	tensor_unref(v->t);
	for (int i = 0; i < v->n; i++)
		value_unref(v->items[i]);
	free(v->items);
	value_unref(v->self);
	if (v->obj) {
		value_unref(v->obj->weight);
		value_unref(v->obj->bias);
		free(v->obj);
	}
	free(v);
}

const char *value_type_name(const struct value *v)
{
	switch (v->kind) {
	case V_NONE: return "NoneType";
	case V_BOOL: return "bool";
	case V_INT: return "int";
	case V_FLOAT: return "float";
	case V_STR: return "str";
	case V_TENSOR: return v->t->flavor == FLAVOR_NUMPY ? "ndarray" : "Tensor";
	case V_LIST: return "list";
	case V_TUPLE: return "tuple";
	case V_SIZE: return "torch.Size";
	case V_MODULE: return "module";
	case V_FUNC: return "builtin_function";
	case V_METHOD: return "method";
	case V_OBJECT: return v->obj->kind == OBJ_LINEAR ? "Linear" : "Dropout";
	case V_DTYPE: return "dtype";
	case V_GRADFN: return v->str;
	}
	return "?";
}

bool value_is_number(const struct value *v)
{
	return v->kind == V_BOOL || v->kind == V_INT || v->kind == V_FLOAT;
}

double value_as_double(const struct value *v)
{
	return v->kind == V_FLOAT ? v->f : v->kind == V_INT ? (double)v->i : (double)v->b;
}

static void repr_str(struct strbuf *out, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	strbuf_putc(out, q);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == (unsigned char)q)
			strbuf_printf(out, "\\%c", *p);
		else if (*p == '\n')
			strbuf_puts(out, "\\n");
		else if (*p == '\t')
			strbuf_puts(out, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			strbuf_printf(out, "\\x%02x", *p);
		else
			strbuf_putc(out, (char)*p);
	}
	strbuf_putc(out, q);
}

static void dtype_repr(struct strbuf *out, enum dtype dt, enum flavor fl)
{
	if (fl == FLAVOR_NUMPY)
		strbuf_printf(out, "dtype('%s')", dtype_name(dt));
	else
		strbuf_printf(out, "torch.%s", dtype_name(dt));
}

static void seq_repr(struct strbuf *out, const struct value *v, bool as_str)
{
	const char *open = v->kind == V_LIST ? "[" : v->kind == V_SIZE ? "torch.Size([" : "(";
	const char *close = v->kind == V_LIST ? "]" : v->kind == V_SIZE ? "])" : ")";
	strbuf_puts(out, open);
	for (int i = 0; i < v->n; i++) {
		if (i)
			strbuf_puts(out, ", ");
		(void)as_str;	/* str() of a container shows its items' repr, as Python does */
		value_repr(out, v->items[i]);
	}
	if (v->kind == V_TUPLE && v->n == 1)
		strbuf_putc(out, ',');
	strbuf_puts(out, close);
}

void value_repr(struct strbuf *out, const struct value *v)
{
	switch (v->kind) {
	case V_NONE: strbuf_puts(out, "None"); break;
	case V_BOOL: strbuf_puts(out, v->b ? "True" : "False"); break;
	case V_INT: strbuf_printf(out, "%lld", (long long)v->i); break;
	case V_FLOAT:
		if (v->f32)
			format_shortest(out, v->f, DT_F32);	/* numpy's float32 scalar */
		else
			format_py_float(out, v->f);
		break;
	case V_STR: repr_str(out, v->str); break;
	case V_TENSOR:
		if (v->parameter && v->t->flavor == FLAVOR_TORCH)
			format_repr_parameter(out, v->t);
		else
			format_repr(out, v->t);
		break;
	case V_LIST: case V_TUPLE: case V_SIZE: seq_repr(out, v, false); break;
	case V_MODULE: strbuf_printf(out, "<module '%s'>", v->str); break;
	case V_FUNC: strbuf_printf(out, "<built-in function %s>", v->str); break;
	case V_METHOD:
		strbuf_printf(out, "<built-in method %s of %s object>", v->str, value_type_name(v->self));
		break;
	case V_OBJECT:
		if (v->obj->kind == OBJ_LINEAR)
			strbuf_printf(out, "Linear(in_features=%lld, out_features=%lld, bias=%s)",
				      (long long)v->obj->in_features, (long long)v->obj->out_features,
				      v->obj->bias && v->obj->bias->kind != V_NONE ? "True" : "False");
		else {
			strbuf_puts(out, "Dropout(p=");
			format_py_float(out, v->obj->p);
			strbuf_puts(out, ", inplace=False)");
		}
		break;
	case V_DTYPE: dtype_repr(out, v->dtype, v->flavor); break;
	case V_GRADFN: strbuf_printf(out, "<%s object>", v->str); break;	/* torch adds " at 0x..." */
	}
}

void value_str_of(struct strbuf *out, const struct value *v)
{
	if (v->kind == V_STR)
		strbuf_puts(out, v->str);
	else if (v->kind == V_TENSOR && !v->parameter)
		format_str(out, v->t);
	else if (v->kind == V_DTYPE && v->flavor == FLAVOR_NUMPY)
		strbuf_puts(out, dtype_name(v->dtype));
	else
		value_repr(out, v);
}
