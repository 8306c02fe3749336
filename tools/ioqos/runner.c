/* SPDX-License-Identifier: MIT */
/*
 * The runner: one event loop for every engine.
 *
 * Each fio job, times numjobs, is a stream: it keeps up to iodepth I/Os of
 * its own, each handed to ioqos_submit() in the job's group.  Whatever
 * ioqos_next() releases is issued to the engine; a completion calls
 * ioqos_done(), is counted, and lets the stream submit its next I/O.
 *
 *        stream ─► ioqos_submit ─► [ controller ] ─► ioqos_next ─► engine
 *          ▲                                                         │
 *          └──────────── complete: ioqos_done, stats, refill ◄───────┘
 *
 * No slot is left empty for longer than the loop takes to see it free:
 * each completion is handled by itself -- ioqos_done(), the stream's
 * refill, then a dispatch (ioqos_next until NULL) whose requests the
 * engine submits at once -- before the next completion of a batch is
 * looked at.  Handling a whole batch of completions first and submitting
 * their successors together left the device short of requests for the
 * length of the batch, and ran a virtio disk 20% below fio at the same
 * iodepth.
 *
 * Only two things differ between engines, and the loop is written so that
 * nothing else does:
 *
 *   - the clock: virtual nanoseconds for sim, CLOCK_MONOTONIC for the rest;
 *   - the backend, a table of operations of its own (struct engine_ops, in
 *     eng_*.c): sim computes a completion time at issue and queues an
 *     event; null completes at once; psync hands the I/O to the stream's
 *     own thread and hears back through an eventfd; io_uring submits an
 *     SQE and reaps CQEs while it waits.
 *
 * Everything that happens at a time -- a stream starting after startdelay,
 * a stream paced by rate=, a runtime ending, a log interval, a sim
 * completion, --redis's global groups taking their leases' limits
 * (ioqos_cluster_tick) -- is an event in one binary heap whose ties break
 * on a sequence number, so a sim run is the same for the same seed.  When
 * there is nothing to do now, the loop waits (real engines: in io_uring,
 * on the eventfd or in a sleep; sim: it jumps) until the earliest of the
 * heap's top and the controller's wake time.
 *
 * Statistics count completions inside a stream's window: from its start
 * plus ramp_time to its runtime end (or its last completion).  Requests
 * still queued in the controller when a stream ends are cancelled; those
 * already issued complete, but are not counted.
 *
 * Stopping, as fio stops: SIGINT or SIGTERM (a second one kills), an I/O
 * error, or the wall-clock limit of --timeout end every stream as if its
 * runtime were over; what is out completes, and the report covers what
 * was done.  A signal while files are laid out stops the layout, and a
 * run that fails before its I/O starts removes the files it created (and
 * cuts those it grew back to their old size).
 */
#include "flow.h"
#include "jobplan.h"
#include "ratemin.h"
#include "runner_int.h"
#include "thinktime.h"
#include "verify.h"

#include <ioqos_cluster.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum ev_kind {
	EV_DONE,        /* sim: an I/O completes (p: struct io) */
	EV_START,       /* a stream starts (idx) */
	EV_PACE,        /* a paced stream may submit again (idx) */
	EV_END,         /* a stream's runtime is over (idx) */
	EV_TICK,        /* a log interval ends */
	EV_RAMP,        /* a stream's ramp_time is over (idx) */
	EV_CLUSTER,     /* --redis: global groups' limits follow their leases */
};

struct event {
	uint64_t t_ns;
	uint64_t seq;             /* ties break in the order events were made */
	void *p;
	uint32_t kind;
	uint32_t idx;
};

static volatile sig_atomic_t got_signal;   /* SIGINT or SIGTERM, 0: none */

