/* SPDX-License-Identifier: MIT */
/*
 * The psync engine: pread(2) and pwrite(2), each stream on a thread of its
 * own, as fio runs each psync job in a process (or thread) of its own.
 * A synchronous engine does one I/O at a time per job whatever iodepth
 * says (fio documents as much), so a stream keeps one I/O out.
 *
 * When every stream of the run is psync's, each worker submits, takes its
 * requests back and completes them through a lane of its own of one
 * struct ioqos_mt (run/runner_lane.c), under a lock of its own stream:
 *
 *   worker thread of stream s            (s's lock held)
 *   runner_lane_next: its I/O back  -->  unlock; pread/pwrite; lock
 *   solo: runner_lane_done: the controller told, figures, the next I/O
 *         submitted (back at once when nothing holds it)
 *   else: the run's lock, runner_io_turn (the loop's work, a stream's
 *         end left to the loop), eventfd_write if the loop must wake
 *   nothing back: ioqos_lane_sleep, unlock, sem_wait(go) -- posted by
 *         the lane's wake, which the thread that dispatched it calls
 *
 * A tenant at iodepth 1 that nothing holds back thus takes no lock but
 * its stream's, and neither sleeps nor wakes per request.  The loop's
 * thread holds the run's lock and every stream's (in that order, as every
 * thread takes them) but while it waits on the eventfd,
 * which a turn writes when the loop must wake (a timer sooner than its
 * wait's end, the run over) and the controller's timer function writes
 * when its wake time moves before the end of that wait.
 *
 * In a run where another engine's jobs are too (null, io_uring), the
 * workers hand their I/Os over instead: appended to the completion list
 * under e->lock, and the eventfd written when the list goes from empty to
 * not empty.  The loop reads the eventfd before taking the list, so no
 * completion is missed and most need no write.  Workers block every
 * signal: Ctrl-C and the like reach the loop's thread and end its wait.
 */
#include "run/fsync.h"
#include "run/trim.h"
#include "feat/placement.h"
#include "feat/prio.h"
#include "engines/engines.h"
#include "run/runner_int.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct psync_eng;

struct worker {
	pthread_t th;
	struct psync_eng *e;
	struct stream *s;           /* the stream it serves */
	sem_t go;                   /* posted when io is set, by its lane's
				     * wake, or to stop */
	pthread_mutex_t lock;       /* lanes: the stream's state and lane */
	struct io *io;              /* an I/O to do past the controller (a
				     * sync), set by psync_queue */
	bool stop;                  /* set by the loop before its last post */
	bool started;               /* the thread exists (for cleanup) */
	bool lock_made;             /* lock is initialised */
};

/* the worker whose thread this is, NULL on the loop's thread */
static __thread struct worker *self;

struct psync_eng {
	struct runner *r;
	struct worker *w;           /* one per stream, by stream index */
	unsigned nw;
	bool lanes;                 /* every stream is psync's: on lanes */
	bool held;                  /* lanes: the loop's thread holds run and
				     * every stream's lock */
	pthread_mutex_t run;        /* lanes: the run's state, in the loop's
				     * thread or a worker's turn */
	_Atomic uint64_t until_ns;  /* lanes: when the loop's wait ends */
	int efd;                    /* eventfd: the loop's wait must end (lanes),
				     * the completion list is not empty (else) */
	pthread_mutex_t lock;       /* guards done and done_tail */
	struct io *done;            /* completed, in completion order */
	struct io *done_tail;
};

/* the loop's: the run's lock, then every stream's in index order */
static void all_lock(struct psync_eng *e)
{
	pthread_mutex_lock(&e->run);
	for (unsigned i = 0; i < e->nw; i++)
		pthread_mutex_lock(&e->w[i].lock);
}

static void all_unlock(struct psync_eng *e)
{
	for (unsigned i = e->nw; i-- > 0;)
		pthread_mutex_unlock(&e->w[i].lock);
	pthread_mutex_unlock(&e->run);
}

/* a worker's turn, its stream's lock held: the run's lock taken before
 * it (the order every thread keeps), and given back after */
static void turn_lock(struct worker *w)
{
	pthread_mutex_unlock(&w->lock);
	pthread_mutex_lock(&w->e->run);
	pthread_mutex_lock(&w->lock);
}

static void turn_unlock(struct worker *w)
{
	pthread_mutex_unlock(&w->e->run);
}

/* the I/O itself; res and done_ns set */
static void do_io(struct io *io, int prio_err)
{
	const struct rfile *f = io->s->files[io->file];
	ssize_t n;

	if (io->trim && !prio_err) {
		/* the run's own ioctl, done here (trim.c) */
		trim_do(io);
		io->done_ns = mono_ns();
		return;
	}
	do {
		/* a sync (fsync.c): fsync() or fdatasync(), fio's
		 * do_io_u_sync() */
		if (io->sync && !prio_err)
			n = (io->sync == IO_SYNC_DATA ? fdatasync(f->fd) : fsync(f->fd)) ? -1 : 0;
		else
			n = prio_err ? -1 : io->dir ?
				pwrite(f->fd, io->buf, io->len, (off_t)io->off) :
				pread(f->fd, io->buf, io->len, (off_t)io->off);
	} while (n < 0 && !prio_err && errno == EINTR);
	io->res = prio_err ? prio_err : n < 0 ? -errno : (int32_t)n;
	io->done_ns = mono_ns();
}

