/* screen.c: the lesson screen: header with progress, the step's page (its
 * narration, code and output as view/page lays them out, as `qkv run` prints
 * them), the step's view (heatmap, loops/unrolled/SIMD, token view, timing),
 * the cell inspector and the status line; and its keys (e exports the view:
 * export_key.c). Steps run through lesson/player, which keeps every result
 * and workspace, so going back is instant. An error in a step is shown in
 * the status line and the program goes on. Ctrl-C while steps run cancels
 * (see player_go); Enter runs the step, or computes its cancelled view,
 * again. */
#include "ui/internal.h"
#include "core/mem.h"
#include "core/utf8.h"
#include "view/inspect.h"
#include "view/page.h"
#include "view/temper.h"
#include "view/tokens.h"
#include "view/timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- running steps ----------------------------------------------------------- */

/* Enter on a step whose show Ctrl-C stopped: computes its shows again. */
static void show_again(struct app *a)
{
	loops_stop(&a->loops);	/* it animates a tensor about to be replaced */
	struct job j = { .kind = JOB_SHOW_AGAIN, .player = a->player, .k = a->step };
	job_run(a, &j);
	if (j.rc == PLAYER_INTERRUPTED) {
		snprintf(a->status, sizeof a->status, " Cancelled (Ctrl-C) again: Enter computes it again.");
		a->status_error = true;
	} else if (j.rc < 0) {
		utf8_snprintf(a->status, sizeof a->status, "%s", j.err.msg);
		a->status_error = true;
	}
}

/* The cursor and slice a view opens with: a token view on the lesson's
 * chosen query, anything else at its first cell. */
static void view_start(struct app *a)
{
	a->cur_r = a->cur_c = 0;
	a->slice[0] = a->slice[1] = -1;
	const struct step *st = &a->lesson->steps[a->step];
	if (a->show < st->nshows && st->shows[a->show].kind == SHOW_TOKENS)
		a->cur_r = (int)st->shows[a->show].query;
}

/* The view of a step just arrived at: its first show, as it opens. */
static void reset_view(struct app *a)
{
	a->show = 0;
	a->temper = 0;
	view_start(a);
	a->text_scroll = 0;
	loops_stop(&a->loops);
}

void screen_go_to(struct app *a, int k)
{
	prompt_close(a);	/* the prompt belongs to the step it was opened on */
	if (k < 0)
		k = 0;
	if (k >= a->lesson->nsteps)
		k = a->lesson->nsteps - 1;
	struct job j = { .kind = JOB_GO, .player = a->player, .k = k };
	job_run(a, &j);
	int rc = j.rc, at = j.at;
	struct qkv_error err = j.err;
	if (rc == PLAYER_INTERRUPTED && player_state(a->player, at) == STEP_NOT_RUN) {
		snprintf(a->status, sizeof a->status, " Cancelled (Ctrl-C): step %d has not run; Enter runs it.", at + 1);
		a->status_error = true;
	} else if (rc == PLAYER_INTERRUPTED) {
		snprintf(a->status, sizeof a->status, " Cancelled (Ctrl-C) before its view was complete: Enter "
			 "computes it again.");
		a->status_error = true;
	} else if (rc < 0) {
		utf8_snprintf(a->status, sizeof a->status, "%s", err.msg);
		a->status_error = true;
	}
	if (at != a->step) {
		a->step = at;
		reset_view(a);
	}
	progress_visit(&a->progress, a->lesson->id, at + 1, a->lesson->nsteps);
}

int screen_open(struct app *a, const char *arg, int step)
{
	struct qkv_error err;
	struct lesson *l = catalog_resolve(&a->catalog, arg, NULL, NULL, &err);
	if (!l) {
		utf8_snprintf(a->status, sizeof a->status, "%s", err.msg);
		a->status_error = true;
		return -1;
	}
	screen_close(a);
	a->lesson = l;
	a->zoom = 0;
	a->player = player_new(l, a->opt.variant);
	player_set_progress(a->player, job_progress, NULL);
	player_set_interrupt(a->player, term_interrupt_flag());	/* Ctrl-C */
	a->step = -1;
	a->screen = SCREEN_LESSON;
	a->status[0] = 0;
	a->status_error = false;
	/* no step asked for: where the student left off */
	const struct progress_entry *pe = progress_get(&a->progress, l->id);
	int resume = step == 0 && pe && pe->last > 1 && pe->last <= l->nsteps ? pe->last : 0;
	screen_go_to(a, step > 0 ? step - 1 : resume > 0 ? resume - 1 : 0);
	if (resume && a->step == resume - 1 && !a->status[0])
		snprintf(a->status, sizeof a->status, " Resumed at step %d of %d, where you left off (Home: step 1).",
			 resume, l->nsteps);
	return 0;
}

