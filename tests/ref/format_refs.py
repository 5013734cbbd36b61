#!/usr/bin/python3
"""Reference texts for src/core/format.c from real PyTorch and NumPy.

Builds many tensors / arrays, records their exact element values and the
text repr() and str() give, plus Python float reprs, numpy float32 scalar
strs and format() specs, and writes tests/ref/format_refs.inc, a C include
read by tests/unit/test_format.c.

Run with the system Python that has torch 1.13 and numpy 1.24:
    /usr/bin/python3 tests/ref/format_refs.py      (or: make refs)
"""
import math
import os
import sys

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "format_refs.inc")

DTYPES = {
    torch.float32: "DT_F32", torch.float64: "DT_F64", torch.int64: "DT_I64", torch.bool: "DT_BOOL",
    np.dtype(np.float32): "DT_F32", np.dtype(np.float64): "DT_F64",
    np.dtype(np.int64): "DT_I64", np.dtype(np.bool_): "DT_BOOL",
}

cases = []


def c_double(v):
    """An exact C literal for a Python float."""
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    if v == int(v) and abs(v) < 2.0 ** 53 and not (v == 0 and math.copysign(1, v) < 0):
        return "%d.0" % int(v)
    mant, exp = v.hex().split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp


def c_string(s):
    """A C string literal, split after each newline for readability."""
    out = []
    for line in s.split("\n"):
        out.append(line.replace("\\", "\\\\").replace('"', '\\"'))
    return '"' + '\\n"\n\t\t"'.join(out) + '"'


def add_case(name, flavor, base, swap, values, dtype_key, view_repr, view_str):
    cases.append(dict(name=name, flavor=flavor, shape=list(base.shape), swap=swap,
                      values=values, dtype=DTYPES[dtype_key], repr=view_repr, str=view_str,
                      is_int=DTYPES[dtype_key] == "DT_I64"))


def torch_case(name, t, swap=None):
    t = t.contiguous()
    view = t.transpose(*swap) if swap else t
    r, s = repr(view), str(view)
    assert r == s, name
    if t.dtype == torch.int64:
        values = [int(x) for x in t.reshape(-1).tolist()]
    else:
        values = [float(x) for x in t.reshape(-1).tolist()]
    add_case(name, "FLAVOR_TORCH", t, swap, values, t.dtype, r, s)


def np_case(name, a, swap=None):
    a = np.ascontiguousarray(a)
    view = a.swapaxes(*swap) if swap else a
    if a.dtype == np.int64:
        values = [int(x) for x in a.reshape(-1).tolist()]
    else:
        values = [float(x) for x in a.reshape(-1).tolist()]
    add_case(name, "FLAVOR_NUMPY", a, swap, values, a.dtype, repr(view), str(view))


inf, nan = float("inf"), float("nan")
f32, f64 = torch.float32, torch.float64

