/* SPDX-License-Identifier: MIT */
/*
 * The renewal thread: every lease renewed at half its length, in
 * pipelined round trips of up to CL_RENEW_BATCH groups each.
 *
 *   thread                                   Redis
 *   ── snapshot a batch (cl->lock) ──┐
 *                                    ├─ EVALSHA lease KEY id L R.. D.. ─►  refill, refund,
 *                                    ├─ EVALSHA lease KEY ...           ─►  split, charge
 *   ◄────────────────────────────────┴─ {s0 s1 s2 s3 n} ...            ◄─
 *   ── store shares, lease end = sent + L (cl->lock) ──
 *   ── the next batch, until every group is renewed ──
 *
 * The commands are pipelined (hiredis appends them, then reads every
 * reply), so an instance makes 2 / L round trips a second per batch,
 * whatever its request rate.  A lease's end is counted from when its
 * batch was sent, on the local clock: never later than the end the
 * server counts, so clock skew between machines does not matter (only
 * Redis's clock refills the buckets).
 *
 * Why batches.  One round trip for every group made a renewal of 100,000
 * groups one 15 MB write and 100,000 answers read before any was stored,
 * each answer then searched for its group among all of them under
 * cl->lock: 0.5 s a round at 10,000 groups, during which every tick (and
 * so every request of the front end) waited.  Now a batch is snapshot and
 * stored under cl->lock in a constant time (each answer finds its group
 * by its bucket's name, groups.c), and a lease counts from its own
 * batch's sending, not from the round's.  Redis's own time for a lease
 * call remains (35 to 50 us measured on a shared 2-CPU machine): it
 * bounds the groups one Redis can renew every L/2, about 1,000 at the
 * default lease of 100 ms; with more, rounds take longer than L/2, leases
 * run out between them, and the groups live on the fallback of local.c
 * (docs/CLUSTER.md, the figures).
 *
 * Failures.  Connecting and every reply have a timeout (half a lease by
 * default), so a renewal that fails does so while the lease in force still
 * has half its length to run; the thread then tries again every quarter
 * of a lease.  The first failure of an outage is logged, with the local
 * limits the groups fall back to when their leases end (local.c); the
 * first success after it is logged too.  A lease call that answers an
 * error (the bucket's key holds a string or a list, Redis is out of
 * memory, the script refused its arguments) is that group's outage: its
 * lease runs out and it takes the fallback, as when Redis is lost, until
 * a call answers a lease again; the first error and the first lease after
 * them are logged, once per group.  On a new connection the script is
 * loaded again (SCRIPT LOAD), so a restarted Redis is rejoined without
 * any help; a script cache flushed under a live connection (NOSCRIPT) is
 * refilled by sending the script itself (EVAL) in the same batch, which
 * is then no outage (logged the first time).
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
	char name[IOQOS_CL_NAME_MAX + 1];  /* its bucket */
	uint64_t limit[IOQOS_CL_DIMS], demand[IOQOS_CL_DIMS];
	uint64_t share[IOQOS_CL_DIMS], live;
	bool ok;                      /* a lease was granted */
	bool noscript;                /* the script was not in Redis's cache */
	char why[IOQOS_CL_REASON_MAX]; /* not ok: the error answered */
	/* what store() found, for the messages it leaves to the caller */
	enum { SNAP_SAME, SNAP_FAILING, SNAP_BACK } event;
	uint64_t fb_n;                /* SNAP_FAILING: the group falls back to 1/fb_n */
	bool had_lease;               /* SNAP_FAILING: after a lease, not at once */
	uint64_t down_ns;             /* SNAP_BACK: how long it failed */
};

/* one renewal, over its batches */
struct round {
	bool stored;                  /* a batch was stored */
	bool was_down;                /* it ends an outage of Redis */
};

