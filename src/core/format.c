/* format.c: value text byte for byte as PyTorch 1.13, NumPy 1.24 and Python
 * print it (tensor reprs, numpy repr/str, float repr, f-string specs), for
 * every layer that shows a value, under the print options in use (set by
 * torch.set_printoptions and np.set_printoptions). Reads tensors, appends to
 * a strbuf; never writes a tensor, prints, or allocates outside strbuf and
 * mem. */
#include "core/format.h"
#include "core/mem.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct print_options format_defaults = {
	.torch = { .precision = 4, .edgeitems = 3, .linewidth = 80, .threshold = 1000, .sci_mode = -1 },
	.np = { .precision = 8, .edgeitems = 3, .linewidth = 75, .threshold = 1000, .suppress = false,
		.floatmode = NP_MAXPREC, .sign = '-' },
};

static const struct print_options *opts = &format_defaults;

const struct print_options *format_use_options(const struct print_options *o)
{
	const struct print_options *was = opts;
	opts = o;
	return was;
}

/* ---- big integers for exact digit generation --------------------------- */

/* Enough 32-bit limbs for any double scaled by the largest power of ten
 * Dragon4 needs (about 1130 bits), with room to spare. */
#define BIG_LIMBS 48

struct big {
	int len;                 /* used limbs, no leading zero limbs */
	uint32_t d[BIG_LIMBS];   /* little-endian */
};

static void big_set(struct big *b, uint64_t v)
{
	b->len = 0;
	while (v) {
		b->d[b->len++] = (uint32_t)v;
		v >>= 32;
	}
}

static void big_shift_left(struct big *b, int bits)
{
	if (b->len == 0 || bits == 0)
		return;
	int limbs = bits / 32, rest = bits % 32;
	int n = b->len;
	b->d[n + limbs] = 0;
	for (int i = n - 1; i >= 0; i--) {
		uint64_t w = (uint64_t)b->d[i] << rest;
		b->d[i + limbs + 1] |= (uint32_t)(w >> 32);
		b->d[i + limbs] = (uint32_t)w;
	}
	for (int i = 0; i < limbs; i++)
		b->d[i] = 0;
	b->len = n + limbs + 1;
	while (b->len > 0 && b->d[b->len - 1] == 0)
		b->len--;
}

static void big_mul_small(struct big *b, uint32_t m)
{
	uint64_t carry = 0;
	for (int i = 0; i < b->len; i++) {
		uint64_t w = (uint64_t)b->d[i] * m + carry;
		b->d[i] = (uint32_t)w;
		carry = w >> 32;
	}
	if (carry)
		b->d[b->len++] = (uint32_t)carry;
}

static void big_mul_pow10(struct big *b, int n)
{
	static const uint32_t small[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000
	};
	for (; n >= 9; n -= 9)
		big_mul_small(b, 1000000000u);
	if (n > 0)
		big_mul_small(b, small[n]);
}

static int big_cmp(const struct big *a, const struct big *b)
{
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	for (int i = a->len - 1; i >= 0; i--)
		if (a->d[i] != b->d[i])
			return a->d[i] < b->d[i] ? -1 : 1;
	return 0;
}

static void big_add(struct big *r, const struct big *a, const struct big *b)
{
	const struct big *lo = a->len < b->len ? a : b;
	const struct big *hi = a->len < b->len ? b : a;
	uint64_t carry = 0;
	int i;
	for (i = 0; i < hi->len; i++) {
		uint64_t w = (uint64_t)hi->d[i] + (i < lo->len ? lo->d[i] : 0) + carry;
		r->d[i] = (uint32_t)w;
		carry = w >> 32;
	}
	r->len = hi->len;
	if (carry)
		r->d[r->len++] = (uint32_t)carry;
}

/* a -= b; precondition a >= b. */
static void big_sub(struct big *a, const struct big *b)
{
	int64_t borrow = 0;
	for (int i = 0; i < a->len; i++) {
		int64_t w = (int64_t)a->d[i] - (i < b->len ? b->d[i] : 0) - borrow;
		borrow = w < 0;
		a->d[i] = (uint32_t)(w + (borrow ? ((int64_t)1 << 32) : 0));
	}
	while (a->len > 0 && a->d[a->len - 1] == 0)
		a->len--;
}

/* ---- Dragon4: exact shortest / cut-off decimal digits -------------------- */

/* A finite non-negative float split as mant * 2^exp, the way numpy's
 * dragon4.c sees it (float32 values keep float32 margins). */
struct fparts {
	uint64_t mant;
	int exp;
	int mant_bit;     /* index of the highest set bit of mant */
	bool unequal;     /* the gap above is twice the gap below */
};

static int highest_bit(uint64_t v)
{
	int b = 0;
	while (v >>= 1)
		b++;
	return b;
}

static void fparts_split(double v, bool f32, struct fparts *p)
{
	if (f32) {
		float f = (float)v;
		uint32_t bits;
		memcpy(&bits, &f, sizeof bits);
		uint32_t e = (bits >> 23) & 0xff, frac = bits & 0x7fffff;
		if (e != 0) {
			p->mant = frac | (1u << 23);
			p->exp = (int)e - 127 - 23;
			p->mant_bit = 23;
			p->unequal = e != 1 && frac == 0;
		} else {
			p->mant = frac;
			p->exp = 1 - 127 - 23;
			p->mant_bit = highest_bit(frac);
			p->unequal = false;
		}
	} else {
		uint64_t bits;
		memcpy(&bits, &v, sizeof bits);
		uint64_t e = (bits >> 52) & 0x7ff, frac = bits & 0xfffffffffffffull;
		if (e != 0) {
			p->mant = frac | (1ull << 52);
			p->exp = (int)e - 1023 - 52;
			p->mant_bit = 52;
			p->unequal = e != 1 && frac == 0;
		} else {
			p->mant = frac;
			p->exp = 1 - 1023 - 52;
			p->mant_bit = highest_bit(frac);
			p->unequal = false;
		}
	}
}

enum cutoff { CUTOFF_TOTAL, CUTOFF_FRACTION };

#define DIGITS_MAX 64

struct digits {
	char d[DIGITS_MAX];
	int n;
	int exp10;        /* decimal exponent of the first digit */
};

/* numpy's Dragon4. Unique: the shortest digits that read back to the same
 * value (IEEE round-half-even bounds), but never past cutoff_max digits
 * (total or after the point) and at least cutoff_min digits. Not unique: the
 * exact value's digits up to cutoff_max. Either way the last digit is
 * rounded from the exact binary value, a tie to even. -1 disables a cutoff. */