# ---- torch -----------------------------------------------------------------
torch.manual_seed(42)
torch_case("torch_seed42_randn_3x5", torch.randn(3, 5))
torch.manual_seed(0)
x = torch.randn(3, 3) * 1.5
torch_case("torch_causal_mask_neg_inf", x.masked_fill(torch.triu(torch.ones(3, 3), 1).bool(), -inf))
torch.manual_seed(1)
torch_case("torch_softmax_sci_mode", torch.softmax(torch.randn(3, 3) * 4, dim=-1))
torch_case("torch_eye_int_mode", torch.eye(3))
torch_case("torch_int_mode_ratio_over_1000_is_sci", torch.tensor([1., 2000., 3.]))
torch_case("torch_int_mode_ratio_exactly_1000", torch.tensor([1., 1000., 3.]))
torch_case("torch_int_mode_over_1e8_is_sci", torch.tensor([2e8, 3e8]))
torch_case("torch_int_mode_exactly_1e8", torch.tensor([1e8, 5e7]))
torch_case("torch_fixed_big_widths", torch.tensor([123.4567, 1.5, -999.25]))
torch_case("torch_fixed_carry_to_ten", torch.tensor([9.99995, 0.5]))
torch_case("torch_f64_over_1e8_sci", torch.tensor([1e8 + 0.5, 1e5 + 0.25], dtype=f64))
torch_case("torch_min_below_1e-4_sci", torch.tensor([1e-5, 0.5, -0.25]))
torch_case("torch_ratio_sci_fraction", torch.tensor([12345.678, 1.5]))
torch_case("torch_all_zero", torch.zeros(2, 3))
torch_case("torch_negative_zero_int_mode", torch.tensor([-0.0, 1.0, 0.0]))
torch_case("torch_negative_zero_fixed", torch.tensor([-0.0, 0.5]))
torch_case("torch_nan_inf_mix_fixed", torch.tensor([nan, inf, -inf, 1.5]))
torch_case("torch_nan_int_mode", torch.tensor([nan, 1., 2.]))
torch_case("torch_only_nonfinite", torch.tensor([inf, -inf, nan]))
torch_case("torch_inf_sci", torch.tensor([inf, 1e-6, 3.0]))
torch_case("torch_scalar_fixed", torch.tensor(1.5))
torch_case("torch_scalar_int_mode", torch.tensor(2.0))
torch_case("torch_scalar_zero", torch.tensor(0.0))
torch_case("torch_scalar_neg_inf", torch.tensor(-inf))
torch_case("torch_scalar_nan", torch.tensor(nan))
torch_case("torch_scalar_sci", torch.tensor(1e-5))
torch_case("torch_scalar_f64", torch.tensor(2.0, dtype=f64))
torch_case("torch_scalar_f64_fixed", torch.tensor(-0.123456, dtype=f64))
torch_case("torch_scalar_bool", torch.tensor(True))
torch_case("torch_scalar_int64", torch.tensor(5))
torch_case("torch_scalar_int64_neg", torch.tensor(-123456789012))
torch.manual_seed(3)
torch_case("torch_vector_30_wraps", torch.randn(30))
torch_case("torch_vector_100_arange_float", torch.arange(100.0))
torch_case("torch_vector_100_int64", torch.arange(100))
torch_case("torch_vector_30_sci_wraps", torch.randn(30) * 1e-3)
torch_case("torch_vector_wide_values", torch.randn(20) * 1e4)
torch_case("torch_rows_2x30_wrap", torch.randn(2, 30))
torch_case("torch_3d", torch.randn(2, 3, 4))
torch_case("torch_4d", torch.randn(2, 2, 2, 3))
torch_case("torch_4d_int_mode", torch.arange(24.0).reshape(2, 3, 2, 2))
torch_case("torch_summarized_40x40", torch.randn(40, 40))
torch_case("torch_summarized_2000_arange", torch.arange(2000.0))
torch_case("torch_summarized_3d", torch.randn(10, 10, 12))
torch_case("torch_summarized_4d", torch.randn(5, 6, 7, 8))
torch_case("torch_summarized_int64", torch.arange(3000).reshape(30, 100))
torch_case("torch_summarized_bool", torch.arange(1500).reshape(50, 30) % 3 == 0)
torch_case("torch_summarized_sci", torch.randn(1001) * 1e-6)
torch_case("torch_summarized_short_rows", torch.randn(500, 3))
torch_case("torch_summarized_f64", torch.randn(30, 40, dtype=f64))
torch_case("torch_empty", torch.tensor([]))
torch_case("torch_empty_0x3", torch.zeros(0, 3))
torch_case("torch_empty_int64", torch.tensor([], dtype=torch.int64))
torch_case("torch_empty_bool_2x0x3", torch.zeros(2, 0, 3, dtype=torch.bool))
torch_case("torch_empty_f64", torch.zeros(0, dtype=f64))
torch_case("torch_bool_vector", torch.tensor([True, False]))
torch_case("torch_bool_all_true", torch.tensor([True, True]))
torch_case("torch_bool_2d", torch.tensor([[True, False, True], [False, False, True]]))
torch_case("torch_int64_mixed", torch.tensor([1, -20, 300]))
torch_case("torch_int64_huge", torch.tensor([2 ** 62, -(2 ** 63), 7]))
torch_case("torch_int64_2d", torch.arange(-6, 6).reshape(3, 4))
torch_case("torch_f64_matrix", torch.randn(2, 3, dtype=f64))
torch_case("torch_f64_suffix_wraps", torch.randn(8, dtype=f64) + 10)
torch_case("torch_f64_suffix_fits", torch.randn(5, dtype=f64))
torch_case("torch_f64_multiline_suffix", torch.randn(3, 8, dtype=f64) * 100)
torch_case("torch_f64_int_mode", torch.tensor([1.0, 2.0, -3.0], dtype=f64))
torch_case("torch_f64_tiny_exponent", torch.tensor([1e-300, 1.0], dtype=f64))
torch_case("torch_f32_rounding_half", torch.tensor([0.00005, 0.12345, 2.5]))
torch_case("torch_transposed_3x4", torch.randn(3, 4), (0, 1))
torch_case("torch_transposed_3d", torch.randn(2, 3, 4), (1, 2))
torch_case("torch_transposed_int64", torch.arange(12).reshape(3, 4), (0, 1))
torch_case("torch_transposed_summarized", torch.randn(50, 30), (0, 1))

