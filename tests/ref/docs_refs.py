#!/usr/bin/python3
"""Runs every tests/docs/*.qkv session in real Python with PyTorch, NumPy and
SciPy, the way `qkv eval` runs it (a script, plus the echo of every top-level
bare expression: a notebook's display of a cell's value; an expression inside
a block or a function prints nothing), and writes what they print to
tests/docs/NAME.ref. qkv's output is checked against these files (and
against NAME.doc, the text the source document printed).

IPython's magics as a notebook runs them: `%%time` opens a cell and times the
rest of it (up to the next `# In [N]:` line, or the end of the file; as in
IPython it must be its cell's first line, so the tests give qkv such cells one
`-e` each), `%time STMT` and `%timeit STMT` one statement; they print
IPython's own lines (the tests mask the times). A file whose first line is `# continues NAME.qkv`
runs after NAME.qkv in the same session; its .ref holds only what it prints.

Run with Debian's interpreter, which has python3-torch, python3-numpy,
python3-scipy and python3-ipython:  /usr/bin/python3 tests/ref/docs_refs.py
The .ref files are committed, so the tests need no Python."""
import ast
import contextlib
import io
import os
import pathlib
import re
import sys
import time
import timeit

import numpy
import torch
from IPython.core.magics.execution import TimeitResult, _format_time

HERE = pathlib.Path(__file__).resolve().parent.parent / "docs"
CELL = re.compile(r"^# In \[[^\]]*\]:")
CONTINUES = re.compile(r"^# continues (\S+\.qkv)")


def show(value):
    # torch.manual_seed returns a Generator whose repr is an address; qkv
    # shows nothing for it
    if value is not None and not isinstance(value, torch.Generator):
        print(repr(value))


def pieces(src):
    """Splits a session into ("py", text, first line), ("cell", magic, text,
    first line) and ("line", magic, text, line) pieces."""
    out, py, py_first = [], [], 1
    lines = src.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^%%(time|timeit)\s*$", line) or re.match(r"^%(time|timeit)\s+(.*)$", line)
        if not m:
            if not py:
                py_first = i + 1
            py.append(line)
            i += 1
            continue
        if py:
            out.append(("py", "".join(py), py_first))
            py = []
        if line.startswith("%%"):
            j = i + 1
            while j < len(lines) and not CELL.match(lines[j]):
                j += 1
            out.append(("cell", m.group(1), "".join(lines[i + 1:j]), i + 2))
            i = j
        else:
            out.append(("line", m.group(1), m.group(2) + "\n", i + 1))
            i += 1
    if py:
        out.append(("py", "".join(py), py_first))
    return out


def parse(text, first, name):
    tree = ast.parse("\n" * (first - 1) + text, name)
    return tree.body


def run_stmts(stmts, env, name):
    """Runs statements as `qkv eval` does: a top-level bare expression's
    value is shown, nothing else is."""
    for stmt in stmts:
        if isinstance(stmt, ast.Expr):
            exec(compile(ast.Interactive(body=[stmt]), name, "single"), env)
        else:
            exec(compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec"), env)


def run_time(stmts, env, name):
    """IPython's %time / %%time (Linux): the times, then the value of a
    final bare expression."""
    last = None
    if stmts and isinstance(stmts[-1], ast.Expr):
        last = stmts.pop()
    wall0, t0 = time.time(), os.times()
    for stmt in stmts:
        exec(compile(ast.Module(body=[stmt], type_ignores=[]), name, "exec"), env)
    value = eval(compile(ast.Expression(last.value), name, "eval"), env) if last else None
    t1 = os.times()
    wall = time.time() - wall0
    user, sys_ = t1.user - t0.user, t1.system - t0.system
    print(f"CPU times: user {_format_time(user)}, sys: {_format_time(sys_)}, "
          f"total: {_format_time(user + sys_)}")
    print(f"Wall time: {_format_time(wall)}")
    show(value)


def run_timeit(stmts, env, name):
    """IPython's %timeit: loops chosen as IPython does (1, 2, 5, 10, ...
    until a run takes 0.2 s), 7 runs, its summary line."""
    code = compile(ast.Module(body=stmts, type_ignores=[]), name, "exec")
    timer = timeit.Timer(lambda: exec(code, env))
    number = 1
    for index in range(0, 10):
        number = 10 ** index
        for factor in (1, 2, 5):
            number = factor * 10 ** index
            if timer.timeit(number) >= 0.2:
                break
        else:
            continue
        break
    runs = timer.repeat(7, number)
    best, worst = min(runs) / number, max(runs) / number
    print(TimeitResult(number, 7, best, worst, runs, 0, 3))


def run_into(path, env):
    name = str(path)
    for piece in pieces(path.read_text()):
        if piece[0] == "py":
            run_stmts(parse(piece[1], piece[2], name), env, name)
        else:
            _, magic, text, first = piece
            stmts = parse(text, first, name)
            (run_time if magic == "time" else run_timeit)(stmts, env, name)


def run(path):
    # each session starts as a fresh process would: torch's generator at its
    # default seed (as qkv's), numpy's at 0 (qkv's documented choice; a fresh
    # numpy would seed from the OS)
    torch.manual_seed(67280421310721)
    numpy.random.seed(0)
    env = {"__name__": "__qkv_session__"}
    m = CONTINUES.match(path.read_text())
    old = sys.displayhook
    sys.displayhook = show
    try:
        if m:
            with contextlib.redirect_stdout(io.StringIO()):
                run_into(path.parent / m.group(1), env)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            run_into(path, env)
    finally:
        sys.displayhook = old
    return out.getvalue()


def main():
    torch.set_num_threads(1)
    names = sys.argv[1:]
    for path in sorted(HERE.glob("*.qkv")):
        if names and path.stem not in names:
            continue
        text = run(path)
        path.with_suffix(".ref").write_text(text)
        print(f"{path.with_suffix('.ref').name}: {len(text.splitlines())} lines")


if __name__ == "__main__":
    main()
