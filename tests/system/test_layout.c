/* test_layout.c: what the lesson screen lays out at 80x24, 100x30 and 120x40
 * in a real terminal (tmux), as testers found it cut or out of line: titles
 * cut to the screen end in "…". */
#include "system.h"
#include "core/utf8.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *session;
static char state[64];

static void start(int w, int h, const char *env, const char *args)
{
	tmux_require();
	dir_make_temp(state, sizeof state, "qkv-layout-state");
	session = tmux_start_qkv(w, h, state, env, args, "sleep 30");
}

static void finish(void)
{
	tmux_private_server_end();
	dir_remove(state);
	state[0] = 0;
}

/* Line n (0-based) of screen s into out, "" past its end. */
static void line_n(const char *s, int n, char *out, size_t size)
{
	for (int i = 0; i < n && s; i++) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	size_t len = s ? strcspn(s, "\n") : 0;
	snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), s ? s : "");
}

/* The line of s that holds text into out ("" when none). */
static void line_of(const char *s, const char *text, char *out, size_t size)
{
	const char *p = strstr(s, text);
	out[0] = 0;
	if (!p)
		return;
	while (p > s && p[-1] != '\n')
		p--;
	snprintf(out, size, "%.*s", (int)strcspn(p, "\n"), p);
}

/* ---- titles ---------------------------------------------------------------------------- */

Test(layout, titles_cut_at_80x24_should_end_in_an_ellipsis, .fini = finish)
{
	start(80, 24, NULL, "");
	char *s = tmux_see(session, "Decoding with a KV cache");
	char line[1024];
	line_of(s, "Decoding with", line, sizeof line);
	cr_assert(strstr(line, "attention across sequen") && strstr(line, "\u2026"), "menu: %s\n%s", line, s);
	free(s);
	tmux_keys(session, "8");
	s = tmux_see(session, "step 1/12");
	tmux_keys(session, "g 8 Enter");
	free(s);
	s = tmux_see(session, "step 8/12");
	line_n(s, 0, line, sizeof line);
	cr_assert(strstr(line, "attention across sequen") && strstr(line, "\u2026  step 8/12"), "header: %s", line);
	/* the view's title: what it shows cut, the key to the next view kept */
	cr_assert(strstr(s, "6 target queries \u00d7 5 sourc\u2026  (v: next)") ||
		  strstr(s, "\u2026  (v: next)"), "view title:\n%s", s);
	free(s);
}
