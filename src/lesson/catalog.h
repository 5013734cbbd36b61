/* catalog.h: the lessons qkv knows: the built-in ones (every lessons/NAME.json,
 * compiled in at build time) and the files in $QKV_LESSONS, which replace a
 * built-in lesson with the same id. Resolves a LESSON argument: a path, a
 * number in the list, or an id. */
#ifndef QKV_LESSON_CATALOG_H
#define QKV_LESSON_CATALOG_H

#include "lesson/lesson.h"

#define CATALOG_MAX_LESSONS 256   /* lessons read from one directory */

/* One lesson file compiled into the binary (generated at build time). */
struct builtin_lesson {
	const char *name;       /* "01-attention-step-by-step.json" */
	const char *text;
	size_t len;
};
extern const struct builtin_lesson builtin_lessons[];   /* ends with a NULL name */

struct catalog_entry {
	char *origin;           /* "built-in:NAME" or the file's path */
	struct lesson *lesson;  /* NULL when it failed to load */
	char *error;            /* why it failed */
};

struct catalog {
	struct catalog_entry *entries;
	int n;
	char *note;             /* what went wrong with $QKV_LESSONS itself (a
	                           directory that cannot be read, lessons
	                           skipped beyond the limit), or NULL */
};

/* Loads every built-in lesson and every *.json in $QKV_LESSONS (if set):
 * the first CATALOG_MAX_LESSONS of them by file name. Lessons that fail to
 * load stay in the list with their error; so does a file whose id a file
 * before it already has (the second is not loaded). Warnings go to warn
 * (may be NULL), and so do problems with $QKV_LESSONS itself, which
 * c->note keeps too. */
void catalog_load(struct catalog *c, lesson_warn_fn warn, void *udata);
void catalog_free(struct catalog *c);

/* The lesson for a LESSON argument: an existing file path, a number in the
 * catalog (1-based), or an id. The caller owns the result (a lesson of the
 * catalog is loaded anew). NULL with err when there is none. */
struct lesson *catalog_resolve(const struct catalog *c, const char *arg, lesson_warn_fn warn, void *udata,
			       struct qkv_error *err);

#endif
