/* SPDX-License-Identifier: MIT */
/*
 * Config files: one group a line (ioqos_load, ioqos_load_buf, and their
 * replacing forms), in the syntax of settings.c; lines pasted from
 * cgroup v2's io.max and io.weight are translated first (cgroup.c).
 *
 * All-or-nothing
 *
 * Parsing never touches the controller.  ioqos_set() parses and checks
 * (ioqos__conf_check, in apply.c) before it creates the group; a load parses
 * and checks every line first (conftext.c, into a struct ioqos_conf), and
 * only then creates all the groups and applies the lines in file order.
 * The one failure left after the checks is running out of memory while
 * creating groups: then nothing is applied, though groups created up to
 * that point remain (with default settings).
 *
 * A replacing load (ioqos_load_replace) is the whole truth: its lines are
 * checked alone, not merged with the settings in force, and applied in
 * their place; every group the file does not name gets the defaults and is
 * reported to the caller, who may remove it.  It is ioqos_conf_parse()
 * and ioqos_conf_apply() in one call (confapply.c).
 *
 * A config file is a regular file (read_file()): anything else is refused
 * unread, never waited on.
 *
 * Weakness: a load keeps the whole file in memory (capped at
 * IOQOS__FILE_MAX).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings_int.h"


/* a config file larger than this is refused rather than read */
#define IOQOS__FILE_MAX ((size_t)256 << 20)

/* ---- config files -------------------------------------------------------- */

/* a merging load's pass 2: create every group, make room, apply in file order */
static int load_merge(struct ioqos *q, struct ioqos_conf *c, uint64_t now_ns,
		      char *err, size_t errlen)
{
	size_t i;
	int ret;

	for (i = 0; i < c->n; i++) {
		const char *path = ioqos__centry_path(c, &c->e[i]);

		ret = ioqos_group(q, path);
		if (ret < 0) {
			ioqos__errf(err, errlen,
				    "%s:%lu: group '%s': cannot create the group: %s",
				    c->qname, c->e[i].line, path, ioqos_strerror(ret));
			return ret;
		}
		c->e[i].id = (uint32_t)ret;
	}
	for (i = 0; i < c->n; i++) {
		ret = ioqos__conf_prepare(q, c->e[i].id, &c->e[i].c);
		if (ret < 0) {
			ioqos__errf(err, errlen, "%s:%lu: group '%s': %s", c->qname,
				    c->e[i].line, ioqos__centry_path(c, &c->e[i]),
				    ioqos_strerror(ret));
			return ret;
		}
	}
	for (i = 0; i < c->n; i++)
		ioqos__conf_apply(q, c->e[i].id, &c->e[i].c, now_ns);
	ioqos__conf_done(q, now_ns);
	return 0;
}

static int load_buf(struct ioqos *q, const char *name, const char *buf,
		    size_t len, uint64_t now_ns, bool replace,
		    ioqos_unnamed_fn *unnamed, void *arg, char *err, size_t errlen)
{
	char qn[IOQOS__QUOTE_BUF];
	struct ioqos_conf *c;
	int ret;

	ioqos__quote_str(qn, name != NULL ? name : "config");
	if (q == NULL || (buf == NULL && len > 0)) {
		ioqos__errf(err, errlen, "%s: no controller or no buffer", qn);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		ioqos__errf(err, errlen, "%s: %s", qn, ioqos_strerror(-ENOMEM));
		return -ENOMEM;
	}
	/* pass 1: parse and check every line, change nothing */
	ret = ioqos__conf_text(c, name, buf, len, replace ? NULL : q, err, errlen);
	/* pass 2: apply */
	if (ret == 0)
		ret = replace ? ioqos_conf_apply(q, c, now_ns, 0, unnamed, arg, err, errlen) :
		      load_merge(q, c, now_ns, err, errlen);
	ioqos_conf_free(c);
	return ret;
}

int ioqos_load_buf(struct ioqos *q, const char *name, const char *buf,
		   size_t len, uint64_t now_ns, char *err, size_t errlen)
{
	return load_buf(q, name, buf, len, now_ns, false, NULL, NULL, err, errlen);
}

