/* SPDX-License-Identifier: MIT */
/*
 * iops_size: a request of B bytes counts as ceil(B / SIZE) I/Os against
 * riops and wiops (at least one), its bytes still charged once against
 * rbps and wbps, as QEMU's iops-size counts and as the kernel counts the
 * bios it splits a large request into.  blktests throtl/002 gives a null
 * device a max_sectors of one page (4 KiB), sets wiops=256 and checks that
 * one 1 MiB write takes 1 s (256 bios); throtl/003 sets wbps=1M and checks
 * that the same write takes 1 s, not 2 (its bytes charged once).  Here
 * they are exact, in virtual time:
 *
 * 1. settings: the values, the errors (naming key and value, changing
 *    nothing), ioqos_limits_get() and ioqos_describe() with inheritance, a
 *    replay of the descriptions, cgroup lines, a replacing load;
 * 2. throtl/002 and /003: a 1 MiB write at wiops=256 iops_size=4k goes 1 s
 *    after the limit is set, (256 - 8) / 256 s after a long idle (the
 *    bucket's depth of 8 I/Os); at wbps=1M, with or without wiops=256, 1 s;
 * 3. every dispatch of a backlogged stream at the time the buckets say, to
 *    the nanosecond: riops=100 iops_size=4k and 64 KiB reads go every
 *    160 ms (100/16 a second over 1000 s), 10 KiB every 30 ms, 4097 B every
 *    20 ms, 0 B every 10 ms; bytes limits as without iops_size;
 * 4. inheritance: each limit counts by the size in force at its own group
 *    (its own, or the nearest ancestor's that gives one), so a child's
 *    iops_size never changes what a request costs an ancestor's limit;
 * 5. a change at runtime takes effect at `now`, also through an ancestor;
 * 6. trimming: a 1 MiB read after an idle hour at riops=100 iops_size=4k
 *    waits (256 - 8) / 100 s; under a parent it does not wait again there;
 * 7. shares of a parent's I/O limit are by I/Os as counted: 64 KiB and
 *    4 KiB readers at equal weights get half the I/Os each;
 * 8. transit in I/Os: t_transit's bound R*T + B + one request for a child
 *    whose requests wait at a busy parent, and after an iops_size change
 *    with a backlog above;
 * 9. random steps (submits of every size, limits and sizes changed at
 *    runtime, cancels, completions): every node's transit is, after each
 *    step, what the requests' places say, and all of it drains to zero.
 */
#include "helpers.h"
#include "internal.h"

#define T0 T_S(10)

/* ---- 1. settings ------------------------------------------------------------ */

static uint64_t size_at(struct ioqos *q, const char *path)
{
	struct ioqos_limits l;
	int id = ioqos_group_find(q, path);

	if (id < 0 || ioqos_limits_get(q, (uint32_t)id, &l) < 0)
		return 0;
	return l.iops_size;
}

static void describe(struct ioqos *q, const char *path, char *buf, size_t len)
{
	int id = ioqos_group_find(q, path);

	buf[0] = '\0';
	if (id >= 0)
		ioqos_describe(q, (uint32_t)id, buf, len);
}

static int load(struct ioqos *q, const char *name, const char *text, uint64_t now,
		char *err, size_t errlen)
{
	return ioqos_load_buf(q, name, text, strlen(text), now, err, errlen);
}

static int load_replace(struct ioqos *q, const char *text, uint64_t now, char *err,
			size_t errlen)
{
	return ioqos_load_buf_replace(q, "r.conf", text, strlen(text), now, NULL, NULL, err,
				      errlen);
}