/* lanes: a lane's wake function, also called by the runner after another
 * thread used the lane (runner_lane.c): nothing on the worker's own */
static void lane_wake(void *arg)
{
	struct worker *w = arg;

	if (self != w)
		sem_post(&w->go);
}

/* lanes: the controller's wake time moved to @wake_ns */
static void ctl_timer(void *arg, uint64_t wake_ns)
{
	struct psync_eng *e = arg;

	if (wake_ns < atomic_load_explicit(&e->until_ns, memory_order_relaxed))
		eventfd_write(e->efd, 1);
}

/* tries of the lane before the thread sleeps: a request the controller
 * lets go while another thread applies a batch is back within it */
#define LANE_SPINS 64

/* lanes: the worker of stream w->s, with its lock held but while it does
 * an I/O or sleeps */
static void worker_lanes(struct worker *w, int prio_err)
{
	struct psync_eng *e = w->e;
	struct runner *r = e->r;
	struct stream *s = w->s;
	unsigned spins = 0;
	/* the clock as the last I/O ended, for the next one taken at once
	 * (as the loop's turn issued it at the time it took: one read of the
	 * clock an I/O); 0: read it */
	uint64_t last = 0;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct io *io = w->io;
		uint64_t now = last ? last : mono_ns();
		int rc = 0;

		w->io = NULL;
		last = 0;
		if (!io && (rc = runner_lane_next(r, s, now, &io)) < 0) {
			turn_lock(w);
			runner_lane_refused(r, s, rc);
			turn_unlock(w);
			eventfd_write(e->efd, 1);
			continue;
		}
		if (!io) {
			if (++spins < LANE_SPINS)
				continue;
			spins = 0;
			rc = runner_lane_sleep(s);
			pthread_mutex_unlock(&w->lock);
			while (rc == 0 && sem_wait(&w->go) && errno == EINTR)
				;
			pthread_mutex_lock(&w->lock);
			continue;
		}
		spins = 0;
		pthread_mutex_unlock(&w->lock);
		do_io(io, prio_err);
		pthread_mutex_lock(&w->lock);
		if (runner_lane_solo(s, io, io->done_ns)) {
			runner_lane_done(r, io, io->done_ns);
			last = io->done_ns;
		} else {
			bool wake;

			turn_lock(w);
			wake = runner_io_turn(r, io, io->done_ns,
					      atomic_load_explicit(&e->until_ns,
								   memory_order_relaxed));
			turn_unlock(w);
			last = io->done_ns;
			if (wake)
				eventfd_write(e->efd, 1);
		}
	}
	pthread_mutex_unlock(&w->lock);
}

/* beside another engine: each I/O handed to the loop's thread */
static void worker_handover(struct worker *w, int prio_err)
{
	struct psync_eng *e = w->e;

	for (;;) {
		struct io *io;
		bool was_empty;

		while (sem_wait(&w->go) && errno == EINTR)
			;
		if (w->stop)
			return;
		io = w->io;
		do_io(io, prio_err);
		pthread_mutex_lock(&e->lock);
		was_empty = !e->done;
		io_list_append(&e->done, &e->done_tail, io);
		pthread_mutex_unlock(&e->lock);
		if (was_empty)
			eventfd_write(e->efd, 1);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	/* the job's prio= and prioclass= on its thread, as fio's: a refusal
	 * (EPERM for real-time) fails the job's I/Os */
	int prio_err = prio_thread(w->s->job);

	self = w;
	if (w->e->lanes)
		worker_lanes(w, prio_err);
	else
		worker_handover(w, prio_err);
	return NULL;
}

static void psync_cleanup(struct runner *r)
{
	struct psync_eng *e = r->eng_data[ENG_PSYNC];

	if (!e)
		return;
	/* nothing is out: the workers only wait, each for its stop */
	if (!e->held && e->lanes)
		all_lock(e);
	for (unsigned i = 0; i < e->nw; i++)
		e->w[i].stop = true;
	if (e->lanes)
		all_unlock(e);
	e->held = false;
	for (unsigned i = 0; i < e->nw; i++) {
		struct worker *w = &e->w[i];
		if (!w->started)
			continue;
		sem_post(&w->go);
		pthread_join(w->th, NULL);
	}
	runner_lanes_close(r);
	for (unsigned i = 0; i < e->nw; i++) {
		sem_destroy(&e->w[i].go);
		if (e->w[i].lock_made)
			pthread_mutex_destroy(&e->w[i].lock);
	}
	if (e->efd >= 0)
		close(e->efd);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->run);
	free(e->w);
	free(e);
	r->eng_data[ENG_PSYNC] = NULL;
}

