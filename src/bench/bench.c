/* bench.c: `qkv bench`, the speed of the kernels on this machine, as times,
 * GFLOP/s and fractions of a peak it measures itself, and of the
 * interpreter on the documents' loop cells and small loops (feel.c times
 * the screen). Called by cli/bench.c only; the kernel cases call kernel/
 * directly (no interpreter in the way); it never decides the exit status.
 * Speed is measured here, never in timed tests. */
#include "bench/bench.h"
#include "bench/internal.h"
#include "core/mem.h"
#include "kernel/kernel.h"
#include "lang/interp.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The GPT-2-shaped problem of seed 002's timing, and a small one for --quick. */
struct shape {
	int64_t b, t, h, d;	/* batch, tokens, heads, head size; d_model = h·d */
};

static const struct shape shape_full = { 10, 512, 12, 64 }, shape_quick = { 1, 64, 2, 32 };

static volatile float bench_sink;

double bench_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The benches' arrays are 64-byte aligned, as the interpreter's tensors are
 * (xalloc_aligned): a large malloc block starts 16 bytes into a page, and
 * then half the vector loads of v straddle two cache lines (the fused
 * attention measured 14% slower so). */
static float *random_f32(int64_t n, uint32_t *state)
{
	float *x = xalloc_aligned((size_t)n * sizeof *x);
	for (int64_t i = 0; i < n; i++) {
		*state = *state * 1664525u + 1013904223u;	/* any numbers will do */
		x[i] = (float)((*state >> 8) * (1.0 / 16777216.0)) - 0.5f;
	}
	return x;
}

/* The largest difference between two results, relative to the largest
 * magnitude in a (0 when both are empty). */
static double rel_diff(const float *a, const float *b, int64_t n)
{
	double md = 0, mag = 0;
	for (int64_t i = 0; i < n; i++) {
		md = fmax(md, fabs((double)a[i] - b[i]));
		mag = fmax(mag, fabs((double)a[i]));
	}
	return mag > 0 ? md / mag : md;
}

/* ---- the cases -------------------------------------------------------------
 * Each runs one variant on its inputs and leaves its result in out. */

struct mm_case {
	const float *a, *w;
	float *out;
	int64_t m, k, n;
};

typedef void matmul_fn(float *, const float *, const float *, int64_t, int64_t, int64_t);

static matmul_fn *matmul_of(enum kernel_variant v)
{
	return v == KERNEL_LOOPS ? matmul_f32_loops : v == KERNEL_UNROLLED ? matmul_f32_unrolled : matmul_f32_simd;
}

static void run_matmul(void *arg, enum kernel_variant v)
{
	struct mm_case *c = arg;
	matmul_of(v)(c->out, c->a, c->w, c->m, c->k, c->n);
}

struct attn_case {
	const float *q, *k, *v;	/* (b·h, t, d) each */
	float *out, *weights;	/* (b·h, t, d); loops' and unrolled's (t, t) scratch for one head */
	int64_t heads, t, d;
	bool causal;
};

/* simd: all heads in one call, fused (no weights) and over threads; loops
 * and unrolled: one head at a time through the (t, t) weights. */
static void attention_all(enum kernel_variant v, float *out, float *weights, const float *q, const float *k,
			  const float *vv, int64_t heads, int64_t t, int64_t d, bool causal)
{
	float scale = 1.0f / sqrtf((float)d);
	int64_t hs = t * d;
	if (v == KERNEL_SIMD) {
		attention_heads_f32_simd(out, NULL, q, k, vv, NULL, causal, scale, heads, t, t, d, d);
		return;
	}
	for (int64_t i = 0; i < heads; i++)
		(v == KERNEL_UNROLLED ? attention_f32_unrolled : attention_f32_loops)(
			out + i * hs, weights, q + i * hs, k + i * hs, vv + i * hs, NULL, causal, scale, t, t, d, d);
}

static void run_attention(void *arg, enum kernel_variant v)
{
	struct attn_case *c = arg;
	attention_all(v, c->out, c->weights, c->q, c->k, c->v, c->heads, c->t, c->d, c->causal);
}

