/* SPDX-License-Identifier: MIT */
/*
 * The files of a run: named from filename= or filename_format, shared
 * between the streams that name the same path, opened (block devices as
 * they are), laid out with data when missing or too small and a job reads
 * them (the rest by fallocate=, falloc.c), and taken back when the run
 * fails before its I/O.
 */
#include "run/runner_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- files and streams ------------------------------------------------ */

int names_split(const char *s, char ***out, unsigned *n)
{
	char **v = NULL, *cur;
	unsigned cnt = 0;
	size_t len = strlen(s), k = 0;

	cur = malloc(len + 1);
	if (!cur)
		return -ENOMEM;
	for (size_t i = 0; i <= len; i++) {
		if (s[i] == '\\' && s[i + 1] == ':') {
			cur[k++] = ':';
			i++;
			continue;
		}
		if (s[i] == ':' || s[i] == '\0') {
			char **nv;
			if (!k)
				continue;
			cur[k] = '\0';
			nv = realloc(v, (cnt + 1) * sizeof(*v));
			if (!nv || !(nv[cnt] = strdup(cur))) {
				free(nv ? nv : v);
				free(cur);
				return -ENOMEM;
			}
			v = nv;
			cnt++;
			k = 0;
			continue;
		}
		cur[k++] = s[i];
	}
	free(cur);
	*out = v;
	*n = cnt;
	return 0;
}

void names_free(char **names, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		free(names[k]);
	free(names);
}

static struct rfile *file_get(struct runner *r, const char *path, bool direct)
{
	for (unsigned i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i].path, path))
			return &r->files[i];
	return NULL;
}

/* stream files are pointers into r->files, which must not move: count
 * first, then allocate once */
int plan_files(struct runner *r, char *err, size_t errlen)
{
	unsigned cap = 0;
	char name[4096];

	/* a replay's: its log's, each clone its own (replay.c) */
	for (unsigned si = 0; si < r->nstreams; si++)
		if (r->streams[si].replay) {
			char **names;
			unsigned n;
			if (replay_names(&r->streams[si], &names, &n))
				return -ENOMEM;
			cap += n;
			names_free(names, n);
		}
	for (size_t i = 0; i < r->set->n; i++) {
		const struct job *j = &r->set->jobs[i];
		if (j->read_iolog) {
			continue;
		} else if (j->filename) {
			char **names;
			unsigned n;
			if (names_split(j->filename, &names, &n))
				return -ENOMEM;
			cap += n;
			names_free(names, n);
		} else {
			cap += j->numjobs * j->nrfiles;
		}
	}
	r->files = calloc(cap ? cap : 1, sizeof(*r->files));
	if (!r->files)
		return -ENOMEM;

	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		const struct job *j = s->job;
		char **names = NULL;
		unsigned n = 0;

		if (s->replay) {
			if (replay_names(s, &names, &n))
				return -ENOMEM;
		} else if (j->filename) {
			if (names_split(j->filename, &names, &n))
				return -ENOMEM;
			if (!n) {
				snprintf(err, errlen, "%s: job '%s': empty filename=", j->where,
					 j->name);
				free(names);
				return -EINVAL;
			}
		} else {
			names = calloc(j->nrfiles, sizeof(*names));
			if (!names)
				return -ENOMEM;
			for (n = 0; n < j->nrfiles; n++)
				if (job_file_name(j, s->clone, n, name, sizeof(name)) ||
				    !(names[n] = strdup(name))) {
					while (n--)
						free(names[n]);
					free(names);
					return -ENOMEM;
				}
		}
		s->files = calloc(n, sizeof(*s->files));
		s->seq_pos = calloc(n, sizeof(*s->seq_pos));
		s->map_x = calloc(n, sizeof(*s->map_x));
		if (!s->files || !s->seq_pos || !s->map_x)
			return -ENOMEM;
		s->nfiles = n;
		for (unsigned k = 0; k < n; k++) {
			struct rfile *f;
			/* a replay's names are joined already, as fio's */
			if (j->directory && names[k][0] != '/' && !s->replay)
				snprintf(name, sizeof(name), "%s/%s", j->directory, names[k]);
			else
				snprintf(name, sizeof(name), "%s", names[k]);
			f = file_get(r, name, j->direct);
			if (!f) {
				f = &r->files[r->nfiles++];
				f->path = strdup(name);
				f->fd = -1;
				f->direct = j->direct;
				/* sync=: fio's sync_io, not on a trimming job's */
				f->sync_oflags = job_trims(j) ? 0 : j->sync_oflags;
				if (!f->path)
					return -ENOMEM;
			}
			s->files[k] = f;
			free(names[k]);
		}
		free(names);
	}
	return 0;
}

