/* SPDX-License-Identifier: MIT */
/*
 * The renewal thread: every lease renewed at half its length, in one
 * round trip for all the global groups.
 *
 *   thread                                   Redis
 *   ── snapshot demands (cl->lock) ──┐
 *                                    ├─ EVALSHA lease KEY id L R.. D.. ─►  refill, refund,
 *                                    ├─ EVALSHA lease KEY ...           ─►  split, charge
 *   ◄────────────────────────────────┴─ {s0 s1 s2 s3 n} ...            ◄─
 *   ── store shares, lease end = sent + L (cl->lock) ──
 *
 * The commands are pipelined (hiredis appends them, then reads every
 * reply), so an instance makes 2 / L round trips a second whatever its
 * request rate and however many global groups it has.  A lease's end is
 * counted from when the request was sent, on the local clock: never later
 * than the end the server counts, so clock skew between machines does not
 * matter (only Redis's clock refills the buckets).
 *
 * Failures.  Connecting and every reply have a timeout (half a lease by
 * default), so a renewal that fails does so while the lease in force still
 * has half its length to run; the thread then tries again every quarter
 * of a lease.  The first failure of an outage is logged, with the local
 * limits the groups fall back to when their leases end (cluster.c); the
 * first success after it is logged too.  A script error (the script
 * refused its arguments: it never should) is logged once per group and
 * leaves that group's lease to run out.  On a new connection the script
 * is loaded again (SCRIPT LOAD), so a restarted Redis is rejoined without
 * any help.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <hiredis/hiredis.h>

#include "internal.h"

static const char lease_lua[] =
#include "lease_lua.h"
	;

/* the script refuses larger limits: 2^50 per second is unlimited enough */
#define CL_RATE_MAX ((uint64_t)1 << 50)

int ioqos__cl_addr(struct ioqos_cluster *cl, const char *addr, char *err, size_t errlen)
{
	const char *colon = strrchr(addr, ':');
	char *end;
	long port;

	if (strncmp(addr, "unix:", 5) == 0) {
		if (!addr[5] || strlen(addr + 5) >= 108)
			goto bad;
		cl->unix_path = strdup(addr + 5);
		return cl->unix_path ? 0 : -ENOMEM;
	}
	if (!colon || colon == addr)
		goto bad;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port < 1 || port > 65535 ||
	    colon[1] == '+' || colon[1] == '-')
		goto bad;
	cl->host = strndup(addr, (size_t)(colon - addr));
	cl->port = (int)port;
	return cl->host ? 0 : -ENOMEM;
bad:
	snprintf(err, errlen, "Redis address '%.200s': expected unix:PATH or HOST:PORT", addr);
	return -EINVAL;
}

static struct timeval ns_to_tv(uint64_t ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / CL_NS_PER_S),
			      .tv_usec = (suseconds_t)(ns % CL_NS_PER_S / 1000) };
	return tv;
}

void ioqos__cl_disconnect(struct ioqos_cluster *cl)
{
	if (cl->rc)
		redisFree(cl->rc);
	cl->rc = NULL;
}

/* connect and load the script; 0, or -1 with the reason in @why */
static int cl_connect(struct ioqos_cluster *cl, char *why, size_t len)
{
	struct timeval tv = ns_to_tv(cl->timeout_ns);
	redisReply *r;

	cl->rc = cl->unix_path ? redisConnectUnixWithTimeout(cl->unix_path, tv) :
		 redisConnectWithTimeout(cl->host, cl->port, tv);
	if (!cl->rc || cl->rc->err) {
		snprintf(why, len, "%s", cl->rc ? cl->rc->errstr : "out of memory");
		ioqos__cl_disconnect(cl);
		return -1;
	}
	redisSetTimeout(cl->rc, tv);
	r = redisCommand(cl->rc, "SCRIPT LOAD %b", lease_lua, sizeof(lease_lua) - 1);
	if (!r || r->type != REDIS_REPLY_STRING || r->len >= sizeof(cl->sha)) {
		snprintf(why, len, "SCRIPT LOAD: %s", !r ? cl->rc->errstr :
			 r->type == REDIS_REPLY_ERROR ? r->str : "unexpected reply");
		if (r)
			freeReplyObject(r);
		ioqos__cl_disconnect(cl);
		return -1;
	}
	memcpy(cl->sha, r->str, r->len);
	cl->sha[r->len] = '\0';
	freeReplyObject(r);
	return 0;
}

