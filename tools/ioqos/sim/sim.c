/* SPDX-License-Identifier: MIT */
/*
 * The simulated device.
 *
 * A drive is modelled as two stages in virtual time:
 *
 *        issue ─► [ host link ] ─► [ channel 0 ]
 *                 one at a time    [ channel 1 ]  ─► complete
 *                 link_ns +        [   ...     ]
 *                 bytes/link_bps   [ channel C-1 ]   lat_ns + bytes/chan_bps
 *                                                    (+ seek_ns if the I/O does
 *                                                     not follow the previous one)
 *
 * The link is a FIFO single server (the SATA or PCIe transfer and the
 * controller's command handling), the channels are C identical servers
 * (flash dies, or one disk arm) fed in FIFO order by whichever is free
 * first.  Since I/Os leave the link in the order they entered it, the
 * channel an I/O gets and its completion time are both known at issue:
 * sim_issue() returns the completion time and the caller keeps one event.
 * Each stage's time is scaled by a seeded uniform jitter.
 *
 * The presets (ssd, nvme, hdd) are sim_params.c's, the parameter files
 * sim_load.c's.
 *
 * A device can change speed in the middle of a run (slowdown_at= and
 * slowdown=): every stage that starts at or after that virtual time takes
 * FACTOR times as long (jitter included), as a drive that begins garbage
 * collection or a host that starts sharing it would.  Requests already in
 * a stage finish at the old speed.  Used to watch a controller -- depth=auto
 * in particular -- find its way again.  The speed may also change all the
 * time (speed_log=, drift=, steps=: sim_speed.c): a stage's time is then
 * divided by the speed at its start, which is known at issue too, however
 * far ahead (the random parts are drawn in order of time, as far ahead as
 * asked).
 *
 * Known weaknesses: seek time does not depend on the distance, writes cost
 * the same as reads, and there is no write cache or garbage collection.
 */
#include "sim/sim.h"
#include "sim/sim_curve.h"
#include "sim/sim_neigh.h"
#include "sim/sim_speed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
	/* the most jitter, percent, at which the channels' free times are
	 * kept in a sorted ring: past it a new one lands far from the back
	 * (jitter=100 on 1024 channels: 60 places), and the heap is cheaper */
	SIM_RING_JITTER_MAX = 25,
};

/* the longest a stage may take, ns (some two years): a slowdown on a slow
 * speed on a huge transfer stays far from overflowing the clock */
#define SIM_STAGE_CAP_NS (1ull << 56)

int sim_init(struct sim *d, const struct sim_params *p, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->p = *p;
	rng_seed(&d->rng, seed ^ 0x5157u);
	d->chan_free_ns = calloc(p->channels, sizeof(*d->chan_free_ns));
	d->chan_pos = calloc(p->channels, sizeof(*d->chan_pos));
	if (!d->chan_free_ns || !d->chan_pos) {
		sim_fini(d);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < p->channels; i++)
		d->chan_pos[i] = UINT64_MAX;
	d->svc_bytes = UINT64_MAX;
	d->chan_ring = !p->seek_ns && p->jitter_pct <= SIM_RING_JITTER_MAX;
	/* the log is the device's speed's own copy */
	d->p.speed_log = NULL;
	d->speed_next_ns = UINT64_MAX;
	/* the curve device takes slowdown= as a part of its speed; the
	 * channels keep it apart (speed()), in whole thousandths */
	if (sim_speed_wanted(p) || (p->curve_n && p->slowdown_milli != 1000)) {
		d->spd = malloc(sizeof(*d->spd));
		if (!d->spd || sim_speed_init(d->spd, p, seed, p->curve_n > 0)) {
			free(d->spd);
			d->spd = NULL;
			sim_fini(d);
			return -ENOMEM;
		}
	}
	if (p->curve_n) {
		d->curve = malloc(sizeof(*d->curve));
		if (!d->curve || sim_curve_init(d->curve, p)) {
			free(d->curve);
			d->curve = NULL;
			sim_fini(d);
			return -ENOMEM;
		}
		if (d->spd) {
			sim_curve_speed(d->curve, 0, sim_speed_at(d->spd, 0));
			d->speed_next_ns = sim_speed_next(d->spd, 0);
		}
	}
	if (p->neigh_depth) {
		d->nb = malloc(sizeof(*d->nb));
		if (!d->nb || sim_neigh_init(d->nb, p, seed)) {
			if (d->nb)
				sim_neigh_fini(d->nb);
			free(d->nb);
			d->nb = NULL;
			sim_fini(d);
			return -ENOMEM;
		}
	}
	return 0;
}

void sim_fini(struct sim *d)
{
	free(d->chan_free_ns);
	free(d->chan_pos);
	d->chan_free_ns = d->chan_pos = NULL;
	if (d->spd)
		sim_speed_fini(d->spd);
	free(d->spd);
	d->spd = NULL;
	if (d->curve)
		sim_curve_fini(d->curve);
	free(d->curve);
	d->curve = NULL;
	if (d->nb)
		sim_neigh_fini(d->nb);
	free(d->nb);
	d->nb = NULL;
}

/* @t scaled by the jitter: t * (1 + j * u), u uniform in [-1, 1) */
static inline uint64_t jitter(struct sim *d, uint64_t t)
{
	uint64_t span, r;

	if (!d->p.jitter_pct || !t)
		return t;
	span = t * d->p.jitter_pct / 100;
	r = rng_below(&d->rng, 2 * span + 1);
	return t - span + r;
}

