/* progress.c: the state files qkv keeps between runs (see progress.h): the
 * lesson progress (progress.json) and the prompt's history. Called by the
 * full-screen program; writes through core/file.c atomically, never prints,
 * and never writes over a file it could not read (it is set aside first). */
#include "lesson/progress.h"
#include "lesson/jsonpos.h"
#include "core/file.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "core/utf8.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int progress_make_dirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != 0)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(buf, 0700) != 0) {
			struct stat st;
			if (errno != EEXIST)
				return -1;
			if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
				errno = ENOTDIR;
				return -1;
			}
		}
		*p = c;
		if (!c)
			return 0;
	}
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

/* ---- shared by both files ---------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Sets the damaged file path aside and says so in problem, in one line,
 * what matters first (a status line may cut the end): "NAME was unreadable,
 * kept as NAME.bad; starting afresh (WHY)". Returns 0, or -1 when it could
 * not be moved (the caller must then never write path). */
static int keep_bad(const char *path, const char *what, const char *why, const char *then, char *problem,
		    size_t size)
{
	char *kept = file_set_aside(path);
	if (!kept) {
		snprintf(problem, size, "%s %s and could not be set aside (%s): qkv leaves it as it is and does not "
			 "save it (%s)", base_name(path), what, strerror(errno), why);
		return -1;
	}
	snprintf(problem, size, "%s %s, kept as %s; %s (%s)", base_name(path), what, base_name(kept), then, why);
	free(kept);
	return 0;
}

/* A failed save in one line: "NAME not saved: REASON", from file_write_atomic's
 * "cannot save PATH: REASON". */
static void save_problem(const char *path, const char *msg, char *problem, size_t size)
{
	size_t pl = strlen(path);
	if (strncmp(msg, "cannot save ", 12) == 0 && strncmp(msg + 12, path, pl) == 0 && msg[12 + pl] == ':')
		msg += 12 + pl + 2;
	snprintf(problem, size, "%s not saved: %s", base_name(path), msg);
}

/* Where a text fails: "line 3, column 7: a NUL byte"; true when it does. */
static bool bad_text(const char *text, size_t len, char *why, size_t size)
{
	long bad = file_bad_text(text, len);
	if (bad < 0)
		return false;
	int line, col;
	jsonpos_linecol(text, len, (size_t)bad, &line, &col);
	if (text[bad])
		snprintf(why, size, "line %d, column %d: not UTF-8 text (byte 0x%02x)", line, col,
			 (unsigned char)text[bad]);
	else
		snprintf(why, size, "line %d, column %d: a NUL byte", line, col);
	return true;
}

/* Creates the directory holding path; 0, or -1 with problem set. */
static int make_parent(const char *path, char *problem, size_t size)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = 0;
		rc = progress_make_dirs(dir);
		if (rc != 0)
			snprintf(problem, size, "%s not saved: cannot make the directory %s (%s)", base_name(path),
				 dir, strerror(errno));
	}
	free(dir);
	return rc;
}

/* ---- progress.json ------------------------------------------------------------ */

static struct progress_entry *find(const struct progress *p, const char *id)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->entries[i].id, id) == 0)
			return &p->entries[i];
	return NULL;
}

static bool whole_number(const cJSON *n)
{
	return cJSON_IsNumber(n) && isfinite(n->valuedouble) && n->valuedouble >= 0 &&
	       n->valuedouble <= PROGRESS_MAX_STEP && n->valuedouble == floor(n->valuedouble);
}

/* Reads the lessons of a parsed progress file. Returns 0 when all is well,
 * 1 when some entries were wrong (the others are loaded), 2 when the file is
 * not of the right shape at all (nothing loaded); why says where. */