static void dragon4(double v, bool f32, bool unique, enum cutoff mode, int cutoff_max, int cutoff_min,
		    struct digits *out)
{
	struct fparts p;
	fparts_split(v, f32, &p);
	if (p.mant == 0) {
		out->d[0] = '0';
		out->n = 1;
		out->exp10 = 0;
		return;
	}
	bool even = (p.mant & 1) == 0;
	struct big value, scale, mlow, mhigh, sum;
	big_set(&value, p.mant);
	if (p.exp > 0) {
		big_shift_left(&value, p.exp + (p.unequal ? 2 : 1));
		big_set(&scale, p.unequal ? 4 : 2);
		big_set(&mlow, 1);
		big_shift_left(&mlow, p.exp);
	} else {
		big_shift_left(&value, p.unequal ? 2 : 1);
		big_set(&scale, 1);
		big_shift_left(&scale, -p.exp + (p.unequal ? 2 : 1));
		big_set(&mlow, 1);
	}
	mhigh = mlow;
	if (p.unequal)
		big_shift_left(&mhigh, 1);

	int dexp = (int)ceil((double)(p.mant_bit + p.exp) * 0.30102999566398119521 - 0.69);
	if (cutoff_max >= 0 && mode == CUTOFF_FRACTION && dexp <= -cutoff_max)
		dexp = -cutoff_max + 1;
	if (dexp > 0) {
		big_mul_pow10(&scale, dexp);
	} else if (dexp < 0) {
		big_mul_pow10(&value, -dexp);
		big_mul_pow10(&mlow, -dexp);
		big_mul_pow10(&mhigh, -dexp);
	}
	if (big_cmp(&value, &scale) >= 0) {
		dexp++;
	} else {
		big_mul_small(&value, 10);
		big_mul_small(&mlow, 10);
		big_mul_small(&mhigh, 10);
	}

	int cut_max = dexp - DIGITS_MAX + 1;
	if (cutoff_max >= 0) {
		int want = mode == CUTOFF_TOTAL ? dexp - cutoff_max : -cutoff_max;
		if (want > cut_max)
			cut_max = want;
	}
	int cut_min = dexp;
	if (cutoff_min >= 0) {
		int want = mode == CUTOFF_TOTAL ? dexp - cutoff_min : -cutoff_min;
		if (want < cut_min)
			cut_min = want;
	}
	out->exp10 = dexp - 1;

	int n = 0, digit;
	bool low, high;
	for (;;) {
		dexp--;
		digit = 0;
		while (big_cmp(&value, &scale) >= 0) {
			big_sub(&value, &scale);
			digit++;
		}
		big_add(&sum, &value, &mhigh);
		int c = big_cmp(&value, &mlow);
		low = unique && (even ? c <= 0 : c < 0);
		c = big_cmp(&sum, &scale);
		high = unique && (even ? c >= 0 : c > 0);
		if (((low || high) && dexp <= cut_min) || dexp == cut_max)
			break;
		out->d[n++] = (char)('0' + digit);
		big_mul_small(&value, 10);
		big_mul_small(&mlow, 10);
		big_mul_small(&mhigh, 10);
	}

	bool round_down = low;
	if (low == high) {
		big_shift_left(&value, 1);
		int c = big_cmp(&value, &scale);
		round_down = c < 0;
		if (c == 0)
			round_down = (digit & 1) == 0;
	}
	if (round_down) {
		out->d[n++] = (char)('0' + digit);
	} else if (digit < 9) {
		out->d[n++] = (char)('0' + digit + 1);
	} else {
		for (;;) {
			if (n == 0) {
				out->d[n++] = '1';
				out->exp10++;
				break;
			}
			n--;
			if (out->d[n] != '9') {
				out->d[n++]++;
				break;
			}
		}
	}
	out->n = n;
}

/* ---- numpy's dragon4_positional / dragon4_scientific --------------------- */

enum trim {
	TRIM_KEEP,        /* 'k': keep trailing zeros and the point */
	TRIM_ZEROS,       /* '.': drop trailing zeros, keep the point */
	TRIM_ONE_ZERO,    /* '0': keep one zero after the point */
	TRIM_POINT        /* '-': drop trailing zeros and the point */
};

/* Drops trailing zeros after the point (keeping one or dropping the point
 * as trim says); *frac counts the digits after the point. */
static void trim_fraction(struct strbuf *b, size_t start, int *frac, enum trim trim, bool drop_point)
{
	if (trim == TRIM_KEEP || *frac == 0)
		return;
	while (b->len > start && b->s[b->len - 1] == '0') {
		b->len--;
		(*frac)--;
	}
	b->s[b->len] = '\0';
	if (b->s[b->len - 1] == '.') {
		if (trim == TRIM_ONE_ZERO) {
			strbuf_putc(b, '0');
			(*frac)++;
		} else if (trim == TRIM_POINT && drop_point) {
			b->len--;
			b->s[b->len] = '\0';
		}
	}
}

/* How np_positional and np_scientific write a number: numpy's unique and
 * sign (plus: a '+' before a number that is not negative). */
struct np_style {
	bool unique, plus;
};

/* numpy dragon4_positional(x, precision, min_digits, unique, trim, sign,
 * pad_left, pad_right); precision counts digits after the point when
 * fractional, significant digits otherwise; -1 means "not given". */
