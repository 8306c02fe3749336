/* SPDX-License-Identifier: MIT */
/* Figures in few characters, as fio's reports write them. */
#include "lib/fmt.h"

#include <stdio.h>

void fmt_bytes(char *buf, size_t len, double v, bool si)
{
	static const char *bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	static const char *dec[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	double base = si ? 1000.0 : 1024.0;
	unsigned u = 0;

	while (v >= 10000.0 && u < 5) {
		v /= base;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f%s", v, si ? dec[0] : bin[0]);
	else
		snprintf(buf, len, v < 100.0 ? "%.1f%s" : "%.0f%s", v,
			 si ? dec[u] : bin[u]);
}

void fmt_count(char *buf, size_t len, double v)
{
	static const char *suf[] = { "", "k", "M", "G" };
	unsigned u = 0;

	while (v >= 10000.0 && u < 3) {
		v /= 1000.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, v < 100.0 ? "%.1f%s" : "%.0f%s", v, suf[u]);
}
