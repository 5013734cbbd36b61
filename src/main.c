/* main.c: the command line. Parses the options every mode shares, reads
 * QKV_THREADS, QKV_SIMD, QKV_NO_SIMD and QKV_MAX_ELEMS, and dispatches to one mode: the full-screen
 * program (ui/) or a command (cli/, one per file). The commands and ui_run
 * return the exit status: 0 success, 1 a wrong value found by check, 2 bad
 * input (usage, a statement that fails, out of memory: core/mem), n after a
 * statement's exit(n). */
#include "cli/cli.h"
#include "kernel/kernel.h"
#include "ui/ui.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: qkv [--kernel=VARIANT] [LESSON [--step N]] [--big] [--no-color]\n"
	"       qkv [--kernel=VARIANT] COMMAND [ARGS]\n"
	"\n"
	"qkv teaches the attention mechanism of transformers: it runs the lines of\n"
	"the notebooks you are reading (a subset of Python with torch and numpy) on a\n"
	"plain for-loop kernel, the same loops unrolled, and a vectorised SIMD kernel.\n"
	"\n"
	"qkv alone opens the lesson menu; qkv LESSON opens a lesson, full screen.\n"
	"\n"
	"commands:\n"
	"  repl                 type statements line by line\n"
	"  list                 the lessons: number, id, title, steps\n"
	"  bench [--json] [--quick] [--case NAME[,NAME...]]\n"
	"        [--kernel=loops|unrolled|simd[,...]]\n"
	"                       the speed of the kernels (each variant asked for,\n"
	"                       against the loops), the interpreter and the screen\n"
	"                       on this machine (one case, or a few)\n"
	"  run [--plain|--json] LESSON...\n"
	"                       every step as text: narration, code, heatmaps\n"
	"  check [LESSON...]    validate lessons and verify every expected value\n"
	"                       (all built-in lessons when none is named)\n"
	"  export LESSON [--step N] [--view K] [-o FILE] [--force]\n"
	"         [--palette color|gray]\n"
	"                       a step's view as a figure for slides: FILE.svg, .pdf,\n"
	"                       .png, .txt or .ansi (default LESSON-step-N.svg, in\n"
	"                       $QKV_EXPORT_DIR or here); FILE.html: the whole lesson\n"
	"                       as one page\n"
	"  eval [--json] [-e STMT]... [FILE|-]\n"
	"                       run statements from -e, FILE or standard input and\n"
	"                       print each bare expression's value\n"
	"\n"
	"options:\n"
	"  --repl               full screen: a workspace view and the prompt\n"
	"  --step N             open the lesson at step N\n"
	"  --big                big cells, for a projector (the b key toggles it)\n"
	"  --no-color           no colours (also when NO_COLOR is set)\n"
	"  --kernel=VARIANT     simd, unrolled or loops: which kernel computes\n"
	"                       matmul, softmax and attention\n"
	"                       (default simd; loops are the readable for-loops,\n"
	"                       unrolled the same with 4 partial sums)\n"
	"  --json               (eval) one JSON object per printed value\n"
	"  -h, --help           this text\n"
	"  --version            the version\n"
	"\n"
	"A LESSON is a file path, a number from qkv list, or a lesson id.\n"
	"\n"
	"environment:\n"
	"  QKV_MAX_ELEMS        elements allowed in one tensor (default 67108864)\n"
	"  QKV_THREADS          threads for large matrix products (default: the CPUs)\n"
	"  QKV_SIMD=PATH        the simd kernels' path: avx512, avx2, sse2 (neon on\n"
	"                       arm) or scalar (default: the best this CPU has)\n"
	"  QKV_NO_SIMD=1        the same as QKV_SIMD=scalar (loops, libm exp)\n"
	"  QKV_LESSONS          a directory of more lessons (*.json); they replace\n"
	"                       built-in lessons with the same id\n"
	"  NO_COLOR             no colours in qkv run\n"
	"  QKV_EXPORT_DIR       where exports go without -o (and the e key's)\n"
	"\n"
	"Exit status: 0 on success, 1 when qkv check finds a wrong value, 2 when a\n"
	"statement, a lesson or the command line is wrong.\n"
	"See qkv(1) for the language.\n";

/* QKV_THREADS: how many threads a large matmul may use (default: the CPUs). */
static int set_threads(void)
{
	const char *s = getenv("QKV_THREADS");
	if (!s || !*s)
		return 0;
	char *endp;
	errno = 0;
	long v = strtol(s, &endp, 10);
	if (*endp || errno || v < 1 || v > 64) {
		fprintf(stderr, "qkv: QKV_THREADS must be a whole number from 1 to 64, got '%s'\n", s);
		return -1;
	}
	kernel_set_threads((int)v);
	return 0;
}

/* QKV_SIMD=PATH forces the simd kernels' path; QKV_NO_SIMD=1 is the same as
 * QKV_SIMD=scalar (0 or empty: not set). One message and -1 for a value that
 * is not a path, a path this CPU lacks, or the two disagreeing. */
