/* simd_tmpl.h: matmul, softmax and attention for one element type T, included
 * by simd_impl.h once for float and once for double (no include guard).
 * Everything here is static; simd_impl.h puts it in the ops table. Never
 * allocates: the only buffers are small ones on the stack. Between blocks
 * (a panel of the matmul, a block of keys or rows) they look at Ctrl-C
 * (ctl_stop: return early, the output partial) and count their work. */

/* The matmul micro-kernel holds SIMD_MR (6) rows by NR = 2 vectors of c in
 * named accumulators (see simd_impl.h for the blocking). */
#define NR (2 * LANES)
/* b's columns packed at once: a (KC, NC) block of SIMD_BPACK bytes at most */
#define SIMD_NC (SIMD_BPACK / (SIMD_KC * (int)sizeof(T)) / NR * NR)

/* bp is (kc, NR) contiguous; b is (kc, nc) with element (p,j) at
 * b[p*rs + j*cs]. Copies b into bp, padding columns nc..NR-1 with zeros. */
static void TFN(pack_b)(T *restrict bp, const T *restrict b, int64_t rs, int64_t cs,
			int64_t kc, int64_t nc)
{
	if (cs == 1 && nc == NR) {
		for (int64_t p = 0; p < kc; p++) {
			VFN(store)(bp + p * NR, VFN(load)(b + p * rs));
			VFN(store)(bp + p * NR + LANES, VFN(load)(b + p * rs + LANES));
		}
		return;
	}
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

/* bp is nb columns of b (kc deep, nb <= SIMD_NC) as panels of NR columns,
 * each (kc, NR) contiguous, the last padded with zeros. Row-major b is read
 * a row at a time across all the panels: rows of b are far apart (a page or
 * more), and reading one only 2 vectors wide cost a TLB walk per 64 bytes. */
static void TFN(pack_panels)(T *restrict bp, const T *restrict b, int64_t rs, int64_t cs, int64_t kc,
			     int64_t nb)
{
	int64_t full = cs == 1 ? nb / NR : 0;
	for (int64_t p = 0; p < kc; p++)
		for (int64_t s = 0; s < full; s++) {
			VFN(store)(bp + s * kc * NR + p * NR, VFN(load)(b + p * rs + s * NR));
			VFN(store)(bp + s * kc * NR + p * NR + LANES, VFN(load)(b + p * rs + s * NR + LANES));
		}
	for (int64_t j0 = full * NR; j0 < nb; j0 += NR)
		TFN(pack_b)(bp + j0 * kc, b + j0 * cs, rs, cs, kc, nb - j0 < NR ? nb - j0 : NR);
}

/* c (SIMD_MR, NR) at row stride ldc = a·b, or += when add: a's element
 * (r,p) is ar[r][p*as], b's row p is the NR values at bp + p*ldb. The fused
 * attention's tiles finish in registers before they are stored: with
 * alpha, c = c·alpha[r] + a·b (its output rescaled as the maxima moved);
 * with cmax (c a tile of sᵀ: rows are keys, columns queries), each key is
 * hidden from the queries before it (-inf; kq is the key minus the query
 * index of row 0 and column 0, ATT_NO_KQ when nothing is hidden) and the
 * tile is folded into cmax, the NR queries' largest scores so far (NaN
 * skipped): the online softmax then needs no pass of its own for the
 * maximum. */
static inline __attribute__((always_inline)) void TFN(micro_epi)(T *restrict c, int64_t ldc, const T *const *ar,
								  int64_t as, const T *restrict bp, int64_t ldb,
								  int64_t kc, bool add, const T *alpha, T *cmax,
								  int64_t kq)
{
	const T *a0 = ar[0], *a1 = ar[1], *a2 = ar[2];
	const T *a3 = ar[3], *a4 = ar[4], *a5 = ar[5];
	V c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0};
	V c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};

	/* c's lines are written at the end: fetch them now, behind the work
	 * (the attention's tiles are on its stack, in L1 already) */
	if (!alpha && !cmax)
		for (int r = 0; r < SIMD_MR; r++) {
			__builtin_prefetch(c + r * ldc, 1);
			__builtin_prefetch(c + r * ldc + NR - 1, 1);
		}
