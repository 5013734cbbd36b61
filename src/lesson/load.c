/* load.c: reading a lesson file into struct lesson (see lesson.h).
 * cJSON parses; jsonpos supplies positions; this file checks the structure
 * and types field by field and names the first problem precisely. Unknown
 * fields are warnings. Running the code is the runner's job. Never prints:
 * warnings go to the caller's callback, errors into the error record. */
#include "lesson/lesson.h"
#include "lesson/jsonpos.h"
#include "lang/interp.h"
#include "core/file.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct loader {
	struct lesson *l;
	struct jsonpos pos;
	lesson_warn_fn warn;
	void *udata;
	struct qkv_error *err;
};

int lesson_error(const struct lesson *l, struct loc at, const char *path, struct qkv_error *err, const char *fmt,
		 ...)
{
	char msg[ERROR_MSG_MAX];	/* as much as the record holds: a message keeps its end */
	va_list ap;
	va_start(ap, fmt);
	utf8_vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (at.line > 0 && path)
		return error_set(err, at.line, at.col, "%s:%d:%d: %s: %s", l->name, at.line, at.col, path, msg);
	if (at.line > 0)
		return error_set(err, at.line, at.col, "%s:%d:%d: %s", l->name, at.line, at.col, msg);
	return error_set(err, 0, 0, "%s: %s", l->name, msg);
}

static struct loc loc_of(struct loader *ld, const cJSON *node, int key)
{
	struct loc at;
	jsonpos_of(&ld->pos, node, key, &at.line, &at.col);
	return at;
}

static int fail(struct loader *ld, const cJSON *node, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct loader *ld, const cJSON *node, const char *path, const char *fmt, ...)
{
	char msg[ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	utf8_vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return lesson_error(ld->l, loc_of(ld, node, 0), path, ld->err, "%s", msg);
}

/* A warning, whole however long its path or message: "FILE:LINE:COL:
 * PATH: warning: message" to the caller's callback. */
static void warn(struct loader *ld, const cJSON *node, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void warn(struct loader *ld, const cJSON *node, const char *path, const char *fmt, ...)
{
	if (!ld->warn)
		return;
	struct loc at = loc_of(ld, node, 1);
	struct strbuf line;
	strbuf_init(&line);
	strbuf_printf(&line, "%s:%d:%d: %s: warning: ", ld->l->name, at.line, at.col, path);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		char *msg = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
		strbuf_puts(&line, msg);
		free(msg);
	}
	ld->warn(ld->udata, line.s);
	strbuf_free(&line);
}

static const char *type_name(const cJSON *n)
{
	if (cJSON_IsString(n)) return "a string";
	if (cJSON_IsNumber(n)) return "a number";
	if (cJSON_IsArray(n)) return "an array";
	if (cJSON_IsObject(n)) return "an object";
	if (cJSON_IsBool(n)) return "true/false";
	if (cJSON_IsNull(n)) return "null";
	return "something else";
}

static char *path_join(const char *base, const char *key)
{
	struct strbuf sb;
	strbuf_init(&sb);
	if (base && *base)
		strbuf_printf(&sb, "%s.%s", base, key);
	else
		strbuf_puts(&sb, key);
	return strbuf_detach(&sb);
}

static char *path_index(const char *base, int i)
{
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_printf(&sb, "%s[%d]", base, i);
	return strbuf_detach(&sb);
}

/* Warns about members not in allowed (NULL-terminated); fails on a member
 * given twice. */
static int check_members(struct loader *ld, const cJSON *obj, const char *path, const char *const *allowed)
{
	for (const cJSON *c = obj->child; c; c = c->next) {
		for (const cJSON *d = obj->child; d != c; d = d->next) {
			if (strcmp(d->string, c->string) == 0) {
				char *p = path_join(path, c->string);
				lesson_error(ld->l, loc_of(ld, c, 1), p, ld->err, "'%s' is given twice", c->string);
				free(p);
				return -1;
			}
		}
		bool known = false;
		for (int i = 0; allowed[i]; i++)
			known |= strcmp(allowed[i], c->string) == 0;
		if (!known) {
			char *p = path_join(path, c->string);
			warn(ld, c, p, "unknown field '%s' (ignored)", c->string);
			free(p);
		}
	}
	return 0;
}

/* A required (or optional) string member; *out is a copy, or NULL. */
static int get_string(struct loader *ld, const cJSON *obj, const char *key, const char *path, bool required,
		      bool nonempty, char **out, const cJSON **node)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(obj, key);
	*out = NULL;
	if (node)
		*node = n;
	char *p = path_join(path, key);
	int rc = 0;
	if (!n) {
		if (required)
			rc = lesson_error(ld->l, loc_of(ld, obj, 0), path && *path ? path : NULL, ld->err,
					  "missing required field '%s'", key);
	} else if (!cJSON_IsString(n)) {
		rc = fail(ld, n, p, "must be a string, not %s", type_name(n));
	} else if (nonempty && !*n->valuestring) {
		rc = fail(ld, n, p, "must not be empty");
	} else {
		*out = xstrdup(n->valuestring);
	}
	free(p);
	return rc;
}

