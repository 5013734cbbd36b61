#!/usr/bin/python3
"""Runs lesson 6 (lessons/06-many-heads-one-matrix.json, "Many heads, one
matrix") in real PyTorch 1.13 and checks every expect and exercise against
what torch prints: the lesson's numbers come from here, never from qkv.

    /usr/bin/python3 tests/ref/lesson_many_heads_one_matrix.py          # check
    /usr/bin/python3 tests/ref/lesson_many_heads_one_matrix.py --fill IN OUT
        # write IN with every "@" expect filled in from torch (writing the lesson)

Each step's code runs in one namespace, as qkv runs it: every top-level bare
expression whose value is not None is printed with repr, as in a notebook
(torch.manual_seed's generator excepted: qkv's returns nothing)."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lessonref import as_tensor, lines, run, workspace_copy  # noqa: E402

LESSON = "lessons/06-many-heads-one-matrix.json"


def main():
    fill = len(sys.argv) == 4 and sys.argv[1] == "--fill"
    path = sys.argv[2] if fill else (sys.argv[1] if len(sys.argv) > 1 else LESSON)
    lesson = json.load(open(path, encoding="utf-8"))
    ns = {}
    failed = checked = 0
    for i, step in enumerate(lesson["steps"], 1):
        printed, _ = run(step.get("code", []), ns)
        for e in step.get("expect", []):
            if "output" in e:
                got = printed
                want = e["output"]
            elif "text" in e:
                got = repr(eval(e["tensor"], ns))
                want = e["text"]
            else:
                v = eval(e["tensor"], ns)
                if e["values"] == "@":
                    e["values"] = [[round(a, 4) for a in row] for row in v.tolist()]
                    continue
                want_t = torch.tensor(e["values"], dtype=torch.float64)
                ok = want_t.shape == as_tensor(v).shape and (as_tensor(v) - want_t).abs().max() <= e.get("tol", 1e-4)
                checked += 1
                if not ok:
                    failed += 1
                    print(f"step {i}: {e['tensor']}: got {v}, want {e['values']}")
                continue
            want = "\n".join(lines(want))
            if fill and want == "@":
                e["output" if "output" in e else "text"] = got
                continue
            checked += 1
            if got != want:
                failed += 1
                print(f"step {i} ({step['title']}): printed\n{got}\nwhere the lesson says\n{want}\n")
        exs = step.get("exercise", [])
        for x in [exs] if isinstance(exs, dict) else exs:
            want = as_tensor(eval(x["answer"], workspace_copy(ns)))
            _, got = run(x["solution"], workspace_copy(ns), last_shown=True, assigned="name")
            got = as_tensor(got)
            checked += 1
            if got.shape != want.shape or (got - want).abs().max() > x.get("tol", 1e-4):
                failed += 1
                print(f"step {i}: exercise: the solution gives {got}, the answer {want}")
    if fill:
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            json.dump(lesson, f, indent=2, ensure_ascii=False)
            f.write("\n")
    print(f"{checked} checked against torch {torch.__version__}, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
