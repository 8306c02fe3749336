/* SPDX-License-Identifier: MIT */
/*
 * global=NAME in a config file, without touching the library's parser.
 *
 *	/tenant  rbps=30M riops=20k global=tenant   # a limit for every server
 *	/local   rbps=10M                           # this server's own
 *
 * The library rejects keys it does not know, so the module reads the
 * buffer first and makes three texts of it:
 *
 *	A: a copy with the global= settings blanked in place (so every line
 *	   and column the library reports is where the user wrote it).  Loaded
 *	   into a scratch controller, it checks the whole file with the
 *	   library's own parser and gives each global group's limits as the
 *	   library reads them (30M = 31457280) for this device.
 *	B: A with each limit of a global group rewritten as the local limit
 *	   in force (rbps=30M becomes rbps=15728640, the lease's; rbps=1 for a
 *	   group not yet global).  Loaded into the real controller, merging
 *	   (ioqos_cluster_load_buf()), it sets everything as the file says but
 *	   leaves those limits as they are, buckets and all; the module then
 *	   moves them with the leases (local.c).  B needs the front end's lock
 *	   (the ticks move the local limits under it).
 *	C: A with each limit of a global group rewritten as the joining one
 *	   (1, max where the file gives none), whatever the leases hold: the
 *	   replacing config that the library parses with no lock and puts in
 *	   force in steps (ioqos_cluster_conf_parse(), commit.c).  The groups
 *	   global already keep their limits in force at their step
 *	   (ioqos_conf_keep()), whatever the ticks between two steps set, so
 *	   C's values reach only the groups that join, as B's would.
 *
 *	file  /t rbps=30M global=t weight=200
 *	A     /t rbps=30M          weight=200
 *	B     /t rbps=15728640     weight=200      (the lease in force)
 *	C     /t rbps=1            weight=200      (rbps kept: the lease's stays)
 *
 * So a reload of the same file never puts a global limit back into force
 * locally, even for an instant.  All-or-nothing as the library is: the
 * real controller is touched only after A parsed and every global group
 * checked out.  A global group must have at least one of rbps, wbps,
 * riops, wiops and no low limits (its local maximum moves with the lease;
 * a low above it would be refused), and a bucket is drawn on by one group
 * per instance.  Each group of the file is found by its path in a map
 * (map.c), so the passes cost a constant per line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const dim_key[IOQOS_CL_DIMS] = { "rbps", "wbps", "riops", "wiops" };

/* a token of a line: [start, start + len) in the buffer */
struct tok {
	size_t start, len;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* the settings part of the line at @pos (up to '#', '\r' or '\n'), tokenised */
static size_t line_tokens(const char *buf, size_t len, size_t *pos, struct tok *t,
			  size_t max)
{
	const char *l = buf + *pos;
	const char *nl = memchr(l, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - l) : len - *pos, k = 0, i = 0;
	const char *hash;

	*pos += n + (nl != NULL);
	if (n > 0 && l[n - 1] == '\r')
		n--;
	hash = memchr(l, '#', n);
	if (hash)
		n = (size_t)(hash - l);
	while (i < n && k < max) {
		while (i < n && blank(l[i]))
			i++;
		if (i == n)
			break;
		t[k].start = (size_t)(l - buf) + i;
		while (i < n && !blank(l[i]))
			i++;
		t[k].len = (size_t)(l - buf) + i - t[k].start;
		k++;
	}
	return k;
}

static bool tok_key(const char *buf, const struct tok *t, const char *key)
{
	size_t n = strlen(key);

	return t->len > n && memcmp(buf + t->start, key, n) == 0 && buf[t->start + n] == '=';
}

/* printable, for a message: at most 64 bytes, others as \xNN */
static const char *quote(char *dst, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && i < 64; i++) {
		unsigned char c = (unsigned char)s[i];

		o += (size_t)sprintf(dst + o, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
	}
	if (n > 64)
		o += (size_t)sprintf(dst + o, "...");
	dst[o] = '\0';
	return dst;
}

/* the spec of the group whose path is token @t of @buf, or NULL */
static struct cl_spec *spec_of(const struct cl_conf *c, const char *buf,
			       const struct tok *t)
{
	char path[IOQOS_PATH_MAX + 1];

	if (t->len >= sizeof(path))
		return NULL;
	memcpy(path, buf + t->start, t->len);
	path[t->len] = '\0';
	return ioqos__cl_map_get((struct cl_map *)&c->by_path, path);
}

/* how many global= the buffer holds at most: room for every spec at once,
 * so that the map may point into the array */
static size_t count_globals(const char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = buf; (p = memmem(p, len - (size_t)(p - buf), "global=", 7)); p += 7)
		n++;
	return n;
}

