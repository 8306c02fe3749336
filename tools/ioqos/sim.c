/* SPDX-License-Identifier: MIT */
/*
 * The simulated device.
 *
 * A drive is modelled as two stages in virtual time:
 *
 *        issue ─► [ host link ] ─► [ channel 0 ]
 *                 one at a time    [ channel 1 ]  ─► complete
 *                 link_ns +        [   ...     ]
 *                 bytes/link_bps   [ channel C-1 ]   lat_ns + bytes/chan_bps
 *                                                    (+ seek_ns if the I/O does
 *                                                     not follow the previous one)
 *
 * The link is a FIFO single server (the SATA or PCIe transfer and the
 * controller's command handling), the channels are C identical servers
 * (flash dies, or one disk arm) fed in FIFO order by whichever is free
 * first.  Since I/Os leave the link in the order they entered it, the
 * channel an I/O gets and its completion time are both known at issue:
 * sim_issue() returns the completion time and the caller keeps one event.
 * Each stage's time is scaled by a seeded uniform jitter.
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
 *
 * A device can change speed in the middle of a run (slowdown_at= and
 * slowdown=): every stage that starts at or after that virtual time takes
 * FACTOR times as long (jitter included), as a drive that begins garbage
 * collection or a host that starts sharing it would.  Requests already in
 * a stage finish at the old speed.  Used to watch a controller -- depth=auto
 * in particular -- find its way again.
 *
 * Known weaknesses: seek time does not depend on the distance, writes cost
 * the same as reads, and there is no write cache or garbage collection.
 */
#include "sim.h"
#include "jobfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
	/* the most jitter, percent, at which the channels' free times are
	 * kept in a sorted ring: past it a new one lands far from the back
	 * (jitter=100 on 1024 channels: 60 places), and the heap is cheaper */
	SIM_RING_JITTER_MAX = 25,
};

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

int sim_init(struct sim *d, const struct sim_params *p, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->p = *p;
	rng_seed(&d->rng, seed ^ 0x5157u);
	d->chan_free_ns = calloc(p->channels, sizeof(*d->chan_free_ns));
	d->chan_pos = calloc(p->channels, sizeof(*d->chan_pos));
	if (!d->chan_free_ns || !d->chan_pos) {
		sim_fini(d);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < p->channels; i++)
		d->chan_pos[i] = UINT64_MAX;
	d->svc_bytes = UINT64_MAX;
	d->chan_ring = !p->seek_ns && p->jitter_pct <= SIM_RING_JITTER_MAX;
	return 0;
}

void sim_fini(struct sim *d)
{
	free(d->chan_free_ns);
	free(d->chan_pos);
	d->chan_free_ns = d->chan_pos = NULL;
}

/* @t scaled by the jitter: t * (1 + j * u), u uniform in [-1, 1) */
static inline uint64_t jitter(struct sim *d, uint64_t t)
{
	uint64_t span, r;

	if (!d->p.jitter_pct || !t)
		return t;
	span = t * d->p.jitter_pct / 100;
	r = rng_below(&d->rng, 2 * span + 1);
	return t - span + r;
}

static uint64_t xfer_ns(uint64_t bytes, uint64_t bps)
{
	return (uint64_t)((unsigned __int128)bytes * 1000000000u / bps);
}

/* a stage of @t ns that starts at @start: slower from slowdown_at on */
static inline uint64_t speed(const struct sim *d, uint64_t start, uint64_t t)
{
	if (d->p.slowdown_milli == 1000 || start < d->p.slowdown_at_ns)
		return t;
	return (uint64_t)((unsigned __int128)t * d->p.slowdown_milli / 1000);
}

/*
 * The channel heap's top, free at @t from now on, takes its place: the
 * hole goes down to a leaf by the earlier child, then @t up from there
 * (it is seldom earlier than much: it is a completion just booked).  For
 * a device without seeks whose jitter reorders completions much, where
 * the ring below would search far; only the values are read, so which
 * slot holds which of two equal times does not matter.
 */
