/* SPDX-License-Identifier: MIT */
/*
 * The cluster object: its making and its end, a group registered alone,
 * and what it reports.  The local side of the leases is local.c's and
 * tick.c's, the renewals redis.c's, the config's global= conf.c's and
 * commit.c's; the table of groups they share, groups.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

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
	free(cl->hand);
	ioqos__cl_map_free(&cl->by_path);
	ioqos__cl_map_free(&cl->by_name);
	ioqos__cl_conf_free(cl->conf);
	ioqos__cl_conf_free(cl->spent);
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
 * by name (groups.c), and only its own local limits are set.  A group a
 * config names keeps what is registered until the next config that
 * changes it: its spec in the config in force says the same.
 */
int ioqos_cluster_register(struct ioqos_cluster *cl, const char *path,
			   const char *name, const uint64_t limit[IOQOS_CL_DIMS],
			   uint64_t now_ns, char *err, size_t errlen)
{
	struct cl_group *g, *holder;
	struct cl_spec *spec;
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
	spec = cl->conf ? ioqos__cl_map_get(&cl->conf->by_path, path) : NULL;
	if (!g) {
		g = ioqos__cl_group_new(cl, path, "");
		if (!g || ioqos__cl_insert(cl, g) < 0) {
			ioqos__cl_group_free(g);
			goto oom;
		}
	}
	if ((!spec && ioqos__cl_by_hand(cl, g, true) < 0) ||
	    ioqos__cl_set_bucket(cl, g, name) < 0)
		goto oom;
	if (spec) {
		snprintf(spec->name, sizeof(spec->name), "%s", name);
		memcpy(spec->limit, limit, sizeof(spec->limit));
	}
	g->gid = (uint32_t)id;
	g->gen = cl->conf_gen;
	cl->conf_seq++;                    /* a config prepared before is stale */
	ioqos__cl_set_limits(g, limit);
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
	} else if (cl->list[CL_FAILING].head) {
		/* the group whose script has failed the longest */
		const struct cl_group *g = cl->list[CL_FAILING].head;

		out->state = IOQOS_CL_FALLBACK;
		snprintf(out->reason, sizeof(out->reason), "%.70s: %.120s", g->key, g->why);
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
