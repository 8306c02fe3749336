/* SPDX-License-Identifier: MIT */
/*
 * The poll thread: every ioqos-poll it looks at the config file (reload.c)
 * and rewrites the stats file (stats.c).
 *
 * It is not the timer thread (gate.c), which releases what the controller
 * lets pass at the times it asks for.  A write or a rename can wait on the
 * file system: on ext4 a journal commit that waits on a slow disk holds
 * them up for hundreds of milliseconds.  In the timer thread that wait
 * held back every request a limit had queued, on every export at once (a
 * server whose share of a limit was 14.7 MiB/s delivered 8.5 over such a
 * wait of 0.27 s).  Here it only makes a stats file late.
 */
#include <pthread.h>

#include "filter.h"

void *poll_main(void *arg)
{
	uint64_t next = now_ns() + g.poll_ns;

	(void)arg;
	pthread_mutex_lock(&g.lock);
	while (!g.stop) {
		if (now_ns() < next) {
			struct timespec ts = ns_to_timespec(next);

			pthread_cond_timedwait(&g.poll_cond, &g.lock, &ts);
			continue;
		}
		pthread_mutex_unlock(&g.lock);
		config_reload(false);
		stats_write();
		pthread_mutex_lock(&g.lock);
		next = now_ns() + g.poll_ns;
	}
	pthread_mutex_unlock(&g.lock);
	return NULL;
}
