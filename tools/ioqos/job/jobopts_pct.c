/* SPDX-License-Identifier: MIT */
/*
 * percentile_list=, as fio 3.33 reads it: up to 20 percentages separated
 * by ':' ("99:99.9:99.99"), each 0..100, replacing fio's 17 defaults in
 * every report (text, JSON, terse) of the job's clat, lat, slat and sync
 * percentiles.  fio sorts the list before it reports it, and a 0 ends it
 * (calc_clat_percentiles()); the text shows each with as many digits
 * after the point as the most any entry was written with (fio's
 * percentile_precision: "50:99.999" prints "50.000th" and "99.999th"), so
 * the list is kept sorted and cut at its first 0 here, with that
 * precision.
 */
#include "job/jobopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fio's default percentile_list, and its precision */
static const double fio_default_pct[] = {
	1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0,
	99.0, 99.5, 99.9, 99.95, 99.99,
};
#define FIO_DEFAULT_PREC 2

void opt_pct_default(struct job *j)
{
	j->npct = sizeof(fio_default_pct) / sizeof(fio_default_pct[0]);
	memcpy(j->pct, fio_default_pct, sizeof(fio_default_pct));
	j->pct_prec = FIO_DEFAULT_PREC;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int opt_set_pct_list(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen)
{
	double pct[PCT_MAX];
	unsigned n = 0, prec = 0;
	const char *p = v;

	for (;;) {
		const char *dot, *end;
		char *e;
		double x;

		if (n == PCT_MAX) {
			snprintf(why, whylen, "more than %d percentiles (fio's most)", PCT_MAX);
			return -EINVAL;
		}
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		x = strtod(p, &e);
		if (e == p || e != end || !(x >= 0.0 && x <= 100.0)) {
			snprintf(why, whylen, "expected percentages 0..100 separated by ':', "
				 "such as 99:99.9:99.99");
			return -EINVAL;
		}
		dot = memchr(p, '.', (size_t)(end - p));
		if (dot && (unsigned)(end - dot - 1) > prec)
			prec = (unsigned)(end - dot - 1);
		pct[n++] = x;
		if (!*end)
			break;
		p = end + 1;
	}
	/* fio: the list ends at its first 0, and is reported sorted */
	for (unsigned i = 0; i < n; i++)
		if (pct[i] == 0.0) {
			n = i;
			break;
		}
	qsort(pct, n, sizeof(pct[0]), cmp_dbl);
	memcpy(j->pct, pct, n * sizeof(pct[0]));
	j->npct = n;
	j->pct_prec = prec;
	return 0;
}
