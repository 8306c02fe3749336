/* SPDX-License-Identifier: MIT */
/*
 * The options of the features that act as a job runs (feat/), read into
 * struct job and checked with the job: values only, nothing of running.
 * The option table (jobopts.c) names these readers in its rows and the
 * job's check (jobcheck.c) calls the checks; what each option does at run
 * time is in the file named at each section here.
 */
#include "job/jobopts_feat.h"

#include "job/idlist.h"
#include "job/jobopts.h"
#include "job/jobplan.h"

#include <errno.h>
#include <linux/mempolicy.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- I/O priorities (feat/prio.c) ---- */

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

int prio_set_pct(struct job *j, const struct opt *o, const char *v, char *why,
		 size_t whylen)
{
	if (!int_pair(v, 0, 100, j->cmdprio_pct))
		return 0;
	snprintf(why, whylen, "expected a percentage 0..100, or READ,WRITE");
	return -EINVAL;
}

int prio_set_class(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen)
{
	if (!int_pair(v, 1, 3, j->cmdprio_class))
		return 0;
	snprintf(why, whylen, "expected a class 1..3 (real-time, best effort, idle), "
		 "or READ,WRITE");
	return -EINVAL;
}

int prio_set_level(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen)
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

int prio_set_bssplit(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen)
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

/* ---- CPU and NUMA placement (feat/placement.c) ---- */

static int set_mem_policy(struct job *j, const char *v, char *why, size_t whylen)
{
	static const char *const modes[] = {
		[MPOL_DEFAULT] = "default", [MPOL_PREFERRED] = "prefer",
		[MPOL_BIND] = "bind", [MPOL_INTERLEAVE] = "interleave",
		[MPOL_LOCAL] = "local",
	};
	const char *colon = strchr(v, ':'), *list = colon ? colon + 1 : NULL;
	size_t len = colon ? (size_t)(colon - v) : strlen(v);
	unsigned m;
	struct idset n;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		if (strlen(modes[m]) == len && !strncmp(v, modes[m], len))
			break;
	if (m == sizeof(modes) / sizeof(modes[0])) {
		snprintf(why, whylen, "memory policy should be: default, prefer, bind, "
			 "interleave, local (fio's words)");
		return -EINVAL;
	}
	memset(&n, 0, sizeof(n));
	switch (m) {
	case MPOL_PREFERRED:
		if (!list || !list[0] || strspn(list, "0123456789") != strlen(list)) {
			snprintf(why, whylen, "one node is needed for 'prefer', such as prefer:0");
			return -EINVAL;
		}
		break;
	case MPOL_BIND:
		if (!list) {
			snprintf(why, whylen, "a node list is needed for 'bind', such as bind:0");
			return -EINVAL;
		}
		break;
	case MPOL_INTERLEAVE:
		if (!list)
			list = "all";
		break;
	default:
		if (list) {
			snprintf(why, whylen, "no node list for '%s'", modes[m]);
			return -EINVAL;
		}
		break;
	}
	if (list && nodes_parse(&n, list, why, whylen))
		return -EINVAL;
	j->mem_mode = m;
	j->mem_nodes = n;
	return 0;
}

int place_set(struct job *j, const struct opt *o, const char *v, char *why,
	      size_t whylen)
{
	struct idset n;
	uint64_t m;
	const char *end;

	memset(&n, 0, sizeof(n));
	switch (o->id) {
	case JO_CPUS_ALLOWED:
		if (ids_parse(v, n.bits, "CPU", why, whylen))
			return -EINVAL;
		j->cpus = n;
		j->cpus_mask = false;
		return 0;
	case JO_CPUMASK:
		/* fio reads it as an int: a bit for each of the first 32 CPUs */
		if (parse_uint(v, &end, &m) || *end || !m || m > UINT32_MAX) {
			snprintf(why, whylen, "expected a mask of CPUs 0..31 such as 0x3, "
				 "not 0 (use cpus_allowed= for more)");
			return -EINVAL;
		}
		for (unsigned i = 0; i < 32; i++)
			if ((m >> i) & 1)
				ids_set(n.bits, i);
		j->cpus = n;
		j->cpus_mask = true;
		return 0;
	case JO_CPUS_ALLOWED_POLICY:
		if (strcmp(v, "shared") && strcmp(v, "split")) {
			snprintf(why, whylen, "expected shared or split");
			return -EINVAL;
		}
		j->cpus_split = !strcmp(v, "split");
		return 0;
	case JO_NUMA_CPU_NODES:
		if (nodes_parse(&n, v, why, whylen))
			return -EINVAL;
		j->cpu_nodes = n;
		return 0;
	case JO_NUMA_MEM_POLICY:
		return set_mem_policy(j, v, why, whylen);
	default:
		break;
	}
	return -EINVAL;
}

/* ---- steady state (feat/steady.c) ---- */