void screen_close(struct app *a)
{
	if (!a->lesson)
		return;
	prompt_close(a);
	player_free(a->player);
	lesson_free(a->lesson);
	loops_stop(&a->loops);
	a->lesson = NULL;
	a->player = NULL;
	progress_save(&a->progress);
}

/* ---- what the view shows ------------------------------------------------------- */

static const struct step_result *current(const struct app *a)
{
	return player_result(a->player, a->step);
}

static const struct shown *current_shown(const struct app *a)
{
	const struct step_result *r = current(a);
	if (!r || r->nshown == 0)
		return NULL;
	int i = a->show < r->nshown ? a->show : 0;
	return &r->shown[i];
}

/* The 2-D matrix of a shown tensor and its cursor limits. */
/* The tensor the view draws: the shown one, or with the temperature knob
 * turned, its what-if copy (view/temper.h). A new reference. */
static struct tensor *view_tensor(const struct app *a, const struct shown *sh)
{
	struct tensor *t = a->temper ? temper_apply(sh->t, ldexp(1.0, a->temper)) : NULL;
	return t ? t : tensor_ref(sh->t);
}

static void build_heatmap(struct app *a, const struct shown *sh, struct heatmap *h)
{
	const struct show *s = sh->show;
	int64_t slice[2] = { s->nslice > 0 ? s->slice[0] : 0, s->nslice > 1 ? s->slice[1] : 0 };
	for (int i = 0; i < 2; i++)
		if (a->slice[i] >= 0)
			slice[i] = a->slice[i];
	struct tensor *t = view_tensor(a, sh);
	heatmap_build(h, t, slice, 2, s->rows, s->nrows, s->cols, s->ncols, s->scale);
	heatmap_set_show_name(h, s);
	tensor_unref(t);
	if (a->cur_r >= h->rows)
		a->cur_r = h->rows - 1;
	if (a->cur_c >= h->cols)
		a->cur_c = h->cols - 1;
}

/* The flat index in t of the cursor's cell in the shown slice. */
static int64_t cursor_flat(const struct app *a, const struct shown *sh)
{
	const struct tensor *t = sh->t;
	int nd = t->ndim, lead = nd > 2 ? nd - 2 : 0;
	int64_t r = nd >= 2 ? t->shape[nd - 2] : 1, c = nd >= 1 ? t->shape[nd - 1] : 1;
	int64_t base = 0;
	for (int i = 0; i < lead; i++) {
		int64_t idx = a->slice[i] >= 0 ? a->slice[i] : (sh->show->nslice > i ? sh->show->slice[i] : 0);
		base = base * t->shape[i] + idx;
	}
	return base * r * c + (int64_t)a->cur_r * c + a->cur_c;
}

/* ---- drawing ------------------------------------------------------------------- */

/* The step being looked at: the one a timing runs in, while it runs. */
static int drawn_step(const struct app *a)
{
	int k = player_running(a->player);
	return k >= 0 ? k : a->step >= 0 ? a->step : 0;	/* -1: the lesson is opening */
}

static void draw_header(struct app *a)
{
	char left[256], right[64];
	snprintf(left, sizeof left, " %s", a->lesson->title);
	int k = drawn_step(a);
	snprintf(right, sizeof right, " step %d/%d ", k + 1, a->lesson->nsteps);
	attron(A_REVERSE);
	mvhline(0, 0, ' ', a->cols);
	int bar = a->cols >= 100 ? 20 : 10;
	int rw = term_width_of(right) + bar + 2;
	draw_fit(0, 0, left, a->cols - rw - 1);
	term_put(0, a->cols - rw, right, rw);
	/* the progress bar */
	int filled = (k + 1) * bar / a->lesson->nsteps;
	for (int i = 0; i < bar; i++)
		term_put(0, a->cols - bar - 1 + i, i < filled ? "\u2588" : "\u2591", 1);
	attroff(A_REVERSE);
}

