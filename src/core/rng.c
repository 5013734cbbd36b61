/* rng.c: mt19937 and the transforms torch 1.13 (CPU, x86-64 AVX2 build) and
 * numpy 1.24's legacy RandomState put on top of it, bit for bit.
 * Called by the tensor factories (rand, randn, randint, dropout, nn.Linear).
 * Never touches globals, allocates, or does I/O: all state is passed in. */
#include "core/rng.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER_MASK 0x80000000u
#define MT_LOWER_MASK 0x7fffffffu

/* c10::pi<double>, the pi torch uses for the Box-Muller angle. */
#define RNG_PI 3.141592653589793238462643383279502884

/* ---------------------------------------------------------------- mt19937 */

void mt19937_seed(struct mt19937 *mt, uint32_t seed)
{
	mt->state[0] = seed;
	for (uint32_t j = 1; j < MT_N; j++) {
		uint32_t prev = mt->state[j - 1];
		mt->state[j] = 1812433253u * (prev ^ (prev >> 30)) + j;
	}
	mt->index = MT_N;
}

static uint32_t mt19937_mix(uint32_t upper, uint32_t lower)
{
	uint32_t y = (upper & MT_UPPER_MASK) | (lower & MT_LOWER_MASK);

	return (y >> 1) ^ ((lower & 1u) ? MT_MATRIX_A : 0u);
}

/* Regenerate all MT_N words of the state at once. */
static void mt19937_twist(struct mt19937 *mt)
{
	uint32_t *s = mt->state;
	int k;

	for (k = 0; k < MT_N - MT_M; k++)
		s[k] = s[k + MT_M] ^ mt19937_mix(s[k], s[k + 1]);
	for (; k < MT_N - 1; k++)
		s[k] = s[k + MT_M - MT_N] ^ mt19937_mix(s[k], s[k + 1]);
	s[MT_N - 1] = s[MT_M - 1] ^ mt19937_mix(s[MT_N - 1], s[0]);
	mt->index = 0;
}

uint32_t mt19937_next(struct mt19937 *mt)
{
	uint32_t y;

	if (mt->index >= MT_N)
		mt19937_twist(mt);
	y = mt->state[mt->index++];
	y ^= y >> 11;
	y ^= (y << 7) & 0x9d2c5680u;
	y ^= (y << 15) & 0xefc60000u;
	y ^= y >> 18;
	return y;
}

/* ------------------------------------------------------------ torch basics */

void torch_gen_seed(struct torch_gen *g, uint64_t seed)
{
	mt19937_seed(&g->mt, (uint32_t)(seed & 0xffffffffu));
	g->seed = seed;
	g->has_next_double_normal = false;
	g->next_double_normal = 0.0;
	g->has_next_float_normal = false;
	g->next_float_normal = 0.0f;
}

uint32_t torch_gen_random(struct torch_gen *g)
{
	return mt19937_next(&g->mt);
}

uint64_t torch_gen_random64(struct torch_gen *g)
{
	uint64_t hi = torch_gen_random(g);
	uint64_t lo = torch_gen_random(g);

	return (hi << 32) | lo;
}

/*
 * uniform_real_distribution<float>: 24 random bits scaled to [0, 1), then
 * x * (to - from) + from, which torch's compiler contracts into one fused
 * multiply-add (checked against torch on nn.Linear bounds).
 */
static float torch_uniform_f32(struct torch_gen *g, float from, float to)
{
	float x = (float)(torch_gen_random(g) & ((1u << 24) - 1)) * (1.0f / 16777216.0f);

	return fmaf(x, to - from, from);
}

/* uniform_real_distribution<double>: 53 bits of random64, same shape. */
static double torch_uniform_f64(struct torch_gen *g, double from, double to)
{
	uint64_t bits = torch_gen_random64(g) & ((UINT64_C(1) << 53) - 1);
	double x = (double)bits * (1.0 / 9007199254740992.0);

	return fma(x, to - from, from);
}

void torch_fill_uniform_f32(struct torch_gen *g, float *dst, int64_t n, double from, double to)
{
	float f = (float)from;
	float t = (float)to;

	for (int64_t i = 0; i < n; i++)
		dst[i] = torch_uniform_f32(g, f, t);
}

void torch_fill_uniform_f64(struct torch_gen *g, double *dst, int64_t n, double from, double to)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = torch_uniform_f64(g, from, to);
}

/* ----------------------------------------------------------- torch normal */

/*
 * normal_distribution<double>: Box-Muller on two uniform doubles; u1 gives
 * the angle, u2 the radius through log(1 - u2) (not log1p). The sine half is
 * cached in g and served, unscaled, on the next call. val * std + mean is a
 * fused multiply-add in torch's build.
 */
static double torch_normal_f64(struct torch_gen *g, double mean, double std)
{
	double u1, u2, r, theta;

	if (g->has_next_double_normal) {
		g->has_next_double_normal = false;
		return fma(g->next_double_normal, std, mean);
	}
	u1 = torch_uniform_f64(g, 0.0, 1.0);
	u2 = torch_uniform_f64(g, 0.0, 1.0);
	r = sqrt(-2.0 * log(1.0 - u2));
	theta = 2.0 * RNG_PI * u1;
	g->next_double_normal = r * sin(theta);
	g->has_next_double_normal = true;
	return fma(r * cos(theta), std, mean);
}