static void settings(void)
{
	static const struct {
		const char *set, *value;
		int rc;
	} bad[] = {
		{ "iops_size=-1", "-1", -EINVAL },
		{ "iops_size=4x", "4x", -EINVAL },
		{ "iops_size=1s", "1s", -EINVAL },
		{ "iops_size=10B", "10B", -EINVAL },
		{ "iops_size=9000P", "9000P", -ERANGE },
		{ "iops_size=4k iops_size=8k", "8k", -EINVAL },
		{ "iops_size=", "", -EINVAL },
		{ "riops=100 iops_size=auto", "auto", -EINVAL },
	};
	struct ioqos *q = ioqos_new(), *r;
	char err[256], buf[512], what[160];
	uint32_t i;
	int rc;

	set_ok(q, "/p", "riops=100 iops_size=4k", 0);
	grp(q, "/p/c/d");
	set_ok(q, "/p/x", "iops_size=0", 0);
	set_ok(q, "/p/y", "iops_size=max", 0);
	set_ok(q, "/p/z", "iops_size=64KiB", 0);
	set_ok(q, "/q", "iops_size=1", 0);
	set_ok(q, "/q", "iops_size=8192P", 0);
	grp(q, "/p/x/new");
	grp(q, "/p/z/new");
	CHECK_EQ("/: none", IOQOS_UNLIMITED, size_at(q, "/"));
	CHECK_EQ("/p: iops_size=4k", 4096, size_at(q, "/p"));
	CHECK_EQ("/p/c/d: /p's, inherited", 4096, size_at(q, "/p/c/d"));
	CHECK_EQ("/p/x: iops_size=0 is none, over /p's", IOQOS_UNLIMITED, size_at(q, "/p/x"));
	CHECK_EQ("/p/x/new: none, from /p/x", IOQOS_UNLIMITED, size_at(q, "/p/x/new"));
	CHECK_EQ("/p/y: iops_size=max is none", IOQOS_UNLIMITED, size_at(q, "/p/y"));
	CHECK_EQ("/p/z: its own 64 KiB", 65536, size_at(q, "/p/z"));
	CHECK_EQ("/p/z/new: /p/z's", 65536, size_at(q, "/p/z/new"));
	CHECK_EQ("/q: 2^63, the largest", 1ull << 63, size_at(q, "/q"));

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		rc = ioqos_set(q, "/p", bad[i].set, 1, err, sizeof(err));
		snprintf(want, sizeof(want), "'%s'", bad[i].value);
		CHECK(rc == bad[i].rc && strstr(err, "iops_size") &&
		      (!bad[i].value[0] || strstr(err, want)),
		      "'%s' refused (%d) naming the key and the value: %s",
		      bad[i].set, rc, err);
		CHECK_EQ("... and /p keeps its size", 4096, size_at(q, "/p"));
	}

	describe(q, "/", buf, sizeof(buf));
	CHECK(!strstr(buf, "iops_size"), "/ describes no iops_size: '%s'", buf);
	describe(q, "/p", buf, sizeof(buf));
	CHECK(strstr(buf, " iops_size=4096"), "/p describes iops_size=4096: '%s'", buf);
	describe(q, "/p/c/d", buf, sizeof(buf));
	CHECK(strstr(buf, " iops_size=4096"), "/p/c/d describes the size in force: '%s'", buf);
	describe(q, "/p/x", buf, sizeof(buf));
	CHECK(strstr(buf, " iops_size=max"), "/p/x describes its none: '%s'", buf);
	describe(q, "/p/x/new", buf, sizeof(buf));
	CHECK(!strstr(buf, "iops_size"), "/p/x/new describes no iops_size: '%s'", buf);

	/* a replay of every group's description gives the same sizes */
	r = ioqos_new();
	for (i = 0; i < ioqos_group_count(q); i++) {
		const char *path = ioqos_group_path(q, i);

		ioqos_describe(q, i, buf, sizeof(buf));
		rc = ioqos_set(r, path, buf, 0, err, sizeof(err));
		CHECK(rc == 0, "replay of %s '%s': %d %s", path, buf, rc, rc ? err : "");
	}
	for (i = 0; i < ioqos_group_count(q); i++) {
		const char *path = ioqos_group_path(q, i);

		snprintf(what, sizeof(what), "replayed %s: the same size", path);
		CHECK_EQ(what, size_at(q, path), size_at(r, path));
	}
	ioqos_free(r);

	/* a config file, io.max lines with it, and a mistake that names its line */
	r = ioqos_new();
	rc = load(r, "cg.conf", "/ device=8:16\n/t 8:16 riops=100 iops_size=4k\n/t/u\n", 0,
		  err, sizeof(err));
	CHECK(rc == 0, "io.max line with iops_size: %d %s", rc, rc ? err : "");
	CHECK_EQ("/t from an io.max line", 4096, size_at(r, "/t"));
	CHECK_EQ("/t/u inherits it", 4096, size_at(r, "/t/u"));
	rc = load(r, "b.conf", "/t riops=10\n/t/u iops_size=12q\n", 1, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "b.conf:2") && strstr(err, "iops_size") &&
	      strstr(err, "'12q'"), "a bad size in a file names file, line, key, value: %s",
	      err);
	CHECK_EQ("... and changes nothing", 4096, size_at(r, "/t/u"));
	/* a replacing load that does not give it: inherited again */
	rc = load_replace(r, "/t riops=100\n/t/u riops=5\n", 2, err, sizeof(err));
	CHECK(rc == 0, "replacing load: %d %s", rc, rc ? err : "");
	CHECK_EQ("/t after a replacing load without it: none", IOQOS_UNLIMITED,
		 size_at(r, "/t"));
	rc = load_replace(r, "/t iops_size=8k\n/t/u riops=5\n", 3, err, sizeof(err));
	CHECK(rc == 0, "replacing load: %d %s", rc, rc ? err : "");
	CHECK_EQ("/t/u inherits /t's new size in the same load", 8192, size_at(r, "/t/u"));
	ioqos_free(r);
	ioqos_free(q);
}

/* ---- the time each dispatch is due ------------------------------------------- */

/* a bucket a stream passes: @rate per s, holding @depth at T0, @need a request */
struct bk {
	uint64_t rate, depth, need;
};

/*
 * When the @k-th request (from 0) of a stream backlogged from @t0 passes
 * every bucket of @b: each gives (k + 1) * need, holding depth at t0.
 */
static uint64_t due(const struct bk *b, int nb, uint64_t t0, uint64_t k)
{
	uint64_t t = t0;

	for (int i = 0; i < nb; i++) {
		uint64_t want = (k + 1) * b[i].need;

		if (want > b[i].depth) {
			uint64_t w = bytes_to_ns(want - b[i].depth, b[i].rate);

			if (t0 + w > t)
				t = t0 + w;
		}
	}
	return t;
}

/* the dispatches of @g in the life log, in order, from @from on, into @t */
static size_t times_of(struct drv *d, uint32_t g, uint64_t from, uint64_t *t, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < d->disp_n && n < max; i++) {
		const struct drv_life *f = &d->life[d->disp[i]];

		if (f->group == g && f->leave_ns >= from)
			t[n++] = f->leave_ns;
	}
	return n;
}

