#!/usr/bin/python3
"""The GPT-2-shaped attention forward in PyTorch and in qkv, side by side.

    tests/torch_side_by_side.py [--qkv PATH] [--rounds N] [--repeat N] [--quick] [--case NAME[,NAME...]]

It times in PyTorch the same computations `qkv bench` times
(src/bench/bench.c), on the same shapes, runs `qkv bench --json` and prints
one table: each case's time in torch and on qkv's SIMD kernel (its path,
avx2, avx512..., is printed), how many times faster or slower qkv is, and
the GFLOP/s of each, counted with the flop counts qkv uses (only the pairs
a causal mask keeps count for attention, so both sides are credited the
same useful work).

Rounds: the machine is shared, so the two sides are interleaved: qkv
bench, then torch, then qkv, torch... --rounds N times (default 3), and
each side's best round is compared with the other's (best against best, as
issue 17 asks), a busy neighbour having had the same chances to slow both.
The spread printed beside each best is (worst round - best round) / best
round: how much the machine moved during the run.

The cases (B 10, T 512, 12 heads of 64, d_model 768, as seed 002's timing):
  matmul_qkv    x (B*T, 768) @ W (768, 2304)
  attn_causal   per (batch, head): Q K^T, /8, causal mask, softmax, @ V
  attn_full     the same without the mask
  mha_gpt2      the whole forward: seed 002's MultiHeadSelfAttention
                (W_query, W_key, W_value Linear(768, 768, bias=False), heads
                split by view/transpose, causal mask, softmax, dropout, heads
                merged, out_proj Linear(768, 768)), in eval mode so dropout
                does nothing, as qkv's forward has none. Two departures from
                the notebook: its forward takes key and value from the query
                (`key = query.view(...)`, a slip lesson 3 points out); here
                they come from W_key and W_value, as in qkv. qkv projects
                with one fused (768, 2304) product where the notebook makes
                three (768, 768) ones (the same flops), and qkv's output
                projection has no bias (768*B*T additions, not counted).
  attn_T<T>     one causal head of 64 as T grows (128 ... 4096)
  small_ops     the interpreter's overhead per call: 10,000 iterations of
                `y = torch.softmax(A @ B.T / 2, dim=-1)` on 4x4 tensors (A, B
                from torch.randn(4, 4)), run in torch eager mode by exec
                with autograd on (as a notebook runs it; A and B need no
                grad), the same loop qkv bench runs in its interpreter.
  loop_int_200k `s = s + i * 3 % 7` 200,000 times: plain Python (CPython,
                the interpreter running this script) against qkv's.
  loops_seed003 seed 003's first loop cell as the document writes it: the
                double loop of torch.dot over 10 queries and 10 keys, the
                softmax, and the weighted-sum loop over 64 features; read
                from tests/docs/seed003.qkv (its cells before that one make
                x, the projections and queries/keys/values once, untimed),
                run by exec with autograd on, as a notebook runs it. The
                same in --quick. Its GFLOP/s are not counted (the work is
                the interpreter's, not arithmetic); qkv bench times it as
                its "interp" variant.
Attention is timed two ways in torch: the explicit operations seed 002
writes (q @ k.transpose, masked_fill_, softmax of scores / sqrt(d), @ v) and
F.scaled_dot_product_attention where the installed torch has it (2.0 and
later; 1.13 does not, and a line above the table then says so).

--case NAME[,NAME...] times only the cases named, on both sides (qkv bench
--case NAME): `--case small_ops` when torch's BLAS makes the large cases
take minutes.
--quick runs the small shapes `qkv bench --quick` uses (B 1, T 64, 2 heads
of 32; one head at T 64, 128, 256), on both sides (small_ops and
loop_int_200k keep their size). --repeat N (default 5): in each round each
torch time is the best of N runs after one warm-up, wall time by
time.perf_counter, under torch.no_grad() (the loops: with autograd on),
float32, torch.manual_seed(0). qkv times itself in each round: best of up
to 10 runs, fewer when they take over 1 s in all.
qkv bench's screen cases (first_frame, redraw_64) have no torch twin: they
are printed after the table, with their targets.
--qkv PATH: the qkv binary (default: qkv at the root of this repository;
build it with `make qkv`).

Threads and BLAS: torch keeps its default number of threads (printed with
what OpenMP reports; OMP_NUM_THREADS changes it; Debian's torch here has 1
on this 2-CPU machine). qkv splits large matrix products over as many
threads as there are CPUs, attention too (heads and query tiles);
QKV_THREADS changes that. Both are inherited from the environment, so
`QKV_THREADS=1 tests/torch_side_by_side.py` puts qkv on one thread too.
torch's matrix products are the BLAS's, and Debian's python3-torch uses
whatever libblas.so.3 the alternatives system points at: the netlib
reference BLAS (plain loops, one thread, some 6 GFLOP/s) unless OpenBLAS
(libopenblas0) or another is installed. The "torch BLAS" line names the
library actually loaded (and for OpenBLAS its own thread count, which
OPENBLAS_NUM_THREADS sets; libopenblas0-pthread runs its products on its
own threads whatever torch's count is); it changes torch's products by
about ten times.

Agreement: before timing, a small case (B 2, T 10, 3 heads of 16) is
computed in torch and in qkv from the same numbers: qkv has no way to read
tensors from a file, so the inputs are written into `qkv eval` statements
as literals (float32 values printed with 9 significant digits, which
round-trip exactly) and qkv's results come back as JSON. Checked: causal and
full attention by the explicit operations, causal attention by
F.scaled_dot_product_attention(is_causal=True) in qkv, and the whole
multi-head forward, each on qkv's SIMD and loop kernels, against torch's
float32 result; the largest difference relative to the largest magnitude
must stay under 1e-5. This checks qkv's engine on the same mathematics,
not the bench's own run_mha function (that is compared with the loops by
qkv bench itself).

Needs only the standard library and torch. Without torch (the interpreter
running it has none and /usr/bin/python3 has none either) it prints
"skipped: ..." and exits 0. Exit status: 0 when everything ran and agreed,
1 when qkv is missing, fails, prints no timing, or disagrees with torch (the
table is still printed then), 2 on a usage error.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    # The first python3 on PATH may be one without torch (a pyenv one);
    # Debian's python3-torch lives with /usr/bin/python3.
    here = os.path.realpath(sys.executable or "")
    if (os.environ.get("QKV_TORCH_REEXEC") != "1" and os.path.exists("/usr/bin/python3")
            and here != os.path.realpath("/usr/bin/python3")):
        os.environ["QKV_TORCH_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + sys.argv[1:])
    print("skipped: PyTorch is not installed (apt-get install python3-torch)")
    sys.exit(0)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The shapes of src/bench/bench.c: (batch, tokens, heads, head size), and
# the T of the one-head cases.
SHAPE_FULL, SHAPE_QUICK = (10, 512, 12, 64), (1, 64, 2, 32)
TS_FULL, TS_QUICK = (128, 512, 1024, 2048, 4096), (64, 128, 256)
SEED003 = os.path.join(REPO, "tests", "docs", "seed003.qkv")
CONTEXT_LENGTH = 1024  # seed 002's gpt2_context_length (the mask buffer's size)
TOLERANCE = 1e-5
# The loops of qkv bench's small_ops and loop_int_200k (src/bench/bench.c).
SMALL_SETUP = "import torch\nA = torch.randn(4, 4)\nB = torch.randn(4, 4)\n"
SMALL_LOOP = "for i in range(10000):\n    y = torch.softmax(A @ B.T / 2, dim=-1)\n"
INT_LOOP = "s = 0\nfor i in range(200000):\n    s = s + i * 3 % 7\n"
# qkv bench's cases with no torch twin, and their targets (issue 17).
SCREEN_CASES = (("first_frame", "qkv 1 to its first frame, without a terminal", 50),
                ("redraw_64", "a 64x64 heatmap's frame after a key, without a terminal", 10),
                ("redraw_2048", "a key at the prompt with a 2048x2048 value shown, without a terminal", 10))


# ---- flop counts, as bench.c counts them -------------------------------------

def attention_flops(heads, t, d, causal):
    pairs = t * (t + 1) / 2 if causal else t * t
    return heads * pairs * 4.0 * d


def matmul_flops(bt, dm):
    return 2.0 * bt * dm * 3 * dm


def mha_flops(b, t, h, d):
    bt, dm = b * t, h * d
    return 2.0 * bt * dm * 3 * dm + attention_flops(b * h, t, d, True) + 2.0 * bt * dm * dm


# ---- torch's side ------------------------------------------------------------

class MultiHeadSelfAttention(nn.Module):
    """Seed 002's class, with key and value taken from W_key and W_value."""

    def __init__(self, d_in, d_out, context_length, num_heads, drop_rate, qkv_bias=False):
        super().__init__()
        self.in_dim = d_in
        self.out_dim = d_out
        self.num_heads = num_heads
        self.head_dim = self.out_dim // self.num_heads
        self.context_length = context_length
        self.W_query = nn.Linear(self.in_dim, self.out_dim, bias=qkv_bias)
        self.W_key = nn.Linear(self.in_dim, self.out_dim, bias=qkv_bias)
        self.W_value = nn.Linear(self.in_dim, self.out_dim, bias=qkv_bias)
        self.out_proj = nn.Linear(self.out_dim, self.out_dim)
        self.dropout = nn.Dropout(drop_rate)
        self.register_buffer('mask', torch.triu(torch.ones(self.context_length, self.context_length), diagonal=1))

    def forward(self, x):
        num_seq, num_tokens, _ = x.shape
        query = self.W_query(x)
        key = self.W_key(x)
        value = self.W_value(x)
        query = query.view(num_seq, num_tokens, self.num_heads, self.head_dim)
        key = key.view(num_seq, num_tokens, self.num_heads, self.head_dim)
        value = value.view(num_seq, num_tokens, self.num_heads, self.head_dim)
        attention_scores = query.transpose(1, 2) @ key.transpose(1, 2).transpose(2, 3)
        attention_scores.masked_fill_(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attention_weights = torch.softmax(attention_scores / self.head_dim ** 0.5, dim=-1)
        drop_attention_weights = self.dropout(attention_weights)
        context_vector = drop_attention_weights @ value.transpose(1, 2)
        context_vector = context_vector.transpose(1, 2)
        context_vector = context_vector.contiguous().view(num_seq, num_tokens, self.out_dim)
        return self.out_proj(context_vector)


def attention_explicit(q, k, v, mask):
    """Seed 002's steps: scores, the causal mask, softmax of scores / sqrt(d), @ v."""
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores.masked_fill_(mask, -torch.inf)
    weights = torch.softmax(scores / q.shape[-1] ** 0.5, dim=-1)
    return weights @ v


SDPA = getattr(F, "scaled_dot_product_attention", None)


def uniform(*shape):
    """Uniform in [-0.5, 0.5), as bench.c's inputs."""
    return torch.rand(*shape) - 0.5


def seed003_cells():
    """(setup, loop): the source of seed 003's cells before its first cell
    with a for loop, and of that cell, from tests/docs/seed003.qkv (cells
    begin at their `# In [None]:` line)."""
    cells, cur = [], []
    with open(SEED003) as f:
        for line in f:
            if line.startswith("# In [") and cur:
                cells.append("".join(cur))
                cur = []
            cur.append(line)
    cells.append("".join(cur))
    first = next(i for i, c in enumerate(cells) if any(l.startswith("for ") for l in c.splitlines()))
    return "".join(cells[:first]), cells[first]


def time_loop(setup, loop, repeat, name="<bench>"):
    """ms of the source loop after setup (both run by exec in one fresh
    namespace, as a notebook's cells), best of repeat, with autograd on."""
    env = {"__name__": "__bench__"}
    with torch.enable_grad():
        exec(compile(setup, name, "exec"), env)
        code = compile(loop, name, "exec")
        return best_ms(lambda: exec(code, env), repeat)


def best_ms(fn, repeat):
    fn()  # warm-up
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def time_torch(shape, ts, repeat, wanted):
    """{case: [(variant, ms)]} for every case of qkv bench that wanted(case)."""
    b, t, h, d = shape
    bt, dm = b * t, h * d
    res = {}
    if wanted("matmul_qkv"):
        x2d, w = uniform(bt, dm), uniform(dm, 3 * dm)
        res["matmul_qkv"] = [("x2d @ W", best_ms(lambda: x2d @ w, repeat))]
        del x2d, w

    def attention_rows(nb, nh, tt, dd, causal):
        q, k, v = (uniform(nb, nh, tt, dd) for _ in range(3))
        mask = torch.triu(torch.ones(tt, tt), diagonal=1).bool() if causal else None
        rows = [("explicit", best_ms(lambda: attention_explicit(q, k, v, mask), repeat))]
        if SDPA is not None:
            rows.append(("F.sdpa", best_ms(lambda: SDPA(q, k, v, is_causal=causal), repeat)))
        return rows

    if wanted("attn_causal"):
        res["attn_causal"] = attention_rows(b, h, t, d, True)
    if wanted("attn_full"):
        res["attn_full"] = attention_rows(b, h, t, d, False)

    if wanted("mha_gpt2"):
        mhsa = MultiHeadSelfAttention(dm, dm, CONTEXT_LENGTH, h, 0.1).eval()
        x = torch.rand(size=(b, t, dm))
        res["mha_gpt2"] = [("002 MHSA", best_ms(lambda: mhsa(x), repeat))]
        del mhsa, x

    for tt in ts:
        if wanted("attn_T%d" % tt):
            res["attn_T%d" % tt] = attention_rows(1, 1, tt, 64, True)
    if wanted("small_ops"):
        res["small_ops"] = [("eager", time_loop(SMALL_SETUP, SMALL_LOOP, repeat))]
    if wanted("loop_int_200k"):
        res["loop_int_200k"] = [("CPython", time_loop("", INT_LOOP, repeat))]
    if wanted("loops_seed003"):
        res["loops_seed003"] = [("003 loops", time_loop(*seed003_cells(), repeat, SEED003))]
    return res


def torch_flops(shape, case):
    b, t, h, d = shape
    if case == "matmul_qkv":
        return matmul_flops(b * t, h * d)
    if case == "attn_causal":
        return attention_flops(b * h, t, d, True)
    if case == "attn_full":
        return attention_flops(b * h, t, d, False)
    if case == "mha_gpt2":
        return mha_flops(b, t, h, d)
    if case.startswith("attn_T"):
        return attention_flops(1, int(case[6:]), 64, True)
    return None


def blas_in_use():
    """torch's build setting and the BLAS libraries this process has mapped."""
    info = "?"
    for part in torch.__config__.show().replace(",", "\n").split("\n"):
        if "BLAS_INFO=" in part:
            info = part.strip().split("=", 1)[1]
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                base = os.path.basename(path).lower()
                if path.startswith("/") and any(s in base for s in ("blas", "mkl_", "libmkl", "blis")):
                    libs.add(os.path.realpath(path))
    except OSError:
        pass
    notes = []
    for p in sorted(libs):
        if "openblas" in p:
            notes.append(p + " (OpenBLAS%s)" % openblas_threads(p))
        elif "/blas/libblas" in p:
            notes.append(p + " (the netlib reference BLAS: plain loops, one thread)")
        else:
            notes.append(p)
    return "BLAS_INFO=%s; loaded: %s" % (info, ", ".join(notes) or "none found")


def openblas_threads(path):
    """", N threads" from OpenBLAS's own count (and its build), or ""."""
    try:
        import ctypes
        lib = ctypes.CDLL(path)
        lib.openblas_get_config.restype = ctypes.c_char_p
        return ", %d threads, %s" % (lib.openblas_get_num_threads(), lib.openblas_get_config().decode().strip())
    except (OSError, AttributeError):
        return ""


def threads_in_use():
    """torch's threads as torch and OpenMP report them."""
    info = torch.__config__.parallel_info()
    omp = re.search(r"omp_get_max_threads\(\) : (\d+)", info)
    backend = re.search(r"ATen parallel backend: (.*)", info)
    return ("%d intra-op, %d inter-op; OpenMP max threads %s; backend %s; OMP_NUM_THREADS=%s"
            % (torch.get_num_threads(), torch.get_num_interop_threads(), omp.group(1) if omp else "?",
               backend.group(1).strip() if backend else "?", os.environ.get("OMP_NUM_THREADS", "(not set)")))


# ---- qkv's side --------------------------------------------------------------

def run_qkv_bench(qkv, quick, case):
    cmd = [qkv, "bench", "--json"] + (["--quick"] if quick else []) + (["--case", case] if case else [])
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        return None, None, "cannot run %s: %s" % (qkv, e)
    if p.returncode != 0:
        return None, None, "%s exited with %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip())
    simd, peak = {}, None
    for line in p.stdout.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            return None, None, "%s printed a line that is not JSON: %r" % (" ".join(cmd), line)
        if o.get("case") == "peak":
            peak = o
        elif o.get("variant") in ("simd", "interp", "ui") and "ms" in o:
            # the interpreter's cases (loops_seed003, small_ops...) have one
            # variant, "interp"; the screen's (first_frame, redraw_64) "ui"
            simd[o["case"]] = o
    if not simd:
        return None, None, "%s printed no simd timing" % " ".join(cmd)
    return simd, peak, None


def literal(t):
    """A qkv statement making tensor t from its exact float32 values."""
    vals = ", ".join("%.9g" % v for v in t.reshape(-1).tolist())
    return "torch.tensor([%s]).view(%s)" % (vals, ", ".join(str(n) for n in t.shape))


def check_agreement(qkv):
    """Small inputs computed by torch and by qkv eval (both kernels).
    Returns (lines to print, True when all agree), or (error, None) when
    qkv eval fails."""
    b, t, h, d = 2, 10, 3, 16
    dm = h * d
    q, k, v = (uniform(b, h, t, d) for _ in range(3))
    mask = torch.triu(torch.ones(t, t), diagonal=1).bool()
    mhsa = MultiHeadSelfAttention(dm, dm, t, h, 0.0).eval()
    x = torch.rand(size=(b, t, dm))
    expected = [("attention, causal (explicit ops)", attention_explicit(q, k, v, mask)),
                ("attention, full (explicit ops)", attention_explicit(q, k, v, None)),
                ("attention, causal (F.scaled_dot_product_attention in qkv)", attention_explicit(q, k, v, mask)),
                ("multi-head forward (002's class)", mhsa(x))]
    src = ["import torch", "import torch.nn.functional as F",
           "q = " + literal(q), "k = " + literal(k), "v = " + literal(v), "x = " + literal(x),
           "Wq = " + literal(mhsa.W_query.weight), "Wk = " + literal(mhsa.W_key.weight),
           "Wv = " + literal(mhsa.W_value.weight), "Wo = " + literal(mhsa.out_proj.weight),
           "bo = " + literal(mhsa.out_proj.bias),
           "mask = torch.triu(torch.ones(%d, %d), diagonal=1).bool()" % (t, t),
           "s = q @ k.transpose(-2, -1)",
           "torch.softmax(s.masked_fill(mask, -torch.inf) / %d ** 0.5, dim=-1) @ v" % d,
           "torch.softmax(s / %d ** 0.5, dim=-1) @ v" % d,
           "F.scaled_dot_product_attention(q, k, v, is_causal=True)",
           "query = (x @ Wq.T).view(%d, %d, %d, %d).transpose(1, 2)" % (b, t, h, d),
           "key = (x @ Wk.T).view(%d, %d, %d, %d).transpose(1, 2)" % (b, t, h, d),
           "value = (x @ Wv.T).view(%d, %d, %d, %d).transpose(1, 2)" % (b, t, h, d),
           "scores = (query @ key.transpose(2, 3)).masked_fill(mask, -torch.inf)",
           "weights = torch.softmax(scores / %d ** 0.5, dim=-1)" % d,
           "ctx = (weights @ value).transpose(1, 2).contiguous().view(%d, %d, %d)" % (b, t, dm),
           "ctx @ Wo.T + bo"]
    lines, ok = [], True
    got = {}
    for kernel in ("simd", "loops"):
        cmd = [qkv, "--kernel=" + kernel, "eval", "--json", "-"]
        try:
            p = subprocess.run(cmd, input="\n".join(src) + "\n", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        except OSError as e:
            return "cannot run %s: %s" % (qkv, e), None
        outs = []
        for line in p.stdout.splitlines():
            try:
                outs.append(json.loads(line))
            except ValueError:
                pass
        if p.returncode != 0 or len(outs) != len(expected):
            return "%s failed (status %d, %d results of %d): %s" % (" ".join(cmd[:-1]), p.returncode, len(outs),
                                                                    len(expected), p.stderr.strip()), None
        got[kernel] = outs
    for i, (name, want) in enumerate(expected):
        diffs = []
        for kernel in ("simd", "loops"):
            o = got[kernel][i]
            if list(o.get("shape", [])) != list(want.shape):
                diffs.append("%s: shape %s, torch %s" % (kernel, o.get("shape"), list(want.shape)))
                ok = False
                continue
            have = torch.tensor([float(z) for z in o["data"]], dtype=torch.float32).view(want.shape)
            rel = ((have - want).abs().max() / want.abs().max()).item()
            ok = ok and rel < TOLERANCE
            diffs.append("%s %.1e" % (kernel, rel))
        lines.append("  %-58s %s" % (name, ", ".join(diffs)))
    return lines, ok


# ---- the report --------------------------------------------------------------

def fmt_ms(ms):
    """Four significant figures, as qkv bench --json gives them."""
    return "%.4g" % ms if ms < 1e4 else "%.0f" % ms


def plainly(torch_ms, qkv_ms):
    r = torch_ms / qkv_ms
    if r >= 1:
        return "qkv %.1f× faster" % r
    return "qkv %.1f× slower" % (1 / r)


def best_and_spread(values):
    """(best, "+N%": (worst - best) / best) of a side's rounds, or (None, "")."""
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None, ""
    best = min(values)
    return best, "+%.0f%%" % (100 * (max(values) - best) / best) if len(values) > 1 else ""


def main():
    ap = argparse.ArgumentParser(description="PyTorch and qkv bench, side by side.")
    ap.add_argument("--qkv", default=os.path.join(REPO, "qkv"), help="the qkv binary (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="qkv bench and torch, interleaved, N times each; best against best (default 3)")
    ap.add_argument("--repeat", type=int, default=5,
                    help="torch: best of N runs after a warm-up, in each round (default 5)")
    ap.add_argument("--quick", action="store_true", help="the small shapes of qkv bench --quick")
    ap.add_argument("--case", default="", help="only these cases, NAME[,NAME...] (default: all)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if not os.access(args.qkv, os.X_OK):
        print("qkv not found at %s: build it with `make qkv` or pass --qkv PATH" % args.qkv)
        return 1

    torch.manual_seed(0)
    shape, ts = (SHAPE_QUICK, TS_QUICK) if args.quick else (SHAPE_FULL, TS_FULL)
    all_cases = (["matmul_qkv", "attn_causal", "attn_full", "mha_gpt2"] + ["attn_T%d" % n for n in ts]
                 + ["small_ops", "loop_int_200k", "loops_seed003"])
    named = [c for c in args.case.split(",") if c]
    unknown = [c for c in named if c not in all_cases + [sc[0] for sc in SCREEN_CASES]]
    if unknown:
        ap.error("--case: no case %s (cases: %s)" % (", ".join(unknown), ", ".join(all_cases)))
    wanted = (lambda c: c in named) if named else (lambda c: True)
    b, t, h, d = shape
    print("torch %s (%s), %d CPUs" % (torch.__version__, sys.executable, os.cpu_count()))
    print("torch threads: " + threads_in_use())
    print("torch BLAS: " + blas_in_use())
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg())

    qkv_rounds, torch_rounds = [], []
    with torch.no_grad():
        print("agreement on a small case (B 2, T 10, 3 heads of 16), largest |qkv - torch| / max|torch|:")
        lines, agree = check_agreement(args.qkv)
        if agree is None:
            print("qkv: " + lines)
            return 1
        print("\n".join(lines))
        print("  %s (tolerance %.0e)" % ("agree" if agree else "DISAGREE", TOLERANCE))

        peak = None
        for r in range(args.rounds):
            simd, round_peak, err = run_qkv_bench(args.qkv, args.quick, args.case)
            if err:
                print("qkv: " + err)
                return 1
            qkv_rounds.append(simd)
            round_peak = round_peak or {}
            peak = peak if peak and peak.get("gflops", 0) >= round_peak.get("gflops", 0) else round_peak
            t0 = time.perf_counter()
            torch_rounds.append(time_torch(shape, ts, args.repeat, wanted))
            print("round %d of %d: qkv bench, then torch (%.0f s); load %.2f"
                  % (r + 1, args.rounds, time.perf_counter() - t0, os.getloadavg()[0]))
        peak = peak or {}
        print("qkv %s: path %s, %s thread%s (QKV_THREADS sets it); %s"
              % (args.qkv, peak.get("path", peak.get("simd", "?")), peak.get("threads", "?"),
                 "" if peak.get("threads") == 1 else "s",
                 "peak %.1f GFLOP/s (the best round's)" % peak["gflops"] if "gflops" in peak else
                 "no multiply-add peak (qkv bench measures it for the kernel cases)"))

    print()
    print("B %d, T %d, %d heads of %d (d_model %d)%s; %d round%s, each side's best round against the other's "
          "(torch: best of %d after a warm-up in each; qkv: its simd kernels, path %s); spread: (worst - best) / best"
          % (b, t, h, d, h * d, ", --quick" if args.quick else "", args.rounds, "" if args.rounds == 1 else "s",
             args.repeat, peak.get("path", peak.get("simd", "?"))))
    if SDPA is None:
        print("F.scaled_dot_product_attention: not in torch %s (it came in 2.0), so attention is timed one way"
              % torch.__version__)
    head = "%-13s %-9s %9s %6s %8s %9s %6s %8s %9s  %s" % ("case", "torch", "torch ms", "spread", "GFLOP/s", "qkv ms",
                                                            "spread", "GFLOP/s", "torch/qkv", "")
    print(head)
    print("-" * (len(head) + 18))
    for case in filter(wanted, all_cases):
        q_ms, q_spread = best_and_spread([run[case]["ms"] if case in run else None for run in qkv_rounds])
        flops = torch_flops(shape, case)
        for i, (variant, _) in enumerate(torch_rounds[0][case]):
            ms, spread = best_and_spread([run[case][i][1] for run in torch_rounds])
            gflops = "%8.1f" % (flops / (ms * 1e6)) if flops else "%8s" % "-"
            line = "%-13s %-9s %9s %6s %s" % (case, variant, fmt_ms(ms), spread, gflops)
            if q_ms:
                qg = "%8.1f" % (flops / (q_ms * 1e6)) if flops else "%8s" % "-"
                line += " %9s %6s %s %9.2f  %s" % (fmt_ms(q_ms), q_spread, qg, ms / q_ms, plainly(ms, q_ms))
            else:
                line += " %9s %6s %8s %9s  (qkv bench printed no %s)" % ("-", "", "-", "-", case)
            print(line)
    print("(GFLOP/s count the flops qkv counts: 2mnk per product, 4d per unmasked (i, j) pair of attention)")
    print("qkv alone (no torch twin):")
    for case, what, target in filter(lambda sc: wanted(sc[0]), SCREEN_CASES):
        q_ms, q_spread = best_and_spread([run[case]["ms"] if case in run else None for run in qkv_rounds])
        if q_ms:
            print("  %-13s %9s ms %6s  %s (target under %d ms: %s)" % (case, fmt_ms(q_ms), q_spread, what, target,
                                                                      "met" if q_ms < target else "NOT MET"))
        else:
            print("  %-13s qkv bench printed no %s" % (case, case))
    print("  (in a real terminal: tests/frame_time.sh)")
    print("load average at end: %.2f %.2f %.2f" % os.getloadavg())
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
