/* inspect.c: the cell inspector (see inspect.h): the arithmetic behind one
 * cell of a tensor, from the derivation the op that made it left behind.
 * Called by the ui and by tests; reads tensors and recomputes in double, but
 * never writes a tensor, never draws, and never prints a line wider than asked
 * (in terminal columns, as core/utf8 counts them). */
#include "view/inspect.h"
#include "core/mem.h"
#include "core/utf8.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sums of more terms than this show the first 3 and the last 2. */
#define FULL_TERMS 6
#define HEAD_TERMS 3
#define TAIL_TERMS 2

struct insp {
	struct strbuf *out;
	int width;            /* columns; <= 0: no wrapping */
	int lines;
	struct strbuf line;   /* the line being built */
};

/* ---- lines and wrapping -------------------------------------------------------- */

/* Byte length of the longest prefix of s (n bytes, n > 0) that fits in cols
 * columns, at least one character. */
static size_t fit_bytes(const char *s, size_t n, int cols)
{
	size_t take = utf8_cut_n(s, n, cols, NULL);
	if (take == 0 && n > 0) {
		uint32_t cp;
		take = (size_t)utf8_decode(s, n, &cp);
	}
	return take;
}

/* The operators a long line may break before, best first. */
static int op_rank(const char *s, size_t n, size_t i)
{
	static const char *ops[] = { "=", "+", "/", "÷", "×", "·", "−" };
	for (int r = 0; r < (int)(sizeof ops / sizeof *ops); r++) {
		size_t k = strlen(ops[r]);
		if (i + 1 + k < n && memcmp(s + i + 1, ops[r], k) == 0 && s[i + 1 + k] == ' ')
			return r == 0 ? 0 : r == 1 ? 1 : 2;
	}
	return -1;
}

/* Where to break s (n bytes, wider than cols): the byte offset of a space such
 * that s[0, offset) fits, so the next line starts with an operator ("+ ...",
 * "= ...") outside parentheses when one keeps at least half the line, then a
 * " + " inside them, then any space outside parentheses, then any space (prose
 * breaks at the last space that fits); 0 when the first word is too wide. */
static size_t break_at(const char *s, size_t n, int cols, bool prose)
{
	size_t fit = fit_bytes(s, n, cols + 1), best[6] = { 0 };
	int depth = 0;
	for (size_t i = 0; i < fit && i < n; i++) {
		depth += (s[i] == '(' || s[i] == '[') - (s[i] == ')' || s[i] == ']');
		if (i == 0 || s[i] != ' ' || s[i - 1] == ' ')
			continue;
		if (prose && (s[i - 1] == '=' || (i + 1 < n && s[i + 1] == '=')))
			continue;	/* keep "exp(-inf) = 0" on one line */
		int r = prose ? -1 : op_rank(s, n, i);
		int kind = depth == 0 && r >= 0 ? r : r == 1 ? 3 : depth == 0 ? 4 : 5;
		best[kind] = i;
	}
	for (int k = 0; k < 4; k++)
		if (best[k] && utf8_width_n(s, best[k]) * 2 >= cols)
			return best[k];
	size_t last = 0;
	for (int k = 0; k < 6; k++)
		if (best[k] > last)
			last = best[k];
	return last;
}

/* Writes the built line to out, wrapped to the width: continuation lines are
 * indented by two spaces. A formula breaks before an operator, prose at the
 * last space that fits. */
static void wrap_line(struct insp *x, bool prose)
{
	const char *s = x->line.s;
	size_t n = x->line.len;
	bool first = true;
	int indent = x->width >= 12 ? 2 : 0;
	while (first || n > 0) {
		int avail = x->width - (first ? 0 : indent);
		size_t take = n;
		if (x->width > 0 && utf8_width_n(s, n) > avail) {
			take = break_at(s, n, avail, prose);
			if (take == 0)
				take = fit_bytes(s, n, avail);
		}
		if (!first)
			strbuf_pad(x->out, ' ', (size_t)indent);
		strbuf_putn(x->out, s, take);
		strbuf_putc(x->out, '\n');
		x->lines++;
		s += take;
		n -= take;
		while (n > 0 && *s == ' ') {
			s++;
			n--;
		}
		first = false;
	}
	strbuf_reset(&x->line);
}

static void end_line(struct insp *x)
{
	wrap_line(x, false);
}

static void end_note(struct insp *x)
{
	wrap_line(x, true);
}

/* ---- numbers ------------------------------------------------------------------- */

/* 4 decimals, or %.3e for tiny and huge magnitudes; 0 as "0"; ASCII minus so
 * a student can copy the number. */
static void num(struct strbuf *b, double v)
{
	double a = fabs(v);
	if (isnan(v))
		strbuf_puts(b, "nan");
	else if (isinf(v))
		strbuf_puts(b, v < 0 ? "-inf" : "inf");
	else if (v == 0)
		strbuf_putc(b, '0');
	else if (a < 1e-3 || a >= 1e5)
		strbuf_printf(b, "%.3e", v);
	else
		strbuf_printf(b, "%.4f", v);
}

