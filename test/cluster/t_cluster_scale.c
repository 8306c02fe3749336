/* SPDX-License-Identifier: MIT */
/*
 * What a global group costs the module, counted, not timed: every group
 * record the module looks at (a search's probe, a walk's step) adds one to
 * cl->visits, and a call must not look at the groups it does not concern.
 * No clock is read for a check: the ticks run in virtual time, and the
 * renewals, on a real redis-server (skipped without one), count the same
 * however long they take.
 *
 *   registering  4,096 groups one at a time: none looks at more than 128
 *                records, 16 on average (five searches of a map, each a
 *                few slots; each walked every group three times: 12,000
 *                records for the last)
 *   ticking      with nothing to do, a tick looks at no group; after a
 *                renewal, the ticks look at each group it stored once,
 *                CL_TICK_BATCH a call
 *   loading      a replacing load of 4,096 global groups, then the same
 *                file with a comment, look at 16 records a group at most
 *   reloading    parsed, then put in force in steps of 32 groups as
 *                the filter reloads: the steps of a comment, of every
 *                limit doubled, of every group on another bucket look at
 *                no record, those that add a group or let two go at 16
 *                at most; the changed groups follow in one pass of
 *                ticks; a config parsed before a registration is refused
 *   renewing     a round for 2,048 groups looks at 4 records a group at
 *                most, the second as the first (each answer searched the
 *                groups for its own: 2 million records a round)
 */
#include <pthread.h>

#include "redis.h"

#include <ioqos_cluster.h>

#include "internal.h"

#define NG 4096                /* groups registered, ticked, loaded */
#define NR 2048                /* groups renewed */

static uint64_t visits(struct ioqos_cluster *cl)
{
	uint64_t v;

	pthread_mutex_lock(&cl->lock);
	v = cl->visits;
	pthread_mutex_unlock(&cl->lock);
	return v;
}

/* "/gI rbps=RATE global=gI" for I < n, then @tail */
static char *config(unsigned n, const char *rate, const char *tail, size_t *len)
{
	size_t cap = (size_t)n * 48 + 64, o = 0;
	char *s = malloc(cap);

	if (!s)
		CHECK_FATAL("out of memory");
	for (unsigned i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, cap - o, "/g%u rbps=%s global=g%u\n", i, rate, i);
	o += (size_t)snprintf(s + o, cap - o, "%s", tail);
	*len = o;
	return s;
}

/*
 * A cluster object whose renewals never time out on a machine that stalls
 * (a minute's lease, half of it to answer): what is counted must not
 * depend on how busy the machine is.
 */
static struct ioqos_cluster *fresh(struct ioqos **q, const char *addr)
{
	static const struct ioqos_cluster_opts o = { .lease_ns = T_S(60),
						     .timeout_ns = T_S(30) };
	char err[256] = "out of memory";
	struct ioqos_cluster *cl;

	*q = ioqos_new();
	cl = *q ? ioqos_cluster_new(*q, addr, &o, err, sizeof(err)) : NULL;
	if (!cl)
		CHECK_FATAL("a cluster object: %s", err);
	return cl;
}

static void registering(void)
{
	uint64_t lim[IOQOS_CL_DIMS] = { MIB, IOQOS_UNLIMITED, IOQOS_UNLIMITED, IOQOS_UNLIMITED };
	uint64_t most = 0, all = 0, now = T_S(1), next, v;
	struct ioqos *q;
	struct ioqos_cluster *cl = fresh(&q, "unix:/nonexistent/redis.sock");
	char err[256] = "", path[32], name[32];
	unsigned ok = 0;

	for (unsigned i = 0; i < NG; i++) {
		uint64_t cost = visits(cl);

		snprintf(path, sizeof(path), "/g%u", i);
		snprintf(name, sizeof(name), "g%u", i);
		ok += ioqos_cluster_register(cl, path, name, lim, now, err, sizeof(err)) == 0;
		cost = visits(cl) - cost;
		all += cost;
		most = cost > most ? cost : most;
	}
	CHECK_EQ("groups registered", NG, ok);
	CHECK_LE("records the costliest registration looked at", most, 128);
	CHECK_LE("records a registration looked at, on average (x 100)", all * 100 / NG, 1600);

	/* nothing has happened to any group: a tick looks at none */
	v = visits(cl);
	next = ioqos_cluster_tick(cl, now);
	CHECK_EQ("records a tick with nothing to do looked at", 0, visits(cl) - v);
	CHECK_EQ("and it asks for the next in L/4", now + T_S(15), next);
	ioqos_cluster_free(cl);
	ioqos_free(q);
}

