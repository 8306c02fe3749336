/* SPDX-License-Identifier: MIT */
/*
 * The psync engine: pread(2) and pwrite(2), each stream on a thread of its
 * own, as fio runs each psync job in a process (or thread) of its own.
 *
 *   thread of the loop                  worker thread of stream s
 *   ioqos_next -> queue: w->io = io,    sem_wait(go)
 *                 sem_post(go)  ------> pread/pwrite, io->res, io->done_ns
 *   wait: unlock run_lock               lock run_lock
 *         ppoll(eventfd)                runner_io_turn: complete, dispatch
 *                                         (queue: the next I/O, own or not)
 *         (a timer, a signal)           unlock run_lock
 *   <---------------------------------- eventfd_write if the wait must end
 *         lock run_lock
 *
 * A synchronous engine does one I/O at a time per job whatever iodepth
 * says (fio documents as much), so a stream keeps one I/O out and its
 * worker needs no queue: one slot and a semaphore.
 *
 * The runner's state, the controller's with it, is under run_lock, which
 * the loop's thread holds but while it waits.  A worker whose I/O has
 * completed takes the lock and does the loop's work for it there and
 * then (runner_io_turn): the completion is handled and what it lets go is
 * issued, the worker's own next I/O most often.  The device's slot is
 * filled from the thread that saw it free, as fio's job process fills
 * its own: a hand-over to the loop's thread and back costs two wake-ups
 * of a sleeping thread per I/O, which on a virtual machine's disk left
 * eight jobs at 81% of fio's IOPS (bench/cli_depth.sh).  The loop's
 * thread wakes for its timers, for signals, and when a turn moved its
 * wake time earlier.
 *
 * Under a depth that holds requests back, the I/O that a completion lets
 * go is most often another stream's, whose worker sleeps.  The worker
 * that freed the slot does it instead, when the two streams' threads are
 * alike (neither has a prio= of its thread or CPUs of its own): the two
 * workers swap streams, the one that is awake taking the stream whose
 * I/O is to do, the sleeping one the other, whose I/O (if any comes) it
 * is woken for.  A stream is served by one worker at a time, and a worker
 * does one I/O at a time, as before; what it saves is a wake-up per I/O.
 *
 * In a run where another engine waits too (runner_wait.c), the other's
 * ring may be used from its own thread only, so the workers hand their
 * I/Os over instead: appended to the completion list under e->lock, and
 * the eventfd written when the list goes from empty to not empty.  The
 * loop reads the eventfd before taking the list, so no completion is
 * missed and most need no write.  Workers block every signal: Ctrl-C and
 * the like reach the loop's thread and end its wait.
 */
#include "run/fsync.h"
#include "feat/placement.h"
#include "feat/prio.h"
#include "engines/engines.h"
#include "run/runner_int.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct psync_eng;

struct worker {
	pthread_t th;
	struct psync_eng *e;
	sem_t go;                   /* posted when io is set, or to stop */
	struct io *io;              /* the I/O to do, set by psync_queue; in
				     * turns, NULL again when it completed */
	unsigned stream;            /* the stream it serves (swapped in turns) */
	bool alike;                 /* its thread is like any other's that is:
				     * the streams may swap workers */
	bool stop;                  /* set by the loop before its last post */
	bool started;               /* the thread exists (for cleanup) */
};

/* the worker whose thread this is, NULL on the loop's thread */
static __thread struct worker *self;

struct psync_eng {
	struct runner *r;
	struct worker *w;           /* one per stream, by stream index */
	struct worker **of;         /* the worker serving each stream */
	unsigned nw;
	bool turns;                 /* the workers take turns at the loop: the
				     * run's only engine that waits */
	bool held;                  /* the loop's thread holds run_lock */
	pthread_mutex_t run_lock;   /* the runner's state, in turns */
	uint64_t until_ns;          /* in turns: when the loop's wait ends */
	int efd;                    /* eventfd: the loop's wait must end (turns),
				     * the completion list is not empty (else) */
	pthread_mutex_t lock;       /* guards done and done_tail */
	struct io *done;            /* completed, in completion order */
	struct io *done_tail;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct psync_eng *e = w->e;
	int prio_err = 0;
	bool first = true, ready = false;

