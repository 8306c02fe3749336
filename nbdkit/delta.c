/* SPDX-License-Identifier: MIT */
/*
 * A reload as a change: what the new config changes from the one in
 * force, as a short merging config that the controller loads under its
 * lock in place of the whole file.
 *
 * The problem.  A replacing load (ioqos_load_buf_replace()) parses and
 * checks every line, then applies every group, all on the controller, so
 * all under g.lock: with 100,000 groups that held every request of every
 * export for 70 ms, and for 190 ms on a busy machine, though a reload
 * usually changes a line or two.  The library has no call that applies a
 * config parsed beforehand.
 *
 * The idea.  A replacing load gives each group exactly the settings of its
 * line, and every group the file does not name the defaults.  So a group
 * whose line is the same, token for token, gets nothing new, and the rest
 * can be said to the controller as a merging load (ioqos_load_buf()) of
 * the lines that differ:
 *
 *   in force (old)          new                  the delta
 *   /      depth=32         /      depth=32
 *   /vm1   rbps=10M         /vm1   wbps=5M       /vm1 wbps=5M rbps=max
 *   /vm2   rbps_low=1M                           /vm2 rbps_low=0      (then gone)
 *                           /vm3   riops=1k      /vm3 riops=1k
 *
 * A key the old line gave and the new one does not goes back to its
 * default, written out: rbps=max, rbps_low=0, cost=hybrid.  Those
 * defaults are constants.  Others are not: burst=, the cost of an I/O
 * (rio_cost= and its kin, which follow cost=), depth= (with none written,
 * the settings decide: auto or max), weight= and prio= (a weight written,
 * even weight=100, is a setting that asks for sharing, and that decides
 * the depth), or a key this file does not know; a merge cannot take those
 * back, and then the whole file is loaded, replacing, as before
 * (d->whole).  So
 * is a config in cgroup's io.max and io.weight form, whose lines are not
 * one group each (a token without '=', or device=).
 *
 * A group the new file no longer names goes to group_unnamed() afterwards,
 * children first, as a replacing load passes it on; so does each of its
 * ancestors that the config made only as its ancestor and now names no
 * longer, nor is above a group it names.
 *
 * Checking.  The new file must be refused as a whole load would refuse it,
 * with the same file:line messages, before anything changes.  Its changed
 * lines are checked on a scratch controller, outside the lock, at their own
 * line numbers (the other lines left empty): the library's checks are of
 * one line each, except for a path given twice, which makes the file not
 * one group a line, so the whole file is checked.
 *
 * Known weaknesses: a reload that changes every line has a delta as long
 * as the file, and holds the lock for its parse as a whole load did.  A
 * key the library gains is safe (taking it away loads the whole file), but
 * belongs in the table below if its default is a constant.  Changed lines
 * are checked alone: a check across lines that the library may gain would
 * only be made where the whole file is loaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

/* a key of the old line that a merge can take back, and its default */
static const struct {
	const char *key, *dflt;
} resettable[] = {
	{ "rbps", "max" }, { "wbps", "max" }, { "riops", "max" }, { "wiops", "max" },
	{ "rbps_low", "0" }, { "wbps_low", "0" }, { "riops_low", "0" }, { "wiops_low", "0" },
	{ "cost", "hybrid" },
};

/* the library's blanks */
static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* the key of the setting @tok (@n bytes, with '='), prio= as weight=: into @key */
static void key_of(const char *tok, size_t n, char *key, size_t keylen)
{
	const char *eq = memchr(tok, '=', n);
	size_t k = (size_t)(eq - tok);

	if (k == 4 && memcmp(tok, "prio", 4) == 0)
		snprintf(key, keylen, "weight");
	else
		snprintf(key, keylen, "%.*s", (int)k, tok);
}

/* does the settings text @s give key @key (as key_of() names it)? */
static bool gives(const char *s, const char *key)
{
	while (*s) {
		size_t n = strcspn(s, " ");
		char k[64];

		key_of(s, n, k, sizeof(k));
		if (strcmp(k, key) == 0)
			return true;
		s += n + (s[n] == ' ');
	}
	return false;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct cline *)a)->path, ((const struct cline *)b)->path);
}

/* append @n bytes of @s to @text; false when out of memory */
static bool put(char **text, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = *cap ? *cap : 4096;

		while (want < *len + n + 1)
			want *= 2;
		char *p = realloc(*text, want);

		if (!p)
			return false;
		*text = p;
		*cap = want;
	}
	memcpy(*text + *len, s, n);
	*len += n;
	(*text)[*len] = '\0';
	return true;
}

