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
import ast
import contextlib
import io
import json
import math
import pathlib
import sys

import torch

LESSON = pathlib.Path(__file__).resolve().parent.parent.parent / "lessons" / "08-kv-cache-and-cross-attention.json"


def lines(x):
    if x is None:
        return []
    return x if isinstance(x, list) else [x]


def display(value):
    if value is not None and not isinstance(value, torch.Generator):
        print(repr(value))


def run(code, env, name):
    """Runs statements; a top-level bare expression's value is displayed."""
    tree = ast.parse(code, name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for stmt in tree.body:
            if isinstance(stmt, ast.Expr):
                display(eval(compile(ast.Expression(stmt.value), name, "eval"), env))
            else:
                exec(compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec"), env)
    return out.getvalue()


def last_value(code, env, name):
    """Runs a solution; returns the value of its last statement (a bare
    expression's value, or the value just assigned)."""
    tree = ast.parse(code, name)
    value = None
    with contextlib.redirect_stdout(io.StringIO()):
        for stmt in tree.body:
            if isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), name, "eval"), env)
            else:
                exec(compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec"), env)
                if isinstance(stmt, ast.Assign):
                    value = eval(ast.unparse(stmt.targets[-1]), env)
    return value


def as_tensor(v):
    if isinstance(v, torch.Tensor):
        return v.detach().double()
    return torch.tensor(v, dtype=torch.float64)


def close(got, want, tol):
    got, want = as_tensor(got), as_tensor(want)
    if got.shape != want.shape:
        return f"shape {tuple(got.shape)} where {tuple(want.shape)} was expected"
    both_nan = torch.isnan(got) & torch.isnan(want)
    same_inf = torch.isinf(got) & (got == want)
    diff = (got - want).abs().masked_fill(both_nan | same_inf, 0.0)
    if torch.isnan(diff).any() or (diff > tol).any():
        return f"largest difference {diff.nan_to_num(math.inf).max().item()} (tolerance {tol})"
    return None


def nested(values):
    if isinstance(values, list):
        return [nested(v) for v in values]
    return float(values) if isinstance(values, str) else values


def main():
    show = "--print" in sys.argv[1:]
    lesson = json.loads(LESSON.read_text())
    env = {"__name__": "__main__"}
    failures = 0
    for n, step in enumerate(lesson["steps"], 1):
        where = f"step {n} ({step['title']})"
        printed = run("\n".join(lines(step.get("code"))), env, f"step {n}")
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
                problem = close(eval(e["tensor"], env), nested(e["values"]), e.get("tol", 1e-4))
            if problem:
                failures += 1
                print(f"{where}: expect[{i}]: {problem}", file=sys.stderr)
        for i, x in enumerate(lines(step.get("exercise"))):
            want = eval(x["answer"], env)
            solution = "\n".join(lines(x["solution"]))
            got = last_value(solution, dict(env), f"step {n} solution")
            problem = close(got, want, x.get("tol", 1e-4))
            if problem:
                failures += 1
                print(f"{where}: exercise[{i}]: the solution gives {got!r}: {problem}", file=sys.stderr)
    print(f"{LESSON.name}: {failures} differences from torch {torch.__version__}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
