/* test_inspect.c: the cell inspector (src/view/inspect.c) on tensors made by
 * the interpreter in-process, the derivations ops.c attaches, the labels
 * eval.c gives them and the source printer behind those (lang/astprint.c). */
#include "core/strbuf.h"
#include "lang/astprint.h"
#include "lang/interp.h"
#include "lang/parser.h"
#include "view/inspect.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* the statements of seed 000 up to the causal mask */
static const char seed000[] =
	"torch.manual_seed(42); X = torch.randn(3, 5); W_K = torch.randn(5, 4); W_Q = torch.randn(5, 4)\n"
	"K = X @ W_K; Q = X @ W_Q\n"
	"S = torch.matmul(Q, K.transpose(0, 1))\n"
	"S_raw = S\n"
	"S = S / (4 ** 0.5)\n"
	"W = torch.softmax(S, dim=1)\n"
	"mask = torch.tril(torch.ones(3, 3))\n"
	"masked_S = S.masked_fill(mask == 0, float('-inf'))\n"
	"A = torch.softmax(masked_S, dim=1)\n"
	"V = X\n"
	"R = A @ V\n";

static struct strbuf text;

static struct interp *run(const char *src)
{
	struct interp *I = interp_new(KERNEL_SIMD);
	struct qkv_error err;
	cr_assert_eq(interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s: %s", src,
		     err.msg);
	return I;
}

static const struct tensor *var(struct interp *I, const char *name)
{
	struct value *v = interp_get(I, name);
	cr_assert(v && v->kind == V_TENSOR, "%s is not a tensor", name);
	return v->t;
}

/* what the inspector says about flat cell `flat` of the variable `name` */
static const char *inspect(struct interp *I, const char *name, int64_t flat, int width)
{
	strbuf_free(&text);
	strbuf_init(&text);
	int lines = inspect_cell(&text, var(I, name), name, flat, width);
	int newlines = 0;
	for (const char *p = text.s; *p; p++)
		newlines += *p == '\n';
	cr_assert_eq(lines, newlines, "%d lines reported, %d written:\n%s", lines, newlines, text.s);
	return text.s;
}

static int columns(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* every line of s fits in width columns */
static void assert_fits(const char *s, int width)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		cr_assert(nl, "the last line has no newline: %s", s);
		cr_assert_leq(columns(s, (size_t)(nl - s)), width, "too wide for %d: '%.*s'", width, (int)(nl - s), s);
		s = nl + 1;
	}
}

/* the inspector's way of printing a number */
static const char *fmt4(double v, char *buf, size_t size)
{
	if (isinf(v))
		snprintf(buf, size, "%s", v < 0 ? "-inf" : "inf");
	else if (v == 0)
		snprintf(buf, size, "0");
	else if (fabs(v) < 1e-3 || fabs(v) >= 1e5)
		snprintf(buf, size, "%.3e", v);
	else
		snprintf(buf, size, "%.4f", v);
	return buf;
}

/* line n (0-based) of s, without its newline */
static const char *line_of(const char *s, int n, char *buf, size_t size)
{
	for (; n > 0 && s; n--) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	cr_assert(s && *s, "no line %d", n);
	size_t len = strcspn(s, "\n");
	snprintf(buf, size, "%.*s", (int)len, s);
	return buf;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);
	return n >= k && strcmp(s + n - k, end) == 0;
}

static void done(struct interp *I)
{
	interp_free(I);
	strbuf_free(&text);
	strbuf_init(&text);
}

/* ---- the seed-000 cells ----------------------------------------------------------- */

Test(inspect, a_product_cell_should_show_the_row_times_the_column_term_by_term)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "S_raw", 5, 80),
			 "S_raw[1, 2] = Q[1, :] · K.transpose(0, 1)[:, 2]\n"
			 "= 1.6595×(-0.7106) + (-0.4445)×(-4.3429) + (-0.1917)×4.2984 + 1.7729×(-2.3664)\n"
			 "= -4.2686\n");
	done(I);
}

