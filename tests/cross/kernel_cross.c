/* kernel_cross.c: the kernel checks of tests/kernel/checks.c without
 * Criterion, so that they also run on aarch64 (NEON) under qemu-aarch64.
 * Built by `make test-cross` statically for aarch64 and natively; links
 * src/kernel/ only. The same groups are Criterion tests in test_kernel.c. */

/* On x86-64 each group that runs per path runs twice (the AVX2+FMA path,
 * then the forced SSE2 baseline). Prints one line per group and path
 * (checks, worst error, time), each failure under it, and exits 1 if any
 * check failed or a group checked nothing. */
#include "checks.h"

#include <stdio.h>

int main(void)
{
	long checks = 0, failures = 0;

	for (int path = 0; path < kcheck_npaths(); path++)
		for (int id = 0; id < KCHECK_COUNT; id++) {
			struct kcheck_result r;
			char worst[40];

			if (path > 0 && !kcheck_each_path(id))
				continue;	/* it chose its paths on the first pass */
			kcheck_run(id, path, &r);
			checks += r.checks;
			failures += r.failures;
			if (r.ulp)
				snprintf(worst, sizeof worst, "max %.0f ulp", r.worst);
			else
				snprintf(worst, sizeof worst, "max err %.2g", r.worst);
			printf("%-8s %-66s %7ld checks  %-16s %5.1f s  %s\n", kcheck_each_path(id) ? r.path : "(own)",
			       kcheck_name(id), r.checks, worst, r.seconds,
			       r.failures ? "FAILED" : r.checks ? "ok" : "FAILED: nothing checked");
			if (r.checks == 0)
				failures++;
			if (r.failures)
				printf("%s", r.text);
			fflush(stdout);
		}
	if (failures > 0) {
		printf("kernel_cross: %ld of %ld checks FAILED\n", failures, checks);
		return 1;
	}
	printf("%ld checks passed\n", checks);
	return 0;
}
