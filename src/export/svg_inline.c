/* svg_inline.c: an SVG document inlined in an HTML page (see svg_inline.h).
 * Called by html.c for each figure of a lesson page. Reads the SVG cairo
 * writes as text, tag by tag; whatever it does not know it copies. */
#include "export/svg_inline.h"
#include "core/mem.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct glyph {
	uint64_t hash;
	char *body;          /* what lies between <symbol ...> and </symbol> */
	size_t len;
	char *id;            /* its id in the page */
};

struct svg_glyphs {
	struct glyph *v;
	int n;
};

/* A symbol of the figure being inlined that the page already holds. */
struct alias {
	const char *local;   /* its id in the figure (a slice of the SVG) */
	size_t len;
	const char *id;      /* the id in the page it stands for */
};

struct inline_ctx {
	const char *prefix, *attrs;
	bool root_done;
	struct alias *aliases;
	int naliases;
};

struct svg_glyphs *svg_glyphs_new(void)
{
	return xcalloc(1, sizeof(struct svg_glyphs));
}

void svg_glyphs_free(struct svg_glyphs *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->n; i++) {
		free(g->v[i].body);
		free(g->v[i].id);
	}
	free(g->v);
	free(g);
}

static bool starts(const char *s, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);
	return (size_t)(end - s) >= n && memcmp(s, prefix, n) == 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *find(const char *s, const char *end, const char *what)
{
	while (s < end && !starts(s, end, what))
		s++;
	return s < end ? s : NULL;
}

/* The value of the attribute id in the tag [tag, tag_end), or NULL. */
static const char *tag_id(const char *tag, const char *tag_end, size_t *len)
{
	const char *a = find(tag, tag_end, " id=\"");
	if (!a)
		return NULL;
	const char *v = a + 5, *e = memchr(v, '"', (size_t)(tag_end - v));
	if (!e)
		return NULL;
	*len = (size_t)(e - v);
	return v;
}

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211u;
	return h;
}

/* The <symbol> elements of the figure svg[..end): each whose content g
 * holds already becomes an alias of that one; each other one is added to g
 * under its id in the page. A symbol whose content refers to anything
 * (a '#') stays the figure's own. */
static void collect_symbols(struct inline_ctx *c, const char *svg, const char *end, struct svg_glyphs *g)
{
	for (const char *p = find(svg, end, "<symbol"); p; p = find(p + 1, end, "<symbol")) {
		const char *gt = memchr(p, '>', (size_t)(end - p));
		if (!gt || gt[-1] == '/')
			continue;
		size_t idlen;
		const char *id = tag_id(p, gt, &idlen);
		const char *body = gt + 1, *close = find(body, end, "</symbol>");
		if (!id || !close || memchr(body, '#', (size_t)(close - body)))
			continue;
		size_t len = (size_t)(close - body);
		uint64_t h = fnv1a(body, len);
		int i = 0;
		while (i < g->n && !(g->v[i].hash == h && g->v[i].len == len && memcmp(g->v[i].body, body, len) == 0))
			i++;
		if (i < g->n) {
			c->aliases = xrealloc(c->aliases, sizeof *c->aliases * (size_t)(c->naliases + 1));
			c->aliases[c->naliases++] = (struct alias){ id, idlen, g->v[i].id };
			continue;
		}
		g->v = xrealloc(g->v, sizeof *g->v * (size_t)(g->n + 1));
		size_t pl = strlen(c->prefix);
		char *pid = xmalloc(pl + idlen + 1);
		memcpy(pid, c->prefix, pl);
		memcpy(pid + pl, id, idlen);
		pid[pl + idlen] = 0;
		g->v[g->n++] = (struct glyph){ h, xstrndup(body, len), len, pid };
	}
}

static const struct alias *alias_of(const struct inline_ctx *c, const char *id, size_t len)
{
	for (int i = 0; i < c->naliases; i++)
		if (c->aliases[i].len == len && memcmp(c->aliases[i].local, id, len) == 0)
			return &c->aliases[i];
	return NULL;
}

/* A reference to the figure's id x[0..len): the page's id it stands for. */
static void put_ref(struct strbuf *out, const struct inline_ctx *c, const char *x, size_t len)
{
	const struct alias *a = alias_of(c, x, len);
	if (a) {
		strbuf_puts(out, a->id);
	} else {
		strbuf_puts(out, c->prefix);
		strbuf_putn(out, x, len);
	}
}

/* An attribute's value (still escaped as the SVG holds it) with the id it
 * gives, a value "#x" of an href, and every url(#x) made the page's. */