/* one group's request and answer */
struct snap {
	char *key;
	uint64_t limit[IOQOS_CL_DIMS], demand[IOQOS_CL_DIMS];
	uint64_t share[IOQOS_CL_DIMS], live;
	bool ok;
};

static void fail(struct ioqos_cluster *cl, const char *why)
{
	char msg[400] = "";
	size_t n = 0;

	pthread_mutex_lock(&cl->lock);
	cl->st.failures++;
	if (!cl->down_since_ns) {
		cl->down_since_ns = ioqos__cl_now();
		cl->st.outages++;
		cl->st.state = IOQOS_CL_FALLBACK;
		for (uint32_t i = 0; i < cl->ng && n < sizeof(msg) - 80; i++) {
			struct cl_group *g = &cl->g[i];
			uint64_t live = g->live ? g->live : 1;

			n += (size_t)snprintf(msg + n, sizeof(msg) - n, " %s: 1/%" PRIu64, g->name,
					      live);
		}
		pthread_mutex_unlock(&cl->lock);
		ioqos__cl_logf(cl, "Redis at %s unreachable (%s): each lease runs out, "
			       "then the global limits are shared locally:%s", cl->addr, why,
			       n ? msg : " (no global groups)");
		return;
	}
	pthread_mutex_unlock(&cl->lock);
}

/* the answers are in: the new leases hold from @sent */
static void store(struct ioqos_cluster *cl, struct snap *s, uint32_t n, uint64_t sent)
{
	uint64_t now = ioqos__cl_now(), down = 0;
	bool ran_out = false, back = false;

	pthread_mutex_lock(&cl->lock);
	for (uint32_t i = 0; i < n; i++) {
		struct cl_group *g = NULL;

		if (!s[i].ok)
			continue;
		for (uint32_t k = 0; k < cl->ng && !g; k++)
			if (cl->g[k].key && strcmp(cl->g[k].key, s[i].key) == 0)
				g = &cl->g[k];
		if (!g)
			continue;              /* gone while we asked */
		/* on its fallback now (a lease that ended, or none at all) */
		if (g->leased ? now >= g->lease_end_ns : cl->down_since_ns != 0)
			ran_out = true;
		memcpy(g->share, s[i].share, sizeof(g->share));
		g->live = s[i].live;
		g->lease_end_ns = sent + cl->lease_ns;
		g->leased = true;
		if (g->live > cl->st.live || i == 0)
			cl->st.live = g->live;
	}
	cl->st.round_trips++;
	cl->st.state = IOQOS_CL_LEASED;
	cl->answered = true;
	if (cl->down_since_ns) {
		back = true;
		down = now - cl->down_since_ns;
		cl->down_since_ns = 0;
		/* some instance may still be on its fallback: cap for one lease */
		if (ran_out)
			cl->rejoin_until_ns = now + cl->lease_ns;
	}
	pthread_mutex_unlock(&cl->lock);
	if (back)
		ioqos__cl_logf(cl, "Redis at %s is back after %.1f s: leases again", cl->addr,
			       (double)down / 1e9);
}

