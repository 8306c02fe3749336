/* SPDX-License-Identifier: MIT */
/*
 * The lease script on a real redis-server, fed what a hostile or broken
 * client could send: every bad argument is refused before anything is
 * written (the hash is byte for byte what it was), and garbage written
 * into the hash by someone else is repaired by the next call.  After
 * every call the bucket is consistent: tokens in [0, depth], ts a number
 * no later than the server's clock, every instance record eleven numbers,
 * and no share above the limit.
 */
#include <inttypes.h>
#include <stdint.h>

#include "base.h"
#include "redis.h"

static const char lease_lua[] =
#include "lease_lua.h"
	;

#define KEY "ioqos:test"
#define LEASE_US 100000
#define RATE 1048576ull            /* 1 MiB/s on dimension 1 */

static redisContext *c;
static char sha[48];

static redisReply *cmd(const char *fmt, ...)
{
	va_list ap;
	redisReply *r;

	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	if (!r) {
		fprintf(stderr, "redis: %s\n", c->errstr);
		exit(1);
	}
	return r;
}

/* the lease call with 10 arguments as given */
static redisReply *lease(const char *const argv10[10])
{
	const char *argv[14] = { "EVALSHA", sha, "1", KEY };
	redisReply *r;

	for (int i = 0; i < 10; i++)
		argv[4 + i] = argv10[i];
	r = redisCommandArgv(c, 14, argv, NULL);
	if (!r) {
		fprintf(stderr, "redis: %s\n", c->errstr);
		exit(1);
	}
	return r;
}

static const char *const good[10] = {
	"a", "100000", "1048576", "0", "100", "0", "1048576", "0", "5", "0",
};