static void on_signal(int sig)
{
	got_signal = sig;
	/* a second one ends the program the usual way */
	signal(sig, SIG_DFL);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the event heap --------------------------------------------------- */

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

static int ev_push(struct runner *r, uint64_t t, enum ev_kind kind,
		   uint32_t idx, void *p)
{
	struct event e = { t, r->ev_seq++, p, kind, idx };
	unsigned i;

	if (r->nev == r->capev) {
		unsigned nc = r->capev ? r->capev * 2 : 256;
		struct event *ne = realloc(r->ev, nc * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		r->ev = ne;
		r->capev = nc;
	}
	i = r->nev++;
	while (i) {
		unsigned up = (i - 1) / 2;
		if (!ev_before(&e, &r->ev[up]))
			break;
		r->ev[i] = r->ev[up];
		i = up;
	}
	r->ev[i] = e;
	return 0;
}

static struct event ev_pop(struct runner *r)
{
	struct event top = r->ev[0], last = r->ev[--r->nev];
	unsigned i = 0, n = r->nev;

	for (;;) {
		unsigned l = 2 * i + 1, m = i;
		const struct event *mv = &last;

		if (l < n && ev_before(&r->ev[l], mv)) {
			m = l;
			mv = &r->ev[l];
		}
		if (l + 1 < n && ev_before(&r->ev[l + 1], mv))
			m = l + 1;
		if (m == i)
			break;
		r->ev[i] = r->ev[m];
		i = m;
	}
	if (n)
		r->ev[i] = last;
	return top;
}

/* ---- the device over the stats window --------------------------------- */

/* the window opens: the first stream whose ramp is over */
static void dev_window_start(struct runner *r, uint64_t t)
{
	if (r->dev_started)
		return;
	r->dev_started = true;
	r->dev_start.t_ns = t;
	ioqos_device(r->q, &r->dev_start.d);
}

/* the window may close at @t (a stream's end): keep the device's figures */
static void dev_window_end(struct runner *r, uint64_t t)
{
	if (r->ndev_ends == r->capdev_ends) {
		unsigned nc = r->capdev_ends ? r->capdev_ends * 2 : 16;
		struct devsnap *n = realloc(r->dev_ends, nc * sizeof(*n));
		if (!n)
			return;
		r->dev_ends = n;
		r->capdev_ends = nc;
	}
	r->dev_ends[r->ndev_ends].t_ns = t;
	ioqos_device(r->q, &r->dev_ends[r->ndev_ends++].d);
}

/* requests x ns between two snapshots' clocks, carried to @t0 and @t1:
 * nothing changed since a snapshot that no call to the library saw */
static double inflight_between(const struct ioqos_device *a, uint64_t t0,
			       const struct ioqos_device *b, uint64_t t1)
{
	return (double)(b->inflight_ns - a->inflight_ns) +
	       (double)b->inflight * ((double)t1 - (double)b->clock_ns) -
	       (double)a->inflight * ((double)t0 - (double)a->clock_ns);
}

/* the means over [win_start_ns, win_end_ns]: the end is the last moment
 * kept at or before the window's end (or the first after it) */
static void dev_window(struct runner *r)
{
	uint64_t t0 = r->win_start_ns, t1 = r->win_end_ns;
	const struct devsnap *e = NULL, *after = NULL;
	const struct ioqos_device *a = &r->dev_start.d, *b;
	struct devwin *w = &r->dev;

	memset(w, 0, sizeof(*w));
	for (unsigned i = 0; i < r->ndev_ends; i++) {
		const struct devsnap *c = &r->dev_ends[i];
		if (c->t_ns <= t1 && (!e || c->t_ns > e->t_ns))
			e = c;
		if (c->t_ns > t1 && (!after || c->t_ns < after->t_ns))
			after = c;
	}
	if (!e)
		e = after;
	if (!e || !r->dev_started || t1 <= t0)
		return;
	b = &e->d;
	w->valid = true;
	w->end = *b;
	w->inflight_mean = inflight_between(a, t0, b, t1) / (double)(t1 - t0);
	w->full_pct = 100.0 * (double)(b->full_ns - a->full_ns) / (double)(t1 - t0);
	if (w->full_pct > 100.0)
		w->full_pct = 100.0;
	w->done = b->done - a->done;
	if (w->done)
		w->lat_mean_ns = (double)(b->lat_sum_ns - a->lat_sum_ns) / (double)w->done;
}

/* ---- groups ----------------------------------------------------------- */

void runner_job_group(const struct job *j, char *buf, size_t len)
{
	if (j->cgroup) {
		const char *c = j->cgroup;
		while (*c == '/')
			c++;
		snprintf(buf, len, "/%s", c);
	} else if (j->prio >= 0 || j->cgroup_weight) {
		snprintf(buf, len, "/%s", j->name);
	} else {
		snprintf(buf, len, "/");
	}
}

/* the weight a job asks for its group, 0 for none */
static uint32_t job_weight(const struct job *j)
{
	if (j->cgroup_weight)
		return j->cgroup_weight;
	if (j->prio >= 0)
		return 25u * (8u - (unsigned)j->prio);
	return 0;
}

static int setup_groups(struct runner *r, char *err, size_t errlen)
{
	struct jobset *set = r->set;
	uint32_t *weights;
	uint32_t njob_groups;
	char path[IOQOS_PATH_MAX], e[512];
	int rc;

	/* create every job's group first: a qos path not among them, or their
	 * ancestors, names a group no job uses */
	for (size_t i = 0; i < set->n; i++) {
		runner_job_group(&set->jobs[i], path, sizeof(path));
		rc = ioqos_group(r->q, path);
		if (rc < 0) {
			snprintf(err, errlen, "%s: job '%s': bad group path '%s': %s",
				 set->jobs[i].where, set->jobs[i].name, path,
				 ioqos_strerror(rc));
			return rc;
		}
	}
	njob_groups = ioqos_group_count(r->q);
	weights = calloc(njob_groups, sizeof(*weights));
	if (!weights)
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		const struct job *j = &set->jobs[i];
		uint32_t w = job_weight(j);
		int id;

		if (!w)
			continue;
		runner_job_group(j, path, sizeof(path));
		id = ioqos_group_find(r->q, path);
		if (weights[id] && weights[id] != w) {
			snprintf(err, errlen, "%s: job '%s': group %s is given weight %u "
				 "and weight %u by different jobs", j->where, j->name, path,
				 weights[id], w);
			free(weights);
			return -EINVAL;
		}
		if (!weights[id]) {
			char s[32];
			snprintf(s, sizeof(s), "weight=%u", w);
			rc = ioqos_set(r->q, path, s, r->now_ns, e, sizeof(e));
			if (rc < 0) {
				snprintf(err, errlen, "%s: job '%s': %s", j->where, j->name, e);
				free(weights);
				return rc;
			}
		}
		weights[id] = w;
	}
	free(weights);
	if (r->o->qos_file) {
		rc = r->cl ? ioqos_cluster_load(r->cl, r->o->qos_file, r->now_ns, e, sizeof(e)) :
		     ioqos_load(r->q, r->o->qos_file, r->now_ns, e, sizeof(e));
		if (rc < 0) {
			snprintf(err, errlen, "%s", e);
			return rc;
		}
		if (ioqos_group_count(r->q) > njob_groups) {
			snprintf(err, errlen, "%s: group %s is used by no job", r->o->qos_file,
				 ioqos_group_path(r->q, njob_groups));
			return -EINVAL;
		}
	}

	/* the report's view of the tree */
	r->ngrps = ioqos_group_count(r->q);
	r->grps = calloc(r->ngrps, sizeof(*r->grps));
	if (!r->grps)
		return -ENOMEM;
	for (unsigned g = 0; g < r->ngrps; g++) {
		struct grp *gr = &r->grps[g];
		const char *p = ioqos_group_path(r->q, g);
		char *slash;

		snprintf(gr->path, sizeof(gr->path), "%s", p ? p : "?");
		gr->parent = -1;
		if (g) {
			char pp[IOQOS_PATH_MAX];
			snprintf(pp, sizeof(pp), "%s", gr->path);
			slash = strrchr(pp, '/');
			if (slash == pp)
				pp[1] = '\0';
			else if (slash)
				*slash = '\0';
			gr->parent = ioqos_group_find(r->q, pp);
		}
		ioqos_limits_get(r->q, g, &gr->lim);
	}
	for (size_t i = 0; i < set->n; i++) {
		int g;
		runner_job_group(&set->jobs[i], path, sizeof(path));
		g = ioqos_group_find(r->q, path);
		r->grps[g].has_jobs = true;
		for (int a = g; a >= 0; a = r->grps[a].parent) {
			r->grps[a].used = true;
			if (a != g)
				r->grps[a].has_children = true;
		}
	}
	return 0;
}

/* ---- files and streams ------------------------------------------------ */

/* split "a:b:c" (fio: "\:" is a literal ':') into a list of names */
static int split_names(const char *s, char ***out, unsigned *n)
{
	char **v = NULL, *cur;
	unsigned cnt = 0;
	size_t len = strlen(s), k = 0;

	cur = malloc(len + 1);
	if (!cur)
		return -ENOMEM;
	for (size_t i = 0; i <= len; i++) {
		if (s[i] == '\\' && s[i + 1] == ':') {
			cur[k++] = ':';
			i++;
			continue;
		}
		if (s[i] == ':' || s[i] == '\0') {
			char **nv;
			if (!k)
				continue;
			cur[k] = '\0';
			nv = realloc(v, (cnt + 1) * sizeof(*v));
			if (!nv || !(nv[cnt] = strdup(cur))) {
				free(nv ? nv : v);
				free(cur);
				return -ENOMEM;
			}
			v = nv;
			cnt++;
			k = 0;
			continue;
		}
		cur[k++] = s[i];
	}
	free(cur);
	*out = v;
	*n = cnt;
	return 0;
}

static struct rfile *file_get(struct runner *r, const char *path, bool direct)
{
	for (unsigned i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i].path, path))
			return &r->files[i];
	return NULL;
}

/* stream files are pointers into r->files, which must not move: count
 * first, then allocate once */
static int plan_files(struct runner *r, char *err, size_t errlen)
{
	unsigned cap = 0;
	char name[4096];

	for (size_t i = 0; i < r->set->n; i++) {
		const struct job *j = &r->set->jobs[i];
		if (j->filename) {
			char **names;
			unsigned n;
			if (split_names(j->filename, &names, &n))
				return -ENOMEM;
			cap += n;
			for (unsigned k = 0; k < n; k++)
				free(names[k]);
			free(names);
		} else {
			cap += j->numjobs * j->nrfiles;
		}
	}
	r->files = calloc(cap ? cap : 1, sizeof(*r->files));
	if (!r->files)
		return -ENOMEM;

	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		const struct job *j = s->job;
		char **names = NULL;
		unsigned n = 0;

		if (j->filename) {
			if (split_names(j->filename, &names, &n))
				return -ENOMEM;
			if (!n) {
				snprintf(err, errlen, "%s: job '%s': empty filename=", j->where,
					 j->name);
				free(names);
				return -EINVAL;
			}
		} else {
			names = calloc(j->nrfiles, sizeof(*names));
			if (!names)
				return -ENOMEM;
			for (n = 0; n < j->nrfiles; n++)
				if (job_file_name(j, s->clone, n, name, sizeof(name)) ||
				    !(names[n] = strdup(name))) {
					while (n--)
						free(names[n]);
					free(names);
					return -ENOMEM;
				}
		}
		s->files = calloc(n, sizeof(*s->files));
		s->seq_pos = calloc(n, sizeof(*s->seq_pos));
		s->map_x = calloc(n, sizeof(*s->map_x));
		if (!s->files || !s->seq_pos || !s->map_x)
			return -ENOMEM;
		s->nfiles = n;
		for (unsigned k = 0; k < n; k++) {
			struct rfile *f;
			if (j->directory && names[k][0] != '/')
				snprintf(name, sizeof(name), "%s/%s", j->directory, names[k]);
			else
				snprintf(name, sizeof(name), "%s", names[k]);
			f = file_get(r, name, j->direct);
			if (!f) {
				f = &r->files[r->nfiles++];
				f->path = strdup(name);
				f->fd = -1;
				f->direct = j->direct;
				if (!f->path)
					return -ENOMEM;
			}
			s->files[k] = f;
			free(names[k]);
		}
		free(names);
	}
	return 0;
}

