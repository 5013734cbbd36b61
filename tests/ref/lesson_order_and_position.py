#!/usr/bin/python3
# lesson_order_and_position.py: runs the code of lessons/07-order-and-position.json
# in real Python with PyTorch 1.13, step after step in one namespace as qkv runs a
# lesson (every top-level bare expression's value is printed with repr, as a
# notebook shows a cell's value; torch.manual_seed's Generator is not shown, as in
# qkv), and checks every number the lesson pins against what torch prints:
#   - each `output` expect: what the step printed, character for character;
#   - each `tensor` expect with `text`: repr() of the expression;
#   - each `tensor` expect with `values`: the shape and every element within tol;
#   - each exercise: its `answer`, evaluated in the step's namespace, against what
#     its `solution` gives in a copy of that namespace, within tol (a predict
#     exercise's solution is the value the student types).
# So the lesson's numbers are torch's, never qkv's; `qkv check` then verifies that
# qkv prints the same.
#     /usr/bin/python3 tests/ref/lesson_order_and_position.py           # check
#     /usr/bin/python3 tests/ref/lesson_order_and_position.py --print   # each step's output
# Exits 1 naming the step and the expect when one differs.
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lessonref import as_tensor, close, lines, nested, run, workspace_copy  # noqa: E402

LESSON = os.path.join(HERE, "..", "..", "lessons", "07-order-and-position.json")


def close_why(got, want, tol):
    """(ok, why): lessonref.close, and the reason when it fails."""
    ok, worst = close(got, want, tol)
    if worst is None:
        return False, "shape %s, want %s" % (tuple(as_tensor(got).shape), tuple(as_tensor(want).shape))
    return ok, "largest difference %g" % worst


def main():
    show = "--print" in sys.argv
    lesson = json.load(open(LESSON, encoding="utf-8"))
    ns = {}
    failed = checked = 0
    for i, step in enumerate(lesson["steps"], 1):
        printed, _ = run("\n".join(lines(step.get("code"))), ns, True, assigned="target")
        if show:
            print("== step %d: %s\n%s" % (i, step["title"], printed))
        problems = []
        for e in lines(step.get("expect")):
            checked += 1
            if "output" in e:
                want = "\n".join(lines(e["output"]))
                if printed != want:
                    problems.append("output differs:\n--- torch\n%s\n--- lesson\n%s" % (printed, want))
            elif "text" in e:
                got = repr(eval(e["tensor"], ns))
                want = "\n".join(lines(e["text"]))
                if got != want:
                    problems.append("%s prints\n%s\nnot\n%s" % (e["tensor"], got, want))
            else:
                ok, why = close_why(eval(e["tensor"], ns), nested(e["values"]), e.get("tol", 1e-4))
                if not ok:
                    problems.append("%s: %s" % (e["tensor"], why))
        exercises = step.get("exercise", [])
        for k, x in enumerate(exercises if isinstance(exercises, list) else [exercises]):
            checked += 1
            work = workspace_copy(ns)
            answer = eval(x["answer"], work)
            _, got = run("\n".join(lines(x["solution"])), workspace_copy(ns), False, assigned="target")
            ok, why = close_why(got, answer, x.get("tol", 1e-4))
            if show:
                print("   exercise %d: answer %s" % (k, repr(answer)))
            if not ok:
                problems.append("exercise %d: the solution gives %r, the answer is %r (%s)" % (k, got, answer, why))
        for p in problems:
            failed += 1
            print("step %d (%s): %s" % (i, step["title"], p))
    print("%d checked against torch %s, %d failed" % (checked, torch.__version__, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