static int read_lessons(struct progress *p, const char *text, size_t len, const cJSON *root, char *why,
			size_t size)
{
	struct jsonpos pos;
	jsonpos_build(&pos, text, len, root);
	int line, col, rc = 0, nbad = 0;
	const cJSON *lessons = cJSON_GetObjectItemCaseSensitive(root, "lessons");
	if (!cJSON_IsObject(root)) {
		jsonpos_of(&pos, root, 0, &line, &col);
		snprintf(why, size, "line %d: not a JSON object", line);
		rc = 2;
	} else if (!lessons) {
		snprintf(why, size, "no \"lessons\" in it");
		rc = 2;
	} else if (!cJSON_IsObject(lessons)) {
		jsonpos_of(&pos, lessons, 0, &line, &col);
		snprintf(why, size, "line %d: \"lessons\" is not an object", line);
		rc = 2;
	} else {
		for (const cJSON *c = lessons->child; c; c = c->next) {
			const cJSON *fur = cJSON_GetObjectItemCaseSensitive(c, "furthest");
			const cJSON *steps = cJSON_GetObjectItemCaseSensitive(c, "steps");
			const cJSON *last = cJSON_GetObjectItemCaseSensitive(c, "last");
			const char *wrong = !cJSON_IsObject(c) ? "is not an object" :
					    !whole_number(fur) ? "has no whole number \"furthest\"" :
					    steps && !whole_number(steps) ? "has a \"steps\" that is not a whole number" :
					    last && !whole_number(last) ? "has a \"last\" that is not a whole number" :
					    NULL;
			if (!wrong) {
				progress_mark(p, c->string, (int)fur->valuedouble, steps ? (int)steps->valuedouble : 0);
				if (last)
					find(p, c->string)->last = (int)last->valuedouble;
				continue;
			}
			if (nbad++ == 0) {
				jsonpos_of(&pos, c, 1, &line, &col);
				snprintf(why, size, "line %d: \"%.80s\" %s", line, c->string, wrong);
			}
		}
		const cJSON *ll = cJSON_GetObjectItemCaseSensitive(root, "last_lesson");
		if (cJSON_IsString(ll)) {
			free(p->last_lesson);
			p->last_lesson = xstrdup(ll->valuestring);
		} else if (ll && nbad++ == 0) {
			jsonpos_of(&pos, ll, 1, &line, &col);
			snprintf(why, size, "line %d: \"last_lesson\" is not a string", line);
		}
		if (nbad > 1) {
			size_t l = strlen(why);
			snprintf(why + l, size - l, ", and %d more", nbad - 1);
		}
		rc = nbad ? 1 : 0;
	}
	jsonpos_free(&pos);
	return rc;
}

/* Parses text into p: 0 all read, 1 partly, 2 not at all (why says why). */
static int parse_progress(struct progress *p, const char *text, size_t len, char *why, size_t size)
{
	if (bad_text(text, len, why, size))
		return 2;
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
	size_t off = end ? (size_t)(end - text) : len;
	int line, col;
	if (!root) {
		jsonpos_linecol(text, len, off, &line, &col);
		snprintf(why, size, "line %d, column %d: not valid JSON", line, col);
		return 2;
	}
	while (off < len && strchr(" \t\r\n", text[off]))
		off++;
	if (off < len) {
		jsonpos_linecol(text, len, off, &line, &col);
		snprintf(why, size, "line %d, column %d: text after the JSON", line, col);
		cJSON_Delete(root);
		return 2;
	}
	/* what cJSON takes in but JSON refuses (\uZZZZ read as a NUL, 01, a raw tab) */
	struct jsonpos_fault f;
	if (jsonpos_check(text, len, 0, CJSON_NESTING_LIMIT, &f) < 0) {
		jsonpos_linecol(text, len, f.at, &line, &col);
		snprintf(why, size, "line %d, column %d: not valid JSON", line, col);
		cJSON_Delete(root);
		return 2;
	}
	int rc = read_lessons(p, text, len, root, why, size);
	cJSON_Delete(root);
	return rc;
}

static void clear_entries(struct progress *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->entries[i].id);
	free(p->entries);
	p->entries = NULL;
	p->n = 0;
	free(p->last_lesson);
	p->last_lesson = NULL;
}

/* Reads the progress file path into p (entries added with progress_mark).
 * A missing file is no progress. A damaged one is set aside, p->problem
 * saying so and what then (then_all: nothing of it was read; then_some:
 * some entries were). 0, or -1 when it could not be set aside (it must then
 * never be written over). */
static int read_progress(struct progress *p, const char *path, const char *then_all, const char *then_some)
{
	struct qkv_error err;
	size_t len;
	char *text = file_read_all(path, PROGRESS_MAX_BYTES, &len, &err);
	char why[sizeof err.msg];
	int rc;
	if (text) {
		rc = parse_progress(p, text, len, why, sizeof why);
		free(text);
	} else if (errno == ENOENT || errno == ENOTDIR) {
		return 0;	/* no progress yet */
	} else {
		snprintf(why, sizeof why, "%s", err.msg);
		rc = 2;
	}
	if (rc == 0)
		return 0;
	if (rc == 2)
		clear_entries(p);
	return keep_bad(path, rc == 2 ? "was unreadable" : "had unreadable entries", why, rc == 2 ? then_all : then_some,
			p->problem, sizeof p->problem);
}

