/* main.c: the command line. Parses options, picks one mode (the full-screen
 * program, eval, repl, run, check, list) and decides exit statuses:
 * 0 success, 2 bad input (usage, a statement that fails), 3 out of memory.
 * The only file that turns error records into process exits. */
#include "bench/bench.h"
#include "core/format.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "lang/interp.h"
#include "lesson/catalog.h"
#include "lesson/player.h"
#include "text/json.h"
#include "text/render.h"
#include "view/page.h"
#include "ui/ui.h"
#include "view/timing.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: qkv [--kernel=simd|loops] [LESSON [--step N]] [--big] [--no-color]\n"
	"       qkv [--kernel=simd|loops] COMMAND [ARGS]\n"
	"\n"
	"qkv teaches the attention mechanism of transformers: it runs the lines of\n"
	"the notebooks you are reading (a subset of Python with torch and numpy) on a\n"
	"plain for-loop kernel and on a vectorised SIMD kernel.\n"
	"\n"
	"qkv alone opens the lesson menu; qkv LESSON opens a lesson, full screen.\n"
	"\n"
	"commands:\n"
	"  repl                 type statements line by line\n"
	"  list                 the lessons: number, id, title, steps\n"
	"  bench [--json] [--quick]  the kernels' speed on this machine\n"
	"  run [--plain|--json] LESSON...\n"
	"                       every step as text: narration, code, heatmaps\n"
	"  check [LESSON...]    validate lessons and verify every expected value\n"
	"                       (all built-in lessons when none is named)\n"
	"  eval [--json] [-e STMT]... [FILE|-]\n"
	"                       run statements from -e, FILE or standard input and\n"
	"                       print each bare expression's value\n"
	"\n"
	"options:\n"
	"  --repl               full screen: a workspace view and the prompt\n"
	"  --step N             open the lesson at step N\n"
	"  --big                big cells, for a projector (the b key toggles it)\n"
	"  --no-color           no colours (also when NO_COLOR is set)\n"
	"  --kernel=simd|loops  which kernel computes matmul, softmax and attention\n"
	"                       (default simd; loops are the readable for-loops)\n"
	"  --json               (eval) one JSON object per printed value\n"
	"  -h, --help           this text\n"
	"  --version            the version\n"
	"\n"
	"A LESSON is a file path, a number from qkv list, or a lesson id.\n"
	"\n"
	"environment:\n"
	"  QKV_MAX_ELEMS        elements allowed in one tensor (default 16777216)\n"
	"  QKV_THREADS          threads for large matrix products (default: the CPUs)\n"
	"  QKV_NO_SIMD=1        the simd kernels run scalar code (loops, libm exp)\n"
	"  QKV_LESSONS          a directory of more lessons (*.json); they replace\n"
	"                       built-in lessons with the same id\n"
	"  NO_COLOR             no colours in qkv run\n"
	"\n"
	"Exit status: 0 on success, 1 when qkv check finds a wrong value, 2 when a\n"
	"statement, a lesson or the command line is wrong.\n"
	"See qkv(1) for the language.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "qkv: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'qkv --help'.\n");
	return 2;
}

/* ---- output ---------------------------------------------------------------- */

struct out {
	bool json;
};