/* the whole hash, as one string (fields sorted) */
static char *dump(void)
{
	redisReply *r = cmd("HGETALL %s", KEY);
	size_t n = r->elements / 2, len = 1;
	char **lines = calloc(n + 1, sizeof(*lines)), *out;

	for (size_t i = 0; i < n; i++) {
		if (asprintf(&lines[i], "%s=%s\n", r->element[2 * i]->str,
			     r->element[2 * i + 1]->str) < 0)
			exit(1);
		len += strlen(lines[i]);
	}
	for (size_t i = 0; i + 1 < n; i++)     /* a few fields: insertion sort */
		for (size_t k = i + 1; k > 0 && strcmp(lines[k - 1], lines[k]) > 0; k--) {
			char *t = lines[k];
			lines[k] = lines[k - 1];
			lines[k - 1] = t;
		}
	out = calloc(1, len);
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	freeReplyObject(r);
	return out;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* the bucket's invariants; @rate the limits of the last call: every field
 * well formed, and per dimension the tokens plus what the leases in force
 * still cover at most one lease at the full rate */
static void check_consistent(const char *when, const uint64_t rate[4])
{
	redisReply *t = cmd("TIME");
	double now = atof(t->element[0]->str) * 1e6 + atof(t->element[1]->str);
	redisReply *r = cmd("HGETALL %s", KEY);
	double held[4] = { 0 };
	bool ok = true;

	freeReplyObject(t);
	for (size_t i = 0; i + 1 < r->elements; i += 2) {
		const char *k = r->element[i]->str, *v = r->element[i + 1]->str;
		char *end;
		double x = strtod(v, &end);

		if (k[0] == 't' && k[1] >= '1' && k[1] <= '4' && !k[2]) {
			double depth = (double)rate[k[1] - '1'] * LEASE_US / 1e6;

			ok &= CHECK_SILENT(*end == 0 && x >= 0 && x <= depth * (1 + 1e-12),
					   "%s: %s=%s within [0, %.0f]", when, k, v, depth);
		} else if (!strcmp(k, "ts")) {
			ok &= CHECK_SILENT(all_digits(v) && x <= now, "%s: ts=%s <= now", when, v);
		} else if (k[0] == 'r' && k[1] >= '1' && k[1] <= '4' && !k[2]) {
			ok &= CHECK_SILENT(all_digits(v), "%s: %s=%s", when, k, v);
		} else if (k[0] == 'i' && k[1] == ':') {
			int n = 0;
			double f[11] = { 0 };
			char *dup = strdup(v), *sp = NULL;

			for (char *w = strtok_r(dup, " ", &sp); w; w = strtok_r(NULL, " ", &sp)) {
				ok &= CHECK_SILENT(all_digits(w), "%s: %s word '%s'", when, k, w);
				if (n < 11)
					f[n] = atof(w);
				n++;
			}
			free(dup);
			ok &= CHECK_SILENT(n == 11, "%s: %s has %d numbers", when, k, n);
			/* what this lease still covers (only the script's own
			 * records are kept: a garbled one is dropped at the next call) */
			double left = f[1] - now < f[2] ? f[1] - now : f[2];

			for (int d = 0; n == 11 && left > 0 && d < 4; d++)
				held[d] += f[3 + d] * left / 1e6;
		} else {
			ok &= CHECK_SILENT(false, "%s: unexpected field %s", when, k);
		}
	}
	for (size_t i = 0; i + 1 < r->elements; i += 2) {
		const char *k = r->element[i]->str;

		if (k[0] == 't' && k[1] >= '1' && k[1] <= '4' && !k[2]) {
			int d = k[1] - '1';
			double depth = (double)rate[d] * LEASE_US / 1e6;
			double tok = atof(r->element[i + 1]->str);

			ok &= CHECK_SILENT(tok + held[d] <= depth * (1 + 1e-9) + 1,
					   "%s: tokens %.0f + held %.0f <= one lease %.0f", when,
					   tok, held[d], depth);
		}
	}
	freeReplyObject(r);
	CHECK(ok, "%s: the bucket is consistent", when);
}

/* a call that must succeed: shares within the limits */
static void expect_ok(const char *when, const char *const a[10])
{
	redisReply *r = lease(a);
	uint64_t rate[4];

	for (int d = 0; d < 4; d++)
		rate[d] = strtoull(a[2 + d], NULL, 10);
	if (!CHECK(r->type == REDIS_REPLY_ARRAY && r->elements == 5, "%s: an answer (%s)",
		   when, r->type == REDIS_REPLY_ERROR ? r->str : "array")) {
		freeReplyObject(r);
		return;
	}
	for (int d = 0; d < 4; d++)
		CHECK_LE("share within the limit", (uint64_t)r->element[d]->integer, rate[d]);
	CHECK_GE("live instances", (uint64_t)r->element[4]->integer, 1);
	freeReplyObject(r);
	check_consistent(when, rate);
}

/* @s for a one-line message */
static const char *printable(char *dst, const char *s)
{
	size_t o = 0;

	for (; *s && o < 60; s++) {
		unsigned char ch = (unsigned char)*s;

		o += (size_t)sprintf(dst + o, ch >= 0x20 && ch < 0x7f ? "%c" : "\\x%02x", ch);
	}
	dst[o] = 0;
	return dst;
}

/* a call that must be refused and change nothing */
static void expect_refused(int pos, const char *bad_raw)
{
	const char *a[10];
	char *before = dump(), *after, bad[300];
	redisReply *r;

	memcpy(a, good, sizeof(a));
	a[pos] = bad_raw;
	printable(bad, bad_raw);
	r = lease(a);
	after = dump();
	CHECK(r->type == REDIS_REPLY_ERROR, "ARGV[%d]='%s' refused (%s)", pos + 1, bad,
	      r->type == REDIS_REPLY_ERROR ? r->str : "accepted");
	CHECK(!strcmp(before, after), "ARGV[%d]='%s' wrote nothing", pos + 1, bad);
	freeReplyObject(r);
	free(before);
	free(after);
}

int main(void)
{
	static struct redis_srv srv;   /* static: the exit handler stops it */
	redisReply *r;
	static const uint64_t rate1[4] = { RATE, 0, 100, 0 };

	redis_start(&srv);
	c = redis_connect(&srv);
	r = cmd("SCRIPT LOAD %b", lease_lua, sizeof(lease_lua) - 1);
	if (!CHECK(r->type == REDIS_REPLY_STRING, "the script loads (%s)",
		   r->type == REDIS_REPLY_ERROR ? r->str : "ok"))
		return th_exit();
	snprintf(sha, sizeof(sha), "%s", r->str);
	freeReplyObject(r);

	/* a fresh bucket starts empty: no burst from a restart */
	r = lease(good);
	CHECK(r->type == REDIS_REPLY_ARRAY && r->elements == 5 &&
	      r->element[0]->integer == 0 && r->element[2]->integer == 0,
	      "a new bucket grants nothing at once");
	freeReplyObject(r);
	check_consistent("first call", rate1);
	redis_sleep_ms(60);
	expect_ok("second call", good);

	/* bad arguments: each refused, nothing written */
	static const char *const bad_num[] = {
		"-1", "", "abc", "1e5", "0x10", "nan", "inf", "-inf", "1.5", " 1", "1 ",
		"+1", "99999999999999999", "18446744073709551616", "1125899906842625",
		"\xff", "1\n",
	};
	for (int pos = 2; pos < 10; pos++)
		for (size_t i = 0; i < sizeof(bad_num) / sizeof(bad_num[0]); i++)
			expect_refused(pos, bad_num[i]);
	static const char *const bad_lease[] = { "0", "999", "60000001", "-100000", "1e5" };
	for (size_t i = 0; i < sizeof(bad_lease) / sizeof(bad_lease[0]); i++)
		expect_refused(1, bad_lease[i]);
	static const char *const bad_id[] = {
		"", "a b", "a\nb", "i:x", "x{y}",
		"0123456789012345678901234567890123456789012345678901234567890123456789",
	};
	for (size_t i = 0; i < sizeof(bad_id) / sizeof(bad_id[0]); i++) {
		const char *id = bad_id[i];

		/* "i:x" is a fine id (':' is allowed): the rest are not */
		if (!strcmp(id, "i:x"))
			continue;
		expect_refused(0, id);
	}

	/* wrong number of keys or arguments */
	{
		char *before = dump();
		const char *v0[] = { "EVALSHA", sha, "0" };
		const char *v2[] = { "EVALSHA", sha, "2", KEY, KEY, "a", "100000", "1", "0", "0",
				     "0", "1", "0", "0", "0" };
		const char *v9[] = { "EVALSHA", sha, "1", KEY, "a", "100000", "1", "0", "0",
				     "0", "1", "0", "0" };
		const char *const *vs[] = { v0, v2, v9 };
		int ns[] = { 3, 15, 13 };

		for (int i = 0; i < 3; i++) {
			r = redisCommandArgv(c, ns[i], (const char **)vs[i], NULL);
			CHECK(r && r->type == REDIS_REPLY_ERROR, "argument count %d refused", ns[i]);
			if (r)
				freeReplyObject(r);
		}
		char *after = dump();

		CHECK(!strcmp(before, after), "wrong counts wrote nothing");
		free(before);
		free(after);
	}

	/* a huge demand is a demand for the whole limit, no more */
	{
		const char *a[10];

		memcpy(a, good, sizeof(a));
		a[6] = "1125899906842624";
		redis_sleep_ms(30);
		expect_ok("huge demand", a);
	}

	/* garbage in the hash, written by someone else: repaired */
	static const char *const junk[][2] = {
		{ "t1", "-5" }, { "t1", "nan" }, { "t1", "1e308" }, { "t1", "abc" },
		{ "t3", "inf" }, { "ts", "garbage" }, { "ts", "99999999999999999999" },
		{ "ts", "-1" }, { "r1", "-1" }, { "r1", "1e300" }, { "i:evil", "garbage" },
		{ "i:evil", "1 2 3" }, { "i:evil", "-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1" },
		{ "i:a", "nan nan nan nan nan nan nan nan nan nan nan" },
		{ "i:a", "0 99999999999999999999 60000000 1e300 1e300 1e300 1e300 1 1 1 1" },
		{ "i:evil", "99999999999999999 0 100000 1e300 0 0 0 1e300 0 0 0" },
		{ "i:evil", "1 1 0 0 0 0 0 0 0 0 0" },
	};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		char when[96];

		r = cmd("HSET %s %s %s", KEY, junk[i][0], junk[i][1]);
		freeReplyObject(r);
		snprintf(when, sizeof(when), "after %s='%s'", junk[i][0], junk[i][1]);
		expect_ok(when, good);
	}

	/* the key holds something else: refused, left alone */
	r = cmd("SET %s %s", "ioqos:other", "x");
	freeReplyObject(r);
	{
		const char *argv[14] = { "EVALSHA", sha, "1", "ioqos:other" };

		for (int i = 0; i < 10; i++)
			argv[4 + i] = good[i];
		r = redisCommandArgv(c, 14, argv, NULL);
		CHECK(r && r->type == REDIS_REPLY_ERROR, "a key of another type is refused");
		freeReplyObject(r);
		r = cmd("GET ioqos:other");
		CHECK(r->type == REDIS_REPLY_STRING && !strcmp(r->str, "x"),
		      "and left as it was");
		freeReplyObject(r);
	}

	/* many instances, random demands: every call consistent, the shares of
	 * one round within the limit (a round trip apart, the charge is what
	 * keeps the sum bounded) */
	{
		struct rng g = rng_seed(13);
		char ids[6][16], dem[24];
		uint64_t held[6] = { 0 };

		for (int i = 0; i < 6; i++)
			snprintf(ids[i], sizeof(ids[i]), "p%d", i);
		th_quiet(true);
		for (int k = 0; k < 300; k++) {
			const char *a[10];
			int who = (int)(rng_next(&g) % 6);

			memcpy(a, good, sizeof(a));
			a[0] = ids[who];
			snprintf(dem, sizeof(dem), "%" PRIu64, (uint64_t)(rng_next(&g) % (2 * RATE)));
			a[6] = dem;
			r = lease(a);
			if (CHECK_SILENT(r->type == REDIS_REPLY_ARRAY, "random call %d", k))
				held[who] = (uint64_t)r->element[0]->integer;
			freeReplyObject(r);
			if (k % 50 == 0)
				check_consistent("random calls", rate1);
			uint64_t sum = 0;

			for (int i = 0; i < 6; i++)
				sum += held[i];
			/* shares granted from tokens: their sum may exceed R only by
			 * what the tokens held (one lease, R·L), i.e. 2R as a rate */
			CHECK_SILENT(sum <= 2 * RATE, "held shares %" PRIu64 " <= 2R", sum);
			redis_sleep_ms(1);
		}
		th_quiet(false);
		check_consistent("after the random calls", rate1);
	}

	redisFree(c);
	redis_stop(&srv);
	return th_exit();
}