/* Nothing of p is news for the file: all saved, or all just read. */
static void mark_saved(struct progress *p)
{
	for (int i = 0; i < p->n; i++)
		p->entries[i].changed = false;
	p->dirty = false;
	p->last_changed = false;
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
	if (read_progress(p, p->path, "starting afresh", "the other lessons loaded") != 0) {
		free(p->path);
		p->path = NULL;
	}
	mark_saved(p);
}

void progress_free(struct progress *p)
{
	clear_entries(p);
	free(p->path);
	memset(p, 0, sizeof *p);
}

const struct progress_entry *progress_get(const struct progress *p, const char *id)
{
	return find(p, id);
}

static struct progress_entry *add(struct progress *p, const char *id, int furthest, int steps, int last)
{
	p->entries = xrealloc(p->entries, sizeof *p->entries * (size_t)(p->n + 1));
	p->entries[p->n] = (struct progress_entry){ xstrdup(id), furthest, steps, last, false };
	return &p->entries[p->n++];
}

void progress_mark(struct progress *p, const char *id, int step, int steps)
{
	struct progress_entry *e = find(p, id);
	if (!e) {
		e = add(p, id, step, steps, 0);
		e->changed = steps != 0;
		p->dirty = true;
		return;
	}
	if (step > e->furthest) {
		e->furthest = step;
		p->dirty = true;
	}
	if (steps && steps != e->steps) {
		e->steps = steps;
		e->changed = p->dirty = true;
	}
}

void progress_visit(struct progress *p, const char *id, int step, int steps)
{
	progress_mark(p, id, step, steps);
	struct progress_entry *e = find(p, id);
	if (e->last != step) {
		e->last = step;
		e->changed = p->dirty = true;
	}
	if (!p->last_lesson || strcmp(p->last_lesson, id) != 0) {
		free(p->last_lesson);
		p->last_lesson = xstrdup(id);
		p->last_changed = p->dirty = true;
	}
}

/* Takes the lock on the directory holding path (flock: no file of its
 * own), waiting PROGRESS_LOCK_WAIT_MS at most for another qkv's save; its
 * fd for unlock, or -1 when it cannot be had (the save then goes on
 * without it, the file still read again just before it is replaced). */
static int lock_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = !slash ? xstrdup(".") : slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	for (int waited = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; waited += 5) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || waited >= PROGRESS_LOCK_WAIT_MS) {
			close(fd);
			return -1;
		}
		nanosleep(&(struct timespec){ 0, 5 * 1000000L }, NULL);
	}
	return fd;
}

