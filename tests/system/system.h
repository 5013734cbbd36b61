/* system.h: for the system tests (tests/system): running the qkv binary with
 * pipes, a tmux server of each test's own, and waiting for the condition a
 * test needs (a screen drawn whole, a file written, a process computing or
 * gone) instead of sleeping. */
#ifndef QKV_TEST_SYSTEM_H
#define QKV_TEST_SYSTEM_H

#include "helpers.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The longest any wait below takes before it gives up (and the test then
 * fails on what it sees): 60 s, for the sanitizer build on a loaded
 * machine; QKV_TEST_WAIT=SECONDS changes it. */
int system_wait_ms(void);

/* The binary under test: $QKV, else ./qkv (tests run from the repo root). */
const char *qkv_binary(void);

/* Runs argv (argv[0] is replaced by qkv_binary()) with stdin_text (may be
 * NULL) on standard input and the given extra environment entry (NULL for
 * none); reads both outputs until the program closes them, however long it
 * is silent; returns the exit status (128 + the signal when killed), or -1.
 * *out and *err receive malloc'd text. */
int run_qkv(const char *const *argv, const char *stdin_text, const char *env, char **out, char **err);

/* Gives this test process a tmux server of its own (TMUX_TMPDIR, inherited
 * by every tmux that system() runs): tests run in parallel, and one test's
 * last session ending stops a shared server under another's feet. */
void tmux_private_server(void);

/* Stops that server, waits until every process its panes ran (qkv, the
 * shell around it) is gone, so that nothing of this phase still writes a
 * file the next one reads, and removes its directory. Returns false when
 * one of them was still there after system_wait_ms() (it is then killed,
 * so that no test leaves a process behind). */
bool tmux_private_server_end(void);

/* Skips the test (cr_skip_test) when tmux is not installed. */
void tmux_require(void);

/* Skips the test without tmux; else starts, in this process's private
 * server (tmux_private_server), a session in a w x h pane running the shell
 * line command (which may hold single quotes); the test fails when tmux does. Returns the session's name
 * (static storage; each start gives a new name, valid until the next). */
const char *tmux_start(int w, int h, const char *command);

/* tmux_start of the line `TERM=xterm-256color XDG_STATE_HOME=STATE ENV QKV
 * ARGS; AFTER`, QKV being qkv_binary(); env (e.g. NO_COLOR=1, TERM=xterm)
 * and after (e.g. "sleep 30", which keeps the pane once qkv ends) may be
 * NULL. */
const char *tmux_start_qkv(int w, int h, const char *state, const char *env, const char *args, const char *after);

/* Sends keys (tmux key names, e.g. "Enter", "C-c", "Right Down") to the
 * session; a failed tmux shows up in what the screen lacks. */
void tmux_keys(const char *session, const char *keys);

/* Resizes the session's window to w x h. */
void tmux_resize(const char *session, int w, int h);

/* Types text (literally; it holds no single quote) into the session. */
void tmux_type(const char *session, const char *text);

/* Types text and Enter. */
void tmux_line(const char *session, const char *text);

/* Pastes text (it holds no single quote) as a terminal does with bracketed
 * paste (tmux paste-buffer -p). */
void tmux_paste(const char *session, const char *text);

/* The cursor's column in the session's pane now, or -1; and once it is
 * want (the column it is at after system_wait_ms() when it never is). */
int tmux_cursor_x(const char *session);
int tmux_cursor_x_at(const char *session, int want);

/* tmux_wait_for, and the test fails with the screen when want never shows;
 * returns the screen (malloc'd). */
char *tmux_see(const char *session, const char *want);

/* tmux_wait_for_all, failing the test with the screen when one never shows. */
char *tmux_see_all(const char *session, const char *const *want);

/* tmux_wait_without, failing the test with the screen when gone stays. */
char *tmux_see_gone(const char *session, const char *gone);

/* The screen of tmux session now (malloc'd, "" if tmux fails); with
 * escapes, its colour escapes kept. */
char *tmux_screen(const char *session, bool escapes);

/* Waits until the screen shows want and then holds still (two captures in
 * a row, 100 ms apart, are the same: a frame is never read half drawn);
 * returns that screen, or the last one seen after system_wait_ms(). */
char *tmux_wait_for(const char *session, const char *want);

/* The same for every string of want (NULL-terminated). */
char *tmux_wait_for_all(const char *session, const char *const *want);

/* Waits until the screen no longer shows gone and then holds still;
 * returns that screen, or the last one seen. */
char *tmux_wait_without(const char *session, const char *gone);

/* Waits until the screen shows every string of want (NULL-terminated), on
 * a screen that keeps changing (a progress line, an animation): the caller
 * asserts only on what it waited for. Returns that screen or the last one. */
char *tmux_wait_moving(const char *session, const char *const *want);

/* The terminal column (0-based) where want begins on the first line of a
 * captured screen s that holds it (a wide character takes two), or -1. */
int screen_column(const char *s, const char *want);
/* The column of the caret of error msg on screen s: beside it ("^ msg"),
 * or on the line above it; -1 when neither has one. */
int screen_caret_column(const char *s, const char *msg);

/* The pid of qkv (the program qkv_binary() names) running in the session's
 * pane, as a child of its shell or of strace; waits for it to start;
 * -1 when it never does. */
pid_t tmux_pane_qkv(const char *session);

/* The CPU time pid has used so far, all its threads, in ms; -1 when there
 * is no such process. */
double proc_cpu_ms(pid_t pid);

/* Waits until pid has used at least ms of CPU time in all (a computation is
 * under way); false when it ended first or after system_wait_ms(). */
bool proc_wait_cpu(pid_t pid, double ms);

/* Waits until pid has ended (a zombie counts as ended); false after
 * system_wait_ms(). */
bool proc_wait_gone(pid_t pid);

/* Waits until path exists; false after system_wait_ms(). Used for files the
 * shell in a pane writes to NAME.tmp and renames to NAME, so that a file
 * that exists is whole. */
bool file_wait(const char *path);

/* Waits until the text of path contains want (a log written as it goes);
 * returns that text (malloc'd), or NULL after system_wait_ms(). */
char *file_wait_text(const char *path, const char *want);

#endif