static void emit(void *udata, const struct value *v, const char *text)
{
	struct out *o = udata;
	if (!o->json) {
		fputs(text, stdout);
		fputc('\n', stdout);
		return;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	if (v && v->kind == V_TENSOR) {
		json_put_tensor(&sb, v->t);
	} else if (v && value_is_number(v)) {
		enum dtype dt = v->kind == V_FLOAT ? DT_F64 : v->kind == V_INT ? DT_I64 : DT_BOOL;
		strbuf_printf(&sb, "{\"shape\":[],\"dtype\":\"%s\",\"data\":[", dtype_name(dt));
		if (v->kind == V_INT)
			strbuf_printf(&sb, "%lld", (long long)v->i);
		else
			json_put_number(&sb, value_as_double(v), dt);
		strbuf_puts(&sb, "]}");
	} else {
		strbuf_puts(&sb, "{\"text\":");
		json_put_string(&sb, text);
		strbuf_putc(&sb, '}');
	}
	puts(sb.s);
	strbuf_free(&sb);
}

/* ---- reading input ----------------------------------------------------------- */

static char *read_all(FILE *f, size_t *len)
{
	struct strbuf sb;
	strbuf_init(&sb);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_putn(&sb, buf, n);
	*len = sb.len;
	return strbuf_detach(&sb);
}

/* Prints the line `line` of src (1-based, relative to first_line) with a caret
 * under column col; with echo false only the caret line (the line is on the
 * terminal right above it, after a 4-column prompt). */
static void show_caret(const char *src, size_t len, int first_line, int line, int col, bool echo)
{
	int want = line - first_line;
	const char *p = src, *end = src + len;
	for (int l = 0; l < want && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return;
		p = nl + 1;
	}
	const char *e = memchr(p, '\n', (size_t)(end - p));
	if (!e)
		e = end;
	if (echo)
		fprintf(stderr, "    %.*s\n", (int)(e - p), p);
	fprintf(stderr, "    %*s^\n", col > 1 ? col - 1 : 0, "");
}

static struct interp *make_interp(enum kernel_variant kv)
{
	struct interp *I = interp_new(kv);
	const char *lim = getenv("QKV_MAX_ELEMS");
	if (lim && *lim) {
		char *endp;
		errno = 0;
		long long v = strtoll(lim, &endp, 10);
		if (*endp || errno || v <= 0) {
			fprintf(stderr, "qkv: QKV_MAX_ELEMS must be a positive whole number, got '%s'\n", lim);
			interp_free(I);
			return NULL;
		}
		interp_ops(I)->max_elems = v;
	}
	return I;
}

/* ---- eval ---------------------------------------------------------------------- */

static int cmd_eval(int argc, char **argv, enum kernel_variant kv)
{
	struct out o = { false };
	const char *file = NULL;
	int nexpr = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			o.json = true;
		} else if (strcmp(argv[i], "-e") == 0) {
			if (i + 1 >= argc)
				return usage_error("%s needs a statement", "-e");
			i++;
			nexpr++;
		} else if (strncmp(argv[i], "-e", 2) == 0 && argv[i][2]) {
			nexpr++;
		} else if (strcmp(argv[i], "-") == 0 || argv[i][0] != '-') {
			if (file)
				return usage_error("eval takes one FILE, got a second: %s", argv[i]);
			file = argv[i];
		} else {
			return usage_error("eval: unknown option %s", argv[i]);
		}
	}
	struct interp *I = make_interp(kv);
	if (!I)
		return 2;
	interp_set_output(I, emit, &o);
	int status = 0, line = 1;
	struct qkv_error err;
	/* -e statements first, in order, then the file (or stdin when nothing given) */
	for (int i = 0; i < argc && status == 0; i++) {
		const char *src = NULL;
		if (strcmp(argv[i], "-e") == 0)
			src = argv[++i];
		else if (strncmp(argv[i], "-e", 2) == 0 && argv[i][2])
			src = argv[i] + 2;
		if (!src)
			continue;
		size_t len = strlen(src);
		enum interp_status st = interp_run(I, src, len, line, INTERP_PER_STATEMENT, &err);
		if (st != INTERP_OK) {
			fprintf(stderr, "qkv: line %d, col %d: %s\n", err.line, err.col, err.msg);
			status = 2;
		}
		for (const char *p = src; *p; p++)
			line += *p == '\n';
		line++;
		if (interp_quit_requested(I))
			goto out;
	}
	if (status == 0 && (file || nexpr == 0)) {
		FILE *f = stdin;
		const char *name = "-";
		if (file && strcmp(file, "-") != 0) {
			f = fopen(file, "rb");
			name = file;
			if (!f) {
				fprintf(stderr, "qkv: %s: %s\n", file, strerror(errno));
				status = 2;
				goto out;
			}
		}
		size_t len;
		char *src = read_all(f, &len);
		if (f != stdin)
			fclose(f);
		enum interp_status st = interp_run(I, src, len, line, INTERP_PER_STATEMENT, &err);
		if (st != INTERP_OK) {
			if (file && strcmp(name, "-") != 0)
				fprintf(stderr, "qkv: %s: line %d, col %d: %s\n", name, err.line, err.col, err.msg);
			else
				fprintf(stderr, "qkv: line %d, col %d: %s\n", err.line, err.col, err.msg);
			status = 2;
		}
		free(src);
	}
