/* SPDX-License-Identifier: MIT */
/*
 * Reading a job file or a qos config whole: regular files only, refused on
 * their size before a byte is read, never a wait on a FIFO.  The device
 * files of the simulator and the speed logs they name are opened the same
 * way (jobfile_open()).
 */
#include "job/jobfile_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int jobfile_open(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd, rc;

	/* stat first: a device is never opened (a FIFO's open would wait
	 * for a writer, /dev/zero's reads never end) */
	if (stat(path, st) == 0 && !S_ISREG(st->st_mode)) {
		jf_errf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	/* O_NONBLOCK: should it have become a FIFO since, no wait either */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		jf_errf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		jf_errf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	return fd;
}

FILE *jobfile_fopen(const char *path, int *rc, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int fd = jobfile_open(path, &st, err, errlen);

	if (fd < 0) {
		*rc = fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		*rc = -errno;
		jf_errf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int jobfile_read(const char *path, size_t max, char **out, size_t *outlen,
		 char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd, rc;

	fd = jobfile_open(path, &st, err, errlen);
	if (fd < 0)
		return fd;
	/* refused on its size, before a byte is read (a sparse file of a
	 * terabyte is a moment's work, not an hour's) */
	if ((uint64_t)st.st_size > max) {
		close(fd);
		jf_errf(err, errlen, "%s: larger than %zu bytes", path, max);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		jf_errf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* the size fstat gave, no more: a file that grows is read as it was */
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			jf_errf(err, errlen, "%s: %s", path, strerror(-rc));
			free(buf);
			close(fd);
			return rc;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*out = buf;
	*outlen = got;
	return 0;
}
