/* test_limits.c: sizes and dims at their edges. The byte count of a tensor
 * never overflows (tensor_nbytes; tensor_new treats a shape it refuses as
 * running out of memory: exit 2, never a short buffer), and the programs of
 * tests/ref/limits_refs.py (a dim of 2**32, negative dims, dims past the
 * end) print what PyTorch and NumPy print, or stop with their message. */
#include "core/tensor.h"
#include "core/strbuf.h"
#include "lang/interp.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

struct program {
	const char *name, *src, *out, *err_type, *err_msg;
};

static const struct program programs[] = {
#include "../ref/limits_refs.inc"
};

Test(limits, tensor_nbytes_should_count_the_bytes_of_every_dtype)
{
	size_t n = 0;
	cr_assert(tensor_nbytes(DT_F32, 2, (const int64_t[]){ 3, 5 }, &n));
	cr_assert_eq(n, 60);
	cr_assert(tensor_nbytes(DT_F64, 1, (const int64_t[]){ 7 }, &n));
	cr_assert_eq(n, 56);
	cr_assert(tensor_nbytes(DT_BOOL, 0, NULL, &n));
	cr_assert_eq(n, 1);
	cr_assert(tensor_nbytes(DT_I64, 2, (const int64_t[]){ 0, 4 }, &n));
	cr_assert_eq(n, 0);
	cr_assert(tensor_nbytes(DT_F64, 1, (const int64_t[]){ TENSOR_MAX_NUMEL }, &n));
	cr_assert_eq(n, (size_t)TENSOR_MAX_NUMEL * 8);
}

Test(limits, tensor_nbytes_should_refuse_a_shape_whose_bytes_overflow)
{
	size_t n = 12345;
	/* issue 15: 2**62 float64 is 2**65 bytes, 2**31 x 2**31 float32 2**64 */
	cr_assert_not(tensor_nbytes(DT_F64, 1, (const int64_t[]){ INT64_C(1) << 62 }, &n));
	cr_assert_not(tensor_nbytes(DT_F32, 2, (const int64_t[]){ INT64_C(1) << 31, INT64_C(1) << 31 }, &n));
	cr_assert_not(tensor_nbytes(DT_BOOL, 1, (const int64_t[]){ TENSOR_MAX_NUMEL + 1 }, &n));
	cr_assert_not(tensor_nbytes(DT_F32, 4, (const int64_t[]){ INT64_MAX, INT64_MAX, 2, 2 }, &n));
	/* an empty tensor's strides still span the other sizes */
	cr_assert_not(tensor_nbytes(DT_F32, 2, (const int64_t[]){ 0, INT64_C(1) << 62 }, &n));
	cr_assert_not(tensor_nbytes(DT_F32, 1, (const int64_t[]){ -1 }, &n));
	cr_assert_eq(n, 12345, "a refused shape leaves *out alone");
}

Test(limits, tensor_new_should_exit_2_rather_than_make_a_short_buffer, .exit_code = 2)
{
	tensor_new(DT_F64, FLAVOR_TORCH, 1, (const int64_t[]){ INT64_C(1) << 62 });
	cr_assert_fail("tensor_new returned a tensor whose bytes overflow");
}

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)v;
	strbuf_puts(udata, text);
	strbuf_putc(udata, '\n');
}

/* qkv's message is torch's or numpy's, the error's type in front or not. */
static bool message_is(const char *msg, const struct program *p)
{
	size_t tl = strlen(p->err_type);
	if (strncmp(msg, p->err_type, tl) == 0 && strncmp(msg + tl, ": ", 2) == 0)
		msg += tl + 2;
	return strcmp(msg, p->err_msg) == 0;
}

Test(limits, every_program_should_print_what_torch_and_numpy_print_or_fail_as_they_do)
{
	int failures = 0;
	for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
		const struct program *p = &programs[i];
		struct strbuf out, src;
		strbuf_init(&out);
		strbuf_puts(&out, "");
		strbuf_init(&src);
		strbuf_puts(&src, LIMITS_HEAD);
		strbuf_puts(&src, p->src);
		struct interp *I = interp_new(KERNEL_SIMD);
		interp_set_output(I, capture, &out);
		struct qkv_error err;
		enum interp_status st = interp_run(I, src.s, src.len, 1, INTERP_PER_STATEMENT, &err);
		bool ok = strcmp(out.s, p->out) == 0 &&
			  (p->err_type[0] ? st == INTERP_ERROR && message_is(err.msg, p) : st == INTERP_OK);
		if (!ok) {
			failures++;
			cr_log_error("%s:\n--- printed\n%s--- expected\n%s--- status %d: %s (expected %s: %s)", p->name,
				     out.s, p->out, st, st == INTERP_OK ? "" : err.msg, p->err_type, p->err_msg);
		} else if (p->err_type[0]) {
			cr_expect_eq(err.line, 5, "%s: the error belongs on the program's line, got %d", p->name, err.line);
		}
		interp_free(I);
		strbuf_free(&out);
		strbuf_free(&src);
	}
	cr_assert_eq(failures, 0, "%d of %zu programs differ from torch and numpy", failures,
		     sizeof programs / sizeof programs[0]);
}