#pragma GCC unroll 4
	for (int64_t p = 0, pa = 0; p < kc; p++, pa += as) {
		V b0 = VFN(load)(bp);
		V b1 = VFN(load)(bp + LANES);
		V x;
		bp += ldb;
		x = VFN(set1)(a0[pa]); MAC(c00, x, b0); MAC(c01, x, b1);
		x = VFN(set1)(a1[pa]); MAC(c10, x, b0); MAC(c11, x, b1);
		x = VFN(set1)(a2[pa]); MAC(c20, x, b0); MAC(c21, x, b1);
		x = VFN(set1)(a3[pa]); MAC(c30, x, b0); MAC(c31, x, b1);
		x = VFN(set1)(a4[pa]); MAC(c40, x, b0); MAC(c41, x, b1);
		x = VFN(set1)(a5[pa]); MAC(c50, x, b0); MAC(c51, x, b1);
	}
	V cr[SIMD_MR][2] = { { c00, c01 }, { c10, c11 }, { c20, c21 }, { c30, c31 }, { c40, c41 }, { c50, c51 } };
#pragma GCC unroll 6
	for (int r = 0; r < SIMD_MR; r++)
		for (int h = 0; h < 2; h++) {
			if (alpha)
				cr[r][h] += VFN(load)(c + r * ldc + h * LANES) * VFN(set1)(alpha[r]);
			else if (add)
				cr[r][h] += VFN(load)(c + r * ldc + h * LANES);
		}
	if (cmax) {
		if (kq + SIMD_MR - 1 > 0) {	/* some key after some query */
			V ninf = VFN(set1)(-INFINITY);
			VI iota;
			for (int e = 0; e < LANES; e++)
				iota[e] = e;
#pragma GCC unroll 6
			for (int r = 0; r < SIMD_MR; r++)
				for (int h = 0; h < 2; h++)	/* lanes e < kq + r - h·LANES */
					cr[r][h] = VFN(select)(iota < (VI){ 0 } + (__typeof__(iota[0]))(kq + r - h * LANES),
							       ninf, cr[r][h]);
		}
		for (int h = 0; h < 2; h++) {
			V mx = VFN(load)(cmax + h * LANES);
#pragma GCC unroll 6
			for (int r = 0; r < SIMD_MR; r++)
				mx = VFN(max_skip_nan)(cr[r][h], mx);
			VFN(store)(cmax + h * LANES, mx);
		}
	}
#pragma GCC unroll 6
	for (int r = 0; r < SIMD_MR; r++) {
		VFN(store)(c + r * ldc, cr[r][0]);
		VFN(store)(c + r * ldc + LANES, cr[r][1]);
	}
}

static inline __attribute__((always_inline)) void TFN(micro)(T *restrict c, int64_t ldc, const T *const *ar,
							      int64_t as, const T *restrict bp, int64_t ldb,
							      int64_t kc, bool add)
{
	TFN(micro_epi)(c, ldc, ar, as, bp, ldb, kc, add, NULL, NULL, 0);
}

/* The micro-kernel on any a and b (element (r,p) of a at a + r*ar_step +
 * p*as, row p of b at bp + p*ldb), for a tile of mc <= MR rows and nc <= NR
 * columns, with micro_epi's alpha, cmax and kq: a partial tile is computed
 * in a full stack tile (missing rows of a repeat the last row, hidden from
 * as many queries or more, so cmax sees nothing new in them) and copied
 * back. */
static void TFN(tile)(T *c, int64_t ldc, const T *a, int64_t ar_step, int64_t as, const T *bp, int64_t ldb,
		      int64_t kc, int64_t mc, int64_t nc, bool add, const T *alpha, T *cmax, int64_t kq)
{
	const T *ar[SIMD_MR];
	T alpha_t[SIMD_MR];	/* alpha's mc rows, the last repeated */
	for (int64_t r = 0; r < SIMD_MR; r++) {
		ar[r] = a + (r < mc ? r : mc - 1) * ar_step;
		if (alpha)
			alpha_t[r] = alpha[r < mc ? r : mc - 1];
	}
	if (mc == SIMD_MR && nc == NR) {
		TFN(micro_epi)(c, ldc, ar, as, bp, ldb, kc, add, alpha, cmax, kq);
		return;
	}
	T ct[SIMD_MR * NR] = {0};
	if (add || alpha)
		for (int64_t r = 0; r < mc; r++)
			for (int64_t j = 0; j < nc; j++)
				ct[r * NR + j] = c[r * ldc + j];
	TFN(micro_epi)(ct, NR, ar, as, bp, ldb, kc, add, alpha ? alpha_t : NULL, cmax, kq);
	for (int64_t r = 0; r < mc; r++)
		for (int64_t j = 0; j < nc; j++)
			c[r * ldc + j] = ct[r * NR + j];
}

