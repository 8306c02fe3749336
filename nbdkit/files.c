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
 * Writing the stats.  The file is written whole to a temporary file in
 * the same directory and renamed over the stats path, so that a reader
 * never sees half of it.  The temporary file has a random name,
 * .ioqos-stats-RANDOM.tmp, and is made with O_CREAT|O_EXCL|O_NOFOLLOW, so
 * that nothing put in the directory beforehand (a link at FILE.tmp to
 * /etc/shadow, or at any name) is followed, truncated or replaced; it is
 * removed again on any error.  rename()
 * replaces a symbolic link at the stats path itself, never what it points
 * to.  Something else at the stats path (a directory, a FIFO, a device) is
 * refused: it is left as it is and the write fails with a message naming
 * it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/random.h>
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

/*
 * A new file in the directory of @path, for writing, its name into @tmp:
 * fd, or -1 with errno.  The name is a dot file, so that a reader that
 * globs the directory (node_exporter's *.prom) does not take it up, and
 * does not grow with @path's, which may be as long as a name can be.
 */
static int temp_beside(const char *path, char *tmp, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path) + 1 : 0;

	for (int tries = 0; tries < 100; tries++) {
		uint64_t r;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)tries;
		if ((size_t)snprintf(tmp, len, "%.*s.ioqos-stats-%016" PRIx64 ".tmp", dir, path,
				     r) >= len) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int file_replace(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	size_t off = 0;
	int fd, e = 0;

	if (stats_path_check(path, err, errlen) < 0)
		return -1;
	fd = temp_beside(path, tmp, sizeof(tmp));
	if (fd < 0) {
		snprintf(err, errlen, "%s: a temporary file beside it: %s", path, strerror(errno));
		return -1;
	}
	while (off < len && e == 0) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n > 0)
			off += (size_t)n;
		else if (n == 0)
			e = EIO;
		else if (errno != EINTR)
			e = errno;
	}
	if (close(fd) < 0 && e == 0)
		e = errno;
	if (e == 0 && rename(tmp, path) < 0)
		e = errno;
	if (e != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		unlink(tmp);
		return -1;
	}
	return 0;
}
