/* SPDX-License-Identifier: MIT */
/*
 * A config parsed apart from the controller and applied in steps
 * (ioqos_conf_parse, ioqos_conf_reserve, ioqos_conf_apply) ends where a
 * replacing load ends, on random pairs of configs (conf_gen.h) over a
 * controller with requests waiting everywhere.
 *
 * 1. Steps against one call: two controllers with the same history; one
 *    takes the second config by ioqos_load_buf_replace(), the other by
 *    ioqos_conf_parse() and then ioqos_conf_reserve() and
 *    ioqos_conf_apply() 1, 2, 3 or 7 groups a call at the same time.
 *    The same groups are reported to the unnamed callback, in the same
 *    order (which removes the idle ones, every other pair), every
 *    group's settings are the same, and the rest of the history then
 *    dispatches every request at the same time, in the same order.
 * 2. What the end state is: every group the config names has what a
 *    fresh controller loaded with it has, every other the defaults
 *    (iops_size inherited as the config says); exactly the groups that
 *    are neither named nor above a named one are reported, children
 *    before parents.
 * 3. Requests between steps: the same, the steps 2 groups a call, and
 *    between two calls 1 ms passes, requests are dispatched, completed
 *    and submitted, and now and then a group is made.  The settings end
 *    as in 2, and no request is lost or dispatched twice.
 * 4. A bad config changes nothing: one error put on a random line (a bad
 *    value, an unknown key, a path given twice, a bad path, a device key
 *    below "/", a low above its max): ioqos_conf_parse() refuses it with
 *    the message of ioqos_load_buf_replace(), which changes no setting and
 *    reports nothing.
 */
#include "conf_gen.h"

#define PAIRS 400

/* what the unnamed callback saw, and whether it removes idle groups */
struct seen {
	char log[2048];
	size_t len;
	bool remove;
};

static void unnamed(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	struct seen *s = arg;
	struct ioqos_stats st;
	int rc = 1;

	ioqos_stats_id(q, id, &st);
	if (s->remove && !st.queued[0] && !st.queued[1])
		rc = ioqos_group_remove(q, id, 0, NULL);
	if (s->len < sizeof(s->log) - 64)
		s->len += (size_t)snprintf(s->log + s->len, sizeof(s->log) - s->len,
					   "%s:%d ", path, rc);
}

/* parse @b and apply it to @h at its time, @k groups a call; with
 * @traffic, 1 ms of requests between two calls */
static int stepwise(struct cg_hist *h, struct rng *r, const char *b, size_t blen,
		    uint32_t k, bool traffic, struct seen *s, char *err, size_t errlen)
{
	struct ioqos_conf *c;
	uint64_t wake;
	int ret = ioqos_conf_parse("b.conf", b, blen, &c, err, errlen), phase = 0;

	if (ret < 0)
		return ret;
	do {
		ret = phase == 0 ? ioqos_conf_reserve(h->q, c, k, err, errlen) :
		      ioqos_conf_apply(h->q, c, h->now, k, unnamed, s, err, errlen);
		if (ret == 0 && phase++ == 0)
			ret = 1;
		if (ret == 1 && traffic) {
			h->now += T_MS(1);
			cg_next(h, &wake);
			if (h->n_out && rng_below(r, 2))
				ioqos_done(h->q, h->out[--h->n_out], h->now);
			if (h->n_sub < CG_NREQ && rng_below(r, 2))
				cg_submit(h);
			if (rng_below(r, 8) == 0) {
				char p[32];

				snprintf(p, sizeof(p), "/new%d", (int)rng_below(r, 4));
				ioqos_group(h->q, p);
			}
		}
	} while (ret == 1);
	ioqos_conf_free(c);
	return ret;
}

/* is @path named by a line of config @b, or above one? */
static bool named_or_above(const char *b, const char *path, bool *named)
{
	size_t n = strlen(path);
	bool above = strcmp(path, "/") == 0;

	*named = false;
	for (const char *l = b; *l; l = strchr(l, '\n') + 1) {
		size_t t = strcspn(l, " \n");

		*named = *named || (t == n && memcmp(l, path, n) == 0);
		above = above || (t > n && memcmp(l, path, n) == 0 && l[n] == '/');
	}
	return *named || above;
}

