/* SPDX-License-Identifier: MIT */
/*
 * Random configs and a controller with a history, for the tests of a
 * config parsed apart and applied in steps (t_conf.c, t_conf_life.c).
 *
 * A config names some of a fixed set of paths (three levels, so that
 * limits, lows and iops_size meet at parents and children), each with a
 * few keys of a few values each (a latency target among them), "/" with
 * device keys now and then.  A history loads one config, makes every
 * path of the set, and puts requests through it for 50 ms of virtual
 * time, a completion now and then: so that when a second config comes,
 * requests wait at limits, in transit at parents and at the device, and
 * all of them are moved by it.
 */
#ifndef IOQOS_TEST_CONF_GEN_H
#define IOQOS_TEST_CONF_GEN_H

#include "base.h"

static const char *const cg_paths[] = {
	"/", "/a", "/b", "/a/b", "/a/c", "/c/d", "/e", "/a/b/x", "/f",
};
#define CG_NPATHS (sizeof(cg_paths) / sizeof(cg_paths[0]))

static const struct {
	const char *key, *val[3];
	bool root;
} cg_keys[] = {
	{ "rbps", { "1M", "2M", "max" }, false },
	{ "wbps", { "512k", "max", "64k" }, false },
	{ "riops", { "100", "1k", "20" }, false },
	{ "wiops", { "50", "max", "7" }, false },
	{ "rbps_low", { "0", "256k", "1M" }, false },
	{ "wiops_low", { "10", "0", "3" }, false },
	{ "weight", { "1", "100", "300" }, false },
	{ "burst", { "10ms", "1s", "1ms" }, false },
	{ "iops_size", { "4k", "0", "64k" }, false },
	{ "latency", { "300us", "0", "2ms" }, false },
	{ "depth", { "8", "max", "2" }, true },
	{ "cost", { "iops", "bytes", "hybrid" }, true },
	{ "rio_cost", { "4k", "0", "1k" }, true },
};
#define CG_NKEYS (sizeof(cg_keys) / sizeof(cg_keys[0]))

/* a random config into @buf (at least 4 KiB): valid, unless a low comes
 * above its line's max (then a load refuses it at that line) */
static inline size_t cg_config(struct rng *r, char *buf)
{
	size_t n = 0;

	for (size_t i = 0; i < CG_NPATHS; i++) {
		if (rng_below(r, 3) == 0)
			continue;
		n += (size_t)sprintf(buf + n, "%s", cg_paths[i]);
		for (size_t k = 0; k < CG_NKEYS; k++)
			if ((i == 0 || !cg_keys[k].root) && rng_below(r, 3) == 0)
				n += (size_t)sprintf(buf + n, " %s=%s", cg_keys[k].key,
						     cg_keys[k].val[rng_below(r, 3)]);
		n += (size_t)sprintf(buf + n, "\n");
	}
	buf[n] = '\0';
	return n;
}

#define CG_NREQ 160

/* a controller and the requests of its history */
struct cg_hist {
	struct ioqos *q;
	struct ioqos_req req[CG_NREQ];
	struct ioqos_req *out[CG_NREQ];   /* dispatched, not done */
	uint8_t seen[CG_NREQ];            /* times each was dispatched */
	int n_out, n_sub, n_taken;        /* n_taken: submits the controller took */
	uint64_t now;
	uint64_t trace;                   /* FNV-1a of every dispatch: when, which */
};

static inline void cg_mix(struct cg_hist *h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8) {
		h->trace ^= v & 0xff;
		h->trace *= 1099511628211ull;
	}
}

/* every request ioqos_next() gives at h->now, into the trace */
static inline void cg_next(struct cg_hist *h, uint64_t *wake)
{
	struct ioqos_req *x;

	while ((x = ioqos_next(h->q, h->now, wake)) != NULL) {
		cg_mix(h, h->now);
		cg_mix(h, (uint64_t)(x - h->req));
		h->seen[x - h->req]++;
		h->out[h->n_out++] = x;
	}
}

/* submit request i of the history, if its group is still there */
static inline void cg_submit(struct cg_hist *h)
{
	struct ioqos_req *x = &h->req[h->n_sub++];

	if (ioqos_group_path(h->q, x->group) && ioqos_submit(h->q, x, h->now) == 0)
		h->n_taken++;
}

/* @h: config @a loaded (0, or its error), every path made, half the
 * requests submitted and 50 ms run; its draws from @r alone */
static inline int cg_history(struct cg_hist *h, struct rng *r, const char *a, size_t alen)
{
	char err[256];
	uint64_t wake;
	int ret;

	memset(h, 0, sizeof(*h));
	h->trace = 1469598103934665603ull;
	h->q = ioqos_new();
	ret = ioqos_load_buf(h->q, "a.conf", a, alen, 0, err, sizeof(err));
	for (size_t i = 0; i < CG_NPATHS; i++)
		ioqos_group(h->q, cg_paths[i]);
	for (int i = 0; i < CG_NREQ; i++)
		h->req[i] = req_make((uint32_t)ioqos_group_find(h->q,
					 cg_paths[1 + rng_below(r, CG_NPATHS - 1)]),
				     (uint8_t)rng_below(r, 2), 4096 * rng_range(r, 1, 16));
	while (h->n_sub < CG_NREQ / 2)
		cg_submit(h);
	for (int t = 0; t < 50; t++, h->now += T_MS(1)) {
		cg_next(h, &wake);
		if (h->n_out && rng_below(r, 2))
			ioqos_done(h->q, h->out[--h->n_out], h->now);
	}
	return ret;
}

/* the rest of the requests submitted, and everything run until nothing
 * waits on time (at most 100 s of virtual time) */
static inline void cg_drain(struct cg_hist *h)
{
	uint64_t wake = 0;

	while (h->n_sub < CG_NREQ)
		cg_submit(h);
	for (int t = 0; t < 100000; t++) {
		cg_next(h, &wake);
		while (h->n_out)
			ioqos_done(h->q, h->out[--h->n_out], h->now);
		if (wake == UINT64_MAX)
			break;
		h->now = wake < h->now + T_MS(1) ? wake : h->now + T_MS(1);
	}
}

/* every live group's path and settings, joined (malloc'd) */
static inline char *cg_settings(struct ioqos *q)
{
	size_t len = 0, cap = 1024;
	char *s = malloc(cap);

	s[0] = '\0';
	for (uint32_t id = 0; id < ioqos_group_count(q); id++) {
		const char *path = ioqos_group_path(q, id);
		char d[512];

		if (!path)
			continue;
		ioqos_describe(q, id, d, sizeof(d));
		while (len + strlen(path) + strlen(d) + 3 > cap)
			s = realloc(s, cap *= 2);
		len += (size_t)sprintf(s + len, "%s %s\n", path, d);
	}
	return s;
}

#endif