static bool integral(const struct tensor *t)
{
	return t && (t->dtype == DT_I64 || t->dtype == DT_BOOL);
}

/* an element of t (NULL: a computed number): integers as integers */
static void val(struct strbuf *b, const struct tensor *t, double v)
{
	if (integral(t) && isfinite(v))
		strbuf_printf(b, "%.0f", v);
	else
		num(b, v);
}

/* a factor in a product: negative numbers in parentheses */
static void factor(struct strbuf *b, const struct tensor *t, double v)
{
	bool paren = v < 0;
	if (paren)
		strbuf_putc(b, '(');
	val(b, t, v);
	if (paren)
		strbuf_putc(b, ')');
}

/* a scaling factor as short as it is exact (2, 0.5, 0.125; else as num),
 * in parentheses when negative: it always follows an operator */
static void scalar(struct strbuf *b, double v)
{
	double scaled = v * 1e4;
	if (!isfinite(v) || fabs(v) >= 1e15 || fabs(v) < 1e-3 || scaled != nearbyint(scaled)) {
		factor(b, NULL, v);
		return;
	}
	char buf[48];
	snprintf(buf, sizeof buf, "%.4f", v);
	char *end = buf + strlen(buf);
	while (end[-1] == '0')
		*--end = '\0';
	if (end[-1] == '.')
		end[-1] = '\0';
	strbuf_printf(b, v < 0 ? "(%s)" : "%s", buf);
}

/* whether recomputed r still agrees with the stored v (in-place writes since
 * the op ran make them differ) */
static bool agrees(double r, double v)
{
	if (isnan(r) || isnan(v))
		return isnan(r) && isnan(v);
	if (isinf(r) || isinf(v))
		return r == v;
	return fabs(r - v) <= 1e-4 + 1e-3 * fabs(v);
}

/* ---- indices ------------------------------------------------------------------- */

static void unravel(int64_t flat, const int64_t *shape, int nd, int64_t *idx)
{
	for (int d = nd - 1; d >= 0; d--) {
		idx[d] = shape[d] > 0 ? flat % shape[d] : 0;
		flat = shape[d] > 0 ? flat / shape[d] : 0;
	}
}

/* t's element at idx (t->ndim indices) */
static double at(const struct tensor *t, const int64_t *idx)
{
	int64_t flat = 0;
	for (int d = 0; d < t->ndim; d++)
		flat = flat * t->shape[d] + idx[d];
	return tensor_get(t, flat);
}

/* t broadcast to nd dims (aligned on the right), its element at idx */
static double at_bcast(const struct tensor *t, const int64_t *idx, int nd)
{
	int64_t own[TENSOR_MAX_DIMS] = { 0 };
	int off = nd - t->ndim;
	for (int d = 0; d < t->ndim; d++)
		own[d] = t->shape[d] == 1 || d + off < 0 ? 0 : idx[d + off];
	return at(t, own);
}

/* t's own index for the broadcast index idx of nd dims */
static void own_index(const struct tensor *t, const int64_t *idx, int nd, int64_t *own)
{
	int off = nd - t->ndim;
	for (int d = 0; d < t->ndim; d++)
		own[d] = t->shape[d] == 1 || d + off < 0 ? 0 : idx[d + off];
}

/* "S[1, 2]"; a 0-d tensor is just its name */
static void cell(struct strbuf *b, const char *name, const int64_t *idx, int nd)
{
	strbuf_puts(b, name);
	if (nd == 0)
		return;
	strbuf_putc(b, '[');
	for (int d = 0; d < nd; d++)
		strbuf_printf(b, "%s%lld", d ? ", " : "", (long long)idx[d]);
	strbuf_putc(b, ']');
}

static void subscript(struct strbuf *b, int64_t v)
{
	static const char *digits[] = { "₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉" };
	char buf[24];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	for (const char *p = buf; *p; p++)
		strbuf_puts(b, *p == '-' ? "₋" : digits[*p - '0']);
}

/* An operand's name as the code wrote it, in parentheses when it is an
 * operation ("(Q @ K.T)") so that an index after it reads right. */
static void operand(struct strbuf *b, const char *label, const char *fallback)
{
	const char *s = label && label[0] ? label : fallback;
	int depth = 0;
	bool spaced = false;
	for (const char *p = s; *p; p++) {
		depth += (*p == '(' || *p == '[') - (*p == ')' || *p == ']');
		spaced |= *p == ' ' && depth == 0;
	}
	strbuf_printf(b, spaced ? "(%s)" : "%s", s);
}

/* When label reads as X with its last two dims swapped (X.T and X.t() for a
 * matrix, X.mT, X.transpose(i, j)), the byte length of X; else 0. */