static void np_positional(struct strbuf *out, double v, bool f32, struct np_style st, int precision,
			  int min_digits, bool fractional, enum trim trim, int pad_left, int pad_right)
{
	bool unique = st.unique;
	struct strbuf b;
	strbuf_init(&b);
	bool neg = signbit(v) != 0;
	if (neg || st.plus)
		strbuf_putc(&b, neg ? '-' : '+');
	struct digits dg;
	enum cutoff mode = fractional ? CUTOFF_FRACTION : CUTOFF_TOTAL;
	dragon4(fabs(v), f32, unique, mode, precision, min_digits, &dg);

	int whole, frac = 0;
	if (dg.exp10 >= 0) {
		whole = dg.exp10 + 1;
		if (dg.n <= whole) {
			strbuf_putn(&b, dg.d, (size_t)dg.n);
			strbuf_pad(&b, '0', (size_t)(whole - dg.n));
		} else {
			strbuf_putn(&b, dg.d, (size_t)whole);
			strbuf_putc(&b, '.');
			strbuf_putn(&b, dg.d + whole, (size_t)(dg.n - whole));
			frac = dg.n - whole;
		}
	} else {
		whole = 1;
		strbuf_puts(&b, "0.");
		strbuf_pad(&b, '0', (size_t)(-(dg.exp10 + 1)));
		strbuf_putn(&b, dg.d, (size_t)dg.n);
		frac = -(dg.exp10 + 1) + dg.n;
	}
	if (trim != TRIM_POINT && frac == 0)
		strbuf_putc(&b, '.');

	int want = min_digits < 0 ? 0 : min_digits;
	if (!fractional)
		want = min_digits - whole;
	if (!unique && fractional && precision > want)	/* (0 has no digits of its own) */
		want = precision;
	if (trim == TRIM_ONE_ZERO) {
		if (frac == 0) {
			strbuf_putc(&b, '0');
			frac++;
		}
	} else if (trim == TRIM_KEEP && want > frac) {
		strbuf_pad(&b, '0', (size_t)(want - frac));
		frac = want;
	}
	trim_fraction(&b, 0, &frac, trim, true);

	if (pad_right >= frac) {
		if (trim == TRIM_POINT && frac == 0)
			strbuf_putc(&b, ' ');
		strbuf_pad(&b, ' ', (size_t)(pad_right - frac));
	}
	int left = whole + (neg || st.plus ? 1 : 0);
	if (pad_left > left)
		strbuf_pad(out, ' ', (size_t)(pad_left - left));
	strbuf_putn(out, b.s, b.len);
	strbuf_free(&b);
}

/* numpy dragon4_scientific(x, precision, min_digits, unique, trim, sign,
 * pad_left, exp_digits); -1 means "not given". */
static void np_scientific(struct strbuf *out, double v, bool f32, struct np_style st, int precision,
			  int min_digits, enum trim trim, int pad_left, int exp_digits)
{
	bool neg = signbit(v) != 0, unique = st.unique;
	int left = 1 + (neg || st.plus ? 1 : 0);
	if (pad_left > left)
		strbuf_pad(out, ' ', (size_t)(pad_left - left));
	if (neg || st.plus)
		strbuf_putc(out, neg ? '-' : '+');
	struct digits dg;
	dragon4(fabs(v), f32, unique, CUTOFF_TOTAL, precision < 0 ? -1 : precision + 1,
		min_digits < 0 ? -1 : min_digits + 1, &dg);

	size_t start = out->len;
	strbuf_putc(out, dg.d[0]);
	int frac = dg.n - 1;
	if (frac > 0) {
		strbuf_putc(out, '.');
		strbuf_putn(out, dg.d + 1, (size_t)frac);
	} else if (trim != TRIM_POINT) {
		strbuf_putc(out, '.');
	}
	int want = min_digits < 0 ? 0 : min_digits;
	if (!unique && precision > want)
		want = precision;
	if (trim == TRIM_ONE_ZERO) {
		if (frac == 0) {
			strbuf_putc(out, '0');
			frac++;
		}
	} else if (trim == TRIM_KEEP && want > frac) {
		strbuf_pad(out, '0', (size_t)(want - frac));
		frac = want;
	}
	trim_fraction(out, start, &frac, trim, false);

	int e = dg.exp10;
	strbuf_putc(out, 'e');
	strbuf_putc(out, e < 0 ? '-' : '+');
	if (e < 0)
		e = -e;
	if (exp_digits < 0)
		exp_digits = 2;
	strbuf_printf(out, "%0*d", exp_digits, e);
}

/* ---- Python float repr and numpy scalar str ----------------------------- */

static void put_nonfinite(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_puts(out, "nan");
	else
		strbuf_puts(out, v < 0 ? "-inf" : "inf");
}

/* Shortest round-trip digits laid out like Python's repr: "0.1", "2.0",
 * "1e-05", "1.5e+16"; sci chooses the exponent form. */
static void put_shortest(struct strbuf *out, double v, bool f32, bool sci)
{
	struct digits dg;
	if (signbit(v))
		strbuf_putc(out, '-');
	dragon4(fabs(v), f32, true, CUTOFF_TOTAL, -1, -1, &dg);
	if (sci) {
		strbuf_putc(out, dg.d[0]);
		if (dg.n > 1) {
			strbuf_putc(out, '.');
			strbuf_putn(out, dg.d + 1, (size_t)dg.n - 1);
		}
		strbuf_printf(out, "e%c%02d", dg.exp10 < 0 ? '-' : '+', abs(dg.exp10));
	} else if (dg.exp10 >= 0) {
		int whole = dg.exp10 + 1;
		if (dg.n <= whole) {
			strbuf_putn(out, dg.d, (size_t)dg.n);
			strbuf_pad(out, '0', (size_t)(whole - dg.n));
			strbuf_puts(out, ".0");
		} else {
			strbuf_putn(out, dg.d, (size_t)whole);
			strbuf_putc(out, '.');
			strbuf_putn(out, dg.d + whole, (size_t)(dg.n - whole));
		}
	} else {
		strbuf_puts(out, "0.");
		strbuf_pad(out, '0', (size_t)(-dg.exp10 - 1));
		strbuf_putn(out, dg.d, (size_t)dg.n);
	}
}

void format_py_float(struct strbuf *out, double v)
{
	if (!isfinite(v)) {
		put_nonfinite(out, v);
		return;
	}
	struct digits dg;
	dragon4(fabs(v), false, true, CUTOFF_TOTAL, -1, -1, &dg);
	put_shortest(out, v, false, v != 0 && (dg.exp10 < -4 || dg.exp10 >= 16));
}

/* numpy's str of a float scalar (np.float64 / np.float32): positional for
 * 0 and 1e-4 <= |v| < 1e16, else scientific. */
static void np_scalar_float(struct strbuf *out, double v, bool f32)
{
	if (!isfinite(v)) {
		put_nonfinite(out, v);
		return;
	}
	double a = fabs(v);
	put_shortest(out, v, f32, !(a == 0 || (a < 1e16 && a >= 1e-4)));
}

void format_shortest(struct strbuf *out, double v, enum dtype dt)
{
	if (dt == DT_F32)
		np_scalar_float(out, v, true);
	else
		format_py_float(out, v);
}

/* ---- which elements are shown ------------------------------------------- */

/* Row-major logical flat indices of the elements a summarized print shows
 * (the first and last edge along every axis longer than 2·edge), or of all
 * elements. Caller frees *idx. */
