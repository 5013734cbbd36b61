/* test_palette.c: the heatmap colours (view/palette.c): colour-blind safety
 * (simulated deuteranopia and protanopia), lightness order, text contrast,
 * the 256- and 16-colour quantisations, the colour mode from the
 * environment, and the shade characters. No terminal involved. */
#include <criterion/criterion.h>

#include "view/palette.h"

#include <math.h>
#include <string.h>

static double lin(double c255)
{
	double c = c255 / 255.0;
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double unlin(double c)
{
	c = c < 0 ? 0 : c > 1 ? 1 : c;
	double v = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
	return v * 255.0;
}

static double luminance(struct rgb c)
{
	return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/* WCAG contrast ratio, 1..21 */
static double contrast(struct rgb a, struct rgb b)
{
	double la = luminance(a), lb = luminance(b);
	return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

struct drgb {
	double r, g, b;
};

/* Machado, Oliveira and Fernandes (2009), severity 1.0, on linear RGB. */
static const double deuteranopia[3][3] = {
	{ 0.367322, 0.860646, -0.227968 },
	{ 0.280085, 0.672501, 0.047413 },
	{ -0.011820, 0.042940, 0.968881 },
};
static const double protanopia[3][3] = {
	{ 0.152286, 1.052583, -0.204868 },
	{ 0.114503, 0.786281, 0.099216 },
	{ -0.003882, -0.048116, 1.051998 },
};

static struct drgb simulate(const double m[3][3], struct rgb c)
{
	double r = lin(c.r), g = lin(c.g), b = lin(c.b);
	struct drgb s = {
		unlin(m[0][0] * r + m[0][1] * g + m[0][2] * b),
		unlin(m[1][0] * r + m[1][1] * g + m[1][2] * b),
		unlin(m[2][0] * r + m[2][1] * g + m[2][2] * b),
	};
	return s;
}

static double ddist(struct drgb a, struct drgb b)
{
	return sqrt((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b));
}

/* Hue in degrees 0..360 and chroma 0..255 */
static double hue(struct rgb c, int *chroma)
{
	int mx = c.r > c.g ? (c.r > c.b ? c.r : c.b) : (c.g > c.b ? c.g : c.b);
	int mn = c.r < c.g ? (c.r < c.b ? c.r : c.b) : (c.g < c.b ? c.g : c.b);
	*chroma = mx - mn;
	if (mx == mn)
		return 0;
	double d = mx - mn, h;
	if (mx == c.r)
		h = fmod((c.g - c.b) / d, 6);
	else if (mx == c.g)
		h = (c.b - c.r) / d + 2;
	else
		h = (c.r - c.g) / d + 4;
	h *= 60;
	return h < 0 ? h + 360 : h;
}

static bool same(struct rgb a, struct rgb b)
{
	return a.r == b.r && a.g == b.g && a.b == b.b;
}

Test(palette, diverging_middle_should_be_neutral_on_light_and_dark)
{
	struct rgb mid = palette_rgb(SCALE_DIVERGING, 0.5);
	struct rgb white = { 255, 255, 255 }, black = { 0, 0, 0 };
	cr_assert(!same(mid, white) && !same(mid, black));
	int chroma;
	hue(mid, &chroma);
	cr_assert(chroma < 40, "the middle should be a grey-beige, chroma %d", chroma);
	/* visible as a cell on a white background, and far from a black one */
	cr_assert(contrast(mid, white) >= 1.3, "against white: %.2f", contrast(mid, white));
	cr_assert(contrast(mid, black) >= 4.5, "against black: %.2f", contrast(mid, black));
}

Test(palette, diverging_ends_should_be_blue_and_orange)
{
	struct rgb lo = palette_rgb(SCALE_DIVERGING, 0), hi = palette_rgb(SCALE_DIVERGING, 1);
	cr_assert(lo.b > lo.r + 80 && lo.b > lo.g + 50, "negative end %d,%d,%d", lo.r, lo.g, lo.b);
	cr_assert(hi.r > hi.b + 100 && hi.r > hi.g + 50, "positive end %d,%d,%d", hi.r, hi.g, hi.b);
	int chroma;
	double hl = hue(lo, &chroma), hh = hue(hi, &chroma);
	cr_assert(hl > 200 && hl < 240, "blue hue %.0f", hl);
	cr_assert(hh > 18 && hh < 45, "orange hue %.0f", hh);
}

Test(palette, diverging_halves_should_stay_apart_for_deuteranopes_and_protanopes)
{
	const double (*sims[2])[3] = { deuteranopia, protanopia };
	for (int k = 0; k < 2; k++) {
		struct drgb lo = simulate(sims[k], palette_rgb(SCALE_DIVERGING, 0));
		struct drgb hi = simulate(sims[k], palette_rgb(SCALE_DIVERGING, 1));
		/* blue against yellow-brown, the axis these viewers keep */
		cr_assert(lo.b > lo.r + 60, "simulated negative end %.0f,%.0f,%.0f", lo.r, lo.g, lo.b);
		cr_assert(hi.r > hi.b + 60, "simulated positive end %.0f,%.0f,%.0f", hi.r, hi.g, hi.b);
		cr_assert(ddist(lo, hi) > 150, "ends %.0f apart", ddist(lo, hi));
		/* -x and +x differ in proportion to x, on the blue-yellow axis */
		for (int i = 0; i < 5; i++) {
			double p = i * 0.1;
			struct drgb a = simulate(sims[k], palette_rgb(SCALE_DIVERGING, p));
			struct drgb b = simulate(sims[k], palette_rgb(SCALE_DIVERGING, 1 - p));
			cr_assert(ddist(a, b) > 200 * (0.5 - p), "at %.1f/%.1f only %.0f apart", p, 1 - p, ddist(a, b));
			cr_assert(a.b - a.r > b.b - b.r + 10, "at %.1f the negative side should be the bluer", p);
		}
	}
}

Test(palette, no_step_should_be_pure_red_or_pure_green)
{
	enum scale_kind scales[2] = { SCALE_DIVERGING, SCALE_WEIGHTS };
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i <= 100; i++) {
			struct rgb c = palette_rgb(scales[k], i / 100.0);
			int chroma;
			double h = hue(c, &chroma);
			if (chroma < 30)
				continue;	/* a grey has no hue to confuse */
			cr_assert(!(h >= 75 && h <= 165), "step %d of scale %d is green (hue %.0f)", i, k, h);
			cr_assert(!(h >= 345 || h <= 15), "step %d of scale %d is red (hue %.0f)", i, k, h);
		}
	}
}

Test(palette, weights_should_run_from_pale_to_deep_blue_darkening_steadily)
{
	double prev = 2;
	for (int i = 0; i <= 100; i++) {
		struct rgb c = palette_rgb(SCALE_WEIGHTS, i / 100.0);
		double l = luminance(c);
		cr_assert(l < prev, "step %d is not darker than the one before", i);
		prev = l;
		cr_assert(c.b >= c.r && c.b >= c.g, "step %d (%d,%d,%d) is not blue", i, c.r, c.g, c.b);
	}
	struct rgb pale = palette_rgb(SCALE_WEIGHTS, 0), deep = palette_rgb(SCALE_WEIGHTS, 1);
	struct rgb white = { 255, 255, 255 }, black = { 0, 0, 0 };
	cr_assert(luminance(pale) > 0.6 && !same(pale, white));
	cr_assert(luminance(deep) < 0.08 && !same(deep, black));
	cr_assert(contrast(deep, black) >= 1.5, "the deep end should still show on black");
}

Test(palette, diverging_should_darken_from_the_middle_toward_both_ends)
{
	for (int i = 0; i < 50; i++) {
		double inner_lo = luminance(palette_rgb(SCALE_DIVERGING, (i + 1) / 100.0));
		double outer_lo = luminance(palette_rgb(SCALE_DIVERGING, i / 100.0));
		double inner_hi = luminance(palette_rgb(SCALE_DIVERGING, (99 - i) / 100.0));
		double outer_hi = luminance(palette_rgb(SCALE_DIVERGING, (100 - i) / 100.0));
		cr_assert(outer_lo < inner_lo, "negative side at step %d", i);
		cr_assert(outer_hi < inner_hi, "positive side at step %d", i);
	}
}

Test(palette, positions_outside_zero_to_one_should_clamp)
{
	cr_assert(same(palette_rgb(SCALE_DIVERGING, -3), palette_rgb(SCALE_DIVERGING, 0)));
	cr_assert(same(palette_rgb(SCALE_DIVERGING, 7), palette_rgb(SCALE_DIVERGING, 1)));
	cr_assert(same(palette_rgb(SCALE_WEIGHTS, NAN), palette_rgb(SCALE_WEIGHTS, 0)));
	cr_assert(same(palette_rgb(SCALE_WEIGHTS, INFINITY), palette_rgb(SCALE_WEIGHTS, 1)));
}

Test(palette, text_on_should_pick_the_more_legible_of_black_and_white)
{
	struct rgb white = { 255, 255, 255 }, black = { 0, 0, 0 };
	cr_assert(same(palette_text_on(white), black));
	cr_assert(same(palette_text_on(black), white));
	cr_assert(same(palette_text_on((struct rgb){ 255, 255, 0 }), black));
	cr_assert(same(palette_text_on((struct rgb){ 0, 0, 160 }), white));
	cr_assert(same(palette_text_on(palette_rgb(SCALE_DIVERGING, 0.5)), black));
	cr_assert(same(palette_text_on(palette_rgb(SCALE_WEIGHTS, 1)), white));
	cr_assert(same(palette_text_on(palette_rgb(SCALE_WEIGHTS, 0)), black));
	enum scale_kind scales[2] = { SCALE_DIVERGING, SCALE_WEIGHTS };
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i <= 100; i++) {
			struct rgb bg = palette_rgb(scales[k], i / 100.0), fg = palette_text_on(bg);
			cr_assert(same(fg, black) || same(fg, white));
			/* WCAG AA for normal text */
			cr_assert(contrast(fg, bg) >= 4.5, "scale %d step %d: contrast %.2f", k, i, contrast(fg, bg));
		}
	}
}