int cset_build(const char *buf, size_t len, struct cset *s)
{
	size_t pos = 0, tlen = 0, tcap = 0, cap = 0;
	unsigned long lineno = 0;

	memset(s, 0, sizeof(*s));
	s->simple = true;
	while (pos < len) {
		const char *l = buf + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, i = 0, at;
		const char *hash;
		struct cline c = { .line = ++lineno, .start = pos, .len = n };

		pos += n + (nl != NULL);
		if (n > 0 && l[n - 1] == '\r')
			n--;
		if (memchr(l, '\0', n) || n > CONFIG_LINE_MAX)
			s->simple = false;         /* the library says why */
		if ((hash = memchr(l, '#', n)))
			n = (size_t)(hash - l);
		while (i < n && blank(l[i]))
			i++;
		if (i == n)
			continue;
		at = tlen;
		for (; i < n && !blank(l[i]); i++)
			if (!put(&s->text, &tlen, &tcap, l + i, 1))
				goto nomem;
		if (!put(&s->text, &tlen, &tcap, "", 1))   /* the path's NUL */
			goto nomem;
		c.path_at = at;
		c.settings_at = tlen;
		for (bool first = true; i < n; first = false) {
			size_t t;

			while (i < n && blank(l[i]))
				i++;
			for (t = i; t < n && !blank(l[t]); t++)
				;
			if (t == i)
				break;
			const char *eq = memchr(l + i, '=', t - i);

			if (!eq || eq == l + i || (eq - (l + i) == 6 && memcmp(l + i, "device", 6) == 0))
				s->simple = false;  /* cgroup's form, or an error */
			if ((!first && !put(&s->text, &tlen, &tcap, " ", 1)) ||
			    !put(&s->text, &tlen, &tcap, l + i, t - i))
				goto nomem;
			i = t;
		}
		if (!put(&s->text, &tlen, &tcap, "", 1))
			goto nomem;
		if (s->n == cap) {
			size_t want = cap ? cap * 2 : 64;
			struct cline *p = realloc(s->l, want * sizeof(*p));

			if (!p)
				goto nomem;
			s->l = p;
			cap = want;
		}
		s->l[s->n++] = c;
	}
	/* the text has moved as it grew: now the pointers */
	for (size_t k = 0; k < s->n; k++) {
		s->l[k].path = s->text + s->l[k].path_at;
		s->l[k].settings = s->text + s->l[k].settings_at;
	}
	if (s->n)
		qsort(s->l, s->n, sizeof(*s->l), cmp_line);
	for (size_t k = 1; k < s->n; k++)
		if (strcmp(s->l[k - 1].path, s->l[k].path) == 0)
			s->simple = false;         /* cgroup's form, or an error */
	return 0;
nomem:
	cset_free(s);
	return -1;
}

void cset_free(struct cset *s)
{
	free(s->text);
	free(s->l);
	memset(s, 0, sizeof(*s));
}

/* the line of @s for @path, or NULL */
static const struct cline *find(const struct cset *s, const char *path)
{
	struct cline key = { .path = path };

	return s->n ? bsearch(&key, s->l, s->n, sizeof(*s->l), cmp_line) : NULL;
}

/* does @s name a group below @path? */
static bool above_one(const struct cset *s, const char *path)
{
	size_t lo = 0, hi = s->n, n = strlen(path);

	if (strcmp(path, "/") == 0)
		return s->n > 0;
	/* the first path not below @path + "/" in strcmp order */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(s->l[mid].path, path, n);

		if (c < 0 || (c == 0 && (unsigned char)s->l[mid].path[n] < '/'))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && strncmp(s->l[lo].path, path, n) == 0 && s->l[lo].path[n] == '/';
}

/* the line of the delta for @path, from @o (NULL: not in force) to @n (NULL: gone) */
static bool delta_line(struct delta *d, const char *path, const struct cline *o,
		       const struct cline *n, size_t *cap)
{
	const char *s = o ? o->settings : "";
	size_t at = d->len;
	bool any = n != NULL;

	if (!put(&d->buf, &d->len, cap, path, strlen(path)))
		return false;
	if (n && n->settings[0] && (!put(&d->buf, &d->len, cap, " ", 1) ||
				    !put(&d->buf, &d->len, cap, n->settings, strlen(n->settings))))
		return false;
	while (*s) {
		size_t len = strcspn(s, " "), k;
		char key[64];

		key_of(s, len, key, sizeof(key));
		s += len + (s[len] == ' ');
		if (n && gives(n->settings, key))
			continue;
		for (k = 0; k < sizeof(resettable) / sizeof(resettable[0]); k++)
			if (strcmp(resettable[k].key, key) == 0)
				break;
		if (k == sizeof(resettable) / sizeof(resettable[0])) {
			d->whole = true;             /* no default a merge can give */
			return true;
		}
		if (!put(&d->buf, &d->len, cap, " ", 1) ||
		    !put(&d->buf, &d->len, cap, key, strlen(key)) ||
		    !put(&d->buf, &d->len, cap, "=", 1) ||
		    !put(&d->buf, &d->len, cap, resettable[k].dflt, strlen(resettable[k].dflt)))
			return false;
		any = true;
	}
	if (!any) {
		d->len = at;                         /* gone, with nothing to take back */
		if (d->buf)
			d->buf[at] = '\0';
		return true;
	}
	d->lines++;
	return put(&d->buf, &d->len, cap, "\n", 1);
}

