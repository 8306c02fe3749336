/* SPDX-License-Identifier: MIT */
/*
 * I/O priorities with fio 3.33's meaning.
 *
 * The kernel gives each I/O a priority: a class (1 real-time, 2 best
 * effort, 3 idle) and a level 0..7 in it, one 16-bit value, class << 13 |
 * level (IOPRIO_PRIO_VALUE).  fio sets it two ways:
 *
 *   prio=, prioclass=    the job's own priority (fio's td->ioprio): fio
 *                        calls ioprio_set(2) on the job's thread, and its
 *                        io_uring engine also puts it on every SQE, since
 *                        a ring's submitter need not be that thread.
 *   cmdprio_percentage=  a share of the I/Os gets cmdprio_class= (default
 *   cmdprio_class=       real-time) at level cmdprio= instead; a value per
 *   cmdprio=             direction ("20,50"); libaio and io_uring only.
 *   cmdprio_bssplit=     the share and the priority by block size:
 *                        "64k/40:1m/60[,write]" (cmdprio_class= and
 *                        cmdprio= for each) or "64k/25/1/1:64k/75/3/2"
 *                        (a class and level per entry).
 *
 * For each I/O fio draws a number 0..99 from the job's own generator;
 * below the share of the I/O's size (or cmdprio_percentage), the I/O gets
 * the first entry whose running total of shares exceeds the number
 * (fio_cmdprio_set_ioprio).  Worked example, cmdprio-bssplit.fio's
 * "64k/25/1/1:64k/75/3/2": a 64 KiB read draws 0..24 -> 1/1, 25..99 ->
 * 3/2; a 1 MiB read has no entry with a share and keeps the job's
 * priority.  ioqos draws the same way from a generator of its own (seeded
 * like the job's others), so the shares hold, not fio's exact sequence.
 *
 * Where it goes: on io_uring (which runs libaio and io_uring jobs here)
 * every SQE carries the I/O's value (0: none, the kernel's default), as
 * fio's io_uring engine does.  A psync worker thread calls ioprio_set(2)
 * for its job's prio=/prioclass=, as fio's job thread does; fio 3.33's
 * synchronous engines have no cmdprio options, and neither do null and
 * the simulated device, so cmdprio there is refused.  prio= also keeps
 * its meaning inside ioqos: the weight of the job's group (docs/CLI.md).
 *
 * Reports: the per-I/O logs' prio column is each I/O's value (iolog.c);
 * the text and JSON reports have fio's latencies per priority ("clat prio
 * 1/0", "prios": [ { "prioclass", "prio", "clat_ns" } ]) when two or more
 * priorities have samples.  fio keeps a table per direction of the values
 * a job may use, the job's own first; ioqos keeps the same table, and a
 * reporting group merges its clones' tables by value, as fio does.
 */
#include "feat/prio.h"

#include "job/jobopts.h"
#include "report/report_fio.h"
#include "run/runner_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PRIO_VALS (BSSPLIT_MAX + 1)

struct prio {
	struct rng rng;               /* the draws of 0..99 (fio's prio_state) */
	unsigned base;                /* the job's value, fio's td->ioprio */
	unsigned val[2][PRIO_VALS];   /* per direction: the values, base first */
	unsigned nval[2];
	struct hist *h[2];            /* a histogram per value, NULL: not kept */
};

unsigned prio_job_value(const struct job *j)
{
	unsigned cls;

	if (j->prioclass < 0 && j->prio < 0)
		return 0;
	/* fio's ioprio_value(): no class is best effort */
	cls = j->prioclass > 0 ? (unsigned)j->prioclass : IOPRIO_CLASS_BE;
	return cls << IOPRIO_CLASS_SHIFT | (unsigned)(j->prio >= 0 ? j->prio : 0);
}

bool prio_per_io(const struct job *j)
{
	return j->cmdprio_pct[0] || j->cmdprio_pct[1] || j->ncmdprio_split[0] ||
	       j->ncmdprio_split[1];
}