static void draw_status(struct app *a)
{
	int y = a->rows - 1;
	move(y, 0);
	clrtoeol();
	if (a->timing || player_running(a->player) >= 0) {
		char done[96], line[160];
		job_progress_note(done, sizeof done);	/* after half a second: how far */
		snprintf(line, sizeof line, " Running%s\u2026  %s%sCtrl-C cancels it", a->timing ? " the timing" : "",
			 done, done[0] ? "  " : "");
		attron(A_BOLD);
		term_put(y, 0, line, a->cols);
		attroff(A_BOLD);
		return;
	}
	if (a->status[0]) {
		attron(a->status_error ? A_BOLD : A_NORMAL);
		draw_fit(y, 0, a->status, a->cols);
		attroff(A_BOLD);
		return;
	}
	/* the keys of the pane with focus, the longest list that fits whole */
	static const char *const view_keys[] = {
		" \u2190/\u2192 step  Tab text  arrows cell  +/- zoom  [ ] slice  t/T temperature  v view  e export  : prompt  ? help  q quit",
		" \u2190/\u2192 step  Tab text  arrows cell  +/- zoom  [ ] slice  v view  e export  : prompt  ? help  q quit",
		" \u2190/\u2192 step  Tab text  arrows cell  +/- zoom  v view  e export  ? help  q quit",
		" \u2190/\u2192 step  Tab text  arrows cell  +/- zoom  v view  ? help  q quit",
	};
	static const char *const text_keys[] = {
		" \u2190/\u2192 step  g go to  Tab view  \u2191/\u2193 PgUp/PgDn scroll  v view  e export  : prompt  ? help  q quit",
		" \u2190/\u2192 step  g go to  Tab view  \u2191/\u2193 scroll  v view  e export  : prompt  ? help  q quit",
		" \u2190/\u2192 step  g go to  Tab view  \u2191/\u2193 scroll  v view  : prompt  ? help  q quit",
	};
	const char *const *list = a->focus == PANE_VIEW ? view_keys : text_keys;
	int n = a->focus == PANE_VIEW ? 4 : 3;
	const struct shown *sh = current_shown(a);
	bool slices = sh && sh->t && heatmap_slice_count(sh->t) > 1;	/* [ ] where there is one to go to */
	char keys[256];
	for (int i = 0; i < n; i++) {
		snprintf(keys, sizeof keys, "%s", list[i]);
		char *sl = slices ? NULL : strstr(keys, "  [ ] slice");
		if (sl)
			memmove(sl, sl + 11, strlen(sl + 11) + 1);
		if (term_width_of(keys) <= a->cols)
			break;
	}
	char *e = strstr(keys, "  e export");
	if (e && sh && sh->show->kind == SHOW_COMPARE)
		e[2] = 'E';	/* a compare view's e runs its panels to the end (view_key) */
	attron(A_DIM);
	term_put(y, 0, keys, a->cols);
	attroff(A_DIM);
}

/* The page of the step looked at, its exercises marked as progress.json
 * has them and with how to answer them here. */
static void text_page(struct app *a, struct page *pg)
{
	int k = drawn_step(a);
	const struct step *st = &a->lesson->steps[k];
	bool solved[64] = { false };
	for (int e = 0; e < st->nexercises && e < 64; e++) {
		char key[160];
		snprintf(key, sizeof key, "%.120s#%d.%d", a->lesson->id, k, e);	/* as the prompt keeps them */
		solved[e] = progress_get(&a->progress, key) != NULL;
	}
	page_build_exercises(pg, a->player, k, st->nexercises <= 64 ? solved : NULL,
			     "Press : to answer at the prompt (:hint and :solution help there).");
}

/* The step's title, then its page (narration, code with its output, its
 * state, notes), pl as view/page laid it out for w columns, from line
 * text_scroll; "↓ more" on the last line when more follows. */
static void draw_text(struct app *a, const char *title, const struct page_lines *pl, int y, int x, int w, int h)
{
	int total = pl->n + 2;	/* the title and a blank line first */
	if (a->text_scroll > total - h)
		a->text_scroll = total - h > 0 ? total - h : 0;
	bool more = a->text_scroll + h < total;
	int rows = more ? h - 1 : h;
	a->text_h = rows;	/* for Page Down */
	for (int i = 0; i < rows; i++) {
		int li = a->text_scroll + i;
		if (li == 0) {
			attron(A_BOLD);
			draw_fit(y + i, x, title, w);
			attroff(A_BOLD);
		} else if (li >= 2 && li - 2 < pl->n) {
			const struct page_line *ln = &pl->lines[li - 2];
			attr_t at = ln->style == PAGE_STATUS || ln->style == PAGE_EXERCISE ? A_BOLD : A_NORMAL;
			attron(at);
			draw_fit(y + i, x, ln->text, w);
			attroff(at);
		}
	}
	if (more && h > 0) {
		attron(A_DIM);
		term_put(y + h - 1, x + w - 6, "\u2193 more", 6);
		attroff(A_DIM);
	}
}

/* The inspector of the cursor's cell into sb: the arithmetic behind it
 * (view/inspect.h) wrapped to w columns, or with the temperature knob
 * turned the tempered value beside the lesson's. Returns the lines it
 * takes as drawn. */
