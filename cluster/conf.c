/* SPDX-License-Identifier: MIT */
/*
 * global=NAME in a config file, without touching the library's parser.
 *
 *	/tenant  rbps=30M riops=20k global=tenant   # a limit for every server
 *	/local   rbps=10M                           # this server's own
 *
 * The library rejects keys it does not know, so the module reads the
 * buffer first and makes two texts of it:
 *
 *	A: a copy with the global= settings blanked in place (so every line
 *	   and column the library reports is where the user wrote it).  Loaded
 *	   into a scratch controller, it checks the whole file with the
 *	   library's own parser and gives each global group's limits as the
 *	   library reads them (30M = 31457280) for this device.
 *	B: A with each limit of a global group rewritten as the local limit
 *	   in force (rbps=30M becomes rbps=15728640, the lease's; rbps=1 for a
 *	   group not yet global).  Loaded into the real controller, merging or
 *	   replacing (ioqos_cluster_load_buf_replace(): the file is the whole
 *	   truth), it sets everything as the file says but leaves those limits
 *	   as they are, buckets and all; the module then moves them with the
 *	   leases (cluster.c).
 *
 * So a reload of the same file never puts a global limit back into force
 * locally, even for an instant.  All-or-nothing as the library is: the
 * real controller is touched only after A parsed, every global group
 * checked out, and B loaded.  A global group must have at least one of
 * rbps, wbps, riops, wiops and no low limits (its local maximum moves
 * with the lease; a low above it would be refused), and a bucket is drawn
 * on by one group per instance.  A group that leaves the file, or loses
 * its global=, is handed back: of its four limits, those the file names
 * (for this device, as the scratch controller read them) are the file's,
 * the others unlimited.  A replacing load does that itself; after a
 * merging one the module does it (a lease's local limit must not linger,
 * though a merge keeps the values of keys a file no longer names).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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

static bool tok_is(const char *buf, const struct tok *t, const char *s)
{
	return t->len == strlen(s) && memcmp(buf + t->start, s, t->len) == 0;
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

static const struct gline *gline_find(const struct gline *gl, size_t n, const char *buf,
				      const struct tok *path)
{
	for (size_t i = 0; i < n; i++)
		if (tok_is(buf, path, gl[i].path))
			return &gl[i];
	return NULL;
}

static void glines_free(struct gline *gl, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(gl[i].path);
	free(gl);
}

/* pass 1: every global=, blanked in a; 0 or -errno with a reason */
static int find_globals(const char *name, char *a, size_t len,
			struct gline **out, size_t *nout, char *err, size_t errlen)
{
	struct tok t[512];
	struct gline *gl = NULL;
	size_t ng = 0, cap = 0, pos = 0;
	unsigned long lineno = 0;
	char q[300], qp[300];

	while (pos < len) {
		size_t k = line_tokens(a, len, &pos, t, sizeof(t) / sizeof(t[0]));

		lineno++;
		for (size_t i = 1; i < k; i++) {
			const char *v = a + t[i].start + 7;
			size_t vn = t[i].len - 7;
			const struct gline *seen;
			struct gline *g;

			if (!tok_key(a, &t[i], "global"))
				continue;
			if (!ioqos__cl_name_ok(v, vn)) {
				snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' "
					 "(a bucket name: 1 to %d letters, digits and ._:-)",
					 name, lineno, quote(q, v, vn), IOQOS_CL_NAME_MAX);
				goto fail;
			}
			seen = gline_find(gl, ng, a, &t[0]);
			if (seen && (strlen(seen->name) != vn || memcmp(seen->name, v, vn) != 0)) {
				snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' "
					 "(line %lu gives %s global=%s)", name, lineno,
					 quote(q, v, vn), seen->line,
					 quote(qp, seen->path, strlen(seen->path)), seen->name);
				goto fail;
			}
			if (!seen) {
				if (ng == cap) {
					cap = cap ? 2 * cap : 8;
					g = realloc(gl, cap * sizeof(*gl));
					if (!g)
						goto oom;
					gl = g;
				}
				g = &gl[ng];
				g->path = strndup(a + t[0].start, t[0].len);
				if (!g->path)
					goto oom;
				memcpy(g->name, v, vn);
				g->name[vn] = '\0';
				g->line = lineno;
				ng++;
			}
			memset(a + t[i].start, ' ', t[i].len);
		}
	}
	*out = gl;
	*nout = ng;
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", name);
fail:
	glines_free(gl, ng);
	return -EINVAL;
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
 * pass 2: b, what the real controller loads: a with every limit of a
 * global group written as the local limit in force for it (1, the
 * joining one, for a group not yet global; max where the file gives no
 * global limit), so that loading b, as a merge or as a replacement,
 * leaves those limits as they are and their buckets' tokens with them.
 * The module then moves them to the leases' (cluster.c).  A NULL return
 * is out of memory.  cl->lock held.
 */
