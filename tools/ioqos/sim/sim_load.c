/* SPDX-License-Identifier: MIT */
/*
 * The simulated device's parameter files: key=value lines read all or
 * nothing, over the ssd preset (sim_params.c), each key at most once, each
 * error one line naming file:line.
 */
#include "sim/sim.h"
#include "sim/sim_params.h"
#include "job/jobfile.h"
#include "sim/sim_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a reason naming file:line, its control bytes escaped */
static int load_err(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int load_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;
	char raw[1024];

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	str_escape(err, errlen, raw, (size_t)-1, false);
	return rc;
}

/* the keys, in the order the unknown-key message lists them */
enum sim_key {
	K_CHANNELS, K_LAT, K_CHAN_BW, K_LINK_LAT, K_LINK_BW, K_SEEK, K_JITTER,
	K_CAPACITY, K_SLOWDOWN_AT, K_SLOWDOWN, K_SPEED_LOG, K_DRIFT, K_DRIFT_TAU,
	K_STEPS, K_STEP_EVERY, K_STEP_LEN, K_CURVE, K_SIZE_COST, K_WRITE_COST,
	K_NEIGH_DEPTH, K_NEIGH_BS, K_NEIGH_RW, K_NEIGH_AT, K_NEIGH_ON, K_NEIGH_OFF,
	K_NEIGH_COST, K_N
};

static const char *const key_names[K_N] = {
	"channels", "lat", "chan_bw", "link_lat", "link_bw", "seek", "jitter",
	"capacity", "slowdown_at", "slowdown", "speed_log", "drift", "drift_tau",
	"steps", "step_every", "step_len", "curve", "size_cost", "write_cost",
	"neighbour_depth", "neighbour_bs", "neighbour_rw", "neighbour_at",
	"neighbour_on", "neighbour_off", "neighbour_cost",
};

enum {
	/* the longest stage time a file may give: an hour */
	SIM_STAGE_NS_MAX = 3600000000000ull,
};
/* the latest moment a file may name, and its longest period: a year */
#define SIM_TIME_NS_MAX (3600000000000ull * 24 * 365)

/* a duration in [@lo, @hi] ns (a bare number is ns): 0 or -EINVAL */
static int parse_dur(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v;

	if (parse_time_ns(s, 1, &v) || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "LO-HI" or "F": slowdown factors of at least 1 */
static int parse_range(const char *s, unsigned *lo, unsigned *hi)
{
	const char *dash = strchr(s, '-');
	char a[32];
	size_t n = dash ? (size_t)(dash - s) : strlen(s);

	if (n >= sizeof(a))
		return -EINVAL;
	memcpy(a, s, n);
	a[n] = '\0';
	if (sim_parse_factor(a, lo) || sim_parse_factor(dash ? dash + 1 : a, hi) ||
	    *lo < 1000 || *hi < *lo)
		return -EINVAL;
	return 0;
}

/* speed_log=FILE: relative to the device file's folder */
static int read_speed_log(struct sim_params *n, const char *name, unsigned lineno,
			  const char *val, char *err, size_t errlen)
{
	const char *slash = strrchr(name, '/');
	char path[4096], why[512];
	struct sim_log *l;
	int rc;

	if (!*val)
		return load_err(err, errlen, -EINVAL, "%s:%u: bad value speed_log= "
				"(expected a fio IOPS log's path)", name, lineno);
	if (val[0] == '/' || !slash)
		rc = snprintf(path, sizeof(path), "%s", val);
	else
		rc = snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - name), name, val);
	if (rc < 0 || (size_t)rc >= sizeof(path))
		return load_err(err, errlen, -ENAMETOOLONG, "%s:%u: bad value "
				"speed_log=%.64s: the path is too long", name, lineno, val);
	rc = sim_log_load(path, &l, why, sizeof(why));
	if (rc)
		return load_err(err, errlen, rc, "%s:%u: bad value speed_log=%.64s: %s",
				name, lineno, val, why);
	sim_log_free(n->speed_log);
	n->speed_log = l;
	snprintf(n->speed_log_name, sizeof(n->speed_log_name), "%s", val);
	return 0;
}

