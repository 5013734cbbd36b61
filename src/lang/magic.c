/* magic.c: IPython's %time, %%time and %timeit for the evaluator (see
 * magic.h): runs the statements of an N_MAGIC node through the evaluator's
 * executor, reads the clocks around them and emits IPython 8's lines. */
#include "lang/magic.h"
#include "core/mem.h"
#include "core/strbuf.h"
#include "lang/runtime.h"
#include "lang/value.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* ---- formatting ------------------------------------------------------------------------ */

char *magic_format_time(double t, char *buf, size_t size)
{
	static const char *const units[] = {"s", "ms", "\xc2\xb5s", "ns"};
	static const double scaling[] = {1, 1e3, 1e6, 1e9};
	int order = 3;
	if (t >= 60.0) {
		static const struct {
			const char *suffix;
			double length;
		} parts[] = {{"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
		double left = t;
		size_t used = 0;
		buf[0] = 0;
		for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
			double value = trunc(left / parts[i].length);
			if (value > 0) {
				left = fmod(left, parts[i].length);
				used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%.0f%s",
							 used ? " " : "", value, parts[i].suffix);
				if (used >= size)
					used = size - 1;
			}
			if (left < 1)
				break;
		}
		return buf;
	}
	if (t > 0.0) {
		/* Python: min(-int(math.floor(math.log10(t)) // 3), 3), with floor division */
		double e = floor(log10(t));
		order = (int)-floor(e / 3);
		if (order > 3)
			order = 3;
		if (order < 0)
			order = 0;
	}
	snprintf(buf, size, "%.*g %s", 3, t * scaling[order], units[order]);
	return buf;
}

/* Python's math.fsum: the correctly rounded sum (Shewchuk's partials). */
static double magic_fsum(const double *x, int n)
{
	double partials[64];
	int np = 0;
	for (int i = 0; i < n; i++) {
		double v = x[i];
		int k = 0;
		for (int j = 0; j < np; j++) {
			double y = partials[j], hi, lo;
			if (fabs(v) < fabs(y)) {
				double t = v;
				v = y;
				y = t;
			}
			hi = v + y;
			lo = y - (hi - v);
			if (lo != 0.0)
				partials[k++] = lo;
			v = hi;
		}
		if (v != 0.0 && k < (int)(sizeof partials / sizeof partials[0]))
			partials[k++] = v;
		np = k;
	}
	/* sum the partials from the top, with Python's half-way correction */
	if (np == 0)
		return 0.0;
	double hi = partials[--np], lo = 0.0;
	while (np > 0) {
		double v = hi, y = partials[--np];
		hi = v + y;
		double yr = hi - v;
		lo = y - yr;
		if (lo != 0.0)
			break;
	}
	if (np > 0 && ((lo < 0 && partials[np - 1] < 0) || (lo > 0 && partials[np - 1] > 0))) {
		double y = lo * 2, v = hi + y, yr = v - hi;
		if (y == yr)
			hi = v;
	}
	return hi;
}