static void unlock_dir(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

/* Adds what the file holds (disk) to p: see progress_save. */
static void merge(struct progress *p, const struct progress *disk)
{
	for (int i = 0; i < disk->n; i++) {
		const struct progress_entry *d = &disk->entries[i];
		struct progress_entry *e = find(p, d->id);
		if (!e) {
			add(p, d->id, d->furthest, d->steps, d->last);
			continue;
		}
		if (d->furthest > e->furthest)
			e->furthest = d->furthest;
		if (!e->changed && d->last)
			e->last = d->last;
		if (!e->changed && d->steps)
			e->steps = d->steps;
	}
	if (!p->last_changed && disk->last_lesson) {
		free(p->last_lesson);
		p->last_lesson = xstrdup(disk->last_lesson);
	}
}

/* p as the text of progress.json (malloc'd) */
static char *progress_text(const struct progress *p)
{
	cJSON *root = cJSON_CreateObject(), *lessons = cJSON_AddObjectToObject(root, "lessons");
	for (int i = 0; i < p->n; i++) {
		cJSON *e = cJSON_AddObjectToObject(lessons, p->entries[i].id);
		cJSON_AddNumberToObject(e, "furthest", p->entries[i].furthest);
		cJSON_AddNumberToObject(e, "steps", p->entries[i].steps);
		if (p->entries[i].last)
			cJSON_AddNumberToObject(e, "last", p->entries[i].last);
	}
	if (p->last_lesson)
		cJSON_AddStringToObject(root, "last_lesson", p->last_lesson);
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	struct strbuf sb;
	strbuf_init(&sb);
	strbuf_puts(&sb, text);
	strbuf_putc(&sb, '\n');
	free(text);
	return strbuf_detach(&sb);
}

int progress_save(struct progress *p)
{
	if (!p->path)
		return 0;
	if (make_parent(p->path, p->problem, sizeof p->problem) != 0) {
		p->failing = true;
		return -1;
	}
	int lock = lock_dir(p->path);
	/* what other sessions saved since: read again, under the lock */
	struct progress disk;
	memset(&disk, 0, sizeof disk);
	int rc = read_progress(&disk, p->path, "this session's progress saved in its place",
			       "the other lessons kept");
	if (disk.problem[0])
		memcpy(p->problem, disk.problem, sizeof p->problem);
	if (rc != 0) {
		free(p->path);	/* damaged and where it was: never written over */
		p->path = NULL;
	} else {
		merge(p, &disk);
		char *text = progress_text(p);
		struct qkv_error err;
		rc = file_write_atomic(p->path, text, strlen(text), 0600, 0, &err);
		free(text);
		if (rc != 0)
			save_problem(p->path, err.msg, p->problem, sizeof p->problem);
	}
	unlock_dir(lock);
	progress_free(&disk);
	if (rc == 0)
		mark_saved(p);
	p->failing = rc != 0;
	return rc;
}

int progress_save_pending(struct progress *p, double now_ms, double gap_ms)
{
	if (p->failing && gap_ms < PROGRESS_SAVE_GAP_MS)
		gap_ms = PROGRESS_SAVE_GAP_MS;	/* a failing save is not tried again at every frame */
	if (!p->dirty || !p->path || (p->tried_ms > 0 && now_ms - p->tried_ms < gap_ms))
		return 0;
	bool was_failing = p->failing;
	char before[sizeof p->problem];
	memcpy(before, p->problem, sizeof before);
	p->tried_ms = now_ms > 0 ? now_ms : 1;
	int rc = progress_save(p);
	if (rc != 0 && was_failing)
		memcpy(p->problem, before, sizeof before);	/* said already: nothing new */
	return rc;
}

/* ---- the prompt's history ------------------------------------------------------ */

/* Splits text into lines, keeping the newest max non-empty ones; false with
 * why set when a line is too long. */
static bool split_history(struct progress_history *h, const char *text, size_t len, int max, char *why,
			  size_t size)
{
	int count = 0, lineno = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
		lineno++;
		if (l > PROGRESS_HISTORY_LINE_MAX) {
			snprintf(why, size, "line %d is %zu bytes, more than %d", lineno, l, PROGRESS_HISTORY_LINE_MAX);
			return false;
		}
		count += l > 0;
		i += l + 1;
	}
	int skip = count > max ? count - max : 0;
	h->lines = xcalloc((size_t)(count - skip) + 1, sizeof *h->lines);
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
		if (l > 0 && skip-- <= 0)
			h->lines[h->n++] = xstrndup(text + i, l);
		i += l + 1;
	}
	return true;
}

/* Reads the history file into h (nothing when it is missing); false with
 * why set when it is damaged (h then holds no lines). */
static bool read_history(struct progress_history *h, const char *path, int max, char *why, size_t size)
{
	memset(h, 0, sizeof *h);
	struct qkv_error err;
	size_t len;
	char *text = file_read_all(path, PROGRESS_HISTORY_MAX_BYTES, &len, &err);
	if (!text && (errno == ENOENT || errno == ENOTDIR))
		return true;	/* no history yet */
	if (!text)
		utf8_snprintf(why, size, "%s", err.msg);
	bool ok = text && !bad_text(text, len, why, size) && split_history(h, text, len, max, why, size);
	free(text);
	if (!ok)
		progress_history_free(h);
	return ok;
}

/* The lines this process's history held when it last loaded or saved the
 * file path: the lines a save finds beyond them are the session's new
 * ones, appended to what the file holds then. */
static struct {
	char *path;
	char **lines;
	int n;
} known;

static void know_lines(const char *path, const char *const *lines, int n)
{
	for (int i = 0; i < known.n; i++)
		free(known.lines[i]);
	free(known.lines);
	free(known.path);
	known.path = xstrdup(path);
	known.lines = xcalloc((size_t)n + 1, sizeof *known.lines);
	for (int i = 0; i < n; i++)
		known.lines[i] = xstrdup(lines[i]);
	known.n = n;
}