static int inspector_text(struct app *a, const struct shown *sh, int w, struct strbuf *sb)
{
	char name[160];
	/* named as the legend names it: EXPR:NAME by its NAME */
	const struct show *s = sh->show;
	snprintf(name, sizeof name, "%s", s->local ? s->local : s->expr ? s->expr : "x");
	int64_t flat = cursor_flat(a, sh);
	struct tensor *t = view_tensor(a, sh);
	if (t != sh->t)
		temper_inspect(sb, sh->t, t, name, flat, a->temper);	/* the knob turned */
	else
		inspect_cell(sb, sh->t, name, flat, w);
	tensor_unref(t);
	return sb->s ? draw_wrapped(sb->s, 0, 0, w, 0, 0, A_NORMAL) : 0;
}

/* The lines the inspector gets in a heatmap view of hh lines (after its
 * title and slice) that needs need: all of them while the heatmap keeps 4
 * (a header, two rows, the legend), and at least one. */
static int inspector_room(int need, int hh)
{
	int most = hh - 4 > 1 ? hh - 4 : 1;
	return need < most ? need : most;
}

static void draw_tokens(struct app *a, const struct shown *sh, int y, int x, int w, int hh)
{
	struct tokens_view tv;
	struct tensor *t = view_tensor(a, sh);
	tokens_build(&tv, sh->show, t, a->cur_r);
	tensor_unref(t);
	char buf[256];
	snprintf(buf, sizeof buf, "query token: %s%s   (\u2191/\u2193 choose)", tv.query_label,
		 tv.query_named ? "" : " (counting from 0)");
	draw_fit(y, x, buf, w);
	int lw = 10, colw = (w - lw - 1) / (int)tv.nheads;
	int shown_heads = (int)tv.nheads;
	if (colw < 10) {
		colw = 10;
		shown_heads = (w - lw - 1) / colw;
	}
	for (int hd = 0; hd < shown_heads; hd++) {
		attron(A_BOLD);
		draw_fit(y + 1, x + lw + 1 + hd * colw, tv.heads[hd], colw - 1);
		attroff(A_BOLD);
	}
	for (int64_t k = 0; k < tv.ntok && k + 2 < hh; k++) {
		struct strbuf lab;
		strbuf_init(&lab);
		term_fit(&lab, tv.keys[k], lw, 1);
		term_put(y + 2 + (int)k, x, lab.s, lw);
		strbuf_free(&lab);
		for (int hd = 0; hd < shown_heads; hd++) {
			double v = tv.w[k * tv.nheads + hd];
			int bw = colw - 7;
			int n = isfinite(v) ? (int)floor(v * bw + 0.5) : 0;
			n = n < 0 ? 0 : n > bw ? bw : n;
			char bar[512] = "";
			size_t bl = 0;
			for (int i = 0; i < n && bl + 4 < sizeof bar; i++) {
				memcpy(bar + bl, "\u2588", 3);
				bl += 3;
			}
			bar[bl] = 0;
			char line[600];
			snprintf(line, sizeof line, "%5.3f %s", v, bar);
			term_put(y + 2 + (int)k, x + lw + 1 + hd * colw, line, colw - 1);
		}
	}
	tokens_free(&tv);
}

/* A bar of n of w cells, the rest shaded. */
static void draw_bar(int y, int x, int w, int n)
{
	for (int k = 0; k < w; k++)
		term_put(y, x + k, k < n ? "\u2588" : "\u2591", 1);
}

/* A timing show: each entry's label and time with a bar (scaled to the
 * longest time), and from the second on its ratio to the first. While it
 * runs (p set) a progress line comes first, and the entries from p->entry on
 * say that they are running or waiting. */