static int psync_init(struct runner *r, unsigned total_depth, char *err,
		      size_t errlen)
{
	struct psync_eng *e = calloc(1, sizeof(*e));
	sigset_t all, old;
	pthread_attr_t attr;
	cpu_set_t own;
	void **args;
	int rc = 0;

	if (!e)
		return -ENOMEM;
	e->efd = -1;
	e->r = r;
	atomic_init(&e->until_ns, UINT64_MAX);
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->run, NULL);
	r->eng_data[ENG_PSYNC] = e;
	e->w = calloc(r->nstreams, sizeof(*e->w));
	if (!e->w)
		return -ENOMEM;
	e->nw = r->nstreams;
	e->lanes = true;
	for (unsigned i = 0; i < e->nw; i++) {
		struct worker *w = &e->w[i];

		w->e = e;
		w->s = &r->streams[i];
		sem_init(&w->go, 0, 0);
		pthread_mutex_init(&w->lock, NULL);
		w->lock_made = true;
		if (w->s->eng != &eng_psync_ops)
			e->lanes = false;
	}
	e->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->efd < 0) {
		rc = -errno;
		snprintf(err, errlen, "psync: eventfd: %s", strerror(errno));
		return rc;
	}
	if (e->lanes) {
		if (!(args = calloc(e->nw, sizeof(*args))))
			return -ENOMEM;
		for (unsigned i = 0; i < e->nw; i++)
			args[i] = &e->w[i];
		rc = runner_lanes_open(r, lane_wake, args, ctl_timer, e);
		free(args);
		if (rc) {
			snprintf(err, errlen, "psync: lanes: %s", strerror(-rc));
			return rc;
		}
		/* from here to the cleanup the runner's state is the loop's
		 * but while it waits */
		all_lock(e);
		e->held = true;
	}
	/* the workers inherit a mask with every signal blocked */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1u << 20);
	CPU_ZERO(&own);
	pthread_getaffinity_np(pthread_self(), sizeof(own), &own);
	for (unsigned i = 0; i < e->nw; i++) {
		size_t setsize = sizeof(own);
		const void *cpus = place_thread_cpus(&r->streams[i], &setsize);

		/* a thread for each of its own streams (the run's others are
		 * other engines') */
		if (r->streams[i].eng != &eng_psync_ops)
			continue;
		/* the stream's CPUs (placement.c), else the loop's own */
		pthread_attr_setaffinity_np(&attr, setsize, cpus ? cpus : &own);
		rc = -pthread_create(&e->w[i].th, &attr, worker_main, &e->w[i]);
		if (rc) {
			snprintf(err, errlen, "psync: thread %u of %u: %s", i + 1, e->nw,
				 strerror(-rc));
			break;
		}
		e->w[i].started = true;
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* an I/O past the controller (a sync), or on hand-over any I/O: to the
 * stream's worker; on lanes the caller holds the stream's lock */
static void psync_queue(struct runner *r, struct io *io, uint64_t now_ns)
{
	struct psync_eng *e = r->eng_data[ENG_PSYNC];
	struct worker *w = &e->w[io->s->index];

	w->io = io;
	/* on lanes a worker's own sync is taken at its next look */
	if (!e->lanes || self != w)
		sem_post(&w->go);
}

/* move what the workers completed to the runner, in order */
static void take_done(struct runner *r, struct psync_eng *e)
{
	struct io *io, *next;

	pthread_mutex_lock(&e->lock);
	io = e->done;
	e->done = e->done_tail = NULL;
	pthread_mutex_unlock(&e->lock);
	for (; io; io = next) {
		next = io->next;
		runner_io_done(r, io);
	}
}

/* read before taking: a completion after the take writes again */
static int psync_reap(struct runner *r)
{
	struct psync_eng *e = r->eng_data[ENG_PSYNC];
	eventfd_t v;

	eventfd_read(e->efd, &v);
	take_done(r, e);
	return 0;
}

static int psync_fd(struct runner *r)
{
	struct psync_eng *e = r->eng_data[ENG_PSYNC];

	return e->efd;
}

static int psync_wait(struct runner *r, uint64_t until_ns)
{
	struct psync_eng *e = r->eng_data[ENG_PSYNC];
	struct pollfd pfd = { .fd = e->efd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	int rc;

	if (until_ns != UINT64_MAX) {
		uint64_t now = mono_ns(), d = until_ns > now ? until_ns - now : 0;
		ts.tv_sec = (time_t)(d / 1000000000ull);
		ts.tv_nsec = (long)(d % 1000000000ull);
		tsp = &ts;
	}
	atomic_store_explicit(&e->until_ns, until_ns, memory_order_relaxed);
	if (e->lanes)
		all_unlock(e);
	rc = ppoll(&pfd, 1, tsp, NULL) < 0 && errno != EINTR ? -errno : 0;
	if (e->lanes)
		all_lock(e);
	atomic_store_explicit(&e->until_ns, 0, memory_order_relaxed);
	return rc ? rc : psync_reap(r);
}
const struct engine_ops eng_psync_ops = {
	.name = "psync",
	.kind = ENG_PSYNC,
	.flags = ENG_F_FILES,
	.stream_depth = 1,
	.init = psync_init,
	.queue = psync_queue,
	.wait = psync_wait,
	.wait_fd = psync_fd,
	.reap = psync_reap,
	.cleanup = psync_cleanup,
};
