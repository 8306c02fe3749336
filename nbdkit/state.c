/* SPDX-License-Identifier: MIT */
/*
 * The filter's one state (struct gate, filter.h) and the meters of what
 * the plugin saw: every part uses them, none owns them, so they are
 * defined here, below all the parts.
 */
#include <stdint.h>

#include "filter.h"

struct gate g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.timer_lock = PTHREAD_MUTEX_INITIALIZER,
	.timer_ns = UINT64_MAX,
	.poll_ns = POLL_NS_DEFAULT,
	.max_groups = MAX_GROUPS_DEFAULT,
};
struct meter meter;