/* open a real file, find its size (block devices too) */
static int open_file(struct runner *r, struct rfile *f, bool writes, char *err,
		     size_t errlen)
{
	struct stat st;
	int flags = O_CLOEXEC | (f->direct ? O_DIRECT : 0);
	bool exists = stat(f->path, &st) == 0;

	if (exists && S_ISBLK(st.st_mode)) {
		f->is_blk = true;
		f->fd = open(f->path, flags | (writes ? O_RDWR : O_RDONLY));
	} else if (exists && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file or block device", f->path);
		return -EINVAL;
	} else if (!exists && !f->need) {
		/* nothing to lay it out to: never create an empty file (a
		 * missing /dev/sdX would become one) */
		snprintf(err, errlen, "%s: size= is needed: the file is missing", f->path);
		return -ENOENT;
	} else {
		/* a regular file is laid out when missing or too small, so it is
		 * opened for writing whenever that may be needed */
		bool grow = !exists || (uint64_t)st.st_size < f->need;
		f->fd = open(f->path, flags | ((writes || grow) ? O_RDWR : O_RDONLY) |
			     (grow ? O_CREAT : 0), 0644);
		if (f->fd >= 0 && grow) {
			f->created = !exists;
			f->grown = exists;
			f->old_size = exists ? (uint64_t)st.st_size : 0;
		}
	}
	if (f->fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(e));
		return -e;
	}
	if (f->is_blk) {
		uint64_t sz = 0;
		if (ioctl(f->fd, BLKGETSIZE64, &sz)) {
			int e = errno;
			snprintf(err, errlen, "%s: size: %s", f->path, strerror(e));
			return -e;
		}
		f->size = sz;
	} else {
		if (fstat(f->fd, &st)) {
			int e = errno;
			snprintf(err, errlen, "%s: %s", f->path, strerror(e));
			return -e;
		}
		f->size = (uint64_t)st.st_size;
	}
	(void)r;
	return 0;
}

/* write a regular file out to f->need bytes, as fio lays out its files:
 * real data, so that reads touch the device and not holes */
static int layout_file(struct rfile *f, char *err, size_t errlen)
{
	const size_t chunk = 1 << 20;
	void *buf;
	uint64_t pos = f->size & ~(uint64_t)4095;
	int fd;

	if (f->is_blk || f->size >= f->need)
		return 0;
	/* buffered, whatever the job's direct=: layout is not measured */
	fd = open(f->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(e));
		return -e;
	}
	buf = malloc(chunk);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < chunk; i++)
		((unsigned char *)buf)[i] = (unsigned char)(i * 131 + 7);
	while (pos < f->need) {
		size_t n = f->need - pos < chunk ? (size_t)(f->need - pos) : chunk;
		ssize_t w;

		if (got_signal) {
			snprintf(err, errlen, "%s: laying out stopped by %s", f->path,
				 signal_name(got_signal));
			free(buf);
			close(fd);
			return -EINTR;
		}
		w = pwrite(fd, buf, n, (off_t)pos);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			snprintf(err, errlen, "%s: laying out %" PRIu64 " bytes: %s", f->path,
				 f->need, strerror(e));
			free(buf);
			close(fd);
			return -e;
		}
		pos += (uint64_t)w;
	}
	free(buf);
	if (fsync(fd)) {
		int e = errno;
		snprintf(err, errlen, "%s: fsync: %s", f->path, strerror(e));
		close(fd);
		return -e;
	}
	close(fd);
	if (got_signal) {
		snprintf(err, errlen, "%s: laying out stopped by %s", f->path,
			 signal_name(got_signal));
		return -EINTR;
	}
	f->size = f->need;
	return 0;
}

/* the run failed before its I/O: take back what it did to the files */
static void undo_files(struct runner *r)
{
	for (unsigned i = 0; i < r->nfiles; i++) {
		struct rfile *f = &r->files[i];

		if (f->created)
			unlink(f->path);
		else if (f->grown && f->fd >= 0 && ftruncate(f->fd, (off_t)f->old_size))
			fprintf(stderr, "ioqos: %s: cannot cut it back to %" PRIu64
				" bytes: %s\n", f->path, f->old_size, strerror(errno));
	}
}

static bool job_random(const struct job *j)
{
	return j->rw == RW_RANDREAD || j->rw == RW_RANDWRITE || j->rw == RW_RANDRW;
}

/* the unit of offsets (blockalign or the smallest bs) */
static uint64_t job_min_bs(const struct job *j)
{
	return job_align(j, job_reads(j), job_writes(j));
}

static uint64_t job_max_bs(const struct job *j)
{
	bool rd = job_reads(j), wr = job_writes(j);
	uint64_t r = job_bs_high(j, 0), w = job_bs_high(j, 1);

	if (rd && wr)
		return r > w ? r : w;
	return wr ? w : r;
}

/*
 * Size each stream's region: fio's rules.  size= is the I/O of one clone,
 * divided among its files; filesize= is each file's size; with neither,
 * an existing file's (or the sim device's) size, less offset=.
 */
