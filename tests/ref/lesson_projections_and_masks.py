#!/usr/bin/python3
# lesson_projections_and_masks.py: runs the code of lessons/03-projections-and-masks.json
# in real Python (torch 1.13, NumPy), step after step in one namespace as qkv does,
# printing each bare expression's value, and checks every `expect` of the lesson
# against what torch and NumPy print, and that each exercise's solution gives its
# answer in Python too. The lesson's numbers come from here: step 5's
# np.random.seed(0) vector and its x100 softmax (second largest weight 6.1e-17),
# step 4's key distances, step 6's saturated scores, step 13's three heads.
#     /usr/bin/python3 tests/ref/lesson_projections_and_masks.py [-v]
# exits 1 and names the expect when one differs; -v prints every step's output.
# torch 1.13 has no F.scaled_dot_product_attention: the shim below is the math
# torch 2's function computes (softmax of the scaled, optionally causal scores, times v).
import json
import math
import os
import re
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lessonref import as_tensor, last_value, run  # noqa: E402

LESSON = os.path.join(HERE, "..", "..", "lessons", "03-projections-and-masks.json")


def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if is_causal:
        T, S = scores.shape[-2], scores.shape[-1]
        scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(scores, dim=-1) @ value


F.scaled_dot_product_attention = sdpa


NUM = re.compile(r"-?\d+(?:\.(\d*))?(?:e([+-]\d+))?")


def same_print(got, want):
    """As qkv check compares printed text: numbers may differ by one unit in their last digit."""
    g, w = NUM.split(got), NUM.split(want)
    gn, wn = NUM.finditer(got), NUM.finditer(want)
    if len(g) != len(w):
        return False
    for a, b in zip(gn, wn):
        unit = 10.0 ** (-len(a.group(1) or "") + int(a.group(2) or 0))
        if abs(float(a.group(0)) - float(b.group(0))) > unit * 1.0001:
            return False
    return NUM.sub("#", got) == NUM.sub("#", want)


def text(t):
    return "\n".join(t) if isinstance(t, list) else t


def close(got, want, tol):
    if isinstance(want, list):
        return len(got) == len(want) and all(close(g, w, tol) for g, w in zip(got, want))
    want = float(want)
    if math.isinf(want) or math.isnan(want):
        return got == want or (math.isnan(got) and math.isnan(want))
    return abs(got - want) <= tol


def main():
    verbose = "-v" in sys.argv
    lesson = json.load(open(LESSON, encoding="utf-8"))
    ns = {}
    bad = 0
    for k, step in enumerate(lesson["steps"], 1):
        code = text(step.get("code", ""))
        printed, _ = run(code, ns, name="<step>")
        if verbose:
            print(f"--- step {k}: {step['title']}\n{printed}")
        expects = step.get("expect", [])
        for e, x in enumerate(expects if isinstance(expects, list) else [expects]):
            where = f"step {k} expect {e}"
            if "output" in x:
                got, want = printed, text(x["output"])
            elif "text" in x:
                got, want = repr(eval(x["tensor"], ns)), text(x["text"])
            else:
                v = eval(x["tensor"], ns)
                got = v.tolist() if hasattr(v, "tolist") else v
                if not close(got, x["values"], x.get("tol", 1e-4)):
                    print(f"{where}: {x['tensor']} is {got}, the lesson says {x['values']}")
                    bad += 1
                continue
            if not same_print(got, want):
                print(f"{where}: Python prints\n{got}\nthe lesson says\n{want}")
                bad += 1
        xs = step.get("exercise", [])
        for e, x in enumerate(xs if isinstance(xs, list) else [xs]):
            want = as_tensor(eval(x["answer"], ns), detach=False)
            got = as_tensor(last_value(text(x["solution"]), dict(ns), assigned="name"), detach=False)
            if got.shape != want.shape or not torch.allclose(got, want, rtol=0, atol=x.get("tol", 1e-4)):
                print(f"step {k} exercise {e}: the solution gives\n{got}\nthe answer is\n{want}")
                bad += 1
    print(f"lesson_projections_and_masks: {'all expects hold' if not bad else f'{bad} differ'} in real Python")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
