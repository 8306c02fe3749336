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
 * and checks every line first, keeping the (path, conf) pairs in a
 * temporary array, and only then creates all the groups and applies the
 * confs in file order.  The one failure left after the checks is running
 * out of memory while creating groups: then nothing is applied, though
 * groups created up to that point remain (with default settings).
 *
 * A replacing load (ioqos_load_replace) is the whole truth: its confs are
 * checked alone, not merged with the settings in force, and applied in
 * their place; every group the file does not name gets the defaults and is
 * reported to the caller, who may remove it.
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

#include "pathhash.h"
#include "settings_int.h"


/* a config file larger than this is refused rather than read */
#define IOQOS__FILE_MAX ((size_t)256 << 20)

/* ---- config files -------------------------------------------------------- */

/* one group line of a config, parsed and checked, waiting to be applied */
struct entry {
	char *path;              /* malloc'd, checked */
	unsigned long line;      /* 1-based line number */
	int id;                  /* group id, once created */
	struct ioqos__conf c;
};

/* the entries of a load, with an index on path to find repeats */
struct load {
	struct entry *e;
	size_t n, cap;
	uint32_t *slot;          /* open addressing: entry index + 1, 0 = empty */
	size_t nslot;            /* a power of 2, at least twice n */
};

/* the slot holding @path, or the empty slot where it would go */
static uint32_t *load_slot(struct load *L, const char *path)
{
	size_t i = (size_t)ioqos__path_hash(path, strlen(path)) & (L->nslot - 1);

	while (L->slot[i] != 0 &&
	       strcmp(L->e[L->slot[i] - 1].path, path) != 0)
		i = (i + 1) & (L->nslot - 1);
	return &L->slot[i];
}

/* make room for one more entry; 0 or -ENOMEM */
static int load_grow(struct load *L)
{
	if (L->n == L->cap) {
		size_t cap = L->cap != 0 ? L->cap * 2 : 16;
		struct entry *e = realloc(L->e, cap * sizeof(*e));

		if (e == NULL)
			return -ENOMEM;
		L->e = e;
		L->cap = cap;
	}
	if (2 * (L->n + 1) > L->nslot) {
		size_t nslot = L->nslot != 0 ? L->nslot * 2 : 32;
		uint32_t *old = L->slot;
		size_t i;

		if (L->n + 1 >= UINT32_MAX)
			return -ENOMEM;
		L->slot = calloc(nslot, sizeof(*L->slot));
		if (L->slot == NULL) {
			L->slot = old;
			return -ENOMEM;
		}
		L->nslot = nslot;
		for (i = 0; i < L->n; i++)
			*load_slot(L, L->e[i].path) = (uint32_t)(i + 1);
		free(old);
	}
	return 0;
}

static void load_free(struct load *L)
{
	size_t i;

	for (i = 0; i < L->n; i++)
		free(L->e[i].path);
	free(L->e);
	free(L->slot);
}

/*
 * Parse and check one line (comment and line ending already cut off,
 * NUL-terminated in @line, which may be modified).  A group line is added
 * to @L.  0 or -errno with a message prefixed by @where.
 */
static int load_line(struct ioqos *q, struct load *L, char *line,
		     unsigned long lineno, bool replace, const char *where,
		     char *err, size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF];
	char *p = line, *path, *settings;
	struct entry *e;
	uint32_t *slot;
	int ret;

	while (is_blank(*p))
		p++;
	if (*p == '\0')
		return 0;
	path = p;
	while (*p != '\0' && !is_blank(*p))
		p++;
	settings = p;
	if (*p != '\0') {
		*p = '\0';
		settings = p + 1;
	}

	ret = ioqos__path_check(path, where, err, errlen);
	if (ret < 0)
		return ret;
	if (load_grow(L) < 0)
		goto nomem;
	slot = load_slot(L, path);
	if (*slot != 0) {
		ioqos__errf(err, errlen,
			    "%sgroup '%s' is already configured on line %lu",
			    where, ioqos__quote_str(qp, path), L->e[*slot - 1].line);
		return -EINVAL;
	}
	e = &L->e[L->n];
	ret = ioqos__conf_parse(settings, strcmp(path, "/") == 0, &e->c,
				where, err, errlen);
	if (ret < 0)
		return ret;
	ret = ioqos__conf_check(q, path, &e->c, replace, where, err, errlen);
	if (ret < 0)
		return ret;
	e->path = strdup(path);
	if (e->path == NULL)
		goto nomem;
	e->line = lineno;
	e->id = -1;
	L->n++;
	*slot = (uint32_t)L->n;
	return 0;

nomem:
	ioqos__errf(err, errlen, "%s%s", where, ioqos_strerror(-ENOMEM));
	return -ENOMEM;
}

