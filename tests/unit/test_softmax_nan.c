/* test_softmax_nan.c: a fully masked row gives NaN, as torch 1.13 does
 * (tests/ref/softmax_refs.inc, made by tests/ref/softmax_refs.py), through
 * every spelling of softmax the language has (torch.softmax, F.softmax, the
 * method, scipy.special.softmax, float32 and float64) and through masked
 * attention (the fused expression and F.scaled_dot_product_attention), on
 * both kernels; and what the views make of NaN: the heatmap's mark, colour
 * and legend entry, the inspector's explanation, and the comparison of
 * results, where a NaN equals a NaN in the same place and never hides
 * against a number. */
#include "core/strbuf.h"
#include "lang/interp.h"
#include "lang/value.h"
#include "lesson/compare.h"
#include "text/render.h"
#include "view/heatmap.h"
#include "view/inspect.h"
#include "view/palette.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ref/softmax_refs.inc"

static struct interp *run(enum kernel_variant kv, const char *src)
{
	struct interp *I = interp_new(kv);
	struct qkv_error err;
	cr_assert_eq(interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s: %s", src,
		     err.msg);
	return I;
}

static struct tensor *eval(struct interp *I, const char *expr)
{
	struct qkv_error err;
	struct value *v = interp_eval(I, expr, strlen(expr), &err);
	cr_assert(v, "%s: %s", expr, err.msg);
	cr_assert_eq(v->kind, V_TENSOR, "%s is not a tensor", expr);
	struct tensor *t = v->t;
	t->refs++;
	value_unref(v);
	return t;
}

/* A Python literal of v: float('nan'), float('-inf'), or the number. */
static void literal(struct strbuf *b, double v)
{
	if (isnan(v))
		strbuf_puts(b, "float('nan')");
	else if (isinf(v))
		strbuf_puts(b, v < 0 ? "float('-inf')" : "float('inf')");
	else
		strbuf_printf(b, "%.17g", v);
}

/* "[[...], [...]]" of the reference input rows */
static void input_rows(struct strbuf *b)
{
	strbuf_putc(b, '[');
	for (int r = 0; r < REF_SOFTMAX_ROWS; r++) {
		strbuf_puts(b, r ? ", [" : "[");
		for (int c = 0; c < REF_SOFTMAX_COLS; c++) {
			if (c)
				strbuf_puts(b, ", ");
			literal(b, ref_softmax_in[r * REF_SOFTMAX_COLS + c]);
		}
		strbuf_putc(b, ']');
	}
	strbuf_putc(b, ']');
}

/* t holds want (n values): NaN exactly where want has NaN, numbers within tol */
static void expect_values(const char *what, const struct tensor *t, const float *want32, const double *want64,
			  int64_t n, double tol)
{
	cr_assert_eq(tensor_numel(t), n, "%s: %lld elements", what, (long long)tensor_numel(t));
	for (int64_t i = 0; i < n; i++) {
		double got = tensor_get(t, i), want = want32 ? want32[i] : want64[i];
		cr_assert_eq(isnan(got), isnan(want), "%s[%lld] = %g, torch %g", what, (long long)i, got, want);
		if (!isnan(want))
			cr_assert(got == want || fabs(got - want) <= tol * fmax(1, fabs(want)), "%s[%lld] = %.9g, torch %.9g",
				  what, (long long)i, got, want);
	}
}

Test(softmax_nan, every_spelling_of_softmax_should_give_torchs_special_rows_on_both_kernels)
{
	static const char *const f32[] = { "torch.softmax(X, dim=-1)", "F.softmax(X, dim=1)", "X.softmax(dim=-1)",
					   "torch.nn.functional.softmax(X, dim=-1)", "X.softmax(-1)" };
	static const char *const f64[] = { "torch.softmax(X.double(), dim=-1)", "F.softmax(X64, dim=-1)",
					   "softmax(Xn, axis=1)", "X64.softmax(dim=1)" };
	struct strbuf src;
	strbuf_init(&src);
	strbuf_puts(&src, "import torch\nimport torch.nn.functional as F\nimport numpy as np\n"
			  "from scipy.special import softmax\nX = torch.tensor(");
	input_rows(&src);
	strbuf_puts(&src, ")\nX64 = torch.tensor(");
	input_rows(&src);
	strbuf_puts(&src, ", dtype=torch.float64)\nXn = np.array(");
	input_rows(&src);
	strbuf_puts(&src, ")\n");
	int64_t n = REF_SOFTMAX_ROWS * REF_SOFTMAX_COLS;
	for (int kv = 0; kv < 2; kv++) {
		struct interp *I = run(kv ? KERNEL_LOOPS : KERNEL_SIMD, src.s);
		for (size_t i = 0; i < sizeof f32 / sizeof f32[0]; i++) {
			struct tensor *t = eval(I, f32[i]);
			cr_assert_eq(t->dtype, DT_F32, "%s", f32[i]);
			expect_values(f32[i], t, ref_softmax_f32, NULL, n, 2e-6);
			tensor_unref(t);
		}
		for (size_t i = 0; i < sizeof f64 / sizeof f64[0]; i++) {
			struct tensor *t = eval(I, f64[i]);
			cr_assert_eq(t->dtype, DT_F64, "%s", f64[i]);
			expect_values(f64[i], t, NULL, ref_softmax_f64, n, 1e-13);
			tensor_unref(t);
		}
		interp_free(I);
	}
	strbuf_free(&src);
}

