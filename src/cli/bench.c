/* bench.c: `qkv bench [--json] [--quick]`, the kernels' speed on this
 * machine (bench/bench.h does the timing). Called by main.c; reads only its
 * own arguments. */
#include "cli/cli.h"
#include "bench/bench.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int cli_bench(int argc, char **argv)
{
	bool json = false, quick = false;
	for (int j = 0; j < argc; j++) {
		if (strcmp(argv[j], "--json") == 0)
			json = true;
		else if (strcmp(argv[j], "--quick") == 0)
			quick = true;
		else
			return cli_usage_error("bench takes --json and --quick, got %s", argv[j]);
	}
	return bench_run(stdout, json, quick);
}
