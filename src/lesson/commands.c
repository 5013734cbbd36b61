/* commands.c: the ':' commands both prompts share (see commands.h): parsing
 * a command line, which prompt runs which command, and the help texts, with
 * a text of each prompt's own where they differ (the full screen draws, the
 * line mode prints). Running a command is each prompt's job. Every help line
 * fits in 78 columns (tests/unit/test_help.c checks them). */
#include "lesson/commands.h"
#include "core/mem.h"
#include "core/utf8.h"
#include "lesson/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELP_WIDTH 78

/* ---- the commands --------------------------------------------------------------- */

static const struct {
	const char *word;
	enum command_id id;
	bool screen, line;   /* which prompts run it */
} commands[] = {
	{ "quit", CMD_QUIT, true, true },
	{ "q", CMD_QUIT, true, true },
	{ "ls", CMD_LS, true, true },
	{ "help", CMD_HELP, true, true },
	{ "clear", CMD_CLEAR, true, false },
	{ "reset", CMD_RESET, true, true },
	{ "show", CMD_SHOW, true, true },
	{ "hint", CMD_HINT, true, false },
	{ "solution", CMD_SOLUTION, true, false },
	{ "save", CMD_SAVE, true, true },
	{ "save!", CMD_SAVE_FORCE, true, true },
	{ "load", CMD_LOAD, true, true },
	{ "export", CMD_EXPORT, true, true },
	{ "export!", CMD_EXPORT_FORCE, true, true },
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

const char *command_word(enum command_front front, int k)
{
	for (size_t i = 0; i < NCOMMANDS; i++) {
		bool runs = front == COMMAND_SCREEN ? commands[i].screen : commands[i].line;
		bool alias = i > 0 && commands[i - 1].id == commands[i].id;
		if (runs && !alias && k-- == 0)
			return commands[i].word;
	}
	return NULL;
}

bool command_parse(const char *line, struct command *c)
{
	memset(c, 0, sizeof *c);
	const char *s = line;
	while (*s == ' ')
		s++;
	if (*s != ':')
		return false;
	c->col = (int)(s - line) + 1;
	const char *w = s + 1;
	size_t wl = strcspn(w, " ");
	snprintf(c->word, sizeof c->word, "%.*s", (int)(wl < sizeof c->word ? wl : sizeof c->word - 1), w);
	const char *a = w + wl;
	while (*a == ' ')
		a++;
	c->argcol = (int)utf8_count_n(line, (size_t)(a - line)) + 1;	/* columns count characters */
	size_t al = strlen(a);
	while (al > 0 && a[al - 1] == ' ')
		al--;
	c->arg_cut = al >= sizeof c->arg;
	if (c->arg_cut) {
		al = sizeof c->arg - 1;
		while (al > 0 && (a[al] & 0xC0) == 0x80)
			al--;	/* not inside a character */
	}
	memcpy(c->arg, a, al);
	c->arg[al] = 0;
	c->id = CMD_UNKNOWN;
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(c->word, commands[i].word) == 0)
			c->id = commands[i].id;
	return true;
}

bool command_check(const struct command *c, enum command_front front, struct qkv_error *err)
{
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(c->word, commands[i].word) != 0)
			continue;
		if (c->arg_cut && (front == COMMAND_SCREEN ? commands[i].screen : commands[i].line)) {
			error_set(err, 1, c->argcol, "what follows :%s is longer than the %zu bytes a command takes",
				  c->word, sizeof c->arg - 1);
			return false;
		}
		if (front == COMMAND_SCREEN ? commands[i].screen : commands[i].line)
			return true;
		error_set(err, 1, c->col, "':%s' works only in the full screen's prompt (qkv --repl, or ':' in a "
			  "lesson)", c->word);
		return false;
	}
	error_set(err, 1, c->col, "unknown command ':%.24s' (:help lists them)", c->word);
	return false;
}

