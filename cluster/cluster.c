/* SPDX-License-Identifier: MIT */
/*
 * Global groups on the local side: what limit each group gets from the
 * lease it holds, and what it asks for next.
 *
 * A group named global=NAME has global limits R (per dimension: rbps,
 * wbps, riops, wiops).  The renewal thread (redis.c) holds a lease per
 * group: a rate s for one lease length L, charged by the bucket in Redis in
 * advance.  This file turns that into the controller's local limit, in one
 * of four cases (fb = R / n, n the instances on the bucket at the last
 * answer, 1 if none was ever seen):
 *
 *	lease in force                      s    (min(s, fb) for L after an outage)
 *	no answer yet (just started)        1    (for one round trip)
 *	lease ran out, Redis lost or the group's script failing:
 *	   for L after the lease's end      min(s, fb)
 *	   then                             fb
 *	no lease ever, Redis lost or
 *	the group's script failing          fb
 *
 * A script that fails (Redis answers, but with an error: the key holds
 * another type, Redis is out of memory) is an outage of that group's
 * bucket alone: the group takes the same fallback, and the same cap of
 * one lease once its script answers again.
 *
 * Why the two capped windows.  When Redis goes away, the leases of the
 * other instances run on until their ends: one granted just before the
 * outage ends at most L after it, and ours ended no earlier than L/2
 * before that (we renew every L/2).  Until then an instance that rose to
 * fb while another still held a larger lease would make the sum exceed R;
 * min(s, fb) cannot.  On the way back, the first instance to reach Redis
 * is alone on the bucket and may be granted all of R while the others are
 * still on fb: for one lease it keeps min(s, fb).  So with n the same on
 * every instance the sum never exceeds R, in an outage or after it.
 *
 * Demand.  Every L/2 the tick reads the group's counters: a group that had
 * requests waiting (queued now, or some that waited since the last
 * sample) is backlogged and asks for all of R (the script's max-min split
 * then gives it its fair share); one that is not asks for what it used
 * plus a quarter, so a growing load finds room before it waits.
 *
 * Weakness: "backlogged" is per direction, so a group bound by riops asks
 * for its whole share of rbps too; with others competing, that part of the
 * limit goes unused until they grow into it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static const char *const dim_key[IOQOS_CL_DIMS] = { "rbps", "wbps", "riops", "wiops" };

bool ioqos__cl_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > IOQOS_CL_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
		      c == '-'))
			return false;
	}
	return true;
}

/* host-pid-random, in the script's alphabet */
static void default_id(char *id, size_t len)
{
	char host[32] = "host";
	uint64_t r = ioqos__cl_now() ^ ((uint64_t)getpid() << 32);

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	for (char *p = host; *p; p++)
		if (!ioqos__cl_name_ok(p, 1))
			*p = '_';
	r *= 0x9e3779b97f4a7c15ull;
	snprintf(id, len, "%s-%d-%08" PRIx32, host, (int)getpid(), (uint32_t)(r >> 32));
}

