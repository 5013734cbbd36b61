/* simd_tmpl.h: matmul, softmax and attention for one element type T, included
 * by simd_impl.h once for float and once for double (no include guard).
 * Everything here is static; simd_impl.h puts it in the ops table. Never
 * allocates: the only buffers are small ones on the stack. */

/* The matmul micro-kernel holds SIMD_MR (6) rows by NR = 2 vectors of c in
 * named accumulators; SIMD_KC is the depth of one pass (see simd_impl.h). */
#define NR (2 * LANES)

/* bp is (kc, NR) contiguous; b is (kc, nc) with element (p,j) at
 * b[p*rs + j*cs]. Copies b into bp, padding columns nc..NR-1 with zeros. */
static void TFN(pack_b)(T *restrict bp, const T *restrict b, int64_t rs, int64_t cs,
			int64_t kc, int64_t nc)
{
	if (cs == 1) {
		for (int64_t p = 0; p < kc; p++)
			for (int64_t j = 0; j < nc; j++)
				bp[p * NR + j] = b[p * rs + j];
	} else {
		for (int64_t j = 0; j < nc; j++)
			for (int64_t p = 0; p < kc; p++)
				bp[p * NR + j] = b[p * rs + j * cs];
	}
	for (int64_t p = 0; p < kc; p++)
		for (int64_t j = nc; j < NR; j++)
			bp[p * NR + j] = 0;
}

/* c[r][0..NR) at row stride ldc, for r < MR; row r of a starts at ar[r]; bp is
 * (kc, NR). c = a·bp, or c += a·bp when add. */
static inline void TFN(store_row)(T *c, V lo, V hi, bool add)
{
	if (add) {
		lo += VFN(load)(c);
		hi += VFN(load)(c + LANES);
	}
	VFN(store)(c, lo);
	VFN(store)(c + LANES, hi);
}

static void TFN(micro)(T *restrict c, int64_t ldc, const T *const *ar,
		       const T *restrict bp, int64_t kc, bool add)
{
	const T *a0 = ar[0], *a1 = ar[1], *a2 = ar[2];
	const T *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
	V c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
	V c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};

	for (int64_t p = 0; p < kc; p++) {
		V b0 = VFN(load)(bp);
		V b1 = VFN(load)(bp + LANES);
		V x;
		bp += NR;
		x = VFN(set1)(a0[p]); MAC(c00, x, b0); MAC(c01, x, b1);
		x = VFN(set1)(a1[p]); MAC(c10, x, b0); MAC(c11, x, b1);
		x = VFN(set1)(a2[p]); MAC(c20, x, b0); MAC(c21, x, b1);
		x = VFN(set1)(a3[p]); MAC(c30, x, b0); MAC(c31, x, b1);
		x = VFN(set1)(a4[p]); MAC(c40, x, b0); MAC(c41, x, b1);
		x = VFN(set1)(a5[p]); MAC(c50, x, b0); MAC(c51, x, b1);
	}
	TFN(store_row)(c + 0 * ldc, c00, c01, add);
	TFN(store_row)(c + 1 * ldc, c10, c11, add);
	TFN(store_row)(c + 2 * ldc, c20, c21, add);
	TFN(store_row)(c + 3 * ldc, c30, c31, add);
	TFN(store_row)(c + 4 * ldc, c40, c41, add);
	TFN(store_row)(c + 5 * ldc, c50, c51, add);
}

/* c is (mc,nc) at row stride ldc, a is (mc,kc) at row stride lda, bp is the
 * packed (kc,NR) panel; mc <= MR, nc <= NR. A partial tile is computed in a
 * full stack tile (missing rows of a repeat the last row) and copied back. */
static void TFN(tile)(T *c, int64_t ldc, const T *a, int64_t lda, const T *bp,
		      int64_t kc, int64_t mc, int64_t nc, bool add)
{
	const T *ar[SIMD_MR];
	for (int64_t r = 0; r < SIMD_MR; r++)
		ar[r] = a + (r < mc ? r : mc - 1) * lda;
	if (mc == SIMD_MR && nc == NR) {
		TFN(micro)(c, ldc, ar, bp, kc, add);
		return;
	}

	T ct[SIMD_MR * NR] = {0};
	if (add)
		for (int64_t r = 0; r < mc; r++)
			for (int64_t j = 0; j < nc; j++)
				ct[r * NR + j] = c[r * ldc + j];
	TFN(micro)(ct, NR, ar, bp, kc, add);
	for (int64_t r = 0; r < mc; r++)
		for (int64_t j = 0; j < nc; j++)
			c[r * ldc + j] = ct[r * NR + j];
}

