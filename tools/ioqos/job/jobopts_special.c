/* SPDX-License-Identifier: MIT */
/*
 * The readers of fio options whose values have a syntax of their own
 * (type V_SPECIAL in jobopts.c's table, whose rows name them): rw=,
 * ioengine=, file_service_type=, nice=, the log prefixes, and the options
 * whose other values are refused with a reason.  The families with more
 * to read have files of their own (jobopts_size.c, jobopts_pattern.c,
 * jobopts_pct.c, jobopts_feat.c); each reader calls only below the table
 * (jobvalue.c), never back into it.
 */
#include "job/jobopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the values of the options that take one only (opt_only()) */
static const char *const one[] = { "1", NULL };
static const char *const zero[] = { "0", NULL };

int opt_set_engine(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen)
{
	static const struct { const char *fio; enum engine_kind e; } map[] = {
		{ "io_uring", ENG_URING }, { "libaio", ENG_URING },
		{ "posixaio", ENG_URING }, { "psync", ENG_PSYNC },
		{ "sync", ENG_PSYNC }, { "vsync", ENG_PSYNC }, { "pvsync", ENG_PSYNC },
		{ "pvsync2", ENG_PSYNC }, { "mmap", ENG_PSYNC }, { "null", ENG_NULL },
		{ "sim", ENG_SIM },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(v, map[i].fio)) {
			j->engine = map[i].e;
			snprintf(j->engine_fio, sizeof(j->engine_fio), "%s", v);
			j->fio_libaio = !strcmp(v, "libaio");
			return 0;
		}
	snprintf(why, whylen, "ioqos runs io_uring, libaio and posixaio (on io_uring), "
		 "sync, psync, vsync, pvsync, pvsync2 and mmap (on psync), null and sim; "
		 "not the '%.24s' engine", v);
	return -EINVAL;
}

int opt_set_rw(struct job *j, const struct opt *o, const char *v, char *why,
	       size_t whylen)
{
	static const struct { const char *s; enum rw_mode m; } modes[] = {
		{ "read", RW_READ }, { "write", RW_WRITE },
		{ "randread", RW_RANDREAD }, { "randwrite", RW_RANDWRITE },
		{ "rw", RW_RW }, { "readwrite", RW_RW }, { "randrw", RW_RANDRW },
		{ "trim", RW_TRIM }, { "randtrim", RW_RANDTRIM },
		{ "trimwrite", RW_TRIMWRITE }, { "randtrimwrite", RW_RANDTRIMWRITE },
	};
	const char *colon = strchr(v, ':');
	size_t len = colon ? (size_t)(colon - v) : strlen(v);

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		uint64_t n = 0;
		bool neg = false;
		const char *a = colon ? colon + 1 : NULL;

		if (strlen(modes[i].s) != len || strncmp(v, modes[i].s, len))
			continue;
		if (a) {
			struct job t = { .rw = modes[i].m };
			bool random = job_rand_mode(&t);
			const char *end;

			if (*a == '-' && !random) {
				neg = true;
				a++;
			}
			if (random ? parse_uint(a, &end, &n) || *end || !n : parse_size(a, &n) ||
			    n > (1ull << 62)) {
				snprintf(why, whylen, random ? "':N' is the number of I/Os per new "
					 "random offset, N >= 1" : "':N' is a size to skip after "
					 "each I/O, such as :8k or :-8k");
				return -EINVAL;
			}
		}
		j->rw = modes[i].m;
		j->rw_mod = neg ? (uint64_t)-(int64_t)n : n;
		return 0;
	}
	snprintf(why, whylen, "expected read, write, randread, randwrite, rw, readwrite, "
		 "randrw, trim, randtrim, trimwrite or randtrimwrite, optionally with :N");
	return -EINVAL;
}

static int set_uint_range(const char *v, uint64_t hi, uint64_t *out, char *why,
			  size_t whylen)
{
	const char *end;

	if (parse_uint(v, &end, out) || *end || *out > hi) {
		snprintf(why, whylen, "expected 0..%llu", (unsigned long long)hi);
		return -EINVAL;
	}
	return 0;
}

int opt_set_rwmix(struct job *j, const struct opt *o, const char *v, char *why,
		  size_t whylen)
{
	uint64_t n;

	if (set_uint_range(v, 100, &n, why, whylen))
		return -EINVAL;
	j->rwmixread = o->id == JO_RWMIXREAD ? (unsigned)n : 100 - (unsigned)n;
	return 0;
}

