/* rng.h: the random number streams of PyTorch's CPU generator and of numpy's
 * legacy RandomState, bit for bit, so seeded notebooks print the same numbers.
 * Both are mt19937 underneath; the transforms on top follow torch 1.13
 * (aten/src/ATen/core/TransformationHelper.h, DistributionTemplates.h,
 * cpu/DistributionKernels.cpp) and numpy's legacy mt19937 / random_sample /
 * gauss. Pure functions of the state passed in: no globals, no I/O. */
#ifndef QKV_CORE_RNG_H
#define QKV_CORE_RNG_H

#include <stdbool.h>
#include <stdint.h>

#define MT_N 624

struct mt19937 {
	uint32_t state[MT_N];
	int index;
};

/* Seed as init_genrand (torch's init_with_uint32, numpy's mt19937_seed):
 * state[0] = seed, state[j] = 1812433253 * (s ^ (s >> 30)) + j. */
void mt19937_seed(struct mt19937 *mt, uint32_t seed);
/* The next tempered 32-bit output. Precondition: mt was seeded. */
uint32_t mt19937_next(struct mt19937 *mt);

/* torch's default CPU generator: an mt19937 plus the cached second normal
 * sample of the Box-Muller pair (torch's normal_distribution<double>). */
struct torch_gen {
	struct mt19937 mt;
	uint64_t seed;
	bool has_next_double_normal;
	double next_double_normal;
	bool has_next_float_normal;
	float next_float_normal;
};

/* torch's seed when the program never called manual_seed: 67280421310721 */
#define TORCH_DEFAULT_SEED 67280421310721ULL

void torch_gen_seed(struct torch_gen *g, uint64_t seed);   /* torch.manual_seed */
uint32_t torch_gen_random(struct torch_gen *g);            /* 32 random bits */
uint64_t torch_gen_random64(struct torch_gen *g);          /* two draws, first is high */

/* tensor.uniform_(from, to) on a contiguous float32 / float64 tensor of n
 * elements; torch.rand is from = 0, to = 1. */
void torch_fill_uniform_f32(struct torch_gen *g, float *dst, int64_t n, double from, double to);
void torch_fill_uniform_f64(struct torch_gen *g, double *dst, int64_t n, double from, double to);
/* torch.randn of n elements (mean 0, std 1), with torch's two paths:
 * fewer than 16 elements draws Box-Muller pairs through normal_distribution
 * <double> (caching the second sample in g); 16 or more fills uniforms and
 * transforms them 16 at a time (normal_fill), as torch does on x86-64. */
void torch_fill_normal_f32(struct torch_gen *g, float *dst, int64_t n, double mean, double std);
void torch_fill_normal_f64(struct torch_gen *g, double *dst, int64_t n, double mean, double std);
/* tensor.bernoulli_(p) as nn.Dropout uses it: keep[i] = 1 with probability p. */
void torch_fill_bernoulli(struct torch_gen *g, uint8_t *keep, int64_t n, double p);
/* torch.randint(low, high, (n,)) */
void torch_fill_randint(struct torch_gen *g, int64_t *dst, int64_t n, int64_t low, int64_t high);
/* The bound nn.Linear(fan_in, ...) uses for weight (kaiming_uniform_ with
 * a = sqrt(5)) and bias: both are 1/sqrt(fan_in) computed as torch does. */
double torch_linear_weight_bound(int64_t fan_in);
double torch_linear_bias_bound(int64_t fan_in);
/* Preconditions of the torch_fill_* calls: dst / keep hold n >= 0 elements;
 * randint needs low < high; bernoulli 0 <= p <= 1; normal std >= 0. The
 * linear bounds need fan_in >= 1 (the bias bound is 0 for fan_in 0, as in
 * torch). The two bounds can differ in the last bit (fan_in 1 gives
 * 0.99999999999999989 and 1.0), so use each for its own tensor.
 * nn.Dropout(p) passes 1.0 - p to torch_fill_bernoulli, and torch draws
 * nothing at all when p == 0, p == 1 or not training. Only the double normal
 * cache is used: torch 1.13's CPU kernels never touch the float one, which
 * torch_gen_seed just clears. */

/* numpy's legacy np.random (RandomState) */
struct np_gen {
	struct mt19937 mt;
	bool has_gauss;
	double gauss;
};
#define NP_DEFAULT_SEED 0u
void np_gen_seed(struct np_gen *g, uint32_t seed);            /* np.random.seed */
double np_gen_double(struct np_gen *g);                       /* random_sample */
void np_fill_rand(struct np_gen *g, double *dst, int64_t n);  /* np.random.rand */
void np_fill_randn(struct np_gen *g, double *dst, int64_t n); /* np.random.randn (legacy gauss) */

#endif