/* c is (m,n) at row stride ldc, a is (m,k) at row stride lda, b is (k,n) with
 * element (p,j) at b[p*rs + j*cs] (so cs = 1 is row-major b, rs = 1 is a
 * transposed one). c = a·b, overwritten. With skip_upper, tiles whose columns
 * all lie right of the diagonal (every j > every i) are left unwritten. */
static void TFN(gemm)(T *c, int64_t ldc, const T *a, int64_t lda, const T *b,
		      int64_t rs, int64_t cs, int64_t m, int64_t k, int64_t n, bool skip_upper)
{
	T bp[SIMD_KC * NR] __attribute__((aligned(64)));

	if (k == 0) {
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++)
				c[i * ldc + j] = 0;
		return;
	}
	for (int64_t p0 = 0; p0 < k; p0 += SIMD_KC) {
		int64_t kc = k - p0 < SIMD_KC ? k - p0 : SIMD_KC;
		for (int64_t j0 = 0; j0 < n; j0 += NR) {
			int64_t nc = n - j0 < NR ? n - j0 : NR;
			if (skip_upper && j0 >= m)
				break;
			TFN(pack_b)(bp, b + p0 * rs + j0 * cs, rs, cs, kc, nc);
			for (int64_t i0 = 0; i0 < m; i0 += SIMD_MR) {
				int64_t mc = m - i0 < SIMD_MR ? m - i0 : SIMD_MR;
				if (skip_upper && j0 > i0 + mc - 1)
					continue;
				TFN(tile)(c + i0 * ldc + j0, ldc, a + i0 * lda + p0, lda, bp,
					  kc, mc, nc, p0 > 0);
			}
		}
	}
}

/* c is (m,n), a is (m,k), b is (k,n). */
static void TFN(matmul)(T *c, const T *a, const T *b, int64_t m, int64_t k, int64_t n)
{
	TFN(gemm)(c, n, a, k, b, n, 1, m, k, n, false);
}

/* ---- softmax ------------------------------------------------------------------ */

/* The row maximum, NaN if any entry is NaN (the same rule as the loops). */
static inline T TFN(hmax)(V v)
{
	T m = v[0];
	for (int i = 1; i < LANES; i++)
		if (v[i] > m || v[i] != v[i])
			m = v[i];
	return m;
}

static inline T TFN(hsum)(V v)
{
	T s = v[0];
	for (int i = 1; i < LANES; i++)
		s += v[i];
	return s;
}

/* y and x are (n); y may equal x. Same special rows as the loops version:
 * all -inf gives zeros, a NaN or a +inf makes the row NaN. The tail shorter
 * than a vector is padded with -inf, whose exp adds exactly 0 to the sum. */
static void TFN(softmax_row)(T *y, const T *x, int64_t n)
{
	V vmax = VFN(set1)(-INFINITY);
	int64_t j = 0;
	for (; j + LANES <= n; j += LANES) {
		V xv = VFN(load)(x + j);
		vmax = VFN(select)((VI)(xv > vmax) | (VI)(xv != xv), xv, vmax);
	}
	T max = TFN(hmax)(vmax);
	for (; j < n; j++)
		if (x[j] > max || x[j] != x[j])
			max = x[j];

	if (max == -INFINITY) {
		for (j = 0; j < n; j++)
			y[j] = 0;
		return;
	}

	V vm = VFN(set1)(max);
	V vsum = {0};
	for (j = 0; j + LANES <= n; j += LANES) {
		V e = VFN(exp)(VFN(load)(x + j) - vm);
		VFN(store)(y + j, e);
		vsum += e;
	}
	if (j < n) {
		V xv = VFN(set1)(-INFINITY);
		memcpy(&xv, x + j, (size_t)(n - j) * sizeof(T));
		V e = VFN(exp)(xv - vm);
		memcpy(y + j, &e, (size_t)(n - j) * sizeof(T));
		vsum += e;
	}

	T sum = TFN(hsum)(vsum);
	V vs = VFN(set1)(sum);
	for (j = 0; j + LANES <= n; j += LANES)
		VFN(store)(y + j, VFN(load)(y + j) / vs);
	for (; j < n; j++)
		y[j] = y[j] / sum;
}

/* dst and src are (rows, cols); dst may equal src. */
static void TFN(softmax_rows)(T *dst, const T *src, int64_t rows, int64_t cols)
{
	for (int64_t r = 0; r < rows; r++)
		TFN(softmax_row)(dst + r * cols, src + r * cols, cols);
}

/* ---- attention for one head ------------------------------------------------------
 * out is (tq,dv), weights is (tq,tk), q is (tq,d), k is (tk,d), v is (tk,dv).
 * The loops version's three steps as two matmuls around a row softmax:
 * weights = q·kᵀ (k read transposed, tiles wholly in the causal future
 * skipped), then per row: times scale, -inf where masked, softmax; then
 * out = weights·v (all of it: a zero weight times an inf value is NaN, as in
 * the loops version and torch). */
