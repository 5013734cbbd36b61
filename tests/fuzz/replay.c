/* replay.c: the main of a fuzz target built without libFuzzer.
 * Runs every file named on the command line (a directory: every file in it)
 * through LLVMFuzzerTestOneInput once, so a crash the fuzzer saved can be
 * reproduced and debugged with gcc, gdb or valgrind. Linked with one of
 * tests/fuzz/fuzz_*.c; never linked into qkv. */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replayed;

/* Runs the file at path; -1 when it cannot be read. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			fprintf(stderr, "replay: %s: out of memory\n", path);
			return -1;
		}
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap)
			break;
		cap *= 2;
		uint8_t *more = realloc(buf, cap);
		if (!more)
			free(buf);
		buf = more;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		return -1;
	}
	/* libFuzzer hands over exactly len bytes: a copy of that size lets
	 * AddressSanitizer catch a read one past the end */
	uint8_t *data = malloc(len ? len : 1);
	if (data && len)
		memcpy(data, buf, len);
	free(buf);
	if (!data)
		return -1;
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	replayed++;
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs the files of directory dir, in name order. */
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **more = realloc(names, cap * sizeof *names);
			if (!more)
				break;
			names = more;
		}
		size_t size = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = malloc(size);
		if (names[n])
			snprintf(names[n++], size, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, compare_names);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && replay_file(names[i]) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n"
				"Runs each input through the fuzz target once (a directory: each file in it).\n",
			argv[0]);
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc |= replay_dir(argv[i]) < 0;
		else
			rc |= replay_file(argv[i]) < 0;
	}
	fprintf(stderr, "replay: %d input%s run\n", replayed, replayed == 1 ? "" : "s");
	return rc ? 1 : 0;
}
