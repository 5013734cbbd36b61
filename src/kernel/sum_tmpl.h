/* sum_tmpl.h: the sums along one axis for one element type T, in the two
 * orders qkv must reproduce bit for bit: PyTorch 1.13's cascade (torch
 * tensors) and NumPy 1.24's pairwise sum (numpy arrays). Included by
 * reduce.c once for float (LANES 8) and once for double (LANES 4: torch's
 * AVX2 vectors), no include guard; never allocates. */

/* res[c] = the cascade sum of x[i * rs + c * cs], i = 0 .. n-1, for the w
 * (<= REDUCE_BLOCK) columns c. */
static void SFN(cascade)(T *res, const T *x, int64_t rs, int64_t cs, int64_t n, int64_t w)
{
	enum { LEVELS = 4 };
	int64_t power = ceil_log2(n) / LEVELS > 4 ? ceil_log2(n) / LEVELS : 4;
	int64_t step = (int64_t)1 << power, mask = step - 1;
	T acc[LEVELS][REDUCE_BLOCK];
	for (int l = 0; l < LEVELS; l++)
		for (int64_t c = 0; c < w; c++)
			acc[l][c] = 0;
	int64_t i = 0;
	while (i + step <= n) {
		for (int64_t j = 0; j < step; j++, i++)
			for (int64_t c = 0; c < w; c++)
				acc[0][c] += x[i * rs + c * cs];
		for (int l = 1; l < LEVELS; l++) {
			for (int64_t c = 0; c < w; c++) {
				acc[l][c] += acc[l - 1][c];
				acc[l - 1][c] = 0;
			}
			if (i & (mask << (l * power)))
				break;
		}
	}
	for (; i < n; i++)
		for (int64_t c = 0; c < w; c++)
			acc[0][c] += x[i * rs + c * cs];
	for (int l = 1; l < LEVELS; l++)
		for (int64_t c = 0; c < w; c++)
			acc[0][c] += acc[l][c];
	for (int64_t c = 0; c < w; c++)
		res[c] = acc[0][c];
}

/* res[c] = the row_sum of x[i * rs + c * cs], i = 0 .. n-1, for the w
 * (<= REDUCE_BLOCK) columns c. */
static void SFN(row_sum)(T *res, const T *x, int64_t rs, int64_t cs, int64_t n, int64_t w)
{
	T part[4][REDUCE_BLOCK];
	int64_t m = n / 4;
	for (int k = 0; k < 4; k++)
		SFN(cascade)(part[k], x + k * rs, 4 * rs, cs, m, w);
	for (int64_t i = 4 * m; i < n; i++)
		for (int64_t c = 0; c < w; c++)
			part[0][c] += x[i * rs + c * cs];
	for (int k = 1; k < 4; k++)
		for (int64_t c = 0; c < w; c++)
			part[0][c] += part[k][c];
	for (int64_t c = 0; c < w; c++)
		res[c] = part[0][c];
}

/* out is (outer, inner), in is (outer, n, inner): out = sum over n in T, in
 * torch's order (reduce.c). n == 0 gives 0. L is LANES, torch's vector:
 *   inner == 1, n >= L (a contiguous row, as x.sum() or x.sum(-1)): the row
 *     as vectors of L; the L lanes are row_sums over the n / L vectors; then
 *     0 + the last n % L values in order, + lane 0, + lane 1, ... + lane L-1.
 *   inner == 1, n < L: row_sum.
 *   inner >= L (a column sum, as x.sum(0)): columns in blocks of 4L are
 *     cascades, the rest row_sums.
 *   1 < inner < L: columns in groups of 4 are cascades, the rest row_sums. */
void SFN(sum_dim)(T *out, const T *in, int64_t outer, int64_t n, int64_t inner)
{
	for (int64_t o = 0; o < outer; o++) {
		const T *src = in + o * n * inner;
		T *dst = out + o * inner;
		if (inner == 1 && n >= LANES) {
			T lanes[LANES], s = 0;
			SFN(row_sum)(lanes, src, LANES, 1, n / LANES, LANES);
			for (int64_t k = n / LANES * LANES; k < n; k++)
				s += src[k];
			for (int l = 0; l < LANES; l++)
				s += lanes[l];
			dst[0] = s;
			continue;
		}
		if (inner == 1) {
			SFN(row_sum)(dst, src, 1, 1, n, 1);
			continue;
		}
		int64_t group = inner >= LANES ? 4 * LANES : 4, j = 0;
		for (; j + group <= inner; j += group)
			SFN(cascade)(dst + j, src + j, inner, 1, n, group);
		for (; j < inner; j += REDUCE_BLOCK) {
			int64_t w = inner - j < REDUCE_BLOCK ? inner - j : REDUCE_BLOCK;
			SFN(row_sum)(dst + j, src + j, inner, 1, n, w);
		}
	}
}

/* NumPy's pairwise_sum of x[0], x[s], ... x[(n-1)s] in T (numpy/core/src/
 * umath/loops_utils.h.src): under 8 values in order from 0; up to 128, eight
 * running sums over every eighth value, joined ((s0+s1)+(s2+s3))+((s4+s5)+
 * (s6+s7)), then the last n % 8 values in order; more: the two halves (the
 * first a multiple of 8 long) summed so, then added. */
static T SFN(pairwise)(const T *x, int64_t s, int64_t n)
{
	if (n < 8) {
		T sum = 0;
		for (int64_t i = 0; i < n; i++)
			sum += x[i * s];
		return sum;
	}
	if (n <= 128) {
		T r[8];
		for (int k = 0; k < 8; k++)
			r[k] = x[k * s];
		int64_t i = 8;
		for (; i < n - n % 8; i += 8)
			for (int k = 0; k < 8; k++)
				r[k] += x[(i + k) * s];
		T sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			sum += x[i * s];
		return sum;
	}
	int64_t half = n / 2;
	half -= half % 8;
	return SFN(pairwise)(x, s, half) + SFN(pairwise)(x + half * s, s, n - half);
}

/* out is (outer, inner), in is (outer, n, inner): out = sum over n in T, in
 * numpy's order (np.add.reduce, checked against NumPy 1.24), which follows
 * memory: when the axis summed is the array's innermost in memory
 * (pairwise; the whole array is one such row), each of its runs is summed in
 * pieces of 8192 (the reduction's buffer: its longest inner loop), each
 * piece a pairwise sum, the pieces added in order from 0; along any other
 * axis each output adds its values in order from 0. n == 0 gives 0. */
void SFN(sum_dim_numpy)(T *out, const T *in, int64_t outer, int64_t n, int64_t inner, bool pairwise)
{
	enum { NUMPY_BUFSIZE = 8192 };
	for (int64_t o = 0; o < outer; o++) {
		const T *src = in + o * n * inner;
		T *dst = out + o * inner;
		for (int64_t j = 0; j < inner; j++)
			dst[j] = 0;
		if (pairwise) {
			for (int64_t j = 0; j < inner; j++)
				for (int64_t i = 0; i < n; i += NUMPY_BUFSIZE)
					dst[j] += SFN(pairwise)(src + i * inner + j, inner,
								n - i < NUMPY_BUFSIZE ? n - i : NUMPY_BUFSIZE);
			continue;
		}
		for (int64_t p = 0; p < n; p++)
			for (int64_t j = 0; j < inner; j++)
				dst[j] += src[p * inner + j];
	}
}
