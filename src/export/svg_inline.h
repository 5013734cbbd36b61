/* svg_inline.h: an SVG document as an element of an HTML page, for html.c's
 * lesson page: without its <?xml?> line, its ids and the references to them
 * given a prefix of the figure's own (cairo names the glyphs of every SVG it
 * writes glyph0-1, ... and they would collide), and the glyph outlines a
 * page already holds used again instead of written again. Pure text work:
 * never draws, never reads a file. */
#ifndef QKV_EXPORT_SVG_INLINE_H
#define QKV_EXPORT_SVG_INLINE_H

#include "core/strbuf.h"

#include <stddef.h>

/* The glyph outlines (<symbol> elements) already written in a page, and
 * their ids there. */
struct svg_glyphs;
struct svg_glyphs *svg_glyphs_new(void);
void svg_glyphs_free(struct svg_glyphs *g);

/* Appends the SVG document svg[0..n) to out as an inline <svg> element:
 * its declaration, doctype and comments left out, the root's xmlns
 * attributes too (HTML knows SVG's namespaces) and attrs (starting with a
 * blank, may be "") added to it; every id="x" becomes id="PREFIXx" and
 * every reference (href="#x", url(#x)) follows it. A <symbol> whose
 * content a figure before it in g already holds is left out and its
 * references name that one (g may be NULL: nothing shared). */
void svg_inline(struct strbuf *out, const char *svg, size_t n, const char *prefix, const char *attrs,
		struct svg_glyphs *g);

#endif
