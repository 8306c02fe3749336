/* SPDX-License-Identifier: MIT */
/*
 * The depth nobody wrote (src/depth_rule.c): where "/" writes no depth=,
 * auto when two or more groups stand below "/" and one gives a weight, a
 * prio or a low limit; max otherwise; what "/" writes wins.
 *
 *   1. the rule, step by step: a new controller, one group, limits only,
 *      a weight (equal to the default), a prio, a low of 0 and one above,
 *      a weight on "/", depth= written and taken back, a group removed,
 *      ioqos_limits_get() and ioqos_describe() showing the depth in force;
 *   2. a load that passes through other states on its way (the weight
 *      moved from one group to another in one replacing load) keeps
 *      depth=auto's search where it was; so does the same config put in
 *      force in steps of one group (ioqos_conf_apply()), with a group made
 *      between every two steps, and the rule is decided once, at the step
 *      that gives the last group its settings, before the unnamed are
 *      reported: a config that takes every weight away keeps auto until
 *      then, and gives max there;
 *   3. 300:100 with 64 requests out each on the simulator's presets: no
 *      depth written gives, byte for byte, what "/ depth=auto" gives, and
 *      A's share is 75% within a point where depth=max gives 50.
 */
#include "devmodel.h"

static void dev_is(struct ioqos *q, const char *what, uint64_t set, uint32_t rule)
{
	struct ioqos_device dv;
	struct ioqos_limits lim;

	ioqos_device(q, &dv);
	ioqos_limits_get(q, 0, &lim);
	CHECK(dv.depth_set == set && dv.depth_rule == rule && lim.depth == set,
	      "%s: depth_set %" PRIu64 " (rule %u, limits %" PRIu64 "), expected %" PRIu64
	      " (rule %u)", what, dv.depth_set, dv.depth_rule, lim.depth, set, rule);
}

