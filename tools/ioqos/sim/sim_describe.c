/* SPDX-License-Identifier: MIT */
/*
 * The simulated device's parameters described in one line for the report:
 * "key=value ..." as a device file would give them (sim_params.c has the
 * presets, sim_load.c reads the files).
 */
#include "sim/sim.h"
#include "sim/sim_params.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* append to @buf at *@o, as far as it fits */
void sim_cat(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*o + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *o, len - *o, fmt, ap);
	va_end(ap);
	if (n > 0)
		*o = *o + (size_t)n >= len ? len - 1 : *o + (size_t)n;
}

/* thousandths as "2", "2.5", "0.125" */
static const char *milli_str(char *b, size_t len, unsigned v)
{
	int n = snprintf(b, len, "%u.%03u", v / 1000, v % 1000);

	while (n > 0 && b[n - 1] == '0')
		b[--n] = '\0';
	if (n > 0 && b[n - 1] == '.')
		b[--n] = '\0';
	return b;
}

/* a time in the largest unit that holds it whole: "50ms", "1500us" */
static const char *dur_str(char *b, size_t len, uint64_t ns)
{
	static const struct { uint64_t ns; const char *u; } units[] = {
		{ 1000000000ull, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};

	for (size_t i = 0; ns && i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].ns == 0) {
			snprintf(b, len, "%llu%s", (unsigned long long)(ns / units[i].ns),
				 units[i].u);
			return b;
		}
	if (ns)
		snprintf(b, len, "%lluns", (unsigned long long)ns);
	else
		snprintf(b, len, "0");
	return b;
}

/* an IOPS figure as a file would give it: "57k", "1.5m", "1234.5" */
static const char *iops_str(char *b, size_t len, double v)
{
	if (v >= 1e6 && fmod(v, 1e5) == 0)
		snprintf(b, len, "%.10gm", v / 1e6);
	else if (v >= 1e3 && fmod(v, 100) == 0)
		snprintf(b, len, "%.10gk", v / 1e3);
	else
		snprintf(b, len, "%.10g", v);
	return b;
}

/* curve=...: whole while short, else its ends and how many points */
static void describe_curve(const struct sim_params *p, char *buf, size_t len,
			   size_t *o)
{
	char all[SIM_CURVE_MAX * 24], v[24];
	size_t a = 0, cut = 0;

	all[0] = '\0';
	for (unsigned i = 0; i < p->curve_n; i++) {
		sim_cat(all, sizeof(all), &a, "%s%u:%s", i ? "," : "", p->curve_depth[i],
		    iops_str(v, sizeof(v), p->curve_iops[i]));
		if (i == 2)
			cut = a;
	}
	if (a <= 120)
		sim_cat(buf, len, o, "curve=%s", all);
	else
		sim_cat(buf, len, o, "curve=%.*s,...,%u:%s (%u points)", (int)cut, all,
		    p->curve_depth[p->curve_n - 1],
		    iops_str(v, sizeof(v), p->curve_iops[p->curve_n - 1]), p->curve_n);
}

void sim_params_describe(const struct sim_params *p, char *buf, size_t len)
{
	char a[32], b[32];
	size_t o = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (p->curve_n) {
		describe_curve(p, buf, len, &o);
		sim_cat(buf, len, &o, " size_cost=%llu write_cost=%s jitter=%u capacity=%llu",
		    (unsigned long long)p->size_cost,
		    milli_str(a, sizeof(a), p->write_cost_milli), p->jitter_pct,
		    (unsigned long long)p->capacity);
	} else {
		sim_cat(buf, len, &o, "channels=%u lat=%lluns chan_bw=%llu link_lat=%lluns "
		    "link_bw=%llu seek=%lluns jitter=%u capacity=%llu",
		    p->channels, (unsigned long long)p->lat_ns,
		    (unsigned long long)p->chan_bps, (unsigned long long)p->link_ns,
		    (unsigned long long)p->link_bps, (unsigned long long)p->seek_ns,
		    p->jitter_pct, (unsigned long long)p->capacity);
	}
	if (p->slowdown_milli != 1000)
		sim_cat(buf, len, &o, " slowdown_at=%lluns slowdown=%u.%03u",
		    (unsigned long long)p->slowdown_at_ns, p->slowdown_milli / 1000,
		    p->slowdown_milli % 1000);
	if (p->speed_log)
		sim_cat(buf, len, &o, " speed_log=%s", p->speed_log_name);
	if (p->drift_milli)
		sim_cat(buf, len, &o, " drift=%s drift_tau=%s",
		    milli_str(a, sizeof(a), p->drift_milli),
		    dur_str(b, sizeof(b), p->drift_tau_ns));
	if (p->steps_lo_milli) {
		sim_cat(buf, len, &o, " steps=%s-%s", milli_str(a, sizeof(a), p->steps_lo_milli),
		    milli_str(b, sizeof(b), p->steps_hi_milli));
		sim_cat(buf, len, &o, " step_every=%s step_len=%s",
		    dur_str(a, sizeof(a), p->step_every_ns),
		    dur_str(b, sizeof(b), p->step_len_ns));
	}
	if (p->neigh_depth) {
		sim_cat(buf, len, &o, " neighbour_depth=%u neighbour_bs=%llu neighbour_rw=%s%s "
		    "neighbour_at=%s", p->neigh_depth, (unsigned long long)p->neigh_bs,
		    p->neigh_random ? "rand" : "", p->neigh_write ? "write" : "read",
		    dur_str(a, sizeof(a), p->neigh_at_ns));
		if (p->neigh_on_ns)
			sim_cat(buf, len, &o, " neighbour_on=%s neighbour_off=%s",
			    dur_str(a, sizeof(a), p->neigh_on_ns),
			    dur_str(b, sizeof(b), p->neigh_off_ns));
		if (p->neigh_cost_milli != 1000)
			sim_cat(buf, len, &o, " neighbour_cost=%s",
			    milli_str(a, sizeof(a), p->neigh_cost_milli));
	}
}