static uint64_t xfer_ns(uint64_t bytes, uint64_t bps)
{
	return (uint64_t)((unsigned __int128)bytes * 1000000000u / bps);
}

/* @t divided by the speed over time at @start (sim_speed.c) */
static uint64_t speed_over_time(struct sim *d, uint64_t start, uint64_t t)
{
	double v = (double)t / sim_speed_at(d->spd, start) + 0.5;

	return v >= (double)SIM_STAGE_CAP_NS ? SIM_STAGE_CAP_NS : (uint64_t)v;
}

/* a stage of @t ns that starts at @start: slower from slowdown_at on, and
 * by the speed over time */
static inline uint64_t speed(struct sim *d, uint64_t start, uint64_t t)
{
	unsigned __int128 v;

	if (d->spd)
		t = speed_over_time(d, start, t);
	if (d->p.slowdown_milli == 1000 || start < d->p.slowdown_at_ns)
		return t;
	v = (unsigned __int128)t * d->p.slowdown_milli / 1000;
	return v > SIM_STAGE_CAP_NS ? SIM_STAGE_CAP_NS : (uint64_t)v;
}

/*
 * The channel heap's top, free at @t from now on, takes its place: the
 * hole goes down to a leaf by the earlier child, then @t up from there
 * (it is seldom earlier than much: it is a completion just booked).  For
 * a device without seeks whose jitter reorders completions much, where
 * the ring below would search far; only the values are read, so which
 * slot holds which of two equal times does not matter.
 */
static void chan_replace_top(uint64_t *f, unsigned n, uint64_t t)
{
	unsigned i = 0, c;

	while ((c = 2 * i + 2) < n) {
		c -= f[c - 1] < f[c];
		f[i] = f[c];
		i = c;
	}
	if (c == n) {
		f[i] = f[c - 1];
		i = c - 1;
	}
	while (i) {
		unsigned up = (i - 1) / 2;

		if (f[up] <= t)
			break;
		f[i] = f[up];
		i = up;
	}
	f[i] = t;
}

/*
 * Without seeks only the channels' free times matter, not which channel
 * is which: they are kept sorted in a ring, the earliest at chan_head.
 * The channel an I/O takes is the earliest; its new free time is later
 * than that, and mostly the latest of all (it is a completion just
 * booked: the others were booked before it, and the jitter reorders them
 * by a place or two), so it goes in by a short search from the back.
 */
static void chan_ring_replace(uint64_t *f, unsigned n, unsigned *head, uint64_t t)
{
	unsigned h = *head + 1 == n ? 0 : *head + 1, k = n - 1;

	/* the earliest leaves; its slot is the one after the latest */
	while (k) {
		unsigned at = h + k - 1 >= n ? h + k - 1 - n : h + k - 1;
		unsigned to = at + 1 == n ? 0 : at + 1;

		if (f[at] <= t)
			break;
		f[to] = f[at];
		k--;
	}
	f[h + k >= n ? h + k - n : h + k] = t;
	*head = h;
}

/* the same with the positions, for seeks: equal times keep their order */
static void chan_replace_top_pos(struct sim *d, uint64_t t, uint64_t pos)
{
	unsigned n = d->p.channels, i = 0;

	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		uint64_t mv = t;

		if (l < n && d->chan_free_ns[l] < mv) {
			m = l;
			mv = d->chan_free_ns[l];
		}
		if (r < n && d->chan_free_ns[r] < mv)
			m = r;
		if (m == i)
			break;
		d->chan_free_ns[i] = d->chan_free_ns[m];
		d->chan_pos[i] = d->chan_pos[m];
		i = m;
	}
	d->chan_free_ns[i] = t;
	d->chan_pos[i] = pos;
}

uint64_t sim_issue(struct sim *d, uint64_t now_ns, uint64_t pos,
		   uint64_t bytes)
{
	uint64_t start, link_done, svc, done, first;

	/* the transfer times of the size seen last: most runs have one or
	 * two sizes, and a 128-bit division per stage and I/O was a tenth
	 * of the simulator's time */
	if (bytes != d->svc_bytes) {
		d->svc_bytes = bytes;
		d->link_svc_ns = d->p.link_ns + xfer_ns(bytes, d->p.link_bps);
		d->chan_svc_ns = d->p.lat_ns + xfer_ns(bytes, d->p.chan_bps);
	}

	/* the speed is asked for no earlier than now from here on */
	if (d->spd)
		sim_speed_forget(d->spd, now_ns);
	/* the link: FIFO, one at a time */
	start = now_ns > d->link_free_ns ? now_ns : d->link_free_ns;
	link_done = start + jitter(d, speed(d, start, d->link_svc_ns));
	d->link_free_ns = link_done;

	/* the channel free first (the heap's top) */
	first = d->chan_free_ns[d->chan_ring ? d->chan_head : 0];
	start = link_done > first ? link_done : first;
	svc = d->chan_svc_ns;
	if (d->p.seek_ns && d->chan_pos[0] != pos)
		svc += d->p.seek_ns;
	done = start + jitter(d, speed(d, start, svc));

	if (d->chan_ring)
		chan_ring_replace(d->chan_free_ns, d->p.channels, &d->chan_head, done);
	else if (d->p.seek_ns)
		chan_replace_top_pos(d, done, pos + bytes);
	else
		chan_replace_top(d->chan_free_ns, d->p.channels, done);
	return done;
}
