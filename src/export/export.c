/* export.c: the figure formats and the files (see export.h). figure.c
 * draws on a cairo SVG, PDF or image surface that writes into memory; the
 * bytes go to disk through core/file's atomic writer, so a failed export
 * never leaves half a file. Called by cli/export.c, ui/
 * and html.c; prints nothing. */
#include "export/export.h"
#include "export/figure.h"
#include "core/file.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The PNG's pixels per point: sharp on slides and on high-density screens. */
#define PNG_SCALE 2.0

static const char *const exts[] = { "", "svg", "pdf", "png", "html", "txt", "ansi" };

enum export_format export_format_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	if (!dot)
		return EXPORT_UNKNOWN;
	for (int f = EXPORT_SVG; f <= EXPORT_ANSI; f++)
		if (strcasecmp(dot + 1, exts[f]) == 0)
			return (enum export_format)f;
	if (strcasecmp(dot + 1, "htm") == 0)
		return EXPORT_HTML;
	return EXPORT_UNKNOWN;
}

const char *export_format_ext(enum export_format f)
{
	return f >= EXPORT_SVG && f <= EXPORT_ANSI ? exts[f] : "";
}

static cairo_status_t append(void *closure, const unsigned char *data, unsigned int length)
{
	strbuf_putn(closure, (const char *)data, length);
	return CAIRO_STATUS_SUCCESS;
}

/* What to draw: a page's view, or a heatmap with its title. */
struct drawing {
	const struct page_view *v;
	const struct heatmap *h;
	const char *title;
	const struct heatmap_numfmt *fmt;
};

static int draw(struct figure *f, const struct drawing *d, struct qkv_error *err)
{
	if (d->v && figure_view(f, d->v, d->fmt, NULL, err) < 0)
		return -1;
	if (!d->v)
		figure_heatmap(f, d->h, d->title, d->fmt, NULL);
	cairo_status_t st = cairo_status(f->cr);
	if (st != CAIRO_STATUS_SUCCESS)
		return error_set(err, 0, 0, "cannot draw the figure: %s", cairo_status_to_string(st));
	return 0;
}

/* d drawn in format fmt on a white page, appended to out. It is drawn
 * twice: once on a recording surface to learn its size, then on the
 * target surface, made that size (cairo 1.16 replaying a recording with
 * text onto an SVG or PDF surface keeps a font alive for good). */
static int render(struct strbuf *out, enum export_format fmt, enum palette_kind palette, const struct drawing *d,
		  struct qkv_error *err)
{
	if (fmt != EXPORT_SVG && fmt != EXPORT_PDF && fmt != EXPORT_PNG)
		return error_set(err, 0, 0, "'%s' is not a figure format (svg, pdf or png)", export_format_ext(fmt));
	struct figure m;
	figure_begin(&m, palette);
	int rc = draw(&m, d, err);
	double w = ceil(m.w), h = ceil(m.h);
	figure_end(&m);
	if (rc < 0)
		return -1;
	cairo_surface_t *s;
	double scale = 1;
	if (fmt == EXPORT_SVG) {
		s = cairo_svg_surface_create_for_stream(append, out, w, h);
		cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
	} else if (fmt == EXPORT_PDF) {
		s = cairo_pdf_surface_create_for_stream(append, out, w, h);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "qkv " QKV_VERSION);
	} else {
		scale = PNG_SCALE;
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(w * scale), (int)(h * scale));
	}
	cairo_t *cr = cairo_create(s);
	cairo_scale(cr, scale, scale);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	struct figure f = { NULL, cr, palette, 0, 0 };
	rc = draw(&f, d, err);
	cairo_destroy(cr);
	cairo_status_t st = CAIRO_STATUS_SUCCESS;
	if (rc == 0 && fmt == EXPORT_PNG)
		st = cairo_surface_write_to_png_stream(s, append, out);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (rc == 0 && st != CAIRO_STATUS_SUCCESS)
		return error_set(err, 0, 0, "cannot draw the figure: %s", cairo_status_to_string(st));
	return rc;
}

int export_view(struct strbuf *out, enum export_format fmt, const struct page_view *v, const struct export_opts *o,
		struct qkv_error *err)
{
	struct drawing d = { v, NULL, NULL, o->fmt };
	return render(out, fmt, o->palette, &d, err);
}

int export_heatmap(struct strbuf *out, enum export_format fmt, const struct heatmap *h, const char *title,
		   const struct export_opts *o, struct qkv_error *err)
{
	struct drawing d = { NULL, h, title, o->fmt };
	return render(out, fmt, o->palette, &d, err);
}

int export_save(const char *path, const char *data, size_t len, bool force, struct qkv_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return error_set(err, 0, 0, "cannot write %s: it is a directory", path);
	if (file_write_atomic(path, data, len, 0644, force ? FILE_KEEP_MODE : FILE_NO_REPLACE, err) == 0)
		return 0;
	if (errno == EEXIST && !force)
		return error_set(err, 0, 0, "%s exists (--force replaces it)", path);
	return -1;
}

void export_view_stem(char *buf, size_t size, const char *lesson_id, int step, int view)
{
	int n = snprintf(buf, size, "%.120s-step-%d", lesson_id, step);
	if (view > 1 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, "-view%d", view);
}

int export_unused_path(char *buf, size_t size, const char *dir, const char *stem, const char *ext,
		       struct qkv_error *err)
{
	const char *d = dir && *dir ? dir : ".";
	const char *sep = d[strlen(d) - 1] == '/' ? "" : "/";
	for (int i = 1; i <= 999; i++) {
		char num[16] = "";
		if (i > 1)
			snprintf(num, sizeof num, "-%d", i);
		int n = snprintf(buf, size, "%s%s%s%s.%s", d, sep, stem, num, ext);
		if (n < 0 || (size_t)n >= size)
			return error_set(err, 0, 0, "the export's path in %s is too long", d);
		struct stat st;
		if (lstat(buf, &st) == 0)
			continue;	/* taken */
		if (errno == ENOENT)
			return 0;
		if (errno == ENOTDIR)
			return error_set(err, 0, 0, "cannot export to %s: it is not a directory", d);
		if (errno == EACCES)
			return error_set(err, 0, 0, "cannot export to %s: no permission to look in it", d);
		return error_set(err, 0, 0, "cannot export to %s: %s", d, strerror(errno));
	}
	return error_set(err, 0, 0, "%s%s%s.%s and the names up to -999 are all taken", d, sep, stem, ext);
}

void export_cleanup(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}