Test(palette, index256_should_pick_the_nearer_of_the_cube_and_the_grey_ramp)
{
	cr_assert_eq(palette_index256((struct rgb){ 0, 0, 0 }), 16);
	cr_assert_eq(palette_index256((struct rgb){ 255, 255, 255 }), 231);
	cr_assert_eq(palette_index256((struct rgb){ 255, 0, 0 }), 196);
	cr_assert_eq(palette_index256((struct rgb){ 0, 0, 255 }), 21);
	cr_assert_eq(palette_index256((struct rgb){ 95, 135, 175 }), 67);
	cr_assert_eq(palette_index256((struct rgb){ 255, 135, 0 }), 208);
	/* greys between the cube's levels go to the ramp 232..255 (8 + 10k) */
	cr_assert_eq(palette_index256((struct rgb){ 128, 128, 128 }), 244);
	cr_assert_eq(palette_index256((struct rgb){ 8, 8, 8 }), 232);
	cr_assert_eq(palette_index256((struct rgb){ 238, 238, 238 }), 255);
	cr_assert_eq(palette_index256((struct rgb){ 50, 52, 49 }), 236);
	/* a grey that is a cube level exactly stays in the cube */
	cr_assert_eq(palette_index256((struct rgb){ 95, 95, 95 }), 59);
}

