/* utf8.h: UTF-8 text on a terminal, the same for every front end: decoding,
 * the columns a character takes (a fixed table, whatever the locale), cutting
 * to a width at a character boundary, fitting with "…", and word wrap.
 * Invalid bytes are never an error here: each one is U+FFFD, one column. */
#ifndef QKV_CORE_UTF8_H
#define QKV_CORE_UTF8_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the character at s (at most n bytes): returns the bytes it takes (1..4) and its code point in *cp;
 * an invalid or truncated sequence takes 1 byte and gives U+FFFD. n must be >= 1. Overlong forms,
 * surrogates (U+D800..U+DFFF) and code points beyond U+10FFFF are invalid. */
int utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Writes code point cp (below 0x110000, not a surrogate) to buf as UTF-8: returns its bytes (1..4). */
int utf8_encode(char buf[4], uint32_t cp);

/* Characters of the NUL-terminated s, as utf8_decode reads them (an invalid byte is one character):
 * Python's len() of a str. */
size_t utf8_count(const char *s);
/* The same for the first n bytes of s (stops at a NUL too). */
size_t utf8_count_n(const char *s, size_t n);
/* The byte offset of character k of s (the length of s when s has k characters or fewer). */
size_t utf8_offset(const char *s, size_t k);
/* The same within the first n bytes of s (stops at a NUL too): where character k of a line of a longer text
 * begins, as for a caret under the 1-based column k + 1 that an error names (its columns count characters). */
size_t utf8_offset_n(const char *s, size_t n, size_t k);
/* The byte offset of each character of s, and the length of s after them: offs gets count + 1 entries
 * (count from utf8_count). For slicing with a step. */
void utf8_offsets(const char *s, size_t *offs, size_t count);

/* Terminal columns of a code point, independent of the locale: 0 for combining marks, zero-width
 * characters and C0/C1 controls other than tab; 2 for East Asian wide and fullwidth characters and
 * emoji presentation ranges; 1 otherwise (tab included: the caller expands tabs if it wants to). */
int utf8_cp_width(uint32_t cp);

/* Columns of the first n bytes of s (stops at a NUL), and of a whole NUL-terminated string.
 * A character that the n bytes cut short counts as invalid bytes, one column each. */
int utf8_width_n(const char *s, size_t n);
int utf8_width(const char *s);

/* The number of bytes of the longest prefix of s made of whole characters that fits in maxw columns
 * (0 when maxw <= 0); *width (may be NULL) gets its width. Zero-width characters (combining marks)
 * that follow the last character that fits are kept with it. */
size_t utf8_cut(const char *s, int maxw, int *width);
/* The same within the first n bytes of s (stops at a NUL too): for a slice of a longer text. */
size_t utf8_cut_n(const char *s, size_t n, int maxw, int *width);

/* Appends to out s fitted to width columns: cut with a trailing "…" when wider, and padded with spaces
 * on the left (align > 0, right-aligned), on the right (align < 0) or not at all (align == 0).
 * With align != 0 the result takes exactly width columns (a wide character that does not fit before
 * the "…" leaves a space instead); nothing is appended when width <= 0. */
struct strbuf;
void utf8_fit(struct strbuf *out, const char *s, int width, int align);

/* Greedy word wrap of text to width columns: existing '\n' are kept; lines break at spaces (the spaces at a
 * break are dropped); a word wider than width is cut at a character boundary across lines; leading spaces
 * of a paragraph line are kept. Calls line(udata, start, nbytes) for each line in order (the bytes are a
 * slice of text, no newline) and returns the number of lines. width < 1 counts as 1.
 * Details: only ' ' separates words, and the spaces between two words on one line stay as they are in
 * the text; a line never ends with a space; a paragraph's leading spaces that leave no room for one
 * character are dropped; a character wider than width takes a line of its own; an empty paragraph
 * gives an empty line, but a final '\n' does not start one ("" gives 0 lines, "a\n" 1, "a\n\nb" 3).
 * line may be NULL, to count the lines only. */
typedef void (*utf8_line_fn)(void *udata, const char *start, size_t n);
int utf8_wrap(const char *text, int width, utf8_line_fn line, void *udata);

/* snprintf and vsnprintf that never leave half a character: when the text is cut to fit size bytes, a
 * multi-byte character cut short at its end is removed too. Return what vsnprintf returns (the length
 * the whole text would take). */
int utf8_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int utf8_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
