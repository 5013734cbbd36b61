/* aliases.c: small torch functions and methods that are another operation
 * under torch's name: torch.is_tensor, torch.logical_not,
 * torch.unbind (x.unbind), torch.outer, and the methods x.cpu() (x itself:
 * qkv runs on the CPU), x.expand_as(y), x.type_as(y), x.logical_not(). Each
 * as torch gives it, with its errors. Called through builtins.c's and
 * methods.c's tables; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* x: the method's receiver, or argument 0 of the function */
static int input(struct call *c, struct args *a, struct tensor **x, struct qkv_error *err)
{
	if (c->self) {
		*x = c->self->t;
		return 0;
	}
	return args_tensor(c, a, 0, x, err);
}

static struct value *is_tensor(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("obj"), 1, &a, err) < 0)
		return NULL;
	return args_return(&a, value_bool(a.v[0]->kind == V_TENSOR && a.v[0]->t->flavor == FLAVOR_TORCH));
}

static struct value *logical_not(struct call *c, struct qkv_error *err)
{
	struct args a;
	struct tensor *x;
	if (args_bind(c, c->self ? P(NULL) : P("input"), c->self ? 0 : 1, &a, err) < 0)
		return NULL;
	if (input(c, &a, &x, err) < 0)
		return args_fail(&a);
	if (x->dtype == DT_BOOL)
		return args_done(c, &a, ops_logical_not(&c->I->ops, x, err), err);
	/* a number is false when it is 0 */
	struct tensor *zero = ops_scalar(x->dtype, x->flavor, 0);
	struct tensor *r = ops_compare(&c->I->ops, (struct operand){ x, false }, (struct operand){ zero, true }, CMP_EQ,
				       err);
	tensor_unref(zero);
	return args_done(c, &a, r, err);
}

/* torch.unbind(input, dim=0) and x.unbind(dim): a tuple of the views along dim */
static struct value *unbind(struct call *c, struct qkv_error *err)
{
	struct args a;
	struct tensor *x;
	if (args_bind(c, c->self ? P("dim") : P("input", "dim"), c->self ? 0 : 1, &a, err) < 0)
		return NULL;
	int id = c->self ? 0 : 1, dim = 0;
	if (input(c, &a, &x, err) < 0 || (a.v[id] && args_dim(c, &a, id, x->ndim, &dim, err) < 0))
		return args_fail(&a);
	if (x->ndim == 0)
		return args_error(err, c, &a, -1, "IndexError: Dimension specified as 0 but tensor has no dimensions"),
		       args_fail(&a);
	int64_t n = x->shape[dim];
	if (value_check_items(V_TUPLE, n, err) < 0)
		return args_fail(&a);
	struct value *r = value_seq(V_TUPLE, (int)n);
	for (int64_t i = 0; i < n; i++)
		r->items[i] = value_tensor(ops_select(x, dim, i, err));
	return args_return(&a, r);
}

/* torch.outer(input, vec2): two 1-D tensors, input as a column times vec2 */
static struct value *outer(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("input", "vec2"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x, *y;
	if (args_tensor(c, &a, 0, &x, err) < 0 || args_tensor(c, &a, 1, &y, err) < 0)
		return args_fail(&a);
	for (int i = 0; i < 2; i++)
		if ((i ? y : x)->ndim != 1)
			return args_error(err, c, &a, i, "RuntimeError: outer: Expected 1-D argument %s, but got %d-D",
					  i ? "vec2" : "self", (i ? y : x)->ndim), args_fail(&a);
	int64_t col[2] = { x->shape[0], 1 };
	struct tensor *xc = ops_reshape(&c->I->ops, x, 2, col, err);
	struct tensor *r = xc ? ops_binary(&c->I->ops, (struct operand){ xc, false }, (struct operand){ y, false }, EW_MUL,
					   err)
			      : NULL;
	tensor_unref(xc);
	return args_done(c, &a, r, err);
}

/* x.cpu(): x itself */
static struct value *cpu(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_return(&a, value_ref(c->self));
}

/* x.expand_as(other) and x.type_as(other) */
static struct value *as_other(struct call *c, bool expand, struct qkv_error *err)
{
	struct args a;
	struct tensor *y;
	if (args_bind(c, P("other"), 1, &a, err) < 0)
		return NULL;
	if (args_tensor(c, &a, 0, &y, err) < 0)
		return args_fail(&a);
	struct tensor *x = c->self->t;
	struct tensor *r = expand ? pieces_expand_to(x, y->ndim, y->shape, err) : ops_to_dtype(x, y->dtype);
	if (!r)
		return args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a);
	return args_done(c, &a, r, err);
}

/* The methods (numpy's arrays have none of them: runtime_attr refuses them there) */
struct value *aliases_cpu(struct call *c, struct qkv_error *err)
{
	return cpu(c, err);
}

struct value *aliases_expand_as(struct call *c, struct qkv_error *err)
{
	return as_other(c, true, err);
}

struct value *aliases_type_as(struct call *c, struct qkv_error *err)
{
	return as_other(c, false, err);
}

struct value *aliases_logical_not(struct call *c, struct qkv_error *err)
{
	return logical_not(c, err);
}

struct value *aliases_unbind(struct call *c, struct qkv_error *err)
{
	return unbind(c, err);
}

const struct builtin aliases_functions[] = {
	{ "torch.is_tensor", is_tensor }, { "torch.logical_not", logical_not },
	{ "torch.unbind", unbind }, { "torch.outer", outer },
	{ NULL, NULL },
};