	self = w;
	for (;;) {
		struct io *io;
		const struct rfile *f;
		ssize_t n;
		bool was_empty, wake;

		/* ready: given in its own turn, with no post */
		while (!ready && sem_wait(&w->go) && errno == EINTR)
			;
		if (!ready && w->stop)
			return NULL;
		io = w->io;
		f = io->s->files[io->file];
		/* the job's prio= and prioclass= on its thread, as fio's: a
		 * refusal (EPERM for real-time) fails the job's I/Os */
		if (first) {
			prio_err = prio_thread(io->s->job);
			first = false;
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
		if (e->turns) {
			pthread_mutex_lock(&e->run_lock);
			w->io = NULL;
			wake = runner_io_turn(e->r, io, e->until_ns);
			ready = w->io != NULL;
			pthread_mutex_unlock(&e->run_lock);
			if (wake)
				eventfd_write(e->efd, 1);
			continue;
		}
		pthread_mutex_lock(&e->lock);
		was_empty = !e->done;
		io_list_append(&e->done, &e->done_tail, io);
		pthread_mutex_unlock(&e->lock);
		if (was_empty)
			eventfd_write(e->efd, 1);
	}
}

static void psync_cleanup(struct runner *r)
{
	struct psync_eng *e = r->eng_data[ENG_PSYNC];

	if (!e)
		return;
	/* nothing is out: no worker takes a turn again */
	if (e->held)
		pthread_mutex_unlock(&e->run_lock);
	for (unsigned i = 0; i < e->nw; i++) {
		struct worker *w = &e->w[i];
		if (!w->started)
			continue;
		w->stop = true;
		sem_post(&w->go);
		pthread_join(w->th, NULL);
	}
	for (unsigned i = 0; i < e->nw; i++)
		sem_destroy(&e->w[i].go);
	if (e->efd >= 0)
		close(e->efd);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->run_lock);
	free(e->w);
	free(e->of);
	free(e);
	r->eng_data[ENG_PSYNC] = NULL;
}

static int psync_init(struct runner *r, unsigned total_depth, char *err,
		      size_t errlen)
{
	struct psync_eng *e = calloc(1, sizeof(*e));
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_mutexattr_t ma;
	cpu_set_t own;
	int rc = 0;

	if (!e)
		return -ENOMEM;
	e->efd = -1;
	e->r = r;
	pthread_mutex_init(&e->lock, NULL);
	/* adaptive: a worker that finds the lock taken spins a little before
	 * it sleeps, the turns being a few microseconds and a sleeping
	 * thread's wake-up tens of them */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&e->run_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	/* from here to the cleanup the runner's state is the loop's but
	 * while it waits */
	e->turns = r->waiter == &eng_psync_ops;
	if (e->turns) {
		pthread_mutex_lock(&e->run_lock);
		e->held = true;
	}
	r->eng_data[ENG_PSYNC] = e;
	e->w = calloc(r->nstreams, sizeof(*e->w));
	e->of = calloc(r->nstreams, sizeof(*e->of));
	if (!e->w || !e->of)
		return -ENOMEM;
	e->nw = r->nstreams;
	for (unsigned i = 0; i < e->nw; i++) {
		const struct stream *s = &r->streams[i];
		size_t setsize;

		e->w[i].e = e;
		e->w[i].stream = i;
		e->w[i].alike = e->turns && s->eng == &eng_psync_ops &&
				!prio_job_value(s->job) && !place_thread_cpus(s, &setsize);
		e->of[i] = &e->w[i];
		sem_init(&e->w[i].go, 0, 0);
	}
	e->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->efd < 0) {
		rc = -errno;
		snprintf(err, errlen, "psync: eventfd: %s", strerror(errno));
		return rc;
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

static void psync_queue(struct runner *r, struct io *io, uint64_t now_ns)
{
	struct psync_eng *e = r->eng_data[ENG_PSYNC];
	unsigned si = io->s->index;
	struct worker *w = e->of[si], *m = self;

	/* in a turn of a worker that is free: it takes the stream over, and
	 * the stream's worker (free: the stream had nothing out) takes its */
	if (m && m != w && !m->io && m->alike && w->alike) {
		e->of[m->stream] = w;
		w->stream = m->stream;
		e->of[si] = m;
		m->stream = si;
		w = m;
	}
	w->io = io;
	if (w != m)
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
	e->until_ns = until_ns;
	if (e->turns)
		pthread_mutex_unlock(&e->run_lock);
	rc = ppoll(&pfd, 1, tsp, NULL) < 0 && errno != EINTR ? -errno : 0;
	if (e->turns)
		pthread_mutex_lock(&e->run_lock);
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
