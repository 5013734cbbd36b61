/* helpers.h: shared by the Criterion test files: running the qkv binary and
 * comparing printed numbers with a tolerance. */
#ifndef QKV_TEST_HELPERS_H
#define QKV_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

/* The binary under test: $QKV, else ./qkv (tests run from the repo root). */
const char *qkv_binary(void);

/* Runs argv (argv[0] is replaced by qkv_binary()) with stdin_text (may be
 * NULL) on standard input and the given extra environment entry (NULL for
 * none); returns the exit status, or -1. *out and *err receive malloc'd text. */
int run_qkv(const char *const *argv, const char *stdin_text, const char *env, char **out, char **err);

/* Gives this test process a tmux server of its own (TMUX_TMPDIR, inherited
 * by every tmux that system() runs): tests run in parallel, and one test's
 * last session ending stops a shared server under another's feet. */
void tmux_private_server(void);

/* Stops that server and removes its directory. */
void tmux_private_server_end(void);

/* The screen of tmux session now (malloc'd, "" if tmux fails); with
 * escapes, its colour escapes kept. */
char *tmux_screen(const char *session, bool escapes);

/* Waits (about 8 s at most) until the screen shows want; returns it then,
 * or the last screen seen. */
char *tmux_wait_for(const char *session, const char *want);

/* Reads a whole file (malloc'd), or NULL. */
char *read_text(const char *path);

/* Compares printed output: everything but numbers must be equal (", grad_fn=<...>"
 * is ignored: qkv keeps no gradients); each number may differ from the
 * expected one by one unit in its last printed digit, or by f32_rel relative
 * (for float32 values printed with Python's 17 digits). On a mismatch, fills
 * why with the line and both texts. When prefix is true, got may go on after
 * want ends. */
bool text_matches(const char *got, const char *want, double f32_rel, bool prefix, char *why, size_t whylen);

#endif
