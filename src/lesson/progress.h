/* progress.h: what qkv keeps between runs, in $XDG_STATE_HOME/qkv (else
 * ~/.local/state/qkv): how far a student got in each lesson (progress.json)
 * and the prompt's history (history, one statement a line).
 * Both are written atomically (core/file.h: a temporary file renamed over the
 * old one), mode 0600. A file that cannot be read, or is not what qkv writes,
 * is set aside as NAME.bad (NAME.bad.1, .2 ... when that is taken; an earlier
 * one is never replaced), reported in `problem`, and started afresh: never
 * silently erased. A save that fails (read-only or full disk) reports too and
 * leaves the old file as it was. Nothing here prints. */
#ifndef QKV_LESSON_PROGRESS_H
#define QKV_LESSON_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#define PROGRESS_MAX_BYTES (1 << 20)          /* a larger progress.json is damaged */
#define PROGRESS_MAX_STEP 1000000             /* furthest and steps are whole numbers up to this */
#define PROGRESS_HISTORY_LINE_MAX 65536       /* bytes in one history line */
#define PROGRESS_HISTORY_MAX_BYTES (4 << 20)  /* bytes in the history file */

struct progress_entry {
	char *id;
	int furthest;       /* highest step reached, 1-based; 0 = not opened */
	int steps;          /* the lesson's step count when last seen */
	int last;           /* the step seen last, 1-based; 0 = not recorded */
};

struct progress {
	struct progress_entry *entries;
	int n;
	char *path;         /* the file, or NULL when nothing is to be written */
	char *last_lesson;  /* the id of the lesson opened last, or NULL */
	/* news for the user, or "": the file was damaged and set aside, or the
	 * last save failed. The program shows it and empties it. */
	char problem[512];
};

/* qkv's state directory: $XDG_STATE_HOME/qkv, else ~/.local/state/qkv
 * (malloc'd), or NULL when neither variable is set. */
char *progress_state_dir(void);
/* mkdir -p path, each level mode 0700; 0, or -1 with errno (ENOTDIR when a
 * level exists but is not a directory). */
int progress_make_dirs(const char *path);

/* Loads the progress file; a missing one is no progress yet. A damaged one
 * (not UTF-8 JSON text, a NUL byte, over PROGRESS_MAX_BYTES, not a regular
 * file, unreadable, or not of the shape progress_save writes) is set aside
 * and p->problem says so in one line, what matters first: "progress.json
 * was unreadable, kept as progress.json.bad; starting afresh (line 3,
 * column 7: not valid JSON)".
 * When only some lessons' entries are wrong, the others are loaded. When it
 * cannot even be set aside, p->path is NULL: it is never written over. */
void progress_load(struct progress *p);
void progress_free(struct progress *p);
/* The entry for a lesson id, or NULL. */
const struct progress_entry *progress_get(const struct progress *p, const char *id);
/* Records that step (1-based) of lesson id (of steps steps) was reached. */
void progress_mark(struct progress *p, const char *id, int step, int steps);
/* Records that step (1-based) of lesson id (of steps steps) is the one being
 * looked at: the furthest as progress_mark, the last step seen, and id as
 * the lesson used last. */
void progress_visit(struct progress *p, const char *id, int step, int steps);
/* Writes the file (and its directory), atomically. 0, or -1 with p->problem
 * set ("progress.json not saved: the disk is full", "... no permission to
 * write in DIR"); the old file is then as it was, and the session goes on. */
int progress_save(struct progress *p);

/* The prompt's history, oldest line first. */
struct progress_history {
	char **lines;
	int n;
	bool keep_out;      /* the file was damaged and could not be set aside: do not write it */
	char problem[512];  /* as for progress.json, or "" */
};

/* Reads the history file path: its newest max lines (a missing file has
 * none). A file that is unreadable or not text (a NUL byte, invalid UTF-8, a
 * line over PROGRESS_HISTORY_LINE_MAX bytes, over PROGRESS_HISTORY_MAX_BYTES
 * in all, not a regular file) is set aside as for progress.json, h holds no
 * lines and h->problem says so. */
void progress_history_load(struct progress_history *h, const char *path, int max);
void progress_history_free(struct progress_history *h);
/* Writes the newest max of lines[0..n) (oldest first) to path, one a line,
 * mode 0600, atomically, creating its directory. Lines that would not load
 * again (over PROGRESS_HISTORY_LINE_MAX bytes, not UTF-8, empty) are left
 * out, and older lines beyond PROGRESS_HISTORY_MAX_BYTES. 0, or -1 with
 * problem ("history not saved: REASON", size bytes at most) set. */
int progress_history_save(const char *path, const char *const *lines, int n, int max, char *problem,
			  size_t size);

#endif
