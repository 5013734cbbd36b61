/* list.c: `qkv list`, the lessons of the catalog (built-in ones and
 * QKV_LESSONS) with their number, id, title and steps. Called by main.c;
 * prints the list on stdout and loader warnings on stderr, nothing else,
 * their control characters made visible (core/visible.h). */
#include "cli/cli.h"
#include "lesson/catalog.h"
#include "core/visible.h"

#include <stdio.h>
#include <stdlib.h>

int cli_list(int argc, char **argv)
{
	if (argc > 0)
		return cli_usage_error("list takes no arguments, got %s", argv[0]);
	struct catalog c;
	catalog_load(&c, cli_print_warning, NULL);
	for (int i = 0; i < c.n; i++) {
		const struct catalog_entry *e = &c.entries[i];
		/* a title holding ESC ] 0 ; ... would set the window title: shown, not obeyed */
		char *id = visible_copy(e->lesson ? e->lesson->id : "?", 0);
		char *what = visible_copy(e->lesson ? e->lesson->title : e->error, 0);
		if (e->lesson)
			printf("%2d  %-30s %s (%d steps)\n", i + 1, id, what, e->lesson->nsteps);
		else
			printf("%2d  %-30s (cannot be loaded: %s)\n", i + 1, id, what);
		free(id);
		free(what);
	}
	catalog_free(&c);
	return 0;
}