int opt_set_prio(struct job *j, const struct opt *o, const char *v, char *why,
		 size_t whylen)
{
	uint64_t n;

	if (set_uint_range(v, 7, &n, why, whylen))
		return -EINVAL;
	j->prio = (int)n;
	return 0;
}

int opt_set_prioclass(struct job *j, const struct opt *o, const char *v,
		      char *why, size_t whylen)
{
	uint64_t n;

	if (set_uint_range(v, 3, &n, why, whylen))
		return -EINVAL;
	j->prioclass = (int)n;
	return 0;
}

int opt_set_nice(struct job *j, const struct opt *o, const char *v, char *why,
		 size_t whylen)
{
	/* fio's range, -20..19 */
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (!*v || *end || errno || x < -20 || x > 19) {
		snprintf(why, whylen, "expected a niceness from -20 to 19");
		return -EINVAL;
	}
	j->nice = (int)x;
	return 0;
}

int opt_set_buffered(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen)
{
	bool b;

	if (v && parse_bool(v, &b)) {
		snprintf(why, whylen, "expected 0 or 1");
		return -EINVAL;
	}
	j->direct = v ? !b : false;
	return 0;
}

int opt_set_gtod_reduce(struct job *j, const struct opt *o, const char *v,
			char *why, size_t whylen)
{
	bool b;

	if (v && parse_bool(v, &b)) {
		snprintf(why, whylen, "expected 0 or 1");
		return -EINVAL;
	}
	b = v ? b : true;
	j->disable_lat = j->disable_clat = j->disable_slat = b;
	return 0;
}

int opt_set_fst(struct job *j, const struct opt *o, const char *v, char *why,
		size_t whylen)
{
	const char *colon = strchr(v, ':'), *end;
	size_t len = colon ? (size_t)(colon - v) : strlen(v);
	enum file_service f;
	uint64_t n;

	if (len == 10 && !strncmp(v, "roundrobin", len))
		f = FST_ROUNDROBIN;
	else if (len == 10 && !strncmp(v, "sequential", len))
		f = FST_SEQUENTIAL;
	else if (len == 6 && !strncmp(v, "random", len))
		f = FST_RANDOM;
	else {
		snprintf(why, whylen, "supported: random, roundrobin, sequential (with :N)");
		return -EINVAL;
	}
	n = 1;
	if (colon && (parse_uint(colon + 1, &end, &n) || *end || n < 1 || n > 1000000000)) {
		snprintf(why, whylen, "bad ':N'");
		return -EINVAL;
	}
	j->fst = f;
	j->fst_n = (unsigned)n;
	return 0;
}

int opt_set_rw_sequencer(struct job *j, const struct opt *o, const char *v,
			 char *why, size_t whylen)
{
	/* fio's get_next_block(): identical reuses the last offset */
	if (strcmp(v, "sequential") && strcmp(v, "identical")) {
		snprintf(why, whylen, "expected sequential or identical");
		return -EINVAL;
	}
	j->rw_ident = !strcmp(v, "identical");
	return 0;
}

int opt_set_submit_mode(struct job *j, const struct opt *o, const char *v,
			char *why, size_t whylen)
{
	/* offload: submission times that follow the rate, not the
	 * completions, which ioqos's timers give inline (ratepoisson.c) */
	static const char *const ok[] = { "inline", "offload", NULL };
	return opt_only(v, ok, "expected inline or offload", why, whylen);
}

int opt_set_rate_process(struct job *j, const struct opt *o, const char *v,
			 char *why, size_t whylen)
{
	static const char *const ok[] = { "linear", "poisson", NULL };
	int rc = opt_only(v, ok, "expected linear or poisson", why, whylen);

	if (!rc)
		j->rate_poisson = !strcmp(v, "poisson");
	return rc;
}

int opt_set_log(struct job *j, const struct opt *o, const char *v, char *why,
		size_t whylen)
{
	char **p = o->id == JO_WRITE_BW_LOG ? &j->bw_log :
		   o->id == JO_WRITE_IOPS_LOG ? &j->iops_log : &j->lat_log;
	char *c = strdup(v && v[0] ? v : j->name);

	if (!c)
		return -ENOMEM;
	free(*p);
	*p = c;
	if (o->id == JO_WRITE_BW_LOG)
		j->write_bw_log = true;
	else if (o->id == JO_WRITE_IOPS_LOG)
		j->write_iops_log = true;
	else
		j->write_lat_log = true;
	return 0;
}