static int set_simd(void)
{
	const char *no = getenv("QKV_NO_SIMD"), *s = getenv("QKV_SIMD");
	bool scalar = no && *no && strcmp(no, "0") != 0;
	if (scalar && strcmp(no, "1") != 0) {
		fprintf(stderr, "qkv: QKV_NO_SIMD must be 1 (scalar kernels) or 0, got '%s'\n", no);
		return -1;
	}
	if (!s || !*s)
		s = scalar ? "scalar" : NULL;
	else if (scalar && strcmp(s, "scalar") != 0) {
		fprintf(stderr, "qkv: QKV_SIMD=%s and QKV_NO_SIMD=1 disagree; unset one\n", s);
		return -1;
	}
	if (!s)
		return 0;
	int rc = kernel_force_simd(s);
	if (rc == -2) {
		char has[64] = "";
		for (int i = 0; kernel_simd_path(i) && strlen(has) + 16 < sizeof has; i++)
			snprintf(has + strlen(has), sizeof has - strlen(has), "%s%s", i ? ", " : "", kernel_simd_path(i));
		fprintf(stderr, "qkv: QKV_SIMD=%s: this CPU has no %s path (it has %s)\n", s, s, has);
	} else if (rc < 0)
		fprintf(stderr, "qkv: QKV_SIMD must be avx512, avx2, sse2, neon or scalar, got '%s'\n", s);
	return rc < 0 ? -1 : 0;
}

/* --kernel=NAME: 1 and *kv set for a variant's name, 0 for another
 * option, -1 (after the message) for a --kernel that names none. */
static int kernel_option(const char *arg, enum kernel_variant *kv)
{
	if (strncmp(arg, "--kernel", 8) != 0)
		return 0;
	int v = strncmp(arg, "--kernel=", 9) == 0 ? kernel_variant_named(arg + 9, strlen(arg + 9)) : -1;
	if (v < 0) {
		cli_usage_error("--kernel must be simd, unrolled or loops, got '%s'", arg);
		return -1;
	}
	*kv = (enum kernel_variant)v;
	return 1;
}

int main(int argc, char **argv)
{
	enum kernel_variant kv = KERNEL_SIMD;
	const char *kernel_before = NULL;	/* a --kernel before the command */
	int i = 1;
	if (set_threads() < 0 || set_simd() < 0 || cli_read_max_elems() < 0)
		return 2;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("qkv %s\n", QKV_VERSION);
			return 0;
		}
		int k = kernel_option(argv[i], &kv);
		if (k < 0)
			return 2;
		if (k == 0)
			break;	/* may be a command's option (eval --json) */
		kernel_before = argv[i];
	}
	/* options may also follow the command: qkv eval --kernel=loops; bench
	 * reads its own (a list: --kernel=loops,simd) */
	bool bench = i < argc && strcmp(argv[i], "bench") == 0;
	if (bench && kernel_before)
		return cli_usage_error("bench takes its --kernel after it: qkv bench %s", kernel_before);
	for (int j = i; j < argc && !bench; j++) {
		int k = kernel_option(argv[j], &kv);
		if (k < 0)
			return 2;
		if (k > 0) {
			for (int m = j; m < argc - 1; m++)
				argv[m] = argv[m + 1];
			argc--;
			j--;
		}
	}
	/* the full-screen options, anywhere */
	struct ui_options uo = { NULL, 0, false, false, false, kv };
	for (int j = i; j < argc; j++) {
		int drop = 0;
		if (strcmp(argv[j], "--big") == 0) {
			uo.big = true;
			drop = 1;
		} else if (strcmp(argv[j], "--no-color") == 0) {
			uo.no_color = true;
			drop = 1;
		} else if (strcmp(argv[j], "--repl") == 0) {
			uo.repl = true;
			drop = 1;
		} else if (strcmp(argv[j], "--step") == 0) {
			char *end = NULL;
			long n = j + 1 < argc ? strtol(argv[j + 1], &end, 10) : 0;
			if (j + 1 >= argc || *end || n < 1 || n > 100000)
				return cli_usage_error("--step needs a step number, got '%s'",
						       j + 1 < argc ? argv[j + 1] : "");
			uo.step = (int)n;
			drop = 2;
		}
		if (drop) {
			for (int k = j; k + drop < argc; k++)
				argv[k] = argv[k + drop];
			argc -= drop;
			j--;
		}
	}
	if (i >= argc) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
			return cli_usage_error("%s", "the full-screen program needs a terminal "
					       "(for pipes: qkv run, qkv eval)");
		return ui_run(&uo);
	}
	const char *cmd = argv[i];
	if (strcmp(cmd, "eval") == 0)
		return cli_eval(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "repl") == 0)
		return cli_repl(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "list") == 0)
		return cli_list(argc - i - 1, argv + i + 1);
	if (strcmp(cmd, "run") == 0)
		return cli_run(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "check") == 0)
		return cli_check(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "bench") == 0)
		return cli_bench(argc - i - 1, argv + i + 1);
	if (strcmp(cmd, "export") == 0)
		return cli_export(argc - i - 1, argv + i + 1, kv, uo.step);
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (cmd[0] == '-')
		return cli_usage_error("unknown option %s", cmd);
	/* anything else is a LESSON to open full screen */
	if (i + 1 < argc)
		return cli_usage_error("unexpected argument '%s' after the lesson", argv[i + 1]);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return cli_usage_error("'%s' is not a command, and opening a lesson full screen needs a terminal "
				   "(for pipes: qkv run LESSON)", cmd);
	uo.lesson = cmd;
	return ui_run(&uo);
}
