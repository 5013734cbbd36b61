/* test_export_cli.c: `qkv export` as a teacher runs it: each format written
 * and checked by the tool that reads it (xmllint for SVG, pdfinfo for PDF,
 * cairo's PNG decoder), the text formats against `qkv run`, the default
 * names, and every bad input: one message, exit status 2, no file written
 * or replaced, no temporary file left. */
#include "helpers.h"
#include "system.h"

#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static char dir[64];

static void setup(void)
{
	dir_make_temp(dir, sizeof dir, "qkv-export-cli");
}

static void teardown(void)
{
	dir_remove(dir);
}

TestSuite(export_cli, .init = setup, .fini = teardown);

/* qkv export ARGS... -o DIR/NAME (NAME NULL: no -o); returns the status. */
static int export_to(const char *name, const char *env, char **out, char **err, const char *a1, const char *a2,
		     const char *a3, const char *a4)
{
	static char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name ? name : "");
	const char *argv[12] = { "qkv", "export" };
	int n = 2;
	const char *more[] = { a1, a2, a3, a4 };
	for (int i = 0; i < 4 && more[i]; i++)
		argv[n++] = more[i];
	if (name) {
		argv[n++] = "-o";
		argv[n++] = path;
	}
	argv[n] = NULL;
	return run_qkv(argv, NULL, env, out, err);
}

static void need_tool(const char *tool)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
	cr_assert_eq(system(cmd), 0, "%s is missing: make deps-test installs it", tool);
}

static int sh(const char *fmt, const char *arg)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, fmt, arg, arg);
	return system(cmd);
}

Test(export_cli, an_svg_should_be_valid_xml_with_the_title_and_numbers_of_the_step)
{
	need_tool("xmllint");
	char *out, *err;
	int rc = export_to("s.svg", NULL, &out, &err, "animal-attention", "--step", "2", NULL);
	cr_assert_eq(rc, 0, "%s", err);
	cr_expect(strstr(out, "exported 'animal-attention' step 2, view 1 to "), "%s", out);
	char path[256];
	snprintf(path, sizeof path, "%s/s.svg", dir);
	cr_expect_eq(sh("xmllint --noout '%s'", path), 0, "xmllint accepts it");
	char *svg = read_text(path);
	cr_assert(svg);
	cr_expect(strstr(svg, "<svg") && strstr(svg, "</svg>"));
	free(svg);
	free(out);
	free(err);
}

Test(export_cli, a_pdf_should_be_one_page_pdfinfo_reads)
{
	need_tool("pdfinfo");
	char *out, *err;
	int rc = export_to("m.pdf", NULL, &out, &err, "attention-step-by-step", "--step", "18", "--view");
	cr_assert_eq(rc, 2, "--view without a number is refused");
	free(out);
	free(err);
	const char *argv[] = { "qkv", "export", "attention-step-by-step", "--step", "18", "--view", "2", "-o", NULL, NULL };
	char path[256];
	snprintf(path, sizeof path, "%s/m.pdf", dir);
	argv[8] = path;
	rc = run_qkv(argv, NULL, NULL, &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "pdfinfo '%s' | grep -q '^Pages: *1$'", path);
	cr_expect_eq(system(cmd), 0, "pdfinfo reads one page");
	free(out);
	free(err);
}

Test(export_cli, a_png_should_decode_at_twice_the_figure_size)
{
	char *out, *err;
	int rc = export_to("w.png", NULL, &out, &err, "2", "--step", "12", NULL);
	cr_assert_eq(rc, 0, "%s", err);
	char path[256];
	snprintf(path, sizeof path, "%s/w.png", dir);
	cairo_surface_t *s = cairo_image_surface_create_from_png(path);
	cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "the PNG decodes");
	cr_expect(cairo_image_surface_get_width(s) > 300 && cairo_image_surface_get_height(s) > 200);
	cairo_surface_destroy(s);
	free(out);
	free(err);
}

