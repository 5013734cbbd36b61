/* helpers.c: file and text helpers for both test binaries (see helpers.h).
 * Test-only code, linked into build/qkv-unit and build/qkv-system; it never
 * starts qkv (tests/system/system.c does). */
#include "helpers.h"
#include "core/textcmp.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *file_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0, r;
	char *buf = malloc(cap + 1);
	while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

char *read_text(const char *path)
{
	size_t len;
	return file_read(path, &len);
}

void file_put(const char *path, const void *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	if (slash && slash != path) {
		char dir[512];
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
		mkdir(dir, 0700);	/* may exist already */
	}
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len, "%s: %s", path, strerror(errno));
	cr_assert_eq(fclose(f), 0, "%s: %s", path, strerror(errno));
}

void file_assert_holds(const char *path, const void *data, size_t len)
{
	size_t got;
	char *s = file_read(path, &got);
	cr_assert_not_null(s, "%s is missing", path);
	cr_assert(got == len && memcmp(s, data, len) == 0, "%s holds %zu bytes, not the %zu expected:\n%s", path, got,
		  len, s);
	free(s);
}

static int dir_keep(const struct dirent *e)
{
	return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

char *dir_list(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, dir_keep, alphasort);
	size_t size = 1;
	for (int i = 0; i < n; i++)
		size += strlen(names[i]->d_name) + 1;
	char *out = malloc(size), *p = out;
	*p = 0;
	for (int i = 0; i < n; i++) {
		p += sprintf(p, "%s ", names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return out;
}

void dir_make_temp(char *buf, size_t size, const char *prefix)
{
	int n = snprintf(buf, size, "/tmp/%s-XXXXXX", prefix);
	cr_assert(n > 0 && (size_t)n < size, "dir_make_temp: buffer too small for %s", prefix);
	cr_assert_not_null(mkdtemp(buf), "mkdtemp %s: %s", buf, strerror(errno));
}

void dir_remove(const char *dir)
{
	if (!dir[0])
		return;
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
	if (system(cmd) != 0) {
		/* left in /tmp */
	}
}

bool text_matches(const char *got, const char *want, double f32_rel, bool prefix, char *why, size_t whylen)
{
	return textcmp_match(got, want, f32_rel, 0, prefix, why, whylen);
}
