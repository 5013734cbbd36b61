/* pytext.c: the text of values as Python makes it, where user code may take
 * part: str() and repr() through the __str__/__repr__ of user classes (also of
 * instances inside lists and dicts), the fields of f-strings and str.format,
 * and printf-style formatting (str % args) with CPython 3.11's rules and
 * messages. Called by the evaluator and the builtins; never prints. */
#include "lang/runtime.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct text_ctx {
	struct interp *I;
	const struct node *at;
	struct qkv_error *err;
};

/* value_text's hook: an instance inside a value shows its __repr__. */
static int instance_repr(void *ctx, struct strbuf *out, const struct value *v)
{
	struct text_ctx *t = ctx;
	return class_text(t->I, t->at, (struct value *)v, true, out, t->err);	/* (the call takes a reference) */
}

int runtime_text(struct interp *I, const struct node *at, struct value *v, bool repr, struct strbuf *out,
		 struct qkv_error *err)
{
	int rc = v->kind == V_INSTANCE ? class_text(I, at, v, repr, out, err) : 0;
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	struct text_ctx t = { I, at, err };
	size_t start = out->len;
	if (value_text(out, v, repr, &(struct value_text_hook){ instance_repr, &t }) < 0) {
		out->len = start;
		out->s[start] = 0;
		return -1;
	}
	return 0;
}

int runtime_format_field(struct interp *I, const struct node *at, struct strbuf *out, struct value *v, char conv,
			 const char *spec, struct qkv_error *err)
{
	bool plain = !spec || !*spec;
	/* a 0-d tensor's empty spec formats its .item(), a np.float32's
	 * float(self): value_format_field knows how */
	if (conv != 'r' && conv != 's' && (!plain || v->kind == V_TENSOR || (v->kind == V_FLOAT && v->f32)))
		return value_format_field(out, v, spec, err);
	struct strbuf text;
	strbuf_init(&text);
	if (runtime_text(I, at, v, conv == 'r', &text, err) < 0) {
		strbuf_free(&text);
		return -1;
	}
	if (plain) {
		strbuf_putn(out, text.s, text.len);
		strbuf_free(&text);
		return 0;
	}
	struct value *s = value_str_take(strbuf_detach(&text));
	int rc = value_format_field(out, s, spec, err);
	value_unref(s);
	return rc;
}

/* ---- printf-style formatting: str % args ------------------------------------------ */

/* One conversion's flags, width and precision (-1: none). */
struct conv {
	bool left, plus, space, alt, zero;
	int64_t width, prec;
	char type;
};

/* The type's name as CPython's messages give it (numpy's scalars by dtype). */
static const char *py_type_name(const struct value *v)
{
	if (v->kind == V_TENSOR && v->t->flavor == FLAVOR_NUMPY)
		return v->t->ndim == 0 ? (v->t->dtype == DT_F32 ? "numpy.float32" : v->t->dtype == DT_F64 ? "numpy.float64" :
					  v->t->dtype == DT_I64 ? "numpy.int64" : "numpy.bool_") : "numpy.ndarray";
	return value_type_name(v);
}

/* Pads text (n bytes, chars characters) to the width: spaces before it, or
 * after with '-'; with zeros (numbers, no '-') after its first `keep` bytes,
 * its sign and 0x. */
static void put_padded(struct strbuf *out, const struct conv *c, const char *text, size_t n, int64_t chars,
		       size_t keep)
{
	int64_t pad = c->width > chars ? c->width - chars : 0;
	if (c->left) {
		strbuf_putn(out, text, n);
		strbuf_pad(out, ' ', (size_t)pad);
	} else if (c->zero) {
		strbuf_putn(out, text, keep);
		strbuf_pad(out, '0', (size_t)pad);
		strbuf_putn(out, text + keep, n - keep);
	} else {
		strbuf_pad(out, ' ', (size_t)pad);
		strbuf_putn(out, text, n);
	}
}

/* A whole number given as its digits (no sign) and sign, with %d/%o/%x's
 * flags: sign, 0o/0x with '#', at least prec digits. */
static void put_integer(struct strbuf *out, const struct conv *c, bool negative, const char *digits)
{
	struct strbuf s;
	strbuf_init(&s);
	if (negative)
		strbuf_putc(&s, '-');
	else if (c->plus || c->space)
		strbuf_putc(&s, c->plus ? '+' : ' ');
	if (c->alt && c->type != 'd' && c->type != 'i' && c->type != 'u')
		strbuf_printf(&s, "0%c", c->type);
	size_t keep = s.len;
	int64_t len = (int64_t)strlen(digits);
	if (c->prec > len)
		strbuf_pad(&s, '0', (size_t)(c->prec - len));
	strbuf_puts(&s, digits);
	put_padded(out, c, s.s, s.len, (int64_t)s.len, keep);
	strbuf_free(&s);
}

