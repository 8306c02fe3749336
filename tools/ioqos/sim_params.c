/* SPDX-License-Identifier: MIT */
/*
 * The simulated device's parameters: the presets, and parameter files of
 * key=value lines read all or nothing (sim.c has the model they drive).
 *
 * Calibration of the presets (4 KiB random reads unless noted):
 *
 *   ssd   the 2016 test's SATA SSD: 29 MiB/s at QD1 (134.7 us per I/O:
 *         9.3 us link + 124.5 us flash + 1 us channel transfer), 2 x 210
 *         MiB/s for two jobs at QD8 (the test measured 205 and 2 x 202),
 *         saturating at the link's ~107k IOPS (~420 MiB/s) from about
 *         QD24 up; a 64 KiB read at QD1 takes 260 us (~240 MiB/s, the
 *         test: 251).
 *   nvme  128 channels, 75 us at QD1 (~52 MiB/s), 3.2 GB/s link: ~650k
 *         IOPS at high depth.
 *   hdd   one arm: 6 ms seek (+-30%) + 0.2 ms command + 160 MB/s media:
 *         ~160 random IOPS at any depth (the 2008 test's disk did 155
 *         with 75 readers), 150 MB/s sequential.
 */
#include "sim.h"
#include "jobfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const struct sim_params presets[] = {
	{ "ssd", 32, 124500, 4000000000ull, 2000, 560000000ull, 0, 10,
	  256ull << 30, 0, 1000 },
	{ "nvme", 128, 70000, 1000000000ull, 200, 3200000000ull, 0, 10,
	  1ull << 40, 0, 1000 },
	{ "hdd", 1, 200000, 160000000ull, 0, 600000000ull, 6000000, 30,
	  1ull << 40, 0, 1000 },
};

int sim_parse_factor(const char *s, unsigned *milli)
{
	uint64_t v = 0;
	unsigned frac = 0, scale = 1000;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > 1000)
			return -EINVAL;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1)
				return -EINVAL;       /* more than three decimals */
			scale /= 10;
			frac += (unsigned)(*p - '0') * scale;
		}
	}
	if (*p || v * 1000 + frac == 0 || v * 1000 + frac > 1000000)
		return -EINVAL;
	*milli = (unsigned)(v * 1000 + frac);
	return 0;
}

int sim_preset(const char *name, struct sim_params *p)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name)) {
			*p = presets[i];
			return 0;
		}
	return -ENOENT;
}

void sim_params_describe(const struct sim_params *p, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "channels=%u lat=%lluns chan_bw=%llu link_lat=%lluns link_bw=%llu "
			 "seek=%lluns jitter=%u capacity=%llu",
			 p->channels, (unsigned long long)p->lat_ns,
			 (unsigned long long)p->chan_bps, (unsigned long long)p->link_ns,
			 (unsigned long long)p->link_bps, (unsigned long long)p->seek_ns,
			 p->jitter_pct, (unsigned long long)p->capacity);

	if (p->slowdown_milli != 1000 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " slowdown_at=%lluns slowdown=%u.%03u",
			 (unsigned long long)p->slowdown_at_ns, p->slowdown_milli / 1000,
			 p->slowdown_milli % 1000);
}

/* a reason naming file:line, its control bytes escaped */
static int load_err(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int load_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;
	char raw[512];

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	str_escape(err, errlen, raw, (size_t)-1, false);
	return rc;
}

int sim_params_read(FILE *f, const char *name, struct sim_params *p, char *err,
		    size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	unsigned lineno = 0, at_line = 0;
	bool have_factor = false;
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
		uint64_t v;
		int bad = 0;

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
		if (!strcmp(key, "channels")) {
			bad = parse_size(val, &v) || v < 1 || v > SIM_CHANNELS_MAX;
			n.channels = (unsigned)v;
		} else if (!strcmp(key, "lat")) {
			bad = parse_time_ns(val, 1, &n.lat_ns);
		} else if (!strcmp(key, "chan_bw")) {
			bad = parse_size(val, &n.chan_bps) || !n.chan_bps;
		} else if (!strcmp(key, "link_lat")) {
			bad = parse_time_ns(val, 1, &n.link_ns);
		} else if (!strcmp(key, "link_bw")) {
			bad = parse_size(val, &n.link_bps) || !n.link_bps;
		} else if (!strcmp(key, "seek")) {
			bad = parse_time_ns(val, 1, &n.seek_ns);
		} else if (!strcmp(key, "jitter")) {
			bad = parse_size(val, &v) || v > 100;
			n.jitter_pct = (unsigned)v;
		} else if (!strcmp(key, "capacity")) {
			bad = parse_size(val, &n.capacity) || !n.capacity ||
			      n.capacity > FILE_BYTES_MAX;
		} else if (!strcmp(key, "slowdown_at")) {
			bad = parse_time_ns(val, 1, &n.slowdown_at_ns) ||
			      n.slowdown_at_ns > 3600000000000ull * 24 * 365;
			at_line = lineno;
		} else if (!strcmp(key, "slowdown")) {
			bad = sim_parse_factor(val, &n.slowdown_milli) != 0;
			have_factor = true;
		} else {
			rc = load_err(err, errlen, -EINVAL, "%s:%u: unknown key '%.64s' "
				      "(channels, lat, chan_bw, link_lat, link_bw, seek, "
				      "jitter, capacity, slowdown_at, slowdown)", name, lineno,
				      key);
			goto out;
		}
		if (bad || (n.lat_ns > 3600000000000ull || n.link_ns > 3600000000000ull ||
			    n.seek_ns > 3600000000000ull)) {
			rc = load_err(err, errlen, -EINVAL, "%s:%u: bad value %s=%.64s", name,
				      lineno, key, val);
			goto out;
		}
	}
	if (ferror(f)) {
		rc = load_err(err, errlen, -EIO, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (at_line && !have_factor) {
		rc = load_err(err, errlen, -EINVAL, "%s:%u: slowdown_at= needs "
			      "slowdown=FACTOR", name, at_line);
		goto out;
	}
	*p = n;
out:
	free(line);
	return rc;
}

int sim_params_load(const char *path, struct sim_params *p, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	int rc;

	if (!f)
		return load_err(err, errlen, -errno, "%s: %s", path, strerror(errno));
	/* a directory reads as an empty file: the ssd, silently */
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		fclose(f);
		return load_err(err, errlen, -EINVAL, "%s: not a regular file", path);
	}
	rc = sim_params_read(f, path, p, err, errlen);
	fclose(f);
	return rc;
}