static int plan_sizes(struct runner *r, char *err, size_t errlen)
{
	bool real = r->eng->flags & ENG_F_FILES;

	/* what each file must hold */
	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		const struct job *j = s->job;
		uint64_t per = 0;

		if (j->filesize)
			per = j->filesize;
		else if (j->size)
			per = (j->size + s->nfiles - 1) / s->nfiles;
		for (unsigned k = 0; k < s->nfiles; k++)
			if (per && s->offset + per > s->files[k]->need)
				s->files[k]->need = s->offset + per;
	}
	if (real) {
		for (unsigned i = 0; i < r->nfiles; i++) {
			struct rfile *f = &r->files[i];
			bool writes = false;
			int rc;

			for (unsigned si = 0; si < r->nstreams; si++)
				for (unsigned k = 0; k < r->streams[si].nfiles; k++)
					if (r->streams[si].files[k] == f &&
					    job_writes(r->streams[si].job))
						writes = true;
			rc = open_file(r, f, writes, err, errlen);
			if (rc)
				return rc;
			if (f->is_blk && f->need > f->size) {
				snprintf(err, errlen, "%s: the jobs need %" PRIu64
					 " bytes, the device holds %" PRIu64, f->path, f->need,
					 f->size);
				return -EINVAL;
			}
			if (!f->is_blk && f->need == 0 && f->size == 0) {
				snprintf(err, errlen, "%s: size= is needed: the file is empty or "
					 "missing", f->path);
				return -EINVAL;
			}
			rc = layout_file(f, err, errlen);
			if (rc)
				return rc;
		}
	} else {
		uint64_t base = 0;
		for (unsigned i = 0; i < r->nfiles; i++) {
			struct rfile *f = &r->files[i];
			if (!f->need)
				f->need = r->dev_bytes;
			f->size = f->need;
			f->base = base;
			base += (f->size + 4095) & ~(uint64_t)4095;
		}
	}
	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		const struct job *j = s->job;
		uint64_t fsz = UINT64_MAX, len, minbs = job_min_bs(j),
			 maxbs = job_max_bs(j);

		for (unsigned k = 0; k < s->nfiles; k++)
			if (s->files[k]->size < fsz)
				fsz = s->files[k]->size;
		if (s->offset >= fsz && fsz) {
			snprintf(err, errlen, "%s: job '%s': offset=%" PRIu64 " is past the "
				 "end of %s (%" PRIu64 " bytes)", j->where, j->name, s->offset,
				 s->files[0]->path, fsz);
			return -EINVAL;
		}
		if (j->filesize)
			len = j->filesize;
		else if (j->size)
			len = (j->size + s->nfiles - 1) / s->nfiles;
		else if (fsz > s->offset)
			len = fsz - s->offset;
		else
			len = 0;
		if (!len) {
			snprintf(err, errlen, "%s: job '%s': size= is needed%s", j->where,
				 j->name, r->engine == ENG_NULL ? " with the null engine" : "");
			return -EINVAL;
		}
		if (s->offset + len > fsz) {
			snprintf(err, errlen, "%s: job '%s': offset=%" PRIu64 " + %" PRIu64
				 " bytes is past the end of %s (%" PRIu64 " bytes)", j->where,
				 j->name, s->offset, len, s->files[0]->path, fsz);
			return -EINVAL;
		}
		if (maxbs > len) {
			snprintf(err, errlen, "%s: job '%s': bs=%" PRIu64 " is larger than "
				 "the %" PRIu64 " bytes of each file", j->where, j->name, maxbs,
				 len);
			return -EINVAL;
		}
		s->region_len = len;
		s->io_size = job_io_bytes(j, j->size ? j->size : len * s->nfiles);
		s->nblocks = (len - maxbs) / minbs + 1;
		/* the random map: an LCG over the next power of two, full period
		 * (odd increment, multiplier 1 mod 4), scrambled by a bijection */
		s->map_mask = 1;
		while (s->map_mask < s->nblocks)
			s->map_mask <<= 1;
		s->map_mask -= 1;
		s->map_add = (rng_next(&s->rng) | 1) & s->map_mask;
		s->map_mul = rng_next(&s->rng) | 1;
		for (unsigned k = 0; k < s->nfiles; k++) {
			s->map_x[k] = rng_next(&s->rng) & s->map_mask;
			s->seq_pos[k] = 0;
		}
	}
	return 0;
}

static int make_streams(struct runner *r, char *err, size_t errlen)
{
	unsigned n = 0, phase = 0;
	char path[IOQOS_PATH_MAX];

	for (size_t i = 0; i < r->set->n; i++)
		n += r->set->jobs[i].numjobs;
	r->streams = calloc(n, sizeof(*r->streams));
	if (!r->streams)
		return -ENOMEM;
	r->nstreams = n;
	n = 0;
	for (size_t i = 0; i < r->set->n; i++) {
		struct job *j = &r->set->jobs[i];
		uint64_t seed;

		if (i > 0 && j->stonewall)
			phase++;
		runner_job_group(j, path, sizeof(path));
		for (unsigned c = 0; c < j->numjobs; c++, n++) {
			struct stream *s = &r->streams[n];

			s->job = j;
			s->clone = c;
			s->index = n;
			s->phase = phase;
			s->group = (uint32_t)ioqos_group_find(r->q, path);
			s->depth = j->iodepth;
			if (r->eng->stream_depth && s->depth > r->eng->stream_depth)
				s->depth = r->eng->stream_depth;
			s->next_dir = -1;
			s->end_ns = UINT64_MAX;
			/* fio's offset_increment: each clone further in */
			s->offset = j->offset + c * j->offset_increment;
			/* the seed: randseed= if given, else --seed; then the job and
			 * the clone, so clones differ and reruns repeat */
			seed = job_isset(j, JO_RANDSEED) ? j->randseed : r->o->seed;
			if (!j->randrepeat)
				seed ^= mono_ns();
			seed = seed * 0x9e3779b97f4a7c15ull + i * 0x632be59bd9b4e019ull + c;
			rng_seed(&s->rng, seed);
		}
	}
	r->nphases = phase + 1;
	(void)err;
	(void)errlen;
	return 0;
}

/*
 * The buffers of every I/O in flight against the machine's memory, before
 * any file is laid out: refused with the figures rather than left to the
 * OOM killer half-way
 */
static int check_buffers(struct runner *r, char *err, size_t errlen)
{
	bool real = r->eng->flags & ENG_F_FILES;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	unsigned __int128 need = 0;

	for (unsigned si = 0; real && si < r->nstreams; si++)
		need += (unsigned __int128)r->streams[si].depth *
			job_max_bs(r->streams[si].job);
	if (pages > 0 && psz > 0 && need > (unsigned __int128)pages * (uint64_t)psz) {
		snprintf(err, errlen, "the I/O buffers (numjobs x iodepth x bs) take "
			 "%" PRIu64 " MiB, more than the %" PRIu64 " MiB of memory",
			 (uint64_t)(need >> 20), ((uint64_t)pages * (uint64_t)psz) >> 20);
		return -ENOMEM;
	}
	return 0;
}

static int alloc_ios(struct runner *r, char *err, size_t errlen)
{
	bool real = r->eng->flags & ENG_F_FILES;

	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		uint64_t maxbs = job_max_bs(s->job);

		s->ios = calloc(s->depth, sizeof(*s->ios));
		if (!s->ios)
			return -ENOMEM;
		for (unsigned k = 0; k < s->depth; k++) {
			struct io *io = &s->ios[k];
			io->s = s;
			if (real) {
				if (posix_memalign(&io->buf, 4096, maxbs)) {
					snprintf(err, errlen, "out of memory for I/O buffers");
					return -ENOMEM;
				}
				job_fill_buffer(s->job, io->buf, maxbs, k);
			}
			io->next = s->free;
			s->free = io;
		}
	}
	return 0;
}

/* ---- streams at work -------------------------------------------------- */

static void stream_finish(struct runner *r, struct stream *s);

static void stream_start(struct runner *r, struct stream *s, uint64_t now)
{
	const struct job *j = s->job;

	s->started = true;
	s->start_ns = now;
	s->stats_start_ns = now + j->ramp_ns;
	s->rate_next_ns[0] = s->rate_next_ns[1] = now;
	if (j->runtime_ns) {
		s->end_ns = now + j->ramp_ns + j->runtime_ns;
		ev_push(r, s->end_ns, EV_END, s->index, NULL);
	}
	if (j->ramp_ns)
		ev_push(r, s->stats_start_ns, EV_RAMP, s->index, NULL);
	else
		dev_window_start(r, now);
	r->active++;
	if (s->flow)
		flow_join(s);
	if (s->rmin)
		ratemin_start(s, now);
}

