#!/usr/bin/python3
"""Reference outcomes for src/lang/parser.c from CPython's own compiler, and
for src/lang/magic.c from IPython's own timing magics.

Runs compile(src, "<cell>", "exec") on every input of the tables below and
writes tests/ref/parser_refs.inc, a C include: for each input, "ok" or
"error LINE:COL: MESSAGE" exactly as CPython 3.11 reports it (SyntaxError,
IndentationError, TabError: message, lineno, offset), for
tests/unit/test_parser.c (#define PARSER_REFS_SYNTAX). Only inputs whose
outcome qkv promises to match belong here. Then what IPython 8's
_format_time and TimeitResult print for a table of durations, for
tests/unit/test_parser_magic.c (#define PARSER_REFS_MAGIC).

Run with the system Python 3.11:
    /usr/bin/python3 tests/ref/parser_refs.py      (or: make refs)
"""
import os
import random
import sys

sys.stdout.reconfigure(encoding="utf-8")    # IPython writes "µs" only to a UTF-8 stdout
from IPython.core.magics.execution import TimeitResult, _format_time  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "parser_refs.inc")


def nest(header, levels, body="pass"):
    """header nested levels deep, one space more per level."""
    return "".join(" " * i + header + "\n" for i in range(levels)) + " " * levels + body + "\n"


# blocks and indentation (issue 13, step 1)
BLOCKS = [
    "if x:\n    a = 1\n    b\n",
    "if x: a; b\nelif y: c\nelse: d\n",
    "for i in range(3):\n  for j in x:\n    print(i, j)\n",
    "for x in y: pass\nelse: pass\n",
    "while n > 0:\n\tn -= 1\n\tcontinue\nelse:\n\tn = 5\n",
    "with a as b, c:\n  pass\n",
    "def f(x, y):\n  return x + y\n",
    "def f():\n  x = 1\n  def g():\n    return 1\n  return g\n",
    "class A(B):\n  def forward(self, x):\n    return x\n",
    "x = 1\n    # c\ny = 2\n",
    "if x:\n  pass\n\n\n",
    "if x:\n  pass\n  # comment\nb\n",
    "for () in x:\n pass\n",
    "del (), []\n",
    "if x:\npass\n",
    "if x:\n",
    "if x:",
    "if x:\n# c\n",
    "if x:\n\n  \n",
    "if x:\n\n\n",
    "for x in y:\npass\n",
    "for x in y:\n  pass\nelse:\npass\n",
    "while x:\n",
    "with a:\nb\n",
    "class C:\nb\n",
    "def f():\nreturn 1\n",
    "if x:\n  a\nelif y:\nb\n",
    "if x:\n  a\nelse:\nb\n",
    "x = 1\n  y = 2\n",
    "x = 1\n    y = 2\n",
    "x = 1\n\ty = 2\n",
    "  x = 1\n",
    "  if x:\n",
    "if x:\n  pass\n    y\n",
    "if x: pass\n  y\n",
    "a = (1,\n      2)\n  b\n",
    "if x:\n    a\n  b\n",
    "if x:\n    a\n  b",
    "if x:\n    a\n  bcd = 1\n",
    "if x:\n  pass\n else:\n  pass\n",
    "if x:\n\ta\n        b\n",
    "if x:\n        a\n\tb\n",
    "if x:\n  \ta\n\t  b\n",
    "if x:\n  a\n\tb\n",
    "if x:\n\ta\n\tb\n",
    "return 1\n",
    "x = 1\nreturn\n",
    "def f():\n  return\nreturn 2\n",
    "break\n",
    "continue\n",
    "if x:\n  break\n",
    "while x:\n  def f():\n    break\n",
    "while x:\n  class C:\n    continue\n",
    "class C:\n  return 1\n",
    "for i in x:\n  pass\nelse:\n  break\n",
    "for x in y:\n  pass\nelse:\n  continue\n",
    "while x:\n  with a, b:\n    break\n",
    "else:\n  pass\n",
    "elif x:\n  pass\n",
    "if x: if y: pass\n",
    "if x\n  pass\n",
    "while x\n  pass\n",
    "if x:\n  pass\nelse\n  pass\n",
    "if x:\n  pass\nelif y\n  pass\n",
    "for 1 in x:\n pass\n",
    "for f() in x:\n pass\n",
    "with a as f():\n pass\n",
    "del f()\n",
    "del 1\n",
    "del a + b\n",
    "del (a, f())\n",
    "nonlocal x\n",
    "def f:\n pass\n",
    nest("if x:", 99),
    nest("if x:", 100),
    nest("for x in y:", 20),
    nest("for x in y:", 21),
    nest("with a, b:", 10),
    nest("while x:", 4) + "    with " + ", ".join("a%d" % i for i in range(16)) + ":\n     pass\n",
    nest("while x:", 4) + "    with " + ", ".join("a%d" % i for i in range(17)) + ":\n     pass\n",
    "for x in y:\n def f():\n" + "".join(" " * (i + 2) + "for x in y:\n" for i in range(20)) + " " * 22 + "pass\n",
    "while x:\n class C:\n" + "".join(" " * (i + 2) + "while x:\n" for i in range(20)) + " " * 22 + "pass\n",
]

