/* commands.h: the ':' commands of the two prompts that run statements in a
 * session: the full screen's (ui/prompt.c, `:` in a lesson and qkv --repl)
 * and qkv repl's line mode (cli/repl.c). One parser of a command line (the
 * command word, its argument and their columns, for a caret under them) and
 * one set of help texts, so the two prompts can never describe the same
 * command differently. Pure text: no terminal, nothing printed. */
#ifndef QKV_LESSON_COMMANDS_H
#define QKV_LESSON_COMMANDS_H

#include "core/error.h"
#include "core/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct session;

/* Which prompt a help text or a command is for. */
enum command_front {
	COMMAND_SCREEN,   /* the full screen's prompt: draws heatmaps, has a lesson step */
	COMMAND_LINE,     /* qkv repl: prints text, one line after another */
};

enum command_id {
	CMD_UNKNOWN,      /* no such command */
	CMD_QUIT,         /* :quit, :q */
	CMD_LS,
	CMD_HELP,
	CMD_CLEAR,        /* full screen only */
	CMD_RESET,
	CMD_SHOW,
	CMD_HINT,         /* full screen only */
	CMD_SOLUTION,     /* full screen only */
	CMD_SAVE,
	CMD_SAVE_FORCE,   /* :save! */
	CMD_LOAD,
	CMD_EXPORT,       /* :export NAME FILE.svg|.pdf|.png */
	CMD_EXPORT_FORCE, /* :export! */
};

/* A ':' command line taken apart. */
struct command {
	enum command_id id;
	char word[32];    /* the command word as typed, without the ':' ("save!") */
	int col;          /* 1-based column of the ':' in the line */
	char arg[4096 + 256];  /* what follows the word, without the spaces around it: a path as
	                          long as the system takes (PATH_MAX) */
	bool arg_cut;     /* it was longer: command_check refuses it, never a shorter file name */
	int argcol;       /* 1-based column where arg starts (after the line's end when empty);
	                     columns count characters, as the lexer's do */
};

/* Whether line (spaces before the ':' allowed) is a ':' command: true with c
 * filled (id CMD_UNKNOWN for a word no prompt knows), false when it is a
 * statement. */
bool command_parse(const char *line, struct command *c);

/* The argument of `:export NAME FILE` (and :export!) taken apart: FILE is
 * its last word, NAME (a name or any expression) what comes before it.
 * True with expr and file filled and their 1-based columns in the line;
 * false with err (a caret where the missing part goes) when either is
 * missing. */
bool command_export_args(const struct command *c, char *expr, size_t esize, int *exprcol, char *file, size_t fsize,
			 int *filecol, struct qkv_error *err);

/* The k-th command word front's prompt runs (k from 0; an alias such as
 * "q" is not listed), or NULL after the last: for completing ':' words. */
const char *command_word(enum command_front front, int k);

/* Whether front's prompt can run c; when not (an unknown command, one the
 * other prompt alone has, or an argument too long to hold whole), false
 * with err->msg saying so and err->col the ':' column (the argument's), for
 * a caret there. */
bool command_check(const struct command *c, enum command_front front, struct qkv_error *err);

/* `:help` (topic "") and `:help TOPIC` as front shows them: a topic's text,
 * or for a module's name (torch, F, np, Tensor) the names it has, from
 * session s, wrapped to width columns (at most 78). Appends to out and
 * returns 0; -1 with err->msg when there is no help on topic. */
int command_help(struct strbuf *out, enum command_front front, const struct session *s, const char *topic,
		 int width, struct qkv_error *err);

/* Every fixed help text, for the tests that check their widths: the k-th
 * text of front's (k from 0), or NULL after the last; *topic is its topic
 * ("" for the overview). */
const char *command_help_text(enum command_front front, int k, const char **topic);

#endif
