/* test_lang_semantics.c: Python's semantics as CPython 3.11 shows them:
 * each program of tests/ref/python_semantics.py runs through interp_run and
 * must print what CPython printed, or stop with CPython's error message
 * (qkv's message may carry the error's type in front, as Python prints it). */
#include "lang/interp.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <string.h>

struct program {
	const char *name, *src, *out, *err_type, *err_msg;
};

static const struct program programs[] = {
#include "../ref/python_semantics.inc"
};

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)v;
	strbuf_puts(udata, text);
	strbuf_putc(udata, '\n');
}

/* The first line of qkv's message, without a "Type: " in front. */
static bool same_message(const char *msg, const struct program *p)
{
	size_t len = strcspn(msg, "\n");
	size_t tl = strlen(p->err_type);
	if (strncmp(msg, p->err_type, tl) == 0 && strncmp(msg + tl, ": ", 2) == 0) {
		msg += tl + 2;
		len -= tl + 2;
	}
	return len == strlen(p->err_msg) && strncmp(msg, p->err_msg, len) == 0;
}

Test(lang_semantics, every_program_should_print_what_cpython_prints_or_fail_as_it_does)
{
	int failures = 0;
	for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
		const struct program *p = &programs[i];
		struct strbuf out;
		strbuf_init(&out);
		strbuf_puts(&out, "");
		struct interp *I = interp_new(KERNEL_SIMD);
		interp_set_output(I, capture, &out);
		struct qkv_error err;
		enum interp_status st = interp_run(I, p->src, strlen(p->src), 1, INTERP_PER_STATEMENT, &err);
		/* print(..., end=' ') leaves a partial line: the capture ends each piece with a newline */
		bool ok_out = strcmp(out.s, p->out) == 0;
		bool ok_err = p->err_type[0] ? st == INTERP_ERROR && same_message(err.msg, p) : st == INTERP_OK;
		if (!ok_out || !ok_err) {
			failures++;
			cr_log_error("%s:\n--- printed\n%s--- expected\n%s--- status %d: %s (expected %s: %s)", p->name,
				     out.s, p->out, st, st == INTERP_OK ? "" : err.msg, p->err_type, p->err_msg);
		}
		interp_free(I);
		strbuf_free(&out);
	}
	cr_assert_eq(failures, 0, "%d of %zu programs differ from CPython", failures,
		     sizeof programs / sizeof programs[0]);
}

/* The error a program stops with (its first line), or "" when it runs. */
static const char *error_of(const char *src)
{
	static struct qkv_error err;
	struct strbuf out;
	strbuf_init(&out);
	struct interp *I = interp_new(KERNEL_SIMD);
	interp_set_output(I, capture, &out);
	enum interp_status st = interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err);
	interp_free(I);
	strbuf_free(&out);
	if (st == INTERP_OK)
		return "";
	err.msg[strcspn(err.msg, "\n")] = 0;
	return err.msg;
}

/* torch 1.13 refuses these too ("dot : expected both vectors to have same dtype, but found Long and
 * Float"; "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
 * qkv's messages say what to convert */
Test(lang_semantics, torch_errors_should_stay_errors)
{
	cr_expect_str_eq(error_of("torch.ones(2, dtype=torch.int64) @ torch.ones(2)"),
			 "matmul: both tensors need the same dtype, got int64 and float32 (convert one with .float())");
	cr_expect_str_eq(error_of("torch.ones(2, 2, dtype=torch.float64) @ torch.ones(2, 2, dtype=torch.int64)"),
			 "matmul: both tensors need the same dtype, got float64 and int64 (convert one with .double())");
	cr_expect_str_eq(error_of("torch.ones(2).bool() @ torch.ones(2).bool()"),
			 "matmul of bool tensors is not implemented in torch (convert them with .float())");
	cr_expect_str_eq(error_of("x = torch.ones(2, dtype=torch.int64) @ torch.ones(2, dtype=torch.int64)"), "");
	cr_expect_str_eq(error_of("x = np.ones(2, dtype=np.int64) @ np.ones(2)"), "");
	cr_expect_str_eq(error_of("q = torch.ones(1, 2, 3, 4)\n"
				  "F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(3, 3).bool(), is_causal=True)"),
			 "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
	cr_expect_str_eq(error_of("x = torch.tensor([True]); x -= torch.tensor([True])"),
			 "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
			 "`logical_xor()` operator instead.");
	cr_expect_str_eq(error_of("np.array([True]) - np.array([True])"),
			 "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
			 "operator, or the logical_xor function instead.");
}

Test(lang_semantics, a_line_break_between_rows_should_make_a_matrix)
{
	cr_expect_str_eq(error_of("x = [1 2\n3 4]\nassert x.shape == (2, 2) and x[1, 0].item() == 3"), "");
}

Test(lang_semantics, a_byte_order_mark_should_open_a_program)
{
	cr_expect_str_eq(error_of("\xef\xbb\xbfx = 1\nassert x == 1"), "");
}

Test(lang_semantics, a_chain_of_100000_operators_should_be_one_error_naming_the_limit)
{
	struct strbuf b;
	strbuf_init(&b);
	strbuf_puts(&b, "x = 1");
	for (int i = 1; i < 100000; i++)
		strbuf_puts(&b, "+1");
	cr_expect_str_eq(error_of(b.s), "expression too long: more than 3000 operations in a chain (such as 1 + 1 + ...)");
	strbuf_free(&b);
}

/* sizes whose count of elements (or of einsum's terms) overflows an int64
 * are refused before anything is counted (repeat's shape wrapped to a
 * negative size) */
Test(lang_semantics, sizes_past_an_int64_should_be_refused)
{
	cr_expect_str_eq(error_of("x = torch.ones(1, 6).repeat(2**62, 2**62)"),
			 "repeat: the result would hold more elements than an int64 counts");
	cr_expect_str_eq(error_of("x = torch.ones(1, 6).expand(2**62, 6)"),
			 "expand: a tensor of shape [4611686018427387904, 6] would hold more elements than an int64 counts");
	cr_expect_str_eq(error_of("a = torch.ones(1).expand(2**40)\nx = torch.einsum('i,j->', a, a)"),
			 "einsum(): the sum runs over more terms than an int64 counts");
	cr_expect_str_eq(error_of("x = torch.ones(2).split(1)[1]"), "");
}

/* what numpy does and qkv cannot: np.round of bools makes float16; einsum
 * and round are refused in qkv's words where qkv lacks a form numpy has */
Test(lang_semantics, numpy_forms_qkv_lacks_should_be_refused_in_its_words)
{
	cr_expect_str_eq(error_of("import numpy as np\nx = np.round(np.array([True]))"),
			 "np.round of bools gives float16, which qkv does not have: round a.astype(np.float32)");
	cr_expect_str_eq(error_of("import numpy as np\nx = np.einsum('i...', np.ones((2, 3)))"),
			 "einsum(): '...' (an ellipsis) is not supported in qkv: name each dim");
	cr_expect_str_eq(error_of("import numpy as np\nx = np.einsum(np.ones(2), [0])"),
			 "einsum(): qkv takes the subscripts as a str ('ij,jk->ik'), not numpy's sublist form");
	cr_expect_str_eq(error_of("import numpy as np\nx = np.einsum('ij', np.ones((2, 2)), out=np.ones((2, 2)))"),
			 "einsum(): out= is not supported in qkv");
	cr_expect_str_eq(error_of("import numpy as np\nx = np.array_split(np.ones(3), 10**8)"),
			 "MemoryError: a list of 100000000 items is over qkv's limit of 10000000 items");
}
