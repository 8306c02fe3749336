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
 * - "MAJ:MIN target=N" (io.latency) is the group's latency target on that
 *   device, N in microseconds (0: none): latency=Nus.  One per group and
 *   device, as io.latency holds them; besides a latency= on the group's
 *   own line it is an error.
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

#include "cgroup_int.h"
#include "msg.h"

/* pass 1: device= on the '/' line, and the number of lines */
static int find_device(struct cg *cg)
{
	char qv[IOQOS__QUOTE_BUF];
	struct line l = { .no = 0 };
	size_t pos = 0;

	while (ioqos__cg_next_line(cg, &pos, &l)) {
		struct span t, val;
		size_t tp = 0;
		int ret;

		if (l.raw || !ioqos__cg_next_token(l.s, &tp, &t) ||
		    !ioqos__cg_span_is(t, "/"))
			continue;
		while (ioqos__cg_next_token(l.s, &tp, &t)) {
			if (!ioqos__cg_span_starts(t, "device="))
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
			ret = ioqos__cg_parse_dev(cg, l.no, val, &cg->dev);
			if (ret < 0)
				return ret;
			cg->has_dev = true;
			cg->any = true;
		}
	}
	cg->nlines = l.no;
	return 0;
}

static int wline_cmp(const void *a, const void *b)
{
	const struct wline *x = a, *y = b;
	int c = ioqos__cg_span_cmp(x->path, y->path);

	if (c != 0)
		return c;
	return x->no < y->no ? -1 : x->no > y->no;
}

/* pass 2: classify and check every line, gather the weight lines */
static int gather(struct cg *cg)
{
	struct line l = { .no = 0 };
	size_t pos = 0;

	while (ioqos__cg_next_line(cg, &pos, &l)) {
		struct cline c;
		struct wline *w;
		int ret;

		ret = ioqos__cg_classify(cg, &l, &c);
		if (ret < 0)
			return ret;
		if ((c.form == FORM_MAX && !c.this_dev) || c.form == FORM_WEIGHT ||
		    c.form == FORM_LATENCY) {
			ret = ioqos__cg_check_skipped(cg, &l, &c);
			if (ret < 0)
				return ret;
		}
		if ((c.form != FORM_WEIGHT && c.form != FORM_LATENCY) ||
		    (c.has_dev && !c.this_dev))
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
		w->lat = c.form == FORM_LATENCY;
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
		const struct wline *def = NULL, *dev = NULL, *lat = NULL;

		for (j = i; j < cg->nw &&
		     ioqos__cg_span_cmp(cg->w[j].path, cg->w[i].path) == 0; j++) {
			const struct wline **slot = cg->w[j].lat ? &lat :
						    cg->w[j].dev ? &dev : &def;

			if (*slot != NULL)
				return twice(cg, *slot, &cg->w[j]);
			*slot = &cg->w[j];
		}
		if (dev != NULL && dev->weight == 0)
			dev = NULL;
		cg->g[cg->ng].path = cg->w[i].path;
		cg->g[cg->ng].from = dev != NULL ? dev : def;
		cg->g[cg->ng].lat = lat;
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
		int c = ioqos__cg_span_cmp(path, cg->g[mid].path);

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

	while (ioqos__cg_next_line(cg, &pos, &l)) {
		struct cline c;
		struct wgroup *g;
		struct span t;
		size_t rp = 0;

		if (ioqos__cg_classify(cg, &l, &c) < 0 || !loaded(&c))
			continue;
		g = group_find(cg, c.path);
		if (g == NULL || g->carrier != 0)
			continue;
		g->carrier = l.no;
		while (ioqos__cg_next_token(c.rest, &rp, &t)) {
			bool w = ioqos__cg_span_starts(t, "weight=") ||
				 ioqos__cg_span_starts(t, "prio=");
			const struct wline *by = w ? g->from :
				ioqos__cg_span_starts(t, "latency=") ? g->lat : NULL;

			if (by == NULL)
				continue;
			ioqos__errf(cg->err, cg->errlen,
				    "%s:%lu: key '%s' (value '%s'): group '%s' has a %s on line %lu too ('%s'); give it once",
				    cg->qname, by->no,
				    ioqos__quote(qk, by->key.p, by->key.n),
				    ioqos__quote(qv, by->val.p, by->val.n),
				    ioqos__quote(qp, c.path.p, c.path.n),
				    w ? "weight" : "latency target", l.no,
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

	while (ioqos__cg_next_line(cg, &pos, &l)) {
		struct cline c;
		struct wgroup *g = NULL;
		size_t start = o;

		ioqos__cg_classify(cg, &l, &c);
		if (l.raw) {
			memcpy(out + o, l.s.p, l.s.n);
			o += l.s.n;
		} else if (loaded(&c)) {
			memcpy(out + o, c.path.p, c.path.n);
			o += c.path.n;
			out[o++] = ' ';
			o += ioqos__cg_settings_copy(&c, out + o);
			g = group_find(cg, c.path);
			if (g != NULL && g->carrier != l.no)
				g = NULL;
		} else if ((c.form == FORM_WEIGHT || c.form == FORM_LATENCY) &&
			   (!c.has_dev || c.this_dev)) {
			/* a group with no line of limits is created on the
			 * line that decided its weight (or on its first
			 * weight or latency line) */
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
		if (g != NULL && g->lat != NULL)
			o += (size_t)sprintf(out + o, " latency=%uus",
					     (unsigned)g->lat->weight);
		/* only what is added can make a line longer than it was */
		if (g != NULL && o - start > IOQOS__CG_LINE_MAX) {
			ioqos__errf(cg->err, cg->errlen,
				    "%s:%lu: line too long with the %s of line %lu added (at most %d bytes)",
				    cg->qname, l.no, g->from != NULL ? "weight" : "latency target",
				    g->from != NULL ? g->from->no : g->lat->no, IOQOS__CG_LINE_MAX);
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
