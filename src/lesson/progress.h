/* progress.h: what qkv keeps between runs, in $XDG_STATE_HOME/qkv (else
 * ~/.local/state/qkv): how far a student got in each lesson (progress.json)
 * and the prompt's history (history, one statement a line).
 * Both are written atomically (core/file.h: a temporary file renamed over the
 * old one), mode 0600. progress.json is saved as the student goes (after a
 * step changes, at most once a second: progress_save_pending) and merged
 * with what other sessions of qkv saved meanwhile: under a lock on the
 * state directory, the file is read again just before it is replaced, and
 * for each lesson the furthest step wins, the exercises solved add up, and
 * lessons only in the file are kept. The history is merged likewise: the
 * lines a session added are appended to the file as it is then. A file that cannot be read, or is not what qkv writes,
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
#define PROGRESS_SAVE_GAP_MS 1000             /* progress_save_pending saves at most this often */
#define PROGRESS_LOCK_WAIT_MS 2000            /* a save waits this long for another's lock, then goes on */

struct progress_entry {
	char *id;
	int furthest;       /* highest step reached, 1-based; 0 = not opened */
	int steps;          /* the lesson's step count when last seen */
	int last;           /* the step seen last, 1-based; 0 = not recorded */
	bool changed;       /* last or steps set since the last save: they win over the file's */
};

struct progress {
	struct progress_entry *entries;
	int n;
	char *path;         /* the file, or NULL when nothing is to be written */
	char *last_lesson;  /* the id of the lesson opened last, or NULL */
	/* news for the user, or "": the file was damaged and set aside, or the
	 * last save failed. The program shows it and empties it. */
	char problem[512];
	bool dirty;         /* changed since the last save */
	bool last_changed;  /* last_lesson set since the last save */
	bool failing;       /* the last save failed (and said so) */
	double tried_ms;    /* when progress_save_pending last saved, or 0 */
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
/* Writes the file (and its directory), atomically, merged with the file as
 * it is on disk (under the lock, read just before the rename): for each
 * lesson the furthest step of both, the entries (lessons, and exercises
 * solved, "ID#STEP.K") of both, and the step seen last and the lesson used
 * last from p when it set them since its last save, else from the file. p
 * then holds the merge. A file on disk found damaged is set aside as at
 * load (p->problem says so) and p saved in its place. 0, or -1 with
 * p->problem set ("progress.json not saved: the disk is full", "... no
 * permission to write in DIR"); the old file is then as it was, and the
 * session goes on. */
int progress_save(struct progress *p);
/* Saves p when it changed since its last save and the last save this
 * made was gap_ms or more before now_ms (clock_now_ms()): gap_ms
 * PROGRESS_SAVE_GAP_MS after each step, 0 to flush before something that
 * may take long. A failure that repeats the last one is not news again
 * (p->problem left ""); a failing save is tried again after
 * PROGRESS_SAVE_GAP_MS at the soonest, whatever gap_ms. 0, or -1. */
int progress_save_pending(struct progress *p, double now_ms, double gap_ms);

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
 * lines and h->problem says so. The lines read are remembered (one history
 * file a process) for progress_history_save. */
void progress_history_load(struct progress_history *h, const char *path, int max);
void progress_history_free(struct progress_history *h);
/* Saves the history lines[0..n) (oldest first) to path: appended to what
 * the file holds now, under the lock of progress_save, are the lines added
 * since this process last loaded or saved path (lines being those lines,
 * less the oldest ones the list dropped, then new ones), so that two
 * sessions keep each other's lines; nothing new, nothing written. Without
 * such a load or save (or a list that is not such), lines replace the
 * file. A file damaged since is set aside as at load and lines saved in its
 * place. The newest max lines are written, one a line, mode 0600,
 * atomically, creating its directory. Lines that would not load again (over
 * PROGRESS_HISTORY_LINE_MAX bytes, not UTF-8, empty) are left out, and older
 * lines beyond PROGRESS_HISTORY_MAX_BYTES. 0, or -1 with problem ("history
 * not saved: REASON", size bytes at most) set. */
int progress_history_save(const char *path, const char *const *lines, int n, int max, char *problem,
			  size_t size);

#endif