out:
	fflush(stdout);
	interp_free(I);
	return status;
}

/* ---- bench ------------------------------------------------------------------------ */

static int cmd_bench(int argc, char **argv)
{
	bool json = false, quick = false;
	for (int j = 0; j < argc; j++) {
		if (strcmp(argv[j], "--json") == 0)
			json = true;
		else if (strcmp(argv[j], "--quick") == 0)
			quick = true;
		else
			return usage_error("bench takes --json and --quick, got %s", argv[j]);
	}
	return bench_run(stdout, json, quick);
}

/* ---- repl ------------------------------------------------------------------------ */

static char *next_line(bool tty, const char *prompt)
{
	if (tty) {
		char *l = readline(prompt);
		if (l && *l)
			add_history(l);
		return l;
	}
	struct strbuf sb;
	strbuf_init(&sb);
	int ch;
	bool any = false;
	while ((ch = getchar()) != EOF) {
		any = true;
		if (ch == '\n')
			break;
		strbuf_putc(&sb, (char)ch);
	}
	if (!any) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static int cmd_repl(int argc, char **argv, enum kernel_variant kv)
{
	if (argc > 0)
		return usage_error("repl takes no arguments, got %s", argv[0]);
	bool tty = isatty(STDIN_FILENO);
	struct out o = { false };
	struct interp *I = make_interp(kv);
	if (!I)
		return 2;
	interp_set_output(I, emit, &o);
	if (tty)
		printf("qkv %s. Type notebook lines or matrices: X = [1 2; 3 4]. quit() leaves.\n", QKV_VERSION);
	struct strbuf pending;
	strbuf_init(&pending);
	int line_no = 1, start_line = 1, errors = 0;
	for (;;) {
		char *l = next_line(tty, pending.len ? "... " : ">>> ");
		if (!l)
			break;
		if (pending.len == 0)
			start_line = line_no;
		strbuf_puts(&pending, l);
		strbuf_putc(&pending, '\n');
		free(l);
		line_no++;
		struct qkv_error err;
		/* Nothing runs until the statement is complete (an open bracket
		 * continues on the next line); then the lines run as one. */
		if (interp_check_complete(pending.s, pending.len) == INTERP_INCOMPLETE)
			continue;
		enum interp_status st = interp_run(I, pending.s, pending.len, start_line, INTERP_ATOMIC, &err);
		if (st == INTERP_ERROR) {
			bool last_line = err.line == line_no - 1;
			show_caret(pending.s, pending.len, start_line, err.line, err.col, !(tty && last_line));
			fprintf(stderr, "error: %s\n", err.msg);
			errors++;
		}
		fflush(stdout);
		strbuf_reset(&pending);
		if (interp_quit_requested(I))
			break;
	}
	if (pending.len) {
		/* the input ended inside a statement: the parser says where */
		struct qkv_error err;
		interp_run(I, pending.s, pending.len, start_line, INTERP_ATOMIC, &err);
		show_caret(pending.s, pending.len, start_line, err.line, err.col, true);
		fprintf(stderr, "error: %s\n", err.msg);
		errors++;
	}
	if (tty)
		putchar('\n');
	strbuf_free(&pending);
	interp_free(I);
	return (!tty && errors) ? 2 : 0;
}

/* ---- lessons ------------------------------------------------------------------- */

static void print_warning(void *udata, const char *message)
{
	(void)udata;
	fprintf(stderr, "%s\n", message);
}

static int cmd_list(int argc, char **argv)
{
	if (argc > 0)
		return usage_error("list takes no arguments, got %s", argv[0]);
	struct catalog c;
	catalog_load(&c, print_warning, NULL);
	for (int i = 0; i < c.n; i++) {
		const struct catalog_entry *e = &c.entries[i];
		if (e->lesson)
			printf("%2d  %-26s %s (%d steps)\n", i + 1, e->lesson->id, e->lesson->title, e->lesson->nsteps);
		else
			printf("%2d  %-26s (cannot be loaded: %s)\n", i + 1, "?", e->error);
	}
	catalog_free(&c);
	return 0;
}

/* Whether `qkv run` may colour its heatmaps. */
static bool want_color(void)
{
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");
	return isatty(STDOUT_FILENO) && !(nc && *nc) && term && strcmp(term, "dumb") != 0;
}

/* The progress line of a timing show on a terminal's stderr (`qkv run` and
 * `qkv check`): rewritten in place with \r at most every 50 ms, cleared once
 * the step is done. Never when stderr is not a terminal. */
struct tty_progress {
	double drawn_ms;
	bool shown;
};

static double clock_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void tty_progress_draw(void *ctx, const struct runner_progress *p)
{
	struct tty_progress *tp = ctx;
	if (p->statement > 0 && !p->finished && clock_ms() - tp->drawn_ms < 50)
		return;
	struct winsize ws;
	int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
	char line[600];
	timing_progress_text(line, sizeof line, p);
	/* one line, never wrapped (\r returns only to the start of the last):
	 * cut at cols - 1 characters, whole UTF-8 sequences */
	int w = 0;
	size_t n = 0;
	for (; line[n]; n++) {
		if (((unsigned char)line[n] & 0xC0) != 0x80 && ++w > cols - 1)
			break;
	}
	fprintf(stderr, "\r%.*s\033[K", (int)n, line);
	fflush(stderr);
	tp->shown = true;
	tp->drawn_ms = clock_ms();
}

/* Shows timing progress on stderr when it is a terminal. */
static void tty_progress_start(struct player *p, struct tty_progress *tp)
{
	memset(tp, 0, sizeof *tp);
	if (isatty(STDERR_FILENO))
		player_set_progress(p, tty_progress_draw, tp);
}

/* Clears the progress line, if one was drawn. */
static void tty_progress_clear(struct tty_progress *tp)
{
	if (tp->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		tp->shown = false;
	}
}

/* Runs every step of l into out (text or JSON lines). -1 with err when a
 * step fails: nothing of the lesson is printed then. */
static int run_lesson(const struct lesson *l, enum kernel_variant kv, bool json, struct strbuf *out,
		      struct qkv_error *err)
{
	struct render_opts o = { 80, !json && want_color() };
	struct player *p = player_new(l, kv);
	struct tty_progress tp;
	tty_progress_start(p, &tp);
	int rc = 0;
	if (!json)
		render_lesson_header(out, l, &o);
	for (int k = 0; k < l->nsteps && rc == 0; k++) {
		int at;
		rc = player_go(p, k, &at, err);
		tty_progress_clear(&tp);
		for (int e = 0; rc == 0 && e < l->steps[k].nexpects; e++) {
			struct expect_result er;
			rc = player_expect(p, k, e, &er, err);
		}
		if (rc == 0 && json) {
			render_step_json(out, l, k, player_result(p, k));
			strbuf_putc(out, '\n');
		} else if (rc == 0) {
			struct page pg;
			page_build(&pg, p, k);
			render_step(out, &pg, &o);
			page_free(&pg);
		}
	}
	player_free(p);
	return rc;
}

static int cmd_run(int argc, char **argv, enum kernel_variant kv)
{
	bool json = false;
	int nlessons = 0;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--plain") == 0)
			json = false;
		else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("run: unknown option %s", argv[i]);
		else
			nlessons++;
	}
	if (nlessons == 0)
		return usage_error("%s", "run needs a LESSON (a path, a number or an id; see qkv list)");
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	int status = 0;
	for (int i = 0; i < argc && status == 0; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		struct qkv_error err;
		struct lesson *l = catalog_resolve(&c, argv[i], print_warning, NULL, &err);
		struct strbuf out;
		strbuf_init(&out);
		if (!l || run_lesson(l, kv, json, &out, &err) < 0) {
			fprintf(stderr, "qkv: %s\n", err.msg);
			status = 2;
		} else {
			fputs(out.s, stdout);
		}
		strbuf_free(&out);
		lesson_free(l);
	}
	catalog_free(&c);
	return status;
}

