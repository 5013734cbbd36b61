/* test_rng.c: checks core/rng.c against numbers printed by the real torch 1.13
 * and numpy 1.24 (tests/ref/rng_refs.inc, made by tests/ref/rng_refs.py).
 * Every float is compared bit for bit; a test must never loosen that to a
 * tolerance without saying why. */
#include "core/rng.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../ref/rng_refs.inc"

#define ARRAY_LEN(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

static uint32_t bits_f32(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	return u;
}

static uint64_t bits_f64(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof u);
	return u;
}

static void expect_same_f32(const float *got, const float *want, int64_t n, const char *what)
{
	for (int64_t i = 0; i < n; i++)
		cr_assert_eq(bits_f32(got[i]), bits_f32(want[i]),
			     "%s[%lld]: got %.9g (0x%08x), torch says %.9g (0x%08x)", what,
			     (long long)i, got[i], bits_f32(got[i]), want[i], bits_f32(want[i]));
}

static void expect_same_f64(const double *got, const double *want, int64_t n, const char *what)
{
	for (int64_t i = 0; i < n; i++)
		cr_assert_eq(bits_f64(got[i]), bits_f64(want[i]),
			     "%s[%lld]: got %.17g, reference says %.17g", what,
			     (long long)i, got[i], want[i]);
}

static void expect_same_u8(const uint8_t *got, const uint8_t *want, int64_t n, const char *what)
{
	for (int64_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "%s[%lld]: got %d, torch says %d", what,
			     (long long)i, got[i], want[i]);
}

static void expect_same_i64(const int64_t *got, const int64_t *want, int64_t n, const char *what)
{
	for (int64_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "%s[%lld]: got %lld, torch says %lld", what,
			     (long long)i, (long long)got[i], (long long)want[i]);
}

/* The reference tables are what the notebooks print, not just self-consistent. */
static void expect_printed_as(double v, const char *fmt, const char *want)
{
	char buf[64];

	snprintf(buf, sizeof buf, fmt, v);
	cr_assert_str_eq(buf, want, "%s printed as %s, the notebook shows %s", fmt, buf, want);
}

/* torch.randn(n) into out, checked against want[0..n-1]. */
static void check_randn_f32(struct torch_gen *g, int64_t n, const float *want, const char *what)
{
	float out[4096];

	cr_assert_leq(n, ARRAY_LEN(out));
	torch_fill_normal_f32(g, out, n, 0.0, 1.0);
	expect_same_f32(out, want, n, what);
}

/* ------------------------------------------------------------- mt19937 */

Test(rng, mt19937_seeded_with_5489_should_give_the_canonical_words)
{
	struct mt19937 mt;

	mt19937_seed(&mt, 5489);
	for (int i = 0; i < ARRAY_LEN(ref_mt_seed5489); i++)
		cr_assert_eq(mt19937_next(&mt), ref_mt_seed5489[i], "word %d", i);
}

Test(rng, mt19937_should_keep_matching_numpy_across_several_twists)
{
	struct mt19937 mt;
	struct np_gen np;
	double want[6];

	/* 2000 words is three refills of the state; np_gen_double uses two words */
	mt19937_seed(&mt, 775);
	for (int i = 0; i < 2000; i++)
		mt19937_next(&mt);
	np_gen_seed(&np, 775);
	for (int i = 0; i < 1000; i++)
		np_gen_double(&np);
	for (int i = 0; i < 6; i++) {
		uint32_t a = mt19937_next(&mt) >> 5;
		uint32_t b = mt19937_next(&mt) >> 6;

		want[i] = (a * 67108864.0 + b) / 9007199254740992.0;
		cr_assert_eq(bits_f64(np_gen_double(&np)), bits_f64(want[i]), "double %d", i);
	}
}

Test(rng, torch_seed_should_use_only_the_low_32_bits)
{
	struct torch_gen g;
	float out[3];

	torch_gen_seed(&g, (UINT64_C(1) << 32) + 5);
	cr_assert_eq(g.seed, (UINT64_C(1) << 32) + 5);
	torch_fill_uniform_f32(&g, out, 3, 0.0, 1.0);
	expect_same_f32(out, ref_rand_seed_2pow32_plus5, 3, "rand(3)");
}

