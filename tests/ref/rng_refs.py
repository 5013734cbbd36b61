#!/usr/bin/python3
# rng_refs.py: reference random numbers from the real PyTorch 1.13 and
# NumPy 1.24 for tests/unit/test_rng.c. Writes tests/ref/rng_refs.inc (next
# to this script) itself; rerun after changing it with
#     /usr/bin/python3 tests/ref/rng_refs.py
# (/usr/bin/python3, not the pyenv python3 first on PATH, which has no torch).
# Floats are printed with %.9g, doubles with %.17g: both round-trip exactly.
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cemit  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rng_refs.inc")

lines = []


def emit(ctype, name, values, comment):
    """One C array; values is any flat iterable."""
    cemit.emit(lines, ctype, name, values, comment)


def flat(t):
    return t.detach().reshape(-1).tolist()


# ---------------------------------------------------------------- mt19937
rs = np.random.RandomState(5489)
words = [int(v) for v in rs.randint(0, 2**32, size=8, dtype=np.uint64)]
assert words[0] == 3499211612  # the canonical first mt19937 output for 5489
emit("uint32_t", "ref_mt_seed5489", words,
     "np.random.RandomState(5489): first 8 raw mt19937 words (randint over "
     "the full 32 bits takes one word each)")

torch.manual_seed(0)
emit("int64_t", "ref_torch_random_full_seed0",
     flat(torch.empty(4, dtype=torch.int64).random_()),
     "torch.manual_seed(0); torch.empty(4, dtype=torch.int64).random_() "
     "= random64() % 2^63, high word drawn first")

# ------------------------------------------------------------- torch.randn
torch.manual_seed(42)
a = torch.randn(3, 5)
assert "%.4f" % a[0, 0].item() == "0.3367" and "%.4f" % a[0, 4].item() == "-1.1229"
b = torch.randn(5, 4)
c = torch.randn(5, 4)
d = torch.randn(2, 3, 5)
emit("float", "ref_randn_seed42_3x5", flat(a),
     "torch.manual_seed(42); torch.randn(3, 5)  (0.3367, 0.1288, ...)")
emit("float", "ref_randn_seed42_then_5x4_a", flat(b), "then torch.randn(5, 4)")
emit("float", "ref_randn_seed42_then_5x4_b", flat(c), "then torch.randn(5, 4) again")
emit("float", "ref_randn_seed42_then_2x3x5", flat(d), "then torch.randn(2, 3, 5)")

for n in (16, 17, 100):
    torch.manual_seed(42)
    emit("float", "ref_randn_seed42_n%d" % n, flat(torch.randn(n)),
         "torch.manual_seed(42); torch.randn(%d)" % n)

torch.manual_seed(1234)
seq = []
for n in range(1, 41):
    seq += flat(torch.randn(n))
emit("float", "ref_randn_sizes_1_to_40_seed1234", seq,
     "torch.manual_seed(1234); torch.randn(n) for n = 1..40, concatenated")

torch.manual_seed(1234)
seq = []
for n in range(1, 41):
    seq += flat(torch.randn(n, dtype=torch.float64))
emit("double", "ref_randn64_sizes_1_to_40_seed1234", seq,
     "torch.manual_seed(1234); torch.randn(n, dtype=torch.float64), n = 1..40")

torch.manual_seed(7)
seq = []
for n in (5, 37, 3, 16):
    seq += flat(torch.empty(n).normal_(0.5, 3.0))
emit("float", "ref_normal_mean05_std3_seed7", seq,
     "torch.manual_seed(7); torch.empty(n).normal_(0.5, 3.0), n = 5, 37, 3, 16")

torch.manual_seed(7)
seq = []
for n in (5, 37, 3, 16):
    seq += flat(torch.empty(n, dtype=torch.float64).normal_(0.5, 3.0))
emit("double", "ref_normal64_mean05_std3_seed7", seq,
     "same with dtype=torch.float64")

torch.manual_seed(2024)
emit("float", "ref_randn_seed2024_n4096", flat(torch.randn(4096)),
     "torch.manual_seed(2024); torch.randn(4096) (the AVX2 path at length)")

# -------------------------------------------------------------- torch.rand
torch.manual_seed(123)
for i in range(3):
    emit("float", "ref_rand_seed123_3x2_%d" % i, flat(torch.rand(3, 2)),
         "torch.manual_seed(123); torch.rand(3, 2), draw %d" % (i + 1))
for i in range(3):
    emit("float", "ref_linear_3_2_nobias_%d" % i,
         flat(nn.Linear(3, 2, bias=False).weight),
         "then nn.Linear(3, 2, bias=False).weight, draw %d" % (i + 1))
lin = nn.Linear(4, 4)
emit("float", "ref_linear_4_4_weight", flat(lin.weight), "then nn.Linear(4, 4).weight")
emit("float", "ref_linear_4_4_bias", flat(lin.bias), "and its .bias")

torch.manual_seed(0)
emit("float", "ref_rand_seed0_n1000", flat(torch.rand(1000)),
     "torch.manual_seed(0); torch.rand(1000)")

torch.manual_seed(0)
emit("double", "ref_rand64_seed0_n8", flat(torch.rand(8, dtype=torch.float64)),
     "torch.manual_seed(0); torch.rand(8, dtype=torch.float64)")

torch.manual_seed(9)
emit("float", "ref_uniform_m03_04_seed9", flat(torch.empty(64).uniform_(-0.3, 0.4)),
     "torch.manual_seed(9); torch.empty(64).uniform_(-0.3, 0.4)")
