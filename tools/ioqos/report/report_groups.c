/* SPDX-License-Identifier: MIT */
/*
 * The ioqos groups' figures, which the group table (report_text.c), the
 * JSON's "ioqos" section (report_json.c), the CSV and the plot show: a
 * group's totals with its subtree, its share of its parent's I/O, the
 * share its weight would give it; what stopped the run; the length of an
 * interval row.  Beside report_units.c at the bottom of report/: it calls
 * none of the other files.
 */
#include "report/report_groups.h"

#include <signal.h>

void report_group_totals(struct runner *r)
{
	for (unsigned g = 0; g < r->ngrps; g++)
		for (int d = 0; d < 2; d++)
			r->grps[g].tree_bytes[d] = r->grps[g].tree_ios[d] = 0;
	for (unsigned g = 0; g < r->ngrps; g++)
		for (int a = (int)g; a >= 0; a = r->grps[a].parent)
			for (int d = 0; d < 2; d++) {
				r->grps[a].tree_bytes[d] += r->grps[g].bytes[d];
				r->grps[a].tree_ios[d] += r->grps[g].ios[d];
			}
	for (unsigned g = 0; g < r->ngrps; g++) {
		struct ioqos_stats st;

		ioqos_limits_get(r->q, g, &r->grps[g].lim);
		if (ioqos_stats_id(r->q, g, &st) == 0)
			r->grps[g].lat = st.lat;
	}
}

static bool has_max(const struct ioqos_limits *l)
{
	return l->bps[0] != IOQOS_UNLIMITED || l->bps[1] != IOQOS_UNLIMITED ||
	       l->iops[0] != IOQOS_UNLIMITED || l->iops[1] != IOQOS_UNLIMITED;
}

static uint64_t tree_total(const struct grp *g)
{
	return g->tree_bytes[0] + g->tree_bytes[1];
}

/* share of the parent's I/O, percent; -1 for the root */
double report_group_share(const struct runner *r, unsigned g)
{
	const struct grp *p;

	if (r->grps[g].parent < 0)
		return -1;
	p = &r->grps[r->grps[g].parent];
	return tree_total(p) ? 100.0 * (double)tree_total(&r->grps[g]) /
			       (double)tree_total(p) : 0.0;
}

/*
 * The share the weights give @g among its active siblings, percent, or -1
 * where weights do not decide: fewer than two active siblings, a sibling
 * with a limit of its own, or no shared bottleneck above them (no limit on
 * an ancestor, and no device depth that held requests back for most of
 * the window).  A parent's own I/O competes as one more child of weight
 * 100.
 */
double report_group_expected(const struct runner *r, unsigned g)
{
	int parent = r->grps[g].parent;
	uint64_t sum = 0;
	unsigned active = 0;
	/* the device is a bottleneck where its depth held requests back for
	 * most of the window: a depth (or depth=auto's, once it gave way)
	 * that the load never fills decides nothing */
	bool bottleneck = r->grps[0].lim.depth != IOQOS_UNLIMITED &&
			  (!r->dev.valid || r->dev.full_pct >= 50.0);

	if (parent < 0 || !tree_total(&r->grps[g]))
		return -1;
	for (int a = parent; a >= 0; a = r->grps[a].parent)
		if (has_max(&r->grps[a].lim))
			bottleneck = true;
	if (!bottleneck)
		return -1;
	for (unsigned k = 0; k < r->ngrps; k++) {
		if (r->grps[k].parent != parent || !tree_total(&r->grps[k]))
			continue;
		if (has_max(&r->grps[k].lim))
			return -1;
		sum += r->grps[k].lim.weight;
		active++;
	}
	if (r->grps[parent].bytes[0] + r->grps[parent].bytes[1]) {
		sum += 100;
		active++;
	}
	if (active < 2 || !sum)
		return -1;
	return 100.0 * r->grps[g].lim.weight / (double)sum;
}

/* what ended the run before its jobs did, or NULL */
const char *report_stopped_by(const struct runner *r)
{
	if (r->timed_out)
		return "--stop-after";
	if (r->stop_signal == SIGINT)
		return "SIGINT";
	if (r->stop_signal == SIGTERM)
		return "SIGTERM";
	return NULL;
}

bool report_depth_rule(const struct ioqos_device *dv, char *buf, size_t len)
{
	if (dv->depth_rule == IOQOS_DEPTH_RULE_SHARE)
		snprintf(buf, len, "none written, and %u of the %u groups below / give a "
			 "weight, prio or low limit: auto (\"/ depth=max\" holds nothing back)",
			 dv->rule_shares, dv->rule_groups);
	else if (dv->depth_rule == IOQOS_DEPTH_RULE_NONE && dv->rule_groups < 2)
		snprintf(buf, len, "none written, and %s below / shares with nothing: "
			 "max", dv->rule_groups ? "one group" : "no group");
	else if (dv->depth_rule == IOQOS_DEPTH_RULE_NONE)
		snprintf(buf, len, "none written, and none of the %u groups below / gives "
			 "a weight, prio or low limit: max", dv->rule_groups);
	else
		return false;
	return true;
}

uint64_t report_row_len(const struct runner *r, size_t i)
{
	for (size_t k = i; k-- > 0;)
		if (r->rows[k].group == r->rows[i].group)
			return r->rows[i].t_ns - r->rows[k].t_ns;
	return r->rows[i].t_ns;
}
