/* SPDX-License-Identifier: MIT */
/*
 * The simulated device: a model of a drive in virtual time, deterministic
 * for a seed.  See sim.c for the model and its calibration.
 */
#ifndef IOQOS_SIM_H
#define IOQOS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "lib/rng.h"

struct sim_curve;
struct sim_log;
struct sim_neigh;
struct sim_speed;

#define SIM_CHANNELS_MAX 1024
/* the most points of a curve device's curve, and its deepest depth */
#define SIM_CURVE_MAX 64
#define SIM_CURVE_DEPTH_MAX (1u << 20)
/* the most requests the neighbour may keep out */
#define SIM_NEIGH_DEPTH_MAX 4096

struct sim_params {
	char name[64];             /* preset or file name, for reports */
	unsigned channels;         /* parallel units (flash dies, an arm) */
	uint64_t lat_ns;           /* per-I/O time on a channel, ns */
	uint64_t chan_bps;         /* transfer rate of one channel, bytes/s */
	uint64_t link_ns;          /* per-I/O time on the shared host link, ns */
	uint64_t link_bps;         /* transfer rate of the host link, bytes/s */
	uint64_t seek_ns;          /* added when an I/O does not start where the
				    * channel's previous one ended (disks), ns */
	unsigned jitter_pct;       /* each service time is scaled by a uniform
				    * factor in [1 - j, 1 + j], percent */
	uint64_t capacity;         /* bytes: the default size of a job */
	uint64_t slowdown_at_ns;   /* virtual time from which service times are
				    * scaled by slowdown_milli, ns */
	unsigned slowdown_milli;   /* that scale, in thousandths (1000: none) */
	/* the speed over time (sim_speed.c) */
	struct sim_log *speed_log; /* speed_log=: a fio IOPS log's speeds, owned
				    * (sim_params_fini); NULL: none */
	char speed_log_name[64];   /* its value in the file, for reports */
	unsigned drift_milli;      /* drift=: sd of the log of the speed, in
				    * thousandths of a percent; 0: none */
	uint64_t drift_tau_ns;     /* drift_tau=: the drift's time constant, ns */
	unsigned steps_lo_milli;   /* steps=LO-HI: a step's slowdown factor is
				    * uniform in [LO, HI], thousandths; 0: none */
	unsigned steps_hi_milli;   /* HI, thousandths */
	uint64_t step_every_ns;    /* step_every=: mean gap between steps, ns */
	uint64_t step_len_ns;      /* step_len=: mean length of a step, ns */
	/* the curve device (sim_curve.c), in place of the link and channels */
	unsigned curve_n;          /* curve=: its points; 0: the channel device */
	uint32_t curve_depth[SIM_CURVE_MAX]; /* each point's depth, ascending */
	double curve_iops[SIM_CURVE_MAX];    /* its 4 KiB reads per second */
	uint64_t size_cost;        /* size_cost=: bytes past the first 4 KiB that
				    * cost one more 4 KiB read, bytes */
	unsigned write_cost_milli; /* write_cost=: a write's cost over a read's,
				    * thousandths */
	/* the neighbour (sim_neigh.c): requests the controller never sees */
	unsigned neigh_depth;      /* neighbour_depth=: requests it keeps out
				    * while on; 0: no neighbour */
	uint64_t neigh_bs;         /* neighbour_bs=: bytes of each */
	bool neigh_write;          /* neighbour_rw=: writes, else reads */
	bool neigh_random;         /* at random places, else one after another */
	uint64_t neigh_at_ns;      /* neighbour_at=: its first burst's start, ns */
	uint64_t neigh_on_ns;      /* neighbour_on=: each burst's length, ns;
				    * 0: on for good */
	unsigned neigh_cost_milli; /* neighbour_cost=: its work on a curve device
				    * over what size_cost and write_cost say,
				    * thousandths (1000: as they say) */
	uint64_t neigh_off_ns;     /* neighbour_off=: the pause after each, ns */
};