static void rule_steps(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_device dv;
	char err[256], buf[512];
	int a, b;

	dev_is(q, "1. a new controller", IOQOS_UNLIMITED, IOQOS_DEPTH_RULE_NONE);
	set_ok(q, "/a", "weight=300", 0);
	dev_is(q, "1. one group with a weight", IOQOS_UNLIMITED, IOQOS_DEPTH_RULE_NONE);
	set_ok(q, "/a/x", "rbps=1M", 0);
	dev_is(q, "1. a weight and a child below it", IOQOS_DEPTH_AUTO,
	       IOQOS_DEPTH_RULE_SHARE);
	ioqos_device(q, &dv);
	CHECK(dv.rule_groups == 2 && dv.rule_shares == 1 && dv.depth == IOQOS_UNLIMITED,
	      "1. groups 2, sharing 1, auto's first block at max: got %u, %u, depth %" PRIu64,
	      dv.rule_groups, dv.rule_shares, dv.depth);
	ioqos_free(q);

	q = ioqos_new();
	set_ok(q, "/a", "rbps=10M wiops=100", 0);
	set_ok(q, "/b", "wbps=1M", 0);
	set_ok(q, "/c", "rbps_low=0", 0);
	dev_is(q, "1. three groups, limits and a low of 0", IOQOS_UNLIMITED,
	       IOQOS_DEPTH_RULE_NONE);
	set_ok(q, "/", "weight=500", 0);
	dev_is(q, "1. a weight on / only", IOQOS_UNLIMITED, IOQOS_DEPTH_RULE_NONE);
	set_ok(q, "/c", "riops_low=10", 0);
	dev_is(q, "1. a low above 0", IOQOS_DEPTH_AUTO, IOQOS_DEPTH_RULE_SHARE);
	set_ok(q, "/c", "riops_low=0", 0);
	dev_is(q, "1. the low back to 0", IOQOS_UNLIMITED, IOQOS_DEPTH_RULE_NONE);
	set_ok(q, "/b", "weight=100", 0);
	dev_is(q, "1. weight=100, the default, written", IOQOS_DEPTH_AUTO,
	       IOQOS_DEPTH_RULE_SHARE);
	ioqos_describe(q, 0, buf, sizeof(buf));
	CHECK(strstr(buf, " depth=auto ") != NULL, "1. describe shows the depth in force: %s",
	      buf);
	set_ok(q, "/", "depth=max", 0);
	dev_is(q, "1. / depth=max written", IOQOS_UNLIMITED, IOQOS_DEPTH_RULE_SET);
	set_ok(q, "/", "depth=12", 0);
	dev_is(q, "1. / depth=12 written", 12, IOQOS_DEPTH_RULE_SET);
	CHECK(ioqos_load_buf_replace(q, "conf", "/b prio=2\n/c\n", 12, T_S(1), NULL, NULL,
				     err, sizeof(err)) == 0, "1. replacing load: %s", err);
	dev_is(q, "1. depth= no longer written, a prio", IOQOS_DEPTH_AUTO,
	       IOQOS_DEPTH_RULE_SHARE);
	a = ioqos_group_find(q, "/a");
	CHECK(ioqos_group_remove(q, (uint32_t)a, T_S(2), NULL) == 0, "1. remove /a");
	dev_is(q, "1. /b and /c, a prio", IOQOS_DEPTH_AUTO, IOQOS_DEPTH_RULE_SHARE);
	b = ioqos_group_find(q, "/c");
	CHECK(ioqos_group_remove(q, (uint32_t)b, T_S(3), NULL) == 0, "1. remove /c");
	dev_is(q, "1. one group left", IOQOS_UNLIMITED, IOQOS_DEPTH_RULE_NONE);
	b = ioqos_group(q, "/d");
	dev_is(q, "1. a second group made by ioqos_group()", IOQOS_DEPTH_AUTO,
	       IOQOS_DEPTH_RULE_SHARE);
	b = ioqos_group_find(q, "/b");
	CHECK(ioqos_group_remove(q, (uint32_t)b, T_S(4), NULL) == 0, "1. remove /b");
	dev_is(q, "1. the group with the prio removed", IOQOS_UNLIMITED,
	       IOQOS_DEPTH_RULE_NONE);
	ioqos_free(q);
}

/* a device, 300:100 with @streams x @iodepth each, @depth written or not (NULL) */
struct res {
	uint64_t ios_a, ios_b;
	struct ioqos_device dv;
};

static struct res run(const struct dm_dev *dev, const char *depth, unsigned streams,
		      unsigned iodepth, uint64_t until_ns)
{
	struct ioqos *q = ioqos_new();
	struct dm *d;
	struct res r;
	uint32_t a, b;
	char set[64];

	if (depth) {
		snprintf(set, sizeof(set), "depth=%s", depth);
		set_ok(q, "/", set, 0);
	}
	a = sh_group(q, "/A");
	set_ok(q, "/A", "weight=300", 0);
	b = sh_group(q, "/B");
	set_ok(q, "/B", "weight=100", 0);
	d = dm_new(q, dev);
	dm_streams(d, streams, a, IOQOS_READ, 4096, iodepth);
	dm_streams(d, streams, b, IOQOS_READ, 4096, iodepth);
	dm_run_until(d, until_ns);
	r.ios_a = d->g[a].ios;
	r.ios_b = d->g[b].ios;
	ioqos_device(q, &r.dv);
	CHECK(!d->stuck && d->depth_viol == 0, "%s: no stall, never beyond the depth",
	      depth ? depth : "none written");
	free(d);
	ioqos_free(q);
	return r;
}

static double share(const struct res *r)
{
	return 100.0 * (double)r->ios_a / (double)(r->ios_a + r->ios_b);
}