static int64_t shown_indices(const struct tensor *t, bool summarize, int64_t edge, int64_t **idx)
{
	int64_t count = 1;
	for (int i = 0; i < t->ndim; i++) {
		int64_t n = t->shape[i];
		count *= summarize && n > 2 * edge ? 2 * edge : n;
	}
	*idx = xmalloc((size_t)(count > 0 ? count : 1) * sizeof **idx);
	for (int64_t k = 0; k < count; k++) {
		int64_t rest = k, flat = 0, step = 1;
		for (int i = t->ndim - 1; i >= 0; i--) {
			int64_t n = t->shape[i];
			int64_t m = summarize && n > 2 * edge ? 2 * edge : n;
			int64_t j = rest % m;
			rest /= m;
			if (m != n && j >= edge)
				j = n - 2 * edge + j;
			flat += j * step;
			step *= n;
		}
		(*idx)[k] = flat;
	}
	return count;
}

/* Elements in a row-major block below axis `axis`. */
static int64_t block_size(const struct tensor *t, int axis)
{
	int64_t n = 1;
	for (int i = axis + 1; i < t->ndim; i++)
		n *= t->shape[i];
	return n;
}

static void put_int64(struct strbuf *out, int64_t v)
{
	strbuf_printf(out, "%lld", (long long)v);
}

static void put_shape_tuple(struct strbuf *out, const struct tensor *t)
{
	strbuf_putc(out, '(');
	for (int i = 0; i < t->ndim; i++)
		strbuf_printf(out, i ? ", %lld" : "%lld", (long long)t->shape[i]);
	if (t->ndim == 1)
		strbuf_putc(out, ',');
	strbuf_putc(out, ')');
}

/* ---- torch: _Formatter and _tensor_str ----------------------------------- */

struct torch_fmt {
	const struct tensor *t;
	bool floating;
	bool int_mode;
	bool sci;
	int width;
	bool summarize;
};

/* Python's "{:.4e}" (sci), "{:.0f}." (int_mode) or "{:.4f}" of v (4: the
 * precision), with Python's nan and inf (without the point). */
static void torch_put_float(struct strbuf *out, bool sci, bool int_mode, double v)
{
	if (!isfinite(v))
		put_nonfinite(out, v);
	else if (sci)
		strbuf_printf(out, "%.*e", opts->torch.precision, v);
	else if (int_mode)
		strbuf_printf(out, "%.0f.", v);
	else
		strbuf_printf(out, "%.*f", opts->torch.precision, v);
}

static void torch_put_raw(struct strbuf *out, const struct torch_fmt *f, int64_t flat)
{
	const struct tensor *t = f->t;
	if (t->dtype == DT_BOOL)
		strbuf_puts(out, tensor_get(t, flat) != 0 ? "True" : "False");
	else if (t->dtype == DT_I64)
		put_int64(out, tensor_get_i64(t, flat));
	else
		torch_put_float(out, f->sci, f->int_mode, tensor_get(t, flat));
}

/* Width of the widest shown element of an int64 or bool tensor. */
static int torch_int_width(const struct torch_fmt *f, const int64_t *idx, int64_t n)
{
	int width = 1;
	struct strbuf tmp;
	strbuf_init(&tmp);
	for (int64_t i = 0; i < n; i++) {
		strbuf_reset(&tmp);
		torch_put_raw(&tmp, f, idx[i]);
		if ((int)tmp.len > width)
			width = (int)tmp.len;
	}
	strbuf_free(&tmp);
	return width;
}

/* _Formatter for floats: int_mode and sci_mode from the nonzero finite
 * values, and the width of the widest of them (non-finite ones not counted).
 * A sci_mode set by torch.set_printoptions replaces the one chosen after the
 * width is measured in it, as torch does (sci_mode=False can leave wide
 * columns), and not at all when no value is nonzero and finite. */
static void torch_float_modes(struct torch_fmt *f, const int64_t *idx, int64_t n)
{
	double amax = 0, amin = INFINITY;
	for (int64_t i = 0; i < n; i++) {
		double v = tensor_get(f->t, idx[i]);
		if (!isfinite(v) || v == 0)
			continue;
		amax = fmax(amax, fabs(v));
		amin = fmin(amin, fabs(v));
		if (v != ceil(v))
			f->int_mode = false;
	}
	if (amax == 0)
		return;
	f->sci = amax / amin > 1000.0 || amax > 1.0e8 || (!f->int_mode && amin < 1.0e-4);
	struct strbuf tmp;
	strbuf_init(&tmp);
	for (int64_t i = 0; i < n; i++) {
		double v = tensor_get(f->t, idx[i]);
		if (!isfinite(v) || v == 0)
			continue;
		strbuf_reset(&tmp);
		torch_put_float(&tmp, f->sci, f->int_mode, v);
		if ((int)tmp.len > f->width)
			f->width = (int)tmp.len;
	}
	strbuf_free(&tmp);
	if (opts->torch.sci_mode >= 0)
		f->sci = opts->torch.sci_mode != 0;
}

/* The formatter is computed over the shown (summarized) elements only. */
static void torch_fmt_init(struct torch_fmt *f, const struct tensor *t, bool summarize)
{
	f->t = t;
	f->floating = dtype_is_float(t->dtype);
	f->int_mode = true;
	f->sci = false;
	f->width = 1;
	f->summarize = summarize;
	int64_t *idx;
	int64_t n = shown_indices(t, summarize, opts->torch.edgeitems, &idx);
	if (f->floating)
		torch_float_modes(f, idx, n);
	else
		f->width = torch_int_width(f, idx, n);
	free(idx);
}

static void torch_put_elem(struct strbuf *out, const struct torch_fmt *f, int64_t flat)
{
	struct strbuf tmp;
	strbuf_init(&tmp);
	torch_put_raw(&tmp, f, flat);
	if ((int)tmp.len < f->width)
		strbuf_pad(out, ' ', (size_t)(f->width - (int)tmp.len));
	strbuf_putn(out, tmp.s, tmp.len);
	strbuf_free(&tmp);
}

/* _vector_str: one bracketed row, wrapped at elements_per_line. */
static void torch_vector(struct strbuf *out, const struct torch_fmt *f, int64_t base, int indent)
{
	const struct tensor *t = f->t;
	int64_t len = t->shape[t->ndim - 1];
	int element_length = f->width + 2;
	int64_t edge = opts->torch.edgeitems;
	int per_line = (int)floor((double)(opts->torch.linewidth - indent) / element_length);
	if (per_line < 1)
		per_line = 1;
	bool summary = f->summarize && len > 2 * edge;
	int64_t items = summary ? 2 * edge + 1 : len;
	strbuf_putc(out, '[');
	for (int64_t k = 0; k < items; k++) {
		if (k > 0) {
			if (k % per_line == 0) {
				strbuf_puts(out, ",\n");
				strbuf_pad(out, ' ', (size_t)indent + 1);
			} else {
				strbuf_puts(out, ", ");
			}
		}
		if (summary && k == edge) {
			strbuf_puts(out, " ...");
			continue;
		}
		int64_t i = summary && k > edge ? len - (items - k) : k;
		torch_put_elem(out, f, base + i);
	}
	strbuf_putc(out, ']');
}