/* The whole causal multi-head forward: x (b·t, dm) times w_qkv (dm, 3·dm),
 * attention on each head's q, k, v, the heads side by side again (b·t, dm),
 * times w_o (dm, dm). simd reads the heads in place; loops and unrolled
 * gather them to (b·h, t, d) and back. */
struct mha_case {
	struct shape s;
	const float *x, *w_qkv, *w_o;
	float *qkv, *q, *k, *v, *heads_out, *weights, *ctx, *out;
};

static void run_mha(void *arg, enum kernel_variant v)
{
	struct mha_case *c = arg;
	int64_t b = c->s.b, h = c->s.h, t = c->s.t, d = c->s.d, dm = h * d;
	matmul_fn *mm = matmul_of(v);
	mm(c->qkv, c->x, c->w_qkv, b * t, dm, 3 * dm);
	if (v == KERNEL_SIMD) {	/* the fused kernel reads the heads in place */
		const struct attn_layout in = { t * 3 * dm, d, 3 * dm }, out = { t * dm, d, dm };
		const struct attn_layout lay[4] = { in, in, in, out };
		attention_strided_f32_simd(c->ctx, c->qkv, c->qkv + dm, c->qkv + 2 * dm, true, 1.0f / sqrtf((float)d),
					   b, h, t, t, d, d, lay);
		mm(c->out, c->ctx, c->w_o, b * t, dm, dm);
		return;
	}
	/* qkv is (b, t, 3, h, d); head (b, h) of q is at [b][·][0][h][·] */
	const int64_t shape[4] = { b, h, t, d }, gather[4] = { t * 3 * dm, d, 3 * dm, 1 };
	copy_strided(c->q, c->qkv, gather, shape, 4, sizeof(float));
	copy_strided(c->k, c->qkv + dm, gather, shape, 4, sizeof(float));
	copy_strided(c->v, c->qkv + 2 * dm, gather, shape, 4, sizeof(float));
	attention_all(v, c->heads_out, c->weights, c->q, c->k, c->v, b * h, t, d, true);
	/* ctx is (b, t, h, d): heads_out (b, h, t, d) read with t and h swapped */
	const int64_t cshape[4] = { b, t, h, d }, scatter[4] = { h * t * d, d, t * d, 1 };
	copy_strided(c->ctx, c->heads_out, scatter, cshape, 4, sizeof(float));
	mm(c->out, c->ctx, c->w_o, b * t, dm, dm);
}

/* ---- timing and reporting -------------------------------------------------- */

double bench_time_ms(void (*run)(void *, enum kernel_variant), void *arg, enum kernel_variant v)
{
	double best = INFINITY, spent = 0;
	for (int r = 0; r < 1000 && (r == 0 || spent < (r < 10 ? 1000 : 250)); r++) {
		double t0 = bench_now_ms();
		run(arg, v);
		double dt = bench_now_ms() - t0;
		best = fmin(best, dt);
		spent += dt;
	}
	return best;
}

/* One variant's row: its time, GFLOP/s, fraction of the peak, its speed
 * against the loops' (speedup: loops' time / its time; < 0 when the loops
 * did not run), the memory it needs (bytes, when > 0) and how far its result
 * is from the loops' (diff, when >= 0). */
static void report_line(struct report *r, const char *name, const char *variant, double ms, double flops,
			double speedup, double bytes, double diff)
{
	double gflops = ms > 0 ? flops / (ms * 1e6) : 0;
	if (r->json) {
		fprintf(r->out, "{\"case\":\"%s\",\"variant\":\"%s\",\"path\":\"%s\",\"ms\":%.4g,\"gflops\":%.4g,"
			"\"of_peak\":%.3f", name, variant, r->path, ms, gflops, gflops / r->peak);
		if (speedup >= 0)
			fprintf(r->out, ",\"speedup_vs_loops\":%.4g", speedup);
		if (bytes > 0)
			fprintf(r->out, ",\"bytes\":%.0f", bytes);
		if (diff >= 0)
			fprintf(r->out, ",\"max_rel_diff_vs_loops\":%.3g", diff);
		fputs("}\n", r->out);
		return;
	}
	fprintf(r->out, "%-14s %-8s %10.2f %9.1f %7.0f%%", name, variant, ms, gflops, 100 * gflops / r->peak);
	if (speedup >= 0)
		fprintf(r->out, " %8.1f×", speedup);
	else
		fprintf(r->out, " %9s", "-");
	if (bytes > 0)
		fprintf(r->out, "  %8.1f MB", bytes / 1e6);
	if (diff >= 0)
		fprintf(r->out, "  loops-%s %.1e", variant, diff);
	fputc('\n', r->out);
}

