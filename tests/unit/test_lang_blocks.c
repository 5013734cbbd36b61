/* test_lang_blocks.c: the evaluator's blocks, functions, classes and
 * nn.Module subclasses through interp_run with the output captured: loops,
 * closures, containers, transactions of whole blocks, Ctrl-C in loops, the
 * recursion limit (on a small thread stack too), tracebacks, the sandbox,
 * EXPR:NAME and the freeing of reference cycles. */
#include "lang/interp.h"
#include "lang/runtime.h"
#include "core/strbuf.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct strbuf printed;

static void capture(void *udata, const struct value *v, const char *text)
{
	(void)udata;
	(void)v;
	strbuf_puts(&printed, text);
	strbuf_putc(&printed, '\n');
}

static struct interp *fresh(void)
{
	strbuf_init(&printed);
	strbuf_puts(&printed, "");
	struct interp *I = interp_new(KERNEL_SIMD);
	interp_set_output(I, capture, NULL);
	return I;
}

static void done(struct interp *I)
{
	interp_free(I);
	strbuf_free(&printed);
}

/* Runs src (which must succeed) and returns what it printed. */
static const char *out(struct interp *I, const char *src)
{
	struct qkv_error err;
	strbuf_reset(&printed);
	strbuf_puts(&printed, "");
	enum interp_status st = interp_run(I, src, strlen(src), 1, INTERP_PER_STATEMENT, &err);
	cr_assert_eq(st, INTERP_OK, "%s\n-> %d:%d: %s", src, err.line, err.col, err.msg);
	return printed.s;
}

/* Runs src, which must fail; returns the error. */
static struct qkv_error fails(struct interp *I, const char *src, int flags)
{
	struct qkv_error err;
	strbuf_reset(&printed);
	enum interp_status st = interp_run(I, src, strlen(src), 1, flags, &err);
	cr_assert_eq(st, INTERP_ERROR, "%s should fail, got %d", src, st);
	return err;
}

/* ---- loops ------------------------------------------------------------------ */

Test(lang_blocks, for_should_walk_ranges_lists_dicts_strings_and_tensor_rows)
{
	struct interp *I = fresh();
	cr_assert_str_eq(out(I, "for i in range(2, 8, 3):\n    print(i)"), "2\n5\n");
	cr_assert_str_eq(out(I, "d = {'a': 1, 'b': 2}\nfor k, v in d.items():\n    print(k, v)"), "a 1\nb 2\n");
	cr_assert_str_eq(out(I, "for k in d:\n    print(k)\nfor v in d.values():\n    print(v)"), "a\nb\n1\n2\n");
	cr_assert_str_eq(out(I, "for c in 'hé':\n    print(c)"), "h\né\n");
	cr_assert_str_eq(out(I, "for row in torch.tensor([[1, 2], [3, 4]]):\n    print(row)"),
			 "tensor([1, 2])\ntensor([3, 4])\n");
	cr_assert_str_eq(out(I, "for i, (a, b) in enumerate(zip([1, 2], 'xy'), start=5):\n    print(i, a, b)"),
			 "5 1 x\n6 2 y\n");
	cr_assert_str_eq(out(I, "for x in (1, 2):\n    if x == 2:\n        break\nelse:\n    print('no')\nprint(x)"),
			 "2\n");
	done(I);
}

Test(lang_blocks, a_long_range_should_be_lazy)
{
	struct interp *I = fresh();
	cr_assert_str_eq(out(I, "for i in range(10 ** 15):\n    if i == 3:\n        break\nprint(i, len(range(10 ** 15)))"),
			 "3 1000000000000000\n");
	done(I);
}

Test(lang_blocks, loop_int_200k_should_compute_the_sum)
{
	struct interp *I = fresh();
	cr_assert_str_eq(out(I, "s = 0\nfor i in range(200000):\n    s += i % 7\nprint(s)"), "599994\n");
	done(I);
}

/* ---- functions ------------------------------------------------------------------ */

