#!/usr/bin/python3
"""Which backward node torch 1.13 attaches to the result of each operation
qkv has, for tensors that do and do not require grad, for src/lang/autograd.c.

Each case is a line of code that is both Python and qkv: the script runs a
common setup, then each case, and records what torch gives the result:
type(r.grad_fn).__name__ (or none), r.requires_grad, or the error message.
Writes tests/ref/grad_refs.inc, replayed by tests/unit/test_grad.c.

Run with the system Python that has torch 1.13:
    /usr/bin/python3 tests/ref/grad_refs.py      (or: make refs)
"""
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_refs.inc")

# names every case may use: p* are Parameters, r2 a leaf made with
# requires_grad=True, x* plain tensors, y2 a non-leaf, z2 a detached one
SETUP = """torch.manual_seed(0)
p1 = nn.Parameter(torch.randn(4))
p2 = nn.Parameter(torch.randn(3, 4))
p3 = nn.Parameter(torch.randn(2, 3, 4))
p4 = nn.Parameter(torch.randn(2, 2, 3, 4))
w = nn.Parameter(torch.randn(4, 5))
r2 = torch.randn(3, 4, requires_grad=True)
x1 = torch.randn(4)
x2 = torch.randn(3, 4)
x3 = torch.randn(2, 3, 4)
x4 = torch.randn(2, 2, 3, 4)
xw = torch.randn(4, 5)
y2 = p2 * 2
y3 = p3 * 2
z2 = y2.detach()
m = torch.tril(torch.ones(3, 4)) == 0
L = nn.Linear(4, 5)
Lb = nn.Linear(4, 5, bias=False)
D = nn.Dropout(0.5)
D0 = nn.Dropout(0.0)
De = nn.Dropout(0.5)
De.eval()
n2 = np.ones((3, 4))
"""

# (code, tensors): code with {a} {b} filled from the tensor lists
UNARY_SRC = ["p2", "x2", "y2", "r2", "z2"]
UNARY3_SRC = ["p3", "x3", "y3"]

CASES = []


def add(code):
    CASES.append(code)


def each(template, srcs=UNARY_SRC):
    for s in srcs:
        add(template.format(a=s))


# ---- operators
for op in ["+", "-", "*", "/", "**", "//", "%", "==", "!=", "<", "<=", ">", ">=", "@"]:
    for a, b in [("p2", "x2"), ("x2", "p2"), ("x2", "x2"), ("y2", "p2"), ("p2", "2"), ("2", "p2"),
                 ("x2", "2"), ("p2", "2.5"), ("2.5", "p2"), ("z2", "x2")]:
        if op == "@":
            b = {"x2": "xw", "p2": "w", "2": None, "2.5": None}.get(b, b)
            if b is None or a in ("2", "2.5"):
                continue
            if a == "y2" and b == "w":
                pass
        add("%s %s %s" % (a, op, b))
add("p2 ** p2")
add("-p2")
add("-x2")
add("-y2")
add("+p2")
add("~m")
# matmul shapes
for a, b in [("p2", "w"), ("x2", "w"), ("p2", "xw"), ("p3", "w"), ("x3", "w"), ("p3", "xw"),
             ("p1", "p1"), ("p2", "p1"), ("p1", "w"), ("p3", "p1"), ("p1", "p3.transpose(1, 2)"),
             ("p3", "p3.transpose(1, 2)"), ("x3", "p3.transpose(1, 2)"), ("p3", "x3.transpose(1, 2)"),
             ("p4", "p4.transpose(2, 3)"), ("x4", "p4.transpose(2, 3)"), ("p4", "w"), ("x2", "p3.transpose(1, 2)"),
             ("p2", "x3.transpose(1, 2)"), ("p3.transpose(1, 2)", "p2"), ("p2.T", "p2"), ("x3", "x3.transpose(1, 2)")]:
    add("%s @ %s" % (a, b))
    add("torch.matmul(%s, %s)" % (a, b))
    add("%s.matmul(%s)" % (a, b))
