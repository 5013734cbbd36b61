/* clock.c: the monotonic clock in milliseconds (see clock.h), for
 * lesson/compare.c and text/progress.c. Reads the clock, nothing else: no
 * allocation, no global state. */
#include "core/clock.h"

#include <time.h>

double clock_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
