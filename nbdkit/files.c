/* SPDX-License-Identifier: MIT */
/*
 * The two files the filter touches, the config it reads and the stats file
 * it writes, made safe against what else may be found at their paths.
 * nbdkit usually runs as root, and the directories of both files may be
 * writable by others (/tmp, or a directory a tenant may write to).
 *
 * Reading the config.  Whatever is at the path is opened with O_NONBLOCK:
 * a FIFO put in place of the file would otherwise block the open (and the
 * poll thread, and with it the stats, every later reload and nbdkit's exit)
 * until some process opened it for writing.  Then fstat() on what was
 * opened: anything but a regular file (a FIFO, a directory, a device, a
 * socket) is refused with a message that says what it is, and nothing is
 * read from it.  A symbolic link is followed: making the config a link to
 * one of several files is a common way to switch between them.
 *
 * Writing the stats.  The file is written whole to FILE.tmp and renamed
 * over the stats path, so that a reader never sees half of it.  Something
 * other than a regular file or a symbolic link at the stats path (a
 * directory, a FIFO, a device) is refused: it is left as it is and the
 * write fails with a message naming it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <nbdkit-filter.h>

#include "filter.h"

const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:  return "a regular file";
	case S_IFDIR:  return "a directory";
	case S_IFIFO:  return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR:  return "a character device";
	case S_IFBLK:  return "a block device";
	case S_IFLNK:  return "a symbolic link";
	}
	return "of an unknown kind";
}

char *config_read(const char *path, size_t *len, char *err, size_t errlen)
{
	size_t cap, n = 0;
	struct stat st;
	char *buf = NULL;
	int fd, e;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	if (st.st_size > CONFIG_MAX_BYTES) {
		e = EFBIG;
		goto fail;
	}
	/* its size now, and one more byte to see the end (it may grow) */
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap + 1);
	if (!buf) {
		e = ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t got;

		if (n == cap) {
			char *p;

			if (cap > CONFIG_MAX_BYTES) {
				e = EFBIG;
				goto fail;
			}
			cap *= 2;
			p = realloc(buf, cap + 1);
			if (!p) {
				e = ENOMEM;
				goto fail;
			}
			buf = p;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (e == EFBIG)
		snprintf(err, errlen, "%s: larger than a config may be (%d MiB)", path,
			 CONFIG_MAX_BYTES >> 20);
	else
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	free(buf);
	close(fd);
	return NULL;
}

int stats_path_check(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;          /* not there (yet), or its directory will say */
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	snprintf(err, errlen, "%s: not a regular file (%s)", path, file_kind(st.st_mode));
	return -1;
}

int file_replace(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	bool ok;
	FILE *f;

	if (stats_path_check(path, err, errlen) < 0)
		return -1;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENAMETOOLONG));
		return -1;
	}
	f = fopen(tmp, "we");
	if (!f) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	ok = fwrite(buf, 1, len, f) == len;
	if (fclose(f) != 0)
		ok = false;
	if (!ok || rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
