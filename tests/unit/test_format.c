/* test_format.c: format.c against texts printed by real PyTorch 1.13, NumPy
 * 1.24 and Python (tests/ref/format_refs.inc, made by format_refs.py), plus
 * the notebook examples spelled out. Compares byte for byte; never needs
 * Python at test time. */
#include <criterion/criterion.h>

#include "core/format.h"
#include "core/strbuf.h"
#include "core/tensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct format_ref {
	const char *name;
	enum dtype dtype;
	enum flavor flavor;
	int ndim;
	int64_t shape[TENSOR_MAX_DIMS];   /* of the contiguous base tensor */
	int swap[2];                      /* dims the shown view transposes, or -1 */
	int n;
	const double *fvals;              /* float and bool elements, row-major */
	const long long *ivals;           /* int64 elements */
	const char *repr;
	const char *str;
};

struct float_text_ref {
	double v;
	const char *text;
};

struct float_spec_ref {
	double v;
	const char *spec;
	const char *out;                  /* NULL: format_py_float_spec returns -1 */
};

struct int_spec_ref {
	long long v;
	const char *spec;
	const char *out;
};

#include "../ref/format_refs.inc"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The view a reference case prints: its base tensor filled with the values,
 * transposed when the case asks (a non-contiguous view of the same data). */
static struct tensor *ref_tensor(const struct format_ref *r)
{
	struct tensor *t = tensor_new(r->dtype, r->flavor, r->ndim, r->shape);
	for (int i = 0; i < r->n; i++) {
		if (r->ivals)
			((int64_t *)tensor_data(t))[i] = r->ivals[i];
		else
			tensor_set(t, i, r->fvals[i]);
	}
	if (r->swap[0] >= 0) {
		int a = r->swap[0], b = r->swap[1];
		int64_t s = t->shape[a];
		t->shape[a] = t->shape[b];
		t->shape[b] = s;
		s = t->strides[a];
		t->strides[a] = t->strides[b];
		t->strides[b] = s;
	}
	return t;
}

static bool name_has(const struct format_ref *r, const char *word)
{
	return strstr(r->name, word) != NULL;
}

/* Checks repr and str of every reference case whose name holds `word`;
 * returns how many cases it checked. */
static int check_refs(const char *word)
{
	int checked = 0;
	struct strbuf b;
	strbuf_init(&b);
	for (size_t i = 0; i < COUNT(format_refs); i++) {
		const struct format_ref *r = &format_refs[i];
		if (!name_has(r, word))
			continue;
		struct tensor *t = ref_tensor(r);
		strbuf_reset(&b);
		format_repr(&b, t);
		cr_expect_str_eq(b.s, r->repr, "repr of %s:\n%s\nexpected:\n%s", r->name, b.s, r->repr);
		strbuf_reset(&b);
		format_str(&b, t);
		cr_expect_str_eq(b.s, r->str, "str of %s:\n%s\nexpected:\n%s", r->name, b.s, r->str);
		tensor_unref(t);
		checked++;
	}
	strbuf_free(&b);
	return checked;
}

static struct tensor *make_f32(int ndim, const int64_t *shape, const float *v)
{
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, ndim, shape);
	for (int64_t i = 0; i < tensor_numel(t); i++)
		tensor_set(t, i, v[i]);
	return t;
}

static void expect_repr(const struct tensor *t, const char *want)
{
	struct strbuf b;
	strbuf_init(&b);
	format_repr(&b, t);
	cr_expect_str_eq(b.s, want, "got:\n%s\nexpected:\n%s", b.s, want);
	strbuf_free(&b);
}

static void expect_str(const struct tensor *t, const char *want)
{
	struct strbuf b;
	strbuf_init(&b);
	format_str(&b, t);
	cr_expect_str_eq(b.s, want, "got:\n%s\nexpected:\n%s", b.s, want);
	strbuf_free(&b);
}

Test(format, torch_notebook_matrix_should_print_like_the_notebook)
{
	static const float v[] = {
		0.3367f, 0.1288f, 0.2345f, 0.2303f, -1.1229f,
		-0.1863f, 2.2082f, -0.6380f, 0.4617f, 0.2674f,
		0.5349f, 0.8094f, 1.1103f, -1.6898f, -0.9890f,
	};
	struct tensor *t = make_f32(2, (int64_t[]){ 3, 5 }, v);
	expect_repr(t, "tensor([[ 0.3367,  0.1288,  0.2345,  0.2303, -1.1229],\n"
			"        [-0.1863,  2.2082, -0.6380,  0.4617,  0.2674],\n"
			"        [ 0.5349,  0.8094,  1.1103, -1.6898, -0.9890]])");
	tensor_unref(t);
}

