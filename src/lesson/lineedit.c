/* lineedit.c: readline as both statement prompts use it (see lineedit.h):
 * completion from the session and lesson/commands' words, Tab that indents
 * at the start of a line, the text a new line starts with, blocks in the
 * history and its file. Called by ui/prompt.c and cli/repl.c; never draws,
 * never prints, never reaches the interpreter but through the session. */
#include "lesson/lineedit.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "lesson/session.h"
#include "lesson/statements.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum command_front front;
static struct session *session;
static char *next_text;

/* ---- completion ------------------------------------------------------------------ */

static char **cands;
static int ncands, capcands;
static const char *cand_prefix;	/* "torch" while completing "torch.sof" */

static void add_cand(void *udata, const char *name)
{
	(void)udata;
	struct strbuf whole;	/* the prefix, however long, and the name */
	strbuf_init(&whole);
	if (cand_prefix)
		strbuf_printf(&whole, "%s.", cand_prefix);
	strbuf_puts(&whole, name);
	for (int i = 0; i < ncands; i++)
		if (strcmp(cands[i], whole.s) == 0) {
			strbuf_free(&whole);
			return;
		}
	if (ncands == capcands) {
		capcands = capcands ? 2 * capcands : 32;
		cands = xrealloc(cands, sizeof *cands * (size_t)capcands);
	}
	cands[ncands++] = strbuf_detach(&whole);
}

static char *next_cand(const char *text, int state)
{
	static int i;
	(void)text;
	if (state == 0)
		i = 0;
	return i < ncands ? strdup(cands[i++]) : NULL;	/* readline frees with free() */
}

/* The start of the line (of a block's lines) that holds byte at. */
static int line_start(int at)
{
	while (at > 0 && rl_line_buffer[at - 1] != '\n')
		at--;
	return at;
}

/* ':' commands, names, or attributes: readline hands over the whole dotted
 * word ("torch.sof"), so matches are whole words too */
static char **complete(const char *text, int start, int end)
{
	(void)end;
	for (int i = 0; i < ncands; i++)
		free(cands[i]);
	ncands = 0;
	rl_attempted_completion_over = 1;
	rl_completion_append_character = '\0';	/* "torch.softmax" then "(" */
	const char *dot = strrchr(text, '.');
	int ls = line_start(start);
	if (rl_line_buffer[ls] == ':' && start > ls + 1 &&
	    (strncmp(rl_line_buffer + ls, ":load ", 6) == 0 || strncmp(rl_line_buffer + ls, ":save", 5) == 0)) {
		rl_attempted_completion_over = 0;	/* readline's own: file names */
		return NULL;
	}
	if (rl_line_buffer[ls] == ':' && start <= ls + 1) {
		bool colon = text[0] == ':';	/* the word holds the ':' (not a word break) */
		const char *cmd;
		for (int i = 0; (cmd = command_word(front, i)) != NULL; i++) {
			char word[40];
			snprintf(word, sizeof word, "%s%s", colon ? ":" : "", cmd);
			if (strncmp(word, text, strlen(text)) == 0)
				add_cand(NULL, word);
		}
		rl_completion_append_character = ' ';
	} else if (!session) {
		return NULL;
	} else if (dot) {
		char *ctx = xstrndup(text, (size_t)(dot - text));
		cand_prefix = ctx;
		session_complete(session, ctx, dot + 1, add_cand, NULL);
		cand_prefix = NULL;
		free(ctx);
	} else {
		session_complete(session, NULL, text, add_cand, NULL);
	}
	return ncands ? rl_completion_matches(text, next_cand) : NULL;
}

/* After :load and :save the word completed is a file name, slashes and
 * all (readline's own word breaks would leave only what is after the last
 * '/'); NULL elsewhere: rl_completer_word_break_characters. */
static char *word_breaks(void)
{
	int ls = line_start(rl_point);
	if (strncmp(rl_line_buffer + ls, ":load ", 6) == 0 || strncmp(rl_line_buffer + ls, ":save ", 6) == 0 ||
	    strncmp(rl_line_buffer + ls, ":save! ", 7) == 0)
		return " \t\n";
	return NULL;
}

/* Tab: spaces to the next multiple of 4 columns when only spaces are
 * before the cursor on its line, else completion. rl_complete lists the
 * matches when the command before it was rl_complete too (a second Tab),
 * but readline names the command a key ran after its function, tab here:
 * without saying so, Tab never listed them. */
static bool tab_completed;	/* the last Tab completed (it did not indent) */

static int tab(int count, int key)
{
	int ls = line_start(rl_point);
	for (int i = ls; i < rl_point; i++)
		if (rl_line_buffer[i] != ' ' && rl_line_buffer[i] != '\t') {
			if (rl_last_func == tab && tab_completed)
				rl_last_func = rl_complete;
			tab_completed = true;
			return rl_complete(count, key);
		}
	tab_completed = false;
	int col = rl_point - ls;
	char spaces[5] = "    ";
	spaces[4 - col % 4] = 0;
	rl_insert_text(spaces);
	return 0;
}

/* Backspace: in the indentation before the cursor, back to the previous
 * multiple of 4 columns (a level of the block); elsewhere one character */
static int backspace(int count, int key)
{
	int ls = line_start(rl_point);
	for (int i = ls; i < rl_point; i++)
		if (rl_line_buffer[i] != ' ')
			return rl_rubout(count, key);
	int col = rl_point - ls;
	if (col == 0)
		return rl_rubout(count, key);
	int to = (col - 1) / 4 * 4;
	rl_delete_text(ls + to, rl_point);
	rl_point = ls + to;
	return 0;
}