/* A string, or an array of strings (paragraphs, lines). */
static int get_strings(struct loader *ld, const cJSON *n, const char *path, char ***out, int *count)
{
	*out = NULL;
	*count = 0;
	if (cJSON_IsString(n)) {
		*out = xcalloc(1, sizeof **out);
		(*out)[0] = xstrdup(n->valuestring);
		*count = 1;
		return 0;
	}
	if (!cJSON_IsArray(n))
		return fail(ld, n, path, "must be a string or an array of strings, not %s", type_name(n));
	int total = cJSON_GetArraySize(n), i = 0;
	*out = xcalloc((size_t)total + 1, sizeof **out);
	for (const cJSON *c = n->child; c; c = c->next, i++) {
		if (!cJSON_IsString(c)) {
			char *p = path_index(path, i);
			fail(ld, c, p, "must be a string, not %s", type_name(c));
			free(p);
			return -1;
		}
		(*out)[(*count)++] = xstrdup(c->valuestring);
	}
	return 0;
}

static void free_strings(char **s, int n)
{
	for (int i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

/* Code: a string (lines split at '\n') or an array of strings (one a line). */
static int get_code(struct loader *ld, const cJSON *n, const char *path, char **code, struct code_line **lines,
		    int *nlines)
{
	*code = NULL;
	*lines = NULL;
	*nlines = 0;
	if (!cJSON_IsString(n) && !cJSON_IsArray(n))
		return fail(ld, n, path, "must be a string or an array of strings (one per line), not %s",
			    type_name(n));
	struct strbuf sb;
	strbuf_init(&sb);
	int cap = 0, i = 0;
	const cJSON *first = cJSON_IsString(n) ? n : n->child;
	for (const cJSON *c = first; c; c = cJSON_IsString(n) ? NULL : c->next, i++) {
		if (!cJSON_IsString(c)) {
			char *p = path_index(path, i);
			fail(ld, c, p, "must be a string (one line of code), not %s", type_name(c));
			free(p);
			strbuf_free(&sb);
			return -1;
		}
		size_t off = jsonpos_offset(&ld->pos, c);
		const char *s = c->valuestring;
		size_t start = 0;
		for (;;) {	/* a string may hold several lines */
			const char *nl = strchr(s + start, '\n');
			size_t end = nl ? (size_t)(nl - s) : strlen(s);
			if (*nlines == cap) {
				cap = cap ? 2 * cap : 8;
				*lines = xrealloc(*lines, sizeof **lines * (size_t)cap);
			}
			(*lines)[*nlines] = (struct code_line){ xstrndup(s + start, end - start), off, start };
			if (*nlines)
				strbuf_putc(&sb, '\n');
			strbuf_putn(&sb, s + start, end - start);
			(*nlines)++;
			if (!nl)
				break;
			start = end + 1;
		}
	}
	*code = strbuf_detach(&sb);
	return 0;
}

static void free_lines(struct code_line *lines, int n)
{
	for (int i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

static int get_int(struct loader *ld, const cJSON *n, const char *path, int64_t lo, int64_t hi, int64_t *out)
{
	if (!cJSON_IsNumber(n))
		return fail(ld, n, path, "must be a whole number, not %s", type_name(n));
	double v = n->valuedouble;
	if (v != floor(v) || v < (double)lo || v > (double)hi)
		return fail(ld, n, path, "must be a whole number from %lld to %lld, not %g", (long long)lo,
			    (long long)hi, v);
	*out = (int64_t)v;
	return 0;
}

static int get_labels(struct loader *ld, const cJSON *n, const char *path, char ***out, int *count, struct loc *at)
{
	if (!cJSON_IsArray(n))
		return fail(ld, n, path, "must be an array of labels (strings), not %s", type_name(n));
	*at = loc_of(ld, n, 0);
	return get_strings(ld, n, path, out, count);
}

static int get_slice(struct loader *ld, const cJSON *n, const char *path, struct show *s)
{
	if (!cJSON_IsArray(n) || cJSON_GetArraySize(n) > 2)
		return fail(ld, n, path, "must be an array of at most 2 indices, e.g. [0, 1] for batch 0, head 1");
	s->slice_at = loc_of(ld, n, 0);
	int i = 0;
	for (const cJSON *c = n->child; c; c = c->next, i++) {
		char *p = path_index(path, i);
		int rc = get_int(ld, c, p, 0, INT32_MAX, &s->slice[i]);
		free(p);
		if (rc < 0)
			return -1;
	}
	s->nslice = i;
	return 0;
}

/* A timing entry's "repeat": a whole number of runs, 1 by default. */
static int get_repeat(struct loader *ld, const cJSON *c, const char *path, struct timing_entry *t)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(c, "repeat");
	t->repeat = 1;
	if (!r)
		return 0;
	char *p = path_join(path, "repeat");
	int rc = 0;
	if (!cJSON_IsNumber(r) || r->valuedouble != (double)(int)r->valuedouble || r->valuedouble < 1 ||
	    r->valuedouble > TIMING_MAX_REPEAT)
		rc = fail(ld, r, p, "must be a whole number of runs from 1 to %d", TIMING_MAX_REPEAT);
	else
		t->repeat = (int)r->valuedouble;
	free(p);
	return rc;
}

static int get_timing(struct loader *ld, const cJSON *n, const char *path, struct show *s)
{
	if (!cJSON_IsArray(n) || cJSON_GetArraySize(n) == 0)
		return fail(ld, n, path, "must be a non-empty array of {\"label\": ..., \"code\": ...} objects");
	int total = cJSON_GetArraySize(n), i = 0;
	s->timings = xcalloc((size_t)total, sizeof *s->timings);
	for (const cJSON *c = n->child; c; c = c->next, i++) {
		char *p = path_index(path, i);
		struct timing_entry *t = &s->timings[s->ntimings++];
		int rc = -1;
		const cJSON *code;
		if (!cJSON_IsObject(c)) {
			fail(ld, c, p, "must be an object with \"label\" and \"code\", not %s", type_name(c));
		} else if (check_members(ld, c, p, (const char *const[]){ "label", "code", "repeat", NULL }) == 0 &&
			   get_string(ld, c, "label", p, true, true, &t->label, NULL) == 0 && get_repeat(ld, c, p, t) == 0) {
			code = cJSON_GetObjectItemCaseSensitive(c, "code");
			if (!code) {
				lesson_error(ld->l, loc_of(ld, c, 0), p, ld->err, "missing required field 'code'");
			} else {
				char *cp = path_join(p, "code");
				t->at = loc_of(ld, code, 0);
				rc = get_code(ld, code, cp, &t->code, &t->lines, &t->nlines);
				free(cp);
			}
		}
		free(p);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int get_show(struct loader *ld, const cJSON *n, const char *path, struct show *s)
{
	static const char *const kinds[] = { "heatmap", "compare", "tokens", "timing" };
	s->path = xstrdup(path);
	if (!cJSON_IsObject(n))
		return fail(ld, n, path, "must be an object such as {\"heatmap\": \"W\"}, not %s", type_name(n));
	int found = -1;
	for (int k = 0; k < 4; k++) {
		if (cJSON_GetObjectItemCaseSensitive(n, kinds[k])) {
			if (found >= 0)
				return fail(ld, n, path, "has both '%s' and '%s'; a show is exactly one of heatmap, "
					    "compare, tokens or timing", kinds[found], kinds[k]);
			found = k;
		}
	}
	if (found < 0)
		return fail(ld, n, path, "needs one of the keys heatmap, compare, tokens or timing");
	s->kind = (enum show_kind)found;
	static const char *const allowed[] = { "heatmap", "compare", "tokens", "timing", "title", "rows", "cols",
					       "scale", "slice", "labels", "query", "heads", NULL };
	if (check_members(ld, n, path, allowed) < 0)
		return -1;
	if (get_string(ld, n, "title", path, false, false, &s->title, NULL) < 0)
		return -1;
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(n, kinds[found]);
	char *kp = path_join(path, kinds[found]);
	int rc = 0;
	if (s->kind == SHOW_TIMING) {
		rc = get_timing(ld, kv, kp, s);
	} else if (!cJSON_IsString(kv) || !*kv->valuestring) {
		rc = fail(ld, kv, kp, "must be a name or an expression (a non-empty string), not %s", type_name(kv));
	} else {
		s->expr = xstrdup(kv->valuestring);
		size_t split = interp_local_split(s->expr, strlen(s->expr));
		if (split) {
			const char *name = s->expr + split + 1;
			size_t nl = strlen(name);
			while (nl > 0 && isspace((unsigned char)name[nl - 1]))
				nl--;
			s->local = xstrndup(name, nl);
		}
		s->at = loc_of(ld, kv, 0);
	}
	free(kp);
	if (rc < 0)
		return -1;
	/* the options, each allowed only where it means something */
	static const struct { const char *key; unsigned kinds; } opts[] = {
		{ "rows", (1u << SHOW_HEATMAP) | (1u << SHOW_COMPARE) },
		{ "cols", (1u << SHOW_HEATMAP) | (1u << SHOW_COMPARE) },
		{ "scale", (1u << SHOW_HEATMAP) | (1u << SHOW_COMPARE) },
		{ "slice", (1u << SHOW_HEATMAP) | (1u << SHOW_TOKENS) | (1u << SHOW_COMPARE) },
		{ "labels", 1u << SHOW_TOKENS }, { "query", 1u << SHOW_TOKENS }, { "heads", 1u << SHOW_TOKENS },
	};
	for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(n, opts[k].key);
		if (!o)
			continue;
		char *p = path_join(path, opts[k].key);
		if (!(opts[k].kinds & (1u << s->kind))) {
			warn(ld, o, p, "'%s' means nothing for a %s show (ignored)", opts[k].key, kinds[found]);
		} else if (strcmp(opts[k].key, "rows") == 0) {
			rc = get_labels(ld, o, p, &s->rows, &s->nrows, &s->rows_at);
		} else if (strcmp(opts[k].key, "cols") == 0 || strcmp(opts[k].key, "labels") == 0) {
			rc = get_labels(ld, o, p, &s->cols, &s->ncols, &s->cols_at);
		} else if (strcmp(opts[k].key, "heads") == 0) {
			struct loc hat;
			rc = get_labels(ld, o, p, &s->heads, &s->nheads, &hat);
		} else if (strcmp(opts[k].key, "scale") == 0) {
			if (cJSON_IsString(o) && strcmp(o->valuestring, "diverging") == 0)
				s->scale = SCALE_DIVERGING;
			else if (cJSON_IsString(o) && strcmp(o->valuestring, "weights") == 0)
				s->scale = SCALE_WEIGHTS;
			else if (cJSON_IsString(o) && strcmp(o->valuestring, "auto") == 0)
				s->scale = SCALE_AUTO;
			else
				rc = fail(ld, o, p, "must be \"diverging\", \"weights\" or \"auto\"");
		} else if (strcmp(opts[k].key, "slice") == 0) {
			rc = get_slice(ld, o, p, s);
		} else if (strcmp(opts[k].key, "query") == 0) {
			s->query_at = loc_of(ld, o, 0);
			rc = get_int(ld, o, p, 0, INT32_MAX, &s->query);
		}
		free(p);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Expected values: a number, or nested arrays of numbers (and "inf", "-inf",
 * "nan" strings), rectangular, at most 4 deep. */
static int scan_values(struct loader *ld, const cJSON *n, const char *path, int depth, struct expect *e,
		       size_t *count, bool fill)
{
	if (cJSON_IsArray(n)) {
		if (depth >= 4)
			return fail(ld, n, path, "values are nested more than 4 deep");
		int len = cJSON_GetArraySize(n);
		if (!fill) {
			if (depth == e->ndim) {
				if (*count > 0)
					goto ragged;
				e->shape[depth] = len;
				e->ndim = depth + 1;
			} else if (depth > e->ndim || e->shape[depth] != len) {
				goto ragged;
			}
		}
		for (const cJSON *c = n->child; c; c = c->next)
			if (scan_values(ld, c, path, depth + 1, e, count, fill) < 0)
				return -1;
		return 0;
	}
	double v;
	if (cJSON_IsNumber(n))
		v = n->valuedouble;
	else if (cJSON_IsString(n) && strcmp(n->valuestring, "inf") == 0)
		v = INFINITY;
	else if (cJSON_IsString(n) && strcmp(n->valuestring, "-inf") == 0)
		v = -INFINITY;
	else if (cJSON_IsString(n) && strcmp(n->valuestring, "nan") == 0)
		v = NAN;
	else
		return fail(ld, n, path, "expected values must be numbers (or \"inf\", \"-inf\", \"nan\"), not %s",
			    type_name(n));
	if (!fill && depth != e->ndim)
		goto ragged;
	if (fill)
		e->values[*count] = v;
	(*count)++;
	return 0;
ragged:
	return fail(ld, n, path, "the expected values are ragged: every row must have the same length");
}

/* "tol": a number of at least 0. */
static int get_tol(struct loader *ld, const cJSON *tol, const char *path, double *out)
{
	if (cJSON_IsNumber(tol) && tol->valuedouble >= 0) {
		*out = tol->valuedouble;
		return 0;
	}
	char *p = path_join(path, "tol");
	int rc = fail(ld, tol, p, "must be a number of at least 0");
	free(p);
	return rc;
}

static int get_expect(struct loader *ld, const cJSON *n, const char *path, struct expect *e)
{
	e->path = xstrdup(path);
	e->tol = 1e-4;
	if (!cJSON_IsObject(n))
		return fail(ld, n, path, "must be an object such as {\"tensor\": \"W\", \"text\": ...}, not %s",
			    type_name(n));
	static const char *const allowed[] = { "tensor", "text", "values", "output", "tol", "why", NULL };
	if (check_members(ld, n, path, allowed) < 0)
		return -1;
	const cJSON *out = cJSON_GetObjectItemCaseSensitive(n, "output");
	const cJSON *tensor = cJSON_GetObjectItemCaseSensitive(n, "tensor");
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(n, "text");
	const cJSON *values = cJSON_GetObjectItemCaseSensitive(n, "values");
	const cJSON *tol = cJSON_GetObjectItemCaseSensitive(n, "tol");
	if (get_string(ld, n, "why", path, false, false, &e->why, NULL) < 0)
		return -1;
	if (tol && get_tol(ld, tol, path, &e->tol) < 0)
		return -1;
	if (tol)
		e->text_tol = e->tol;
	const cJSON *textual = NULL;
	if (out) {
		if (tensor || text || values)
			return fail(ld, n, path, "an expect with 'output' checks the printed output alone; "
				    "put 'tensor' checks in an expect of their own");
		e->kind = EXPECT_OUTPUT;
		e->at = loc_of(ld, out, 0);
		textual = out;
	} else {
		if (!tensor)
			return fail(ld, n, path, "needs 'tensor' (with 'text' or 'values') or 'output'");
		char *p = path_join(path, "tensor");
		int rc = 0;
		if (!cJSON_IsString(tensor) || !*tensor->valuestring)
			rc = fail(ld, tensor, p, "must be a name or an expression (a non-empty string)");
		free(p);
		if (rc < 0)
			return -1;
		e->expr = xstrdup(tensor->valuestring);
		e->at = loc_of(ld, tensor, 0);
		if ((text != NULL) == (values != NULL))
			return fail(ld, n, path, "needs exactly one of 'text' and 'values'");
		if (text) {
			e->kind = EXPECT_TEXT;
			textual = text;
		} else {
			e->kind = EXPECT_VALUES;
			char *vp = path_join(path, "values");
			size_t count = 0;
			rc = scan_values(ld, values, vp, 0, e, &count, false);
			if (rc == 0) {
				e->values = xcalloc(count ? count : 1, sizeof *e->values);
				count = 0;
				rc = scan_values(ld, values, vp, 0, e, &count, true);
			}
			free(vp);
			return rc;
		}
	}
	char *p = path_join(path, out ? "output" : "text");
	char **parts;
	int nparts;
	int rc = get_strings(ld, textual, p, &parts, &nparts);
	free(p);
	if (rc < 0) {
		free_strings(parts, nparts);	/* the lines read before the bad one */
		return -1;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = 0; i < nparts; i++) {
		if (i)
			strbuf_putc(&sb, '\n');
		strbuf_puts(&sb, parts[i]);
	}
	free_strings(parts, nparts);
	e->text = strbuf_detach(&sb);
	return 0;
}

/* A member that may be one object or an array of objects. */
static int each_item(const cJSON *n, const cJSON **items, int max)
{
	if (!cJSON_IsArray(n)) {
		items[0] = n;
		return 1;
	}
	int k = 0;
	for (const cJSON *c = n->child; c && k < max; c = c->next)
		items[k++] = c;
	return k;
}

static int get_exercise(struct loader *ld, const cJSON *n, const char *path, struct exercise *x)
{
	x->path = xstrdup(path);
	x->tol = 1e-4;
	if (!cJSON_IsObject(n))
		return fail(ld, n, path, "must be an object with \"ask\", \"answer\" and \"solution\", not %s",
			    type_name(n));
	static const char *const allowed[] = { "ask", "answer", "tol", "hints", "solution", "predict", NULL };
	const cJSON *answer;
	if (check_members(ld, n, path, allowed) < 0 || get_string(ld, n, "ask", path, true, true, &x->ask, NULL) < 0 ||
	    get_string(ld, n, "answer", path, true, true, &x->answer, &answer) < 0)
		return -1;
	x->answer_at = loc_of(ld, answer, 0);
	const cJSON *tol = cJSON_GetObjectItemCaseSensitive(n, "tol");
	if (tol && get_tol(ld, tol, path, &x->tol) < 0)
		return -1;
	const cJSON *predict = cJSON_GetObjectItemCaseSensitive(n, "predict");
	if (predict && !cJSON_IsBool(predict)) {
		char *p = path_join(path, "predict");
		int rc = fail(ld, predict, p, "must be true or false, not %s", type_name(predict));
		free(p);
		return rc;
	}
	x->predict = cJSON_IsTrue(predict);
	const cJSON *hints = cJSON_GetObjectItemCaseSensitive(n, "hints");
	if (hints) {
		char *p = path_join(path, "hints");
		int rc = get_strings(ld, hints, p, &x->hints, &x->nhints);
		free(p);
		if (rc < 0)
			return -1;
	}
	const cJSON *sol = cJSON_GetObjectItemCaseSensitive(n, "solution");
	if (!sol)
		return fail(ld, n, path, "missing required field 'solution' (statements that solve it)");
	char *p = path_join(path, "solution");
	int rc = get_code(ld, sol, p, &x->solution, &x->solution_lines, &x->nsolution);
	free(p);
	return rc;
}

/* A field holding one object or an array of them ("show", "exercise",
 * "expect"): returns the array of its elements (of size bytes each, filled
 * by fn, *count of them, even when one failed: *rc is then -1), or NULL
 * when the field is absent. */
typedef int (*item_fn)(struct loader *ld, const cJSON *n, const char *path, void *out);

static void *get_each(struct loader *ld, const cJSON *parent, const char *path, const char *name, size_t size,
		      item_fn fn, int *count, int *rc)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(parent, name);
	*rc = 0;
	if (!f)
		return NULL;
	int total = cJSON_IsArray(f) ? cJSON_GetArraySize(f) : 1;
	const cJSON **items = xcalloc((size_t)total + 1, sizeof *items);
	int k = each_item(f, items, total);
	char *arr = xcalloc((size_t)k + 1, size);
	char *base = path_join(path, name);
	for (int i = 0; i < k && *rc == 0; i++) {
		char *p = cJSON_IsArray(f) ? path_index(base, i) : xstrdup(base);
		*rc = fn(ld, items[i], p, arr + (size_t)(*count)++ * size);
		free(p);
	}
	free(base);
	free(items);
	return arr;
}

static int get_show_item(struct loader *ld, const cJSON *n, const char *path, void *out)
{
	return get_show(ld, n, path, out);
}

static int get_exercise_item(struct loader *ld, const cJSON *n, const char *path, void *out)
{
	return get_exercise(ld, n, path, out);
}

static int get_expect_item(struct loader *ld, const cJSON *n, const char *path, void *out)
{
	return get_expect(ld, n, path, out);
}

static int get_step(struct loader *ld, const cJSON *n, int index, struct step *st)
{
	st->path = path_index("steps", index);
	const char *path = st->path;
	if (!cJSON_IsObject(n))
		return fail(ld, n, path, "each step must be an object, not %s", type_name(n));
	st->at = loc_of(ld, n, 0);
	static const char *const allowed[] = { "title", "text", "code", "show", "expect", "note", "exercise", NULL };
	if (check_members(ld, n, path, allowed) < 0 || get_string(ld, n, "title", path, true, true, &st->title, NULL) < 0)
		return -1;
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(n, "text");
	if (!text)
		return fail(ld, n, path, "missing required field 'text' (the narration)");
	char *p = path_join(path, "text");
	int rc = get_strings(ld, text, p, &st->text, &st->ntext);
	free(p);
	if (rc < 0)
		return -1;
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(n, "code");
	if (code) {
		p = path_join(path, "code");
		rc = get_code(ld, code, p, &st->code, &st->lines, &st->nlines);
		free(p);
		if (rc < 0)
			return -1;
	} else {
		st->code = xstrdup("");
	}
	const cJSON *note = cJSON_GetObjectItemCaseSensitive(n, "note");
	if (note) {
		p = path_join(path, "note");
		rc = get_strings(ld, note, p, &st->note, &st->nnote);
		free(p);
		if (rc < 0)
			return -1;
	}
	st->shows = get_each(ld, n, path, "show", sizeof *st->shows, get_show_item, &st->nshows, &rc);
	if (rc < 0)
		return -1;
	st->exercises = get_each(ld, n, path, "exercise", sizeof *st->exercises, get_exercise_item, &st->nexercises, &rc);
	if (rc < 0)
		return -1;
	st->expects = get_each(ld, n, path, "expect", sizeof *st->expects, get_expect_item, &st->nexpects, &rc);
	if (rc < 0)
		return -1;
	return 0;
}

/* Every number in the file must be finite (1e999 parses as infinity). */
static int check_numbers(struct loader *ld, const cJSON *n)
{
	for (; n; n = n->next) {
		if (cJSON_IsNumber(n) && !isfinite(n->valuedouble))
			return fail(ld, n, n->string ? n->string : "a number", "the number is out of range (too "
				    "large for a double)");
		if (n->child && check_numbers(ld, n->child) < 0)
			return -1;
	}
	return 0;
}

static int parse_root(struct loader *ld, const cJSON *root)
{
	struct lesson *l = ld->l;
	if (!cJSON_IsObject(root))
		return fail(ld, root, "lesson", "the file must hold one JSON object (a lesson), not %s", type_name(root));
	static const char *const allowed[] = { "format", "id", "title", "source", "source_title", "summary", "steps",
					       "timeout", NULL };
	if (check_members(ld, root, "", allowed) < 0 || check_numbers(ld, root->child) < 0)
		return -1;
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	l->format = LESSON_FORMAT;
	if (fmt) {
		int64_t v;
		if (get_int(ld, fmt, "format", 1, 1000000, &v) < 0)
			return -1;
		l->format = (int)v;
		if (v > LESSON_FORMAT)
			warn(ld, fmt, "format", "written for lesson format %lld; this qkv reads format %d, newer "
			     "fields are ignored", (long long)v, LESSON_FORMAT);
	}
	const cJSON *tmo = cJSON_GetObjectItemCaseSensitive(root, "timeout");
	l->timeout = LESSON_DEFAULT_TIMEOUT;
	if (tmo) {
		int64_t v;
		if (get_int(ld, tmo, "timeout", 1, LESSON_MAX_TIMEOUT, &v) < 0)
			return -1;
		l->timeout = (int)v;
	}
	const cJSON *idn;
	if (get_string(ld, root, "id", "", true, true, &l->id, &idn) < 0)
		return -1;
	for (const char *c = l->id; *c; c++)
		if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '-'))
			return fail(ld, idn, "id", "'%s' may hold only lowercase letters, digits and '-'", l->id);
	if (get_string(ld, root, "title", "", true, true, &l->title, NULL) < 0 ||
	    get_string(ld, root, "source", "", true, true, &l->source, NULL) < 0 ||
	    get_string(ld, root, "source_title", "", false, true, &l->source_title, NULL) < 0 ||
	    get_string(ld, root, "summary", "", true, true, &l->summary, NULL) < 0)
		return -1;
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(root, "steps");
	if (!steps)
		return lesson_error(l, loc_of(ld, root, 0), NULL, ld->err, "missing required field 'steps'");
	if (!cJSON_IsArray(steps))
		return fail(ld, steps, "steps", "must be an array of steps, not %s", type_name(steps));
	int total = cJSON_GetArraySize(steps);
	if (total == 0)
		return fail(ld, steps, "steps", "a lesson needs at least one step");
	l->steps = xcalloc((size_t)total, sizeof *l->steps);
	int i = 0;
	for (const cJSON *c = steps->child; c; c = c->next, i++) {
		l->nsteps++;
		if (get_step(ld, c, i, &l->steps[i]) < 0)
			return -1;
	}
	return 0;
}

/* Sets err to the message for the first fault jsonpos_check found; returns -1. */
static int json_error(const struct lesson *l, const struct jsonpos_fault *f, struct qkv_error *err)
{
	const char *t = l->source_text;
	size_t len = l->source_len;
	struct loc at, open = { 0, 0 };
	jsonpos_linecol(t, len, f->at, &at.line, &at.col);
	if (f->open != (size_t)-1)
		jsonpos_linecol(t, len, f->open, &open.line, &open.col);
	char c = f->at < len ? t[f->at] : 0;
	char shown[16];	/* the character at f->at, as the messages show it */
	if (isprint((unsigned char)c))
		snprintf(shown, sizeof shown, "'%c'", c);
	else
		snprintf(shown, sizeof shown, "byte 0x%02x", (unsigned char)c);
	/* the bad number or \u escape at f->at, as the message quotes it */
	char token[24];
	bool esc = f->kind == JSONPOS_BAD_U_ESCAPE;
	size_t n = 0, most = esc ? 6 : sizeof token - 1;
	while (n < most && f->at + n < len) {
		char ch = t[f->at + n];
		if (n >= (esc ? 2u : 1u) && !isalnum((unsigned char)ch) && !(f->kind == JSONPOS_BAD_NUMBER && strchr(".+-", ch)))
			break;
		token[n++] = ch;
	}
	token[n] = 0;
	switch (f->kind) {
	case JSONPOS_OK:
		break;
	case JSONPOS_EMPTY:
		return lesson_error(l, (struct loc){ 1, 1 }, NULL, err, "the file is empty; a lesson is a JSON object");
	case JSONPOS_ENDS_INSIDE:
		return lesson_error(l, at, NULL, err, "malformed JSON: the file ends inside the %s opened at %d:%d",
				    t[f->open] == '"' ? "string" : t[f->open] == '{' ? "object" : "array", open.line,
				    open.col);
	case JSONPOS_ENDS_EARLY:
		return lesson_error(l, at, NULL, err, "malformed JSON: the file ends before the lesson does");
	case JSONPOS_UNEXPECTED:
		return lesson_error(l, at, NULL, err, "malformed JSON: unexpected %s", shown);
	case JSONPOS_MISSING_COMMA:
		return lesson_error(l, at, NULL, err, "malformed JSON: a ',' is missing before this");
	case JSONPOS_MISSING_COLON:
		return lesson_error(l, at, NULL, err, "malformed JSON: a ':' is missing before this");
	case JSONPOS_TRAILING_COMMA:
		return lesson_error(l, at, NULL, err, "malformed JSON: a ',' after the last %s; JSON allows none there",
				    t[f->open] == '}' ? "member of an object" : "element of an array");
	case JSONPOS_NAME_NOT_STRING:
		return lesson_error(l, at, NULL, err, "malformed JSON: a member name must be a string in double quotes");
	case JSONPOS_BAD_NUMBER:
		return lesson_error(l, at, NULL, err, "malformed JSON: %s is not a number in JSON: %s", token, f->word);
	case JSONPOS_NONFINITE:
		return lesson_error(l, at, NULL, err, "malformed JSON: %s is not a number in JSON; "
				    "lessons hold finite numbers only", f->word);
	case JSONPOS_BAD_ESCAPE:
		if (isprint((unsigned char)t[f->at + 1]))
			return lesson_error(l, at, NULL, err, "malformed JSON: invalid escape \\%c in a string; the "
					    "escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX", t[f->at + 1]);
		return lesson_error(l, at, NULL, err, "malformed JSON: invalid escape in a string: a backslash "
				    "before byte 0x%02x", (unsigned char)t[f->at + 1]);
	case JSONPOS_BAD_U_ESCAPE:
		return lesson_error(l, at, NULL, err, "malformed JSON: invalid \\u escape %s: \\u takes four hex "
				    "digits", token);
	case JSONPOS_NUL_ESCAPE:
		return lesson_error(l, at, NULL, err, "a string holds \\u0000 (NUL), which lessons cannot hold");
	case JSONPOS_LONE_LOW:
		return lesson_error(l, at, NULL, err, "malformed JSON: lone surrogate \\u%04x: a low surrogate "
				    "\\udc00-\\udfff must follow a high one \\ud800-\\udbff", f->unit);
	case JSONPOS_LONE_HIGH:
		return lesson_error(l, at, NULL, err, "malformed JSON: lone surrogate \\u%04x: a high surrogate "
				    "\\ud800-\\udbff must be followed by a low one \\udc00-\\udfff", f->unit);
	case JSONPOS_CONTROL:
		if (c == '\n' || c == '\r')
			return lesson_error(l, at, NULL, err, "malformed JSON: the string opened at %d:%d runs past "
					    "the end of its line; close it with '\"', or write a line break in it "
					    "as \\n", open.line, open.col);
		if (c == '\t')
			return lesson_error(l, at, NULL, err, "malformed JSON: a tab inside a string; write it as \\t");
		return lesson_error(l, at, NULL, err, "malformed JSON: control character 0x%02x inside a string; "
				    "write it as \\u%04x", (unsigned char)c, (unsigned char)c);
	case JSONPOS_TOO_DEEP:
		return lesson_error(l, at, NULL, err, "arrays and objects nested more than %d deep; a lesson may "
				    "nest them at most %d deep", CJSON_NESTING_LIMIT, CJSON_NESTING_LIMIT);
	case JSONPOS_AFTER:
		return lesson_error(l, at, NULL, err, "malformed JSON: text after the end of the lesson");
	}
	return lesson_error(l, at, NULL, err, "malformed JSON");
}

struct lesson *lesson_parse(const char *name, const char *text, size_t len, lesson_warn_fn warnfn, void *udata,
			    struct qkv_error *err)
{
	struct lesson *l = xcalloc(1, sizeof *l);
	l->name = xstrdup(name);
	l->source_text = xmalloc(len + 1);
	memcpy(l->source_text, text, len);
	l->source_text[len] = 0;
	l->source_len = len;
	struct loader ld = { .l = l, .warn = warnfn, .udata = udata, .err = err };
	error_clear(err);
	if (len > LESSON_MAX_BYTES) {
		lesson_error(l, (struct loc){ 0, 0 }, NULL, err, "the file is %zu bytes; a lesson may have at most %u",
			     len, LESSON_MAX_BYTES);
		goto fail;
	}
	long bad = file_bad_text(text, len);
	if (bad >= 0) {
		struct loc at;
		jsonpos_linecol(text, len, (size_t)bad, &at.line, &at.col);
		if (text[bad])
			lesson_error(l, at, NULL, err, "the file is not valid UTF-8 (byte 0x%02x)",
				     (unsigned char)text[bad]);
		else
			lesson_error(l, at, NULL, err, "the file holds a NUL byte");
		goto fail;
	}
	/* the strict check first: cJSON takes in some wrong texts silently */
	size_t skip = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	struct jsonpos_fault f;
	if (jsonpos_check(l->source_text, len, skip, CJSON_NESTING_LIMIT, &f) < 0) {
		json_error(l, &f, err);
		goto fail;
	}
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(l->source_text + skip, len - skip, &end, false);
	if (!root) {	/* checked, so only out of memory */
		struct loc at;
		jsonpos_linecol(l->source_text, len, end ? (size_t)(end - l->source_text) : 0, &at.line, &at.col);
		lesson_error(l, at, NULL, err, "cJSON could not parse the lesson here (out of memory?)");
		goto fail;
	}
	jsonpos_build(&ld.pos, l->source_text, len, root);
	int rc = parse_root(&ld, root);
	jsonpos_free(&ld.pos);
	cJSON_Delete(root);
	if (rc == 0)
		return l;
fail:
	lesson_free(l);
	return NULL;
}

char *lesson_read_text(const char *path, const char *what, size_t *len, struct qkv_error *err)
{
	struct qkv_error why;
	char *buf = file_read_all(path, LESSON_MAX_BYTES, len, &why);
	if (buf)
		return buf;
	struct stat st;
	if (errno == EISDIR)
		error_set(err, 0, 0, "%s: is a directory, not %s", path, what);
	else if (errno == EFBIG && stat(path, &st) == 0 && (unsigned long long)st.st_size > LESSON_MAX_BYTES)
		error_set(err, 0, 0, "%s: the file is %lld bytes; %s may have at most %u", path,
			  (long long)st.st_size, what, LESSON_MAX_BYTES);
	else if (errno == EFBIG)
		error_set(err, 0, 0, "%s: the file grew past %u bytes while it was read", path, LESSON_MAX_BYTES);
	else if (errno == EINVAL)
		error_set(err, 0, 0, "%s: is not a regular file", path);
	else
		error_set(err, 0, 0, "%s: %s", path, why.msg);
	return NULL;
}

struct lesson *lesson_load_file(const char *path, lesson_warn_fn warnfn, void *udata, struct qkv_error *err)
{
	error_clear(err);
	size_t len;
	char *buf = lesson_read_text(path, "a lesson file", &len, err);
	if (!buf)
		return NULL;
	struct lesson *l = lesson_parse(path, buf, len, warnfn, udata, err);
	free(buf);
	return l;
}

static void free_show(struct show *s)
{
	free(s->expr);
	free(s->local);
	free(s->path);
	free(s->title);
	free_strings(s->rows, s->nrows);
	free_strings(s->cols, s->ncols);
	free_strings(s->heads, s->nheads);
	for (int i = 0; i < s->ntimings; i++) {
		free(s->timings[i].label);
		free(s->timings[i].code);
		free_lines(s->timings[i].lines, s->timings[i].nlines);
	}
	free(s->timings);
}

void lesson_free(struct lesson *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nsteps; i++) {
		struct step *st = &l->steps[i];
		free(st->title);
		free(st->path);
		free_strings(st->text, st->ntext);
		free(st->code);
		free_lines(st->lines, st->nlines);
		for (int k = 0; k < st->nshows; k++)
			free_show(&st->shows[k]);
		free(st->shows);
		for (int k = 0; k < st->nexpects; k++) {
			struct expect *e = &st->expects[k];
			free(e->expr);
			free(e->path);
			free(e->text);
			free(e->values);
			free(e->why);
		}
		free(st->expects);
		free_strings(st->note, st->nnote);
		for (int k = 0; k < st->nexercises; k++) {
			struct exercise *x = &st->exercises[k];
			free(x->ask);
			free(x->answer);
			free_strings(x->hints, x->nhints);
			free(x->solution);
			free_lines(x->solution_lines, x->nsolution);
			free(x->path);
		}
		free(st->exercises);
	}
	free(l->steps);
	free(l->name);
	free(l->source_text);
	free(l->id);
	free(l->title);
	free(l->source);
	free(l->source_title);
	free(l->summary);
	free(l);
}

struct loc lesson_code_loc(const struct lesson *l, const struct code_line *lines, int nlines, int k, int col)
{
	struct loc at = { 0, 0 };
	if (k < 0 || k >= nlines)
		return at;
	/* the column counts characters: find the byte of character col */
	const char *s = lines[k].text;
	size_t byte = 0, len = strlen(s);
	for (int c = 1; c < col && byte < len; c++) {
		uint32_t cp;
		byte += (size_t)utf8_decode(s + byte, len - byte, &cp);
	}
	jsonpos_string_linecol(l->source_text, l->source_len, lines[k].str_off, lines[k].in_str + byte, &at.line,
			       &at.col);
	return at;
}