static size_t transposed_base(const char *label, int ndim)
{
	size_t n = strlen(label);
	static const char *two_d[] = { ".T", ".t()" };
	for (int i = 0; i < 2; i++) {
		size_t k = strlen(two_d[i]);
		if (ndim == 2 && n > k && strcmp(label + n - k, two_d[i]) == 0)
			return n - k;
	}
	if (n > 3 && strcmp(label + n - 3, ".mT") == 0)
		return n - 3;
	const char *t = strstr(label, ".transpose(");
	for (const char *next; t && (next = strstr(t + 1, ".transpose(")); )
		t = next;
	int d0, d1, used = 0;
	if (!t || sscanf(t, ".transpose(%d ,%d)%n", &d0, &d1, &used) != 2 || used == 0 || t[used] != '\0')
		return 0;	/* used stays 0 unless the ')' matched */
	d0 = d0 < 0 ? d0 + ndim : d0;
	d1 = d1 < 0 ? d1 + ndim : d1;
	bool last_two = (d0 == ndim - 2 && d1 == ndim - 1) || (d0 == ndim - 1 && d1 == ndim - 2);
	return last_two && t > label ? (size_t)(t - label) : 0;
}

/* A note when the cell's numbers no longer follow from its operands: one of
 * them (or the cell) was written in place after the op ran. */
static void stale_note(struct insp *x, const char *name, const int64_t *idx, int nd)
{
	strbuf_puts(&x->line, "(changed in place since: these numbers no longer give ");
	cell(&x->line, name, idx, nd);
	strbuf_putc(&x->line, ')');
	end_note(x);
}

/* ---- matrix products ------------------------------------------------------------- */

/* One cell of a @ b: which row of a and which column of b it takes. */
struct prod {
	const struct tensor *a, *b;
	const char *la, *lb;            /* labels ("" when unknown) */
	int64_t ia[TENSOR_MAX_DIMS], ib[TENSOR_MAX_DIMS];
	int pa, pb;                     /* the dim of a / b that runs over the inner index */
	int64_t k;                      /* terms */
};

/* Sets P up for the cell idx (ond indices) of a @ b, batch dims broadcast as
 * torch.matmul does. */
static void prod_init(struct prod *P, const struct tensor *a, const struct tensor *b, const char *la,
		      const char *lb, const int64_t *idx, int ond)
{
	memset(P, 0, sizeof *P);
	P->a = a;
	P->b = b;
	P->la = la;
	P->lb = lb;
	int ka = a->ndim, kb = b->ndim;
	int nbat = ond - (ka > 1) - (kb > 1);
	if (nbat < 0)
		nbat = 0;
	int64_t i = ka > 1 ? idx[nbat] : 0, j = kb > 1 ? idx[nbat + (ka > 1)] : 0;
	if (ka == 1) {
		P->pa = 0;
	} else {
		for (int d = 0; d < ka - 2; d++)
			P->ia[d] = a->shape[d] == 1 ? 0 : idx[d + nbat - (ka - 2)];
		P->ia[ka - 2] = i;
		P->pa = ka - 1;
	}
	if (kb == 1) {
		P->pb = 0;
	} else {
		for (int d = 0; d < kb - 2; d++)
			P->ib[d] = b->shape[d] == 1 ? 0 : idx[d + nbat - (kb - 2)];
		P->ib[kb - 1] = j;
		P->pb = kb - 2;
	}
	P->k = a->shape[ka - 1];
}

static double prod_a(struct prod *P, int64_t p)
{
	P->ia[P->pa] = p;
	return at(P->a, P->ia);
}

static double prod_b(struct prod *P, int64_t p)
{
	P->ib[P->pb] = p;
	return at(P->b, P->ib);
}

static double prod_sum(struct prod *P)
{
	double s = 0;
	for (int64_t p = 0; p < P->k; p++)
		s += prod_a(P, p) * prod_b(P, p);
	return s;
}

/* The first nd indices of idx, with the dim `open` written as `what` (":",
 * "j") or left out when what is NULL: "[1, :]", "[0, j]", "[1]" */
static void index_text(struct strbuf *b, int nd, const int64_t *idx, int open, const char *what)
{
	bool any = false;
	for (int d = 0; d < nd; d++)
		any |= d != open || what;
	if (!any)
		return;
	strbuf_putc(b, '[');
	bool sep = false;
	for (int d = 0; d < nd; d++) {
		if (d == open && !what)
			continue;
		strbuf_puts(b, sep ? ", " : "");
		if (d == open)
			strbuf_puts(b, what);
		else
			strbuf_printf(b, "%lld", (long long)idx[d]);
		sep = true;
	}
	strbuf_putc(b, ']');
}

/* "Q[1, :] · K.T[:, 2]": the row and the column, as sliced in the code */
static void prod_slices(struct strbuf *b, struct prod *P)
{
	operand(b, P->la, "A");
	if (P->a->ndim > 1)
		index_text(b, P->a->ndim, P->ia, P->pa, ":");
	strbuf_puts(b, " · ");
	operand(b, P->lb, "B");
	if (P->b->ndim > 1)
		index_text(b, P->b->ndim, P->ib, P->pb, ":");
}