/* Q, K, V: two heads of 70 tokens as the reference script makes them */
static void set_heads(struct interp *I, const char *name, double a, double b, bool cosine, enum dtype dt)
{
	int64_t shape[4] = { 1, REF_ATT_HEADS, REF_ATT_T, REF_ATT_D };
	struct tensor *t = tensor_new(dt, FLAVOR_TORCH, 4, shape);
	for (int64_t i = 0; i < tensor_numel(t); i++)
		tensor_set(t, i, cosine ? cos(a * (double)i + b) : sin(a * (double)i + b));
	interp_set(I, name, value_tensor(t));
}

Test(softmax_nan, a_fully_masked_query_should_give_nan_in_fused_attention_and_sdpa_as_torchs_math)
{
	static const char *const exprs[] = {
		"torch.softmax((Q @ K.transpose(-2, -1) * 0.5).masked_fill(M, float('-inf')), dim=-1) @ V",
		"F.scaled_dot_product_attention(Q, K, V, attn_mask=~M, scale=0.5)",
		"F.softmax((Q @ K.transpose(-2, -1) * 0.5).masked_fill(M, float('-inf')), dim=-1) @ V",
	};
	for (int kv = 0; kv < 2; kv++)
		for (int f64 = 0; f64 < 2; f64++) {
			struct interp *I = run(kv ? KERNEL_LOOPS : KERNEL_SIMD,
					       "import torch\nimport torch.nn.functional as F\n"
					       "M = torch.zeros(70, 70).bool()\nM[7] = True\n");
			enum dtype dt = f64 ? DT_F64 : DT_F32;
			set_heads(I, "Q", 0.37, 0, false, dt);
			set_heads(I, "K", 0.21, 0, true, dt);
			set_heads(I, "V", 0.13, 1, false, dt);
			/* the reference's other hidden keys: (3i + 5j) % 7 == 0 */
			struct tensor *m = eval(I, "M");
			for (int i = 0; i < REF_ATT_T; i++)
				for (int j = 0; j < REF_ATT_T; j++)
					if ((3 * i + 5 * j) % 7 == 0)
						tensor_set(m, i * REF_ATT_T + j, 1);
			tensor_unref(m);
			for (size_t e = 0; e < sizeof exprs / sizeof exprs[0]; e++) {
				struct tensor *t = eval(I, exprs[e]);
				expect_values(exprs[e], t, f64 ? NULL : ref_att_heads_out_f32,
					      f64 ? ref_att_heads_out_f64 : NULL, REF_ATT_HEADS * REF_ATT_T * REF_ATT_D,
					      f64 ? 1e-12 : 1e-5);
				tensor_unref(t);
			}
			interp_free(I);
		}
}

/* ---- the views ------------------------------------------------------------------ */

/* W: softmax weights whose row 1 is fully masked (NaN) and whose cell
 * [0, 1] is masked (0) */
static const char masked_src[] =
	"import torch\n"
	"S = torch.tensor([[1.0, 2.0, 0.5], [3.0, 1.0, 2.0], [0.5, 0.25, 1.0]])\n"
	"M = torch.tensor([[False, True, False], [True, True, True], [False, False, False]])\n"
	"S_masked = S.masked_fill(M, float('-inf'))\n"
	"W = torch.softmax(S_masked, dim=-1)\n"
	"V = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
	"Q = torch.tensor([[1.0, 0.5], [0.25, 2.0], [1.5, 1.0]])\n"
	"K = torch.tensor([[0.5, 1.0], [1.0, 0.0], [2.0, 0.5]])\n"
	"R = torch.softmax((Q @ K.T * 0.5).masked_fill(M, float('-inf')), dim=-1) @ V\n"
	"P = W @ V\n"
	"import torch.nn.functional as F\n"
	"A = F.scaled_dot_product_attention(Q, K, V, attn_mask=~M)\n";

