/* export_key.c: the e key of the full screen. The view on the screen (the
 * lesson step's view as it is drawn: its slice, query and temperature, its
 * numbers as the cells show them; or the tensor the prompt's view shows)
 * becomes an SVG figure (export/export.h) in a new file named after the
 * lesson and step, in $QKV_EXPORT_DIR or the current directory. It never
 * replaces a file, and says on the status line where it wrote, or why not. */
#include "ui/internal.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "export/export.h"
#include "lesson/compare.h"
#include "lesson/session.h"
#include "view/page.h"
#include "view/temper.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* name as a part of a file name: letters, digits and '_' kept, each run of
 * anything else one '-', none at the ends; "value" when nothing is left. */
static void file_part(char *buf, size_t size, const char *name)
{
	size_t n = 0;
	for (const char *s = name; *s && n + 1 < size && n < 40; s++) {
		bool keep = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_';
		if (keep)
			buf[n++] = *s;
		else if (n > 0 && buf[n - 1] != '-')
			buf[n++] = '-';
	}
	while (n > 0 && buf[n - 1] == '-')
		n--;
	buf[n] = 0;
	if (!n)
		snprintf(buf, size, "value");
}

/* Writes the SVG in out to a new file STEM.svg (STEM-2.svg, ... when that
 * exists) in $QKV_EXPORT_DIR or the current directory; msg gets where it
 * went, or why it did not, in at most width columns when a path that is
 * too long can lose its first directories ("Exported to …/figs/x.svg").
 * 0, or -1. */
static int save_new(const struct strbuf *out, const char *stem, char *msg, size_t size, int width)
{
	const char *dir = getenv("QKV_EXPORT_DIR");
	char path[4096];
	struct qkv_error err;
	if (export_unused_path(path, sizeof path, dir, stem, "svg", &err) < 0 ||
	    export_save(path, out->s, out->len, false, &err) < 0) {
		utf8_snprintf(msg, size, "Not exported: %s", err.msg);
		return -1;
	}
	const char *shown = path, *cut = path;
	while (term_width_of(shown) + 14 > width && (cut = strchr(cut + 1, '/')) != NULL)
		shown = cut;	/* the name and the directories nearest it */
	snprintf(msg, size, "Exported to %s%.360s", shown != path ? "\u2026" : strchr(path, '/') ? "" : "./", shown);
	return 0;
}

/* Why step k has no view to export, or NULL when its view sh is there. */
static const char *no_view(const struct app *a, const struct shown *sh)
{
	enum step_state state = player_state(a->player, a->step);
	if (state == STEP_NOT_RUN)
		return " Nothing to export: this step has not run (Enter runs it).";
	if (state == STEP_FAILED || state == STEP_BLOCKED)
		return " Nothing to export: this step failed.";
	if (!sh)
		return " Nothing to export: this step shows no view.";
	if (!page_shown_ready(sh))
		return " Nothing to export: the view was cancelled (Enter computes it again).";
	return NULL;
}