bool command_export_args(const struct command *c, char *expr, size_t esize, int *exprcol, char *file, size_t fsize,
			 int *filecol, struct qkv_error *err)
{
	const char *a = c->arg, *sp = strrchr(a, ' ');
	if (!a[0] || !sp) {
		/* the caret where the missing name or file goes */
		error_set(err, 1, c->argcol + (a[0] ? (int)utf8_count(a) + 1 : 0), ":%s needs a name and a file: :%s W "
			  "w.svg", c->word, c->word);
		return false;
	}
	size_t n = (size_t)(sp - a);
	while (n > 0 && a[n - 1] == ' ')
		n--;
	snprintf(expr, esize, "%.*s", (int)n, a);
	snprintf(file, fsize, "%s", sp + 1);
	*exprcol = c->argcol;
	*filecol = c->argcol + (int)utf8_count_n(a, (size_t)(sp + 1 - a));
	return true;
}

/* ---- help ------------------------------------------------------------------------- */

/* A topic: the full screen's text, and the line mode's where it differs
 * (NULL: the same). */
static const struct {
	const char *topic, *screen, *line;
} topics[] = {
	{ "",
	  "Type notebook lines (S = Q @ K.T) or matrices (X = [1 2; 3 4]), then Enter.\n"
	  ":show NAME          show a tensor     :show NAME loops   loops beside SIMD\n"
	  ":ls                 the workspace     :clear             clear the view\n"
	  ":reset              back to the step's workspace\n"
	  ":save FILE.json     save as a lesson  :save! FILE        replace a file\n"
	  ":load FILE          run a lesson's or a file's statements\n"
	  ":export NAME F.svg  a tensor as a figure (.pdf .png); e exports the view\n"
	  ":hint  :solution    for the step's exercise\n"
	  ":quit or Ctrl-D on an empty line: close the prompt (qkv --repl: leave)\n"
	  "Esc: in a lesson, close the prompt; in qkv --repl, clear what is typed\n"
	  "Editing: arrows, Ctrl-A/E/K/U/W, Alt-B/F, Up/Down history, Ctrl-R search,\n"
	  "Tab completes. A line ending in ':' opens a block; an empty line runs it.\n"
	  "More: :help blocks, show, save, load, export, exercise, keys, matrices,\n"
	  "torch, F, np, Tensor",
	  "Type notebook lines (S = Q @ K.T) or matrices (X = [1 2; 3 4]), then Enter.\n"
	  ":show EXPR          print a value     :show EXPR loops   loops beside SIMD\n"
	  ":ls                 the workspace     :reset             empty the workspace\n"
	  ":save FILE.json     save as a lesson  :save! FILE        replace a file\n"
	  ":load FILE          run a lesson's or a file's statements\n"
	  ":export NAME F.svg  a tensor as a figure (.pdf, .png too)\n"
	  ":quit, quit() or Ctrl-D on an empty line: leave\n"
	  "A line ending in ':' opens a block; an empty line runs it.\n"
	  "More: :help blocks, show, save, load, export, exercise, keys, matrices,\n"
	  "torch, F, np, Tensor" },
	{ "blocks",
	  "A line ending in ':' (if, for, while, def, class, with) opens a block: the\n"
	  "prompt becomes ... and the next line starts 4 spaces deeper (Tab at the\n"
	  "start of a line indents, Backspace there dedents). An empty line, or one of\n"
	  "only spaces, ends the block and runs it whole. A bracket left open goes on\n"
	  "after ... too. A pasted cell runs at once, one statement after another, as\n"
	  "a notebook runs it; one that fails stays in the input with the lines after\n"
	  "it, a caret under its column. Lines pasted where the terminal does not mark\n"
	  "a paste come faster than typed: no indentation is offered to them, they\n"
	  "keep their own. Up brings a block back whole. Ctrl-C drops the block being\n"
	  "typed, or stops the one that runs (a while loop): nothing of it is kept.",
	  "A line ending in ':' (if, for, while, def, class, with) opens a block: the\n"
	  "prompt becomes ... and the next line starts 4 spaces deeper (Tab at the\n"
	  "start of a line indents, Backspace there dedents). An empty line, or one of\n"
	  "only spaces, ends the block and runs it whole. A bracket left open goes on\n"
	  "after ... too. A pasted cell, or lines from a pipe (qkv repl < cell.py), run\n"
	  "one statement after another, as a notebook runs a cell. Lines pasted where\n"
	  "the terminal does not mark a paste come faster than typed: no indentation\n"
	  "is offered to them, they keep their own. Up brings a block back whole.\n"
	  "Ctrl-C drops the block being typed, or stops the one that runs (a while\n"
	  "loop): nothing of it is kept." },
	{ "show",
	  ":show NAME shows a tensor of the workspace (or any expression) as a heatmap.\n"
	  ":show EXPR loops runs a matmul, softmax or attention expression twice, once\n"
	  "on the plain for-loop kernels and once on the SIMD ones: the loops are\n"
	  "animated beside the SIMD result, with both times and the largest difference\n"
	  "between them. Tab on an empty line gives the keys to the view (:help keys).",
	  ":show EXPR prints the value of a name or of any expression, as a bare\n"
	  "expression would, without changing the workspace or the random streams.\n"
	  ":show EXPR loops runs a matmul, softmax or attention expression twice, once\n"
	  "on the plain for-loop kernels and once on the SIMD ones, and prints their\n"
	  "times and the largest difference between them (qkv --repl draws both)." },
	{ "save",
	  ":save FILE.json writes the statements typed so far as a lesson of one step,\n"
	  "with the values they make as its expects; qkv FILE.json, qkv run and\n"
	  "qkv check open it. In a lesson the step's own code comes first. The file is\n"
	  "written to a temporary file and renamed, so an interrupted save leaves the\n"
	  "old file whole. :save! FILE.json replaces a file that exists.",
	  NULL },
	{ "load",
	  ":load FILE runs a file's statements in the workspace: a lesson (.json) gives\n"
	  "the code of all its steps in order, any other file is read as statements.\n"
	  "A statement that fails undoes the whole file and is named FILE:LINE:COL;\n"
	  "raised inside a function, the function's line is shown with a caret.",
	  NULL },
	{ "export",
	  ":export NAME FILE.svg writes the heatmap of a tensor of the workspace (or\n"
	  "of any expression) to a file, as :show NAME draws it: .svg, .pdf or .png,\n"
	  "by the file's extension. A file that exists is kept: :export! NAME FILE\n"
	  "replaces it. The e key exports the view on the screen (the lesson's, or\n"
	  "this one after Tab; E in the loops) with its numbers as drawn, to a new\n"
	  "file named after the lesson and step, in the current directory or in\n"
	  "$QKV_EXPORT_DIR. qkv export LESSON -o FILE.html exports a whole lesson.",
	  ":export NAME FILE.svg writes the heatmap of a tensor of the workspace (or\n"
	  "of any expression) to a file: .svg, .pdf or .png, by the file's\n"
	  "extension. A file that exists is kept: :export! NAME FILE replaces it.\n"
	  "qkv --repl draws the heatmap first, and its e key exports what it shows;\n"
	  "qkv export LESSON -o FILE exports a lesson's views (.html: all of it)." },
	{ "exercise",
	  "A step with an exercise asks a question under the view. Compute the answer\n"
	  "at the prompt: every value a line makes is compared with the expected one.\n"
	  "A prediction (Predict:) asks you to think first: type your answer as a\n"
	  "value, a number (28), an index (2) or a list ([1.0, 0.0]).\n"
	  ":hint gives the next hint, :solution the statement that computes it.\n"
	  "Solved exercises are kept in progress.json and marked with a pencil in the\n"
	  "menu.",
	  "Exercises belong to the steps of a lesson: open it full screen (qkv LESSON)\n"
	  "and answer at its prompt, where :hint and :solution help." },
	{ "keys",
	  "Left/Right, Home/End or Ctrl-A/Ctrl-E move; Alt-B/Alt-F move by word.\n"
	  "Ctrl-K cuts to the end, Ctrl-U to the start, Ctrl-W the word before;\n"
	  "Ctrl-Y pastes.\n"
	  "Up/Down walk the history (kept in $XDG_STATE_HOME/qkv/history);\n"
	  "Ctrl-R searches it.\n"
	  "Tab completes names, functions, methods after a dot, and : commands; when\n"
	  "several fit, a second Tab lists them under the line (the first, when it has\n"
	  "nothing to add). At the start of a block's line Tab indents. Enter runs the\n"
	  "line; after a ':' or an open bracket the input goes on after ..., and an\n"
	  "empty line runs the block.\n"
	  "Esc closes the prompt in a lesson, and clears the line or block typed in\n"
	  "qkv --repl; Ctrl-D on an empty line or :quit leaves.\n"
	  "In vi editing mode (set editing-mode vi in ~/.inputrc) Esc is vi's own.\n"
	  "Ctrl-C stops a line that runs (nothing of it is kept), else clears the line\n"
	  "or the block typed.\n"
	  "Tab on an empty >>> line gives the keys to the view: arrows or hjkl move the\n"
	  "cell cursor (the inspector follows), + - zoom, [ ] the slice of a 3-D or\n"
	  "4-D tensor, s r e < > x the panels of :show EXPR loops, e (E in them)\n"
	  "exports the view to a file (:help export); Tab or any other key gives\n"
	  "them back.",
	  "Left/Right, Home/End or Ctrl-A/Ctrl-E move; Alt-B/Alt-F move by word.\n"
	  "Ctrl-K cuts to the end, Ctrl-U to the start, Ctrl-W the word before;\n"
	  "Ctrl-Y pastes.\n"
	  "Up/Down walk the lines typed since qkv repl started; Ctrl-R searches them.\n"
	  "Tab completes names, methods after a dot, : commands and the file names of\n"
	  ":load and :save; when several fit, a second Tab lists them (the first, when\n"
	  "it has nothing to add). At the start of a block's line Tab indents.\n"
	  "Enter runs the line; after a ':' or an open bracket the input goes on after\n"
	  "..., indented, and an empty line runs the block.\n"
	  "Ctrl-D on an empty line, :quit or quit() leaves. Ctrl-C stops a statement\n"
	  "that runs (nothing of it is kept), else drops the line or block typed.\n"
	  "qkv --repl is the same prompt full screen, with heatmaps." },
	{ "matrices",
	  "X = [1 2; 3 4] makes a float32 matrix: spaces or commas between numbers,\n"
	  "';' between rows. torch.tensor([[1., 2.], [3., 4.]]) and np.array(...) work\n"
	  "as in the notebooks. Several statements go on one line separated by ';'.",
	  NULL },
};
#define NTOPICS (sizeof topics / sizeof *topics)

