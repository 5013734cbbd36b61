/* progress.h: how far a student got in each lesson, kept between runs in
 * $XDG_STATE_HOME/qkv/progress.json (else ~/.local/state/qkv/progress.json).
 * Written atomically (a temporary file renamed over the old one); a file that
 * cannot be read is set aside as progress.json.bad, never silently erased. */
#ifndef QKV_LESSON_PROGRESS_H
#define QKV_LESSON_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct progress_entry {
	char *id;
	int furthest;       /* highest step reached, 1-based; 0 = not opened */
	int steps;          /* the lesson's step count when last seen */
};

struct progress {
	struct progress_entry *entries;
	int n;
	char *path;         /* the file, or NULL when no state directory exists */
	char problem[256];  /* why the file could not be read or written, or "" */
};

/* Loads the progress file (missing is fine: no progress yet). */
/* qkv's state directory: $XDG_STATE_HOME/qkv, else ~/.local/state/qkv
 * (malloc'd), or NULL when neither variable is set. */
char *progress_state_dir(void);
/* mkdir -p path, each level mode 0700; 0, or -1 with errno. */
int progress_make_dirs(const char *path);

void progress_load(struct progress *p);
void progress_free(struct progress *p);
/* The entry for a lesson id, or NULL. */
const struct progress_entry *progress_get(const struct progress *p, const char *id);
/* Records that step (1-based) of lesson id (of steps steps) was reached. */
void progress_mark(struct progress *p, const char *id, int step, int steps);
/* Writes the file; -1 with p->problem set when it cannot (read-only or full
 * disk: the session goes on). */
int progress_save(struct progress *p);

#endif
