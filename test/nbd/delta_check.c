/* SPDX-License-Identifier: MIT */
/*
 * The filter's reload by change (nbdkit/delta.c) against a whole load, on
 * pairs of random configs: a controller loaded with A and then, replacing,
 * with B must end as one loaded with A and then given the delta from A to
 * B (or B whole, where the delta says so), group by group, with the same
 * groups passed on as no longer named; and B's changed lines, checked
 * alone, must be refused exactly when B is, with the same message.
 *
 *   delta_check [PAIRS [SEED]]      (default 20000 pairs, seed 1)
 *
 * Exits 0 when every pair agrees, 1 at the first that does not (printed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

/* the filter's globals, which delta.c does not use */
struct gate g;
struct meter meter;

static uint64_t rng = 1;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static const char *const paths[] = { "/", "/a", "/b", "/a/b", "/a/c", "/c/d", "/e" };
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

/* keys and a few values each; those a merge cannot take back are rarer,
 * so that most pairs go by change */
static const struct {
	const char *key;
	const char *val[4];
	bool root;
	uint32_t one_in;   /* given on one line in this many */
} keys[] = {
	{ "rbps", { "1M", "2M", "max" }, false, 3 }, { "wbps", { "512k", "max" }, false, 3 },
	{ "riops", { "100", "1k" }, false, 3 }, { "wiops", { "50", "max" }, false, 3 },
	{ "rbps_low", { "0", "256k", "4M" }, false, 3 },
	{ "wiops_low", { "10", "0" }, false, 3 },
	{ "weight", { "1", "100", "300" }, false, 4 }, { "prio", { "0", "7" }, false, 6 },
	{ "burst", { "10ms", "1s" }, false, 30 },
	{ "depth", { "8", "max", "auto" }, true, 2 },
	{ "cost", { "iops", "bytes", "hybrid" }, true, 2 },
	{ "rio_cost", { "4k", "0" }, true, 10 }, { "wbyte_cost", { "2", "1" }, true, 10 },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* a random config into @buf, in our syntax or now and then cgroup's */
static size_t random_config(char *buf, size_t len)
{
	size_t n = 0;

	for (size_t p = 0; p < NPATHS; p++) {
		if (rnd(3) == 0)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s", paths[p]);
		for (size_t k = 0; k < NKEYS; k++) {
			if (rnd(keys[k].one_in) != 0 || (keys[k].root && p != 0))
				continue;
			size_t nv = 0;

			while (nv < 4 && keys[k].val[nv])
				nv++;
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", rnd(2) ? " " : " \t ",
					      keys[k].key, keys[k].val[rnd((uint32_t)nv)]);
		}
		if (rnd(20) == 0)
			n += (size_t)snprintf(buf + n, len - n, " # a comment");
		n += (size_t)snprintf(buf + n, len - n, "\n");
		if (rnd(40) == 0)
			n += (size_t)snprintf(buf + n, len - n, "%s default 200\n", paths[p]);
	}
	return n;
}

/* groups passed on as no longer named, as the whole load gives them */
static char unnamed_seen[64][IOQOS_PATH_MAX];
static size_t n_unnamed;

static void unnamed(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	(void)arg;
	(void)q;
	(void)id;
	snprintf(unnamed_seen[n_unnamed++], IOQOS_PATH_MAX, "%s", path);
}

/* every group's settings, by path, into @out: as described, and the
 * limits in force byte for byte (a field describe does not show) */
static void settings_of(struct ioqos *q, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t p = 0; p < NPATHS; p++) {
		int id = ioqos_group_find(q, paths[p]);
		struct ioqos_limits lim;
		char s[1024];

		if (id < 0)
			continue;
		ioqos_describe(q, (uint32_t)id, s, sizeof(s));
		n += (size_t)snprintf(out + n, len - n, "%s %s\n ", paths[p], s);
		memset(&lim, 0, sizeof(lim));
		ioqos_limits_get(q, (uint32_t)id, &lim);
		for (size_t b = 0; b < sizeof(lim); b++)
			n += (size_t)snprintf(out + n, len - n, "%02x",
					      ((const unsigned char *)&lim)[b]);
		n += (size_t)snprintf(out + n, len - n, "\n");
	}
}

static int fail(unsigned pair, const char *what, const char *a, const char *b,
		const char *x, const char *y)
{
	printf("pair %u: %s\n--- A\n%s--- B\n%s--- whole load\n%s\n--- by change\n%s\n",
	       pair, what, a, b, x, y);
	return 1;
}

int main(int argc, char **argv)
{
	unsigned pairs = argc > 1 ? (unsigned)atoi(argv[1]) : 20000, whole = 0, checked = 0;
	char a[4096], b[4096], e1[512], e2[512], s1[16384], s2[16384];

	rng = (argc > 2 ? strtoull(argv[2], NULL, 10) : 0) * 2654435761u + 1;
	for (unsigned i = 0; i < pairs; i++) {
		size_t la = random_config(a, sizeof(a)), lb = random_config(b, sizeof(b));
		struct ioqos *q1 = ioqos_new(), *q2 = ioqos_new(), *s = ioqos_new();
		struct cset ca, cb;
		struct delta d;
		int r1, r2;

		if (ioqos_load_buf_replace(q1, "A", a, la, 1, NULL, NULL, e1, sizeof(e1)) < 0)
			goto next;           /* A is in force: it loaded */
		ioqos_load_buf_replace(q2, "A", a, la, 1, NULL, NULL, e1, sizeof(e1));
		n_unnamed = 0;
		r1 = ioqos_load_buf_replace(q1, "B", b, lb, 2, unnamed, NULL, e1, sizeof(e1));
		if (cset_build(a, la, &ca) < 0 || cset_build(b, lb, &cb) < 0 ||
		    delta_make(&ca, &cb, b, &d) < 0) {
			printf("out of memory\n");
			return 1;
		}
		checked++;
		if (d.whole) {
			whole++;
		} else {
			r2 = ioqos_load_buf(s, "B", d.check, d.check_len, 0, e2, sizeof(e2));
			if ((r1 < 0) != (r2 < 0) || (r1 < 0 && strcmp(e1, e2) != 0))
				return fail(i, "the check of the changed lines differs", a, b,
					    r1 < 0 ? e1 : "loads", r2 < 0 ? e2 : "loads");
			if (r1 == 0 && d.len &&
			    ioqos_load_buf(q2, "delta", d.buf, d.len, 2, e2, sizeof(e2)) < 0)
				return fail(i, "the delta does not load", a, b, d.buf, e2);
			settings_of(q1, s1, sizeof(s1));
			settings_of(q2, s2, sizeof(s2));
			if (r1 == 0 && strcmp(s1, s2) != 0)
				return fail(i, "settings differ", a, b, s1, s2);
			/* the same groups (children first in both, in orders of their own) */
			bool same = r1 < 0 || n_unnamed == d.n_gone;

			for (size_t k = 0; same && k < n_unnamed; k++) {
				same = false;
				for (size_t m = 0; !same && m < d.n_gone; m++)
					same = strcmp(unnamed_seen[k], d.gone[m]) == 0;
			}
			if (!same)
				return fail(i, "the groups no longer named differ", a, b,
					    n_unnamed ? unnamed_seen[0] : "(none)",
					    d.n_gone ? d.gone[0] : "(none)");
		}
		cset_free(&ca);
		cset_free(&cb);
		delta_free(&d);
next:
		ioqos_free(q1);
		ioqos_free(q2);
		ioqos_free(s);
	}
	printf("delta_check: %u pairs of loadable A, %u by change, %u whole: all agree\n",
	       checked, checked - whole, whole);
	return 0;
}