static void fail(struct ioqos_cluster *cl, const char *why)
{
	char msg[400] = "";
	size_t n = 0;

	pthread_mutex_lock(&cl->lock);
	cl->st.failures++;
	if (!cl->down_since_ns) {
		cl->down_since_ns = ioqos__cl_now();
		ioqos__cl_oneline(cl->down_why, sizeof(cl->down_why), why);
		cl->st.outages++;
		cl->pass_wanted = true;        /* the groups with no lease fall back */
		for (uint32_t i = 0; i < cl->ng && n < sizeof(msg) - 80; i++) {
			struct cl_group *g = cl->g[i];
			uint64_t live = g->live ? g->live : 1;

			CL_VISIT(cl);
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

/*
 * A batch's answers are in: the new leases hold from @sent.  A group whose
 * call answered an error keeps the lease it had, to run out, and is on its
 * fallback from then on, as in an outage; its first error and its first
 * answer after them are marked in its snap for the caller to log.  The
 * first batch of a round after an outage of Redis ends it.
 */
static void store(struct ioqos_cluster *cl, struct snap *s, uint32_t n, uint64_t sent,
		  struct round *rd)
{
	uint64_t now = ioqos__cl_now(), down = 0;
	bool back = false;

	pthread_mutex_lock(&cl->lock);
	if (!rd->stored)
		rd->was_down = cl->down_since_ns != 0;
	for (uint32_t i = 0; i < n; i++) {
		struct cl_group *g = ioqos__cl_on_bucket(cl, s[i].name);
		bool out, rejoin;

		if (!g)
			continue;              /* gone, or moved, while we asked */
		if (!s[i].ok) {
			cl->st.script_errors++;
			if (!g->fail_since_ns) {
				ioqos__cl_failing(cl, g, now, s[i].why);
				cl->st.outages++;
				s[i].event = SNAP_FAILING;
				s[i].fb_n = g->live ? g->live : 1;
				s[i].had_lease = g->leased;
				ioqos__cl_stored(cl, g, false);
			}
			continue;
		}
		/* on its fallback now (a lease that ended, or none at all) */
		out = g->leased ? now >= g->lease_end_ns : rd->was_down || g->fail_since_ns != 0;
		/* some instance may still be on its fallback: cap for one lease */
		if (rd->was_down && out)
			cl->rejoin_until_ns = now + cl->lease_ns;
		rejoin = g->fail_since_ns && out;
		if (g->fail_since_ns) {
			if (rejoin)
				g->rejoin_until_ns = now + cl->lease_ns;
			s[i].event = SNAP_BACK;
			s[i].down_ns = now - g->fail_since_ns;
			ioqos__cl_answers(cl, g);
		}
		memcpy(g->share, s[i].share, sizeof(g->share));
		g->live = s[i].live;
		g->lease_end_ns = sent + cl->lease_ns;
		g->leased = true;
		ioqos__cl_stored(cl, g, rejoin);
		if (g->live > cl->st.live || !rd->stored)
			cl->st.live = g->live;
		rd->stored = true;
	}
	cl->answered = true;
	if (cl->down_since_ns) {
		back = true;
		down = now - cl->down_since_ns;
		cl->down_since_ns = 0;
		cl->pass_wanted = true;        /* the groups with no lease join again */
	}
	rd->stored = true;
	pthread_mutex_unlock(&cl->lock);
	if (back)
		ioqos__cl_logf(cl, "Redis at %s is back after %.1f s: leases again", cl->addr,
			       (double)down / 1e9);
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].event == SNAP_FAILING)
			ioqos__cl_logf(cl, "%s%s: the lease script fails (%s): %s: 1/%" PRIu64,
				       cl->prefix, s[i].name, s[i].why, s[i].had_lease ?
				       "the lease runs out, then the global limits are shared "
				       "locally" : "no lease held, the global limits are shared "
				       "locally at once", s[i].fb_n);
		else if (s[i].event == SNAP_BACK)
			ioqos__cl_logf(cl, "%s%s: the lease script answers again after %.1f s: "
				       "leases again", cl->prefix, s[i].name,
				       (double)s[i].down_ns / 1e9);
	}
}

/* send @s's lease call: by its SHA (EVALSHA), or the script itself (EVAL) */
static void append_lease(struct ioqos_cluster *cl, const struct snap *s, bool by_sha,
			 const char *lease_us)
{
	char key[IOQOS_CL_PREFIX_MAX + IOQOS_CL_NAME_MAX + 1];
	const char *argv[14] = { by_sha ? "EVALSHA" : "EVAL", by_sha ? cl->sha : lease_lua,
				 "1", key, cl->id, lease_us };
	char num[8][24];

	snprintf(key, sizeof(key), "%s%s", cl->prefix, s->name);
	for (int d = 0; d < IOQOS_CL_DIMS; d++) {
		uint64_t R = s->limit[d] == IOQOS_UNLIMITED ? 0 : s->limit[d];
		uint64_t D = s->demand[d];

		R = R > CL_RATE_MAX ? CL_RATE_MAX : R;
		D = D > R ? R : D;
		snprintf(num[d], sizeof(num[d]), "%" PRIu64, R);
		snprintf(num[4 + d], sizeof(num[4 + d]), "%" PRIu64, D);
		argv[6 + d] = num[d];
		argv[10 + d] = num[4 + d];
	}
	redisAppendCommandArgv(cl->rc, 14, argv, NULL);
}

/*
 * Read @s's answer: a lease ({s0 s1 s2 s3 n}, s->ok), or an error, its
 * text in s->why (NOSCRIPT: s->noscript).  0, or -1 with the reason in
 * @why when the connection failed.
 */
