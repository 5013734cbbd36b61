/* jsonpos.h: where each value of a parsed JSON document sits in its text.
 * jsonpos_check first validates the text strictly and names the first fault;
 * cJSON keeps no positions, so after cJSON has parsed a checked document,
 * jsonpos walks the same text in step with the tree and records the byte
 * offset of every value and member name. Used by the lesson loader to name
 * FILE:LINE:COL in its messages. Lines end at LF, CRLF or a lone CR; a UTF-8
 * byte order mark at the top takes no column. */
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

/* 1-based line and column (in characters) of byte offset off. A byte order
 * mark at text[0] takes no column. */
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

/* What jsonpos_check found wrong with a JSON text. */
enum jsonpos_fault_kind {
	JSONPOS_OK,
	JSONPOS_EMPTY,           /* nothing but white space */
	JSONPOS_ENDS_INSIDE,     /* the text ends inside the string, array or object at open */
	JSONPOS_ENDS_EARLY,      /* the text ends before its value does, inside nothing */
	JSONPOS_UNEXPECTED,      /* a character that cannot stand here */
	JSONPOS_MISSING_COMMA,   /* a value right after a value */
	JSONPOS_MISSING_COLON,   /* a value right after a member name */
	JSONPOS_TRAILING_COMMA,  /* a ',' (at) right before a '}' or ']' (open) */
	JSONPOS_NAME_NOT_STRING, /* a member name without double quotes */
	JSONPOS_BAD_NUMBER,      /* 01, 1., 1e, -: why says what is wrong */
	JSONPOS_NONFINITE,       /* NaN, Infinity and the like: word says which */
	JSONPOS_BAD_ESCAPE,      /* a backslash before a character that has no escape */
	JSONPOS_BAD_U_ESCAPE,    /* \u not followed by four hex digits */
	JSONPOS_NUL_ESCAPE,      /* \u0000: a NUL, which cJSON keeps and C strings cut at */
	JSONPOS_LONE_HIGH,       /* \ud800-\udbff not followed by \udc00-\udfff (unit) */
	JSONPOS_LONE_LOW,        /* \udc00-\udfff after no high surrogate (unit) */
	JSONPOS_CONTROL,         /* a raw byte below 0x20 in the string at open */
	JSONPOS_TOO_DEEP,        /* a '[' or '{' nested deeper than the limit */
	JSONPOS_AFTER,           /* more than white space after the value */
};

struct jsonpos_fault {
	enum jsonpos_fault_kind kind;
	size_t at;         /* the offset the message names */
	size_t open;       /* the opening '"', '[' or '{' of the string, array or
	                      object the fault is in, (size_t)-1 at the top;
	                      TRAILING_COMMA: the '}' or ']' after the ',' */
	unsigned unit;     /* LONE_HIGH, LONE_LOW: the UTF-16 unit */
	const char *word;  /* NONFINITE: the word; BAD_NUMBER: why */
};

/* Checks text[start..len) strictly against JSON (RFC 8259) before cJSON,
 * which takes in some wrong texts silently (01, 1., raw control characters
 * in strings, a \uZZZZ it reads as a NUL that cuts the string) and reports
 * others one character late. Also refuses what a lesson cannot hold:
 * \u0000, lone surrogates, nesting more than limit deep (the outermost
 * counts 1; cJSON refuses more than CJSON_NESTING_LIMIT). Returns 0 when the
 * text is one JSON value and white space, else -1 with *f naming the first
 * fault. Does not check UTF-8 (file_bad_text does). */
int jsonpos_check(const char *text, size_t len, size_t start, int limit, struct jsonpos_fault *f);

#endif
