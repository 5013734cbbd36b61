/* file.h: small files read whole and written safely, for qkv's state files
 * (progress.json, the prompt history) and the prompt's :save. A write goes
 * through a temporary file renamed over the old one, so a crash, a full disk
 * or a read-only directory never leaves half a file; a file found damaged is
 * set aside as NAME.bad rather than overwritten. */
#ifndef QKV_CORE_FILE_H
#define QKV_CORE_FILE_H

#include "core/error.h"

#include <stddef.h>

/* flags of file_write_atomic */
enum {
	FILE_KEEP_MODE = 1,   /* a file replaced keeps its permission bits */
	FILE_NO_REPLACE = 2,  /* refuse (errno EEXIST) when path exists, even one that appeared meanwhile */
};

/* Writes data[0..len) to path atomically: into a new ".qkv-XXXXXX" beside
 * it (short, so any name the directory takes fits), fsynced, renamed over
 * path, then the directory fsynced. path is always either the old file or
 * the whole new one, and no temporary file is left behind. The new file gets exactly mode (FILE_KEEP_MODE: the replaced
 * file's bits when there is one, else mode less the umask). The directory
 * must exist. Returns 0, or -1 with errno set and err->msg "cannot save PATH:
 * REASON", the reason of the call that failed (no permission to write in
 * DIR, DIR is on a read-only file system, the disk is full, there is no
 * directory DIR, cannot create a temporary file in DIR: ERRNO, ...). */
int file_write_atomic(const char *path, const char *data, size_t len, unsigned mode, int flags,
		      struct qkv_error *err);

/* Reads the whole regular file path, of at most max bytes, without blocking
 * on a FIFO or a device. Returns the bytes (malloc'd, a NUL appended, *len
 * their count), or NULL with errno ENOENT or ENOTDIR when there is no such
 * file, else errno set and err->msg saying why, without the path ("it is a
 * directory", "it is not a regular file", "it is 5000000 bytes, more than
 * 1048576", "Permission denied", ...). */
char *file_read_all(const char *path, size_t max, size_t *len, struct qkv_error *err);

/* Sets a damaged file (or directory) aside: renames path to "PATH.bad", or
 * when that name is taken to the first free one of "PATH.bad.1" ...
 * "PATH.bad.99"; never replaces an earlier one. Returns the new name
 * (malloc'd), or NULL with errno (EEXIST when all are taken) and path left
 * where it was. */
char *file_set_aside(const char *path);

/* Where text[0..len) stops being UTF-8 text: the offset of its first NUL
 * byte or invalid UTF-8 sequence (overlong, surrogate, beyond U+10FFFF or
 * cut short), or -1 when it is all text. */
long file_bad_text(const char *text, size_t len);

/* Reads the open fd (a file, a pipe, a terminal or a device) to its end,
 * blocking as it does, but never more than max bytes: for statements read
 * from standard input or from a path that may be a pipe (`<(...)`) or
 * /dev/zero. Returns the bytes (malloc'd, a NUL appended, *len their count),
 * or NULL with errno set and err->msg saying why, without the name: "it is
 * a directory", "it is more than 8388608 bytes", the read error's strerror
 * ("Input/output error"), or "interrupted" (errno EINTR) when a signal
 * handler interrupts the read. fd stays open. */
char *file_read_fd(int fd, size_t max, size_t *len, struct qkv_error *err);

#endif