struct sim {
	struct sim_params p;       /* p.speed_log is not this one's: see spd */
	struct rng rng;            /* the service times' jitter */
	struct sim_speed *spd;     /* the speed over time; NULL: constant */
	uint64_t link_free_ns;     /* when the link finishes its last transfer */
	uint64_t *chan_free_ns;    /* channel free times, ns: a min-heap, or
				    * a sorted ring (chan_ring) */
	uint64_t *chan_pos;        /* seeks: per heap slot, where its last I/O
				    * ended */
	bool chan_ring;            /* chan_free_ns is the ring (no seeks, little
				    * jitter), else a heap */
	unsigned chan_head;        /* the ring's earliest slot */
	uint64_t svc_bytes;        /* the size the next two are for, bytes */
	uint64_t link_svc_ns;      /* link time of an I/O of svc_bytes, ns */
	uint64_t chan_svc_ns;      /* channel time of one (no seek), ns */
	/* a device whose completions are its own events (sim_run.c) */
	struct sim_curve *curve;   /* the curve device; NULL: the channels */
	struct sim_neigh *nb;      /* the neighbour; NULL: none */
	unsigned tagged;           /* the curve device: the caller's requests out */
	uint64_t clock_ns;         /* how far sim_run has gone, ns */
	uint64_t speed_next_ns;    /* the curve device: when the speed changes
				    * next, ns (UINT64_MAX: never) */
};

/* a preset by name (ssd, nvme, hdd): 0 or -ENOENT */
int sim_preset(const char *name, struct sim_params *p);
/* a parameter file (key=value lines, '#' comments): 0 or -errno and a
 * reason naming file:line */
int sim_params_load(const char *path, struct sim_params *p, char *err,
		    size_t errlen);
/* the same from an open stream, @name in messages; @p is set only on success.
 * A regular file only, whole lines of any length, a NUL byte an error. */
int sim_params_read(FILE *f, const char *name, struct sim_params *p, char *err,
		    size_t errlen);
/* the parameters as "key=value ..." */
void sim_params_describe(const struct sim_params *p, char *buf, size_t len);
/* free what a load gave @p (its speed log); a preset needs none */
void sim_params_fini(struct sim_params *p);

/* a device from @p (copied: @p may be freed after) for @seed: 0 or -ENOMEM */
int sim_init(struct sim *d, const struct sim_params *p, uint64_t seed);
void sim_fini(struct sim *d);

/* a speed factor "2", "1.5", "0.25" (up to 3 decimals, 0.001 .. 1000) as
 * thousandths: 0 or -EINVAL */
int sim_parse_factor(const char *s, unsigned *milli);

/*
 * Start an I/O of @bytes at device address @pos at virtual time @now_ns;
 * returns its completion time.  The link is a FIFO single server, then the
 * first free channel takes it: both are known at issue time, so the caller
 * only keeps one event per I/O.
 */
uint64_t sim_issue(struct sim *d, uint64_t now_ns, uint64_t pos,
		   uint64_t bytes);

/*
 * A device with events of its own -- the curve device, whose completion
 * times are not known at issue, and a neighbour's requests on either
 * device (sim_run.c) -- keeps a clock that the caller moves on with
 * sim_run(): through the device's events, to @until_ns or to the first
 * moment before it at which some tagged requests (the caller's, on the
 * curve device) complete, which it passes to @done in the order they
 * complete; it returns the clock.  With no tagged request out and
 * @until_ns UINT64_MAX it returns the clock unmoved.  It may also stop
 * short, after some thousands of events: call it again.  On the curve device
 * sim_submit() hands it a request tagged @tag at @now_ns (its clock: it
 * has been run that far); on the channel device the caller's requests
 * still go through sim_issue(), once the device has been run to @now_ns.
 */
typedef void sim_done_fn(void *arg, void *tag);

/* must sim_run follow the caller's clock? */
bool sim_runs(const struct sim *d);
/* do the caller's requests go through sim_submit (else sim_issue)? */
bool sim_evented(const struct sim *d);
/* 0, or -ENOMEM: the request is not taken */
int sim_submit(struct sim *d, uint64_t now_ns, uint64_t pos, uint64_t bytes,
	       bool write, void *tag);
uint64_t sim_run(struct sim *d, uint64_t until_ns, sim_done_fn *done, void *arg);
/* the curve device: every tagged request is passed to @done now, at the
 * clock, without waiting for its work to be done (a run given up) */
void sim_drop(struct sim *d, sim_done_fn *done, void *arg);

#endif
