/* SPDX-License-Identifier: MIT */
/*
 * A measured device's speed over time, from the IOPS log fio writes with
 * write_iops_log=NAME and log_avg_msec=MS:
 *
 *     500, 29468, 0, 4096, 0
 *     1000, 29482, 0, 4096, 0
 *     1500, 14711, 0, 4096, 0
 *
 * Each line is "time in ms, value, ..." (fio adds the direction, the block
 * size, the offset and sometimes the priority: whatever follows the value
 * is not read).  With log_avg_msec a line is the mean over the window that
 * ends at its time, so line i holds [t(i-1), t(i)) ms of the run, the first
 * from 0.  The device's speed over that interval is the line's value over
 * the mean of all the values: the log above, with a third line at 14711
 * and no more, runs 1.19 times as fast for a second and then 0.60 times as
 * fast for half of one.  Past the last line's time the log starts again.
 *
 * Everything is checked: times are whole milliseconds, above 0, each above
 * the one before (a log of reads and writes has two lines per time: keep
 * one direction), and under a year (a log_unix_epoch log is refused); a
 * value is a number of at least 0; the mean is above 0.  A zero is allowed
 * (sim_speed.c takes the speed no lower than a thousandth).
 *
 * Known weakness: the mean is of the lines, not weighted by their
 * intervals; fio's lines of one log_avg_msec are of equal length but for
 * the last, so this only matters for a log with a short tail.
 */
#include "sim/sim_log.h"
#include "job/jobfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a year, ms: later times are not of a run (fio's epoch times are) */
#define SIM_LOG_MS_MAX (365ull * 86400 * 1000)

static int why_set(char *why, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return rc;
}

static const char *skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* one field up to ',' or the end: digits[.digits], spaces around it.
 * Returns the text after the field's comma (or its end), NULL if bad */
static const char *field(const char *s, bool frac, double *out)
{
	const char *p = skip_sp(s), *start = p;
	char num[40];
	size_t n;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == start)
		return NULL;
	if (frac && *p == '.') {
		const char *d = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return NULL;
	}
	n = (size_t)(p - start);
	if (n >= sizeof(num))
		return NULL;
	memcpy(num, start, n);
	num[n] = '\0';
	p = skip_sp(p);
	if (*p && *p != ',')
		return NULL;
	*out = strtod(num, NULL);
	return *p ? p + 1 : p;
}

/* the first field of @s, for a message */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t n;

	s = skip_sp(s);
	n = strcspn(s, ",");
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

static struct sim_log *log_alloc(unsigned n)
{
	struct sim_log *l = malloc(sizeof(*l) + (size_t)n * (sizeof(uint64_t) +
							       sizeof(double)));

	if (!l)
		return NULL;
	l->n = n;
	l->period_ns = 0;
	l->end_ns = (uint64_t *)(l + 1);
	l->speed = (double *)(l->end_ns + n);
	return l;
}

struct sim_log *sim_log_dup(const struct sim_log *l)
{
	struct sim_log *c = log_alloc(l->n);

	if (!c)
		return NULL;
	c->period_ns = l->period_ns;
	memcpy(c->end_ns, l->end_ns, l->n * sizeof(*c->end_ns));
	memcpy(c->speed, l->speed, l->n * sizeof(*c->speed));
	return c;
}

void sim_log_free(struct sim_log *l)
{
	free(l);
}

int sim_log_load(const char *path, struct sim_log **out, char *why, size_t whylen)
{
	uint64_t *t = NULL;
	double *v = NULL, sum = 0;
	unsigned n = 0, cap = 0, lineno = 0;
	char *line = NULL, shown_buf[40];
	size_t lcap = 0;
	ssize_t got;
	struct sim_log *l;
	int rc = 0;
	/* a regular file only: a FIFO is not waited on, /dev/zero not read */
	FILE *f = jobfile_fopen(path, &rc, why, whylen);

	if (!f)
		return rc;
	while ((got = getline(&line, &lcap, f)) >= 0) {
		const char *p;
		double ms, val;

		lineno++;
		if (memchr(line, '\0', (size_t)got)) {
			rc = why_set(why, whylen, -EINVAL, "%s:%u: NUL byte in line", path,
				     lineno);
			goto out;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (!*skip_sp(line))
			continue;
		if (n == SIM_LOG_LINES_MAX) {
			rc = why_set(why, whylen, -EINVAL, "%s:%u: more than %u lines", path,
				     lineno, SIM_LOG_LINES_MAX);
			goto out;
		}
		if (!strchr(line, ',')) {
			rc = why_set(why, whylen, -EINVAL, "%s:%u: expected 'msec, value, "
				     "...'", path, lineno);
			goto out;
		}
		p = field(line, false, &ms);
		if (!p || ms > (double)SIM_LOG_MS_MAX) {
			rc = why_set(why, whylen, -EINVAL, "%s:%u: bad time '%s' (whole ms, "
				     "under a year)", path, lineno,
				     shown(line, shown_buf, sizeof(shown_buf)));
			goto out;
		}
		if (!field(p, true, &val) || val > 1e15) {
			rc = why_set(why, whylen, -EINVAL, "%s:%u: bad value '%s'", path,
				     lineno, shown(p, shown_buf, sizeof(shown_buf)));
			goto out;
		}
		if (n ? (uint64_t)ms <= t[n - 1] / 1000000 : ms < 1) {
			rc = why_set(why, whylen, -EINVAL, n ?
				     "%s:%u: time %.0f ms is not after the line before's "
				     "(one direction's log only)" :
				     "%s:%u: time %.0f ms: the first line's time must be "
				     "above 0 (it ends its interval)", path, lineno, ms);
			goto out;
		}
		if (n == cap) {
			unsigned nc = cap ? cap * 2 : 64;
			uint64_t *nt = realloc(t, nc * sizeof(*t));
			double *nv;

			if (nt)
				t = nt;
			nv = nt ? realloc(v, nc * sizeof(*v)) : NULL;
			if (!nv) {
				rc = why_set(why, whylen, -ENOMEM, "%s: out of memory", path);
				goto out;
			}
			v = nv;
			cap = nc;
		}
		t[n] = (uint64_t)ms * 1000000;
		v[n++] = val;
		sum += val;
	}
	if (ferror(f)) {
		rc = why_set(why, whylen, -EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!n || sum <= 0) {
		rc = why_set(why, whylen, -EINVAL, n ? "%s: the values' mean is 0" :
			     "%s: no lines (expected fio's 'msec, value, ...')", path);
		goto out;
	}
	l = log_alloc(n);
	if (!l) {
		rc = why_set(why, whylen, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (unsigned i = 0; i < n; i++) {
		l->end_ns[i] = t[i];
		l->speed[i] = v[i] * n / sum;
	}
	l->period_ns = t[n - 1];
	*out = l;
out:
	free(line);
	free(t);
	free(v);
	fclose(f);
	return rc;
}
