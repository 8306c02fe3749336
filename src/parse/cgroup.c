/* SPDX-License-Identifier: MIT */
/*
 * cgroup v2 syntax in config files: lines pasted from io.max and io.weight.
 *
 * The kernel keeps a cgroup's I/O control in files of one line per device:
 *
 *	io.max      8:16 rbps=1048576 wbps=max riops=max wiops=max
 *	io.weight   default 100
 *	            8:16 200
 *
 * A config of ioqos stands for one device and is a tree of groups, so a
 * line from those files gets its group's path in front:
 *
 *	/          device=8:16 depth=32
 *	/tenant    8:16 rbps=1048576 wbps=max riops=max wiops=max
 *	/tenant    default 100
 *	/tenant    8:16 200
 *	/other     8:0 rbps=10M           # another device: skipped
 *
 * Meaning, as cgroup v2 gives it
 *
 * - "MAJ:MIN key=value ..." (io.max) sets limits on that device.  io.max's
 *   keys (rbps wbps riops wiops, "max" for none) are ours too, so a pasted
 *   line means what it meant to the kernel; any other key of ours may
 *   follow a device as well.
 * - "default N", or a bare "N" (io.weight), is the group's weight on every
 *   device; "MAJ:MIN N" its weight on that device, which wins over the
 *   default whatever the order of the lines; "MAJ:MIN default" drops a
 *   per-device weight, leaving the default.  N is 1..10000, and a group
 *   given none has 100, as in io.weight and as with our weight= key.
 * - device=MAJ:MIN on the '/' line says which device the config is for.
 *   A line for another device is skipped: a group's io.max lists every
 *   device it limits, and the kernel gives each device its own line only.
 *   A skipped line is still checked (path, keys, values), so a typo fails
 *   wherever the config is loaded, not only on the device it names.
 * - A line that names a device in a config without device= is an error:
 *   nothing says whether it applies.
 *
 * A group has at most one line of limits for this device (in our syntax
 * or io.max's), as the loader wants, and besides it at most one "default"
 * line and one weight line per device, as io.weight holds them.  A weight
 * from those lines and weight= or prio= on the group's own line is an
 * error: which one should win would be a guess.
 *
 * How
 *
 * The translation runs before the loader and hands it a buffer with as many
 * lines, in the loader's own syntax, so the loader (unaware of all this)
 * reports its errors at the lines as written: device tokens are cut out,
 * lines for other devices and weight lines left empty, and a group's weight
 * appended as weight=N to its line of limits, or put as "PATH weight=N" on
 * the weight line that decided it when the group has no other line (a
 * group named by weight lines only is created, as by any line).  Lines
 * are split as the loader splits them ('\n', a '\r' before it dropped, '#'
 * starts a comment), and a line the loader refuses (a NUL byte, too long)
 * is passed on as it is, for the loader to name.  A config without any
 * cgroup form is not copied at all.
 *
 * Four linear passes over the text: find device= on '/'; classify and
 * check every line, gathering the weight lines; then, with those sorted by
 * path so that a group's lines meet, choose each group's weight and find
 * its line of limits; write.  Memory: the copy, and an entry per weight
 * line.
 *
 * Weakness: mistakes in cgroup forms are reported before the loader's own,
 * so of two bad lines the later one may be named.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cgroup.h"
#include "msg.h"

enum {
	CG_MAJOR_MAX = (1 << 12) - 1,     /* Linux dev_t: 12 bits of major */
	CG_MINOR_BITS = 20,               /* and 20 of minor */
	CG_MINOR_MAX = (1 << CG_MINOR_BITS) - 1,
	/* what an output line may grow by: " weight=10000" */
	CG_GROW = 16,
};

struct span {
	const char *p;          /* first byte */
	size_t n;               /* length, bytes */
};

/* one line of a config, split as the loader splits it */
struct line {
	struct span s;          /* its text, line ending and comment cut off */
	unsigned long no;       /* line number, from 1 */
	bool raw;               /* NUL byte or too long: left to the loader */
};

enum form {
	FORM_EMPTY,             /* blank, a comment, or raw */
	FORM_NATIVE,            /* PATH key=value ... */
	FORM_MAX,               /* PATH MAJ:MIN key=value ...   (io.max) */
	FORM_WEIGHT,            /* PATH default N | PATH N | PATH MAJ:MIN N|default */
};