/* @path and the ancestors the new config leaves without a reason to be, into d->gone */
static bool gone_add(struct delta *d, const struct cset *nw, const char *path, size_t *cap)
{
	char p[IOQOS_PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	while (strcmp(p, "/") != 0 && !find(nw, p) && !above_one(nw, p)) {
		if (d->n_gone == *cap) {
			size_t want = *cap ? *cap * 2 : 16;
			char **q = realloc(d->gone, want * sizeof(*q));

			if (!q)
				return false;
			d->gone = q;
			*cap = want;
		}
		if (!(d->gone[d->n_gone] = strdup(p)))
			return false;
		d->n_gone++;
		char *slash = strrchr(p, '/');

		if (slash == p)
			p[1] = '\0';                /* "/a": "/" */
		else
			*slash = '\0';
	}
	return true;
}

static int cmp_gone(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);   /* children first */
}

static int cmp_lineno(const void *a, const void *b)
{
	unsigned long x = (*(const struct cline *const *)a)->line;
	unsigned long y = (*(const struct cline *const *)b)->line;

	return (x > y) - (x < y);
}

/* the file with only the changed lines of @nw, each at its own line number */
static bool check_text(struct delta *d, const char *buf, const struct cline **changed,
		       size_t n_changed)
{
	size_t cap = 0;
	unsigned long cur = 1;

	qsort(changed, n_changed, sizeof(*changed), cmp_lineno);
	for (size_t k = 0; k < n_changed; k++) {
		const struct cline *c = changed[k];

		for (; cur < c->line; cur++)
			if (!put(&d->check, &d->check_len, &cap, "\n", 1))
				return false;
		if (!put(&d->check, &d->check_len, &cap, buf + c->start, c->len) ||
		    !put(&d->check, &d->check_len, &cap, "\n", 1))
			return false;
		cur++;
	}
	return true;
}

int delta_make(const struct cset *old, const struct cset *nw, const char *buf,
	       struct delta *d)
{
	const struct cline **changed = malloc((nw->n ? nw->n : 1) * sizeof(*changed));
	size_t cap = 0, gcap = 0, n_changed = 0, i = 0, j = 0;

	memset(d, 0, sizeof(*d));
	if (!changed)
		return -1;
	if (!old->simple || !nw->simple) {
		d->whole = true;
		free(changed);
		return 0;
	}
	/* both sorted by path: walk them side by side */
	while (!d->whole && (i < old->n || j < nw->n)) {
		int c = i == old->n ? 1 : j == nw->n ? -1 : strcmp(old->l[i].path, nw->l[j].path);
		const struct cline *o = c <= 0 ? &old->l[i] : NULL;
		const struct cline *n = c >= 0 ? &nw->l[j] : NULL;

		i += o != NULL;
		j += n != NULL;
		if (o && n && strcmp(o->settings, n->settings) == 0)
			continue;
		if (!delta_line(d, (o ? o : n)->path, o, n, &cap))
			goto nomem;
		if (n)
			changed[n_changed++] = n;
		else if (!gone_add(d, nw, o->path, &gcap))
			goto nomem;
	}
	if (d->n_gone) {
		qsort(d->gone, d->n_gone, sizeof(*d->gone), cmp_gone);
		size_t u = 0;

		for (size_t k = 0; k < d->n_gone; k++) {
			if (u && strcmp(d->gone[u - 1], d->gone[k]) == 0)
				free(d->gone[k]);
			else
				d->gone[u++] = d->gone[k];
		}
		d->n_gone = u;
	}
	if (!d->whole && !check_text(d, buf, changed, n_changed))
		goto nomem;
	free(changed);
	return 0;
nomem:
	free(changed);
	delta_free(d);
	return -1;
}

void delta_free(struct delta *d)
{
	free(d->buf);
	free(d->check);
	for (size_t k = 0; k < d->n_gone; k++)
		free(d->gone[k]);
	free(d->gone);
	memset(d, 0, sizeof(*d));
}
