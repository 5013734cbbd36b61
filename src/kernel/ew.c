/* ew.c: elementwise kernels with broadcasting: binary arithmetic, comparisons
 * and unary maths, float32 and float64. Called by the ops layer for every
 * elementwise operator. One plain-C implementation each (no simd twin); never
 * allocates. Shapes have at most KERNEL_MAX_DIMS axes. */
#include "kernel/kernel.h"
#include "kernel/nd.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* ---- scalar rules shared by both widths -------------------------------------
 * pow special-cases the exponents torch special-cases (same results as torch:
 * x*x for 2, sqrt for 0.5, ...). floordiv and mod follow Python: the quotient
 * is floored, the remainder takes the sign of the divisor (7 % -2 == -1,
 * -7 // 2 == -4, 6 % -3 == -0.0); division by zero gives inf or NaN as IEEE
 * division does. max and min propagate NaN like torch.maximum. */
static float ew_pow_f32(float x, float y)
{
	if (y == 2.0f)
		return x * x;
	if (y == 0.5f)
		return sqrtf(x);
	if (y == 3.0f)
		return x * x * x;
	if (y == -0.5f)
		return 1.0f / sqrtf(x);
	if (y == -1.0f)
		return 1.0f / x;
	if (y == -2.0f)
		return 1.0f / (x * x);
	return powf(x, y);
}

static double ew_pow_f64(double x, double y)
{
	if (y == 2.0)
		return x * x;
	if (y == 0.5)
		return sqrt(x);
	if (y == 3.0)
		return x * x * x;
	if (y == -0.5)
		return 1.0 / sqrt(x);
	if (y == -1.0)
		return 1.0 / x;
	if (y == -2.0)
		return 1.0 / (x * x);
	return pow(x, y);
}

/* Python's float floor division (CPython float_floor_div, torch's
 * div_floor_floating): exact for representable quotients. */
static float ew_floordiv_f32(float x, float y)
{
	if (y == 0.0f)
		return x / y;
	float mod = fmodf(x, y);
	float div = (x - mod) / y;
	if (mod != 0.0f && (y < 0.0f) != (mod < 0.0f))
		div -= 1.0f;
	if (div == 0.0f)
		return copysignf(0.0f, x / y);
	float floordiv = floorf(div);
	if (div - floordiv > 0.5f)
		floordiv += 1.0f;
	return floordiv;
}

static double ew_floordiv_f64(double x, double y)
{
	if (y == 0.0)
		return x / y;
	double mod = fmod(x, y);
	double div = (x - mod) / y;
	if (mod != 0.0 && (y < 0.0) != (mod < 0.0))
		div -= 1.0;
	if (div == 0.0)
		return copysign(0.0, x / y);
	double floordiv = floor(div);
	if (div - floordiv > 0.5)
		floordiv += 1.0;
	return floordiv;
}

/* Python's float remainder: the result has the sign of the divisor. */
static float ew_mod_f32(float x, float y)
{
	float mod = fmodf(x, y);
	if (mod == 0.0f)
		return copysignf(0.0f, y);
	if ((y < 0.0f) != (mod < 0.0f))
		mod += y;
	return mod;
}

static double ew_mod_f64(double x, double y)
{
	double mod = fmod(x, y);
	if (mod == 0.0)
		return copysign(0.0, y);
	if ((y < 0.0) != (mod < 0.0))
		mod += y;
	return mod;
}

/* ---- one row: out[i] = expr(x, y), x = a[i*sa], y = b[i*sb] ----------------------
 * The contiguous case and the scalar-operand cases get loops of their own
 * with plain indexing, which the compiler can vectorise. */
#define EW_ROW(T, expr) do { \
		if (sa == 1 && sb == 1) { \
			for (int64_t i = 0; i < n; i++) { \
				T x = a[i], y = b[i]; \
				out[i] = (expr); \
			} \
		} else if (sa == 1 && sb == 0) { \
			T y = b[0]; \
			for (int64_t i = 0; i < n; i++) { \
				T x = a[i]; \
				out[i] = (expr); \
			} \
		} else if (sa == 0 && sb == 1) { \
			T x = a[0]; \
			for (int64_t i = 0; i < n; i++) { \
				T y = b[i]; \
				out[i] = (expr); \
			} \
		} else { \
			for (int64_t i = 0; i < n; i++) { \
				T x = a[i * sa], y = b[i * sb]; \
				out[i] = (expr); \
			} \
		} \
	} while (0)

/* The four arithmetic operators on a contiguous a and a contiguous or
 * broadcast b, four lanes at a time (each lane the same IEEE operation as
 * the scalar loop: the same bits); false for any other case. -O2 leaves
 * these loops scalar, and S / 2 on a 4x4 is one of them. */
