/* SPDX-License-Identifier: MIT */
/*
 * The device's depth, and depth=auto: as deep as the weights allow.
 *
 * The problem.  Weights act only on requests the controller holds, and it
 * holds them only when `depth` requests are already out.  Too deep, and
 * nothing is held: two tenants at 3:1 keeping 64 requests out each split
 * the device 50:50.  Too shallow, and the device idles part of its
 * parallelism, or, on a disk that others share, the requests held back
 * are ceded to whoever else uses it.  Earlier versions searched the
 * throughput curve for its knee, comparing rounds measured at different
 * moments; on a disk that drifts by 5-10% within 100 ms and halves its
 * speed when a neighbour writes, such comparisons settle anywhere, and
 * 3:1 fell to 52:48 beside a neighbour.
 *
 * What the controller knows exactly.  It needs no measurement to see
 * where the weights stop binding: at the root's fair queue, a source
 * that is busy (it has requests out) but has nothing waiting cannot be
 * served, and the others are served in its place.  When it comes back,
 * its start tag is the queue's virtual time, not its own finish tag
 * (start-time fair queueing: idling earns no credit), and the gap is the
 * service it lost by running dry: its slip.  Below the depth where the
 * weights stop binding, every source that wants more keeps requests
 * waiting and nothing slips; above it, the sources whose share is larger
 * than what they keep out run dry at every completion, and the slip grows
 * fast.  So the depth follows the slip:
 *
 *   slip over a block < 1/128 of what it served:  grow (by a quarter,
 *                                                 or a slot, see below)
 *   slip > 1/32:                                  shrink by half the slip
 *
 * Worked example: /A weight 300 and /B weight 100, each keeping 64
 * requests out.  A's share of a depth D is 3D/4 slots: it has requests
 * waiting while 3D/4 < 64, that is while D < 85.  At D = 80 neither runs
 * dry, A has 60 out and 4 waiting, and the device splits 75:25.  At
 * D = 100, A has all 64 out and 36 go to B: A gets 64% and slips by 40% of
 * what is served, and the depth comes back to about 80 within a block.
 * The binding depth depends on what the tenants keep out and on their
 * weights, not on the device's speed, so a device that drifts or halves
 * its speed does not move it: the figure the earlier search had to
 * measure, and could not on a noisy disk, is known exactly here.
 *
 * Light sources.  A tenant at iodepth 1 runs dry at every completion at
 * any depth: its share is what it asks for, and holding the others back
 * for it would idle the device to force a split.  So a source's slip
 * counts in proportion to how much of its share of the depth it keeps
 * out (out x W / (w x D), at most 1, where W is the weight of the busy
 * sources, from how fast the virtual time ran over the last block): a
 * source with 63 out of its share of 64 counts in full, one with 1 out of
 * 60 a sixtieth.  A source that comes back after an idle spell has
 * nothing out and does not count.
 *
 * Blocks.  The depth moves at the end of a block: at least two turns of
 * the depth in completions (every busy source comes back twice), at least
 * BLK_MIN, or BLK_NS_MAX on a slow device.  Each block also measures the
 * throughput (cost completed per second) and the mean service time, for
 * the reports and for the checks.
 *
 * What the weights cost: paired checks (depth_check.c).  Where the device
 * would do more with more requests out than the weights allow (a pipe of
 * 128 channels with 64 out per tenant: the weights keep 85 of 128 busy;
 * two tenants at 8 out each on this machine's disk: 10 of 16), holding
 * them back idles it to force a split.  Checks measure the throughput at
 * the depth found against all the load keeps out, in blocks interleaved
 * so that drift cancels, after a first look a quarter below the depth
 * found that tells, without letting the weights go, where that cannot
 * pay.  Where all out gives more than 1/32 more, a floor is set there
 * and the weights give way: the tenants get what their requests get, as
 * the design asks (shares act where the device is the bottleneck, never
 * by idling it).  No verdict is final: checks repeat with a growing gap.
 *
 * Known weaknesses.  Only the root's children are followed: weights
 * between groups further down hold within what their ancestor gets.  A
 * tenant whose demand swings between heavy and light makes the depth
 * follow it, a block behind.  Beside a neighbour, requests held back are
 * ceded to it, which a check cannot tell from a device that wants them:
 * while the neighbour is busy the weights give way (depth_check.c).  A
 * light tenant beside heavy ones gets the depth the
 * heavy ones' weights allow, not a shallower one that would serve it
 * sooner where the device has a sharp knee.
 */
#include <errno.h>
#include <string.h>

#include "depth_int.h"
#include "fq.h"

/*
 * The source of root child @c came back to the root's fair queue: the
 * service it lost while it had nothing waiting, in proportion to how much
 * of its share of the depth it keeps out.
 */