static void draw_timing(const struct show *s, const double *ms, const struct runner_progress *p, int y, int x,
			int w, int hh)
{
	int end = y + hh, ndone = p ? p->entry + (p->finished ? 1 : 0) : s->ntimings;
	char buf[600];
	bool cancelled = false;
	for (int i = 0; !p && i < s->ntimings; i++)
		cancelled |= isnan(ms[i]);
	if (cancelled) {
		attron(A_BOLD);
		term_put(y, x, "Cancelled (Ctrl-C) before every entry was timed: Enter times them again.", w);
		attroff(A_BOLD);
		y += 2;
	}
	if (p) {
		/* one line when it fits, else what runs above where it is */
		timing_progress_text(buf, sizeof buf, p);
		attron(A_BOLD);
		if (term_width_of(buf) > w) {
			char where[64];
			timing_progress_what(buf, sizeof buf, p);
			timing_progress_where(where, sizeof where, p);
			term_put(y, x, buf, w);
			term_put(++y, x, where, w);
		} else {
			term_put(y, x, buf, w);
		}
		attroff(A_BOLD);
		int bw = w - 2 > 60 ? 60 : w - 2;
		draw_bar(++y, x + 1, bw, p->nstatements > 0 ? (int)((double)p->statement / p->nstatements * bw) : 0);
		y += 2;
	}
	double max = 0;
	int lw = 0;
	for (int i = 0; i < s->ntimings; i++) {
		if (i < ndone && !isnan(ms[i]))
			max = ms[i] > max ? ms[i] : max;
		char label[TIMING_LABEL_MAX];
		timing_label_text(label, sizeof label, &s->timings[i]);
		int tw = term_width_of(label);
		lw = tw > lw ? tw : lw;
	}
	if (lw > w - 32)
		lw = w - 32 > 10 ? w - 32 : 10;
	for (int i = 0; i < s->ntimings && y + 1 < end; i++, y += 2) {
		char label[TIMING_LABEL_MAX];
		timing_label_text(label, sizeof label, &s->timings[i]);
		draw_fit(y, x, label, lw);
		if (i < ndone && isnan(ms[i])) {
			attron(A_DIM);
			term_put(y, x + lw + 1, "   cancelled", w - lw - 1);
			attroff(A_DIM);
		} else if (i < ndone) {
			char ratio[64];
			timing_ratio_text(ratio, sizeof ratio, ms, i);
			snprintf(buf, sizeof buf, "%9.1f ms  %s", ms[i], ratio);
			term_put(y, x + lw + 1, buf, w - lw - 1);
			int bw = w - 2, n = max > 0 ? (int)(ms[i] / max * bw) : 0;
			for (int k = 0; k < n; k++)
				term_put(y + 1, x + 1 + k, "\u2588", 1);
		} else {
			attron(A_DIM);
			term_put(y, x + lw + 1, i == p->entry ? "   running\u2026" : "   waiting", w - lw - 1);
			attroff(A_DIM);
		}
	}
}

static void draw_view(struct app *a, int y, int x, int w, int hh)
{
	if (a->prompt.open) {
		attron(A_BOLD);
		draw_fit(y, x, "prompt: your own statements on a copy of this step's workspace (:help)", w);
		attroff(A_BOLD);
		prompt_draw_view(a, y + 1, x, w, hh - 1);
		return;
	}
	if (a->timing) {
		/* a timing show running: the step has no result yet */
		const struct show *s = a->timing->show;
		char title[400];
		snprintf(title, sizeof title, "timing: %s", s->title ? s->title : "how long each takes");
		attron(A_BOLD);
		draw_fit(y, x, title, w);
		attroff(A_BOLD);
		draw_timing(s, a->timing->done_ms, a->timing, y + 1, x, w, hh - 1);
		return;
	}
	if (player_running(a->player) >= 0) {
		/* a step runs (a job, drawing this frame): its result is not ready */
		attron(A_DIM);
		term_put(y, x, "(running\u2026 Ctrl-C cancels it)", w);
		attroff(A_DIM);
		return;
	}
	const struct step_result *r = current(a);
	const struct shown *sh = current_shown(a);
	enum step_state state = player_state(a->player, a->step);
	if (state == STEP_NOT_RUN) {
		attron(A_DIM);
		term_put(y, x, "(not run: cancelled with Ctrl-C; Enter runs it)", w);
		attroff(A_DIM);
		return;
	}
	if (sh && sh->cancelled && sh->show->kind != SHOW_TIMING) {
		attron(A_DIM);
		term_put(y, x, "(cancelled with Ctrl-C: Enter computes it again)", w);
		attroff(A_DIM);
		return;
	}
	if (!r || !sh || !page_shown_ready(sh)) {
		attron(A_DIM);
		term_put(y, x, state == STEP_FAILED || state == STEP_BLOCKED ? "(nothing to show: the step failed)" :
			 "(this step shows no tensor)", w);
		attroff(A_DIM);
		return;
	}
	const struct show *s = sh->show;
	static const char *kinds[] = { "heatmap", "loops, unrolled, SIMD", "token view", "timing" };
	/* the title: the knob first, so a narrow view still shows it; what the
	 * view shows cut with "…" before the key to the next view is */
	char head[128] = "", knob[64] = "";
	const char *what = s->title ? s->title : s->expr ? s->expr : s->kind == SHOW_TIMING ? "how long each takes" : "";
	if (a->temper) {
		char f[16];
		temper_label(f, sizeof f, a->temper);
		snprintf(knob, sizeof knob, "[scores %s: t T 0] ", f);
	}
	if (r->nshown > 1)
		snprintf(head, sizeof head, "%s[%d/%d] %s: ", knob, a->show + 1, r->nshown, kinds[s->kind]);
	else
		snprintf(head, sizeof head, "%s%s: ", knob, kinds[s->kind]);
	attron(a->focus == PANE_VIEW ? A_BOLD | A_UNDERLINE : A_BOLD);
	draw_fit_parts(y, x, w, head, what, r->nshown > 1 ? "  (v: next)" : "");
	attroff(A_BOLD | A_UNDERLINE);
	y++;
	hh--;
	switch (s->kind) {
	case SHOW_HEATMAP: {
		struct heatmap h;
		build_heatmap(a, sh, &h);	/* (it keeps the cursor in the matrix) */
		if (h.slice_name[0]) {
			char sl[128];
			snprintf(sl, sizeof sl, heatmap_slice_count(sh->t) > 1 ? "%s   ([ ] to change)" : "%s", h.slice_name);
			draw_fit(y++, x, sl, w);
			hh--;
		}
		/* the inspector, whole under the heatmap while the heatmap keeps its least */
		struct strbuf isb;
		strbuf_init(&isb);
		int insp = a->focus == PANE_VIEW ? inspector_room(inspector_text(a, sh, w, &isb), hh) : 0;
		/* where the cells go, for a click on them (screen_mouse) */
		heatmap_layout(&h, draw_heatmap_ink(a), w, hh - insp, a->zoom, a->big, a->cur_r, a->cur_c, &a->heat_layout);
		a->heat_drawn = true;
		a->heat_y = y;
		a->heat_x = x;
		draw_heatmap(a, &h, y, x, hh - insp, w, a->cur_r, a->cur_c, a->focus == PANE_VIEW, a->zoom, a->big);
		if (insp)	/* right under the heatmap */
			draw_wrapped(isb.s, y + a->heat_layout.height, x, w, insp, 0, A_BOLD);
		strbuf_free(&isb);
		heatmap_free(&h);
		break;
	}
	case SHOW_COMPARE: {
		struct loops_view lv = { .t = sh->t, .expr = s->expr, .loops_ms = sh->loops_ms, .simd_ms = sh->simd_ms,
					 .max_diff = sh->max_diff, .agree = sh->agree, .unrolled_ms = sh->unrolled_ms,
					 .unrolled_diff = sh->unrolled_diff, .unrolled_agree = sh->unrolled_agree,
					 .scale = s->scale, .rows = s->rows, .cols = s->cols, .nrows = s->nrows,
					 .ncols = s->ncols, .cursor = a->focus == PANE_VIEW, .cur_r = a->cur_r,
					 .cur_c = a->cur_c };
		loops_draw(a, &a->loops, &lv, y, x, w, hh);
		break;
	}
	case SHOW_TOKENS:
		draw_tokens(a, sh, y, x, w, hh);
		break;
	case SHOW_TIMING:
		draw_timing(s, sh->timing_ms, NULL, y, x, w, hh);
		break;
	}
}