typedef float ew_f4 __attribute__((vector_size(16)));

static bool ew_row_f32_x4(float *out, const float *a, int64_t sa, const float *b, int64_t sb, int64_t n,
			  enum ew_op op)
{
	if (sa != 1 || (sb != 0 && sb != 1) || op > EW_DIV || n < 4)
		return false;
	int64_t i = 0;
	ew_f4 y = { b[0], b[0], b[0], b[0] };
	for (; i + 4 <= n; i += 4) {
		ew_f4 x, r;
		memcpy(&x, a + i, sizeof x);
		if (sb)
			memcpy(&y, b + i, sizeof y);
		switch (op) {
		case EW_ADD: r = x + y; break;
		case EW_SUB: r = x - y; break;
		case EW_MUL: r = x * y; break;
		default: r = x / y; break;
		}
		memcpy(out + i, &r, sizeof r);
	}
	for (; i < n; i++) {
		float x = a[i], z = b[i * sb];
		out[i] = op == EW_ADD ? x + z : op == EW_SUB ? x - z : op == EW_MUL ? x * z : x / z;
	}
	return true;
}

/* out is (n), a is read at stride sa, b at stride sb (0: broadcast). */
static void ew_row_f32(float *out, const float *a, int64_t sa, const float *b, int64_t sb,
		       int64_t n, enum ew_op op)
{
	if (ew_row_f32_x4(out, a, sa, b, sb, n, op))
		return;
	switch (op) {
	case EW_ADD: EW_ROW(float, x + y); break;
	case EW_SUB: EW_ROW(float, x - y); break;
	case EW_MUL: EW_ROW(float, x * y); break;
	case EW_DIV: EW_ROW(float, x / y); break;
	case EW_POW: EW_ROW(float, ew_pow_f32(x, y)); break;
	case EW_FLOORDIV: EW_ROW(float, ew_floordiv_f32(x, y)); break;
	case EW_MOD: EW_ROW(float, ew_mod_f32(x, y)); break;
	case EW_MAX: EW_ROW(float, (x > y || x != x) ? x : y); break;
	case EW_MIN: EW_ROW(float, (x < y || x != x) ? x : y); break;
	}
}

static void ew_row_f64(double *out, const double *a, int64_t sa, const double *b, int64_t sb,
		       int64_t n, enum ew_op op)
{
	switch (op) {
	case EW_ADD: EW_ROW(double, x + y); break;
	case EW_SUB: EW_ROW(double, x - y); break;
	case EW_MUL: EW_ROW(double, x * y); break;
	case EW_DIV: EW_ROW(double, x / y); break;
	case EW_POW: EW_ROW(double, ew_pow_f64(x, y)); break;
	case EW_FLOORDIV: EW_ROW(double, ew_floordiv_f64(x, y)); break;
	case EW_MOD: EW_ROW(double, ew_mod_f64(x, y)); break;
	case EW_MAX: EW_ROW(double, (x > y || x != x) ? x : y); break;
	case EW_MIN: EW_ROW(double, (x < y || x != x) ? x : y); break;
	}
}

/* out is (n) bytes, 1 where the comparison holds (IEEE: NaN is only !=). */
static void ew_cmp_row_f32(uint8_t *out, const float *a, int64_t sa, const float *b, int64_t sb,
			   int64_t n, enum cmp_op op)
{
	switch (op) {
	case CMP_EQ: EW_ROW(float, x == y); break;
	case CMP_NE: EW_ROW(float, x != y); break;
	case CMP_LT: EW_ROW(float, x < y); break;
	case CMP_LE: EW_ROW(float, x <= y); break;
	case CMP_GT: EW_ROW(float, x > y); break;
	case CMP_GE: EW_ROW(float, x >= y); break;
	}
}

static void ew_cmp_row_f64(uint8_t *out, const double *a, int64_t sa, const double *b, int64_t sb,
			   int64_t n, enum cmp_op op)
{
	switch (op) {
	case CMP_EQ: EW_ROW(double, x == y); break;
	case CMP_NE: EW_ROW(double, x != y); break;
	case CMP_LT: EW_ROW(double, x < y); break;
	case CMP_LE: EW_ROW(double, x <= y); break;
	case CMP_GT: EW_ROW(double, x > y); break;
	case CMP_GE: EW_ROW(double, x >= y); break;
	}
}

#undef EW_ROW

