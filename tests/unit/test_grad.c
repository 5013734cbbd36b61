/* test_grad.c: the grad state torch 1.13 gives each operation's result, as
 * src/lang/autograd.c reproduces it: the cases of tests/ref/grad_refs.inc
 * (made by grad_refs.py from real torch: grad_fn, requires_grad, or the
 * error), the printed forms, and a rule for every function and method the
 * language has. In-process; never needs Python at test time. */
#include <criterion/criterion.h>

#include "core/textcmp.h"
#include "lang/autograd.h"
#include "lang/interp.h"
#include "lang/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct grad_ref {
	const char *code;
	bool stmt;           /* statements: the result is the variable the last line names */
	const char *kind;    /* "tensor", "value" (not a tensor) or "error" */
	const char *fn;      /* type(r.grad_fn).__name__, or NULL */
	bool requires_grad;
	const char *error;   /* the first line of torch's message */
};

struct grad_repr {
	const char *code;
	const char *text;    /* repr(r); "<X object at 0x...>" as "<X object>" */
};

#include "../ref/grad_refs.inc"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static struct interp *setup(void)
{
	struct interp *I = interp_new(KERNEL_SIMD);
	struct qkv_error err = { 0 };
	enum interp_status st = interp_run(I, grad_setup, strlen(grad_setup), 1, INTERP_PER_STATEMENT, &err);
	cr_assert_eq(st, INTERP_OK, "the setup fails: %s", err.msg);
	return I;
}

/* The name a statement case leaves its result in: the first name of its
 * last line ("y2 += 1", "x2[0] = ...", "q.zero_()"). */
static void last_name(const char *code, char *name, size_t size)
{
	const char *line = strrchr(code, '\n');
	line = line ? line + 1 : code;
	while (*line == ' ')
		line++;
	size_t n = strcspn(line, " [.=+-*/");
	snprintf(name, size, "%.*s", (int)n, line);
}

/* Runs a statement case; "with torch.no_grad():" runs its body with the
 * interpreter's no_grad depth raised, as eval.c's with-statement does. */
static enum interp_status run_stmt(struct interp *I, const char *code, struct qkv_error *err)
{
	static const char with[] = "with torch.no_grad():\n";
	if (strncmp(code, with, strlen(with)) != 0)
		return interp_run(I, code, strlen(code), 1, INTERP_PER_STATEMENT, err);
	char body[512];
	size_t n = 0;
	for (const char *p = code + strlen(with); *p && n + 1 < sizeof body; p++) {
		if ((p == code + strlen(with) || p[-1] == '\n') && strncmp(p, "    ", 4) == 0)
			p += 4;
		body[n++] = *p;
	}
	body[n] = 0;
	I->no_grad++;
	enum interp_status st = interp_run(I, body, n, 2, INTERP_PER_STATEMENT, err);
	I->no_grad--;
	return st;
}

/* Checks one case; returns 0, or 1 after reporting a difference. */
static int check_ref(const struct grad_ref *r)
{
	struct interp *I = setup();
	struct qkv_error err = { 0 };
	struct value *v = NULL;
	if (r->stmt) {
		if (run_stmt(I, r->code, &err) == INTERP_OK) {
			char name[64];
			last_name(r->code, name, sizeof name);
			v = interp_get(I, name);
			v = v ? value_ref(v) : NULL;
			cr_expect(v != NULL, "%s: no variable %s", r->code, name);
		}
	} else {
		v = interp_eval(I, r->code, strlen(r->code), &err);
	}
	int bad = 0;
	if (strcmp(r->kind, "error") == 0) {
		if (v || !strstr(err.msg, r->error)) {
			cr_expect(false, "%s: expected the error \"%s\", got %s", r->code, r->error,
				  v ? "a value" : err.msg);
			bad = 1;
		}
	} else if (!v) {
		cr_expect(false, "%s: failed: %s", r->code, err.msg);
		bad = 1;
	} else if (strcmp(r->kind, "value") == 0) {
		bad = v->kind == V_TENSOR && v->t->flavor == FLAVOR_TORCH;
		cr_expect(!bad, "%s: expected a value that is not a torch tensor", r->code);
	} else if (v->kind != V_TENSOR) {
		cr_expect(false, "%s: expected a tensor, got %s", r->code, value_type_name(v));
		bad = 1;
	} else {
		const struct grad_state *g = &v->t->grad;
		bool same_fn = (!g->fn && !r->fn) || (g->fn && r->fn && strcmp(g->fn, r->fn) == 0);
		if (!same_fn || g->requires_grad != r->requires_grad) {
			cr_expect(false, "%s: torch gives grad_fn %s, requires_grad %d; qkv %s, %d", r->code,
				  r->fn ? r->fn : "None", r->requires_grad, g->fn ? g->fn : "None", g->requires_grad);
			bad = 1;
		}
	}
	value_unref(v);
	interp_free(I);
	return bad;
}

