/* SPDX-License-Identifier: MIT */
/*
 * The curve device: a FIFO server whose rate is a measured IOPS-by-depth
 * curve.  See sim_curve.c.
 */
#ifndef IOQOS_SIM_CURVE_H
#define IOQOS_SIM_CURVE_H

#include <stdint.h>

#include "sim/sim.h"

/* one request in the FIFO */
struct sim_req {
	void *tag;                 /* the caller's; NULL: the neighbour's */
	double work;               /* its cost, in 4 KiB reads */
};

struct sim_curve {
	unsigned npts;             /* points of the curve, >= 1 */
	double depth[SIM_CURVE_MAX]; /* their depths, ascending */
	double logd[SIM_CURVE_MAX]; /* log of each depth */
	double iops[SIM_CURVE_MAX]; /* 4 KiB reads per second at each */
	double *tab;               /* IOPS(n) for n < tab_n: the common depths */
	unsigned tab_n;
	struct sim_req *q;         /* the FIFO, a ring */
	unsigned qhead, qn, qcap;  /* its head slot, length, size (a power of 2) */
	double speed;              /* the device's speed now (sim_speed.c) */
	double rate;               /* 4 KiB reads per second now: IOPS(qn) * speed */
	double left;               /* the head's work left at last_ns, 4 KiB reads */
	uint64_t last_ns;          /* when left was brought up to date, ns */
	uint64_t done_ns;          /* when the head completes at this rate, ns;
				    * UINT64_MAX: the FIFO is empty */
};

/* from @p's curve: 0 or -ENOMEM */
int sim_curve_init(struct sim_curve *c, const struct sim_params *p);
void sim_curve_fini(struct sim_curve *c);
/* the device's IOPS (4 KiB reads per second) at speed 1 with @n out */
double sim_curve_iops(const struct sim_curve *c, unsigned n);
/* a request of @work joins the tail at @t_ns (no earlier than any event
 * seen): 0 or -ENOMEM */
int sim_curve_push(struct sim_curve *c, uint64_t t_ns, double work, void *tag);
/* the head completes at @t_ns == c->done_ns: it is taken off and returned */
struct sim_req sim_curve_pop(struct sim_curve *c, uint64_t t_ns);
/* every request with a tag leaves at @t_ns, passed to @fn in FIFO order;
 * the others stay, the first of them the head from the start of its work */
void sim_curve_drop(struct sim_curve *c, uint64_t t_ns,
		    void (*fn)(void *arg, void *tag), void *arg);
/* the speed becomes @speed at @t_ns */
void sim_curve_speed(struct sim_curve *c, uint64_t t_ns, double speed);

#endif