# ---- indexing
for s in ["p2", "x2", "y2", "p3"]:
    for ix in ["0", "-1", ":", "1:", ":, 0", "0, 1", "None", ":, None", "0:1", ":, 1:3", "::2", "0, :", ":, :",
               "..., 0" if False else "1, 2:"]:
        add("%s[%s]" % (s, ix))
add("p3[:, :, 0]")
add("p3[0][1]")
add("p3[:, 0, :]")
add("p3[0, :, :]")
add("p3[:, :, :]")
# ---- attributes
for s in ["p2", "x2", "y2", "p3", "z2"]:
    add("%s.T" % s)
    add("%s.mT" % s)
    add("%s.data" % s)
# ---- tensor methods
each("{a}.transpose(0, 1)")
each("{a}.transpose(1, 0)")
each("{a}.t()")
each("{a}.view(4, 3)")
each("{a}.view(-1)")
each("{a}.view(3, 4)")
each("{a}.reshape(4, 3)")
each("{a}.reshape(12)")
each("{a}.T.reshape(12)")
each("{a}.T.reshape(4, 3)")
each("{a}.T.contiguous()")
each("{a}.permute(1, 0)")
each("{a}.contiguous()")
each("{a}.clone()")
each("{a}.detach()")
each("{a}.float()")
each("{a}.double()")
each("{a}.long()")
each("{a}.bool()")
each("{a}.to(torch.float32)")
each("{a}.to(torch.float64)")
each("{a}.masked_fill(m, 0.0)")
each("{a}.masked_fill(m, float('-inf'))")
each("{a}.sum()")
each("{a}.sum(0)")
each("{a}.sum(dim=1, keepdim=True)")
each("{a}.mean()")
each("{a}.mean(-1)")
each("{a}.max()")
each("{a}.min()")
each("{a}.amax(1)")
each("{a}.amin(0)")
each("{a}.amax()")
each("{a}.all()")
each("{a}.any()")
each("{a}.exp()")
each("{a}.sqrt()")
each("{a}.log()")
each("{a}.abs()")
each("{a}.tanh()")
each("{a}.relu()")
each("{a}.softmax(-1)")
each("{a}.softmax(dim=0)")
each("{a}.unsqueeze(0)")
each("{a}.unsqueeze(-1)")
each("{a}[None].squeeze()")
each("{a}[None].squeeze(0)")
each("{a}.squeeze()")
each("{a}.tril()")
each("{a}.triu(1)")
each("{a}.matmul({a}.T)")
each("{a}[0].dot({a}[1])")
each("{a}.exp().sum(-1)")
each("{a}.clone().masked_fill_(m, 0.0)")
each("{a}.clone().fill_(1.0)")
each("{a}.clone().zero_()")
each("{a}.view(4, 3).contiguous()")
each("{a}.T.float()")
each("{a}.T.T")
each("{a}.transpose(0, 1).transpose(0, 1).view(12)")
each("{a}.view(2, 6).view(12)")
each("{a}.reshape(3, 4)")
each("{a}.permute(1, 0).reshape(12)")
each("{a}.unsqueeze(0).reshape(3, 4)")
each("{a}.transpose(0, 1).reshape(2, 6)")
add("p3.permute(2, 0, 1)")
add("p3.transpose(-2, -1)")
add("p3.view(2, 12)")
add("p3.reshape(6, 4)")
add("p3.transpose(1, 2).reshape(2, 12)")
add("p3.transpose(1, 2).contiguous().view(2, 12)")
add("p3.softmax(-1)")
add("p3.masked_fill(m, 0.0)")
add("p3.sum(dim=-1)")
add("p3.unsqueeze(1)")
add("p4.transpose(1, 2)")
# ---- torch functions
each("torch.transpose({a}, 0, 1)")
each("torch.tril({a})")
each("torch.triu({a}, diagonal=1)")
each("torch.softmax({a}, dim=-1)")
each("torch.softmax({a}, -1)")
each("F.softmax({a}, dim=-1)")
each("F.softmax({a}, dim=1, dtype=torch.float64)")
each("torch.exp({a})")
each("torch.sqrt({a})")
each("torch.log({a})")
each("torch.abs({a})")
each("torch.tanh({a})")
each("torch.relu({a})")
each("torch.gather({a}, 1, torch.tensor([[0], [2], [1]]))")
each("{a}.gather(0, torch.tensor([[1, 0, 2, 1]]))")
each("{a}.nonzero()")
each("F.pad({a}, (1, 1))")
each("F.cross_entropy({a}, torch.tensor([0, 3, 1]))")
each("F.nll_loss({a}, torch.tensor([0, 3, 1]), reduction='none')")
each("torch.prod({a})")
each("torch.prod({a}, 1)")
each("{a}.prod()")
each("{a}.prod(0, keepdim=True)")
each("torch.logsumexp({a}, 1)")
each("{a}.logsumexp((0, 1))")
each("torch.flip({a}, [0])")
each("{a}.flip(1, 0)")
each("torch.vstack([{a}, x2])")
each("torch.hstack([x2, {a}])")
for fn in ["floor", "ceil", "trunc", "sign", "rsqrt", "log2", "log10", "log1p", "expm1", "exp2", "erf"]:
    each("torch.%s({a})" % fn)
    each("{a}.%s()" % fn)