static int startup(void)
{
	if (next_text) {
		rl_insert_text(next_text);
		free(next_text);
		next_text = NULL;
	}
	return 0;
}

void lineedit_take_next(void)
{
	startup();
}

/* Whether bytes are already waiting on the terminal (both prompts read it
 * as standard input, a byte at a time): keys that came in one burst with
 * the one being handled, as a paste does. */
static bool input_waiting(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

void lineedit_offer_indent(const char *block, size_t len)
{
	if (input_waiting()) {
		lineedit_set_next(NULL);
		return;
	}
	char ind[81];
	int n = statements_indent(block, len);
	n = n < 80 ? n : 80;
	memset(ind, ' ', (size_t)n);
	ind[n] = 0;
	lineedit_set_next(ind);
}

void lineedit_setup(enum command_front f, struct session *s)
{
	front = f;
	session = s;
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = " \t\n\"'`@$><=;|&{(,[+-*/%";
	rl_completion_word_break_hook = word_breaks;
	rl_startup_hook = startup;
	/* a history line changed and left stays changed in readline, its undo
	 * list kept with it across lines, where a later line's undo met a list
	 * already freed (issue 15): in the plain repl, Enter puts them back; the
	 * full screen's callback mode keeps no undo lists at all (ui/prompt.c) */
	if (f != COMMAND_SCREEN)
		rl_variable_bind("revert-all-at-newline", "on");
	/* the matches are listed at once when Tab can add nothing to the word
	 * (else on a second Tab), unless ~/.inputrc, read after, says otherwise */
	rl_variable_bind("show-all-if-unmodified", "on");
	rl_bind_key('\t', tab);
	/* readline binds the terminal's erase key (stty erase: DEL or Ctrl-H) to
	 * its own rubout when it starts, over this Backspace, which never
	 * dedented: its Ctrl-U, Ctrl-W and Ctrl-V are bound alike anyway */
	rl_variable_bind("bind-tty-special-chars", "off");
	rl_bind_key(127, backspace);
	rl_bind_key(8, backspace);
}

static int refuse(int count, int key)
{
	(void)count;
	(void)key;
	return rl_ding();
}

/* In map and the maps under it (depth levels): non-incremental searches
 * (Alt-P, Alt-N, vi's / and ?) become incremental ones (Ctrl-R, Ctrl-S),
 * keyboard macros ring the bell. */
static void make_callback_safe(Keymap map, int depth)
{
	for (int k = 0; k < KEYMAP_SIZE; k++) {
		rl_command_func_t *f = map[k].function;
		if (map[k].type == ISKMAP && f && depth > 0)
			make_callback_safe((Keymap)f, depth - 1);
		if (map[k].type != ISFUNC || !f)
			continue;
		if (f == rl_noninc_reverse_search || (f == rl_vi_search && k == '/'))
			map[k].function = rl_reverse_search_history;
		else if (f == rl_noninc_forward_search || (f == rl_vi_search && k == '?'))
			map[k].function = rl_forward_search_history;
		else if (f == rl_start_kbd_macro || f == rl_end_kbd_macro || f == rl_call_last_kbd_macro)
			map[k].function = refuse;
	}
}

void lineedit_callback_keymaps(void)
{
	static const char *const maps[] = { "emacs", "vi-command", "vi-insert" };
	for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
		Keymap m = rl_get_keymap_by_name(maps[i]);
		if (m)
			make_callback_safe(m, 2);
	}
}

void lineedit_set_session(struct session *s)
{
	session = s;
}

void lineedit_set_next(const char *text)
{
	free(next_text);
	next_text = text && *text ? xstrdup(text) : NULL;
}

/* ---- history ---------------------------------------------------------------------- */

void lineedit_history_add(const char *entry)
{
	while (*entry == '\n')
		entry++;	/* a file line cannot be empty: an entry never starts with one */
	size_t n = strlen(entry);
	while (n > 0 && (entry[n - 1] == '\n' || entry[n - 1] == ' ' || entry[n - 1] == '\t'))
		n--;
	if (n == 0)
		return;
	char *e = xstrndup(entry, n);
	add_history(e);
	free(e);
}

void lineedit_history_encode(struct strbuf *out, const char *entry)
{
	while (*entry == '\n')
		entry++;
	if (entry[0] == '\\')
		strbuf_putc(out, '\\');
	for (const char *c = entry; *c; c++) {
		strbuf_putc(out, *c);
		if (*c == '\n')
			strbuf_puts(out, "\\|");
	}
}

void lineedit_history_load(char *const *lines, int n)
{
	struct strbuf e;
	strbuf_init(&e);
	bool have = false;
	for (int i = 0; i <= n; i++) {
		const char *l = i < n ? lines[i] : NULL;
		if (l && l[0] == '\\' && l[1] == '|') {
			if (have) {	/* a block's next line (its first may have been cut off) */
				strbuf_putc(&e, '\n');
				strbuf_puts(&e, l + 2);
			}
			continue;
		}
		if (have && e.len)
			add_history(e.s);
		strbuf_reset(&e);
		have = l != NULL;
		if (l)
			strbuf_puts(&e, l[0] == '\\' && l[1] == '\\' ? l + 1 : l);
	}
	strbuf_free(&e);
}
