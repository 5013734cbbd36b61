/* list.c: `qkv list`, the lessons of the catalog (built-in ones and
 * QKV_LESSONS) with their number, id, title and steps. Called by main.c;
 * prints the list on stdout and loader warnings on stderr, nothing else. */
#include "cli/cli.h"
#include "lesson/catalog.h"

#include <stdio.h>

int cli_list(int argc, char **argv)
{
	if (argc > 0)
		return cli_usage_error("list takes no arguments, got %s", argv[0]);
	struct catalog c;
	catalog_load(&c, cli_print_warning, NULL);
	for (int i = 0; i < c.n; i++) {
		const struct catalog_entry *e = &c.entries[i];
		if (e->lesson)
			printf("%2d  %-30s %s (%d steps)\n", i + 1, e->lesson->id, e->lesson->title, e->lesson->nsteps);
		else
			printf("%2d  %-30s (cannot be loaded: %s)\n", i + 1, "?", e->error);
	}
	catalog_free(&c);
	return 0;
}
