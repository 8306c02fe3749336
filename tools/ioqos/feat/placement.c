/* SPDX-License-Identifier: MIT */
/*
 * CPU and NUMA placement, as fio 3.33 places a job's thread (backend.c's
 * thread_main): cpus_allowed= (or cpumask=, a bit per CPU) sets the CPUs
 * a job may run on; cpus_allowed_policy=split gives each clone one CPU of
 * the set, the (N mod count)-th for the run's N-th thread, where shared,
 * the default, gives every clone the whole set; numa_cpu_nodes= then puts
 * the job on the CPUs of those nodes, in place of any cpus_allowed=, as
 * libnuma's numa_run_on_node_mask does; numa_mem_policy=MODE[:NODES] is
 * the memory policy of the job's buffers.
 *
 * Two steps, as the options are two things:
 *
 *   check time   place_set(): the syntax only.  CPU lists are "0-3,8",
 *                node lists the same or "all" or "!1" (every node but
 *                these), libnuma's syntax; nothing asks the machine, so a
 *                job file is checked the same anywhere.
 *   run time     place_setup(): each stream's CPUs and nodes against the
 *                machine, before any file is laid out.  A CPU must be one
 *                this process may run on (sched_getaffinity), a node must
 *                be online (/sys/devices/system/node/online); otherwise
 *                the run is refused with the option, its value and what the
 *                machine has, as fio with libnuma refuses a node it does
 *                not have.
 *
 * Threads.  fio runs each job in a thread of its own; ioqos runs a psync
 * job so too (eng_psync.c), and its thread is created on its CPUs
 * (pthread_attr_setaffinity_np).  Every other engine runs the jobs of a
 * stonewall phase together on the loop's one thread: that thread takes the
 * CPUs the phase's jobs have in common, when its phase starts, and a run
 * whose jobs of one phase have none in common is refused, naming two of
 * them -- cpus_allowed_policy=split with numjobs=2 on io_uring is such a
 * run, as two clones cannot be on two CPUs in one thread.
 *
 * Memory.  fio sets the policy on its thread (numa_set_membind and the
 * like) before it allocates the job's buffers; ioqos allocates them for
 * every job from one thread, so it sets the policy on the buffers
 * themselves: each is rounded up to whole pages and mbind(2) is applied
 * before its first write, so its pages are faulted in on the job's nodes.
 * The modes are fio's and the kernel's: default, prefer:N, bind:NODES,
 * interleave[:NODES] (all nodes when none), local.
 */
#include "job/idlist.h"
#include "feat/placement.h"
#include "run/runner_int.h"

#include <errno.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* does the job set its CPUs, its memory's nodes? */
static bool place_cpus(const struct job *j);
static bool place_mem(const struct job *j);
/*
 * The jobs against the machine, before anything is laid out: every CPU
 * listed is one this process may run on, every node exists, and the jobs
 * that share the loop's thread (every engine but psync) have CPUs in
 * common in each stonewall phase.  0, or -EINVAL with the option, its
 * value and the reason in @err.
 */
static int place_setup(struct runner *r, char *err, size_t errlen);
static void place_free(struct runner *r);
/* the bytes to allocate for a buffer of @len bytes of @s: whole pages when
 * its memory policy is set, so that no other data shares them */
static size_t place_buf_len(const struct stream *s, size_t len);
/* numa_mem_policy=: @buf (page aligned, place_buf_len bytes) on the job's
 * nodes by mbind(2), before it is first written: 0, or -errno and why */
static int place_buf(const struct stream *s, void *buf, size_t len, char *err,
       	      size_t errlen);

/* the loop's thread takes the CPUs of the jobs of stonewall phase @phase
 * (every engine but psync), the run's first ones when they set none */
static int place_phase(struct runner *r, unsigned phase);

#define NODE_SYSFS "/sys/devices/system/node"
#define NODE_WORDS (IDSET_MAX / (8 * sizeof(unsigned long)))

/* one stream's placement, resolved against the machine */
struct place {
	bool cpus_on;                 /* its thread is placed */
	cpu_set_t cpus;               /* on these CPUs */
	bool mem_on;                  /* numa_mem_policy= given */
	int mem_mode;                 /* MPOL_* */
	unsigned long nodes[NODE_WORDS]; /* mbind(2)'s node mask */
};