/* ---- broadcasting: four nested loops over the padded shape ----------------------
 * out is contiguous with the given shape; a and b are read at element strides
 * astr/bstr (0 on a broadcast axis). The innermost axis is handed to a row
 * function. out may equal a or b when that operand is contiguous too. */
/* int64: exact, wrapping on overflow as two's complement (as torch's CPU ops
 * do), floor division and modulo with Python's signs. Division by zero and
 * negative powers are the caller's to refuse (ops.c); here they give 0. */
static int64_t i64_op(int64_t x, int64_t y, enum ew_op op)
{
	uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
	switch (op) {
	case EW_ADD: return (int64_t)(ux + uy);
	case EW_SUB: return (int64_t)(ux - uy);
	case EW_MUL: return (int64_t)(ux * uy);
	case EW_MAX: return x > y ? x : y;
	case EW_MIN: return x < y ? x : y;
	case EW_FLOORDIV:
	case EW_MOD: {
		if (y == 0)
			return 0;
		if (y == -1)	/* INT64_MIN / -1 wraps; x % -1 is 0 */
			return op == EW_FLOORDIV ? (int64_t)(0 - ux) : 0;
		int64_t q = x / y, r = x % y;
		if (r != 0 && ((r < 0) != (y < 0))) {
			q--;
			r += y;
		}
		return op == EW_FLOORDIV ? q : r;
	}
	case EW_POW: {
		if (y < 0)
			return 0;
		uint64_t acc = 1, base = ux;
		for (uint64_t e = uy; e; e >>= 1) {
			if (e & 1)
				acc *= base;
			base *= base;
		}
		return (int64_t)acc;
	}
	case EW_DIV: return y ? x / y : 0;	/* not used: true division makes floats */
	}
	return 0;
}

static void ew_row_i64(int64_t *out, const int64_t *a, int64_t sa, const int64_t *b, int64_t sb, int64_t n,
		       enum ew_op op)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = i64_op(a[i * sa], b[i * sb], op);
}

static void ew_cmp_row_i64(uint8_t *out, const int64_t *a, int64_t sa, const int64_t *b, int64_t sb, int64_t n,
			   enum cmp_op op)
{
	for (int64_t i = 0; i < n; i++) {
		int64_t x = a[i * sa], y = b[i * sb];
		switch (op) {
		case CMP_EQ: out[i] = x == y; break;
		case CMP_NE: out[i] = x != y; break;
		case CMP_LT: out[i] = x < y; break;
		case CMP_LE: out[i] = x <= y; break;
		case CMP_GT: out[i] = x > y; break;
		case CMP_GE: out[i] = x >= y; break;
		}
	}
}

#define EW_BROADCAST(row_fn, op) do { \
		if (ndim <= 1) {	/* one row (the ops layer merges what it can): no padding */ \
			row_fn(out, a, ndim ? astr[0] : 0, b, ndim ? bstr[0] : 0, ndim ? shape[0] : 1, op); \
			break; \
		} \
		int64_t sh[4], as[4], bs[4]; \
		nd_pad4(sh, shape, ndim, 1); \
		nd_pad4(as, astr, ndim, 0); \
		nd_pad4(bs, bstr, ndim, 0); \
		for (int64_t i0 = 0; i0 < sh[0]; i0++) \
			for (int64_t i1 = 0; i1 < sh[1]; i1++) \
				for (int64_t i2 = 0; i2 < sh[2]; i2++) { \
					int64_t ao = i0 * as[0] + i1 * as[1] + i2 * as[2]; \
					int64_t bo = i0 * bs[0] + i1 * bs[1] + i2 * bs[2]; \
					row_fn(out, a + ao, as[3], b + bo, bs[3], sh[3], op); \
					out += sh[3]; \
				} \
	} while (0)

void ew_binary_f32(float *out, const float *a, const int64_t *astr, const float *b,
		   const int64_t *bstr, const int64_t *shape, int ndim, enum ew_op op)
{
	EW_BROADCAST(ew_row_f32, op);
}

void ew_binary_f64(double *out, const double *a, const int64_t *astr, const double *b,
		   const int64_t *bstr, const int64_t *shape, int ndim, enum ew_op op)
{
	EW_BROADCAST(ew_row_f64, op);
}

void ew_compare_f32(uint8_t *out, const float *a, const int64_t *astr, const float *b,
		    const int64_t *bstr, const int64_t *shape, int ndim, enum cmp_op op)
{
	EW_BROADCAST(ew_cmp_row_f32, op);
}

void ew_compare_f64(uint8_t *out, const double *a, const int64_t *astr, const double *b,
		    const int64_t *bstr, const int64_t *shape, int ndim, enum cmp_op op)
{
	EW_BROADCAST(ew_cmp_row_f64, op);
}