/* a line, classified */
struct cline {
	enum form form;
	struct span path;
	struct span rest;       /* the settings: after the path, or the device */
	struct span key;        /* FORM_WEIGHT: "default" or the device */
	struct span val;        /* FORM_WEIGHT: the weight as written */
	uint32_t weight;        /* FORM_WEIGHT: 1..10000; 0 for MAJ:MIN default */
	bool has_dev;           /* a device is named */
	bool this_dev;          /* ... and it is the config's device */
};

/* a weight line (this device's, or a default), to meet its group's lines */
struct wline {
	struct span path;
	struct span key;        /* "default" or the device, as written */
	struct span val;        /* the weight, as written */
	unsigned long no;       /* its line */
	uint32_t weight;        /* 1..10000; 0 for MAJ:MIN default */
	bool dev;               /* for this device, else the default */
};

/* a group that has weight lines for this device (or defaults) */
struct wgroup {
	struct span path;
	const struct wline *from;   /* the line that decided its weight, or NULL */
	unsigned long first;        /* its first weight line */
	unsigned long carrier;      /* its line of limits, 0 if none */
};

struct cg {
	const char *qname;      /* the config's name, quoted */
	const char *buf;        /* the config */
	size_t len;             /* its length, bytes */
	char *err;              /* the caller's message buffer */
	size_t errlen;
	uint32_t dev;           /* the config's device (major << 20 | minor) */
	bool has_dev;           /* device= was given */
	bool any;               /* some cgroup form was seen */
	struct wline *w;        /* the weight lines */
	size_t nw, capw;
	struct wgroup *g;       /* the groups they weigh, sorted by path */
	size_t ng;
	unsigned long nlines;   /* lines in the config */
	char tmp[IOQOS__CG_LINE_MAX + 1];   /* a NUL-terminated copy */
};

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

static bool span_is(struct span s, const char *word)
{
	return strlen(word) == s.n && memcmp(s.p, word, s.n) == 0;
}

