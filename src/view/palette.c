/* palette.c: the heatmap colours and their terminal quantisations (see
 * palette.h). Called by ui/ (and anything that colours a heatmap) with a
 * position from heatmap_position; pure functions that never touch the
 * terminal, the environment or terminfo themselves. */
#include "view/palette.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A colour scale: control points at equal steps of position 0..1, blended
 * linearly between neighbours. */
struct ramp {
	int n;
	struct rgb stops[7];
};

/* Diverging (scores): deep blue for the most negative, a light grey-beige
 * for 0 (neither white nor black, so it reads on light and dark terminals),
 * deep orange for the most positive. Lightness falls from the middle toward
 * both ends, so magnitude reads even without hue; blue against orange stays
 * apart for red/green colour blindness. */
static const struct ramp diverging = {
	7,
	{
		{ 33, 72, 150 },
		{ 66, 124, 196 },
		{ 140, 180, 222 },
		{ 214, 206, 190 },
		{ 244, 182, 122 },
		{ 226, 128, 48 },
		{ 170, 76, 10 },
	},
};

/* Sequential (weights): a pale blue for 0 through to a deep blue for 1. */
static const struct ramp weights = {
	5,
	{
		{ 208, 226, 243 },
		{ 158, 202, 225 },
		{ 90, 160, 210 },
		{ 40, 110, 180 },
		{ 8, 62, 140 },
	},
};

/* xterm's default values for the 16 ANSI colours */
static const struct rgb ansi16[16] = {
	{ 0, 0, 0 },       { 205, 0, 0 },     { 0, 205, 0 },     { 205, 205, 0 },
	{ 0, 0, 238 },     { 205, 0, 205 },   { 0, 205, 205 },   { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 },     { 0, 255, 0 },     { 255, 255, 0 },
	{ 92, 92, 255 },   { 255, 0, 255 },   { 0, 255, 255 },   { 255, 255, 255 },
};

/* the six levels of each channel in the xterm 6x6x6 cube (indices 16..231) */
static const int cube_level[6] = { 0, 95, 135, 175, 215, 255 };

static uint8_t blend_channel(uint8_t a, uint8_t b, double t)
{
	double v = a + (b - a) * t;
	return (uint8_t)floor(v + 0.5);
}

/* Gray, for print: one ramp from white (the smallest value) to near black
 * (the largest), for both scales, so that the order of values survives a
 * black-and-white printer; a diverging scale's 0 is the mid grey its legend
 * marks. */
static const struct ramp gray = {
	2,
	{
		{ 250, 250, 250 },
		{ 28, 28, 28 },
	},
};

static struct rgb ramp_rgb(const struct ramp *rp, double pos)
{
	if (!(pos >= 0))	/* also NaN */
		pos = 0;
	if (pos > 1)
		pos = 1;
	double x = pos * (rp->n - 1);
	int i = (int)floor(x);
	if (i >= rp->n - 1)
		return rp->stops[rp->n - 1];
	double t = x - i;
	struct rgb a = rp->stops[i], b = rp->stops[i + 1];
	struct rgb c = { blend_channel(a.r, b.r, t), blend_channel(a.g, b.g, t), blend_channel(a.b, b.b, t) };
	return c;
}

struct rgb palette_rgb(enum scale_kind scale, double pos)
{
	return ramp_rgb(scale == SCALE_WEIGHTS ? &weights : &diverging, pos);
}

struct rgb palette_rgb_in(enum palette_kind k, enum scale_kind scale, double pos)
{
	return k == PALETTE_GRAY ? ramp_rgb(&gray, pos) : palette_rgb(scale, pos);
}

struct rgb palette_nan_rgb_in(enum palette_kind k)
{
	return k == PALETTE_GRAY ? (struct rgb){ 120, 120, 120 } : palette_nan_rgb();
}

int palette_parse(const char *name, enum palette_kind *k)
{
	if (strcmp(name, "color") == 0 || strcmp(name, "colour") == 0 || strcmp(name, "default") == 0)
		*k = PALETTE_COLOR;
	else if (strcmp(name, "gray") == 0 || strcmp(name, "grey") == 0)
		*k = PALETTE_GRAY;
	else
		return -1;
	return 0;
}