torch.manual_seed(9)
emit("double", "ref_uniform64_m03_04_seed9",
     flat(torch.empty(64, dtype=torch.float64).uniform_(-0.3, 0.4)),
     "same with dtype=torch.float64")

torch.manual_seed(2**32 + 5)
emit("float", "ref_rand_seed_2pow32_plus5", flat(torch.rand(3)),
     "torch.manual_seed(2**32 + 5); torch.rand(3) (only the low 32 bits count)")

gen = torch.Generator()
assert gen.initial_seed() == 67280421310721
emit("float", "ref_rand_default_seed", flat(torch.rand(3, generator=gen)),
     "torch.rand(3, generator=torch.Generator()), seed 67280421310721")

# ------------------------------------------------- nn.Linear bounds, exactly
bounds = []
real_uniform = torch.Tensor.uniform_


def spy_uniform(self, a=0.0, b=1.0, **kw):
    bounds.append(b)
    return real_uniform(self, a, b, **kw)


fans = [1, 2, 3, 4, 5, 7, 8, 16, 64, 100, 512, 768]
torch.Tensor.uniform_ = spy_uniform
try:
    for fan in fans:
        nn.Linear(fan, 1)
finally:
    torch.Tensor.uniform_ = real_uniform
assert len(bounds) == 2 * len(fans)
emit("int64_t", "ref_linear_fans", fans, "fan_in values for the two bound tables")
emit("double", "ref_linear_weight_bounds", bounds[0::2],
     "bound nn.Linear(fan_in, 1) passes to weight.uniform_(-b, b)")
emit("double", "ref_linear_bias_bounds", bounds[1::2],
     "bound nn.Linear(fan_in, 1) passes to bias.uniform_(-b, b)")

# ------------------------------------------------------ bernoulli, dropout
torch.manual_seed(0)
seq = []
for n in (1, 10, 37):
    seq += flat(torch.empty(n).bernoulli_(0.5))
emit("uint8_t", "ref_bernoulli_half_seed0", seq,
     "torch.manual_seed(0); torch.empty(n).bernoulli_(0.5), n = 1, 10, 37")

torch.manual_seed(3)
emit("uint8_t", "ref_bernoulli_09_seed3", flat(torch.empty(200).bernoulli_(0.9)),
     "torch.manual_seed(3); torch.empty(200).bernoulli_(0.9)")

torch.manual_seed(3)
kept = flat(nn.Dropout(0.1)(torch.ones(200)) != 0)
emit("uint8_t", "ref_dropout_01_keep_seed3", kept,
     "torch.manual_seed(3); nn.Dropout(0.1)(torch.ones(200)) != 0")

torch.manual_seed(11)
kept = flat(nn.Dropout(0.5)(torch.ones(4, 8)) != 0)
emit("uint8_t", "ref_dropout_05_keep_seed11", kept,
     "torch.manual_seed(11); nn.Dropout(0.5)(torch.ones(4, 8)) != 0")

# --------------------------------------------------------------- randint
torch.manual_seed(0)
emit("int64_t", "ref_randint_0_10_seed0", flat(torch.randint(0, 10, (8,))),
     "torch.manual_seed(0); torch.randint(0, 10, (8,))")
torch.manual_seed(5)
seq = flat(torch.randint(-5, 5, (20,)))
seq += flat(torch.randint(0, 2**40, (6,)))
seq += flat(torch.randint(-2**62, 2**62, (4,)))
seq += flat(torch.randint(3, 4, (2,)))
emit("int64_t", "ref_randint_mixed_seed5", seq,
     "torch.manual_seed(5); randint(-5, 5, (20,)), randint(0, 2**40, (6,)), "
     "randint(-2**62, 2**62, (4,)), randint(3, 4, (2,))")

# ------------------------------------------------------------ numpy legacy
np.random.seed(775)
for i in range(3):
    r = np.random.rand(3, 2)
    if i == 0:
        assert np.array_str(r) == ("[[0.37573502 0.24683143]\n [0.24614648 0.38234858]\n"
                                   " [0.03510655 0.89775264]]"), np.array_str(r)
    emit("double", "ref_np_rand_seed775_3x2_%d" % i, r.reshape(-1),
         "np.random.seed(775); np.random.rand(3, 2), draw %d" % (i + 1))
emit("double", "ref_np_randn_seed775_after", np.random.randn(10),
     "then np.random.randn(10)")

np.random.seed(0)
seq = list(np.random.randn(7)) + list(np.random.rand(2)) + list(np.random.randn(3))
emit("double", "ref_np_randn_rand_mix_seed0", seq,
     "np.random.seed(0); randn(7), rand(2), randn(3): the gauss cache "
     "survives rand")

np.random.seed(1)
np.random.randn(1)
np.random.seed(1)
emit("double", "ref_np_randn_reseed1", np.random.randn(2),
     "np.random.seed(1); randn(1); np.random.seed(1); randn(2): seed "
     "drops the cache")

header = [
    "/* rng_refs.inc: reference values for tests/unit/test_rng.c, generated by",
    " * tests/ref/rng_refs.py with torch %s and numpy %s on %s." % (
        torch.__version__, np.__version__, torch.__config__.show().split(
            "CPU capability usage: ")[1].split("\n")[0].strip()),
    " * Do not edit: rerun /usr/bin/python3 tests/ref/rng_refs.py */",
    "",
]
with open(OUT, "w") as f:
    f.write("\n".join(header + lines))
print("wrote", OUT, file=sys.stderr)