Test(inspect, a_scaled_score_should_show_the_division_and_the_product_under_it)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "S", 5, 80),
			 "S[1, 2] = (Q[1]·K[2]) ÷ 2 = -4.2686 ÷ 2 = -2.1343\n"
			 "Q[1]·K[2] = 1.6595×(-0.7106) + (-0.4445)×(-4.3429) + (-0.1917)×4.2984\n"
			 "  + 1.7729×(-2.3664)\n");
	done(I);
}

Test(inspect, a_softmax_weight_should_show_exp_over_the_sum_of_its_row)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "W", 3, 80),
			 "W[1, 0] = exp(s₁₀ − max₁) / Σⱼ exp(s₁ⱼ − max₁)\n"
			 "= exp(0.7593 − 0.7593) / (1.0000 + 0.0475 + 0.0554) = 0.9067\n");
	done(I);
}

Test(inspect, a_masked_cell_should_say_that_the_mask_hides_a_future_token)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "masked_S", 2, 80),
			 "masked_S[0, 2] = -inf: mask == 0 is True here (a future token)\n");
	done(I);
}

Test(inspect, an_unmasked_cell_should_show_its_score_and_how_it_was_scaled)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "masked_S", 3, 80),
			 "masked_S[1, 0] = S[1, 0] = 0.7593 (not masked)\n"
			 "S[1, 0] = (Q[1]·K[0]) ÷ 2 = 1.5185 ÷ 2 = 0.7593\n"
			 "Q[1]·K[0] = 1.6595×0.6023 + (-0.4445)×(-0.7260) + (-0.1917)×1.1799\n"
			 "  + 1.7729×0.2383\n");
	done(I);
}

Test(inspect, a_weight_after_a_mask_should_say_that_masked_entries_add_zero)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "A", 3, 80),
			 "A[1, 0] = exp(s₁₀ − max₁) / Σⱼ exp(s₁ⱼ − max₁)\n"
			 "= exp(0.7593 − 0.7593) / (1.0000 + 0.0475 + 0) = 0.9546\n"
			 "the masked entry (-inf) adds exp(-inf) = 0 to the sum\n");
	cr_assert_str_eq(inspect(I, "A", 1, 80),
			 "A[0, 1] = exp(s₀₁ − max₀) / Σⱼ exp(s₀ⱼ − max₀)\n"
			 "= exp(-inf − (-1.2905)) / (1.0000 + 0 + 0) = 0\n"
			 "this entry is -inf (masked): exp(-inf) = 0, so its weight is 0\n");
	done(I);
}

Test(inspect, a_product_of_weights_and_values_should_read_as_a_weighted_sum)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "R", 1, 80),
			 "R[0, 1] = Σⱼ A[0, j]·V[j, 1]\n"
			 "= 1.0000×0.1288 + 0×2.2082 + 0×0.8094\n"
			 "= 0.1288\n");
	done(I);
}

Test(inspect, a_cell_without_a_derivation_should_show_its_value_and_position)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "X", 8, 80), "X[1, 3] = 0.4617 (row 1, column 3)\n");
	cr_assert_str_eq(inspect(I, "mask", 1, 80), "mask[0, 1] = 0 (row 0, column 1)\n");
	done(I);
	I = run("v = torch.tensor([1.5, -2.0]); b = torch.zeros(2, 2, 2); n = torch.tensor(3.25)");
	cr_assert_str_eq(inspect(I, "v", 1, 80), "v[1] = -2.0000 (element 1)\n");
	cr_assert_str_eq(inspect(I, "b", 5, 80), "b[1, 0, 1] = 0 (batch 1, row 0, column 1)\n");
	cr_assert_str_eq(inspect(I, "n", 0, 80), "n = 3.2500\n");
	cr_assert_str_eq(inspect(I, "v", 2, 80), "v has no element 2 (it has 2)\n");
	done(I);
}