static void TFN(attention)(T *out, T *weights, const T *q, const T *k, const T *v,
			   const uint8_t *mask, bool causal, T scale,
			   int64_t tq, int64_t tk, int64_t d, int64_t dv)
{
	TFN(gemm)(weights, tk, q, d, k, 1, d, tq, d, tk, causal);

	V vscale = VFN(set1)(scale);
	V vninf = VFN(set1)(-INFINITY);
	for (int64_t i = 0; i < tq; i++) {
		T *row = weights + i * tk;
		int64_t seen = causal && i + 1 < tk ? i + 1 : tk;   /* keys 0..seen-1 */
		int64_t j = 0;
		for (; j + LANES <= seen; j += LANES)
			VFN(store)(row + j, VFN(load)(row + j) * vscale);
		for (; j < seen; j++)
			row[j] = row[j] * scale;
		for (; j + LANES <= tk; j += LANES)
			VFN(store)(row + j, vninf);
		for (; j < tk; j++)
			row[j] = -INFINITY;
		if (mask != NULL) {
			const uint8_t *mrow = mask + i * tk;
			for (j = 0; j < seen; j++)
				if (mrow[j] != 0)
					row[j] = -INFINITY;
		}
		TFN(softmax_row)(row, row, tk);
	}

	TFN(gemm)(out, dv, weights, tk, v, dv, 1, tq, tk, dv, false);
}

/* ---- fused attention: tiles and an online softmax, no T×T buffer ------------------
 * Rows i0 .. i0+bq-1 of one head (bq <= ATT_BQ): out rows = softmax(q·kᵀ·scale,
 * masked) · v, without the (tq, tk) weights. Keys come in blocks of ATT_BK:
 * the block's scores go to a small tile S (q against kᵀ through the matmul
 * micro-kernel, kᵀ packed ATT_DC deep at a time), then each row keeps its
 * running maximum m and sum l: when a block raises the maximum, what the row
 * has gathered so far (acc, and l) is scaled by exp(m_old - m_new), the
 * block's exp(s - m_new) are added to l, and P·v_block is added to acc. At
 * the end out = acc / l. Blocks wholly in the causal future are skipped.
 * Special rows as the loops: a row with every key masked gives zeros (l stays
 * 0, nothing is ever added), a NaN score or a +inf one makes the row NaN.
 * Value columns go ATT_DVC at a time (the scores are recomputed per pass). */
#define ATT_BQ (8 * SIMD_MR)
#define ATT_BK 64
#define ATT_DC 128
#define ATT_DVC 64

/* exp of one number through the vector exp (so it rounds as the rest do). */
static inline T TFN(exp1)(T x)
{
	return VFN(exp)(VFN(set1)(x))[0];
}

/* One row of a block of scores (bk of them, at most ATT_BK): scaled, masked
 * (key j0+j is hidden from query i when causal and j0+j > i, or mask says
 * so), and folded into the row's running max *m, sum *l and acc (dvc values).
 * The row is left holding its probabilities exp(s - m) for P·v. */
static void TFN(online_row)(T *row, T *acc, T *m, T *l, const uint8_t *mrow, bool causal, T scale,
			    int64_t i, int64_t j0, int64_t bk, int64_t dvc)
{
	V vscale = VFN(set1)(scale);
	int64_t j = 0;
	for (; j + LANES <= bk; j += LANES)
		VFN(store)(row + j, VFN(load)(row + j) * vscale);
	for (; j < bk; j++)
		row[j] = row[j] * scale;
	if (causal)
		for (j = i - j0 + 1 > 0 ? i - j0 + 1 : 0; j < bk; j++)
			row[j] = -INFINITY;
	if (mrow != NULL)
		for (j = 0; j < bk; j++)
			if (mrow[j0 + j] != 0)
				row[j] = -INFINITY;
	for (j = bk; j < ATT_BK; j++)	/* the padding P·v reads as zeros */
		row[j] = -INFINITY;

	V vmax = VFN(set1)(-INFINITY);
	for (j = 0; j < ATT_BK; j += LANES) {
		V x = VFN(load)(row + j);
		vmax = VFN(select)((VI)(x > vmax) | (VI)(x != x), x, vmax);
	}
	T bmax = TFN(hmax)(vmax);
	T mnew = bmax > *m || bmax != bmax ? bmax : *m;
	if (mnew == -INFINITY) {	/* nothing visible yet: P is all zeros */
		memset(row, 0, ATT_BK * sizeof(T));
		return;
	}
	if (*m != mnew) {	/* rescale what was gathered under the old maximum */
		T alpha = *m == -INFINITY ? 0 : TFN(exp1)(*m - mnew);
		V va = VFN(set1)(alpha);
		for (j = 0; j < dvc; j += LANES)
			VFN(store)(acc + j, VFN(load)(acc + j) * va);
		*l *= alpha;
		*m = mnew;
	}
	V vm = VFN(set1)(mnew), vsum = {0};
	for (j = 0; j < ATT_BK; j += LANES) {
		V e = VFN(exp)(VFN(load)(row + j) - vm);
		VFN(store)(row + j, e);
		vsum += e;
	}
	*l += TFN(hsum)(vsum);
}