each("F.relu({a})")
each("torch.sum({a})")
each("torch.sum({a}, 1)")
each("torch.mean({a})")
each("torch.mean({a}, dim=0)")
each("torch.max({a})")
each("torch.min({a})")
each("torch.masked_fill({a}, m, 0.0)")
each("torch.cat([{a}, x2])")
each("torch.cat([x2, {a}], dim=1)")
each("torch.cat([{a}], dim=-1)")
each("torch.stack([{a}, x2])")
each("torch.stack([x2, {a}], dim=1)")
each("torch.mm({a}, xw)")
each("torch.mm(x2, {a}.T)")
each("torch.dot({a}[0], x2[0])")
each("torch.bmm({a}[None], xw[None])")
each("F.dropout({a}, 0.5)")
each("F.dropout({a}, 0.5, training=False)")
each("F.dropout({a}, p=0.0)")
each("F.dropout({a}, p=1.0)")
each("F.linear({a}, w.T)")
each("F.linear({a}, w.T, w[0])")
each("F.linear({a}, xw.T)")
each("F.linear({a}, xw.T, xw[0])")
each("F.linear({a}[0], xw.T, xw[0])")
each("torch.zeros_like({a})")
each("torch.ones_like({a})")
each("torch.rand_like({a})")
each("torch.randn_like({a})")
each("torch.isclose({a}, x2)")
each("sum([{a}, x2])")
each("sum([x2, {a}])")
each("max({a}[0])")
each("min({a}[1])")
each("sum({a})")
each("abs({a})")
each("list({a})[0]")
each("tuple({a})[1]")
each("nn.Parameter({a})")
each("nn.Parameter({a}, requires_grad=False)")
each("torch.nn.Parameter({a}.T)")
each("torch.softmax({a} @ {a}.T / 2, dim=-1)")
for a in ["p3", "x3", "y3"]:
    add("torch.bmm(%s, %s.transpose(1, 2))" % (a, a))
    add("torch.bmm(x3, %s.transpose(1, 2))" % a)
    add("torch.cat([%s, %s], dim=-1)" % (a, a))
    add("torch.stack([%s, x3], dim=0)" % a)
    add("torch.softmax(%s @ %s.transpose(1, 2), dim=-1) @ %s" % (a, a, a))
# ---- nn modules
for s in ["x1", "x2", "x3", "x4", "p2", "p3", "x3.transpose(0, 1)", "x3.transpose(1, 2).transpose(1, 2)",
          "x2.T.T", "x2[:, :]", "x3[:, 1:]"]:
    add("L(%s)" % s)
    add("Lb(%s)" % s)
for s in ["x2", "p2", "y2", "p3"]:
    add("D(%s)" % s)
    add("D0(%s)" % s)
    add("De(%s)" % s)