Test(lang_blocks, functions_should_bind_every_parameter_form)
{
	struct interp *I = fresh();
	out(I, "def f(a, b=2, *args, c, d=4, **kw):\n    return a, b, args, c, d, kw");
	cr_assert_str_eq(out(I, "print(f(1, c=3))"), "(1, 2, (), 3, 4, {})\n");
	cr_assert_str_eq(out(I, "print(f(1, 5, 6, 7, c=3, z=9))"), "(1, 5, (6, 7), 3, 4, {'z': 9})\n");
	cr_assert_str_eq(out(I, "args = [1, 2]\nkw = {'c': 0}\nprint(f(*args, **kw))"), "(1, 2, (), 0, 4, {})\n");
	struct qkv_error err = fails(I, "f(1)", 0);
	cr_assert_str_eq(err.msg, "TypeError: f() missing 1 required keyword-only argument: 'c'");
	done(I);
}

Test(lang_blocks, closures_should_share_their_cells)
{
	struct interp *I = fresh();
	out(I, "def make():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n        return n\n"
	       "    def get():\n        return n\n    return inc, get\ninc, get = make()");
	cr_assert_str_eq(out(I, "inc()\ninc()\nprint(get())"), "1\n2\n2\n");
	done(I);
}

Test(lang_blocks, comprehensions_should_have_their_own_scope)
{
	struct interp *I = fresh();
	cr_assert_str_eq(out(I, "i = 'kept'\nsq = [i * i for i in range(4) if i % 2 == 0]\nprint(i, sq)"),
			 "kept [0, 4]\n");
	cr_assert_str_eq(out(I, "print({k: v for k, v in zip('ab', [1, 2])}, sum(x for x in range(5)))"),
			 "{'a': 1, 'b': 2} 10\n");
	done(I);
}

Test(lang_blocks, recursion_past_the_limit_should_be_a_recursion_error_at_its_line)
{
	struct interp *I = fresh();
	out(I, "def down(n):\n    return down(n + 1)");
	struct qkv_error err = fails(I, "x = 1\ndown(0)", 0);
	cr_assert(strncmp(err.msg, "RecursionError: maximum recursion depth exceeded", 48) == 0, "%s", err.msg);
	cr_assert_eq(err.line, 2, "the caret goes to the call inside down (line 2), not %d", err.line);
	cr_assert_str_eq(out(I, "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\nprint(fact(20))"),
			 "2432902008176640000\n");
	done(I);
}

static void *deep_on_thread(void *arg)
{
	(void)arg;
	struct interp *I = interp_new(KERNEL_SIMD);
	struct qkv_error err;
	const char *src = "def down(n):\n    return [down(n + 1)]\ndown(0)";
	enum interp_status st = interp_run(I, src, strlen(src), 1, 0, &err);
	interp_free(I);
	return (void *)(intptr_t)(st == INTERP_ERROR && strstr(err.msg, "RecursionError") != NULL);
}

Test(lang_blocks, recursion_on_a_small_thread_stack_should_stop_before_the_stack_ends)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 512u << 10);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, &attr, deep_on_thread, NULL), 0);
	void *ok;
	pthread_join(t, &ok);
	pthread_attr_destroy(&attr);
	cr_assert(ok, "a RecursionError, not a crash");
}

Test(lang_blocks, an_error_inside_calls_should_name_the_call_chain)
{
	struct interp *I = fresh();
	out(I, "def inner(x):\n    return x / 0\ndef forward(x):\n    y = 1\n    return inner(x)");
	struct qkv_error err = fails(I, "forward(3)", 0);
	cr_assert_eq(err.line, 2);
	cr_assert_eq(err.col, 14);
	cr_assert_str_eq(err.msg, "ZeroDivisionError: division by zero\n  line 5, in forward\n  line 2, in inner");
	done(I);
}

/* ---- containers ------------------------------------------------------------------ */