# parameters (issue 13, step 2)
PARAMS = [
    "def f(a, b=1, *args, c, d=2, **kw):\n pass\n",
    "def f(*, key=None,):\n pass\n",
    "def f(**k,):\n pass\n",
    "def f(*a,):\n pass\n",
    "def f(*, a=1, b):\n pass\n",
    "def f(a=1, b):\n pass\n",
    "def f(a, a):\n pass\n",
    "def f(a, *, a):\n pass\n",
    "def f(*):\n pass\n",
    "def f(*,):\n pass\n",
    "def f(*, **k):\n pass\n",
    "def f(**k, a):\n pass\n",
    "def f(**k, *a):\n pass\n",
    "def f(*a, *b):\n pass\n",
    "def f(**k=1):\n pass\n",
    "def f(*a=1):\n pass\n",
]

# expressions, displays, comprehensions, starred (issue 13, step 2)
EXPRS = [
    "f(x for x in y)\n",
    "f(x for x in y for z in w if a if b)\n",
    "f(x for x in y, 1)\n",
    "f(1, x for x in y)\n",
    "f(x for x in y,)\n",
    "f(**k, *a)\n",
    "f(**k, a)\n",
    "f(a=1, b)\n",
    "f(a=1, *b)\n",
    "*a = 1\n",
    "a, *b, *c = x\n",
    "*a\n",
    "x = *a\n",
    "x = *a, b\n",
    "(*a)\n",
    "[*a, *b]\n",
    "[*a] = x\n",
    "a, [b, c.d, e[0]] = x\n",
    "for a, *b in x: pass\n",
    "for *a in x: pass\n",
    "x = a if b\n",
    "x = 1 if 2 else 3 if 4 else 5\n",
    "x = lambda x: x if x else 1\n",
    "lambda *, a: a\n",
    "lambda a=1, b: 0\n",
    "def f(a, b=lambda: 0, *c): pass\n",
    "{}\n",
    "{1,}\n",
    "{*a, 1}\n",
    "{1: 2, 3}\n",
    "{a: b for a, b in c}\n",
    "[x for 1 in y]\n",
    "[x for x in range(3) if x if x > 0]\n",
    "[*a for a in b]\n",
    "del *a\n",
    "class C(A, B):\n  pass\n",
]


def outcome(src):
    try:
        compile(src, "<cell>", "exec")
        return "ok"
    except SyntaxError as e:
        return "error %d:%d: %s" % (e.lineno, e.offset, e.msg)


def c_string(s):
    out = '"'
    for ch in s:
        if ch == "\n":
            out += "\\n"
        elif ch == "\t":
            out += "\\t"
        elif ch in '"\\':
            out += "\\" + ch
        else:
            out += ch
    return out + '"'


def durations():
    """Edge cases of _format_time's units and rounding, then log-uniform ones."""
    fixed = [0.0, 1e-10, 1e-9, 5e-9, 9.9949e-7, 9.995e-7, 1e-6, 1.5e-6, 0.0009994, 0.0009995, 0.001,
             0.0012345, 0.0123, 0.05, 0.5, 0.99995, 1.0, 1.5, 9.99, 10.0, 20.0, 59.9, 60.0, 61.5,
             3600.0, 3661.5, 90061.0, 172800.25]
    rng = random.Random(13)
    return fixed + [10 ** rng.uniform(-10, 5) for _ in range(40)]


def timeit_cases():
    """(loops, runs in seconds) as %timeit measures them."""
    rng = random.Random(7)
    cases = [
        (1000, [0.00123] * 7),
        (1, [1.0, 1.1, 0.9]),
        (1, [0.5]),
        (10000, [2.0 ** -15 * 10000] * 7),
        (1234567, [0.25 + 0.01 * i for i in range(7)]),
        (10, [0.2, 0.21, 0.9, 0.2, 0.2, 0.19, 0.2]),
        (100000000, [0.3, 0.31, 0.29, 0.3, 0.3, 0.3, 0.32]),
    ]
    for _ in range(10):
        loops = 10 ** rng.randint(0, 7)
        per = 10 ** rng.uniform(-8, 0)
        cases.append((loops, [per * loops * rng.uniform(0.9, 1.3) for _ in range(rng.randint(1, 7))]))
    return cases


def c_double(v):
    return v.hex() if v else "0.0"


def main():
    lines = [
        "/* Generated by tests/ref/parser_refs.py from Python %d.%d.%d's compile() and IPython's"
        % sys.version_info[:3],
        " * timing magics; do not edit. Regenerate with: /usr/bin/python3 tests/ref/parser_refs.py */",
        "",
        "#ifdef PARSER_REFS_SYNTAX",
    ]
    for name, table in (("parser_refs_blocks", BLOCKS), ("parser_refs_params", PARAMS),
                        ("parser_refs_exprs", EXPRS)):
        lines.append("static const struct parse_case %s[] = {" % name)
        for src in table:
            lines.append("\t{%s,\n\t %s}," % (c_string(src), c_string(outcome(src))))
        lines.append("};")
        lines.append("")
    lines += ["#endif", "", "#ifdef PARSER_REFS_MAGIC",
              "static const struct time_ref parser_refs_times[] = {"]
    for t in durations():
        lines.append("\t{%s, %s}," % (c_double(t), c_string(_format_time(t))))
    lines += ["};", "", "static const struct timeit_ref parser_refs_timeit[] = {"]
    for loops, runs in timeit_cases():
        r = TimeitResult(loops, len(runs), min(runs) / loops, max(runs) / loops, runs, 0.0, 3)
        lines.append("\t{%d, %d, {%s},\n\t %s}," % (loops, len(runs), ", ".join(c_double(x) for x in runs),
                                                   c_string(str(r))))
    lines += ["};", "#endif", ""]
    with open(OUT, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
