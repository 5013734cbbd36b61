/* cli.c: what the commands of cli/ share (see cli.h): the usage error, a
 * session with QKV_MAX_ELEMS's limit, the flag Ctrl-C raises, warnings on
 * stderr. Prints only to stderr; exits never (the commands return their
 * status to main.c). */
#include "cli/cli.h"
#include "core/tensor.h"
#include "lesson/session.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "qkv: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'qkv --help'.\n");
	return 2;
}

struct session *cli_session_new(enum kernel_variant kv)
{
	long long max = 0;
	const char *lim = getenv("QKV_MAX_ELEMS");
	if (lim && *lim) {
		char *endp;
		errno = 0;
		max = strtoll(lim, &endp, 10);
		if (*endp || endp == lim || max <= 0 || (errno && max != LLONG_MAX)) {
			fprintf(stderr, "qkv: QKV_MAX_ELEMS must be a positive whole number, got '%s'\n", lim);
			return NULL;
		}
		if (max > TENSOR_MAX_NUMEL) {
			fprintf(stderr, "qkv: QKV_MAX_ELEMS=%s is more than one tensor can hold; using %lld (2^48)\n",
				lim, (long long)TENSOR_MAX_NUMEL);
			max = TENSOR_MAX_NUMEL;
		}
	}
	return session_new(kv, max);
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
	fprintf(stderr, "%s\n", message);
}