Test(lang_blocks, lists_and_dicts_should_change_in_place_and_keep_their_order)
{
	struct interp *I = fresh();
	cr_assert_str_eq(out(I, "l = [3, 1, 2]\nm = l\nm.append(0)\nm.sort()\nl[0] = 9\nprint(l, l[1:3], l[::-1])"),
			 "[9, 1, 2, 3] [1, 2] [3, 2, 1, 9]\n");
	cr_assert_str_eq(out(I, "d = {}\nd['z'] = 1\nd['a'] = 2\n_ = d.setdefault('m', [])\nd['m'].append(1)\nprint(d)"),
			 "{'z': 1, 'a': 2, 'm': [1]}\n");
	cr_assert_str_eq(out(I, "l.append(l)\nprint(l)"), "[9, 1, 2, 3, [...]]\n");
	done(I);
}

/* ---- transactions ------------------------------------------------------------------ */

Test(lang_blocks, a_failing_block_should_change_nothing_in_the_workspace)
{
	struct interp *I = fresh();
	out(I, "l = [1]\nd = {'a': 1}\nn = 0\nclass C:\n    pass\nc = C()\nc.v = 1\nt = torch.zeros(2)");
	struct qkv_error err = fails(I, "for i in range(3):\n    l.append(i)\n    d['b'] = i\n    del d['a']\n"
				       "    n += 1\n    c.v = 5\n    t[0] = 7\n    new = 1\n    boom()", 0);
	cr_assert(strstr(err.msg, "'boom'"), "%s", err.msg);
	cr_assert_str_eq(out(I, "print(l, d, n, c.v, t)"), "[1] {'a': 1} 0 1 tensor([0., 0.])\n");
	cr_assert_null(interp_get(I, "new"));
	cr_assert_null(interp_get(I, "i"));
	done(I);
}

Test(lang_blocks, a_failing_call_should_undo_what_the_function_changed)
{
	struct interp *I = fresh();
	out(I, "log = []\ndef add(x):\n    global total\n    log.append(x)\n    total = x\n    return x / 0");
	fails(I, "add(1)", 0);
	cr_assert_str_eq(out(I, "print(log)"), "[]\n");
	cr_assert_null(interp_get(I, "total"));
	done(I);
}

static volatile sig_atomic_t stop_flag;

static void capture_and_stop(void *udata, const struct value *v, const char *text)
{
	capture(udata, v, text);
	if (strcmp(text, "stop") == 0)
		stop_flag = 1;
}

Test(lang_blocks, ctrl_c_should_stop_an_endless_loop_and_undo_it, .timeout = 20)
{
	struct interp *I = fresh();
	interp_set_output(I, capture_and_stop, NULL);
	interp_set_interrupt(I, &stop_flag);
	stop_flag = 0;
	out(I, "n = 0");
	struct qkv_error err;
	const char *src = "if True:\n    n = 5\n    print('stop')\n    while True:\n        pass";
	cr_assert_eq(interp_run(I, src, strlen(src), 1, 0, &err), INTERP_INTERRUPTED);
	cr_assert_str_eq(err.msg, "interrupted (Ctrl-C)");
	stop_flag = 0;
	cr_assert_str_eq(out(I, "print(n)"), "0\n");
	/* inside a function called in a loop too */
	const char *src2 = "def spin():\n    while True:\n        pass\nprint('stop')\nspin()";
	cr_assert_eq(interp_run(I, src2, strlen(src2), 1, INTERP_ATOMIC, &err), INTERP_INTERRUPTED);
	stop_flag = 0;
	cr_assert_null(interp_get(I, "spin"));
	done(I);
}

/* ---- classes and nn.Module ------------------------------------------------------------ */

Test(lang_blocks, classes_should_inherit_and_call_super)
{
	struct interp *I = fresh();
	out(I, "class A:\n    n = 1\n    def __init__(self, x):\n        self.x = x\n    def f(self):\n        return self.x\n"
	       "class B(A):\n    def __init__(self, x):\n        super().__init__(x * 2)\n    def f(self):\n"
	       "        return super(B, self).f() + A.n\nb = B(5)");
	cr_assert_str_eq(out(I, "print(b.f(), isinstance(b, A), isinstance(A(1), B), type(b).__name__)"),
			 "11 True False B\n");
	done(I);
}

