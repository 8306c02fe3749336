/* SPDX-License-Identifier: MIT */
/*
 * The neighbour: another tenant of the simulated device.
 *
 * A controller is rarely alone on a drive: a host's other virtual
 * machines, a backup, the file system's own writeback use it too, and
 * none of them asks the controller.  What the controller sees is a device
 * that got slower for no reason of its own -- the case depth=auto and the
 * limits must ride out.  The neighbour is that tenant: it keeps
 * neighbour_depth= requests of neighbour_bs= bytes out on the device while
 * it is on, sending another the moment one completes (a closed loop, as a
 * fio job at that iodepth), and sends none while off, letting what it has
 * out drain.  Its schedule:
 *
 *      at        at+on     at+on+off  at+2on+off
 *   ---|=========|---------|==========|--------- ...   (=: on)
 *
 * from neighbour_at= on, bursts of neighbour_on= with pauses of
 * neighbour_off= (default: as long as the bursts); without neighbour_on=
 * it is on for good from neighbour_at=.
 *
 * Its requests are the device's like the run's.  On the curve device they
 * join the one FIFO and count in n (a job at depth 32 beside a neighbour
 * at depth 32 of the same requests gets half of IOPS(64)); on the channel
 * device they go through sim_issue() as the run's do (so a random
 * neighbour on a disk makes the arm seek), their completions kept here,
 * in a heap, as the device's own events (sim_run.c).  Random places come
 * from a stream of its own, so the run's offsets and the speed's drift
 * are the same with or without it.
 */
#include "sim/sim_neigh.h"
#include "sim/sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sim_neigh_init(struct sim_neigh *n, const struct sim_params *p, uint64_t seed)
{
	memset(n, 0, sizeof(*n));
	n->depth = p->neigh_depth;
	n->bs = p->neigh_bs;
	n->write = p->neigh_write;
	n->random = p->neigh_random;
	n->on_ns = p->neigh_on_ns;
	n->off_ns = p->neigh_off_ns;
	n->capacity = p->capacity;
	n->next_ns = p->neigh_at_ns;
	rng_seed(&n->rng, seed ^ 0x9e1bull);
	if (!p->curve_n && !(n->heap = malloc(n->depth * sizeof(*n->heap))))
		return -ENOMEM;
	return 0;
}

void sim_neigh_fini(struct sim_neigh *n)
{
	free(n->heap);
	n->heap = NULL;
}

unsigned sim_neigh_switch(struct sim_neigh *n, uint64_t t_ns)
{
	n->on = !n->on;
	if (!n->on) {
		n->next_ns = t_ns + n->off_ns;
		return 0;
	}
	n->next_ns = n->on_ns ? t_ns + n->on_ns : UINT64_MAX;
	return n->out < n->depth ? n->depth - n->out : 0;
}

uint64_t sim_neigh_send(struct sim_neigh *n)
{
	uint64_t pos, slots = n->capacity / n->bs;

	n->out++;
	if (n->random)
		return slots ? rng_below(&n->rng, slots) * n->bs : 0;
	pos = n->pos;
	n->pos = slots && pos / n->bs + 1 < slots ? pos + n->bs : 0;
	return pos;
}

bool sim_neigh_done(struct sim_neigh *n)
{
	n->out--;
	n->done_ios++;
	n->done_bytes += n->bs;
	return n->on;
}

void sim_neigh_book(struct sim_neigh *n, uint64_t t_ns)
{
	unsigned i = n->hn++;

	while (i) {
		unsigned up = (i - 1) / 2;

		if (n->heap[up] <= t_ns)
			break;
		n->heap[i] = n->heap[up];
		i = up;
	}
	n->heap[i] = t_ns;
}

void sim_neigh_take(struct sim_neigh *n)
{
	uint64_t last = n->heap[--n->hn];
	unsigned i = 0;

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n->hn)
			break;
		if (c + 1 < n->hn && n->heap[c + 1] < n->heap[c])
			c++;
		if (last <= n->heap[c])
			break;
		n->heap[i] = n->heap[c];
		i = c;
	}
	n->heap[i] = last;
}
