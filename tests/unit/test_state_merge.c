/* test_state_merge.c: progress is never lost between sessions (issue 15,
 * item 4) without a terminal: two sessions of qkv on one state directory
 * merge what they save (the furthest step, the exercises solved of both,
 * lessons only in the file kept), writers in parallel lose nothing under
 * the lock, saves as the student goes come at most once a second, a file
 * damaged meanwhile is set aside, and the prompt's history gets the lines
 * of both. Damaged files at load and failing
 * saves: test_state.c; in a real terminal: tests/system/test_state_merge.c. */
#include "helpers.h"
#include "lesson/progress.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];       /* XDG_STATE_HOME of the test */
static char qdir[128];     /* dir/qkv */
static char pfile[160];    /* dir/qkv/progress.json */
static char hfile[160];    /* dir/qkv/history */

static void make_dir(void)
{
	dir_make_temp(dir, sizeof dir, "qkv-merge");
	snprintf(qdir, sizeof qdir, "%s/qkv", dir);
	snprintf(pfile, sizeof pfile, "%s/progress.json", qdir);
	snprintf(hfile, sizeof hfile, "%s/history", qdir);
	setenv("XDG_STATE_HOME", dir, 1);
}

static void remove_dir(void)
{
	dir_remove(dir);
}

TestSuite(state_merge, .init = make_dir, .fini = remove_dir);

static void put_text(const char *path, const char *text)
{
	file_put(path, text, strlen(text));
}

static void assert_names(const char *want)
{
	char *got = dir_list(qdir);
	cr_assert_str_eq(got, want, "the state directory holds %s", got);
	free(got);
}

/* The entry of id in p: it must be there. */
static const struct progress_entry *entry(const struct progress *p, const char *id)
{
	const struct progress_entry *e = progress_get(p, id);
	cr_assert_not_null(e, "no entry for %s", id);
	return e;
}

/* What progress.json holds now, loaded afresh (cleanly). */
static void load_clean(struct progress *p)
{
	progress_load(p);
	cr_assert_str_eq(p->problem, "", "the saved file does not load cleanly");
}

static const char third_lesson[] =
	"{\"lessons\": {\"three\": {\"furthest\": 4, \"steps\": 9, \"last\": 4}}, \"last_lesson\": \"three\"}\n";

Test(state_merge, two_sessions_should_keep_the_furthest_step_the_exercises_of_both_and_a_lesson_only_on_disk)
{
	put_text(pfile, third_lesson);
	struct progress a, b;
	load_clean(&a);
	load_clean(&b);
	/* qkv 1 in one terminal, qkv 1 and 2 in another */
	progress_visit(&a, "one", 5, 10);
	progress_mark(&a, "one#2.0", 1, 1);
	progress_visit(&b, "one", 3, 10);
	progress_mark(&b, "one#1.1", 1, 1);
	progress_visit(&b, "two", 2, 7);
	cr_assert_eq(progress_save(&a), 0, "%s", a.problem);
	cr_assert_eq(progress_save(&b), 0, "%s", b.problem);	/* the last writer */
	struct progress c;
	load_clean(&c);
	cr_assert_eq(entry(&c, "one")->furthest, 5, "the furthest step of lesson one was lost");
	cr_assert_eq(entry(&c, "one")->steps, 10);
	cr_assert_eq(entry(&c, "one")->last, 3, "the step seen last is the last session's");
	entry(&c, "one#2.0");
	entry(&c, "one#1.1");
	cr_assert_eq(entry(&c, "two")->furthest, 2);
	cr_assert_eq(entry(&c, "three")->furthest, 4, "the lesson only on disk was lost");
	cr_assert_eq(entry(&c, "three")->steps, 9);
	cr_assert_eq(c.n, 5, "%d entries", c.n);
	cr_assert_str_eq(c.last_lesson, "two");
	/* and the last writer now holds the merge too (for its menu) */
	cr_assert_eq(entry(&b, "one")->furthest, 5);
	entry(&b, "one#2.0");
	progress_free(&a);
	progress_free(&b);
	progress_free(&c);
	assert_names("progress.json ");
}

Test(state_merge, a_session_that_did_not_move_should_not_undo_what_another_saved)
{
	put_text(pfile, third_lesson);
	struct progress a, b;
	load_clean(&a);
	load_clean(&b);
	progress_visit(&b, "three", 7, 9);	/* further in lesson three, elsewhere */
	cr_assert_eq(progress_save(&b), 0, "%s", b.problem);
	progress_mark(&a, "three#1.0", 1, 1);	/* only an exercise here */
	cr_assert_eq(progress_save(&a), 0, "%s", a.problem);
	struct progress c;
	load_clean(&c);
	cr_assert_eq(entry(&c, "three")->furthest, 7);
	cr_assert_eq(entry(&c, "three")->last, 7, "a stale step seen last was written back");
	entry(&c, "three#1.0");
	cr_assert_str_eq(c.last_lesson, "three");
	progress_free(&a);
	progress_free(&b);
	progress_free(&c);
}

