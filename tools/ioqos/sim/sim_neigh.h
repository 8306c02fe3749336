/* SPDX-License-Identifier: MIT */
/*
 * The neighbour: a stream of requests that shares the simulated device
 * with the run and never passes its controller.  See sim_neigh.c.
 */
#ifndef IOQOS_SIM_NEIGH_H
#define IOQOS_SIM_NEIGH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/rng.h"

struct sim_params;

struct sim_neigh {
	unsigned depth;            /* requests it keeps out while on */
	uint64_t bs;               /* bytes of each */
	bool write;                /* writes, else reads */
	bool random;               /* at random places, else one after another */
	uint64_t on_ns;            /* how long each burst lasts, ns; 0: for good */
	uint64_t off_ns;           /* the pause after each, ns */
	uint64_t capacity;         /* the device's size, bytes: where it may go */
	bool on;                   /* in a burst now: it resubmits what completes */
	uint64_t next_ns;          /* when it switches next, ns; UINT64_MAX: never */
	unsigned out;              /* its requests on the device */
	uint64_t pos;              /* sequential: where its next request goes */
	struct rng rng;            /* random places: a stream of its own */
	uint64_t *heap;            /* the channel device: its requests'
				    * completion times, a min-heap */
	unsigned hn;               /* how many the heap holds */
	uint64_t done_ios;         /* its requests completed */
	uint64_t done_bytes;       /* their bytes */
};

/* from @p for @seed: 0 or -ENOMEM */
int sim_neigh_init(struct sim_neigh *n, const struct sim_params *p, uint64_t seed);
void sim_neigh_fini(struct sim_neigh *n);
/* the switch due at @t_ns (== n->next_ns): how many requests to submit
 * now (those it lacks when a burst starts, else 0) */
unsigned sim_neigh_switch(struct sim_neigh *n, uint64_t t_ns);
/* a request of its goes to the device: where */
uint64_t sim_neigh_send(struct sim_neigh *n);
/* one of its requests completed: whether to send another in its place */
bool sim_neigh_done(struct sim_neigh *n);

/* the channel device's record of its completions: one is booked at @t_ns,
 * the earliest (UINT64_MAX: none), and taking it off */
void sim_neigh_book(struct sim_neigh *n, uint64_t t_ns);
static inline uint64_t sim_neigh_first(const struct sim_neigh *n)
{
	return n->hn ? n->heap[0] : UINT64_MAX;
}
void sim_neigh_take(struct sim_neigh *n);

#endif
