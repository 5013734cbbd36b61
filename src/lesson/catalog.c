/* catalog.c: the list of known lessons (see catalog.h).
 * Reads the built-in table and $QKV_LESSONS; a bad lesson file never stops
 * the others from loading. Never prints. */
#include "lesson/catalog.h"
#include "core/mem.h"
#include "core/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void add(struct catalog *c, const char *origin, struct lesson *l, const char *error)
{
	c->entries = xrealloc(c->entries, sizeof *c->entries * (size_t)(c->n + 1));
	c->entries[c->n++] = (struct catalog_entry){ xstrdup(origin), l, error ? xstrdup(error) : NULL };
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json names in dir (no hidden files), sorted; NULL and -1 when dir
 * cannot be read. */
static char **dir_lessons(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	*n = -1;
	if (!d)
		return NULL;
	char **names = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
			continue;
		if (count == cap) {
			cap = cap ? 2 * cap : 64;
			names = xrealloc(names, sizeof *names * cap);
		}
		names[count++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (count > 1)
		qsort(names, count, sizeof *names, by_name);
	*n = count > INT_MAX ? INT_MAX : (int)count;
	return names;
}

/* The entry holding a lesson with id, or -1. */
static int find_id(const struct catalog *c, const char *id)
{
	for (int k = 0; k < c->n; k++)
		if (c->entries[k].lesson && strcmp(c->entries[k].lesson->id, id) == 0)
			return k;
	return -1;
}

/* Adds the lesson of path (or its error). A lesson with the id of a
 * built-in one replaces it in place; one with the id of a lesson loaded
 * from the directory before it is refused, naming both files. */
static void add_file(struct catalog *c, const char *path, lesson_warn_fn warn, void *udata)
{
	struct qkv_error err;
	struct lesson *l = lesson_load_file(path, warn, udata, &err);
	int same = l ? find_id(c, l->id) : -1;
	if (same < 0) {
		add(c, path, l, l ? NULL : err.msg);
		return;
	}
	struct catalog_entry *ce = &c->entries[same];
	if (strncmp(ce->origin, "built-in:", 9) != 0) {
		struct strbuf msg;
		strbuf_init(&msg);
		strbuf_printf(&msg, "%s: the id '%s' is already the id of %s; this file is not loaded", path, l->id,
			      ce->origin);
		lesson_free(l);
		add(c, path, NULL, msg.s);
		strbuf_free(&msg);
		return;
	}
	lesson_free(ce->lesson);
	free(ce->origin);
	ce->origin = xstrdup(path);
	ce->lesson = l;
}

/* QKV_LESSONS=DIR: its lessons, in file name order; a note (whole, however
 * long DIR is) when it cannot be read or holds too many. */
static void load_dir(struct catalog *c, const char *dir, lesson_warn_fn warn, void *udata)
{
	struct strbuf msg;
	strbuf_init(&msg);
	int n;
	char **names = dir_lessons(dir, &n);
	if (n < 0) {
		strbuf_printf(&msg, "QKV_LESSONS=%s: cannot read the directory: %s", dir, strerror(errno));
		c->note = strbuf_detach(&msg);
	} else if (n > CATALOG_MAX_LESSONS) {
		strbuf_printf(&msg,
			      "QKV_LESSONS=%s: %d lessons, more than %d: the first %d by file name are loaded, "
			      "the %d from %s on are skipped",
			      dir, n, CATALOG_MAX_LESSONS, CATALOG_MAX_LESSONS, n - CATALOG_MAX_LESSONS,
			      names[CATALOG_MAX_LESSONS]);
		c->note = strbuf_detach(&msg);
	}
	if (c->note && warn)
		warn(udata, c->note);
	for (int i = 0; i < n; i++) {
		if (i < CATALOG_MAX_LESSONS) {
			strbuf_reset(&msg);
			strbuf_printf(&msg, "%s/%s", dir, names[i]);
			add_file(c, msg.s, warn, udata);
		}
		free(names[i]);
	}
	free(names);
	strbuf_free(&msg);
}

void catalog_load(struct catalog *c, lesson_warn_fn warn, void *udata)
{
	memset(c, 0, sizeof *c);
	struct strbuf origin;
	strbuf_init(&origin);
	for (const struct builtin_lesson *b = builtin_lessons; b->name; b++) {
		strbuf_reset(&origin);
		strbuf_printf(&origin, "built-in:%s", b->name);
		struct qkv_error err;
		struct lesson *l = lesson_parse(origin.s, b->text, b->len, warn, udata, &err);
		add(c, origin.s, l, l ? NULL : err.msg);
	}
	strbuf_free(&origin);
	const char *dir = getenv("QKV_LESSONS");
	if (dir && *dir)
		load_dir(c, dir, warn, udata);
}

void catalog_free(struct catalog *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->entries[i].origin);
		lesson_free(c->entries[i].lesson);
		free(c->entries[i].error);
	}
	free(c->entries);
	free(c->note);
	memset(c, 0, sizeof *c);
}

/* A fresh copy of entry i's lesson (the caller owns it). */
static struct lesson *reload(const struct catalog_entry *e, lesson_warn_fn warn, void *udata, struct qkv_error *err)
{
	if (!e->lesson) {
		error_set(err, 0, 0, "%s", e->error);
		return NULL;
	}
	return lesson_parse(e->lesson->name, e->lesson->source_text, e->lesson->source_len, warn, udata, err);
}

struct lesson *catalog_resolve(const struct catalog *c, const char *arg, lesson_warn_fn warn, void *udata,
			       struct qkv_error *err)
{
	struct stat st;
	bool looks_like_path = strchr(arg, '/') || (strlen(arg) > 5 && strcmp(arg + strlen(arg) - 5, ".json") == 0);
	if (looks_like_path || stat(arg, &st) == 0)
		return lesson_load_file(arg, warn, udata, err);
	bool digits = *arg != 0;
	for (const char *p = arg; *p; p++)
		digits &= isdigit((unsigned char)*p) != 0;
	if (digits) {
		long k = strtol(arg, NULL, 10);
		if (k >= 1 && k <= c->n)
			return reload(&c->entries[k - 1], warn, udata, err);
		error_set(err, 0, 0, "there is no lesson %s: qkv list shows lessons 1 to %d", arg, c->n);
		return NULL;
	}
	for (int i = 0; i < c->n; i++)
		if (c->entries[i].lesson && strcmp(c->entries[i].lesson->id, arg) == 0)
			return reload(&c->entries[i], warn, udata, err);
	error_set(err, 0, 0, "no lesson named '%s' (not a file, a number or an id; qkv list shows them)", arg);
	return NULL;
}