/* The RGB of an xterm-256 index 16..255 */
static struct rgb rgb256(int i)
{
	static const int level[6] = { 0, 95, 135, 175, 215, 255 };
	if (i >= 232) {
		uint8_t v = (uint8_t)(8 + 10 * (i - 232));
		return (struct rgb){ v, v, v };
	}
	i -= 16;
	return (struct rgb){ (uint8_t)level[i / 36], (uint8_t)level[i / 6 % 6], (uint8_t)level[i % 6] };
}

Test(palette, index256_should_be_the_nearest_for_every_palette_step)
{
	enum scale_kind scales[2] = { SCALE_DIVERGING, SCALE_WEIGHTS };
	for (int k = 0; k < 2; k++) {
		for (int s = 0; s <= 50; s++) {
			struct rgb c = palette_rgb(scales[k], s / 50.0);
			int got = palette_index256(c);
			cr_assert(got >= 16 && got <= 255);
			struct rgb g = rgb256(got);
			int dg = (g.r - c.r) * (g.r - c.r) + (g.g - c.g) * (g.g - c.g) + (g.b - c.b) * (g.b - c.b);
			for (int i = 16; i < 256; i++) {
				struct rgb o = rgb256(i);
				int d = (o.r - c.r) * (o.r - c.r) + (o.g - c.g) * (o.g - c.g) + (o.b - c.b) * (o.b - c.b);
				cr_assert(d >= dg, "scale %d step %d: %d is nearer than %d", k, s, i, got);
			}
		}
	}
}

