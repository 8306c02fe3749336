/* SPDX-License-Identifier: MIT */
/*
 * A Redis that answers, but with errors: the lease script fails on every
 * call.  Two ways, each run on its own redis-server under two backlogged
 * instances sharing rbps=30M:
 *
 *   wrong type   the bucket's key holds a string (then a list), not a hash:
 *                the script's HGETALL answers WRONGTYPE
 *   out of memory  maxmemory 1 with noeviction: the script's HSET answers OOM
 *
 *   0   - 1   s  broken before the instances start: they never had a lease
 *   1   - 2.6 s  mended (the key deleted, the memory raised); at 1.8 and
 *                2.1 s the script cache is flushed (SCRIPT FLUSH): NOSCRIPT
 *   2.6 - 4   s  broken again, now under leases
 *   4   - 5.5 s  mended again
 *
 * Checked, as t_cluster_fault checks an unreachable Redis: from 0.3 s to
 * 1 s every local limit is exactly R (an instance that never had an answer
 * knows of no other: R / 1) and each instance gets it within 2%; from 0.3 s
 * after the second break every local limit is exactly R / 2 and the total
 * within 2% of R; in both the state is fallback, its reason names the
 * error, and each breakage is logged once (not once per renewal).  Half a
 * second after each mend both instances hold leases again and over the
 * next second the total is within 2% of R.  A flushed script cache is no
 * breakage: the script is sent again at once, the leases go on (no outage;
 * logged once at most by an instance, for both flushes).  From when the leases first hold, the
 * total never exceeds R x t + one lease, the second breakage and its
 * mending included.
 */
#include "redis.h"
#include "drive.h"

#define R (30 * MIB)
#define KEY "ioqos:tenant"

static const char conf[] = "/t rbps=30M global=tenant burst=100ms\n";

static void run(redisContext *c, const char *fmt, ...)
{
	va_list ap;
	redisReply *r;

	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	if (!r || r->type == REDIS_REPLY_ERROR) {
		fprintf(stderr, "redis: %s\n", r ? r->str : c->errstr);
		exit(1);
	}
	freeReplyObject(r);
}

struct breakage {
	const char *name;
	const char *word;          /* in the error Redis answers */
	void (*spoil)(redisContext *c, int round);
	void (*mend)(redisContext *c);
};

static void wrong_type(redisContext *c, int round)
{
	if (round == 0) {
		run(c, "SET %s garbage", KEY);
		return;
	}
	run(c, "RPUSH ioqos-test:list a b");     /* put in place at once */
	run(c, "RENAME ioqos-test:list %s", KEY);
}

static void wrong_type_mend(redisContext *c)
{
	run(c, "DEL %s", KEY);
}

static void oom(redisContext *c, int round)
{
	(void)round;
	run(c, "CONFIG SET maxmemory-policy noeviction");
	run(c, "CONFIG SET maxmemory 1");
}

static void oom_mend(redisContext *c)
{
	run(c, "CONFIG SET maxmemory 0");
}

static const struct breakage kinds[] = {
	{ "wrong type", "WRONGTYPE", wrong_type, wrong_type_mend },
	{ "out of memory", "OOM", oom, oom_mend },
};

/* both instances: state @state, and a reason with @word (NULL: none) */
static void check_state(struct drive *d, const struct breakage *k, const char *when,
			enum ioqos_cl_state state, const char *word)
{
	struct ioqos_cluster_status st;

	for (unsigned i = 0; i < d->n; i++) {
		ioqos_cluster_status(d->in[i].cl, &st);
		CHECK(st.state == state && (word ? strstr(st.reason, word) != NULL :
					    st.reason[0] == '\0'),
		      "%s, %s: instance %u's state %d, reason '%s'", k->name, when, i,
		      (int)st.state, st.reason);
	}
}

/* every local limit over samples [a, b] is @lim */
static void check_limits(struct drive *d, const struct breakage *k, const char *when,
			 unsigned a, unsigned b, uint64_t lim)
{
	bool exact = true;

	for (unsigned s = a; s <= b; s++)
		for (unsigned i = 0; i < d->n; i++)
			exact &= CHECK_SILENT(d->limit[s][i] == lim,
					      "at %.2f s instance %u's limit %" PRIu64,
					      (double)d->at_ns[s] / 1e9, i, d->limit[s][i]);
	CHECK(exact, "%s, %s: every local limit is %" PRIu64, k->name, when, lim);
}