# ---- numpy -----------------------------------------------------------------
np_case("np_notebook_matrix", np.array([[9.1, 1., 2.1], [0.1, 7.5, 4.3], [3.3, 5.0, 6.25]]))
np_case("np_notebook_vector", np.array([90.98, 42.5, 62.53, 90.2, 93.66]))
rng = np.random.RandomState(7)
e = np.exp(rng.randn(5) * 12)
np_case("np_softmax_sci", e / e.sum())
np_case("np_uniform_vector", rng.rand(4) * 10)
np_case("np_float32_matrix", rng.rand(3, 4).astype(np.float32))
np_case("np_float32_tenth", np.array([0.1, 0.2, 0.3], dtype=np.float32))
np_case("np_float32_sci", np.array([0.1, 1.2345678e-5], dtype=np.float32))
np_case("np_float32_sci_short", np.array([0.1, 1e-5], dtype=np.float32))
np_case("np_float32_ratio_rounding", np.array([1000.0001, 1.0], dtype=np.float32))
np_case("np_float32_dtype_wraps", rng.rand(12).astype(np.float32))
np_case("np_float32_dtype_fits", (rng.rand(6) * 100).astype(np.float32))
np_case("np_int64_vector", np.array([1, -20, 300]))
np_case("np_int64_matrix", np.arange(-6, 6).reshape(3, 4))
np_case("np_int64_huge", np.array([2 ** 62, -(2 ** 63), 7]))
np_case("np_bool_vector", np.array([True, False, True]))
np_case("np_bool_2d", np.array([[True, False], [False, False]]))
np_case("np_scalar_float", np.array(5.0))
np_case("np_scalar_tenth", np.array(0.1))
np_case("np_scalar_small", np.array(1e-5))
np_case("np_scalar_big", np.array(1.5e16))
np_case("np_scalar_third", np.array(1 / 3))
np_case("np_scalar_float32", np.array(0.1, dtype=np.float32))
np_case("np_scalar_float32_small", np.array(1e-4, dtype=np.float32))
np_case("np_scalar_int", np.array(5))
np_case("np_scalar_bool", np.array(True))
np_case("np_scalar_nan", np.array(nan))
np_case("np_scalar_neg_zero", np.array(-0.0))
np_case("np_nan_inf_mix", np.array([nan, 1.5, -inf]))
np_case("np_nan_inf_only", np.array([nan, inf]))
np_case("np_neg_inf_only", np.array([-inf, nan]))
np_case("np_exp_with_nan", np.array([1e-5, nan, 2.0]))
np_case("np_all_zero", np.zeros(3))
np_case("np_zero_matrix", np.zeros((2, 2)))
np_case("np_negative_zero", np.array([-0.0, 1.5]))
np_case("np_negative_zero_only", np.array([-0.0, 0.0]))
np_case("np_exp_1e8", np.array([1e8, 2.0e8]))
np_case("np_just_below_1e8", np.array([99999999.0, 12345678.5]))
np_case("np_ratio_over_1000", np.array([1e7, 2.0]))
np_case("np_big_positional", np.array([123456.789, 1000.5]))
np_case("np_min_1e-4", np.array([1e-4, 0.5]))
np_case("np_exp_three_digit", np.array([1e-300, 1.0]))
np_case("np_exp_negative", np.array([-1.5e-7, 2.25e-3, 3.0]))
np_case("np_third", np.array([1 / 3, 2 / 3, 1.0]))
np_case("np_cutoff_carry", np.array([0.999999999, 1.5]))
np_case("np_mixed_int_fraction", np.array([1.0, 2.5, 10.0]))
np_case("np_arange_30", np.arange(30.0))
np_case("np_random_100", rng.randn(100))
np_case("np_linspace_100", np.linspace(0, 1, 100))
np_case("np_random_30_sci", rng.rand(30) * 1e-5)
np_case("np_int_arange_100", np.arange(100))
np_case("np_matrix_4x6", rng.randn(4, 6))
np_case("np_3d", rng.randn(2, 3, 4))
np_case("np_4d", rng.randn(2, 2, 2, 3))
np_case("np_wide_rows", rng.randn(3, 12))
np_case("np_summarized_40x40", rng.randn(40, 40))
np_case("np_summarized_arange_2000", np.arange(2000.0))
np_case("np_summarized_3d", rng.randn(10, 10, 12))
np_case("np_summarized_4d", rng.randn(5, 6, 7, 8))
np_case("np_summarized_int", np.arange(2000))
np_case("np_summarized_bool", np.arange(1500).reshape(50, 30) % 3 == 0)
np_case("np_summarized_float32", rng.randn(30, 40).astype(np.float32))
np_case("np_summarized_short_rows", rng.randn(500, 3))
np_case("np_empty", np.array([]))
np_case("np_empty_0x3", np.zeros((0, 3)))
np_case("np_empty_int", np.array([], dtype=np.int64))
np_case("np_empty_float32", np.array([], dtype=np.float32))
np_case("np_empty_2x0x3", np.zeros((2, 0, 3)))
np_case("np_transposed_3x4", rng.randn(3, 4), (0, 1))
np_case("np_transposed_3d", rng.randn(2, 3, 4), (0, 2))
np_case("np_transposed_float32", rng.rand(4, 5).astype(np.float32), (0, 1))
np_case("np_transposed_summarized", rng.randn(50, 30), (0, 1))