/* c is (m,n) at row stride ldc, a is (m,k) at row stride lda, b is (k,n) with
 * element (p,j) at b[p*rs + j*cs] (so cs = 1 is row-major b, rs = 1 is a
 * transposed one). c = a·b, overwritten. With skip_upper, tiles whose columns
 * all lie right of the diagonal (every j > every i) are left unwritten.
 * Blocking (GotoBLAS order): SIMD_NC columns of b at a time, and of those
 * SIMD_KC of the depth: that (KC, NC) block of b is packed once, as panels
 * of NR columns; then SIMD_MC rows of a at a time (read in place, they stay
 * in L2) run through the micro-kernel against each panel (from L1).
 * Every element of c sums its products in the order p = 0, 1, ..., k-1, in
 * passes of SIMD_KC, whatever the blocking of rows and columns. */
static void TFN(gemm)(T *c, int64_t ldc, const T *a, int64_t lda, const T *b,
		      int64_t rs, int64_t cs, int64_t m, int64_t k, int64_t n, bool skip_upper)
{
	T bp[SIMD_KC * SIMD_NC] __attribute__((aligned(64)));

	if (k == 0) {
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++)
				c[i * ldc + j] = 0;
		return;
	}
	for (int64_t jc = 0; jc < n; jc += SIMD_NC) {
		int64_t nb = n - jc < SIMD_NC ? n - jc : SIMD_NC;
		for (int64_t p0 = 0; p0 < k; p0 += SIMD_KC) {
			int64_t kc = k - p0 < SIMD_KC ? k - p0 : SIMD_KC;
			TFN(pack_panels)(bp, b + p0 * rs + jc * cs, rs, cs, kc, nb);
			for (int64_t i0 = 0; i0 < m; i0 += SIMD_MC) {
				int64_t mb = m - i0 < SIMD_MC ? m - i0 : SIMD_MC;
				/* Ctrl-C: stop here, c partial (under a millisecond apart) */
				if (ctl_stop())
					return;
				ctl_done(mb * kc * nb);	/* (all of it, the causal tiles skipped too) */
				if (skip_upper && jc > i0 + mb - 1)
					continue;
				for (int64_t j0 = jc; j0 < jc + nb; j0 += NR) {
					int64_t nc = jc + nb - j0 < NR ? jc + nb - j0 : NR;
					const T *bs = bp + (j0 - jc) * kc;	/* this panel's place */
					if (skip_upper && j0 > i0 + mb - 1)
						break;
					for (int64_t r0 = 0; r0 < mb; r0 += SIMD_MR) {
						int64_t mc = mb - r0 < SIMD_MR ? mb - r0 : SIMD_MR;
						T *ct = c + (i0 + r0) * ldc + j0;
						if (skip_upper && j0 > i0 + r0 + mc - 1)
							continue;
						TFN(tile)(ct, ldc, a + (i0 + r0) * lda + p0, lda, 1, bs, NR, kc, mc, nc, p0 > 0, NULL, NULL,
							  0);
					}
				}
			}
		}
	}
}

/* A product of at most SIMD_TINY multiply-adds (4x4 by 4x4 is 64) costs
 * more to pack and tile than to compute: tiny_matmul computes it in place,
 * each element of c by the micro-kernel's own steps (acc = 0, then MAC with
 * p = 0, 1, ..., k-1, one pass as k <= SIMD_KC): the same bits as gemm. */
#define SIMD_TINY 512

/* c is (m,n), a is (m,k), b is (k,n); k <= SIMD_KC. */
static void TFN(tiny_matmul)(T *restrict c, const T *restrict a, const T *restrict b, int64_t m, int64_t k,
			     int64_t n)
{
#ifdef TINY_V4
	if (n % 4 == 0) {	/* four columns at once, each by the same steps as the loop below */
#pragma GCC unroll 4
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j += 4) {
				TINY_V4 acc = { 0 }, bv;
#pragma GCC unroll 4
				for (int64_t p = 0; p < k; p++) {
					memcpy(&bv, b + p * n + j, sizeof bv);
					SMAC(acc, a[i * k + p], bv);
				}
				memcpy(c + i * n + j, &acc, sizeof acc);
			}
		return;
	}
#endif
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			T acc = 0;
			for (int64_t p = 0; p < k; p++)
				SMAC(acc, a[i * k + p], b[p * n + j]);
			c[i * n + j] = acc;
		}
}

