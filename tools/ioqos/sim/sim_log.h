/* SPDX-License-Identifier: MIT */
/*
 * A fio IOPS log read as the simulated device's speed over time
 * (speed_log=FILE in a device file).  See sim_log.c.
 */
#ifndef IOQOS_SIM_LOG_H
#define IOQOS_SIM_LOG_H

#include <stddef.h>
#include <stdint.h>

/* the most lines a log may have: 16 MiB of memory */
#define SIM_LOG_LINES_MAX (1u << 20)

struct sim_log {
	unsigned n;                /* lines, >= 1 */
	uint64_t period_ns;        /* the last line's time: the log repeats after it */
	uint64_t *end_ns;          /* line i holds [end_ns[i - 1], end_ns[i]) of
				    * each lap (end_ns[-1] is 0), ns */
	double *speed;             /* line i's value over the mean of them all */
};

/*
 * Read fio's log at @path: 0 and *@out (free it with sim_log_free), or
 * -errno and a reason naming @path, the line and the value in @why.
 */
int sim_log_load(const char *path, struct sim_log **out, char *why, size_t whylen);
/* a copy, NULL when out of memory */
struct sim_log *sim_log_dup(const struct sim_log *l);
void sim_log_free(struct sim_log *l);

#endif