void bench_report_ms(struct report *r, const char *name, const char *variant, double ms, bool failed)
{
	if (r->json)
		fprintf(r->out, "{\"case\":\"%s\",\"variant\":\"%s\",\"path\":\"%s\",", name, variant, r->path);
	if (r->json && failed)
		fputs("\"failed\":true}\n", r->out);
	else if (r->json)
		fprintf(r->out, "\"ms\":%.4g}\n", ms);
	else if (failed)
		fprintf(r->out, "%-14s %-8s %10s  (failed)\n", name, variant, "-");
	else
		fprintf(r->out, "%-14s %-8s %10.2f\n", name, variant, ms);
}

static void report_skip(struct report *r, const char *name, const char *variant, double est_s)
{
	if (r->json)
		fprintf(r->out, "{\"case\":\"%s\",\"variant\":\"%s\",\"path\":\"%s\",\"skipped\":\"about %.0f s\"}\n",
			name, variant, r->path, est_s);
	else
		fprintf(r->out, "%-14s %-8s %10s  (skipped: about %.0f s; --quick runs it small)\n", name, variant, "-",
			est_s);
}

/* Runs the variants r asks for, in the order simd, unrolled, loops, each
 * unless it would take over ~5 s (judged from rate[v], GFLOP/s measured on a
 * small product; simd always runs); reports each with its speed against
 * the loops' and how far its result is from theirs, when the loops ran.
 * bytes: the memory simd needs, then loops' and unrolled's. */
static void run_case(struct report *r, const char *name, void (*run)(void *, enum kernel_variant), void *arg,
		     float *out, int64_t nout, double flops, const double bytes[2], const double rate[3])
{
	static const enum kernel_variant order[3] = { KERNEL_SIMD, KERNEL_UNROLLED, KERNEL_LOOPS };
	double ms[3] = { 0 }, est_s[3] = { 0 };
	float *result[3] = { NULL, NULL, NULL };	/* by variant */
	for (int i = 0; i < 3; i++) {
		enum kernel_variant v = order[i];
		if (!(r->variants & (1u << v)))
			continue;
		est_s[v] = v == KERNEL_SIMD ? 0 : flops / (rate[v] * 1e9);
		if (est_s[v] > 5)
			continue;
		ms[v] = bench_time_ms(run, arg, v);
		result[v] = xmalloc((size_t)nout * sizeof *out);
		memcpy(result[v], out, (size_t)nout * sizeof *out);
	}
	const float *loops = result[KERNEL_LOOPS];
	for (int i = 0; i < 3; i++) {
		enum kernel_variant v = order[i];
		if (!(r->variants & (1u << v)))
			continue;
		if (!result[v]) {
			report_skip(r, name, kernel_variant_name(v), est_s[v]);
			continue;
		}
		double diff = loops && v != KERNEL_LOOPS ? rel_diff(loops, result[v], nout) : -1;
		double speedup = loops && ms[v] > 0 ? ms[KERNEL_LOOPS] / ms[v] : -1;
		report_line(r, name, kernel_variant_name(v), ms[v], flops, speedup, bytes[v == KERNEL_SIMD ? 0 : 1], diff);
	}
	for (int v = 0; v < 3; v++)
		free(result[v]);
}

struct chains {
	float seed, sum;
	double flops;
};