/* an IOPS figure: a decimal number, k (1000) or m (1000000) after it */
static int parse_iops(const char *s, double *out)
{
	const char *p = s;
	char num[32];
	double v;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s)
		return -EINVAL;
	if (*p == '.') {
		const char *d = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == d)
			return -EINVAL;
	}
	if ((size_t)(p - s) >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, (size_t)(p - s));
	num[p - s] = '\0';
	v = strtod(num, NULL);
	if (*p == 'k' || *p == 'K')
		v *= 1e3, p++;
	else if (*p == 'm' || *p == 'M')
		v *= 1e6, p++;
	if (*p || !(v > 0) || v > 1e9)
		return -EINVAL;
	*out = v;
	return 0;
}

/* curve=D:IOPS,...: depths ascending from 1, IOPS above 0.  0, or -EINVAL
 * and the reason in @why */
static int parse_curve(struct sim_params *n, const char *val, char *why, size_t len)
{
	unsigned k = 0;
	const char *p = val;

	for (;;) {
		const char *end = p + strcspn(p, ","), *rest;
		char part[64], *colon;
		uint64_t depth;
		double iops;

		if (k == SIM_CURVE_MAX) {
			snprintf(why, len, "more than %u points", SIM_CURVE_MAX);
			return -EINVAL;
		}
		if ((size_t)(end - p) >= sizeof(part)) {
			snprintf(why, len, "point %u is too long", k + 1);
			return -EINVAL;
		}
		memcpy(part, p, (size_t)(end - p));
		part[end - p] = '\0';
		colon = strchr(part, ':');
		if (!colon || colon == part || !colon[1]) {
			snprintf(why, len, "point %u '%s': expected DEPTH:IOPS", k + 1, part);
			return -EINVAL;
		}
		part[colon - part] = '\0';
		if (parse_uint(part, &rest, &depth) || *rest || depth < 1 ||
		    depth > SIM_CURVE_DEPTH_MAX ||
		    (k && depth <= n->curve_depth[k - 1])) {
			snprintf(why, len, "point %u: depth '%s' (whole, 1 to %u, each above "
				 "the one before)", k + 1, part, SIM_CURVE_DEPTH_MAX);
			return -EINVAL;
		}
		if (parse_iops(colon + 1, &iops)) {
			snprintf(why, len, "point %u: IOPS '%s' (a number above 0, up to "
				 "1000m; k is 1000)", k + 1, colon + 1);
			return -EINVAL;
		}
		n->curve_depth[k] = (uint32_t)depth;
		n->curve_iops[k++] = iops;
		if (!*end)
			break;
		p = end + 1;
	}
	n->curve_n = k;
	return 0;
}

/* @val for @key into @n: 0, -EINVAL for a bad value (the caller says so),
 * or another -errno with the message in @err */
