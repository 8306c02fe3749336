/* SPDX-License-Identifier: MIT */
/*
 * cgroup v2 syntax in config files, its lines (the translation is
 * cgroup.c's, which says what the forms mean): a config split into lines
 * and tokens as the loader splits it, devices and weights read, each line
 * classified by its form and checked as far as it can be alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "cgroup_int.h"
#include "msg.h"

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

bool ioqos__cg_span_is(struct span s, const char *word)
{
	return strlen(word) == s.n && memcmp(s.p, word, s.n) == 0;
}

bool ioqos__cg_span_starts(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

int ioqos__cg_span_cmp(struct span a, struct span b)
{
	int c = memcmp(a.p, b.p, a.n < b.n ? a.n : b.n);

	if (c != 0)
		return c;
	return a.n < b.n ? -1 : a.n > b.n;
}

/* the line at *@pos of the config, or false at its end */
bool ioqos__cg_next_line(const struct cg *cg, size_t *pos, struct line *l)
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
bool ioqos__cg_next_token(struct span s, size_t *pos, struct span *t)
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
int ioqos__cg_parse_dev(struct cg *cg, unsigned long no, struct span s,
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

/* a weight value: 1..10000, or "default" after a device (0); -EINVAL */
static int parse_weight(struct cg *cg, unsigned long no, struct cline *c)
{
	long v;

	if (c->has_dev && ioqos__cg_span_is(c->val, "default")) {
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
 * loader's, or ioqos__cg_check_skipped's).  0 or -EINVAL with a message.
 */
int ioqos__cg_classify(struct cg *cg, const struct line *l, struct cline *c)
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
	if (l->raw || !ioqos__cg_next_token(l->s, &tp, &c->path))
		return 0;
	after_path = tp;
	c->form = FORM_NATIVE;
	c->rest.p = l->s.p + after_path;
	c->rest.n = l->s.n - after_path;
	if (!ioqos__cg_next_token(l->s, &tp, &t2))
		return 0;
	after_t2 = rp = tp;

	if (memchr(t2.p, '=', t2.n) == NULL && memchr(t2.p, ':', t2.n) != NULL) {
		ret = ioqos__cg_parse_dev(cg, l->no, t2, &dev);
		if (ret < 0)
			return ret;
		if (!cg->has_dev)
			return bad_value_at(cg, l->no, device, t2,
					    "the line is for a device, but the config names none: add device=MAJ:MIN to its '/' line");
		c->has_dev = true;
		c->this_dev = dev == cg->dev;
		cg->any = true;
		if (!ioqos__cg_next_token(l->s, &tp, &t3))
			return bad_value_at(cg, l->no, device, t2,
					    "nothing follows it: want io.max keys or an io.weight weight");
		if (ioqos__cg_span_starts(t3, "target=")) {
			long us;

			c->form = FORM_LATENCY;
			c->key = t2;
			c->val = t3;
			us = parse_uint((struct span){ t3.p + 7, t3.n - 7 }, CG_LAT_US_MAX);
			if (us < 0)
				return bad_value_at(cg, l->no, t2, t3,
						    "io.latency's target=N is a whole number of microseconds");
			if (us > CG_LAT_US_MAX)
				return bad_value_at(cg, l->no, t2, t3,
						    "a target is at most 10000000 us (10 s)");
			c->weight = (uint32_t)us;
			if (ioqos__cg_next_token(l->s, &tp, &t4)) {
				ioqos__errf(cg->err, cg->errlen,
					    "%s:%lu: key '%s' (value '%s'): an io.latency line has target= alone ('%s' after it)",
					    cg->qname, l->no, ioqos__quote(qk, t2.p, t2.n),
					    ioqos__quote(qv, t3.p, t3.n),
					    ioqos__quote(qt, t4.p, t4.n));
				return -EINVAL;
			}
			return 0;
		} else if (memchr(t3.p, '=', t3.n) != NULL) {
			c->form = FORM_MAX;
			c->rest.p = l->s.p + after_t2;
			c->rest.n = l->s.n - after_t2;
		} else {
			c->form = FORM_WEIGHT;
			c->key = t2;
			c->val = t3;
		}
	} else if (ioqos__cg_span_is(t2, "default")) {
		c->form = FORM_WEIGHT;
		c->key = t2;
		cg->any = true;
		if (!ioqos__cg_next_token(l->s, &tp, &c->val))
			return bad_value_at(cg, l->no, t2, c->val, "missing the weight");
	} else if (parse_uint(t2, IOQOS__WEIGHT_MAX) >= 0 &&
		   !ioqos__cg_next_token(l->s, &rp, &t3)) {
		/* io.weight takes a bare number for the default */
		c->form = FORM_WEIGHT;
		c->key = deflt;
		c->val = t2;
		cg->any = true;
	}

	if (c->form == FORM_WEIGHT) {
		if (ioqos__cg_next_token(l->s, &tp, &t4)) {
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
	while (!ioqos__cg_span_is(c->path, "/") && ioqos__cg_next_token(c->rest, &rp, &t)) {
		if (!ioqos__cg_span_starts(t, "device="))
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
size_t ioqos__cg_settings_copy(const struct cline *c, char *dst)
{
	bool root = ioqos__cg_span_is(c->path, "/");
	struct span t;
	size_t rp = 0, o = 0;

	while (ioqos__cg_next_token(c->rest, &rp, &t)) {
		if (root && ioqos__cg_span_starts(t, "device="))
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
int ioqos__cg_check_skipped(struct cg *cg, const struct line *l,
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
	ioqos__cg_settings_copy(c, cg->tmp);
	return ioqos__conf_parse(cg->tmp, ioqos__cg_span_is(c->path, "/"), &conf,
				 where, cg->err, cg->errlen);
}