Test(lang_blocks, a_module_subclass_should_register_parameters_and_submodules_in_torch_order)
{
	struct interp *I = fresh();
	out(I, "class Head(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
	       "        self.w = nn.Parameter(torch.zeros(2, 2))\n        self.proj = nn.Linear(2, 3, bias=False)\n"
	       "        self.drop = nn.Dropout(0.5)\n        self.register_buffer('mask', torch.ones(2))\n"
	       "    def forward(self, x):\n        weights = x @ self.w\n        return self.drop(self.proj(weights))\n"
	       "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
	       "        self.heads = nn.ModuleList([Head() for _ in range(2)])\n"
	       "        self.out = nn.Sequential(nn.Linear(3, 1), nn.Dropout(0.1))\n    def forward(self, x):\n"
	       "        return torch.cat([h(x) for h in self.heads], dim=-1)\nnet = Net()");
	cr_assert_str_eq(out(I, "print([n for n, p in net.named_parameters()])"),
			 "['heads.0.w', 'heads.0.proj.weight', 'heads.1.w', 'heads.1.proj.weight', 'out.0.weight', "
			 "'out.0.bias']\n");
	cr_assert_str_eq(out(I, "print(net)"),
			 "Net(\n  (heads): ModuleList(\n    (0): Head(\n"
			 "      (proj): Linear(in_features=2, out_features=3, bias=False)\n"
			 "      (drop): Dropout(p=0.5, inplace=False)\n    )\n    (1): Head(\n"
			 "      (proj): Linear(in_features=2, out_features=3, bias=False)\n"
			 "      (drop): Dropout(p=0.5, inplace=False)\n    )\n  )\n  (out): Sequential(\n"
			 "    (0): Linear(in_features=3, out_features=1, bias=True)\n"
			 "    (1): Dropout(p=0.1, inplace=False)\n  )\n)\n");
	cr_assert_str_eq(out(I, "_ = net.eval()\nprint(net.training, net.heads[1].drop.training, len(net.heads))"),
			 "False False 2\n");
	cr_assert_str_eq(out(I, "print(net(torch.ones(1, 2)).shape, sum(p.numel() for p in net.parameters()))"),
			 "torch.Size([1, 6]) 24\n");
	cr_assert_str_eq(out(I, "print(isinstance(net, nn.Module), isinstance(net.out[0], nn.Linear))"), "True True\n");
	done(I);
}

Test(lang_blocks, expr_colon_name_should_give_a_local_of_the_most_recent_call)
{
	struct interp *I = fresh();
	out(I, "class M(nn.Module):\n    def forward(self, x):\n        weights = x * 2\n        return weights + 1\n"
	       "def attention(q):\n    scores = q * 10\n    return scores\nm = M()\ny = m(torch.ones(2))\nz = attention(3)");
	struct qkv_error err;
	struct value *v = interp_eval(I, "m.forward:weights", 17, &err);
	cr_assert_not_null(v, "%s", err.msg);
	cr_assert_eq(v->kind, V_TENSOR);
	value_unref(v);
	v = interp_eval(I, "attention:scores", 16, &err);
	cr_assert_not_null(v, "%s", err.msg);
	cr_assert_eq(v->i, 30);
	value_unref(v);
	cr_assert_null(interp_eval(I, "attention:nothing", 17, &err));
	cr_assert(strstr(err.msg, "nothing"), "%s", err.msg);
	done(I);
}

Test(lang_blocks, expr_colon_name_should_refuse_a_method_last_called_on_another_object)
{
	struct interp *I = fresh();
	out(I, "class M(nn.Module):\n    def forward(self, x):\n        y = x * 2\n        return y\n"
	       "a = M()\nb = M()\n_ = a(torch.ones(1))\n_ = b(torch.full((1,), 5.0))");
	struct qkv_error err;
	cr_assert_null(interp_eval(I, "a.forward:y", 11, &err), "a's forward was not the last call");
	cr_assert(strstr(err.msg, "another object"), "%s", err.msg);
	struct value *v = interp_eval(I, "b.forward:y", 11, &err);
	cr_assert_not_null(v, "%s", err.msg);
	cr_assert_float_eq(tensor_get(v->t, 0), 10.0, 0);
	value_unref(v);
	out(I, "_ = a(torch.ones(1))");
	v = interp_eval(I, "a:y", 3, &err);
	cr_assert_not_null(v, "%s", err.msg);
	cr_assert_float_eq(tensor_get(v->t, 0), 2.0, 0);
	value_unref(v);
	done(I);
}