/* "Q[1]·K[2]": a row of a against a row of X when b is X transposed */
static void prod_rows(struct strbuf *b, struct prod *P)
{
	operand(b, P->la, "A");
	if (P->a->ndim > 1)
		index_text(b, P->a->ndim, P->ia, P->pa, NULL);
	strbuf_puts(b, "·");
	size_t base = P->lb[0] && P->b->ndim > 1 ? transposed_base(P->lb, P->b->ndim) : 0;
	if (base) {
		char x[64];
		snprintf(x, sizeof x, "%.*s", (int)base, P->lb);
		operand(b, x, "B");
		index_text(b, P->b->ndim, P->ib, P->pb, NULL);
	} else {
		operand(b, P->lb, "B");
		if (P->b->ndim > 1)
			index_text(b, P->b->ndim, P->ib, P->pb, ":");
	}
}

/* "Σⱼ W[0, j]·V[j, 1]": a weighted sum of rows of b */
static void prod_sigma(struct strbuf *b, struct prod *P)
{
	strbuf_puts(b, "Σⱼ ");
	operand(b, P->la, "A");
	index_text(b, P->a->ndim, P->ia, P->pa, "j");
	strbuf_puts(b, "·");
	operand(b, P->lb, "B");
	index_text(b, P->b->ndim, P->ib, P->pb, "j");
}

/* Appends n terms, eliding the middle of a long sum with " + … + ". */
static void terms(struct strbuf *b, int64_t n, void (*term)(struct strbuf *, void *, int64_t), void *ctx)
{
	for (int64_t p = 0; p < n; p++) {
		if (n > FULL_TERMS && p == HEAD_TERMS) {
			strbuf_puts(b, " + …");
			p = n - TAIL_TERMS;
		}
		if (p > 0)
			strbuf_puts(b, " + ");
		term(b, ctx, p);
	}
}

static void prod_term(struct strbuf *b, void *ctx, int64_t p)
{
	struct prod *P = ctx;
	factor(b, P->a, prod_a(P, p));
	strbuf_puts(b, "×");
	factor(b, P->b, prod_b(P, p));
}

static void prod_terms(struct strbuf *b, struct prod *P)
{
	if (P->k == 0)
		strbuf_puts(b, "0 (an empty sum: the inner dimension is 0)");
	else
		terms(b, P->k, prod_term, P);
}

/* ---- one explanation per kind --------------------------------------------------------- */

static void explain(struct insp *x, const struct tensor *t, const struct derivation *d, const char *name,
		    const int64_t *idx);

static void explain_plain(struct insp *x, const struct tensor *t, const char *name, const int64_t *idx)
{
	cell(&x->line, name, idx, t->ndim);
	strbuf_puts(&x->line, " = ");
	val(&x->line, t, at(t, idx));
	int nd = t->ndim;
	if (nd == 1) {
		strbuf_printf(&x->line, " (element %lld)", (long long)idx[0]);
	} else if (nd >= 2) {
		static const char *lead[] = { "batch", "head" };
		strbuf_puts(&x->line, " (");
		for (int d = 0; d < nd - 2; d++)
			strbuf_printf(&x->line, "%s %lld, ", nd - 2 == 1 ? "batch" : lead[d], (long long)idx[d]);
		strbuf_printf(&x->line, "row %lld, column %lld)", (long long)idx[nd - 2], (long long)idx[nd - 1]);
	}
	end_line(x);
}

static void explain_matmul(struct insp *x, const struct tensor *t, const struct derivation *d, const char *name,
			   const int64_t *idx)
{
	struct prod P;
	prod_init(&P, d->a, d->b, d->label_a, d->label_b, idx, t->ndim);
	bool weights = d->inner && d->inner->kind == DERIV_SOFTMAX && d->a->ndim > 1;
	cell(&x->line, name, idx, t->ndim);
	strbuf_puts(&x->line, " = ");
	if (weights)
		prod_sigma(&x->line, &P);
	else
		prod_slices(&x->line, &P);
	end_line(x);
	strbuf_puts(&x->line, "= ");
	prod_terms(&x->line, &P);
	end_line(x);
	double v = at(t, idx);
	strbuf_puts(&x->line, "= ");
	val(&x->line, t, v);
	end_line(x);
	int64_t nan_a = 0;
	for (int64_t p = 0; p < P.k; p++)
		nan_a += isnan(prod_a(&P, p)) != 0;
	if (isnan(v) && weights && P.k > 0 && nan_a == P.k) {
		strbuf_puts(&x->line, "the weights of this row are nan: every score of its softmax row is -inf (a "
			    "fully masked row), exp gives 0 for each and 0/0 is nan, so this output is nan, as in torch");
		end_note(x);
	} else if (isnan(v) && nan_a + (P.k > 0) > 0) {
		strbuf_puts(&x->line, "a nan among the terms makes the whole sum nan");
		end_note(x);
	}
	if (!agrees(prod_sum(&P), v))
		stale_note(x, name, idx, t->ndim);
}