/* _tensor_str_with_formatter for the sub-tensor starting at axis. */
static void torch_block(struct strbuf *out, const struct torch_fmt *f, int axis, int64_t base,
		int indent)
{
	const struct tensor *t = f->t;
	int dims = t->ndim - axis;
	if (dims == 0) {
		torch_put_elem(out, f, base);
		return;
	}
	if (dims == 1) {
		torch_vector(out, f, base, indent);
		return;
	}
	int64_t len = t->shape[axis], step = block_size(t, axis), edge = opts->torch.edgeitems;
	bool summary = f->summarize && len > 2 * edge;
	int64_t items = summary ? 2 * edge + 1 : len;
	strbuf_putc(out, '[');
	for (int64_t k = 0; k < items; k++) {
		if (k > 0) {
			strbuf_putc(out, ',');
			strbuf_pad(out, '\n', (size_t)dims - 1);
			strbuf_pad(out, ' ', (size_t)indent + 1);
		}
		if (summary && k == edge) {
			strbuf_puts(out, "...");
			continue;
		}
		int64_t i = summary && k > edge ? len - (items - k) : k;
		torch_block(out, f, axis + 1, base + i * step, indent + 1);
	}
	strbuf_putc(out, ']');
}

static const char *torch_dtype_name(enum dtype dt)
{
	switch (dt) {
	case DT_F32: return "torch.float32";
	case DT_F64: return "torch.float64";
	case DT_I64: return "torch.int64";
	case DT_BOOL: return "torch.bool";
	}
	return "?";
}

static void torch_repr(struct strbuf *out, const struct tensor *t)
{
	struct strbuf body, suffix[3];
	int nsuffix = 0;
	strbuf_init(&body);
	strbuf_puts(&body, "tensor(");
	int64_t numel = tensor_numel(t);
	if (numel == 0) {
		strbuf_puts(&body, "[]");
		if (t->ndim != 1) {
			strbuf_init(&suffix[nsuffix]);
			strbuf_puts(&suffix[nsuffix], "size=");
			put_shape_tuple(&suffix[nsuffix++], t);
		}
		if (t->dtype != DT_F32) {
			strbuf_init(&suffix[nsuffix]);
			strbuf_printf(&suffix[nsuffix++], "dtype=%s", torch_dtype_name(t->dtype));
		}
	} else {
		struct torch_fmt f;
		torch_fmt_init(&f, t, (double)numel > opts->torch.threshold);
		torch_block(&body, &f, 0, 0, 7);
		if (t->dtype == DT_F64) {
			strbuf_init(&suffix[nsuffix]);
			strbuf_printf(&suffix[nsuffix++], "dtype=%s", torch_dtype_name(t->dtype));
		}
	}
	/* torch's _str_intern: grad_fn, or requires_grad on a leaf */
	if (t->grad.fn) {
		strbuf_init(&suffix[nsuffix]);
		strbuf_printf(&suffix[nsuffix++], "grad_fn=<%s>", t->grad.fn);
	} else if (t->grad.requires_grad) {
		strbuf_init(&suffix[nsuffix]);
		strbuf_puts(&suffix[nsuffix++], "requires_grad=True");
	}
	/* _add_suffixes, including its "+ 1" in the last line length. */
	const char *nl = strrchr(body.s, '\n');
	long last = (long)body.len - (nl ? (long)(nl - body.s) : -1) + 1;
	strbuf_putn(out, body.s, body.len);
	for (int i = 0; i < nsuffix; i++) {
		long slen = (long)suffix[i].len;
		if (last + slen + 2 > opts->torch.linewidth) {
			strbuf_puts(out, ",\n");
			strbuf_pad(out, ' ', 7);
			last = 7 + slen;
		} else {
			strbuf_puts(out, ", ");
			last += slen + 2;
		}
		strbuf_putn(out, suffix[i].s, suffix[i].len);
		strbuf_free(&suffix[i]);
	}
	strbuf_putc(out, ')');
	strbuf_free(&body);
}

/* ---- numpy: FloatingFormat, IntegerFormat, BoolFormat, _formatArray ----- */

struct np_fmt {
	const struct tensor *t;
	bool f32;
	bool exp_format;
	int precision;
	int min_digits;
	enum trim trim;
	int pad_left;
	int pad_right;
	int exp_size;
	struct np_style style;
	int int_width;        /* IntegerFormat's %{n}d */
	bool scalar;          /* 0-d: bools print without the leading space */
	bool summarize;
	const char *sep;
};

/* FloatingFormat.fillFormat over the shown elements: positional or
 * exponent form, and the pads and digits that line the column up. */