Test(format, torch_masked_scores_should_pad_inf_to_the_column_width)
{
	static const float v[] = {
		-1.2905f, -INFINITY, -INFINITY,
		0.7593f, -2.2869f, -INFINITY,
		-1.1067f, -0.0801f, -3.3173f,
	};
	struct tensor *t = make_f32(2, (int64_t[]){ 3, 3 }, v);
	expect_repr(t, "tensor([[-1.2905,    -inf,    -inf],\n"
			"        [ 0.7593, -2.2869,    -inf],\n"
			"        [-1.1067, -0.0801, -3.3173]])");
	tensor_unref(t);
}

Test(format, torch_softmax_weights_should_switch_to_sci_mode)
{
	static const float v[] = { 3.2830e-03f, 9.9635e-01f, 3.6758e-04f };
	struct tensor *t = make_f32(2, (int64_t[]){ 1, 3 }, v);
	expect_repr(t, "tensor([[3.2830e-03, 9.9635e-01, 3.6758e-04]])");
	tensor_unref(t);
}

Test(format, torch_whole_numbers_should_print_in_int_mode)
{
	static const float v[] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	struct tensor *t = make_f32(2, (int64_t[]){ 3, 3 }, v);
	expect_repr(t, "tensor([[1., 0., 0.],\n        [0., 1., 0.],\n        [0., 0., 1.]])");
	tensor_unref(t);
}