int ioqos_cluster_renew(struct ioqos_cluster *cl)
{
	char why[256], num[10][24], lease_us[24];
	struct snap *s = NULL;
	uint32_t n, i;
	uint64_t sent;
	int ret = -1;

	if (!cl->rc && cl_connect(cl, why, sizeof(why)) < 0) {
		fail(cl, why);
		return -1;
	}
	pthread_mutex_lock(&cl->lock);
	n = cl->ng;
	s = calloc(n ? n : 1, sizeof(*s));
	for (i = 0; s && i < n; i++) {
		s[i].key = strdup(cl->g[i].key);
		if (!s[i].key)
			break;
		memcpy(s[i].limit, cl->g[i].limit, sizeof(s[i].limit));
		memcpy(s[i].demand, cl->g[i].demand, sizeof(s[i].demand));
	}
	pthread_mutex_unlock(&cl->lock);
	if (!s || i < n) {
		fail(cl, "out of memory");
		goto out;
	}
	snprintf(lease_us, sizeof(lease_us), "%" PRIu64, cl->lease_ns / 1000);
	sent = ioqos__cl_now();
	for (i = 0; i < n; i++) {
		const char *argv[14] = { "EVALSHA", cl->sha, "1", s[i].key, cl->id, lease_us };

		for (int d = 0; d < IOQOS_CL_DIMS; d++) {
			uint64_t R = s[i].limit[d] == IOQOS_UNLIMITED ? 0 : s[i].limit[d];
			uint64_t D = s[i].demand[d];

			R = R > CL_RATE_MAX ? CL_RATE_MAX : R;
			D = D > R ? R : D;
			snprintf(num[d], sizeof(num[d]), "%" PRIu64, R);
			snprintf(num[4 + d], sizeof(num[4 + d]), "%" PRIu64, D);
			argv[6 + d] = num[d];
			argv[10 + d] = num[4 + d];
		}
		redisAppendCommandArgv(cl->rc, 14, argv, NULL);
	}
	for (i = 0; i < n; i++) {
		redisReply *r = NULL;

		if (redisGetReply(cl->rc, (void **)&r) != REDIS_OK || !r) {
			snprintf(why, sizeof(why), "%s", cl->rc->errstr[0] ? cl->rc->errstr :
				 "no reply");
			ioqos__cl_disconnect(cl);
			fail(cl, why);
			goto out;
		}
		if (r->type == REDIS_REPLY_ARRAY && r->elements == 5) {
			s[i].ok = true;
			for (size_t k = 0; k < 5; k++) {
				redisReply *e = r->element[k];

				if (e->type != REDIS_REPLY_INTEGER || e->integer < 0)
					s[i].ok = false;
				else if (k < 4)
					s[i].share[k] = (uint64_t)e->integer;
				else
					s[i].live = (uint64_t)e->integer;
			}
		}
		if (!s[i].ok) {
			bool noscript = r->type == REDIS_REPLY_ERROR &&
					strncmp(r->str, "NOSCRIPT", 8) == 0;

			uint64_t errs;

			pthread_mutex_lock(&cl->lock);
			errs = ++cl->st.script_errors;
			pthread_mutex_unlock(&cl->lock);
			if (errs == 1 || noscript)
				ioqos__cl_logf(cl, "%s: the lease script answered %s", s[i].key,
					       r->type == REDIS_REPLY_ERROR ? r->str :
					       "something else");
			if (noscript)          /* the script cache was flushed: reconnect */
				ioqos__cl_disconnect(cl);
		}
		freeReplyObject(r);
	}
	if (!cl->rc) {
		fail(cl, "the lease script was not loaded");
		goto out;
	}
	store(cl, s, n, sent);
	ret = 0;
out:
	for (i = 0; s && i < n; i++)
		free(s[i].key);
	free(s);
	return ret;
}

void *ioqos__cl_thread(void *arg)
{
	struct ioqos_cluster *cl = arg;
	sigset_t all;

	/* signals are the front end's; a write to a Redis that died must
	 * fail with EPIPE, not kill the process (SIGPIPE stays pending here) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&cl->lock);
	while (!cl->stop) {
		uint64_t start = ioqos__cl_now(), next;
		int ret;

		pthread_mutex_unlock(&cl->lock);
		ret = ioqos_cluster_renew(cl);
		pthread_mutex_lock(&cl->lock);
		next = start + (ret < 0 ? cl->lease_ns / 4 : cl->lease_ns / 2);
		if (cl->stop)
			break;
		struct timespec ts = { .tv_sec = (time_t)(next / CL_NS_PER_S),
				       .tv_nsec = (long)(next % CL_NS_PER_S) };

		pthread_cond_timedwait(&cl->cond, &cl->lock, &ts);
	}
	pthread_mutex_unlock(&cl->lock);
	return NULL;
}