Test(export_cli, the_text_formats_should_print_the_view_as_qkv_run_does)
{
	char *out, *err, *run, *rerr;
	int rc = export_to("w.txt", NULL, &out, &err, "2", "--step", "12", NULL);
	cr_assert_eq(rc, 0, "%s", err);
	free(out);
	free(err);
	char path[256];
	snprintf(path, sizeof path, "%s/w.txt", dir);
	char *txt = read_text(path);
	cr_assert(txt);
	const char *argv[] = { "qkv", "run", "--plain", "2", NULL };
	cr_assert_eq(run_qkv(argv, NULL, "NO_COLOR=1", &run, &rerr), 0, "%s", rerr);
	cr_expect(strstr(txt, "0.5566"), "%s", txt);
	cr_expect(strstr(run, txt), "the view is printed as in qkv run:\n%s", txt);
	cr_expect(!strchr(txt, '\x1b'));
	free(txt);
	rc = export_to("w.ansi", NULL, &out, &err, "2", "--step", "12", NULL);
	cr_assert_eq(rc, 0, "%s", err);
	snprintf(path, sizeof path, "%s/w.ansi", dir);
	txt = read_text(path);
	cr_expect(txt && strstr(txt, "\x1b[48;5;"), "coloured cells");
	free(txt);
	free(out);
	free(err);
	free(run);
	free(rerr);
}

Test(export_cli, without_o_the_file_should_be_named_after_the_lesson_and_step_never_replacing_one)
{
	char env[128], *out, *err;
	snprintf(env, sizeof env, "QKV_EXPORT_DIR=%s", dir);
	cr_assert_eq(export_to(NULL, env, &out, &err, "2", "--step", "12", NULL), 0, "%s", err);
	free(out);
	free(err);
	cr_assert_eq(export_to(NULL, env, &out, &err, "2", "--step", "12", NULL), 0, "%s", err);
	cr_expect(strstr(out, "attention-step-by-step-step-12-2.svg"), "%s", out);
	free(out);
	free(err);
	/* no --step: the first step with a view */
	cr_assert_eq(export_to(NULL, env, &out, &err, "1", "--view", "2", NULL), 0, "%s", err);
	free(out);
	free(err);
	char *names = dir_list(dir);
	cr_expect_str_eq(names, "animal-attention-step-1-view2.svg attention-step-by-step-step-12-2.svg "
				"attention-step-by-step-step-12.svg ");
	free(names);
}

/* QKV_EXPORT_DIR naming a file, not a directory: said so, nothing written */
Test(export_cli, an_export_dir_that_is_a_file_should_be_named_as_not_a_directory)
{
	char env[160], file[128], *out, *err;
	snprintf(file, sizeof file, "%s/plain", dir);
	FILE *f = fopen(file, "w");
	cr_assert(f);
	fclose(f);
	snprintf(env, sizeof env, "QKV_EXPORT_DIR=%s", file);
	cr_expect_eq(export_to(NULL, env, &out, &err, "1", NULL, NULL, NULL), 2, "%s", err);
	cr_expect(strstr(err, "plain: it is not a directory"), "%s", err);
	cr_expect(!strstr(err, "taken"), "%s", err);
	free(out);
	free(err);
}

struct bad_export {
	const char *name;     /* the -o file in the test's directory, NULL for none */
	const char *args[4];
	const char *words;
};

static const struct bad_export bad_exports[] = {
	{ "x.jpeg", { "1", "--step", "2" }, "cannot tell the format of" },
	{ "x", { "1", "--step", "2" }, "cannot tell the format of" },
	{ "x.svg", { "1", "--step", "99" }, "--step 99: 'animal-attention' has 14 steps" },
	{ "x.svg", { "1", "--step", "2", "--view" }, "--view needs a view number" },
	{ "x.svg", { "1", "--step", "2" }, NULL },  /* --view 5 below */
	{ "x.svg", { "nosuchlesson" }, "nosuchlesson" },
	{ "x.svg", { "1", "--palette", "rainbow" }, "--palette must be color or gray, got 'rainbow'" },
	{ "x.svg", { "1", "--bogus" }, "unknown option --bogus" },
	{ "no/such/dir/x.svg", { "1", "--step", "2" }, "cannot save" },
	{ "x.html", { "1", "--step", "2" }, "an .html file is the whole lesson" },
};