#define MAXT 200000

/*
 * The settings @set (pairs of path and settings, at time 0), a reader of
 * @bs at @path from T0 at iodepth 2 with instant completion, for @span:
 * every dispatch is at the time @b says, and their number is what the
 * buckets give over the span.
 */
static void stream(const char *name, const char *const *set, const char *path,
		   uint8_t dir, uint64_t bs, const struct bk *b, int nb, uint64_t span)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 8);
	static uint64_t t[MAXT];
	uint64_t late = 0, n = 0, k;
	size_t got;
	char what[200];
	uint32_t g;

	for (int i = 0; set[i]; i += 2)
		set_ok(q, set[i], set[i + 1], 0);
	g = grp(q, path);
	d->keep_life = true;
	drv_run_until(d, T0);
	drv_reader(d, g, dir, bs, 2, 0);
	drv_run_until(d, T0 + span);
	got = times_of(d, g, 0, t, MAXT);
	for (k = 0; due(b, nb, T0, k) < T0 + span; k++)
		n++;
	for (k = 0; k < got; k++)
		late += t[k] != due(b, nb, T0, k);
	snprintf(what, sizeof(what), "%s: requests in %.0f s", name, ns_to_s(span));
	CHECK_EQ(what, n, got);
	snprintf(what, sizeof(what), "%s: dispatches not at their time to the ns", name);
	CHECK_EQ(what, 0, late);
	if (got > 1)
		printf("# %s: %zu requests, %.6f a second, every %.3f ms\n", name, got,
		       (double)(got - 1) / ns_to_s(t[got - 1] - t[0]),
		       (double)(t[got - 1] - t[got - 2]) / 1e6);
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

/* ---- 2. throtl/002 and throtl/003 ------------------------------------------ */

/* one request of @bytes at @path, @idle after the limits were set at T0:
 * how long after its submit it is dispatched */
static uint64_t one(const char *limit, uint8_t dir, uint64_t bytes, uint64_t idle)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 4);
	uint64_t w = UINT64_MAX;
	uint32_t g;

	drv_run_until(d, T0);
	set_ok(q, "/t", limit, T0);
	g = grp(q, "/t");
	d->keep_life = true;
	drv_run_until(d, T0 + idle);
	drv_submit(d, g, dir, bytes);
	drv_run_until(d, T0 + idle + T_S(100));
	if (CHECK(d->disp_n == 1, "%s: one dispatched, got %zu", limit, d->disp_n))
		w = d->life[d->disp[0]].leave_ns - (T0 + idle);
	drv_free(d);
	ioqos_free(q);
	return w;
}

static void throtl(void)
{
	/* throtl/002: 256 bios of 4 KiB at 256 a second */
	CHECK_EQ("throtl/002: wiops=256 iops_size=4k, a 1 MiB write (ns)", T_S(1),
		 one("wiops=256 iops_size=4k", IOQOS_WRITE, MIB, 0));
	CHECK_EQ("throtl/002: riops=256 iops_size=4k, a 1 MiB read (ns)", T_S(1),
		 one("riops=256 iops_size=4k", IOQOS_READ, MIB, 0));
	CHECK_EQ("... after 100 s idle: (256 - 8) / 256 s (ns)", 968750000,
		 one("wiops=256 iops_size=4k", IOQOS_WRITE, MIB, T_S(100)));
	CHECK_EQ("... without iops_size one I/O: 1/256 s (ns)", 3906250,
		 one("wiops=256", IOQOS_WRITE, MIB, 0));
	CHECK_EQ("... iops_size=0: one I/O (ns)", 3906250,
		 one("wiops=256 iops_size=0", IOQOS_WRITE, MIB, 0));
	/* throtl/003: the bytes once, whatever the I/Os */
	CHECK_EQ("throtl/003: wbps=1M iops_size=4k, a 1 MiB write (ns)", T_S(1),
		 one("wbps=1M iops_size=4k", IOQOS_WRITE, MIB, 0));
	CHECK_EQ("throtl/003: rbps=1M iops_size=4k, a 1 MiB read (ns)", T_S(1),
		 one("rbps=1M iops_size=4k", IOQOS_READ, MIB, 0));
	CHECK_EQ("wbps=1M wiops=256 iops_size=4k: 1 s, not 2 (ns)", T_S(1),
		 one("wbps=1M wiops=256 iops_size=4k", IOQOS_WRITE, MIB, 0));
	CHECK_EQ("wbps=1M wiops=1000000 iops_size=4k: the bytes (ns)", T_S(1),
		 one("wbps=1M wiops=1000000 iops_size=4k", IOQOS_WRITE, MIB, 0));
	/* a size no multiple of it: 257 I/Os */
	CHECK_EQ("wiops=256 iops_size=4k, 1 MiB + 1 B: 257/256 s (ns)", 1003906250,
		 one("wiops=256 iops_size=4k", IOQOS_WRITE, MIB + 1, 0));
}

/* ---- 3. every dispatch at its time ------------------------------------------- */