static void same_as_auto(const char *name, const struct dm_dev *dev, uint64_t until_ns)
{
	struct res none = run(dev, NULL, 8, 8, until_ns);
	struct res au = run(dev, "auto", 8, 8, until_ns);
	struct res mx = run(dev, "max", 8, 8, until_ns);

	printf("# %s: none written %" PRIu64 " I/Os, A %.2f%%, depth %" PRIu64
	       "; auto %" PRIu64 "; max %" PRIu64 ", A %.2f%%\n", name,
	       none.ios_a + none.ios_b, share(&none), none.dv.depth, au.ios_a + au.ios_b,
	       mx.ios_a + mx.ios_b, share(&mx));
	CHECK(none.ios_a == au.ios_a && none.ios_b == au.ios_b &&
	      none.dv.depth == au.dv.depth && none.dv.rounds == au.dv.rounds &&
	      none.dv.changes == au.dv.changes,
	      "3. %s: no depth written gives what depth=auto gives: %" PRIu64 "/%" PRIu64
	      " I/Os against %" PRIu64 "/%" PRIu64, name, none.ios_a, none.ios_b, au.ios_a,
	      au.ios_b);
	CHECK(none.dv.depth_rule == IOQOS_DEPTH_RULE_SHARE && au.dv.depth_rule ==
	      IOQOS_DEPTH_RULE_SET, "3. %s: the rules reported: %u and %u", name,
	      none.dv.depth_rule, au.dv.depth_rule);
	CHECK(fabs(share(&none) - 75.0) <= 1.0, "3. %s: A's share 75 +- 1%%, got %.2f", name,
	      share(&none));
	CHECK(fabs(share(&mx) - 50.0) <= 2.0, "3. %s: at depth=max the device decides (50%%)"
	      ": got %.2f", name, share(&mx));
}

/* a replacing load moves the weight from /A to /B: auto keeps its search */
static void load_passes_through(const struct dm_dev *dev)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_device before, after;
	struct dm *d;
	char err[256];
	static const char moved[] = "/A\n/B weight=100\n";

	set_ok(q, "/A", "weight=300", 0);
	dm_streams(d = dm_new(q, dev), 8, sh_group(q, "/A"), IOQOS_READ, 4096, 8);
	dm_streams(d, 8, sh_group(q, "/B"), IOQOS_READ, 4096, 8);
	dm_run_until(d, T_MS(300));
	ioqos_device(q, &before);
	CHECK(ioqos_load_buf_replace(q, "moved", moved, sizeof(moved) - 1, d->now, NULL,
				     NULL, err, sizeof(err)) == 0, "2. load: %s", err);
	ioqos_device(q, &after);
	CHECK(before.depth_rule == IOQOS_DEPTH_RULE_SHARE &&
	      after.depth_rule == IOQOS_DEPTH_RULE_SHARE && before.depth != IOQOS_UNLIMITED &&
	      after.depth == before.depth && after.depth_found == before.depth_found,
	      "2. the weight moved in one load: depth %" PRIu64 " (found %" PRIu64
	      ") before, %" PRIu64 " (found %" PRIu64 ") after", before.depth,
	      before.depth_found, after.depth, after.depth_found);
	free(d);
	ioqos_free(q);
}

/* what the rule is when a replacing config reports an unnamed group */
static void rule_at_report(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	struct ioqos_device dv;

	(void)id;
	(void)path;
	ioqos_device(q, &dv);
	*(uint32_t *)arg = dv.depth_rule;
}

/* "/A weight=300" and /B, 8 x 8 reads each, auto's search under way */
static struct dm *searching(const struct dm_dev *dev, struct ioqos **q)
{
	struct dm *d;

	*q = ioqos_new();
	set_ok(*q, "/A", "weight=300", 0);
	dm_streams(d = dm_new(*q, dev), 8, sh_group(*q, "/A"), IOQOS_READ, 4096, 8);
	dm_streams(d, 8, sh_group(*q, "/B"), IOQOS_READ, 4096, 8);
	dm_run_until(d, T_MS(300));
	return d;
}

