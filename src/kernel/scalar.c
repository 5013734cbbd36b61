/* scalar.c: the scalar path behind the *_simd kernels, chosen by
 * QKV_NO_SIMD=1 (main.c calls kernel_force_scalar): the loops kernels for
 * matmul, softmax and attention with weights, libm's exp, and a row-at-a-time
 * online softmax for fused attention, so that nothing needs the (T, T)
 * weights here either. No vector types; only dispatch.c reaches it. */
#include "kernel/ctl.h"
#include "kernel/kernel.h"
#include "kernel/simd.h"

#include <math.h>

/* out rows i0 .. i0+bq-1 of one head, each query on its own: its running
 * maximum m and sum l, its output gathered in acc (64 values per pass) and
 * rescaled by exp(m_old - m_new) when a key raises the maximum. */
#define SCALAR_DVC 64

#define ROWS(T, NAME, EXP)                                                                                 \
	static void NAME(T *out, const T *q, const T *k, const T *v, const uint8_t *mask, bool causal,    \
			 T scale, int64_t i0, int64_t bq, int64_t tk, int64_t d, int64_t dv,               \
			 const struct att_ld *ld, const struct att_next *next)                             \
	{                                                                                                  \
		(void)next; /* one query at a time: no tiles to fetch behind */                            \
		for (int64_t i = i0; i < i0 + bq; i++) {                                                   \
			int64_t kend = causal && i + 1 < tk ? i + 1 : tk;                                  \
			if (ctl_stop()) /* Ctrl-C: the rest of out is left */                              \
				return;                                                                    \
			ctl_done(kend * (d + dv));                                                         \
			for (int64_t c0 = 0; c0 < dv; c0 += SCALAR_DVC) {                                  \
				int64_t dvc = dv - c0 < SCALAR_DVC ? dv - c0 : SCALAR_DVC;                 \
				T acc[SCALAR_DVC] = { 0 }, m = -INFINITY, l = 0;                           \
				for (int64_t j = 0; j < kend; j++) {                                       \
					if (mask && mask[i * tk + j])                                      \
						continue;                                                  \
					T s = 0;                                                           \
					for (int64_t c = 0; c < d; c++)                                    \
						s += q[i * ld->q + c] * k[j * ld->k + c];                          \
					s *= scale;                                                        \
					if (s > m || s != s) {                                             \
						T alpha = m == -INFINITY ? 0 : EXP(m - s);                 \
						for (int64_t c = 0; c < dvc; c++)                          \
							acc[c] *= alpha;                                   \
						l *= alpha;                                                \
						m = s;                                                     \
					}                                                                  \
					if (m == -INFINITY)                                                \
						continue;                                                  \
					T p = EXP(s - m);                                                  \
					l += p;                                                            \
					for (int64_t c = 0; c < dvc; c++)                                  \
						acc[c] += p * v[j * ld->v + c0 + c];                          \
				}                                                                          \
				for (int64_t c = 0; c < dvc; c++)                                          \
					out[i * ld->out + c0 + c] = l != 0 ? acc[c] / l : tk > 0 ? (T)NAN : 0; \
			}                                                                                  \
		}                                                                                          \
	}

ROWS(float, rows_f32, expf)
ROWS(double, rows_f64, exp)

static void exp_f32(float *out, const float *in, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = expf(in[i]);
}

static void exp_f64(double *out, const double *in, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = exp(in[i]);
}

/* below -125 exactly 0, as kernel.h promises (the vector ones flush there) */
static void exp2_softmax_f32(float *out, const float *in, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		out[i] = in[i] < -125.0f ? 0.0f : exp2f(in[i]);
}

/* 12 independent multiply-add chains, one number wide. */
static float chains_f32(int64_t iters, float seed)
{
	float a[12];
	for (int j = 0; j < 12; j++)
		a[j] = seed + (float)j;
	for (int64_t i = 0; i < iters; i++)
		for (int j = 0; j < 12; j++)
			a[j] = a[j] * 0.999999f + 1e-7f;
	float sum = 0;
	for (int j = 0; j < 12; j++)
		sum += a[j];
	return sum;
}

const struct simd_ops simd_ops_scalar = {
	.name = "scalar",
	.matmul_f32 = matmul_f32_loops,
	.matmul_f64 = matmul_f64_loops,
	.softmax_rows_f32 = softmax_rows_f32_loops,
	.softmax_rows_f64 = softmax_rows_f64_loops,
	.attention_f32 = attention_f32_loops,
	.attention_f64 = attention_f64_loops,
	.attention_rows_f32 = rows_f32,
	.attention_rows_f64 = rows_f64,
	.att_rows = 16,
	.att_keys = 1,
	.att_dc = 0,
	.att_dvc = SCALAR_DVC,
	.gemm_f32 = { .loops = true, .lanes = 1, .tile_rows = 1, .tile_cols = 1 },
	.gemm_f64 = { .loops = true, .lanes = 1, .tile_rows = 1, .tile_cols = 1 },
	.exp_f32 = exp_f32,
	.exp_f64 = exp_f64,
	.fma_chains_f32 = chains_f32,
	.fma_lanes = 1,
	.exp2_softmax_f32 = exp2_softmax_f32,
};