/* q is (tq,d), k is (tk,d), v is (tk,dv), out is (tq,dv); mask NULL or
 * (tq,tk) bytes. Computes out rows i0 .. i0+bq-1. */
static void TFN(attention_rows)(T *out, const T *q, const T *k, const T *v, const uint8_t *mask,
				bool causal, T scale, int64_t i0, int64_t bq, int64_t tk, int64_t d,
				int64_t dv)
{
	T s[ATT_BQ * ATT_BK] __attribute__((aligned(64)));
	T acc[ATT_BQ * ATT_DVC] __attribute__((aligned(64)));
	T bp[ATT_DC * NR] __attribute__((aligned(64)));
	T m[ATT_BQ], l[ATT_BQ];
	/* keys 0 .. kend-1 are visible to some row of the block */
	int64_t kend = causal && i0 + bq < tk ? i0 + bq : tk;

	for (int64_t c0 = 0; c0 < dv; c0 += ATT_DVC) {
		int64_t dvc = dv - c0 < ATT_DVC ? dv - c0 : ATT_DVC;
		int64_t dvr = (dvc + NR - 1) / NR * NR;	/* whole vectors of acc */
		memset(acc, 0, sizeof acc);
		for (int64_t r = 0; r < bq; r++) {
			m[r] = -INFINITY;
			l[r] = 0;
		}
		for (int64_t j0 = 0; j0 < kend; j0 += ATT_BK) {
			int64_t bk = kend - j0 < ATT_BK ? kend - j0 : ATT_BK;
			/* s = q_block · k_blockᵀ, ATT_DC of the depth at a time */
			for (int64_t s0 = 0; s0 < bk; s0 += NR) {
				int64_t nc = bk - s0 < NR ? bk - s0 : NR;
				for (int64_t p0 = 0; p0 < d; p0 += ATT_DC) {
					int64_t dc = d - p0 < ATT_DC ? d - p0 : ATT_DC;
					TFN(pack_b)(bp, k + (j0 + s0) * d + p0, 1, d, dc, nc);
					for (int64_t r0 = 0; r0 < bq; r0 += SIMD_MR) {
						int64_t mc = bq - r0 < SIMD_MR ? bq - r0 : SIMD_MR;
						TFN(tile)(s + r0 * ATT_BK + s0, ATT_BK, q + (i0 + r0) * d + p0, d,
							  bp, dc, mc, nc, p0 > 0);
					}
				}
			}
			if (d == 0)
				memset(s, 0, sizeof s);
			for (int64_t r = 0; r < bq; r++)
				TFN(online_row)(s + r * ATT_BK, acc + r * ATT_DVC, &m[r], &l[r],
						mask ? mask + (i0 + r) * tk : NULL, causal, scale, i0 + r, j0, bk,
						dvr);
			/* acc += P · v_block, NR value columns at a time */
			for (int64_t s0 = 0; s0 < dvc; s0 += NR) {
				int64_t nc = dvc - s0 < NR ? dvc - s0 : NR;
				TFN(pack_b)(bp, v + j0 * dv + c0 + s0, dv, 1, bk, nc);
				for (int64_t r0 = 0; r0 < bq; r0 += SIMD_MR) {
					int64_t mc = bq - r0 < SIMD_MR ? bq - r0 : SIMD_MR;
					TFN(tile)(acc + r0 * ATT_DVC + s0, ATT_DVC, s + r0 * ATT_BK, ATT_BK, bp, bk,
						  mc, nc, true);
				}
			}
		}
		for (int64_t r = 0; r < bq; r++) {
			T *o = out + (i0 + r) * dv + c0;
			for (int64_t j = 0; j < dvc; j++)
				o[j] = l[r] == 0 ? 0 : acc[r * ATT_DVC + j] / l[r];
		}
	}
}

/* ---- exp over an array ---------------------------------------------------------- */

/* out and in are (n); out may equal in. */
static void TFN(exp)(T *out, const T *in, int64_t n)
{
	int64_t j = 0;
	for (; j + LANES <= n; j += LANES)
		VFN(store)(out + j, VFN(exp)(VFN(load)(in + j)));
	if (j < n) {
		V xv = {0};
		memcpy(&xv, in + j, (size_t)(n - j) * sizeof(T));
		V e = VFN(exp)(xv);
		memcpy(out + j, &e, (size_t)(n - j) * sizeof(T));
	}
}

#undef NR