Test(palette, index16_should_map_the_ansi_colours_to_themselves)
{
	static const struct rgb ansi[16] = {
		{ 0, 0, 0 },       { 205, 0, 0 },     { 0, 205, 0 },     { 205, 205, 0 },
		{ 0, 0, 238 },     { 205, 0, 205 },   { 0, 205, 205 },   { 229, 229, 229 },
		{ 127, 127, 127 }, { 255, 0, 0 },     { 0, 255, 0 },     { 255, 255, 0 },
		{ 92, 92, 255 },   { 255, 0, 255 },   { 0, 255, 255 },   { 255, 255, 255 },
	};
	for (int i = 0; i < 16; i++)
		cr_assert_eq(palette_index16(ansi[i], false), i, "colour %d", i);
	/* with 8 colours the bright ones fold onto the plain ones */
	cr_assert_eq(palette_index16((struct rgb){ 255, 0, 0 }, true), 1);
	cr_assert_eq(palette_index16((struct rgb){ 255, 255, 255 }, true), 7);
	cr_assert_eq(palette_index16((struct rgb){ 92, 92, 255 }, true), 4);
	cr_assert_eq(palette_index16((struct rgb){ 20, 20, 20 }, true), 0);
	/* greys stay grey, muted colours keep their hue */
	cr_assert_eq(palette_index16((struct rgb){ 120, 124, 118 }, false), 8);
	cr_assert_eq(palette_index16((struct rgb){ 33, 72, 150 }, false), 4);
	cr_assert_eq(palette_index16((struct rgb){ 170, 76, 10 }, false), 1);
}

Test(palette, index16_should_keep_the_scales_blue_against_orange_and_never_green)
{
	for (int only8 = 0; only8 < 2; only8++) {
		int lo = palette_index16(palette_rgb(SCALE_DIVERGING, 0), only8);
		int hi = palette_index16(palette_rgb(SCALE_DIVERGING, 1), only8);
		cr_assert(lo == 4 || lo == 12 || lo == 6 || lo == 14, "negative end -> %d", lo);
		cr_assert(hi == 1 || hi == 3 || hi == 9 || hi == 11, "positive end -> %d", hi);
		int deep = palette_index16(palette_rgb(SCALE_WEIGHTS, 1), only8);
		cr_assert(deep == 4 || deep == 12, "deep weights -> %d (not black)", deep);
		enum scale_kind scales[2] = { SCALE_DIVERGING, SCALE_WEIGHTS };
		for (int k = 0; k < 2; k++) {
			for (int i = 0; i <= 100; i++) {
				int c = palette_index16(palette_rgb(scales[k], i / 100.0), only8);
				cr_assert(c >= 0 && c < (only8 ? 8 : 16));
				cr_assert(c != 2 && c != 10, "scale %d step %d maps to green", k, i);
				cr_assert(c != 5 && c != 13, "scale %d step %d maps to magenta", k, i);
			}
		}
	}
}