static void rates(void)
{
	static const char *const r100_4k[] = { "/g", "riops=100 iops_size=4k", NULL };
	static const char *const w100_4k[] = { "/g", "wiops=100 iops_size=4k", NULL };
	static const char *const r100[] = { "/g", "riops=100", NULL };
	static const char *const r100_0[] = { "/g", "riops=100 iops_size=0", NULL };
	static const char *const b256k[] = { "/g", "rbps=256k riops=100 iops_size=4k", NULL };
	static const char *const b2m[] = { "/g", "rbps=2M riops=100 iops_size=4k", NULL };
	static const char *const burst[] = { "/g", "riops=100 iops_size=4k burst=1s", NULL };
	const uint64_t span = T_S(1000);
	struct bk b[2];

	/* 16 I/Os each: 100/16 = 6.25 requests a second, every 160 ms */
	b[0] = (struct bk){ 100, 8, 16 };
	stream("riops=100 iops_size=4k, 64 KiB reads", r100_4k, "/g", IOQOS_READ,
	       64 * KIB, b, 1, span);
	stream("wiops=100 iops_size=4k, 64 KiB writes", w100_4k, "/g", IOQOS_WRITE,
	       64 * KIB, b, 1, span);
	b[0].need = 3;
	stream("riops=100 iops_size=4k, 10 KiB reads", r100_4k, "/g", IOQOS_READ,
	       10 * KIB, b, 1, span);
	b[0].need = 2;
	stream("riops=100 iops_size=4k, 4097 B reads", r100_4k, "/g", IOQOS_READ,
	       4097, b, 1, span);
	b[0].need = 1;
	stream("riops=100 iops_size=4k, 4096 B reads", r100_4k, "/g", IOQOS_READ,
	       4096, b, 1, span);
	stream("riops=100 iops_size=4k, 0 B reads: one I/O", r100_4k, "/g", IOQOS_READ,
	       0, b, 1, span);
	stream("riops=100, 64 KiB reads: one I/O", r100, "/g", IOQOS_READ,
	       64 * KIB, b, 1, span);
	stream("riops=100 iops_size=0, 64 KiB reads: one I/O", r100_0, "/g", IOQOS_READ,
	       64 * KIB, b, 1, span);
	/* bytes as without it: bound by the bytes at 256 KiB/s, every 250 ms */
	b[0] = (struct bk){ 256 * KIB, 32 * KIB, 64 * KIB };
	b[1] = (struct bk){ 100, 8, 16 };
	stream("rbps=256k riops=100 iops_size=4k, 64 KiB reads", b256k, "/g", IOQOS_READ,
	       64 * KIB, b, 2, span);
	b[0] = (struct bk){ 2 * MIB, default_depth_bytes(2 * MIB), 64 * KIB };
	stream("rbps=2M riops=100 iops_size=4k, 64 KiB reads", b2m, "/g", IOQOS_READ,
	       64 * KIB, b, 2, span);
	/* a burst of a second: 100 I/Os at once, 6 requests */
	b[0] = (struct bk){ 100, 100, 16 };
	stream("riops=100 iops_size=4k burst=1s, 64 KiB reads", burst, "/g", IOQOS_READ,
	       64 * KIB, b, 1, span);
}

/* ---- 4. inheritance ------------------------------------------------------------ */

static void inheritance(void)
{
	static const char *const parent[] = { "/p", "riops=100 iops_size=4k", NULL };
	static const char *const down[] = { "/p", "iops_size=4k", "/p/c", "riops=100", NULL };
	static const char *const up[] = { "/p", "riops=100", "/p/c", "iops_size=4k", NULL };
	static const char *const both[] = { "/p", "riops=100 iops_size=4k",
					    "/p/c", "riops=1000 iops_size=64k", NULL };
	static const char *const none[] = { "/p", "riops=100 iops_size=4k burst=1s",
					    "/p/c", "riops=5 iops_size=0 burst=200ms", NULL };
	static const char *const own[] = { "/p", "riops=100 iops_size=16k",
					   "/p/c", "riops=200 iops_size=4k", NULL };
	const uint64_t span = T_S(200);
	struct bk b[2];

	b[0] = (struct bk){ 100, 8, 16 };
	stream("/p riops=100 iops_size=4k, reads in /p/c/d", parent, "/p/c/d", IOQOS_READ,
	       64 * KIB, b, 1, span);
	stream("/p iops_size=4k over /p/c riops=100: inherited", down, "/p/c", IOQOS_READ,
	       64 * KIB, b, 1, span);
	/* /p counts by its own size (none), not by its child's */
	b[0] = (struct bk){ 100, 8, 1 };
	stream("/p riops=100 over /p/c iops_size=4k: one I/O at /p", up, "/p/c", IOQOS_READ,
	       64 * KIB, b, 1, span);
	/* /p/c counts 1, /p 16 */
	b[0] = (struct bk){ 1000, 10, 1 };
	b[1] = (struct bk){ 100, 8, 16 };
	stream("/p riops=100 iops_size=4k over /p/c riops=1000 iops_size=64k", both, "/p/c",
	       IOQOS_READ, 64 * KIB, b, 2, span);
	/* /p/c's own none: 1 at 5/s binds before /p's 6.25/s (whose burst
	 * of 100 I/Os never holds /p/c's requests up) */
	b[0] = (struct bk){ 5, 1, 1 };
	b[1] = (struct bk){ 100, 100, 16 };
	stream("/p riops=100 iops_size=4k over /p/c riops=5 iops_size=0", none, "/p/c",
	       IOQOS_READ, 64 * KIB, b, 2, span);
	/* /p/c: 16 at 200/s = 12.5/s; /p: 4 at 100/s = 25/s */
	b[0] = (struct bk){ 200, 8, 16 };
	b[1] = (struct bk){ 100, 8, 4 };
	stream("/p riops=100 iops_size=16k over /p/c riops=200 iops_size=4k", own, "/p/c",
	       IOQOS_READ, 64 * KIB, b, 2, span);
}