int ioqos_load_buf_replace(struct ioqos *q, const char *name, const char *buf,
			   size_t len, uint64_t now_ns, ioqos_unnamed_fn *unnamed,
			   void *arg, char *err, size_t errlen)
{
	return load_buf(q, name, buf, len, now_ns, true, unnamed, arg, err, errlen);
}

/* what a file that is not a regular file is, for the message */
static const char *file_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown kind";
}

/* the rest of @fd's regular file into *@bufp (@cap bytes, which grows
 * up to IOQOS__FILE_MAX); its length in *@lenp; 0 or -errno */
static int read_rest(int fd, char **bufp, size_t cap, size_t *lenp)
{
	char *buf = *bufp;
	size_t len = 0;

	for (;;) {
		ssize_t got;

		if (len == cap) {
			/* it grew since fstat(): still held to the cap */
			char *nbuf;

			if (cap >= IOQOS__FILE_MAX)
				return -EFBIG;
			nbuf = realloc(buf, cap * 2);
			if (nbuf == NULL)
				return -ENOMEM;
			*bufp = buf = nbuf;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		len += (size_t)got;
	}
	*lenp = len;
	return 0;
}

/*
 * The whole of config file @file, in a malloc'd buffer.  Only a regular
 * file is read: the open of a FIFO waits for a writer (for ever, where
 * nobody writes), and the reads of /dev/zero never end (256 MiB read for
 * nothing before the cap stopped them).  So the path is stat()ed first and
 * a device is never opened (an open may rewind a tape); the open is
 * O_NONBLOCK should a FIFO have taken the file's place since, and fstat()
 * of what was opened decides.  A regular file is refused on its size
 * before a byte is read.  0, or -errno with the reason in @err.
 */
static int read_file(const char *file, char **bufp, size_t *lenp,
		     char *err, size_t errlen)
{
	char qf[IOQOS__QUOTE_BUF];
	struct stat st;
	char *buf = NULL;
	size_t cap;
	int fd, ret;

	if (file == NULL) {
		ioqos__errf(err, errlen, "missing config file name");
		return -EINVAL;
	}
	ioqos__quote_str(qf, file);
	if (stat(file, &st) == 0 && !S_ISREG(st.st_mode))
		goto irregular;
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		goto irregular;
	}
	if ((uint64_t)st.st_size >= IOQOS__FILE_MAX) {
		close(fd);
		ret = -EFBIG;
		goto fail;
	}
	/* its size now, and a byte more to see the end in one read */
	cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	ret = buf != NULL ? read_rest(fd, &buf, cap, lenp) : -ENOMEM;
	close(fd);
	if (ret < 0)
		goto fail;
	*bufp = buf;
	return 0;

irregular:
	ioqos__errf(err, errlen, "%s: not a regular file (%s)", qf,
		    file_kind(st.st_mode));
	return -EINVAL;
fail:
	free(buf);
	if (ret == -EFBIG)
		ioqos__errf(err, errlen, "%s: larger than a config may be (%zu MiB)",
			    qf, IOQOS__FILE_MAX >> 20);
	else
		ioqos__errf(err, errlen, "%s: cannot read: %s", qf, strerror(-ret));
	return ret;
}

static int load_file(struct ioqos *q, const char *file, uint64_t now_ns, bool replace,
		     ioqos_unnamed_fn *unnamed, void *arg, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int ret = read_file(file, &buf, &len, err, errlen);

	if (ret < 0)
		return ret;
	ret = load_buf(q, file, buf, len, now_ns, replace, unnamed, arg, err, errlen);
	free(buf);
	return ret;
}

int ioqos_conf_load(const char *file, struct ioqos_conf **out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (out != NULL)
		*out = NULL;
	ret = read_file(file, &buf, &len, err, errlen);
	if (ret < 0)
		return ret;
	ret = ioqos_conf_parse(file, buf, len, out, err, errlen);
	free(buf);
	return ret;
}

int ioqos_load(struct ioqos *q, const char *file, uint64_t now_ns,
	       char *err, size_t errlen)
{
	return load_file(q, file, now_ns, false, NULL, NULL, err, errlen);
}

int ioqos_load_replace(struct ioqos *q, const char *file, uint64_t now_ns,
		       ioqos_unnamed_fn *unnamed, void *arg, char *err, size_t errlen)
{
	return load_file(q, file, now_ns, true, unnamed, arg, err, errlen);
}
