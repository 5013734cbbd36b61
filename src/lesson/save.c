/* save.c: :save and :load of the prompt (see save.h), for lesson/session.c.
 * Replays the statements in a fresh interpreter, pins what they make in a
 * one-step lesson built with cJSON, and writes it atomically (core/file.c).
 * Never changes the caller's workspace, never prints, never leaves a partial
 * or temporary file behind, and never replaces a file unless asked to. */
#include "lesson/save.h"
#include "lesson/codeplace.h"
#include "lesson/lesson.h"
#include "core/file.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/textcmp.h"
#include "lang/interp.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define VALUES_TOL 1e-4   /* an expect's default tolerance (FORMAT.md) */

/* A tensor of the session that the lesson pins. */
struct pinned {
	const char *name;
	const struct value *v;     /* the caller's value (I) */
	bool by_values;            /* else by its printed text */
};

/* ---- names ----------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The lesson id from the file name: "My Session.json" gives "my-session";
 * anything but letters and digits becomes one '-'. */
static char *derive_id(const char *path)
{
	const char *base = base_name(path);
	const char *dot = strrchr(base, '.');
	size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	struct strbuf sb;
	strbuf_init(&sb);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)base[i];
		if (c < 0x80 && isalnum(c))
			strbuf_putc(&sb, (char)tolower(c));
		else if (sb.len > 0 && sb.s[sb.len - 1] != '-')
			strbuf_putc(&sb, '-');
	}
	while (sb.len > 0 && sb.s[sb.len - 1] == '-')
		sb.s[--sb.len] = 0;
	if (sb.len == 0)
		strbuf_puts(&sb, "session");
	return strbuf_detach(&sb);
}

/* ---- running the statements again ------------------------------------------ */

/* Runs the statements, joined by newlines exactly as the lesson's code will
 * be, in a new interpreter like I. Returns it, or NULL with err naming the
 * statement that fails. */
static struct interp *replay(const char *code, const char *const *statements, int n, struct interp *I,
			     struct qkv_error *err)
{
	struct interp *R = interp_new(interp_ops(I)->variant);
	interp_ops(R)->max_elems = interp_ops(I)->max_elems;
	struct qkv_error e;
	error_clear(&e);
	enum interp_status st = interp_run(R, code, strlen(code), 1, INTERP_PER_STATEMENT, &e);
	if (st == INTERP_OK)
		return R;
	interp_free(R);
	/* which statement holds the failing line */
	int first = 1, k = 0;
	for (; k < n; k++) {
		int lines = 1;
		for (const char *c = statements[k]; *c; c++)
			lines += *c == '\n';
		if (e.line < first + lines)
			break;
		first += lines;
	}
	if (st == INTERP_INCOMPLETE && !e.msg[0])
		snprintf(e.msg, sizeof e.msg, "the statement is not finished");
	if (k >= n) {
		error_set(err, 0, 0, "the statements do not run from scratch: %s", e.msg);
		return NULL;
	}
	if (e.line > first)
		error_set(err, 0, 0, "statement %d fails when the statements run from scratch (line %d, col %d): %s",
			  k + 1, e.line - first + 1, e.col, e.msg);
	else
		error_set(err, 0, 0, "statement %d fails when the statements run from scratch (col %d): %s", k + 1,
			  e.col, e.msg);
	return NULL;
}

/* Does the replayed tensor `got` pass the expect that pins p, as qkv check
 * will judge it? why says how it differs. */
