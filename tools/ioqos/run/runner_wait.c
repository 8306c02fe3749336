/* SPDX-License-Identifier: MIT */
/*
 * The loop's wait in a run whose jobs are on several engines that wait on
 * a device: psync jobs beside io_uring ones, as fio runs a job file that
 * gives each job its own ioengine= (fio's examples/exitwhat.fio).
 *
 * A run of one such engine waits in that engine (io_uring_enter, or ppoll
 * on psync's eventfd), and nothing here is used.  With two, neither may
 * block alone, or the other's completions would wait for its timeout:
 * each engine gives a descriptor that is readable while it has
 * completions to hand over (psync's eventfd, written by its threads; the
 * eventfd registered to the io_uring ring), the loop sleeps in one ppoll
 * on all of them until the first is ready or until its next timer, and
 * then each engine hands over what it has, without blocking.  Engines
 * that complete as they queue (null) have nothing to wait for.
 *
 *   ppoll(psync efd, ring efd; until) --> psync reap: its list
 *                                     --> io_uring reap: its CQ
 *
 * A signal only ends the wait, as in every engine's own.
 */
#include "run/runner_parts.h"

#include <errno.h>
#include <poll.h>
#include <time.h>

int wait_many(struct runner *r, uint64_t until_ns)
{
	struct pollfd pfd[ENG_KINDS];
	const struct engine_ops *by[ENG_KINDS];
	struct timespec ts, *tsp = NULL;
	nfds_t n = 0;

	for (unsigned k = 0; k < ENG_KINDS; k++) {
		const struct engine_ops *e = r->engs[k];

		if (!e || !e->wait_fd)
			continue;
		pfd[n].fd = e->wait_fd(r);
		pfd[n].events = POLLIN;
		pfd[n].revents = 0;
		by[n++] = e;
	}
	if (until_ns != UINT64_MAX) {
		uint64_t now = mono_ns(), d = until_ns > now ? until_ns - now : 0;

		ts.tv_sec = (time_t)(d / 1000000000ull);
		ts.tv_nsec = (long)(d % 1000000000ull);
		tsp = &ts;
	}
	if (ppoll(pfd, n, tsp, NULL) < 0 && errno != EINTR)
		return -errno;
	/* the descriptors are level-triggered: one not ready now is ready
	 * at the next wait, and ends it at once */
	for (nfds_t i = 0; i < n; i++) {
		int rc = pfd[i].revents ? by[i]->reap(r) : 0;

		if (rc < 0)
			return rc;
	}
	return 0;
}
