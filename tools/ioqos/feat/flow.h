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

/* the flows of the jobs with flow= (s->flow): 0 or -ENOMEM */
int flow_setup(struct runner *r, char *err, size_t errlen);
void flow_free(struct runner *r);
/* the stream starts and its weight joins its flow; it ends and leaves */
void flow_join(struct stream *s);
void flow_leave(struct runner *r, struct stream *s);
/*
 * May the stream issue its next I/O at @now?  false while it is ahead of
 * its share: it is tried again when the flow moves on, or after
 * flow_sleep.  true is counted once per I/O: call flow_issued() when the
 * I/O goes.
 */
bool flow_pass(struct runner *r, struct stream *s, uint64_t now);
void flow_issued(struct stream *s);

/* flow='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_flow;

#endif