/* tiny_matmul's walk, for the ops table (kernel_simd_tile) */
#ifdef TINY_V4
#define SIMD_TINY_COLS (int)(sizeof(TINY_V4) / sizeof(T))
#else
#define SIMD_TINY_COLS 1
#endif
enum { TFN(nc) = SIMD_NC, TFN(tiny_cols) = SIMD_TINY_COLS };
#undef SIMD_TINY_COLS

/* c is (m,n), a is (m,k), b is (k,n). */
static void TFN(matmul)(T *c, const T *a, const T *b, int64_t m, int64_t k, int64_t n)
{
	if (k > 0 && k <= SIMD_KC && m * n <= SIMD_TINY / k) {
		TFN(tiny_matmul)(c, a, b, m, k, n);
		return;
	}
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
 * all -inf (0/0), a NaN or a +inf makes the row NaN. The tail shorter
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
			y[j] = NAN;
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

/* y and x are (rows, cols) with cols < LANES; y may equal x. The rows of a
 * 4x4 (a notebook's scores) cost softmax_row a vector each, mostly padding:
 * here as many rows as fit share one vector's exp. The same bits as
 * softmax_row: the same maximum and x - max, each exp computed in some lane
 * (the lanes are independent), each
 * row summed in order from its first element (softmax_row's tail vector
 * sums its lanes in that order, the padding's zeros adding nothing), the
 * same division. */
static void TFN(softmax_short_rows)(T *y, const T *x, int64_t rows, int64_t cols)
{
	int64_t per = LANES / cols;
	for (int64_t r0 = 0; r0 < rows; r0 += per) {
		int64_t nr = rows - r0 < per ? rows - r0 : per;
		const T *xr = x + r0 * cols;
		T max[LANES];
		for (int64_t r = 0; r < nr; r++) {
			T mx = -INFINITY;
			for (int64_t j = r * cols; j < (r + 1) * cols; j++)
				if (xr[j] > mx || xr[j] != xr[j])
					mx = xr[j];
			max[r] = mx;
		}
		/* the group's elements in the first lanes (the lanes after them,
		 * the next rows' or zeros, are computed and never used) and each
		 * row's maximum under its own, kept in registers */
		V xv, lane, vm = VFN(set1)(max[0]);
		if ((rows - r0) * cols >= LANES) {
			xv = VFN(load)(xr);
		} else {
			T part[LANES] = {0};
			for (int64_t j = 0; j < nr * cols; j++)
				part[j] = xr[j];
			xv = VFN(load)(part);
		}
		for (int l = 0; l < LANES; l++)
			lane[l] = (T)l;
		for (int64_t r = 1; r < nr; r++)
			vm = VFN(select)((VI)(lane >= (T)(r * cols)), VFN(set1)(max[r]), vm);
		V e = VFN(exp)(xv - vm);
		T *yr = y + r0 * cols;
		for (int64_t r = 0; r < nr; r++) {
			int64_t j0 = r * cols, j1 = j0 + cols;
			if (max[r] == -INFINITY) {
				for (int64_t j = j0; j < j1; j++)
					yr[j] = NAN;
				continue;
			}
			T sum = e[j0];
			for (int64_t j = j0 + 1; j < j1; j++)
				sum += e[j];
			for (int64_t j = j0; j < j1; j++)
				yr[j] = e[j] / sum;
		}
	}
}

/* dst and src are (rows, cols); dst may equal src. */
static void TFN(softmax_rows)(T *dst, const T *src, int64_t rows, int64_t cols)
{
	/* rows in blocks of some 16k elements, Ctrl-C looked at between them */
	int64_t per = cols > 0 && cols < 16384 ? 16384 / cols : 1;
	for (int64_t r0 = 0; r0 < rows; r0 += per) {
		int64_t r1 = rows - r0 < per ? rows : r0 + per;
		if (ctl_stop())
			return;
		if (cols > 0 && cols < LANES)
			TFN(softmax_short_rows)(dst + r0 * cols, src + r0 * cols, r1 - r0, cols);
		else
			for (int64_t r = r0; r < r1; r++)
				TFN(softmax_row)(dst + r * cols, src + r * cols, cols);
		ctl_done((r1 - r0) * cols);
	}
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
	if (ctl_stop())
		return;

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
	if (ctl_stop())
		return;

	TFN(gemm)(out, dv, weights, tk, v, dv, 1, tq, tk, dv, false);
}

/* ---- fused attention: tiles and an online softmax, no T×T buffer ------------------
 * Rows i0 .. i0+bq-1 of one head (bq <= ATT_BQ): out rows = softmax(q·kᵀ·scale,
 * masked) · v, without the (tq, tk) weights. The scores of a block of ATT_BK
 * keys are computed transposed, sᵀ = k_block · (c·q_block)ᵀ with c =
 * scale·log2(e) (k's rows as they are, qᵀ packed once and scaled as it is
 * packed, so the scores need no pass of their own and are in base 2:
 * exp(s - m) = 2^(s' - m')), so that the block's queries lie along the vector
 * lanes and each query's running maximum m, sum l and rescaling factor are
 * plain vector operations down the keys. The output then accumulates as
 * acc = acc·2^(m_old - m_new) + p · v_block, p read from sᵀ a column at a
 * time and v in place; at the end out = acc / l. Key blocks are ATT_BK =
 * 2·ATT_BQ long on AVX2 (the micro-kernel's runs down v twice as long as
 * with ATT_BQ: measured some 4% faster) and ATT_BQ long on AVX-512 (there
 * 2·ATT_BQ made sᵀ 72 KB, past L1's 48 KB: ATT_BQ measured 5-8% faster,
 * ATT_BQ/2 2-4% slower than that), and start at multiples of ATT_BQ, as the query
 * blocks do, so with causal the diagonal crosses one ATT_BQ square of one
 * key block: tiles wholly in the future are skipped, and
 * each tile of queries reads v only up to its last query's key (so an inf
 * or NaN value no query of the tile can see does not reach its rows, as for
 * the keys past the block before). Special rows as the loops: a query with every key masked gives NaN (l stays 0: 0/0), as does a
 * NaN score (its exp is NaN) or a +inf one (inf - inf); with no keys at all
 * (tk == 0) the row is zeros, as weights·v would be. The depth goes ATT_DC
 * at a time, value columns ATT_DVC at a time (the scores are recomputed per
 * pass). Only the query columns in use (bq rounded up to a tile) are
 * computed. */
#define ATT_BQ (SIMD_BYTES >= 64 ? 96 : 48)	/* whole tiles: of NR queries, of SIMD_MR rows */
_Static_assert(ATT_BQ % NR == 0 && ATT_BQ % SIMD_MR == 0, "ATT_BQ must be a multiple of NR and of SIMD_MR");
#define ATT_BK (SIMD_BYTES >= 64 ? ATT_BQ : 2 * ATT_BQ)
/* the shapes above, for the ops table (kernel_simd_tile) */
enum { TFN(tile_cols) = NR, TFN(att_keys) = ATT_BK };
#define ATT_DC 128
#define ATT_DVC 64
enum { TFN(att_dc) = ATT_DC, TFN(att_dvc) = ATT_DVC };

/* The largest of x and y, y when x is NaN (one max instruction on x86). */
static inline V TFN(max_skip_nan)(V x, V y)
{
	return VFN(max_skip_nan)(x, y);
}

/* The largest of the n vectors at col, col + ATT_BQ, ..., NaN skipped: four
 * chains, as each max waits for the one before. */
static inline V TFN(col_max)(const T *col, int64_t n)
{
	V m0 = VFN(set1)(-INFINITY), m1 = m0, m2 = m0, m3 = m0;
	int64_t j = 0;
	for (; j + 4 <= n; j += 4) {
		m0 = TFN(max_skip_nan)(VFN(load)(col + j * ATT_BQ), m0);
		m1 = TFN(max_skip_nan)(VFN(load)(col + (j + 1) * ATT_BQ), m1);
		m2 = TFN(max_skip_nan)(VFN(load)(col + (j + 2) * ATT_BQ), m2);
		m3 = TFN(max_skip_nan)(VFN(load)(col + (j + 3) * ATT_BQ), m3);
	}
	for (; j < n; j++)
		m0 = TFN(max_skip_nan)(VFN(load)(col + j * ATT_BQ), m0);
	return TFN(max_skip_nan)(TFN(max_skip_nan)(m0, m1), TFN(max_skip_nan)(m2, m3));
}

/* kq for a tile of scores that hides no key (not causal) */
#define ATT_NO_KQ (-((int64_t)1 << 40))

/* The scores of keys j0 .. j0+bk-1 (rows of st, ATT_BQ wide, scaled, base 2)
 * against the block's queries qa .. qb-1 (multiples of LANES): masked (key j
 * is hidden from query i when causal and j > i, or when mask says so) and
 * folded into the running maxima m and sums l (ATT_BQ each); st is left
 * holding 2^(s - m), and alpha the factor 2^(m_old - m_new) by which each
 * query's output so far must be scaled. The maximum skips NaN scores: their
 * exp is NaN, which makes the row's sum NaN. With cmax (from micro_epi: the
 * scores already masked and their maxima known), only the first jend keys
 * are read: those after were not computed, being after every query of the
 * tile, and the output never reads them. */
static void TFN(online_block)(T *st, T *alpha, T *m, T *l, const uint8_t *mask, int64_t tk, bool causal,
			      int64_t i0, int64_t bq, int64_t qa, int64_t qb, int64_t j0, int64_t bk, const T *cmax,
			      int64_t jend)
{
	V ninf = VFN(set1)(-INFINITY);
	for (int64_t q0 = qa; q0 < qb; q0 += LANES) {
		if (causal && cmax == NULL) {	/* keys in some lane's future: -inf there */
			VI qi = {0}, kj = {0};	/* the lanes' query indices, and the key's */
			for (int e = 0; e < LANES; e++)
				qi[e] = i0 + q0 + e;
			for (int64_t j = i0 + q0 + 1 - j0 > 0 ? i0 + q0 + 1 - j0 : 0; j < bk; j++) {
				for (int e = 0; e < LANES; e++)
					kj[e] = j0 + j;
				V x = VFN(load)(st + j * ATT_BQ + q0);
				VFN(store)(st + j * ATT_BQ + q0, VFN(select)(qi >= kj, x, ninf));
			}
		}
		if (mask != NULL)
			for (int64_t j = 0; j < bk; j++)
				for (int64_t e = 0; e < LANES && q0 + e < bq; e++)
					if (mask[(i0 + q0 + e) * tk + j0 + j] != 0)
						st[j * ATT_BQ + q0 + e] = -INFINITY;
		int64_t n = cmax ? jend : bk;
		V vmax = cmax ? VFN(load)(cmax + q0 - qa) : TFN(col_max)(st + q0, bk);
		V mold = VFN(load)(m + q0);
		V mnew = TFN(max_skip_nan)(vmax, mold);
		/* a query that has seen nothing yet subtracts 0: exp(-inf) = 0 */
		V msub = VFN(select)((VI)(mnew == ninf), (V){0}, mnew);
		V va = VFN(exp2_neg)(mold - msub);
		V lsum = {0};
		for (int64_t j = 0; j < n; j++) {
			V e = VFN(exp2_neg)(VFN(load)(st + j * ATT_BQ + q0) - msub);
			VFN(store)(st + j * ATT_BQ + q0, e);
			lsum += e;
		}
		VFN(store)(l + q0, VFN(load)(l + q0) * va + lsum);
		VFN(store)(m + q0, mnew);
		VFN(store)(alpha + q0, va);
	}
}

/* qt is (dc, ATT_BQ): qt[p][r] = c·q[r][p] for the bq rows of q (row stride
 * ldq), and 0 for rows bq .. nq-1 (queries that pad the last tile). */
static void TFN(pack_qt)(T *qt, const T *q, int64_t ldq, int64_t bq, int64_t nq, int64_t dc, T c)
{
	int64_t rv = 0, pv = 0;	/* rows and columns done in 8x8 blocks */
#if SIMD_BYTES >= 32
	if (sizeof(T) == sizeof(float)) {
		rv = bq / 8 * 8;
		pv = dc / 8 * 8;
		for (int64_t r0 = 0; r0 < rv; r0 += 8)
			for (int64_t p0 = 0; p0 < pv; p0 += 8)
				vf_transpose8_scaled((float *)qt + p0 * ATT_BQ + r0, ATT_BQ, (const float *)q + r0 * ldq + p0,
						     ldq, (float)c);
	}
#endif
	for (int64_t r = 0; r < bq; r++)
		for (int64_t p = r < rv ? pv : 0; p < dc; p++)
			qt[p * ATT_BQ + r] = q[r * ldq + p] * c;
	for (int64_t r = bq; r < nq; r++)
		for (int64_t p = 0; p < dc; p++)
			qt[p * ATT_BQ + r] = 0;
}

/* Rows of the next item (struct att_next) asked into the cache, at most
 * rows of each of q, k and v: *qr and *kr are the next rows to ask for,
 * the first dq elements of q's and k's rows, dv of v's. */
static inline void TFN(fetch_next)(const struct att_next *n, const struct att_ld *ld, int64_t *qr, int64_t *kr,
				   int64_t dq, int64_t dv, int64_t rows)
{
	const int64_t line = 64 / (int64_t)sizeof(T);
	for (int64_t r = 0; r < rows && *qr < n->q_rows; r++, (*qr)++)
		for (int64_t p = 0; p < dq; p += line)
			__builtin_prefetch((const T *)n->q + *qr * ld->q + p);
	for (int64_t r = 0; r < rows && *kr < n->k1; r++, (*kr)++) {
		for (int64_t p = 0; p < dq; p += line)
			__builtin_prefetch((const T *)n->k + *kr * ld->k + p);
		for (int64_t p = 0; p < dv; p += line)
			__builtin_prefetch((const T *)n->v + *kr * ld->v + p);
	}
}

/* q is (tq,d), k is (tk,d), v is (tk,dv), out is (tq,dv), their rows ld->q,
 * ld->k, ld->v and ld->out apart; mask NULL or (tq,tk) bytes. Computes out
 * rows i0 .. i0+bq-1, and fetches next's rows (if not NULL) behind the work,
 * two rows a tile of the scores: the first item of a head, which finds
 * them in memory, would otherwise wait for q's rows, and each item for the
 * keys it reads first. */
static void TFN(attention_rows)(T *out, const T *q, const T *k, const T *v, const uint8_t *mask,
				bool causal, T scale, int64_t i0, int64_t bq, int64_t tk, int64_t d,
				int64_t dv, const struct att_ld *ld, const struct att_next *next)
{
	T qt[ATT_DC * ATT_BQ] __attribute__((aligned(64)));
	T st[ATT_BK * ATT_BQ] __attribute__((aligned(64)));
	T acc[ATT_BQ * ATT_DVC] __attribute__((aligned(64)));
	T vp[ATT_BK * NR] __attribute__((aligned(64)));
	T m[ATT_BQ], l[ATT_BQ], alpha[ATT_BQ];
	/* keys 0 .. kend-1 are visible to some query of the block */
	int64_t kend = causal && i0 + bq < tk ? i0 + bq : tk;
	int64_t nq = (bq + NR - 1) / NR * NR;	/* query columns computed: whole tiles */
	int64_t packed = -1;	/* the depth offset qt holds */
	T qscale = scale * (T)1.4426950408889634074;	/* base 2: see exp2_neg */

	/* q's rows are read once, by pack_qt, usually from memory: all asked for now */
	int64_t dq = d < ATT_DC ? d : ATT_DC;	/* q's and k's columns a pass reads */
	for (int64_t r = 0; r < bq; r++)
		for (int64_t p = 0; p < dq; p += 64 / (int64_t)sizeof(T))
			__builtin_prefetch(q + (i0 + r) * ld->q + p);
	int64_t next_q = 0, next_k = next ? next->k0 : 0;	/* next's rows fetched so far */

	for (int64_t c0 = 0; c0 < dv; c0 += ATT_DVC) {
		int64_t dvc = dv - c0 < ATT_DVC ? dv - c0 : ATT_DVC;
		memset(acc, 0, sizeof acc);
		for (int64_t r = 0; r < ATT_BQ; r++) {
			m[r] = -INFINITY;
			l[r] = 0;
		}
		for (int64_t j0 = 0; j0 < kend; j0 += ATT_BK) {
			int64_t bk = kend - j0 < ATT_BK ? kend - j0 : ATT_BK;
			if (ctl_stop())	/* Ctrl-C: out's rows are left as they were */
				return;
			ctl_done(bq * bk * (d + dvc));
			/* sᵀ = k_block · (scale·q_block)ᵀ, ATT_DC of the depth at a time, a
			 * panel of NR queries at a time, each panel's online softmax
			 * right after the depth's last pass over it (its scores in L1) */
			if (d == 0) {
				memset(st, 0, sizeof st);
				TFN(online_block)(st, alpha, m, l, mask, tk, causal, i0, bq, 0, nq, j0, bk, NULL, bk);
			}
			for (int64_t p0 = 0; p0 < d; p0 += ATT_DC) {
				int64_t dc = d - p0 < ATT_DC ? d - p0 : ATT_DC;
				bool last = p0 + dc == d, fold = last && mask == NULL;
				if (packed != p0) {
					TFN(pack_qt)(qt, q + i0 * ld->q + p0, ld->q, bq, nq, dc, qscale);
					packed = p0;
				}
				for (int64_t s0 = 0; s0 < nq; s0 += NR) {
					T cmax[NR];
					int64_t r0 = 0;
					for (int64_t r = 0; r < NR; r++)
						cmax[r] = -INFINITY;
					/* key rows after every query of the panel are left out */
					for (; r0 < bk && !(causal && j0 + r0 > i0 + s0 + NR - 1); r0 += SIMD_MR) {
						int64_t mc = bk - r0 < SIMD_MR ? bk - r0 : SIMD_MR;
						T *c = st + r0 * ATT_BQ + s0;
						const T *ar[SIMD_MR];	/* the tile's rows of k */
						for (int64_t r = 0; r < SIMD_MR; r++)
							ar[r] = k + (j0 + r0 + (r < mc ? r : mc - 1)) * ld->k + p0;
						int64_t kq = causal ? j0 + r0 - (i0 + s0) : ATT_NO_KQ;
						if (next)
							TFN(fetch_next)(next, ld, &next_q, &next_k, dq, dv, 2);
						if (mc == SIMD_MR)
							TFN(micro_epi)(c, ATT_BQ, ar, 1, qt + s0, ATT_BQ, dc, p0 > 0, NULL,
								       fold ? cmax : NULL, kq);
						else
							TFN(tile)(c, ATT_BQ, ar[0], ld->k, 1, qt + s0, ATT_BQ, dc, mc, NR, p0 > 0,
								  NULL, fold ? cmax : NULL, kq);
					}
					if (last)
						TFN(online_block)(st, alpha, m, l, mask, tk, causal, i0, bq, s0, s0 + NR, j0, bk,
								  fold ? cmax : NULL, r0 < bk ? r0 : bk);
				}
			}
			/* acc = acc·alpha + p · v_block, each tile rescaled as it is read (a
			 * tile no key of the block reaches keeps its alpha of 1, or of 0 on
			 * an acc still 0): row r of p is column r of sᵀ */
			int64_t full = dvc / NR * NR;	/* columns in whole tiles of v read in place */
			if (full < dvc)	/* the last columns, padded */
				TFN(pack_b)(vp, v + j0 * ld->v + c0 + full, ld->v, 1, bk, dvc - full);
			for (int64_t r0 = 0; r0 < bq; r0 += SIMD_MR) {
				int64_t mc = bq - r0 < SIMD_MR ? bq - r0 : SIMD_MR;
				/* keys past the tile's last query weigh 0 */
				int64_t kc = causal && i0 + r0 + mc - j0 < bk ? i0 + r0 + mc - j0 : bk;
				const T *ar[SIMD_MR];	/* the tile's rows of p: columns of sᵀ */
				for (int64_t r = 0; r < SIMD_MR; r++)
					ar[r] = st + r0 + (r < mc ? r : mc - 1);
				if (kc <= 0)
					continue;
				for (int64_t s0 = 0; s0 < dvc; s0 += NR) {
					T *c = acc + r0 * ATT_DVC + s0;
					if (s0 == full)
						TFN(tile)(c, ATT_DVC, st + r0, 1, ATT_BQ, vp, NR, kc, mc, NR, false, alpha + r0,
							  NULL, 0);
					else if (mc == SIMD_MR)
						TFN(micro_epi)(c, ATT_DVC, ar, ATT_BQ, v + j0 * ld->v + c0 + s0, ld->v, kc, false,
							       alpha + r0, NULL, 0);
					else
						TFN(tile)(c, ATT_DVC, st + r0, 1, ATT_BQ, v + j0 * ld->v + c0 + s0, ld->v, kc, mc,
							  NR, false, alpha + r0, NULL, 0);
				}
			}
		}
		for (int64_t r = 0; r < bq; r++) {
			T *o = out + (i0 + r) * ld->out + c0, *a = acc + r * ATT_DVC;
			T inv = 1 / l[r];	/* (one division a row: a vector one costs as much as 4 multiplies) */
			V vinv = VFN(set1)(inv);
			int64_t c = 0;
			if (l[r] == 0) {	/* every key masked: 0/0; no keys: an empty sum */
				for (c = 0; c < dvc; c++)
					o[c] = tk > 0 ? (T)NAN : 0;
				continue;
			}
			for (; c + LANES <= dvc; c += LANES)
				VFN(store)(o + c, VFN(load)(a + c) * vinv);
			for (; c < dvc; c++)
				o[c] = a[c] * inv;
		}
	}
	if (next)	/* what the tiles did not reach */
		TFN(fetch_next)(next, ld, &next_q, &next_k, dq, dv, INT64_MAX);
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
#undef SIMD_NC