/* 2: @h after config @b, which replaced a tree of @before (its paths) */
static void end_state(struct cg_hist *h, const char *b, size_t blen, const char *before,
		      const struct seen *s, int pair)
{
	struct ioqos *o = ioqos_new();
	char err[256], *want, *got;
	size_t pos = 0;

	CHECK(ioqos_load_buf(o, "b.conf", b, blen, 0, err, sizeof(err)) == 0, "%s", err);
	for (uint32_t id = 0; id < ioqos_group_count(h->q); id++)
		if (ioqos_group_path(h->q, id))
			ioqos_group(o, ioqos_group_path(h->q, id));
	/* o may have more: groups the config names that the callback removed
	 * from h (none: it names them); compare h's, as o describes them */
	got = cg_settings(h->q);
	want = malloc(ioqos_group_count(h->q) * (64 + 512) + 1);
	want[0] = '\0';
	for (const char *l = got; *l; l = strchr(l, '\n') + 1) {
		char path[64], d[512];

		sscanf(l, "%63s", path);
		ioqos_describe(o, (uint32_t)ioqos_group_find(o, path), d, sizeof(d));
		pos += (size_t)sprintf(want + pos, "%s %s\n", path, d);
	}
	CHECK(strcmp(want, got) == 0, "2. pair %d: settings as the config says:\n%s--\n%s",
	      pair, want, got);
	/* reported: exactly the groups neither named nor above a named one */
	for (const char *l = before; *l; l = strchr(l, '\n') + 1) {
		char path[64];
		bool named, reported = false;

		sscanf(l, "%63s", path);
		for (const char *x = s->log; *x; x = strchr(x, ' ') + 1)
			reported = reported || (strcspn(x, ":") == strlen(path) &&
						memcmp(x, path, strlen(path)) == 0);

		CHECK(reported == !named_or_above(b, path, &named),
		      "2. pair %d: %s reported: %d (%s)", pair, path, reported, s->log);
	}
	/* children before parents */
	for (const char *x = s->log; *x; x = strchr(x, ' ') + 1)
		for (const char *y = strchr(x, ' ') + 1; *y; y = strchr(y, ' ') + 1) {
			size_t nx = strcspn(x, ":"), ny = strcspn(y, ":");

			CHECK(!(ny > nx && memcmp(x, y, nx) == 0 && y[nx] == '/'),
			      "2. pair %d: a parent before its child: %s", pair, s->log);
		}
	free(want);
	free(got);
	ioqos_free(o);
}

static void pairs(void)
{
	static const uint32_t ks[] = { 1, 2, 3, 7 };

	for (int pair = 0; pair < PAIRS; pair++) {
		struct rng r = rng_seed(0xc0f + (uint64_t)pair), r1, r2, r3;
		struct cg_hist *h1 = malloc(sizeof(*h1)), *h2 = malloc(sizeof(*h2)),
			       *h3 = malloc(sizeof(*h3));
		struct seen s1 = { .remove = pair & 1 }, s2 = s1, s3 = s1;
		char a[4096], b[4096], e1[256] = "", e2[256] = "", *set1, *set2, *before;
		size_t alen = cg_config(&r, a), blen = cg_config(&r, b);
		int rc1, rc2;

		r1 = r2 = r3 = r;
		cg_history(h1, &r1, a, alen);
		cg_history(h2, &r2, a, alen);
		cg_history(h3, &r3, a, alen);
		before = cg_settings(h1->q);
		rc1 = ioqos_load_buf_replace(h1->q, "b.conf", b, blen, h1->now, unnamed, &s1,
					     e1, sizeof(e1));
		rc2 = stepwise(h2, &r2, b, blen, ks[pair % 4], false, &s2, e2, sizeof(e2));
		CHECK_EQ_INT("1. the same result", rc1, rc2);
		CHECK(strcmp(e1, e2) == 0, "1. pair %d: the same message: '%s' '%s'", pair, e1, e2);
		CHECK(strcmp(s1.log, s2.log) == 0, "1. pair %d: the same reports: '%s' '%s'",
		      pair, s1.log, s2.log);
		set1 = cg_settings(h1->q);
		set2 = cg_settings(h2->q);
		CHECK(strcmp(set1, set2) == 0, "1. pair %d: the same settings", pair);
		if (rc1 == 0)
			end_state(h1, b, blen, before, &s1, pair);
		cg_drain(h1);
		cg_drain(h2);
		CHECK_EQ("1. the same dispatches after", h1->trace, h2->trace);

		/* 3: requests go on between the steps */
		CHECK_EQ_INT("3. the same result", rc1,
			     stepwise(h3, &r3, b, blen, 2, true, &s3, e2, sizeof(e2)));
		if (rc1 == 0)
			end_state(h3, b, blen, before, &s3, pair);
		cg_drain(h3);
		int dispatched = 0, twice = 0;

		/* every request submitted came out once, or is queued still */
		for (int i = 0; i < CG_NREQ; i++) {
			dispatched += h3->seen[i] > 0;
			twice += h3->seen[i] > 1;
		}
		CHECK_EQ_INT("3. none dispatched twice", 0, twice);
		CHECK_EQ("3. none lost", (uint64_t)h3->n_taken,
			 (uint64_t)dispatched + ioqos_queued(h3->q));
		free(set1);
		free(set2);
		free(before);
		ioqos_free(h1->q);
		ioqos_free(h2->q);
		ioqos_free(h3->q);
		free(h1);
		free(h2);
		free(h3);
	}
}