Test(format, torch_three_d_should_separate_blocks_with_a_blank_line)
{
	static const float v[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct tensor *t = make_f32(3, (int64_t[]){ 2, 2, 2 }, v);
	expect_repr(t, "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n"
			"         [6., 7.]]])");
	tensor_unref(t);
}

Test(format, torch_scalars_and_bools_should_match_torch)
{
	struct tensor *t = tensor_new(DT_F32, FLAVOR_TORCH, 0, NULL);
	tensor_set(t, 0, 1.5);
	expect_repr(t, "tensor(1.5000)");
	tensor_unref(t);
	t = tensor_new(DT_BOOL, FLAVOR_TORCH, 1, (int64_t[]){ 2 });
	tensor_set(t, 0, 1);
	expect_repr(t, "tensor([ True, False])");
	tensor_unref(t);
	t = tensor_new(DT_F32, FLAVOR_TORCH, 2, (int64_t[]){ 0, 3 });
	expect_repr(t, "tensor([], size=(0, 3))");
	tensor_unref(t);
}

Test(format, numpy_notebook_arrays_should_print_like_the_notebook)
{
	static const double m[] = { 9.1, 1.0, 2.1, 0.1, 7.5, 4.3 };
	struct tensor *t = tensor_new(DT_F64, FLAVOR_NUMPY, 2, (int64_t[]){ 2, 3 });
	for (int i = 0; i < 6; i++)
		tensor_set(t, i, m[i]);
	expect_repr(t, "array([[9.1, 1. , 2.1],\n       [0.1, 7.5, 4.3]])");
	expect_str(t, "[[9.1 1.  2.1]\n [0.1 7.5 4.3]]");
	tensor_unref(t);

	static const double v[] = { 90.98, 42.5, 62.53, 90.2, 93.66 };
	t = tensor_new(DT_F64, FLAVOR_NUMPY, 1, (int64_t[]){ 5 });
	for (int i = 0; i < 5; i++)
		tensor_set(t, i, v[i]);
	expect_repr(t, "array([90.98, 42.5 , 62.53, 90.2 , 93.66])");
	tensor_unref(t);

	static const double s[] = {
		1.57823895e-01, 1.10228985e-13, 1.16042942e-08, 1.00599432e-01, 7.41576662e-01
	};
	t = tensor_new(DT_F64, FLAVOR_NUMPY, 1, (int64_t[]){ 5 });
	for (int i = 0; i < 5; i++)
		tensor_set(t, i, s[i]);
	expect_str(t, "[1.57823895e-01 1.10228985e-13 1.16042942e-08 1.00599432e-01\n"
			" 7.41576662e-01]");
	tensor_unref(t);

	static const double u[] = { 2.32902909, 8.02102694, 7.51078092, 2.70444657 };
	t = tensor_new(DT_F64, FLAVOR_NUMPY, 1, (int64_t[]){ 4 });
	for (int i = 0; i < 4; i++)
		tensor_set(t, i, u[i]);
	expect_str(t, "[2.32902909 8.02102694 7.51078092 2.70444657]");
	tensor_unref(t);
}

Test(format, numpy_zero_d_should_print_array_repr_and_scalar_str)
{
	struct tensor *t = tensor_new(DT_F64, FLAVOR_NUMPY, 0, NULL);
	tensor_set(t, 0, 5.0);
	expect_repr(t, "array(5.)");
	expect_str(t, "5.0");
	tensor_unref(t);
}

Test(format, torch_sci_mode_should_match_torch)
{
	cr_expect_gt(check_refs("sci"), 3);
}

Test(format, torch_int_mode_should_match_torch)
{
	cr_expect_gt(check_refs("int_mode"), 3);
}

Test(format, nonfinite_values_should_match_torch_and_numpy)
{
	cr_expect_gt(check_refs("inf"), 5);
	cr_expect_gt(check_refs("nan"), 3);
}

Test(format, zeros_and_negative_zero_should_match_torch_and_numpy)
{
	cr_expect_gt(check_refs("zero"), 5);
}

Test(format, zero_d_values_should_match_torch_and_numpy)
{
	cr_expect_gt(check_refs("scalar"), 15);
}

Test(format, long_vectors_should_wrap_like_torch_and_numpy)
{
	cr_expect_gt(check_refs("vector"), 5);
	cr_expect_gt(check_refs("wrap"), 3);
	cr_expect_gt(check_refs("_30"), 3);
	cr_expect_gt(check_refs("_100"), 3);
}

Test(format, nested_dims_should_match_torch_and_numpy)
{
	cr_expect_gt(check_refs("_3d"), 3);
	cr_expect_gt(check_refs("_4d"), 3);
	cr_expect_gt(check_refs("matrix"), 3);
}

Test(format, summarized_tensors_should_match_torch_and_numpy)
{
	cr_expect_gt(check_refs("summarized"), 15);
}

Test(format, empty_tensors_should_match_torch_and_numpy)
{
	cr_expect_gt(check_refs("empty"), 8);
}

Test(format, bool_and_int64_should_match_torch_and_numpy)
{
	cr_expect_gt(check_refs("bool"), 5);
	cr_expect_gt(check_refs("int"), 10);
}

Test(format, float64_torch_tensors_should_carry_the_dtype_suffix)
{
	cr_expect_gt(check_refs("torch_f64"), 5);
}

Test(format, float32_numpy_arrays_should_match_numpy)
{
	cr_expect_gt(check_refs("float32"), 8);
}

Test(format, transposed_views_should_print_in_logical_order)
{
	cr_expect_gt(check_refs("transposed"), 7);
}

Test(format, every_reference_case_should_match_byte_for_byte)
{
	cr_expect_eq(check_refs(""), (int)COUNT(format_refs));
}

Test(format, python_float_repr_should_match_python)
{
	struct strbuf b;
	strbuf_init(&b);
	for (size_t i = 0; i < COUNT(py_float_refs); i++) {
		strbuf_reset(&b);
		format_py_float(&b, py_float_refs[i].v);
		cr_expect_str_eq(b.s, py_float_refs[i].text, "repr(%.17g): got %s, want %s",
				py_float_refs[i].v, b.s, py_float_refs[i].text);
	}
	strbuf_free(&b);
}

Test(format, shortest_text_should_round_trip_in_its_dtype)
{
	struct strbuf b;
	strbuf_init(&b);
	for (size_t i = 0; i < COUNT(f32_shortest_refs); i++) {
		double v = f32_shortest_refs[i].v;
		strbuf_reset(&b);
		format_shortest(&b, v, DT_F32);
		cr_expect_str_eq(b.s, f32_shortest_refs[i].text, "float32 %.9g: got %s, want %s", v,
				b.s, f32_shortest_refs[i].text);
		cr_expect_eq(strtof(b.s, NULL), (float)v, "float32 %s does not read back", b.s);
	}
	for (size_t i = 0; i < COUNT(py_float_refs); i++) {
		double v = py_float_refs[i].v;
		strbuf_reset(&b);
		format_shortest(&b, v, DT_F64);
		cr_expect_str_eq(b.s, py_float_refs[i].text);
		if (isfinite(v))
			cr_expect_eq(strtod(b.s, NULL), v, "float64 %s does not read back", b.s);
	}
	strbuf_free(&b);
}

Test(format, float_format_specs_should_match_python)
{
	struct strbuf b;
	strbuf_init(&b);
	for (size_t i = 0; i < COUNT(float_spec_refs); i++) {
		const struct float_spec_ref *r = &float_spec_refs[i];
		strbuf_reset(&b);
		int rc = format_py_float_spec(&b, r->v, r->spec);
		if (!r->out) {
			cr_expect_eq(rc, -1, "spec '%s' should be refused", r->spec);
			continue;
		}
		cr_expect_eq(rc, 0, "spec '%s' refused", r->spec);
		cr_expect_str_eq(b.s, r->out, "format(%.17g, '%s'): got '%s', want '%s'", r->v, r->spec,
				b.s, r->out);
	}
	strbuf_free(&b);
}

Test(format, int_format_specs_should_match_python)
{
	struct strbuf b;
	strbuf_init(&b);
	for (size_t i = 0; i < COUNT(int_spec_refs); i++) {
		const struct int_spec_ref *r = &int_spec_refs[i];
		strbuf_reset(&b);
		int rc = format_py_int_spec(&b, r->v, r->spec);
		if (!r->out) {
			cr_expect_eq(rc, -1, "spec '%s' should be refused", r->spec);
			continue;
		}
		cr_expect_eq(rc, 0, "spec '%s' refused", r->spec);
		cr_expect_str_eq(b.s, r->out, "format(%lld, '%s'): got '%s', want '%s'", r->v, r->spec,
				b.s, r->out);
	}
	strbuf_free(&b);
}
