/* palette.h: colours for heatmaps, chosen without a terminal.
 * Diverging scores run blue - neutral - orange and weights run through one
 * blue ramp: both readable for red/green colour blindness and on light or
 * dark backgrounds. The ui quantises them to what the terminal offers
 * (24-bit, 256, 16 or 8 colours) or falls back to the shade characters
 * ░▒▓█ when there is no colour. Pure functions. */
#ifndef QKV_VIEW_PALETTE_H
#define QKV_VIEW_PALETTE_H

#include "lesson/lesson.h"

#include <stdbool.h>
#include <stdint.h>

enum color_mode { COLOR_NONE, COLOR_8, COLOR_16, COLOR_256, COLOR_TRUE };

struct rgb {
	uint8_t r, g, b;
};

/* The colour of position pos (0..1, as heatmap_position gives) on a scale. */
struct rgb palette_rgb(enum scale_kind scale, double pos);

/* The palettes of exported figures (--palette): the screen's colours, or
 * gray for print (white to near black, in the order of the values, on both
 * scales). */
enum palette_kind { PALETTE_COLOR, PALETTE_GRAY };
struct rgb palette_rgb_in(enum palette_kind k, enum scale_kind scale, double pos);
/* A NaN cell's colour in k: magenta, or a mid grey for print. */
struct rgb palette_nan_rgb_in(enum palette_kind k);
/* k for a --palette name: "color" (also "colour", "default") or "gray"
 * ("grey"); -1 for any other. */
int palette_parse(const char *name, enum palette_kind *k);
/* The colour of a NaN cell (a fully masked row's 0/0): magenta, on neither
 * scale, and its own colour among the 8 ANSI ones too. */
struct rgb palette_nan_rgb(void);
/* The colours of the cells off the scale where colour is all there is to
 * draw (half blocks, two rows a character): masked (-inf) a dark grey,
 * +inf white; NaN is palette_nan_rgb. heatmap_legend names them so. */
struct rgb palette_masked_rgb(void);
struct rgb palette_posinf_rgb(void);
/* Black or white, whichever reads better on bg. */
struct rgb palette_text_on(struct rgb bg);
/* The nearest colour of the xterm 256-colour cube/grey ramp (16..255). */
int palette_index256(struct rgb c);
/* The nearest of the 16 (or 8) ANSI colours, for terminals with few colours
 * (0 black, 1 red, ..., 7 white, 8-15 bright). */
int palette_index16(struct rgb c, bool only8);
/* The colour mode for a terminal: NO_COLOR (set and non-empty) or no_color
 * (--no-color) give COLOR_NONE; COLORTERM truecolor/24bit gives COLOR_TRUE
 * when colors >= 256; else by the terminal's colour count (terminfo). */
enum color_mode palette_mode(const char *no_color_env, bool no_color, const char *colorterm, int colors);
/* The shade character (UTF-8) for a level 0..4: " ", "░", "▒", "▓", "█". */
const char *palette_shade(int level);

#endif