# ---- Python floats, numpy float32 scalars, format specs ---------------------
py_floats = [math.sqrt(3), 2.0, 1e-05, 1e16, 0.1, 1 / 3, 123456789012345680.0, -0.0, 0.0,
             inf, -inf, nan, 1e-4, 9999999999999998.0, 1e15 + 0.5, 5e-324, 1.7976931348623157e308,
             2.0 ** -1074 * 3, 2.0 ** 60, 2.0 ** -20, 0.3, 100.0, 1.5e-7, -2.5e22, 123.456,
             float(2 ** 53), 0.1 + 0.2, 1e23, 9.007199254740993e15, 4.35, 2.675]
for k in range(-30, 31, 3):
    py_floats.append(2.0 ** (k * 11))
    py_floats.append(10.0 ** k * 1.2345)
r = np.random.RandomState(11)
py_floats += list(map(float, r.randn(40) * 10.0 ** r.randint(-20, 20, 40)))

f32_values = [0.1, 1e-4, 1e-5, 3.4028234663852886e38, 1.401298464324817e-45, 1e16, 16777216.0,
              16777217.0, 0.3, 1 / 3, 2.0 ** -20, 2.0 ** 100, 123.456, -7.25, 1e-45, 3e-39, 1e8]
f32_values += list(map(float, r.randn(30).astype(np.float32) * np.float32(10.0) **
                       r.randint(-12, 12, 30).astype(np.float32)))
f32_values = [float(np.float32(v)) for v in f32_values]

float_specs = [
    (0.5, ".4f"), (math.pi, ".4f"), (math.pi, "8.3f"), (-math.pi, "8.3f"), (12345.678, ".2e"),
    (0.000123, ".2e"), (math.pi, "g"), (1e-5, "g"), (1e6, "g"), (123456.0, "g"), (1234567.0, "g"),
    (0.0001, "g"), (100.0, ".3g"), (math.pi, ">10"), (math.pi, "<10.2f"), (math.pi, "^11.3f"),
    (1234567.891, ",.2f"), (1234567.0, ","), (1e20, ","), (1234.5, "_.1f"), (0.25, ".1%"),
    (0.12345, "%"), (math.pi, "+.2f"), (math.pi, " .2f"), (-0.0, ".1f"), (-0.0, ""),
    (inf, ".2f"), (-inf, "8.1f"), (nan, ".3f"), (nan, "F"), (inf, "E"), (inf, "%"),
    (1.0, ".3"), (100.0, ".3"), (10.0, ".3"), (12345.0, ".3"), (0.0, ".3"), (1 / 3, ".5"),
    (-5.0, "08.1f"), (5.0, "<08.1f"), (5.0, "*^9.2f"), (-5.0, "=+9.2f"), (math.pi, "E"),
    (2.5, ".0f"), (3.5, ".0f"), (0.125, ".2f"), (1e300, ".2f"), (1.5, "f"), (1.5, ""),
    (1e-7, ""), (1e16, ""), (123.456, "10"), (math.e, ".10G"), (1e-10, "G"), (0.0, "g"),
    (0.0, "e"), (1.2345e-5, ".3g"), (99999.5, ".5g"), (0.5, "5.0%"), (-1234.5, ",.1f"),
    (-1234.5, "012.1f"), (7.0, "#<5"),
]
float_specs_unsupported = [(1.0, "n"), (7.0, "#5.1f"), (1.0, "#.0f"), (1.0, "d"), (1234.5, "010,.1f"),
                           (1.0, "x"), (1.0, ".f"), (1.0, "10.2fx")]