/* the next offset in file k for an I/O of len bytes */
static uint64_t next_offset(struct stream *s, unsigned k, uint64_t len)
{
	const struct job *j = s->job;
	uint64_t minbs = job_min_bs(j), b;

	if (!job_random(j))
		return s->offset + job_seq_next(j, &s->seq_pos[k], len, s->region_len);
	/* rw=randread:N: N I/Os from each new random offset */
	if (s->rand_left && s->rand_next + len <= s->region_len) {
		s->rand_left--;
		s->rand_next += len;
		return s->offset + s->rand_next - len;
	}
	if (j->dist != DIST_RANDOM) {
		b = job_rand_block(j, &s->rng, s->nblocks);
	} else if (j->norandommap) {
		b = rng_below(&s->rng, s->nblocks);
	} else {
		/* every block once per pass: a full-period LCG over 2^k values,
		 * scrambled by an invertible mix, values past nblocks skipped */
		do {
			uint64_t x = s->map_x[k] = (s->map_x[k] * 5 + s->map_add) & s->map_mask;
			x = (x * s->map_mul) & s->map_mask;
			x ^= x >> ((64 - __builtin_clzll(s->map_mask | 1) + 1) / 2);
			b = x;
		} while (b >= s->nblocks);
	}
	if (j->rw_mod > 1) {
		s->rand_left = j->rw_mod - 1;
		s->rand_next = b * minbs + len;
	}
	return s->offset + b * minbs;
}

static unsigned pick_file(struct stream *s)
{
	const struct job *j = s->job;

	if (s->nfiles == 1)
		return 0;
	if (s->file_left == 0) {
		switch (j->fst) {
		case FST_RANDOM:
			s->cur_file = (unsigned)rng_below(&s->rng, s->nfiles);
			s->file_left = j->fst_n;
			break;
		case FST_ROUNDROBIN:
			s->cur_file = (s->cur_file + 1) % s->nfiles;
			s->file_left = j->fst_n;
			break;
		case FST_SEQUENTIAL:
			/* a file's share of the size, then the next */
			s->cur_file = (s->cur_file + 1) % s->nfiles;
			s->file_left = (unsigned)((s->region_len / job_min_bs(j)) ?
						  s->region_len / job_min_bs(j) : 1);
			break;
		}
	}
	s->file_left--;
	return s->cur_file;
}

/* stop taking new I/O: take back what the controller still holds */
static void stream_stop(struct runner *r, struct stream *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	for (unsigned k = 0; k < s->depth; k++) {
		struct io *io = &s->ios[k];
		if (io->state == IO_QUEUED && ioqos_cancel(r->q, &io->qr) == 0) {
			io->state = IO_FREE;
			io->next = s->free;
			s->free = io;
			s->busy--;
		}
	}
	if (!s->busy)
		stream_finish(r, s);
}

static void start_phase(struct runner *r, uint64_t now);
static void start_ready(struct runner *r, const struct job *ended, uint64_t now);

/* stop @s now, as if its runtime were over; one that never started has
 * nothing to count */
static void stream_stop_now(struct runner *r, struct stream *s)
{
	if (!s->started) {
		s->started = true;
		s->start_ns = s->stats_start_ns = r->now_ns;
		r->active++;
	}
	if (s->end_ns > r->now_ns)
		s->end_ns = r->now_ns;
	stream_stop(r, s);
}

/*
 * fio's exitall: once any job sets it, every job that ends stops others,
 * by its own exit_what: those of its reporting group (group, the
 * default, also those not started yet), those running (stonewall: the
 * next stonewall phase then starts), or all, started or not.  The
 * streams to stop are picked before any is stopped, so that a phase
 * started by their end is not caught.
 */
static void exit_others(struct runner *r, struct stream *s)
{
	unsigned what = s->job->exit_what, n = 0;
	unsigned *pick = calloc(r->nstreams, sizeof(*pick));

	if (!pick)
		return;
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *o = &r->streams[i];

		if (o->done || o == s || (what == EXIT_STONEWALL && !o->started) ||
		    (what == EXIT_GROUP && o->job->groupid != s->job->groupid))
			continue;
		pick[n++] = i;
	}
	for (unsigned k = 0; k < n; k++) {
		struct stream *o = &r->streams[pick[k]];

		if (!o->done)
			stream_stop_now(r, o);
	}
	free(pick);
}

static void stream_finish(struct runner *r, struct stream *s)
{
	if (s->done)
		return;
	s->done = true;
	r->active--;
	r->left--;
	if (s->flow)
		flow_leave(r, s);
	if (r->exitall)
		exit_others(r, s);
	/* wait_for=: the jobs waiting for this one may start */
	if (!r->stopped && s->phase == r->phase)
		start_ready(r, s->job, r->now_ns);
	dev_window_end(r, r->now_ns);
	if (r->end_ns < r->now_ns)
		r->end_ns = r->now_ns;
	/* the next stonewall phase starts when this one is over */
	if (r->left) {
		bool phase_done = true;
		for (unsigned i = 0; i < r->nstreams; i++)
			if (r->streams[i].phase == r->phase && !r->streams[i].done)
				phase_done = false;
		if (phase_done && r->phase + 1 < r->nphases) {
			r->phase++;
			start_phase(r, r->now_ns);
		}
	}
}

/* submit the stream's next I/Os until its depth is full, it is paced, or
 * it has nothing more to do */
static void stream_fill(struct runner *r, struct stream *s, uint64_t now)
{
	const struct job *j = s->job;

	if (!s->started || s->stopping || s->done)
		return;
	while (s->free) {
		struct io *io;
		unsigned dir, k;
		uint64_t len = 0;
		enum vfy_next vn;
		bool all;

		if (now >= s->end_ns) {
			stream_stop(r, s);
			return;
		}
		/* verify_only's dry writes take no time: they end at io_size */
		all = ((!j->time_based || j->verify_only) && s->issued_bytes >= s->io_size) ||
		      (j->number_ios && s->issued_ios >= j->number_ios);
		/* verify=: a read back of a block written before, or a wait */
		vn = verify_next(s, all, &len);
		if (vn == VN_WAIT)
			return;
		if (vn == VN_OWN && all) {
			/* a stall after the last I/O is part of the job, as in fio */
			if (!s->busy && (!s->think || think_pass(r, s, now)))
				stream_finish(r, s);
			return;
		}
		if (vn == VN_READ)
			dir = IOQOS_READ;
		else if (s->next_dir >= 0)
			dir = (unsigned)s->next_dir;
		else if (j->rw == RW_RW || j->rw == RW_RANDRW)
			dir = rng_below(&s->rng, 100) < j->rwmixread ? IOQOS_READ : IOQOS_WRITE;
		else
			dir = job_writes(j) ? IOQOS_WRITE : IOQOS_READ;
		if (vn != VN_READ)
			len = job_next_bs(j, &s->rng, dir);
		if (vn == VN_OWN && dir == IOQOS_WRITE && j->verify_only) {
			/* verify_only: the write is drawn and logged, not issued */
			io = s->free;
			k = pick_file(s);
			io->file = (uint16_t)k;
			io->len = (uint32_t)len;
			io->off = next_offset(s, k, len);
			verify_dry(r, s, io);
			s->issued_bytes += len;
			s->issued_ios++;
			continue;
		}
		/* thinktime=: a stall after its I/Os */
		if (s->think && vn == VN_OWN && !think_pass(r, s, now))
			return;
		/* flow=: held back while ahead of its share of the flow */
		if (s->flow && !flow_pass(r, s, now))
			return;
		if (j->rate[dir] || j->rate_iops[dir]) {
			uint64_t iv = 0, t;
			if (now < s->rate_next_ns[dir]) {
				s->next_dir = vn == VN_READ ? -1 : (int)dir;
				if (!s->timer_armed) {
					s->timer_armed = true;
					ev_push(r, s->rate_next_ns[dir], EV_PACE, s->index, NULL);
				}
				return;
			}
			if (j->rate[dir])
				iv = (uint64_t)((unsigned __int128)len * 1000000000u / j->rate[dir]);
			if (j->rate_iops[dir]) {
				t = 1000000000u / j->rate_iops[dir];
				if (t > iv)
					iv = t;
			}
			/* one interval of catch-up at most: a late timer costs
			 * nothing, an idle stream earns no burst */
			if (s->rate_next_ns[dir] + iv < now)
				s->rate_next_ns[dir] = now - iv;
			s->rate_next_ns[dir] += iv;
		}
		s->next_dir = -1;
		io = s->free;
		s->free = io->next;
		io->dir = (uint8_t)dir;
		io->len = (uint32_t)len;
		if (vn == VN_READ) {
			verify_take(s, io);
		} else {
			k = pick_file(s);
			io->file = (uint16_t)k;
			io->off = next_offset(s, k, len);
			s->issued_bytes += len;
			s->issued_ios++;
		}
		if (s->vfy && dir == IOQOS_WRITE)
			verify_fill(s, io, now);
		if (s->flow)
			flow_issued(s);
		io->state = IO_QUEUED;
		io->submit_ns = now;
		io->res = 0;
		io->done_ns = 0;
		memset(&io->qr, 0, sizeof(io->qr));
		io->qr.bytes = len;
		io->qr.group = s->group;
		io->qr.dir = (uint8_t)dir;
		io->qr.data = io;
		s->busy++;
		jobstat_submit(&s->js, s->busy, now);
		ioqos_submit(r->q, &io->qr, now);
		if (s->think && vn == VN_OWN)
			think_issued(r, s, now);
	}
}

