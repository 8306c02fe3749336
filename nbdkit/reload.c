/* SPDX-License-Identifier: MIT */
/*
 * The config file, loaded again when it changes.
 *
 * Config changes.  nbdkit ends on SIGHUP, so the filter watches the file, as
 * nbdkit's rate filter does with rate-file: the poll thread stat()s it every
 * ioqos-poll (default 1 s) and, when its inode, size, mtime or ctime
 * changed, loads it again at now: the file is the whole truth, as
 * ioqos_load_buf_replace() takes it.  A key it no longer names returns to
 * its default, burst included; a group it no longer names returns to the
 * defaults and goes away, at once if nobody is in it, else with its last
 * connection (group_unnamed()).  The library reschedules queued requests
 * under the new limits at once.  A file that does not parse, or is not a
 * regular file (files.c), changes nothing (the error is logged).
 *
 * Without stopping requests.  While the reload holds the controller
 * (ioqos_mt_lock()), requests are posted on their lanes and wait for it
 * to let go, so nothing that needs no controller is done holding it: the
 * file is read, its own keys taken out, and parsed and checked by the
 * library (ioqos_conf_parse(); with ioqos-redis the cluster module's
 * ioqos_cluster_conf_parse(), which takes its global= out as well) while
 * requests go on.  The parsed config is then put in force in steps of
 * RELOAD_STEP_GROUPS groups (ioqos_conf_apply()), the controller let go
 * whenever it has been held for RELOAD_HOLD_NS -- which applies what was
 * posted meanwhile and dispatches what the steps let pass -- and g.lock
 * too, until the threads that wanted that meanwhile have had it
 * (let_through()): so no reload, of one line or of 100,000, holds
 * requests for much more than RELOAD_HOLD_NS (the "every" row of
 * bench/nbd_reload.sh).  Between two holds some
 * groups have their new settings and others their old ones (the library
 * says why that is acceptable: src/confapply.c); a group the new config
 * names is not removed meanwhile, whoever leaves it (the library refuses,
 * group.c keeps it, and the new config names it).  Only the
 * first steps, which make the groups and the room their settings need,
 * can fail, and then nothing has changed.  At start the whole config goes
 * in in one hold: nobody is connected yet.
 *
 * The filter's own key.  A line may also say who may join its group,
 * allow=LIST (allow.c), which the library's parser would refuse as an
 * unknown key: config_take() parses every allow= first, with file:line
 * errors, and blanks it out of the buffer (the line numbers stay), and
 * notes every path a line names (for ioqos-exports=config).  Only when the
 * last step has put the rest in force does the filter take the new lists
 * and names in, in the same hold: until then the old ones hold.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nbdkit-filter.h>

#include "filter.h"

struct file_sig file_sig_of(const char *path)
{
	struct file_sig s;
	struct stat st;

	memset(&s, 0, sizeof(s));
	if (stat(path, &st) == 0) {
		s.exists = true;
		s.dev = st.st_dev;
		s.ino = st.st_ino;
		s.size_bytes = st.st_size;
		s.mtime = st.st_mtim;
		s.ctime = st.st_ctim;
	}
	return s;
}

static bool file_sig_same(const struct file_sig *a, const struct file_sig *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
	       a->size_bytes == b->size_bytes &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* the filter's part of a config, taken out of it by config_take() */
struct config_extra {
	char **names;              /* every path a line names, one each */
	size_t n_names;
	struct rule *rules;        /* every allow= */
	size_t n_rules;
};