Test(grad, every_case_should_get_the_grad_fn_torch_gives)
{
	int bad = 0;
	for (size_t i = 0; i < COUNT(grad_refs); i++)
		bad += check_ref(&grad_refs[i]);
	cr_assert_eq(bad, 0, "%d of %zu cases differ from torch", bad, COUNT(grad_refs));
	cr_assert_gt(COUNT(grad_refs), 300);
}

Test(grad, results_should_print_as_torch_prints_them)
{
	int bad = 0;
	for (size_t i = 0; i < COUNT(grad_reprs); i++) {
		struct interp *I = setup();
		struct qkv_error err = { 0 };
		struct value *v = interp_eval(I, grad_reprs[i].code, strlen(grad_reprs[i].code), &err);
		cr_expect(v != NULL, "%s: %s", grad_reprs[i].code, err.msg);
		if (v) {
			struct strbuf sb;
			strbuf_init(&sb);
			value_repr(&sb, v);
			char why[256];
			if (!textcmp_match(sb.s, grad_reprs[i].text, 0, 0, false, why, sizeof why)) {
				cr_expect(false, "%s: %s\n got: %s\nwant: %s", grad_reprs[i].code, why, sb.s,
					  grad_reprs[i].text);
				bad++;
			}
			strbuf_free(&sb);
		}
		value_unref(v);
		interp_free(I);
	}
	cr_assert_eq(bad, 0);
}

static void check_has_rule(void *udata, const char *qualified)
{
	int *missing = udata;
	if (strncmp(qualified, "Tensor.", 7) != 0 && !runtime_find_function(qualified))
		return;	/* modules, constants, dtypes */
	if (!autograd_has_rule(qualified)) {
		cr_expect(false, "%s has no autograd rule (src/lang/autograd.c's table)", qualified);
		(*missing)++;
	}
}

Test(grad, every_function_and_method_should_have_a_rule)
{
	int missing = 0;
	runtime_each_name(check_has_rule, &missing);
	cr_assert_eq(missing, 0);
}

static void find_name(void *udata, const char *qualified)
{
	const char **want = udata;
	if (*want && strcmp(*want, qualified) == 0)
		*want = NULL;
}

Test(grad, every_rule_should_name_a_function_or_method_that_exists)
{
	static const char *const attrs[] = { "Tensor.__T", "Tensor.data", "Tensor.grad", "Tensor.grad_fn",
					     "Tensor.is_leaf", "Tensor.requires_grad" };
	const char *name;
	for (int i = 0; (name = autograd_rule_name(i)) != NULL; i++) {
		if (i > 0)
			cr_expect_lt(strcmp(autograd_rule_name(i - 1), name), 0, "the rules are not sorted at %s", name);
		bool attr = false;
		for (size_t k = 0; k < COUNT(attrs); k++)
			attr |= strcmp(attrs[k], name) == 0;
		const char *want = name;
		runtime_each_name(find_name, &want);
		cr_expect(attr || want == NULL, "the rule %s names nothing qkv has", name);
	}
}

Test(grad, in_place_writes_to_a_leaf_should_fail_and_change_nothing)
{
	struct interp *I = setup();
	struct qkv_error err = { 0 };
	static const char code[] = "p2.zero_()";
	cr_assert_eq(interp_run(I, code, strlen(code), 1, INTERP_PER_STATEMENT, &err), INTERP_ERROR);
	cr_expect_str_eq(err.msg, "RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.");
	cr_expect_eq(err.line, 1);
	cr_expect_eq(err.col, 9);	/* at the call's parenthesis, as qkv places call errors */
	struct value *v = interp_eval(I, "p2.sum() != 0", 13, &err);
	cr_assert(v != NULL);
	cr_expect(v->kind == V_TENSOR && tensor_get(v->t, 0) != 0, "p2 was zeroed");
	value_unref(v);
	interp_free(I);
}