static void *chains_run(void *arg)
{
	struct chains *c = arg;
	c->sum = kernel_fma_chains_f32(2000000, c->seed, &c->flops);
	return NULL;
}

/* The multiply-add peak of the SIMD path in use on as many threads as the
 * kernels use: the best of many short runs (of some 4 ms each) over at
 * least 0.4 s, since on a shared machine any one run may be slowed, and a
 * neighbour may hold a core for a tenth of a second (20 runs in a row once
 * measured half the peak, and the kernels then 150% of it). */
static double measure_peak(bool quick, int threads, float *sink)
{
	double best = 0, start = bench_now_ms();
	struct chains ch[64];
	pthread_t tid[64];
	for (int r = 0; quick ? r < 5 : r < 20 || bench_now_ms() - start < 400; r++) {
		double t0 = bench_now_ms();
		int started = 1;
		for (int i = 0; i < threads; i++)
			ch[i] = (struct chains){ (float)(r + i), 0, 0 };
		for (int i = 1; i < threads; i++, started++)
			if (pthread_create(&tid[i], NULL, chains_run, &ch[i]) != 0)
				break;
		chains_run(&ch[0]);
		double flops = ch[0].flops;
		for (int i = 1; i < started; i++) {
			pthread_join(tid[i], NULL);
			flops += ch[i].flops;
			*sink += ch[i].sum;
		}
		double dt = bench_now_ms() - t0;
		*sink += ch[0].sum;
		best = fmax(best, flops / (dt * 1e6));
	}
	return best;
}

static double attention_flops(int64_t heads, int64_t t, int64_t d, bool causal)
{
	/* q·kᵀ and weights·v, over the (i, j) pairs that are not masked */
	double pairs = causal ? (double)t * (t + 1) / 2 : (double)t * t;
	return heads * pairs * 4.0 * d;
}

/* ---- the interpreter on loop cells ----------------------------------------------------- */

/* Seed 003's cells as the document writes them: 10 tokens, 64 features. */
static const char seed003_setup[] =
	"import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
	"x = torch.randn(10, 256)\nq_proj = nn.Linear(256, 64)\nk_proj = nn.Linear(256, 64)\n"
	"v_proj = nn.Linear(256, 64)\nqueries = q_proj(x)\nkeys = k_proj(x)\nvalues = v_proj(x)\n";
static const char seed003_loops[] =
	"att = torch.zeros(10, 10)\n"
	"for q_idx, q in enumerate(queries):\n"
	"    # for the current token q we want to compute the dot product against every other token\n"
	"    for k_idx, k in enumerate(keys):\n"
	"        qk_similarity = torch.dot(q, k)\n"
	"        att[q_idx, k_idx] = qk_similarity\n"
	"att = F.softmax(att, dim=-1)\n"
	"out_looped = torch.zeros(10, 64)\n"
	"for row, a in enumerate(att):\n"
	"    weighted_values = torch.zeros_like(values)  # shape = (10, 64)\n"
	"    for v_idx, v in enumerate(values):\n"
	"        weighted_values[v_idx] = a[v_idx] * v\n"
	"    weighted_values_sum = weighted_values.sum(0)  # shape = (64,)\n"
	"    out_looped[row] = weighted_values_sum\n";
static const char int_loop[] =
	"s = 0\nfor i in range(200000):\n    s = s + i * 3 % 7\n";

struct interp_case {
	struct interp *I;
	const char *src;
	int failed;
};

static void run_interp(void *arg, enum kernel_variant v)
{
	(void)v;
	struct interp_case *c = arg;
	struct qkv_error err;
	/* a dry run: the workspace is the same for every repetition */
	if (interp_run(c->I, c->src, strlen(c->src), 1, INTERP_DRY_RUN, &err) != INTERP_OK)
		c->failed = 1;
}