int opt_set_zonemode(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen)
{
	if (!strcmp(v, "none")) {
		j->strided = false;
		return 0;
	}
	if (!strcmp(v, "strided")) {
		j->strided = true;
		return 0;
	}
	snprintf(why, whylen, "supported: none, strided (ioqos does not manage "
		 "zoned block devices)");
	return -EINVAL;
}

int opt_set_verify_size(struct job *j, const struct opt *o, const char *v,
			char *why, size_t whylen)
{
	uint64_t n;

	if (parse_size(v, &n) || n < o->lo || n > o->hi) {
		snprintf(why, whylen, "expected a size of %llu bytes or more",
			 (unsigned long long)o->lo);
		return -EINVAL;
	}
	*(o->id == JO_VERIFY_INTERVAL ? &j->verify_interval : &j->verify_offset) = n;
	return 0;
}

int opt_set_vstate_save(struct job *j, const struct opt *o, const char *v,
			char *why, size_t whylen)
{
	return opt_only(v ? v : "1", zero, "ioqos writes no verify state file when a "
		    "run is stopped (fio's JOB-N-verify.state)", why, whylen);
}

int opt_set_vstate_load(struct job *j, const struct opt *o, const char *v,
			char *why, size_t whylen)
{
	return opt_only(v ? v : "1", zero, "ioqos reads no verify state file (fio's "
		    "JOB-N-verify.state)", why, whylen);
}

int opt_set_exp_verify(struct job *j, const struct opt *o, const char *v,
		       char *why, size_t whylen)
{
	return opt_only(v ? v : "1", zero, "fio's experimental_verify (replaying the "
		    "offsets instead of logging the writes) is not run: ioqos logs "
		    "the writes, as fio does by default", why, whylen);
}

int opt_set_tt_blocks(struct job *j, const struct opt *o, const char *v,
		      char *why, size_t whylen)
{
	const char *end;
	uint64_t n;

	if (parse_uint(v, &end, &n) || *end || n < 1 || n > UINT32_MAX) {
		snprintf(why, whylen, "expected an integer 1..%u", UINT32_MAX);
		return -EINVAL;
	}
	j->thinktime_blocks = (unsigned)n;
	j->thinktime_blocks_set = true;
	return 0;
}

int opt_set_tt_blocks_type(struct job *j, const struct opt *o, const char *v,
			   char *why, size_t whylen)
{
	static const char *const ok[] = { "complete", "issue", NULL };
	int rc = opt_only(v, ok, "expected complete or issue", why, whylen);

	if (!rc)
		j->thinktime_issue = !strcmp(v, "issue");
	return rc;
}

int opt_set_exit_what(struct job *j, const struct opt *o, const char *v,
		      char *why, size_t whylen)
{
	static const char *const ok[] = { "group", "stonewall", "all", NULL };
	int rc = opt_only(v, ok, "expected group, stonewall or all", why, whylen);

	if (!rc)
		j->exit_what = !strcmp(v, "all") ? EXIT_ALL : !strcmp(v, "stonewall") ?
			       EXIT_STONEWALL : EXIT_GROUP;
	return rc;
}

int opt_set_ignored(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen)
{
	/* fio ignores these (soft-deprecated), and so does ioqos */
	return 0;
}

int opt_set_flow_sleep(struct job *j, const struct opt *o, const char *v,
		       char *why, size_t whylen)
{
	const char *end;
	uint64_t n;

	if (parse_uint(v, &end, &n) || *end || n > JOB_TIME_MAX_NS / 1000) {
		snprintf(why, whylen, "expected microseconds");
		return -EINVAL;
	}
	j->flow_sleep_ns = n * 1000;
	return 0;
}

int opt_set_clat_pct(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen)
{
	return opt_only(v, one, "ioqos always reports clat percentiles", why, whylen);
}

int opt_set_kb_base(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen)
{
	static const char *const ok[] = { "1024", NULL };
	return opt_only(v, ok, "ioqos reads sizes with fio's default kb_base=1024 only",
		    why, whylen);
}

int opt_set_file_create(struct job *j, const struct opt *o, const char *v,
			char *why, size_t whylen)
{
	return opt_only(v, one, "ioqos creates a missing file", why, whylen);
}

int opt_set_rand_gen(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen)
{
	static const char *const ok[] = { "tausworthe", "lfsr", "tausworthe64", NULL };
	int rc = opt_only(v, ok, "expected tausworthe, lfsr or tausworthe64", why, whylen);

	/* every generator is ioqos's own, so offsets never repeat fio's;
	 * lfsr's promise, no offset twice in a pass, is the random map's */
	if (!rc)
		j->lfsr = !strcmp(v, "lfsr");
	return rc;
}