const char *command_help_text(enum command_front front, int k, const char **topic)
{
	if (k < 0 || (size_t)k >= NTOPICS)
		return NULL;
	*topic = topics[k].topic;
	return front == COMMAND_LINE && topics[k].line ? topics[k].line : topics[k].screen;
}

/* The names of a module, collected once each. */
struct names {
	char **v;
	int n, cap;
};

static void add_name(void *udata, const char *name)
{
	struct names *ns = udata;
	for (int i = 0; i < ns->n; i++)
		if (strcmp(ns->v[i], name) == 0)
			return;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 32;
		ns->v = xrealloc(ns->v, sizeof *ns->v * (size_t)ns->cap);
	}
	ns->v[ns->n++] = xstrdup(name);
}

int command_help(struct strbuf *out, enum command_front front, const struct session *s, const char *topic,
		 int width, struct qkv_error *err)
{
	const char *name;
	for (int k = 0; command_help_text(front, k, &name); k++) {
		if (strcmp(topic, name) == 0) {
			strbuf_puts(out, command_help_text(front, k, &name));
			return 0;
		}
	}
	struct names ns = { NULL, 0, 0 };
	session_complete(s, topic, "", add_name, &ns);
	if (ns.n == 0)
		return error_set(err, 1, 0, "no help on '%.40s' (try :help, :help keys or :help torch)", topic);
	if (width > HELP_WIDTH)
		width = HELP_WIDTH;
	strbuf_printf(out, "the names in %s%s:\n", topic, front == COMMAND_SCREEN ? " (Tab completes them)" : "");
	for (int i = 0, col = 0; i < ns.n; i++) {
		int w = utf8_width(ns.v[i]);
		if (col && col + 2 + w > width) {
			strbuf_putc(out, '\n');
			col = 0;
		}
		strbuf_printf(out, "%s%s", col ? "  " : "", ns.v[i]);
		col += (col ? 2 : 0) + w;
		free(ns.v[i]);
	}
	free(ns.v);
	return 0;
}