/* wait_for=: is every stream of the job this one waits for done? */
static bool waitee_done(const struct runner *r, const struct stream *s)
{
	const struct job *w;

	if (s->job->wait_idx < 0)
		return true;
	w = &r->set->jobs[s->job->wait_idx];
	for (unsigned i = 0; i < r->nstreams; i++)
		if (r->streams[i].job == w && !r->streams[i].done)
			return false;
	return true;
}

/* start the streams of the current phase that may start: all of them
 * when the phase begins, those waiting for @ended's job when it ends */
static void start_ready(struct runner *r, const struct job *ended, uint64_t now)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		if (s->phase != r->phase || s->done || s->started || s->start_queued)
			continue;
		if ((ended && s->job->wait_idx != (int)(ended - r->set->jobs)) ||
		    !waitee_done(r, s))
			continue;
		s->start_queued = true;
		if (s->job->startdelay_ns) {
			ev_push(r, now + s->job->startdelay_ns, EV_START, s->index, NULL);
		} else {
			stream_start(r, s, now);
			stream_fill(r, s, now);
		}
	}
}

static void start_phase(struct runner *r, uint64_t now)
{
	start_ready(r, NULL, now);
}

static void stop_all(struct runner *r)
{
	r->stopped = true;
	dev_window_end(r, r->now_ns);
	for (unsigned i = 0; i < r->nstreams; i++) {
		if (!r->streams[i].done)
			stream_stop_now(r, &r->streams[i]);
	}
}

void runner_io_done(struct runner *r, struct io *io)
{
	io->next = NULL;
	if (!r->done_list)
		r->done_list = io;
	else
		r->done_tail->next = io;
	r->done_tail = io;
}

int runner_io_done_at(struct runner *r, struct io *io, uint64_t t_ns)
{
	return ev_push(r, t_ns, EV_DONE, 0, io);
}

int runner_wake(struct runner *r, struct stream *s, uint64_t t_ns)
{
	return ev_push(r, t_ns, EV_PACE, s->index, NULL);
}

int runner_sleep(struct runner *r, uint64_t until_ns)
{
	struct timespec ts;

	if (until_ns == UINT64_MAX || until_ns <= mono_ns())
		return 0;
	ts.tv_sec = (time_t)(until_ns / 1000000000ull);
	ts.tv_nsec = (long)(until_ns % 1000000000ull);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return 0;
}

static void issue(struct runner *r, struct io *io, uint64_t now)
{
	io->state = IO_ISSUED;
	io->issue_ns = now;
	r->outstanding++;
	r->eng->queue(r, io, now);
}

/*
 * Issue whatever the controller releases and send it to the device at
 * once: a slot that frees is filled before anything else is done, so the
 * device never waits on the loop (the engine's commit is its submit).
 * Returns the controller's wake time.
 */
static uint64_t dispatch(struct runner *r, uint64_t now)
{
	uint64_t wake = UINT64_MAX;
	struct ioqos_req *q;
	bool any = false;

	while ((q = ioqos_next(r->q, now, &wake)) != NULL) {
		issue(r, q->data, now);
		any = true;
	}
	if (any && r->eng->commit) {
		int rc = r->eng->commit(r);
		if (rc < 0 && !r->error) {
			r->error = rc;
			snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s", r->eng->name,
				 strerror(-rc));
		}
	}
	return wake;
}

/*
 * An I/O has completed at @now: the controller is told, the figures
 * counted, the stream refilled, and the freed slot given to the next
 * request at once, before the next completion is looked at.
 */
static void complete(struct runner *r, struct io *io, uint64_t now)
{
	struct stream *s = io->s;
	unsigned dir = io->dir;
	uint64_t t = now;

	/* an engine that knows when the I/O ended (a thread of its own) says
	 * so: the latency is the device's, not the hand-over's */
	if (io->done_ns && io->done_ns < now)
		t = io->done_ns;
	ioqos_done(r->q, &io->qr, now);
	if (io->res != (int32_t)io->len && !r->error) {
		struct rfile *f = s->files[io->file];
		r->error = io->res < 0 ? io->res : -EIO;
		snprintf(r->errmsg, sizeof(r->errmsg), "job '%s': %s of %u bytes at "
			 "offset %" PRIu64 " of %s: %s", s->job->name,
			 dir ? "write" : "read", io->len, io->off, f->path,
			 io->res < 0 ? strerror(-io->res) : "short transfer");
	}
	if (s->vfy)
		verify_done(r, s, io);
	if (t >= s->stats_start_ns && t <= s->end_ns && io->res >= 0) {
		struct grp *g = &r->grps[s->group];
		jobstat_done(&s->js, s->job, &s->st[dir], dir, s->stats_start_ns,
			     io->submit_ns, io->issue_ns, t, io->len, io->res);
		g->bytes[dir] += io->len;
		g->ios[dir]++;
		if (s->last_done_ns < t)
			s->last_done_ns = t;
	}
	if (s->rmin && io->res >= 0)
		ratemin_done(r, s, io, t);
	if (t <= s->end_ns) {
		r->grps[s->group].iv_bytes[dir] += io->len;
		r->grps[s->group].iv_ios[dir]++;
	}
	r->outstanding--;
	io->state = IO_FREE;
	io->next = s->free;
	s->free = io;
	s->busy--;
	if (s->stopping) {
		if (!s->busy)
			stream_finish(r, s);
	} else {
		stream_fill(r, s, now);
	}
	dispatch(r, now);
}