/* Lines the view wants at width w, max at most: a heatmap its grid at the
 * zoom the room allows, with its title, slice and inspector; a token view
 * its tokens; a timing its entries; anything else all there is. */
static int view_height(struct app *a, int w, int max)
{
	const struct shown *sh = player_running(a->player) >= 0 || a->timing ? NULL : current_shown(a);
	if (a->prompt.open || a->timing)
		return max;
	if (!sh || !page_shown_ready(sh))
		return 3 < max ? 3 : max;
	int need = max;
	switch (sh->show->kind) {
	case SHOW_HEATMAP: {
		struct heatmap h;
		build_heatmap(a, sh, &h);
		int extra = 1 + (h.slice_name[0] ? 1 : 0);
		if (a->focus == PANE_VIEW) {
			struct strbuf isb;
			strbuf_init(&isb);
			extra += inspector_room(inspector_text(a, sh, w, &isb), max - extra);
			strbuf_free(&isb);
		}
		struct heatmap_layout L;
		heatmap_layout(&h, draw_heatmap_ink(a), w, max - extra, a->zoom, a->big, a->cur_r, a->cur_c, &L);
		need = L.height + extra;
		heatmap_free(&h);
		break;
	}
	case SHOW_TOKENS:
		need = 4 + (int)sh->t->shape[sh->t->ndim - 1];
		break;
	case SHOW_TIMING:
		need = 4 + 2 * sh->show->ntimings;
		break;
	case SHOW_COMPARE:
		break;
	}
	return need < max ? need : max;
}

