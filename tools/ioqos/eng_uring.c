/* SPDX-License-Identifier: MIT */
/*
 * The io_uring engine: one ring for the whole run.  I/Os are queued as
 * SQEs when the controller releases them and submitted in a batch when the
 * runner waits; the wait ends at the first completion or at the runner's
 * next timer (the controller's wake time, a pacing or runtime event), so
 * the loop never sleeps past a moment when a request may go.
 */
#include "runner_int.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct io_uring_eng {
	struct io_uring ring;
	unsigned queued;            /* SQEs not yet submitted */
};

int uring_eng_open(struct io_uring_eng **out, unsigned entries, char *err,
		   size_t errlen)
{
	struct io_uring_eng *e = calloc(1, sizeof(*e));
	int rc;

	if (!e)
		return -ENOMEM;
	rc = io_uring_queue_init(entries, &e->ring, 0);
	if (rc < 0) {
		snprintf(err, errlen, "io_uring: %s", strerror(-rc));
		free(e);
		return rc;
	}
	*out = e;
	return 0;
}

int uring_eng_issue(struct io_uring_eng *e, int fd, struct io *io)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (!sqe) {
		int rc = io_uring_submit(&e->ring);
		if (rc < 0)
			return rc;
		e->queued = 0;
		sqe = io_uring_get_sqe(&e->ring);
		if (!sqe)
			return -EBUSY;
	}
	if (io->dir)
		io_uring_prep_write(sqe, fd, io->buf, io->len, io->off);
	else
		io_uring_prep_read(sqe, fd, io->buf, io->len, io->off);
	io_uring_sqe_set_data(sqe, io);
	e->queued++;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int uring_eng_wait(struct io_uring_eng *e, uint64_t until_ns, struct io **done)
{
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts, *tsp = NULL;
	unsigned head, n = 0;
	int rc;

	if (until_ns != UINT64_MAX) {
		uint64_t now = now_ns(), d = until_ns > now ? until_ns - now : 0;
		ts.tv_sec = (long long)(d / 1000000000ull);
		ts.tv_nsec = (long long)(d % 1000000000ull);
		tsp = &ts;
	}
	rc = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, tsp, NULL);
	e->queued = 0;
	io_uring_for_each_cqe(&e->ring, head, cqe) {
		struct io *io = io_uring_cqe_get_data(cqe);
		io->res = cqe->res;
		io->next = *done;
		*done = io;
		n++;
	}
	io_uring_cq_advance(&e->ring, n);
	if (rc < 0 && n)
		return 0;
	return rc < 0 ? rc : 0;
}

void uring_eng_close(struct io_uring_eng *e)
{
	io_uring_queue_exit(&e->ring);
	free(e);
}