/* close a log interval: one row per used group, its subtree's figures */
static int tick(struct runner *r, uint64_t t)
{
	uint64_t (*tb)[4] = calloc(r->ngrps, sizeof(*tb));
	struct ioqos_device dev;

	if (!tb)
		return -ENOMEM;
	/* the device as the interval ends: the same on every group's row */
	ioqos_device(r->q, &dev);
	for (unsigned g = 0; g < r->ngrps; g++) {
		for (int a = (int)g; a >= 0; a = r->grps[a].parent) {
			tb[a][0] += r->grps[g].iv_bytes[0];
			tb[a][1] += r->grps[g].iv_bytes[1];
			tb[a][2] += r->grps[g].iv_ios[0];
			tb[a][3] += r->grps[g].iv_ios[1];
		}
		memset(r->grps[g].iv_bytes, 0, sizeof(r->grps[g].iv_bytes));
		memset(r->grps[g].iv_ios, 0, sizeof(r->grps[g].iv_ios));
	}
	for (unsigned g = 0; g < r->ngrps; g++) {
		struct iv_row *row;
		if (!r->grps[g].used)
			continue;
		if (r->nrows == r->caprows) {
			size_t nc = r->caprows ? r->caprows * 2 : 1024;
			struct iv_row *nr = realloc(r->rows, nc * sizeof(*nr));
			if (!nr) {
				free(tb);
				return -ENOMEM;
			}
			r->rows = nr;
			r->caprows = nc;
		}
		row = &r->rows[r->nrows++];
		row->t_ns = t - r->t0_ns;
		row->group = g;
		row->bytes[0] = tb[g][0];
		row->bytes[1] = tb[g][1];
		row->ios[0] = tb[g][2];
		row->ios[1] = tb[g][3];
		row->depth = dev.depth;
		row->depth_found = dev.depth_found;
	}
	free(tb);
	return 0;
}

static void handle_event(struct runner *r, const struct event *e)
{
	struct stream *s = e->kind == EV_DONE ? NULL : &r->streams[e->idx];

	switch (e->kind) {
	case EV_DONE:
		complete(r, e->p, e->t_ns);
		break;
	case EV_START:
		if (!s->started && !r->stopped) {
			stream_start(r, s, e->t_ns);
			stream_fill(r, s, e->t_ns);
		}
		break;
	case EV_PACE:
		s->timer_armed = false;
		stream_fill(r, s, e->t_ns);
		break;
	case EV_END:
		dev_window_end(r, e->t_ns);
		if (!s->done)
			stream_stop(r, s);
		break;
	case EV_RAMP:
		dev_window_start(r, e->t_ns);
		break;
	case EV_TICK:
		tick(r, e->t_ns);
		if (r->left)
			ev_push(r, e->t_ns + r->iv_ns, EV_TICK, 0, NULL);
		break;
	case EV_CLUSTER:
		if (r->left)
			ev_push(r, ioqos_cluster_tick(r->cl, r->now_ns), EV_CLUSTER, 0, NULL);
		break;
	}
}

static void progress(struct runner *r, bool final)
{
	uint64_t wall = mono_ns();
	char line[1024];

	if (final) {
		if (r->progress_shown)
			fputs("\r\033[K", stderr);
		return;
	}
	if (wall < r->next_progress_ns)
		return;
	r->next_progress_ns = wall + 1000000000ull;
	if (wall - r->wall_start_ns < 2000000000ull)
		return;
	progress_format(r, line, sizeof(line), progress_width(STDERR_FILENO));
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	r->progress_shown = true;
}

static uint64_t run_clock(struct runner *r)
{
	return r->eng->flags & ENG_F_VIRTUAL ? r->now_ns : mono_ns();
}

/* the run cannot go on: nothing is out and nothing waits on time */
static void stalled(struct runner *r)
{
	if (r->eng->flags & ENG_F_VIRTUAL)
		snprintf(r->errmsg, sizeof(r->errmsg), "the run stalled at %.6fs with %"
			 PRIu64 " requests held by the controller",
			 (double)(r->now_ns - r->t0_ns) / 1e9, ioqos_queued(r->q));
	else
		snprintf(r->errmsg, sizeof(r->errmsg), "the run stalled with %" PRIu64
			 " requests held by the controller", ioqos_queued(r->q));
	r->error = -EDEADLK;
	stop_all(r);
}

/* --timeout: has the wall-clock limit passed?  (sim: looked at now and
 * then, the clock being virtual) */
static bool deadline_passed(struct runner *r)
{
	if (!r->deadline_ns)
		return false;
	if (!(r->eng->flags & ENG_F_VIRTUAL))
		return r->now_ns >= r->deadline_ns;
	return !(r->events & 255) && mono_ns() >= r->deadline_ns;
}

static int loop(struct runner *r)
{
	const struct engine_ops *e = r->eng;
	bool virt = e->flags & ENG_F_VIRTUAL;

	r->now_ns = run_clock(r);
	start_phase(r, r->now_ns);
	while (r->left) {
		struct io *io;
		uint64_t wake, next;

		if (!r->stopped && (got_signal || r->error || deadline_passed(r))) {
			r->interrupted = got_signal || r->error;
			r->stop_signal = r->error ? 0 : got_signal;
			r->timed_out = !r->interrupted;
			stop_all(r);
			if (!r->left)
				break;
		}
		wake = dispatch(r, r->now_ns);
		if (!r->done_list) {
			int rc;

			if (!r->left)
				break;
			next = r->nev ? r->ev[0].t_ns : UINT64_MAX;
			if (wake < next)
				next = wake;
			/* a real clock wakes for --timeout too */
			if (!virt && r->deadline_ns && !r->stopped && r->deadline_ns < next)
				next = r->deadline_ns;
			if (next == UINT64_MAX && !r->outstanding) {
				stalled(r);
				break;
			}
			rc = e->wait(r, next);
			if (rc < 0 && !r->error) {
				r->error = rc;
				snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s", e->name,
					 strerror(-rc));
			}
		}
		if (!virt)
			r->now_ns = mono_ns();
		/* the completions seen so far; those that the I/Os they let go
		 * make at once (null) wait for the next round, after the timers */
		io = r->done_list;
		r->done_list = NULL;
		while (io) {
			struct io *nx = io->next;
			complete(r, io, r->now_ns);
			io = nx;
		}
		while (r->nev && r->ev[0].t_ns <= r->now_ns) {
			struct event ev = ev_pop(r);
			if (virt)
				r->now_ns = ev.t_ns;
			handle_event(r, &ev);
		}
		if (!(++r->events & 1023) && r->o->progress)
			progress(r, false);
	}
	if (r->o->progress)
		progress(r, true);
	return 0;
}

/* ---- setup and teardown ----------------------------------------------- */

static int pick_engine(struct runner *r, char *err, size_t errlen)
{
	enum engine_kind e = r->o->engine;

	if (e == ENG_DEFAULT) {
		for (size_t i = 0; i < r->set->n; i++) {
			enum engine_kind je = r->set->jobs[i].engine;
			if (je == ENG_DEFAULT)
				continue;
			if (e != ENG_DEFAULT && je != e) {
				snprintf(err, errlen, "%s: job '%s': all jobs must use one ioengine "
					 "(or give --engine)", r->set->jobs[i].where,
					 r->set->jobs[i].name);
				return -EINVAL;
			}
			e = je;
		}
	}
	if (e == ENG_DEFAULT)
		e = ENG_URING;
	r->engine = e;
	r->eng = engine_ops(e);
	r->engine_name = r->eng->name;
	return 0;
}

const struct engine_ops *engine_ops(enum engine_kind kind)
{
	static const struct engine_ops *const all[] = {
		&eng_sim_ops, &eng_null_ops, &eng_psync_ops, &eng_uring_ops,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->kind == kind)
			return all[i];
	return NULL;
}

