/* SPDX-License-Identifier: MIT */
/*
 * Block sizes and offsets in fio's syntax: a size per direction
 * ("read,write[,trim]"), bsrange= and bssplit=, and random_distribution=.
 */
#include "job/jobopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* split @v at ',' into at most 3 parts (read, write, trim) in @part */
int opt_split3(const char *v, char part[3][256], unsigned *n)
{
	unsigned k = 0;

	for (;;) {
		size_t len = strcspn(v, ",");

		if (k == 3 || len >= 256)
			return -EINVAL;
		memcpy(part[k], v, len);
		part[k][len] = '\0';
		k++;
		if (!v[len])
			break;
		v += len + 1;
	}
	*n = k;
	return 0;
}

/*
 * "a,b,c": read, write and trim sides, as fio's parser fills them: the
 * values in order, the last one given also for the sides after it (one
 * value sets all three, "4k,8k" gives trims 8k), an empty side keeping
 * what it had.  *@third: whether the trim side was given itself.
 */
int opt_parse_pair(const char *v, uint64_t out[3], bool *third)
{
	char part[3][256];
	uint64_t val[3] = { out[0], out[1], out[2] };
	unsigned n;

	if (opt_split3(v, part, &n))
		return -EINVAL;
	/* fio drops a comma at the end: "4k," is "4k" */
	if (n > 1 && !part[n - 1][0] && v[strlen(v) - 1] == ',' &&
	    (n == 2 || v[strlen(v) - 2] != ','))
		n--;
	for (unsigned k = 0; k < n; k++)
		if (part[k][0] && parse_size(part[k], &val[k]))
			return -EINVAL;
	if (n > 1 && !part[0][0] && !part[1][0] && !(n == 3 && part[2][0]))
		return -EINVAL;
	for (unsigned k = n; k < 3; k++)
		if (part[n - 1][0])
			val[k] = val[n - 1];
	out[0] = val[0];
	out[1] = val[1];
	out[2] = val[2];
	*third = n == 3 && part[2][0];
	return 0;
}

/*
 * size=, offset=, offset_increment= and io_size= as N% (fio's percent
 * forms, 1..100, of each file's size; resolved in runner_plan.c): true
 * when @v was one of them or was refused (*@rc 0 or -EINVAL, @why); a
 * value in bytes clears the option's percentage
 */
bool opt_size_pct(struct job *j, int id, const char *v, int *rc, char *why,
		  size_t whylen)
{
	uint8_t *pct = id == JO_SIZE ? &j->size_pct : id == JO_OFFSET ? &j->offset_pct :
		       id == JO_OFFSET_INCREMENT ? &j->offset_inc_pct :
		       id == JO_IO_SIZE ? &j->io_size_pct : NULL;
	size_t n = v ? strlen(v) : 0;
	const char *end;
	uint64_t x;

	if (!pct)
		return false;
	*pct = 0;
	if (!n || v[n - 1] != '%')
		return false;
	*rc = -EINVAL;
	if (parse_uint(v, &end, &x) || end != v + n - 1 || x < 1 || x > 100) {
		snprintf(why, whylen, "expected a percentage of the file's size, 1%%..100%%");
		return true;
	}
	*pct = (uint8_t)x;
	/* the bytes form is unset: the size is the file's share */
	if (id == JO_SIZE)
		j->size = 0;
	else if (id == JO_OFFSET)
		j->offset = 0;
	else if (id == JO_OFFSET_INCREMENT)
		j->offset_increment = 0;
	else
		j->io_size = 0;
	*rc = 0;
	return true;
}

int opt_io_too_large(char *why, size_t whylen)
{
	snprintf(why, whylen, "larger than %llu bytes, the most one I/O carries "
		 "(Linux's largest single read or write)",
		 (unsigned long long)IO_BYTES_MAX);
	return -EINVAL;
}

/* bsrange=4k-64k[,8k-16k[,4k-8k]]: read, write, trim */
int opt_set_bsrange(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen)
{
	char part[3][256];
	unsigned n;

	if (opt_split3(v, part, &n))
		goto bad;
	for (unsigned k = 0; k < n; k++) {
		char *dash = strchr(part[k], '-');
		uint64_t lo, hi;

		if (!part[k][0])
			continue;
		if (!dash)
			goto bad;
		*dash = '\0';
		if (parse_size(part[k], &lo) || parse_size(dash + 1, &hi) || !lo || lo > hi)
			goto bad;
		if (hi > IO_BYTES_MAX)
			return opt_io_too_large(why, whylen);
		/* the last one given is also the sides' after it, as in fio */
		for (unsigned d = k; d < 3; d++)
			if (d == k || d >= n) {
				j->bs_min[d] = lo;
				j->bs_max[d] = hi;
			}
	}
	return 0;
bad:
	snprintf(why, whylen, "expected MIN-MAX sizes per direction, such as 4k-64k,8k-16k");
	return -EINVAL;
}

/* bssplit=4k/10:64k/50:32k/40[,write list[,trim list]]; a share left out takes an
 * equal part of what the others leave */
