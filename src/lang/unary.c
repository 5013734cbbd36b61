/* unary.c: functions of one number, applied to each element: torch.floor,
 * ceil, trunc, sign, rsqrt, log2, log10, log1p, expm1, exp2 and erf and
 * their methods (x.floor(), ...); numpy's floor, ceil, trunc, sign (NaN
 * stays NaN), log2, log10, log1p, expm1 and exp2, and scipy.special.erf;
 * and the math module's functions of a Python number (math.sqrt, exp, log,
 * sin, cos, tanh, floor, ceil, trunc, log2, log10, log1p, expm1, exp2, erf),
 * with Python's errors. The dtypes and the refusals of bools are torch's
 * and numpy's (core's ops_unary). Called through builtins.c's and
 * methods.c's tables; never prints. */
#include "lang/args.h"
#include "lang/runtime.h"

#include <math.h>
#include <string.h>

#define P(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The function's own name: "floor" for torch.floor, np.floor or x.floor */
static const char *own_name(const struct call *c)
{
	const char *dot = strrchr(c->name, '.');
	return dot ? dot + 1 : c->name;
}

/* ---- torch's and numpy's -------------------------------------------------------------- */

static const struct {
	const char *name;
	enum ew_unary op;
} elementwise[] = {
	{ "floor", EW_FLOOR }, { "ceil", EW_CEIL }, { "trunc", EW_TRUNC }, { "sign", EW_SIGN },
	{ "rsqrt", EW_RSQRT }, { "log2", EW_LOG2 }, { "log10", EW_LOG10 }, { "log1p", EW_LOG1P },
	{ "expm1", EW_EXPM1 }, { "exp2", EW_EXP2 }, { "erf", EW_ERF },
};

static enum ew_unary op_of(const struct call *c, bool numpy)
{
	const char *name = own_name(c);
	for (size_t i = 0; i < sizeof elementwise / sizeof elementwise[0]; i++)
		if (strcmp(elementwise[i].name, name) == 0)
			return numpy && elementwise[i].op == EW_SIGN ? EW_SIGN_NAN : elementwise[i].op;
	return EW_NEG;	/* (not reached: every table entry is above) */
}

static struct value *torch_form(struct call *c, struct qkv_error *err)
{
	return builtins_unary(c, op_of(c, false), false, err);
}

static struct value *numpy_form(struct call *c, struct qkv_error *err)
{
	return builtins_unary(c, op_of(c, true), true, err);
}

struct value *unary_method(struct call *c, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P(NULL), 0, &a, err) < 0)
		return NULL;
	return args_done(c, &a, ops_unary(&c->I->ops, c->self->t, op_of(c, false), err), err);
}

/* ---- math -------------------------------------------------------------------------------- */

/* The arguments a math function takes: any x, x >= 0 (sqrt), x > 0 (log),
 * x > -1 (log1p). */
enum domain { ANY, NOT_NEGATIVE, POSITIVE, ABOVE_MINUS_ONE };

/* math.NAME(x) on a Python number (or a tensor of one element), with
 * Python's messages for an x outside the domain and for a finite x whose
 * result overflows. */
static struct value *math_fn(struct call *c, double (*fn)(double), enum domain domain, struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 1, &a, err) < 0)
		return NULL;
	double x;
	if (a.v[0]->kind == V_TENSOR && tensor_numel(a.v[0]->t) != 1)
		return args_error(err, c, &a, 0, "%s() works on numbers; use torch.%s for tensors", c->name,
				  own_name(c)), args_fail(&a);
	if (args_double(c, &a, 0, 0, &x, err) < 0)
		return args_fail(&a);
	if ((domain == NOT_NEGATIVE && x < 0) || (domain == POSITIVE && x <= 0) || (domain == ABOVE_MINUS_ONE && x <= -1))
		return args_error(err, c, &a, 0, "ValueError: math domain error"), args_fail(&a);
	double r = fn(x);
	if (isinf(r) && isfinite(x))
		return args_error(err, c, &a, 0, "OverflowError: math range error"), args_fail(&a);
	return args_return(&a, value_float(r));
}