/* the same config in steps of one group, a group made between two: auto
 * keeps its search, and the rule is decided at the last step */
static void steps_pass_through(const struct dm_dev *dev)
{
	static const char moved[] = "/A\n/B weight=100\n", none[] = "/A\n";
	struct ioqos_device before, at;
	struct ioqos_conf *c;
	struct ioqos *q;
	struct dm *d = searching(dev, &q);
	uint32_t reported = UINT32_MAX;
	unsigned steps = 0, held = 0;
	char err[256], path[16];
	int ret;

	ioqos_device(q, &before);
	CHECK(ioqos_conf_parse("moved", moved, sizeof(moved) - 1, &c, err, sizeof(err)) == 0,
	      "2. parsed: %s", err);
	do {
		ret = ioqos_conf_apply(q, c, d->now, 1, NULL, NULL, err, sizeof(err));
		snprintf(path, sizeof(path), "/C%u", steps++);
		ioqos_group(q, path);      /* a client that connects between two steps */
		ioqos_device(q, &at);
		held += at.depth_rule == IOQOS_DEPTH_RULE_SHARE && at.depth == before.depth &&
			at.depth_found == before.depth_found && at.rounds == before.rounds;
	} while (ret == 1);
	CHECK(ret == 0 && steps >= 4 && held == steps, "2. the weight moved in %u steps, "
	      "a group made between two: the search kept after %u of them (depth %" PRIu64
	      ", found %" PRIu64 " before; %" PRIu64 ", %" PRIu64 " after)", steps, held,
	      before.depth, before.depth_found, at.depth, at.depth_found);
	ioqos_conf_free(c);
	free(d);
	ioqos_free(q);

	/* /A's weight goes at its step, /B is reported (unnamed) at the end */
	d = searching(dev, &q);
	CHECK(ioqos_conf_parse("none", none, sizeof(none) - 1, &c, err, sizeof(err)) == 0,
	      "2. parsed: %s", err);
	steps = held = 0;
	do {
		struct ioqos_limits a;

		ret = ioqos_conf_apply(q, c, d->now, 1, rule_at_report, &reported, err,
				       sizeof(err));
		ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/A"), &a);
		ioqos_device(q, &at);
		steps++;
		held += ret == 1 && a.weight == 100 && at.depth_rule == IOQOS_DEPTH_RULE_SHARE &&
			at.depth == before.depth;
	} while (ret == 1);
	CHECK(ret == 0 && held >= 1 && at.depth_rule == IOQOS_DEPTH_RULE_NONE &&
	      at.depth_set == IOQOS_UNLIMITED && reported == IOQOS_DEPTH_RULE_NONE,
	      "2. every weight taken away in %u steps: auto held after %u of them where /A "
	      "had lost its weight, then the rule %u (max), and %u already when /B is "
	      "reported", steps, held, at.depth_rule, reported);
	ioqos_conf_free(c);
	free(d);
	ioqos_free(q);
}

int main(void)
{
	/* the simulator's presets, as t_depth_auto has them */
	static const struct dm_dev ssd = { 32, 9300, 125500, false, 10, 0, 0, 0, 7, 0, 0, 0,
					   false, 0, 0, 0, 0 };
	static const struct dm_dev nvme = { 128, 1480, 74100, false, 10, 0, 0, 0, 8, 0, 0, 0,
					    false, 0, 0, 0, 0 };
	static const struct dm_dev knee12 = { 12, 1000, 100000, false, 30, 0, 0, 0, 3, 0, 0,
					      0, false, 0, 0, 0, 0 };

	rule_steps();
	load_passes_through(&ssd);
	steps_pass_through(&ssd);
	same_as_auto("ssd preset", &ssd, T_MS(500));
	same_as_auto("nvme preset", &nvme, T_MS(300));
	same_as_auto("12 channels", &knee12, T_MS(500));
	return th_exit();
}