static void put_int64(struct strbuf *out, const struct conv *c, int64_t v)
{
	char digits[32];
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	snprintf(digits, sizeof digits, c->type == 'o' ? "%llo" : c->type == 'x' ? "%llx" : c->type == 'X' ? "%llX" :
		 "%llu", (unsigned long long)m);
	put_integer(out, c, v < 0, digits);
}

/* A one-element value's number (tensor, numpy scalar or Python number), or
 * -1 with the error float() or int() would give. */
static int one_number(const struct value *v, double *x, bool *integral, const char *what, struct qkv_error *err)
{
	if (v->kind == V_INT || v->kind == V_BOOL || v->kind == V_FLOAT) {
		*x = value_as_double(v);
		*integral = v->kind != V_FLOAT;
		return 0;
	}
	if (v->kind == V_TENSOR && tensor_numel(v->t) == 1) {
		*x = tensor_get(v->t, 0);
		*integral = !dtype_is_float(v->t->dtype);
		return 0;
	}
	if (v->kind == V_TENSOR && v->t->flavor == FLAVOR_TORCH)
		return error_set(err, 0, 0, "ValueError: only one element tensors can be converted to Python scalars");
	return error_set(err, 0, 0, "%s", what);
}

/* %d %i %u: int(v), which truncates a float; %o %x %X: v.__index__(), which
 * only whole-number types have. */
static int put_int_conv(struct strbuf *out, const struct conv *c, const struct value *v, struct qkv_error *err)
{
	char what[160];
	bool index = strchr("oxX", c->type) != NULL;
	snprintf(what, sizeof what, "TypeError: %%%c format: %s, not %s", c->type,
		 index ? "an integer is required" : "a real number is required", py_type_name(v));
	if (v->kind == V_INT || v->kind == V_BOOL) {
		put_int64(out, c, v->kind == V_INT ? v->i : v->b);
		return 0;
	}
	if (v->kind == V_TENSOR && !dtype_is_float(v->t->dtype) && tensor_numel(v->t) == 1) {
		put_int64(out, c, tensor_get_i64(v->t, 0));
		return 0;
	}
	if (index || (v->kind == V_TENSOR && v->t->flavor == FLAVOR_NUMPY && tensor_numel(v->t) != 1))
		return error_set(err, 0, 0, "%s", what);
	double x;
	bool integral;
	if (one_number(v, &x, &integral, what, err) < 0)
		return -1;
	if (isnan(x))
		return error_set(err, 0, 0, "ValueError: cannot convert float NaN to integer");
	if (isinf(x))
		return error_set(err, 0, 0, "OverflowError: cannot convert float infinity to integer");
	x = trunc(x);
	if (fabs(x) < 9.2e18) {
		put_int64(out, c, (int64_t)x);
		return 0;
	}
	char digits[400];	/* a double's integer part, exactly: at most 309 digits */
	snprintf(digits, sizeof digits, "%.0f", fabs(x));
	put_integer(out, c, x < 0, digits);
	return 0;
}

/* %e %E %f %F %g %G: float(v), as C's printf formats it (the same digits as
 * CPython's; only a NaN's sign, which CPython drops, differs). */
static int put_float_conv(struct strbuf *out, const struct conv *c, const struct value *v, struct qkv_error *err)
{
	char what[96];
	snprintf(what, sizeof what, "TypeError: must be real number, not %s", py_type_name(v));
	double x;
	bool integral;
	if (one_number(v, &x, &integral, what, err) < 0)
		return -1;
	if (isnan(x))
		x = fabs(x);
	/* the number at its least width, then padded: C pads inf and nan with
	 * spaces where CPython's 0 flag pads them with zeros too */
	char fmt[32];
	snprintf(fmt, sizeof fmt, "%%%s%s%s.*%c", c->plus ? "+" : "", c->space ? " " : "", c->alt ? "#" : "", c->type);
	int prec = c->prec < 0 ? 6 : (int)c->prec;
	int n = snprintf(NULL, 0, fmt, prec, x);
	char *text = xmalloc((size_t)n + 1);
	snprintf(text, (size_t)n + 1, fmt, prec, x);
	put_padded(out, c, text, (size_t)n, n, strchr("+- ", text[0]) ? 1 : 0);
	free(text);
	return 0;
}