/* open a real file, find its size (block devices too) */
int open_file(struct runner *r, struct rfile *f, bool writes, char *err,
		     size_t errlen)
{
	struct stat st;
	int flags = O_CLOEXEC | (f->direct ? O_DIRECT : 0) | f->sync_oflags;
	bool exists = stat(f->path, &st) == 0;

	if (exists && (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))) {
		/* a character device (/dev/full, /dev/zero) is used as it is, as
		 * fio uses it: as long as the jobs' size= says, and without
		 * O_DIRECT, which it has no page cache for (and /dev/null refuses) */
		f->is_blk = true;
		f->is_chr = S_ISCHR(st.st_mode);
		if (f->is_chr)
			flags &= ~O_DIRECT;
		if (f->is_chr && !f->need) {
			snprintf(err, errlen, "%s: size= is needed: a character device "
				 "has no size", f->path);
			return -EINVAL;
		}
		f->fd = open(f->path, flags | (writes ? O_RDWR : O_RDONLY));
	} else if (exists && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file or device", f->path);
		return -EINVAL;
	} else if (f->fill) {
		/* fill_device=: the file starts empty, as fio unlinks and
		 * creates it, and is never laid out (filldev.c) */
		f->fd = open(f->path, flags | O_RDWR | O_CREAT | O_TRUNC, 0644);
		f->created = f->fd >= 0 && !exists;
	} else if (!exists && f->replay_writes) {
		/* an iolog writes it: created empty, as fio's open creates a
		 * replay's file, and grown by the log's writes (replay.c) */
		f->fd = open(f->path, flags | O_RDWR | O_CREAT, 0644);
		f->created = f->fd >= 0;
	} else if (!exists && f->replayed) {
		snprintf(err, errlen, "%s: missing, and an iolog reads it (ioqos lays "
			 "out no file for a replay, nor does fio)", f->path);
		return -ENOENT;
	} else if (!exists && !f->need) {
		/* nothing to lay it out to: never create an empty file (a
		 * missing /dev/sdX would become one) */
		snprintf(err, errlen, "%s: size= is needed: the file is missing", f->path);
		return -ENOENT;
	} else {
		/* a regular file is laid out when missing or too small, so it is
		 * opened for writing whenever that may be needed */
		bool grow = !exists || (uint64_t)st.st_size < f->need;
		f->fd = open(f->path, flags | ((writes || grow) ? O_RDWR : O_RDONLY) |
			     (grow ? O_CREAT : 0), 0644);
		if (f->fd >= 0 && grow) {
			f->created = !exists;
			f->grown = exists;
			f->old_size = exists ? (uint64_t)st.st_size : 0;
		}
	}
	if (f->fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(e));
		return -e;
	}
	if (f->is_chr) {
		f->size = f->need;
	} else if (f->is_blk) {
		uint64_t sz = 0;
		if (ioctl(f->fd, BLKGETSIZE64, &sz)) {
			int e = errno;
			snprintf(err, errlen, "%s: size: %s", f->path, strerror(e));
			return -e;
		}
		f->size = sz;
	} else {
		if (fstat(f->fd, &st)) {
			int e = errno;
			snprintf(err, errlen, "%s: %s", f->path, strerror(e));
			return -e;
		}
		f->size = (uint64_t)st.st_size;
	}
	(void)r;
	return 0;
}

/* write a regular file out to f->need bytes, as fio lays out its files:
 * real data, so that reads touch the device and not holes */
int layout_file(struct rfile *f, char *err, size_t errlen)
{
	const size_t chunk = 1 << 20;
	void *buf;
	uint64_t pos = f->size & ~(uint64_t)4095;
	int fd;

	if (f->is_blk || f->size >= f->need)
		return 0;
	/* buffered, whatever the job's direct=: layout is not measured */
	fd = open(f->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(e));
		return -e;
	}
	buf = malloc(chunk);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < chunk; i++)
		((unsigned char *)buf)[i] = (unsigned char)(i * 131 + 7);
	while (pos < f->need) {
		size_t n = f->need - pos < chunk ? (size_t)(f->need - pos) : chunk;
		ssize_t w;

		if (got_signal) {
			snprintf(err, errlen, "%s: laying out stopped by %s", f->path,
				 signal_name(got_signal));
			free(buf);
			close(fd);
			return -EINTR;
		}
		w = pwrite(fd, buf, n, (off_t)pos);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			snprintf(err, errlen, "%s: laying out %" PRIu64 " bytes: %s", f->path,
				 f->need, strerror(e));
			free(buf);
			close(fd);
			return -e;
		}
		pos += (uint64_t)w;
	}
	free(buf);
	if (fsync(fd)) {
		int e = errno;
		snprintf(err, errlen, "%s: fsync: %s", f->path, strerror(e));
		close(fd);
		return -e;
	}
	close(fd);
	if (got_signal) {
		snprintf(err, errlen, "%s: laying out stopped by %s", f->path,
			 signal_name(got_signal));
		return -EINTR;
	}
	f->size = f->need;
	return 0;
}

/* the run failed before its I/O: take back what it did to the files */
void undo_files(struct runner *r)
{
	for (unsigned i = 0; i < r->nfiles; i++) {
		struct rfile *f = &r->files[i];

		if (f->created)
			unlink(f->path);
		else if (f->grown && f->fd >= 0 && ftruncate(f->fd, (off_t)f->old_size))
			fprintf(stderr, "ioqos: %s: cannot cut it back to %" PRIu64
				" bytes: %s\n", f->path, f->old_size, strerror(errno));
	}
}
