/* progress.c: the lesson progress file (see progress.h).
 * Called by the full-screen program; reads and writes one small JSON file,
 * never prints, and never loses a file it cannot parse (it is renamed to
 * NAME.bad first). */
#include "lesson/progress.h"
#include "core/mem.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int progress_make_dirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0700) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	}
	return mkdir(buf, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

char *progress_state_dir(void)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char buf[4096];
	if (xdg && *xdg == '/')
		snprintf(buf, sizeof buf, "%s/qkv", xdg);
	else if (home && *home)
		snprintf(buf, sizeof buf, "%s/.local/state/qkv", home);
	else
		return NULL;
	return xstrdup(buf);
}

void progress_load(struct progress *p)
{
	memset(p, 0, sizeof *p);
	char *dir = progress_state_dir();
	if (!dir)
		return;
	size_t n = strlen(dir) + 16;
	p->path = xmalloc(n);
	snprintf(p->path, n, "%s/progress.json", dir);
	free(dir);
	FILE *f = fopen(p->path, "rb");
	if (!f)
		return;	/* no progress yet */
	char buf[65536];
	size_t len = fread(buf, 1, sizeof buf - 1, f);
	bool too_big = !feof(f);
	fclose(f);
	buf[len] = 0;
	cJSON *root = too_big ? NULL : cJSON_ParseWithLength(buf, len);
	const cJSON *lessons = root ? cJSON_GetObjectItemCaseSensitive(root, "lessons") : NULL;
	if (!cJSON_IsObject(lessons)) {
		char bad[4200];
		snprintf(bad, sizeof bad, "%s.bad", p->path);
		rename(p->path, bad);
		snprintf(p->problem, sizeof p->problem, "%s could not be read; it was kept as progress.json.bad",
			 p->path);
		cJSON_Delete(root);
		return;
	}
	for (const cJSON *c = lessons->child; c; c = c->next) {
		const cJSON *fur = cJSON_GetObjectItemCaseSensitive(c, "furthest");
		const cJSON *steps = cJSON_GetObjectItemCaseSensitive(c, "steps");
		if (!c->string || !cJSON_IsNumber(fur))
			continue;
		progress_mark(p, c->string, (int)fur->valuedouble, cJSON_IsNumber(steps) ? (int)steps->valuedouble : 0);
	}
	cJSON_Delete(root);
}

void progress_free(struct progress *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->entries[i].id);
	free(p->entries);
	free(p->path);
	memset(p, 0, sizeof *p);
}

const struct progress_entry *progress_get(const struct progress *p, const char *id)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->entries[i].id, id) == 0)
			return &p->entries[i];
	return NULL;
}

void progress_mark(struct progress *p, const char *id, int step, int steps)
{
	for (int i = 0; i < p->n; i++) {
		if (strcmp(p->entries[i].id, id) == 0) {
			if (step > p->entries[i].furthest)
				p->entries[i].furthest = step;
			if (steps)
				p->entries[i].steps = steps;
			return;
		}
	}
	p->entries = xrealloc(p->entries, sizeof *p->entries * (size_t)(p->n + 1));
	p->entries[p->n++] = (struct progress_entry){ xstrdup(id), step, steps };
}

int progress_save(struct progress *p)
{
	if (!p->path)
		return 0;
	char *dir = xstrdup(p->path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	int rc = progress_make_dirs(dir);
	free(dir);
	if (rc < 0) {
		snprintf(p->problem, sizeof p->problem, "cannot create the state directory for %s: %s", p->path,
			 strerror(errno));
		return -1;
	}
	cJSON *root = cJSON_CreateObject(), *lessons = cJSON_AddObjectToObject(root, "lessons");
	for (int i = 0; i < p->n; i++) {
		cJSON *e = cJSON_AddObjectToObject(lessons, p->entries[i].id);
		cJSON_AddNumberToObject(e, "furthest", p->entries[i].furthest);
		cJSON_AddNumberToObject(e, "steps", p->entries[i].steps);
	}
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", p->path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
	ok = f && fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
	if (f && fclose(f) != 0)
		ok = false;
	free(text);
	if (!ok || rename(tmp, p->path) != 0) {
		snprintf(p->problem, sizeof p->problem, "cannot write %s: %s", p->path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
