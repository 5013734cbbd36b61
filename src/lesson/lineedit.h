/* lineedit.h: GNU readline set up one way for both prompts where a person
 * types statements: the full screen's (ui/prompt.c, readline in callback
 * mode) and qkv repl's on a terminal (cli/repl.c). Tab indents at the start
 * of a line (Backspace there goes back a level) and completes elsewhere
 * (':' commands, names, attributes, from the session, file names after
 * :load and :save); a line that continues a block starts indented; a block is
 * one history entry, kept in the history file as lines marked to join again.
 * Nothing here draws or prints (the prompts display readline's state). */
#ifndef QKV_LESSON_LINEEDIT_H
#define QKV_LESSON_LINEEDIT_H

#include "core/strbuf.h"
#include "lesson/commands.h"

#include <stddef.h>

struct session;

/* Sets readline's completion, Tab and startup hook for front's prompt, which
 * completes the names of session s (which must outlive its use; set again
 * with lineedit_set_session when it changes). Call before readline runs. */
void lineedit_setup(enum command_front front, struct session *s);
void lineedit_set_session(struct session *s);

/* Makes readline's keymaps safe for its callback mode, ~/.inputrc's
 * bindings included: the non-incremental searches (Alt-P, Alt-N, vi's / and
 * ?) become the incremental ones (Ctrl-R, Ctrl-S), since readline 8.2's frees
 * undo lists twice in callback mode, and keyboard macros (Ctrl-X ( ... ) and
 * Ctrl-X e) ring the bell, since replaying one read a NULL pointer (the key
 * fuzzer's, issue 15). For the full screen's prompt; call after readline has
 * read ~/.inputrc, and again after it may have again. */
void lineedit_callback_keymaps(void);

/* The text the next line starts with (inserted by readline's startup hook):
 * a continuation line's indentation, or a failing line put back to fix.
 * Copied; NULL or "" for none. */
void lineedit_set_next(const char *text);
/* The next line of block (len bytes, a block left open) starts at the
 * indentation it calls for (lesson/statements), as a person typing it
 * wants; not when keys are already waiting, as the rest of a paste without
 * bracketed paste does: its lines bring their own indentation, which the
 * offered one would double. */
void lineedit_offer_indent(const char *block, size_t len);
/* Inserts that text into the line begun already (readline in callback
 * mode, after a paste ran), instead of waiting for the next line. */
void lineedit_take_next(void);

/* Adds entry (a line, or a block's lines joined by '\n', trailing blank
 * lines left out) to readline's history; nothing for an empty one. */
void lineedit_history_add(const char *entry);

/* The history file holds one line per line: each line after the first of
 * an entry starts with "\|", and an entry whose text starts with '\' is
 * written with it doubled. lineedit_history_encode appends entry so to out
 * (its lines joined by '\n', no '\n' at the end); lineedit_history_load
 * adds the entries of the n file lines to readline's history. */
void lineedit_history_encode(struct strbuf *out, const char *entry);
void lineedit_history_load(char *const *lines, int n);

#endif
