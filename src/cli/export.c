/* export.c: `qkv export LESSON [--step N] [--view K] [-o FILE] [--force]
 * [--palette color|gray]`: one view of a step as a figure (SVG, PDF, PNG
 * through export/, plain or ANSI text through text/render), or with
 * FILE.html the whole lesson as one page. Called by main.c; runs the
 * lesson through lesson/player.h; every failure is one message and status
 * 2, with no file written. */
#include "cli/cli.h"
#include "core/strbuf.h"
#include "export/export.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "text/render.h"
#include "view/page.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct export_args {
	const char *lesson, *out;
	int step, view;          /* 1-based; 0 when not given */
	bool force;
	enum palette_kind palette;
};

static int parse_number(const char *opt, const char *s, int *out)
{
	char *end = NULL;
	errno = 0;
	long n = s ? strtol(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || n < 1 || n > 100000)
		return cli_usage_error(opt, s ? s : "");
	*out = (int)n;
	return 0;
}

static int parse_args(int argc, char **argv, struct export_args *a)
{
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(s, "-o") == 0 || strcmp(s, "--output") == 0) {
			if (!val || !*val)
				return cli_usage_error("%s", "export: -o needs a FILE (.svg, .pdf, .png, .html, .txt or .ansi)");
			a->out = val;
			i++;
		} else if (strcmp(s, "--view") == 0) {
			if (parse_number("export: --view needs a view number, got '%s'", val, &a->view))
				return 2;
			i++;
		} else if (strcmp(s, "--force") == 0) {
			a->force = true;
		} else if (strcmp(s, "--palette") == 0 || strncmp(s, "--palette=", 10) == 0) {
			const char *name = s[9] == '=' ? s + 10 : val;
			if (s[9] != '=')
				i++;
			if (!name || palette_parse(name, &a->palette) < 0)
				return cli_usage_error("export: --palette must be color or gray, got '%s'", name ? name : "");
		} else if (s[0] == '-' && s[1]) {
			return cli_usage_error("export: unknown option %s", s);
		} else if (a->lesson) {
			return cli_usage_error("export: one LESSON at a time, got a second: '%s'", s);
		} else {
			a->lesson = s;
		}
	}
	if (!a->lesson)
		return cli_usage_error("%s", "export needs a LESSON (a path, a number or an id; see qkv list)");
	return 0;
}

/* The first step with a view, -1 when none has one (the player runs
 * steps as it looks). */
static int first_step_with_view(struct player *p, const struct lesson *l, struct qkv_error *err)
{
	for (int k = 0; k < l->nsteps; k++) {
		int at;
		if (player_go(p, k, &at, err) < 0)
			return -2;
		struct page pg;
		page_build(&pg, p, k);
		int n = pg.nviews;
		page_free(&pg);
		if (n > 0)
			return k;
	}
	return -1;
}

/* The bytes of the figure or text of view a->view of step k. */
static int draw_view(struct strbuf *out, enum export_format f, struct player *p, int k, const struct export_args *a,
		     int *view, struct qkv_error *err)
{
	struct page pg;
	page_build(&pg, p, k);
	int rc = 0;
	*view = a->view ? a->view : 1;
	if (pg.nviews == 0) {
		rc = error_set(err, 0, 0, "step %d of '%s' has no view to export (no heatmap, comparison, token view or timing)",
			       k + 1, player_lesson(p)->id);
	} else if (*view > pg.nviews) {
		rc = error_set(err, 0, 0, "--view %d: step %d has %d view%s", *view, k + 1, pg.nviews,
			       pg.nviews == 1 ? "" : "s");
	} else if (f == EXPORT_TXT || f == EXPORT_ANSI) {
		struct render_opts ro = { 80, f == EXPORT_ANSI };
		render_view(out, &pg.views[*view - 1], &ro);
	} else {
		struct export_opts eo = { a->palette, NULL };
		rc = export_view(out, f, &pg.views[*view - 1], &eo, err);
	}
	page_free(&pg);
	return rc;
}

/* Runs the lesson up to what is exported and writes it. */
static int export_lesson(const struct lesson *l, enum kernel_variant kv, const struct export_args *a,
			 enum export_format f, struct qkv_error *err)
{
	struct player *p = player_new(l, kv);
	player_set_timeout(p, l->timeout > 0 ? l->timeout : LESSON_DEFAULT_TIMEOUT);
	struct strbuf out;
	strbuf_init(&out);
	int rc = 0, k = a->step - 1, view = 0, at;
	if (f == EXPORT_HTML) {
		struct export_opts eo = { a->palette, NULL };
		rc = export_lesson_html(&out, p, &eo, err);
	} else if (a->step > l->nsteps) {
		rc = error_set(err, 0, 0, "--step %d: '%s' has %d steps", a->step, l->id, l->nsteps);
	} else if (a->step == 0 && (k = first_step_with_view(p, l, err)) < 0) {
		if (k == -1)
			rc = error_set(err, 0, 0, "'%s' has no step with a view to export", l->id);
		else
			rc = -1;
	} else if (a->step > 0) {
		rc = player_go(p, k, &at, err);
	}
	if (rc == 0 && f != EXPORT_HTML)
		rc = draw_view(&out, f, p, k, a, &view, err);
	char auto_path[4096];
	const char *path = a->out;
	if (rc == 0 && !path) {
		char stem[256];
		export_view_stem(stem, sizeof stem, l->id, k + 1, view);
		rc = export_unused_path(auto_path, sizeof auto_path, getenv("QKV_EXPORT_DIR"), stem,
					export_format_ext(f), err);
		path = auto_path;
	}
	if (rc == 0)
		rc = export_save(path, out.s ? out.s : "", out.len, a->force, err);
	if (rc == 0 && f == EXPORT_HTML)
		printf("exported '%s' (%d steps) to %s\n", l->id, l->nsteps, path);
	else if (rc == 0)
		printf("exported '%s' step %d, view %d to %s\n", l->id, k + 1, view, path);
	strbuf_free(&out);
	player_free(p);
	return rc;
}

int cli_export(int argc, char **argv, enum kernel_variant kv, int step)
{
	struct export_args a = { NULL, NULL, step, 0, false, PALETTE_COLOR };
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	enum export_format f = a.out ? export_format_of(a.out) : EXPORT_SVG;
	if (f == EXPORT_UNKNOWN)
		return cli_usage_error("export: cannot tell the format of '%s': name it .svg, .pdf, .png, .html, .txt "
				       "or .ansi", a.out);
	if (f == EXPORT_HTML && (a.step || a.view))
		return cli_usage_error("%s", "export: an .html file is the whole lesson: --step and --view are for "
				       "one figure");
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	struct qkv_error err;
	struct lesson *l = catalog_resolve(&c, a.lesson, cli_print_warning, NULL, &err);
	int status = 0;
	if (!l || export_lesson(l, kv, &a, f, &err) < 0) {
		cli_print_error("%s", err.msg);
		status = 2;
	}
	lesson_free(l);
	catalog_free(&c);
	export_cleanup();
	return status;
}