struct placement {
	cpu_set_t orig;               /* the process's CPUs at the start */
	struct place *per;            /* by stream index */
	cpu_set_t *phase;             /* by phase: the loop thread's CPUs */
	bool *phase_on;               /* by phase: a job of it sets CPUs */
	unsigned nphases;
};

static bool place_cpus(const struct job *j)
{
	return job_isset(j, JO_CPUS_ALLOWED) || job_isset(j, JO_CPUMASK) ||
	       job_isset(j, JO_NUMA_CPU_NODES);
}

static bool place_mem(const struct job *j)
{
	return job_isset(j, JO_NUMA_MEM_POLICY);
}

/* ---- the machine ------------------------------------------------------- */

/* the list in sysfs file @path into @bits: 0, or -errno */
static int read_list(const char *path, uint64_t *bits)
{
	char buf[4096], why[64];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		return 0;           /* a node without CPUs */
	return ids_parse(buf, bits, "id", why, sizeof(why));
}

/* the value of option @key as the job was given it, for messages */
static const char *opt_val(const struct job *j, const char *key)
{
	for (size_t i = j->opts.n; i-- > 0;)
		if (!strcmp(j->opts.v[i].key, key))
			return j->opts.v[i].val;
	for (size_t i = j->gopts.n; i-- > 0;)
		if (!strcmp(j->gopts.v[i].key, key))
			return j->gopts.v[i].val;
	return "?";
}

/*
 * The nodes of @n on this machine into @out: every one listed must be
 * online.  0, or -EINVAL with the reason, naming @key
 */
static int nodes_resolve(const struct job *j, const char *key, const struct idset *n,
			 uint64_t *out, char *err, size_t errlen)
{
	uint64_t online[IDSET_MAX / 64] = { 0 };
	char have[256];
	int rc = read_list(NODE_SYSFS "/online", online);

	if (rc) {
		snprintf(err, errlen, "%s: job '%s': %s=%s: this machine shows no NUMA "
			 "nodes (%s/online: %s)", j->where, j->name, key, opt_val(j, key),
			 NODE_SYSFS, strerror(-rc));
		return -EINVAL;
	}
	ids_format(online, have, sizeof(have));
	for (unsigned i = 0; i < IDSET_MAX; i++) {
		bool listed = ids_has(n->bits, i);

		if (n->all || n->invert) {
			if ((n->all || !listed) && ids_has(online, i))
				ids_set(out, i);
			continue;
		}
		if (!listed)
			continue;
		if (!ids_has(online, i)) {
			snprintf(err, errlen, "%s: job '%s': %s=%s: node %u does not exist "
				 "(this machine has node%s %s)", j->where, j->name, key,
				 opt_val(j, key), i, strpbrk(have, ",-") ? "s" : "", have);
			return -EINVAL;
		}
		ids_set(out, i);
	}
	for (unsigned w = 0; w < IDSET_MAX / 64; w++)
		if (out[w])
			return 0;
	snprintf(err, errlen, "%s: job '%s': %s=%s: no node of this machine (node%s %s) "
		 "is left", j->where, j->name, key, opt_val(j, key),
		 strpbrk(have, ",-") ? "s" : "", have);
	return -EINVAL;
}

static void cpus_format(const cpu_set_t *c, char *buf, size_t len)
{
	uint64_t bits[IDSET_MAX / 64] = { 0 };

	for (unsigned i = 0; i < IDSET_MAX && i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, c))
			ids_set(bits, i);
	ids_format(bits, buf, len);
}

