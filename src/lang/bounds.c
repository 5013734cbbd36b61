/* bounds.c: the elementwise larger and smaller of two, and a value held
 * between bounds: np.maximum and np.minimum (broadcast, a NaN on either
 * side wins, numbers and lists as numpy takes them), np.clip(a, a_min,
 * a_max) and a.clip, torch.clamp / torch.clip (min=, max=, numbers or
 * tensors) and x.clamp, x.clip, x.clamp_. A clip is the maximum with the
 * lower bound, then the minimum with the upper: a lower bound over the
 * upper gives the upper everywhere, as torch and numpy give it; dtypes
 * promote as an operator promotes them (an int tensor clamped to 1.5 is
 * float). Calls core/ops; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

static struct ops_ctx *OPS(struct call *c)
{
	return &c->I->ops;
}

/* op (EW_MAX or EW_MIN) of x and argument i; x unref'd; NULL with err at i. */
static struct tensor *bound_by(struct call *c, struct args *a, int i, bool numpy, struct tensor *x, enum ew_op op,
			       struct qkv_error *err)
{
	struct operand o;
	struct ops_number box;
	struct tensor *made = NULL, *r = NULL;
	if (args_operand(c, a, i, numpy, &o, &box, &made, err) == 0) {
		r = ops_binary(OPS(c), (struct operand){ x, false }, o, op, err);
		if (!r)
			args_error(err, c, a, i, "%s", err->msg);
	}
	tensor_unref(made);
	tensor_unref(x);
	return r;
}

/* The first operand of np.maximum and np.clip as an array (a number a
 * 0-d one, so two numbers give a numpy scalar); NULL with err. */
static struct tensor *numpy_first(struct call *c, struct args *a, struct qkv_error *err)
{
	if (value_is_number(a->v[0]))
		return value_scalar_array(a->v[0]);
	return args_array(c, a, 0, err);
}

static struct value *np_extreme(struct call *c, enum ew_op op, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x1", "x2"), 2, &a, err) < 0)
		return NULL;
	struct tensor *x = numpy_first(c, &a, err);
	if (!x)
		return args_fail(&a);
	return args_done(c, &a, bound_by(c, &a, 1, true, x, op, err), err);
}

static struct value *np_maximum(struct call *c, struct qkv_error *err) { return np_extreme(c, EW_MAX, err); }
static struct value *np_minimum(struct call *c, struct qkv_error *err) { return np_extreme(c, EW_MIN, err); }

/* x (taken) held between arguments lo and hi (either may be absent or
 * None, not both: the message is the caller's). */
static struct tensor *clip(struct call *c, struct args *a, int lo, int hi, bool numpy, struct tensor *x,
			   struct qkv_error *err)
{
	if (a->v[lo] && a->v[lo]->kind != V_NONE && !(x = bound_by(c, a, lo, numpy, x, EW_MAX, err)))
		return NULL;
	if (a->v[hi] && a->v[hi]->kind != V_NONE)
		x = bound_by(c, a, hi, numpy, x, EW_MIN, err);
	return x;
}

static bool none(const struct value *v)
{
	return !v || v->kind == V_NONE;
}

/* np.clip(a, a_min, a_max) and a.clip(min=None, max=None) */
static struct value *np_clip(struct call *c, struct qkv_error *err)
{
	struct args a;
	bool method = c->self != NULL;
	if (args_bind(c, method ? P("min", "max") : P("a", "a_min", "a_max"), method ? 0 : 3, &a, err) < 0)
		return NULL;
	int lo = method ? 0 : 1;
	if (none(a.v[lo]) && none(a.v[lo + 1]))
		return args_error(err, c, &a, -1, "ValueError: One of max or min must be given"), args_fail(&a);
	struct tensor *x = method ? tensor_ref(c->self->t) : numpy_first(c, &a, err);
	if (!x)
		return args_fail(&a);
	return args_done(c, &a, clip(c, &a, lo, lo + 1, true, x, err), err);
}

/* torch.clamp(input, min=None, max=None), torch.clip, x.clamp, x.clip; and
 * x.clamp_ (in place: the result must fit x's dtype). */
