/* test_slices.c: [ ] (the keys that move through the 2-D slices of a 3-D
 * or 4-D tensor) are offered only where there is another slice to go to,
 * in a real terminal (tmux): a batch of one names its slice without them,
 * in the lesson screen's view and status line and in qkv --repl's view; a
 * batch of two offers them; a matrix has neither. At 80x24 without colour,
 * at 160x40 with TERM=xterm. */
#include "system.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session;
static char state[64], dir[64];

static const char lesson[] =
	"{ \"format\": 1, \"id\": \"tiny-slices\", \"title\": \"Slices\", \"source\": \"a test\",\n"
	"  \"summary\": \"Batches of one and of two.\",\n"
	"  \"steps\": [\n"
	"    { \"title\": \"A matrix\", \"text\": \"X.\", \"code\": \"X = [0.5 -1.25; 2 0.125]\",\n"
	"      \"show\": { \"heatmap\": \"X\" } },\n"
	"    { \"title\": \"A batch of one\", \"text\": \"B.\", \"code\": \"B = torch.arange(6.).reshape(1, 2, 3)\",\n"
	"      \"show\": { \"heatmap\": \"B\" } },\n"
	"    { \"title\": \"One by one heads\", \"text\": \"H.\",\n"
	"      \"code\": \"H = torch.arange(6.).reshape(1, 1, 2, 3)\", \"show\": { \"heatmap\": \"H\" } },\n"
	"    { \"title\": \"A batch of two\", \"text\": \"C.\", \"code\": \"C = torch.arange(12.).reshape(2, 2, 3)\",\n"
	"      \"show\": { \"heatmap\": \"C\" } }\n"
	"  ] }\n";

static void setup(void)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-slices-state");
	dir_make_temp(dir, sizeof dir, "qkv-slices");
	char path[128];
	snprintf(path, sizeof path, "%s/slices.json", dir);
	file_put(path, lesson, sizeof lesson - 1);
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	dir_remove(dir);
}

/* The status line (the screen's last line) of s. */
static const char *status_line(const char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == '\n')
		n--;
	while (n > 0 && s[n - 1] != '\n')
		n--;
	return s + n;
}

/* Step step of the lesson at w x h, the view given the keys (Tab): its
 * screen, once the inspector under the grid shows the first cell of name. */
static char *view_of_step(int w, int h, const char *env, int step, const char *name)
{
	char args[160], cell[32];
	snprintf(args, sizeof args, "%s/slices.json --step %d", dir, step);
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
	free(tmux_see(session, "step "));
	tmux_keys(session, "Tab");
	snprintf(cell, sizeof cell, "%s[0, 0", name);
	return tmux_see(session, cell);
}

static void lesson_at(int w, int h, const char *env)
{
	char *s = view_of_step(w, h, env, 1, "X");
	cr_expect(!strstr(status_line(s), "[ ]"), "a matrix has no slices:\n%s", s);
	free(s);
	tmux_private_server_end();
	s = view_of_step(w, h, env, 2, "B");
	cr_expect(strstr(s, "batch 0\n") || strstr(s, "batch 0 "), "%s", s);
	cr_expect(!strstr(s, "[ ] to change") && !strstr(status_line(s), "[ ]"), "a batch of one offers [ ]:\n%s", s);
	free(s);
	tmux_private_server_end();
	s = view_of_step(w, h, env, 3, "H");
	cr_expect(strstr(s, "batch 0, head 0"), "%s", s);
	cr_expect(!strstr(s, "[ ] to change") && !strstr(status_line(s), "[ ]"), "one batch of one head offers [ ]:\n%s",
		  s);
	free(s);
	tmux_private_server_end();
	s = view_of_step(w, h, env, 4, "C");
	cr_expect(strstr(s, "batch 0   ([ ] to change)"), "%s", s);
	if (w >= 100)	/* at 80 columns the status line has no room for it */
		cr_expect(strstr(status_line(s), "[ ] slice"), "%s", s);
	free(s);
	tmux_keys(session, "]");
	s = tmux_see(session, "batch 1   ([ ] to change)");
	free(s);
	tmux_private_server_end();
}

Test(slices, a_batch_of_one_should_not_offer_brackets_in_a_lesson_at_80x24, .init = setup, .fini = finish)
{
	lesson_at(80, 24, "NO_COLOR=1");
}

Test(slices, a_batch_of_one_should_not_offer_brackets_in_a_lesson_at_160x40, .init = setup, .fini = finish)
{
	lesson_at(160, 40, "TERM=xterm");
}

/* qkv --repl's view: the same, for a value a line made */
Test(slices, a_batch_of_one_should_not_offer_brackets_in_the_repl_view, .init = setup, .fini = finish)
{
	session = tmux_start_qkv(100, 30, state, NULL, "--repl", "sleep 30");
	free(tmux_see(session, ">>>"));
	tmux_line(session, "B = torch.ones(1, 2, 3)");
	char *s = tmux_see(session, "batch 0");
	cr_expect(!strstr(s, "[ ] to change"), "a batch of one offers [ ]:\n%s", s);
	free(s);
	tmux_line(session, "C = torch.ones(2, 2, 3)");
	s = tmux_see(session, "batch 0   ([ ] to change, with Tab)");
	free(s);
}