/* each instance logged @word @n times so far */
static void check_logged(struct drive *d, const struct breakage *k, const char *word,
			 unsigned n)
{
	for (unsigned i = 0; i < d->n; i++)
		CHECK(drive_logged(i, word) == n, "%s: instance %u logged '%s' %u times (%u)",
		      k->name, i, word, n, drive_logged(i, word));
}

static void scenario(struct redis_srv *srv, const struct breakage *k)
{
	static struct drive d;
	struct ioqos_cluster_status st;
	redisContext *c;
	uint64_t outages[2];
	unsigned a, b, from;

	printf("# %s\n", k->name);
	redis_start(srv);
	c = redis_connect(srv);
	k->spoil(c, 0);
	drive_init(&d, 2, srv->addr, conf);
	d.in[0].backlog = 2;
	d.in[1].backlog = 2;
	drive_run(&d, T_MS(1000));
	check_state(&d, k, "joined broken", IOQOS_CL_FALLBACK, k->word);
	k->mend(c);
	drive_run(&d, T_MS(1800));
	run(c, "SCRIPT FLUSH");
	drive_run(&d, T_MS(2100));
	for (unsigned i = 0; i < 2; i++) {
		ioqos_cluster_status(d.in[i].cl, &st);
		outages[i] = st.outages;
	}
	run(c, "SCRIPT FLUSH");
	drive_run(&d, T_MS(2600));
	check_state(&d, k, "mended", IOQOS_CL_LEASED, NULL);
	for (unsigned i = 0; i < 2; i++) {
		ioqos_cluster_status(d.in[i].cl, &st);
		CHECK(st.outages == outages[i], "%s: instance %u: a flushed script cache is "
		      "no outage (%" PRIu64 ", then %" PRIu64 ")", k->name, i, outages[i],
		      st.outages);
	}
	k->spoil(c, 1);
	drive_run(&d, T_MS(4000));
	check_state(&d, k, "broken under leases", IOQOS_CL_FALLBACK, k->word);
	k->mend(c);
	drive_run(&d, T_MS(5500));
	check_state(&d, k, "mended again", IOQOS_CL_LEASED, NULL);

	a = drive_at(&d, T_MS(300));
	b = drive_at(&d, T_MS(1000));
	check_limits(&d, k, "joined broken", a, b, R);
	for (unsigned i = 0; i < 2; i++) {
		char what[80];

		snprintf(what, sizeof(what), "%s, joined broken: instance %u, B/s", k->name, i);
		CHECK_NEAR(what, R, drive_rate(&d, (int)i, a, b), 0.02);
	}
	a = drive_at(&d, T_MS(1500));
	b = drive_at(&d, T_MS(2500));
	CHECK_NEAR("mended (the script flushed twice): total, B/s", R,
		   drive_rate(&d, -1, a, b), 0.02);
	from = a;
	a = drive_at(&d, T_MS(2900));
	b = drive_at(&d, T_MS(4000));
	check_limits(&d, k, "broken under leases", a, b, R / 2);
	CHECK_NEAR("broken under leases: total, B/s", R, drive_rate(&d, -1, a, b), 0.02);
	a = drive_at(&d, T_MS(4500));
	b = drive_at(&d, T_MS(5500));
	CHECK_NEAR("mended again: total, B/s", R, drive_rate(&d, -1, a, b), 0.02);
	drive_check_bound(&d, R, T_MS(100), from);
	check_logged(&d, k, k->word, 2);
	check_logged(&d, k, "answers again", 2);
	/* the first instance to renew after a flush caches the script again */
	CHECK(drive_logged(0, "NOSCRIPT") + drive_logged(1, "NOSCRIPT") >= 1 &&
	      drive_logged(0, "NOSCRIPT") <= 1 && drive_logged(1, "NOSCRIPT") <= 1,
	      "%s: NOSCRIPT logged once at most by each instance (%u, %u)", k->name,
	      drive_logged(0, "NOSCRIPT"), drive_logged(1, "NOSCRIPT"));

	drive_free(&d);
	redisFree(c);
	redis_stop(srv);
}

int main(void)
{
	static struct redis_srv srv;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		scenario(&srv, &kinds[i]);
	return th_exit();
}