/* "N" or "R,W" of integers lo..hi into out[2] */
static int int_pair(const char *v, unsigned lo, unsigned hi, unsigned out[2])
{
	uint64_t n[2];
	const char *end;

	if (parse_uint(v, &end, &n[0]))
		return -EINVAL;
	n[1] = n[0];
	if (*end == ',' && parse_uint(end + 1, &end, &n[1]))
		return -EINVAL;
	if (*end || n[0] < lo || n[0] > hi || n[1] < lo || n[1] > hi)
		return -EINVAL;
	out[0] = (unsigned)n[0];
	out[1] = (unsigned)n[1];
	return 0;
}

int prio_set_pct(struct job *j, const char *v, char *why, size_t whylen)
{
	if (!int_pair(v, 0, 100, j->cmdprio_pct))
		return 0;
	snprintf(why, whylen, "expected a percentage 0..100, or READ,WRITE");
	return -EINVAL;
}

int prio_set_class(struct job *j, const char *v, char *why, size_t whylen)
{
	if (!int_pair(v, 1, 3, j->cmdprio_class))
		return 0;
	snprintf(why, whylen, "expected a class 1..3 (real-time, best effort, idle), "
		 "or READ,WRITE");
	return -EINVAL;
}

int prio_set_level(struct job *j, const char *v, char *why, size_t whylen)
{
	if (!int_pair(v, 0, 7, j->cmdprio_level))
		return 0;
	snprintf(why, whylen, "expected a level 0..7, or READ,WRITE");
	return -EINVAL;
}

static int split_cmp(const void *a, const void *b)
{
	const struct prio_split *x = a, *y = b;

	return x->bs < y->bs ? -1 : x->bs > y->bs;
}

/* one direction's list: BS/[PCT[/CLASS/LEVEL]]:...; entries of no share
 * are dropped, the rest sorted by size (stable: fio's qsort keeps the
 * order of equal sizes in practice, and the running total needs one) */