/* a group made after the setting inherits it; one made before a limit too */
static void inheritance_late(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 8);
	static uint64_t t[MAXT];
	struct bk b = { 100, 8, 16 };
	uint64_t late = 0;
	uint32_t g, h;
	size_t n;

	set_ok(q, "/p", "iops_size=4k", 0);
	h = grp(q, "/x/y");
	set_ok(q, "/x", "iops_size=4k", T_S(1));
	set_ok(q, "/x/y", "riops=100", T_S(2));   /* stage 1 made after the size */
	set_ok(q, "/p", "riops=100", T_S(3));
	drv_run_until(d, T_S(5));
	g = grp(q, "/p/late");                    /* stage 1 made with the group */
	d->keep_life = true;
	drv_run_until(d, T0);
	drv_reader(d, g, IOQOS_READ, 64 * KIB, 2, 0);
	drv_reader(d, h, IOQOS_WRITE, 64 * KIB, 2, 0);
	set_ok(q, "/x/y", "wiops=100", T0);
	drv_run_until(d, T0 + T_S(100));
	n = times_of(d, g, 0, t, MAXT);
	for (size_t k = 0; k < n; k++)
		late += t[k] != due(&b, 1, T0, k);
	CHECK_EQ("/p/late, made after /p's iops_size: 64 KiB reads in 100 s", 625, n);
	CHECK_EQ("... not at their time", 0, late);
	/* /x/y's writes: the write bucket starts empty at T0 */
	b.depth = 0;
	n = times_of(d, h, 0, t, MAXT);
	late = 0;
	for (size_t k = 0; k < n; k++)
		late += t[k] != due(&b, 1, T0, k);
	/* none in hand at T0: 16 * 624 < 100 * 100 */
	CHECK_EQ("/x/y wiops=100, /x's iops_size: 64 KiB writes in 100 s", 624, n);
	CHECK_EQ("... not at their time", 0, late);
	drv_free(d);
	ioqos_free(q);
}

/* ---- 5. a change at runtime ------------------------------------------------------ */

/*
 * @set at time 0, a 64 KiB reader at iodepth 2 in @path from T0; at each
 * change time c[i] the setting ch[i] on ch_path[i].  Each phase is checked
 * against its buckets: from the change on, the stream is backlogged with
 * the tokens the old phase left (tok[i]), at the new count.
 */
struct phase {
	uint64_t at;                 /* T0 for the first, then the change time */
	const char *path, *set;      /* the change (NULL for the first) */
	struct bk b;                 /* the bucket from then on: depth = tokens then */
	uint64_t expect;             /* dispatches in the phase */
};

static void runtime(const char *name, const char *const *set, const char *path,
		    struct phase *ph, int nph, uint64_t end)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 8);
	static uint64_t t[MAXT];
	char what[200];
	uint32_t g;

	for (int i = 0; set[i]; i += 2)
		set_ok(q, set[i], set[i + 1], 0);
	g = grp(q, path);
	d->keep_life = true;
	drv_run_until(d, T0);
	drv_reader(d, g, IOQOS_READ, 64 * KIB, 2, 0);
	for (int i = 1; i < nph; i++) {
		drv_run_until(d, ph[i].at);
		set_ok(q, ph[i].path, ph[i].set, ph[i].at);
	}
	drv_run_until(d, end);
	for (int i = 0; i < nph; i++) {
		uint64_t to = i + 1 < nph ? ph[i + 1].at : end, late = 0;
		size_t n = 0, all = times_of(d, g, ph[i].at, t, MAXT);

		while (n < all && t[n] < to) {
			late += t[n] != due(&ph[i].b, 1, ph[i].at, n);
			n++;
		}
		snprintf(what, sizeof(what), "%s, phase %d (%s): requests", name, i,
			 ph[i].set ? ph[i].set : "start");
		CHECK_EQ(what, ph[i].expect, n);
		snprintf(what, sizeof(what), "%s, phase %d: not at their time", name, i);
		CHECK_EQ(what, 0, late);
	}
	drv_free(d);
	ioqos_free(q);
}