Test(softmax_nan, a_nan_cell_should_be_drawn_as_such_with_a_legend_entry_in_every_colour_mode)
{
	struct interp *I = run(KERNEL_SIMD, masked_src);
	struct tensor *w = eval(I, "W");
	struct heatmap h;
	heatmap_build(&h, w, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	heatmap_set_name(&h, "W");
	cr_expect_eq(heatmap_cell_kind(&h, 1, 0), CELL_NAN);
	cr_expect_eq(heatmap_cell_kind(&h, 0, 1), CELL_VALUE, "a masked weight is 0, a number");
	cr_expect_eq(h.scale, SCALE_WEIGHTS, "NaN does not decide the scale");
	struct heatmap_numfmt f;
	cr_assert(heatmap_number_format(&h, 6, &f));
	char cell[64], legend[512];
	heatmap_cell_text(&h, 1, 2, &f, 6, cell, sizeof cell);
	cr_expect_str_eq(cell, "   nan");
	/* its mark where marks are drawn, its colour where there is colour;
	 * numbers alone without colour: the cell's word says it */
	heatmap_legend(&h, &f, COLOR_NONE, LEGEND_SHADES, legend, sizeof legend, 200);
	cr_expect(strstr(legend, "? = nan"), "no colour: %s", legend);
	heatmap_legend(&h, &f, COLOR_NONE, LEGEND_WORDS, legend, sizeof legend, 200);
	cr_expect(!strstr(legend, "?") && !strstr(legend, "magenta"), "no colour, numbers alone: %s", legend);
	heatmap_legend(&h, &f, COLOR_8, LEGEND_SHADES, legend, sizeof legend, 200);
	cr_expect(strstr(legend, "? magenta = nan"), "8 colours: %s", legend);
	heatmap_legend(&h, &f, COLOR_256, LEGEND_WORDS, legend, sizeof legend, 200);
	cr_expect(strstr(legend, "   magenta = nan") && !strstr(legend, "?"), "256 colours: %s", legend);
	heatmap_legend(&h, NULL, COLOR_256, LEGEND_BLOCKS, legend, sizeof legend, 200);
	cr_expect(strstr(legend, "   magenta = nan") && !strstr(legend, "?"), "half blocks: %s", legend);
	heatmap_legend(&h, &f, COLOR_256, LEGEND_SHADES, legend, sizeof legend, 20);
	cr_expect(strstr(legend, "? magenta nan") || strstr(legend, "? nan"), "narrow: %s", legend);
	/* magenta is on neither scale, and its own colour of the 8 */
	struct rgb nan = palette_nan_rgb();
	cr_expect_eq(palette_index16(nan, true), 5, "magenta among the 8 ANSI colours");
	for (int i = 0; i <= 10; i++) {
		struct rgb a = palette_rgb(SCALE_WEIGHTS, i / 10.0), b = palette_rgb(SCALE_DIVERGING, i / 10.0);
		cr_expect_neq(palette_index16(a, true), 5, "the weights scale never reads as magenta");
		cr_expect_neq(palette_index16(b, true), 5, "the diverging scale never reads as magenta");
	}
	heatmap_free(&h);
	/* a heatmap without NaN has no such entry */
	struct tensor *s = eval(I, "S");
	heatmap_build(&h, s, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	heatmap_legend(&h, NULL, COLOR_NONE, LEGEND_WORDS, legend, sizeof legend, 200);
	cr_expect_null(strstr(legend, "nan"), "%s", legend);
	heatmap_free(&h);
	tensor_unref(s);
	tensor_unref(w);
	interp_free(I);
}

Test(softmax_nan, run_plain_should_print_a_nan_cell_with_its_mark_and_colour)
{
	struct interp *I = run(KERNEL_SIMD, masked_src);
	struct tensor *w = eval(I, "W");
	struct heatmap h;
	heatmap_build(&h, w, NULL, 0, NULL, 0, NULL, 0, SCALE_AUTO);
	heatmap_set_name(&h, "W");
	struct strbuf out;
	strbuf_init(&out);
	struct render_opts plain = { 80, false }, colour = { 80, true };
	render_heatmap(&out, &h, 2, &plain);
	cr_expect(strstr(out.s, "nan ?"), "%s", out.s);
	cr_expect(strstr(out.s, "? = nan"), "%s", out.s);
	strbuf_reset(&out);
	render_heatmap(&out, &h, 2, &colour);
	char esc[32];
	snprintf(esc, sizeof esc, "\x1b[48;5;%dm", palette_index256(palette_nan_rgb()));
	cr_expect(strstr(out.s, esc), "the NaN cell in magenta: %s", out.s);
	cr_expect(strstr(out.s, "? magenta = nan"), "%s", out.s);
	strbuf_free(&out);
	heatmap_free(&h);
	tensor_unref(w);
	interp_free(I);
}

Test(softmax_nan, the_inspector_should_explain_a_nan_weight_and_a_nan_output)
{
	struct interp *I = run(KERNEL_SIMD, masked_src);
	struct tensor *w = eval(I, "W");
	struct strbuf out;
	strbuf_init(&out);
	inspect_cell(&out, w, "W", 1 * 3 + 2, 200);
	cr_expect(strstr(out.s, "= 0 / 0 = nan"), "%s", out.s);
	cr_expect(strstr(out.s, "every score in this row is -inf (a fully masked row)"), "%s", out.s);
	cr_expect(strstr(out.s, "0/0 is nan"), "%s", out.s);
	strbuf_reset(&out);
	inspect_cell(&out, w, "W", 0 * 3 + 1, 200);
	cr_expect_null(strstr(out.s, "nan"), "a masked cell of a live row is 0: %s", out.s);
	strbuf_reset(&out);
	struct tensor *r = eval(I, "R");
	cr_assert(isnan(tensor_get(r, 2)) && !isnan(tensor_get(r, 0)));
	inspect_cell(&out, r, "R", 2, 200);
	cr_expect(strstr(out.s, "the weights of this row are nan"), "%s", out.s);
	cr_expect(strstr(out.s, "(a fully masked row)"), "%s", out.s);
	cr_expect(strstr(out.s, "= nan"), "%s", out.s);
	cr_expect_null(strstr(out.s, "recomputed"), "no stale-value note: %s", out.s);
	tensor_unref(r);
	/* the same product in two statements */
	strbuf_reset(&out);
	r = eval(I, "P");
	inspect_cell(&out, r, "P", 3, 200);
	cr_expect(strstr(out.s, "the weights of this row are nan"), "%s", out.s);
	tensor_unref(r);
	/* the fused attention's output, its weights recomputed */
	strbuf_reset(&out);
	r = eval(I, "A");
	cr_assert(isnan(tensor_get(r, 2)) && !isnan(tensor_get(r, 0)));
	inspect_cell(&out, r, "A", 2, 200);
	cr_expect(strstr(out.s, "every key is hidden from query 1 (a fully masked row)"), "%s", out.s);
	cr_expect_null(strstr(out.s, "recomputed"), "no stale-value note: %s", out.s);
	strbuf_free(&out);
	tensor_unref(r);
	tensor_unref(w);
	interp_free(I);
}

static struct tensor *vec(double a, double b, double c)
{
	int64_t shape[1] = { 3 };
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 1, shape);
	tensor_set(t, 0, a);
	tensor_set(t, 1, b);
	tensor_set(t, 2, c);
	return t;
}

Test(softmax_nan, comparing_results_should_match_nan_with_nan_in_place_and_never_hide_it)
{
	struct tensor *x = vec(0.5, NAN, 1), *same = vec(0.5, NAN, 1), *num = vec(0.5, 0, 1), *moved = vec(NAN, 0, 1);
	struct compare c;
	compare_judge(same, x, &c);
	cr_expect(c.agree, "NaN against NaN in the same place agrees");
	cr_expect_eq(c.max_diff, 0);
	compare_judge(num, x, &c);
	cr_expect(!c.agree, "a number against a NaN");
	cr_expect(isinf(c.max_diff), "%g", c.max_diff);
	compare_judge(x, num, &c);
	cr_expect(!c.agree && isinf(c.max_diff), "a NaN against a number");
	compare_judge(moved, x, &c);
	cr_expect(!c.agree, "NaNs in different places");
	cr_expect_eq(compare_diff(NAN, NAN), 0);
	cr_expect_eq(compare_diff(-INFINITY, -INFINITY), 0);
	cr_expect(isinf(compare_diff(INFINITY, -INFINITY)));
	cr_expect(isinf(compare_diff(NAN, 0)) && isinf(compare_diff(1, NAN)));
	tensor_unref(x), tensor_unref(same), tensor_unref(num), tensor_unref(moved);
}