static int read_lease(struct ioqos_cluster *cl, struct snap *s, char *why, size_t len)
{
	redisReply *r = NULL;

	if (redisGetReply(cl->rc, (void **)&r) != REDIS_OK || !r) {
		snprintf(why, len, "%s", cl->rc->errstr[0] ? cl->rc->errstr : "no reply");
		return -1;
	}
	s->ok = r->type == REDIS_REPLY_ARRAY && r->elements == 5;
	for (size_t k = 0; s->ok && k < 5; k++) {
		redisReply *e = r->element[k];

		if (e->type != REDIS_REPLY_INTEGER || e->integer < 0)
			s->ok = false;
		else if (k < 4)
			s->share[k] = (uint64_t)e->integer;
		else
			s->live = (uint64_t)e->integer;
	}
	s->noscript = r->type == REDIS_REPLY_ERROR && strncmp(r->str, "NOSCRIPT", 8) == 0;
	if (r->type == REDIS_REPLY_ERROR)
		ioqos__cl_oneline(s->why, sizeof(s->why), r->str);
	else if (!s->ok)
		snprintf(s->why, sizeof(s->why), "an answer that is not a lease (type %d, "
			 "%zu elements)", r->type, r->elements);
	freeReplyObject(r);
	return 0;
}

/* the next batch of the round, from group @*at on: how many (cl->lock
 * taken here); *more says whether groups are left after it */
static uint32_t snapshot(struct ioqos_cluster *cl, struct snap *s, uint32_t *at, bool *more)
{
	uint32_t n = 0;

	pthread_mutex_lock(&cl->lock);
	for (; *at < cl->ng && n < CL_RENEW_BATCH; ++*at) {
		const struct cl_group *g = cl->g[*at];

		CL_VISIT(cl);
		if (!g->key)
			continue;              /* between buckets: renewed once it has one */
		memset(&s[n], 0, sizeof(s[n]));
		snprintf(s[n].name, sizeof(s[n].name), "%s", g->name);
		memcpy(s[n].limit, g->limit, sizeof(s[n].limit));
		memcpy(s[n].demand, g->demand, sizeof(s[n].demand));
		n++;
	}
	*more = *at < cl->ng;
	pthread_mutex_unlock(&cl->lock);
	return n;
}

/* one batch's round trip, and its second for the groups that answered
 * NOSCRIPT; 0, or -1 with the reason in @why when the connection failed */
static int batch(struct ioqos_cluster *cl, struct snap *s, uint32_t n,
		 const char *lease_us, char *why, size_t len)
{
	uint32_t i, retry = 0;

	for (i = 0; i < n; i++)
		append_lease(cl, &s[i], true, lease_us);
	for (i = 0; i < n; i++) {
		if (read_lease(cl, &s[i], why, len) < 0)
			return -1;
		retry += s[i].noscript;
	}
	if (!retry)
		return 0;
	/* the script cache was flushed (SCRIPT FLUSH, or a Redis restarted
	 * behind a proxy): send the script itself, which caches it again;
	 * the leases still count from when the batch was sent */
	for (i = 0; i < n; i++)
		if (s[i].noscript)
			append_lease(cl, &s[i], false, lease_us);
	for (i = 0; i < n; i++)
		if (s[i].noscript && read_lease(cl, &s[i], why, len) < 0)
			return -1;
	if (!cl->noscript_told)
		ioqos__cl_logf(cl, "the lease script was not in Redis's cache (NOSCRIPT): "
			       "sent whole, as it will be whenever that happens again");
	cl->noscript_told = true;
	return 0;
}

int ioqos_cluster_renew(struct ioqos_cluster *cl)
{
	char why[256], lease_us[24];
	struct round rd = { 0 };
	struct snap *s;
	uint32_t at = 0, n;
	bool more = true;

	if (!cl->rc && cl_connect(cl, why, sizeof(why)) < 0) {
		fail(cl, why);
		return -1;
	}
	s = malloc(CL_RENEW_BATCH * sizeof(*s));
	if (!s) {
		fail(cl, "out of memory");
		return -1;
	}
	snprintf(lease_us, sizeof(lease_us), "%" PRIu64, cl->lease_ns / 1000);
	while (more) {
		uint64_t sent;

		n = snapshot(cl, s, &at, &more);
		if (!n && (more || rd.stored))
			continue;
		sent = ioqos__cl_now();
		if (batch(cl, s, n, lease_us, why, sizeof(why)) < 0) {
			ioqos__cl_disconnect(cl);
			fail(cl, why);
			free(s);
			return -1;
		}
		store(cl, s, n, sent, &rd);
	}
	pthread_mutex_lock(&cl->lock);
	cl->st.round_trips++;
	pthread_mutex_unlock(&cl->lock);
	free(s);
	return 0;
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