static void extra_free(struct config_extra *x)
{
	for (size_t i = 0; i < x->n_names; i++)
		free(x->names[i]);
	free(x->names);
	for (size_t i = 0; i < x->n_rules; i++) {
		free(x->rules[i].path);
		allow_free(x->rules[i].allow);
	}
	free(x->rules);
	memset(x, 0, sizeof(*x));
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* append @item (of @size bytes) to a growing array; false when out of memory */
static bool push(void *arrp, size_t *n, size_t size, const void *item)
{
	char **arr = arrp;

	if ((*n & (*n - 1)) == 0) {        /* 0, 1, 2, 4 ...: grow */
		char *p = realloc(*arr, (*n ? *n * 2 : 1) * size);

		if (!p)
			return false;
		*arr = p;
	}
	memcpy(*arr + *n * size, item, size);
	(*n)++;
	return true;
}

/*
 * Take the filter's part out of the config in @buf (@len bytes, @name for
 * messages): parse each allow=, blank it, and note each line's path.  0,
 * or -1 with a one-line reason naming the file, line, key and value.
 */
static int config_take(const char *name, char *buf, size_t len,
		       struct config_extra *x, char *err, size_t errlen)
{
	unsigned long lineno = 0;
	size_t pos = 0;

	memset(x, 0, sizeof(*x));
	while (pos < len) {
		char *l = buf + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, i = 0;
		char *hash = memchr(l, '#', n), *path = NULL;
		bool has_allow = false;

		pos += n + (nl != NULL);
		lineno++;
		if (hash)
			n = (size_t)(hash - l);
		while (i < n) {
			size_t t;

			while (i < n && (is_blank(l[i]) || l[i] == '\r'))
				i++;
			for (t = i; t < n && !is_blank(l[t]) && l[t] != '\r'; t++)
				;
			if (t == i)
				break;
			if (!path) {
				path = strndup(l + i, t - i);
				if (!path || !push(&x->names, &x->n_names, sizeof(path), &path))
					goto nomem;
			} else if (t - i >= 6 && memcmp(l + i, "allow=", 6) == 0) {
				char value[1024], why[256];
				struct rule r = { .line = lineno };

				snprintf(value, sizeof(value), "%.*s", (int)(t - i - 6), l + i + 6);
				if (has_allow) {
					snprintf(err, errlen, "%s:%lu: key 'allow' given twice",
						 name, lineno);
					goto fail;
				}
				for (size_t k = 0; k < x->n_rules; k++) {
					if (strcmp(x->rules[k].path, path) == 0) {
						snprintf(err, errlen, "%s:%lu: key 'allow': %s has "
							 "one already, on line %lu", name, lineno,
							 path, x->rules[k].line);
						goto fail;
					}
				}
				if (t - i - 6 >= sizeof(value) ||
				    allow_parse(value, &r.allow, why, sizeof(why)) < 0) {
					snprintf(err, errlen, "%s:%lu: key 'allow' value '%.64s': %s",
						 name, lineno, value, t - i - 6 >= sizeof(value) ?
						 "too long" : why);
					goto fail;
				}
				has_allow = true;
				r.path = strdup(path);
				if (!r.path || !push(&x->rules, &x->n_rules, sizeof(r), &r)) {
					free(r.path);
					allow_free(r.allow);
					goto nomem;
				}
				memset(l + i, ' ', t - i);   /* the library never sees it */
			}
			i = t;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", name);
fail:
	extra_free(x);
	return -1;
}

static void unnamed(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	(void)arg;
	(void)q;
	(void)path;
	group_unnamed(id);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a config parsed off the lock: the library's, or with ioqos-redis the
 * cluster module's */
struct parsed {
	struct ioqos_conf *c;
	struct ioqos_cluster_conf *cc;
};

static int parse(struct parsed *p, const char *buf, size_t len, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	return g.cl ? ioqos_cluster_conf_parse(g.cl, g.config, buf, len, &p->cc, err, errlen) :
	       ioqos_conf_parse(g.config, buf, len, &p->c, err, errlen);
}

/* holding the controller: at most @max groups of it put in force (0: all); 1 while
 * there is more, 0 once in force, -errno (nothing changed, or with
 * ioqos-redis a global group that did not register) */
static int step(struct ioqos *q, struct parsed *p, uint64_t now, uint32_t max,
		char *err, size_t errlen)
{
	return g.cl ? ioqos_cluster_conf_apply(g.cl, p->cc, now, max, unnamed, NULL, err, errlen) :
	       ioqos_conf_apply(q, p->c, now, max, unnamed, NULL, err, errlen);
}

static void parsed_free(struct parsed *p)
{
	ioqos_conf_free(p->c);
	ioqos_cluster_conf_free(p->cc);
}

/*
 * With g.lock held: let it go until the threads that asked for it so far
 * have had it (or RELOAD_GAP_MAX_NS passed), and take it again.  Without
 * that, the reload would take it again before a woken waiter runs, and
 * on a busy machine hold back every request until its last step.  It
 * sleeps a tick even when nobody asked: a thread that has just slept is
 * one the scheduler seldom preempts soon, and one preempted holding the
 * lock holds it for its time off the CPU.
 */
static void let_through(void)
{
	const struct timespec tick = { 0, RELOAD_TICK_NS };
	uint64_t asked = atomic_load_explicit(&g.lock_asked, memory_order_relaxed);
	uint64_t t0 = now_ns();

	pthread_mutex_unlock(&g.lock);
	do
		nanosleep(&tick, NULL);
	while ((int64_t)(asked - atomic_load_explicit(&g.lock_got, memory_order_relaxed)) > 0 &&
	       now_ns() - t0 < RELOAD_GAP_MAX_NS);
	pthread_mutex_lock(&g.lock);
}

/* how a reload's holds of the controller went */
struct holds {
	unsigned n;                /* holds */
	unsigned long_n;           /* those of RELOAD_LONG_NS or more */
	uint64_t max_ns, all_ns;   /* the longest, and all of them */
	uint64_t max_cpu_ns;       /* the most CPU time one took: what is left
	                            * of max_ns is the time the scheduler ran
	                            * other threads while the lock was held */
};

/* the CPU time of this thread, ns */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/*
 * Put @p in force at now, holding the controller at most RELOAD_HOLD_NS
 * at a time (with @force, all at once), and g.lock the while; at the
 * end, the filter's names and lists (@x) taken in.  0 or -1 (the reason
 * in @err).
 */
static int put_in_force(struct parsed *p, struct config_extra *x, bool force,
			struct holds *h, char *err, size_t errlen)
{
	int ret;

	pthread_mutex_lock(&g.lock);
	for (;;) {
		uint64_t t0 = now_ns(), now = t0, c0 = cpu_ns();
		struct ioqos *q = ioqos_mt_lock(g.mt);

		do {
			ret = step(q, p, now, force ? 0 : RELOAD_STEP_GROUPS, err, errlen);
			now = now_ns();
		} while (ret == 1 && now - t0 < RELOAD_HOLD_NS);
		if (ret == 0) {
			group_config_swap(&x->names, &x->n_names, &x->rules, &x->n_rules);
			if (!force)
				g.reloads++;
		}
		/* what was posted meanwhile, and what the steps let pass */
		ioqos_mt_unlock(g.mt, now);
		now = now_ns() - t0;
		h->n++;
		h->long_n += now >= RELOAD_LONG_NS;
		h->all_ns += now;
		h->max_ns = now > h->max_ns ? now : h->max_ns;
		now = cpu_ns() - c0;
		h->max_cpu_ns = now > h->max_cpu_ns ? now : h->max_cpu_ns;
		/* the groups the steps no longer named, the controller let go */
		group_unnamed_flush();
		if (ret != 1)
			break;
		let_through();
	}
	pthread_mutex_unlock(&g.lock);
	return ret < 0 ? -1 : 0;
}

/* what a reload makes of the file before it takes the controller */
struct prep {
	struct config_extra x;     /* the filter's part */
	struct parsed p;           /* the library's */
	int ret;                   /* 0, or -1 with the reason in err */
	char err[1024];
};

/* read, take the filter's part out, parse: all of it without a lock */
static void prepare(struct prep *pr)
{
	size_t len = 0;
	char *buf = config_read(g.config, &len, pr->err, sizeof(pr->err));

	pr->ret = -1;
	if (!buf)
		return;
	if (config_take(g.config, buf, len, &pr->x, pr->err, sizeof(pr->err)) == 0) {
		if (pr->x.n_names)
			qsort(pr->x.names, pr->x.n_names, sizeof(*pr->x.names), cmp_name);
		pr->ret = parse(&pr->p, buf, len, pr->err, sizeof(pr->err)) < 0 ? -1 : 0;
	}
	free(buf);
}

/*
 * prepare() on a thread of its own, niced (RELOAD_NICE): on a machine
 * whose cores are all busy, a parse of 100,000 lines would otherwise take
 * tens of milliseconds of CPU from the threads that serve requests.  Only
 * the thread that holds the controller must not be the one to wait: it
 * stays the poll thread, at the priority it has.
 */
static void *prepare_niced(void *arg)
{
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), RELOAD_NICE);
	prepare(arg);
	return NULL;
}

/*
 * Load the config file if it changed since it was last loaded (always, if
 * @force: at start).  Returns 0 (loaded or unchanged) or -1 (logged;
 * nothing changed).  Reading, the filter's own keys and the library's
 * parse and checks are done before the controller is taken (prepare());
 * holding it, only the steps that put the config in force (put_in_force()).
 */
int config_reload(bool force)
{
	uint64_t leaves = atomic_load_explicit(&meter.leaves, memory_order_relaxed), parsed_at;
	struct prep pr = { .ret = -1 };
	struct holds h = { 0 };
	struct file_sig sig;
	pthread_t t;
	size_t n_names;

	if (!g.config)
		return 0;
	sig = file_sig_of(g.config);
	if (!force && file_sig_same(&sig, &g.sig))
		return 0;
	/* remember it even when it fails: one message per change, not per poll */
	g.sig = sig;
	if (force || pthread_create(&t, NULL, prepare_niced, &pr) != 0)
		prepare(&pr);             /* at start nothing waits; or no thread */
	else
		pthread_join(t, NULL);
	n_names = pr.x.n_names;
	parsed_at = atomic_load_explicit(&meter.leaves, memory_order_relaxed);
	if (pr.ret == 0)
		pr.ret = put_in_force(&pr.p, &pr.x, force, &h, pr.err, sizeof(pr.err));
	parsed_free(&pr.p);
	extra_free(&pr.x);                   /* the new ones' remains, or the old ones */
	if (pr.ret < 0) {
		nbdkit_error("ioqos: %s", pr.err);
		return -1;
	}
	if (!force)
		nbdkit_debug("ioqos: reloaded %s: %zu groups named, put in force in %u holds "
			     "of the controller's lock, %.1f us in all, %u of them of a "
			     "millisecond or more; the controller's lock held %.1f us at most, "
			     "%.1f us of CPU at most; %" PRIu64 " requests done while it was "
			     "read and checked, %" PRIu64 " while it was put in force",
			     g.config, n_names, h.n, h.all_ns / 1e3, h.long_n, h.max_ns / 1e3,
			     h.max_cpu_ns / 1e3,
			     parsed_at - leaves,
			     atomic_load_explicit(&meter.leaves, memory_order_relaxed) - parsed_at);
	return 0;
}
