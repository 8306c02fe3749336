/* SPDX-License-Identifier: MIT */
/*
 * The io_uring engine: one ring for the whole run.
 *
 * A request the controller releases becomes an SQE at once, and the SQEs
 * of one dispatch are submitted together as soon as the dispatch ends
 * (commit), which, since the loop dispatches after every completion, is
 * one io_uring_enter per freed slot: the slot gets its next request
 * before the next completion is even looked at.  Queuing SQEs until the
 * next wait instead let a batch of completions (about 11 at iodepth 32 on
 * a virtio disk) be reaped and handled before any of them was replaced,
 * and the device ran at 67k IOPS where fio ran at 80k.  Submitting each
 * SQE by itself measured the same as once per dispatch (within the
 * noise of a shared machine); one per dispatch saves the calls when a
 * limit or a start releases many at once.
 *
 * The wait ends at the first completion or at the runner's next timer
 * (the controller's wake time, a pacing or runtime event), so the loop
 * never sleeps past a moment when a request may go.  The ring is set up
 * as fio sets up its own: completions are run as task work when the loop
 * enters the kernel, not by interrupting it (COOP_TASKRUN, and
 * SINGLE_ISSUER | DEFER_TASKRUN: only the loop's thread submits), which
 * costs less CPU per I/O; a kernel without these flags gets a plain ring.
 *
 * In a run where another engine waits too (psync jobs beside io_uring
 * ones), the loop waits in ppoll on each engine's descriptor
 * (runner_wait.c), not in io_uring_enter: the ring is then a plain one,
 * whose completions wake a thread asleep elsewhere (task work that
 * interrupts it, where COOP_TASKRUN and DEFER_TASKRUN wait for the thread
 * to enter the ring), with an eventfd registered to it, and reap takes
 * what the CQ holds.
 */
#include "run/fsync.h"
#include "engines/engines.h"
#include "run/runner_int.h"

#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct uring_eng {
	struct io_uring ring;
	unsigned queued;            /* SQEs not yet submitted */
	int efd;                    /* a run of several engines: the eventfd
				     * the ring signals on completion, else -1 */
};

/* a ring for every I/O of every stream: a power of two, 8 .. 4096 */
static unsigned ring_entries(unsigned total_depth)
{
	unsigned p = 8;

	while (p < total_depth && p < 4096)
		p <<= 1;
	return p;
}

static int uring_init(struct runner *r, unsigned total_depth, char *err,
		      size_t errlen)
{
	static const unsigned flags[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
		IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	struct uring_eng *e = calloc(1, sizeof(*e));
	size_t first = eng_shared(r) ? sizeof(flags) / sizeof(flags[0]) - 1 : 0;
	int rc = -EINVAL;

	if (!e)
		return -ENOMEM;
	e->efd = -1;
	/* the newest flags this kernel takes (a plain ring when shared) */
	for (size_t i = first; i < sizeof(flags) / sizeof(flags[0]) && rc == -EINVAL; i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = flags[i];
		rc = io_uring_queue_init_params(ring_entries(total_depth), &e->ring, &p);
	}
	if (rc < 0) {
		snprintf(err, errlen, "io_uring: %s", strerror(-rc));
		free(e);
		return rc;
	}
	r->eng_data[ENG_URING] = e;
	if (!eng_shared(r))
		return 0;
	e->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = e->efd < 0 ? -errno : io_uring_register_eventfd(&e->ring, e->efd);
	if (rc < 0)
		snprintf(err, errlen, "io_uring: an eventfd for the ring: %s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

static void uring_queue(struct runner *r, struct io *io, uint64_t now_ns)
{
	struct uring_eng *e = r->eng_data[ENG_URING];
	const struct rfile *f = io->s->files[io->file];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (!sqe) {
		int rc = io_uring_submit(&e->ring);
		e->queued = 0;
		sqe = rc < 0 ? NULL : io_uring_get_sqe(&e->ring);
		if (!sqe) {
			io->res = -EIO;
			runner_io_done(r, io);
			return;
		}
	}
	/* a sync (fsync.c): IORING_OP_FSYNC, as fio's engine issues it */
	if (io->sync)
		io_uring_prep_fsync(sqe, f->fd, io->sync == IO_SYNC_DATA ?
				    IORING_FSYNC_DATASYNC : 0);
	else if (io->dir)
		io_uring_prep_write(sqe, f->fd, io->buf, io->len, io->off);
	else
		io_uring_prep_read(sqe, f->fd, io->buf, io->len, io->off);
	/* the I/O's priority, 0 for none (prio.c), as fio's engine sets it */
	sqe->ioprio = io->sync ? 0 : io->ioprio;
	io_uring_sqe_set_data(sqe, io);
	e->queued++;
}

static int uring_commit(struct runner *r)
{
	struct uring_eng *e = r->eng_data[ENG_URING];
	int rc;

	if (!e->queued)
		return 0;
	rc = io_uring_submit(&e->ring);
	e->queued = 0;
	return rc < 0 ? rc : 0;
}

/* hand over what the CQ holds */
static unsigned reap_cqes(struct runner *r, struct uring_eng *e)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&e->ring, head, cqe) {
		struct io *io = io_uring_cqe_get_data(cqe);
		io->res = cqe->res;
		runner_io_done(r, io);
		n++;
	}
	io_uring_cq_advance(&e->ring, n);
	return n;
}

static int uring_fd(struct runner *r)
{
	struct uring_eng *e = r->eng_data[ENG_URING];

	return e->efd;
}

/* a run of several engines: read the eventfd before the CQ, so that a
 * completion after the look signals again */
static int uring_reap(struct runner *r)
{
	struct uring_eng *e = r->eng_data[ENG_URING];
	eventfd_t v;

	eventfd_read(e->efd, &v);
	reap_cqes(r, e);
	return 0;
}

static int uring_wait(struct runner *r, uint64_t until_ns)
{
	struct uring_eng *e = r->eng_data[ENG_URING];
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts, *tsp = NULL;
	unsigned n;
	int rc;

	if (until_ns != UINT64_MAX) {
		uint64_t now = mono_ns(), d = until_ns > now ? until_ns - now : 0;
		ts.tv_sec = (long long)(d / 1000000000ull);
		ts.tv_nsec = (long long)(d % 1000000000ull);
		tsp = &ts;
	}
	rc = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, tsp, NULL);
	e->queued = 0;
	n = reap_cqes(r, e);
	if (rc < 0 && (n || rc == -EINTR || rc == -ETIME))
		return 0;
	return rc < 0 ? rc : 0;
}

static void uring_cleanup(struct runner *r)
{
	struct uring_eng *e = r->eng_data[ENG_URING];

	if (!e)
		return;
	io_uring_queue_exit(&e->ring);
	if (e->efd >= 0)
		close(e->efd);
	free(e);
	r->eng_data[ENG_URING] = NULL;
}

const struct engine_ops eng_uring_ops = {
	.name = "io_uring",
	.kind = ENG_URING,
	.flags = ENG_F_FILES,
	.init = uring_init,
	.queue = uring_queue,
	.commit = uring_commit,
	.wait = uring_wait,
	.wait_fd = uring_fd,
	.reap = uring_reap,
	.cleanup = uring_cleanup,
};
