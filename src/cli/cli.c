/* cli.c: what the commands of cli/ share (see cli.h): the usage error,
 * QKV_MAX_ELEMS's limit, the flag Ctrl-C raises, warnings on
 * stderr. Prints only to stderr; exits never (the commands return their
 * status to main.c). */
#include "cli/cli.h"
#include "core/mem.h"
#include "core/tensor.h"
#include "core/visible.h"
#include "lesson/player.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_print_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *msg = xmalloc((size_t)(n > 0 ? n : 0) + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	va_end(ap);
	fflush(stdout);	/* what was printed before the error comes before it, piped too */
	fputs("qkv: ", stderr);
	visible_fputs(msg, stderr);
	fputc('\n', stderr);
	free(msg);
}

int cli_usage_error(const char *fmt, const char *arg)
{
	cli_print_error(fmt, arg);
	fprintf(stderr, "Try 'qkv --help'.\n");
	return 2;
}

int cli_read_max_elems(void)
{
	const char *lim = getenv("QKV_MAX_ELEMS");
	if (!lim || !*lim)
		return 0;
	char *endp;
	errno = 0;
	long long max = strtoll(lim, &endp, 10);
	if (*endp || endp == lim || max <= 0 || (errno && max != LLONG_MAX)) {
		cli_print_error("QKV_MAX_ELEMS must be a positive whole number, got '%s'", lim);
		return -1;
	}
	if (max > TENSOR_MAX_NUMEL) {
		cli_print_error("QKV_MAX_ELEMS=%s is more than one tensor can hold; using %lld (2^48)", lim,
				(long long)TENSOR_MAX_NUMEL);
		max = TENSOR_MAX_NUMEL;
	}
	player_set_default_max_elems(max);
	return 0;
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

const volatile sig_atomic_t *cli_interrupt_flag(void)
{
	static bool installed;
	if (!installed) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_sigint;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART: a read waiting for input returns */
		installed = true;
	}
	return &interrupted;
}

bool cli_interrupted(void)
{
	return interrupted != 0;
}

void cli_interrupt_clear(void)
{
	interrupted = 0;
}

void cli_print_warning(void *udata, const char *message)
{
	(void)udata;
	visible_fputs(message, stderr);
	fputc('\n', stderr);
}