static int split_dir(struct prio_split *sp, unsigned *nsp, char *list)
{
	unsigned n = 0;
	char *save = NULL;

	for (char *e = strtok_r(list, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
		char *f[4] = { e, NULL, NULL, NULL };
		unsigned nf = 1;
		uint64_t bs, num[3] = { 0, 0, 0 };
		const char *end;

		if (n == BSSPLIT_MAX)
			return -EINVAL;
		for (char *p = e; *p; p++)
			if (*p == '/') {
				if (nf == 4)
					return -EINVAL;
				*p = '\0';
				f[nf++] = p + 1;
			}
		if (parse_size(f[0], &bs) || !bs)
			return -EINVAL;
		/* "bs/" is a share of 0; "bs/pct/class" is not a form */
		if (nf == 3)
			return -EINVAL;
		for (unsigned k = 1; k < nf; k++)
			if (f[k][0] && (parse_uint(f[k], &end, &num[k - 1]) || *end))
				return -EINVAL;
		if (nf == 4 && (!f[2][0] || !f[3][0] || num[1] < 1 || num[1] > 3 || num[2] > 7))
			return -EINVAL;
		if (num[0] > 100)
			return -EINVAL;
		if (!num[0])
			continue;
		sp[n].bs = bs;
		sp[n].pct = (uint32_t)num[0];
		sp[n].ioprio = nf == 4 ? (int32_t)(num[1] << IOPRIO_CLASS_SHIFT | num[2]) : -1;
		n++;
	}
	/* insertion sort: stable, and at most BSSPLIT_MAX entries */
	for (unsigned a = 1; a < n; a++)
		for (unsigned b = a; b > 0 && split_cmp(&sp[b - 1], &sp[b]) > 0; b--) {
			struct prio_split t = sp[b];
			sp[b] = sp[b - 1];
			sp[b - 1] = t;
		}
	/* the shares of one size add up to 100 at most */
	for (unsigned a = 0, sum = 0; a < n; a++) {
		sum = a && sp[a].bs == sp[a - 1].bs ? sum + sp[a].pct : sp[a].pct;
		if (sum > 100)
			return -EINVAL;
	}
	*nsp = n;
	return 0;
}

int prio_set_bssplit(struct job *j, const char *v, char *why, size_t whylen)
{
	char part[3][256];
	struct prio_split sp[2][BSSPLIT_MAX];
	unsigned n, nsp[2] = { 0, 0 };

	if (opt_split3(v, part, &n))
		goto bad;
	/* one list is both directions', as fio's str_split_parse */
	for (unsigned k = 0; k < 2; k++)
		if (split_dir(sp[k], &nsp[k], part[n == 1 ? 0 : k]))
			goto bad;
	memcpy(j->cmdprio_split, sp, sizeof(sp));
	memcpy(j->ncmdprio_split, nsp, sizeof(nsp));
	return 0;
bad:
	snprintf(why, whylen, "expected BS/PERCENT[/CLASS/LEVEL]:... per direction "
		 "(READ,WRITE), the shares of one size adding up to 100 at most");
	return -EINVAL;
}

int prio_check(const struct job *j, char *why, size_t whylen)
{
	bool pct = j->cmdprio_pct[0] || j->cmdprio_pct[1];
	bool split = job_isset(j, JO_CMDPRIO_BSSPLIT);
	bool any = job_isset(j, JO_CMDPRIO_PERCENTAGE) || split ||
		   job_isset(j, JO_CMDPRIO_CLASS) || job_isset(j, JO_CMDPRIO);

	if (pct && split) {
		snprintf(why, whylen, "cmdprio_percentage and cmdprio_bssplit are "
			 "mutually exclusive (as in fio)");
		return -EINVAL;
	}
	/* fio 3.33 has the cmdprio options in its libaio and io_uring engines only */
	if (any && j->engine_fio[0] && strcmp(j->engine_fio, "libaio") &&
	    strcmp(j->engine_fio, "io_uring")) {
		snprintf(why, whylen, "cmdprio options belong to fio's libaio and "
			 "io_uring engines, not to ioengine=%s", j->engine_fio);
		return -EINVAL;
	}
	return 0;
}

static unsigned add_val(struct prio *p, int d, unsigned v)
{
	for (unsigned k = 0; k < p->nval[d]; k++)
		if (p->val[d][k] == v)
			return k;
	p->val[d][p->nval[d]] = v;
	return p->nval[d]++;
}

/* the value of cmdprio_class= and cmdprio= in direction @d */
static unsigned implicit(const struct job *j, int d)
{
	unsigned cls = j->cmdprio_class[d] ? j->cmdprio_class[d] : IOPRIO_CLASS_RT;

	return cls << IOPRIO_CLASS_SHIFT | j->cmdprio_level[d];
}

int prio_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;
		struct prio *p;

		if (!prio_per_io(j) && !prio_job_value(j))
			continue;
		if (prio_per_io(j) && s->eng->kind != ENG_URING) {
			snprintf(err, errlen, "job '%s': cmdprio: ioqos sets a priority per "
				 "I/O on io_uring SQEs (ioengine=io_uring or libaio); the %s "
				 "engine has none, as fio's has no cmdprio", j->name,
				 s->eng->name);
			return -EINVAL;
		}
		p = s->prio = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		/* from the stream's seed, without a draw: its offsets stay as
		 * they are */
		rng_seed(&p->rng, s->rng.s[0] ^ 0x2545f4914f6cdd1dull);
		p->base = prio_job_value(j);
		if (!prio_per_io(j))
			continue;
		for (int d = 0; d < 2; d++) {
			add_val(p, d, p->base);
			if (j->cmdprio_pct[d])
				add_val(p, d, implicit(j, d));
			for (unsigned k = 0; k < j->ncmdprio_split[d]; k++) {
				int32_t v = j->cmdprio_split[d][k].ioprio;
				add_val(p, d, v < 0 ? implicit(j, d) : (unsigned)v);
			}
			p->h[d] = calloc(p->nval[d], sizeof(struct hist));
			if (!p->h[d])
				return -ENOMEM;
		}
	}
	(void)err;
	(void)errlen;
	return 0;
}