static struct value *torch_clamp(struct call *c, bool in_place, struct qkv_error *err)
{
	struct args a;
	struct tensor *x;
	int lo = args_bind_input(c, P("min", "max"), 0, &a, &x, err);
	if (lo < 0)
		return NULL;
	if (none(a.v[lo]) && none(a.v[lo + 1]))
		return args_error(err, c, &a, -1, "torch.clamp: At least one of 'min' or 'max' must not be None"),
		       args_fail(&a);
	bool mixed = !none(a.v[lo]) && !none(a.v[lo + 1]) &&
		     (a.v[lo]->kind == V_TENSOR) != (a.v[lo + 1]->kind == V_TENSOR);
	for (int i = lo; i <= lo + 1; i++)
		if (mixed || (!none(a.v[i]) && a.v[i]->kind != V_TENSOR && !value_is_number(a.v[i])))
			return args_error(err, c, &a, i, "TypeError: clamp() received an invalid combination of arguments - "
					  "got (Tensor, %s%s%s), but expected one of:\n * (Tensor input, Tensor min, Tensor "
					  "max, *, Tensor out)\n * (Tensor input, Number min, Number max, *, Tensor out)",
					  value_type_name(a.v[lo]), mixed ? ", " : "", mixed ? value_type_name(a.v[lo + 1]) : ""),
			       args_fail(&a);
	struct tensor *r = clip(c, &a, lo, lo + 1, false, tensor_ref(x), err);
	if (!r || !in_place)
		return args_done(c, &a, r, err);
	if (dtype_is_float(r->dtype) && !dtype_is_float(x->dtype)) {
		tensor_unref(r);
		return args_error(err, c, &a, -1, "result type Float can't be cast to the desired output type %s",
				  x->dtype == DT_BOOL ? "bool" : "long int"), args_fail(&a);
	}
	interp_will_write(c->I, x->storage);
	int rc = ops_assign(x, r, err);
	tensor_unref(r);
	return rc < 0 ? args_fail(&a) : args_return(&a, value_ref(c->self));
}

static struct value *t_clamp(struct call *c, struct qkv_error *err) { return torch_clamp(c, false, err); }

/* torch.clamp_min(input, min) and x.clamp_min(min) (op EW_MAX); clamp_max
 * (EW_MIN): one bound, a number or a tensor, required. */
static struct value *clamp_one(struct call *c, enum ew_op op, struct qkv_error *err)
{
	struct args a;
	const char *bound = op == EW_MAX ? "min" : "max";
	struct tensor *x;
	int i = args_bind_input(c, P(bound), 1, &a, &x, err);
	if (i < 0)
		return NULL;
	if (a.v[i]->kind != V_TENSOR && !value_is_number(a.v[i]))
		return args_error(err, c, &a, i, "TypeError: clamp_%s() received an invalid %s: expected a number or "
				  "a tensor, got %s", bound, bound, value_type_name(a.v[i])), args_fail(&a);
	return args_done(c, &a, bound_by(c, &a, i, false, tensor_ref(x), op, err), err);
}

struct value *bounds_clamp_min(struct call *c, struct qkv_error *err) { return clamp_one(c, EW_MAX, err); }
struct value *bounds_clamp_max(struct call *c, struct qkv_error *err) { return clamp_one(c, EW_MIN, err); }

/* x.clamp(...), x.clip(...): torch's or numpy's by x's flavour */
struct value *bounds_clip_method(struct call *c, struct qkv_error *err)
{
	return c->self->t->flavor == FLAVOR_NUMPY ? np_clip(c, err) : torch_clamp(c, false, err);
}

/* x.clamp(...) and x.clamp_(...): torch's alone */
struct value *bounds_clamp_method(struct call *c, struct qkv_error *err)
{
	return torch_clamp(c, false, err);
}

struct value *bounds_clamp_(struct call *c, struct qkv_error *err)
{
	return torch_clamp(c, true, err);
}

const struct builtin bounds_functions[] = {
	{ "numpy.maximum", np_maximum }, { "numpy.minimum", np_minimum }, { "numpy.clip", np_clip },
	{ "torch.clamp", t_clamp }, { "torch.clip", t_clamp },
	{ "torch.clamp_min", bounds_clamp_min }, { "torch.clamp_max", bounds_clamp_max },
	{ NULL, NULL },
};