/* the factors of the product a scaling scales, when it scales one */
static bool scaled_product(const struct derivation *d, const struct tensor **pa, const struct tensor **pb,
			   const char **la, const char **lb)
{
	if (d->inner && d->inner->kind == DERIV_MATMUL && d->inner->a && d->inner->b) {
		*pa = d->inner->a;
		*pb = d->inner->b;
		*la = d->inner->label_a;
		*lb = d->inner->label_b;
		return true;
	}
	if (d->b && d->c) {	/* kept by ops_binary for when the inner level is gone */
		*pa = d->b;
		*pb = d->c;
		*la = d->label_b;
		*lb = d->label_c;
		return true;
	}
	return false;
}

static void explain_scale(struct insp *x, const struct tensor *t, const struct derivation *d, const char *name,
			  const int64_t *idx)
{
	const char *op = d->divide ? " ÷ " : " × ";
	const struct tensor *pa, *pb;
	const char *la, *lb;
	int64_t own[TENSOR_MAX_DIMS];
	own_index(d->a, idx, t->ndim, own);
	double in = at(d->a, own), v = at(t, idx);
	bool product = scaled_product(d, &pa, &pb, &la, &lb);
	struct prod P;
	if (product)
		prod_init(&P, pa, pb, la, lb, own, d->a->ndim);
	cell(&x->line, name, idx, t->ndim);
	strbuf_puts(&x->line, " = ");
	if (product) {
		strbuf_putc(&x->line, '(');
		prod_rows(&x->line, &P);
		strbuf_putc(&x->line, ')');
	} else {
		operand(&x->line, d->label_a, "x");
		index_text(&x->line, d->a->ndim, own, -1, NULL);
	}
	strbuf_puts(&x->line, op);
	scalar(&x->line, d->scalar);
	strbuf_puts(&x->line, " = ");
	val(&x->line, d->a, in);
	strbuf_puts(&x->line, op);
	scalar(&x->line, d->scalar);
	strbuf_puts(&x->line, " = ");
	val(&x->line, t, v);
	end_line(x);
	if (product) {
		prod_rows(&x->line, &P);
		strbuf_puts(&x->line, " = ");
		prod_terms(&x->line, &P);
		end_line(x);
	}
	double r = d->divide ? in / d->scalar : in * d->scalar;
	if (!agrees(r, v) || (product && !agrees(prod_sum(&P), in)))
		stale_note(x, name, idx, t->ndim);
}

/* whether the mask's matrix at this cell's batch is exactly "column after
 * row": the causal mask, so a masked cell is a future token */
static bool causal_mask(const struct tensor *mask, const int64_t *idx, int nd)
{
	if (nd < 2)
		return false;
	int64_t rows = 1, cols = 1;
	if (mask->ndim >= 2) {
		rows = mask->shape[mask->ndim - 2];
		cols = mask->shape[mask->ndim - 1];
	}
	if (rows < 2 || cols < 2)
		return false;
	int64_t at_idx[TENSOR_MAX_DIMS];
	memcpy(at_idx, idx, sizeof at_idx);
	for (int64_t r = 0; r < rows; r++) {
		for (int64_t c = 0; c < cols; c++) {
			at_idx[nd - 2] = r;
			at_idx[nd - 1] = c;
			if ((at_bcast(mask, at_idx, nd) != 0) != (c > r))
				return false;
		}
	}
	return true;
}

static void explain_masked(struct insp *x, const struct tensor *t, const struct derivation *d, const char *name,
			   const int64_t *idx)
{
	int nd = t->ndim;
	bool masked = d->b && at_bcast(d->b, idx, nd) != 0;
	double v = at(t, idx);
	cell(&x->line, name, idx, nd);
	strbuf_puts(&x->line, " = ");
	if (masked) {
		val(&x->line, t, d->scalar);
		strbuf_puts(&x->line, ": ");
		if (d->label_b[0])
			strbuf_printf(&x->line, "%s is True here", d->label_b);
		else
			strbuf_puts(&x->line, "the mask is True here");
		if (isinf(d->scalar) && d->scalar < 0 && causal_mask(d->b, idx, nd))
			strbuf_puts(&x->line, " (a future token)");
		end_note(x);
		double fill = integral(t) ? trunc(d->scalar) : t->dtype == DT_F32 ? (double)(float)d->scalar : d->scalar;
		if (!agrees(fill, v))
			stale_note(x, name, idx, nd);
		return;
	}
	int64_t own[TENSOR_MAX_DIMS];
	own_index(d->a, idx, nd, own);
	char in_name[64];
	struct strbuf nb;
	strbuf_init(&nb);
	operand(&nb, d->label_a, "x");
	snprintf(in_name, sizeof in_name, "%s", nb.s);
	strbuf_free(&nb);
	cell(&x->line, in_name, own, d->a->ndim);
	strbuf_puts(&x->line, " = ");
	val(&x->line, t, v);
	strbuf_puts(&x->line, " (not masked)");
	end_line(x);
	if (!agrees(at(d->a, own), v))
		stale_note(x, name, idx, nd);
	if (d->inner && (d->inner->kind == DERIV_SCALE || d->inner->kind == DERIV_MATMUL))
		explain(x, d->a, d->inner, in_name, own);
}