static void changes(void)
{
	static const char *const one_group[] = { "/g", "riops=100 iops_size=4k", NULL };
	static const char *const tree[] = { "/p", "iops_size=4k", "/p/c", "riops=100", NULL };
	/*
	 * 16 I/Os each from T0 (8 in hand): at T0 + 80 ms + 160 ms * k.  At
	 * T0 + 1780 ms the 11th has waited 100 ms since the 10th went at
	 * 1680: 10 I/Os in hand.  At 4 I/Os each (16k) two go at once, the
	 * next 20 ms later, then every 40 ms; at T0 + 3010 ms (10 ms after
	 * one went at 3000: 1 in hand) a size of none makes it one I/O: at
	 * once, then every 10 ms.  (/p's 1k at 3990 ms: /p/c has its own.)
	 */
	struct phase a[] = {
		{ T0, NULL, NULL, { 100, 8, 16 }, 11 },
		{ T0 + T_MS(1780), "/g", "iops_size=16k", { 100, 10, 4 }, 33 },
		{ T0 + T_MS(3010), "/g", "iops_size=0", { 100, 1, 1 }, 99 },
	};
	/* the same through /p, inherited by /p/c; then /p/c's own none, after
	 * which /p's size no longer reaches it */
	struct phase b[] = {
		{ T0, NULL, NULL, { 100, 8, 16 }, 11 },
		{ T0 + T_MS(1780), "/p", "iops_size=16k", { 100, 10, 4 }, 33 },
		{ T0 + T_MS(3010), "/p/c", "iops_size=max", { 100, 1, 1 }, 98 },
		{ T0 + T_MS(3990), "/p", "iops_size=1k", { 100, 1, 1 }, 100 },
	};

	runtime("/g riops=100: iops_size at runtime", one_group, "/g", a, 3, T0 + T_S(4));
	runtime("/p/c riops=100: /p's iops_size at runtime", tree, "/p/c", b, 4,
		T0 + T_MS(4990));
}

/* ---- 6. trimming ------------------------------------------------------------------ */

static void trimming(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 32);
	static uint64_t t[64];
	const uint64_t t1 = T_S(3600);
	uint32_t g, c, u;
	size_t n;

	set_ok(q, "/g", "riops=100 iops_size=4k", 0);
	set_ok(q, "/p", "riops=100 iops_size=4k", 0);
	set_ok(q, "/p/c", "riops=50", 0);
	set_ok(q, "/v", "riops=100 iops_size=4k", 0);
	g = grp(q, "/g");
	c = grp(q, "/p/c");
	u = grp(q, "/v/u");
	d->keep_life = true;
	drv_run_until(d, t1);
	/* an hour idle: 8 I/Os in hand, 248 to earn at 100/s; the next 2.56 s later */
	drv_submit(d, g, IOQOS_READ, MIB);
	drv_submit(d, g, IOQOS_READ, MIB);
	/* under /p, waiting at /p/c (50/s) for 4.96 s: /p, trimmed when it
	 * queued, earned its 256 meanwhile and does not hold it again */
	drv_submit(d, c, IOQOS_READ, MIB);
	/* an unlimited child of a limited parent: the parent's depth, then its rate */
	for (int i = 0; i < 20; i++)
		drv_submit(d, u, IOQOS_READ, 64 * KIB);
	drv_run_until(d, t1 + T_S(100));
	n = times_of(d, g, t1, t, 64);
	if (CHECK(n == 2, "/g: 2 dispatched, got %zu", n)) {
		CHECK_EQ("/g: 1 MiB after an idle hour at t1 + (ns)", 2480000000ull, t[0] - t1);
		CHECK_EQ("/g: the next 256 I/Os later (ns)", 2560000000ull, t[1] - t[0]);
	}
	n = times_of(d, c, t1, t, 64);
	if (CHECK(n == 1, "/p/c: 1 dispatched, got %zu", n))
		CHECK_EQ("/p/c: 1 MiB at t1 + 248/50 s, not again at /p (ns)", 4960000000ull,
			 t[0] - t1);
	n = times_of(d, u, t1, t, 64);
	if (CHECK(n == 20, "/v/u: 20 dispatched, got %zu", n)) {
		struct bk b = { 100, 8, 16 };
		uint64_t late = 0;

		for (size_t k = 0; k < n; k++)
			late += t[k] != due(&b, 1, t1, k);
		CHECK_EQ("/v/u under /v riops=100 iops_size=4k: not at their time", 0, late);
		CHECK_EQ("/v/u: 6 in the first second (8 + 100 I/Os)", 6,
			 times_of(d, u, t1, t, 64) - times_of(d, u, t1 + T_S(1), t, 64));
	}
	drv_free(d);
	ioqos_free(q);
}

/* ---- 7. shares by I/Os -------------------------------------------------------------- */

static void shares(const char *wa, double want_a)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 16);
	uint64_t ia, ib, ua, ub;
	uint32_t a, b;
	int ra, rb;
	char what[160];

	set_ok(q, "/p", "riops=100 iops_size=4k", 0);
	set_ok(q, "/p/a", wa, 0);
	a = grp(q, "/p/a");
	b = grp(q, "/p/b");
	drv_run_until(d, T0);
	ra = drv_reader(d, a, IOQOS_READ, 64 * KIB, 2, 0);
	rb = drv_reader(d, b, IOQOS_READ, 4 * KIB, 2, 0);
	drv_run_until(d, T0 + T_S(10));
	ia = d->rd[ra].ios;
	ib = d->rd[rb].ios;
	drv_run_until(d, T0 + T_S(1010));
	ua = (d->rd[ra].ios - ia) * 16;
	ub = d->rd[rb].ios - ib;
	snprintf(what, sizeof(what), "/p riops=100 iops_size=4k, /p/a %s 64 KiB, /p/b 4 KiB: "
		 "/p/a's part of the I/Os", wa);
	CHECK_NEAR(what, want_a, (double)ua / (double)(ua + ub), 0.01);
	snprintf(what, sizeof(what), "... I/Os a second, both");
	CHECK_NEAR(what, 100, (double)(ua + ub) / 1000.0, 0.001);
	printf("# %s: /p/a %.3f I/Os/s (%.4f requests/s), /p/b %.3f\n", wa,
	       (double)ua / 1000.0, (double)ua / 16000.0, (double)ub / 1000.0);
	drv_free(d);
	ioqos_free(q);
}