void prio_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct prio *p = r->streams[i].prio;

		if (!p)
			continue;
		free(p->h[0]);
		free(p->h[1]);
		free(p);
		r->streams[i].prio = NULL;
	}
}

void prio_pick(struct stream *s, struct io *io)
{
	const struct job *j = s->job;
	struct prio *p = s->prio;
	unsigned d = io->dir, share = 0, draw, sum = 0;
	const struct prio_split *sp = j->cmdprio_split[d];
	unsigned first = 0, n = j->ncmdprio_split[d];

	io->ioprio = p ? (uint16_t)p->base : 0;
	io->prio_idx = 0;
	if (!p || !p->h[d])
		return;
	if (j->cmdprio_pct[d]) {
		share = j->cmdprio_pct[d];
	} else {
		while (first < n && sp[first].bs != io->len)
			first++;
		for (unsigned k = first; k < n && sp[k].bs == io->len; k++)
			share += sp[k].pct;
	}
	if (!share)
		return;
	draw = (unsigned)rng_below(&p->rng, 100);
	if (draw >= share)
		return;
	if (j->cmdprio_pct[d]) {
		io->ioprio = (uint16_t)implicit(j, (int)d);
	} else {
		for (unsigned k = first; k < n; k++) {
			sum += sp[k].pct;
			if (draw < sum) {
				io->ioprio = (uint16_t)(sp[k].ioprio < 0 ? implicit(j, (int)d) :
							(unsigned)sp[k].ioprio);
				break;
			}
		}
	}
	io->prio_idx = (uint16_t)add_val(p, (int)d, io->ioprio);
}

void prio_done(struct stream *s, const struct io *io, uint64_t ns)
{
	struct prio *p = s->prio;

	if (p && p->h[io->dir])
		hist_add(&p->h[io->dir][io->prio_idx], ns);
}

int prio_thread(const struct job *j)
{
	unsigned v = prio_job_value(j);

	/* IOPRIO_WHO_PROCESS (1) with 0: the calling thread */
	if (v && syscall(SYS_ioprio_set, 1, 0, (int)v) < 0)
		return -errno;
	return 0;
}

/* is stream @s one of unit @u's clones (report_units' rule)? */
static bool in_unit(const struct stream *s, const struct unit *u)
{
	if (s == u->last)
		return true;
	return u->job->group_reporting && s->job->group_reporting &&
	       s->job->groupid == u->groupid;
}

unsigned prio_unit(const struct runner *r, const struct unit *u, int d,
		   struct prio_hist **out)
{
	struct prio_hist *ph = NULL;
	unsigned n = 0, cap = 0, with = 0;

	*out = NULL;
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct stream *s = &r->streams[i];
		const struct prio *p = s->prio;

		if (!p || !p->h[d] || !in_unit(s, u))
			continue;
		for (unsigned k = 0; k < p->nval[d]; k++) {
			unsigned at = 0;

			while (at < n && ph[at].ioprio != p->val[d][k])
				at++;
			if (at == n) {
				if (n == cap) {
					struct prio_hist *t;

					cap = cap ? 2 * cap : 4;
					t = realloc(ph, cap * sizeof(*ph));
					if (!t) {
						free(ph);
						return 0;
					}
					ph = t;
				}
				memset(&ph[n], 0, sizeof(ph[n]));
				ph[n++].ioprio = p->val[d][k];
			}
			hist_merge(&ph[at].h, &p->h[d][k]);
		}
	}
	/* those with samples, in table order */
	for (unsigned k = 0; k < n; k++)
		if (ph[k].h.n)
			memmove(&ph[with++], &ph[k], sizeof(ph[k]));
	if (!with) {
		free(ph);
		return 0;
	}
	*out = ph;
	return with;
}
