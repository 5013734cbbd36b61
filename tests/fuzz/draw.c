/* draw.c: what the screen would compute to draw a tensor, for the fuzz
 * targets (fuzz.h): the heatmap model and its layout in panes of a few sizes
 * and zooms, the cell inspector on a few cells, and the loop trace of a
 * derivation at a few positions. All of view/ a tensor reaches, without a
 * terminal; linked into every target, never into qkv. */
#include "fuzz.h"
#include "core/strbuf.h"
#include "core/utf8.h"
#include "view/heatmap.h"
#include "view/inspect.h"
#include "view/looptrace.h"

#include <string.h>

/* Lays h out and writes each visible cell's text, as ui/draw.c does. */
static void draw_heatmap(const struct heatmap *h, int width, int height, int zoom, bool big, int cur_r, int cur_c)
{
	/* the inks the zoom and size pick: none, 8 colours, 256 in ASCII or UTF-8 */
	static const struct heatmap_ink inks[] = { { COLOR_NONE, true }, { COLOR_8, true }, { COLOR_256, false },
						   { COLOR_256, true } };
	struct heatmap_ink ink = inks[(unsigned)(zoom + width) % 4];
	struct heatmap_layout L;
	heatmap_layout(h, ink, width, height, zoom, big, cur_r, cur_c, &L);
	FUZZ_CHECK(!L.half_blocks || (ink.mode >= COLOR_16 && ink.utf8));
	FUZZ_CHECK(L.width <= width && L.height <= height);
	FUZZ_CHECK(L.row0 >= 0 && L.col0 >= 0 && L.row0 + L.vis_rows <= h->rows && L.col0 + L.vis_cols <= h->cols);
	char text[64];
	for (int r = L.row0; r < L.row0 + L.vis_rows && r < L.row0 + 8; r++) {
		for (int c = L.col0; c < L.col0 + L.vis_cols && c < L.col0 + 8; c++) {
			heatmap_position(h, heatmap_value(h, r, c));
			heatmap_shade(h, heatmap_value(h, r, c));
			heatmap_cell_kind(h, r, c);
			FUZZ_CHECK(utf8_width(heatmap_cell_mark(h, r, c)) == 1);
			if (L.numbers) {
				heatmap_cell_text(h, r, c, &L.fmt, L.cell_w - 1, text, sizeof text);
				if (L.cell_w - 1 < (int)sizeof text)
					FUZZ_CHECK((int)strlen(text) <= L.cell_w - 1);
			}
		}
	}
	char legend[256];
	heatmap_legend(h, L.numbers ? &L.fmt : NULL, ink.mode, heatmap_legend_marks(&L), legend, sizeof legend, width);
	FUZZ_CHECK(strlen(legend) < sizeof legend);
}

/* The loop trace at its start, a middle position, the end of its first
 * phase and its end. */
static void draw_trace(const struct tensor *t)
{
	struct looptrace *lt = looptrace_for(t);
	if (!lt)
		return;
	int64_t total = looptrace_total(lt), first, last;
	int64_t at[4] = { 1, total / 2, 0, total };
	looptrace_phase_bounds(lt, &first, &last);
	at[2] = last + 1;
	for (int i = 0; i < 4; i++) {
		looptrace_seek(lt, at[i]);
		const char *const *lines;
		int n = looptrace_code(lt, &lines);
		int cur = looptrace_current_line(lt);
		FUZZ_CHECK(cur >= -1 && cur < n);
		int a, b;
		looptrace_current_span(lt, &a, &b);
		char buf[512];
		looptrace_indices(lt, buf, sizeof buf);
		looptrace_explain(lt, buf, sizeof buf);
		int rows, cols;
		const double *values;
		const uint8_t *state;
		looptrace_matrix(lt, &rows, &cols, &values, &state);
		int r, c;
		if (looptrace_current_cell(lt, &r, &c))
			FUZZ_CHECK(r >= 0 && r < rows && c >= -1 && c < cols);
		FUZZ_CHECK(looptrace_phase(lt) && looptrace_matrix_name(lt) && looptrace_slice(lt));
	}
	looptrace_free(lt);
}

void fuzz_draw_tensor(const struct tensor *t, const char *name, const struct show *s)
{
	int64_t slice[2] = { s && s->nslice > 0 ? s->slice[0] : 0, s && s->nslice > 1 ? s->slice[1] : 0 };
	struct heatmap h;
	heatmap_build(&h, t, s ? slice : NULL, s ? 2 : 0, s ? s->rows : NULL, s ? s->nrows : 0, s ? s->cols : NULL,
		      s ? s->ncols : 0, s ? s->scale : SCALE_AUTO);
	if (s)
		heatmap_set_show_name(&h, s);
	struct heatmap_numfmt fmt;
	heatmap_number_format(&h, 7, &fmt);
	draw_heatmap(&h, 80, 24, 0, false, 0, 0);
	draw_heatmap(&h, 30, 8, -2, true, h.rows - 1, h.cols - 1);
	draw_heatmap(&h, 200, 60, 3, false, h.rows / 2, h.cols / 2);
	heatmap_free(&h);

	int64_t n = tensor_numel(t);
	int64_t cells[3] = { 0, n / 2, n - 1 };
	for (int i = 0; i < 3 && n > 0; i++) {
		struct strbuf sb;
		strbuf_init(&sb);
		inspect_cell(&sb, t, name, cells[i], i == 1 ? 24 : 72);
		strbuf_free(&sb);
	}
	draw_trace(t);
}
