/* SPDX-License-Identifier: MIT */
/*
 * A test's look at what `ioqos run` hands liburing: preloaded, it wraps
 * io_uring_submit() and io_uring_submit_and_wait_timeout() and, before
 * each, writes one line per SQE queued since the last submit to the file
 * $SQE_LOG: "LEN IOPRIO", and, when $SQE_CALLS names a file, one line per
 * call there: the count of SQEs it submits.  Built and used by
 * t_cli_prio.sh and t_cli_iodepthlow.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *out, *calls;

static void log_sqes(struct io_uring *ring)
{
	const char *path = getenv("SQE_LOG"), *cpath = getenv("SQE_CALLS");

	if (!out && (!path || !(out = fopen(path, "w"))))
		abort();
	if (cpath && !calls && !(calls = fopen(cpath, "w")))
		abort();
	for (unsigned h = ring->sq.sqe_head; h != ring->sq.sqe_tail; h++) {
		const struct io_uring_sqe *sqe = &ring->sq.sqes[h & ring->sq.ring_mask];

		fprintf(out, "%u %u\n", sqe->len, sqe->ioprio);
	}
	fflush(out);
	if (calls) {
		fprintf(calls, "%u\n", ring->sq.sqe_tail - ring->sq.sqe_head);
		fflush(calls);
	}
}

int io_uring_submit(struct io_uring *ring)
{
	static int (*real)(struct io_uring *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "io_uring_submit");
	log_sqes(ring);
	return real(ring);
}

int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe,
				     unsigned n, struct __kernel_timespec *ts,
				     sigset_t *mask)
{
	static int (*real)(struct io_uring *, struct io_uring_cqe **, unsigned,
			   struct __kernel_timespec *, sigset_t *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "io_uring_submit_and_wait_timeout");
	log_sqes(ring);
	return real(ring, cqe, n, ts, mask);
}
