#!/usr/bin/python3
"""python_semantics.py: small programs and what CPython 3.11 prints for them
(or the error it stops with: its type and message). Writes
tests/ref/python_semantics.inc, which tests/unit/test_lang_semantics.c
replays through qkv's interpreter. Run: /usr/bin/python3 tests/ref/python_semantics.py
"""
import contextlib
import io
import os
import sys

PROGRAMS = [
    ("print_end_and_sep", "for i in range(3):\n    print(i, end=' ')\nprint()\nprint('a', 'b', sep='-', end='')\nprint('c', end='!\\nd')\nprint(end='')\nprint('e')\nprint('open', end='')\nprint(' close')"),
    ("empty_sequence_repeated_hugely", "print([] * 59999999993292, '' * 10 ** 15, () * 10 ** 12, [1] * 0, 'ab' * -3)"),
    ("integer_arithmetic", "print(7 // 2, -7 // 2, 7 % -3, -7 % 3, 2 ** 10, 7 / 2, 1 / 3, -2 ** 2)"),
    ("float_formatting", "print(0.1 + 0.2, 1e16, 1.5e-7, 3.0, -0.0, 1e22, 123456789.123, 2.5e-5)"),
    ("rounding", "print(round(2.5), round(3.5), round(-0.5), round(2.675, 2), round(1234, -2))"),
    ("mixed_comparisons", "print(1 == 1.0, 3 < 2.5, True + True, 10 / 4 == 2.5, 2 ** -1)"),
    ("int_division_by_zero", "print('before')\nx = 1 // 0"),
    ("true_division_by_zero", "x = 1 / 0"),
    ("modulo_by_zero", "x = 5 % 0"),
    ("unbound_local", "x = 1\ndef f():\n    print(x)\n    x = 2\nf()"),
    ("undefined_name_in_function", "def f():\n    return y\nf()"),
    ("closure_counter", "def counter():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n        return n\n    return inc\nc = counter()\n_ = c()\n_ = c()\nprint(c())"),
    ("closure_late_binding", "fs = [lambda: i for i in range(3)]\nprint([f() for f in fs])"),
    ("closure_sees_later_assignment", "def outer():\n    x = 1\n    def inner():\n        return x\n    x = 2\n    return inner()\nprint(outer())"),
    ("closure_two_levels", "def a():\n    v = 'a'\n    def b():\n        def c():\n            return v + '!'\n        return c()\n    return b()\nprint(a())"),
    ("default_evaluated_once", "def f(a=[]):\n    a.append(1)\n    return a\n_ = f()\nprint(f())"),
    ("default_captures_value", "k = 3\ndef f(x=k):\n    return x\nk = 4\nprint(f(), k)"),
    ("comprehension_scope", "x = 10\nl = [x for x in range(3)]\nprint(x, l)"),
    ("comprehension_nested", "print([(i, j) for i in range(4) for j in range(i) if j != 1])"),
    ("dict_and_set_comprehensions", "d = {k: k * k for k in range(4)}\ns = {c for c in 'hello'}\nprint(d, sorted(s))"),
    ("generator_sum", "print(sum(x * x for x in range(10)), sum([0.5, 0.25]), sum(range(4), 10))"),
    ("for_else_while_else", "for i in range(3):\n    pass\nelse:\n    print('done', i)\nn = 0\nwhile n < 10:\n    n += 1\n    if n == 4:\n        break\nelse:\n    print('never')\nprint(n)"),
    ("continue_and_break", "out = []\nfor i in range(10):\n    if i % 2:\n        continue\n    if i > 6:\n        break\n    out.append(i)\nprint(out)"),
    ("args_and_kwargs", "def f(a, *args, b=2, **kw):\n    return a, args, b, kw\nprint(f(1, 2, 3, b=4, c=5))\nprint(f(*[7, 8], **{'z': 1}))"),
    ("keyword_only_missing", "def f(*, a):\n    pass\nf()"),
    ("too_many_positional", "def f(a):\n    pass\nf(1, 2)"),
    ("unexpected_keyword", "def f(a):\n    pass\nf(b=1)"),
    ("missing_positional", "def g(a, b):\n    pass\ng(1)"),
    ("multiple_values", "def f(a):\n    pass\nf(1, a=2)"),
    ("recursion", "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(15))"),
    ("recursion_too_deep", "def r(n):\n    return r(n + 1)\nr(0)"),
    ("several_return_values", "def mm(xs):\n    return min(xs), max(xs)\nlo, hi = mm([3, 1, 4])\nprint(lo, hi)"),
    ("unpacking", "a, (b, c), *d = 1, (2, 3), 4, 5\nprint(a, b, c, d)\nfirst, *rest = 'abc'\nprint(first, rest)"),
    ("unpack_too_many", "a, b = [1, 2, 3]"),
    ("unpack_too_few", "a, b, c = (1, 2)"),
    ("dict_methods", "d = {'b': 1, 'a': 2}\nd['c'] = 3\ndel d['b']\nd.update(z=0)\nprint(d, list(d), d.get('q', -1), d.pop('a'), d.setdefault('n', 5), d)\nfor k, v in d.items():\n    print(k, v)\nprint(list(d.keys()), list(d.values()), 'c' in d, len(d))"),
    ("key_error", "d = {'a': 1}\nd['x']"),
    ("list_methods", "l = [5, 3, 1]\nl.append(9)\nl.extend([2, 2])\nl.insert(0, 7)\nprint(l.pop(), l.pop(0), l)\nl.remove(3)\nprint(l.index(9), l.count(2))\nl.sort()\nprint(l)\nl.reverse()\nprint(l)\nl[1:3] = [0]\nprint(l, l[::-1], l[-2:], l[::2])"),
    ("list_index_error", "l = [1]\nl[3]"),
    ("sorted_min_max_keys", "w = ['bb', 'a', 'ccc']\nprint(sorted(w, key=len), sorted(w, reverse=True), min(w, key=len), max(w, key=len), max(3, 9, 2))"),
    ("sorted_stable", "p = [(1, 'b'), (0, 'a'), (1, 'a'), (0, 'b')]\nprint(sorted(p, key=lambda t: t[0]))\nprint(sorted(p, key=lambda t: t[0], reverse=True))"),
    ("sets", "s = {3, 1, 2}\ns.add(1)\ns.discard(3)\nprint(len(s), 2 in s, 3 in s, sorted(s), sorted(s | {9}), sorted(s & {1}), sorted(s - {1}))"),
    ("replace_with_an_empty_old", "print('ab'.replace('', 'x'), 'ab'.replace('', 'x', 1), ''.replace('', '-'), 'ab'.replace('', 'x', 0), '\u65e5\u672c'.replace('', '|'), 'aaa'.replace('a', '', 2))"),
    ("overlapping_slice_assignment_numpy", "import numpy as np\na = np.arange(5)\na[1:] = a[:-1]\nb = np.arange(4).reshape(2, 2)\nb[:] = b.T\nprint(a, b.tolist())"),
    ("overlapping_slice_assignment_torch_in_order", "import torch\nx = torch.arange(5)\nx[::2] = x[:3]\ny = torch.arange(5)\ny[1:] = y[0]\nz = torch.arange(5)\nz[:] = z\nz[0:2] = z[3:5]\nprint(x.tolist(), y.tolist(), z.tolist())"),
    ("overlapping_slice_assignment_torch_refused", "import torch\nx = torch.arange(5)\nx[1:] = x[:-1]"),
    ("format_spec_of_an_integer_0d_tensor", "import torch\nprint(f\"{torch.tensor(3):5}|{torch.tensor(7):03}|\", '{:5}'.format(torch.tensor(3)), format(torch.tensor(3), '<4') + '|', f'{torch.tensor(3):d}', f'{torch.tensor([1, 5, 2]).argmax():d}', f'{torch.tensor(3):.2f}', f'{torch.tensor(True):5}', f'{torch.tensor(2.5):6.2f}')"),
    ("randint_high_and_size_as_torch_takes_them", "import torch\ntorch.manual_seed(0)\nprint(torch.randint(5, size=(2,)).tolist(), torch.randint(high=5, size=(2,)).tolist(), torch.randint(5, (3,)).tolist(), torch.randint(low=1, high=5, size=(2,)).tolist(), torch.randint(1, 5, (2,)).tolist())"),
    ("torch_mean_of_integers_is_refused", "import torch\nprint(torch.tensor([1.0, 2.0]).mean(), torch.tensor([True, False]).max())\nm = torch.tensor([1, 2]).mean()"),
    ("torch_argmax_of_bools_is_refused", "import torch\nm = torch.tensor([True, False]).argmax()"),
    ("numpy_mean_of_integers_is_a_float", "import numpy as np\nprint(np.array([1, 2]).mean(), np.array([True, False]).argmax())"),
    ("torch_tensor_of_a_list_of_tensors_reads_each_as_a_number", "import torch\nprint(torch.tensor([torch.tensor(1.), torch.tensor(2.)]), torch.tensor([torch.ones(1), torch.ones(1)]).shape, torch.tensor([torch.ones(1, 1), torch.ones(1)]).shape, torch.tensor([torch.tensor(True), torch.tensor(False)]))\nt = torch.tensor([torch.ones(2), torch.ones(2)])"),
    ("numpy_array_of_a_list_of_arrays_stacks_them", "import numpy as np\nprint(np.array([np.ones(2), np.ones(2)]).shape, np.array([np.ones(1), np.ones(1)]).shape)"),
    ("in_a_tensor_looks_for_an_equal_element", "import torch\nimport numpy as np\nx = torch.arange(10)\nprint(3 in torch.tensor([1, 2, 3]), 4 in torch.tensor([1, 2, 3]), 2.0 in torch.tensor([[1., 2.], [3., 4.]]), torch.tensor(2) in x, True in torch.tensor([False, True]), 3 in np.array([1, 2, 3]), float('nan') in torch.tensor([float('nan')]), 9 in x[:5], 4 in x[::2], 3 in x[::2])"),
    ("strings", "s = ' Hello World '\nprint(s.strip(), s.lower(), s.upper(), s.split(), 'a,b,,c'.split(','), s.replace('o', '0'), s.strip().startswith('He'), '-'.join(['x', 'y']))"),
    ("string_formatting", "x = 3.14159\nprint(f'{x:.2f} {42:5d} {\"ab\":>4}|{7:<3}|', '{} and {:.1f}'.format('a', 2.25), format(0.5, '.3f'), str(1.0), repr('q'))"),
    ("global_statement", "c = 0\ndef inc():\n    global c\n    c += 1\ninc()\ninc()\nprint(c)"),
    ("lambda_map_filter", "print(list(map(lambda x: x * 2, [1, 2])), list(filter(None, [0, 1, 2])), (lambda a, b=3: a + b)(1))"),
    ("any_all_reversed", "print(any([0, 0, 1]), all([]), all([1, 0]), list(reversed([1, 2, 3])), list(reversed(range(3))))"),
    ("enumerate_zip", "for i, (a, b) in enumerate(zip('xyz', [1, 2]), start=1):\n    print(i, a, b)"),
    ("conditional_expression", "x = 5\nprint('big' if x > 3 else 'small', 'even' if x % 2 == 0 else 'odd')"),
    ("assert_message", "assert 1 == 1\nassert 1 == 2, 'one is not two'"),
    ("assert_bare", "assert [], None"),
    ("del_then_use", "v = 1\ndel v\nprint(v)"),
    ("aliasing", "x = [1, 2]\ny = x\ny.append(3)\nprint(x, x is y, x == [1, 2, 3], None is None)"),
    ("type_names", "print(type(3).__name__, type([]).__name__, type('s').__name__, type(2.0).__name__, type({}).__name__)"),
    ("sequence_repetition", "print('ab' * 3, [0] * 4, (1, 2) * 2, 3 * 'x')"),
    ("classes", "class A:\n    kind = 'a'\n    def __init__(self, v):\n        self.v = v\n    def get(self):\n        return self.v\nclass B(A):\n    def __init__(self, v, w):\n        super().__init__(v)\n        self.w = w\n    def get(self):\n        return A.get(self) + self.w\nb = B(1, 2)\nprint(b.get(), b.kind, isinstance(b, A), isinstance(A(0), B), B.kind, hasattr(b, 'w'), getattr(b, 'zz', 'no'))"),
    ("class_super_with_arguments", "class P:\n    def __init__(self):\n        self.tag = 'p'\nclass Q(P):\n    def __init__(self):\n        super(Q, self).__init__()\n        self.tag += 'q'\nprint(Q().tag)"),
    ("attribute_error", "class C:\n    pass\nC().missing"),
    ("while_counter", "n, total = 0, 0\nwhile n < 100:\n    n += 1\n    total += n\nprint(total)"),
    ("nested_function_recursion", "def outer(n):\n    def fact(k):\n        return 1 if k <= 1 else k * fact(k - 1)\n    return fact(n)\nprint(outer(10))"),
    ("tuples_and_in", "t = (1, 2, 3)\nprint(2 in t, 5 not in t, t[1:], t.index(3), len(t), (1,), ())"),
    ("nonlocal_without_binding", "def f():\n    nonlocal q\n    q = 1"),
    ("string_iteration", "out = ''\nfor ch in 'abc':\n    out = ch + out\nprint(out, list('hé'))"),
    ("float_printing", "print(10 / 3, 2 ** 0.5, 1e-5, 1e-4, 0.1 * 3, float('inf'), -float('inf'), float('nan'), 1e300 * 10)"),
    ("float_integer_operations", "print(int(3.9), int(-3.9), round(0.125, 2), 7.0 // 2, -7.0 // 2, 7.5 % 2, -7.5 % 2, 2 ** 62, abs(-3), abs(-2.5))"),
    ("format_specs", "x = 1 / 3\nprint(f'{x:.4}', f'{x:8.3f}|', f'{x:e}', f'{100:>6}', f'{0.5:%}', f'{12:03d}', f'{x!r}', f'{\"s\"!r}')"),
    ("int_float_mixing", "a = 3\nb = 2.0\nprint(a * b, a / 1, a // 1, type(a + b).__name__, type(a // 2).__name__, 5 == 5.0, hash(1) == hash(1.0) if False else True)"),
    ("dict_keys_equal_numbers", "d = {1: 'int'}\nd[1.0] = 'float'\nd[True] = 'bool'\nprint(d, len(d))"),
    ("range_details", "r = range(10, 0, -3)\nprint(list(r), len(r), r[1], 4 in r, 7 in r, range(5))"),
    # issue 15: strings index, slice, count and search by character, never by UTF-8 byte
    ("string_characters", "s = 'h\u00e9llo\U0001F600x'\nprint(s[1], s[1:3], s[::-1], s[::2], s[-2], s[-2::-2], s[5:1:-1], len(s))\n"
     "print(s.find('l'), s.index('o'), s.find('\U0001F600'), s.count(''), s.count('l'), list(s[4:]), 'l' in s)"),
    ("string_iteration_by_character", "for ch in 'a\u00e9\u20ac\U0001F600':\n    print(ch, len(ch))"),
    ("fstring_conversion_then_spec_pads_by_character", "a = '\u00e9'\nprint(f'{a:>3}|{a!r:>5}|{1.5!r:>6}|{a:^4}|{a!s:<2}|', '{:>4}|'.format(a + a))"),
    ("string_index_error_counts_characters", "s = '\u00e9\u00e9'\ns[2]"),
    # issue 15: a chain of operators is no nesting (CPython stops near 3000 terms)
    ("sum_of_255_terms", "x = " + " + ".join(["1"] * 255) + "\nprint(x)"),
    ("chain_of_2900_terms", "x = 5000" + " - 1" * 2900 + "\ny = True" + " and True" * 2900 + "\nprint(x, y)"),
    # issue 15: Python's errors for a domain and a range
    ("math_log_of_zero", "import math\nprint(math.log(1))\nmath.log(0)"),
    ("math_sqrt_of_negative", "import math\nmath.sqrt(-1)"),
    ("math_exp_overflow", "import math\nmath.exp(1000)"),
    ("float_power_overflow", "x = 10.0 ** 400"),
    ("int_to_float_power_overflow", "x = 10 ** 400.0"),
    # issue 15: torch's bools: + is or, * is and, - is refused
    ("bool_tensors_add_as_or", "import torch\nprint(torch.tensor([True, False]) + torch.tensor([True, False]), "
     "torch.tensor([True, False]) * torch.tensor([True, True]), torch.tensor([True]) + 1)"),
    ("bool_tensors_subtract", "import torch\ntorch.tensor([True]) - torch.tensor([True])"),
    ("bool_tensor_minus_a_number", "import torch\ntorch.tensor([True]) - 1"),
    ("percent_format_numbers", "print('%d items, %.3f and %s' % (3, 2.5, 'x'))\nprint('%5d|%-5d|%05d|%+d|% d|%.3d|%+.3d|%x|%#x|%#o|%X|%#X|%o' % (42, 42, -42, 5, 5, 5, 5, 255, 255, 8, 255, 0, 0))\nprint('%f|%.2f|%10.3f|%-10.1f|%e|%.2E|%g|%G|%g|%#g|%010.2f|%+.1f' % (3.14159, 2.005, -1.5, 2.25, 12345.678, 0.000123, 1e-5, 1e20, 100000.0, 1.5, -3.14159, 2.0))\nprint('%d %d %i %u %d %i' % (3.99, -3.99, True, 7, False, -0.5), '%d' % 1e20, '%.0f %.0f %.0f' % (0.5, 1.5, 2.5))\nprint('%#.3g|%-+8.2e|%#.0f|%#x|%.3x|%#5x|%#-6o|%#06x' % (1.0, 1234.5, 3.0, -255, 5, 5, 8, 255))\nprint('%f %F %f %+f %5.1f %e %g %05f' % (float('nan'), float('inf'), float('-inf'), float('inf'), float('-nan'), float('inf'), float('nan'), float('inf')))"),
    ("percent_format_text_and_keys", "print('%s %r %s %r %s %a' % ('a', 'a', None, [1, 'b'], True, '\u00e9'))\nprint('%c%c%c|%3c|' % (65, 'z', 0x263a, 'q'))\nprint('%.2s|%5s|%-5s|%5.1s|%05s|%.3r|%5r|%10.4s|' % ('hello', 'ab', 'ab', 'xyz', 'ab', 'abc', 1, 3.14159))\nprint('%(name)s is %(age)d, %(name)r' % {'name': 'Ann', 'age': 30})\nprint('%*d|%-*d|%.*f|%*.*f|%*d|' % (5, 1, 4, 2, 2, 3.14159, 8, 3, 2.71828, -5, 1))\nprint('100%% sure, %d%%' % 50, '%s' % 5, '%s' % ((1, 2),), 'hello' % [], 'hello' % {}, '%s' % {}, '%ld %hd %Lf' % (1, 2, 3.0))\nx = 5\nprint('v=%d' % x)"),
    ("percent_format_tensors", "import torch\nimport numpy as np\na = np.array([0.1, 0.5], dtype=np.float32)\nprint('%d %.1f %s %d %x %c' % (torch.tensor(3), torch.tensor(2.25), torch.tensor([1., 2.]), torch.tensor(3.7), torch.tensor(10), torch.tensor(65)))\nprint('%s %.3f %f %r' % (a[0], a[0], np.array([1.5]), torch.tensor([1.5])))"),
    ("percent_format_too_few_arguments", "print('%s %s' % (1,))"),
    ("percent_format_too_many_arguments", "print('%s' % (1, 2))"),
    ("percent_format_one_string_for_two", "print('%s %s' % 'ab')"),
    ("percent_format_d_of_a_string", "print('%d' % 'x')"),
    ("percent_format_x_of_a_float", "print('%x' % 3.5)"),
    ("percent_format_x_of_a_float_tensor", "import torch\nprint('%x' % torch.tensor(3.7))"),
    ("percent_format_f_of_a_string", "print('%f' % 'a')"),
    ("percent_format_f_of_a_vector", "import torch\nprint('%f' % torch.tensor([1., 2.]))"),
    ("percent_format_c_of_two_chars", "print('%c' % 'ab')"),
    ("percent_format_c_out_of_range", "print('%c' % 1114112)"),
    ("percent_format_unknown_character", "print('%q' % 1)"),
    ("percent_format_percent_after_a_width", "print('%5%|' % (1,))"),
    ("percent_format_incomplete", "print('abc %' % ())"),
    ("percent_format_incomplete_key", "print('%(a' % {'a': 1})"),
    ("percent_format_key_without_a_mapping", "print('%(a)s' % (1,))"),
    ("percent_format_missing_key", "print('%(b)s' % {'a': 1})"),
    ("percent_format_key_then_position", "print('%(a)s %s' % {'a': 1})"),
    ("percent_format_d_of_nan", "print('%d' % float('nan'))"),
    ("percent_format_d_of_inf", "print('%d' % float('-inf'))"),
    ("percent_format_star_of_a_string", "print('%*d' % ('a', 1))"),
    ("user_repr_and_str_everywhere", "class A:\n    def __repr__(self):\n        return 'rep'\n    def __str__(self):\n        return 'hi'\nx = A()\nprint(x, str(x), repr(x), f'{x}', f'{x!r}', '{}'.format(x), '{!r:>5}|'.format(x), [x], {'k': x}, (x,), '%s %r' % (x, x), format(x), f'{[x]}', f'{x!s:*^6}')\nclass B:\n    def __repr__(self):\n        return 'B!'\nprint(B(), [B()], f'{B()}', '%s' % B(), str([B(), 1]))"),
    ("user_repr_raising_inside_a_list", "class A:\n    def __repr__(self):\n        return 1 / 0\nprint('before')\nprint([A()])"),
    ("user_repr_returning_a_number", "class A:\n    def __repr__(self):\n        return 5\nprint(f'{[A()]}')"),
    ("format_spec_on_an_instance", "class C:\n    pass\nprint(f'{C():>7}')"),
    ("format_spec_on_a_list", "print(f'{[1]:>5}')"),
    ("numpy_sums_in_numpys_pairwise_order", "import numpy as np\nnp.random.seed(775)\nfor n in (5, 9, 17, 100, 300, 1000, 9000):\n    a = np.random.rand(n) * 4 - 1\n    b = a.astype(np.float32)\n    print(n, repr(a.sum()), repr(b.sum()), repr(np.sum(a * 0.1)), repr(a.mean()), repr(b.mean()), repr(a[::3].sum()))\nc = np.random.rand(300, 7)\nd = c.astype(np.float32)\nprint(c.sum(axis=0).tolist(), c.sum(axis=1)[:3].tolist(), c.T.sum(axis=0)[:3].tolist(), c.T.sum(axis=1).tolist(), repr(c.sum()), repr(c.T.sum()))\nprint(d.sum(axis=0).tolist(), d.sum(axis=1)[:3].tolist(), d.T.sum(axis=0)[:3].tolist(), d.T.sum(axis=1).tolist(), repr(d.sum()), repr(d.T.sum()))\ne = np.random.rand(4, 37, 5)\nprint(e.sum(axis=1)[0].tolist(), e.sum(axis=2)[0].tolist(), e.transpose(0, 2, 1).sum(axis=1)[0].tolist(), e.mean(axis=2)[1].tolist())"),
    ("torch_float64_sums_in_torchs_cascade_order", "import torch\ntorch.manual_seed(0)\nfor n in (3, 5, 9, 17, 100, 300, 1000, 5000):\n    a = torch.rand(n, dtype=torch.float64)\n    c = torch.rand(n, 3, dtype=torch.float64)\n    print(n, a.sum().item(), a.mean().item(), c.sum(0).tolist(), c.sum(1)[:2].tolist(), c.T.sum(1).tolist())\nw = torch.rand(6, 40, dtype=torch.float64)\nprint(w.sum(0)[:5].tolist(), w.sum(1).tolist(), w.sum().item())\nf = torch.rand(50, 20)\ng = torch.rand(3, 30, 9)\nprint(f.T.sum(1).tolist()[:4], f.T.sum(0).tolist()[:4], f.T.sum().item(), f.T.mean(1).tolist()[:4], g.permute(2, 0, 1).sum(2)[0].tolist(), g.transpose(1, 2).sum(1)[1].tolist()[:4], g.transpose(0, 1).sum().item())"),
    # torch's named tuples: max and min over a dim, sort and topk (ties and NaN as torch orders them)
    ("torch_max_min_with_a_dim", "import torch\nx = torch.tensor([[1., 3., 3.], [float('nan'), 2., float('nan')], [5., 5., -1.]])\nprint(torch.max(x, 1))\nprint(x.min(dim=0))\nv, i = x.max(dim=1)\nprint(v, i, x.max(1)[0], x.min(1)[1], x.max(-1).values, x.min(0).indices)\nprint(torch.max(x, 1, True))\nprint(x.max(dim=0, keepdim=True).indices, torch.min(x, dim=-1, keepdim=False).values)\nprint(torch.max(torch.tensor([[1, 5, 5], [7, 0, 7]]), 1), torch.min(torch.tensor([[True, False]]), 1))\nprint(torch.max(x), x.min(), torch.argmax(x, 1), torch.argmin(x, dim=0), x.argmax(), torch.argmin(torch.tensor([2, 1, 1, 3])))\nprint(torch.max(torch.ones(0, 2), 1), len(x.max(1)), type(x.max(1)[0]).__name__)"),
    ("torch_max_dim_out_of_range", "import torch\ntorch.max(torch.ones(2, 3), 5)"),
    ("torch_min_method_dim_out_of_range", "import torch\ntorch.ones(2, 3).min(-3)"),
    ("torch_max_of_an_empty_dim", "import torch\ntorch.max(torch.ones(2, 0), 1)"),
    ("torch_sort_ties_and_nan", "import torch\ntorch.manual_seed(0)\nx = torch.randint(0, 4, (3, 40)).float()\nx[0, 5] = float('nan')\nx[1, 30] = float('nan')\nx[2, 0] = float('nan')\nprint(torch.sort(torch.tensor([3., 1., float('nan'), 1., 2.])))\nprint(x.sort().indices)\nprint(x.sort(descending=True).indices)\nprint(torch.sort(x, dim=0).indices)\nprint(torch.sort(x, 0, True).values)\nprint(x.sort(stable=True, descending=True).indices)\nprint(torch.argsort(x, dim=1, descending=True))\nprint(x.argsort(stable=True), torch.argsort(x[:, :5], 0))\ny = torch.randint(0, 5, (100,))\nprint(y.sort().indices.tolist())\nprint(torch.sort(y, descending=True).indices.tolist())\nprint(torch.sort(torch.tensor(3.)), torch.sort(torch.tensor([[2., 1.]]), -1).values)"),
    ("torch_sort_dim_out_of_range", "import torch\ntorch.sort(torch.ones(3), 1)"),
    ("torch_topk_ties_and_nan", "import torch\ntorch.manual_seed(1)\nx = torch.randint(0, 6, (2, 200)).float()\nx[0, 10] = float('nan')\nx[1, 150] = float('nan')\nprint(torch.topk(torch.tensor([3., 1., float('nan'), 1., 3.]), 3))\nprint(x.topk(3))\nprint(torch.topk(x, 3, largest=False))\nprint(torch.topk(x, 40).indices.tolist())\nprint(torch.topk(x, 40, largest=False, sorted=False).indices.tolist())\nprint(torch.topk(x[:, :30], 29, dim=1).indices.tolist())\nprint(x[:, :8].topk(5, 0))\nprint(torch.topk(x[:, :3], 0), torch.topk(torch.tensor(2.), 1))"),
    ("torch_topk_k_too_large", "import torch\ntorch.topk(torch.ones(2, 3), 4)"),
    ("torch_topk_k_negative", "import torch\ntorch.ones(3).topk(-1)"),
    ("torch_flatten_mm", "import torch\nx = torch.arange(24.).reshape(2, 3, 4)\nprint(x.flatten(), x.flatten(1), torch.flatten(x, 0, 1).shape, x.flatten(-2, -1).shape, x.flatten(start_dim=1, end_dim=1).shape, torch.flatten(torch.tensor(3.)))\nprint(x.transpose(0, 2).flatten())\na = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])\nprint(a.mm(torch.ones(2, 3)), torch.mm(a, a.T))"),
    ("torch_flatten_start_after_end", "import torch\ntorch.ones(2, 3).flatten(1, 0)"),
    ("torch_flatten_dim_out_of_range", "import torch\ntorch.ones(2, 3).flatten(0, 5)"),
    ("torch_mm_of_a_vector", "import torch\ntorch.mm(torch.ones(2, 3), torch.ones(3))"),
    ("torch_mm_method_of_a_vector", "import torch\ntorch.ones(3).mm(torch.ones(3, 2))"),
    ("torch_mm_shapes", "import torch\ntorch.ones(2, 3).mm(torch.ones(2, 2))"),
    ("torch_linspace_bit_for_bit", "import torch\nfor a, b, n in ((0, 1, 7), (0, 1, 50), (-3.3, 7.1, 33), (0.1, 0.9, 100), (1e-3, 5, 1000), (2, -1, 17), (0, 1, 2), (-1, 1, 64), (0, 10, 1), (5, 6, 0), (-7.25, 3.5, 15), (1, 2, 16), (0, 1, 31)):\n    print(n, torch.linspace(a, b, n).tolist() == [float(v) for v in torch.linspace(a, b, n)], torch.linspace(a, b, n).tolist()[-20:])\n    print(torch.linspace(a, b, n, dtype=torch.float64).tolist()[-20:])\nprint(torch.linspace(0, 10, 5, dtype=torch.int64), torch.linspace(-3, 40, 23, dtype=torch.int64), torch.linspace(0, 1, steps=5))\nprint(torch.linspace(0, 1, 5, dtype=torch.float64), torch.linspace(start=-1, end=1, steps=3))"),
    ("torch_linspace_without_steps", "import torch\ntorch.linspace(0, 1)"),
    ("torch_linspace_negative_steps", "import torch\ntorch.linspace(0, 1, -2)"),
    ("torch_std_var", "import torch\ntorch.manual_seed(3)\nx = torch.randn(4, 5)\nprint(x.std().item(), x.var().item(), torch.std(x, 1).tolist(), torch.var(x, 0, keepdim=True).tolist())\nprint(x.std(0, unbiased=False).tolist(), x.var(dim=1, correction=0).tolist(), x.var(True).item(), x.std(False).item())\nprint(torch.var(x, 1, True, True).tolist(), x.T.var().item(), x.T.std(1).tolist(), x.var(dim=(0, 1)).item(), x.std(dim=[1]).tolist())\ny = torch.randn(1000, dtype=torch.float64)\nprint(y.std().item(), y.var(0).item(), y.reshape(10, 100).var(1).tolist()[:3], y.reshape(100, 10).std(0).tolist()[:3])\nz = torch.randn(3000)\nprint(z.var().item(), z.reshape(3, 1000).std(1).tolist(), z.reshape(1000, 3).var(0).tolist())\nprint(torch.var(torch.tensor([1.])), torch.tensor([[1., 2.]]).std(0), torch.ones(2, 0).var(1), torch.tensor([1., 2., 4.]).std(unbiased=False))\nw = torch.tensor([1., 2.], requires_grad=True)\nprint(w.std(), w.var(0))"),
    ("torch_std_of_integers", "import torch\ntorch.std(torch.tensor([1, 2]))"),
    ("torch_var_dim_out_of_range", "import torch\ntorch.ones(2, 3).var(2)"),
    ("torch_named_tuples_keep_grad_on_values", "import torch\nw = torch.tensor([0.5, -1., 2.], requires_grad=True)\nprint(w.max(0), w.sort(), w.topk(2), torch.min(w, 0).values, torch.argsort(w), w.flatten(), w.reshape(3, 1).flatten(), w.max())"),
    # numpy: sort and argsort (its quicksort's order for ties), flatten, std and var, linspace, scalar types
    ("numpy_sort_argsort", "import numpy as np\na = np.array([[3., 1., 2.], [0.5, 7., 1.]])\nprint(np.sort(a), np.sort(a, axis=0), np.sort(a, axis=None), np.argsort(a), np.argsort(a, axis=0))\nb = np.array([2, 0, 3, 1, 2, 2, 0, 1, 3, 3, 1, 0, 2, 2, 1, 0, 3, 1, 1, 2, 0, 0, 3, 2, 1, 1, 2, 0, 3, 3, 2, 1, 0, 2, 1, 3, 0, 2, 1, 1])\nprint(np.argsort(b).tolist())\nprint(np.argsort(b, kind='stable').tolist())\nprint(np.argsort(b, kind='heapsort').tolist())\nc = b.astype(np.float64)\nc[4] = np.nan\nc[20] = np.nan\nprint(np.argsort(c).tolist(), np.sort(c)[-4:])\nprint(b.argsort().tolist() == np.argsort(b).tolist(), np.argsort(np.array([3., np.nan, 1., np.nan, 1.])))\nd = np.array([[5., 1., 4.], [2., 2., 0.]])\nd.sort()\nprint(d, np.sort([3, 1, 2]), np.argsort([3.5, 1.5, 2.5]))\ne = np.array([4, 1, 3])\ne.sort(axis=0)\nprint(e)"),
    ("numpy_sort_axis_out_of_range", "import numpy as np\nnp.sort(np.ones(3), axis=1)"),
    ("numpy_flatten_std_var", "import numpy as np\nnp.random.seed(775)\na = np.random.rand(4, 5)\nprint(a.flatten(), a.T.flatten(), a.std(), a.var(), np.std(a, axis=0), np.var(a, axis=1, ddof=1), a.std(axis=1, keepdims=True))\nf = a.astype(np.float32)\nprint(f.std(), f.var(axis=0), np.std(f, ddof=1), np.var(f, axis=-1, keepdims=True))\ni = np.array([[1, 2, 4], [3, 5, 9]])\nprint(i.std(), np.var(i, axis=1), np.std(i, ddof=1), np.var([1., 2., 4.]), np.std(i, axis=(0, 1)))\nb = np.random.rand(1000)\nprint(b.std(), b.var(ddof=1), b.reshape(10, 100).std(axis=1)[:3], b.reshape(100, 10).var(axis=0)[:3])\nv = a.flatten()\nv[0] = 9.\nprint(a[0, 0] != 9.)"),
    ("numpy_linspace_bit_for_bit", "import numpy as np\nfor a, b, n in ((0, 1, 7), (0, 1, 50), (-3.3, 7.1, 33), (0.1, 0.9, 100), (1e-3, 5, 1000), (2, -1, 17), (0, 1, 2), (0, 10, 1), (5, 6, 0)):\n    print(n, np.linspace(a, b, n).tolist()[-20:], np.linspace(a, b, n, dtype=np.float32).tolist()[-5:])\nprint(np.linspace(0, 1), np.linspace(0, 1, 5, endpoint=False), np.linspace(2., 3., num=5, retstep=True), np.linspace(-3, 40, 23, dtype=np.int64), np.linspace(0, 1, 5, dtype=np.float32))"),
    ("numpy_linspace_negative_num", "import numpy as np\nnp.linspace(0, 1, -1)"),
    ("numpy_scalar_types", "import numpy as np\nprint(np.float32(0.1), repr(np.float32(0.1)), np.float64(0.1), np.int64(3.7), np.int64(-2.7), np.float32(1) / 3, np.float32(1e10), np.float32(1e16), np.float32(1e-5))\nprint(np.float32(np.array([1.5, 0.1])), np.float64(np.array([1, 2])), np.int64(np.array([1.5, 2.7])), np.float32([1, 2]), np.float32(np.array(0.25)), np.float32(), np.bool_(2), np.float32('1.5'), np.int64('12'))\nprint(type(np.float32(2)).__name__ != '', np.float32(2) == 2.0, np.int64(5) + 1, np.float64(2.5) * 2)"),
    ("numpy_int64_of_nan", "import numpy as np\nnp.int64(float('nan'))"),
    ("bitwise_operators_on_ints_and_bools", "print(5 ^ 3, True ^ False, True ^ True, True ^ 3, False ^ 0, -6 ^ 3, 5 & 3, True & 3, True | False, 5 | 3, ~5, ~True, ~-1)\nprint(1 << 3, True << 2, -8 >> 1, -7 >> 1, 1 << 62, -1 << 63, 7 >> 100, -7 >> 100, 0 << 1000, 3 >> 0, False >> 1)\nprint(1 | 2 ^ 3 & 4 << 1, (1 | 2) ^ 3, 6 ^ 3 & 5, 2 + 3 << 1, 1 < 2 ^ 3, 1 ^ 2 == 3, -2 ** 2 ^ 1)\nx = 5\nx ^= 3\nx <<= 2\nx >>= 1\nx &= 7\nx |= 8\nb = True\nb ^= True\nprint(x, b, type(b).__name__, type(True ^ 1).__name__, type(True << 0).__name__)"),
    ("xor_of_a_float", "print(5 ^ 3)\nx = 1.5 ^ 2"),
    ("xor_with_a_float_right", "x = 2 ^ 1.5"),
    ("xor_of_lists", "x = [1] ^ [2]"),
    ("xor_of_a_set_and_a_list", "x = {1} ^ [1]"),
    ("shift_by_a_negative_count", "x = 1 << -1"),
    ("shift_of_a_float", "x = 1.0 << 2"),
    ("torch_xor_of_bool_and_integer_tensors", "import torch\nprint(torch.tensor([5, 3]) ^ torch.tensor([1, 1]), torch.tensor([True, False]) ^ torch.tensor([True, True]), torch.tensor([True, False]) ^ torch.tensor([1, 2]))\nprint(torch.tensor([5, 3]) ^ 1, torch.tensor([5, 3]) ^ True, torch.tensor([True, False]) ^ True, torch.tensor([True, False]) ^ 1, 3 ^ torch.tensor([5, 3]), torch.tensor(5) ^ torch.tensor(3))\nprint(torch.tensor([[1], [2]]) ^ torch.tensor([1, 2, 3]), torch.tensor([[True], [False]]) ^ torch.tensor([True, False]))\nm = torch.tensor([True, False, True])\nm ^= torch.tensor([True, True, False])\nk = torch.arange(4)\nk ^= 2\nprint(m, k, (torch.tensor([6, 5]) & 3) | torch.tensor([8, 0]))"),
    ("torch_xor_of_float_tensors", "import torch\nx = torch.ones(2) ^ torch.ones(2)"),
    ("torch_xor_of_an_integer_tensor_and_a_float", "import torch\nx = torch.tensor([5, 3]) ^ 1.5"),
    ("torch_xor_of_integer_and_double_tensors", "import torch\nx = torch.tensor([5, 3]) ^ torch.tensor([1.0, 2.0], dtype=torch.float64)"),
    ("torch_and_of_float_tensors", "import torch\nx = torch.ones(2) & torch.ones(2)"),
    ("torch_or_of_float_tensors", "import torch\nx = torch.ones(2) | torch.ones(2).bool()"),
    ("numpy_xor_of_bool_and_integer_arrays", "import numpy as np\nprint(np.array([5, 3]) ^ np.array([1, 1]), np.array([True, False]) ^ True, np.array([True, False]) ^ 1, np.array([5, 3]) ^ True, np.array(5) ^ np.array(3), np.array([[1], [2]]) ^ np.array([1, 2, 3]))\na = np.array([True, False])\na ^= np.array([True, True])\nprint(a, 7 ^ np.array([1, 2]))"),
    ("numpy_xor_of_float_arrays", "import numpy as np\nx = np.ones(2) ^ np.ones(2)"),
    ("numpy_xor_of_an_integer_array_and_a_float", "import numpy as np\nx = np.array([5, 3]) ^ 1.5"),
    ("numpy_and_of_float_arrays", "import numpy as np\nx = np.ones(2) & np.ones(2)"),
    ("tensor_type", "import torch\nx = torch.ones(2)\nprint(repr(x.type()), x.type(torch.float64), x.type('torch.LongTensor'), x.type(torch.float32) is x, torch.ones(2).long().type(), torch.tensor([True]).type(), x.double().type())\nw = torch.ones(2, requires_grad=True)\nprint(w.type(torch.float64))\ny = x.type('float')"),
    # einsum
    ("einsum", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nprint(torch.einsum('ij,jk->ik', A, B), torch.einsum('ij,jk', A, B), torch.einsum('ij->ji', A), torch.einsum('ii', torch.eye(3)), torch.einsum('ii->i', torch.eye(3)), torch.einsum('ij->', A))\nprint(torch.einsum('i,i->', A[0], A[1]), torch.einsum('i,j->ij', A[0], A[1]), torch.einsum('b h i d, b h j d -> b h i j', q, k), torch.einsum('ij,jk->ik', [A, B]))\nprint(torch.einsum('ij,jk->ik', A.long(), B.long()), torch.einsum('iJ->Ji', A), torch.einsum('i j', A), torch.einsum('ij,ij->ij', A, A), torch.einsum('ij->j', A), torch.einsum('ji', A), torch.einsum('ij,kj->ik', A, torch.ones(1, 3)), torch.einsum('ij,jk,kl->il', A, B, torch.ones(4, 2)))\nw = A.clone().requires_grad_()\nprint(torch.einsum('ij,jk->ik', w, B), torch.einsum('ij->ji', w), torch.einsum('ij->j', w), torch.einsum('i,j->ij', w[0], B[0]), torch.einsum('ij,ij->i', w, w), torch.einsum('bhid,bhjd->bhij', q.requires_grad_(), k)[0, 0])\nattn = torch.einsum('bhid,bhjd->bhij', q, k).softmax(dim=-1)\nprint(torch.einsum('bhij,bhjd->bhid', attn, k))"),
    ("einsum_of_two_dtypes", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ij,jk->ik', A, B.double())"),
    ("einsum_sizes_that_do_not_broadcast", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ij,jk->ik', A, A)"),
    ("einsum_output_subscript_not_in_the_inputs", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ij,jk->il', A, B)"),
    ("einsum_more_operands_than_terms", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ij->ij', A, B)"),
    ("einsum_fewer_operands_than_terms", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ij,jk->ik', A)"),
    ("einsum_an_empty_term_after_the_operands", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ij,jk,', A, B)"),
    ("einsum_output_subscript_twice", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ij,jk->ikk', A, B)"),
    ("einsum_invalid_subscript", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('i1', A)"),
    ("einsum_subscripts_and_dims_disagree", "import torch\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 3, 4)\nk = torch.randn(1, 2, 3, 4)\nA = torch.arange(6.).reshape(2, 3)\nB = torch.arange(12.).reshape(3, 4)\nx = torch.einsum('ijk->i', A)"),
    # split, chunk, expand, repeat and where
    # the annotated transformer's attention, masks, positional encoding and clones (import math, copy)
    ("annotated_transformer_pieces", "import math, copy\nimport torch\nimport torch.nn as nn\n\ndef attention(query, key, value, mask=None, dropout=None):\n    d_k = query.size(-1)\n    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)\n    if mask is not None:\n        scores = scores.masked_fill(mask == 0, -1e9)\n    p_attn = scores.softmax(dim=-1)\n    if dropout is not None:\n        p_attn = dropout(p_attn)\n    return torch.matmul(p_attn, value), p_attn\n\ndef subsequent_mask(size):\n    attn_shape = (1, size, size)\n    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1)\n    return subsequent_mask == 0\n\ndef clones(module, N):\n    return nn.ModuleList([copy.deepcopy(module) for _ in range(N)])\n\nclass PositionalEncoding(nn.Module):\n    def __init__(self, d_model, max_len=5000):\n        super(PositionalEncoding, self).__init__()\n        pe = torch.zeros(max_len, d_model)\n        position = torch.arange(0, max_len).unsqueeze(1)\n        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))\n        pe[:, 0::2] = torch.sin(position * div_term)\n        pe[:, 1::2] = torch.cos(position * div_term)\n        pe = pe.unsqueeze(0)\n        self.register_buffer(\"pe\", pe)\n\n    def forward(self, x):\n        x = x + self.pe[:, : x.size(1)].requires_grad_(False)\n        return x\n\ntorch.manual_seed(0)\nq = torch.randn(1, 2, 4, 8)\nout, p = attention(q, q, q, mask=subsequent_mask(4))\nprint(p[0, 0])\nprint(subsequent_mask(3))\npe = PositionalEncoding(8, 10)\nprint(pe(torch.zeros(1, 3, 8)))\nlayers = clones(nn.Linear(4, 4), 2)\nprint(len(layers), layers[0].weight.shape)"),
    # copy.deepcopy and copy.copy: containers, tensors, modules; classes shared
    ("copy_and_deepcopy", "import copy\nimport torch\nimport torch.nn as nn\nt = torch.ones(2); c = copy.copy(t); c[0] = 5; print(t, c, c is t)\nw = torch.ones(2, requires_grad=True) * 2\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__(); self.l = nn.Linear(2, 2)\ntorch.manual_seed(0)\nm = M(); d = copy.deepcopy(m); print(type(d) is type(m), d.l.weight is m.l.weight, torch.equal(d.l.weight, m.l.weight), d.l.weight.requires_grad, isinstance(d, M))\nd.l.weight.data[0, 0] = 7.0\nprint(m.l.weight[0, 0].item() != 7.0)\na = [1, [2, 3]]; b = copy.deepcopy(a); b[1].append(4); print(a, b)\ne = {1: [2]}; f = copy.copy(e); f[1].append(5); print(e, f)\nlayers = nn.ModuleList([copy.deepcopy(nn.Linear(2, 2)) for _ in range(3)])\nprint(len(layers), layers[0].weight is layers[1].weight)\ns = {3, 1, 2}; print(copy.copy(s), copy.deepcopy((1, [2])))"),
    ("deepcopy_of_a_tensor_with_a_grad_fn", "import copy\nimport torch\nw = torch.ones(2, requires_grad=True) * 2\nx = copy.deepcopy(w)"),
    # nanoGPT's CausalSelfAttention as written (split into q, k, v; register_buffer; views and transposes)
    ("nanogpt_causal_self_attention", "import math\nimport torch\nimport torch.nn as nn\nfrom torch.nn import functional as F\n\nclass CausalSelfAttention(nn.Module):\n    def __init__(self, n_embd, n_head, block_size):\n        super().__init__()\n        assert n_embd % n_head == 0\n        self.c_attn = nn.Linear(n_embd, 3 * n_embd)\n        self.c_proj = nn.Linear(n_embd, n_embd)\n        self.n_head = n_head\n        self.n_embd = n_embd\n        self.register_buffer(\"bias\", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))\n\n    def forward(self, x):\n        B, T, C = x.size()\n        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)\n        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)\n        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)\n        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)\n        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))\n        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))\n        att = F.softmax(att, dim=-1)\n        y = att @ v\n        y = y.transpose(1, 2).contiguous().view(B, T, C)\n        y = self.c_proj(y)\n        return y\n\ntorch.manual_seed(0)\nm = CausalSelfAttention(8, 2, 4)\nx = torch.randn(1, 4, 8)\nwith torch.no_grad():\n    y = m(x)\nprint(y)\nprint(y.shape)"),
    ("split_and_chunk", "import torch\nx = torch.arange(12.).reshape(2, 6)\nw = torch.ones(2, 6, requires_grad=True)\nq, k = x.split(3, dim=1)\nprint(q, k, q.is_contiguous())\nprint(x.split(4, dim=1), x.split([2, 4], 1), torch.split(x, 1), x.split(10, 1))\nprint(x.chunk(4, dim=1), torch.chunk(x, 2, 1), len(x.chunk(5, 1)), x[:, :0].chunk(3, 1), x[:, :0].split(2, 1))\nprint(w.split(3, 1), w.chunk(2, 1)[0])\na, b, c = torch.arange(6).chunk(3)\nprint(a, b, c)"),
    ("split_sizes_not_summing", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.split([2, 3], 1)"),
    ("split_sizes_negative", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.split([2, -1, 5], 1)"),
    ("split_size_zero", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.split(0, 1)"),
    ("split_size_negative", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.split(-1, 1)"),
    ("split_of_a_0d_tensor", "import torch\ny = torch.tensor(3.).split(1)"),
    ("chunk_of_zero", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.chunk(0, 1)"),
    ("expand", "import torch\nx = torch.arange(12.).reshape(2, 6)\nw = torch.ones(2, 6, requires_grad=True)\nprint(x[:1].expand(3, 6), x.expand(3, 2, 6).shape, x[:1].expand(-1, 6).shape, x.expand(2, -1).shape, x.expand(1, 2, 6).stride())\nprint(w.expand(2, 6), w.expand(2, 2, 6)[0])\nm = torch.tensor([[1.], [2.]]).expand(2, 3)\nprint(m, m.stride(), m.is_contiguous(), m.sum())"),
    ("expand_non_singleton", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.expand(2, 6, 1)"),
    ("expand_fewer_sizes", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.expand(6)"),
    ("expand_leading_minus_one", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.expand(-1, 2, 6)"),
    ("repeat", "import torch\nx = torch.arange(12.).reshape(2, 6)\nw = torch.ones(2, 6, requires_grad=True)\nprint(x.repeat(2, 1).shape, x[:, :2].repeat(1, 2, 2), torch.tensor([1, 2]).repeat(3), x.t().repeat(1, 2), x.repeat(0, 2).shape)\nprint(w.repeat(1, 2)[0], torch.tensor([True, False]).repeat(2))"),
    ("repeat_fewer_dims", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.repeat(1)"),
    ("repeat_negative", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = x.repeat(-1, 1)"),
    ("where", "import torch\nx = torch.arange(12.).reshape(2, 6)\nw = torch.ones(2, 6, requires_grad=True)\nprint(torch.where(x > 5, x, torch.zeros(2, 6)), torch.where(x > 5, x, 0.), torch.where(x > 5, x, float('-inf')))\nprint(torch.where(x > 5, 1., 0.), torch.where(x > 5, x.long(), x), torch.where(x > 5), torch.where(x > 5, w, x), torch.where(x > 5, 1, 0))\nprint(torch.where(torch.tensor([True, False]), torch.tensor([[1], [2]]), torch.tensor([5, 6])), torch.where(torch.tensor(True)))"),
    ("where_of_a_float_condition", "import torch\nx = torch.arange(12.).reshape(2, 6)\ny = torch.where(x, x, x)"),
    ("numpy_where", "import numpy as np\nprint(np.where(np.array([1, 0, 3]) > 0, np.array([1, 2, 3]), 0), np.where(np.array([[0, 1], [2, 0]])), np.where(np.array([1.0, 0.0]), 1, 2), np.where(np.array([True, False]), [1, 2], [3.5, 4]))"),
    ("numpy_where_with_x_alone", "import numpy as np\ny = np.where(np.array([True]), 1)"),
    # a tensor and a numpy array: the tensor's operators compute through numpy and give a tensor; the array's refuse, but /
    ("tensor_then_numpy_array", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\nf32 = np.array([1.5, 2.0], dtype=np.float32)\nprint(t + a, g + a, g * f, t + f32, g + f32, t @ a, g @ a, t / a, g ** a, t >> a, t == a, t != a, g == f, t - a)\nprint(torch.tensor([[1., 2.], [3., 4.]]) @ np.eye(2), torch.tensor(2.) + a, a / t, f / g, a == t, a != t)\nt2 = t\nt += a\nprint(t, t2, t is t2)"),
    ("numpy_array_plus_tensor", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\nx = a + t"),
    ("numpy_array_times_tensor", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\nx = f * g"),
    ("numpy_array_matmul_tensor", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\nx = np.eye(2) @ torch.ones(2, 2)"),
    ("numpy_array_pow_tensor", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\nx = a ** t"),
    ("numpy_array_below_tensor", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\nx = a < t"),
    ("tensor_below_numpy_array", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\nx = g <= f"),
    ("numpy_array_in_place_plus_tensor", "import numpy as np\nimport torch\na = np.array([1, 2]); t = torch.tensor([1, 3]); g = torch.tensor([1.0, 3.0]); f = np.array([1.5, 2.0])\na += t"),
    ("tensor_requiring_grad_then_numpy_array", "import numpy as np\nimport torch\nw = torch.ones(2, requires_grad=True)\nprint(w == np.ones(2), w.detach() + np.ones(2))\nx = (w * 2) @ np.ones(2)"),
    # shifts and ~ of integer tensors and arrays: torch shifts as the machine does (count modulo 64), numpy fills in
    ("shifts_and_invert_of_integer_tensors", "import torch\nx = torch.tensor([1, -8, 5])\nprint(x << 2, x >> 1, ~x, ~torch.tensor(5), 1 << torch.tensor([1, 2]), torch.tensor([True]) << 1, x << torch.tensor([1, 0, 3]))\nprint(torch.tensor([1]) << 64, torch.tensor([1]) << 63, torch.tensor([-1]) >> 64, torch.tensor([4]) >> 100, torch.tensor([1]) << -1, torch.tensor([4]) >> -1, ~torch.tensor([True, False]))\ny = x\nx <<= 2\nprint(y)"),
    ("shift_of_a_float_tensor", "import torch\nx = torch.tensor([1.5]) << 2"),
    ("shift_of_bool_tensors", "import torch\nx = torch.tensor([True]) >> torch.tensor([True])"),
    ("invert_of_a_float_tensor", "import torch\nx = ~torch.tensor([1.5])"),
    ("shifts_and_invert_of_integer_arrays", "import numpy as np\na = np.array([1, -8, 5])\nprint(a << 2, a >> 1, ~a, 2 << np.array([1, 2]), np.array([True]) << 1, np.array([1]) << 64, np.array([1]) << -1, np.array([3]) >> 70, np.array([-3]) >> 70, ~np.array([True, False]))\nb = a\na >>= 1\nprint(b)"),
    ("shift_of_a_float_array", "import numpy as np\nx = np.array([1.5]) << 1"),
    ("invert_of_a_float_array", "import numpy as np\nx = ~np.array([1.5])"),
    # a dict or a set changed in size while it is iterated stops the loop; a value replaced does not
    ("dict_changed_size_during_iteration", "d = {1: 2, 3: 4}\nfor k in d:\n    d[k + 10] = 1"),
    ("dict_view_changed_size_during_iteration", "d = {1: 2, 3: 4}\nn = 0\nfor k, v in d.items():\n    n += 1\n    if n == 2:\n        del d[1]"),
    ("dict_values_replaced_during_iteration", "d = {1: 2, 3: 4}\nfor k in d:\n    d[k] = k * 10\nfor v in d.values():\n    d[1] = v\nprint(d, [k for k in d])"),
    ("set_changed_size_during_iteration", "s = {1, 2}\nfor k in s:\n    s.add(k + 10)"),
    ("set_same_item_added_during_iteration", "s = {1, 2}\nfor k in s:\n    s.add(k)\nprint(s)\nl = [1, 2]\nfor x in l:\n    if len(l) < 5:\n        l.append(x)\nprint(l)"),
    ("set_changed_size_in_a_comprehension", "s = {1, 2, 3}\nprint([s.discard(x) for x in s])"),
    # reductions over several dims at once: torch's tuple or list (empty: every dim), numpy's tuple (empty: none)
    ("reductions_over_several_dims_torch", "import torch\nX = torch.arange(24.).reshape(2, 3, 4)\nprint(X.sum(dim=(0, 2)), X.sum(dim=()), X.mean((0, -1)), X.amax(dim=(0, 2)), torch.amin(X, (0, 2)))\nprint(X.sum((0, 2), keepdim=True).shape, torch.sum(X, [1, 2]), torch.mean(X, dim=[0, 1]).shape, X.bool().sum((0, 1)), X.amin((2, 0), True).shape)\nprint(X.var(dim=(0, 2)), X.std((0, 2)), torch.amax(X), X.transpose(0, 2).sum((0, 1)), X.sum(dim=(-1, -2, 0)), X[:, :, :0].amax((0, 1)).shape)\nprint(X.var((0, 2), keepdim=True).shape, torch.var(X, [1, 2], unbiased=False), X.sum(dim=[]))"),
    ("reductions_over_a_repeated_dim_torch", "import torch\nX = torch.ones(2, 3)\nX.sum(dim=(0, -2))"),
    ("reductions_over_a_dim_out_of_range_torch", "import torch\nX = torch.ones(2, 3)\nX.mean(dim=(0, 5))"),
    ("reductions_over_several_dims_of_integers_torch", "import torch\nX = torch.ones(2, 3, dtype=torch.int64)\nprint(X.sum((0, 1)), X.amax((0, 1)))\nX.mean((0, 1))"),
    ("reductions_over_several_axes_numpy", "import numpy as np\na = np.arange(24.).reshape(2, 3, 4)\nprint(np.sum(a, axis=(0, 2)), a.mean(axis=(0, -1)), a.max(axis=(0, 2)), np.amin(a, (0, 2)), a.min(axis=(1, 2), keepdims=True).shape)\nprint(np.var(a, axis=(0, 2)), np.std(a, axis=(0, 2)), a.sum(axis=()).shape, np.mean(a, (2, 0)), np.max(a, axis=(0, 1, 2)), np.arange(6).reshape(2, 3).sum(axis=(0, 1)))"),
    ("reductions_over_a_repeated_axis_numpy", "import numpy as np\nnp.sum(np.ones((2, 3)), axis=(0, 0))"),
    ("reductions_over_a_list_of_axes_numpy", "import numpy as np\nnp.sum(np.ones((2, 3)), axis=[0, 1])"),
    ("reductions_over_an_axis_out_of_range_numpy", "import numpy as np\nnp.ones((2, 3)).mean(axis=(0, 2))"),
    # numpy's scalars (np.float64, np.float32, np.int64, np.bool_) and rounding
    ("numpy_scalar_arithmetic", "import numpy as np\nf = np.float32(1.5); d = np.float64(2.5); i = np.int64(3); b = np.bool_(True); g = np.float32(0.1)\nr = f+1.0\nprint('f+1.0', repr(r), type(r).__name__)\nr = f+1\nprint('f+1', repr(r), type(r).__name__)\nr = f*f\nprint('f*f', repr(r), type(r).__name__)\nr = f+d\nprint('f+d', repr(r), type(r).__name__)\nr = i+1\nprint('i+1', repr(r), type(r).__name__)\nr = i/2\nprint('i/2', repr(r), type(r).__name__)\nr = i+1.5\nprint('i+1.5', repr(r), type(r).__name__)\nr = i//2\nprint('i//2', repr(r), type(r).__name__)\nr = -f\nprint('-f', repr(r), type(r).__name__)\nr = -i\nprint('-i', repr(r), type(r).__name__)\nr = abs(f)\nprint('abs(f)', repr(r), type(r).__name__)\nr = f>1\nprint('f>1', repr(r), type(r).__name__)\nr = b+1\nprint('b+1', repr(r), type(r).__name__)\nr = b&True\nprint('b&True', repr(r), type(r).__name__)\nr = i**2\nprint('i**2', repr(r), type(r).__name__)\nr = 2**i\nprint('2**i', repr(r), type(r).__name__)\nr = f**2\nprint('f**2', repr(r), type(r).__name__)\nr = round(d)\nprint('round(d)', repr(r), type(r).__name__)\nr = round(f,1)\nprint('round(f,1)', repr(r), type(r).__name__)\nr = int(d)\nprint('int(d)', repr(r), type(r).__name__)\nr = float(i)\nprint('float(i)', repr(r), type(r).__name__)\nr = i+True\nprint('i+True', repr(r), type(r).__name__)\nr = d%1\nprint('d%1', repr(r), type(r).__name__)\nr = max(i,5)\nprint('max(i,5)', repr(r), type(r).__name__)\nr = sum([i,i])\nprint('sum([i,i])', repr(r), type(r).__name__)\nr = g*g\nprint('g*g', repr(r), type(r).__name__)\nr = -g\nprint('-g', repr(r), type(r).__name__)\nr = g+g\nprint('g+g', repr(r), type(r).__name__)\nr = abs(-g)\nprint('abs(-g)', repr(r), type(r).__name__)\nr = ~b\nprint('~b', repr(r), type(r).__name__)\nr = ~i\nprint('~i', repr(r), type(r).__name__)\nr = 1/d\nprint('1/d', repr(r), type(r).__name__)\nr = True+b\nprint('True+b', repr(r), type(r).__name__)\nr = b*b\nprint('b*b', repr(r), type(r).__name__)\nr = [10,20,30,40][i]\nprint('[10,20,30,40][i]', repr(r), type(r).__name__)\nr = np.float32(0.1) == 0.1\nprint('np.float32(0.1) == 0.1', repr(r), type(r).__name__)\nr = np.float64(0.1) == 0.1\nprint('np.float64(0.1) == 0.1', repr(r), type(r).__name__)\nr = np.int64(7) % 3\nprint('np.int64(7) % 3', repr(r), type(r).__name__)\nr = np.int64(-7) // 2\nprint('np.int64(-7) // 2', repr(r), type(r).__name__)\nr = np.float32(7.5) // 2\nprint('np.float32(7.5) // 2', repr(r), type(r).__name__)\nr = np.float64(1) / 3 * 3\nprint('np.float64(1) / 3 * 3', repr(r), type(r).__name__)\nr = min(g, 3.0)\nprint('min(g, 3.0)', repr(r), type(r).__name__)\nr = not b\nprint('not b', repr(r), type(r).__name__)"),
    ("numpy_scalar_attributes_and_text", "import numpy as np\nf = np.float32(1.5); d = np.float64(2.5); i = np.int64(3); b = np.bool_(True); g = np.float32(0.1)\nr = (g*3).item()\nprint('(g*3).item()', repr(r), type(r).__name__)\nr = d.item()\nprint('d.item()', repr(r), type(r).__name__)\nr = i.item()\nprint('i.item()', repr(r), type(r).__name__)\nr = b.item()\nprint('b.item()', repr(r), type(r).__name__)\nr = f.shape\nprint('f.shape', repr(r), type(r).__name__)\nr = f.ndim\nprint('f.ndim', repr(r), type(r).__name__)\nr = f.size\nprint('f.size', repr(r), type(r).__name__)\nr = d.round(1)\nprint('d.round(1)', repr(r), type(r).__name__)\nr = np.float64(2.675).round(2)\nprint('np.float64(2.675).round(2)', repr(r), type(r).__name__)\nr = g.astype(np.float64)\nprint('g.astype(np.float64)', repr(r), type(r).__name__)\nr = d.tolist()\nprint('d.tolist()', repr(r), type(r).__name__)\nr = d.sum()\nprint('d.sum()', repr(r), type(r).__name__)\nr = i.max()\nprint('i.max()', repr(r), type(r).__name__)\nr = g.T\nprint('g.T', repr(r), type(r).__name__)\nr = d.mean()\nprint('d.mean()', repr(r), type(r).__name__)\nr = np.sqrt(d)\nprint('np.sqrt(d)', repr(r), type(r).__name__)\nr = np.exp(g)\nprint('np.exp(g)', repr(r), type(r).__name__)\nr = g * np.arange(3.)\nprint('g * np.arange(3.)', repr(r), type(r).__name__)\nr = type(g).__name__\nprint('type(g).__name__', repr(r), type(r).__name__)\nr = str(g*g)\nprint('str(g*g)', repr(r), type(r).__name__)\nr = f\"{g*g}\"\nprint('f\"{g*g}\"', repr(r), type(r).__name__)\nr = f\"{g*g:.3f}\"\nprint('f\"{g*g:.3f}\"', repr(r), type(r).__name__)\nr = \"%s\" % (g*g)\nprint('\"%s\" % (g*g)', repr(r), type(r).__name__)\nr = repr(g*g)\nprint('repr(g*g)', repr(r), type(r).__name__)\nr = {\"a\": g*g}\nprint('{\"a\": g*g}', repr(r), type(r).__name__)\nr = [g] * 2\nprint('[g] * 2', repr(r), type(r).__name__)\nr = str(np.array(g).dtype)\nprint('str(np.array(g).dtype)', repr(r), type(r).__name__)\nr = np.float32(3) * np.ones(2, dtype=np.float32)\nprint('np.float32(3) * np.ones(2, dtype=np.float32)', repr(r), type(r).__name__)"),
    ("numpy_arrays_of_numpy_scalars", "import numpy as np\ng = np.float32(0.1)\nprint(repr(np.array([g, g])), repr(np.array([g, 0.5])), repr(np.array([np.float32([1, 2]), np.float32([3, 4])])), repr(np.array([g, 1])), repr(np.array([[g], [np.float32(2)]])), repr(np.array([np.int64(1), 2])), repr(np.array([1.5, 2])), repr(np.array([g, True])))\na = np.float32([1, 2, 3])\nprint(repr(np.array([a.sum(), a.max()])), repr(np.array([a[0], a[1] * 2])), np.array([a[0], a[1]]).dtype, np.array([np.arange(3.).sum(), g]).dtype)"),
    ("numpy_scalar_missing_attribute", "import numpy as np\nf = np.float32(1.5); d = np.float64(2.5); i = np.int64(3); b = np.bool_(True); g = np.float32(0.1)\nx = i.bit_length()"),
    ("rounding_torch_and_numpy", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\nprint(torch.round(x), torch.round(x, decimals=2), x.round(decimals=-2), torch.round(x.double(), decimals=2), torch.round(torch.tensor([1, 2])))\nprint(np.round(a), np.round(a, 2), a.round(-2), np.around(a, 1), np.round(a.astype(np.float32), 2), np.round(np.array([1234, 1250, 1350, -1250]), -2), np.round(np.array([1, 2]), 1))\nprint(repr(np.round(2.675, 2)), repr(np.round(5, 1)), repr(round(np.float64(2.5))), repr(round(np.float64(2.675), 2)), repr(round(np.float32(2.675), 2)), repr(round(np.int64(1234), -2)), repr(round(np.int64(5))))\nprint(np.round(a, decimals=1), a.round(decimals=1), np.round(a.astype(np.float32), 1), torch.round(torch.tensor([2.675, 0.125, 1e-3]), decimals=2), np.round(np.float32([2.675, 0.125]), 2), np.round([1.25, 2.5]), type(np.round(2.5)).__name__)\nw = x.clone().requires_grad_()\nprint(torch.round(w), w.round(decimals=1))"),
    ("round_of_a_numpy_bool", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\ny = round(np.bool_(True))"),
    ("round_of_a_tensor", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\ny = round(torch.tensor(2.5))"),
    ("torch_round_decimals_given_by_position", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\ny = torch.round(x, 2)"),
    ("torch_round_of_integers_with_decimals", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\ny = torch.round(torch.tensor([1, 2]), decimals=1)"),
    ("torch_round_of_bools", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\ny = torch.round(torch.tensor([True]))"),
    ("np_round_of_bools_with_decimals", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\ny = np.round(np.array([True, False]), 1)"),
    ("np_round_of_float_decimals", "import numpy as np\nimport torch\nx = torch.tensor([0.5, 1.5, 2.675, -0.5, 1234.5678])\na = np.array([0.5, 1.5, 2.675, -0.5, 1234.5678])\ny = np.round(a, 1.5)"),
    # np.maximum, np.minimum, np.clip, torch.clamp; numpy's array makers and shape helpers
    ("np_maximum_minimum_and_clip", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\nprint(np.maximum(x, 2), np.maximum(xi, 2.5), np.maximum(x, np.array([np.nan, 1, 9])), repr(np.maximum(2, 3)), np.maximum([1, 5], [4, 2]), np.minimum(x, 2))\nprint(np.clip(x, 1, 4), np.clip(xi, 1, 4), np.clip(xi, 1.5, 4), np.clip(x, None, 2), x.clip(1, 3), x.clip(max=2), np.clip(x, 4, 1), np.clip(np.array([np.nan, 1.0]), 0, 0.5), np.clip(x, [0, 1, 2], 3), repr(np.clip(5, 0, 3)))\nprint(repr(np.maximum(np.float32([1, 2]), 1.5)), repr(np.maximum(np.float32([1, 2]), np.float64(1.5))), repr(np.maximum(np.float32([1, 2]), np.array([1.5, 0]))), repr(np.minimum(np.float32(2), 3)), np.clip(x, x, 3))"),
    ("np_clip_without_bounds", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = np.clip(x, None, None)"),
    ("torch_clamp_and_clip", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\nprint(torch.clamp(T, min=1), torch.clamp(T, 1, 4), torch.clamp(Ti, 1, 4), torch.clamp(Ti, min=1.5), torch.clamp(T, max=2), T.clamp(1, 3), T.clip(max=2), torch.clip(T, 0, 1))\nprint(torch.clamp(T, 4, 1), torch.clamp(torch.tensor([float('nan'), 1.0]), 0, 0.5), torch.clamp(T, min=torch.tensor([0., 1, 2])), T.clone().clamp_(0, 1), torch.clamp(torch.tensor([True, False]), 0, 1), torch.clamp(Ti, min=True))\nw = torch.ones(2, requires_grad=True)\ny = w * 1\n_ = y.clamp_(0, 0.5)\nprint(torch.clamp(w, 0, 1), w.clamp(min=0), y)"),
    ("torch_clamp_without_bounds", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = torch.clamp(T)"),
    ("torch_clamp_of_a_str", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = torch.clamp(T, 'a')"),
    ("torch_clamp_in_place_of_integers_to_a_float", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = Ti.clone().clamp_(0.5)"),
    ("numpy_array_makers", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\nprint(np.full((2, 2), -np.inf), np.full(3, 7), repr(np.full((2,), 1.5, dtype=np.float32)), np.full(2, True), repr(np.full((2, 2), np.float32(0.5))), np.full(2, 2 ** 62 + 1))\nprint(np.zeros_like(x), np.zeros_like(xi), np.ones_like([1, 2]), np.full_like(xi, 2.7), np.full_like(x, 7), np.zeros_like(x, dtype=np.int64), np.empty(3).shape, np.empty_like(x).shape)\nprint(np.identity(2), np.identity(2, dtype=np.int64), np.asarray(x) is x, np.asarray([1, 2]), repr(np.asarray(x, dtype=np.float32)))"),
    ("numpy_identity_negative", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = np.identity(-1)"),
    ("numpy_expand_dims_and_squeeze", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\nprint(np.expand_dims(x, 0).shape, np.expand_dims(x, -1).shape, np.expand_dims(x, (0, 3)).shape, np.expand_dims([1, 2], 0), np.expand_dims(x, 0)[0, 1, 2])\nprint(np.squeeze(np.ones((1, 3, 1))).shape, np.squeeze(np.ones((1, 3, 1)), axis=0).shape, np.squeeze(np.ones((1, 3, 1)), axis=(0, 2)).shape, x.squeeze().shape, np.ones((1, 3)).squeeze(0).shape)\ny = x[np.newaxis, :, np.newaxis]\ny[0, 1, 0, 2] = 99\nprint(y.shape, x, x[:, np.newaxis].shape, np.newaxis is None, T[:, np.newaxis].shape)"),
    ("numpy_expand_dims_out_of_bounds", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = np.expand_dims(x, 3)"),
    ("numpy_expand_dims_repeated_axis", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = np.expand_dims(x, (0, 0))"),
    ("numpy_squeeze_an_axis_not_of_one", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = np.squeeze(np.ones((1, 3, 1)), axis=1)"),
    ("numpy_squeeze_out_of_bounds", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = np.squeeze(np.ones((1, 3)), axis=2)"),
    ("numpy_squeeze_method_an_axis_not_of_one", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nTi = torch.arange(6).reshape(2, 3)\ny = np.ones((1, 3)).squeeze(1)"),
    # activations: sigmoid, gelu, log_softmax
    ("torch_sigmoid_gelu_and_log_softmax", "import torch\nimport torch.nn.functional as F\ntorch.manual_seed(0)\nx = torch.randn(3, 5) * 3\nprint(torch.sigmoid(x), x.sigmoid(), F.gelu(x), F.gelu(x, approximate='tanh'))\nprint(torch.log_softmax(x, dim=-1), F.log_softmax(x, dim=0), x.log_softmax(1), torch.log_softmax(x.double(), 1))\nprint(torch.sigmoid(torch.tensor([-100., 0., 100., float('nan'), float('inf')])), torch.sigmoid(torch.tensor([1, 2])), F.gelu(torch.tensor([-20., -10., -7., -5., 1.])), F.gelu(torch.tensor([-7.])))\nprint(torch.log_softmax(torch.tensor([[1000., 0.], [float('-inf'), float('-inf')]]), dim=1), F.log_softmax(torch.tensor([1., 2., 3.]), dim=0))\nprint(F.gelu(torch.tensor([-3., -0.5, 0., 0.5, 3.]).double()), (x.log_softmax(-1).exp().sum(-1) - 1).abs().max() < 1e-6)\nw = x.clone().requires_grad_()\nprint(torch.sigmoid(w)[0], F.gelu(w)[0], w.log_softmax(-1)[0], F.gelu(w[0]))"),
    ("torch_gelu_of_an_unknown_approximation", "import torch\nimport torch.nn.functional as F\ny = F.gelu(torch.ones(2), approximate='erf')"),
    ("torch_gelu_of_integers", "import torch\nimport torch.nn.functional as F\ny = F.gelu(torch.ones(2, dtype=torch.int64))"),
    # random numbers with a distribution's parameters
    ("random_numbers_with_parameters", "import numpy as np\nimport torch\nnp.random.seed(0)\nprint(np.random.normal(1.0, 2.0, (2, 3)), np.random.normal(), np.random.uniform(-1, 1, 4), np.random.uniform(), np.random.random((2, 2)), np.random.random_sample(3), np.random.normal(size=2), np.random.uniform(high=5, size=(1, 2)))\nprint(type(np.random.normal()).__name__, np.random.normal(0, 1, 0), np.random.random(()))\ntorch.manual_seed(0)\na = torch.empty(3, 4).normal_()\ntorch.manual_seed(0)\nb = torch.randn(3, 4)\nprint(torch.equal(a, b), torch.empty(20).normal_(2, 0.5)[:3], torch.zeros(2, 3).uniform_(-1, 1), torch.zeros(5, dtype=torch.float64).uniform_(), torch.zeros(17).normal_(mean=1, std=2)[-2:])\nx = torch.zeros(4, 4)\n_ = x[:, 1].normal_()\nprint(x[0])\nw = torch.ones(3, requires_grad=True)\ny = w * 1\n_ = y.uniform_()\nprint(y.grad_fn is not None, y.requires_grad)"),
    ("np_random_normal_negative_scale", "import numpy as np\nx = np.random.normal(0, -1, 3)"),
    ("np_random_negative_size", "import numpy as np\nx = np.random.random((2, -1))"),
    ("torch_normal_of_integers", "import torch\nx = torch.zeros(3, dtype=torch.int64).normal_()"),
    ("torch_uniform_from_over_to", "import torch\nx = torch.zeros(3).uniform_(2, 1)"),
    ("torch_normal_of_a_leaf_that_requires_grad", "import torch\nw = torch.ones(3, requires_grad=True)\nx = w.normal_()"),
    # np.outer, np.diag, np.count_nonzero, cumulative sums, torch.as_tensor
    ("np_outer_diag_and_count_nonzero", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\nprint(np.outer(np.arange(3), np.arange(2.)), np.outer(x, [1, 2]), np.outer([1, 2], [3, 4]), np.diag(np.arange(3)), np.diag(x), np.diag(x, 1), np.diag(x, -1), np.diag(np.arange(2), 1), np.diag(np.arange(2), -2), np.diag(x, 5), repr(np.diag(x)[0]))\nprint(np.count_nonzero(x), np.count_nonzero(x > 2), np.count_nonzero(x, axis=0), np.count_nonzero(x, axis=1), np.count_nonzero([0, 1, 2]), np.diag(np.array([2 ** 60 + 1, 3]))[0, 0])"),
    ("np_diag_of_3d", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\ny = np.diag(np.ones((2, 2, 2)))"),
    ("cumulative_sums", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\ntorch.manual_seed(0)\nr = torch.randn(200)\nprint(np.cumsum(x), np.cumsum(x, axis=1), x.cumsum(0), x.T.cumsum(1), np.cumsum(xi, axis=-1), np.cumsum([True, True]), repr(np.cumsum(np.float32([0.1] * 5))))\nprint(torch.cumsum(T, dim=1), T.cumsum(0), T.t().cumsum(1), torch.cumsum(torch.tensor([True, True]), 0), torch.cumsum(torch.full((5,), 0.1), 0), torch.cumsum(torch.tensor(3.), 0))\nprint(torch.cumsum(r, 0)[-5:].tolist(), np.cumsum(r.numpy())[-5:].tolist(), np.cumsum(r.double().numpy())[-3:].tolist())\nw = torch.ones(3, requires_grad=True)\nprint(torch.cumsum(w, 0), w.cumsum(0), torch.as_tensor(w) is w, torch.as_tensor([1, 2]), torch.as_tensor(x).dtype, torch.as_tensor(T, dtype=torch.float64))"),
    ("np_cumsum_axis_out_of_range", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\ny = np.cumsum(x, axis=2)"),
    ("torch_cumsum_dim_out_of_range", "import numpy as np\nimport torch\nx = np.arange(6.).reshape(2, 3)\nxi = np.arange(6).reshape(2, 3)\nT = torch.arange(6.).reshape(2, 3)\ny = torch.cumsum(T, 2)"),
    # numpy's einsum, split and array_split
    ("np_einsum", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nprint(np.einsum('ij->j', a), np.einsum('ij,jk', a, b), np.einsum('ij,jk->ik', b.T, b), np.einsum('ii', np.eye(3)), np.einsum('ji', a))\nprint(np.einsum('ij,jk', a, np.ones((1, 4))), np.einsum('ij', [[1, 2], [3, 4]]), np.einsum('ij,ij', a, a), np.einsum('ij', np.array([[True, False]])), np.einsum('i,i', np.float32([1, 2]), np.array([1., 2])))\nprint(np.einsum('i,i', np.array([1, 2]), np.array([1.5, 2])), np.einsum('', 3), np.einsum('->', 3), np.einsum('i,j', np.ones(2), np.ones(3)), np.einsum('i j -> j i', a), np.einsum('Ji,ab', a, a).shape)\nprint(np.einsum('ij,jk->ik', a, b, optimize=True), np.einsum('ij->', a, out=None, dtype=None), np.einsum('ij,jk->ik', a.T.T, b.T.T), np.einsum('i,i->i', np.float32([1.5, 2]), np.float32([2, 4])).dtype, np.einsum('bi,bj->bij', b, b)[2])"),
    ("np_einsum_more_terms_than_operands", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('ij,jk,kl', a, b)"),
    ("np_einsum_an_empty_term_after_the_operands", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('ij,', a)"),
    ("np_einsum_fewer_terms_than_operands", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('ij', a, b)"),
    ("np_einsum_too_many_subscripts", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('ijk', a)"),
    ("np_einsum_more_dims_than_subscripts", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('i', a)"),
    ("np_einsum_output_never_in_an_input", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('ij->k', a)"),
    ("np_einsum_output_twice", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('ij->ii', a)"),
    ("np_einsum_a_stray_dot", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('i.j', a)"),
    ("np_einsum_a_stray_dot_in_the_output", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('ij->.', a)"),
    ("np_einsum_an_invalid_subscript", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('i1', a)"),
    ("np_einsum_without_operands", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.einsum('i')"),
    ("np_split", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.arange(7)\nprint(np.split(x, 7), np.split(x, [2, 5]), np.split(x, [5, 2]), np.split(x, [2, 20]), np.split(x, [-2]), np.split(x, (1,)), np.split(x, np.array([3])))\nprint(np.split(a, 3, axis=1), np.split(a, 3, 1), np.split(a, 2.0), np.split(a, 1, axis=-1), np.split(x, []), np.split(x, True), np.split(x, [True]), np.split(x, [None, 3]))\nprint(np.array_split(x, 3), np.array_split(x, 10), np.array_split(a, 2, axis=1), np.array_split([1, 2, 3], 2), np.split(np.arange(0), 3), np.array_split(np.arange(0), 2), np.array_split(x, 2.9))\np = np.split(a, [1], axis=1)\np[1][0, 0] = -1\nprint(a, len(np.split(np.arange(5), 2.5)))"),
    ("np_split_not_equal", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split(np.arange(7), 3)"),
    ("np_split_into_zero", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split(np.arange(7), 0)"),
    ("np_split_into_zero_floats", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split(np.arange(7), 0.0)"),
    ("np_array_split_into_zero", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.array_split(np.arange(7), 0)"),
    ("np_array_split_into_negative", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.array_split(np.arange(7), -2)"),
    ("np_split_of_a_list", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split([1, 2, 3, 4], 2)"),
    ("np_split_axis_out_of_range", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split(a, 1, axis=2)"),
    ("np_split_axis_none", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split(a, 1, axis=None)"),
    ("np_split_at_a_float", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split(a, [1.0])"),
    ("np_split_at_a_nan", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.split(a, float('nan'))"),
    ("np_array_split_at_a_nan", "import numpy as np\na = np.arange(6.).reshape(2, 3)\nb = np.arange(12).reshape(3, 4)\nx = np.array_split(a, float('nan'))"),
]


# chr() and ord() over all of Unicode, with CPython's errors; sets in the
# order CPython's hash table gives them (ints, floats, bools and tuples of
# them: the items whose hash CPython fixes). Kept apart from PROGRAMS.
CHAR_AND_SET_PROGRAMS = [
    ("chr_and_ord", "print(chr(65), chr(233), chr(0x65e5), chr(0x1F600), ord('A'), ord('\u00e9'), ord('\U0001F600'), ord(chr(0x10FFFF)), repr(chr(10)), chr(True), len(chr(0x1F600)))"),
    ("chr_out_of_range", "chr(0x110000)"),
    ("chr_negative", "chr(-1)"),
    ("chr_of_a_float", "chr(65.0)"),
    ("chr_of_a_str", "chr('A')"),
    ("chr_too_large_for_c_int", "chr(2 ** 40)"),
    ("chr_without_argument", "chr()"),
    ("chr_with_two_arguments", "chr(1, 2)"),
    ("chr_with_a_keyword", "chr(i=65)"),
    ("ord_of_two_characters", "ord('ab')"),
    ("ord_of_an_empty_string", "ord('')"),
    ("ord_of_an_int", "ord(65)"),
    ("ord_of_four_byte_characters", "ord('\U0001F600\U0001F600')"),
    ("set_display_order", "print({3, 1, 2, 10, 100}, {5, 13, 21, 2}, {1, 9}, {-1, -2, 5}, {(1, 2), (3, 4), 5}, {0.5, 1.5, -0.25, 3.0, 1e10})\nx = 40\nprint({x, 8, 0}, {1, x + 1, 9, 17}, {1, 1.0, True}, {True, False, 2, 0.0}, set(), {7})"),
    ("set_hashes_of_large_ints_and_floats", "print({2 ** 61 - 1, 2 ** 61, 2 ** 62, -2 ** 61 + 1, 2 ** 40 + 3, -(2 ** 62), -2 ** 62 * 2, -1, -2})\nprint({float('inf'), -float('inf'), 1e300, 1e-300, 2.5, -7.75, 123.456, 0.1})\nprint({(1, 2), (2, 1), (0,), (), (1, (2, 3)), (1.5, -2), (True, 0.0)})"),
    ("set_grows_past_resizes", "s = set()\nfor i in range(40):\n    s.add(i * 7 % 23 - 11)\n    if i in (4, 5, 19, 20, 39):\n        print(s)\nt = {i * 37 % 101 for i in range(30)}\nprint(t, list(t)[:5], len(t))\nprint(set(range(0, 60, 7)), set([10, 9, 8, 7, 100, 1000, 33]), set(range(50000, 50100, 13)))"),
    ("set_after_removals", "s = {1, 9}\ns.remove(1)\ns.add(17)\nprint(s)\nu = set(range(40))\nfor i in range(10):\n    u.discard(i)\nu.add(0)\nu.add(4)\nprint(u)\nv = set(range(100))\nv -= set(range(80))\nv.update([3, 1, 2])\nprint(v)\nw = set(range(100))\nw.difference_update(range(5, 30))\nw.add(6)\nprint(w)"),
    ("set_pop_order", "s = set(range(5))\nprint(s.pop(), s.pop(), s)\nt = {100, 3, 64, 7, 9, 1}\nprint([t.pop() for _ in range(3)], t)\nt.add(64)\nt.add(0)\nprint(t.pop(), t)\ne = set()\ne.pop()"),
    ("set_operators", "a = {5, 13, 21, 2}\nb = {13, 40, 7}\nprint(a | b, a & b, a - b, b - a, a | a, b & a)\nbig = set(range(0, 2000, 7))\nsmall = {0, 7, 700, 3, 1}\nprint(big & small, small & big, list(big - small)[:12], small - big, list(big | small)[:12])\nprint(a.union(b, [99, 5]), a.intersection([2, 13, 100]), a.difference(b, [2]), a.symmetric_difference(b), b.symmetric_difference(a))"),
    ("set_in_place_operators", "a = {1, 2, 3}\nalias = a\na |= {40, 50}\nprint(a, alias is a)\na -= {1}\nprint(a)\na &= {2, 3, 40, 99}\nprint(a, alias)\nc = set(range(-30, 352))\nc = c.difference({x * 9 % 95 for x in range(58)})\nc.symmetric_difference_update({x * 9 % 95 for x in range(58)})\nprint(list(c)[:30])\nd = {1, 2}\nd.update([9, 8], {100, 3})\nd.intersection_update({1, 2, 3, 8, 100})\nprint(d)"),
    ("set_xor_operator", "a = {5, 13, 21, 2}\nb = {13, 40, 7}\nprint(a ^ b, b ^ a, a ^ a, a ^ set(), set() ^ b, {1, 2, 3} ^ {2, 3, 4})\nbig = set(range(0, 2000, 7))\nsmall = {0, 7, 700, 3, 1, 2001}\nprint(big ^ small == small ^ big, list(big ^ small)[:12], list(small ^ big)[:12])\nc = {x * 9 % 95 for x in range(58)}\nd = set(range(-30, 60))\nprint(list(c ^ d)[:30], list(d ^ c)[:30])\nalias = a\na ^= b\nprint(a, alias is a)\na ^= a\nprint(a, alias)\ne = set(range(40))\ne ^= set(range(0, 80, 3))\ne.add(1)\nprint(e)"),
    ("set_of_many_scattered_adds", "s = set()\nfor i in range(100000):\n    s.add(i * 7919 % 1000003)\nprint(len(s), list(s)[:12], list(s)[-5:])\nfor i in range(0, 100000, 7):\n    s.discard(i * 7919 % 1000003)\n    s.add(i)\nprint(len(s), list(s)[:12], list(s)[-5:], 7919 in s, 14 in s)"),
    ("set_adds_and_discards_between_reads", "s = set()\nt = {1, 2, 3}\nfor i in range(245):\n    s.add(i * 684 % 95707)\nt = s ^ t\nx = s.pop()\nfor y in range(20):\n    s.add(y)\n    s.discard(y * 3)\nfor y in range(20):\n    s.add(y)\n    s.discard(y * 3)\ns.discard(53)\ns.remove(54)\nprint(8 in s, len(s), list(s)[:30])\nu = s - t\nprint(list(u), list(t)[:10])\nfor i in range(300):\n    s.add(i * 505 % 3984)\n    if i % 50 == 0:\n        print(list(s)[:6], s.pop())"),
    ("set_display_of_folded_bit_operations", "print({9 ^ 0, 17 | 0, 1 & 1, 25 << 0})"),
    ("set_display_of_folded_shifts", "print({1 << 4, 32 >> 1, 0 ^ 48, 8 | 0, 64 & 127, 3})"),
    ("set_xor_with_a_list", "x = {1, 2} ^ [2]"),
    ("set_from_iterables_and_stars", "d = {5: 'a', 77: 'b', 3: 'c'}\nprint(set(d), set(d.keys()), set((3, 1, 2, 10, 100)), set({3, 1, 2, 10, 100}))\nx = {1, 2, 3, 40}\nprint({*x, *range(10), 77}, {*[9, 17, 1]}, sorted({3, 2, 1}), list({64, 1, 32}))\nfor v in {8, 16, 1, 4}:\n    print(v, end=' ')\nprint()"),
]


# torch.set_printoptions and np.set_printoptions: each program starts from
# the libraries' defaults (run() puts them back after every program).
PRINTOPTIONS_PROGRAMS = [
    ("torch_printoptions_precision_and_sci_mode", "import torch\nx = torch.tensor([[1.123456, -2.5, 3e-5], [100.0, 0.5, 2.0]])\ntorch.set_printoptions(precision=2)\nprint(x)\ntorch.set_printoptions(sci_mode=False)\nprint(x)\nprint(torch.tensor([1e-5, 1.0, 123456.0]))\ntorch.set_printoptions(precision=6, sci_mode=True)\nprint(torch.tensor([1.0, 2.0, 30.0]), torch.tensor([0.0, 0.0]), torch.tensor([1.5, float('nan'), float('inf')]))\ntorch.set_printoptions(precision=0)\nprint(torch.tensor([1.5, 2.5, -0.4]))\ntorch.set_printoptions()\nprint(x)"),
    ("torch_printoptions_profiles", "import torch\ntorch.set_printoptions(profile='short')\nprint(torch.arange(2000.0).reshape(40, 50) / 7)\ntorch.set_printoptions(profile='full', precision=1)\nprint(torch.arange(1001) % 7, torch.tensor([[1.25, 2.35]], dtype=torch.float64))\ntorch.set_printoptions(profile='nonsense')\nprint(torch.tensor([1.25, 2.35]))\ntorch.set_printoptions(profile='default')\nprint(torch.tensor([1.25, 2.35]), torch.arange(1001.)[-2:])"),
    ("torch_printoptions_threshold_edgeitems_linewidth", "import torch\ntorch.set_printoptions(threshold=5, edgeitems=1, linewidth=30)\nprint(torch.arange(10), torch.arange(24.).reshape(2, 3, 4))\ntorch.set_printoptions(threshold=float('inf'), linewidth=40)\nprint(torch.full((4, 9), 0.25, requires_grad=True) * 1)\ntorch.set_printoptions(linewidth=-5)\nprint(torch.tensor([1.0, 2.0]))"),
    ("numpy_printoptions_precision_suppress_floatmode_sign", "import numpy as np\na = np.array([[1.123456789, -2.5, 3e-5], [100.0, 0.5, 2.0]])\nnp.set_printoptions(precision=3, suppress=True)\nprint(repr(a))\nprint(a)\nnp.set_printoptions(floatmode='fixed')\nprint(repr(a), repr(np.array([0.0, 0.0])), repr(np.array([1e-9, 1.0, 3.0], dtype=np.float32)), repr(np.array([np.nan, 1.0])))\nnp.set_printoptions(sign='+', floatmode='maxprec_equal')\nprint(repr(a), repr(np.array([1, -2, 3])), repr(np.array([np.nan, np.inf, 0.5])))\nnp.set_printoptions(sign=' ', floatmode='unique', precision=2)\nprint(repr(np.array([1.5, 2.25, np.nan, np.inf])), repr(np.array([0.5, -0.25])), np.float64(1 / 3), np.float32(1 / 3))\nnp.set_printoptions(precision=0, sign='-')\nprint(repr(np.array([1.5, 2.5, 0.123])))\nprint(np.get_printoptions())"),
    ("numpy_printoptions_threshold_edgeitems_linewidth", "import numpy as np\nnp.set_printoptions(threshold=5, edgeitems=0)\nprint(repr(np.arange(10.0)), repr(np.arange(20).reshape(4, 5)))\nnp.set_printoptions(edgeitems=2, threshold=1000, linewidth=20)\nprint(repr(np.arange(12.0) / 7))\nprint(np.arange(12.0) / 7)\nnp.set_printoptions(linewidth=75, threshold=np.inf)\nprint(np.arange(1001)[-3:], repr(np.zeros((2, 3), dtype=np.float32)))\nprint(np.get_printoptions()['threshold'])"),
    ("numpy_printoptions_in_with", "import numpy as np\nimport torch\na = np.array([1 / 3, 2 / 3, 1e-6])\nwith np.printoptions(precision=2, suppress=True) as opts:\n    print(a)\n    print(opts['precision'], opts['suppress'])\n    torch.set_printoptions(precision=1)\nprint(a)\nprint(torch.tensor([1 / 3]))\ncm = np.printoptions(precision=3)\nprint(a)\nwith cm:\n    print(a)\nprint(a)"),
    ("numpy_printoptions_bad_floatmode", "import numpy as np\nnp.set_printoptions(floatmode='short')"),
    ("numpy_printoptions_bad_sign", "import numpy as np\nnp.set_printoptions(sign='x')"),
    ("numpy_printoptions_bad_precision", "import numpy as np\nnp.set_printoptions(precision='3')"),
    ("numpy_printoptions_nan_threshold", "import numpy as np\nnp.set_printoptions(threshold=float('nan'))"),
    ("numpy_printoptions_string_threshold", "import numpy as np\nnp.set_printoptions(threshold='all')"),
]


# nn.Embedding and nn.LayerNorm (and F.embedding, F.layer_norm): torch's
# weights, lookups and normalisation to the last bit, and torch's errors.
NN_LAYER_PROGRAMS = [
    ("nn_embedding_and_layer_norm", 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ntorch.manual_seed(0)\ne = nn.Embedding(10, 3)\nprint(e, e.weight)\ne2 = nn.Embedding(5, 2, padding_idx=-5)\nprint(e2, e2.padding_idx, e2.weight)\ny = e(torch.tensor([[1, 2], [3, 9]]))\nprint(y)\nprint(e.num_embeddings, e.embedding_dim, e.padding_idx, type(e), isinstance(e, nn.Embedding), isinstance(e, nn.Module))\nln = nn.LayerNorm(4)\nprint(ln, ln.weight, ln.bias, ln.normalized_shape, ln.eps, ln.elementwise_affine)\nx = torch.arange(8.).reshape(2, 4)\nprint(ln(x))\nln2 = nn.LayerNorm([2, 4], eps=1e-6, elementwise_affine=False)\nprint(ln2, ln2.weight)\nprint(ln2(x))\nprint(F.layer_norm(x, (4,)), F.embedding(torch.tensor([0, 4]), e.weight))\nh = torch.randn(3, 5, 16)\nprint(nn.LayerNorm(16)(h))\nprint(F.layer_norm(h, (5, 16), eps=1e-3))\nprint(F.layer_norm(h.double(), (16,)))\nclass Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.tok = nn.Embedding(7, 4)\n        self.ln = nn.LayerNorm(4)\n    def forward(self, idx):\n        return self.ln(self.tok(idx))\nb = Block()\nprint(b)\nprint([n for n, p in b.named_parameters()])\nprint(b(torch.tensor([1, 2, 6])))\nprint(sum(p.numel() for p in b.parameters()))'),
    ("layer_norm_to_the_last_bit", 'import torch\nimport torch.nn.functional as F\ntorch.manual_seed(1)\nfor n in [1, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 127, 128, 129, 200, 256, 300, 513, 1030, 2100]:\n    for dt in [torch.float32, torch.float64]:\n        x = (torch.randn(3, n) * 3 + 1.5).to(dt)\n        w = torch.randn(n).to(dt)\n        b = torch.randn(n).to(dt)\n        for args in [(None, None), (w, b), (w, None)]:\n            y = F.layer_norm(x, (n,), args[0], args[1])\n            print(n, dt, args[0] is None, args[1] is None, y.tolist()[2][:5], y.tolist()[0][-3:])'),
    ("nn_layers_shapes_and_grad_fns", 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nprint(e.weight.shape, ln.normalized_shape, nn.LayerNorm((2, 3)).weight.shape, F.embedding(torch.tensor([[0, 1]]), torch.eye(3)).shape)\nprint(e(torch.tensor([1, 2])).requires_grad, ln(torch.ones(2, 4)).requires_grad, F.layer_norm(torch.ones(2, 4), [4]).requires_grad, nn.LayerNorm(4, elementwise_affine=False)(torch.ones(2, 4)).requires_grad)\nprint(ln(torch.ones(1, 4)), F.embedding(torch.tensor([2]), nn.Parameter(torch.eye(3))))'),
    ('embedding_index_out_of_range', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = e(torch.tensor([10]))'),
    ('embedding_of_float_indices', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = e(torch.tensor([1.0]))'),
    ('embedding_of_a_negative_index', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = e(torch.tensor([-1]))'),
    ('embedding_padding_idx_out_of_range', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = nn.Embedding(5, 2, padding_idx=5)'),
    ('embedding_negative_size', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = nn.Embedding(-1, 2)'),
    ('layer_norm_wrong_last_dim', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = ln(torch.ones(2, 3))'),
    ('layer_norm_too_few_dims', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = ln(torch.ones(3))'),
    ('layer_norm_of_integers', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = ln(torch.ones(2, 4, dtype=torch.int64))'),
    ('layer_norm_weight_of_another_shape', 'import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\ne = nn.Embedding(10, 3)\nln = nn.LayerNorm(4)\nx = F.layer_norm(torch.ones(2, 4), (4,), torch.ones(3))'),
    ("layer_norm_weight_replaced_by_another_shape", "import torch\nimport torch.nn as nn\nln = nn.LayerNorm(4)\nln.weight = nn.Parameter(torch.ones(3))\ny = ln(torch.ones(2, 4))"),
    ("embedding_weight_replaced_by_a_vector", "import torch\nimport torch.nn as nn\ne = nn.Embedding(4, 2)\ne.weight = nn.Parameter(torch.ones(3))\ny = e(torch.tensor([1]))"),
]


# Vector norms: torch.norm, x.norm, torch.linalg.norm and vector_norm (torch's
# kernels to the last bit), F.normalize, F.cosine_similarity and
# np.linalg.norm, and their errors.
NORM_PROGRAMS = [
    ("norms_to_the_last_bit", "import torch\nimport torch.nn.functional as F\nimport numpy as np\ntorch.manual_seed(0)\nnp.random.seed(0)\nprint(torch.norm(torch.tensor([3., 4.])), torch.tensor([[3., 4.], [6., 8.]]).norm(dim=1), torch.norm(torch.tensor([1., -2.]), p=1), torch.norm(torch.tensor([1., -2.]), p='fro'))\nfor n in [1, 5, 8, 9, 17, 33, 100, 257, 1000, 4099]:\n    x = torch.randn(n)\n    print(n, x.norm().item(), torch.norm(x, p=1).item(), x.norm(p=float('inf')).item(), x.norm(p=0).item(), torch.linalg.norm(x).item(), torch.linalg.vector_norm(x, ord=1).item())\n    X = torch.randn(3, n)\n    print(X.norm(dim=1).tolist(), X.norm(dim=0).tolist()[:4], X.norm().item(), X.T.norm().item(), X.norm(dim=1, keepdim=True).tolist())\n    print(F.normalize(X).tolist()[0][:3], F.normalize(X, dim=0).tolist()[1][:3])\n    Y = torch.randn(3, n)\n    print(F.cosine_similarity(X, Y).tolist(), F.cosine_similarity(X, Y, dim=0).tolist()[:3])\n    a = np.random.randn(3, n)\n    print(np.linalg.norm(a), np.linalg.norm(a, axis=1).tolist(), np.linalg.norm(a[0], ord=1), np.linalg.norm(a, axis=0, ord=np.inf).tolist()[:3], np.linalg.norm(a.astype(np.float32), axis=1).tolist())\nprint(np.linalg.norm(np.array([3, 4])), np.linalg.norm(np.array([[3., 4.], [1, 2]]), axis=1), np.linalg.norm(np.array([[3., 4.], [1, 2]]), keepdims=True))\nx = torch.randn(3, 4, requires_grad=True)\nprint(x.norm(dim=1), torch.linalg.norm(x), F.normalize(x, dim=0), F.cosine_similarity(x, x + 1))"),
    ("norm_of_integers", "import torch\nx = torch.norm(torch.tensor([1, 2]))"),
    ("norm_dim_out_of_range", "import torch\nx = torch.ones(2, 3).norm(dim=2)"),
    ("np_norm_of_integers_and_along_axes", "import numpy as np\na = np.arange(12).reshape(3, 4)\nprint(np.linalg.norm(a), np.linalg.norm(a, axis=0), np.linalg.norm(a, axis=1, keepdims=True), np.linalg.norm(a, axis=(0, 1)), np.linalg.norm(a, 'fro'), np.linalg.norm(a[0], 1), np.linalg.norm(a[1], np.inf), np.linalg.norm(a[2], 0))"),
    ("cosine_similarity_of_rows_broadcast", "import torch\nimport torch.nn.functional as F\nq = torch.tensor([[1.0, 2.0, 3.0]])\nk = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, 0.0, 0.0]])\nprint(F.cosine_similarity(q, k), F.cosine_similarity(q, k, dim=-1), F.normalize(k, dim=1), F.normalize(torch.zeros(2, 2)))"),
    ("clamp_min_and_clamp_max_and_their_grad_fns", "import torch\nx = torch.tensor([-1.5, 0.2, 3.0], requires_grad=True)\nprint(x.clamp_min(0), torch.clamp_max(x, 1), x.clamp_min(torch.tensor([0., 1., 2.])), torch.clamp_min(torch.tensor([1, 5]), 2), torch.tensor([1, 5]).clamp_max(2.5))\nprint(x.clamp(min=0), x.clamp(min=torch.zeros(3)), torch.clip(x, torch.zeros(3)), x.clip(max=torch.ones(3)))"),
    ("clamp_with_a_number_and_a_tensor", "import torch\nx = torch.ones(3)\ny = torch.clamp(x, 0, torch.ones(3))"),
]


# np.repeat, np.tile, torch.repeat_interleave (and the methods): copies
# that repeat elements, and their errors.
REPEAT_PROGRAMS = [
    ("repeat_and_tile", 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\nprint(np.repeat(a, 2), np.repeat(a, 2, axis=1), np.repeat(a, [1, 2], axis=0), a.repeat(2), np.repeat(a, 0, axis=1))\nprint(np.tile(a, 2), np.tile(a, (2, 1, 2)), np.tile(np.array([1.5, 2]), (2, 2)), np.repeat(3, 2), np.tile([1, 2], 2), np.tile(a.T, (1, 2)))\nprint(torch.repeat_interleave(x, 2), x.repeat_interleave(2, dim=1), torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0), torch.repeat_interleave(x.float(), 2, dim=0), x.T.repeat_interleave(2, dim=-1))\nprint(x.repeat(2, 1), x.repeat(1, 2, 1).shape)\ny = torch.ones(2, 3, requires_grad=True)\nprint(y.repeat_interleave(2, dim=0), y.repeat(1, 2))'),
    ('np_repeat_negative', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = np.repeat(a, -1)'),
    ('np_repeat_counts_of_another_length', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = np.repeat(a, [1, 2, 3], axis=0)'),
    ('np_repeat_axis_out_of_range', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = np.repeat(a, 2, axis=2)'),
    ('np_tile_negative', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = np.tile(a, -1)'),
    ('repeat_interleave_negative', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = x.repeat_interleave(-1)'),
    ('repeat_interleave_counts_of_another_length', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = torch.repeat_interleave(x, torch.tensor([1, 2, 3]), dim=0)'),
    ('repeat_interleave_dim_out_of_range', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = x.repeat_interleave(2, dim=3)'),
    ('repeat_with_fewer_dims', 'import torch\nimport numpy as np\na = np.arange(6).reshape(2, 3)\nx = torch.arange(6).reshape(2, 3)\ny = x.repeat(2)'),
]


# The operators as functions and methods (torch.add, x.mul, x.add_, ...),
# torch.maximum and minimum, neg, square, reciprocal.
ARITH_PROGRAMS = [
    ("operators_as_functions_and_methods", "import torch\nx = torch.tensor([[1.5, -2.0], [3.0, 0.5]], requires_grad=True)\ny = torch.tensor([[2.0, 4.0], [-1.0, 0.25]])\nprint(torch.add(x, y), x.add(1), torch.sub(x, y), x.sub(2), torch.mul(x, y), x.mul(3), torch.div(x, y), x.div(2), torch.div(x, y, rounding_mode='floor'))\nprint(torch.pow(x, 2), x.pow(y), torch.pow(2, y), torch.remainder(y, 3), torch.floor_divide(y, 2), torch.true_divide(y, 3), torch.multiply(y, 2), torch.subtract(y, 1))\nprint(torch.eq(y, 2), y.ne(2), y.lt(1), torch.le(y, 0.25), y.gt(0), torch.ge(y, 4))\nprint(torch.maximum(x, y), y.minimum(x), torch.neg(x), x.neg(), torch.square(x), x.square(), torch.reciprocal(y), y.reciprocal(), torch.reciprocal(torch.tensor([2, 4])))\nz = torch.ones(2, 2)\n_ = z.add_(1)\n_ = z.mul_(y)\n_ = z.sub_(0.5)\n_ = z.div_(2)\nprint(z)\nk = torch.arange(4)\n_ = k.add_(2)\n_ = k.mul_(3)\nprint(k, torch.maximum(torch.tensor([1.0, float('nan')]), torch.tensor([2.0, 0.0])))"),
    ('add_in_place_of_a_float_into_integers', 'import torch\nimport numpy as np\nx = torch.ones(2, requires_grad=True)\nk = torch.arange(3)\ny = k.add_(0.5)'),
    ('div_with_an_unknown_rounding_mode', "import torch\nimport numpy as np\nx = torch.ones(2, requires_grad=True)\nk = torch.arange(3)\ny = torch.div(x, 2, rounding_mode='up')"),
    ('maximum_of_a_number', 'import torch\nimport numpy as np\nx = torch.ones(2, requires_grad=True)\nk = torch.arange(3)\ny = torch.maximum(x, 1)'),
    ('maximum_method_of_a_number', 'import torch\nimport numpy as np\nx = torch.ones(2, requires_grad=True)\nk = torch.arange(3)\ny = x.maximum(2)'),
    ('add_of_a_string', "import torch\nimport numpy as np\nx = torch.ones(2, requires_grad=True)\nk = torch.arange(3)\ny = torch.add(x, 'a')"),
    ('numpy_arrays_have_no_add_method', 'import torch\nimport numpy as np\nx = torch.ones(2, requires_grad=True)\nk = torch.arange(3)\ny = np.ones(2).add(1)'),
    ("small_torch_functions_and_methods", 'import torch\nimport numpy as np\nx = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)\nprint(torch.is_tensor(x), torch.is_tensor(np.ones(2)), torch.is_tensor(3))\nprint(torch.full_like(x, 7), torch.full_like(x, 2.5, dtype=torch.float64), torch.full_like(torch.arange(3), 4))\nprint(torch.logical_not(torch.tensor([True, False])), torch.tensor([0.0, 2.0]).logical_not())\nprint(torch.unbind(x), x.unbind(1), torch.unbind(torch.arange(6).reshape(3, 2), dim=-1))\nprint(torch.outer(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0])), torch.outer(x[0], x[1]))\nprint(x.cpu() is x, x[0].expand_as(x), x.type_as(torch.ones(1, dtype=torch.float64)), torch.arange(3).type_as(x))\nprint(torch.concat([x, x], dim=1).shape, torch.concat((x, x)))\nprint(torch.zeros(3).expand_as(x), x.expand_as(torch.ones(2, 3)), x.type_as(x) is x, torch.zeros(2).type_as(x))'),
    ('outer_of_a_matrix', 'import torch\nx = torch.ones(2, 3)\ny = torch.outer(x, x[0])'),
    ('unbind_of_a_number', 'import torch\nx = torch.ones(2, 3)\ny = torch.unbind(torch.tensor(1.0))'),
    ('expand_as_a_smaller_shape', 'import torch\nx = torch.ones(2, 3)\ny = x.expand_as(torch.ones(3))'),
]


# Functions of one number on each element (torch.floor ... erf, numpy's,
# math's), their dtypes, and what torch and numpy refuse.
UNARY_PROGRAMS = [
    ("elementwise_functions_of_one_number", "import torch\nimport numpy as np\nimport math\ni = torch.tensor([3, -2, 0])\nb = torch.tensor([True, False])\nx = torch.tensor([1.5, -1.5, 0., -0., float('inf'), float('nan'), 2.7, -0.3], requires_grad=True)\nprint(torch.floor(i), torch.ceil(i), torch.trunc(i), torch.sign(i), torch.sign(b), i.sign())\nprint(torch.rsqrt(i), torch.log2(i), torch.log10(i), torch.erf(i), torch.log1p(i), torch.expm1(i), torch.exp2(i))\nprint(torch.rsqrt(b), torch.log2(b), torch.erf(b))\nprint(torch.floor(x), torch.ceil(x), torch.trunc(x), torch.sign(x))\nprint(x.rsqrt(), x.log2(), x.log10(), x.erf(), x.log1p(), x.expm1(), x.exp2())\nd = torch.tensor([0.25, 3.0, -7.5], dtype=torch.float64)\nprint(d.floor(), d.sign(), d.rsqrt(), d.log2(), d.erf(), torch.exp2(d))\na = np.array([3, -2, 0])\nf = np.array([1.5, -1.5, -0.0, np.nan, np.inf, 2.5])\nprint(np.floor(a), np.ceil(a), np.trunc(a), np.sign(a), np.log2(np.abs(a) + 1), np.log10(a + 3), np.log1p(a + 2), np.expm1(a), np.exp2(a))\nprint(np.floor(f), np.ceil(f), np.trunc(f), np.sign(f), np.exp2(f), np.floor([1.5, 2.5]), np.sign(-2.5), np.abs(np.array([True, False])))\nprint(np.floor(f.astype(np.float32)), np.sign(np.array([-2.5], dtype=np.float32)))\nprint(math.floor(2.5), math.ceil(2.5), math.trunc(-2.5), math.floor(-3), math.log2(8), math.log10(1000), math.log1p(1e-10), math.expm1(1e-10), math.exp2(10), math.erf(0.5), math.tanh(0.5))"),
    ("floor_of_bools", "import torch\ny = torch.floor(torch.tensor([True]))"),
    ("abs_of_bools", "import torch\ny = torch.tensor([True]).abs()"),
    ("relu_of_bools", "import torch\ny = torch.relu(torch.tensor([True]))"),
    ("negation_of_bools", "import torch\ny = -torch.tensor([True])"),
    ("numpy_negation_of_bools", "import numpy as np\ny = -np.array([True])"),
    ("numpy_sign_of_bools", "import numpy as np\ny = np.sign(np.array([True, False]))"),
    ("math_floor_of_nan", "import math\ny = math.floor(float('nan'))"),
    ("math_ceil_of_infinity", "import math\ny = math.ceil(float('inf'))"),
    ("math_log2_of_zero", "import math\ny = math.log2(0)"),
    ("math_log1p_of_minus_one", "import math\ny = math.log1p(-1)"),
    ("math_exp2_overflows", "import math\ny = math.exp2(2000)"),
    ("numpy_arrays_have_numpys_methods", "import numpy as np\na = np.ones((2, 3))\nprint(a.T.sum(0), a.copy().round(), a.astype(np.float32).dtype, a.reshape(3, 2).shape, a.flatten().tolist(), a.max(), a.mean(1), a.clip(0, 2).std())\ny = a.softmax(0)"),
    ("numpy_array_has_no_requires_grad", "import numpy as np\na = np.ones(2)\nprint(a.requires_grad)"),
    ("numpy_scalar_has_no_exp", "import numpy as np\ns = np.ones(3).sum()\nprint(s.exp())"),
    ("numpy_array_method_taken_without_a_call", "import numpy as np\na = np.ones(2)\nf = a.exp"),
    ("numpy_array_has_no_detach", "import numpy as np\na = np.ones(2)\nb = a.detach()"),
]


# Products, logsumexp, flips, vstack/hstack and one_hot.
ARRANGE_PROGRAMS = [
    ("prod_logsumexp_flip_stack_one_hot", "import torch\nimport numpy as np\nimport torch.nn.functional as F\ntorch.manual_seed(0)\nx = torch.tensor([[1., 2., 3.], [float('-inf'), float('-inf'), float('-inf')], [float('inf'), 1., 2.], [float('nan'), 1., 2.]], requires_grad=True)\nr = torch.randn(3, 70)\nd = torch.randn(4, 5, dtype=torch.float64)\nprint(torch.logsumexp(x, 1), torch.logsumexp(x, dim=0, keepdim=True), x.logsumexp(-1), torch.logsumexp(x, (0, 1)))\nprint(torch.logsumexp(torch.tensor([[1, 2], [3, 4]]), 1), torch.logsumexp(r, 1), torch.logsumexp(r, 0)[:5], torch.logsumexp(r, (1, 0)), torch.logsumexp(d, 1), d.logsumexp(0, keepdim=True))\nprint(torch.logsumexp(torch.tensor(2.), 0), torch.logsumexp(torch.zeros(0, 3), 0), torch.logsumexp(torch.zeros(0, 3), 1))\ny = x[:1]\nprint(torch.prod(y), torch.prod(y, 1), torch.prod(y, dim=0, keepdim=True), y.prod(1), torch.prod(torch.tensor([[1, 2], [3, 4]])), torch.prod(torch.tensor([[1, 2], [3, 4]]), 0), torch.prod(torch.tensor([True, False])), torch.prod(torch.tensor([])), torch.prod(d), d.prod(0), torch.prod(r[:, :4], dim=1, dtype=torch.float64))\nprint(np.prod(np.array([[1, 2], [3, 4]])), np.prod(np.array([[1., 2], [3, 4]]), axis=0), np.array([[1., 2], [3, 4]]).prod(1), np.prod([1, 2, 3]), np.prod(np.array([True, True])), np.prod(np.array([[1, 2], [3, 4]]), axis=1, keepdims=True), np.prod(d.numpy(), axis=(0, 1)))\nprint(torch.flip(y, [0]), torch.flip(x[:2, :2], dims=(0, 1)), x[:2].flip(1), x[:2].flip(-1, 0), torch.flip(x[:1], []), torch.flip(r[:2, :3].T, [1]))\nprint(np.flip(np.arange(6).reshape(2, 3)), np.flip(np.arange(6).reshape(2, 3), 0), np.flip(np.arange(6).reshape(2, 3), (0, 1)), np.flip(np.arange(6).reshape(2, 3), axis=1), np.fliplr(np.arange(6).reshape(2, 3)), np.flipud(np.arange(6).reshape(2, 3)), np.flipud(np.array(5)))\nprint(torch.hstack([y, y]), torch.vstack([y, y]), torch.vstack([torch.tensor([1, 2]), torch.tensor([3, 4])]), torch.hstack([torch.tensor([1, 2]), torch.tensor([3, 4])]), torch.hstack((torch.tensor([1., 2]), torch.tensor([3, 4]))), torch.vstack([torch.tensor(1.), torch.tensor(2.)]))\nprint(np.vstack([np.array([1, 2]), np.array([3, 4])]), np.hstack([np.array([1, 2]), np.array([3., 4])]), np.hstack([np.ones((2, 2)), np.ones((2, 1))]), np.vstack(([1, 2], [3, 4])))\nprint(F.one_hot(torch.tensor([0, 2, 1])), F.one_hot(torch.tensor([0, 2, 1]), 4), F.one_hot(torch.tensor([[0, 2], [1, 1]]), num_classes=3), F.one_hot(torch.tensor([], dtype=torch.long), 3), F.one_hot(torch.tensor(2), 3))"),
    ("flip_with_a_dim_twice", "import torch\ny = torch.flip(torch.ones(2, 3), [0, 0])"),
    ("flip_with_an_int", "import torch\ny = torch.flip(torch.ones(2, 3), 0)"),
    ("flip_out_of_range", "import torch\ny = torch.ones(2, 3).flip(2)"),
    ("numpy_flip_repeated_axis", "import numpy as np\ny = np.flip(np.arange(4), (0, 0))"),
    ("numpy_fliplr_of_a_vector", "import numpy as np\ny = np.fliplr(np.arange(4))"),
    ("vstack_of_nothing", "import torch\ny = torch.vstack([])"),
    ("numpy_hstack_of_nothing", "import numpy as np\ny = np.hstack([])"),
    ("one_hot_past_num_classes", "import torch\nimport torch.nn.functional as F\ny = F.one_hot(torch.tensor([0, 3]), 3)"),
    ("one_hot_of_floats", "import torch\nimport torch.nn.functional as F\ny = F.one_hot(torch.tensor([0., 1.]), 3)"),
    ("one_hot_of_a_negative", "import torch\nimport torch.nn.functional as F\ny = F.one_hot(torch.tensor([-1, 1]), 3)"),
    ("one_hot_of_nothing", "import torch\nimport torch.nn.functional as F\ny = F.one_hot(torch.tensor([], dtype=torch.long))"),
]


# Losses, gather, nonzero and pad.
SELECT_PROGRAMS = [
    ("losses_gather_nonzero_pad", "import torch\nimport numpy as np\nimport torch.nn.functional as F\ntorch.manual_seed(0)\nx = torch.randn(4, 3, requires_grad=True)\nt = torch.tensor([0, 2, 1, 2])\nm = torch.tensor([[0., 1.5, 0.], [2., 0., -1.]])\nbig = torch.randn(40, 5)\nbt = torch.randint(5, (40,))\nprint(F.cross_entropy(x, t), F.cross_entropy(x, t, reduction='sum'), F.cross_entropy(x, t, reduction='none'), F.cross_entropy(big, bt), F.cross_entropy(x[0], t[1]), F.cross_entropy(x, t, ignore_index=2), F.nll_loss(F.log_softmax(x, dim=1), t))\nprint(F.nll_loss(big, bt).item(), F.nll_loss(big.double(), bt, reduction='sum').item(), F.nll_loss(big, bt, ignore_index=1).item(), F.nll_loss(big, bt, reduction='none')[:6])\nprint(torch.gather(x, 1, torch.tensor([[0], [2], [1], [0]])), x.gather(0, torch.tensor([[3, 2, 1]])), torch.gather(m, 1, torch.tensor([[0, 0], [1, 0]])), torch.gather(m, 0, torch.tensor([[1, 1, 1], [0, 0, 0], [1, 0, 1]])))\nprint(torch.nonzero(m), m.nonzero(), torch.nonzero(m, as_tuple=True), torch.nonzero(torch.tensor(3)), torch.nonzero(torch.tensor([True, False, True])), np.nonzero(np.array([[0, 1], [2, 0]])), np.array([0, 3, 0, 4]).nonzero())\nprint(F.pad(m, (1, 1)), F.pad(m, (1, 2, 0, 1), value=9), F.pad(m, [2, 0]), F.pad(m, (-1, 0)), F.pad(torch.tensor([1, 2]), (1, 1)), F.pad(x, (1, 0)))"),
    ("cross_entropy_target_out_of_range", "import torch\nimport torch.nn.functional as F\ny = F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 3]))"),
    ("cross_entropy_float_target", "import torch\nimport torch.nn.functional as F\ny = F.cross_entropy(torch.zeros(2, 3), torch.tensor([0., 1.]))"),
    ("cross_entropy_batch_mismatch", "import torch\nimport torch.nn.functional as F\ny = F.cross_entropy(torch.zeros(4, 3), torch.tensor([0, 1]))"),
    ("cross_entropy_unknown_reduction", "import torch\nimport torch.nn.functional as F\ny = F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 1]), reduction='avg')"),
    ("gather_out_of_range", "import torch\ny = torch.gather(torch.ones(2, 3), 1, torch.tensor([[3]]))"),
    ("gather_with_fewer_dims", "import torch\ny = torch.gather(torch.ones(2, 3), 1, torch.tensor([0, 1]))"),
    ("gather_with_float_indices", "import torch\ny = torch.ones(2, 3).gather(1, torch.tensor([[0.]]))"),
    ("pad_of_odd_length", "import torch\nimport torch.nn.functional as F\ny = F.pad(torch.ones(2, 3), (1,))"),
    ("pad_past_the_dims", "import torch\nimport torch.nn.functional as F\ny = F.pad(torch.ones(3), (1, 1, 1, 1))"),
    ("pad_cropping_too_much", "import torch\nimport torch.nn.functional as F\ny = F.pad(torch.ones(2, 3), (-2, -2))"),
]


def printoptions_program(seed):
    """A program that sets random options and prints random tensors and
    arrays (values written out, so that qkv reads the same ones)."""
    import random
    rnd = random.Random(seed)
    lines = ["import torch", "import numpy as np"]

    def val():
        r = rnd.random()
        if r < 0.05:
            return rnd.choice(["float('nan')", "float('inf')", "-float('inf')", "-0.0", "0.0"])
        if r < 0.25:
            return str(rnd.randint(-50, 50)) + ".0"
        mag = rnd.choice([1e-9, 1e-5, 1e-3, 0.1, 1, 10, 1000, 1e5, 1e9])
        return repr(round(rnd.uniform(-1, 1) * mag, rnd.choice([1, 2, 3, 6, 12, 17])))

    for _ in range(25):
        lib = rnd.choice(["torch", "np"])
        opts = []
        if lib == "torch":
            choices = [("precision=%d", lambda: rnd.randint(0, 9)), ("threshold=%d", lambda: rnd.choice([3, 10, 1000])),
                       ("edgeitems=%d", lambda: rnd.randint(1, 4)), ("linewidth=%d", lambda: rnd.choice([10, 40, 120])),
                       ("sci_mode=%s", lambda: rnd.choice(["True", "False", "None"])),
                       ("profile='%s'", lambda: rnd.choice(["default", "short", "full"]))]
        else:
            choices = [("precision=%d", lambda: rnd.randint(0, 12)), ("threshold=%d", lambda: rnd.choice([3, 10, 1000])),
                       ("edgeitems=%d", lambda: rnd.randint(0, 4)), ("linewidth=%d", lambda: rnd.choice([10, 40, 120])),
                       ("suppress=%s", lambda: rnd.choice(["True", "False"])),
                       ("floatmode='%s'", lambda: rnd.choice(["fixed", "unique", "maxprec", "maxprec_equal"])),
                       ("sign='%s'", lambda: rnd.choice(["-", "+", " "]))]
        for fmt, pick in choices:
            if rnd.random() < 0.4:
                opts.append(fmt % pick())
        lines.append("%s.set_printoptions(%s)" % (lib, ", ".join(opts)))
        shape = rnd.choice([(1,), (4,), (7,), (2, 3), (3, 5), (12,), (2, 2, 3), (9, 9)])
        n = 1
        for d in shape:
            n *= d
        vals = "[" + ", ".join(val() for _ in range(n)) + "]"
        dt = rnd.choice(["float32", "float64"])
        maker = "torch.tensor(%s, dtype=torch.%s)" if lib == "torch" else "np.array(%s, dtype=np.%s)"
        x = (maker % (vals, dt)) + ".reshape" + repr(shape)
        lines.append("print(repr(%s))" % x if lib == "np" and rnd.random() < 0.5 else "print(%s)" % x)
    return "\n".join(lines)


PRINTOPTIONS_PROGRAMS += [("printoptions_random_%d" % seed, printoptions_program(seed)) for seed in (1, 2, 3, 4)]


def run(src):
    out = io.StringIO()
    err_type = err_msg = ""
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(src, "<program>", "exec"), {"__name__": "__main__"})
        except BaseException as e:  # noqa: BLE001 - every error kind is part of the reference
            err_type, err_msg = type(e).__name__, str(e).split("\n")[0]  # qkv's first line is compared
            if isinstance(e, SyntaxError):
                err_msg = e.msg
            if isinstance(e, KeyError):
                err_msg = repr(e.args[0])
        finally:
            reset_printoptions()
    return out.getvalue(), err_type, err_msg


def reset_printoptions():
    """The libraries' print options as they start, for the next program."""
    if "torch" in sys.modules:
        sys.modules["torch"].set_printoptions(profile="default")
    if "numpy" in sys.modules:
        sys.modules["numpy"].set_printoptions(precision=8, threshold=1000, edgeitems=3, linewidth=75,
                                              suppress=False, sign="-", floatmode="maxprec")


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def main():
    sys.setrecursionlimit(1000)
    here = os.path.dirname(os.path.abspath(__file__))
    lines = ["/* generated by tests/ref/python_semantics.py with CPython %d.%d: do not edit */"
             % sys.version_info[:2]]
    for name, src in PROGRAMS + CHAR_AND_SET_PROGRAMS + PRINTOPTIONS_PROGRAMS + NN_LAYER_PROGRAMS + NORM_PROGRAMS + REPEAT_PROGRAMS + ARITH_PROGRAMS + UNARY_PROGRAMS + ARRANGE_PROGRAMS + SELECT_PROGRAMS:
        out, et, em = run(src)
        lines.append("{ %s,\n  %s,\n  %s, %s, %s }," % (c_string(name), c_string(src), c_string(out),
                                                       c_string(et), c_string(em)))
    with open(os.path.join(here, "python_semantics.inc"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
