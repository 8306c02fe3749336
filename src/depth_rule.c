/* SPDX-License-Identifier: MIT */
/*
 * The depth nobody wrote: what the settings ask for.
 *
 * The problem.  Weights act only on the requests the controller holds
 * back, and with every request released at once (depth=max) it holds
 * none: two groups at weight=300 and weight=100 keeping 64 requests out
 * each split a simulated SSD, an NVMe drive and a knee-12 device 50:50,
 * whatever the weights say, because the device's own queue decides.  A
 * user who writes weights and no depth means them to hold; a user who
 * writes only limits (blk-throttle's use) means nothing to be held back.
 *
 * The rule.  Where "/" writes no depth=, the settings decide:
 *
 *   two or more groups below "/", and a weight, a prio or a low limit
 *   given to one of them                     ->  depth=auto  (RULE_SHARE)
 *   otherwise                                ->  depth=max   (RULE_NONE)
 *
 * A weight counts as soon as it is written, equal ones included: 100:100
 * must hold against unequal demand (the 2008 CFQ setups), as 300:100
 * must.  A low limit counts when it is above 0.  "/" itself is not a
 * group that shares (nothing stands beside it), so a weight given to it
 * does not count, and neither do its own requests (they compete as one
 * more child, but the controller cannot know there will be any: "/
 * depth=auto" says so).  Whatever "/" writes wins, depth=max included:
 * that is how the behaviour before this rule is kept.
 *
 * Worked example.  A filter whose config names /vm1 weight=300 and no
 * other group runs at max: one group shares with nobody.  A client of
 * /vm2 connects and its group is made: two groups, a weight among them,
 * and the depth becomes auto at once, starting its search at max for the
 * demand (depth.c).  /vm2 leaves and is removed: max again, and nothing
 * is measured.  A reload that adds "/ depth=16" pins 16; one that takes
 * it away gives the rule back.
 *
 * What it costs.  Nothing per request: two counters kept where a group's
 * settings change (apply.c), where a group is made or removed (tree.c),
 * and this function at the end of each call that changes either, so that
 * a load passing through several states on its way (a group's weight
 * taken away before another's is given) does not restart auto's search.
 * A config put in force in steps (confapply.c) is one such load, over
 * several calls: from its first step to its last the rule is held, for
 * whatever calls come between two steps too (a group made for a client
 * that connects, one removed), and its last step decides.
 *
 * Why auto and not a fixed depth.  With the rule, the seed experiments and
 * examples/ run their weighted jobs with no depth written (docs/
 * BENCHMARKS.md, "Weights that hold without a setting"): on the simulated
 * devices auto keeps their throughput at depth=max's and the weights to
 * within a point; beside a neighbour it gives what the deepest depth that
 * still holds the weights gives, which is the price of the weights.
 *
 * Known weaknesses.  The rule reads the settings, not the load: two
 * groups with weights of which only one is ever busy are measured for
 * nothing (the cost is auto's search, a block now and then at a quarter
 * less depth).  Groups deeper down count as the root's children do,
 * though auto follows only the root's children (depth.c).
 */
#include "internal.h"

bool ioqos__depth_asks(const struct ioqos__group *g)
{
	return (g->conf.set & (1u << IOQOS__K_WEIGHT)) || g->has_low;
}

void ioqos__depth_rule(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	struct ioqos__conf root;
	uint64_t want;
	uint8_t rule;

	if (q->rule_held)
		return;   /* a config in steps: its last step decides (confapply.c) */
	ioqos__gconf_get(q->groups[IOQOS__ROOT], &root);
	if (root.set & (1u << IOQOS__K_DEPTH)) {
		want = root.val[IOQOS__K_DEPTH];
		rule = IOQOS_DEPTH_RULE_SET;
	} else if (q->nr_live >= 2 && q->nr_shares) {
		want = IOQOS_DEPTH_AUTO;
		rule = IOQOS_DEPTH_RULE_SHARE;
	} else {
		want = IOQOS_UNLIMITED;
		rule = IOQOS_DEPTH_RULE_NONE;
	}
	d->rule = rule;
	if (want != d->set)
		ioqos__depth_set(q, want, now_ns);
}

const char *ioqos_depth_rule_name(uint32_t rule)
{
	static const char *const names[] = {
		[IOQOS_DEPTH_RULE_SET] = "written",
		[IOQOS_DEPTH_RULE_SHARE] = "share",
		[IOQOS_DEPTH_RULE_NONE] = "none",
	};

	return rule < sizeof(names) / sizeof(names[0]) ? names[rule] : "?";
}
