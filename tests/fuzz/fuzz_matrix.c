/* fuzz_matrix.c: fuzzes matrix literals ([1 2; 3 4], [1, -2; inf nan]) and
 * the lexer's numbers. The bytes are lexed alone, token by token (numbers,
 * signs, names and whatever else they hold), then wrapped as
 * "m = [" + bytes + "]" and parsed (the N_MATRIX path of lang/parser.c, each
 * tree printed back as source) and run, tensors limited to FUZZ_MAX_ELEMS
 * elements, with m shown. Built by make fuzz; with replay.c it replays saved
 * inputs without libFuzzer. */
#include "fuzz.h"
#include "core/strbuf.h"
#include "lang/astprint.h"
#include "lang/interp.h"
#include "lang/lexer.h"
#include "lang/parser.h"

#include <math.h>
#include <string.h>

/* Lexes src to its end: every token lies within src, after the one before,
 * and a number literal (which never holds its sign) is not negative. */
static void lex_all(const char *src, size_t len)
{
	struct lexer lx;
	lexer_init(&lx, src, len, 1);
	size_t last = 0;
	for (;;) {
		struct token t;
		lexer_next(&lx, &t);
		enum tok_kind k = t.kind;
		FUZZ_CHECK(t.start >= last && t.start <= len && t.len <= len - t.start);
		if (k == T_NUMBER)
			FUZZ_CHECK(t.is_int ? t.ival >= 0 : !(t.num < 0) && !signbit(t.num));
		last = t.start;
		token_free(&t);
		if (k == T_EOF || k == T_ERROR || k == T_INCOMPLETE)
			break;
	}
}

/* Parses src statement by statement, printing each tree back as text. */
static void parse_all(const char *src, size_t len)
{
	struct parser *p = parser_new(src, len, 1);
	struct node *n;
	struct qkv_error err;
	char buf[256];
	while (parser_next(p, &n, &err) == PARSE_OK) {
		if (n->kind == N_ASSIGN && n->nkids == 2 && n->kids[1]->kind == N_MATRIX) {
			const struct node *m = n->kids[1];
			FUZZ_CHECK(m->cols > 0 && m->rows >= 0);
		}
		for (int i = 0; i < n->nkids; i++)
			if (n->kids[i])
				ast_print(n->kids[i], buf, sizeof buf);
		node_free(n);
	}
	parser_free(p);
}

static void discard(void *udata, const struct value *v, const char *text)
{
	(void)udata;
	(void)v;
	volatile size_t n = text ? strlen(text) : 0;
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lex_all((const char *)data, size);

	static const char head[] = "m = [", tail[] = "]\nm\nm.sum()\n";
	size_t len = sizeof head - 1 + size + sizeof tail - 1;
	char *src = malloc(len);
	if (!src)
		return 0;
	memcpy(src, head, sizeof head - 1);
	if (size)
		memcpy(src + sizeof head - 1, data, size);
	memcpy(src + sizeof head - 1 + size, tail, sizeof tail - 1);
	parse_all(src, len);

	struct interp *I = interp_new(KERNEL_SIMD);
	interp_ops(I)->max_elems = FUZZ_MAX_ELEMS;
	interp_set_output(I, discard, NULL);
	struct qkv_error err;
	memset(&err, 0, sizeof err);
	interp_run(I, src, len, 1, INTERP_PER_STATEMENT, &err);
	struct value *m = interp_get(I, "m");
	if (m) {
		struct strbuf sb;
		strbuf_init(&sb);
		value_repr(&sb, m);
		strbuf_free(&sb);
	}
	interp_free(I);
	free(src);
	return 0;
}