void screen_draw(struct app *a)
{
	erase();
	a->heat_drawn = false;
	draw_header(a);
	int top = 1, bottom = a->rows - 1 - prompt_lines(a);
	int avail = bottom - top;
	struct page pg;
	struct page_lines pl = { 0 };
	text_page(a, &pg);
	if (a->cols >= PAGE_WIDE_COLS) {
		/* wide: the text on the left, the view on the right */
		int tw = page_wide_text_cols(a->cols);
		page_layout(&pg, 0, -1, tw - 2, &pl);
		draw_text(a, pg.title, &pl, top + 1, 1, tw - 2, avail - 1);
		term_vline(top, tw, avail);
		draw_view(a, top + 1, tw + 2, a->cols - tw - 3, avail - 1);
	} else {
		/* the text above the view, each as high as it needs when both fit;
		 * else the text keeps at least 2/5 (or what it needs, if less) and
		 * the view what it needs of the rest */
		page_layout(&pg, 0, -1, a->cols - 2, &pl);
		int need_t = pl.n + 2;	/* the title and a blank line first */
		int least = avail * 2 / 5 < 6 ? 6 : avail * 2 / 5;
		least = need_t < least ? need_t : least;
		int need_v = view_height(a, a->cols - 2, avail - 1 - least);
		int th = avail - 1 - need_v;
		th = th > need_t ? need_t : th < least ? least : th;
		if (th < 3)
			th = 3;
		draw_text(a, pg.title, &pl, top, 1, a->cols - 2, th);
		term_hline(top + th, 0, a->cols);
		draw_view(a, top + th + 1, 1, a->cols - 2, avail - th - 1);
	}
	page_lines_free(&pl);
	page_free(&pg);
	if (a->prompt.open)
		prompt_draw(a, bottom);
	else
		draw_status(a);
}

/* ---- keys ---------------------------------------------------------------------- */

static void move_cursor(struct app *a, int dr, int dc)
{
	const struct shown *sh = current_shown(a);
	if (!sh || !sh->t)
		return;
	const struct tensor *t = sh->t;
	int nd = t->ndim;
	int rows = nd >= 2 ? (int)t->shape[nd - 2] : 1, cols = nd >= 1 ? (int)t->shape[nd - 1] : 1;
	if (sh->show->kind == SHOW_TOKENS)
		cols = 1;
	a->cur_r += dr;
	a->cur_c += dc;
	a->cur_r = a->cur_r < 0 ? 0 : a->cur_r >= rows ? rows - 1 : a->cur_r;
	a->cur_c = a->cur_c < 0 ? 0 : a->cur_c >= cols ? cols - 1 : a->cur_c;
}

static void change_slice(struct app *a, int delta)
{
	const struct shown *sh = current_shown(a);
	if (!sh || !sh->t || sh->t->ndim < 3)
		return;
	const struct tensor *t = sh->t;
	int lead = t->ndim - 2;
	/* the innermost leading index moves first (head), then the batch */
	int64_t idx[2] = { 0, 0 };
	for (int i = 0; i < lead; i++)
		idx[i] = a->slice[i] >= 0 ? a->slice[i] : (sh->show->nslice > i ? sh->show->slice[i] : 0);
	int64_t flat = lead == 2 ? idx[0] * t->shape[1] + idx[1] : idx[0];
	int64_t total = lead == 2 ? t->shape[0] * t->shape[1] : t->shape[0];
	flat = (flat + delta + total) % total;
	if (lead == 2) {
		a->slice[0] = flat / t->shape[1];
		a->slice[1] = flat % t->shape[1];
	} else {
		a->slice[0] = flat;
	}
}

/* ':' opens the prompt on a copy of this step's workspace (the player's
 * snapshot), when the step ran. */
static void open_prompt(struct app *a)
{
	enum step_state state = player_state(a->player, a->step);
	if (state == STEP_FAILED || state == STEP_BLOCKED) {
		snprintf(a->status, sizeof a->status, "This step's code failed; the prompt needs a step that ran.");
		a->status_error = true;
	} else if (state == STEP_NOT_RUN) {
		snprintf(a->status, sizeof a->status, "This step has not run (cancelled): Enter runs it.");
		a->status_error = true;
	} else {
		prompt_open(a, player_workspace(a->player, a->step), &a->lesson->steps[a->step], a->step);
	}
}

/* Keys that move between steps; false when ch is not one of them. */
static bool step_key(struct app *a, int ch)
{
	switch (ch) {
	case 'n': case ' ': screen_go_to(a, a->step + 1); return true;
	case 'p': screen_go_to(a, a->step - 1); return true;
	case KEY_HOME: screen_go_to(a, 0); return true;
	case KEY_END: screen_go_to(a, a->lesson->nsteps - 1); return true;
	case 'g':
		a->overlay = OVERLAY_GOTO;
		a->goto_buf[0] = 0;
		return true;
	case '\n': case KEY_ENTER:
		/* after a Ctrl-C: the step, or its view, again */
		if (player_state(a->player, a->step) == STEP_NOT_RUN)
			screen_go_to(a, a->step);
		else if (player_shows_cancelled(a->player, a->step))
			show_again(a);
		return true;
	}
	return false;
}