/* 1234567 -> "1,234,567" (Python's {:,}). */
static void magic_thousands(int64_t v, char *buf, size_t size)
{
	char digits[32];
	int n = snprintf(digits, sizeof digits, "%lld", (long long)v), lead, o = 0;
	const char *d = digits;
	if (*d == '-' && o + 1 < (int)size) {
		buf[o++] = '-';
		d++;
		n--;
	}
	lead = n % 3 ? n % 3 : 3;
	for (int i = 0; i < n && o + 2 < (int)size; i++) {
		if (i && (i - lead) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = 0;
}

char *magic_format_timeit(const double *runs, int nruns, int64_t loops, char *buf, size_t size)
{
	double timings[64] = {0}, mean, dev[64] = {0}, sd;
	char m[64], s[64], l[32];
	int n = nruns < 64 ? nruns : 64;
	for (int i = 0; i < n; i++)
		timings[i] = runs[i] / (double)loops;
	mean = magic_fsum(timings, n) / n;
	for (int i = 0; i < n; i++)
		dev[i] = (timings[i] - mean) * (timings[i] - mean);
	sd = sqrt(magic_fsum(dev, n) / n);
	magic_thousands(loops, l, sizeof l);
	snprintf(buf, size, "%s \xc2\xb1 %s per loop (mean \xc2\xb1 std. dev. of %d run%s, %s loop%s each)",
		 magic_format_time(mean, m, sizeof m), magic_format_time(sd, s, sizeof s), nruns,
		 nruns == 1 ? "" : "s", l, loops == 1 ? "" : "s");
	return buf;
}

/* ---- clocks ------------------------------------------------------------------------------ */

static double magic_real_wall(void *udata)
{
	struct timespec ts;
	(void)udata;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What IPython's clock2 reads: resource.getrusage(RUSAGE_SELF). */
static void magic_real_cpu(void *udata, double *user, double *sys)
{
	struct rusage ru;
	(void)udata;
	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static const struct magic_clock magic_real_clock = {magic_real_wall, magic_real_cpu, NULL};

/* ---- output -------------------------------------------------------------------------------- */

static void magic_emit(struct interp *I, const char *text)
{
	interp_flush_print(I);
	if (I->emit)
		I->emit(I->udata, NULL, text);
}

/* Holds back the last value shown while a statement runs, so a bare
 * expression's value can follow the timing lines as IPython's Out[] does;
 * everything before it passes straight through. */
struct magic_hold {
	interp_emit_fn emit;
	void *udata;
	struct value *v;
	char *text;
};

static void magic_hold_flush(struct magic_hold *h)
{
	if (!h->text)
		return;
	h->emit(h->udata, h->v, h->text);
	value_unref(h->v);
	free(h->text);
	h->v = NULL;
	h->text = NULL;
}

static void magic_hold_emit(void *udata, const struct value *v, const char *text)
{
	struct magic_hold *h = udata;
	magic_hold_flush(h);
	if (!v) {
		h->emit(h->udata, v, text);
		return;
	}
	h->v = value_ref((struct value *)v);
	h->text = xstrdup(text);
}

/* A bare expression whose value would be shown (print(...) shows none). */
static bool magic_shows_value(const struct node *s)
{
	const struct node *e;
	if (s->kind != N_EXPR)
		return false;
	e = s->kids[0];
	return !(e->kind == N_CALL && e->kids[0]->kind == N_NAME && strcmp(e->kids[0]->str, "print") == 0);
}

/* ---- %time, %%time --------------------------------------------------------------------------- */

static int magic_time(struct interp *I, const struct node *n, magic_exec_fn exec, const struct magic_clock *clock,
		      struct qkv_error *err)
{
	const struct node *const *stmts = (const struct node *const *)n->kids;
	int count = 1, rc = 0;
	double wall0, wall1, user0, sys0, user1, sys1;
	struct magic_hold hold = {I->emit, I->udata, NULL, NULL};
	char a[64], b[64], c[64], line[256];
	if (n->op == 'c') {
		stmts = (const struct node *const *)n->kids[0]->kids;
		count = n->kids[0]->nkids;
	}
	wall0 = clock->wall(clock->udata);
	clock->cpu(clock->udata, &user0, &sys0);
	for (int i = 0; i < count && rc == 0; i++) {
		bool held = i == count - 1 && I->emit && magic_shows_value(stmts[i]);
		if (held) {
			I->emit = magic_hold_emit;
			I->udata = &hold;
		}
		rc = exec(I, stmts[i], err);
		if (held) {
			I->emit = hold.emit;
			I->udata = hold.udata;
		}
	}
	clock->cpu(clock->udata, &user1, &sys1);
	wall1 = clock->wall(clock->udata);
	if (rc < 0) {
		magic_hold_flush(&hold);
		return -1;
	}
	snprintf(line, sizeof line, "CPU times: user %s, sys: %s, total: %s",
		 magic_format_time(user1 - user0, a, sizeof a), magic_format_time(sys1 - sys0, b, sizeof b),
		 magic_format_time((user1 - user0) + (sys1 - sys0), c, sizeof c));
	magic_emit(I, line);
	snprintf(line, sizeof line, "Wall time: %s", magic_format_time(wall1 - wall0, a, sizeof a));
	magic_emit(I, line);
	magic_hold_flush(&hold);
	return 0;
}

/* ---- %timeit ------------------------------------------------------------------------------------ */

/* Runs the statement loops times; the seconds it took, or -1 on failure. */
static double magic_loops(struct interp *I, const struct node *stmt, int64_t loops, magic_exec_fn exec,
			  const struct magic_clock *clock, struct qkv_error *err)
{
	double t0 = clock->wall(clock->udata);
	for (int64_t i = 0; i < loops; i++)
		if (exec(I, stmt, err) < 0)
			return -1;
	return clock->wall(clock->udata) - t0;
}

static int magic_timeit(struct interp *I, const struct node *n, magic_exec_fn exec, const struct magic_clock *clock,
			struct qkv_error *err)
{
	const struct node *stmt = n->kids[0];
	int64_t loops = n->ival;
	int repeat = n->rows > 0 ? n->rows : MAGIC_TIMEIT_REPEAT, nruns = 0;
	double start = clock->wall(clock->udata), calib = -1, best, worst;
	double runs[64];
	char line[256];
	if (repeat > 64)
		repeat = 64;
	if (loops <= 0) {
		/* IPython: the first of 1, 10, ..., 10**9 loops that takes at least 0.2 s */
		loops = 1;
		for (int index = 0; index < 10; index++) {
			calib = magic_loops(I, stmt, loops, exec, clock, err);
			if (calib < 0)
				return -1;
			if (calib >= 0.2 || index == 9)
				break;
			loops *= 10;
		}
	}
	while (nruns < repeat) {
		double spent = clock->wall(clock->udata) - start;
		double estimate = nruns > 0 ? runs[nruns - 1] : calib;
		double t;
		if (nruns == 0 && calib >= 0 && spent + estimate > MAGIC_TIMEIT_BUDGET) {
			runs[nruns++] = calib;	/* the calibration run stands for the only one */
			break;
		}
		if (nruns > 0 && spent + estimate > MAGIC_TIMEIT_BUDGET)
			break;
		t = magic_loops(I, stmt, loops, exec, clock, err);
		if (t < 0)
			return -1;
		runs[nruns++] = t;
	}
	best = worst = runs[0] / (double)loops;
	for (int i = 1; i < nruns; i++) {
		double per = runs[i] / (double)loops;
		best = per < best ? per : best;
		worst = per > worst ? per : worst;
	}
	if (worst > 4 * best && best > 0 && worst > 1e-6) {
		snprintf(line, sizeof line, "The slowest run took %0.2f times longer than the fastest. This could mean "
			 "that an intermediate result is being cached.", worst / best);
		magic_emit(I, line);
	}
	magic_emit(I, magic_format_timeit(runs, nruns, loops, line, sizeof line));
	return 0;
}

int magic_run_clocked(struct interp *I, const struct node *n, magic_exec_fn exec, const struct magic_clock *clock,
		      struct qkv_error *err)
{
	if (!clock)
		clock = &magic_real_clock;
	if (strcmp(n->str, "timeit") == 0)
		return magic_timeit(I, n, exec, clock, err);
	return magic_time(I, n, exec, clock, err);
}

int magic_run(struct interp *I, const struct node *n, magic_exec_fn exec, struct qkv_error *err)
{
	return magic_run_clocked(I, n, exec, NULL, err);
}
