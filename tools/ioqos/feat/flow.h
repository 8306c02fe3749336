/* SPDX-License-Identifier: MIT */
/* fio's flow=: jobs sharing a flow_id keep their I/O counts in the ratio
 * of their flow weights (flow.c). */
#ifndef IOQOS_FLOW_H
#define IOQOS_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;

/* flow='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_flow;

#endif