static int parse_key(struct sim_params *n, enum sim_key key, const char *val,
		     const char *name, unsigned lineno, char *err, size_t errlen)
{
	uint64_t v;

	switch (key) {
	case K_CHANNELS:
		if (parse_size(val, &v) || v < 1 || v > SIM_CHANNELS_MAX)
			return -EINVAL;
		n->channels = (unsigned)v;
		return 0;
	case K_LAT:
		return parse_dur(val, 0, SIM_STAGE_NS_MAX, &n->lat_ns);
	case K_CHAN_BW:
		return parse_size(val, &n->chan_bps) || !n->chan_bps ? -EINVAL : 0;
	case K_LINK_LAT:
		return parse_dur(val, 0, SIM_STAGE_NS_MAX, &n->link_ns);
	case K_LINK_BW:
		return parse_size(val, &n->link_bps) || !n->link_bps ? -EINVAL : 0;
	case K_SEEK:
		return parse_dur(val, 0, SIM_STAGE_NS_MAX, &n->seek_ns);
	case K_JITTER:
		if (parse_size(val, &v) || v > 100)
			return -EINVAL;
		n->jitter_pct = (unsigned)v;
		return 0;
	case K_CAPACITY:
		return parse_size(val, &n->capacity) || !n->capacity ||
		       n->capacity > FILE_BYTES_MAX ? -EINVAL : 0;
	case K_SLOWDOWN_AT:
		return parse_dur(val, 0, SIM_TIME_NS_MAX, &n->slowdown_at_ns);
	case K_SLOWDOWN:
		return sim_parse_factor(val, &n->slowdown_milli);
	case K_SPEED_LOG:
		/* its own message: the log's file and line */
		return read_speed_log(n, name, lineno, val, err, errlen);
	case K_DRIFT:
		return sim_parse_milli(val, &n->drift_milli) || n->drift_milli > 100000 ?
		       -EINVAL : 0;
	case K_DRIFT_TAU:
		return parse_dur(val, 1000, 3600000000000ull, &n->drift_tau_ns);
	case K_STEPS:
		return parse_range(val, &n->steps_lo_milli, &n->steps_hi_milli);
	case K_STEP_EVERY:
		return parse_dur(val, 1000000, SIM_TIME_NS_MAX, &n->step_every_ns);
	case K_STEP_LEN:
		return parse_dur(val, 10000, SIM_TIME_NS_MAX, &n->step_len_ns);
	case K_CURVE: {
		char why[160];

		if (parse_curve(n, val, why, sizeof(why)))
			return load_err(err, errlen, -EINVAL, "%s:%u: bad value curve=%.64s: %s",
					name, lineno, val, why);
		return 0;
	}
	case K_SIZE_COST:
		return parse_size(val, &n->size_cost) || !n->size_cost ||
		       n->size_cost > (1ull << 40) ? -EINVAL : 0;
	case K_WRITE_COST:
		return sim_parse_factor(val, &n->write_cost_milli);
	case K_NEIGH_DEPTH:
		if (parse_size(val, &v) || v < 1 || v > SIM_NEIGH_DEPTH_MAX)
			return load_err(err, errlen, -EINVAL, "%s:%u: bad value "
					"neighbour_depth=%.64s (1 to %u)", name, lineno, val,
					SIM_NEIGH_DEPTH_MAX);
		n->neigh_depth = (unsigned)v;
		return 0;
	case K_NEIGH_BS:
		return parse_size(val, &n->neigh_bs) || !n->neigh_bs ||
		       n->neigh_bs > IO_BYTES_MAX ? -EINVAL : 0;
	case K_NEIGH_RW: {
		static const char *const rws[] = { "read", "write", "randread", "randwrite" };

		for (unsigned i = 0; i < 4; i++)
			if (!strcmp(val, rws[i])) {
				n->neigh_write = i & 1;
				n->neigh_random = i >= 2;
				return 0;
			}
		return load_err(err, errlen, -EINVAL, "%s:%u: bad value neighbour_rw=%.64s "
				"(read, write, randread or randwrite)", name, lineno, val);
	}
	case K_NEIGH_AT:
		return parse_dur(val, 0, SIM_TIME_NS_MAX, &n->neigh_at_ns);
	case K_NEIGH_ON:
		return parse_dur(val, 100000, SIM_TIME_NS_MAX, &n->neigh_on_ns);
	case K_NEIGH_OFF:
		return parse_dur(val, 100000, SIM_TIME_NS_MAX, &n->neigh_off_ns);
	case K_NEIGH_COST:
		return sim_parse_factor(val, &n->neigh_cost_milli);
	case K_N:
		break;
	}
	return -EINVAL;
}

/* a key given without the one it needs: "drift_tau= needs drift=PCT" */
struct key_need {
	enum sim_key key, needs;
	const char *what;             /* the value the other takes */
};

static const struct key_need needs[] = {
	{ K_SLOWDOWN_AT, K_SLOWDOWN, "FACTOR" },
	{ K_DRIFT_TAU, K_DRIFT, "PCT" },
	{ K_STEP_EVERY, K_STEPS, "LO-HI" },
	{ K_STEP_LEN, K_STEPS, "LO-HI" },
	{ K_SIZE_COST, K_CURVE, "D:IOPS,..." },
	{ K_WRITE_COST, K_CURVE, "D:IOPS,..." },
	{ K_NEIGH_BS, K_NEIGH_DEPTH, "N" },
	{ K_NEIGH_RW, K_NEIGH_DEPTH, "N" },
	{ K_NEIGH_AT, K_NEIGH_DEPTH, "N" },
	{ K_NEIGH_ON, K_NEIGH_DEPTH, "N" },
	{ K_NEIGH_OFF, K_NEIGH_ON, "DURATION" },
	{ K_NEIGH_COST, K_NEIGH_DEPTH, "N" },
	{ K_NEIGH_COST, K_CURVE, "D:IOPS,..." },
};

/* the channel device's own keys: no meaning on a curve device */
static const enum sim_key channel_keys[] = {
	K_CHANNELS, K_LAT, K_CHAN_BW, K_LINK_LAT, K_LINK_BW, K_SEEK,
};

