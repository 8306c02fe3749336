/* SPDX-License-Identifier: MIT */
/* fio's per-job figures as a run goes (see fiostat.h). */
#include "run/runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void sampstat_add(struct sampstat *s, double v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->n++;
	s->sum += v;
	s->sumsq += v * v;
}

void sampstat_merge(struct sampstat *dst, const struct sampstat *src)
{
	if (!src->n)
		return;
	if (!dst->n || src->min < dst->min)
		dst->min = src->min;
	if (!dst->n || src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
}

double sampstat_mean(const struct sampstat *s)
{
	return s->n ? s->sum / (double)s->n : 0.0;
}

/* the sample standard deviation, as fio gives it */
double sampstat_dev(const struct sampstat *s)
{
	return sample_stddev(s->n, s->sum, s->sumsq);
}

/* fio's batch buckets: 0, 1-4, 5-8, 9-16, 17-32, 33-64, more */
static unsigned batch_index(uint64_t n)
{
	static const uint64_t top[] = { 0, 4, 8, 16, 32, 64 };

	for (unsigned i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (n <= top[i])
			return i;
	return FS_BATCH_N - 1;
}

/* fio's depth buckets: 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64 and more */
static unsigned depth_index(unsigned n)
{
	unsigned i = 0;

	while (n > 1 && i < FS_DEPTH_N - 1) {
		n >>= 1;
		i++;
	}
	return i;
}

/* one more completion: the same reap if it is not full (or is fio's last,
 * which takes all that is out), else the last reap is counted and a new
 * one starts (batch.c) */
static inline void reap_add(struct jobstat *js)
{
	if (js->cpl_n && (js->cpl_final || js->cpl_n < js->cpl_cap)) {
		js->cpl_n++;
		return;
	}
	jobstat_reap_end(js);
	js->cpl_n = 1;
}

void jobstat_reap_end(struct jobstat *js)
{
	if (js->cpl_n)
		js->complete[batch_index(js->cpl_n)]++;
	js->cpl_n = 0;
}

void jobstat_depth(struct jobstat *js, unsigned inflight, unsigned n)
{
	js->depth[depth_index(inflight)] += n;
}

void jobstat_commit(struct jobstat *js, unsigned n)
{
	js->submit[batch_index(n)]++;
	js->committed += n;
}

/* the bucket of a value against fio's thresholds 2 4 10 20 ... 1000: the
 * first at or above it, from a table (this is done for every completion) */
static unsigned lat_index(uint64_t v)
{
	static const uint8_t first[1001] = {
		[0 ... 2] = 0, [3 ... 4] = 1, [5 ... 10] = 2, [11 ... 20] = 3,
		[21 ... 50] = 4, [51 ... 100] = 5, [101 ... 250] = 6,
		[251 ... 500] = 7, [501 ... 750] = 8, [751 ... 1000] = 9,
	};

	return v <= 1000 ? first[v] : 10;
}

static void lat_bucket(struct jobstat *js, uint64_t clat_ns)
{
	unsigned i;

	if (clat_ns < 1000) {
		js->lat_ns[lat_index(clat_ns)]++;
	} else if (clat_ns < 1000000) {
		js->lat_us[lat_index(clat_ns / 1000)]++;
	} else {
		uint64_t ms = clat_ns / 1000000;

		i = lat_index(ms);
		if (i == FS_LAT_MS_N - 2 && ms > 1000)
			i = ms <= 2000 ? FS_LAT_MS_N - 2 : FS_LAT_MS_N - 1;
		js->lat_ms[i]++;
	}
}

static void log_add(struct logsamp **v, size_t *n, size_t *cap,
		    const struct logsamp *x)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct logsamp *nv = realloc(*v, nc * sizeof(*nv));

		if (!nv)
			return;           /* a log short of memory loses samples */
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = *x;
}

/* close the log windows of direction @d (@len_ns long) that end at or
 * before @now, appending them to @v */
static void close_log(struct jobstat *js, unsigned d, uint64_t len_ns,
		      uint64_t now_ns, struct logsamp **v, size_t *n, size_t *cap)
{
	if (!js->lg_on[d] || !len_ns)
		return;
	while (js->lg_t_ns[d] + len_ns <= now_ns) {
		struct logsamp x = { js->lg_t_ns[d] + len_ns - js->t0_ns,
				     js->lg_bytes[d], js->lg_ios[d], (uint8_t)d };

		log_add(v, n, cap, &x);
		js->lg_bytes[d] = js->lg_ios[d] = 0;
		js->lg_t_ns[d] += len_ns;
	}
}

/* close the sample windows of direction @d that end at or before @now */
static void close_windows(struct jobstat *js, struct dirstat *st, unsigned d,
			  uint64_t now_ns)
{
	const double secs = (double)FS_SAMPLE_NS / 1e9;

	if (!js->samp_on[d])
		return;
	while (js->samp_t_ns[d] + FS_SAMPLE_NS <= now_ns) {
		sampstat_add(&st->bw, (double)js->samp_bytes[d] / secs);
		sampstat_add(&st->iops, (double)js->samp_ios[d] / secs);
		js->samp_bytes[d] = js->samp_ios[d] = 0;
		js->samp_t_ns[d] += FS_SAMPLE_NS;
	}
}

void jobstat_done(struct jobstat *js, const struct job *j, struct dirstat *st,
		  unsigned dir, uint64_t stats_start_ns, uint64_t submit_ns,
		  uint64_t issue_ns, uint64_t now_ns, uint64_t len)
{
	/* averaged logs only: those of every I/O are iolog.c's */
	bool logs = (j->write_bw_log || j->write_iops_log) && j->log_avg_ns;

	if (issue_ns < submit_ns || issue_ns > now_ns)
		issue_ns = submit_ns;       /* never issued: all of it is held */
	st->ios++;
	st->bytes += len;
	/* disable_lat= and friends: not measured, reported as zeros */
	if (!j->disable_lat)
		hist_add(&st->lat, now_ns - submit_ns);
	if (!j->disable_slat)
		hist_add(&st->slat, issue_ns - submit_ns);
	if (!j->disable_clat) {
		hist_add(&st->clat, now_ns - issue_ns);
		lat_bucket(js, now_ns - issue_ns);
	}
	if (!js->samp_on[dir]) {
		js->samp_on[dir] = 1;
		js->samp_t_ns[dir] = stats_start_ns;
		js->t0_ns = stats_start_ns;
		js->lg_on[dir] = logs;
		js->lg_t_ns[dir] = stats_start_ns;
	}
	close_windows(js, st, dir, now_ns);
	if (logs) {
		close_log(js, dir, j->log_avg_ns, now_ns, &js->log, &js->nlog, &js->caplog);
		js->lg_bytes[dir] += len;
		js->lg_ios[dir]++;
	}
	js->samp_bytes[dir] += len;
	js->samp_ios[dir]++;
	reap_add(js);
}

static void add_u64(uint64_t *dst, const uint64_t *src, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		dst[i] += src[i];
}

void jobstat_merge(struct jobstat *ujs, struct dirstat *ust,
		   const struct jobstat *js, const struct dirstat *st,
		   uint64_t end_ns)
{
	struct jobstat c = *js;

	for (unsigned d = 0; d < FS_DIR_N; d++) {
		struct dirstat s = st[d];

		close_windows(&c, &s, d, end_ns);
		ust[d].ios += s.ios;
		ust[d].bytes += s.bytes;
		ust[d].short_ios += s.short_ios;
		ust[d].err_ios += s.err_ios;
		ust[d].piece_ios += s.piece_ios;
		hist_merge(&ust[d].lat, &s.lat);
		hist_merge(&ust[d].slat, &s.slat);
		hist_merge(&ust[d].clat, &s.clat);
		sampstat_merge(&ust[d].bw, &s.bw);
		sampstat_merge(&ust[d].iops, &s.iops);
	}
	if (c.cpl_n)
		c.complete[batch_index(c.cpl_n)]++;
	add_u64(ujs->lat_ns, c.lat_ns, FS_LAT_NS_N);
	add_u64(ujs->lat_us, c.lat_us, FS_LAT_US_N);
	add_u64(ujs->lat_ms, c.lat_ms, FS_LAT_MS_N);
	add_u64(ujs->depth, c.depth, FS_DEPTH_N);
	add_u64(ujs->submit, c.submit, FS_BATCH_N);
	ujs->committed += c.committed;
	add_u64(ujs->complete, c.complete, FS_BATCH_N);
}

struct logsamp *jobstat_log(const struct jobstat *js, uint64_t len_ns,
			    uint64_t end_ns, size_t *n)
{
	struct jobstat c = *js;
	struct logsamp *v = NULL;
	size_t nv = 0, cap = 0;

	for (size_t i = 0; i < js->nlog; i++)
		log_add(&v, &nv, &cap, &js->log[i]);
	for (unsigned d = 0; d < FS_DIR_N; d++)
		close_log(&c, d, len_ns, end_ns, &v, &nv, &cap);
	*n = nv;
	return v;
}

void jobstat_free(struct jobstat *js)
{
	free(js->log);
	js->log = NULL;
	js->nlog = js->caplog = 0;
}

void cpustat_now(struct cpustat *c)
{
	struct rusage ru;

	memset(c, 0, sizeof(*c));
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	c->usr_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	c->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	c->ctx = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	c->majf = (uint64_t)ru.ru_majflt;
	c->minf = (uint64_t)ru.ru_minflt;
}

void cpustat_diff(struct cpustat *out, const struct cpustat *a,
		  const struct cpustat *b)
{
	out->usr_s = b->usr_s - a->usr_s;
	out->sys_s = b->sys_s - a->sys_s;
	out->ctx = b->ctx - a->ctx;
	out->majf = b->majf - a->majf;
	out->minf = b->minf - a->minf;
}
