/* catalog.c: the list of known lessons (see catalog.h).
 * Reads the built-in table and $QKV_LESSONS; a bad lesson file never stops
 * the others from loading. Never prints. */
#include "lesson/catalog.h"
#include "core/mem.h"

#include <ctype.h>
#include <dirent.h>
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

static void load_dir(struct catalog *c, const char *dir, lesson_warn_fn warn, void *udata)
{
	DIR *d = opendir(dir);
	char msg[512];
	if (!d) {
		if (warn) {
			snprintf(msg, sizeof msg, "QKV_LESSONS=%s: cannot read the directory", dir);
			warn(udata, msg);
		}
		return;
	}
	char **names = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
			continue;
		if (n == CATALOG_MAX_LESSONS) {
			if (warn) {
				snprintf(msg, sizeof msg, "QKV_LESSONS=%s: more than %d lessons; the rest are ignored",
					 dir, CATALOG_MAX_LESSONS);
				warn(udata, msg);
			}
			break;
		}
		names = xrealloc(names, sizeof *names * (size_t)(n + 1));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, by_name);
	for (int i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct qkv_error err;
		struct lesson *l = lesson_load_file(path, warn, udata, &err);
		free(names[i]);
		/* a lesson with the id of a built-in one replaces it in place */
		int same = -1;
		for (int k = 0; l && k < c->n; k++)
			if (c->entries[k].lesson && strcmp(c->entries[k].lesson->id, l->id) == 0)
				same = k;
		if (same >= 0) {
			struct catalog_entry *ce = &c->entries[same];
			lesson_free(ce->lesson);
			free(ce->origin);
			ce->origin = xstrdup(path);
			ce->lesson = l;
		} else {
			add(c, path, l, l ? NULL : err.msg);
		}
	}
	free(names);
}

void catalog_load(struct catalog *c, lesson_warn_fn warn, void *udata)
{
	memset(c, 0, sizeof *c);
	for (const struct builtin_lesson *b = builtin_lessons; b->name; b++) {
		char origin[256];
		snprintf(origin, sizeof origin, "built-in:%s", b->name);
		struct qkv_error err;
		struct lesson *l = lesson_parse(origin, b->text, b->len, warn, udata, &err);
		add(c, origin, l, l ? NULL : err.msg);
	}
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