static void np_float_fill(struct np_fmt *f, const int64_t *idx, int64_t n)
{
	const struct tensor *t = f->t;
	enum np_floatmode mode = opts->np.floatmode;
	f->exp_format = false;
	f->precision = mode == NP_UNIQUE ? -1 : opts->np.precision;
	f->style = (struct np_style){ .unique = true, .plus = opts->np.sign == '+' };
	double amax = 0, amin = INFINITY;
	int64_t finite = 0;
	bool nonfinite = false, neginf = false, negative = false;
	for (int64_t i = 0; i < n; i++) {
		double v = tensor_get(t, idx[i]);
		if (!isfinite(v)) {
			nonfinite = true;
			if (isinf(v) && v < 0)
				neginf = true;
			continue;
		}
		finite++;
		negative |= signbit(v) != 0;
		if (v == 0)
			continue;
		if (fabs(v) > amax)
			amax = fabs(v);
		if (fabs(v) < amin)
			amin = fabs(v);
	}
	if (amax > 0) {
		/* max/min divides in the array's dtype */
		double ratio = f->f32 ? (double)(float)(amax / amin) : amax / amin;
		if (amax >= 1.e8 || (!opts->np.suppress && (amin < 0.0001 || ratio > 1000.)))
			f->exp_format = true;
	}

	struct strbuf s;
	strbuf_init(&s);
	if (finite == 0) {
		f->pad_left = 0;
		f->pad_right = 0;
		f->trim = TRIM_ZEROS;
		f->exp_size = -1;
		f->min_digits = -1;
	} else {
		/* the finite values' digits as they come, before any padding */
		bool fixed = mode == NP_FIXED;
		struct np_style raw = { .unique = !fixed, .plus = f->style.plus };
		enum trim trim = fixed ? TRIM_KEEP : TRIM_ZEROS;
		int int_len = 0, frac_len = 0, exp_len = 0;
		for (int64_t i = 0; i < n; i++) {
			double v = tensor_get(t, idx[i]);
			if (!isfinite(v))
				continue;
			strbuf_reset(&s);
			if (f->exp_format)
				np_scientific(&s, v, f->f32, raw, f->precision, -1, trim, -1, -1);
			else
				np_positional(&s, v, f->f32, raw, f->precision, -1, true, trim, -1, -1);
			const char *dot = strchr(s.s, '.'), *e = strchr(s.s, 'e');
			const char *fend = e ? e : s.s + s.len;
			if ((int)(dot - s.s) > int_len)
				int_len = (int)(dot - s.s);
			if ((int)(fend - dot - 1) > frac_len)
				frac_len = (int)(fend - dot - 1);
			if (e && (int)strlen(e + 1) > exp_len)
				exp_len = (int)strlen(e + 1);
		}
		f->style.unique = raw.unique;
		f->pad_left = int_len;
		if (f->exp_format) {
			f->exp_size = exp_len - 1;
			f->trim = TRIM_KEEP;
			f->precision = frac_len;
			f->min_digits = frac_len;
			f->pad_right = f->exp_size + 2 + f->precision;
		} else {
			f->pad_right = frac_len;
			f->exp_size = -1;
			if (fixed || mode == NP_MAXPREC_EQUAL) {
				f->precision = f->min_digits = frac_len;
				f->trim = TRIM_KEEP;
			} else {
				f->trim = TRIM_ZEROS;
				f->min_digits = 0;
			}
		}
	}
	strbuf_free(&s);
	if (opts->np.sign == ' ' && !negative)
		f->pad_left++;

	if (nonfinite) {
		int offset = f->pad_right + 1;
		int inflen = 3 + (opts->np.sign != '-' || neginf ? 1 : 0);
		if (3 - offset > f->pad_left)
			f->pad_left = 3 - offset;
		if (inflen - offset > f->pad_left)
			f->pad_left = inflen - offset;
	}
}

static void np_fmt_init(struct np_fmt *f, const struct tensor *t, bool summarize, const char *sep)
{
	memset(f, 0, sizeof *f);
	f->t = t;
	f->f32 = t->dtype == DT_F32;
	f->scalar = t->ndim == 0;
	f->summarize = summarize;
	f->sep = sep;
	int64_t *idx;
	/* (with edgeitems 0 numpy's a[-0:] takes the whole axis) */
	int64_t n = shown_indices(t, summarize && opts->np.edgeitems > 0, opts->np.edgeitems, &idx);
	if (dtype_is_float(t->dtype)) {
		np_float_fill(f, idx, n);
	} else if (t->dtype == DT_I64 && n > 0) {
		int64_t lo = tensor_get_i64(t, idx[0]), hi = lo;
		for (int64_t i = 1; i < n; i++) {
			int64_t v = tensor_get_i64(t, idx[i]);
			if (v < lo)
				lo = v;
			if (v > hi)
				hi = v;
		}
		char a[32], b[32];
		int la = snprintf(a, sizeof a, "%lld", (long long)lo);
		int lb = snprintf(b, sizeof b, "%lld", (long long)hi);
		f->int_width = la > lb ? la : lb;
	}
	free(idx);
}

static void np_put_elem(struct strbuf *out, const struct np_fmt *f, int64_t flat)
{
	const struct tensor *t = f->t;
	if (t->dtype == DT_BOOL) {
		if (tensor_get(t, flat) != 0)
			strbuf_puts(out, f->scalar ? "True" : " True");
		else
			strbuf_puts(out, "False");
		return;
	}
	if (t->dtype == DT_I64) {
		strbuf_printf(out, "%*lld", f->int_width, (long long)tensor_get_i64(t, flat));
		return;
	}
	double v = tensor_get(t, flat);
	if (!isfinite(v)) {
		const char *s = isnan(v) ? (f->style.plus ? "+nan" : "nan")
				: v < 0 ? "-inf" : f->style.plus ? "+inf" : "inf";
		int pad = f->pad_left + f->pad_right + 1 - (int)strlen(s);
		if (pad > 0)
			strbuf_pad(out, ' ', (size_t)pad);
		strbuf_puts(out, s);
	} else if (f->exp_format) {
		np_scientific(out, v, f->f32, f->style, f->precision, f->min_digits, f->trim, f->pad_left,
			      f->exp_size);
	} else {
		np_positional(out, v, f->f32, f->style, f->precision, f->min_digits, true, f->trim, f->pad_left,
			      f->pad_right);
	}
}

static size_t rstrip_len(const struct strbuf *b)
{
	size_t n = b->len;
	while (n > 0 && (b->s[n - 1] == ' ' || b->s[n - 1] == '\n'))
		n--;
	return n;
}

/* _extendLine: moves line to s and starts a new one when word would pass
 * width, unless the line holds only the hanging indent. */
static void np_extend_line(struct strbuf *s, struct strbuf *line, const char *word, size_t wlen,
		int width, int hang)
{
	bool wrap = (long)(line->len + wlen) > width;
	if (line->len <= (size_t)hang)
		wrap = false;
	if (wrap) {
		strbuf_putn(s, line->s, rstrip_len(line));
		strbuf_putc(s, '\n');
		strbuf_reset(line);
		strbuf_pad(line, ' ', (size_t)hang);
	}
	strbuf_putn(line, word, wlen);
}

/* _formatArray's recurser for the block starting at axis; appends
 * '[' + s[len(hanging_indent):] + ']' (or the element for axis == ndim). */