static int split_one(struct bs_split *sp, unsigned *nsp, char *list)
{
	unsigned n = 0, open = 0, sum = 0;
	char *save = NULL;

	for (char *e = strtok_r(list, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(e, '/');
		uint64_t bs, pct = 0;
		const char *end;

		if (n == BSSPLIT_MAX)
			return -EINVAL;
		if (slash)
			*slash = '\0';
		if (parse_size(e, &bs) || !bs)
			return -EINVAL;
		if (slash && slash[1]) {
			if (parse_uint(slash + 1, &end, &pct) || *end || pct > 100)
				return -EINVAL;
		} else {
			open++;
			pct = UINT32_MAX;
		}
		sp[n].bs = bs;
		sp[n].pct = (uint32_t)pct;
		if (pct != UINT32_MAX)
			sum += (unsigned)pct;
		n++;
	}
	if (!n || sum > 100 || (!open && sum != 100))
		return -EINVAL;
	for (unsigned k = 0, given = 0; k < n; k++)
		if (sp[k].pct == UINT32_MAX) {
			/* the last open entry takes the rounding */
			unsigned share = (100 - sum) / open;
			sp[k].pct = ++given == open ? 100 - sum - share * (open - 1) : share;
		}
	*nsp = n;
	return 0;
}

int opt_set_bssplit(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen)
{
	char part[3][256];
	unsigned n;

	if (opt_split3(v, part, &n))
		goto bad;
	for (unsigned k = 0; k < n; k++) {
		if (!part[k][0])
			continue;
		if (split_one(j->split[k], &j->nsplit[k], part[k]))
			goto bad;
		for (unsigned e = 0; e < j->nsplit[k]; e++)
			if (j->split[k][e].bs > IO_BYTES_MAX)
				return opt_io_too_large(why, whylen);
		/* the last list given is also the sides' after it */
		for (unsigned d = n; k == n - 1 && d < 3; d++) {
			memcpy(j->split[d], j->split[k], sizeof(j->split[k]));
			j->nsplit[d] = j->nsplit[k];
		}
	}
	return 0;
bad:
	snprintf(why, whylen, "expected SIZE/PERCENT:SIZE/PERCENT... per direction, "
		 "the percentages adding up to 100");
	return -EINVAL;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	if (!s[0])
		return -EINVAL;
	*out = strtod(s, &end);
	return *end ? -EINVAL : 0;
}

int opt_set_dist(struct job *j, const struct opt *o, const char *v, char *why,
		 size_t whylen)
{
	const char *colon = strchr(v, ':'), *arg = colon ? colon + 1 : NULL;
	size_t len = colon ? (size_t)(colon - v) : strlen(v);
	double x;

	if (len == 6 && !strncmp(v, "random", len) && !arg) {
		j->dist = DIST_RANDOM;
		return 0;
	}
	if (len == 4 && !strncmp(v, "zipf", len)) {
		if (!arg || parse_double(arg, &x) || x <= 0 || x == 1.0)
			goto bad;
		j->dist = DIST_ZIPF;
		j->dist_arg = x;
		return 0;
	}
	if (len == 6 && !strncmp(v, "pareto", len)) {
		if (!arg || parse_double(arg, &x) || x <= 0 || x >= 1)
			goto bad;
		j->dist = DIST_PARETO;
		j->dist_arg = x;
		return 0;
	}
	if ((len == 6 && !strncmp(v, "normal", len)) || (len == 5 && !strncmp(v, "gauss", len))) {
		x = 0;
		if (arg && (parse_double(arg, &x) || x < 0 || x > 100))
			goto bad;
		j->dist = DIST_NORMAL;
		j->dist_arg = x;
		return 0;
	}
	if (len == 5 && !strncmp(v, "zoned", len) && arg) {
		char buf[512], *save = NULL;
		unsigned n = 0, io = 0, range = 0;

		if (strlen(arg) >= sizeof(buf))
			goto bad;
		snprintf(buf, sizeof(buf), "%s", arg);
		for (char *e = strtok_r(buf, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
			char *slash = strchr(e, '/');
			uint64_t a, b;
			const char *end;

			if (!slash || n == ZONES_MAX)
				goto bad;
			*slash = '\0';
			if (parse_uint(e, &end, &a) || *end || a > 100)
				goto bad;
			if (!slash[1])
				b = 100 - range;     /* "20/": the rest of the region */
			else if (parse_uint(slash + 1, &end, &b) || *end || b > 100)
				goto bad;
			j->zones[n].io_pct = (uint32_t)a;
			j->zones[n].range_pct = (uint32_t)b;
			io += (unsigned)a;
			range += (unsigned)b;
			n++;
		}
		if (!n || io != 100 || range != 100)
			goto bad;
		j->dist = DIST_ZONED;
		j->nzones = n;
		return 0;
	}
bad:
	snprintf(why, whylen, "supported: random, zipf:THETA (not 1), pareto:H (0<H<1), "
		 "normal[:DEV%%], zoned:IO%%/RANGE%%:... (each adding up to 100)");
	return -EINVAL;
}

