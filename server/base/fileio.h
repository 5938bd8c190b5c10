/*
 * fileio.h - the two file chores every writer of a durable file shares:
 * writing a whole buffer, and making a rename into a folder survive a crash.
 */
#ifndef RBKV_FILEIO_H
#define RBKV_FILEIO_H

#include <stddef.h>

/* write(2) until all n bytes are out, again after EINTR. 0, or -1 with errno
 * set (ENOSPC when the kernel took nothing without saying why). */
int write_full(int fd, const void *p, size_t n);

/* fsyncs the folder holding path ("." when path has no slash), so that a
 * file renamed into it is still there after a crash. 0 or -1 with errno. */
int fsync_dir_of(const char *path);

#endif