/* Checks one lesson: every step runs, every expect holds. Returns 2 when the
 * lesson is invalid (refused whole: none of its expects count), else adds to
 * the counts. */
static int check_lesson(const struct lesson *l, enum kernel_variant kv, int *passed_total, int *failed_total)
{
	struct player *p = player_new(l, kv);
	struct tty_progress tp;
	tty_progress_start(p, &tp);
	struct qkv_error err;
	int status = 0, passed = 0, failed = 0;
	struct strbuf fails;
	strbuf_init(&fails);
	for (int k = 0; k < l->nsteps && status == 0; k++) {
		const struct step *st = &l->steps[k];
		int at, rc = player_go(p, k, &at, &err);
		tty_progress_clear(&tp);
		if (rc < 0) {
			fprintf(stderr, "qkv: %s\n", err.msg);
			status = 2;
		}
		for (int e = 0; status == 0 && e < st->nexpects; e++) {
			struct expect_result er;
			if (player_expect(p, k, e, &er, &err) < 0) {
				fprintf(stderr, "qkv: %s\n", err.msg);
				status = 2;
			} else if (er.pass) {
				passed++;
			} else {
				failed++;
				const struct expect *x = &st->expects[e];
				strbuf_printf(&fails, "%s:%d:%d: %s: step %d (%s): %s%s%s\n", l->name, x->at.line,
					      x->at.col, x->path, k + 1, st->title, er.detail, x->why ? " \u2014 " : "",
					      x->why ? x->why : "");
			}
		}
		for (int e = 0; status == 0 && e < st->nexercises; e++) {
			bool solved;
			char detail[256];
			if (player_check_exercise(p, k, e, &solved, detail, sizeof detail, &err) < 0) {
				fprintf(stderr, "qkv: %s\n", err.msg);
				status = 2;
			} else if (solved) {
				passed++;
			} else {
				failed++;
				const struct exercise *x = &st->exercises[e];
				strbuf_printf(&fails, "%s:%d:%d: %s: step %d (%s): %s\n", l->name, x->answer_at.line,
					      x->answer_at.col, x->path, k + 1, st->title, detail);
			}
		}
	}
	player_free(p);
	if (status == 0) {
		fputs(fails.s, stdout);
		*passed_total += passed;
		*failed_total += failed;
	}
	strbuf_free(&fails);
	return status;
}