static void loading(void)
{
	struct ioqos *q;
	struct ioqos_cluster *cl = fresh(&q, "unix:/nonexistent/redis.sock");
	char err[256] = "";
	size_t len;
	char *conf = config(NG, "1M", "# and a comment\n", &len);
	uint64_t v;

	v = visits(cl);
	CHECK(ioqos_cluster_load_buf_replace(cl, "t.qos", conf, len - 16, 0, NULL, NULL, err,
					     sizeof(err)) == 0, "%u global groups load (%s)",
	      NG, err);
	CHECK_LE("records the load looked at (a group, x 100)",
		 (visits(cl) - v) * 100 / NG, 1600);
	v = visits(cl);
	CHECK(ioqos_cluster_load_buf_replace(cl, "t.qos", conf, len, 0, NULL, NULL, err,
					     sizeof(err)) == 0, "again, with a comment (%s)",
	      err);
	CHECK_LE("records the second load looked at (a group, x 100)",
		 (visits(cl) - v) * 100 / NG, 1600);
	free(conf);
	ioqos_cluster_free(cl);
	ioqos_free(q);
}

/* @path's global limit and bucket in the module (cl->lock) */
static bool group_is(struct ioqos_cluster *cl, const char *path, uint64_t rbps,
		     const char *name)
{
	const struct cl_group *g;
	bool ok;

	pthread_mutex_lock(&cl->lock);
	g = ioqos__cl_find(cl, path);
	ok = g && g->limit[IOQOS_CL_RBPS] == rbps && strcmp(g->name, name) == 0;
	pthread_mutex_unlock(&cl->lock);
	return ok;
}

/*
 * Parse @conf and put it in force in steps of 32 groups, as the filter
 * does: the records the module looked at in all the steps (the library's
 * steps look at groups of the controller, not at the module's records)
 */
static uint64_t commit(struct ioqos_cluster *cl, const char *conf, size_t len,
		       const char *what)
{
	struct ioqos_cluster_conf *c;
	char err[256] = "";
	unsigned steps = 1;
	uint64_t v;
	int ret;

	if (ioqos_cluster_conf_parse(cl, "t.qos", conf, len, &c, err, sizeof(err)) < 0) {
		CHECK(false, "%s: parsed (%s)", what, err);
		return UINT64_MAX;
	}
	v = visits(cl);
	while ((ret = ioqos_cluster_conf_apply(cl, c, T_S(2), 32, NULL, NULL, err,
					       sizeof(err))) == 1)
		steps++;
	v = visits(cl) - v;
	CHECK(ret == 0 && steps >= 3 * NG / 32, "%s: put in force in %u steps of 32 groups "
	      "(%s)", what, steps, err);
	ioqos_cluster_conf_free(c);
	return v;
}

/* ticks in virtual time from @now until one asks for no other at once:
 * the calls made */
static unsigned pass(struct ioqos_cluster *cl, uint64_t now)
{
	unsigned calls = 0;

	while (ioqos_cluster_tick(cl, now) < now + T_MS(1) && calls < NG)
		now += T_US(100), calls++;
	return calls + 1;
}

/*
 * Reloads as the filter makes them (parsed, then put in force in steps
 * under its lock): of 4,096 global groups, one that appends a comment,
 * one that doubles every limit, one that moves every group to another
 * bucket and two to each other's, one that adds a group, one that lets
 * two go.  The steps look at a handful of the module's records (the
 * groups that come and go, none for the others) and leave the local
 * limits as they are; the changed groups take their new limits and
 * buckets in one pass of ticks, a batch a call.
 */