static bool reproduces(const struct pinned *p, const struct value *got, char *why, size_t size)
{
	const struct tensor *a = got->t, *b = p->v->t;
	if (!p->by_values) {
		struct strbuf sa, sb;
		strbuf_init(&sa);
		strbuf_init(&sb);
		value_repr(&sa, got);
		value_repr(&sb, p->v);
		bool ok = textcmp_match(sa.s, sb.s, 0, 0, false, NULL, 0);
		if (!ok)
			snprintf(why, size, "it prints differently");
		strbuf_free(&sa);
		strbuf_free(&sb);
		return ok;
	}
	if (!tensor_same_shape(a, b)) {
		char sa[96], sb[96];
		snprintf(why, size, "shape %s instead of %s", tensor_shape_str(sa, sizeof sa, a->ndim, a->shape),
			 tensor_shape_str(sb, sizeof sb, b->ndim, b->shape));
		return false;
	}
	int64_t n = tensor_numel(a);
	for (int64_t i = 0; i < n; i++) {
		double x = tensor_get(a, i), y = tensor_get(b, i);
		if (x == y || (isnan(x) && isnan(y)) || fabs(x - y) <= VALUES_TOL)
			continue;
		snprintf(why, size, "element %lld is %g instead of %g", (long long)i, x, y);
		return false;
	}
	return true;
}

/* The tensors the replay left under a name, each with the caller's value;
 * -1 with err when the caller's workspace does not agree. */
static int collect(struct interp *R, struct interp *I, struct pinned **out, int *count, struct qkv_error *err)
{
	int nv = interp_var_count(R), np = 0;
	struct pinned *p = xcalloc((size_t)nv + 1, sizeof *p);
	int64_t budget = SAVE_VALUES_BUDGET;
	for (int i = 0; i < nv; i++) {
		const char *name = interp_var_name(R, i);
		const struct value *got = interp_get(R, name);
		if (!got || got->kind != V_TENSOR)
			continue;
		const struct value *mine = interp_get(I, name);
		if (!mine || mine->kind != V_TENSOR) {
			free(p);
			return error_set(err, 0, 0, "the statements do not recreate the workspace: run from scratch "
					 "they make a tensor '%s', which the workspace does not hold", name);
		}
		int64_t numel = tensor_numel(mine->t);
		struct pinned *q = &p[np++];
		q->name = name;
		q->v = mine;
		q->by_values = numel > 0 && numel <= SAVE_MAX_VALUES && numel <= budget;
		if (q->by_values)
			budget -= numel;
		char why[200];
		if (!reproduces(q, got, why, sizeof why)) {
			free(p);
			return error_set(err, 0, 0, "the statements do not recreate the workspace: run from scratch, "
					 "'%s' comes out differently (%s)", name, why);
		}
	}
	*out = p;
	*count = np;
	return 0;
}

/* ---- the lesson ------------------------------------------------------------ */

static cJSON *number_json(const struct tensor *t, int64_t flat)
{
	if (t->dtype == DT_I64) {
		char buf[32];
		snprintf(buf, sizeof buf, "%lld", (long long)tensor_get_i64(t, flat));
		return cJSON_CreateRaw(buf);
	}
	double v = tensor_get(t, flat);
	if (t->dtype == DT_BOOL)
		return cJSON_CreateRaw(v != 0 ? "1" : "0");
	if (isnan(v))
		return cJSON_CreateString("nan");
	if (isinf(v))
		return cJSON_CreateString(v > 0 ? "inf" : "-inf");
	struct strbuf sb;
	strbuf_init(&sb);
	format_shortest(&sb, v, t->dtype);  /* reads back to the same float32 or float64 */
	cJSON *num = cJSON_CreateRaw(sb.s);
	strbuf_free(&sb);
	return num;
}

/* The elements of t from flat index *flat on, nested as dimension dim and
 * those below it. */
static cJSON *values_json(const struct tensor *t, int dim, int64_t *flat)
{
	if (dim == t->ndim)
		return number_json(t, (*flat)++);
	cJSON *arr = cJSON_CreateArray();
	for (int64_t i = 0; i < t->shape[dim]; i++)
		cJSON_AddItemToArray(arr, values_json(t, dim + 1, flat));
	return arr;
}

/* Text as an array of its lines. */
static cJSON *lines_json(const char *text)
{
	cJSON *arr = cJSON_CreateArray();
	for (;;) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char *line = xstrndup(text, len);
		cJSON_AddItemToArray(arr, cJSON_CreateString(line));
		free(line);
		if (!nl)
			return arr;
		text = nl + 1;
	}
}