/* ---- 8. transit in I/Os -------------------------------------------------------------- */

/* the largest excess over @rate * T of @g's dispatches in [from, to), in
 * I/Os of @size */
static double worst(struct drv *d, uint32_t g, uint64_t size, uint64_t rate, uint64_t from,
		    uint64_t to)
{
	double w = -1e300;

	for (size_t i = 0; i < d->disp_n; i++) {
		const struct drv_life *a = &d->life[d->disp[i]];
		double sum = 0;

		if (a->group != g || a->leave_ns < from || a->leave_ns >= to)
			continue;
		for (size_t j = i; j < d->disp_n; j++) {
			const struct drv_life *b = &d->life[d->disp[j]];
			double x;

			if (b->group != g || b->leave_ns >= to)
				continue;
			sum += (double)((b->bytes + size - 1) / size);
			x = sum - (double)rate * ns_to_s(b->leave_ns - a->leave_ns);
			if (x > w)
				w = x;
		}
	}
	return w;
}

/*
 * /p wiops=1000 over /p/c wiops=100 weight=1 (64 KiB writes, 16 I/Os each
 * at 4k) and /p/s weight=10000 (4 KiB writes until 100 s).  /p/c's
 * requests wait in /p/c behind s, /p pulling through /p/c (stage1.c), and
 * are charged there in c's I/Os as /p lets them go; when s stops they go at
 * /p's pace, and no window of c passes more than 100 * T + 8 + 16 I/Os.
 * 2: /p/c starts at iops_size=64k (one I/O each) and at 50 s goes to 4k:
 * nothing passed /p/c and waits above it (its transit is empty before the
 * change and after), and what waits in it is charged 16 I/Os each.
 */
static void transit(int kase)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 256);
	uint64_t from = kase == 1 ? 0 : T_S(50);
	char what[160];
	uint32_t c, s;
	int rs;

	set_ok(q, "/p", "wiops=1000", 0);
	set_ok(q, "/p/c", kase == 1 ? "wiops=100 iops_size=4k weight=1" :
		   "wiops=100 iops_size=64k weight=1", 0);
	set_ok(q, "/p/s", "weight=10000", 0);
	c = grp(q, "/p/c");
	s = grp(q, "/p/s");
	d->keep_life = true;
	drv_reader(d, c, IOQOS_WRITE, 64 * KIB, kase == 1 ? 4 : 64, 0);
	rs = drv_reader(d, s, IOQOS_WRITE, 4 * KIB, 4, 0);
	d->rd[rs].stop_ns = T_S(100);
	if (kase == 2) {
		drv_run_until(d, T_S(50));
		CHECK_EQ("2. /p/c's transit at 50 s: nothing waits above it", 0,
			 q->groups[c]->lim[IOQOS_WRITE]->transit_ios);
		set_ok(q, "/p/c", "iops_size=4k", T_S(50));
		CHECK_EQ("2. /p/c's transit after the change: back at /p/c", 0,
			 q->groups[c]->lim[IOQOS_WRITE]->transit_ios);
	}
	drv_run_until(d, T_S(130));
	snprintf(what, sizeof(what), "%d. /p/c: the worst window from %d s, over 100 I/Os/s * T",
		 kase, kase == 1 ? 0 : 50);
	CHECK_LE(what, (uint64_t)worst(d, c, 4096, 100, from, T_S(130)), 8 + 16);
	printf("# %d. /p/c's worst window: %.1f I/Os over 100 * T (allowed 24)\n", kase,
	       worst(d, c, 4096, 100, from, T_S(130)));
	drv_free(d);
	ioqos_free(q);
}

/* ---- 9. random steps: the transit is what the requests' places say -------------- */

#define RPOOL 64
#define RSTEPS 20000

static const char *const rpaths[] = {
	"/", "/a", "/a/b", "/a/b/c", "/a/d", "/e", "/e/f", "/e/f/g",
};
#define RNPATH (sizeof(rpaths) / sizeof(rpaths[0]))

static const char *const rsets[] = {
	"riops=100", "wiops=50 iops_size=4k", "iops_size=16k", "iops_size=0",
	"iops_size=max", "riops=max", "wiops=max", "rbps=1M", "wbps=256k iops_size=1",
	"rbps=max wbps=max riops=max wiops=max", "riops=1000 iops_size=64k",
	"riops=20 wiops=20", "burst=1s", "iops_size=4097", "weight=300", "rbps=4M riops=40",
};
#define RNSET (sizeof(rsets) / sizeof(rsets[0]))

static const uint64_t rsizes[] = { 0, 1, 512, 4096, 4097, 10240, 65536, MIB, 3 * MIB };