/* the CPUs of stream @s into p->cpus: 0, or -EINVAL with the reason */
static int stream_cpus(struct placement *pl, const struct stream *s, struct place *p,
		       char *err, size_t errlen)
{
	const struct job *j = s->job;
	char have[256];
	unsigned n = 0, pick;

	CPU_ZERO(&p->cpus);
	cpus_format(&pl->orig, have, sizeof(have));
	if (job_isset(j, JO_NUMA_CPU_NODES)) {
		uint64_t nodes[IDSET_MAX / 64] = { 0 };
		char path[128];

		if (nodes_resolve(j, "numa_cpu_nodes", &j->cpu_nodes, nodes, err, errlen))
			return -EINVAL;
		for (unsigned i = 0; i < IDSET_MAX; i++) {
			uint64_t cpus[IDSET_MAX / 64] = { 0 };

			if (!ids_has(nodes, i))
				continue;
			snprintf(path, sizeof(path), NODE_SYSFS "/node%u/cpulist", i);
			if (read_list(path, cpus))
				continue;
			for (unsigned c = 0; c < IDSET_MAX && c < CPU_SETSIZE; c++)
				if (ids_has(cpus, c) && CPU_ISSET(c, &pl->orig))
					CPU_SET(c, &p->cpus);
		}
		if (!CPU_COUNT(&p->cpus)) {
			snprintf(err, errlen, "%s: job '%s': numa_cpu_nodes=%s: no CPU of these "
				 "nodes is one ioqos may run on (CPUs %s)", j->where, j->name,
				 opt_val(j, "numa_cpu_nodes"), have);
			return -EINVAL;
		}
		p->cpus_on = true;
		return 0;
	}
	for (unsigned i = 0; i < IDSET_MAX && i < CPU_SETSIZE; i++) {
		if (!ids_has(j->cpus.bits, i))
			continue;
		if (!CPU_ISSET(i, &pl->orig)) {
			const char *key = j->cpus_mask ? "cpumask" : "cpus_allowed";

			snprintf(err, errlen, "%s: job '%s': %s=%s: CPU %u does not exist or "
				 "is not one ioqos may run on (CPUs %s)", j->where, j->name, key,
				 opt_val(j, key), i, have);
			return -EINVAL;
		}
		CPU_SET(i, &p->cpus);
		n++;
	}
	/* fio's fio_cpus_split(): the run's thread N on the (N mod count)-th */
	if (j->cpus_split && n) {
		unsigned idx = 0;

		pick = s->index % n;
		for (unsigned i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &p->cpus) && idx++ != pick)
				CPU_CLR(i, &p->cpus);
	}
	p->cpus_on = true;
	return 0;
}

static int stream_mem(const struct stream *s, struct place *p, char *err,
		      size_t errlen)
{
	const struct job *j = s->job;
	uint64_t nodes[IDSET_MAX / 64] = { 0 };

	p->mem_on = true;
	p->mem_mode = (int)j->mem_mode;
	if (j->mem_mode == MPOL_DEFAULT || j->mem_mode == MPOL_LOCAL)
		return 0;
	if (nodes_resolve(j, "numa_mem_policy", &j->mem_nodes, nodes, err, errlen))
		return -EINVAL;
	for (unsigned i = 0; i < IDSET_MAX; i++)
		if (ids_has(nodes, i))
			p->nodes[i / (8 * sizeof(unsigned long))] |=
				1ul << (i % (8 * sizeof(unsigned long)));
	return 0;
}

/* one thread for every job of a phase: their CPUs in common */
static int phases(struct runner *r, struct placement *pl, char *err, size_t errlen)
{
	const struct stream **first = calloc(pl->nphases, sizeof(*first));

	if (!first)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct stream *s = &r->streams[i];
		const struct place *p = &pl->per[i];
		unsigned ph = s->phase;
		cpu_set_t both;

		/* a psync job is on a thread of its own (eng_psync.c) */
		if (!p->cpus_on || s->eng->kind == ENG_PSYNC)
			continue;
		if (!pl->phase_on[ph]) {
			pl->phase_on[ph] = true;
			pl->phase[ph] = p->cpus;
			first[ph] = s;
			continue;
		}
		CPU_AND(&both, &pl->phase[ph], &p->cpus);
		if (!CPU_COUNT(&both)) {
			char a[256], b[256];

			cpus_format(&pl->phase[ph], a, sizeof(a));
			cpus_format(&p->cpus, b, sizeof(b));
			snprintf(err, errlen, "%s: job '%s' (clone %u) is on CPUs %s, the jobs "
				 "of its phase before it (from job '%s', clone %u) on CPUs %s: "
				 "the %s engine runs them together on one thread, which needs "
				 "a CPU in common (psync runs a thread per job)", s->job->where,
				 s->job->name, s->clone, b, first[ph]->job->name,
				 first[ph]->clone, a, s->eng->name);
			free(first);
			return -EINVAL;
		}
		pl->phase[ph] = both;
	}
	free(first);
	return 0;
}