static float rng_f32_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

static uint32_t rng_bits_from_f32(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

/*
 * log256_ps from torch's avx_mathfun.h (Cephes logf), one lane at a time.
 * The fused multiply-adds sit exactly where GCC contracted the intrinsics
 * in the shipped libtorch: every Horner step, y*z + e*q1, the -z/2 term and
 * e*q2 + (x + y). Returns NaN for x <= 0, as the vector code does.
 */
static float avx_log_f32(float x)
{
	bool invalid = x <= 0.0f;
	uint32_t bits;
	float e, tmp, z, y;

	x = x > FLT_MIN ? x : FLT_MIN;
	bits = rng_bits_from_f32(x);
	e = (float)((int32_t)(bits >> 23) - 0x7f);
	e = e + 1.0f;
	x = rng_f32_from_bits((bits & ~0x7f800000u) | rng_bits_from_f32(0.5f));

	/* x < sqrt(1/2): e -= 1 and x = x + x - 1, else x = x - 1 */
	tmp = x < 0.707106781186547524f ? x : 0.0f;
	e = e - (x < 0.707106781186547524f ? 1.0f : 0.0f);
	x = x - 1.0f;
	x = x + tmp;

	z = x * x;
	y = 7.0376836292e-2f;
	y = fmaf(y, x, -1.1514610310e-1f);
	y = fmaf(y, x, 1.1676998740e-1f);
	y = fmaf(y, x, -1.2420140846e-1f);
	y = fmaf(y, x, 1.4249322787e-1f);
	y = fmaf(y, x, -1.6668057665e-1f);
	y = fmaf(y, x, 2.0000714765e-1f);
	y = fmaf(y, x, -2.4999993993e-1f);
	y = fmaf(y, x, 3.3333331174e-1f);
	y = y * x;
	y = fmaf(y, z, e * -2.12194440e-4f);
	y = fmaf(-z, 0.5f, y);
	x = fmaf(e, 0.693359375f, x + y);
	if (invalid)
		return rng_f32_from_bits(0xffffffffu);
	return x;
}

/*
 * sincos256_ps from avx_mathfun.h (Cephes sinf/cosf), one lane, with GCC's
 * contractions as in avx_log_f32. Precondition: |x| < 2^31 * pi / 4 (the
 * caller passes angles in [0, 2 pi)).
 */
static void avx_sincos_f32(float x, float *s, float *c)
{
	uint32_t sign_sin = rng_bits_from_f32(x) & 0x80000000u;
	uint32_t sign_cos;
	float y, z, yc, ys, sin1, sin2;
	int32_t j;
	bool poly;

	x = fabsf(x);
	y = x * 1.27323954473516f;	/* 4 / pi */
	j = (int32_t)y;
	j = (j + 1) & ~1;
	y = (float)j;
	sign_sin ^= (uint32_t)(j & 4) << 29;
	poly = (j & 2) == 0;
	sign_cos = (uint32_t)(~(j - 2) & 4) << 29;

	/* extended precision x - y * pi/4 */
	x = fmaf(y, -0.78515625f, x);
	x = fmaf(y, -2.4187564849853515625e-4f, x);
	x = fmaf(y, -3.77489497744594108e-8f, x);

	z = x * x;
	yc = 2.443315711809948e-005f;
	yc = fmaf(yc, z, -1.388731625493765e-003f);
	yc = fmaf(yc, z, 4.166664568298827e-002f);
	yc = yc * z;
	yc = fmaf(yc, z, -(z * 0.5f));
	yc = yc + 1.0f;

	ys = -1.9515295891e-4f;
	ys = fmaf(ys, z, 8.3321608736e-3f);
	ys = fmaf(ys, z, -1.6666654611e-1f);
	ys = ys * z;
	ys = fmaf(ys, x, x);

	/* the vector code's blend: one polynomial for sin, the other for cos */
	sin2 = poly ? ys : 0.0f;
	sin1 = poly ? 0.0f : yc;
	ys = ys - sin2;
	yc = yc - sin1;
	*s = rng_f32_from_bits(rng_bits_from_f32(sin1 + sin2) ^ sign_sin);
	*c = rng_f32_from_bits(rng_bits_from_f32(yc + ys) ^ sign_cos);
}

/* normal_fill_16_AVX2: data[0..7] give radii, data[8..15] angles. */
static void torch_normal_fill_16_f32(float *data, float mean, float std)
{
	const float two_pi = (float)(2.0 * RNG_PI);

	for (int j = 0; j < 8; j++) {
		float u1 = 1.0f - data[j];
		float u2 = data[j + 8];
		float radius = sqrtf(-2.0f * avx_log_f32(u1));
		float theta = two_pi * u2;
		float s, c;

		avx_sincos_f32(theta, &s, &c);
		data[j] = fmaf(radius * c, std, mean);
		data[j + 8] = fmaf(radius * s, std, mean);
	}
}

/* normal_fill_16<double>: libm log/cos/sin, final step fused. */
static void torch_normal_fill_16_f64(double *data, double mean, double std)
{
	for (int j = 0; j < 8; j++) {
		double u1 = 1.0 - data[j];
		double u2 = data[j + 8];
		double radius = sqrt(-2.0 * log(u1));
		double theta = 2.0 * RNG_PI * u2;

		data[j] = fma(radius * cos(theta), std, mean);
		data[j + 8] = fma(radius * sin(theta), std, mean);
	}
}

void torch_fill_normal_f32(struct torch_gen *g, float *dst, int64_t n, double mean, double std)
{
	float m = (float)mean;
	float s = (float)std;

	if (n < 16) {
		for (int64_t i = 0; i < n; i++)
			dst[i] = (float)torch_normal_f64(g, mean, std);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		dst[i] = torch_uniform_f32(g, 0.0f, 1.0f);
	for (int64_t i = 0; i + 16 <= n; i += 16)
		torch_normal_fill_16_f32(dst + i, m, s);
	if (n % 16 != 0) {
		/* torch redraws the tail's last 16 and transforms them again */
		float *tail = dst + n - 16;

		for (int i = 0; i < 16; i++)
			tail[i] = torch_uniform_f32(g, 0.0f, 1.0f);
		torch_normal_fill_16_f32(tail, m, s);
	}
}

void torch_fill_normal_f64(struct torch_gen *g, double *dst, int64_t n, double mean, double std)
{
	if (n < 16) {
		for (int64_t i = 0; i < n; i++)
			dst[i] = torch_normal_f64(g, mean, std);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		dst[i] = torch_uniform_f64(g, 0.0, 1.0);
	for (int64_t i = 0; i + 16 <= n; i += 16)
		torch_normal_fill_16_f64(dst + i, mean, std);
	if (n % 16 != 0) {
		double *tail = dst + n - 16;

		for (int i = 0; i < 16; i++)
			tail[i] = torch_uniform_f64(g, 0.0, 1.0);
		torch_normal_fill_16_f64(tail, mean, std);
	}
}

/* ------------------------------------------------ torch bernoulli, randint */

void torch_fill_bernoulli(struct torch_gen *g, uint8_t *keep, int64_t n, double p)
{
	/* bernoulli_distribution<double>: one random64 per element */
	for (int64_t i = 0; i < n; i++)
		keep[i] = torch_uniform_f64(g, 0.0, 1.0) < p;
}

void torch_fill_randint(struct torch_gen *g, int64_t *dst, int64_t n, int64_t low, int64_t high)
{
	uint64_t range = (uint64_t)high - (uint64_t)low;

	for (int64_t i = 0; i < n; i++) {
		uint64_t v;

		if (range >= (UINT64_C(1) << 32))
			v = torch_gen_random64(g);
		else
			v = torch_gen_random(g);
		dst[i] = (int64_t)(v % range + (uint64_t)low);
	}
}

/* ------------------------------------------------------- nn.Linear bounds */

double torch_linear_weight_bound(int64_t fan_in)
{
	/* init.kaiming_uniform_(w, a=math.sqrt(5)); Python's a ** 2 is pow() */
	double a = sqrt(5.0);
	double gain = sqrt(2.0 / (1.0 + pow(a, 2.0)));
	double std = gain / sqrt((double)fan_in);

	return sqrt(3.0) * std;
}

double torch_linear_bias_bound(int64_t fan_in)
{
	return fan_in > 0 ? 1.0 / sqrt((double)fan_in) : 0.0;
}

/* ------------------------------------------------------------ numpy legacy */

void np_gen_seed(struct np_gen *g, uint32_t seed)
{
	mt19937_seed(&g->mt, seed);
	g->has_gauss = false;
	g->gauss = 0.0;
}

double np_gen_double(struct np_gen *g)
{
	uint32_t a = mt19937_next(&g->mt) >> 5;
	uint32_t b = mt19937_next(&g->mt) >> 6;

	return (a * 67108864.0 + b) / 9007199254740992.0;
}

void np_fill_rand(struct np_gen *g, double *dst, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = np_gen_double(g);
}

/* legacy_gauss: Marsaglia's polar method, caching the second value. */
static double np_gen_gauss(struct np_gen *g)
{
	double x1, x2, r2, f;

	if (g->has_gauss) {
		g->has_gauss = false;
		f = g->gauss;
		g->gauss = 0.0;
		return f;
	}
	do {
		x1 = 2.0 * np_gen_double(g) - 1.0;
		x2 = 2.0 * np_gen_double(g) - 1.0;
		r2 = x1 * x1 + x2 * x2;
	} while (r2 >= 1.0 || r2 == 0.0);
	f = sqrt(-2.0 * log(r2) / r2);
	g->gauss = f * x1;
	g->has_gauss = true;
	return f * x2;
}

void np_fill_randn(struct np_gen *g, double *dst, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		dst[i] = np_gen_gauss(g);
}