/* The arrows and scrolling keys: the text pane scrolls, the view pane moves
 * the cell cursor (left and right move between steps in the text). */
static bool pane_key(struct app *a, int ch)
{
	bool view = a->focus == PANE_VIEW;
	switch (ch) {
	case KEY_RIGHT: if (view) move_cursor(a, 0, 1); else screen_go_to(a, a->step + 1); return true;
	case KEY_LEFT: if (view) move_cursor(a, 0, -1); else screen_go_to(a, a->step - 1); return true;
	case KEY_UP: case 'k':
		if (view)
			move_cursor(a, -1, 0);
		else if (a->text_scroll > 0)
			a->text_scroll--;
		return true;
	case KEY_DOWN: case 'j':
		if (view)
			move_cursor(a, 1, 0);
		else
			a->text_scroll++;
		return true;
	case KEY_NPAGE:
		a->text_scroll += a->text_h > 1 ? a->text_h : 1;
		return true;
	case KEY_PPAGE:
		a->text_scroll -= a->text_h > 1 ? a->text_h : 1;
		a->text_scroll = a->text_scroll < 0 ? 0 : a->text_scroll;
		return true;
	case 'h': move_cursor(a, 0, -1); return true;
	case 'l': move_cursor(a, 0, 1); return true;
	case '\t': a->focus = view ? PANE_TEXT : PANE_VIEW; return true;
	}
	return false;
}

/* The temperature knob: t doubles the factor on the scores, T halves it, 0
 * resets it (step 0); on weights from a softmax, or the scores that feed one. */
static void turn_knob(struct app *a, int step)
{
	const struct shown *sh = current_shown(a);
	if (!sh || !page_shown_ready(sh) || (sh->show->kind != SHOW_HEATMAP && sh->show->kind != SHOW_TOKENS) ||
	    temper_kind_of(sh->t) == TEMPER_NONE) {
		snprintf(a->status, sizeof a->status, " The temperature knob (t, T, 0) works on softmax weights and on "
			 "the scores that feed them.");
		return;
	}
	a->temper = step == 0 ? 0 : a->temper + step;
	a->temper = a->temper > 10 ? 10 : a->temper < -10 ? -10 : a->temper;
}

/* Keys of the view: zoom, slices, the next view, big cells, export (e; E
 * in a compare view, whose e runs its panels to the end), and the panels'
 * animation of a compare view (loops.c). */
static bool view_key(struct app *a, int ch)
{
	const struct step_result *r = current(a);
	const struct shown *sh = current_shown(a);
	if (ch == 'E' || (ch == 'e' && !(sh && sh->show->kind == SHOW_COMPARE))) {
		exportkey_view(a);
		return true;
	}
	switch (ch) {
	case '+': case '=': if (a->zoom < 2) a->zoom++; return true;
	case '-': if (a->zoom > -2) a->zoom--; return true;
	case ']': change_slice(a, 1); return true;
	case '[': change_slice(a, -1); return true;
	case 't': case 'T': case '0':
		turn_knob(a, ch == 't' ? 1 : ch == 'T' ? -1 : 0);
		return true;
	case 'b':
		a->big = !a->big;
		a->zoom = 0;	/* the other cell size starts from its own fit */
		return true;
	case 'v':
		if (r && r->nshown > 1) {
			a->show = (a->show + 1) % r->nshown;
			view_start(a);
		}
		return true;
	}
	return loops_key(a, &a->loops, ch);
}

void screen_key(struct app *a, int ch)
{
	a->status[0] = 0;
	a->status_error = false;
	if (ch == ':')
		open_prompt(a);
	else if (!step_key(a, ch) && !pane_key(a, ch))
		view_key(a, ch);
}

void screen_mouse(struct app *a, int y, int x)
{
	/* a click on the heatmap the last frame drew selects the cell under it */
	if (!a->heat_drawn)
		return;
	const struct heatmap_layout *L = &a->heat_layout;
	int gx = a->heat_x + L->label_w + (L->label_w ? 1 : 0), gy = a->heat_y + L->header_h;
	a->focus = PANE_VIEW;
	if (x >= gx && y >= gy && L->cell_w > 0) {
		int c = L->half_blocks ? x - gx : (x - gx) / L->cell_w;
		int rr = L->half_blocks ? (y - gy) * 2 : (y - gy) / (L->cell_h > 0 ? L->cell_h : 1);
		if (c < L->vis_cols && rr < L->vis_rows) {
			a->cur_c = L->col0 + c;
			a->cur_r = L->row0 + rr;
		}
	}
}