/* pass 1: every global= into c->spec, blanked in c->a; 0 or -errno with a
 * reason */
static int find_globals(struct cl_conf *c, char *err, size_t errlen)
{
	struct tok t[512];
	size_t pos = 0, max = count_globals(c->a, c->len);
	unsigned long lineno = 0;
	char q[300], qp[300];

	c->spec = calloc(max ? max : 1, sizeof(*c->spec));
	if (!c->spec || ioqos__cl_map_reserve(&c->by_path, (uint32_t)max) < 0)
		goto oom;
	while (pos < c->len) {
		size_t k = line_tokens(c->a, c->len, &pos, t, sizeof(t) / sizeof(t[0]));

		lineno++;
		for (size_t i = 1; i < k; i++) {
			const char *v = c->a + t[i].start + 7;
			size_t vn = t[i].len - 7;
			struct cl_spec *g;

			if (!tok_key(c->a, &t[i], "global"))
				continue;
			if (!ioqos__cl_name_ok(v, vn)) {
				snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' "
					 "(a bucket name: 1 to %d letters, digits and ._:-)",
					 c->name, lineno, quote(q, v, vn), IOQOS_CL_NAME_MAX);
				return -EINVAL;
			}
			g = spec_of(c, c->a, &t[0]);
			if (g && (strlen(g->name) != vn || memcmp(g->name, v, vn) != 0)) {
				snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' "
					 "(line %lu gives %s global=%s)", c->name, lineno,
					 quote(q, v, vn), g->line,
					 quote(qp, g->path, strlen(g->path)), g->name);
				return -EINVAL;
			}
			if (!g) {
				g = &c->spec[c->n];
				g->path = strndup(c->a + t[0].start, t[0].len);
				if (!g->path || ioqos__cl_map_put(&c->by_path, g->path, g) < 0)
					goto oom;
				memcpy(g->name, v, vn);
				g->name[vn] = '\0';
				g->line = lineno;
				c->n++;
			}
			memset(c->a + t[i].start, ' ', t[i].len);
		}
	}
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", c->name);
	return -ENOMEM;
}

int ioqos__cl_limits_of(struct ioqos *q, const char *path, uint64_t lim[IOQOS_CL_DIMS],
			struct ioqos_limits *L)
{
	int id = ioqos_group_find(q, path);

	for (int d = 0; d < IOQOS_CL_DIMS; d++)
		lim[d] = IOQOS_UNLIMITED;
	if (id < 0)
		return id;
	if (ioqos_limits_get(q, (uint32_t)id, L) < 0)
		return -ENOENT;
	lim[IOQOS_CL_RBPS] = L->bps[IOQOS_READ];
	lim[IOQOS_CL_WBPS] = L->bps[IOQOS_WRITE];
	lim[IOQOS_CL_RIOPS] = L->iops[IOQOS_READ];
	lim[IOQOS_CL_WIOPS] = L->iops[IOQOS_WRITE];
	return id;
}

/* pass 2: the global limits of each group, from the scratch controller */
static int check_globals(struct cl_conf *c, struct ioqos *sq, char *err,
			 size_t errlen)
{
	struct cl_map names = { 0 };
	char qp[300];
	int ret = 0;

	if (ioqos__cl_map_reserve(&names, (uint32_t)c->n) < 0)
		goto oom;
	for (size_t i = 0; i < c->n && !ret; i++) {
		struct cl_spec *g = &c->spec[i];
		const struct cl_spec *first;
		struct ioqos_limits L;
		bool any = false, low = false;

		if (ioqos__cl_limits_of(sq, g->path, g->limit, &L) < 0) {
			snprintf(err, errlen, "%s:%lu: group '%s': not found", c->name, g->line,
				 quote(qp, g->path, strlen(g->path)));
			ret = -EINVAL;
			break;
		}
		for (int d = 0; d < IOQOS_CL_DIMS; d++)
			any = any || g->limit[d] != IOQOS_UNLIMITED;
		for (int dir = 0; dir < 2; dir++)
			low = low || L.bps_low[dir] || L.iops_low[dir];
		if (!any || low) {
			snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' (%s)", c->name,
				 g->line, g->name, !any ?
				 "the group has no rbps, wbps, riops or wiops to share" :
				 "a global group cannot have low limits: its local maximum moves");
			ret = -EINVAL;
		} else if ((first = ioqos__cl_map_get(&names, g->name)) != NULL) {
			snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' "
				 "(line %lu gives it to %s already)", c->name, g->line, g->name,
				 first->line, quote(qp, first->path, strlen(first->path)));
			ret = -EINVAL;
		} else if (ioqos__cl_map_put(&names, g->name, g) < 0) {
			goto oom;
		}
	}
	ioqos__cl_map_free(&names);
	return ret;