int steady_set(struct job *j, const struct opt *o, const char *v, char *why,
	       size_t whylen)
{
	static const struct { const char *s; bool iops, slope; } kinds[] = {
		{ "iops", true, false }, { "iops_slope", true, true },
		{ "bw", false, false }, { "bw_slope", false, true },
	};
	const char *colon = strchr(v, ':');
	size_t len = colon ? (size_t)(colon - v) : strlen(v);
	char num[64], *end;
	size_t n;
	double x;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].s) != len || strncmp(v, kinds[i].s, len))
			continue;
		if (!colon || !colon[1] || strlen(colon + 1) >= sizeof(num))
			break;
		snprintf(num, sizeof(num), "%s", colon + 1);
		n = strlen(num);
		j->ss_pct = num[n - 1] == '%';
		if (j->ss_pct)
			num[n - 1] = '\0';
		if (!j->ss_pct && !kinds[i].iops) {
			uint64_t b;

			/* a bandwidth limit takes fio's size suffixes */
			if (parse_size(num, &b))
				break;
			x = (double)b;
		} else {
			x = strtod(num, &end);
			if (end == num || *end || !(x >= 0) || isinf(x))
				break;
		}
		j->ss_iops = kinds[i].iops;
		j->ss_slope = kinds[i].slope;
		j->ss_limit = x;
		return 0;
	}
	if (len == 3 && !strncmp(v, "lat", 3)) {
		snprintf(why, whylen, "a steady state of latency is newer than fio 3.33, "
			 "whose options ioqos follows (iops, iops_slope, bw, bw_slope)");
		return -EINVAL;
	}
	snprintf(why, whylen, "expected iops, iops_slope, bw or bw_slope, then ':' and "
		 "a limit, in percent with '%%'");
	return -EINVAL;
}

/* ---- error policy (feat/errpolicy.c) ---- */

/* fio's str2error() table: index + 1 is the errno (Linux's numbering) */
static const char *const err_names[] = {
	"EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC",
	"EBADF", "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK",
	"EBUSY", "EEXIST", "EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL",
	"ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE",
	"EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
};

int errpol_set_coe(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen)
{
	static const struct { const char *s; unsigned bits; } vals[] = {
		{ "none", 0 }, { "0", 0 }, { "read", ERRT_F_READ },
		{ "write", ERRT_F_WRITE }, { "io", ERRT_F_READ | ERRT_F_WRITE },
		{ "verify", ERRT_F_VERIFY }, { "all", ERRT_F_ANY }, { "1", ERRT_F_ANY },
	};

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (!strcmp(v, vals[i].s)) {
			j->coe = vals[i].bits;
			return 0;
		}
	snprintf(why, whylen, "expected none, read, write, io, verify, all, 0 or 1");
	return -EINVAL;
}

/* one errno of a list: fio's name or a number (its sign dropped) */
static int err_number(const char *e, unsigned *out)
{
	char *end;
	long n;

	if (e[0] == 'E') {
		for (size_t i = 0; i < sizeof(err_names) / sizeof(err_names[0]); i++)
			if (!strcmp(e, err_names[i])) {
				*out = (unsigned)i + 1;
				return 0;
			}
		return -EINVAL;
	}
	n = strtol(e, &end, 10);
	if (end == e || *end || n == 0 || n > 4095 || n < -4095)
		return -EINVAL;
	*out = (unsigned)(n < 0 ? -n : n);
	return 0;
}

int errpol_set_ignore(struct job *j, const struct opt *o, const char *v,
		      char *why, size_t whylen)
{
	uint16_t list[ERRT_N][IGNERR_MAX];
	unsigned nlist[ERRT_N] = { 0 }, t = 0;
	char buf[1024], *p = buf;

	if (strlen(v) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", v);
	while (p) {
		char *comma = strchr(p, ','), *save = NULL;

		if (comma)
			*comma = '\0';
		if (t == ERRT_N)
			goto bad;
		for (char *e = strtok_r(p, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
			unsigned n;

			if (nlist[t] == IGNERR_MAX || err_number(e, &n))
				goto bad;
			list[t][nlist[t]++] = (uint16_t)n;
		}
		p = comma ? comma + 1 : NULL;
		t++;
	}
	for (t = 0; t < ERRT_N; t++) {
		if (!nlist[t])
			continue;
		memcpy(j->ignore_err[t], list[t], sizeof(list[t][0]) * nlist[t]);
		j->nignore[t] = nlist[t];
		j->coe |= 1u << t;
	}
	return 0;
bad:
	snprintf(why, whylen, "expected READ,WRITE,VERIFY lists of errors joined by ':', "
		 "each EPERM..ERANGE or a number (at most %d a list)", IGNERR_MAX);
	return -EINVAL;
}

/* ---- buffer contents (feat/bufgen.c) ---- */

int bufgen_set_mode(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen)
{
	static const char *const ok[] = { "repeat", "working_set", NULL };
	int rc = opt_only(v, ok, "expected repeat or working_set", why, whylen);

	if (!rc)
		j->dedupe_ws = !strcmp(v, "working_set");
	return rc;
}

int bufgen_check(const struct job *j, char *why, size_t whylen)
{
	if (!j->dedupe_pct || !j->dedupe_ws)
		return 0;
	if (!job_isset(j, JO_SIZE)) {
		snprintf(why, whylen, "dedupe_mode=working_set needs size= (as in fio)");
		return -EINVAL;
	}
	if (j->nrfiles != 1 || (j->filename && strchr(j->filename, ':'))) {
		snprintf(why, whylen, "dedupe_mode=working_set takes one file per job "
			 "(as in fio)");
		return -EINVAL;
	}
	if (j->dedupe_pct + j->dedupe_ws_pct > 100) {
		snprintf(why, whylen, "dedupe_percentage=%u cannot be reached: "
			 "dedupe_working_set_percentage=%u of the size is unique",
			 j->dedupe_pct, j->dedupe_ws_pct);
		return -EINVAL;
	}
	return 0;
}

/* ---- latency target (feat/lattarget.c) ---- */

int lattarget_set_pct(struct job *j, const struct opt *o, const char *v,
		      char *why, size_t whylen)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !(x > 0) || x > 100) {
		snprintf(why, whylen, "expected a percentage above 0, at most 100");
		return -EINVAL;
	}
	j->latency_pct = x;
	return 0;
}