/* one error on line @at of @b (a valid config): into @out */
static size_t spoil(const char *b, size_t at, int how, char *out)
{
	static const char *const bad[] = {
		" rbps=12x", " nokey=1", "", "/a//b weight=1", " depth=4",
		" wbps=1k wbps_low=2k",
	};
	size_t n = 0, line = 0;

	for (const char *l = b; *l; l = strchr(l, '\n') + 1, line++) {
		size_t len = strcspn(l, "\n");

		if (line == at && how == 3) {
			n += (size_t)sprintf(out + n, "%s\n", bad[how]);
			continue;
		}
		memcpy(out + n, l, len);
		n += len;
		if (line == at && how == 2)   /* the line again: its path twice */
			n += (size_t)sprintf(out + n, "\n%.*s", (int)len, l);
		else if (line == at && how == 4 && l[1] != '/' && (l[1] < 'a' || l[1] > 'z'))
			n += (size_t)sprintf(out + n, " weight=0");   /* "/": a bad weight */
		else if (line == at)
			n += (size_t)sprintf(out + n, "%s", bad[how]);
		out[n++] = '\n';
	}
	out[n] = '\0';
	return n;
}

static void invalid(void)
{
	for (int pair = 0; pair < PAIRS; pair++) {
		struct rng r = rng_seed(0xbad + (uint64_t)pair);
		struct cg_hist *h = malloc(sizeof(*h));
		struct seen s = { .remove = true };
		struct ioqos_conf *c = (struct ioqos_conf *)1;
		char a[4096], b[4096], bb[8192], e1[256] = "", e2[256] = "", *before, *after;
		size_t alen = cg_config(&r, a), blen = cg_config(&r, b), lines = 0, bblen;

		for (const char *l = b; *l; l = strchr(l, '\n') + 1)
			lines++;
		if (!lines)
			blen = (size_t)sprintf(b, "/\n"), lines = 1;
		bblen = spoil(b, rng_below(&r, lines), (int)rng_below(&r, 6), bb);
		cg_history(h, &r, a, alen);
		before = cg_settings(h->q);
		int rc1 = ioqos_load_buf_replace(h->q, "b.conf", bb, bblen, h->now, unnamed, &s,
						 e1, sizeof(e1));
		int rc2 = ioqos_conf_parse("b.conf", bb, bblen, &c, e2, sizeof(e2));

		after = cg_settings(h->q);
		CHECK(rc1 < 0, "4. pair %d refused: %s", pair, bb);
		CHECK_EQ_INT("4. parse refuses it too", rc1, rc2);
		CHECK(c == NULL, "4. pair %d: no config", pair);
		if (rc2 == 0)
			ioqos_conf_free(c);
		CHECK(strcmp(e1, e2) == 0 && strncmp(e1, "b.conf:", 7) == 0,
		      "4. pair %d: the same message, at its line: '%s' '%s'", pair, e1, e2);
		CHECK(strcmp(before, after) == 0, "4. pair %d: no setting changed", pair);
		CHECK_EQ("4. nothing reported", 0, s.len);
		(void)blen;
		free(before);
		free(after);
		ioqos_free(h->q);
		free(h);
	}
}

int main(void)
{
	pairs();
	invalid();
	return th_exit();
}
