/* fixture.h: a workspace typed as at qkv's prompt, and lessons loaded from
 * files, for the Criterion files that save and reload sessions (the
 * in-process tests/unit/test_session.c and tests/system/test_session.c, which
 * checks the saved files through ./qkv). */
#ifndef QKV_TEST_FIXTURE_H
#define QKV_TEST_FIXTURE_H

#include "core/strbuf.h"
#include "lang/interp.h"
#include "lesson/lesson.h"

/* A new interpreter (simd kernels) that has run the n statements st, each as
 * a line of its own typed at a prompt (atomic); what they print is appended
 * to printed, one line each. The test fails if one of them fails. */
struct interp *fixture_typed(const char *const *st, int n, struct strbuf *printed);

/* The session of the brief: a seed, a matrix, its weights, random numbers. */
extern const char *const fixture_basic[];
#define FIXTURE_NBASIC 5

/* A suite's temporary directory (its .init and .fini), and NAME in it
 * (malloc'd). */
extern char fixture_dir[64];
void fixture_dir_make(void);
void fixture_dir_remove(void);
char *fixture_in_dir(const char *name);

/* fixture_typed with what the statements print kept for the suite (emptied
 * by fixture_dir_make). */
struct interp *fixture_session_typed(const char *const *st, int n);
struct strbuf *fixture_printed(void);

/* The lesson in path; the test fails when it does not load. */
struct lesson *fixture_load(const char *path);

/* The expect of step st on expression name; the test fails when none. */
const struct expect *fixture_expect(const struct step *st, const char *name);

#endif