/* the formula of a softmax cell: compact subscripts for a small matrix or
 * vector, the operand's own indexing otherwise */
static void softmax_formula(struct strbuf *b, const struct derivation *d, const int64_t *idx, int nd, int dim)
{
	bool compact = nd <= 2;
	for (int i = 0; i < nd; i++)
		compact &= idx[i] < 10;
	const char *sum = nd == 2 && dim == 0 ? "ᵢ" : "ⱼ";
	if (compact && nd == 2) {
		int64_t fixed = idx[1 - dim];
		strbuf_puts(b, "exp(s");
		subscript(b, idx[0]);
		subscript(b, idx[1]);
		strbuf_puts(b, " − max");
		subscript(b, fixed);
		strbuf_printf(b, ") / Σ%s exp(s", sum);
		if (dim == 1) {
			subscript(b, fixed);
			strbuf_puts(b, sum);
		} else {
			strbuf_puts(b, sum);
			subscript(b, fixed);
		}
		strbuf_puts(b, " − max");
		subscript(b, fixed);
		strbuf_putc(b, ')');
	} else if (compact && nd == 1) {
		strbuf_puts(b, "exp(s");
		subscript(b, idx[0]);
		strbuf_puts(b, " − max) / Σⱼ exp(sⱼ − max)");
	} else {
		strbuf_puts(b, "exp(");
		operand(b, d->label_a, "x");
		index_text(b, nd, idx, -1, NULL);
		strbuf_puts(b, " − max) / Σⱼ exp(");
		operand(b, d->label_a, "x");
		index_text(b, nd, idx, dim, "j");
		strbuf_puts(b, " − max)");
	}
}

struct softmax_row {
	const struct tensor *a;
	int64_t idx[TENSOR_MAX_DIMS];
	int dim;
	double max;
};

static double row_at(struct softmax_row *R, int64_t p)
{
	R->idx[R->dim] = p;
	return at(R->a, R->idx);
}

static void softmax_term(struct strbuf *b, void *ctx, int64_t p)
{
	struct softmax_row *R = ctx;
	double s = row_at(R, p);
	if (isinf(s) && s < 0)
		strbuf_putc(b, '0');
	else
		num(b, exp(s - R->max));
}

/* "a − b" with b in parentheses when negative */
static void minus(struct strbuf *b, const struct tensor *t, double x, double y)
{
	val(b, t, x);
	strbuf_puts(b, " − ");
	factor(b, t, y);
}

static void explain_softmax(struct insp *x, const struct tensor *t, const struct derivation *d, const char *name,
			    const int64_t *idx)
{
	int nd = t->ndim, dim = d->dim;
	double v = at(t, idx);
	cell(&x->line, name, idx, nd);
	strbuf_puts(&x->line, " = ");
	if (nd == 0 || dim < 0 || dim >= nd || !tensor_same_shape(d->a, t)) {
		val(&x->line, t, v);
		strbuf_puts(&x->line, " (the softmax of a single number is 1)");
		end_line(x);
		return;
	}
	softmax_formula(&x->line, d, idx, nd, dim);
	end_line(x);
	struct softmax_row R = { .a = d->a, .dim = dim, .max = -INFINITY };
	memcpy(R.idx, idx, sizeof R.idx);
	int64_t n = t->shape[dim], masked = 0;
	double sum = 0, self = at(d->a, idx);
	for (int64_t p = 0; p < n; p++) {
		double s = row_at(&R, p);
		if (s > R.max || isnan(s))
			R.max = s;
		masked += isinf(s) && s < 0;
	}
	if (isinf(R.max) && R.max < 0) {
		strbuf_puts(&x->line, "= 0 / 0 = nan");
		end_line(x);
		strbuf_puts(&x->line, "every score in this row is -inf (a fully masked row): exp gives 0 for each, "
			    "so the sum is 0 and 0/0 is nan (not a number), as in torch");
		end_note(x);
		return;
	}
	for (int64_t p = 0; p < n; p++)
		sum += exp(row_at(&R, p) - R.max);
	strbuf_puts(&x->line, "= exp(");
	minus(&x->line, d->a, self, R.max);
	strbuf_puts(&x->line, ") / (");
	terms(&x->line, n, softmax_term, &R);
	strbuf_puts(&x->line, ") = ");
	val(&x->line, t, v);
	end_line(x);
	if (isnan(v) && (isnan(R.max) || isinf(R.max))) {
		strbuf_puts(&x->line, isnan(R.max) ? "a nan in this row makes every weight of the row nan"
						   : "a +inf in this row makes every weight nan: inf - inf is nan");
		end_note(x);
	} else if (isinf(self) && self < 0) {
		strbuf_puts(&x->line, "this entry is -inf (masked): exp(-inf) = 0, so its weight is 0");
		end_note(x);
	} else if (masked > 0) {
		if (masked == 1)
			strbuf_puts(&x->line, "the masked entry (-inf) adds exp(-inf) = 0 to the sum");
		else
			strbuf_printf(&x->line, "the %lld masked entries (-inf) add exp(-inf) = 0 to the sum",
				      (long long)masked);
		end_note(x);
	}
	if (!agrees(exp(self - R.max) / sum, v))
		stale_note(x, name, idx, nd);
}

