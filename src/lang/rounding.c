/* rounding.c: rounding as Python, torch and numpy do it. round(x) and
 * round(x, n) of Python's numbers (half to even, as CPython: n digits of
 * the decimal the float is), of numpy's scalars and arrays (np.round's
 * multiply, rint and divide, a numpy scalar back; round(np.float64) alone
 * a Python int); torch.round(x, decimals=) and x.round(decimals=) (the
 * decimals only by keyword, integers refused with them); np.round(a,
 * decimals=0), np.around and a.round(decimals). The arithmetic is
 * core/ops.c's ops_round; called through builtins.c's and methods.c's
 * tables; never prints. */
#include "lang/bound.h"
#include "lang/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

struct value *rounding_python(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("number", "ndigits"), 1, &a, err) < 0)
		return NULL;
	struct value *v = a.v[0];
	bool digits = a.v[1] && a.v[1]->kind != V_NONE;
	if ((v->kind == V_BOOL && v->np) || v->kind == V_TENSOR)
		return args_error(err, c, &a, 0, "TypeError: type %s doesn't define __round__ method",
				  v->kind != V_TENSOR ? "numpy.bool_" : v->t->flavor == FLAVOR_TORCH ? "Tensor" : "numpy.ndarray"),
		       args_fail(&a);
	if (value_is_number(v) && v->np && digits) {
		/* a numpy scalar rounds as np.round: a numpy scalar back */
		int64_t nd = 0;
		if (args_int(c, &a, 1, 0, &nd, err) < 0)
			return args_fail(&a);
		struct tensor *t = value_scalar_array(v);
		struct tensor *r = ops_round(t, nd, digits, err);
		tensor_unref(t);
		return r ? args_return(&a, value_from_result(r)) : (args_error(err, c, &a, 0, "%s", err->msg), args_fail(&a));
	}
	double x;
	int64_t nd;
	if (args_double(c, &a, 0, 0, &x, err) < 0 || args_int(c, &a, 1, 0, &nd, err) < 0)
		return args_fail(&a);
	if (v->kind == V_INT || v->kind == V_BOOL) {
		/* Python: round(int) and round(int, n) are ints (half to even) */
		int64_t n = v->kind == V_INT ? v->i : v->b;
		if (!a.v[1] || a.v[1]->kind == V_NONE || nd >= 0)
			return args_return(&a, value_int(n));
		if (nd < -18)
			return args_return(&a, value_int(0));
		int64_t p = 1;
		for (int64_t k = 0; k < -nd; k++)
			p *= 10;
		int64_t q = n / p, r = n % p;
		if (r < 0) {
			r += p;
			q--;
		}
		if (2 * r > p || (2 * r == p && (q & 1)))
			q++;
		int64_t out;
		if (__builtin_mul_overflow(q, p, &out))
			return args_error(err, c, &a, 0, "integer overflow in round()"), args_fail(&a);
		return args_return(&a, value_int(out));
	}
	if (!a.v[1] || a.v[1]->kind == V_NONE) {
		double r = nearbyint(x);	/* round half to even, as Python */
		if (!isfinite(r) || fabs(r) >= 9.2e18)
			return args_error(err, c, &a, 0, "cannot round %g to an integer", x), args_fail(&a);
		return args_return(&a, value_int((int64_t)r));
	}
	if (nd > 300 || nd < -300)
		return args_return(&a, value_float(nd > 0 ? x : 0.0 * x));
	char buf[400];
	snprintf(buf, sizeof buf, "%.*f", nd >= 0 ? (int)nd : 0, nd >= 0 ? x : x / pow(10, (double)-nd));
	double r = strtod(buf, NULL);
	if (nd < 0)
		r = nearbyint(x / pow(10, (double)-nd)) * pow(10, (double)-nd);
	return args_return(&a, value_float(r));
}

/* torch.round(input, *, decimals=0) and x.round(*, decimals=0). */
struct value *rounding_torch(struct call *c, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("input", "*", "decimals"), 1, &b, err) < 0)
		return NULL;
	const struct value *rest = arg(&b, 1), *d = arg(&b, 2);
	if ((rest && rest->n > 0) || (d && d->kind != V_INT)) {
		const char *got = rest && rest->n > 0 ? value_type_name(rest->items[0]) : NULL;
		return FAIL_AT(c, &b, rest && rest->n > 0 ? 1 : 2, "TypeError: round() received an invalid combination "
			       "of arguments - got (Tensor, %s%s), but expected one of:\n * (Tensor input, *, Tensor out)\n"
			       " * (Tensor input, *, int decimals, Tensor out)", got ? got : "decimals=",
			       got ? "" : value_type_name(d));
	}
	if (b.x->flavor != FLAVOR_TORCH)
		return FAIL_AT(c, &b, 0, "TypeError: round(): argument 'input' (position 1) must be Tensor, not "
			       "numpy.ndarray");
	return bound_done(c, &b, ops_round(b.x, d ? d->i : 0, d != NULL, err), err);
}

/* np.round(a, decimals=0), np.around(...) and a.round(decimals=0). */
struct value *rounding_numpy(struct call *c, struct qkv_error *err)
{
	struct bound b;
	if (bound_bind(c, P("a", "decimals"), 1, &b, err) < 0)
		return NULL;
	int64_t nd = 0;
	if (given(&b, 1) && arg(&b, 1)->kind != V_INT && arg(&b, 1)->kind != V_BOOL)
		return FAIL_AT(c, &b, 1, "TypeError: '%s' object cannot be interpreted as an integer",
			       value_type_name(arg(&b, 1)));
	if (given(&b, 1))
		nd = arg(&b, 1)->kind == V_BOOL ? arg(&b, 1)->b : arg(&b, 1)->i;
	return bound_done(c, &b, ops_round(b.x, nd, true, err), err);
}

/* x.round(...): torch's or numpy's, by x's flavour. */
struct value *rounding_method(struct call *c, struct qkv_error *err)
{
	return c->self->t->flavor == FLAVOR_NUMPY ? rounding_numpy(c, err) : rounding_torch(c, err);
}

const struct builtin rounding_functions[] = {
	{ "torch.round", rounding_torch }, { "numpy.round", rounding_numpy }, { "numpy.around", rounding_numpy },
	{ NULL, NULL },
};