/* %c: a code point (an int, or a whole-number tensor of one element) or a
 * string of one character. */
static int put_char_conv(struct strbuf *out, const struct conv *c, const struct value *v, struct qkv_error *err)
{
	char buf[4];
	size_t n;
	if (v->kind == V_STR) {
		if (v->str[0] == 0 || v->str[utf8_offset(v->str, 1)] != 0)
			return error_set(err, 0, 0, "TypeError: %%c requires int or char");
		n = strlen(v->str);
		memcpy(buf, v->str, n);
	} else {
		int64_t cp;
		if (v->kind == V_INT || v->kind == V_BOOL)
			cp = v->kind == V_INT ? v->i : v->b;
		else if (v->kind == V_TENSOR && !dtype_is_float(v->t->dtype) && tensor_numel(v->t) == 1)
			cp = tensor_get_i64(v->t, 0);
		else
			return error_set(err, 0, 0, "TypeError: %%c requires int or char");
		if (cp < 0 || cp >= 0x110000)
			return error_set(err, 0, 0, "OverflowError: %%c arg not in range(0x110000)");
		n = (size_t)utf8_encode(buf, (uint32_t)cp);
	}
	put_padded(out, c, buf, n, 1, 0);
	return 0;
}

/* ascii(): repr's text with each character past ASCII as \xhh, \uhhhh or \Uhhhhhhhh. */
static void ascii_of(struct strbuf *out, const char *s)
{
	for (size_t i = 0; s[i];) {
		uint32_t cp;
		int n = utf8_decode(s + i, strlen(s + i), &cp);
		if (cp < 0x80)
			strbuf_putc(out, (char)cp);
		else
			strbuf_printf(out, cp < 0x100 ? "\\x%02x" : cp < 0x10000 ? "\\u%04x" : "\\U%08x", (unsigned)cp);
		i += (size_t)n;
	}
}

/* %s %r %a: str(), repr() or ascii(), cut to prec characters. */
static int put_text_conv(struct interp *I, struct strbuf *out, const struct conv *c, struct value *v,
			 struct qkv_error *err)
{
	struct strbuf text;
	strbuf_init(&text);
	int rc = runtime_text(I, NULL, v, c->type != 's', &text, err);
	if (rc == 0 && c->type == 'a') {
		struct strbuf a;
		strbuf_init(&a);
		ascii_of(&a, text.s);
		strbuf_free(&text);
		text = a;
	}
	if (rc == 0) {
		size_t n = text.len;
		if (c->prec >= 0)
			n = utf8_offset(text.s, (size_t)c->prec);
		int64_t chars = (int64_t)utf8_count_n(text.s, n);
		put_padded(out, c, text.s, n, chars, 0);
	}
	strbuf_free(&text);
	return rc;
}

/* The arguments of a format: a tuple's items one by one, or one value used
 * once; a mapping (any subscriptable value but a tuple or str, as CPython
 * decides) also answers %(key)s. */
struct pct_args {
	struct value *args;
	int64_t count, next;	/* count -1: args is the one argument */
	bool mapping;
};

static struct value *next_arg(struct pct_args *a, struct qkv_error *err)
{
	if (a->count < 0 ? a->next >= 1 : a->next >= a->count)
		return error_set(err, 0, 0, "TypeError: not enough arguments for format string"), NULL;
	return a->count < 0 ? (a->next++, a->args) : a->args->items[a->next++];
}

/* A width or precision: digits, or '*' for the next argument (an int). */
static int read_number(const char **p, struct pct_args *a, int64_t *out, bool *negative, struct qkv_error *err)
{
	*negative = false;
	if (**p == '*') {
		(*p)++;
		struct value *v = next_arg(a, err);
		if (!v)
			return -1;
		if (v->kind != V_INT && v->kind != V_BOOL)
			return error_set(err, 0, 0, "TypeError: * wants int");
		int64_t n = v->kind == V_INT ? v->i : v->b;
		*negative = n < 0;
		*out = n < 0 ? (n == INT64_MIN ? INT64_MAX : -n) : n;
	} else {
		int64_t n = 0;
		for (; **p >= '0' && **p <= '9'; (*p)++)
			n = n < INT64_MAX / 10 ? n * 10 + (**p - '0') : INT64_MAX;
		*out = n;
	}
	return value_check_str(*out, err);	/* a width of a billion: MemoryError, not a billion spaces */
}

