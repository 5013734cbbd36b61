/* lesson.h: a lesson in memory, and loading it from JSON.
 * A lesson retells a source document as ordered steps; each step has
 * narration, code (statements run in the lesson's one workspace), what it
 * shows and what `qkv check` verifies. Loading checks the structure and the
 * types and names every problem as FILE:LINE:COL: PATH: message; running the
 * steps (runner.h) checks the rest. See lessons/FORMAT.md. */
#ifndef QKV_LESSON_LESSON_H
#define QKV_LESSON_LESSON_H

#include "core/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LESSON_FORMAT 1
#define LESSON_MAX_BYTES (8u << 20)   /* a lesson file is at most 8 MiB */
#define LESSON_DEFAULT_TIMEOUT 30     /* seconds a step may run in check and run */
#define LESSON_MAX_TIMEOUT 3600

/* A place in the lesson file. */
struct loc {
	int line, col;
};

/* One line of a step's code and where its text starts in the file. */
struct code_line {
	char *text;
	size_t str_off;     /* offset of the JSON string's opening quote */
	size_t in_str;      /* offset of this line within the decoded string */
};

enum show_kind { SHOW_HEATMAP, SHOW_COMPARE, SHOW_TOKENS, SHOW_TIMING };
enum scale_kind { SCALE_AUTO, SCALE_DIVERGING, SCALE_WEIGHTS };

struct timing_entry {
	char *label;
	char *code;         /* lines joined with '\n' */
	struct code_line *lines;
	int nlines;
	struct loc at;
	int repeat;         /* runs of the code; the best is shown (1 to TIMING_MAX_REPEAT) */
};

#define TIMING_MAX_REPEAT 20

struct show {
	enum show_kind kind;
	char *expr;         /* heatmap, compare, tokens: what to evaluate */
	char *local;        /* for EXPR:NAME, NAME (the local drawn), else NULL */
	struct loc at;      /* of the expression */
	char *path;         /* "steps[3].show[0]" for messages */
	char *title;
	char **rows, **cols;
	int nrows, ncols;
	struct loc rows_at, cols_at;
	enum scale_kind scale;
	int64_t slice[2];
	int nslice;
	struct loc slice_at;
	int64_t query;
	struct loc query_at;
	char **heads;       /* tokens: names of the head columns */
	int nheads;
	struct timing_entry *timings;
	int ntimings;
};

enum expect_kind { EXPECT_TEXT, EXPECT_VALUES, EXPECT_OUTPUT };

struct expect {
	enum expect_kind kind;
	char *expr;         /* EXPECT_TEXT, EXPECT_VALUES */
	struct loc at;
	char *path;
	char *text;         /* EXPECT_TEXT, EXPECT_OUTPUT */
	double *values;     /* EXPECT_VALUES, row-major */
	int ndim;
	int64_t shape[4];
	double tol;         /* EXPECT_VALUES: absolute, default 1e-4 */
	double text_tol;    /* EXPECT_TEXT, EXPECT_OUTPUT: each printed number's absolute
			     * tolerance beside one unit of its last digit; 0 unless "tol" is given */
	char *why;
};

/* Something for the student to compute at the prompt. */
struct exercise {
	char *ask;
	char *answer;       /* expression computing the expected tensor */
	struct loc answer_at;
	double tol;
	char **hints;
	int nhints;
	char *solution;     /* statements, joined with '\n' */
	struct code_line *solution_lines;
	int nsolution;
	char *path;         /* "steps[3].exercise[0]" */
	bool predict;       /* a prediction: answered by typing a value before computing it */
};

struct step {
	char *title;
	char **text;        /* paragraphs */
	int ntext;
	char *code;         /* lines joined with '\n' ("" when none) */
	struct code_line *lines;
	int nlines;
	struct show *shows;
	int nshows;
	struct expect *expects;
	int nexpects;
	char **note;
	int nnote;
	struct exercise *exercises;
	int nexercises;
	struct loc at;
	char *path;         /* "steps[3]" */
};

struct lesson {
	char *name;         /* how messages name the file: a path or "built-in:01-x.json" */
	char *source_text;  /* the file's bytes, kept to map positions */
	size_t source_len;
	char *id, *title, *source, *summary;
	char *source_title; /* the source document's title, or NULL: headers name it so */
	int format;
	int timeout;        /* seconds one step may run under check and run (1..3600;
	                     * 0 in a lesson not built by lesson_load: the default) */
	struct step *steps;
	int nsteps;
};

/* Receives warnings (unknown fields, a newer format) while loading:
 * "FILE:LINE:COL: PATH: message". */
typedef void (*lesson_warn_fn)(void *udata, const char *message);

/* Parses and checks a lesson held in text[0..len) (copied). Returns the
 * lesson, or NULL with err->msg holding the whole "FILE:LINE:COL: PATH:
 * message" line (err->line/col set too). name names the file in messages. */
struct lesson *lesson_parse(const char *name, const char *text, size_t len, lesson_warn_fn warn, void *udata,
			    struct qkv_error *err);
/* Reads a whole file of text (NUL-terminated, at most LESSON_MAX_BYTES):
 * NULL with a message naming path when it is missing, a directory (not
 * what, e.g. "a lesson file"), too large or unreadable. */
char *lesson_read_text(const char *path, const char *what, size_t *len, struct qkv_error *err);
/* Reads and parses a lesson file: a missing file, a directory, an unreadable
 * or oversized file are errors like any other. */
struct lesson *lesson_load_file(const char *path, lesson_warn_fn warn, void *udata, struct qkv_error *err);
void lesson_free(struct lesson *l);

/* The file position of column col (1-based, in characters) of line k
 * (0-based) of a code block, for reporting a failing statement. */
struct loc lesson_code_loc(const struct lesson *l, const struct code_line *lines, int nlines, int k, int col);

/* Fills err with "NAME:LINE:COL: PATH: message" (PATH may be NULL) and
 * returns -1. */
int lesson_error(const struct lesson *l, struct loc at, const char *path, struct qkv_error *err, const char *fmt,
		 ...) __attribute__((format(printf, 5, 6)));

#endif