add("L.weight")
add("L.bias")
add("Lb.weight")
add("L.weight.T")
add("L.weight[0]")
add("L.weight.detach()")
# ---- creation
for code in ["torch.randn(2, 3)", "torch.randn(2, 3, requires_grad=True)", "torch.rand(2, requires_grad=True)",
             "torch.zeros(2, 3, requires_grad=True)", "torch.ones(3, requires_grad=True)",
             "torch.empty(2, 3)", "torch.full((2, 2), 3.0)", "torch.full((2, 2), 3.0, requires_grad=True)",
             "torch.zeros(2)", "torch.ones(2, 3)", "torch.arange(5)", "torch.arange(5.0, requires_grad=True)",
             "torch.eye(3)", "torch.eye(3, requires_grad=True)", "torch.tensor([1.0, 2.0])",
             "torch.tensor([1.0, 2.0], requires_grad=True)", "torch.tensor([[1.0], [2.0]], requires_grad=False)",
             "torch.randint(0, 5, (3,))", "torch.from_numpy(n2)", "torch.randn(2, 3).requires_grad_()",
             "torch.randn(2, 3).requires_grad_(True)", "torch.randn(2, 3).requires_grad_(False)",
             "torch.zeros_like(p2, requires_grad=True)", "torch.ones_like(x2, requires_grad=True)",
             "torch.randn(2, 3, dtype=torch.float64, requires_grad=True)", "torch.randn(3, 4) * p2",
             "x2.requires_grad_()", "p2.requires_grad_(False)", "y2.requires_grad_()",
             "torch.tril(torch.ones(3, 3))", "torch.allclose(p2, p2)", "torch.equal(p2, p2)",
             "torch.numel(p2)", "p2.argmax()" if False else "p2.item()" if False else "p2.numel()"]:
    add(code)
# ---- in place on leaves and errors
for code in ["p2.masked_fill_(m, 0.0)", "p2.fill_(0.0)", "p2.zero_()", "r2.zero_()", "y2.masked_fill_(m, 0.0)",
             "y2.fill_(1.0)", "y2.zero_()", "z2.fill_(1.0)", "x2.masked_fill_(m, 1.0)", "p2[0].fill_(1.0)",
             "p2.T.zero_()", "y2[0].fill_(1.0)", "p2.numpy()", "x2.numpy()", "p2.detach().numpy()",
             "np.array(p2)", "torch.randint(0, 5, (3,), requires_grad=True)",
             "torch.tensor([1, 2], requires_grad=True)", "torch.arange(5, requires_grad=True)",
             "x2.long().requires_grad_()", "p2.long()", "p2.bool()", "y2.sum().item()" if False else "y2.sum()",
             "p2.tolist()" if False else "p2.softmax(-1).sum(-1)"]:
    add(code)

# ---- copy_: into a plain tensor, a non-leaf, and refused on a leaf that requires grad
for code in ["x2.clone().copy_(p2)", "x2.clone().copy_(x2)", "y2.copy_(x2)", "p2.copy_(x2)", "r2.copy_(x2)"]:
    add(code)

# ---- statements: setup lines then the value of the last name
STMTS = [
    "p2 += 1",
    "y2 += 1",
    "x2 += 1",
    "y2 *= 2",
    "p2[0] = 1.0",
    "y2[0] = 1.0",
    "x2[0] = p2[0]",
    "x2[0] = 1.0",
    "with torch.no_grad():\n    p2 += 1",
    "with torch.no_grad():\n    p2[0] = 0.0",
    "with torch.no_grad():\n    q = p2 * 2",
    "with torch.no_grad():\n    q = L(x2)",
    "with torch.no_grad():\n    q = torch.randn(2, requires_grad=True)",
    "with torch.no_grad():\n    q = nn.Parameter(torch.randn(2))",
    "with torch.no_grad():\n    q = p2.T",
    "with torch.no_grad():\n    q = p2.detach()",
    "with torch.no_grad():\n    q = p2.requires_grad_(False)",
    "q = p2.T\nq.zero_()",
    "with torch.no_grad():\n    q = y2.T",
    "with torch.no_grad():\n    q = p2[0]",
    "with torch.no_grad():\n    q = y2[:, 1:]",
    "with torch.no_grad():\n    q = p2.view(12)",
    "with torch.no_grad():\n    q = p2.reshape(12)",
    "with torch.no_grad():\n    q = p2.T.reshape(12)",
    "with torch.no_grad():\n    q = p2.transpose(0, 1)",
    "with torch.no_grad():\n    q = p2.unsqueeze(0)",
    "with torch.no_grad():\n    q = list(p2)[0]",
    "with torch.no_grad():\n    q = p2.contiguous()",
    "with torch.no_grad():\n    q = p2.squeeze()",
    "with torch.no_grad():\n    q = D(p2)",
    "with torch.no_grad():\n    q = p2.clone()",
    "q = p2.view(12)\nq.zero_()",
]