Test(export_cli, bad_input_should_give_one_message_status_2_and_no_file)
{
	for (size_t i = 0; i < sizeof bad_exports / sizeof *bad_exports; i++) {
		const struct bad_export *b = &bad_exports[i];
		char *out, *err;
		int rc;
		if (!b->words)
			rc = export_to(b->name, NULL, &out, &err, "1", "--step", "2", "--view");
		else
			rc = export_to(b->name, NULL, &out, &err, b->args[0], b->args[1], b->args[2], b->args[3]);
		cr_expect_eq(rc, 2, "case %zu: status %d, %s", i, rc, err);
		cr_expect(strncmp(err, "qkv: ", 5) == 0, "case %zu: %s", i, err);
		if (b->words)
			cr_expect(strstr(err, b->words), "case %zu: want '%s' in: %s", i, b->words, err);
		cr_expect_str_eq(out, "", "case %zu", i);
		free(out);
		free(err);
	}
	/* a view past the step's */
	const char *argv[] = { "qkv", "export", "1", "--step", "2", "--view", "5", "-o", "/dev/null/x.svg", NULL };
	char *out, *err;
	cr_expect_eq(run_qkv(argv, NULL, NULL, &out, &err), 2);
	cr_expect(strstr(err, "--view 5: step 2 has 1 view"), "%s", err);
	free(out);
	free(err);
	char *names = dir_list(dir);
	cr_expect_str_eq(names, "", "nothing written, no temporary file");
	free(names);
}

Test(export_cli, an_existing_file_should_be_replaced_only_with_force)
{
	char path[256], *out, *err;
	snprintf(path, sizeof path, "%s/keep.svg", dir);
	file_put(path, "mine", 4);
	cr_expect_eq(export_to("keep.svg", NULL, &out, &err, "1", "--step", "2", NULL), 2);
	cr_expect(strstr(err, "keep.svg exists (--force replaces it)"), "%s", err);
	file_assert_holds(path, "mine", 4);
	free(out);
	free(err);
	cr_assert_eq(export_to("keep.svg", NULL, &out, &err, "1", "--step", "2", "--force"), 0, "%s", err);
	char *svg = read_text(path);
	cr_expect(svg && strstr(svg, "<svg"));
	free(svg);
	free(out);
	free(err);
	/* a directory in the way */
	snprintf(path, sizeof path, "%s/d.svg", dir);
	cr_assert_eq(sh("mkdir '%s'", path), 0);
	cr_expect_eq(export_to("d.svg", NULL, &out, &err, "1", "--step", "2", "--force"), 2);
	cr_expect(strstr(err, "is a directory"), "%s", err);
	free(out);
	free(err);
}

Test(export_cli, a_full_disk_should_leave_no_file_and_say_so)
{
	char small[128];
	snprintf(small, sizeof small, "%s/small", dir);
	cr_assert_eq(sh("mkdir -p '%s'", small), 0);
	/* a 16 kB file system: needs root (CI runs as root); elsewhere the
	 * unit tests of core/file cover the same path */
	if (mount("tmpfs", small, "tmpfs", 0, "size=16k") != 0)
		cr_skip_test("cannot mount a small tmpfs here (not root)");
	char *out, *err;
	int rc = export_to("small/big.png", NULL, &out, &err, "4", "--step", "11", NULL);
	umount(small);
	cr_expect_eq(rc, 2, "%s", err);
	cr_expect(strstr(err, "disk is full") || strstr(err, "No space"), "%s", err);
	free(out);
	free(err);
	char *names = dir_list(small);
	cr_expect_str_eq(names, "", "no half file, no temporary file");
	free(names);
}

Test(export_cli, the_readme_figure_should_be_what_qkv_export_draws_now)
{
	char *out, *err;
	int rc = export_to("m.svg", NULL, &out, &err, "projections-and-masks", "--step", "9", "--view");
	free(out);
	free(err);
	cr_assert_eq(rc, 2);
	const char *argv[] = { "qkv", "export", "projections-and-masks", "--step", "9", "--view", "2", "-o", NULL, NULL };
	char path[256];
	snprintf(path, sizeof path, "%s/m.svg", dir);
	argv[8] = path;
	cr_assert_eq(run_qkv(argv, NULL, NULL, &out, &err), 0, "%s", err);
	size_t nnew, nold;
	char *fresh = file_read(path, &nnew), *committed = file_read("lessons/figures/masked-scores.svg", &nold);
	cr_assert(fresh && committed);
	cr_expect(nnew == nold && memcmp(fresh, committed, nnew) == 0,
		  "lessons/figures/masked-scores.svg is out of date: make it again with the README's command "
		  "(qkv export 3 --step 9 --view 2 -o lessons/figures/masked-scores.svg --force)");
	free(fresh);
	free(committed);
	free(out);
	free(err);
}