static char *make_b(struct ioqos_cluster *cl, const char *a, size_t len,
		    const struct gline *gl, size_t ng,
		    const uint64_t (*lim)[IOQOS_CL_DIMS], size_t *blen)
{
	static const char *const keys[] = { "rbps", "wbps", "riops", "wiops" };
	struct tok t[512];
	char *b = NULL;
	size_t n = 0, cap = 0, pos = 0, from = 0;
	bool ok = true;

	while (ok && pos < len) {
		size_t k = line_tokens(a, len, &pos, t, sizeof(t) / sizeof(t[0]));
		const struct gline *g = k ? gline_find(gl, ng, a, &t[0]) : NULL;
		const struct cl_group *cg = g ? ioqos__cl_find(cl, g->path) : NULL;

		for (size_t i = 1; g && ok && i < k; i++) {
			for (int d = 0; d < IOQOS_CL_DIMS; d++) {
				uint64_t v = cg && cg->applied[d] ? cg->applied[d] : 1;
				char w[48];

				if (!tok_key(a, &t[i], keys[d]))
					continue;
				if (lim[g - gl][d] == IOQOS_UNLIMITED || v == IOQOS_UNLIMITED)
					snprintf(w, sizeof(w), "%s=max", keys[d]);
				else
					snprintf(w, sizeof(w), "%s=%" PRIu64, keys[d], v);
				ok = put(&b, &n, &cap, a + from, t[i].start - from) &&
				     put(&b, &n, &cap, w, strlen(w));
				from = t[i].start + t[i].len;
			}
		}
	}
	ok = ok && put(&b, &n, &cap, a + from, len - from);
	if (!ok) {
		free(b);
		return NULL;
	}
	*blen = n;
	return b;
}

/* group @path's four limits in @q (unlimited where it has none, or if
 * there is no such group); the group's id, or -errno */
static int limits_of(struct ioqos *q, const char *path, uint64_t lim[IOQOS_CL_DIMS],
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

/*
 * @g is no longer global, after a merging load: of its limits, those the
 * file gives it are in force (the real controller loaded them), the others
 * become unlimited.  (A replacing load has done that already.)
 * The file's own are what the scratch controller @sq read, which knows
 * which lines are for this device.
 */
static void hand_back(struct ioqos_cluster *cl, struct cl_group *g, struct ioqos *sq,
		      uint64_t now)
{
	static const char *const keys[] = { "rbps", "wbps", "riops", "wiops" };
	uint64_t file[IOQOS_CL_DIMS];
	struct ioqos_limits L;
	char set[64];
	size_t n = 0;

	limits_of(sq, g->path, file, &L);
	for (int d = 0; d < IOQOS_CL_DIMS; d++)
		if (g->applied[d] != IOQOS_UNLIMITED && file[d] == IOQOS_UNLIMITED)
			n += (size_t)snprintf(set + n, sizeof(set) - n, "%s=max ", keys[d]);
	if (n)
		ioqos_set(cl->q, g->path, set, now, NULL, 0);
}

/* the global limits of each group, from the scratch controller */
static int check_globals(struct ioqos *sq, const char *name, struct gline *gl,
			 size_t ng, uint64_t (*lim)[IOQOS_CL_DIMS], char *err,
			 size_t errlen)
{
	char qp[300];

	for (size_t i = 0; i < ng; i++) {
		struct ioqos_limits L;
		bool any = false, low = false;

		if (limits_of(sq, gl[i].path, lim[i], &L) < 0) {
			snprintf(err, errlen, "%s:%lu: group '%s': not found", name, gl[i].line,
				 quote(qp, gl[i].path, strlen(gl[i].path)));
			return -EINVAL;
		}
		for (int d = 0; d < IOQOS_CL_DIMS; d++)
			any = any || lim[i][d] != IOQOS_UNLIMITED;
		for (int dir = 0; dir < 2; dir++)
			low = low || L.bps_low[dir] || L.iops_low[dir];
		if (!any || low) {
			snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' (%s)", name,
				 gl[i].line, gl[i].name, !any ?
				 "the group has no rbps, wbps, riops or wiops to share" :
				 "a global group cannot have low limits: its local maximum moves");
			return -EINVAL;
		}
		for (size_t k = 0; k < i; k++) {
			if (strcmp(gl[k].name, gl[i].name) == 0) {
				snprintf(err, errlen, "%s:%lu: key 'global': bad value '%s' "
					 "(line %lu gives it to %s already)", name, gl[i].line,
					 gl[i].name, gl[k].line,
					 quote(qp, gl[k].path, strlen(gl[k].path)));
				return -EINVAL;
			}
		}
	}
	return 0;
}

void ioqos__cl_text_free(struct cl_text *t)
{
	glines_free(t->gl, t->ng);
	free(t->lim);
	free(t->keep);
	ioqos_free(t->sq);
	free(t->b);
	memset(t, 0, sizeof(*t));
}