Test(state_merge, a_lesson_used_last_elsewhere_should_win_over_one_merely_loaded)
{
	put_text(pfile, third_lesson);
	struct progress a, b;
	load_clean(&a);
	load_clean(&b);
	progress_visit(&b, "two", 1, 7);
	cr_assert_eq(progress_save(&b), 0, "%s", b.problem);
	progress_mark(&a, "three", 5, 9);
	cr_assert_eq(progress_save(&a), 0, "%s", a.problem);
	struct progress c;
	load_clean(&c);
	cr_assert_str_eq(c.last_lesson, "two");
	cr_assert_eq(entry(&c, "three")->furthest, 5);
	progress_free(&a);
	progress_free(&b);
	progress_free(&c);
}

/* ---- writers in parallel ------------------------------------------------------------ */

enum { WRITERS = 4, WRITER_STEPS = 30 };

/* One session: loaded once, then a save after each step and exercise, as
 * the full screen does; exits 0 when every save worked. */
static void writer(int w)
{
	struct progress p;
	progress_load(&p);
	char id[32], key[48];
	snprintf(id, sizeof id, "lesson-%d", w);
	int failed = 0;
	for (int s = 1; s <= WRITER_STEPS; s++) {
		progress_visit(&p, id, s, WRITER_STEPS);
		snprintf(key, sizeof key, "%s#%d.0", id, s);
		progress_mark(&p, key, 1, 1);
		failed += progress_save(&p) != 0;
	}
	progress_free(&p);
	_exit(failed ? 1 : 0);
}

Test(state_merge, writers_in_parallel_should_lose_no_step_and_no_exercise)
{
	put_text(pfile, third_lesson);
	pid_t pids[WRITERS];
	fflush(NULL);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		cr_assert_geq(pids[w], 0);
		if (pids[w] == 0)
			writer(w);
	}
	for (int w = 0; w < WRITERS; w++) {
		int status;
		cr_assert_eq(waitpid(pids[w], &status, 0), pids[w]);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed a save", w);
	}
	struct progress p;
	load_clean(&p);
	for (int w = 0; w < WRITERS; w++) {
		char id[32], key[48];
		snprintf(id, sizeof id, "lesson-%d", w);
		cr_assert_eq(entry(&p, id)->furthest, WRITER_STEPS, "%s lost steps", id);
		for (int s = 1; s <= WRITER_STEPS; s++) {
			snprintf(key, sizeof key, "%s#%d.0", id, s);
			cr_assert_not_null(progress_get(&p, key), "%s was lost", key);
		}
	}
	cr_assert_eq(entry(&p, "three")->furthest, 4);
	cr_assert_eq(p.n, 1 + WRITERS * (WRITER_STEPS + 1), "%d entries", p.n);
	progress_free(&p);
	assert_names("progress.json ");
}

/* ---- saving as the student goes -------------------------------------------------------- */

/* The furthest step of lesson one in the file, or 0. */
static int furthest_on_disk(void)
{
	struct progress p;
	progress_load(&p);
	const struct progress_entry *e = progress_get(&p, "one");
	int f = e ? e->furthest : 0;
	progress_free(&p);
	return f;
}

Test(state_merge, pending_saves_should_come_at_most_once_a_gap_and_only_after_a_change)
{
	struct progress p;
	load_clean(&p);
	cr_assert_eq(progress_save_pending(&p, 5000, 1000), 0, "%s", p.problem);
	assert_names("");	/* nothing changed: nothing written */
	progress_visit(&p, "one", 2, 10);
	cr_assert_eq(progress_save_pending(&p, 5000, 1000), 0, "%s", p.problem);
	cr_assert_eq(furthest_on_disk(), 2, "the first change waits for nothing");
	progress_visit(&p, "one", 3, 10);
	cr_assert_eq(progress_save_pending(&p, 5500, 1000), 0);
	cr_assert_eq(furthest_on_disk(), 2, "saved again within the gap");
	cr_assert_eq(progress_save_pending(&p, 6000, 1000), 0, "%s", p.problem);
	cr_assert_eq(furthest_on_disk(), 3, "the pending change was not saved after the gap");
	progress_visit(&p, "one", 4, 10);
	cr_assert_eq(progress_save_pending(&p, 6100, 0), 0, "%s", p.problem);
	cr_assert_eq(furthest_on_disk(), 4, "a flush (gap 0) did not save");
	cr_assert_eq(unlink(pfile), 0);
	cr_assert_eq(progress_save_pending(&p, 9000, 1000), 0);
	assert_names("");	/* saved already: not written again */
	progress_free(&p);
}