/* The number a cell's explanation ends on is the tensor's own value. */
Test(inspect, the_final_number_should_be_the_value_of_the_cell)
{
	struct interp *I = run(seed000);
	static const char *names[] = { "S_raw", "S", "W", "masked_S", "A", "R" };
	char line[512], want[64], num[32];
	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		const struct tensor *t = var(I, names[k]);
		for (int64_t i = 0; i < tensor_numel(t); i++) {
			const char *s = inspect(I, names[k], i, 80);
			snprintf(want, sizeof want, "= %s", fmt4(tensor_get(t, i), num, sizeof num));
			enum deriv_kind kind = t->from->kind;
			if (kind == DERIV_MATMUL) {	/* the last line */
				int n = 0;
				for (const char *p = s; *p; p++)
					n += *p == '\n';
				cr_assert_str_eq(line_of(s, n - 1, line, sizeof line), want, "%s", s);
			} else if (kind == DERIV_SCALE) {	/* the end of the first line */
				cr_assert(ends_with(line_of(s, 0, line, sizeof line), want), "%s: %s", want, s);
			} else if (kind == DERIV_SOFTMAX) {	/* the end of the second */
				cr_assert(ends_with(line_of(s, 1, line, sizeof line), want), "%s: %s", want, s);
			} else {	/* a mask: its value right after the cell */
				cr_assert(strstr(line_of(s, 0, line, sizeof line), want), "%s: %s", want, s);
			}
		}
	}
	done(I);
}

/* ---- sums, widths ------------------------------------------------------------------ */

Test(inspect, a_long_sum_should_keep_its_first_three_and_last_two_terms)
{
	struct interp *I = run("a = torch.arange(1., 9.); b = torch.ones(8); r = a @ b; "
			       "c = torch.arange(1., 7.); s = c @ torch.ones(6)");
	cr_assert_str_eq(inspect(I, "r", 0, 100),
			 "r = a · b\n"
			 "= 1.0000×1.0000 + 2.0000×1.0000 + 3.0000×1.0000 + … + 7.0000×1.0000 + 8.0000×1.0000\n"
			 "= 36.0000\n");
	/* six terms are shown whole */
	cr_assert_str_eq(inspect(I, "s", 0, 120),
			 "s = c · torch.ones(6)\n"
			 "= 1.0000×1.0000 + 2.0000×1.0000 + 3.0000×1.0000 + 4.0000×1.0000 + 5.0000×1.0000"
			 " + 6.0000×1.0000\n"
			 "= 21.0000\n");
	done(I);
	I = run("x = torch.arange(10.) / 4; w = torch.softmax(x, dim=0)");
	cr_assert_str_eq(inspect(I, "w", 9, 80),
			 "w[9] = exp(s₉ − max) / Σⱼ exp(sⱼ − max)\n"
			 "= exp(2.2500 − 2.2500) / (0.1054 + 0.1353 + 0.1738 + … + 0.7788 + 1.0000)\n"
			 "  = 0.2410\n");
	done(I);
}

Test(inspect, long_lines_should_wrap_before_an_operator_with_a_two_space_indent)
{
	struct interp *I = run(seed000);
	cr_assert_str_eq(inspect(I, "S", 5, 40),
			 "S[1, 2] = (Q[1]·K[2]) ÷ 2 = -4.2686 ÷ 2\n"
			 "  = -2.1343\n"
			 "Q[1]·K[2] = 1.6595×(-0.7106)\n"
			 "  + (-0.4445)×(-4.3429)\n"
			 "  + (-0.1917)×4.2984 + 1.7729×(-2.3664)\n");
	cr_assert_str_eq(inspect(I, "W", 3, 40),
			 "W[1, 0] = exp(s₁₀ − max₁)\n"
			 "  / Σⱼ exp(s₁ⱼ − max₁)\n"
			 "= exp(0.7593 − 0.7593)\n"
			 "  / (1.0000 + 0.0475 + 0.0554) = 0.9067\n");
	cr_assert_str_eq(inspect(I, "masked_S", 2, 40),
			 "masked_S[0, 2] = -inf: mask == 0 is True\n"
			 "  here (a future token)\n");
	done(I);
}