int ioqos__cl_text(struct ioqos_cluster *cl, const char *name, const char *buf, size_t len,
		   uint64_t now_ns, struct cl_text *t, char *err, size_t errlen)
{
	char *a = malloc(len + 1);
	int ret = -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (!a)
		goto oom;
	memcpy(a, buf, len);
	a[len] = '\0';
	ret = find_globals(name, a, len, &t->gl, &t->ng, err, errlen);
	if (ret < 0)
		goto out;
	t->lim = calloc(t->ng ? t->ng : 1, sizeof(*t->lim));
	t->keep = calloc(t->ng ? t->ng : 1, sizeof(*t->keep));
	t->sq = ioqos_new();
	ret = -ENOMEM;
	if (!t->lim || !t->keep || !t->sq)
		goto oom;
	ret = ioqos_load_buf(t->sq, name, a, len, now_ns, err, errlen);
	if (ret < 0)
		goto out;
	ret = check_globals(t->sq, name, t->gl, t->ng, t->lim, err, errlen);
	if (ret < 0)
		goto out;
	pthread_mutex_lock(&cl->lock);
	t->b = make_b(cl, a, len, t->gl, t->ng, (const uint64_t (*)[IOQOS_CL_DIMS])t->lim,
		      &t->blen);
	/* where b has the local limit in force, a lease's: it stays as it is
	 * when b is applied in steps, whatever the ticks between them set */
	for (size_t i = 0; i < t->ng; i++) {
		const struct cl_group *cg = ioqos__cl_find(cl, t->gl[i].path);

		for (int d = 0; cg && d < IOQOS_CL_DIMS; d++)
			if (t->lim[i][d] != IOQOS_UNLIMITED && cg->applied[d] &&
			    cg->applied[d] != IOQOS_UNLIMITED)
				t->keep[i] |= (uint8_t)(1u << d);
	}
	pthread_mutex_unlock(&cl->lock);
	ret = -ENOMEM;
	if (!t->b)
		goto oom;
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "%s: out of memory", name);
out:
	free(a);
	if (ret < 0)
		ioqos__cl_text_free(t);
	return ret;
}

/*
 * Before any group registers: a group this file no longer makes global
 * (@leaving) is handed back (after a merging load, @hand) and goes, and
 * one that moves to another bucket (@moved) lets go of its old one
 * (register takes the new), so that a bucket may move from one group to
 * another, or two groups swap theirs, in one load.
 */
void ioqos__cl_let_go(struct ioqos_cluster *cl, const struct cl_text *t, bool leaving,
		      bool moved, bool hand, uint64_t now_ns)
{
	pthread_mutex_lock(&cl->lock);
	for (uint32_t i = 0; i < cl->ng;) {
		struct cl_group *cg = &cl->g[i];
		const struct gline *g = NULL;

		for (size_t k = 0; k < t->ng && !g; k++)
			if (strcmp(t->gl[k].path, cg->path) == 0)
				g = &t->gl[k];
		if (g || !leaving) {
			if (g && moved && strcmp(g->name, cg->name) != 0)
				cg->name[0] = '\0';
			i++;
			continue;
		}
		if (hand)
			hand_back(cl, cg, t->sq, now_ns);
		free(cg->path);
		free(cg->key);
		*cg = cl->g[--cl->ng];
	}
	cl->st.groups = cl->ng;
	pthread_mutex_unlock(&cl->lock);
}

int ioqos__cl_register_all(struct ioqos_cluster *cl, const struct cl_text *t,
			   uint64_t now_ns, char *err, size_t errlen)
{
	int ret = 0;

	for (size_t i = 0; i < t->ng && ret == 0; i++)
		ret = ioqos_cluster_register(cl, t->gl[i].path, t->gl[i].name, t->lim[i],
					     now_ns, err, errlen);
	return ret;
}

int ioqos_cluster_load_buf(struct ioqos_cluster *cl, const char *name,
			   const char *buf, size_t len, uint64_t now_ns,
			   char *err, size_t errlen)
{
	struct cl_text t;
	int ret;

	if (!name)
		name = "config";
	ret = ioqos__cl_text(cl, name, buf, len, now_ns, &t, err, errlen);
	if (ret < 0)
		return ret;
	ret = ioqos_load_buf(cl->q, name, t.b, t.blen, now_ns, err, errlen);
	if (ret == 0) {
		ioqos__cl_let_go(cl, &t, true, true, true, now_ns);
		ret = ioqos__cl_register_all(cl, &t, now_ns, err, errlen);
	}
	ioqos__cl_text_free(&t);
	return ret;
}

int ioqos_cluster_load(struct ioqos_cluster *cl, const char *file, uint64_t now_ns,
		       char *err, size_t errlen)
{
	FILE *f = fopen(file, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return ret;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *p = cap < CL_FILE_MAX ? realloc(buf, cap ? 2 * cap : 8192) : NULL;

			if (!p) {
				snprintf(err, errlen, "%s: %s", file, cap < CL_FILE_MAX ?
					 "out of memory" : "too large");
				ret = cap < CL_FILE_MAX ? -ENOMEM : -EFBIG;
				goto out;
			}
			buf = p;
			cap = cap ? 2 * cap : 8192;
		}
		size_t got = fread(buf + len, 1, cap - len, f);

		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", file);
		ret = -EIO;
		goto out;
	}
	ret = ioqos_cluster_load_buf(cl, file, buf, len, now_ns, err, errlen);
out:
	fclose(f);
	free(buf);
	return ret;
}
