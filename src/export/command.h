/* command.h: `:export NAME FILE` of the two prompts that run statements
 * (ui/prompt.c, the full screen's, and cli/repl.c, qkv repl's): a tensor of
 * the prompt's session, or any expression, written as a heatmap figure to
 * FILE in the format of its extension. One function, so the two prompts
 * export and fail alike. */
#ifndef QKV_EXPORT_COMMAND_H
#define QKV_EXPORT_COMMAND_H

#include "core/error.h"
#include "export/export.h"
#include "lesson/commands.h"

#include <stddef.h>

struct session;

/* Runs c (CMD_EXPORT or CMD_EXPORT_FORCE, as command_parse made it): its
 * NAME evaluated in s (session_show: the workspace and the random streams
 * unchanged), the heatmap of its first matrix drawn with o (NULL: the
 * default colours and numbers) and written to FILE through export_save
 * (replacing a file only for :export!). 0 with done holding what was
 * written ("Exported S (4×4) to s.svg."); -1 with err->msg and err->col the
 * column in c's line to put a caret under: the name for an unknown name,
 * an error in the expression or a value that is not a tensor, the file for
 * an unknown extension, a file that exists or cannot be written. */
int export_command(struct session *s, const struct command *c, const struct export_opts *o, char *done, size_t size,
		   struct qkv_error *err);

#endif