static void reloading(void)
{
	struct ioqos *q;
	struct ioqos_cluster *cl = fresh(&q, "unix:/nonexistent/redis.sock");
	size_t len;
	char *conf = config(NG, "1M", "", &len), *moved, err[256] = "";
	uint64_t loc[IOQOS_CL_DIMS];
	struct ioqos_limits L;

	CHECK(ioqos_cluster_load_buf_replace(cl, "t.qos", conf, len, 0, NULL, NULL, err,
					     sizeof(err)) == 0, "%u global groups (%s)", NG, err);
	free(conf);
	conf = config(NG, "1M", "# a comment\n", &len);
	CHECK_LE("records the steps of a comment looked at",
		 commit(cl, conf, len, "a comment"), 0);
	free(conf);
	conf = config(NG, "2M", "# a comment\n", &len);
	CHECK_LE("records the steps of every limit doubled looked at",
		 commit(cl, conf, len, "every limit doubled"), 0);
	CHECK(group_is(cl, "/g7", MIB, "g7"), "/g7 keeps its limit until the tick comes");
	ioqos_cluster_local(cl, "/g7", loc);
	ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/g7"), &L);
	CHECK_EQ("and the steps left its local limit as the module set it",
		 loc[IOQOS_CL_RBPS], L.bps[IOQOS_READ]);
	CHECK_EQ("ticks of the pass", (NG + CL_TICK_BATCH - 1) / CL_TICK_BATCH, pass(cl, T_S(3)));
	CHECK(group_is(cl, "/g7", 2 * MIB, "g7") && group_is(cl, "/g4095", 2 * MIB, "g4095"),
	      "after a pass, every group has the new limit");
	/* every group on another bucket, /g0 and /g1 swapping theirs */
	free(conf);
	conf = config(NG, "2M", "", &len);
	moved = malloc(len + 64);
	if (!moved)
		CHECK_FATAL("out of memory");
	len = 0;
	for (unsigned i = 0; i < NG; i++)
		len += (size_t)sprintf(moved + len, "/g%u rbps=2M global=%s%u\n", i,
				       i < 2 ? "g" : "h", i < 2 ? 1 - i : i);
	CHECK_LE("records the steps of every bucket moved looked at",
		 commit(cl, moved, len, "every bucket moved"), 0);
	pass(cl, T_S(4));
	CHECK(group_is(cl, "/g0", 2 * MIB, "g1") && group_is(cl, "/g1", 2 * MIB, "g0") &&
	      group_is(cl, "/g9", 2 * MIB, "h9"), "after a pass, /g0 and /g1 have swapped "
	      "their buckets, /g9 is on h9");
	len += (size_t)sprintf(moved + len, "/new rbps=5M global=new\n");
	CHECK_LE("records the steps of one group added looked at",
		 commit(cl, moved, len, "a group added"), 16);
	CHECK(group_is(cl, "/new", 5 * MIB, "new"), "it is in at once");
	/* /g5 loses global= (its line keeps rbps=2M, in force as the file's),
	 * /new leaves the file */
	len = 0;
	for (unsigned i = 0; i < NG; i++)
		len += i == 5 ? (size_t)sprintf(moved + len, "/g5 rbps=2M\n") :
		       (size_t)sprintf(moved + len, "/g%u rbps=2M global=%s%u\n", i,
				       i < 2 ? "g" : "h", i < 2 ? 1 - i : i);
	CHECK_LE("records the steps of two groups gone looked at",
		 commit(cl, moved, len, "two groups gone"), 16);
	CHECK(ioqos_cluster_local(cl, "/g5", loc) == -ENOENT &&
	      ioqos_cluster_local(cl, "/new", loc) == -ENOENT, "/g5 and /new are "
	      "global no longer");
	CHECK(ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/g5"), &L) == 0 &&
	      L.bps[IOQOS_READ] == 2 * MIB, "/g5 has its line's rbps=2M, in force as the "
	      "file's");
	/* a group registered between a parse and its steps: the parsed
	 * config is stale, and refused */
	{
		struct ioqos_cluster_conf *c;
		uint64_t lim[IOQOS_CL_DIMS] = { MIB, IOQOS_UNLIMITED, IOQOS_UNLIMITED,
						IOQOS_UNLIMITED };

		CHECK(ioqos_cluster_conf_parse(cl, "t.qos", moved, len, &c, err,
					       sizeof(err)) == 0 &&
		      ioqos_cluster_register(cl, "/alone", "alone", lim, T_S(6), err,
					     sizeof(err)) == 0 &&
		      ioqos_cluster_conf_apply(cl, c, T_S(6), 32, NULL, NULL, err,
					       sizeof(err)) == -ESTALE,
		      "a stale config is refused (%s)", err);
		ioqos_cluster_conf_free(c);
	}
	free(moved);
	free(conf);
	ioqos_cluster_free(cl);
	ioqos_free(q);
}

static void renewing(void)
{
	static struct redis_srv srv;
	struct ioqos_cluster_status st;
	struct ioqos *q;
	struct ioqos_cluster *cl;
	char err[256] = "";
	size_t len;
	char *conf = config(NR, "1M", "", &len);

	if (system("command -v redis-server >/dev/null 2>&1") != 0) {
		th_skip("renewing", "redis-server is not installed");
		free(conf);
		return;
	}
	redis_start(&srv);
	cl = fresh(&q, srv.addr);
	signal(SIGPIPE, SIG_IGN);         /* as the thread blocks it */
	CHECK(ioqos_cluster_load_buf(cl, "t.qos", conf, len, 0, err, sizeof(err)) == 0,
	      "%u global groups load (%s)", NR, err);
	for (int round = 1; round <= 2; round++) {
		uint64_t v = visits(cl);
		unsigned calls;

		CHECK(ioqos_cluster_renew(cl) == 0, "renewal %d answered", round);
		CHECK_LE("records a renewal looked at (a group, x 100)",
			 (visits(cl) - v) * 100 / NR, 400);
		/* the ticks set what it stored, each group once, a batch a
		 * call (in virtual time, long before any lease ends) */
		v = visits(cl);
		calls = pass(cl, T_S(round));
		CHECK_EQ("records the ticks after it looked at", NR, visits(cl) - v);
		CHECK_EQ("ticks", (NR + CL_TICK_BATCH - 1) / CL_TICK_BATCH, calls);
	}
	ioqos_cluster_status(cl, &st);
	CHECK(st.state == IOQOS_CL_LEASED && st.round_trips == 2 && st.failures == 0 &&
	      st.groups == NR, "leased, 2 renewals, none failed, %u groups (state %d, %" PRIu64
	      " renewals, %" PRIu64 " failed, %u groups)", NR, (int)st.state, st.round_trips,
	      st.failures, st.groups);
	free(conf);
	ioqos_cluster_free(cl);
	ioqos_free(q);
}

int main(void)
{
	registering();
	loading();
	reloading();
	renewing();
	return th_exit();
}