static void np_block(struct strbuf *out, const struct np_fmt *f, int axis, int64_t base, int hang,
		int width)
{
	const struct tensor *t = f->t;
	int left = t->ndim - axis;
	if (left == 0) {
		np_put_elem(out, f, base);
		return;
	}
	int64_t len = t->shape[axis], step = block_size(t, axis), edge = opts->np.edgeitems;
	bool summary = f->summarize && 2 * edge < len;
	/* numpy always shows the last item, after "..." when edgeitems is 0 */
	int64_t lead = summary ? edge : 0, trail = summary ? (edge > 0 ? edge : 1) : len;
	size_t sep_len = strlen(f->sep);
	size_t sep_strip = f->sep[sep_len - 1] == ' ' ? sep_len - 1 : sep_len;
	struct strbuf s, word;
	strbuf_init(&s);
	strbuf_init(&word);

	if (left == 1) {
		int elem_width = width - (sep_strip > 1 ? (int)sep_strip : 1);
		struct strbuf line;
		strbuf_init(&line);
		strbuf_pad(&line, ' ', (size_t)hang);
		for (int64_t k = 0; k < lead + trail; k++) {
			int64_t i = k < lead ? k : len - (lead + trail - k);
			if (summary && k == lead) {
				np_extend_line(&s, &line, "...", 3, elem_width, hang);
				strbuf_puts(&line, f->sep);
			}
			strbuf_reset(&word);
			np_block(&word, f, axis + 1, base + i * step, hang + 1, width - 1);
			np_extend_line(&s, &line, word.s, word.len, elem_width, hang);
			if (k + 1 < lead + trail)
				strbuf_puts(&line, f->sep);
		}
		strbuf_putn(&s, line.s, line.len);
		strbuf_free(&line);
	} else {
		for (int64_t k = 0; k < lead + trail; k++) {
			int64_t i = k < lead ? k : len - (lead + trail - k);
			if (summary && k == lead) {
				strbuf_pad(&s, ' ', (size_t)hang);
				strbuf_puts(&s, "...");
				strbuf_putn(&s, f->sep, sep_strip);
				strbuf_pad(&s, '\n', (size_t)left - 1);
			}
			strbuf_pad(&s, ' ', (size_t)hang);
			np_block(&s, f, axis + 1, base + i * step, hang + 1, width - 1);
			if (k + 1 < lead + trail) {
				strbuf_putn(&s, f->sep, sep_strip);
				strbuf_pad(&s, '\n', (size_t)left - 1);
			}
		}
	}
	strbuf_putc(out, '[');
	strbuf_putn(out, s.s + hang, s.len - (size_t)hang);
	strbuf_putc(out, ']');
	strbuf_free(&s);
	strbuf_free(&word);
}

/* array2string for a non-empty array: prefix only sets the hanging indent. */
static void np_array2string(struct strbuf *out, const struct tensor *t, const char *sep,
		size_t prefix_len, int linewidth)
{
	struct np_fmt f;
	np_fmt_init(&f, t, (double)tensor_numel(t) > opts->np.threshold, sep);
	np_block(out, &f, 0, 0, 1 + (int)prefix_len, linewidth);
}

static void np_repr(struct strbuf *out, const struct tensor *t)
{
	int64_t numel = tensor_numel(t);
	bool implied = t->dtype != DT_F32;
	bool skip_dtype = implied && numel > 0;
	struct strbuf a;
	strbuf_init(&a);
	strbuf_puts(&a, "array(");
	if (numel > 0) {
		np_array2string(&a, t, ", ", 6, opts->np.linewidth - 1);
	} else if (t->ndim == 1) {
		strbuf_puts(&a, "[]");
	} else {
		strbuf_puts(&a, "[], shape=");
		put_shape_tuple(&a, t);
	}
	strbuf_putc(&a, skip_dtype ? ')' : ',');
	strbuf_putn(out, a.s, a.len);
	if (!skip_dtype) {
		const char *nl = strrchr(a.s, '\n');
		size_t last = a.len - (nl ? (size_t)(nl - a.s) + 1 : 0);
		size_t dlen = strlen("dtype=)") + strlen(dtype_name(t->dtype));
		if ((long)(last + dlen + 1) > opts->np.linewidth) {
			strbuf_putc(out, '\n');
			strbuf_pad(out, ' ', 6);
		} else {
			strbuf_putc(out, ' ');
		}
		strbuf_printf(out, "dtype=%s)", dtype_name(t->dtype));
	}
	strbuf_free(&a);
}

static void np_str(struct strbuf *out, const struct tensor *t)
{
	if (t->ndim == 0) {
		if (t->dtype == DT_BOOL)
			strbuf_puts(out, tensor_get(t, 0) != 0 ? "True" : "False");
		else if (t->dtype == DT_I64)
			put_int64(out, tensor_get_i64(t, 0));
		else
			np_scalar_float(out, tensor_get(t, 0), t->dtype == DT_F32);
		return;
	}
	if (tensor_numel(t) == 0) {
		strbuf_puts(out, "[]");
		return;
	}
	np_array2string(out, t, " ", 0, opts->np.linewidth);
}

void format_repr(struct strbuf *out, const struct tensor *t)
{
	if (t->flavor == FLAVOR_NUMPY)
		np_repr(out, t);
	else
		torch_repr(out, t);
}

void format_repr_parameter(struct strbuf *out, const struct tensor *t)
{
	strbuf_puts(out, "Parameter containing:\n");
	torch_repr(out, t);
}

void format_str(struct strbuf *out, const struct tensor *t)
{
	if (t->flavor == FLAVOR_NUMPY)
		np_str(out, t);
	else
		torch_repr(out, t);
}

/* ---- Python's format() mini-language ------------------------------------ */

struct pyspec {
	char fill;
	char align;       /* '<' '>' '=' '^', or 0 when not given */
	char sign;        /* '+' '-' ' ' */
	bool alt;         /* '#' */
	int width;        /* -1 when not given */
	char group;       /* ',' '_' or 0 */
	int precision;    /* -1 when not given */
	char type;        /* 0 when not given */
};

static bool is_align(char c)
{
	return c == '<' || c == '>' || c == '=' || c == '^';
}

static int read_number(const char **p)
{
	int n = 0;
	while (**p >= '0' && **p <= '9') {
		if (n > 100000)
			return -1;
		n = n * 10 + (**p - '0');
		(*p)++;
	}
	return n;
}

/* Parses [[fill]align][sign][#][0][width][,|_][.precision][type]; -1 when
 * the spec has anything else. */
static int pyspec_parse(const char *s, struct pyspec *p)
{
	memset(p, 0, sizeof *p);
	p->fill = ' ';
	p->sign = '-';
	p->width = -1;
	p->precision = -1;
	bool fill_given = false;
	if (s[0] && is_align(s[1])) {
		p->fill = s[0];
		p->align = s[1];
		fill_given = true;
		s += 2;
	} else if (is_align(s[0])) {
		p->align = s[0];
		s++;
	}
	if (*s == '+' || *s == '-' || *s == ' ')
		p->sign = *s++;
	if (*s == '#') {
		p->alt = true;
		s++;
	}
	if (*s == '0') {
		if (!fill_given)
			p->fill = '0';
		if (!p->align)
			p->align = '=';
		s++;
	}
	if (*s >= '0' && *s <= '9') {
		p->width = read_number(&s);
		if (p->width < 0)
			return -1;
	}
	if (*s == ',' || *s == '_')
		p->group = *s++;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return -1;
		p->precision = read_number(&s);
		if (p->precision < 0 || p->precision > 200)
			return -1;
	}
	if (*s)
		p->type = *s++;
	return *s ? -1 : 0;
}