/* what every live group's transit should be, from where each request is */
static bool transit_agrees(struct ioqos *q, const struct ioqos_req *req, const bool *held)
{
	static uint64_t ios[64][2], bytes[64][2];
	uint32_t ng = ioqos_group_count(q), id;
	bool ok = true;

	memset(ios, 0, sizeof(ios));
	memset(bytes, 0, sizeof(bytes));
	for (int i = 0; i < RPOOL; i++) {
		const struct ioqos_req *r = &req[i];
		int st = r->_state & IOQOS__ST_MASK, d = r->dir;

		if (!held[i] || (st != IOQOS__ST_UP && st != IOQOS__ST_RELEASED))
			continue;
		for (id = r->group;; id = q->groups[id]->parent) {
			struct ioqos__group *g = q->groups[id];

			if (st == IOQOS__ST_UP || (g->lim_dirs >> d & 1)) {
				ios[id][d] += ioqos__lim_ios(g->lim[d], r->bytes);
				bytes[id][d] += r->bytes;
			}
			if ((st == IOQOS__ST_UP && id == r->_at) || g->parent == IOQOS__NO_GROUP)
				break;
		}
	}
	for (id = 0; id < ng && id < 64; id++) {
		const struct ioqos__group *g = q->groups[id];

		for (int d = 0; d < 2; d++) {
			if (g->life != IOQOS__G_LIVE || !g->lim[d])
				continue;
			ok &= CHECK_SILENT(g->lim[d]->transit_ios == ios[id][d] &&
					   g->lim[d]->transit_bytes == bytes[id][d],
					   "%s dir %d: transit %" PRIu64 " I/Os %" PRIu64
					   " B, by the requests' places %" PRIu64 " I/Os %"
					   PRIu64 " B", ioqos__gpath(g), d, g->lim[d]->transit_ios,
					   g->lim[d]->transit_bytes, ios[id][d], bytes[id][d]);
		}
	}
	return ok;
}

static void random_steps(uint64_t seed)
{
	struct ioqos *q = ioqos_new();
	static struct ioqos_req req[RPOOL];
	bool held[RPOOL] = { false }, out[RPOOL] = { false };
	struct rng rng = rng_seed(seed);
	uint64_t now = 0, bad = 0, wake;
	struct ioqos_req *r;
	char err[256];
	int ids[RNPATH], i, k;

	memset(req, 0, sizeof(req));
	for (k = 0; k < (int)RNPATH; k++)
		ids[k] = ioqos_group(q, rpaths[k]);
	set_ok(q, "/", "depth=4", 0);
	for (int step = 0; step < RSTEPS; step++) {
		uint64_t x = rng_below(&rng, 100);

		i = (int)rng_below(&rng, RPOOL);
		if (x < 40) {
			if (!held[i]) {
				req[i] = req_make((uint32_t)ids[rng_below(&rng, RNPATH)],
						  (uint8_t)rng_below(&rng, 2),
						  rsizes[rng_below(&rng, sizeof(rsizes) /
								   sizeof(rsizes[0]))]);
				held[i] = ioqos_submit(q, &req[i], now) == 0;
			}
		} else if (x < 60) {
			while ((r = ioqos_next(q, now, &wake)) != NULL)
				out[r - req] = true;
		} else if (x < 75) {
			if (out[i]) {
				ioqos_done(q, &req[i], now);
				out[i] = held[i] = false;
			}
		} else if (x < 80) {
			if (held[i] && !out[i] && ioqos_cancel(q, &req[i]) == 0)
				held[i] = false;
		} else if (x < 88) {
			const char *p = rpaths[rng_below(&rng, RNPATH)];
			const char *sv = rsets[rng_below(&rng, RNSET)];

			if (ioqos_set(q, p, sv, now, err, sizeof(err)) < 0)
				CHECK(false, "set %s '%s': %s", p, sv, err);
		} else {
			now += rng_below(&rng, T_MS(50));
		}
		bad += !transit_agrees(q, req, held);
	}
	CHECK_EQ("random steps: steps whose transit disagreed with the requests' places",
		 0, bad);
	/* lift every limit: everything goes, and nothing is left in transit */
	for (k = 0; k < (int)RNPATH; k++)
		set_ok(q, rpaths[k], "rbps=max wbps=max riops=max wiops=max", now);
	set_ok(q, "/", "depth=max", now);
	for (k = 0; k < 1000 && ioqos_queued(q); k++) {
		while ((r = ioqos_next(q, now, &wake)) != NULL)
			out[r - req] = true;
		now += T_MS(1);
	}
	CHECK_EQ("random steps: queued after every limit is lifted", 0, ioqos_queued(q));
	transit_agrees(q, req, held);
	for (i = 0; i < RPOOL; i++)
		if (out[i])
			ioqos_done(q, &req[i], now);
	for (k = 0; k < (int)RNPATH; k++)
		for (int d = 0; d < 2; d++) {
			struct ioqos__lim *l = q->groups[ids[k]]->lim[d];

			if (l)
				CHECK_SILENT(!l->transit_ios && !l->transit_bytes,
					     "%s dir %d: transit left", rpaths[k], d);
		}
	printf("# random steps, seed %" PRIu64 ": done\n", seed);
	ioqos_free(q);
}

int main(void)
{
	settings();
	throtl();
	rates();
	inheritance();
	inheritance_late();
	changes();
	trimming();
	shares("weight=100", 0.5);
	shares("weight=300", 0.75);
	transit(1);
	transit(2);
	for (uint64_t seed = 1; seed <= 4; seed++)
		random_steps(seed);
	return th_exit();
}