static void interp_case_run(struct report *r, const char *name, const char *setup, const char *src)
{
	struct interp_case c = { interp_new(KERNEL_SIMD), src, 0 };
	struct qkv_error err;
	if (setup && interp_run(c.I, setup, strlen(setup), 1, 0, &err) != INTERP_OK)
		c.failed = 1;
	double ms = c.failed ? 0 : bench_time_ms(run_interp, &c, KERNEL_SIMD);
	bench_report_ms(r, name, "interp", ms, c.failed);
	interp_free(c.I);
}

/* small_ops: ten thousand calls on 4x4 tensors, where the time is the
 * interpreter's and the dispatch's, not arithmetic (issue 17: PyTorch eager
 * spends microseconds on each). tests/torch_side_by_side.py times the same
 * loop in torch. */
static const char small_setup[] = "import torch\nA = torch.randn(4, 4)\nB = torch.randn(4, 4)\n";
static const char small_loop[] = "for i in range(10000):\n    y = torch.softmax(A @ B.T / 2, dim=-1)\n";

/* ---- the cases by name -------------------------------------------------------- */

static const int64_t ts_full[] = { 128, 512, 1024, 2048, 4096 }, ts_quick[] = { 64, 128, 256 };

/* The kernel cases before the one-head ones, and the cases after those,
 * which need no peak. */
static const char *const kernel_cases[] = { "matmul_qkv", "attn_causal", "attn_full", "mha_gpt2" };
static const char *const later_cases[] = { "loops_seed003", "loop_int_200k", "small_ops", "first_frame",
					   "redraw_64", "redraw_2048" };

#define NAME_MAX_LEN 16
#define NCASES_MAX 16

/* Every case's name in the order they run; returns how many. */
static int case_names(char names[NCASES_MAX][NAME_MAX_LEN], bool quick)
{
	int n = 0;
	for (size_t i = 0; i < sizeof kernel_cases / sizeof *kernel_cases; i++)
		snprintf(names[n++], NAME_MAX_LEN, "%s", kernel_cases[i]);
	const int64_t *ts = quick ? ts_quick : ts_full;
	int nts = quick ? 3 : 5;
	for (int i = 0; i < nts; i++)
		snprintf(names[n++], NAME_MAX_LEN, "attn_T%lld", (long long)ts[i]);
	for (size_t i = 0; i < sizeof later_cases / sizeof *later_cases; i++)
		snprintf(names[n++], NAME_MAX_LEN, "%s", later_cases[i]);
	return n;
}

