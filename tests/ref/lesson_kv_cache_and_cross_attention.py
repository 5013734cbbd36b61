#!/usr/bin/python3
"""Runs the code of lessons/08-kv-cache-and-cross-attention.json in real
Python with PyTorch 1.13, step after step in one namespace, the way qkv runs
a lesson (a script, plus the echo of every top-level bare expression, as a
notebook displays a cell's value; torch.manual_seed's Generator is not
shown, as in qkv), and checks every number the lesson pins against it:

  - each `output` expect: what the step printed, character for character;
  - each `tensor` expect with `text`: repr() of the expression;
  - each `tensor` expect with `values`: the shape and every element within tol;
  - each exercise: its `answer`, evaluated in the step's namespace, equals
    what its `solution` gives (run in a copy of the namespace), within tol;
    for a `"predict": true` exercise the solution is the typed value.

So the lesson's numbers are torch's, not qkv's. `qkv check` then verifies
that qkv prints the same. Run:

  /usr/bin/python3 tests/ref/lesson_kv_cache_and_cross_attention.py          # check
  /usr/bin/python3 tests/ref/lesson_kv_cache_and_cross_attention.py --print  # each step's output

Exits 1 when anything differs, naming the step and the expect."""
import json
import math
import os
import pathlib
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lessonref import as_tensor, close, last_value, lines, nested, run  # noqa: E402

LESSON = pathlib.Path(__file__).resolve().parent.parent.parent / "lessons" / "08-kv-cache-and-cross-attention.json"


def differs(got, want, tol):
    """What differs between got and want (lessonref.close), or None."""
    ok, worst = close(got, want, tol)
    if worst is None:
        return f"shape {tuple(as_tensor(got).shape)} where {tuple(as_tensor(want).shape)} was expected"
    if not ok:
        # as torch's nan_to_num(math.inf) reports it: NaN as inf, inf as the largest double
        worst = torch.tensor(worst, dtype=torch.float64).nan_to_num(math.inf).item()
        return f"largest difference {worst} (tolerance {tol})"
    return None


def main():
    show = "--print" in sys.argv[1:]
    lesson = json.loads(LESSON.read_text())
    env = {"__name__": "__main__"}
    failures = 0
    for n, step in enumerate(lesson["steps"], 1):
        where = f"step {n} ({step['title']})"
        printed, _ = run(step.get("code"), env, name=f"step {n}", parse_name=f"step {n}", strip=False)
        if show:
            print(f"==== {where}\n{printed}", end="")
        for i, e in enumerate(lines(step.get("expect"))):
            problem = None
            if "output" in e:
                want = "\n".join(lines(e["output"]))
                if printed.rstrip("\n") != want:
                    problem = f"prints\n{printed}"
            elif "text" in e:
                got = repr(eval(e["tensor"], env))
                if got != "\n".join(lines(e["text"])):
                    problem = f"{e['tensor']} is {got}"
            else:
                problem = differs(eval(e["tensor"], env), nested(e["values"]), e.get("tol", 1e-4))
            if problem:
                failures += 1
                print(f"{where}: expect[{i}]: {problem}", file=sys.stderr)
        for i, x in enumerate(lines(step.get("exercise"))):
            want = eval(x["answer"], env)
            solution = "\n".join(lines(x["solution"]))
            got = last_value(solution, dict(env), f"step {n} solution", f"step {n} solution")
            problem = differs(got, want, x.get("tol", 1e-4))
            if problem:
                failures += 1
                print(f"{where}: exercise[{i}]: the solution gives {got!r}: {problem}", file=sys.stderr)
    print(f"{LESSON.name}: {failures} differences from torch {torch.__version__}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