Test(rng, default_seed_should_match_a_fresh_torch_generator)
{
	struct torch_gen g;
	float out[3];

	torch_gen_seed(&g, TORCH_DEFAULT_SEED);
	torch_fill_uniform_f32(&g, out, 3, 0.0, 1.0);
	expect_same_f32(out, ref_rand_default_seed, 3, "rand(3)");
}

Test(rng, random64_should_draw_the_high_word_first)
{
	struct torch_gen g;

	/* tensor.random_() on int64 is random64() % 2^63 */
	torch_gen_seed(&g, 0);
	for (int i = 0; i < ARRAY_LEN(ref_torch_random_full_seed0); i++) {
		int64_t v = (int64_t)(torch_gen_random64(&g) % (UINT64_C(1) << 63));

		cr_assert_eq(v, ref_torch_random_full_seed0[i], "element %d", i);
	}
}

/* ---------------------------------------------------------- torch.randn */

Test(rng, randn_after_seed_42_should_match_torch)
{
	struct torch_gen g;

	torch_gen_seed(&g, 42);
	check_randn_f32(&g, 15, ref_randn_seed42_3x5, "randn(3, 5)");
	/* what the notebook shows: tensor([[ 0.3367,  0.1288, ..., -1.1229], */
	expect_printed_as(ref_randn_seed42_3x5[0], "%.4f", "0.3367");
	expect_printed_as(ref_randn_seed42_3x5[4], "%.4f", "-1.1229");
	check_randn_f32(&g, 20, ref_randn_seed42_then_5x4_a, "randn(5, 4)");
	check_randn_f32(&g, 20, ref_randn_seed42_then_5x4_b, "second randn(5, 4)");
	check_randn_f32(&g, 30, ref_randn_seed42_then_2x3x5, "randn(2, 3, 5)");
}

Test(rng, randn_of_16_17_and_100_should_match_torch)
{
	struct torch_gen g;

	torch_gen_seed(&g, 42);
	check_randn_f32(&g, 16, ref_randn_seed42_n16, "randn(16)");
	torch_gen_seed(&g, 42);
	check_randn_f32(&g, 17, ref_randn_seed42_n17, "randn(17)");
	torch_gen_seed(&g, 42);
	check_randn_f32(&g, 100, ref_randn_seed42_n100, "randn(100)");
}

Test(rng, randn_of_sizes_1_to_40_in_one_sequence_should_match_torch)
{
	struct torch_gen g;
	int64_t at = 0;

	/* crosses the < 16 Box-Muller path (with its cached sine) and the
	 * vectorised path (which neither reads nor clears the cache) */
	torch_gen_seed(&g, 1234);
	for (int64_t n = 1; n <= 40; n++) {
		check_randn_f32(&g, n, ref_randn_sizes_1_to_40_seed1234 + at, "randn(n)");
		at += n;
	}
	cr_assert_eq(at, ARRAY_LEN(ref_randn_sizes_1_to_40_seed1234));
}

Test(rng, randn_float64_of_sizes_1_to_40_should_match_torch)
{
	struct torch_gen g;
	double out[40];
	int64_t at = 0;

	torch_gen_seed(&g, 1234);
	for (int64_t n = 1; n <= 40; n++) {
		torch_fill_normal_f64(&g, out, n, 0.0, 1.0);
		expect_same_f64(out, ref_randn64_sizes_1_to_40_seed1234 + at, n, "randn(n, f64)");
		at += n;
	}
	cr_assert_eq(at, ARRAY_LEN(ref_randn64_sizes_1_to_40_seed1234));
}

Test(rng, randn_of_4096_should_match_torch_vectorised_path)
{
	struct torch_gen g;

	torch_gen_seed(&g, 2024);
	check_randn_f32(&g, 4096, ref_randn_seed2024_n4096, "randn(4096)");
}

Test(rng, normal_with_mean_and_std_should_match_torch)
{
	static const int64_t sizes[] = { 5, 37, 3, 16 };
	struct torch_gen g;
	float out[37];
	double out64[37];
	int64_t at = 0;

	torch_gen_seed(&g, 7);
	for (int i = 0; i < ARRAY_LEN(sizes); i++) {
		torch_fill_normal_f32(&g, out, sizes[i], 0.5, 3.0);
		expect_same_f32(out, ref_normal_mean05_std3_seed7 + at, sizes[i], "normal_(0.5, 3)");
		at += sizes[i];
	}
	at = 0;
	torch_gen_seed(&g, 7);
	for (int i = 0; i < ARRAY_LEN(sizes); i++) {
		torch_fill_normal_f64(&g, out64, sizes[i], 0.5, 3.0);
		expect_same_f64(out64, ref_normal64_mean05_std3_seed7 + at, sizes[i],
				"normal_(0.5, 3) f64");
		at += sizes[i];
	}
}