void ioqos__depth_slip(struct ioqos *q, const struct ioqos__group *c)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t v = q->groups[IOQOS__ROOT]->sh.fq.vtime, f = c->sh.ent.finish;
	uint64_t gap = v - f, out = q->out[c->id], depth = q->depth, w = c->weight;
	ioqos__u128 add;

	if (d->mode != DM_RUN || !out || f - v <= IOQOS__VT_DELTA_MAX || !depth ||
	    depth == IOQOS_UNLIMITED)
		return;
	/* a light source (less than half its share of the depth out: out x W
	 * < w x D / 2) gets what it asks for; it does not count */
	if (d->wsum && (ioqos__u128)out * d->wsum * HEAVY_DIV < (ioqos__u128)w * depth)
		return;
	add = ((ioqos__u128)gap * w) >> IOQOS__INVW_SHIFT;
	d->slip = add > UINT64_MAX - d->slip ? UINT64_MAX : d->slip + (uint64_t)add;
}

/* the cost of @r as stage 2 charges it, kept sane for absurd sizes */
static uint64_t req_cost(const struct ioqos *q, const struct ioqos_req *r)
{
	ioqos__u128 c = (ioqos__u128)r->bytes * q->byte_cost[r->dir] + q->io_cost[r->dir];

	return c > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)c;
}

/* the slip of a judged block of the run moves the depth the weights allow */
static void follow_slip(struct ioqos__depth *d, uint64_t dt, uint64_t dv, uint64_t demand)
{
	uint64_t s, b = d->bind;

	if (d->served && dv)
		d->wsum = (uint64_t)(((ioqos__u128)d->served << IOQOS__INVW_SHIFT) / dv);
	/* nothing held for most of the block: the weights had nothing to act on */
	if (d->full_ns - d->full0_ns < dt / 2 || !d->served)
		return;
	s = d->slip >= d->served ? DP_ONE :
	    (uint64_t)(((ioqos__u128)d->slip << 20) / d->served);
	if (s > DP_ONE / SLIP_HI_DIV && b < d->floor) {
		/* the floor is in force, past where the weights bind: the slip
		 * is what the checks chose; it says nothing of bind */
	} else if (s > DP_ONE / SLIP_HI_DIV) {
		uint64_t cut = (uint64_t)(((ioqos__u128)b * (s > DP_ONE / 2 ? DP_ONE / 2 : s)) >> 21);

		if (cut < b / CUT_MIN_DIV)
			cut = b / CUT_MIN_DIV;
		if (cut < CUT_MIN)
			cut = CUT_MIN;
		b = b > cut ? b - cut : 1;
		d->slow = true;
		d->calm = 0;
	} else if (s < DP_ONE / SLIP_LO_DIV) {
		if (++d->calm >= CALM_FAST)
			d->slow = false;
		if (!d->slow)
			b += b / GROW_FAST_DIV ? b / GROW_FAST_DIV : 1;
		else if (d->calm % GROW_SLOW_WAIT == 0)
			b += b / GROW_SLOW_DIV ? b / GROW_SLOW_DIV : 1;
	} else {
		d->calm = 0;
	}
	/* never past what the load keeps out: deeper holds nothing */
	if (b > d->bind && b > demand)
		b = demand > d->bind ? demand : d->bind;
	if (b < 1)
		b = 1;
	if (b > IOQOS__DEPTH_MAX)
		b = IOQOS__DEPTH_MAX;
	d->bind = b;
}

static void block_end(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t dt = now_ns - d->t0_ns;
	uint64_t x = (uint64_t)(((ioqos__u128)d->cost * 1000000000u) / dt);
	uint64_t dv = q->groups[IOQOS__ROOT]->sh.fq.vtime - d->vt0;

	d->rounds++;
	d->blocks++;
	d->round_iops = (uint64_t)(((ioqos__u128)d->n * 1000000000u) / dt);
	d->lat_round_ns = d->lat_ns / d->n;
	if (d->round_iops > d->peak_iops)
		d->peak_iops = d->round_iops;
	if (!d->lat_min_ns || d->lat_round_ns < d->lat_min_ns)
		d->lat_min_ns = d->lat_round_ns;
	if (d->mode == DM_CHECK) {
		ioqos__dp_check_block(q, x, now_ns);
		return;
	}
	if (d->start) {
		/* the load's demand, from a block that held nothing: half of
		 * it, where the weights surely bind, and grow from there */
		d->start = false;
		d->bind = d->max_out / 2 > BIND_START ? d->max_out / 2 : BIND_START;
	} else if (d->skip) {
		d->skip = false;
	} else {
		follow_slip(d, dt, dv, ioqos__dp_demand(q));
	}
	ioqos__dp_found(d);
	if (ioqos__dp_check_due(q, now_ns))
		ioqos__dp_check_begin(q, now_ns);
	else
		ioqos__dp_block_begin(q, d->found, now_ns);
}