/* math.floor, ceil and trunc: an int, as Python gives (an int stays itself) */
static struct value *math_to_int(struct call *c, double (*fn)(double), struct qkv_error *err)
{
	struct args a;
	if (args_bind(c, P("x"), 1, &a, err) < 0)
		return NULL;
	if (a.v[0]->kind == V_INT || a.v[0]->kind == V_BOOL)
		return args_return(&a, value_int(a.v[0]->kind == V_INT ? a.v[0]->i : a.v[0]->b));
	double x;
	if (args_double(c, &a, 0, 0, &x, err) < 0)
		return args_fail(&a);
	if (isnan(x))
		return args_error(err, c, &a, 0, "ValueError: cannot convert float NaN to integer"), args_fail(&a);
	double r = fn(x);
	if (!(r >= -0x1p63 && r < 0x1p63))	/* Python's int is unbounded; qkv's is 64 bits */
		return args_error(err, c, &a, 0, isinf(x) ? "OverflowError: cannot convert float infinity to integer"
				  : "%s(): the result does not fit in qkv's 64-bit int", c->name), args_fail(&a);
	return args_return(&a, value_int((int64_t)r));
}

static struct value *m_sqrt(struct call *c, struct qkv_error *err) { return math_fn(c, sqrt, NOT_NEGATIVE, err); }
static struct value *m_exp(struct call *c, struct qkv_error *err) { return math_fn(c, exp, ANY, err); }
static struct value *m_log(struct call *c, struct qkv_error *err) { return math_fn(c, log, POSITIVE, err); }
static struct value *m_sin(struct call *c, struct qkv_error *err) { return math_fn(c, sin, ANY, err); }
static struct value *m_cos(struct call *c, struct qkv_error *err) { return math_fn(c, cos, ANY, err); }
static struct value *m_tanh(struct call *c, struct qkv_error *err) { return math_fn(c, tanh, ANY, err); }
static struct value *m_log2(struct call *c, struct qkv_error *err) { return math_fn(c, log2, POSITIVE, err); }
static struct value *m_log10(struct call *c, struct qkv_error *err) { return math_fn(c, log10, POSITIVE, err); }
static struct value *m_log1p(struct call *c, struct qkv_error *err) { return math_fn(c, log1p, ABOVE_MINUS_ONE, err); }
static struct value *m_expm1(struct call *c, struct qkv_error *err) { return math_fn(c, expm1, ANY, err); }
static struct value *m_exp2(struct call *c, struct qkv_error *err) { return math_fn(c, exp2, ANY, err); }
static struct value *m_erf(struct call *c, struct qkv_error *err) { return math_fn(c, erf, ANY, err); }
static struct value *m_floor(struct call *c, struct qkv_error *err) { return math_to_int(c, floor, err); }
static struct value *m_ceil(struct call *c, struct qkv_error *err) { return math_to_int(c, ceil, err); }
static struct value *m_trunc(struct call *c, struct qkv_error *err) { return math_to_int(c, trunc, err); }

const struct builtin unary_functions[] = {
	{ "torch.floor", torch_form }, { "torch.ceil", torch_form }, { "torch.trunc", torch_form },
	{ "torch.sign", torch_form }, { "torch.rsqrt", torch_form }, { "torch.log2", torch_form },
	{ "torch.log10", torch_form }, { "torch.log1p", torch_form }, { "torch.expm1", torch_form },
	{ "torch.exp2", torch_form }, { "torch.erf", torch_form },
	{ "numpy.floor", numpy_form }, { "numpy.ceil", numpy_form }, { "numpy.trunc", numpy_form },
	{ "numpy.sign", numpy_form }, { "numpy.log2", numpy_form }, { "numpy.log10", numpy_form },
	{ "numpy.log1p", numpy_form }, { "numpy.expm1", numpy_form }, { "numpy.exp2", numpy_form },
	{ "scipy.special.erf", numpy_form },
	{ "math.sqrt", m_sqrt }, { "math.exp", m_exp }, { "math.log", m_log }, { "math.sin", m_sin },
	{ "math.cos", m_cos }, { "math.tanh", m_tanh }, { "math.log2", m_log2 }, { "math.log10", m_log10 },
	{ "math.log1p", m_log1p }, { "math.expm1", m_expm1 }, { "math.exp2", m_exp2 }, { "math.erf", m_erf },
	{ "math.floor", m_floor }, { "math.ceil", m_ceil }, { "math.trunc", m_trunc },
	{ NULL, NULL },
};