static void runner_free(struct runner *r)
{
	verify_free(r);
	flow_free(r);
	ratemin_free(r);
	think_free(r);
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		if (s->ios)
			for (unsigned k = 0; k < s->depth; k++)
				free(s->ios[k].buf);
		free(s->ios);
		free(s->files);
		free(s->seq_pos);
		free(s->map_x);
	}
	free(r->streams);
	for (unsigned i = 0; i < r->nfiles; i++) {
		if (r->files[i].fd >= 0)
			close(r->files[i].fd);
		free(r->files[i].path);
	}
	free(r->files);
	free(r->grps);
	free(r->ev);
	free(r->rows);
	free(r->dev_ends);
	if (r->eng && r->eng->cleanup)
		r->eng->cleanup(r);
	ioqos_cluster_free(r->cl);
	if (r->q)
		ioqos_free(r->q);
}

int runner_run(struct jobset *set, const struct run_opts *o, char *err,
	       size_t errlen)
{
	struct runner run, *r = &run;
	struct sigaction sa, old_int, old_term;
	unsigned total_depth = 0;
	FILE *logf = NULL, *plotf = NULL;
	bool io_started = false;
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->set = set;
	err[0] = '\0';
	/* from here on, SIGINT and SIGTERM stop the layout or the run */
	got_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = pick_engine(r, err, errlen);
	if (rc)
		goto out;
	r->q = ioqos_new();
	if (!r->q) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (o->redis && r->eng->flags & ENG_F_VIRTUAL) {
		snprintf(err, errlen, "--redis is for real engines (the %s engine runs in "
			 "virtual time)", r->eng->name);
		rc = -EINVAL;
		goto out;
	}
	if (o->redis && !(r->cl = ioqos_cluster_new(r->q, o->redis, NULL, err, errlen))) {
		rc = -EINVAL;
		goto out;
	}
	if (r->eng->setup) {
		rc = r->eng->setup(r, err, errlen);
		if (rc) {
			if (!err[0])
				snprintf(err, errlen, "%s: %s", r->eng->name, strerror(-rc));
			goto out;
		}
	}
	r->now_ns = r->eng->flags & ENG_F_VIRTUAL ? 0 : mono_ns();
	rc = setup_groups(r, err, errlen);
	if (!rc && r->cl && (rc = ioqos_cluster_start(r->cl)) == 0)
		ev_push(r, r->now_ns, EV_CLUSTER, 0, NULL);
	if (rc)
		goto out;
	for (size_t i = 0; i < set->n; i++)
		r->exitall |= set->jobs[i].exitall;
	rc = make_streams(r, err, errlen);
	if (!rc)
		rc = check_buffers(r, err, errlen);
	if (!rc)
		rc = plan_files(r, err, errlen);
	if (!rc)
		rc = plan_sizes(r, err, errlen);
	if (!rc)
		rc = alloc_ios(r, err, errlen);
	if (!rc)
		rc = verify_setup(r, err, errlen);
	if (!rc)
		rc = flow_setup(r, err, errlen);
	if (!rc)
		rc = ratemin_setup(r, err, errlen);
	if (!rc)
		rc = think_setup(r, err, errlen);
	if (rc) {
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(-rc));
		goto out;
	}
	for (unsigned i = 0; i < r->nstreams; i++)
		total_depth += r->streams[i].depth;
	if (r->eng->init) {
		rc = r->eng->init(r, total_depth, err, errlen);
		if (rc) {
			if (!err[0])
				snprintf(err, errlen, "%s: %s", r->eng->name, strerror(-rc));
			goto out;
		}
	}

	r->left = r->nstreams;
	r->now_ns = run_clock(r);
	r->t0_ns = r->now_ns;
	r->wall_start_ns = mono_ns();
	r->next_progress_ns = r->wall_start_ns + 1000000000ull;
	r->iv_ns = o->log_interval_ns;
	if (!r->iv_ns && o->plot_file) {
		/* a plot without --log-interval: about 100 points over the
		 * longest runtime, or one a second */
		uint64_t longest = 0;
		for (size_t i = 0; i < set->n; i++) {
			const struct job *j = &set->jobs[i];
			uint64_t t = j->startdelay_ns + j->ramp_ns + j->runtime_ns;
			if (t > longest)
				longest = t;
		}
		r->iv_ns = longest ? longest / 100 : 1000000000ull;
		if (r->iv_ns < 1000000)
			r->iv_ns = 1000000;
	}
	if (r->iv_ns)
		ev_push(r, r->t0_ns + r->iv_ns, EV_TICK, 0, NULL);

	/* the output files are opened before the run, so that a bad path
	 * fails at once and not after a long run */
	if (o->log_file && o->log_interval_ns && !(logf = fopen(o->log_file, "w"))) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", o->log_file, strerror(errno));
		goto out;
	}
	if (o->plot_file && !(plotf = fopen(o->plot_file, "w"))) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", o->plot_file, strerror(errno));
		goto out;
	}

	io_started = true;
	if (o->timeout_ns)
		r->deadline_ns = mono_ns() + o->timeout_ns;
	cpustat_now(&r->cpu0);
	loop(r);
	r->wall_ns = mono_ns() - r->wall_start_ns;
	cpustat_now(&r->cpu);
	cpustat_diff(&r->cpu, &r->cpu0, &r->cpu);

	/* the partial last interval */
	if (r->iv_ns) {
		bool any = false;
		for (unsigned g = 0; g < r->ngrps; g++)
			if (r->grps[g].iv_ios[0] || r->grps[g].iv_ios[1])
				any = true;
		if (any)
			tick(r, r->now_ns);
	}
	r->win_start_ns = UINT64_MAX;
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		uint64_t e = s->end_ns != UINT64_MAX ? s->end_ns : s->last_done_ns;
		if (!s->started)
			continue;
		if (s->last_done_ns && s->last_done_ns < e && s->end_ns == UINT64_MAX)
			e = s->last_done_ns;
		if (s->stats_start_ns < r->win_start_ns)
			r->win_start_ns = s->stats_start_ns;
		if (e > r->win_end_ns)
			r->win_end_ns = e;
	}
	if (r->win_start_ns == UINT64_MAX)
		r->win_start_ns = r->win_end_ns = r->t0_ns;
	dev_window_end(r, r->now_ns);
	dev_window(r);
	report_group_totals(r);

	rc = report_all(r, o->out, err, errlen);
	if (rc)
		goto out;
	if (r->iv_ns && o->log_interval_ns) {
		if (logf) {
			FILE *f = logf;
			logf = NULL;
			report_csv(r, f);
			if (fclose(f)) {
				snprintf(err, errlen, "%s: %s", o->log_file, strerror(errno));
				rc = -EIO;
				goto out;
			}
		} else if (o->format & OUT_NORMAL) {
			fprintf(o->out, "\nPer-interval log (CSV):\n");
			report_csv(r, o->out);
		}
	}
	if (plotf) {
		FILE *f = plotf;
		plotf = NULL;
		rc = report_svg(r, f, o->plot_file, err, errlen);
		if (rc)
			goto out;
	}
	fflush(o->out);
	if (r->error) {
		snprintf(err, errlen, "%s", r->errmsg);
		rc = r->error;
	} else if (r->interrupted) {
		snprintf(err, errlen, "stopped by %s: the report above is partial",
			 signal_name(r->stop_signal));
		rc = -EINTR;
	}
out:
	if (rc && !io_started)
		undo_files(r);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (logf)
		fclose(logf);
	if (plotf)
		fclose(plotf);
	runner_free(r);
	return rc;
}
