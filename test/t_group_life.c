/* SPDX-License-Identifier: MIT */
/*
 * Groups come and go: ioqos_group_remove() and the replacing load.
 *
 * 1. Return codes, as rmdir: -EINVAL for "/", -ENOENT for no such group
 *    (or one removed already), -ENOTEMPTY with children; a removed group
 *    has no path, no stats, takes no submit, and its path may be created
 *    again.
 * 2. Deleting a disk while I/O is throttled (blktests throtl/004):
 *    /d wbps=64k, 20 x 4 KiB at T0 after idle: 8 go (the 32 KiB depth),
 *    12 wait.  Removing /d gives back exactly those 12, in submit order,
 *    each cancelled (new again); nothing is left on any timer; the 8 in
 *    flight are still taken by ioqos_done(), and /d's id is reused only
 *    after the last of them.
 * 3. Requests waiting at an ancestor, mixed with a sibling's: /p rbps=64k
 *    over unlimited /p/c and /p/s, 10 x 4 KiB each, alternating: 8 pass,
 *    6 of each wait (the first of each at /p, the others at their group,
 *    for /p to pull).  Removing /p/c gives back its 6; /p/s's 6 then
 *    go at T0 + k * 62.5 ms, k = 1..6, as if /p/c had never been there.
 * 4. Churn: 20,000 rounds of create, submit (one dispatched, one queued
 *    behind a limit), remove, done.  The slots stay at 4 and the heap
 *    does not grow by a byte after the first round.
 * 5. A replacing load is the whole truth: keys it does not write return
 *    to their defaults (burst included), groups it does not name get the
 *    defaults and are reported children first, a low is checked against
 *    the file's max alone, and a file with an error changes nothing.
 * 7. A group that a replacing load does not name, removed by the callback
 *    it is passed to, keeps the path it was passed readable until the
 *    callback returns, a long one (kept out of place, freed with the
 *    group) as a short one: the callback may name what it removed.
 * 6. Paths of every length from 2 to 40 bytes (a group keeps one of up to
 *    15 in place, a longer one allocated): each is found and named back
 *    exactly, and after every group is removed and the slots are taken
 *    again by paths of other lengths (a short one in a long one's slot
 *    and the other way round), so are theirs; a removed group has none.
 */
#include "helpers.h"