int_specs = [
    (42, ""), (42, "d"), (42, "5d"), (-42, "5d"), (42, "<5d"), (42, "^6d"), (42, "05d"),
    (-42, "05d"), (1234567, ","), (1234567, "_d"), (255, "x"), (255, "#x"), (255, "X"),
    (255, "#010x"), (8, "o"), (5, "b"), (5, "#b"), (65535, "_x"), (42, "+d"), (42, " d"),
    (7, ".2f"), (7, "e"), (3, "%"), (-(2 ** 63), "d"), (2 ** 63 - 1, ","), (0, "d"),
    (42, "*>8"), (-7, "=8"),
]
int_specs_unsupported = [(42, ".2d"), (42, "c"), (42, "n"), (255, ",x"), (42, "s"),
                         (1234, "010,d")]

with open(OUT, "w") as f:
    w = f.write
    w("/* Generated by tests/ref/format_refs.py from torch %s and numpy %s;\n"
      " * do not edit. Regenerate with: /usr/bin/python3 tests/ref/format_refs.py */\n\n"
      % (torch.__version__, np.__version__))
    for i, c in enumerate(cases):
        if not c["values"]:
            continue
        if c["is_int"]:
            w("static const long long fref_i%d[] = {" % i)
            items = ["%dLL" % v if v != -(2 ** 63) else "(-9223372036854775807LL - 1)"
                     for v in c["values"]]
        else:
            w("static const double fref_v%d[] = {" % i)
            items = [c_double(v) for v in c["values"]]
        for k in range(0, len(items), 6):
            w("\n\t" + ", ".join(items[k:k + 6]) + ",")
        w("\n};\n")
    w("\nstatic const struct format_ref format_refs[] = {\n")
    for i, c in enumerate(cases):
        shape = c["shape"] + [0] * (4 - len(c["shape"]))
        swap = c["swap"] or (-1, -1)
        fv = "fref_v%d" % i if c["values"] and not c["is_int"] else "NULL"
        iv = "fref_i%d" % i if c["values"] and c["is_int"] else "NULL"
        w('\t{ "%s", %s, %s, %d, { %s }, { %d, %d }, %d, %s, %s,\n\t\t%s,\n\t\t%s },\n'
          % (c["name"], c["dtype"], c["flavor"], len(c["shape"]), ", ".join(map(str, shape)),
             swap[0], swap[1], len(c["values"]), fv, iv, c_string(c["repr"]),
             c_string(c["str"])))
    w("};\n\n")

    w("static const struct float_text_ref py_float_refs[] = {\n")
    for v in py_floats:
        w('\t{ %s, "%s" },\n' % (c_double(v), repr(v)))
    w("};\n\n")

    w("static const struct float_text_ref f32_shortest_refs[] = {\n")
    for v in f32_values:
        w('\t{ %s, "%s" },\n' % (c_double(v), str(np.float32(v))))
    w("};\n\n")

    w("static const struct float_spec_ref float_spec_refs[] = {\n")
    for v, spec in float_specs:
        w('\t{ %s, "%s", %s },\n' % (c_double(v), spec, c_string(format(v, spec))))
    for v, spec in float_specs_unsupported:
        w('\t{ %s, "%s", NULL },\n' % (c_double(v), spec))
    w("};\n\n")

    w("static const struct int_spec_ref int_spec_refs[] = {\n")
    for v, spec in int_specs:
        lit = "%dLL" % v if v != -(2 ** 63) else "(-9223372036854775807LL - 1)"
        w('\t{ %s, "%s", %s },\n' % (lit, spec, c_string(format(v, spec))))
    for v, spec in int_specs_unsupported:
        w('\t{ %dLL, "%s", NULL },\n' % (v, spec))
    w("};\n")

print("wrote %s: %d tensor cases, %d floats, %d float32, %d specs"
      % (OUT, len(cases), len(py_floats), len(f32_values),
         len(float_specs) + len(float_specs_unsupported) + len(int_specs)
         + len(int_specs_unsupported)), file=sys.stderr)
