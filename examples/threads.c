/* SPDX-License-Identifier: MIT */
/*
 * Many threads, one controller: four threads read 4 KiB at a time, two in
 * /a (weight=300) and two in /b (weight=100), under "/ riops=20000", for
 * one second of the real clock.  Each thread has a lane of its own: it
 * submits, takes its request back when the controller lets it go, reads,
 * and completes it, sleeping on a semaphore of its own when its lane has
 * nothing for it.  A timer thread makes a batch at each time the
 * controller asks to be woken (the requests waiting on the limit).
 * Expect about 20,000 reads in the second, /a with nearly three quarters
 * (each thread has one request: a group whose requests are all out when
 * the tokens for several have accrued gets no more than it asks).
 *
 *   build/examples/threads [FILE]     (default /dev/zero)
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ioqos.h>

#define THREADS 4
#define SPINS   64                      /* looks before a thread sleeps */

static struct ioqos_mt *m;
static int fd;
static uint64_t end_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the timer: a batch at the controller's wake time ---------------------- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;            /* on CLOCK_MONOTONIC */
	bool moved;                     /* a batch moved the wake time earlier */
	bool stop;
} tm = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* called by whichever thread made the batch, with no lock of the library's
 * held: only wake the timer thread */
static void timer_moved(void *arg, uint64_t wake_ns)
{
	(void)arg;
	(void)wake_ns;
	pthread_mutex_lock(&tm.lock);
	tm.moved = true;
	pthread_cond_signal(&tm.cond);
	pthread_mutex_unlock(&tm.lock);
}

static void *timer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&tm.lock);
	while (!tm.stop) {
		uint64_t now = now_ns(), wake;

		tm.moved = false;
		pthread_mutex_unlock(&tm.lock);
		wake = ioqos_mt_run(m, now);
		pthread_mutex_lock(&tm.lock);
		if (tm.moved || tm.stop)
			continue;
		if (wake == UINT64_MAX) {
			pthread_cond_wait(&tm.cond, &tm.lock);
		} else if (wake > now) {
			struct timespec ts = { (time_t)(wake / 1000000000u),
					       (long)(wake % 1000000000u) };

			pthread_cond_timedwait(&tm.cond, &tm.lock, &ts);
		}
	}
	pthread_mutex_unlock(&tm.lock);
	return NULL;
}

/* ---- a reader --------------------------------------------------------------- */

struct reader {
	pthread_t th;
	const char *group;
	uint32_t id;                    /* its group's */
	sem_t sem;                      /* where it sleeps */
	uint64_t reads;
};

/* a lane's wake function: a post that a later sem_wait sees */
static void reader_wake(void *arg)
{
	sem_post(&((struct reader *)arg)->sem);
}

/* its request back from the controller: spin a little, then sleep */
static struct ioqos_req *reader_wait(struct reader *rd, struct ioqos_lane *l)
{
	struct ioqos_req *r;
	int res;

	for (unsigned spins = 0;; spins++) {
		if ((r = ioqos_lane_next(l, now_ns(), &res)) != NULL)
			return res == 0 ? r : NULL;
		if (spins < SPINS)
			continue;
		if (ioqos_lane_sleep(l) == 0)
			while (sem_wait(&rd->sem) && errno == EINTR)
				;
		spins = 0;
	}
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct ioqos_lane *l = ioqos_lane_open(m, 1, reader_wake, rd);
	struct ioqos_req req, *r;
	char buf[4096];

	if (!l)
		return NULL;
	memset(&req, 0, sizeof(req));
	req.bytes = sizeof(buf);
	req.group = rd->id;
	req.dir = IOQOS_READ;
	ioqos_lane_submit(l, &req, now_ns());
	while ((r = reader_wait(rd, l)) != NULL) {
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			perror("pread");
		rd->reads++;
		ioqos_lane_done(l, r, now_ns());
		/* the same request again, until the second is over: with
		 * nothing out, the lane closes */
		if (now_ns() >= end_ns)
			break;
		ioqos_lane_submit(l, r, now_ns());
	}
	ioqos_lane_close(l);
	return NULL;
}

int main(int argc, char **argv)
{
	struct reader rd[THREADS];
	struct ioqos *q = ioqos_new();
	pthread_condattr_t ca;
	pthread_t timer;
	uint64_t total = 0, a = 0;
	char err[256];

	fd = open(argc > 1 ? argv[1] : "/dev/zero", O_RDONLY);
	if (fd < 0 || !q) {
		perror(argc > 1 ? argv[1] : "/dev/zero");
		return 1;
	}
	if (ioqos_set(q, "/", "riops=20000", 0, err, sizeof(err)) < 0 ||
	    ioqos_set(q, "/a", "weight=300", 0, err, sizeof(err)) < 0 ||
	    ioqos_set(q, "/b", "weight=100", 0, err, sizeof(err)) < 0 || !(m = ioqos_mt_new(q))) {
		fprintf(stderr, "threads: %s\n", m ? err : "out of memory");
		return 1;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tm.cond, &ca);
	ioqos_mt_timer(m, timer_moved, NULL);
	pthread_create(&timer, NULL, timer_main, NULL);
	end_ns = now_ns() + 1000000000u;
	for (int i = 0; i < THREADS; i++) {
		rd[i].group = i % 2 ? "/b" : "/a";
		rd[i].id = (uint32_t)ioqos_group(q, rd[i].group);  /* before any lane */
		rd[i].reads = 0;
		sem_init(&rd[i].sem, 0, 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_create(&rd[i].th, NULL, reader_main, &rd[i]);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(rd[i].th, NULL);
		printf("thread %d in %s: %llu reads\n", i, rd[i].group,
		       (unsigned long long)rd[i].reads);
		total += rd[i].reads;
		a += i % 2 ? 0 : rd[i].reads;
		sem_destroy(&rd[i].sem);
	}
	pthread_mutex_lock(&tm.lock);
	tm.stop = true;
	pthread_cond_signal(&tm.cond);
	pthread_mutex_unlock(&tm.lock);
	pthread_join(timer, NULL);
	printf("%llu reads in the second, /a %.1f%%\n", (unsigned long long)total,
	       total ? 100.0 * (double)a / (double)total : 0.0);
	ioqos_mt_free(m);
	ioqos_free(q);
	close(fd);
	return 0;
}