/* what no single line can say: the keys that need others; and what a
 * key left unsaid takes from another */
static int check_whole(struct sim_params *n, const unsigned *line,
		       const char *name, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (line[needs[i].key] && !line[needs[i].needs])
			return load_err(err, errlen, -EINVAL, "%s:%u: %s= needs %s=%s", name,
					line[needs[i].key], key_names[needs[i].key],
					key_names[needs[i].needs], needs[i].what);
	for (size_t i = 0; n->curve_n && i < sizeof(channel_keys) / sizeof(channel_keys[0]); i++)
		if (line[channel_keys[i]])
			return load_err(err, errlen, -EINVAL, "%s:%u: %s= is the channel "
					"device's: no meaning with curve= (line %u)", name,
					line[channel_keys[i]], key_names[channel_keys[i]],
					line[K_CURVE]);
	if (!line[K_NEIGH_OFF])
		n->neigh_off_ns = n->neigh_on_ns;
	return 0;
}

int sim_params_read(FILE *f, const char *name, struct sim_params *p, char *err,
		    size_t errlen)
{
	char *line = NULL, known[512];
	size_t cap = 0, o = 0;
	ssize_t got;
	unsigned lineno = 0, key_line[K_N] = { 0 };
	struct sim_params n;
	const char *base;
	int rc = 0;

	/* defaults: the ssd preset, so a file need only say what differs */
	sim_preset("ssd", &n);
	base = strrchr(name, '/');
	snprintf(n.name, sizeof(n.name), "%s", base ? base + 1 : name);
	/* whole lines, however long: a comment's tail is never a setting */
	while ((got = getline(&line, &cap, f)) >= 0) {
		char *s = line, *eq, *key, *val, *e;
		unsigned k;

		lineno++;
		if (memchr(line, '\0', (size_t)got)) {
			rc = load_err(err, errlen, -EINVAL, "%s:%u: NUL byte in line", name,
				      lineno);
			goto out;
		}
		s[strcspn(s, "#\r\n")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			rc = load_err(err, errlen, -EINVAL, "%s:%u: expected key=value", name,
				      lineno);
			goto out;
		}
		*eq = '\0';
		key = s;
		val = eq + 1;
		for (e = eq; e > key && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = '\0';
		while (*val == ' ' || *val == '\t')
			val++;
		for (k = 0; k < K_N && strcmp(key, key_names[k]); k++)
			;
		if (k == K_N) {
			for (unsigned i = 0; i < K_N; i++)
				sim_cat(known, sizeof(known), &o, "%s%s", i ? ", " : "", key_names[i]);
			rc = load_err(err, errlen, -EINVAL, "%s:%u: unknown key '%.64s' (%s)",
				      name, lineno, key, known);
			goto out;
		}
		/* as in a config: a second value is a mistake, not an override */
		if (key_line[k]) {
			rc = load_err(err, errlen, -EINVAL, "%s:%u: %s=%.64s: %s= is given "
				      "already, on line %u", name, lineno, key, val, key,
				      key_line[k]);
			goto out;
		}
		if (errlen)
			err[0] = '\0';
		rc = parse_key(&n, (enum sim_key)k, val, name, lineno, err, errlen);
		if (rc == -EINVAL && (!errlen || !err[0]))
			rc = load_err(err, errlen, -EINVAL, "%s:%u: bad value %s=%.64s", name,
				      lineno, key, val);
		if (rc)
			goto out;
		key_line[k] = lineno;
	}
	if (ferror(f)) {
		rc = load_err(err, errlen, -EIO, "%s: %s", name, strerror(errno));
		goto out;
	}
	rc = check_whole(&n, key_line, name, err, errlen);
	if (!rc)
		*p = n;
out:
	if (rc)
		sim_params_fini(&n);
	free(line);
	return rc;
}

int sim_params_load(const char *path, struct sim_params *p, char *err,
		    size_t errlen)
{
	char why[512];
	int rc;
	/* a regular file only: a FIFO is not waited on, /dev/zero not read
	 * (nor a directory, which reads as an empty file: the ssd, silently) */
	FILE *f = jobfile_fopen(path, &rc, why, sizeof(why));

	if (!f)
		return load_err(err, errlen, rc, "%s", why);
	rc = sim_params_read(f, path, p, err, errlen);
	fclose(f);
	return rc;
}