/* Inserts sep every `every` characters into the leading run of body made of
 * characters from `digits`. */
static void group_digits(struct strbuf *out, const char *body, const char *digits, char sep,
		int every)
{
	size_t run = strspn(body, digits);
	for (size_t i = 0; i < run; i++) {
		if (i > 0 && (run - i) % (size_t)every == 0)
			strbuf_putc(out, sep);
		strbuf_putc(out, body[i]);
	}
	strbuf_puts(out, body + run);
}

/* Lays out sign, prefix and body per fill/align/width. Returns -1 for
 * zero-padding into grouped digits, which Python groups and we do not. */
static int pyspec_emit(struct strbuf *out, const struct pyspec *p, bool neg, const char *prefix,
		const char *body, bool grouped)
{
	const char *sign = neg ? "-" : p->sign == '+' ? "+" : p->sign == ' ' ? " " : "";
	size_t len = strlen(sign) + strlen(prefix) + strlen(body);
	size_t pad = p->width > 0 && (size_t)p->width > len ? (size_t)p->width - len : 0;
	char align = p->align ? p->align : '>';
	if (pad > 0 && grouped && align == '=' && p->fill == '0')
		return -1;
	size_t before = 0, after = 0;
	if (align == '<')
		after = pad;
	else if (align == '>')
		before = pad;
	if (align == '^') {
		before = pad / 2;
		after = pad - before;
	}
	strbuf_pad(out, p->fill, before);
	strbuf_puts(out, sign);
	strbuf_puts(out, prefix);
	if (align == '=')
		strbuf_pad(out, p->fill, pad);
	strbuf_puts(out, body);
	strbuf_pad(out, p->fill, after);
	return 0;
}

/* Python's 'g' (and no-type with a precision, which adds ".0" to integers
 * and switches to exponent one digit earlier) for finite a >= 0. */
static void py_general(struct strbuf *out, double a, int precision, bool add_dot_0, bool upper)
{
	if (precision == 0)
		precision = 1;
	char buf[512];
	snprintf(buf, sizeof buf, "%.*e", precision - 1, a);
	int x = atoi(strchr(buf, 'e') + 1);
	bool use_exp = x < -4 || x >= (add_dot_0 ? precision - 1 : precision);
	if (use_exp)
		snprintf(buf, sizeof buf, "%.*e", precision - 1, a);
	else
		snprintf(buf, sizeof buf, "%.*f", precision - 1 - x, a);
	char *e = strchr(buf, 'e');
	size_t mant = e ? (size_t)(e - buf) : strlen(buf);
	if (memchr(buf, '.', mant)) {
		while (mant > 0 && buf[mant - 1] == '0')
			mant--;
		if (mant > 0 && buf[mant - 1] == '.')
			mant--;
	}
	strbuf_putn(out, buf, mant);
	if (add_dot_0 && !e && !memchr(buf, '.', mant))
		strbuf_puts(out, ".0");
	if (e)
		strbuf_printf(out, "%c%s", upper ? 'E' : 'e', e + 1);
}

int format_py_float_spec(struct strbuf *out, double v, const char *spec)
{
	struct pyspec p;
	if (pyspec_parse(spec, &p) < 0 || p.alt)
		return -1;
	if (p.type && !strchr("eEfFgG%", p.type))
		return -1;
	bool upper = p.type == 'E' || p.type == 'F' || p.type == 'G';
	bool neg = signbit(v) && !isnan(v);
	double a = fabs(v);
	int prec = p.precision < 0 ? 6 : p.precision;
	struct strbuf body;
	strbuf_init(&body);
	if (!isfinite(v)) {
		strbuf_puts(&body, isnan(v) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf"));
		if (p.type == '%')
			strbuf_putc(&body, '%');
	} else if (p.type == 'f' || p.type == 'F') {
		strbuf_printf(&body, "%.*f", prec, a);
	} else if (p.type == 'e' || p.type == 'E') {
		strbuf_printf(&body, upper ? "%.*E" : "%.*e", prec, a);
	} else if (p.type == 'g' || p.type == 'G') {
		py_general(&body, a, prec, false, upper);
	} else if (p.type == '%') {
		strbuf_printf(&body, "%.*f%%", prec, a * 100);
	} else if (p.precision < 0) {
		format_py_float(&body, a);
	} else {
		py_general(&body, a, p.precision, true, false);
	}
	int rc;
	if (p.group && isfinite(v)) {
		struct strbuf g;
		strbuf_init(&g);
		group_digits(&g, body.s, "0123456789", p.group, 3);
		rc = pyspec_emit(out, &p, neg, "", g.s, true);
		strbuf_free(&g);
	} else {
		rc = pyspec_emit(out, &p, neg, "", body.s, false);
	}
	strbuf_free(&body);
	return rc;
}

int format_py_int_spec(struct strbuf *out, int64_t v, const char *spec)
{
	struct pyspec p;
	if (pyspec_parse(spec, &p) < 0)
		return -1;
	if (p.type && strchr("eEfFgG%", p.type))
		return format_py_float_spec(out, (double)v, spec);
	if (p.precision >= 0)
		return -1;
	int base;
	const char *prefix = "";
	switch (p.type) {
	case 0: case 'd': base = 10; break;
	case 'x': base = 16; prefix = "0x"; break;
	case 'X': base = 16; prefix = "0X"; break;
	case 'o': base = 8; prefix = "0o"; break;
	case 'b': base = 2; prefix = "0b"; break;
	default: return -1;
	}
	if (p.group == ',' && base != 10)
		return -1;
	if (!p.alt)
		prefix = "";
	uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	char digits[72];
	int n = 0;
	const char *set = p.type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	do {
		digits[n++] = set[m % (uint64_t)base];
		m /= (uint64_t)base;
	} while (m);
	char body[72];
	for (int i = 0; i < n; i++)
		body[i] = digits[n - 1 - i];
	body[n] = '\0';
	if (!p.group)
		return pyspec_emit(out, &p, v < 0, prefix, body, false);
	struct strbuf g;
	strbuf_init(&g);
	group_digits(&g, body, "0123456789abcdefABCDEF", p.group, base == 10 ? 3 : 4);
	int rc = pyspec_emit(out, &p, v < 0, prefix, g.s, true);
	strbuf_free(&g);
	return rc;
}
