/* command.c: `:export NAME FILE` for both prompts (see command.h): the
 * argument taken apart by lesson/commands, the name evaluated by
 * lesson/session, its heatmap model built by view/heatmap and painted by
 * export_heatmap, the bytes written by export_save. Prints nothing and
 * touches no terminal: the prompts show done or the error their own way. */
#include "export/command.h"
#include "core/utf8.h"
#include "lesson/session.h"
#include "view/heatmap.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The figure format FILE asks for, or -1 with err (at col) when its
 * extension is none of .svg, .pdf and .png, or it exists and force is not
 * set; word is the command's (export, export!). */
static int file_format(const char *file, const char *word, bool force, int col, enum export_format *f,
		       struct qkv_error *err)
{
	*f = export_format_of(file);
	const char *base = strrchr(file, '/'), *dot = strrchr(base ? base : file, '.');
	if (*f == EXPORT_HTML)
		return error_set(err, 1, col, ":%s writes .svg, .pdf or .png; a whole lesson goes to .html with qkv "
				 "export LESSON -o FILE.html", word);
	if (*f != EXPORT_SVG && *f != EXPORT_PDF && *f != EXPORT_PNG)
		return error_set(err, 1, col, dot ? "unknown extension '%.20s': :%s writes .svg, .pdf or .png" :
				 "'%.60s' has no extension: :%s writes .svg, .pdf or .png", dot ? dot : file, word);
	if (!force && access(file, F_OK) == 0)	/* export_save checks again, as it writes */
		return error_set(err, 1, col, "%s exists (:export! replaces it)", file);
	return 0;
}

int export_command(struct session *s, const struct command *c, const struct export_opts *o, char *done, size_t size,
		   struct qkv_error *err)
{
	char expr[sizeof c->arg], file[sizeof c->arg];
	int exprcol, filecol;
	if (!command_export_args(c, expr, sizeof expr, &exprcol, file, sizeof file, &filecol, err))
		return -1;
	/* left to right: the name, then the file */
	struct session_value v;
	if (session_show(s, expr, &v, err) < 0) {
		err->col = exprcol + (err->col > 0 ? err->col - 1 : 0);
		return -1;
	}
	bool force = c->id == CMD_EXPORT_FORCE;
	enum export_format f = EXPORT_UNKNOWN;
	int rc;
	if (!v.t)
		rc = error_set(err, 1, exprcol, "%.60s is not a tensor (it is %.60s): :%s draws a tensor's heatmap",
			       expr, v.text, c->word);
	else
		rc = file_format(file, c->word, force, filecol, &f, err);
	if (rc < 0) {
		session_value_free(&v);
		return -1;
	}
	struct export_opts defaults = { PALETTE_COLOR, NULL };
	struct heatmap h;
	int64_t first[2] = { 0, 0 };
	heatmap_build(&h, v.t, first, 2, NULL, 0, NULL, 0, SCALE_AUTO);
	heatmap_set_name(&h, expr);
	struct strbuf out;
	strbuf_init(&out);
	rc = export_heatmap(&out, f, &h, NULL, o ? o : &defaults, err);
	if (rc < 0)
		err->col = exprcol;	/* nothing to draw: the value's fault */
	else if ((rc = export_save(file, out.s, out.len, force, err)) < 0)
		err->col = filecol;
	if (rc == 0) {
		char shape[96];
		tensor_dims_str(shape, sizeof shape, v.t);
		utf8_snprintf(done, size, "Exported %.60s (%s%s%s) to %s.", expr, shape, h.slice_name[0] ? ", " : "",
			      h.slice_name, file);
	}
	strbuf_free(&out);
	heatmap_free(&h);
	session_value_free(&v);
	return rc;
}