struct rgb palette_nan_rgb(void)
{
	return (struct rgb){ 200, 40, 200 };
}

struct rgb palette_masked_rgb(void)
{
	return (struct rgb){ 40, 40, 40 };
}

struct rgb palette_posinf_rgb(void)
{
	return (struct rgb){ 255, 255, 255 };
}

/* An sRGB channel (0..255) in linear light, 0..1. */
static double linear_channel(uint8_t v)
{
	double c = v / 255.0;
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* WCAG relative luminance, 0 (black) .. 1 (white). */
static double relative_luminance(struct rgb c)
{
	return 0.2126 * linear_channel(c.r) + 0.7152 * linear_channel(c.g) + 0.0722 * linear_channel(c.b);
}

struct rgb palette_text_on(struct rgb bg)
{
	/* WCAG contrast ratios against black and white text; the larger wins */
	double l = relative_luminance(bg);
	double on_black = (l + 0.05) / 0.05, on_white = 1.05 / (l + 0.05);
	struct rgb black = { 0, 0, 0 }, white = { 255, 255, 255 };
	return on_black >= on_white ? black : white;
}

static int distance2(struct rgb a, int r, int g, int b)
{
	int dr = a.r - r, dg = a.g - g, db = a.b - b;
	return dr * dr + dg * dg + db * db;
}

/* The nearest of the cube's six levels to a channel value: index 0..5. */
static int cube_index(int v)
{
	int best = 0;
	for (int i = 1; i < 6; i++)
		if (abs(v - cube_level[i]) < abs(v - cube_level[best]))
			best = i;
	return best;
}

int palette_index256(struct rgb c)
{
	int ri = cube_index(c.r), gi = cube_index(c.g), bi = cube_index(c.b);
	int cube_d = distance2(c, cube_level[ri], cube_level[gi], cube_level[bi]);
	/* the grey ramp 232..255 runs 8, 18, ..., 238 */
	int mean = (c.r + c.g + c.b + 1) / 3;
	int gi24 = (mean - 8 + 5) / 10;
	gi24 = gi24 < 0 ? 0 : gi24 > 23 ? 23 : gi24;
	int grey = 8 + 10 * gi24;
	int grey_d = distance2(c, grey, grey, grey);
	if (grey_d < cube_d)
		return 232 + gi24;
	return 16 + 36 * ri + 6 * gi + bi;
}

int palette_index16(struct rgb c, bool only8)
{
	/* Colours with little chroma go to the nearest grey (black, grey, white,
	 * bright white); the others to the nearest of the chromatic colours, so
	 * a muted blue stays blue rather than turning grey. */
	int mx = c.r > c.g ? (c.r > c.b ? c.r : c.b) : (c.g > c.b ? c.g : c.b);
	int mn = c.r < c.g ? (c.r < c.b ? c.r : c.b) : (c.g < c.b ? c.g : c.b);
	bool grey = mx - mn < 48;
	int n = only8 ? 8 : 16;
	int best = -1, best_d = 0;
	for (int i = 0; i < n; i++) {
		bool is_grey = i == 0 || i == 7 || i == 8 || i == 15;
		if (is_grey != grey)
			continue;
		int d = distance2(c, ansi16[i].r, ansi16[i].g, ansi16[i].b);
		if (best < 0 || d < best_d) {
			best = i;
			best_d = d;
		}
	}
	return best;
}

enum color_mode palette_mode(const char *no_color_env, bool no_color, const char *colorterm, int colors)
{
	if (no_color || (no_color_env && *no_color_env))
		return COLOR_NONE;
	bool truecolor = colorterm && (strcmp(colorterm, "truecolor") == 0 || strcmp(colorterm, "24bit") == 0);
	if (truecolor && colors >= 256)
		return COLOR_TRUE;
	if (colors >= 256)
		return COLOR_256;
	if (colors >= 16)
		return COLOR_16;
	if (colors >= 8)
		return COLOR_8;
	return COLOR_NONE;
}

const char *palette_shade(int level)
{
	static const char *const shades[] = { " ", "\u2591", "\u2592", "\u2593", "\u2588" };
	return shades[level < 0 ? 0 : level > 4 ? 4 : level];
}