Test(lang_blocks, attributes_should_give_no_way_out_of_the_sandbox)
{
	struct interp *I = fresh();
	out(I, "class C:\n    def f(self):\n        pass\nc = C()");
	const char *bad[] = { "c.__dict__", "C.__subclasses__", "c.f.__globals__", "getattr(c, '__dict__')",
			      "c.__class__.__base__", "(1).__class__", NULL };
	for (int i = 0; bad[i]; i++) {
		struct qkv_error err = fails(I, bad[i], 0);
		cr_assert(strstr(err.msg, "AttributeError") || strstr(err.msg, "has no attribute"), "%s: %s", bad[i],
			  err.msg);
	}
	done(I);
}

Test(lang_blocks, with_no_grad_should_run_its_block)
{
	struct interp *I = fresh();
	cr_assert_str_eq(out(I, "with torch.no_grad():\n    y = torch.ones(2) * 2\nprint(y)"), "tensor([2., 2.])\n");
	done(I);
}

Test(lang_blocks, reference_cycles_should_be_freed_with_the_interpreter)
{
	/* run under the sanitizers (make sanitize): a leak here is a failure */
	struct interp *I = fresh();
	out(I, "a = []\na.append(a)\nd = {}\nd['self'] = d\n"
	       "def outer():\n    def again(n):\n        return n if n == 0 else again(n - 1)\n    return again\n"
	       "g = outer()\ng(3)\nclass N:\n    def __init__(self):\n        self.me = self\nn = N()");
	out(I, "del a\ndel d\ndel g\ndel n");
	done(I);
}

Test(lang_blocks, a_clone_should_copy_functions_classes_and_cycles_and_change_apart)
{
	struct interp *I = fresh();
	out(I, "class C(nn.Module):\n    k = 1\n    def forward(self, x):\n        return x * self.k\nc = C()\n"
	       "a = [c]\na.append(a)\ndef make():\n    n = [0]\n    def inc():\n        n[0] += 1\n        return n[0]\n"
	       "    return inc\ninc = make()");
	struct interp *K = interp_clone(I);
	interp_set_output(K, capture, NULL);
	out(K, "C.k = 5\n_ = inc()\n_ = inc()");
	cr_assert_str_eq(out(I, "print(c(2), inc())"), "2 1\n");
	cr_assert_str_eq(out(K, "print(c(2), inc())"), "10 3\n");
	interp_free(I);
	done(K);
}

static void collect_name(void *udata, const char *name)
{
	strbuf_puts(udata, name);
	strbuf_putc(udata, ' ');
}

Test(lang_blocks, completion_should_offer_an_instances_attributes_and_methods)
{
	struct interp *I = fresh();
	out(I, "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
	       "        self.W_query = nn.Linear(2, 2)\n        self.width = 3\n    def forward(self, x):\n"
	       "        return x\nm = M()\nl = [1]");
	struct strbuf names;
	strbuf_init(&names);
	strbuf_puts(&names, "");
	interp_complete(I, "m", "W", collect_name, &names);
	cr_assert_str_eq(names.s, "W_query ");
	strbuf_reset(&names);
	interp_complete(I, "m", "f", collect_name, &names);
	cr_assert_str_eq(names.s, "forward ");
	strbuf_reset(&names);
	interp_complete(I, "l", "ap", collect_name, &names);
	cr_assert_str_eq(names.s, "append ");
	strbuf_free(&names);
	done(I);
}

static void collect_builtin(void *udata, const char *qualified)
{
	if (strncmp(qualified, "builtins.", 9) == 0)
		collect_name(udata, qualified + 9);
}

/* every builtin the interpreter runs is offered (chr and ord were not, as
 * the list of them was kept apart from the table), and each name offered
 * is one the interpreter knows */