struct ioqos_cluster *ioqos_cluster_new(struct ioqos *q, const char *addr,
					const struct ioqos_cluster_opts *o,
					char *err, size_t errlen)
{
	static const struct ioqos_cluster_opts none;
	struct ioqos_cluster *cl;
	pthread_condattr_t ca;

	if (!o)
		o = &none;
	if (!q || !addr) {
		snprintf(err, errlen, "no controller or no Redis address");
		return NULL;
	}
	if (o->lease_ns && (o->lease_ns < CL_LEASE_NS_MIN || o->lease_ns > CL_LEASE_NS_MAX)) {
		snprintf(err, errlen, "lease length %" PRIu64 " ns: out of range 1ms..60s",
			 o->lease_ns);
		return NULL;
	}
	if (o->prefix && strlen(o->prefix) > IOQOS_CL_PREFIX_MAX) {
		snprintf(err, errlen, "key prefix '%.64s...': longer than %d bytes", o->prefix,
			 IOQOS_CL_PREFIX_MAX);
		return NULL;
	}
	if (o->id && !ioqos__cl_name_ok(o->id, strlen(o->id))) {
		snprintf(err, errlen, "instance id '%.64s': 1 to %d letters, digits and ._:-",
			 o->id, IOQOS_CL_NAME_MAX);
		return NULL;
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	cl->q = q;
	cl->lease_ns = o->lease_ns ? o->lease_ns : CL_LEASE_NS_DEFAULT;
	cl->timeout_ns = o->timeout_ns ? o->timeout_ns : cl->lease_ns / 2;
	cl->log = o->log;
	cl->log_arg = o->log_arg;
	if (o->id)
		snprintf(cl->id, sizeof(cl->id), "%s", o->id);
	else
		default_id(cl->id, sizeof(cl->id));
	cl->prefix = strdup(o->prefix ? o->prefix : "ioqos:");
	cl->addr = strdup(addr);
	if (!cl->prefix || !cl->addr) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (ioqos__cl_addr(cl, addr, err, errlen) < 0)
		goto fail;
	pthread_mutex_init(&cl->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cl->cond, &ca);
	pthread_condattr_destroy(&ca);
	cl->by_path.probes = &cl->visits;
	cl->by_name.probes = &cl->visits;
	cl->st.state = IOQOS_CL_JOINING;
	return cl;
fail:
	free(cl->prefix);
	free(cl->addr);
	free(cl->unix_path);
	free(cl->host);
	free(cl);
	return NULL;
}

int ioqos_cluster_start(struct ioqos_cluster *cl)
{
	int e;

	if (cl->running)
		return -EBUSY;
	cl->stop = false;
	e = pthread_create(&cl->thread, NULL, ioqos__cl_thread, cl);
	if (e)
		return -e;
	pthread_setname_np(cl->thread, "ioqos-redis");   /* for top, /proc */
	cl->running = true;
	return 0;
}

void ioqos_cluster_free(struct ioqos_cluster *cl)
{
	if (!cl)
		return;
	if (cl->running) {
		pthread_mutex_lock(&cl->lock);
		cl->stop = true;
		pthread_cond_signal(&cl->cond);
		pthread_mutex_unlock(&cl->lock);
		pthread_join(cl->thread, NULL);
	}
	ioqos__cl_disconnect(cl);
	for (uint32_t i = 0; i < cl->ng; i++)
		ioqos__cl_group_free(cl->g[i]);
	free(cl->g);
	ioqos__cl_map_free(&cl->by_path);
	ioqos__cl_map_free(&cl->by_name);
	pthread_cond_destroy(&cl->cond);
	pthread_mutex_destroy(&cl->lock);
	free(cl->prefix);
	free(cl->addr);
	free(cl->unix_path);
	free(cl->host);
	free(cl);
}

/*
 * A registration costs a constant: its group is found by path, its bucket
 * by name (groups.c), and only its own local limits are set.
 */
int ioqos_cluster_register(struct ioqos_cluster *cl, const char *path,
			   const char *name, const uint64_t limit[IOQOS_CL_DIMS],
			   uint64_t now_ns, char *err, size_t errlen)
{
	struct cl_group *g, *holder;
	int id, ret = 0;

	if (!ioqos__cl_name_ok(name, strlen(name))) {
		snprintf(err, errlen, "global bucket name '%.64s': 1 to %d letters, "
			 "digits and ._:-", name, IOQOS_CL_NAME_MAX);
		return -EINVAL;
	}
	id = ioqos_group(cl->q, path);
	if (id < 0) {
		snprintf(err, errlen, "group '%.64s': %s", path, ioqos_strerror(id));
		return id;
	}
	pthread_mutex_lock(&cl->lock);
	g = ioqos__cl_find(cl, path);
	holder = ioqos__cl_on_bucket(cl, name);
	if (holder && holder != g) {
		snprintf(err, errlen, "global bucket %s is already drawn on by %s", name,
			 holder->path);
		ret = -EEXIST;
		goto out;
	}
	if (!g) {
		g = ioqos__cl_group_new(cl, path, "");
		if (!g || ioqos__cl_insert(cl, g) < 0) {
			ioqos__cl_group_free(g);
			goto oom;
		}
	}
	/* a new bucket: the old lease is of no use there */
	if (ioqos__cl_set_bucket(cl, g, name) < 0)
		goto oom;
	g->gid = (uint32_t)id;
	for (int d = 0; d < IOQOS_CL_DIMS; d++) {
		g->limit[d] = limit[d];
		if (g->demand[d] > limit[d] || !g->demand[d])
			g->demand[d] = limit[d] == IOQOS_UNLIMITED ? 0 : limit[d];
	}
	ioqos__cl_apply(cl, g, now_ns);
	pthread_cond_signal(&cl->cond);    /* renew at once: a new bucket has no lease */
out:
	pthread_mutex_unlock(&cl->lock);
	return ret;
oom:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
	goto out;
}

/* the local limit of dimension @d of @g at @now (cases in the essay above) */
static uint64_t local_rate(struct ioqos_cluster *cl, struct cl_group *g, int d,
			   uint64_t now)
{
	uint64_t R = g->limit[d], n = g->live ? g->live : 1;
	uint64_t fb = R / n ? R / n : 1, s = g->share[d] ? g->share[d] : 1;
	bool capped = now < cl->rejoin_until_ns || now < g->rejoin_until_ns;

	if (R == IOQOS_UNLIMITED)
		return IOQOS_UNLIMITED;
	if (g->leased && now < g->lease_end_ns)
		return capped && fb < s ? fb : s;
	if (!g->leased && !cl->down_since_ns && !g->fail_since_ns)
		return 1;                  /* joining: the first answer is one round trip away */
	if (g->leased && now < g->lease_end_ns + cl->lease_ns)
		return fb < s ? fb : s;
	return fb;
}

/* sample the group's counters: its demand for the next renewal */
static void sample(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now)
{
	struct ioqos_stats st;
	uint64_t dt = now - g->sample_ns;

	if (g->sample_ns && dt < cl->lease_ns / CL_SAMPLE_DIV)
		return;
	if (ioqos_stats_id(cl->q, g->gid, &st) < 0)
		return;
	for (int dir = 0; dir < 2; dir++) {
		bool busy = st.queued[dir] > 0 || st.waited[dir] != g->last_waited[dir];
		uint64_t used[2] = { st.bytes[dir] - g->last_bytes[dir],
				     st.ios[dir] - g->last_ios[dir] };

		for (int k = 0; k < 2; k++) {
			int d = dir + 2 * k;   /* rbps wbps riops wiops */
			uint64_t R = g->limit[d];
			double u;

			if (R == IOQOS_UNLIMITED)
				continue;
			if (busy || !g->sample_ns) {
				g->demand[d] = R;
				continue;
			}
			u = (double)used[k] * 1e9 / (double)dt * 1.25 + 1;
			g->demand[d] = u >= (double)R ? R : (uint64_t)u;
		}
		g->last_bytes[dir] = st.bytes[dir];
		g->last_ios[dir] = st.ios[dir];
		g->last_waited[dir] = st.waited[dir];
	}
	g->sample_ns = now;
}

void ioqos__cl_apply(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now)
{
	char set[160];
	size_t n = 0;

	for (int d = 0; d < IOQOS_CL_DIMS; d++) {
		uint64_t r = local_rate(cl, g, d, now);

		if (r == g->applied[d])
			continue;
		if (r == IOQOS_UNLIMITED)
			n += (size_t)snprintf(set + n, sizeof(set) - n, "%s=max ", dim_key[d]);
		else
			n += (size_t)snprintf(set + n, sizeof(set) - n, "%s=%" PRIu64 " ",
					      dim_key[d], r);
		g->applied[d] = r;
	}
	if (n && ioqos_set(cl->q, g->path, set, now, NULL, 0) < 0)
		memset(g->applied, 0, sizeof(g->applied));   /* try again next tick */
}

uint64_t ioqos_cluster_tick(struct ioqos_cluster *cl, uint64_t now)
{
	uint64_t next = now + cl->lease_ns / CL_TICK_DIV;

	pthread_mutex_lock(&cl->lock);
	for (uint32_t i = 0; i < cl->ng; i++) {
		struct cl_group *g = cl->g[i];
		uint64_t at[2] = { g->lease_end_ns, g->lease_end_ns + cl->lease_ns };

		CL_VISIT(cl);
		sample(cl, g, now);
		for (int k = 0; k < 2; k++)
			if (g->leased && at[k] > now && at[k] < next)
				next = at[k];
		if (g->rejoin_until_ns > now && g->rejoin_until_ns < next)
			next = g->rejoin_until_ns;
		ioqos__cl_apply(cl, g, now);
	}
	if (cl->rejoin_until_ns > now && cl->rejoin_until_ns < next)
		next = cl->rejoin_until_ns;
	pthread_mutex_unlock(&cl->lock);
	return next;
}

void ioqos_cluster_status(struct ioqos_cluster *cl, struct ioqos_cluster_status *out)
{
	pthread_mutex_lock(&cl->lock);
	*out = cl->st;
	out->state = cl->answered ? IOQOS_CL_LEASED : IOQOS_CL_JOINING;
	out->reason[0] = '\0';
	if (cl->down_since_ns) {
		out->state = IOQOS_CL_FALLBACK;
		snprintf(out->reason, sizeof(out->reason), "Redis at %.60s unreachable: %.110s",
			 cl->addr, cl->down_why);
	}
	for (uint32_t i = 0; i < cl->ng && !out->reason[0]; i++) {
		CL_VISIT(cl);
		if (cl->g[i]->fail_since_ns) {
			out->state = IOQOS_CL_FALLBACK;
			snprintf(out->reason, sizeof(out->reason), "%.70s: %.120s", cl->g[i]->key,
				 cl->g[i]->why);
		}
	}
	pthread_mutex_unlock(&cl->lock);
	ioqos__cl_oneline(out->reason, sizeof(out->reason), out->reason);
}

int ioqos_cluster_local(struct ioqos_cluster *cl, const char *path,
			uint64_t out[IOQOS_CL_DIMS])
{
	struct cl_group *g;

	pthread_mutex_lock(&cl->lock);
	g = ioqos__cl_find(cl, path);
	for (int d = 0; d < IOQOS_CL_DIMS; d++)
		out[d] = g ? g->applied[d] : IOQOS_UNLIMITED;
	pthread_mutex_unlock(&cl->lock);
	return g ? 0 : -ENOENT;
}