/* pass 2 of a replacing load: the file's confs in place of the groups' */
static int load_replace(struct ioqos *q, struct load *L, uint64_t now_ns,
			ioqos_unnamed_fn *unnamed, void *arg)
{
	uint32_t *ids = malloc((L->n + 1) * sizeof(*ids));
	const struct ioqos__conf **confs = malloc((L->n + 1) * sizeof(*confs));
	size_t i;
	int ret = -ENOMEM;

	if (ids && confs) {
		for (i = 0; i < L->n; i++) {
			ids[i] = (uint32_t)L->e[i].id;
			confs[i] = &L->e[i].c;
		}
		ret = ioqos__conf_replace_all(q, ids, confs, L->n, now_ns, unnamed, arg);
	}
	free(ids);
	free(confs);
	return ret;
}

static int load_buf(struct ioqos *q, const char *name, const char *buf,
		    size_t len, uint64_t now_ns, bool replace,
		    ioqos_unnamed_fn *unnamed, void *arg, char *err, size_t errlen)
{
	char qn[IOQOS__QUOTE_BUF];
	char where[IOQOS__QUOTE_BUF + 32];
	char *line, *cg = NULL;
	struct load L = { 0 };
	unsigned long lineno = 0;
	size_t pos = 0, i, cglen;
	int ret = 0;

	ioqos__quote_str(qn, name != NULL ? name : "config");
	if (q == NULL || (buf == NULL && len > 0)) {
		ioqos__errf(err, errlen, "%s: no controller or no buffer", qn);
		return -EINVAL;
	}
	line = malloc(IOQOS__LINE_MAX + 1);
	if (line == NULL) {
		ioqos__errf(err, errlen, "%s: %s", qn, ioqos_strerror(-ENOMEM));
		return -ENOMEM;
	}
	/* lines pasted from cgroup's io.max and io.weight, in our syntax */
	ret = ioqos__cgroup_translate(qn, buf, len, &cg, &cglen, err, errlen);
	if (ret < 0)
		goto out;
	if (cg != NULL) {
		buf = cg;
		len = cglen;
	}

	/* pass 1: parse and check every line, change nothing */
	while (pos < len) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - l) : len - pos;
		const char *hash;

		pos += n + (nl != NULL);
		lineno++;
		snprintf(where, sizeof(where), "%s:%lu: ", qn, lineno);
		if (n > 0 && l[n - 1] == '\r')
			n--;
		if (memchr(l, '\0', n) != NULL) {
			ioqos__errf(err, errlen, "%sNUL byte in the line", where);
			ret = -EINVAL;
			goto out;
		}
		if (n > IOQOS__LINE_MAX) {
			ioqos__errf(err, errlen,
				    "%sline too long (%zu bytes, at most %d)",
				    where, n, IOQOS__LINE_MAX);
			ret = -EINVAL;
			goto out;
		}
		hash = memchr(l, '#', n);
		if (hash != NULL)
			n = (size_t)(hash - l);
		memcpy(line, l, n);
		line[n] = '\0';
		ret = load_line(q, &L, line, lineno, replace, where, err, errlen);
		if (ret < 0)
			goto out;
	}

	/* pass 2: create every group, then apply in file order */
	for (i = 0; i < L.n; i++) {
		L.e[i].id = ioqos_group(q, L.e[i].path);
		if (L.e[i].id < 0) {
			ret = L.e[i].id;
			ioqos__errf(err, errlen,
				    "%s:%lu: group '%s': cannot create the group: %s",
				    qn, L.e[i].line, L.e[i].path,
				    ioqos_strerror(ret));
			goto out;
		}
	}
	for (i = 0; i < L.n; i++) {
		ret = ioqos__conf_prepare(q, (uint32_t)L.e[i].id, &L.e[i].c);
		if (ret < 0) {
			ioqos__errf(err, errlen, "%s:%lu: group '%s': %s", qn, L.e[i].line,
				    L.e[i].path, ioqos_strerror(ret));
			goto out;
		}
	}
	if (replace) {
		ret = load_replace(q, &L, now_ns, unnamed, arg);
		if (ret < 0)
			ioqos__errf(err, errlen, "%s: %s", qn, ioqos_strerror(ret));
		goto out;
	}
	for (i = 0; i < L.n; i++)
		ioqos__conf_apply(q, (uint32_t)L.e[i].id, &L.e[i].c, now_ns);
	ioqos__conf_done(q, now_ns);
	ret = 0;
out:
	load_free(&L);
	free(line);
	free(cg);
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
	int ret;

	if (file == NULL) {
		ioqos__errf(err, errlen, "missing config file name");
		return -EINVAL;
	}
	ret = read_file(file, &buf, &len, err, errlen);
	if (ret < 0)
		return ret;
	ret = load_buf(q, file, buf, len, now_ns, replace, unnamed, arg, err, errlen);
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