static cJSON *expect_json(const struct pinned *p)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "tensor", p->name);
	if (p->by_values) {
		int64_t flat = 0;
		cJSON_AddItemToObject(e, "values", values_json(p->v->t, 0, &flat));
	} else {
		struct strbuf sb;
		strbuf_init(&sb);
		value_repr(&sb, p->v);
		cJSON_AddItemToObject(e, "text", lines_json(sb.s));
		strbuf_free(&sb);
	}
	return e;
}

/* "X, W and R", naming at most six. */
static void name_list(struct strbuf *sb, const struct pinned *p, int np)
{
	int shown = np > 6 ? 5 : np;
	for (int i = 0; i < shown; i++) {
		if (i > 0)
			strbuf_puts(sb, i == np - 1 ? " and " : ", ");
		strbuf_puts(sb, p[i].name);
	}
	if (shown < np)
		strbuf_printf(sb, " and %d more", np - shown);
}

static char *lesson_json(const char *path, const char *title, const char *const *statements, int n,
			 const struct pinned *p, int np)
{
	struct strbuf sb;
	strbuf_init(&sb);
	cJSON *root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "format", LESSON_FORMAT);
	char *id = derive_id(path);
	cJSON_AddStringToObject(root, "id", id);
	free(id);
	cJSON_AddStringToObject(root, "title", title);
	cJSON_AddStringToObject(root, "source", "a qkv session");
	strbuf_printf(&sb, "Statements typed at qkv's prompt and saved with :save: %d statement%s", n,
		      n == 1 ? "" : "s");
	if (np > 0) {
		strbuf_puts(&sb, np == 1 ? " making the tensor " : " making the tensors ");
		name_list(&sb, p, np);
	}
	strbuf_putc(&sb, '.');
	cJSON_AddStringToObject(root, "summary", sb.s);

	cJSON *step = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "steps"), step);
	cJSON_AddStringToObject(step, "title", title);
	strbuf_reset(&sb);
	strbuf_printf(&sb, "These statements were typed at the prompt, in this order. `qkv check %s` runs them "
		      "again from scratch and verifies that they make the same tensors.", base_name(path));
	cJSON_AddItemToArray(cJSON_AddArrayToObject(step, "text"), cJSON_CreateString(sb.s));
	if (n > 0) {
		cJSON *code = cJSON_AddArrayToObject(step, "code");
		for (int i = 0; i < n; i++) {
			cJSON *lines = lines_json(statements[i]);
			while (lines->child)
				cJSON_AddItemToArray(code, cJSON_DetachItemViaPointer(lines, lines->child));
			cJSON_Delete(lines);
		}
	}
	/* heatmaps: the newest names first */
	cJSON *show = NULL;
	int nshow = 0;
	for (int i = np - 1; i >= 0 && nshow < SAVE_MAX_HEATMAPS; i--) {
		if (tensor_numel(p[i].v->t) == 0)
			continue;
		if (!show)
			show = cJSON_AddArrayToObject(step, "show");
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "heatmap", p[i].name);
		cJSON_AddItemToArray(show, h);
		nshow++;
	}
	if (np > 0) {
		cJSON *expect = cJSON_AddArrayToObject(step, "expect");
		for (int i = 0; i < np; i++)
			cJSON_AddItemToArray(expect, expect_json(&p[i]));
	}
	strbuf_free(&sb);
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

/* ---- writing ---------------------------------------------------------------- */