oom:
	ioqos__cl_map_free(&names);
	snprintf(err, errlen, "%s: out of memory", c->name);
	return -ENOMEM;
}

/* append @n bytes to a growing buffer (kept NUL-terminated); false when out of memory */
static bool put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 4096;
		char *p;

		while (c < *len + n + 1)
			c *= 2;
		p = realloc(*buf, c);
		if (!p)
			return false;
		*buf = p;
		*cap = c;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return true;
}

/*
 * B (@cl given) or C (@cl NULL) of @c: A with every limit of a global
 * group written as the local limit in force for it (B), or as the joining
 * one (C): 1, or max where the file gives no global limit; B has the
 * joining one too for a group not yet global.  A NULL return is out of
 * memory.  For B the caller holds the front end's lock, which keeps the
 * local limits as they are (cl->lock is not needed: only the tick, under
 * that lock too, changes them).
 */
char *ioqos__cl_conf_text(struct ioqos_cluster *cl, const struct cl_conf *c, size_t *len)
{
	const char *a = c->a;
	struct tok t[512];
	char *b = NULL;
	size_t n = 0, cap = 0, pos = 0, from = 0;
	bool ok = true;

	while (ok && pos < c->len) {
		size_t k = line_tokens(a, c->len, &pos, t, sizeof(t) / sizeof(t[0]));
		const struct cl_spec *g = k ? spec_of(c, a, &t[0]) : NULL;
		const struct cl_group *cg = g && cl ? ioqos__cl_peek(cl, g->path) : NULL;

		for (size_t i = 1; g && ok && i < k; i++) {
			for (int d = 0; d < IOQOS_CL_DIMS; d++) {
				uint64_t v = cg && cg->applied[d] ? cg->applied[d] : 1;
				char w[48];

				if (!tok_key(a, &t[i], dim_key[d]))
					continue;
				if (g->limit[d] == IOQOS_UNLIMITED || v == IOQOS_UNLIMITED)
					snprintf(w, sizeof(w), "%s=max", dim_key[d]);
				else
					snprintf(w, sizeof(w), "%s=%" PRIu64, dim_key[d], v);
				ok = put(&b, &n, &cap, a + from, t[i].start - from) &&
				     put(&b, &n, &cap, w, strlen(w));
				from = t[i].start + t[i].len;
			}
		}
	}
	ok = ok && put(&b, &n, &cap, a + from, c->len - from);
	if (!ok) {
		free(b);
		return NULL;
	}
	*len = n;
	return b;
}

int ioqos__cl_conf_read(struct cl_conf *c, struct ioqos *sq, const char *buf,
			size_t len, char *err, size_t errlen)
{
	int ret;

	c->a = malloc(len + 1);
	if (!c->a) {
		snprintf(err, errlen, "%s: out of memory", c->name);
		return -ENOMEM;
	}
	memcpy(c->a, buf, len);
	c->a[len] = '\0';
	c->len = len;
	ret = find_globals(c, err, errlen);
	if (ret == 0)
		ret = ioqos_load_buf(sq, c->name, c->a, len, 0, err, errlen);
	if (ret == 0)
		ret = check_globals(c, sq, err, errlen);
	return ret;
}

void ioqos__cl_conf_free(struct cl_conf *c)
{
	while (c) {
		struct cl_conf *older = c->older;

		for (size_t i = 0; i < c->n; i++)
			free(c->spec[i].path);
		free(c->spec);
		ioqos__cl_map_free(&c->by_path);
		for (size_t i = 0; i < c->n_add; i++)
			ioqos__cl_group_free(c->add[i]);
		free(c->add);
		for (size_t i = 0; i < c->n_gone; i++)
			free(c->gone[i].path);
		free(c->gone);
		for (size_t i = 0; i < c->n_dead; i++)
			ioqos__cl_group_free(c->dead[i]);
		free(c->dead);
		free(c->a);
		free(c->name);
		free(c);
		c = older;
	}
}