static int place_setup(struct runner *r, char *err, size_t errlen)
{
	struct placement *pl;
	bool any = false;
	int rc;

	for (unsigned i = 0; i < r->nstreams; i++)
		if (place_cpus(r->streams[i].job) || place_mem(r->streams[i].job))
			any = true;
	if (!any)
		return 0;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	r->place = pl;
	pl->per = calloc(r->nstreams, sizeof(*pl->per));
	pl->nphases = r->nphases;
	pl->phase = calloc(r->nphases, sizeof(*pl->phase));
	pl->phase_on = calloc(r->nphases, sizeof(*pl->phase_on));
	if (!pl->per || !pl->phase || !pl->phase_on)
		return -ENOMEM;
	if (sched_getaffinity(0, sizeof(pl->orig), &pl->orig)) {
		rc = -errno;
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return rc;
	}
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		struct place *p = &pl->per[i];

		s->place = p;
		if (place_cpus(s->job) && (rc = stream_cpus(pl, s, p, err, errlen)))
			return rc;
		if (place_mem(s->job) && (rc = stream_mem(s, p, err, errlen)))
			return rc;
	}
	return phases(r, pl, err, errlen);
}

static void place_free(struct runner *r)
{
	struct placement *pl = r->place;

	if (!pl)
		return;
	free(pl->per);
	free(pl->phase);
	free(pl->phase_on);
	free(pl);
	r->place = NULL;
}

/* ---- buffers and threads ----------------------------------------------- */

static size_t place_buf_len(const struct stream *s, size_t len)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t pg = psz > 0 ? (size_t)psz : 4096;

	if (!s->place || !s->place->mem_on)
		return len;
	return (len + pg - 1) / pg * pg;
}

static int place_buf(const struct stream *s, void *buf, size_t len, char *err,
	      size_t errlen)
{
	const struct place *p = s->place;
	bool mask = p && (p->mem_mode == MPOL_BIND || p->mem_mode == MPOL_INTERLEAVE ||
			  p->mem_mode == MPOL_PREFERRED);

	if (!p || !p->mem_on)
		return 0;
	if (syscall(SYS_mbind, buf, len, p->mem_mode, mask ? p->nodes : NULL,
		    mask ? (unsigned long)IDSET_MAX + 1 : 0ul, 0u)) {
		int e = errno;

		snprintf(err, errlen, "%s: job '%s': numa_mem_policy=%s: mbind: %s",
			 s->job->where, s->job->name, opt_val(s->job, "numa_mem_policy"),
			 strerror(e));
		return -e;
	}
	return 0;
}

const void *place_thread_cpus(const struct stream *s, size_t *setsize)
{
	if (!s->place || !s->place->cpus_on)
		return NULL;
	*setsize = sizeof(s->place->cpus);
	return &s->place->cpus;
}

static int place_phase(struct runner *r, unsigned phase)
{
	struct placement *pl = r->place;
	const cpu_set_t *c;

	if (!pl || phase >= pl->nphases)
		return 0;
	c = pl->phase_on[phase] ? &pl->phase[phase] : &pl->orig;
	if (sched_setaffinity(0, sizeof(*c), c)) {
		int e = errno;

		snprintf(r->errmsg, sizeof(r->errmsg), "sched_setaffinity for the jobs of "
			 "phase %u: %s", phase + 1, strerror(e));
		return -e;
	}
	return 0;
}

static int place_buf_hook(const struct stream *s, void *buf, size_t len, uint64_t maxbs,
			  unsigned k, char *err, size_t errlen)
{
	(void)maxbs;
	(void)k;
	return place_buf(s, buf, len, err, errlen);
}

const struct feat_ops feat_placement = {
	.name = "placement",
	.plan = place_setup,
	.buf_len = place_buf_len,
	.buf = place_buf_hook,
	.phase = place_phase,
	.free = place_free,
};