/* Refuses what :save must not replace, then writes through file_write_atomic. */
static int write_atomic(const char *path, bool overwrite, const char *text, struct qkv_error *err)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return error_set(err, 0, 0, "cannot save %s: it is a directory; give a file name", path);
	if (exists && !overwrite)
		return error_set(err, 0, 0, "%s exists; :save! %s replaces it", path, path);
	if (exists && !S_ISREG(st.st_mode))
		return error_set(err, 0, 0, "cannot save %s: it is not a regular file", path);
	if (file_write_atomic(path, text, strlen(text), 0666, FILE_KEEP_MODE | (overwrite ? 0 : FILE_NO_REPLACE),
			      err) != 0) {
		if (errno == EEXIST)	/* it appeared since the check */
			return error_set(err, 0, 0, "%s exists; :save! %s replaces it", path, path);
		return -1;
	}
	return 0;
}

int save_write_lesson(const char *path, bool overwrite, const char *title, const char *const *statements, int n,
		      struct interp *I, struct qkv_error *err)
{
	if (!path || !*path || path[strlen(path) - 1] == '/')
		return error_set(err, 0, 0, ":save needs a file name, such as :save session.json");
	if (!title || !*title)
		title = "A qkv session";
	struct strbuf code;
	strbuf_init(&code);
	for (int i = 0; i < n; i++) {
		if (i > 0)
			strbuf_putc(&code, '\n');
		strbuf_puts(&code, statements[i]);
	}
	struct interp *R = replay(code.s ? code.s : "", statements, n, I, err);
	strbuf_free(&code);
	if (!R)
		return -1;
	struct pinned *p = NULL;
	int np = 0;
	/* the values' text as the lesson's statements print them (with their
	 * print options), which is how the runner will see them */
	const struct print_options *was = format_use_options(interp_print_options(I));
	if (collect(R, I, &p, &np, err) < 0) {
		format_use_options(was);
		interp_free(R);
		return -1;
	}
	char *text = lesson_json(path, title, statements, n, p, np);
	format_use_options(was);
	free(p);
	interp_free(R);
	if (!text)
		return error_set(err, 0, 0, "cannot save %s: out of memory", path);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_puts(&sb, text);
	strbuf_putc(&sb, '\n');
	cJSON_free(text);
	/* the file must open as a lesson: never write one that does not */
	struct qkv_error e;
	struct lesson *l = lesson_parse(path, sb.s, sb.len, NULL, NULL, &e);
	int rc;
	if (!l)
		rc = error_set(err, 0, 0, "cannot save %s: the lesson would not load (%s)", path, e.msg);
	else
		rc = write_atomic(path, overwrite, sb.s, err);
	lesson_free(l);
	strbuf_free(&sb);
	return rc;
}

/* ---- loading ----------------------------------------------------------------- */

static bool ends_with_json(const char *path)
{
	size_t len = strlen(path);
	return len >= 5 && strcasecmp(path + len - 5, ".json") == 0;
}

/* The lesson to *lesson when the caller wants it, else freed. */
static void keep_or_free(struct lesson *l, struct lesson **lesson)
{
	if (lesson)
		*lesson = l;
	else
		lesson_free(l);
}

int save_load_code(const char *path, struct strbuf *code, struct lesson **lesson, struct qkv_error *err)
{
	struct lesson *l = NULL;
	if (lesson)
		*lesson = NULL;
	if (ends_with_json(path)) {
		l = lesson_load_file(path, NULL, NULL, err);
		if (!l)
			return -1;
		codeplace_steps_code(l, code);
		keep_or_free(l, lesson);
		return 0;
	}
	size_t len;
	char *text = lesson_read_text(path, "a file to load", &len, err);
	if (!text)
		return -1;
	size_t lead = strspn(text, " \t\r\n");
	if (text[lead] == '{') {
		l = lesson_parse(path, text, len, NULL, NULL, err);
		free(text);
		if (!l)
			return -1;
		codeplace_steps_code(l, code);
		keep_or_free(l, lesson);
		return 0;
	}
	if (memchr(text, 0, len)) {
		free(text);
		return error_set(err, 0, 0, "%s: holds a NUL byte; only text files of statements can be loaded", path);
	}
	strbuf_putn(code, text, len);
	free(text);
	return 0;
}