void ew_binary_i64(int64_t *out, const int64_t *a, const int64_t *astr, const int64_t *b,
		   const int64_t *bstr, const int64_t *shape, int ndim, enum ew_op op)
{
	EW_BROADCAST(ew_row_i64, op);
}

void ew_compare_i64(uint8_t *out, const int64_t *a, const int64_t *astr, const int64_t *b,
		    const int64_t *bstr, const int64_t *shape, int ndim, enum cmp_op op)
{
	EW_BROADCAST(ew_cmp_row_i64, op);
}

#undef EW_BROADCAST

/* ---- unary ----------------------------------------------------------------------
 * out and a are (n) contiguous; out may equal a. exp and log are libm's.
 * relu keeps NaN (like torch) and turns -0.0 into 0. sigmoid is 1 / (1 +
 * exp(-x)), gelu x / 2 (1 + erf(x / sqrt 2)) (float: erf_vec, or erff for
 * EW_GELU_LIBM, as torch's scalar path) and its tanh approximation
 * x / 2 (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as torch's CPU
 * kernels compute them, in the tensor's type. floor, ceil, trunc, log2,
 * log10, log1p, expm1, exp2 and erf are libm's (torch's vectorised log2,
 * erf, ... may differ from them in the last bit of some elements, as its
 * exp does); rsqrt is 1 / sqrt, as torch computes it. EW_SIGN is torch's
 * (0 < x) - (x < 0), 0 for NaN; EW_SIGN_NAN numpy's, NaN for NaN. */
/* erf as torch's vectorised float kernels compute it (Abramowitz and
 * Stegun 7.1.26, with fused multiply-adds): within a few units in the last
 * place of erff, but not the same, and torch's GELU of a contiguous float
 * tensor of two or more elements shows the difference (around 1e-4 of
 * the result past x = -3). */
static float erf_vec(float x)
{
	float ax = fabsf(x);
	float t = 1.0f / fmaf(0.3275911f, ax, 1.0f);
	float r = fmaf(fmaf(fmaf(fmaf(1.061405429f, t, -1.453152027f), t, 1.421413741f), t, -0.284496736f), t,
		       0.254829592f);
	float e = expf(-(x * x));
	return copysignf(fmaf(-e * t, r, 1.0f), x);
}

/* out[i] = EXPR for every i (the functions below, one libm call each) */
#define UNARY_LOOP(EXPR)                         \
	do {                                     \
		for (int64_t i = 0; i < n; i++)  \
			out[i] = (EXPR);         \
	} while (0)

void ew_unary_f32(float *out, const float *a, int64_t n, enum ew_unary op)
{
	switch (op) {
	case EW_NEG:
		for (int64_t i = 0; i < n; i++)
			out[i] = -a[i];
		break;
	case EW_EXP:
		for (int64_t i = 0; i < n; i++)
			out[i] = expf(a[i]);
		break;
	case EW_SQRT:
		for (int64_t i = 0; i < n; i++)
			out[i] = sqrtf(a[i]);
		break;
	case EW_ABS:
		for (int64_t i = 0; i < n; i++)
			out[i] = fabsf(a[i]);
		break;
	case EW_LOG:
		for (int64_t i = 0; i < n; i++)
			out[i] = logf(a[i]);
		break;
	case EW_TANH:
		for (int64_t i = 0; i < n; i++)
			out[i] = tanhf(a[i]);
		break;
	case EW_RELU:
		for (int64_t i = 0; i < n; i++)
			out[i] = a[i] > 0.0f || a[i] != a[i] ? a[i] : 0.0f;
		break;
	case EW_SIN:
		for (int64_t i = 0; i < n; i++)
			out[i] = sinf(a[i]);
		break;
	case EW_COS:
		for (int64_t i = 0; i < n; i++)
			out[i] = cosf(a[i]);
		break;
	case EW_SIGMOID:
		for (int64_t i = 0; i < n; i++)
			out[i] = 1.0f / (1.0f + expf(-a[i]));
		break;
	case EW_GELU:	/* (torch's vectorised kernel gives +0, not -0, far left) */
		for (int64_t i = 0; i < n; i++)
			out[i] = a[i] * 0.5f * (1.0f + erf_vec(a[i] * (float)M_SQRT1_2)) + 0.0f;
		break;
	case EW_GELU_LIBM:
		for (int64_t i = 0; i < n; i++)
			out[i] = a[i] * 0.5f * (1.0f + erff(a[i] * (float)M_SQRT1_2));
		break;
	case EW_GELU_TANH:
		for (int64_t i = 0; i < n; i++) {
			float x = a[i], inner = (float)(M_SQRT2 * M_2_SQRTPI * 0.5) * (x + 0.044715f * (x * x * x));
			out[i] = 0.5f * x * (1.0f + tanhf(inner));
		}
		break;
	case EW_FLOOR: UNARY_LOOP(floorf(a[i])); break;
	case EW_CEIL: UNARY_LOOP(ceilf(a[i])); break;
	case EW_TRUNC: UNARY_LOOP(truncf(a[i])); break;
	case EW_SIGN: UNARY_LOOP((float)((a[i] > 0) - (a[i] < 0))); break;
	case EW_SIGN_NAN: UNARY_LOOP(a[i] > 0 ? 1.0f : a[i] < 0 ? -1.0f : a[i] == 0 ? 0.0f : a[i]); break;
	case EW_RSQRT: UNARY_LOOP(1.0f / sqrtf(a[i])); break;
	case EW_LOG2: UNARY_LOOP(log2f(a[i])); break;
	case EW_LOG10: UNARY_LOOP(log10f(a[i])); break;
	case EW_LOG1P: UNARY_LOOP(log1pf(a[i])); break;
	case EW_EXPM1: UNARY_LOOP(expm1f(a[i])); break;
	case EW_EXP2: UNARY_LOOP(exp2f(a[i])); break;
	case EW_ERF: UNARY_LOOP(erff(a[i])); break;
	}
}