#if defined(__SANITIZE_ADDRESS__)
/* the sanitizer's count of bytes allocated and not freed */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_bytes(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
#include <malloc.h>
static size_t heap_bytes(void)
{
	return mallinfo2().uordblks;
}
#endif

#define T0   T_S(100)
#define GAP  T_US(62500)           /* 4 KiB at 64 KiB/s */

static void codes(void)
{
	struct ioqos *q = ioqos_new();
	uint32_t p = grp(q, "/p"), c = grp(q, "/p/c"), n;
	struct ioqos_req r = req_make(c, IOQOS_READ, 1), *list = &r;
	struct ioqos_stats st;

	CHECK_EQ_INT("1. remove /", -EINVAL, ioqos_group_remove(q, 0, 0, &list));
	CHECK(list == NULL, "1. no list on an error");
	CHECK_EQ_INT("1. remove id 99", -ENOENT, ioqos_group_remove(q, 99, 0, NULL));
	CHECK_EQ_INT("1. remove /p with a child", -ENOTEMPTY,
		     ioqos_group_remove(q, p, 0, NULL));
	CHECK_EQ_INT("1. remove /p/c", 0, ioqos_group_remove(q, c, 0, &list));
	CHECK(list == NULL, "1. nothing was queued");
	CHECK_EQ_INT("1. remove /p/c again", -ENOENT, ioqos_group_remove(q, c, 0, NULL));
	CHECK(ioqos_group_path(q, c) == NULL, "1. no path");
	CHECK_EQ_INT("1. find", -ENOENT, ioqos_group_find(q, "/p/c"));
	CHECK_EQ_INT("1. stats", -ENOENT, ioqos_stats_id(q, c, &st));
	CHECK_EQ_INT("1. submit to it", -EINVAL, ioqos_submit(q, &r, 0));
	CHECK_EQ_INT("1. remove /p, now empty", 0, ioqos_group_remove(q, p, 0, NULL));
	n = grp(q, "/p/c");
	CHECK(n == p || n == c, "1. /p/c again takes a freed slot (%u)", n);
	CHECK_EQ("1. slots", 3, ioqos_group_count(q));
	CHECK(strcmp(ioqos_group_path(q, n), "/p/c") == 0, "1. its path");
	ioqos_free(q);
}

static void throttled_disk(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req r[20], *list, *x, *out[20];
	uint32_t d = grp(q, "/d"), e, f;
	uint64_t wake;
	int i, n = 0, k;

	set_ok(q, "/d", "wbps=64k", 0);
	for (i = 0; i < 20; i++) {
		r[i] = req_make(d, IOQOS_WRITE, 4 * KIB);
		ioqos_submit(q, &r[i], T0);
	}
	while ((x = ioqos_next(q, T0, &wake)) != NULL)
		out[n++] = x;
	CHECK_EQ("2. dispatched at T0", 8, n);
	CHECK_EQ("2. the next at T0 + 62.5 ms", T0 + GAP, wake);
	CHECK_EQ_INT("2. remove /d", 0, ioqos_group_remove(q, d, T0 + T_MS(10), &list));
	for (k = 8, x = list; x; x = x->_next, k++)
		CHECK(k < 20 && x == &r[k], "2. given back: request %d", k);
	CHECK_EQ("2. all 12 given back", 20, k);
	CHECK_EQ("2. queued", 0, ioqos_queued(q));
	CHECK_EQ_INT("2. cancel of one given back", -EINVAL, ioqos_cancel(q, &r[8]));
	CHECK_EQ_INT("2. resubmit to the removed group", -EINVAL,
		     ioqos_submit(q, &r[8], T0 + T_MS(10)));
	CHECK(ioqos_next(q, T0 + T_S(10), &wake) == NULL, "2. nothing comes out");
	CHECK_EQ("2. nothing waits on time", UINT64_MAX, wake);
	e = grp(q, "/e");
	CHECK(e != d, "2. /d's slot is not reused while its I/O is in flight");
	for (i = 0; i < 7; i++)
		CHECK_EQ_INT("2. done", 0, ioqos_done(q, out[i], T0 + T_S(1)));
	f = grp(q, "/f");
	CHECK(f != d, "2. nor with one left");
	CHECK_EQ_INT("2. the last done", 0, ioqos_done(q, out[7], T0 + T_S(1)));
	CHECK_EQ_INT("2. a second done", -EINVAL, ioqos_done(q, out[7], T0 + T_S(1)));
	CHECK_EQ("2. inflight", 0, ioqos_inflight(q));
	CHECK_EQ("2. /g takes /d's slot", d, grp(q, "/g"));
	/* a request given back is new: it may go to another group */
	r[8].group = e;
	CHECK_EQ_INT("2. resubmit elsewhere", 0, ioqos_submit(q, &r[8], T0 + T_S(1)));
	CHECK(ioqos_next(q, T0 + T_S(1), &wake) == &r[8], "2. and it goes");
	ioqos_free(q);
}

static void at_ancestor(void)
{
	struct ioqos *q = ioqos_new();
	uint32_t c = grp(q, "/p/c"), s = grp(q, "/p/s");
	struct ioqos_req rc[10], rs[10], *list, *x;
	uint64_t wake;
	int i, n = 0, k;

	set_ok(q, "/p", "rbps=64k", 0);
	for (i = 0; i < 10; i++) {
		rc[i] = req_make(c, IOQOS_READ, 4 * KIB);
		rs[i] = req_make(s, IOQOS_READ, 4 * KIB);
		ioqos_submit(q, &rc[i], T0);
		ioqos_submit(q, &rs[i], T0);
	}
	while ((x = ioqos_next(q, T0, &wake)) != NULL) {
		CHECK(x == (n % 2 ? &rs[n / 2] : &rc[n / 2]), "3. dispatch %d at T0", n);
		n++;
		ioqos_done(q, x, T0);
	}
	CHECK_EQ("3. 8 at T0", 8, n);
	CHECK_EQ_INT("3. remove /p/c", 0, ioqos_group_remove(q, c, T0, &list));
	/* all of them wait in /p/c's own queue, /p pulling through it (stage1.c):
	 * given back in the order they came */
	for (k = 0, x = list; x; x = x->_next, k++)
		CHECK(k < 6 && x == &rc[4 + k], "3. /p/c's request given back");
	CHECK_EQ("3. its 6", 6, k);
	for (k = 1; k <= 6; k++) {
		CHECK(ioqos_next(q, T0 + k * GAP - 1, &wake) == NULL, "3. not before %d", k);
		CHECK_EQ("3. wake", T0 + k * GAP, wake);
		x = ioqos_next(q, T0 + k * GAP, &wake);
		CHECK(x == &rs[3 + k], "3. /p/s's request %d at T0 + %d * 62.5 ms", 3 + k, k);
		ioqos_done(q, x, T0 + k * GAP);
	}
	CHECK_EQ("3. queued", 0, ioqos_queued(q));
	ioqos_free(q);
}

static void churn(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req a, b, *list, *x;
	size_t base = 0;
	uint64_t now = 0, wake;
	char path[64];
	int i, bad = 0;

	set_ok(q, "/t", "wbps=1M", 0);
	for (i = 0; i < 20000; i++) {
		uint32_t g;

		snprintf(path, sizeof(path), "/t/tenant-%d", i);
		g = grp(q, path);
		if (i % 3 == 0)
			set_ok(q, path, "wbps=4k weight=300 wbps_low=1k", now);
		a = req_make(g, IOQOS_WRITE, 1 * MIB);
		b = req_make(g, IOQOS_WRITE, 1 * MIB);
		ioqos_submit(q, &a, now);
		ioqos_submit(q, &b, now);
		x = ioqos_next(q, now, &wake);
		ioqos_group_remove(q, g, now, &list);
		if (x)
			bad += ioqos_done(q, x, now) != 0;
		while (list) {
			x = list;
			list = list->_next;
			bad += ioqos_cancel(q, x) != -EINVAL;
		}
		now += T_S(2);
		if (i == 0)
			base = heap_bytes();
		else if (heap_bytes() != base)
			bad++;
	}
	CHECK(base > 0, "4. the heap is measured (%zu bytes)", base);
	CHECK_EQ("4. rounds where a call failed or the heap moved", 0, bad);
	CHECK_EQ("4. slots", 3, ioqos_group_count(q));
	CHECK_EQ("4. queued", 0, ioqos_queued(q));
	CHECK_EQ("4. inflight", 0, ioqos_inflight(q));
	ioqos_free(q);
}

struct seen {
	char paths[8][32];
	int n;
	bool remove;
};

static void unnamed(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	struct seen *s = arg;

	if (s->n < 8)
		snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", path);
	s->n++;
	if (s->remove)
		CHECK_EQ_INT("5. remove an idle unnamed group", 0,
			     ioqos_group_remove(q, id, 0, NULL));
}

static void replace(void)
{
	static const char first[] =
		"/ depth=4 cost=iops\n"
		"/a rbps=1M rbps_low=512k burst=1s weight=300\n"
		"/b wbps=2M\n"
		"/x/y riops=10\n";
	static const char second[] =
		"/a rbps_low=2M wbps=1k\n"
		"/c weight=5\n";
	static const char bad[] =
		"/a rbps=1\n"
		"/b rbps=oops\n";
	static const char dflt[] =
		"rbps=max wbps=max riops=max wiops=max rbps_low=0 wbps_low=0 "
		"riops_low=0 wiops_low=0 weight=100";
	struct ioqos *q = ioqos_new();
	struct seen s = { .n = 0 };
	char err[256], before[512], after[512];
	struct ioqos_limits lim;
	int rc;

	rc = ioqos_load_buf(q, "first", first, sizeof(first) - 1, 0, err, sizeof(err));
	CHECK_EQ_INT("5. first load", 0, rc);
	/* merged, the low of 2M would be above rbps=1M: replaced, there is no max */
	rc = ioqos_load_buf_replace(q, "second", second, sizeof(second) - 1, T_S(1),
				    unnamed, &s, err, sizeof(err));
	CHECK(rc == 0, "5. replacing load: %d %s", rc, err);
	describe_is(q, "/a", "rbps=max wbps=1024 riops=max wiops=max rbps_low=2097152 "
		    "wbps_low=0 riops_low=0 wiops_low=0 weight=100");
	describe_is(q, "/b", dflt);
	describe_is(q, "/c", "rbps=max wbps=max riops=max wiops=max rbps_low=0 wbps_low=0 "
		    "riops_low=0 wiops_low=0 weight=5");
	ioqos_limits_get(q, 0, &lim);
	/* no depth= written: the rule's, and /c gives a weight beside others */
	CHECK_EQ("5. depth back to the rule's (auto)", IOQOS_DEPTH_AUTO, lim.depth);
	CHECK_EQ("5. cost back to hybrid", 16384, lim.io_cost[0]);
	ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/a"), &lim);
	CHECK_EQ("5. burst back to the default", 0, lim.burst_ns);
	CHECK_EQ("5. unnamed groups reported", 3, s.n);
	CHECK(strcmp(s.paths[0], "/b") == 0 || strcmp(s.paths[0], "/x/y") == 0,
	      "5. first reported: %s", s.paths[0]);
	CHECK(strcmp(s.paths[2], "/x") == 0 || strcmp(s.paths[2], "/b") == 0,
	      "5. last reported: %s", s.paths[2]);
	for (int i = 0, child = -1; i < 3; i++) {
		if (strcmp(s.paths[i], "/x/y") == 0)
			child = i;
		if (strcmp(s.paths[i], "/x") == 0)
			CHECK(child >= 0, "5. /x/y before /x");
	}

	/* an error changes nothing and reports nothing */
	s.n = 0;
	ioqos_describe(q, (uint32_t)ioqos_group_find(q, "/a"), before, sizeof(before));
	rc = ioqos_load_buf_replace(q, "bad", bad, sizeof(bad) - 1, T_S(2),
				    unnamed, &s, err, sizeof(err));
	CHECK_EQ_INT("5. a bad file", -EINVAL, rc);
	CHECK(strstr(err, "bad:2:") != NULL, "5. names the line: %s", err);
	ioqos_describe(q, (uint32_t)ioqos_group_find(q, "/a"), after, sizeof(after));
	CHECK(strcmp(before, after) == 0, "5. /a unchanged");
	CHECK_EQ("5. nothing reported", 0, s.n);

	/* the caller removes what is idle: children first makes /x removable */
	s.remove = true;
	rc = ioqos_load_buf_replace(q, "second", second, sizeof(second) - 1, T_S(3),
				    unnamed, &s, err, sizeof(err));
	CHECK_EQ_INT("5. again, removing", 0, rc);
	CHECK_EQ("5. reported", 3, s.n);
	CHECK_EQ_INT("5. /x gone", -ENOENT, ioqos_group_find(q, "/x"));
	CHECK_EQ_INT("5. /x/y gone", -ENOENT, ioqos_group_find(q, "/x/y"));
	CHECK_EQ_INT("5. /b gone", -ENOENT, ioqos_group_find(q, "/b"));
	CHECK(ioqos_group_find(q, "/c") >= 0, "5. /c stays");
	ioqos_free(q);
}

/* "/" and then @len - 1 letters, from @salt ('a' or 'A') */
static void long_path(char *buf, int len, char salt)
{
	buf[0] = '/';
	for (int i = 1; i < len; i++)
		buf[i] = (char)(salt + (i % 20));
	buf[len] = '\0';
}

static void path_lengths(void)
{
	struct ioqos *q = ioqos_new();
	uint32_t id[41];
	char path[64];
	int len;

	for (len = 2; len <= 40; len++) {
		long_path(path, len, 'a');
		id[len] = grp(q, path);
	}
	for (len = 2; len <= 40; len++) {
		long_path(path, len, 'a');
		CHECK_SILENT(ioqos_group_find(q, path) == (int)id[len], "6. found, length %d", len);
		CHECK_SILENT(strcmp(ioqos_group_path(q, id[len]), path) == 0,
			     "6. named back, length %d: %s", len, ioqos_group_path(q, id[len]));
	}
	for (len = 2; len <= 40; len++)
		CHECK_SILENT(ioqos_group_remove(q, id[len], 0, NULL) == 0, "6. removed, %d", len);
	CHECK(ioqos_group_path(q, id[2]) == NULL && ioqos_group_path(q, id[40]) == NULL,
	      "6. a removed group has no path");
	/* the slots again, the lengths the other way round */
	for (len = 40; len >= 2; len--) {
		long_path(path, len, 'A');
		id[len] = grp(q, path);
	}
	CHECK_EQ("6. the slots are reused", 40, ioqos_group_count(q));
	for (len = 2; len <= 40; len++) {
		long_path(path, len, 'A');
		CHECK_SILENT(ioqos_group_find(q, path) == (int)id[len], "6. found again, %d", len);
		CHECK_SILENT(strcmp(ioqos_group_path(q, id[len]), path) == 0,
			     "6. named back again, length %d", len);
		long_path(path, len, 'a');
		CHECK_SILENT(ioqos_group_find(q, path) == -ENOENT, "6. the old one gone, %d", len);
	}
	ioqos_free(q);
}

/* 7: remove the group, then read the path it was passed */
static void unnamed_remove_then_read(void *arg, struct ioqos *q, uint32_t id,
				     const char *path)
{
	struct seen *s = arg;

	CHECK_EQ_INT("7. removed in the callback", 0, ioqos_group_remove(q, id, 0, NULL));
	if (s->n < 8)
		snprintf(s->paths[s->n], sizeof(s->paths[0]), "%s", path);
	s->n++;
}

static void removed_in_callback(void)
{
	static const char conf[] = "/kept weight=5\n";
	struct ioqos *q = ioqos_new();
	struct seen s = { .n = 0 };
	char err[256];
	int rc;

	grp(q, "/a-group-of-a-long-name");
	grp(q, "/short");
	grp(q, "/kept");
	rc = ioqos_load_buf_replace(q, "c", conf, sizeof(conf) - 1, 0,
				    unnamed_remove_then_read, &s, err, sizeof(err));
	CHECK(rc == 0, "7. replacing load: %d %s", rc, err);
	CHECK_EQ("7. two unnamed", 2, s.n);
	CHECK(s.n == 2 && ((!strcmp(s.paths[0], "/a-group-of-a-long-name") &&
			    !strcmp(s.paths[1], "/short")) ||
			   (!strcmp(s.paths[1], "/a-group-of-a-long-name") &&
			    !strcmp(s.paths[0], "/short"))),
	      "7. each named as it was: '%s' '%s'", s.paths[0], s.paths[1]);
	CHECK_EQ_INT("7. the long one gone", -ENOENT,
		     ioqos_group_find(q, "/a-group-of-a-long-name"));
	ioqos_free(q);
}

int main(void)
{
	codes();
	throttled_disk();
	at_ancestor();
	churn();
	replace();
	path_lengths();
	removed_in_callback();
	return th_exit();
}