/* The value of %(key) (*p at its '('): the mapping's item under the string
 * key, parentheses inside it balanced. Arguments by position end there. */
static struct value *mapped_arg(struct interp *I, struct pct_args *a, const char **p, struct qkv_error *err)
{
	if (!a->mapping)
		return error_set(err, 0, 0, "TypeError: format requires a mapping"), NULL;
	const char *start = ++*p;
	int depth = 1;
	for (; **p && depth > 0; (*p)++)
		depth += **p == '(' ? 1 : **p == ')' ? -1 : 0;
	if (depth > 0)
		return error_set(err, 0, 0, "ValueError: incomplete format key"), NULL;
	a->next = 1;
	struct value *key = value_str_take(xstrndup(start, (size_t)(*p - 1 - start)));
	struct value *v = container_index(I, a->args, key, err);
	value_unref(key);
	return v;
}

struct value *runtime_percent(struct interp *I, const char *fmt, struct value *args, struct qkv_error *err)
{
	bool tuple = args->kind == V_TUPLE;
	/* CPython's mapping: what has __getitem__, but a tuple or a str */
	bool mapping = args->kind == V_DICT || args->kind == V_LIST || args->kind == V_RANGE || args->kind == V_SIZE ||
		       args->kind == V_TENSOR;
	struct pct_args a = { args, tuple ? args->n : -1, 0, mapping };
	struct strbuf out;
	strbuf_init(&out);
	for (const char *p = fmt; *p;) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			strbuf_puts(&out, p);
			break;
		}
		strbuf_putn(&out, p, (size_t)(pct - p));
		p = pct + 1;
		if (*p == '%') {
			strbuf_putc(&out, '%');
			p++;
			continue;
		}
		struct value *v = NULL, *owned = NULL;
		if (*p == '(' && !(owned = v = mapped_arg(I, &a, &p, err)))
			goto fail;
		struct conv c = { .prec = -1 };
		for (;; p++) {
			if (*p == '-')
				c.left = true;
			else if (*p == '+')
				c.plus = true;
			else if (*p == ' ')
				c.space = true;
			else if (*p == '#')
				c.alt = true;
			else if (*p == '0')
				c.zero = true;
			else
				break;
		}
		bool negative;
		if (read_number(&p, &a, &c.width, &negative, err) < 0)
			goto fail_conv;
		c.left |= negative;
		if (*p == '.') {
			p++;
			if (read_number(&p, &a, &c.prec, &negative, err) < 0)
				goto fail_conv;
			if (negative)
				c.prec = 0;
		}
		while (*p == 'h' || *p == 'l' || *p == 'L')
			p++;
		if (!*p) {
			error_set(err, 0, 0, "ValueError: incomplete format");
			goto fail_conv;
		}
		c.type = *p++;
		if (!v && !(v = next_arg(&a, err)))	/* (before the type is checked, as CPython) */
			goto fail;
		if (c.left || !strchr("diuoxXeEfFgG", c.type))
			c.zero = false;	/* text pads with spaces */
		if (!strchr("sradiuoxXeEfFgGc", c.type)) {
			uint32_t cp;
			utf8_decode(p - 1, strlen(p - 1), &cp);
			error_set(err, 0, 0, "ValueError: unsupported format character '%.*s' (0x%x) at index %zu",
				  (int)utf8_offset(p - 1, 1), p - 1, (unsigned)cp, utf8_count_n(fmt, (size_t)(p - 1 - fmt)));
			goto fail_conv;
		}
		int rc = strchr("sra", c.type) ? put_text_conv(I, &out, &c, v, err) :
			 strchr("diuoxX", c.type) ? put_int_conv(&out, &c, v, err) :
			 c.type == 'c' ? put_char_conv(&out, &c, v, err) : put_float_conv(&out, &c, v, err);
		if (owned)
			value_unref(owned);
		if (rc < 0 || value_check_str((int64_t)out.len, err) < 0)
			goto fail;
		continue;
fail_conv:
		if (owned)
			value_unref(owned);
		goto fail;
	}
	if (!a.mapping && (a.count < 0 ? a.next < 1 : a.next < a.count)) {
		error_set(err, 0, 0, "TypeError: not all arguments converted during string formatting");
		goto fail;
	}
	return value_str_take(strbuf_detach(&out));
fail:
	strbuf_free(&out);
	return NULL;
}
