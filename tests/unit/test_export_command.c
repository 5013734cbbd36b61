/* test_export_command.c: export/command.c in process, `:export NAME FILE` as
 * both prompts run it: the file written in the format of its extension (an
 * SVG xmllint accepts, a PDF, a PNG whose size is that of a figure), an
 * existing file kept unless :export!, and every mistake with the column a
 * caret goes under (the name's, the expression's error, the file's). */
#include "core/strbuf.h"
#include "export/command.h"
#include "lesson/commands.h"
#include "lesson/session.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];
static struct session *s;

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/qkv-excmd-XXXXXX");
	cr_assert(mkdtemp(dir));
	s = session_new(KERNEL_SIMD, 0);
	struct qkv_error err;
	const char *src = "X = [0.5 -1.25; 2 0.125]\nn = 3\nT = torch.zeros(2, 3, 4)";
	cr_assert_eq(session_run(s, src, strlen(src), 1, SESSION_ATOMIC, &err), SESSION_OK, "%s", err.msg);
}

static void teardown(void)
{
	session_free(s);
	export_cleanup();	/* cairo's and fontconfig's caches: no leak at exit */
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

/* Runs the line `:WORD NAME DIR/FILE` (file may be NULL: no file): the
 * result, with done and err filled. */
static int run(const char *word, const char *name, const char *file, char *done, struct qkv_error *err)
{
	char line[512];
	if (file)
		snprintf(line, sizeof line, ":%s %s %s/%s", word, name, dir, file);
	else
		snprintf(line, sizeof line, ":%s %s", word, name);
	struct command c;
	cr_assert(command_parse(line, &c));
	done[0] = 0;
	return export_command(s, &c, NULL, done, 400, err);
}

static off_t size_of(const char *file)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

Test(export_command, each_extension_should_give_its_format, .init = setup, .fini = teardown)
{
	char done[400];
	struct qkv_error err;
	const char *files[] = { "x.svg", "x.pdf", "x.png", "X.SVG" };
	const char *magic[] = { "<", "%PDF", "\x89PNG", "<" };
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(run("export", "X", files[i], done, &err), 0, "%s: %s", files[i], err.msg);
		cr_expect(strstr(done, "Exported X (2\u00d72) to "), "%s", done);
		char path[256];
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		FILE *f = fopen(path, "rb");
		cr_assert(f, "%s was not written", path);
		char head[8] = { 0 };
		cr_expect(fread(head, 1, strlen(magic[i]), f) == strlen(magic[i]));
		fclose(f);
		cr_expect_eq(memcmp(head, magic[i], strlen(magic[i])), 0, "%s starts with %.4s", files[i], head);
	}
	char cmd[300];
	snprintf(cmd, sizeof cmd, "xmllint --noout %s/x.svg", dir);
	cr_expect_eq(system(cmd), 0, "xmllint rejects the SVG");
}

Test(export_command, a_file_that_exists_should_be_kept_unless_forced, .init = setup, .fini = teardown)
{
	char done[400];
	struct qkv_error err;
	cr_assert_eq(run("export", "X", "x.svg", done, &err), 0, "%s", err.msg);
	off_t first = size_of("x.svg");
	cr_assert_eq(run("export", "T", "x.svg", done, &err), -1);
	cr_expect(strstr(err.msg, "exists (:export! replaces it)"), "%s", err.msg);
	cr_expect_eq(err.col, 11, "under the file");
	cr_expect_eq(size_of("x.svg"), first, "the file as it was");
	cr_assert_eq(run("export!", "T", "x.svg", done, &err), 0, "%s", err.msg);
	cr_expect(strstr(done, "Exported T (2\u00d73\u00d74, batch 0) to "), "%s", done);
}

Test(export_command, each_mistake_should_say_where_it_is, .init = setup, .fini = teardown)
{
	char done[400];
	struct qkv_error err;
	/* ":export NAME DIR/..." : the name at column 9, the file at 10 + its length */
	cr_expect_eq(run("export", "Y", "y.svg", done, &err), -1);
	cr_expect(strstr(err.msg, "name 'Y' is not defined"), "%s", err.msg);
	cr_expect_eq(err.col, 9);
	cr_expect_eq(run("export", "X @ Y", "y.svg", done, &err), -1);
	cr_expect_eq(err.col, 13, "the error's own column in the expression");
	cr_expect_eq(run("export", "n", "n.svg", done, &err), -1);
	cr_expect(strstr(err.msg, "n is not a tensor"), "%s", err.msg);
	cr_expect_eq(err.col, 9);
	cr_expect_eq(run("export", "X", "x.gif", done, &err), -1);
	cr_expect(strstr(err.msg, "unknown extension '.gif'"), "%s", err.msg);
	cr_expect_eq(err.col, 11);
	cr_expect_eq(run("export", "X", "x.html", done, &err), -1);
	cr_expect(strstr(err.msg, "qkv export LESSON -o FILE.html"), "%s", err.msg);
	cr_expect_eq(run("export", "X", "nodir/x.svg", done, &err), -1);
	cr_expect(strstr(err.msg, "nodir"), "the message names the path: %s", err.msg);
	cr_expect_eq(err.col, 11);
	cr_expect_eq(run("export", "X", NULL, done, &err), -1);
	cr_expect(strstr(err.msg, ":export needs a name and a file"), "%s", err.msg);
	cr_expect_eq(err.col, 11);
	cr_expect_eq(size_of("y.svg"), -1, "no file for a failed export");
	cr_expect_eq(size_of("x.gif"), -1);
}
