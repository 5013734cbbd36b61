/* bench.c: `qkv bench [--json] [--quick] [--case NAME[,NAME...]]...
 * [--kernel=loops|unrolled|simd[,...]]`, the speed of the kernels, the
 * interpreter and the screen on this machine (bench/bench.h does the
 * timing). Called by main.c; reads only its own arguments. */
#include "cli/cli.h"
#include "bench/bench.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASES_MAX 64

/* Appends the comma-separated names of list to names (n so far); -1 when
 * there are too many or one is empty. */
static int add_cases(const char *list, char **names, int *n)
{
	for (const char *p = list;; p++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0 || *n >= CASES_MAX)
			return -1;
		names[(*n)++] = strndup(p, len);
		if (!end)
			return 0;
		p = end;
	}
}

/* The variants of a --kernel list ("loops,simd") as bits 1 << KERNEL_...;
 * 0 for an empty or unknown name. */
static unsigned kernel_list(const char *list)
{
	unsigned bits = 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		int v = kernel_variant_named(p, len);
		if (v < 0)
			return 0;
		bits |= 1u << v;
		p += len;
		if (!*p)
			return bits;
	}
}

int cli_bench(int argc, char **argv)
{
	struct bench_options o = { 0 };
	char *names[CASES_MAX];
	int n = 0, rc = 0;
	for (int j = 0; j < argc && rc == 0; j++) {
		const char *list = NULL;
		if (strcmp(argv[j], "--json") == 0)
			o.json = true;
		else if (strcmp(argv[j], "--quick") == 0)
			o.quick = true;
		else if (strncmp(argv[j], "--case=", 7) == 0)
			list = argv[j] + 7;
		else if (strcmp(argv[j], "--case") == 0 && j + 1 < argc)
			list = argv[++j];
		else if (strcmp(argv[j], "--case") == 0)
			rc = cli_usage_error("%s", "bench --case needs a case's name (qkv bench --case small_ops)");
		else if (strncmp(argv[j], "--kernel=", 9) == 0 && (o.variants = kernel_list(argv[j] + 9)) == 0)
			rc = cli_usage_error("bench --kernel takes loops, unrolled or simd, separated by commas, "
					     "got '%s'", argv[j] + 9);
		else if (strncmp(argv[j], "--kernel=", 9) != 0)
			rc = cli_usage_error("bench takes --json, --quick, --case NAME and --kernel=VARIANTS, got %s",
					     argv[j]);
		if (list && add_cases(list, names, &n) < 0)
			rc = cli_usage_error("bench --case takes names separated by commas, got '%s'", list);
	}
	/* every name known, once --quick is known (it changes the attn_T cases) */
	for (int i = 0; i < n && rc == 0; i++) {
		if (bench_case_known(names[i], o.quick))
			continue;
		char all[512], msg[700];
		bench_case_names(all, sizeof all, o.quick);
		snprintf(msg, sizeof msg, "bench has no case '%.60s'%s; its cases are: %s", names[i],
			 o.quick ? " with --quick" : "", all);
		rc = cli_usage_error("%s", msg);
	}
	o.cases = (const char *const *)names;
	o.ncases = n;
	if (rc == 0)
		rc = bench_run(stdout, &o);
	for (int i = 0; i < n; i++)
		free(names[i]);
	return rc;
}