void progress_history_load(struct progress_history *h, const char *path, int max)
{
	char why[sizeof h->problem];
	if (read_history(h, path, max, why, sizeof why)) {
		know_lines(path, (const char *const *)h->lines, h->n);
		return;
	}
	h->keep_out = keep_bad(path, "was unreadable", why, "starting afresh", h->problem, sizeof h->problem) != 0;
	know_lines(path, NULL, 0);
}

void progress_history_free(struct progress_history *h)
{
	for (int i = 0; i < h->n; i++)
		free(h->lines[i]);
	free(h->lines);
	h->lines = NULL;
	h->n = 0;
}

static bool history_line_ok(const char *s)
{
	size_t l = strlen(s);
	return l > 0 && l <= PROGRESS_HISTORY_LINE_MAX && file_bad_text(s, l) < 0;
}

/* Where the lines added since the known ones start in lines[0..n), a list
 * that keeps its newest max: while it is not full it dropped nothing, so
 * the new ones follow the known ones (which the prompt may have edited in
 * place: the file keeps them as they were); once full, it is known[d..] then
 * the new ones, for the smallest d where the lines agree. -1 when nothing
 * is known of path, or the list is not such. */
static int first_new(const char *path, const char *const *lines, int n, int max)
{
	if (!known.path || strcmp(known.path, path) != 0)
		return -1;
	if (n < max)
		return known.n <= n ? known.n : -1;
	for (int d = 0; d < known.n; d++) {
		int k = known.n - d, i = 0;
		while (i < k && i < n && strcmp(known.lines[d + i], lines[i]) == 0)
			i++;
		if (i == k)
			return k;
	}
	return known.n == 0 ? 0 : -1;
}

/* Writes the newest max of lines[0..n) that fit; 0 or -1 with problem. */
static int write_history(const char *path, const char *const *lines, int n, int max, char *problem, size_t size)
{
	/* the newest lines that fit, written oldest first */
	int first = n, kept = 0;
	size_t bytes = 0;
	while (first > 0 && kept < max) {
		const char *s = lines[first - 1];
		if (history_line_ok(s)) {
			if (bytes + strlen(s) + 1 > PROGRESS_HISTORY_MAX_BYTES)
				break;
			bytes += strlen(s) + 1;
			kept++;
		}
		first--;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	for (int i = first; i < n; i++) {
		if (history_line_ok(lines[i])) {
			strbuf_puts(&sb, lines[i]);
			strbuf_putc(&sb, '\n');
		}
	}
	struct qkv_error err;
	int rc = file_write_atomic(path, sb.s, sb.len, 0600, 0, &err);
	strbuf_free(&sb);
	if (rc != 0)
		save_problem(path, err.msg, problem, size);
	return rc;
}

int progress_history_save(const char *path, const char *const *lines, int n, int max, char *problem,
			  size_t size)
{
	if (make_parent(path, problem, size) != 0)
		return -1;
	int lock = lock_dir(path);
	int from = first_new(path, lines, n, max);
	struct progress_history disk;
	char why[512];
	int rc = 0;
	if (from < 0) {
		rc = write_history(path, lines, n, max, problem, size);	/* nothing known to merge with */
	} else if (from == n) {
		/* nothing new since the last load or save: the file stays as it is */
	} else if (!read_history(&disk, path, max, why, sizeof why)) {
		/* damaged since: set aside as at load, and all of this session's saved */
		rc = keep_bad(path, "was unreadable", why, "this session's history saved in its place", problem, size);
		if (rc == 0)
			rc = write_history(path, lines, n, max, problem, size);
	} else {
		/* what the file holds now (other sessions' lines too), then ours */
		const char **all = xmalloc(sizeof *all * ((size_t)disk.n + (size_t)(n - from) + 1));
		int m = 0;
		for (int i = 0; i < disk.n; i++)
			all[m++] = disk.lines[i];
		for (int i = from; i < n; i++)
			all[m++] = lines[i];
		rc = write_history(path, all, m, max, problem, size);
		free(all);
		progress_history_free(&disk);
	}
	unlock_dir(lock);
	if (rc == 0)
		know_lines(path, lines, n);
	return rc;
}
