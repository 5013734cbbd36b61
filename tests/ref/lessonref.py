"""lessonref: the helpers the lesson reference scripts (tests/ref/lesson_*.py)
share to run a lesson's code in real Python with PyTorch 1.13 and compare it
with what the lesson pins. Not a script: each lesson script imports it with

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from lessonref import ...

and is still run by hand with /usr/bin/python3. A lesson step runs as qkv runs
it: statement after statement in one namespace, every top-level bare
expression's value printed with repr, as a notebook shows a cell's value
(torch.manual_seed's Generator is not shown: qkv's returns nothing).

Where the scripts' rules differ (which value counts as a solution's last,
the file name in tracebacks, a trailing newline), the functions take a
parameter, so that each script keeps the rule it was written with."""
import ast
import contextlib
import copy
import io
import types

import torch


def lines(v):
    """A lesson field that is one string, a list of them, or absent (None),
    as a list; a single object (an exercise written as one dict) is a list
    of one."""
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    return list(v) if isinstance(v, list) else [v]


def shown(v):
    """Whether a bare expression's value is displayed: not None, not a
    torch.Generator."""
    return v is not None and not isinstance(v, torch.Generator)


def run(code, ns, show=True, name="<lesson>", parse_name="<unknown>", strip=True,
        last_shown=False, assigned=None):
    """Runs code (a string or a list of lines) statement by statement in the
    namespace ns; with show, a top-level bare expression's value is printed
    with repr when shown(value). Returns (printed, last):

      printed: what the code printed, its trailing newlines removed if strip;
      last:    the last value made, by a bare expression (with last_shown,
               only a value shown() counts) or an assignment: with
               assigned="target" its last target evaluated again (so
               `x[0] = ...` and `a, b = ...` count), with assigned="name"
               ns[its first target] when that is a plain name (other
               assignments do not count); with assigned=None (a step whose
               last value is not wanted) no assignment counts and no
               target is evaluated again.

    name is the file name the statements are compiled under (tracebacks);
    parse_name the one a SyntaxError names (ast.parse's own default)."""
    out = io.StringIO()
    last = None
    tree = ast.parse("\n".join(lines(code)), parse_name)
    with contextlib.redirect_stdout(out):
        for node in tree.body:
            if isinstance(node, ast.Expr):
                v = eval(compile(ast.Expression(node.value), name, "eval"), ns)
                if not last_shown or shown(v):
                    last = v
                if show and shown(v):
                    print(repr(v))
            else:
                exec(compile(ast.Module([node], []), name, "exec"), ns)
                if isinstance(node, ast.Assign):
                    if assigned == "target":
                        last = eval(ast.unparse(node.targets[-1]), ns)
                    elif assigned == "name" and isinstance(node.targets[0], ast.Name):
                        last = ns[node.targets[0].id]
    printed = out.getvalue()
    return (printed.rstrip("\n") if strip else printed), last


def last_value(code, ns, name="<solution>", parse_name="<unknown>", assigned="target"):
    """Runs a solution in ns, its output discarded; returns run()'s last
    value (nothing is shown, so every bare expression counts)."""
    return run(code, ns, show=False, name=name, parse_name=parse_name, assigned=assigned)[1]


def workspace_copy(ns):
    """A copy of the namespace an exercise's answer or solution runs in, so
    that it cannot change the lesson's: values deep-copied where they can be;
    modules, classes, functions and __builtins__ shared."""
    c = {}
    for k, v in ns.items():
        if isinstance(v, (types.ModuleType, type, types.FunctionType)) or k == "__builtins__":
            c[k] = v
            continue
        try:
            c[k] = copy.deepcopy(v)
        except Exception:
            c[k] = v
    return c


def as_tensor(v, detach=True):
    """v as a float64 tensor (detached from autograd unless detach=False)."""
    if isinstance(v, torch.Tensor):
        return v.detach().double() if detach else v.double()
    return torch.tensor(v, dtype=torch.float64)


def nested(values):
    """A `values` expect as numbers: strings ("inf", "-inf", "nan") become
    floats, at any depth."""
    if isinstance(values, list):
        return [nested(v) for v in values]
    return float(values) if isinstance(values, str) else values


def largest_difference(got, want):
    """The largest |got - want| between two float64 tensors, an equal
    infinity or a NaN against a NaN counting as 0 and an unmatched NaN
    making it NaN; 0.0 when they are empty; None when the shapes differ.
    close() compares it with the tolerance."""
    if got.shape != want.shape:
        return None
    if got.numel() == 0:
        return 0.0
    same = (got == want) | (got.isnan() & want.isnan())
    return torch.where(same, torch.zeros_like(got), (got - want).abs()).max().item()


def close(got, want, tol):
    """(ok, worst): whether got and want (tensors, numbers or nested lists)
    have one shape and differ by at most tol everywhere, as
    largest_difference() measures them; worst is that difference (None when
    the shapes differ, NaN for an unmatched NaN)."""
    worst = largest_difference(as_tensor(got), as_tensor(want))
    return worst is not None and not (worst > tol or worst != worst), worst