Test(lang_blocks, completion_should_offer_every_builtin)
{
	struct interp *I = fresh();
	out(I, "chunk = 1");
	struct strbuf names, builtins;
	strbuf_init(&names);
	strbuf_puts(&names, "");
	interp_complete(I, NULL, "ch", collect_name, &names);
	cr_assert_str_eq(names.s, "chunk chr ");
	strbuf_reset(&names);
	interp_complete(I, NULL, "or", collect_name, &names);
	cr_assert_str_eq(names.s, "ord ");
	strbuf_reset(&names);
	strbuf_puts(&names, " ");	/* each name between spaces */
	interp_complete(I, NULL, "", collect_name, &names);
	strbuf_init(&builtins);
	strbuf_puts(&builtins, "");
	runtime_each_name(collect_builtin, &builtins);
	cr_assert(strstr(builtins.s, "divmod ") && strstr(builtins.s, "callable "), "%s", builtins.s);
	for (char *b = builtins.s, *end; (end = strchr(b, ' ')); b = end + 1) {
		*end = 0;
		char word[64];
		snprintf(word, sizeof word, " %s ", b);
		cr_expect(strstr(names.s, word), "%s is not offered: %s", b, names.s);
	}
	for (char *n = names.s + 1, *end; (end = strchr(n, ' ')); n = end + 1) {
		*end = 0;
		static const char *const keywords[] = { "lambda", "def", "class", "for", "while", "return" };
		bool keyword = false;
		for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
			keyword = keyword || strcmp(n, keywords[k]) == 0;
		struct value *v = interp_get(I, n);
		struct value *g = v || keyword ? NULL : runtime_global(n);
		cr_expect(v || g || keyword || strcmp(n, "True") == 0 || strcmp(n, "False") == 0 ||
			  strcmp(n, "None") == 0, "%s is offered but names nothing", n);
		value_unref(g);
	}
	strbuf_free(&names);
	strbuf_free(&builtins);
	done(I);
}

Test(lang_blocks, a_class_may_define_len_getitem_repr_and_str)
{
	struct interp *I = fresh();
	out(I, "class Data:\n    def __init__(self, n):\n        self.n = n\n    def __len__(self):\n        return self.n\n"
	       "    def __getitem__(self, i):\n        return i * 10\n    def __repr__(self):\n"
	       "        return f'Data({self.n})'\nclass Named(Data):\n    def __str__(self):\n        return 'named'\n"
	       "d = Data(3)");
	cr_assert_str_eq(out(I, "print(len(d), d[2], d, str(d), repr(Named(1)), Named(1))\nd"),
			 "3 20 Data(3) Data(3) Data(1) named\nData(3)\n");
	done(I);
}

Test(lang_blocks, builtins_calling_functions_at_the_top_level_should_report_their_errors)
{
	struct interp *I = fresh();
	struct qkv_error err = fails(I, "list(map(lambda x: 1 / x, [1, 0]))", 0);
	cr_assert(strstr(err.msg, "division by zero"), "%s", err.msg);
	err = fails(I, "sorted([1, 2], key=lambda x: x.nope)", 0);
	cr_assert(strstr(err.msg, "nope"), "%s", err.msg);
	err = fails(I, "list(filter(lambda: 1, [1]))", 0);
	cr_assert(strstr(err.msg, "TypeError"), "%s", err.msg);
	done(I);
}

Test(lang_blocks, large_dicts_and_sets_should_find_keys_by_hash_and_undo_as_small_ones)
{
	struct interp *I = fresh();
	out(I, "d = {str(i): i for i in range(100)}\ns = set(range(100))");
	fails(I, "if True:\n    for i in range(100):\n        d[str(i + 100)] = 1\n        s.add(i + 100)\n"
		 "    del d['3']\n    s.discard(3)\n    boom()", 0);
	cr_assert_str_eq(out(I, "print(len(d), '3' in d, '150' in d, d['99'], len(s), 3 in s, 150 in s, 3.0 in s)"),
			 "100 True False 99 100 True False True\n");
	done(I);
}