REPRS = [
    "p2", "L.weight", "L.bias", "y2", "r2", "z2", "L(x2)", "L(x3)", "p1 * 2", "torch.zeros(3, requires_grad=True)",
    "torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)", "torch.zeros(2, 3, dtype=torch.float64) * p2[:2, :3]",
    "p2.sum()", "p2 > 0", "torch.zeros(0, requires_grad=True)", "torch.zeros(2, 0, requires_grad=True)",
    "(p2 * 1000).softmax(-1)", "torch.ones(1, 40, requires_grad=True)", "torch.ones(1, 11, requires_grad=True) * 1.5",
    "torch.ones(1, 9, requires_grad=True) * 1.5", "torch.ones(1, 10, requires_grad=True) * 1.5",
    "torch.ones(2, 9) * 1.5 + p2[:2, :1]", "torch.ones(2, 10) * 1.5 + p2[:2, :1]", "p2.grad_fn", "y2.grad_fn",
    "p2.requires_grad", "x2.requires_grad", "y2.requires_grad", "y2.is_leaf", "p2.is_leaf", "p2.grad",
    "y2.grad_fn is None", "p2.grad_fn is None", "nn.Parameter(torch.ones(2), requires_grad=False)",
    "torch.ones(2, 3, dtype=torch.float64) * 1e-5 + p2[:2, :3]",
]


def describe(r):
    if isinstance(r, torch.Tensor):
        fn = type(r.grad_fn).__name__ if r.grad_fn is not None else None
        return ("tensor", fn, r.requires_grad)
    return ("value", None, False)


def run(code, stmt=False):
    env = {"torch": torch, "nn": nn, "F": F, "np": np}
    exec(SETUP, env)
    try:
        if stmt:
            exec(code, env)
            last = code.split("\n")[-1].strip()
            name = last.split("[")[0].split(" ")[0].split(".")[0]
            return describe(env[name]) + (None,)
        r = eval(code, env)
        return describe(r) + (None,)
    except Exception as e:  # noqa: BLE001 - every error is a reference
        return ("error", None, False, str(e).split("\n")[0])


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def main():
    lines = ["/* Generated by tests/ref/grad_refs.py from torch %s; do not edit." % torch.__version__,
             " * Regenerate with: /usr/bin/python3 tests/ref/grad_refs.py */", "",
             "static const char grad_setup[] = " + c_str(SETUP) + ";", "",
             "static const struct grad_ref grad_refs[] = {"]
    seen = set()
    for stmt, codes in ((False, CASES), (True, STMTS)):
        for code in codes:
            if code in seen:
                continue
            seen.add(code)
            kind, fn, rg, err = run(code, stmt)
            lines.append("\t{ %s, %s, %s, %s, %s, %s }," % (
                c_str(code), "true" if stmt else "false", c_str(kind),
                c_str(fn) if fn else "NULL", "true" if rg else "false", c_str(err) if err else "NULL"))
    lines.append("};")
    lines.append("")
    lines.append("static const struct grad_repr grad_reprs[] = {")
    for code in REPRS:
        env = {"torch": torch, "nn": nn, "F": F, "np": np}
        exec(SETUP, env)
        r = eval(code, env)
        text = repr(r)
        if text.startswith("<") and " object at 0x" in text:
            text = text.split(" object at 0x")[0] + " object>"
        lines.append("\t{ %s, %s }," % (c_str(code), c_str(text)))
    lines.append("};")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d cases, %d reprs" % (OUT, len(seen), len(REPRS)))


if __name__ == "__main__":
    main()