Test(rng, torch_seed_should_drop_the_cached_normal)
{
	struct torch_gen g;
	float x;

	torch_gen_seed(&g, 1234);
	torch_fill_normal_f32(&g, &x, 1, 0.0, 1.0);
	cr_assert(g.has_next_double_normal);
	torch_gen_seed(&g, 1234);
	cr_assert_not(g.has_next_double_normal);
	torch_fill_normal_f32(&g, &x, 1, 0.0, 1.0);
	cr_assert_eq(bits_f32(x), bits_f32(ref_randn_sizes_1_to_40_seed1234[0]));
}

/* ----------------------------------------------------- torch.rand, Linear */

Test(rng, rand_after_seed_123_then_linear_weights_should_match_torch)
{
	const float *rands[] = { ref_rand_seed123_3x2_0, ref_rand_seed123_3x2_1,
				 ref_rand_seed123_3x2_2 };
	const float *weights[] = { ref_linear_3_2_nobias_0, ref_linear_3_2_nobias_1,
				   ref_linear_3_2_nobias_2 };
	struct torch_gen g;
	float out[16];
	double b;

	torch_gen_seed(&g, 123);
	for (int i = 0; i < 3; i++) {
		torch_fill_uniform_f32(&g, out, 6, 0.0, 1.0);
		expect_same_f32(out, rands[i], 6, "rand(3, 2)");
	}
	/* nn.Linear(3, 2, bias=False): weight (2, 3) row-major */
	b = torch_linear_weight_bound(3);
	for (int i = 0; i < 3; i++) {
		torch_fill_uniform_f32(&g, out, 6, -b, b);
		expect_same_f32(out, weights[i], 6, "Linear(3, 2).weight");
	}
	/* nn.Linear(4, 4): weight first, then bias */
	b = torch_linear_weight_bound(4);
	torch_fill_uniform_f32(&g, out, 16, -b, b);
	expect_same_f32(out, ref_linear_4_4_weight, 16, "Linear(4, 4).weight");
	b = torch_linear_bias_bound(4);
	torch_fill_uniform_f32(&g, out, 4, -b, b);
	expect_same_f32(out, ref_linear_4_4_bias, 4, "Linear(4, 4).bias");
}

Test(rng, linear_bounds_should_equal_the_ones_torch_passes_to_uniform)
{
	for (int i = 0; i < ARRAY_LEN(ref_linear_fans); i++) {
		int64_t fan = ref_linear_fans[i];

		cr_assert_eq(bits_f64(torch_linear_weight_bound(fan)),
			     bits_f64(ref_linear_weight_bounds[i]), "weight bound, fan_in %lld",
			     (long long)fan);
		cr_assert_eq(bits_f64(torch_linear_bias_bound(fan)),
			     bits_f64(ref_linear_bias_bounds[i]), "bias bound, fan_in %lld",
			     (long long)fan);
	}
}

Test(rng, rand_of_1000_should_match_torch)
{
	struct torch_gen g;
	float out[1000];

	torch_gen_seed(&g, 0);
	torch_fill_uniform_f32(&g, out, 1000, 0.0, 1.0);
	expect_same_f32(out, ref_rand_seed0_n1000, 1000, "rand(1000)");
}

Test(rng, rand_float64_should_match_torch)
{
	struct torch_gen g;
	double out[8];

	torch_gen_seed(&g, 0);
	torch_fill_uniform_f64(&g, out, 8, 0.0, 1.0);
	expect_same_f64(out, ref_rand64_seed0_n8, 8, "rand(8, f64)");
}

Test(rng, uniform_with_bounds_should_match_torch)
{
	struct torch_gen g;
	float out[64];
	double out64[64];

	torch_gen_seed(&g, 9);
	torch_fill_uniform_f32(&g, out, 64, -0.3, 0.4);
	expect_same_f32(out, ref_uniform_m03_04_seed9, 64, "uniform_(-0.3, 0.4)");
	torch_gen_seed(&g, 9);
	torch_fill_uniform_f64(&g, out64, 64, -0.3, 0.4);
	expect_same_f64(out64, ref_uniform64_m03_04_seed9, 64, "uniform_(-0.3, 0.4) f64");
}

