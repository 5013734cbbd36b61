/* arith.c: the function and method forms of torch's operators:
 * torch.add, sub, mul, div, true_divide, floor_divide, remainder, pow, eq,
 * ne, lt, le, gt, ge, and x.add(...) and the rest, each exactly what its
 * operator computes (eval_binop, with the operator's grad_fn); the in-place
 * x.add_, sub_, mul_ and div_ (undone with a failing statement);
 * torch.maximum and minimum (NaN wins), torch.neg, square and reciprocal.
 * add and sub take alpha=1 only, div rounding_mode None or 'floor': the
 * others are refused, not approximated. Called through builtins.c's and
 * methods.c's tables; never prints. */
#include "lang/args.h"
#include "lang/autograd.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

struct form {
	const char *name;	/* the function's name after "torch.", the method's */
	int op;			/* OP_ADD ... OP_GE */
};

static const struct form forms[] = {
	{ "add", OP_ADD }, { "sub", OP_SUB }, { "subtract", OP_SUB }, { "mul", OP_MUL }, { "multiply", OP_MUL },
	{ "div", OP_DIV }, { "divide", OP_DIV }, { "true_divide", OP_DIV }, { "floor_divide", OP_FLOORDIV },
	{ "remainder", OP_MOD }, { "pow", OP_POW }, { "eq", OP_EQ }, { "ne", OP_NE }, { "lt", OP_LT }, { "le", OP_LE },
	{ "gt", OP_GT }, { "ge", OP_GE },
};

/* The function's or method's own name: "add" for torch.add */
static const char *form_name(const struct call *c)
{
	const char *name = strrchr(c->name, '.');
	return name ? name + 1 : c->name;
}

/* The operator of the function or method c calls ("torch.add", "add_"). */
static int form_op(const struct call *c, bool *in_place)
{
	const char *name = form_name(c);
	size_t len = strlen(name);
	*in_place = len > 1 && name[len - 1] == '_';
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		if (strlen(forms[i].name) == len - *in_place && strncmp(forms[i].name, name, len - *in_place) == 0)
			return forms[i].op;
	return 0;
}

/* input op other, as the operator computes it; the method's receiver is
 * the input. In place: the result written into the receiver, which must
 * hold its dtype (torch's words otherwise). */
static struct value *binary_form(struct call *c, struct qkv_error *err)
{
	bool in_place;
	int op = form_op(c, &in_place);
	bool method = c->self != NULL;
	bool alpha = op == OP_ADD || op == OP_SUB, rounding = op == OP_DIV;
	const char *second = op == OP_POW ? "exponent" : "other";
	struct args a;
	int rc = method ? args_bind(c, alpha ? P(second, "alpha") : rounding ? P(second, "rounding_mode") : P(second), 1,
				    &a, err)
			: args_bind(c, alpha ? P("input", second, "alpha") : rounding ? P("input", second, "rounding_mode")
					      : P("input", second), 2, &a, err);
	if (rc < 0 || op == 0)
		return rc < 0 ? NULL : (error_set(err, 0, 0, "%s is not an operator qkv knows", c->name), args_fail(&a));
	int io = method ? 0 : 1;	/* other's place */
	struct value *x = method ? c->self : a.v[0];
	struct value *y = a.v[io];
	if (x->kind != V_TENSOR && !(op == OP_POW && value_is_number(x)))
		return args_not_tensor(c, &a, 0, err), args_fail(&a);
	if (alpha && a.v[io + 1] && !(a.v[io + 1]->kind == V_INT && a.v[io + 1]->i == 1))
		return args_error(err, c, &a, io + 1, "qkv's %s takes alpha=1 only: write x %c alpha * y", c->name,
				  op == OP_ADD ? '+' : '-'), args_fail(&a);
	if (rounding && a.v[io + 1] && a.v[io + 1]->kind != V_NONE) {
		const struct value *m = a.v[io + 1];
		if (m->kind == V_STR && strcmp(m->str, "floor") == 0)
			op = OP_FLOORDIV;
		else if (m->kind == V_STR && strcmp(m->str, "trunc") == 0)
			return args_error(err, c, &a, io + 1, "qkv does not divide with rounding_mode='trunc'; 'floor' "
					  "(or //) rounds towards minus infinity"), args_fail(&a);
		else
			return args_error(err, c, &a, io + 1, "RuntimeError: div expected rounding_mode to be one of None, "
					  "'trunc', or 'floor' but found '%s'", m->kind == V_STR ? m->str : value_type_name(m)),
			       args_fail(&a);
	}
	if (y->kind != V_TENSOR && !value_is_number(y))
		return args_error(err, c, &a, io, "TypeError: %s(): argument '%s' (position %d) must be Tensor, not %s",
				  form_name(c), second, io + 1, value_type_name(y)), args_fail(&a);
	struct value *r = eval_binop(c->I, op, x, y, err);
	if (!r)
		return args_error(err, c, &a, io, "%s", err->msg), args_fail(&a);
	if (!in_place) {
		autograd_binop(c->I, op, x, y, r);
		if (rounding && op == OP_FLOORDIV && r->kind == V_TENSOR && r->t->grad.fn)
			r->t->grad.fn = "DivBackward2";	/* (torch's // has none; div with a rounding mode does) */
		return args_return(&a, r);
	}
	struct tensor *t = x->t;
	if (r->kind != V_TENSOR || (dtype_is_float(r->t->dtype) && !dtype_is_float(t->dtype)) ||
	    (r->t->dtype == DT_I64 && t->dtype == DT_BOOL)) {
		value_unref(r);
		return args_error(err, c, &a, -1, "RuntimeError: result type %s can't be cast to the desired output type "
				  "%s", "Float", t->dtype == DT_BOOL ? "Bool" : "Long"), args_fail(&a);
	}
	interp_will_write(c->I, t->storage);
	int wrote = ops_assign(t, r->t, err);
	value_unref(r);
	return wrote < 0 ? args_fail(&a) : args_return(&a, value_ref(x));
}

