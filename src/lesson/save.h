/* save.h: a prompt session as a lesson file, and a file's code for :load.
 * `:save FILE.json` writes the statements typed so far as a one-step lesson
 * that `qkv`, `qkv run` and `qkv check` open and that pins the tensors they
 * make; `:load FILE` runs a lesson's or a statement file's code. */
#ifndef QKV_LESSON_SAVE_H
#define QKV_LESSON_SAVE_H

#include "core/error.h"
#include "core/strbuf.h"

#include <stdbool.h>

struct interp;
struct lesson;

/* At most this many heatmaps in a saved lesson, and the largest tensor whose
 * values are written out element by element (larger ones, and any beyond
 * SAVE_VALUES_BUDGET elements in all, are pinned by their printed text). */
#define SAVE_MAX_HEATMAPS 8
#define SAVE_MAX_VALUES 4096
#define SAVE_VALUES_BUDGET 65536

/* Writes a lesson reproducing a prompt session: one step titled `title`
 * (NULL or "" for "A qkv session") whose code is the n statements given, in
 * order (a statement holding newlines becomes several code lines). The id
 * comes from the file name (lowercase letters, digits and '-').
 *
 * The statements are first run again from scratch in a fresh interpreter (I
 * is only read, never changed): a statement that fails there, or a tensor
 * that comes out differently from I's, refuses the save, since the lesson
 * would not open or not check. Every name the statements leave holding a
 * tensor is pinned by an expect: its values (SAVE_MAX_VALUES elements at
 * most) or else its printed text, with I's values; the tensors newest name
 * first (reverse order of first assignment), at most SAVE_MAX_HEATMAPS of
 * them, get a heatmap (empty tensors get none).
 *
 * Atomic: writes a new ".qkv-XXXXXX" beside FILE, fsyncs it and renames it over
 * FILE, so FILE is either the old file or the whole new one. Refuses when
 * FILE exists and !overwrite ("FILE exists; :save! FILE replaces it").
 * Returns 0, or -1 with err->msg (no write permission, a full disk, FILE a
 * directory, ...), leaving no temporary file behind. */
int save_write_lesson(const char *path, bool overwrite, const char *title, const char *const *statements, int n,
		      struct interp *I, struct qkv_error *err);

/* Appends to code (initialised by the caller) the code to run for
 * `:load FILE`: for a lesson (a name ending in ".json", or a file whose
 * first non-blank character is '{') every step's code in order, one text;
 * any other file is taken as statements, as it is. Returns 0, or -1 with
 * err->msg when the file cannot be read, is not text, or is not a valid
 * lesson (the loader's "FILE:LINE:COL: PATH: message"); code is then
 * unchanged. With lesson not NULL, *lesson is the lesson loaded (the
 * caller frees it), or NULL for a file of statements or a failure. */
int save_load_code(const char *path, struct strbuf *code, struct lesson **lesson, struct qkv_error *err);

#endif