/* ------------------------------------------------ bernoulli, dropout, randint */

Test(rng, bernoulli_half_should_match_torch)
{
	static const int64_t sizes[] = { 1, 10, 37 };
	struct torch_gen g;
	uint8_t keep[37];
	int64_t at = 0;

	torch_gen_seed(&g, 0);
	for (int i = 0; i < ARRAY_LEN(sizes); i++) {
		torch_fill_bernoulli(&g, keep, sizes[i], 0.5);
		expect_same_u8(keep, ref_bernoulli_half_seed0 + at, sizes[i], "bernoulli_(0.5)");
		at += sizes[i];
	}
}

Test(rng, dropout_masks_should_match_torch)
{
	struct torch_gen g;
	uint8_t keep[200];

	torch_gen_seed(&g, 3);
	torch_fill_bernoulli(&g, keep, 200, 0.9);
	expect_same_u8(keep, ref_bernoulli_09_seed3, 200, "bernoulli_(0.9)");
	/* nn.Dropout(p) keeps with probability 1 - p, computed in double */
	torch_gen_seed(&g, 3);
	torch_fill_bernoulli(&g, keep, 200, 1.0 - 0.1);
	expect_same_u8(keep, ref_dropout_01_keep_seed3, 200, "Dropout(0.1)");
	torch_gen_seed(&g, 11);
	torch_fill_bernoulli(&g, keep, 32, 1.0 - 0.5);
	expect_same_u8(keep, ref_dropout_05_keep_seed11, 32, "Dropout(0.5)");
}

Test(rng, randint_should_match_torch_for_small_and_64_bit_ranges)
{
	struct torch_gen g;
	int64_t out[32];

	torch_gen_seed(&g, 0);
	torch_fill_randint(&g, out, 8, 0, 10);
	expect_same_i64(out, ref_randint_0_10_seed0, 8, "randint(0, 10)");

	/* ranges of 2^32 or more draw random64, smaller ones random */
	torch_gen_seed(&g, 5);
	torch_fill_randint(&g, out, 20, -5, 5);
	torch_fill_randint(&g, out + 20, 6, 0, INT64_C(1) << 40);
	torch_fill_randint(&g, out + 26, 4, -(INT64_C(1) << 62), INT64_C(1) << 62);
	torch_fill_randint(&g, out + 30, 2, 3, 4);
	expect_same_i64(out, ref_randint_mixed_seed5, 32, "randint mix");
}

/* ---------------------------------------------------------- numpy legacy */

Test(rng, numpy_rand_after_seed_775_should_match_numpy)
{
	const double *want[] = { ref_np_rand_seed775_3x2_0, ref_np_rand_seed775_3x2_1,
				 ref_np_rand_seed775_3x2_2 };
	struct np_gen g;
	double out[10];

	np_gen_seed(&g, 775);
	for (int i = 0; i < 3; i++) {
		np_fill_rand(&g, out, 6);
		expect_same_f64(out, want[i], 6, "np.random.rand(3, 2)");
	}
	expect_printed_as(ref_np_rand_seed775_3x2_0[0], "%.8f", "0.37573502");
	expect_printed_as(ref_np_rand_seed775_3x2_0[5], "%.8f", "0.89775264");
	np_fill_randn(&g, out, 10);
	expect_same_f64(out, ref_np_randn_seed775_after, 10, "np.random.randn(10)");
}

Test(rng, numpy_gauss_cache_should_survive_rand_and_reset_on_seed)
{
	struct np_gen g;
	double out[12];

	np_gen_seed(&g, 0);
	np_fill_randn(&g, out, 7);
	np_fill_rand(&g, out + 7, 2);
	np_fill_randn(&g, out + 9, 3);
	expect_same_f64(out, ref_np_randn_rand_mix_seed0, 12, "randn, rand, randn");

	np_gen_seed(&g, 1);
	np_fill_randn(&g, out, 1);
	cr_assert(g.has_gauss);
	np_gen_seed(&g, 1);
	cr_assert_not(g.has_gauss);
	np_fill_randn(&g, out, 2);
	expect_same_f64(out, ref_np_randn_reseed1, 2, "randn after reseed");
}