Test(palette, mode_should_follow_no_color_colorterm_and_the_colour_count)
{
	/* NO_COLOR set and non-empty, or --no-color: no colour at all */
	cr_assert_eq(palette_mode("1", false, "truecolor", 256), COLOR_NONE);
	cr_assert_eq(palette_mode("yes", false, NULL, 16), COLOR_NONE);
	cr_assert_eq(palette_mode(NULL, true, "truecolor", 256), COLOR_NONE);
	cr_assert_eq(palette_mode("", true, NULL, 8), COLOR_NONE);
	/* an empty NO_COLOR counts as unset */
	cr_assert_eq(palette_mode("", false, NULL, 256), COLOR_256);
	/* COLORTERM asks for 24-bit colour on a 256-colour terminal */
	cr_assert_eq(palette_mode(NULL, false, "truecolor", 256), COLOR_TRUE);
	cr_assert_eq(palette_mode(NULL, false, "24bit", 256), COLOR_TRUE);
	cr_assert_eq(palette_mode("", false, "truecolor", 16777216), COLOR_TRUE);
	cr_assert_eq(palette_mode(NULL, false, "yes", 256), COLOR_256);
	cr_assert_eq(palette_mode(NULL, false, "", 256), COLOR_256);
	/* but not where terminfo knows fewer colours (tmux with TERM=screen) */
	cr_assert_eq(palette_mode(NULL, false, "truecolor", 8), COLOR_8);
	/* by the colour count */
	cr_assert_eq(palette_mode(NULL, false, NULL, 256), COLOR_256);
	cr_assert_eq(palette_mode(NULL, false, NULL, 88), COLOR_16);
	cr_assert_eq(palette_mode(NULL, false, NULL, 16), COLOR_16);
	cr_assert_eq(palette_mode(NULL, false, NULL, 15), COLOR_8);
	cr_assert_eq(palette_mode(NULL, false, NULL, 8), COLOR_8);
	cr_assert_eq(palette_mode(NULL, false, NULL, 2), COLOR_NONE);
	cr_assert_eq(palette_mode(NULL, false, NULL, 0), COLOR_NONE);
	cr_assert_eq(palette_mode(NULL, false, NULL, -1), COLOR_NONE);
}

Test(palette, shade_should_give_the_five_levels_and_clamp)
{
	cr_assert_str_eq(palette_shade(0), " ");
	cr_assert_str_eq(palette_shade(1), "\u2591");
	cr_assert_str_eq(palette_shade(2), "\u2592");
	cr_assert_str_eq(palette_shade(3), "\u2593");
	cr_assert_str_eq(palette_shade(4), "\u2588");
	cr_assert_str_eq(palette_shade(-5), " ");
	cr_assert_str_eq(palette_shade(99), "\u2588");
}

/* Luminance of a simulated colour (0..255 sRGB channels). */
static double dluminance(struct drgb c)
{
	return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/* The palettes of exported figures (--palette): the weights ramp and the
 * gray one keep the order of values for deuteranopes and protanopes, by
 * lightness alone, each tenth of the scale visibly apart from the next. */
Test(palette, exported_sequential_scales_should_keep_their_order_for_deuteranopes_and_protanopes)
{
	const double (*sims[2])[3] = { deuteranopia, protanopia };
	enum palette_kind kinds[2] = { PALETTE_COLOR, PALETTE_GRAY };
	for (int k = 0; k < 2; k++)
		for (int p = 0; p < 2; p++) {
			struct drgb prev = simulate(sims[k], palette_rgb_in(kinds[p], SCALE_WEIGHTS, 0));
			for (int i = 1; i <= 10; i++) {
				struct drgb c = simulate(sims[k], palette_rgb_in(kinds[p], SCALE_WEIGHTS, i / 10.0));
				cr_assert(dluminance(c) < dluminance(prev), "palette %d, sim %d: step %d not darker", p, k, i);
				cr_assert(ddist(c, prev) > 12, "palette %d, sim %d: steps %d and %d only %.0f apart", p, k,
					  i - 1, i, ddist(c, prev));
				prev = c;
			}
		}
}

Test(palette, palette_names_should_parse_and_others_be_refused)
{
	enum palette_kind k = PALETTE_GRAY;
	cr_assert_eq(palette_parse("color", &k), 0);
	cr_assert_eq(k, PALETTE_COLOR);
	cr_assert_eq(palette_parse("grey", &k), 0);
	cr_assert_eq(k, PALETTE_GRAY);
	cr_assert_eq(palette_parse("default", &k), 0);
	cr_assert_eq(k, PALETTE_COLOR);
	cr_assert_eq(palette_parse("Gray", &k), -1);
	cr_assert_eq(palette_parse("", &k), -1);
	/* the screen's colours are the colour palette's */
	for (int i = 0; i <= 20; i++)
		cr_assert(same(palette_rgb_in(PALETTE_COLOR, SCALE_DIVERGING, i / 20.0),
			       palette_rgb(SCALE_DIVERGING, i / 20.0)));
}
