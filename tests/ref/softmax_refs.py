#!/usr/bin/python3
# softmax_refs.py: reference softmax and masked attention from the real
# PyTorch 1.13 for the special rows (-inf entries, all -inf, +inf, NaN, huge
# values) and fully masked queries, for tests/kernel/checks.c (both kernel
# variants, every SIMD path) and tests/unit/test_softmax_nan.c (the
# language's softmax spellings and fused attention). Writes
# tests/ref/softmax_refs.inc next to this script; rerun after changing it with
#     /usr/bin/python3 tests/ref/softmax_refs.py
# torch 1.13 has no F.scaled_dot_product_attention: its math (softmax of the
# masked, scaled scores, times v) is what torch 2's function computes, so a
# fully masked query gives NaN in both.
import math
import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "softmax_refs.inc")
lines = []


def c_num(v, f32):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    s = ("%.9g" if f32 else "%.17g") % v
    if not any(ch in s for ch in ".en"):
        s += ".0"
    return s + ("f" if f32 else "")


def emit(ctype, name, values, comment):
    values = [float(v) for v in values]
    vals = [c_num(float(np.float32(v)) if ctype == "float" else v, ctype == "float") for v in values]
    lines.append("/* %s */" % comment)
    lines.append("static const %s %s[%d] = {" % (ctype, name, len(vals)))
    for i in range(0, len(vals), 4):
        lines.append("\t" + ", ".join(vals[i:i + 4]) + ",")
    lines.append("};")
    lines.append("")


def flat(t):
    return t.detach().reshape(-1).tolist()


inf, nan = math.inf, math.nan

# ---------------------------------------------------------------- softmax rows
# 17 columns: two vectors of 8 (AVX2 float32) and a tail, four of 4 and a tail
COLS = 17
rows = [
    # a few -inf (masked) entries among numbers: they weigh exactly 0
    [0.5, -inf, 1.25, -2.0, -inf, 3.0, 0.0, -inf, 1.0, 2.5, -1.5, -inf, 0.25, 0.75, -inf, 1.5, -0.5],
    # all -inf (a fully masked row): every exp is 0, 0/0 is NaN
    [-inf] * COLS,
    # all -inf but the last (in the tail): that one gets weight 1
    [-inf] * (COLS - 1) + [2.0],
    # a +inf: inf - inf is NaN, the whole row is NaN
    [1.0, 2.0, inf, 0.0, -1.0, 3.0, 0.5, 0.25, -inf, 1.0, 2.0, 0.0, 1.5, -2.0, 0.0, 1.0, 0.0],
    # a NaN in the tail: the whole row is NaN
    [1.0, 2.0, 3.0, 0.0, -1.0, 3.0, 0.5, 0.25, 1.0, 1.0, 2.0, 0.0, 1.5, -2.0, 0.0, 1.0, nan],
    # a NaN among -inf only
    [-inf] * 8 + [nan] + [-inf] * 8,
    # huge values (the x100 experiment and beyond): the maximum is subtracted first
    [1000.0, 999.0, 0.0, -1000.0, 88.5, 300.0, -300.0, 1e30, 1e30 - 1e24, -1e30, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0],
    # huge negatives that are not -inf: a real softmax, not NaN
    [-1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30,
     -1e30, -1e30],
]
ROWS = len(rows)
x64 = torch.tensor(rows, dtype=torch.float64)
x32 = x64.float()
emit("double", "ref_softmax_in", flat(x64), "the %d x %d input rows (float32 reads them rounded)" % (ROWS, COLS))
emit("float", "ref_softmax_f32", flat(torch.softmax(x32, dim=-1)), "torch.softmax(x.float(), dim=-1)")
emit("double", "ref_softmax_f64", flat(torch.softmax(x64, dim=-1)), "torch.softmax(x.double(), dim=-1)")

# ---------------------------------------------------------------- attention
# one head, tq 3, tk 5, d 4, dv 2, scale 0.5; the mask hides every key of
# query 1 and key 3 of query 0: q[i][c] = i*4+c / 7, k[j][c] = (20 - (j*4+c)) / 9, v[j][c] = j*2+c
q = torch.tensor([i / 7 for i in range(12)], dtype=torch.float64).reshape(3, 4)
k = torch.tensor([(20 - i) / 9 for i in range(20)], dtype=torch.float64).reshape(5, 4)
v = torch.tensor([float(i) for i in range(10)], dtype=torch.float64).reshape(5, 2)
mask = torch.zeros(3, 5, dtype=torch.bool)
mask[1, :] = True
mask[0, 3] = True
for dt, suffix, ctype in ((torch.float32, "f32", "float"), (torch.float64, "f64", "double")):
    s = (q.to(dt) @ k.to(dt).T * 0.5).masked_fill(mask, -inf)
    w = torch.softmax(s, dim=-1)
    emit(ctype, "ref_att_small_w_" + suffix, flat(w),
         "weights = softmax((q @ k.T * 0.5).masked_fill(mask, -inf)), %s: row 1 NaN" % dt)
    emit(ctype, "ref_att_small_out_" + suffix, flat(w @ v.to(dt)), "out = weights @ v, %s" % dt)

# two heads of 70 tokens (4900 scores: past the two-pass bound, so the simd
# kernel takes the fused tiles), d = dv = 4, scale 0.5; query 7 sees nothing
# and key j is hidden from query i when (3i + 5j) % 7 == 0:
# q = sin(0.37 n), k = cos(0.21 n), v = sin(0.13 n + 1) for flat index n
H, T, D = 2, 70, 4
n = torch.arange(H * T * D, dtype=torch.float64)
qb = torch.sin(0.37 * n).reshape(H, T, D)
kb = torch.cos(0.21 * n).reshape(H, T, D)
vb = torch.sin(0.13 * n + 1).reshape(H, T, D)
mb = torch.zeros(T, T, dtype=torch.bool)
for i in range(T):
    for j in range(T):
        mb[i, j] = i == 7 or (3 * i + 5 * j) % 7 == 0
for dt, suffix, ctype in ((torch.float32, "f32", "float"), (torch.float64, "f64", "double")):
    s = (qb.to(dt) @ kb.to(dt).transpose(-2, -1) * 0.5).masked_fill(mb, -inf)
    out = torch.softmax(s, dim=-1) @ vb.to(dt)
    emit(ctype, "ref_att_heads_out_" + suffix, flat(out),
         "two heads of 70 tokens, masked, %s: out rows 7 NaN" % dt)

header = [
    "/* softmax_refs.inc: reference values for tests/kernel/checks.c and",
    " * tests/unit/test_softmax_nan.c, generated by tests/ref/softmax_refs.py",
    " * with torch %s. Do not edit: rerun /usr/bin/python3 tests/ref/softmax_refs.py */" % torch.__version__,
    "",
    "#define REF_SOFTMAX_ROWS %d" % ROWS,
    "#define REF_SOFTMAX_COLS %d" % COLS,
    "#define REF_ATT_HEADS %d" % H,
    "#define REF_ATT_T %d" % T,
    "#define REF_ATT_D %d" % D,
    "",
]
with open(OUT, "w") as f:
    f.write("\n".join(header + lines))
print("wrote", OUT)