static bool span_starts(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static int span_cmp(struct span a, struct span b)
{
	int c = memcmp(a.p, b.p, a.n < b.n ? a.n : b.n);

	if (c != 0)
		return c;
	return a.n < b.n ? -1 : a.n > b.n;
}

/* the line at *@pos of the config, or false at its end */
static bool next_line(const struct cg *cg, size_t *pos, struct line *l)
{
	const char *p = cg->buf + *pos, *nl, *hash;
	size_t n;

	if (*pos >= cg->len)
		return false;
	nl = memchr(p, '\n', cg->len - *pos);
	n = nl != NULL ? (size_t)(nl - p) : cg->len - *pos;
	*pos += n + (nl != NULL);
	l->no++;
	if (n > 0 && p[n - 1] == '\r')
		n--;
	l->raw = n > IOQOS__CG_LINE_MAX || memchr(p, '\0', n) != NULL;
	hash = l->raw ? NULL : memchr(p, '#', n);
	if (hash != NULL)
		n = (size_t)(hash - p);
	l->s.p = p;
	l->s.n = n;
	return true;
}

/* the next blank-separated token of @s from *@pos, or false at its end */
static bool next_token(struct span s, size_t *pos, struct span *t)
{
	size_t i = *pos, j;

	while (i < s.n && is_blank(s.p[i]))
		i++;
	for (j = i; j < s.n && !is_blank(s.p[j]); j++)
		;
	*pos = j;
	t->p = s.p + i;
	t->n = j - i;
	return j > i;
}

/* a message "NAME:LINE: key 'KEY': bad value 'VALUE' (WHY)"; -EINVAL */
static int bad_value(struct cg *cg, unsigned long no, const char *key,
		     struct span val, const char *why)
{
	char qk[IOQOS__QUOTE_BUF], qv[IOQOS__QUOTE_BUF];

	ioqos__errf(cg->err, cg->errlen, "%s:%lu: key '%s': bad value '%s' (%s)",
		    cg->qname, no, ioqos__quote(qk, key, strlen(key)),
		    ioqos__quote(qv, val.p, val.n), why);
	return -EINVAL;
}

/* the same for a key as written in the config */
static int bad_value_at(struct cg *cg, unsigned long no, struct span key,
			struct span val, const char *why)
{
	char k[IOQOS__QUOTE_BUF];

	ioqos__quote(k, key.p, key.n);
	return bad_value(cg, no, k, val, why);
}

/* decimal digits only, at most @max; -1 if not */
static long parse_uint(struct span s, long max)
{
	long v = 0;
	size_t i;

	if (s.n == 0)
		return -1;
	for (i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		v = v * 10 + (s.p[i] - '0');
		if (v > max)
			return max + 1;
	}
	return v;
}

/* MAJ:MIN into *@dev; 0 or -EINVAL with a message naming key 'device' */
static int parse_dev(struct cg *cg, unsigned long no, struct span s,
		     uint32_t *dev)
{
	const char *colon = memchr(s.p, ':', s.n);
	struct span maj, min;
	long a, b;

	if (s.n == 0)
		return bad_value(cg, no, "device", s, "empty");
	if (colon == NULL)
		return bad_value(cg, no, "device", s,
				 "want MAJ:MIN, as lsblk shows it, e.g. 8:16");
	maj.p = s.p;
	maj.n = (size_t)(colon - s.p);
	min.p = colon + 1;
	min.n = s.n - maj.n - 1;
	a = parse_uint(maj, CG_MAJOR_MAX);
	b = parse_uint(min, CG_MINOR_MAX);
	if (a < 0 || b < 0)
		return bad_value(cg, no, "device", s,
				 "want MAJ:MIN, two decimal numbers, e.g. 8:16");
	if (a > CG_MAJOR_MAX)
		return bad_value(cg, no, "device", s, "the major is at most 4095");
	if (b > CG_MINOR_MAX)
		return bad_value(cg, no, "device", s,
				 "the minor is at most 1048575");
	*dev = (uint32_t)a << CG_MINOR_BITS | (uint32_t)b;
	return 0;
}

/* pass 1: device= on the '/' line, and the number of lines */
static int find_device(struct cg *cg)
{
	char qv[IOQOS__QUOTE_BUF];
	struct line l = { .no = 0 };
	size_t pos = 0;

	while (next_line(cg, &pos, &l)) {
		struct span t, val;
		size_t tp = 0;
		int ret;

		if (l.raw || !next_token(l.s, &tp, &t) || !span_is(t, "/"))
			continue;
		while (next_token(l.s, &tp, &t)) {
			if (!span_starts(t, "device="))
				continue;
			val.p = t.p + 7;
			val.n = t.n - 7;
			if (cg->has_dev) {
				ioqos__errf(cg->err, cg->errlen,
					    "%s:%lu: key 'device' given twice (value '%s')",
					    cg->qname, l.no,
					    ioqos__quote(qv, val.p, val.n));
				return -EINVAL;
			}
			ret = parse_dev(cg, l.no, val, &cg->dev);
			if (ret < 0)
				return ret;
			cg->has_dev = true;
			cg->any = true;
		}
	}
	cg->nlines = l.no;
	return 0;
}

/* a weight value: 1..10000, or "default" after a device (0); -EINVAL */
static int parse_weight(struct cg *cg, unsigned long no, struct cline *c)
{
	long v;

	if (c->has_dev && span_is(c->val, "default")) {
		c->weight = 0;
		return 0;
	}
	v = parse_uint(c->val, IOQOS__WEIGHT_MAX);
	if (v < 0)
		return bad_value_at(cg, no, c->key, c->val,
				    c->has_dev ? "a weight is an integer 1..10000, or 'default'"
					       : "a weight is an integer 1..10000");
	if (v < IOQOS__WEIGHT_MIN || v > IOQOS__WEIGHT_MAX)
		return bad_value_at(cg, no, c->key, c->val,
				    "out of range 1..10000");
	c->weight = (uint32_t)v;
	return 0;
}

/*
 * What line @l is, checked as far as it can be alone (the rest is the
 * loader's, or check_skipped's).  0 or -EINVAL with a message.
 */
static int classify(struct cg *cg, const struct line *l, struct cline *c)
{
	static const struct span device = { "device", 6 };
	static const struct span deflt = { "default", 7 };
	char qk[IOQOS__QUOTE_BUF], qv[IOQOS__QUOTE_BUF];
	char qt[IOQOS__QUOTE_BUF];
	struct span t2, t3, t4, t;
	size_t tp = 0, after_path, after_t2, rp;
	uint32_t dev;
	int ret;

	memset(c, 0, sizeof(*c));
	if (l->raw || !next_token(l->s, &tp, &c->path))
		return 0;
	after_path = tp;
	c->form = FORM_NATIVE;
	c->rest.p = l->s.p + after_path;
	c->rest.n = l->s.n - after_path;
	if (!next_token(l->s, &tp, &t2))
		return 0;
	after_t2 = rp = tp;

	if (memchr(t2.p, '=', t2.n) == NULL && memchr(t2.p, ':', t2.n) != NULL) {
		ret = parse_dev(cg, l->no, t2, &dev);
		if (ret < 0)
			return ret;
		if (!cg->has_dev)
			return bad_value_at(cg, l->no, device, t2,
					    "the line is for a device, but the config names none: add device=MAJ:MIN to its '/' line");
		c->has_dev = true;
		c->this_dev = dev == cg->dev;
		cg->any = true;
		if (!next_token(l->s, &tp, &t3))
			return bad_value_at(cg, l->no, device, t2,
					    "nothing follows it: want io.max keys or an io.weight weight");
		if (memchr(t3.p, '=', t3.n) != NULL) {
			c->form = FORM_MAX;
			c->rest.p = l->s.p + after_t2;
			c->rest.n = l->s.n - after_t2;
		} else {
			c->form = FORM_WEIGHT;
			c->key = t2;
			c->val = t3;
		}
	} else if (span_is(t2, "default")) {
		c->form = FORM_WEIGHT;
		c->key = t2;
		cg->any = true;
		if (!next_token(l->s, &tp, &c->val))
			return bad_value_at(cg, l->no, t2, c->val, "missing the weight");
	} else if (parse_uint(t2, IOQOS__WEIGHT_MAX) >= 0 &&
		   !next_token(l->s, &rp, &t3)) {
		/* io.weight takes a bare number for the default */
		c->form = FORM_WEIGHT;
		c->key = deflt;
		c->val = t2;
		cg->any = true;
	}

	if (c->form == FORM_WEIGHT) {
		if (next_token(l->s, &tp, &t4)) {
			ioqos__errf(cg->err, cg->errlen,
				    "%s:%lu: key '%s' (value '%s'): one weight per line, and nothing after it ('%s')",
				    cg->qname, l->no, ioqos__quote(qk, c->key.p, c->key.n),
				    ioqos__quote(qv, c->val.p, c->val.n),
				    ioqos__quote(qt, t4.p, t4.n));
			return -EINVAL;
		}
		return parse_weight(cg, l->no, c);
	}

	/* device= belongs to '/' */
	rp = 0;
	while (!span_is(c->path, "/") && next_token(c->rest, &rp, &t)) {
		if (!span_starts(t, "device="))
			continue;
		ioqos__errf(cg->err, cg->errlen,
			    "%s:%lu: key 'device' (value '%s') is only valid on group '/'",
			    cg->qname, l->no, ioqos__quote(qv, t.p + 7, t.n - 7));
		return -EINVAL;
	}
	return 0;
}

/* the settings of @c into @dst, NUL-terminated, without device= on '/';
 * their length */
static size_t settings_copy(const struct cline *c, char *dst)
{
	bool root = span_is(c->path, "/");
	struct span t;
	size_t rp = 0, o = 0;

	while (next_token(c->rest, &rp, &t)) {
		if (root && span_starts(t, "device="))
			continue;
		if (o > 0)
			dst[o++] = ' ';
		memcpy(dst + o, t.p, t.n);
		o += t.n;
	}
	dst[o] = '\0';
	return o;
}

/* a line that is not loaded (another device's, or a weight line): check
 * its path, and its settings as the loader would */
static int check_skipped(struct cg *cg, const struct line *l,
			 const struct cline *c)
{
	char where[IOQOS__QUOTE_BUF + 32];
	struct ioqos__conf conf;

	snprintf(where, sizeof(where), "%s:%lu: ", cg->qname, l->no);
	memcpy(cg->tmp, c->path.p, c->path.n);
	cg->tmp[c->path.n] = '\0';
	if (ioqos__path_check(cg->tmp, where, cg->err, cg->errlen) < 0)
		return -EINVAL;
	if (c->form != FORM_MAX)
		return 0;
	settings_copy(c, cg->tmp);
	return ioqos__conf_parse(cg->tmp, span_is(c->path, "/"), &conf, where,
				 cg->err, cg->errlen);
}

static int wline_cmp(const void *a, const void *b)
{
	const struct wline *x = a, *y = b;
	int c = span_cmp(x->path, y->path);

	if (c != 0)
		return c;
	return x->no < y->no ? -1 : x->no > y->no;
}

/* pass 2: classify and check every line, gather the weight lines */
static int gather(struct cg *cg)
{
	struct line l = { .no = 0 };
	size_t pos = 0;

	while (next_line(cg, &pos, &l)) {
		struct cline c;
		struct wline *w;
		int ret;

		ret = classify(cg, &l, &c);
		if (ret < 0)
			return ret;
		if ((c.form == FORM_MAX && !c.this_dev) || c.form == FORM_WEIGHT) {
			ret = check_skipped(cg, &l, &c);
			if (ret < 0)
				return ret;
		}
		if (c.form != FORM_WEIGHT || (c.has_dev && !c.this_dev))
			continue;
		if (cg->nw == cg->capw) {
			size_t cap = cg->capw != 0 ? cg->capw * 2 : 16;

			w = realloc(cg->w, cap * sizeof(*w));
			if (w == NULL)
				return -ENOMEM;
			cg->w = w;
			cg->capw = cap;
		}
		w = &cg->w[cg->nw++];
		w->path = c.path;
		w->key = c.key;
		w->val = c.val;
		w->no = l.no;
		w->weight = c.weight;
		w->dev = c.has_dev;
	}
	return 0;
}

/* a second weight line of one kind for a group; -EINVAL */
static int twice(struct cg *cg, const struct wline *first,
		 const struct wline *again)
{
	char qk[IOQOS__QUOTE_BUF], qv[IOQOS__QUOTE_BUF];
	char qp[IOQOS__QUOTE_BUF];

	ioqos__errf(cg->err, cg->errlen,
		    "%s:%lu: key '%s' given twice for group '%s' (value '%s'; first on line %lu)",
		    cg->qname, again->no, ioqos__quote(qk, again->key.p, again->key.n),
		    ioqos__quote(qp, again->path.p, again->path.n),
		    ioqos__quote(qv, again->val.p, again->val.n), first->no);
	return -EINVAL;
}

/* each group's weight: its weight line for this device, else its default */
static int choose(struct cg *cg)
{
	size_t i = 0, j;

	if (cg->nw > 0)
		qsort(cg->w, cg->nw, sizeof(*cg->w), wline_cmp);
	cg->g = calloc(cg->nw != 0 ? cg->nw : 1, sizeof(*cg->g));
	if (cg->g == NULL)
		return -ENOMEM;
	for (i = 0; i < cg->nw; i = j) {
		const struct wline *def = NULL, *dev = NULL;

		for (j = i; j < cg->nw && span_cmp(cg->w[j].path, cg->w[i].path) == 0; j++) {
			const struct wline **slot = cg->w[j].dev ? &dev : &def;

			if (*slot != NULL)
				return twice(cg, *slot, &cg->w[j]);
			*slot = &cg->w[j];
		}
		if (dev != NULL && dev->weight == 0)
			dev = NULL;
		cg->g[cg->ng].path = cg->w[i].path;
		cg->g[cg->ng].from = dev != NULL ? dev : def;
		cg->g[cg->ng].first = cg->w[i].no;
		cg->ng++;
	}
	return 0;
}

static struct wgroup *group_find(struct cg *cg, struct span path)
{
	size_t lo = 0, hi = cg->ng;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = span_cmp(path, cg->g[mid].path);

		if (c == 0)
			return &cg->g[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* a line that is loaded: a native one, or io.max for this device */
static bool loaded(const struct cline *c)
{
	return c->form == FORM_NATIVE || (c->form == FORM_MAX && c->this_dev);
}

/* pass 3: each weighed group's line of limits, which must not weigh it too */
static int carriers(struct cg *cg)
{
	char qk[IOQOS__QUOTE_BUF], qv[IOQOS__QUOTE_BUF];
	char qp[IOQOS__QUOTE_BUF], qt[IOQOS__QUOTE_BUF];
	struct line l = { .no = 0 };
	size_t pos = 0;

	while (next_line(cg, &pos, &l)) {
		struct cline c;
		struct wgroup *g;
		struct span t;
		size_t rp = 0;

		if (classify(cg, &l, &c) < 0 || !loaded(&c))
			continue;
		g = group_find(cg, c.path);
		if (g == NULL || g->carrier != 0)
			continue;
		g->carrier = l.no;
		while (g->from != NULL && next_token(c.rest, &rp, &t)) {
			if (!span_starts(t, "weight=") && !span_starts(t, "prio="))
				continue;
			ioqos__errf(cg->err, cg->errlen,
				    "%s:%lu: key '%s' (value '%s'): group '%s' has a weight on line %lu too ('%s'); give it once",
				    cg->qname, g->from->no,
				    ioqos__quote(qk, g->from->key.p, g->from->key.n),
				    ioqos__quote(qv, g->from->val.p, g->from->val.n),
				    ioqos__quote(qp, c.path.p, c.path.n), l.no,
				    ioqos__quote(qt, t.p, t.n));
			return -EINVAL;
		}
	}
	return 0;
}

/* pass 4: the lines in the loader's syntax into @out; its length */
static int write_out(struct cg *cg, char *out, size_t *outlen)
{
	struct line l = { .no = 0 };
	size_t pos = 0, o = 0;

	while (next_line(cg, &pos, &l)) {
		struct cline c;
		struct wgroup *g = NULL;
		size_t start = o;

		classify(cg, &l, &c);
		if (l.raw) {
			memcpy(out + o, l.s.p, l.s.n);
			o += l.s.n;
		} else if (loaded(&c)) {
			memcpy(out + o, c.path.p, c.path.n);
			o += c.path.n;
			out[o++] = ' ';
			o += settings_copy(&c, out + o);
			g = group_find(cg, c.path);
			if (g != NULL && g->carrier != l.no)
				g = NULL;
		} else if (c.form == FORM_WEIGHT && (!c.has_dev || c.this_dev)) {
			/* a group with no line of limits is created on the
			 * line that decided its weight (or on its first) */
			g = group_find(cg, c.path);
			if (g != NULL && (g->carrier != 0 ||
					  (g->from != NULL ? g->from->no : g->first) != l.no))
				g = NULL;
			if (g != NULL) {
				memcpy(out + o, c.path.p, c.path.n);
				o += c.path.n;
			}
		}
		if (g != NULL && g->from != NULL)
			o += (size_t)sprintf(out + o, " weight=%u",
					     (unsigned)g->from->weight);
		/* only an added weight can make a line longer than it was */
		if (g != NULL && g->from != NULL && o - start > IOQOS__CG_LINE_MAX) {
			ioqos__errf(cg->err, cg->errlen,
				    "%s:%lu: line too long with the weight of line %lu added (at most %d bytes)",
				    cg->qname, l.no, g->from->no, IOQOS__CG_LINE_MAX);
			return -EINVAL;
		}
		out[o++] = '\n';
	}
	*outlen = o;
	return 0;
}

int ioqos__cgroup_translate(const char *qname, const char *buf, size_t len,
			    char **out, size_t *outlen, char *err,
			    size_t errlen)
{
	struct cg *cg;
	size_t cap;
	char *o = NULL;
	int ret;

	*out = NULL;
	*outlen = 0;
	cg = calloc(1, sizeof(*cg));
	if (cg == NULL)
		goto nomem;
	cg->qname = qname;
	cg->buf = buf;
	cg->len = len;
	cg->err = err;
	cg->errlen = errlen;

	ret = find_device(cg);
	if (ret == 0)
		ret = gather(cg);
	if (ret == 0 && cg->any)
		ret = choose(cg);
	if (ret == 0 && cg->any)
		ret = carriers(cg);
	if (ret < 0 || !cg->any)
		goto out;

	if (cg->nlines > (SIZE_MAX - len - 1) / (CG_GROW + 1)) {
		ret = -ENOMEM;
		goto out;
	}
	cap = len + cg->nlines * (CG_GROW + 1) + 1;
	o = malloc(cap);
	if (o == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	ret = write_out(cg, o, outlen);
	if (ret == 0) {
		*out = o;
		o = NULL;
	}
out:
	free(o);
	if (cg != NULL) {
		free(cg->w);
		free(cg->g);
	}
	free(cg);
	if (ret != -ENOMEM)
		return ret;
nomem:
	ioqos__errf(err, errlen, "%s: out of memory", qname);
	return -ENOMEM;
}