struct tally {
	int passed, failed, refused;
};

/* Resolves and checks one LESSON argument; 2 when it is refused. */
static int check_one(const struct catalog *c, const char *arg, enum kernel_variant kv, struct tally *t)
{
	struct qkv_error err;
	struct lesson *l = catalog_resolve(c, arg, print_warning, NULL, &err);
	int status = 2;
	if (!l)
		fprintf(stderr, "qkv: %s\n", err.msg);
	else
		status = check_lesson(l, kv, &t->passed, &t->failed);
	t->refused += status == 2;
	lesson_free(l);
	return status;
}

static int cmd_check(int argc, char **argv, enum kernel_variant kv)
{
	for (int i = 0; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return usage_error("check: unknown option %s", argv[i]);
	struct catalog c;
	catalog_load(&c, NULL, NULL);
	struct tally t = { 0, 0, 0 };
	int status = 0;
	/* no argument: every lesson of the catalog, by number */
	for (int i = 0; i < (argc ? argc : c.n); i++) {
		char num[16];
		snprintf(num, sizeof num, "%d", i + 1);
		if (check_one(&c, argc ? argv[i] : num, kv, &t) == 2)
			status = 2;
	}
	catalog_free(&c);
	if (t.refused)
		printf("%d passed, %d failed, %d lesson%s refused\n", t.passed, t.failed, t.refused,
		       t.refused == 1 ? "" : "s");
	else
		printf("%d passed, %d failed\n", t.passed, t.failed);
	if (status)
		return status;
	return t.failed ? 1 : 0;
}

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

/* QKV_NO_SIMD=1: the simd kernels take their scalar path (0 or empty: not). */
static int set_no_simd(void)
{
	const char *s = getenv("QKV_NO_SIMD");
	if (!s || !*s || strcmp(s, "0") == 0)
		return 0;
	if (strcmp(s, "1") != 0) {
		fprintf(stderr, "qkv: QKV_NO_SIMD must be 1 (scalar kernels) or 0, got '%s'\n", s);
		return -1;
	}
	kernel_force_scalar(true);
	return 0;
}

int main(int argc, char **argv)
{
	enum kernel_variant kv = KERNEL_SIMD;
	int i = 1;
	if (set_threads() < 0 || set_no_simd() < 0)
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
		if (strcmp(argv[i], "--kernel=simd") == 0)
			kv = KERNEL_SIMD;
		else if (strcmp(argv[i], "--kernel=loops") == 0)
			kv = KERNEL_LOOPS;
		else if (strncmp(argv[i], "--kernel", 8) == 0)
			return usage_error("--kernel must be simd or loops, got '%s'", argv[i]);
		else
			break;	/* may be a command's option (eval --json) */
	}
	/* options may also follow the command: qkv eval --kernel=loops */
	for (int j = i; j < argc; j++) {
		if (strcmp(argv[j], "--kernel=simd") == 0 || strcmp(argv[j], "--kernel=loops") == 0) {
			kv = argv[j][9] == 'l' ? KERNEL_LOOPS : KERNEL_SIMD;
			for (int k = j; k < argc - 1; k++)
				argv[k] = argv[k + 1];
			argc--;
			j--;
		} else if (strncmp(argv[j], "--kernel", 8) == 0) {
			return usage_error("--kernel must be simd or loops, got '%s'", argv[j]);
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
				return usage_error("--step needs a step number, got '%s'", j + 1 < argc ? argv[j + 1] : "");
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
			return usage_error("%s", "the full-screen program needs a terminal (for pipes: qkv run, qkv eval)");
		return ui_run(&uo);
	}
	const char *cmd = argv[i];
	if (strcmp(cmd, "eval") == 0)
		return cmd_eval(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "repl") == 0)
		return cmd_repl(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "list") == 0)
		return cmd_list(argc - i - 1, argv + i + 1);
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "check") == 0)
		return cmd_check(argc - i - 1, argv + i + 1, kv);
	if (strcmp(cmd, "bench") == 0)
		return cmd_bench(argc - i - 1, argv + i + 1);
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (cmd[0] == '-')
		return usage_error("unknown option %s", cmd);
	/* anything else is a LESSON to open full screen */
	if (i + 1 < argc)
		return usage_error("unexpected argument '%s' after the lesson", argv[i + 1]);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return usage_error("'%s' is not a command, and opening a lesson full screen needs a terminal "
				   "(for pipes: qkv run LESSON)", cmd);
	uo.lesson = cmd;
	return ui_run(&uo);
}
