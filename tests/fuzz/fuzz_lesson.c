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
#include "lesson/runner.h"
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

/* Runs every step of l the way qkv check does, rendering each as qkv run
 * does; stops at the first step that fails (the lesson is refused then). */
static void run_lesson(const struct lesson *l, enum kernel_variant kv)
{
	struct runner *r = runner_new(l, kv);
	interp_ops(runner_interp(r))->max_elems = FUZZ_MAX_ELEMS;
	runner_set_progress(r, progress, NULL);
	struct render_opts o = { 80, true };
	struct strbuf out;
	strbuf_init(&out);
	render_lesson_header(&out, l, &o);
	struct qkv_error err;
	int rc = 0;
	for (int k = 0; k < l->nsteps && rc == 0; k++) {
		const struct step *st = &l->steps[k];
		struct step_result res;
		memset(&err, 0, sizeof err);
		rc = runner_step(r, &res, &err);
		FUZZ_CHECK(rc == 0 || err.msg[0]);
		for (int e = 0; rc == 0 && e < st->nexpects; e++) {
			struct expect_result er;
			rc = runner_expect(r, st, &res, e, &er, &err);
		}
		for (int e = 0; rc == 0 && e < st->nexercises; e++) {
			bool solved;
			char detail[256];
			rc = runner_check_exercise(r, st, e, &solved, detail, sizeof detail, &err);
			struct tensor *want = rc == 0 ? runner_exercise_expected(r, st, e, &err) : NULL;
			if (want) {
				/* the expected tensor judged against itself never
				 * fails (-1: the answer is a number, not a tensor) */
				char msg[512];
				FUZZ_CHECK(exercise_judge(runner_interp(r), &st->exercises[e], want, msg, sizeof msg) !=
					   0);
				tensor_unref(want);
			}
		}
		for (int i = 0; rc == 0 && i < res.nshown; i++) {
			const struct shown *sh = &res.shown[i];
			if (sh->t)
				fuzz_draw_tensor(sh->t, sh->show->expr ? sh->show->expr : "x", sh->show);
			if (sh->loops)
				fuzz_draw_tensor(sh->loops, "loops", sh->show);
		}
		if (rc == 0) {
			render_step(&out, l, k, &res, &o);
			render_step_json(&out, l, k, &res);
		}
		step_result_free(&res);
	}
	strbuf_free(&out);
	runner_free(r);
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
