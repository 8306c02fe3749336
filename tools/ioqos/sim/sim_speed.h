/* SPDX-License-Identifier: MIT */
/*
 * The simulated device's speed over time: a measured log, a random drift
 * and random steps, multiplied.  See sim_speed.c.
 */
#ifndef IOQOS_SIM_SPEED_H
#define IOQOS_SIM_SPEED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/rng.h"

struct sim_params;
struct sim_log;

/* the drift's step: its value holds for one, ns */
#define SIM_DRIFT_STEP_NS 1000000ull
/* the speed is kept within these: a zero in a log is not a stop */
#define SIM_SPEED_MIN 0.001
#define SIM_SPEED_MAX 1000.0

/* one slow step, [start_ns, end_ns) */
struct sim_step {
	uint64_t start_ns;          /* when it starts, ns */
	uint64_t end_ns;            /* when it ends, ns */
	double speed;               /* the device's speed during it, 1/factor */
};

struct sim_speed {
	struct sim_log *log;        /* speed_log=, this one's copy; NULL: none */
	unsigned log_i;             /* the log's line the last query fell in */
	double sigma;               /* drift=: sd of the log of the speed; 0: none */
	double a;                   /* the AR(1)'s memory per step, exp(-step/tau) */
	double b;                   /* its noise per step, sigma * sqrt(1 - a^2) */
	double bias;                /* -sigma^2 / 2: the mean speed is 1 */
	double x;                   /* log speed of the last step made */
	struct rng drift_rng;       /* the drift's own stream */
	double *dv;                 /* speeds of steps dk0 .. dk0 + dn - 1, a ring */
	unsigned dhead, dn, dcap;   /* its first slot, length, size (a power of 2) */
	uint64_t dk0;               /* index of its first step (t / step) */
	double step_lo, step_hi;    /* steps=: slowdown factors; 0: no steps */
	uint64_t step_every_ns;     /* mean gap between steps, ns */
	uint64_t step_len_ns;       /* mean length of one, ns */
	struct rng step_rng;        /* the steps' own stream */
	struct sim_step *st;        /* steps made and not forgotten, a ring */
	unsigned shead, sn, scap;   /* its first slot, length, size (a power of 2) */
	uint64_t step_from_ns;      /* the last step's end: the next gap's start */
	uint64_t slow_at_ns;        /* slowdown=, when asked for: from then on, ns */
	double slow_speed;          /* the speed then (1: none) */
};

/* does @p ask for a speed that changes over time? */
bool sim_speed_wanted(const struct sim_params *p);
/*
 * Set up @s from @p for @seed (streams of its own: the device's other
 * random numbers do not move it); @slowdown: fold slowdown= in too.
 * 0 or -ENOMEM.
 */
int sim_speed_init(struct sim_speed *s, const struct sim_params *p, uint64_t seed,
		   bool slowdown);
void sim_speed_fini(struct sim_speed *s);
/* the speed at @t_ns (not before the last sim_speed_forget) */
double sim_speed_at(struct sim_speed *s, uint64_t t_ns);
/* the first time after @t_ns at which it may change */
uint64_t sim_speed_next(struct sim_speed *s, uint64_t t_ns);
/* no query will be before @t_ns again: what is older can go */
void sim_speed_forget(struct sim_speed *s, uint64_t t_ns);

#endif