/* One output cell of the fused attention, its weights recomputed. */
struct attn {
	const struct tensor *q, *k, *v, *mask;
	int64_t qi[TENSOR_MAX_DIMS], ki[TENSOR_MAX_DIMS], vi[TENSOR_MAX_DIMS], mi[TENSOR_MAX_DIMS];
	int nd;
	int64_t i, tk;
	double *w;      /* tk weights */
};

static double attn_v(struct attn *A, int64_t j)
{
	A->vi[A->nd - 2] = j;
	return at(A->v, A->vi);
}

static void attn_term(struct strbuf *b, void *ctx, int64_t j)
{
	struct attn *A = ctx;
	num(b, A->w[j]);
	strbuf_puts(b, "×");
	factor(b, A->v, attn_v(A, j));
}

static void weight_item(struct strbuf *b, void *ctx, int64_t j)
{
	struct attn *A = ctx;
	num(b, A->w[j]);
}

/* the recomputed weights of row i: scores, scale, mask, softmax */
static void attn_weights(struct attn *A, const struct derivation *d)
{
	int nd = A->nd;
	int64_t dk = A->q->shape[nd - 1];
	double max = -INFINITY;
	for (int64_t j = 0; j < A->tk; j++) {
		A->mi[nd - 1] = j;
		bool hidden = (d->causal && j > A->i) || (A->mask && at_bcast(A->mask, A->mi, nd) != 0);
		double s = 0;
		for (int64_t c = 0; c < dk && !hidden; c++) {
			A->qi[nd - 1] = c;
			A->ki[nd - 2] = j;
			A->ki[nd - 1] = c;
			s += at(A->q, A->qi) * at(A->k, A->ki);
		}
		A->w[j] = hidden ? -INFINITY : s * d->scalar;
		if (A->w[j] > max)
			max = A->w[j];
	}
	double sum = 0;
	for (int64_t j = 0; j < A->tk; j++) {
		/* every key hidden: 0/0, nan as torch gives */
		A->w[j] = isinf(max) && max < 0 ? NAN : exp(A->w[j] - max);
		sum += A->w[j];
	}
	for (int64_t j = 0; j < A->tk && sum > 0; j++)
		A->w[j] /= sum;
}