Test(state_merge, a_save_failing_again_the_same_way_should_be_news_once)
{
	put_text(qdir, "a file where the directory goes");
	struct progress p;
	load_clean(&p);
	progress_visit(&p, "one", 2, 10);
	cr_assert_eq(progress_save_pending(&p, 1000, 1000), -1);
	char want[300];
	snprintf(want, sizeof want, "progress.json not saved: cannot make the directory %s (Not a directory)", qdir);
	cr_assert_str_eq(p.problem, want);
	p.problem[0] = 0;	/* shown */
	progress_visit(&p, "one", 3, 10);
	cr_assert_eq(progress_save_pending(&p, 1500, 1000), 0, "tried again within the gap");
	cr_assert_eq(progress_save_pending(&p, 2000, 1000), -1);
	cr_assert_str_eq(p.problem, "", "the same failure was news again");
	/* when qkv ends, the save says so once more (on stderr) */
	cr_assert_eq(progress_save(&p), -1);
	cr_assert_str_eq(p.problem, want);
	progress_free(&p);
}

Test(state_merge, a_file_damaged_since_the_load_should_be_set_aside_and_this_session_saved)
{
	struct progress p;
	load_clean(&p);
	progress_visit(&p, "one", 2, 10);
	put_text(pfile, "{\"lessons\": oops");	/* written meanwhile by something else */
	cr_assert_eq(progress_save(&p), 0, "%s", p.problem);
	cr_assert_str_eq(p.problem, "progress.json was unreadable, kept as progress.json.bad; this session's "
				    "progress saved in its place (line 1, column 13: not valid JSON)");
	assert_names("progress.json progress.json.bad ");
	progress_free(&p);
	cr_assert_eq(furthest_on_disk(), 2);
}

/* ---- the prompt's history ---------------------------------------------------------------- */

/* Loads the history file as the prompt does when it opens. */
static void history_open(int max)
{
	struct progress_history h;
	progress_history_load(&h, hfile, max);
	cr_assert_str_eq(h.problem, "");
	progress_history_free(&h);
}

static void history_save(const char *const *lines, int n, int max)
{
	char problem[512];
	cr_assert_eq(progress_history_save(hfile, lines, n, max, problem, sizeof problem), 0, "%s", problem);
}

static void assert_history(const char *want)
{
	char *got = read_text(hfile);
	cr_assert_str_eq(got ? got : "(no file)", want);
	free(got);
}

Test(state_merge, a_history_saved_by_another_session_meanwhile_should_keep_its_lines_and_get_ours)
{
	put_text(hfile, "A = 1\nB = 2\n");
	history_open(100);
	put_text(hfile, "A = 1\nB = 2\nOTHER = 3\n");	/* the other session quit first */
	const char *const ours[] = { "A = 1", "B = 2", "MINE = 4" };
	history_save(ours, 3, 100);
	assert_history("A = 1\nB = 2\nOTHER = 3\nMINE = 4\n");
	/* saved again later in the same session: only what is new since */
	const char *const more[] = { "A = 1", "B = 2", "MINE = 4", "MORE = 5" };
	history_save(more, 4, 100);
	assert_history("A = 1\nB = 2\nOTHER = 3\nMINE = 4\nMORE = 5\n");
	/* nothing new: the file is left as another session made it */
	put_text(hfile, "A = 1\nLATER = 6\n");
	history_save(more, 4, 100);
	assert_history("A = 1\nLATER = 6\n");
}

Test(state_merge, a_history_list_that_dropped_its_oldest_lines_should_still_append_only_the_new_ones)
{
	put_text(hfile, "a\nb\nc\n");
	history_open(3);
	put_text(hfile, "a\nb\nc\nx\n");	/* another session's line */
	const char *const ours[] = { "c", "d", "e" };	/* the list keeps 3: a and b dropped */
	history_save(ours, 3, 3);
	assert_history("x\nd\ne\n");	/* the newest 3 of a b c x d e */
}

Test(state_merge, an_old_line_edited_in_the_list_should_not_be_saved_twice)
{
	put_text(hfile, "a\nb\n");
	history_open(100);
	put_text(hfile, "a\nb\nx\n");
	const char *const ours[] = { "a", "b edited", "c" };	/* readline keeps an edit of a recalled line */
	history_save(ours, 3, 100);
	assert_history("a\nb\nx\nc\n");
}