/* has the block counted enough? */
static bool block_enough(const struct ioqos *q, uint64_t now_ns)
{
	const struct ioqos__depth *d = &q->dev;
	uint64_t slots = q->depth == IOQOS_UNLIMITED ? q->inflight + 1 : q->depth;
	uint64_t want;

	/* a check's blocks count alike at both its depths: blocks of as many
	 * completions last about as long, and so see alike a speed that
	 * swings within them (a shorter block at the shallower depth would
	 * see the arithmetic mean of a swinging speed where the longer one
	 * sees nearer the harmonic, and the deeper depth would look 7% worse
	 * than it is on this machine's disk's model) */
	if (d->mode == DM_CHECK)
		slots = d->checked > d->other ? d->checked : d->other;
	want = slots > UINT32_MAX ? UINT64_MAX : slots * BLK_PER_SLOT;

	if (want < BLK_MIN)
		want = BLK_MIN;
	if (d->mode == DM_CHECK)
		want = want > UINT64_MAX / CHECK_BLK_X ? UINT64_MAX : want * CHECK_BLK_X;
	if (d->n >= want)
		return true;
	return d->n >= (d->mode == DM_CHECK ? BLK_MIN : BLK_FEW) &&
	       now_ns - d->t0_ns >= (d->mode == DM_CHECK ? (uint64_t)BLK_NS_MAX * CHECK_BLK_X :
				     (uint64_t)BLK_NS_MAX);
}

void ioqos__depth_done(struct ioqos *q, const struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t lat = ioqos__before(r->_disp_ns, now_ns) ? now_ns - r->_disp_ns : 0;
	uint64_t cost;

	d->done++;
	d->lat_sum_ns += lat;
	if (d->set != IOQOS_DEPTH_AUTO)
		return;
	if (r->_at < q->nr_groups && q->out[r->_at])
		q->out[r->_at]--;
	/* a latency target bounds the depth: nothing of auto's own to
	 * measure until it is lifted (ioqos__depth_resume) */
	if (q->lat_depth != IOQOS_UNLIMITED)
		return;
	if (d->start && q->inflight + 1 > d->max_out)
		d->max_out = q->inflight + 1;
	if (!d->measuring) {
		/* what went before the block is the old depth's: the block
		 * measures from the first of its own to complete */
		if (ioqos__before(r->_disp_ns, d->disp0_ns))
			return;
		d->measuring = true;
		d->t0_ns = now_ns;
		d->full0_ns = d->full_ns;
		return;
	}
	cost = req_cost(q, r);
	d->n++;
	d->cost = d->cost + cost < d->cost ? UINT64_MAX : d->cost + cost;
	d->lat_ns += lat;
	if (ioqos__before(d->t0_ns, now_ns) && block_enough(q, now_ns))
		block_end(q, now_ns);
}

void ioqos__depth_resume(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	if (d->mode == DM_CHECK) {
		d->mode = DM_RUN;   /* the check's quads so far stay pooled */
		d->pos = 0;
	}
	d->skip = !d->start;
	ioqos__dp_block_begin(q, d->start ? IOQOS_UNLIMITED : d->found, now_ns);
}

void ioqos__depth_set(struct ioqos *q, uint64_t depth, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	bool was_auto = d->set == IOQOS_DEPTH_AUTO;

	ioqos__depth_tick(q, now_ns);
	d->set = depth;
	if (depth != IOQOS_DEPTH_AUTO) {
		d->want = depth;
		ioqos__depth_eff(q);
		return;
	}
	if (was_auto)
		return;
	d->bind = BIND_START;
	d->start = true;
	d->max_out = 0;
	d->floor = 0;
	d->counted = 0;
	d->slow = false;
	d->calm = 0;
	d->skip = false;
	d->mode = DM_RUN;
	d->wsum = 0;
	d->backoff = 0;
	d->blocks = 0;
	d->next_check_ns = 0;
	memset(q->out, 0, (size_t)q->nr_groups * sizeof(*q->out));
	ioqos__dp_found(d);
	ioqos__dp_block_begin(q, IOQOS_UNLIMITED, now_ns);
}

int ioqos_device(struct ioqos *q, struct ioqos_device *out)
{
	const struct ioqos__depth *d = &q->dev;

	memset(out, 0, sizeof(*out));
	out->depth = q->depth;
	out->depth_set = d->set;
	out->depth_rule = d->rule;
	out->lat_depth = q->lat_depth;
	out->lat_active = q->lat_active;
	out->rule_groups = q->nr_live;
	out->rule_shares = q->nr_shares;
	out->inflight = q->inflight;
	out->queued = q->queued;
	out->clock_ns = q->now_ns;
	out->inflight_ns = d->inflight_ns;
	out->full_ns = d->full_ns;
	out->done = d->done;
	out->lat_sum_ns = d->lat_sum_ns;
	if (d->set == IOQOS_DEPTH_AUTO) {
		out->depth_found = d->found;
		out->lat_min_ns = d->lat_min_ns;
		out->lat_round_ns = d->lat_round_ns;
		out->round_iops = d->round_iops;
		out->peak_iops = d->peak_iops;
		out->rounds = d->rounds;
		out->changes = d->changes;
		out->checks = d->checks;
		out->depth_bind = d->bind;
		out->depth_floor = d->floor;
	}
	return 0;
}