/* torch.maximum / torch.minimum (and the methods): two tensors, a NaN on
 * either side winning */
static struct value *extreme(struct call *c, enum ew_op op, struct qkv_error *err)
{
	struct args a;
	bool method = c->self != NULL;
	if (args_bind(c, method ? P("other") : P("input", "other"), method ? 1 : 2, &a, err) < 0)
		return NULL;
	struct tensor *x, *y;
	if (method)
		x = c->self->t;
	else if (args_tensor(c, &a, 0, &x, err) < 0)
		return args_fail(&a);
	if (a.v[method ? 0 : 1]->kind != V_TENSOR)
		return args_error(err, c, &a, method ? 0 : 1, "TypeError: %s(): argument 'other' (position %d) must be "
				  "Tensor, not %s", form_name(c), method ? 1 : 2, value_type_name(a.v[method ? 0 : 1])),
		       args_fail(&a);
	y = a.v[method ? 0 : 1]->t;
	return args_done(c, &a, ops_binary(&c->I->ops, (struct operand){ x, false }, (struct operand){ y, false }, op,
					   err),
			 err);
}

struct value *arith_maximum(struct call *c, struct qkv_error *err)
{
	return extreme(c, EW_MAX, err);
}

struct value *arith_minimum(struct call *c, struct qkv_error *err)
{
	return extreme(c, EW_MIN, err);
}

/* torch.neg(x), torch.square(x) (x * x), torch.reciprocal(x) (1 / x, a float)
 * and the methods */
static struct value *unary_form(struct call *c, struct qkv_error *err)
{
	struct args a;
	bool method = c->self != NULL;
	if (args_bind(c, method ? P(NULL) : P("input"), method ? 0 : 1, &a, err) < 0)
		return NULL;
	struct value *x = method ? c->self : a.v[0];
	if (x->kind != V_TENSOR)
		return args_not_tensor(c, &a, 0, err), args_fail(&a);
	const char *name = form_name(c);
	struct value *r;
	if (strcmp(name, "square") == 0) {
		r = eval_binop(c->I, OP_MUL, x, x, err);
	} else if (strcmp(name, "reciprocal") == 0) {
		struct value *one = value_float(1);
		struct tensor *t = dtype_is_float(x->t->dtype) ? tensor_ref(x->t) : ops_to_dtype(x->t, DT_F32);
		struct value *xf = value_tensor(t);
		r = eval_binop(c->I, OP_DIV, one, xf, err);
		value_unref(one);
		value_unref(xf);
	} else {
		r = value_from_result(ops_unary(&c->I->ops, x->t, EW_NEG, err));
	}
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_return(&a, r);
}

struct value *arith_binary(struct call *c, struct qkv_error *err)
{
	return binary_form(c, err);
}

struct value *arith_unary(struct call *c, struct qkv_error *err)
{
	return unary_form(c, err);
}

const struct builtin arith_functions[] = {
	{ "torch.add", arith_binary }, { "torch.sub", arith_binary }, { "torch.subtract", arith_binary },
	{ "torch.mul", arith_binary }, { "torch.multiply", arith_binary }, { "torch.div", arith_binary },
	{ "torch.divide", arith_binary }, { "torch.true_divide", arith_binary }, { "torch.floor_divide", arith_binary },
	{ "torch.remainder", arith_binary }, { "torch.pow", arith_binary }, { "torch.eq", arith_binary },
	{ "torch.ne", arith_binary }, { "torch.lt", arith_binary }, { "torch.le", arith_binary },
	{ "torch.gt", arith_binary }, { "torch.ge", arith_binary }, { "torch.maximum", arith_maximum },
	{ "torch.minimum", arith_minimum }, { "torch.neg", arith_unary }, { "torch.negative", arith_unary },
	{ "torch.square", arith_unary }, { "torch.reciprocal", arith_unary },
	{ NULL, NULL },
};