static void explain_attention(struct insp *x, const struct tensor *t, const struct derivation *d,
			      const char *name, const int64_t *idx)
{
	int nd = t->ndim;
	if (nd < 2 || !d->a || !d->b || !d->c || d->a->ndim != nd || d->b->ndim != nd || d->c->ndim != nd) {
		explain_plain(x, t, name, idx);
		return;
	}
	struct attn A = { .q = d->a, .k = d->b, .v = d->c, .nd = nd };
	A.mask = d->inner && d->inner->kind == DERIV_MASKED_FILL ? d->inner->b : NULL;
	memcpy(A.qi, idx, sizeof A.qi);
	memcpy(A.ki, idx, sizeof A.ki);
	memcpy(A.vi, idx, sizeof A.vi);
	memcpy(A.mi, idx, sizeof A.mi);
	A.i = idx[nd - 2];
	A.tk = d->b->shape[nd - 2];
	A.mi[nd - 2] = A.i;
	double wbuf[64], *w = A.tk <= 64 ? wbuf : xcalloc((size_t)A.tk, sizeof *w);
	A.w = w;
	attn_weights(&A, d);
	int64_t dk = d->a->shape[nd - 1];
	/* R[1, 2] = Σⱼ w₁ⱼ·V[j, 2] */
	cell(&x->line, name, idx, nd);
	strbuf_puts(&x->line, " = Σⱼ w");
	subscript(&x->line, A.i);
	strbuf_puts(&x->line, "ⱼ·");
	operand(&x->line, d->label_c, "v");
	index_text(&x->line, nd, idx, nd - 2, "j");
	end_line(x);
	/* w₁ⱼ = softmax over j of Q[1]·K[j] ÷ √4 (causal: j ≤ 1) */
	strbuf_puts(&x->line, "w");
	subscript(&x->line, A.i);
	strbuf_puts(&x->line, "ⱼ = softmax over j of ");
	operand(&x->line, d->label_a, "q");
	index_text(&x->line, nd - 1, idx, -1, NULL);	/* Q[1]: the query row */
	strbuf_puts(&x->line, "·");
	operand(&x->line, d->label_b, "k");
	index_text(&x->line, nd - 1, idx, nd - 2, "j");	/* K[j]: every key row */
	if (dk > 0 && fabs(d->scalar * sqrt((double)dk) - 1) < 1e-9)
		strbuf_printf(&x->line, " ÷ √%lld", (long long)dk);
	else {
		strbuf_puts(&x->line, " × ");
		scalar(&x->line, d->scalar);
	}
	if (d->causal)
		strbuf_printf(&x->line, " (causal: j ≤ %lld)", (long long)A.i);
	if (A.mask) {
		int64_t hidden = 0;
		for (int64_t j = 0; j < A.tk; j++) {
			A.mi[nd - 1] = j;
			hidden += at_bcast(A.mask, A.mi, nd) != 0;
		}
		strbuf_printf(&x->line, " (the mask hides %lld of the %lld keys)", (long long)hidden, (long long)A.tk);
	}
	end_line(x);
	strbuf_puts(&x->line, "w");
	subscript(&x->line, A.i);
	strbuf_puts(&x->line, " = [");
	for (int64_t j = 0; j < A.tk; j++) {
		if (A.tk > FULL_TERMS && j == HEAD_TERMS) {
			strbuf_puts(&x->line, ", …");
			j = A.tk - TAIL_TERMS;
		}
		strbuf_puts(&x->line, j ? ", " : "");
		weight_item(&x->line, &A, j);
	}
	strbuf_puts(&x->line, "]");
	end_line(x);
	strbuf_puts(&x->line, "= ");
	if (A.tk == 0)
		strbuf_puts(&x->line, "0 (no keys)");
	else
		terms(&x->line, A.tk, attn_term, &A);
	end_line(x);
	double v = at(t, idx), r = 0;
	for (int64_t j = 0; j < A.tk; j++)
		r += A.w[j] * attn_v(&A, j);
	strbuf_puts(&x->line, "= ");
	val(&x->line, t, v);
	end_line(x);
	bool blind = A.tk > 0;	/* every key hidden from query i */
	for (int64_t j = 0; j < A.tk && blind; j++)
		blind = isnan(A.w[j]);
	if (blind) {
		strbuf_printf(&x->line, "every key is hidden from query %lld (a fully masked row): every score is "
			      "-inf, exp gives 0 for each, and 0/0 is nan (not a number), so its weights and this "
			      "output are nan, as in torch", (long long)A.i);
		end_note(x);
	}
	if (!agrees(r, v))
		stale_note(x, name, idx, nd);
	if (w != wbuf)
		free(w);
}

/* The lines of derivation d for the cell idx of t (d is t->from, or how the
 * operand t of an outer derivation was computed). */
static void explain(struct insp *x, const struct tensor *t, const struct derivation *d, const char *name,
		    const int64_t *idx)
{
	if (!d) {
		explain_plain(x, t, name, idx);
		return;
	}
	switch (d->kind) {
	case DERIV_MATMUL:
		if (d->a && d->b)
			explain_matmul(x, t, d, name, idx);
		else
			explain_plain(x, t, name, idx);
		break;
	case DERIV_SCALE:
		if (d->a)
			explain_scale(x, t, d, name, idx);
		else
			explain_plain(x, t, name, idx);
		break;
	case DERIV_MASKED_FILL:
		if (d->a)
			explain_masked(x, t, d, name, idx);
		else
			explain_plain(x, t, name, idx);
		break;
	case DERIV_SOFTMAX:
		if (d->a)
			explain_softmax(x, t, d, name, idx);
		else
			explain_plain(x, t, name, idx);
		break;
	case DERIV_ATTENTION:
		explain_attention(x, t, d, name, idx);
		break;
	}
}

int inspect_cell(struct strbuf *out, const struct tensor *t, const char *name, int64_t flat, int width)
{
	struct insp x = { .out = out, .width = width };
	strbuf_init(&x.line);
	if (!name || !name[0])
		name = "x";
	int64_t n = tensor_numel(t);
	if (flat < 0 || flat >= n) {
		strbuf_printf(&x.line, "%s has no element %lld (it has %lld)", name, (long long)flat, (long long)n);
		end_line(&x);
	} else {
		int64_t idx[TENSOR_MAX_DIMS] = { 0 };
		unravel(flat, t->shape, t->ndim, idx);
		explain(&x, t, t->from, name, idx);
	}
	strbuf_free(&x.line);
	return x.lines;
}
