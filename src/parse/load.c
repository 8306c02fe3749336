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

/* read all of @fd into a malloc'd buffer; 0 or -errno */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	struct stat st;
	char *buf;

	/* a regular file's size saves the reallocations (+1 to see EOF) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < IOQOS__FILE_MAX)
		cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (buf == NULL)
		return -ENOMEM;
	for (;;) {
		ssize_t got;

		if (len == cap) {
			char *nbuf;

			if (cap >= IOQOS__FILE_MAX) {
				free(buf);
				return -EFBIG;
			}
			nbuf = realloc(buf, cap * 2);
			if (nbuf == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

/* the whole of @file into a malloc'd *@bufp; 0 or -errno with a message */
static int read_file(const char *file, char **bufp, size_t *lenp, char *err,
		     size_t errlen)
{
	char qf[IOQOS__QUOTE_BUF];
	int fd, ret;

	if (file == NULL) {
		ioqos__errf(err, errlen, "missing config file name");
		return -EINVAL;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = read_all(fd, bufp, lenp);
		close(fd);
	}
	if (ret < 0)
		ioqos__errf(err, errlen, "%s: cannot read: %s",
			    ioqos__quote_str(qf, file), strerror(-ret));
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
