/* file.c: reading a small file whole, writing one atomically, and setting a
 * damaged one aside (see file.h). Used by lesson/progress.c (progress.json
 * and the prompt history) and lesson/save.c (:save). Never prints and
 * never leaves a partial or temporary file behind. */
#define _GNU_SOURCE 1	/* renameat2 */
#include "core/file.h"
#include "core/mem.h"
#include "core/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SET_ASIDE_MAX 100   /* NAME.bad, NAME.bad.1 ... NAME.bad.99 */

/* The directory holding path, for messages and the final fsync. */
static char *dir_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* ---- writing ---------------------------------------------------------------- */

/* Which call of a save failed, for its message. */
enum write_stage {
	STAGE_CREATE,   /* creating the temporary file beside path */
	STAGE_WRITE,    /* writing, syncing or closing it */
	STAGE_PLACE,    /* renaming (or linking) it to path */
};

/* "cannot save PATH: REASON", the reason from errnum and the call that
 * failed: a missing directory is named only when it is missing (else a
 * file system that takes no new files, such as /proc, would be "no
 * directory"). */
static int write_error(const char *path, int errnum, enum write_stage stage, struct qkv_error *err)
{
	char *dir = dir_name(path);
	struct stat st;
	bool create = stage == STAGE_CREATE;
	if (create && (errnum == EACCES || errnum == EPERM))
		error_set(err, 0, 0, "cannot save %s: no permission to write in %s", path, dir);
	else if (errnum == EROFS)
		error_set(err, 0, 0, "cannot save %s: %s is on a read-only file system", path, dir);
	else if (errnum == ENOSPC || errnum == EDQUOT)
		error_set(err, 0, 0, "cannot save %s: the disk is full", path);
	else if ((errnum == ENOENT || errnum == ENOTDIR) && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
		error_set(err, 0, 0, "cannot save %s: there is no directory %s", path, dir);
	else if (create)	/* e.g. a directory of /proc, which takes no new file */
		error_set(err, 0, 0, "cannot save %s: cannot create a temporary file in %s: %s", path, dir,
			  strerror(errnum));
	else if (stage == STAGE_PLACE)
		error_set(err, 0, 0, "cannot save %s: cannot put the new file in its place: %s", path, strerror(errnum));
	else
		error_set(err, 0, 0, "cannot save %s: %s", path, strerror(errnum));
	free(dir);
	errno = errnum;
	return -1;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, s, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Moves the finished temporary file to path: rename when replacing is
 * allowed, else link (which refuses an existing file even if one appeared
 * since the check) with rename as the fallback where links do not exist. */
static int put_in_place(const char *tmp, const char *path, bool replace)
{
	if (replace)
		return rename(tmp, path);
	if (link(tmp, path) == 0) {
		unlink(tmp);
		return 0;
	}
	if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EMLINK && errno != ENOSYS)
		return -1;	/* EEXIST among them */
	struct stat st;
	if (lstat(path, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(tmp, path);
}

static void sync_dir(const char *path)
{
	char *dir = dir_name(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);	/* the rename survives a crash too; nothing to do if it cannot */
		close(fd);
	}
	free(dir);
}

/* Creates a new temporary file ".qkv-XXXXXX" in the directory of path (a
 * short name, so that it fits wherever a name of NAME_MAX bytes does) with
 * mode less the umask; its fd with the name in tmp, or -1 with errno. */
static int create_temp(const char *path, unsigned mode, struct strbuf *tmp)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static atomic_uint_fast64_t count;	/* :save's thread and the main one's saves */
	const char *slash = strrchr(path, '/');
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t seed = (uint64_t)getpid() * 2654435761u ^ (uint64_t)ts.tv_nsec;
	for (int attempt = 0; attempt < 100; attempt++) {
		uint64_t x = seed + (uint64_t)(atomic_fetch_add(&count, 1) + 1) * 0x9E3779B97F4A7C15u;
		strbuf_reset(tmp);
		if (slash)
			strbuf_putn(tmp, path, (size_t)(slash - path) + 1);
		strbuf_puts(tmp, ".qkv-");
		for (int i = 0; i < 6; i++, x /= 36)
			strbuf_putc(tmp, digits[x % 36]);
		int fd = open(tmp->s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;	/* EEXIST */
}

int file_write_atomic(const char *path, const char *data, size_t len, unsigned mode, int flags,
		      struct qkv_error *err)
{
	struct stat st;
	bool exists = stat(path, &st) == 0;
	struct strbuf tmp;
	strbuf_init(&tmp);
	int fd = create_temp(path, mode, &tmp);
	if (fd < 0) {
		int e = errno;
		strbuf_free(&tmp);
		return write_error(path, e, STAGE_CREATE, err);
	}
	if (flags & FILE_KEEP_MODE) {
		if (exists)
			fchmod(fd, st.st_mode & 07777);	/* keep the replaced file's permissions */
	} else {
		fchmod(fd, (mode_t)mode);	/* exactly mode, whatever the umask */
	}
	enum write_stage stage = STAGE_WRITE;
	int rc = write_all(fd, data, len);
	if (rc == 0)
		rc = fsync(fd);
	int e = errno;
	if (close(fd) != 0 && rc == 0) {
		rc = -1;
		e = errno;
	}
	if (rc == 0 && put_in_place(tmp.s, path, !(flags & FILE_NO_REPLACE)) != 0) {
		rc = -1;
		e = errno;
		stage = STAGE_PLACE;
	}
	if (rc != 0) {
		unlink(tmp.s);
		strbuf_free(&tmp);
		if (e == EEXIST) {
			error_set(err, 0, 0, "cannot save %s: it exists", path);
			errno = EEXIST;
			return -1;
		}
		return write_error(path, e, stage, err);
	}
	strbuf_free(&tmp);
	sync_dir(path);
	return 0;
}

/* ---- reading ---------------------------------------------------------------- */

static char *read_error(int fd, int errnum, struct qkv_error *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static char *read_error(int fd, int errnum, struct qkv_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_vset(err, 0, 0, fmt, ap);
	va_end(ap);
	if (fd >= 0)
		close(fd);
	errno = errnum;
	return NULL;
}

char *file_read_all(const char *path, size_t max, size_t *len, struct qkv_error *err)
{
	*len = 0;
	error_clear(err);
	/* O_NONBLOCK: a FIFO put there must not hang the program */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return read_error(-1, errno, err, "%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0)
		return read_error(fd, errno, err, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return read_error(fd, EISDIR, err, "it is a directory");
	if (!S_ISREG(st.st_mode))
		return read_error(fd, EINVAL, err, "it is not a regular file");
	if ((uintmax_t)st.st_size > max)
		return read_error(fd, EFBIG, err, "it is %jd bytes, more than %zu", (intmax_t)st.st_size, max);
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {	/* it grew since fstat */
			if (cap > max) {
				free(buf);
				return read_error(fd, EFBIG, err, "it is more than %zu bytes", max);
			}
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return read_error(fd, e, err, "%s", strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(buf);
		return read_error(-1, EFBIG, err, "it is more than %zu bytes", max);
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* ---- setting aside ---------------------------------------------------------- */

/* rename without replacing: renameat2 where the file system has it, else a
 * check first (a race with another qkv doing the same is harmless: the
 * second rename finds no file to move) */
static int rename_new(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	struct stat st;
	if (lstat(to, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

char *file_set_aside(const char *path)
{
	struct strbuf name;
	strbuf_init(&name);
	for (int i = 0; i < SET_ASIDE_MAX; i++) {
		strbuf_reset(&name);
		if (i == 0)
			strbuf_printf(&name, "%s.bad", path);
		else
			strbuf_printf(&name, "%s.bad.%d", path, i);
		if (rename_new(path, name.s) == 0)
			return strbuf_detach(&name);
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	strbuf_free(&name);
	errno = e;
	return NULL;
}

/* ---- text ------------------------------------------------------------------- */

long file_bad_text(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		unsigned char c = s[i];
		size_t n;
		unsigned min;
		if (c == 0)
			return (long)i;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			n = 1;
			min = 0x80;
		} else if ((c & 0xF0) == 0xE0) {
			n = 2;
			min = 0x800;
		} else if ((c & 0xF8) == 0xF0) {
			n = 3;
			min = 0x10000;
		} else {
			return (long)i;
		}
		unsigned v = c & (0x3Fu >> n);
		for (size_t k = 1; k <= n; k++) {
			if (i + k >= len || (s[i + k] & 0xC0) != 0x80)
				return (long)i;
			v = (v << 6) | (s[i + k] & 0x3Fu);
		}
		if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
			return (long)i;
		i += n + 1;
	}
	return -1;
}

/* ---- reading a stream ------------------------------------------------------- */

char *file_read_fd(int fd, size_t max, size_t *len, struct qkv_error *err)
{
	*len = 0;
	error_clear(err);
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		return read_error(-1, EISDIR, err, "it is a directory");
	size_t cap = 65536 < max + 1 ? 65536 : max + 1, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (n > max) {
				free(buf);
				return read_error(-1, EFBIG, err, "it is more than %zu bytes", max);
			}
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			int e = errno;
			free(buf);
			if (e == EINTR)
				return read_error(-1, e, err, "interrupted");
			return read_error(-1, e, err, "%s", strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		free(buf);
		return read_error(-1, EFBIG, err, "it is more than %zu bytes", max);
	}
	buf[n] = 0;
	*len = n;
	return buf;
}
