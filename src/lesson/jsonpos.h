/* jsonpos.h: where each value of a parsed JSON document sits in its text.
 * cJSON keeps no positions, so after cJSON has parsed (and so validated) a
 * document, jsonpos walks the same text in step with the tree and records the
 * byte offset of every value and member name. Used by the lesson loader to
 * name FILE:LINE:COL in its messages. */
#ifndef QKV_LESSON_JSONPOS_H
#define QKV_LESSON_JSONPOS_H

#include <cjson/cJSON.h>
#include <stddef.h>

struct jsonpos_entry {
	const cJSON *node;
	size_t value;   /* offset of the value's first character */
	size_t key;     /* offset of the member name's opening quote (object members) */
};

struct jsonpos {
	const char *text;
	size_t len;
	struct jsonpos_entry *entries;
	size_t n, cap;
	size_t *lines;  /* the offset where each line begins (lines[0] = 0), so that
	                   jsonpos_of counts columns from there, not from the top */
	size_t nlines;
};

/* Builds the map for root, which cJSON parsed from text[0..len). */
void jsonpos_build(struct jsonpos *m, const char *text, size_t len, const cJSON *root);
void jsonpos_free(struct jsonpos *m);

/* 1-based line and column (in characters) of byte offset off. */
void jsonpos_linecol(const char *text, size_t len, size_t off, int *line, int *col);
/* Line and column of a node's value (key: of its member name instead);
 * 0, 0 when the node is unknown. */
void jsonpos_of(const struct jsonpos *m, const cJSON *node, int key, int *line, int *col);
/* The byte offset of a node's value, or (size_t)-1. */
size_t jsonpos_offset(const struct jsonpos *m, const cJSON *node);
/* For a JSON string value starting (at its opening quote) at str_off: the
 * line and column in the file of the character whose offset in the decoded
 * string is decoded_off (escapes such as \n or \" take several characters in
 * the file, one in the string). */
void jsonpos_string_linecol(const char *text, size_t len, size_t str_off, size_t decoded_off, int *line,
			    int *col);

/* Pre-scans for what cJSON reports only as a failure somewhere (or not at
 * all), in text[start..len): */
/* The offset of the first '[' or '{' nested more than limit deep (the
 * outermost counts 1; cJSON refuses more than CJSON_NESTING_LIMIT), outside
 * strings; (size_t)-1 when there is none. */
size_t jsonpos_too_deep(const char *text, size_t len, size_t start, int limit);
/* The offset of the backslash of the first escape in a string that a
 * lesson cannot hold: \u0000 (a NUL, which cJSON keeps and C strings cut
 * at) or a lone surrogate (a \ud800-\udbff not followed by a
 * \udc00-\udfff, or one of those alone), *unit getting its value; (size_t)-1
 * when there is none. Only meaningful up to where the text stops being
 * JSON. */
size_t jsonpos_bad_escape(const char *text, size_t len, size_t start, unsigned *unit);

#endif
