/* fuzz_lesson.c: fuzzes the lesson loader (lesson/lesson.h) and the runner.
 * The bytes are a lesson file: lesson_parse loads and checks it; one that
 * loads is run as `qkv check` and `qkv run` would run it (every step, its
 * shows, expects and exercises, with timing progress reported), rendered
 * as text and as JSON, and what the screen would draw of each shown tensor
 * computed (draw.c), with tensors limited to FUZZ_MAX_ELEMS elements so
 * that nothing is slow. Built by make fuzz; with replay.c it replays saved
 * inputs without libFuzzer. */
#include "fuzz.h"
#include "core/strbuf.h"
#include "kernel/kernel.h"
#include "lesson/lesson.h"
#include "lesson/player.h"
#include "text/render.h"
#include "view/timing.h"

#include <string.h>

static void warn(void *udata, const char *message)
{
	(void)udata;
	FUZZ_CHECK(message && *message);
}

static void progress(void *ctx, const struct runner_progress *p)
{
	(void)ctx;
	char line[600];
	timing_progress_text(line, sizeof line, p);
}

/* Runs every step of l through the player, as qkv check does, rendering
 * each page as qkv run does; stops at the first step that fails (the lesson
 * is refused then). Each step's exercises are judged in its workspace. */
static void run_lesson(const struct lesson *l, enum kernel_variant kv)
{
	struct player *p = player_new(l, kv);
	player_set_max_elems(p, FUZZ_MAX_ELEMS);
	player_set_progress(p, progress, NULL);
	struct render_opts o = { 80, true };
	struct strbuf out;
	strbuf_init(&out);
	render_lesson_header(&out, l, &o);
	struct qkv_error err;
	int rc = 0;
	for (int k = 0; k < l->nsteps && rc == 0; k++) {
		const struct step *st = &l->steps[k];
		int at;
		memset(&err, 0, sizeof err);
		rc = player_go(p, k, &at, &err);
		FUZZ_CHECK(rc == 0 || err.msg[0]);
		FUZZ_CHECK(at == k);
		for (int e = 0; rc == 0 && e < st->nexpects; e++) {
			struct expect_result er;
			rc = player_expect(p, k, e, &er, &err);
		}
		for (int e = 0; rc == 0 && e < st->nexercises; e++) {
			bool solved;
			char detail[256];
			rc = player_check_exercise(p, k, e, &solved, detail, sizeof detail, &err);
		}
		const struct step_result *res = player_result(p, k);
		for (int i = 0; rc == 0 && i < res->nshown; i++) {
			const struct shown *sh = &res->shown[i];
			if (sh->t)
				fuzz_draw_tensor(sh->t, sh->show->expr ? sh->show->expr : "x", sh->show);
			if (sh->loops)
				fuzz_draw_tensor(sh->loops, "loops", sh->show);
		}
		struct page pg;
		page_build(&pg, p, k);
		struct page_lines pl = { 0 };
		page_layout(&pg, 0, -1, 40 + k % 80, &pl);
		page_lines_free(&pl);
		render_step(&out, &pg, &o);
		page_free(&pg);
		if (rc == 0)
			render_step_json(&out, l, k, res);
	}
	/* back to the first step: its workspace and shows, from its snapshot */
	if (player_ran(p) > 1 && player_state(p, 0) == STEP_RAN) {
		struct interp *I = player_workspace(p, 0);
		FUZZ_CHECK(I != NULL);
		FUZZ_CHECK(player_show_again(p, 0, &err) <= 0);
	}
	strbuf_free(&out);
	player_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kernel_set_threads(1);
	struct qkv_error err;
	memset(&err, 0, sizeof err);
	struct lesson *l = lesson_parse("fuzz.json", (const char *)data, size, warn, NULL, &err);
	if (!l) {
		FUZZ_CHECK(err.msg[0]);
		return 0;
	}
	/* the simd kernels by default; loops when the file's size is odd, so
	 * both run without a byte of the file set aside */
	run_lesson(l, size & 1 ? KERNEL_LOOPS : KERNEL_SIMD);
	lesson_free(l);
	return 0;
}