static void chan_replace_top(uint64_t *f, unsigned n, uint64_t t)
{
	unsigned i = 0, c;

	while ((c = 2 * i + 2) < n) {
		c -= f[c - 1] < f[c];
		f[i] = f[c];
		i = c;
	}
	if (c == n) {
		f[i] = f[c - 1];
		i = c - 1;
	}
	while (i) {
		unsigned up = (i - 1) / 2;

		if (f[up] <= t)
			break;
		f[i] = f[up];
		i = up;
	}
	f[i] = t;
}

/*
 * Without seeks only the channels' free times matter, not which channel
 * is which: they are kept sorted in a ring, the earliest at chan_head.
 * The channel an I/O takes is the earliest; its new free time is later
 * than that, and mostly the latest of all (it is a completion just
 * booked: the others were booked before it, and the jitter reorders them
 * by a place or two), so it goes in by a short search from the back.
 */
static void chan_ring_replace(uint64_t *f, unsigned n, unsigned *head, uint64_t t)
{
	unsigned h = *head + 1 == n ? 0 : *head + 1, k = n - 1;

	/* the earliest leaves; its slot is the one after the latest */
	while (k) {
		unsigned at = h + k - 1 >= n ? h + k - 1 - n : h + k - 1;
		unsigned to = at + 1 == n ? 0 : at + 1;

		if (f[at] <= t)
			break;
		f[to] = f[at];
		k--;
	}
	f[h + k >= n ? h + k - n : h + k] = t;
	*head = h;
}

/* the same with the positions, for seeks: equal times keep their order */
static void chan_replace_top_pos(struct sim *d, uint64_t t, uint64_t pos)
{
	unsigned n = d->p.channels, i = 0;

	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;
		uint64_t mv = t;

		if (l < n && d->chan_free_ns[l] < mv) {
			m = l;
			mv = d->chan_free_ns[l];
		}
		if (r < n && d->chan_free_ns[r] < mv)
			m = r;
		if (m == i)
			break;
		d->chan_free_ns[i] = d->chan_free_ns[m];
		d->chan_pos[i] = d->chan_pos[m];
		i = m;
	}
	d->chan_free_ns[i] = t;
	d->chan_pos[i] = pos;
}

uint64_t sim_issue(struct sim *d, uint64_t now_ns, uint64_t pos,
		   uint64_t bytes)
{
	uint64_t start, link_done, svc, done, first;

	/* the transfer times of the size seen last: most runs have one or
	 * two sizes, and a 128-bit division per stage and I/O was a tenth
	 * of the simulator's time */
	if (bytes != d->svc_bytes) {
		d->svc_bytes = bytes;
		d->link_svc_ns = d->p.link_ns + xfer_ns(bytes, d->p.link_bps);
		d->chan_svc_ns = d->p.lat_ns + xfer_ns(bytes, d->p.chan_bps);
	}

	/* the link: FIFO, one at a time */
	start = now_ns > d->link_free_ns ? now_ns : d->link_free_ns;
	link_done = start + jitter(d, speed(d, start, d->link_svc_ns));
	d->link_free_ns = link_done;

	/* the channel free first (the heap's top) */
	first = d->chan_free_ns[d->chan_ring ? d->chan_head : 0];
	start = link_done > first ? link_done : first;
	svc = d->chan_svc_ns;
	if (d->p.seek_ns && d->chan_pos[0] != pos)
		svc += d->p.seek_ns;
	done = start + jitter(d, speed(d, start, svc));

	if (d->chan_ring)
		chan_ring_replace(d->chan_free_ns, d->p.channels, &d->chan_head, done);
	else if (d->p.seek_ns)
		chan_replace_top_pos(d, done, pos + bytes);
	else
		chan_replace_top(d->chan_free_ns, d->p.channels, done);
	return done;
}