void exportkey_view(struct app *a)
{
	const struct step_result *r = player_result(a->player, a->step);
	const struct shown *sh = r && r->nshown ? &r->shown[a->show < r->nshown ? a->show : 0] : NULL;
	const char *why = no_view(a, sh);
	if (why) {
		snprintf(a->status, sizeof a->status, "%s", why);
		a->status_error = true;
		return;
	}
	struct page pg;
	page_build(&pg, a->player, a->step);
	const struct page_view *pv = NULL;
	for (int i = 0; i < pg.nviews; i++)
		if (pg.views[i].shown == sh)
			pv = &pg.views[i];
	/* the view as the screen draws it: the show with the slice, the query
	 * and the temperature the keys chose */
	struct show s = *sh->show;
	struct shown now = *sh;
	struct page_view v = pv ? *pv : (struct page_view){ .show = sh->show, .shown = sh };
	if (s.kind == SHOW_HEATMAP)
		for (int i = 0; i < 2; i++)
			if (a->slice[i] >= 0) {
				s.slice[i] = a->slice[i];
				s.nslice = s.nslice > i + 1 ? s.nslice : i + 1;
			}
	if (s.kind == SHOW_TOKENS)
		s.query = a->cur_r;
	bool knob = a->temper && (s.kind == SHOW_HEATMAP || s.kind == SHOW_TOKENS);	/* as screen.c's view_tensor */
	struct tensor *tempered = knob ? temper_apply(sh->t, ldexp(1.0, a->temper)) : NULL;
	char title[sizeof v.what];
	if (tempered) {
		char f[16];
		temper_label(f, sizeof f, a->temper);
		snprintf(title, sizeof title, "%.300s (scores %s)", v.what, f);
		snprintf(v.what, sizeof v.what, "%s", title);
		s.title = title;
		now.t = tempered;
	}
	now.show = &s;
	v.show = &s;
	v.shown = &now;
	struct export_opts o = { PALETTE_COLOR, NULL };
	if (s.kind == SHOW_HEATMAP && a->heat_drawn && a->heat_layout.numbers)
		o.fmt = &a->heat_layout.fmt;	/* the numbers as the cells show them */
	struct strbuf out;
	strbuf_init(&out);
	struct qkv_error err;
	if (export_view(&out, EXPORT_SVG, &v, &o, &err) < 0) {
		utf8_snprintf(a->status, sizeof a->status, " Not exported: %s", err.msg);
		a->status_error = true;
	} else {
		char stem[200];
		export_view_stem(stem, sizeof stem, a->lesson->id, a->step + 1, a->show + 1);
		a->status[0] = ' ';	/* the status line's margin */
		a->status_error = save_new(&out, stem, a->status + 1, sizeof a->status - 1, a->cols - 2) < 0;
	}
	strbuf_free(&out);
	tensor_unref(tempered);
	page_free(&pg);
}

void exportkey_value(struct app *a)
{
	struct prompt *p = &a->prompt;
	const struct tensor *t = !p->listing && p->shown ? p->shown->t : NULL;
	if (!t) {
		snprintf(p->message, sizeof p->message, "Nothing to export: the view shows no tensor.");
		return;
	}
	struct export_opts o = { PALETTE_COLOR, NULL };
	struct strbuf out;
	strbuf_init(&out);
	struct qkv_error err;
	int rc;
	if (p->loops) {
		/* :show EXPR loops: the loops beside the SIMD result, as a lesson's */
		const struct compare *c = p->loops;
		struct show s = { .kind = SHOW_COMPARE, .expr = p->shown_name, .scale = SCALE_AUTO };
		struct shown sh = { .show = &s, .t = c->simd, .loops = c->loops, .simd_ms = c->simd_ms,
				    .loops_ms = c->loops_ms, .max_diff = c->max_diff, .agree = c->agree };
		struct page_view v = { .show = &s, .shown = &sh };
		snprintf(v.kind, sizeof v.kind, "loops beside SIMD");
		snprintf(v.what, sizeof v.what, "%s", p->shown_name);
		rc = export_view(&out, EXPORT_SVG, &v, &o, &err);
	} else {
		struct heatmap h;
		heatmap_build(&h, t, p->slice, 2, NULL, 0, NULL, 0, SCALE_AUTO);
		heatmap_set_name(&h, p->shown_name);
		if (p->heat_drawn && p->heat_layout.numbers)
			o.fmt = &p->heat_layout.fmt;	/* the numbers as the cells show them */
		rc = export_heatmap(&out, EXPORT_SVG, &h, NULL, &o, &err);
		heatmap_free(&h);
	}
	if (rc < 0) {
		utf8_snprintf(p->message, sizeof p->message, "Not exported: %s", err.msg);
	} else {
		char name[64], stem[200];
		file_part(name, sizeof name, p->shown_name);
		if (a->lesson && a->screen == SCREEN_LESSON)
			snprintf(stem, sizeof stem, "%.120s-step-%d-%.60s", a->lesson->id, p->step_index + 1, name);
		else
			snprintf(stem, sizeof stem, "qkv-%s", name);
		save_new(&out, stem, p->message, sizeof p->message, 3 * (a->cols - 2));	/* wrapped, 3 lines */
	}
	strbuf_free(&out);
}