static void put_value(struct strbuf *out, const struct inline_ctx *c, const char *name, size_t nlen, const char *v,
		      const char *end)
{
	bool href = nlen >= 4 && memcmp(name + nlen - 4, "href", 4) == 0;
	if (nlen == 2 && memcmp(name, "id", 2) == 0) {
		strbuf_puts(out, c->prefix);
	} else if (href && v < end && *v == '#') {
		strbuf_putc(out, '#');
		put_ref(out, c, v + 1, (size_t)(end - v - 1));
		return;
	}
	while (v < end) {
		const char *u = find(v, end, "url(#");
		strbuf_putn(out, v, (size_t)((u ? u : end) - v));
		if (!u)
			break;
		const char *x = u + 5, *xe = memchr(x, ')', (size_t)(end - x));
		xe = xe ? xe : end;
		strbuf_puts(out, "url(#");
		put_ref(out, c, x, (size_t)(xe - x));
		v = xe;
	}
}

/* One tag from s (at its '<') to its '>' copied with its ids and
 * references made the page's; the root <svg> loses its xmlns attributes
 * and gains c->attrs. Returns where the tag ends. */
static const char *put_tag(struct strbuf *out, struct inline_ctx *c, const char *s, const char *end)
{
	const char *p = s + 1;
	while (p < end && *p != '>' && *p != '/' && !is_blank(*p))
		p++;
	if (p == s + 1 && p < end && *p == '/')	/* an end tag </name> */
		while (p < end && *p != '>')
			p++;
	strbuf_putn(out, s, (size_t)(p - s));
	bool root = !c->root_done && p - s == 4 && memcmp(s, "<svg", 4) == 0;
	if (root) {
		strbuf_puts(out, c->attrs);
		c->root_done = true;
	}
	while (p < end && *p != '>') {
		const char *name = p;
		while (p < end && !is_blank(*p) && *p != '=' && *p != '>' && *p != '/')
			p++;
		size_t nlen = (size_t)(p - name);
		if (nlen == 0) {	/* a blank, "/" or a stray "=": as it is */
			strbuf_putc(out, *p++);
			continue;
		}
		if (p + 1 >= end || *p != '=' || (p[1] != '"' && p[1] != '\'')) {	/* a bare name */
			strbuf_putn(out, name, nlen);
			continue;
		}
		char q = p[1];
		const char *v = p + 2, *ve = memchr(v, q, (size_t)(end - v));
		ve = ve ? ve : end;
		bool xmlns = nlen >= 5 && memcmp(name, "xmlns", 5) == 0 && (nlen == 5 || name[5] == ':');
		if (root && xmlns) {	/* left out, with the blank before it */
			while (out->len > 0 && is_blank(out->s[out->len - 1]))
				out->s[--out->len] = 0;
		} else {
			strbuf_putn(out, name, nlen);
			strbuf_putc(out, '=');
			strbuf_putc(out, q);
			put_value(out, c, name, nlen, v, ve);
			strbuf_putc(out, q);
		}
		p = ve < end ? ve + 1 : end;
	}
	if (p < end)
		strbuf_putc(out, *p++);
	return p;
}

/* Where the markup at p that the page leaves out ends (NULL when it is to
 * be copied): a declaration, a comment, a doctype, a symbol the page holds
 * already (with the line break after it). */
static const char *left_out(const struct inline_ctx *c, const char *p, const char *end)
{
	const char *close = starts(p, end, "<?") ? "?>" : starts(p, end, "<!--") ? "-->" :
			    starts(p, end, "<!") ? ">" : NULL;
	if (!close && c->naliases > 0 && starts(p, end, "<symbol")) {
		const char *gt = memchr(p, '>', (size_t)(end - p));
		size_t len;
		const char *id = gt ? tag_id(p, gt, &len) : NULL;
		if (id && alias_of(c, id, len))
			close = "</symbol>";
	}
	if (!close)
		return NULL;
	const char *q = find(p + 1, end, close);
	q = q ? q + strlen(close) : end;
	return q < end && *q == '\n' ? q + 1 : q;
}

void svg_inline(struct strbuf *out, const char *svg, size_t n, const char *prefix, const char *attrs,
		struct svg_glyphs *g)
{
	struct inline_ctx c = { prefix, attrs, false, NULL, 0 };
	const char *p = svg, *end = svg + n;
	if (g)
		collect_symbols(&c, svg, end, g);
	while (p < end) {
		const char *lt = memchr(p, '<', (size_t)(end - p));
		lt = lt ? lt : end;
		if (c.root_done)	/* text between tags (none before the root) */
			strbuf_putn(out, p, (size_t)(lt - p));
		p = lt;
		if (p == end)
			break;
		const char *skip = left_out(&c, p, end);
		p = skip ? skip : put_tag(out, &c, p, end);
	}
	if (out->len == 0 || out->s[out->len - 1] != '\n')
		strbuf_putc(out, '\n');
	free(c.aliases);
}