bool bench_case_known(const char *name, bool quick)
{
	char names[NCASES_MAX][NAME_MAX_LEN];
	int n = case_names(names, quick);
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

void bench_case_names(char *buf, size_t size, bool quick)
{
	char names[NCASES_MAX][NAME_MAX_LEN];
	int n = case_names(names, quick);
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
}

/* Whether o asks for the case called name. */
static bool wanted(const struct bench_options *o, const char *name)
{
	for (int i = 0; i < o->ncases; i++)
		if (strcmp(o->cases[i], name) == 0)
			return true;
	return o->ncases == 0;
}

/* Whether o asks for a case that times the kernels (and needs the peak). */
static bool wants_kernels(const struct bench_options *o)
{
	char names[NCASES_MAX][NAME_MAX_LEN];
	int n = case_names(names, o->quick) - (int)(sizeof later_cases / sizeof *later_cases);
	for (int i = 0; i < n; i++)
		if (wanted(o, names[i]))
			return true;
	return false;
}

/* ---- the kernel cases ----------------------------------------------------------- */

static void bench_matmul(struct report *r, const struct shape *s, uint32_t *seed, const double rate[3])
{
	/* matmul_qkv: the query/key/value projection, (b·t, dm)·(dm, 3·dm) */
	const double no_bytes[2] = { 0, 0 };
	int64_t bt = s->b * s->t, dm = s->h * s->d;
	struct mm_case mm = { random_f32(bt * dm, seed), random_f32(dm * 3 * dm, seed),
			      xalloc_aligned((size_t)(bt * 3 * dm) * sizeof(float)), bt, dm, 3 * dm };
	run_case(r, "matmul_qkv", run_matmul, &mm, mm.out, bt * 3 * dm, 2.0 * bt * dm * 3 * dm, no_bytes, rate);
	free((void *)mm.a);
	free((void *)mm.w);
	free(mm.out);
}

/* attention alone over every (batch, head), causal and full */
static void bench_attention(struct report *r, const struct bench_options *o, const struct shape *s, uint32_t *seed,
			    const double rate[3])
{
	const double no_bytes[2] = { 0, 0 };
	int64_t heads = s->b * s->h;
	struct attn_case at = { random_f32(heads * s->t * s->d, seed), random_f32(heads * s->t * s->d, seed),
				random_f32(heads * s->t * s->d, seed),
				xalloc_aligned((size_t)(heads * s->t * s->d) * sizeof(float)),
				xalloc_aligned((size_t)(s->t * s->t) * sizeof(float)), heads, s->t, s->d, true };
	if (wanted(o, "attn_causal"))
		run_case(r, "attn_causal", run_attention, &at, at.out, heads * s->t * s->d,
			 attention_flops(heads, s->t, s->d, true), no_bytes, rate);
	at.causal = false;
	if (wanted(o, "attn_full"))
		run_case(r, "attn_full", run_attention, &at, at.out, heads * s->t * s->d,
			 attention_flops(heads, s->t, s->d, false), no_bytes, rate);
	free((void *)at.q);
	free((void *)at.k);
	free((void *)at.v);
	free(at.out);
	free(at.weights);
}

/* mha_gpt2: the whole forward */
static void bench_mha(struct report *r, const struct shape *s, uint32_t *seed, const double rate[3])
{
	const double no_bytes[2] = { 0, 0 };
	int64_t bt = s->b * s->t, dm = s->h * s->d, heads = s->b * s->h;
	struct mha_case m = { *s,
			      random_f32(bt * dm, seed),
			      random_f32(dm * 3 * dm, seed),
			      random_f32(dm * dm, seed),
			      xalloc_aligned((size_t)(bt * 3 * dm) * sizeof(float)),
			      xalloc_aligned((size_t)(bt * dm) * sizeof(float)),
			      xalloc_aligned((size_t)(bt * dm) * sizeof(float)),
			      xalloc_aligned((size_t)(bt * dm) * sizeof(float)),
			      xalloc_aligned((size_t)(bt * dm) * sizeof(float)),
			      xalloc_aligned((size_t)(s->t * s->t) * sizeof(float)),
			      xalloc_aligned((size_t)(bt * dm) * sizeof(float)),
			      xalloc_aligned((size_t)(bt * dm) * sizeof(float)) };
	double mha_flops = 2.0 * bt * dm * 3 * dm + attention_flops(heads, s->t, s->d, true) + 2.0 * bt * dm * dm;
	run_case(r, "mha_gpt2", run_mha, &m, m.out, bt * dm, mha_flops, no_bytes, rate);
	float *bufs[] = { (float *)m.x, (float *)m.w_qkv, (float *)m.w_o, m.qkv, m.q, m.k, m.v, m.heads_out,
			  m.weights, m.ctx, m.out };
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		free(bufs[i]);
}

/* one causal head as T grows: time, and the memory the computation needs:
 * q, k, v and out, plus the (T, T) weights of loops and unrolled (the fused simd kernel
 * has only a few tiles on each thread's stack) */
static void bench_one_head(struct report *r, const struct bench_options *o, uint32_t *seed, const double rate[3])
{
	const int64_t *ts = o->quick ? ts_quick : ts_full;
	int nts = o->quick ? 3 : 5;
	for (int i = 0; i < nts; i++) {
		int64_t t = ts[i], d = 64;
		char name[32];
		snprintf(name, sizeof name, "attn_T%lld", (long long)t);
		if (!wanted(o, name))
			continue;
		struct attn_case one = { random_f32(t * d, seed), random_f32(t * d, seed), random_f32(t * d, seed),
					 xalloc_aligned((size_t)(t * d) * sizeof(float)),
					 xalloc_aligned((size_t)(t * t) * sizeof(float)),
					 1, t, d, true };
		const double bytes[2] = { 4.0 * t * d * sizeof(float), (4.0 * t * d + (double)t * t) * sizeof(float) };
		run_case(r, name, run_attention, &one, one.out, t * d, attention_flops(1, t, d, true), bytes, rate);
		free((void *)one.q);
		free((void *)one.k);
		free((void *)one.v);
		free(one.out);
		free(one.weights);
	}
}

/* How fast a scalar variant (loops, unrolled) is, GFLOP/s on a small
 * product, to know which cases it can finish. */
static double scalar_rate(uint32_t *seed, enum kernel_variant v)
{
	float *a = random_f32(128 * 128, seed), *b = random_f32(128 * 128, seed), *c = xalloc_aligned(128 * 128 * 4);
	double t0 = bench_now_ms();
	matmul_of(v)(c, a, b, 128, 128, 128);
	double gflops = 2.0 * 128 * 128 * 128 / ((bench_now_ms() - t0) * 1e6);
	free(a);
	free(b);
	free(c);
	return gflops;
}

int bench_run(FILE *out, const struct bench_options *o)
{
	struct report r = { out, o->json, 0, kernel_simd_name(), o->variants ? o->variants : BENCH_ALL_VARIANTS };
	float sink = 0;
	int threads = kernel_threads();
	bool kernels = wants_kernels(o);
	if (kernels)
		r.peak = measure_peak(o->quick, threads, &sink);
	const struct shape s = o->quick ? shape_quick : shape_full;
	uint32_t seed = 1;
	if (!o->json) {
		fprintf(out, "qkv bench%s: %s kernels, %d thread%s (QKV_THREADS sets it); ", o->quick ? " --quick" : "",
			r.path, threads, threads == 1 ? "" : "s");
		if (kernels)
			fprintf(out, "multiply-add peak %.1f GFLOP/s (measured)\n", r.peak);
		else
			fputs("no kernel case, no peak measured\n", out);
		fprintf(out, "%-14s %-8s %10s %9s %8s %9s\n", "case", "kernel", "ms", "GFLOP/s", "of peak", "vs loops");
	} else {
		fprintf(out, "{\"case\":\"peak\",\"variant\":\"simd\",\"path\":\"%s\",\"simd\":\"%s\",\"threads\":%d", r.path,
			r.path, threads);
		if (kernels)
			fprintf(out, ",\"gflops\":%.4g", r.peak);
		fputs("}\n", out);
	}
	double rate[3] = { 0, 0, 0 };
	for (int v = KERNEL_LOOPS; kernels && v <= KERNEL_UNROLLED; v++)
		if (r.variants & (1u << v))
			rate[v] = scalar_rate(&seed, v);
	if (wanted(o, "matmul_qkv"))
		bench_matmul(&r, &s, &seed, rate);
	if (wanted(o, "attn_causal") || wanted(o, "attn_full"))
		bench_attention(&r, o, &s, &seed, rate);
	if (wanted(o, "mha_gpt2"))
		bench_mha(&r, &s, &seed, rate);
	bench_one_head(&r, o, &seed, rate);
	/* the interpreter: seed 003's loop cells, plain integer arithmetic, and
	 * many calls on small tensors */
	if (wanted(o, "loops_seed003"))
		interp_case_run(&r, "loops_seed003", seed003_setup, seed003_loops);
	if (wanted(o, "loop_int_200k"))
		interp_case_run(&r, "loop_int_200k", NULL, int_loop);
	if (wanted(o, "small_ops"))
		interp_case_run(&r, "small_ops", small_setup, small_loop);
	/* what a person waits for on the screen */
	if (wanted(o, "first_frame"))
		bench_first_frame(&r);
	if (wanted(o, "redraw_64"))
		bench_redraw_64(&r);
	if (wanted(o, "redraw_2048"))
		bench_redraw_2048(&r);
	if (!o->json)
		fprintf(out, "(%s)\n", o->quick ? "small shapes" : "B10, T512, 12 heads of 64, as seed 002's timing");
	bench_sink = sink;	/* the peak loop's result is used */
	return 0;
}