void ew_unary_f64(double *out, const double *a, int64_t n, enum ew_unary op)
{
	switch (op) {
	case EW_NEG:
		for (int64_t i = 0; i < n; i++)
			out[i] = -a[i];
		break;
	case EW_EXP:
		for (int64_t i = 0; i < n; i++)
			out[i] = exp(a[i]);
		break;
	case EW_SQRT:
		for (int64_t i = 0; i < n; i++)
			out[i] = sqrt(a[i]);
		break;
	case EW_ABS:
		for (int64_t i = 0; i < n; i++)
			out[i] = fabs(a[i]);
		break;
	case EW_LOG:
		for (int64_t i = 0; i < n; i++)
			out[i] = log(a[i]);
		break;
	case EW_TANH:
		for (int64_t i = 0; i < n; i++)
			out[i] = tanh(a[i]);
		break;
	case EW_RELU:
		for (int64_t i = 0; i < n; i++)
			out[i] = a[i] > 0.0 || a[i] != a[i] ? a[i] : 0.0;
		break;
	case EW_SIN:
		for (int64_t i = 0; i < n; i++)
			out[i] = sin(a[i]);
		break;
	case EW_COS:
		for (int64_t i = 0; i < n; i++)
			out[i] = cos(a[i]);
		break;
	case EW_SIGMOID:
		for (int64_t i = 0; i < n; i++)
			out[i] = 1.0 / (1.0 + exp(-a[i]));
		break;
	case EW_GELU:
	case EW_GELU_LIBM:
		for (int64_t i = 0; i < n; i++)
			out[i] = a[i] * 0.5 * (1.0 + erf(a[i] * M_SQRT1_2));
		break;
	case EW_GELU_TANH:
		for (int64_t i = 0; i < n; i++) {
			double x = a[i], inner = M_SQRT2 * M_2_SQRTPI * 0.5 * (x + 0.044715 * (x * x * x));
			out[i] = 0.5 * x * (1.0 + tanh(inner));
		}
		break;
	case EW_FLOOR: UNARY_LOOP(floor(a[i])); break;
	case EW_CEIL: UNARY_LOOP(ceil(a[i])); break;
	case EW_TRUNC: UNARY_LOOP(trunc(a[i])); break;
	case EW_SIGN: UNARY_LOOP((double)((a[i] > 0) - (a[i] < 0))); break;
	case EW_SIGN_NAN: UNARY_LOOP(a[i] > 0 ? 1.0 : a[i] < 0 ? -1.0 : a[i] == 0 ? 0.0 : a[i]); break;
	case EW_RSQRT: UNARY_LOOP(1.0 / sqrt(a[i])); break;
	case EW_LOG2: UNARY_LOOP(log2(a[i])); break;
	case EW_LOG10: UNARY_LOOP(log10(a[i])); break;
	case EW_LOG1P: UNARY_LOOP(log1p(a[i])); break;
	case EW_EXPM1: UNARY_LOOP(expm1(a[i])); break;
	case EW_EXP2: UNARY_LOOP(exp2(a[i])); break;
	case EW_ERF: UNARY_LOOP(erf(a[i])); break;
	}
}

#undef UNARY_LOOP