Test(grad, grad_fn_should_be_an_object_that_is_not_none)
{
	struct interp *I = setup();
	struct qkv_error err = { 0 };
	static const char code[] = "f = y2.grad_fn\ng = p2.grad_fn\na = f is None\nb = g is None\n";
	cr_assert_eq(interp_run(I, code, strlen(code), 1, INTERP_PER_STATEMENT, &err), INTERP_OK, "%s", err.msg);
	cr_expect(interp_get(I, "a")->kind == V_BOOL && !interp_get(I, "a")->b);
	cr_expect(interp_get(I, "b")->kind == V_BOOL && interp_get(I, "b")->b);
	struct strbuf sb;
	strbuf_init(&sb);
	value_repr(&sb, interp_get(I, "f"));
	cr_expect_str_eq(sb.s, "<MulBackward0 object>");
	strbuf_free(&sb);
	interp_free(I);
}

Test(grad, a_workspace_copy_should_keep_the_grad_state)
{
	struct interp *I = setup();
	struct interp *C = interp_clone(I);
	cr_expect_str_eq(interp_get(C, "y2")->t->grad.fn, "MulBackward0");
	cr_expect(interp_get(C, "p2")->t->grad.requires_grad);
	cr_expect(!interp_get(C, "x2")->t->grad.requires_grad);
	interp_free(C);
	interp_free(I);
}

/* torch 1.13 has no F.scaled_dot_product_attention: qkv gives its result
 * what the math form's last product, weights @ value, gets. */
Test(grad, scaled_dot_product_attention_should_get_its_last_products_grad_fn)
{
	static const char *const cases[][2] = {
		{ "F.scaled_dot_product_attention(p3, x3, x3)", "UnsafeViewBackward0" },
		{ "F.scaled_dot_product_attention(x3, x3, y3, is_causal=True)", "UnsafeViewBackward0" },
		{ "F.scaled_dot_product_attention(p2, x2, x2)", "MmBackward0" },
		{ "F.scaled_dot_product_attention(x3, x3, x3)", NULL },
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct interp *I = setup();
		struct qkv_error err = { 0 };
		struct value *v = interp_eval(I, cases[i][0], strlen(cases[i][0]), &err);
		cr_assert(v && v->kind == V_TENSOR, "%s: %s", cases[i][0], err.msg);
		const char *fn = v->t->grad.fn;
		cr_expect((!fn && !cases[i][1]) || (fn && cases[i][1] && strcmp(fn, cases[i][1]) == 0), "%s: %s",
			  cases[i][0], fn ? fn : "None");
		value_unref(v);
		interp_free(I);
	}
}

/* Large enough for the fused attention kernel (more than 4096 scores per
 * head), which must give what the last product gives when written out. */
Test(grad, fused_attention_should_get_the_grad_fn_of_the_written_out_product)
{
	static const char setup_big[] = "torch.manual_seed(1)\nq3 = nn.Parameter(torch.randn(2, 70, 8))\n"
					"k2 = torch.randn(70, 8)\nq2 = nn.Parameter(torch.randn(70, 8))\n";
	static const char *const cases[][2] = {
		{ "torch.softmax(q3 @ q3.transpose(1, 2) / 2, dim=-1) @ q3", "UnsafeViewBackward0" },
		{ "torch.softmax(q2 @ k2.T, dim=-1) @ k2", "MmBackward0" },
		{ "torch.softmax(k2 @ k2.T, dim=-1) @ q2", "MmBackward0" },
		{ "torch.softmax(k2 @ k2.T, dim=-1) @ k2", NULL },
	};
	for (int variant = 0; variant < 2; variant++) {
		struct interp *I = interp_new(variant ? KERNEL_SIMD : KERNEL_LOOPS);
		struct qkv_error err = { 0 };
		cr_assert_eq(interp_run(I, setup_big, strlen(setup_big), 1, INTERP_PER_STATEMENT, &err), INTERP_OK,
			     "%s", err.msg);
		for (size_t i = 0; i < COUNT(cases); i++) {
			struct value *v = interp_eval(I, cases[i][0], strlen(cases[i][0]), &err);
			cr_assert(v && v->kind == V_TENSOR, "%s: %s", cases[i][0], err.msg);
			const char *fn = v->t->grad.fn;
			cr_expect((!fn && !cases[i][1]) || (fn && cases[i][1] && strcmp(fn, cases[i][1]) == 0),
				  "%s (kernel %d): %s", cases[i][0], variant, fn ? fn : "None");
			cr_expect_eq(v->t->grad.requires_grad, cases[i][1] != NULL);
			value_unref(v);
		}
		interp_free(I);
	}
}