Test(inspect, every_line_should_fit_in_40_and_in_80_columns)
{
	struct interp *I = run(seed000);
	struct qkv_error err;
	static const char more[] =
		"import torch.nn.functional as F\n"
		"torch.manual_seed(1); q = torch.randn(2, 7, 16); k = torch.randn(2, 7, 16); v = torch.randn(2, 7, 16)\n"
		"O = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
		"P = (q @ k.transpose(-2, -1)) / 16 ** 0.5\n"
		"M = P.masked_fill(torch.triu(torch.ones(7, 7), diagonal=1).bool(), float('-inf'))\n"
		"Wt = torch.softmax(M, dim=-1)\n"
		"Y = Wt @ v\n";
	cr_assert_eq(interp_run(I, more, strlen(more), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	static const char *names[] = { "S_raw", "S", "W", "masked_S", "A", "R", "X", "O", "P", "M", "Wt", "Y" };
	for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
		const struct tensor *t = var(I, names[k]);
		for (int64_t i = 0; i < tensor_numel(t); i += 5) {
			assert_fits(inspect(I, names[k], i, 40), 40);
			assert_fits(inspect(I, names[k], i, 80), 80);
		}
	}
	done(I);
}

/* ---- the other derivations ----------------------------------------------------------- */

Test(inspect, a_fused_attention_cell_should_recompute_its_weights)
{
	struct interp *I = run("import torch.nn.functional as F\n"
			       "q = [1 0; 0 1; 1 1]; k = [1 0; 0 1; 1 1]; v = [1 2; 3 4; 5 6]\n"
			       "O = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n");
	const struct tensor *o = var(I, "O");
	char want[64], num[32];
	const char *s = inspect(I, "O", 3, 80);
	cr_assert_str_eq(s,
			 "O[1, 1] = Σⱼ w₁ⱼ·v[j, 1]\n"
			 "w₁ⱼ = softmax over j of q[1]·k[j] ÷ √2 (causal: j ≤ 1)\n"
			 "w₁ = [0.3302, 0.6698, 0]\n"
			 "= 0.3302×2.0000 + 0.6698×4.0000 + 0×6.0000\n"
			 "= 3.3395\n");
	snprintf(want, sizeof want, "= %s\n", fmt4(tensor_get(o, 3), num, sizeof num));
	cr_assert(ends_with(s, want));
	done(I);
}

Test(inspect, a_batched_product_should_broadcast_the_batch_as_matmul_does)
{
	struct interp *I = run("a = torch.arange(24.).view(2, 3, 4); b = torch.ones(4, 2); c = a @ b; "
			       "d = torch.ones(1, 4, 2) * 0.5; e = a @ d; x = torch.arange(4.); y = a @ x");
	cr_assert_str_eq(inspect(I, "c", 11, 80),
			 "c[1, 2, 1] = a[1, 2, :] · b[:, 1]\n"
			 "= 20.0000×1.0000 + 21.0000×1.0000 + 22.0000×1.0000 + 23.0000×1.0000\n"
			 "= 86.0000\n");
	cr_assert_str_eq(inspect(I, "e", 11, 80),
			 "e[1, 2, 1] = a[1, 2, :] · d[0, :, 1]\n"
			 "= 20.0000×0.5000 + 21.0000×0.5000 + 22.0000×0.5000 + 23.0000×0.5000\n"
			 "= 43.0000\n");
	cr_assert_str_eq(inspect(I, "y", 4, 80),
			 "y[1, 1] = a[1, 1, :] · x\n"
			 "= 16.0000×0 + 17.0000×1.0000 + 18.0000×2.0000 + 19.0000×3.0000\n"
			 "= 110.0000\n");
	done(I);
}

Test(inspect, a_scaling_of_anything_but_a_product_should_show_the_arithmetic)
{
	struct interp *I = run("x = [1 2; 3 4]; y = 0.5 * x; z = x / 4; n = -2 * x");
	cr_assert_str_eq(inspect(I, "y", 3, 80), "y[1, 1] = x[1, 1] × 0.5 = 4.0000 × 0.5 = 2.0000\n");
	cr_assert_str_eq(inspect(I, "z", 1, 80), "z[0, 1] = x[0, 1] ÷ 4 = 2.0000 ÷ 4 = 0.5000\n");
	cr_assert_str_eq(inspect(I, "n", 0, 80), "n[0, 0] = x[0, 0] × (-2) = 1.0000 × (-2) = -2.0000\n");
	done(I);
}

Test(inspect, a_cell_written_in_place_afterwards_should_get_a_note)
{
	struct interp *I = run("Q = [1 2; 3 4]; K = [1 0; 0 1]; S = Q @ K.T; S[0, 1] = 7");
	cr_assert_str_eq(inspect(I, "S", 1, 80),
			 "S[0, 1] = Q[0, :] · K.T[:, 1]\n"
			 "= 1.0000×0 + 2.0000×1.0000\n"
			 "= 7.0000\n"
			 "(changed in place since: these numbers no longer give S[0, 1])\n");
	cr_assert_str_eq(inspect(I, "S", 0, 80),
			 "S[0, 0] = Q[0, :] · K.T[:, 0]\n"
			 "= 1.0000×1.0000 + 2.0000×0\n"
			 "= 1.0000\n");
	done(I);
}

Test(inspect, a_fill_in_place_should_explain_the_scores_it_overwrote)
{
	struct interp *I = run("Q = [1 2; 3 4; 5 6]; K = [1 0; 0 1; 1 1]; S = Q @ K.T\n"
			       "m = torch.triu(torch.ones(3, 3), diagonal=1).bool()\n"
			       "_ = S.masked_fill_(m, -torch.inf)\n"
			       "v = torch.zeros(4); v[1:3].masked_fill_(torch.ones(2).bool(), 1.0)\n");
	cr_assert_str_eq(inspect(I, "S", 1, 80), "S[0, 1] = -inf: m is True here (a future token)\n");
	cr_assert_str_eq(inspect(I, "S", 3, 80),
			 "S[1, 0] = S[1, 0] = 3.0000 (not masked)\n"
			 "S[1, 0] = Q[1, :] · K.T[:, 0]\n"
			 "= 3.0000×1.0000 + 4.0000×0\n"
			 "= 3.0000\n");
	/* a view written in place gets nothing: views carry no derivation */
	cr_assert_null(var(I, "v")->from);
	done(I);
}

/* ---- derivations and labels ---------------------------------------------------------- */

Test(inspect, operands_should_be_labelled_as_the_code_wrote_them)
{
	struct interp *I = run(seed000);
	struct qkv_error err;
	static const char more[] =
		"S2 = Q @ K.T\n"
		"x = S2\n"
		"m = x.masked_fill(mask == 0, float('-inf'))\n"
		"W2 = torch.softmax(S, dim=1)\n"
		"lin = torch.nn.Linear(4, 2, bias=False); Y = lin(Q)\n"
		"Z = torch.nn.functional.linear(Q, lin.weight)\n"
		"H = 0.5 * (Q @ K.T)\n"
		/* round after round a loop's labels come from each expression's text,
		 * printed once: cut with "…" as ast_print cuts a long one, and
		 * parenthesised before a suffix (".T") when they need it */
		"for i in range(3):\n"
		"    Y2 = (Q + Q + Q + Q + Q + Q + Q + Q + Q + Q + Q + Q + Q + Q) @ K.T\n"
		"    Z2 = torch.nn.functional.linear(Q, lin.weight + 0)\n"
		"    W3 = torch.softmax(Y2 / 2, dim=-1)\n";
	cr_assert_eq(interp_run(I, more, strlen(more), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	const struct derivation *d = var(I, "S_raw")->from;
	cr_assert_str_eq(d->label_a, "Q");
	cr_assert_str_eq(d->label_b, "K.transpose(0, 1)");
	d = var(I, "S2")->from;
	cr_assert_str_eq(d->label_a, "Q");
	cr_assert_str_eq(d->label_b, "K.T");
	d = var(I, "m")->from;
	cr_assert_eq(d->kind, DERIV_MASKED_FILL);
	cr_assert_str_eq(d->label_a, "x");
	cr_assert_str_eq(d->label_b, "mask == 0");
	cr_assert_eq(d->scalar, -INFINITY);
	d = var(I, "W2")->from;
	cr_assert_eq(d->kind, DERIV_SOFTMAX);
	cr_assert_eq(d->dim, 1);
	cr_assert_str_eq(d->label_a, "S");
	cr_assert_str_eq(var(I, "Y")->from->label_b, "lin.weight.T");
	cr_assert_str_eq(var(I, "Z")->from->label_b, "lin.weight.T");
	d = var(I, "H")->from;
	cr_assert_eq(d->kind, DERIV_SCALE);
	cr_assert_str_eq(d->label_a, "Q @ K.T");
	cr_assert_eq(d->scalar, 0.5);
	cr_assert(!d->divide);
	d = var(I, "S")->from;
	cr_assert_eq(d->kind, DERIV_SCALE);
	cr_assert_str_eq(d->label_a, "S");
	cr_assert_eq(d->scalar, 2.0);
	cr_assert(d->divide);
	cr_assert_eq(d->inner->kind, DERIV_MATMUL);
	cr_assert_str_eq(var(I, "Y2")->from->label_a, "Q + Q + Q + Q + Q + Q + Q + Q + Q + Q + Q + …");
	cr_assert_str_eq(var(I, "Z2")->from->label_b, "(lin.weight + 0).T");
	d = var(I, "W3")->from;
	cr_assert_str_eq(d->label_a, "Y2 / 2");
	cr_assert_str_eq(d->inner->label_a, "Y2");
	done(I);
}

Test(inspect, views_should_carry_no_derivation_and_conversions_should_keep_it)
{
	struct interp *I = run(seed000);
	struct qkv_error err;
	static const char more[] = "T = S.T; row = S[0]; part = S[:, 1:]; D = S.double(); L = S.long(); C = S.clone()";
	cr_assert_eq(interp_run(I, more, strlen(more), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	cr_assert_null(var(I, "T")->from);
	cr_assert_null(var(I, "row")->from);
	cr_assert_null(var(I, "part")->from);
	cr_assert_eq(var(I, "D")->from, var(I, "S")->from);
	cr_assert_null(var(I, "L")->from);
	/* V = X and A @ V: the operands are views of their own, never the variables */
	const struct derivation *d = var(I, "R")->from;
	cr_assert_neq(d->a, var(I, "A"));
	cr_assert_null(d->a->from);
	cr_assert_eq(d->a->storage, var(I, "A")->storage);
	done(I);
}

Test(inspect, a_result_over_the_size_limit_should_carry_no_derivation)
{
	struct interp *I = run("a = torch.ones(257, 2); b = torch.ones(2, 256); big = a @ b; small = a[:3] @ b[:, :3]");
	cr_assert_gt(tensor_numel(var(I, "big")), DERIVATION_MAX_ELEMS);
	cr_assert_null(var(I, "big")->from);
	cr_assert_not_null(var(I, "small")->from);
	done(I);
}

/* x = x * 2 two thousand times must not keep two thousand tensors alive. */
Test(inspect, a_long_chain_of_scalings_should_keep_at_most_two_levels)
{
	struct strbuf src;
	strbuf_init(&src);
	strbuf_puts(&src, "x = torch.ones(4, 4)\n");
	for (int i = 0; i < 2000; i++)
		strbuf_puts(&src, "x = x * 2\n");
	struct interp *I = run(src.s);
	const struct tensor *x = var(I, "x");
	int depth = 0;
	const struct storage *seen[8];
	int nseen = 0;
	for (const struct derivation *d = x->from; d; d = d->inner) {
		depth++;
		cr_assert_leq(depth, 2);
		const struct tensor *ops[3] = { d->a, d->b, d->c };
		for (int k = 0; k < 3; k++) {
			if (!ops[k])
				continue;
			cr_assert_null(ops[k]->from, "an operand carries a derivation of its own");
			bool known = false;
			for (int s = 0; s < nseen; s++)
				known |= seen[s] == ops[k]->storage;
			if (!known)
				seen[nseen++] = ops[k]->storage;
		}
	}
	cr_assert_eq(depth, 2);
	cr_assert_leq(nseen, 2, "%d storages kept alive", nseen);
	cr_assert_str_eq(inspect(I, "x", 0, 80), "x[0, 0] = x[0, 0] × 2 = inf × 2 = inf\n");
	strbuf_free(&src);
	done(I);
}

/* ---- the source printer ----------------------------------------------------------------- */

static const char *printed(const char *expr)
{
	static char buf[48];
	struct parser *p = parser_new(expr, strlen(expr), 1);
	struct node *n = NULL;
	struct qkv_error err;
	cr_assert_eq(parser_next(p, &n, &err), PARSE_OK, "%s", expr);
	cr_assert_eq(n->kind, N_EXPR);
	ast_print(n->kids[0], buf, sizeof buf);
	node_free(n);
	parser_free(p);
	return buf;
}

Test(inspect, the_source_printer_should_use_the_fewest_parentheses)
{
	cr_assert_str_eq(printed("S / (4 ** 0.5)"), "S / 4 ** 0.5");
	cr_assert_str_eq(printed("(a + b) * c"), "(a + b) * c");
	cr_assert_str_eq(printed("a + (b * c)"), "a + b * c");
	cr_assert_str_eq(printed("a - (b - c)"), "a - (b - c)");
	cr_assert_str_eq(printed("(a - b) - c"), "a - b - c");
	cr_assert_str_eq(printed("-(x ** 2)"), "-x ** 2");
	cr_assert_str_eq(printed("(-x) ** 2"), "(-x) ** 2");
	cr_assert_str_eq(printed("2 ** -1"), "2 ** -1");
	cr_assert_str_eq(printed("(2 ** 3) ** 2"), "(2 ** 3) ** 2");
	cr_assert_str_eq(printed("not (a == b)"), "not a == b");
	cr_assert_str_eq(printed("(a == b) == c"), "(a == b) == c");
	cr_assert_str_eq(printed("(Q @ K.T).softmax(dim=-1)"), "(Q @ K.T).softmax(dim=-1)");
	cr_assert_str_eq(printed("x.masked_fill(mask == 0, float('-inf'))"), "x.masked_fill(mask == 0, float('-inf'))");
	cr_assert_str_eq(printed("X[:, 1:3]"), "X[:, 1:3]");
	cr_assert_str_eq(printed("X[::2, None, -1]"), "X[::2, None, -1]");
	cr_assert_str_eq(printed("[1 2; 3 4]"), "[1 2; 3 4]");
	cr_assert_str_eq(printed("(1, [2.5, True], \"it's\")"), "(1, [2.5, True], \"it's\")");
	cr_assert_str_eq(printed("f(a)[0].T"), "f(a)[0].T");
}

Test(inspect, the_source_printer_should_cut_long_text_at_47_bytes)
{
	const char *s = printed("torch.matmul(queries_of_the_first_head, keys_of_the_first_head.transpose(0, 1))");
	cr_assert_eq(strlen(s), 47);
	cr_assert_str_eq(s, "torch.matmul(queries_of_the_first_head, keys…");
	s = printed("'ééééééééééééééééééééééééé'");	/* never half a character */
	cr_assert_leq(strlen(s), 47);
	cr_assert(ends_with(s, "é…"), "%s", s);
}
