/* SPDX-License-Identifier: MIT */
/*
 * Settings and config files: ioqos_set(), ioqos_load(), ioqos_load_buf().
 *
 * Good inputs are checked through ioqos_limits_get(): every key, every
 * suffix, "max", durations, prio -> weight, the root-only keys on "/".
 *
 * Bad inputs come from two tables (settings strings and config buffers).
 * Each must fail with a negative errno and a one-line message that names
 * the key and the value (and "name:line" for a config), and must leave the
 * controller exactly as it was: same group count, and for every group the
 * same path, ioqos_describe() text and ioqos_limits_get() values.
 *
 * Prints one line per check (base.h); exits 0 if all pass, 1 if any fails.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioqos.h"
#include "conf.h"

#include "base.h"

/* a C string for printing a test input on one line */
static const char *show(const char *s, size_t n)
{
	static char buf[8][200];
	static unsigned k;
	char *b = buf[k++ % 8];
	size_t i, o = 0;

	for (i = 0; i < n && o + 8 < sizeof(buf[0]); i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			b[o++] = (char)ch;
		else
			o += (size_t)sprintf(b + o, "\\x%02x", ch);
	}
	if (i < n)
		o += (size_t)sprintf(b + o, "...");
	b[o] = '\0';
	return b;
}

static const char *shows(const char *s)
{
	return show(s, strlen(s));
}

/* ---- limits ---------------------------------------------------------------- */

enum field {
	F_BPS_R, F_BPS_W, F_IOPS_R, F_IOPS_W,
	F_BPS_LOW_R, F_BPS_LOW_W, F_IOPS_LOW_R, F_IOPS_LOW_W,
	F_BURST_NS, F_WEIGHT, F_DEPTH,
	F_IO_COST_R, F_IO_COST_W, F_BYTE_COST_R, F_BYTE_COST_W,
};

static uint64_t field(const struct ioqos_limits *l, enum field f)
{
	switch (f) {
	case F_BPS_R: return l->bps[IOQOS_READ];
	case F_BPS_W: return l->bps[IOQOS_WRITE];
	case F_IOPS_R: return l->iops[IOQOS_READ];
	case F_IOPS_W: return l->iops[IOQOS_WRITE];
	case F_BPS_LOW_R: return l->bps_low[IOQOS_READ];
	case F_BPS_LOW_W: return l->bps_low[IOQOS_WRITE];
	case F_IOPS_LOW_R: return l->iops_low[IOQOS_READ];
	case F_IOPS_LOW_W: return l->iops_low[IOQOS_WRITE];
	case F_BURST_NS: return l->burst_ns;
	case F_WEIGHT: return l->weight;
	case F_DEPTH: return l->depth;
	case F_IO_COST_R: return l->io_cost[IOQOS_READ];
	case F_IO_COST_W: return l->io_cost[IOQOS_WRITE];
	case F_BYTE_COST_R: return l->byte_cost[IOQOS_READ];
	case F_BYTE_COST_W: return l->byte_cost[IOQOS_WRITE];
	}
	return 0;
}

static bool limits_eq(const struct ioqos_limits *a, const struct ioqos_limits *b)
{
	return memcmp(a->bps, b->bps, sizeof(a->bps)) == 0 &&
	       memcmp(a->iops, b->iops, sizeof(a->iops)) == 0 &&
	       memcmp(a->bps_low, b->bps_low, sizeof(a->bps_low)) == 0 &&
	       memcmp(a->iops_low, b->iops_low, sizeof(a->iops_low)) == 0 &&
	       memcmp(a->burst_bytes, b->burst_bytes,
		      sizeof(a->burst_bytes)) == 0 &&
	       memcmp(a->burst_ios, b->burst_ios, sizeof(a->burst_ios)) == 0 &&
	       a->burst_ns == b->burst_ns && a->weight == b->weight &&
	       a->depth == b->depth &&
	       memcmp(a->io_cost, b->io_cost, sizeof(a->io_cost)) == 0 &&
	       memcmp(a->byte_cost, b->byte_cost, sizeof(a->byte_cost)) == 0;
}

/* limits of the group at @path; false if it does not exist */
static bool limits_of(struct ioqos *q, const char *path, struct ioqos_limits *l)
{
	int id = ioqos_group_find(q, path);

	memset(l, 0, sizeof(*l));
	return id >= 0 && ioqos_limits_get(q, (uint32_t)id, l) == 0;
}

/* ---- snapshots: is the controller exactly as it was? -------------------------- */

struct gsnap {
	char *path;
	char *desc;
	struct ioqos_limits lim;
};

struct snap {
	uint32_t n;
	struct gsnap *g;
};

static void snap_take(struct ioqos *q, struct snap *s)
{
	uint32_t i;

	s->n = ioqos_group_count(q);
	s->g = calloc(s->n, sizeof(*s->g));
	if (s->g == NULL)
		abort();
	for (i = 0; i < s->n; i++) {
		const char *p = ioqos_group_path(q, i);
		int len = ioqos_describe(q, i, NULL, 0);

		s->g[i].path = strdup(p != NULL ? p : "(null)");
		s->g[i].desc = calloc(1, len > 0 ? (size_t)len + 1 : 1);
		if (s->g[i].path == NULL || s->g[i].desc == NULL)
			abort();
		if (len > 0)
			ioqos_describe(q, i, s->g[i].desc, (size_t)len + 1);
		ioqos_limits_get(q, i, &s->g[i].lim);
	}
}

static void snap_free(struct snap *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		free(s->g[i].path);
		free(s->g[i].desc);
	}
	free(s->g);
}

/* NULL if equal, else what differs */
static const char *snap_diff(const struct snap *a, const struct snap *b)
{
	static char why[300];
	uint32_t i;

	if (a->n != b->n) {
		snprintf(why, sizeof(why), "group count %u -> %u", a->n, b->n);
		return why;
	}
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->g[i].path, b->g[i].path) != 0 ||
		    strcmp(a->g[i].desc, b->g[i].desc) != 0 ||
		    !limits_eq(&a->g[i].lim, &b->g[i].lim)) {
			snprintf(why, sizeof(why), "group %u '%s' changed: '%s' -> '%s'",
				 i, a->g[i].path, a->g[i].desc, b->g[i].desc);
			return why;
		}
	}
	return NULL;
}

/* ---- good inputs ---------------------------------------------------------- */

static void expect(const char *path, const char *settings, enum field f,
		   uint64_t want)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_limits l;
	char err[256] = "";
	int ret;

	if (q == NULL) {
		CHECK(false, "ioqos_new");
		return;
	}
	ret = ioqos_set(q, path, settings, 0, err, sizeof(err));
	if (!CHECK(ret == 0, "set %s '%s' -> %d %s", path, shows(settings),
		   ret, err)) {
		ioqos_free(q);
		return;
	}
	if (!limits_of(q, path, &l))
		CHECK(false, "set %s '%s': group not found", path,
		      shows(settings));
	else
		CHECK(field(&l, f) == want,
		      "set %s '%s': field %d is %llu, want %llu", path,
		      shows(settings), (int)f,
		      (unsigned long long)field(&l, f),
		      (unsigned long long)want);
	ioqos_free(q);
}

static void test_good_counts(void)
{
	static const struct {
		const char *sfx;
		unsigned shift;
	} sfx[] = {
		{ "", 0 },
		{ "k", 10 }, { "K", 10 }, { "Ki", 10 }, { "KiB", 10 },
		{ "kB", 10 }, { "kb", 10 },
		{ "m", 20 }, { "M", 20 }, { "Mi", 20 }, { "MiB", 20 },
		{ "g", 30 }, { "G", 30 }, { "Gi", 30 }, { "GiB", 30 },
		{ "t", 40 }, { "T", 40 }, { "Ti", 40 }, { "TiB", 40 },
		{ "p", 50 }, { "P", 50 }, { "Pi", 50 }, { "PiB", 50 },
	};
	static const struct {
		const char *key;
		enum field f;
	} keys[] = {
		{ "rbps", F_BPS_R }, { "wbps", F_BPS_W },
		{ "riops", F_IOPS_R }, { "wiops", F_IOPS_W },
		{ "rbps_low", F_BPS_LOW_R }, { "wbps_low", F_BPS_LOW_W },
		{ "riops_low", F_IOPS_LOW_R }, { "wiops_low", F_IOPS_LOW_W },
	};
	char s[64];
	size_t i, k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
			snprintf(s, sizeof(s), "%s=3%s", keys[k].key, sfx[i].sfx);
			expect("/a", s, keys[k].f, 3ull << sfx[i].shift);
		}
	}
	/* limits: max, the largest value, and the defaults */
	expect("/a", "rbps=max", F_BPS_R, IOQOS_UNLIMITED);
	expect("/a", "wiops=max", F_IOPS_W, IOQOS_UNLIMITED);
	expect("/a", "wbps=8192P", F_BPS_W, 1ull << 63);
	expect("/a", "riops=9223372036854775808", F_IOPS_R, 1ull << 63);
	expect("/a", "rbps=007", F_BPS_R, 7);
	expect("/a", "wbps=1M", F_BPS_R, IOQOS_UNLIMITED);
	expect("/a", "", F_IOPS_R, IOQOS_UNLIMITED);
	expect("/a", "", F_BPS_LOW_W, 0);
	expect("/a", "", F_WEIGHT, IOQOS__WEIGHT_DEFAULT);
	expect("/a", "rbps_low=0", F_BPS_LOW_R, 0);
	expect("/a", "wiops_low=0", F_IOPS_LOW_W, 0);
}

static void test_good_other(void)
{
	struct ioqos *q;
	struct ioqos_limits l;
	char err[256] = "";
	int ret;

	/* durations */
	expect("/a", "burst=1ns", F_BURST_NS, 1);
	expect("/a", "burst=250us", F_BURST_NS, 250000);
	expect("/a", "burst=100ms", F_BURST_NS, 100000000);
	expect("/a", "burst=1s", F_BURST_NS, 1000000000);
	expect("/a", "burst=3600s", F_BURST_NS, 3600ull * 1000000000);
	expect("/a", "burst=3600000000000ns", F_BURST_NS, 3600ull * 1000000000);

	/* weight and prio */
	expect("/a", "weight=1", F_WEIGHT, 1);
	expect("/a", "weight=250", F_WEIGHT, 250);
	expect("/a", "weight=10000", F_WEIGHT, 10000);
	expect("/a", "prio=0", F_WEIGHT, 200);
	expect("/a", "prio=4", F_WEIGHT, 100);
	expect("/a", "prio=7", F_WEIGHT, 25);
	expect("/", "weight=300", F_WEIGHT, 300);

	/* device settings on the root */
	expect("/", "depth=64", F_DEPTH, 64);
	expect("/", "depth=1", F_DEPTH, 1);
	expect("/", "depth=1M", F_DEPTH, IOQOS__DEPTH_MAX);
	expect("/", "depth=max", F_DEPTH, IOQOS_UNLIMITED);
	expect("/", "rio_cost=4k", F_IO_COST_R, 4096);
	expect("/", "wio_cost=0", F_IO_COST_W, 0);
	expect("/", "wio_cost=1G", F_IO_COST_W, IOQOS__IO_COST_MAX);
	expect("/", "rbyte_cost=0", F_BYTE_COST_R, 0);
	expect("/", "wbyte_cost=1024", F_BYTE_COST_W, IOQOS__BYTE_COST_MAX);

	/* cost presets: the corners of the model */
	expect("/", "cost=iops", F_BYTE_COST_R, 0);
	expect("/", "cost=iops", F_BYTE_COST_W, 0);
	expect("/", "cost=bytes", F_IO_COST_R, 0);
	expect("/", "cost=bytes", F_IO_COST_W, 0);
	q = ioqos_new();
	ret = ioqos_set(q, "/", "cost=hybrid", 0, err, sizeof(err));
	CHECK(ret == 0 && limits_of(q, "/", &l) && l.io_cost[0] > 0 &&
	      l.byte_cost[0] > 0,
	      "cost=hybrid charges I/Os and bytes -> %d %s", ret, err);
	ioqos_free(q);

	/* several keys, any blanks, and merging with earlier settings */
	q = ioqos_new();
	ret = ioqos_set(q, "/vm1/disk2", " \trbps=1M  wbps=2M\t\triops=300 weight=50 burst=20ms  ",
			0, err, sizeof(err));
	CHECK(ret == 0, "set several keys with blanks -> %d %s", ret, err);
	CHECK(ioqos_group_count(q) == 3, "missing ancestors created (count %u)",
	      ioqos_group_count(q));
	CHECK(limits_of(q, "/vm1/disk2", &l) && l.bps[0] == 1 << 20 &&
	      l.bps[1] == 2 << 20 && l.iops[0] == 300 && l.weight == 50 &&
	      l.burst_ns == 20000000, "several keys all applied");
	ret = ioqos_set(q, "/vm1/disk2", "wbps=max riops=400", 0, err,
			sizeof(err));
	CHECK(ret == 0 && limits_of(q, "/vm1/disk2", &l) &&
	      l.bps[0] == 1 << 20 && l.bps[1] == IOQOS_UNLIMITED &&
	      l.iops[0] == 400 && l.weight == 50,
	      "a second set changes only its keys -> %d %s", ret, err);
	ret = ioqos_set(q, "/vm1/disk2", "", 0, err, sizeof(err));
	CHECK(ret == 0, "empty settings are valid -> %d %s", ret, err);
	ret = ioqos_set(q, "/a.b_c:d@e+f-g/x", "weight=2", 0, err, sizeof(err));
	CHECK(ret == 0, "every allowed path byte -> %d %s", ret, err);
	ioqos_free(q);
}

static void test_good_files(void)
{
	static const char cfg[] =
		"# device\n"
		"/ depth=32 cost=hybrid   # a comment after settings\n"
		"\n"
		"   \t\n"
		"/vm1 rbps=100M weight=300\r\n"
		"\t/vm1/disk1\tprio=0\n"
		"/vm1/disk2 riops=1k riops_low=100#no blank before\n"
		"#/vm2 rbps=1\n"
		"/vm2";              /* no newline at the end, no settings */
	struct ioqos *q = ioqos_new();
	struct ioqos_limits l;
	char err[256] = "";
	char tmpl[] = "/tmp/t_settings.XXXXXX";
	int ret, fd;

	ret = ioqos_load_buf(q, "good.conf", cfg, sizeof(cfg) - 1, 0, err,
			     sizeof(err));
	CHECK(ret == 0, "load_buf of a good config -> %d %s", ret, err);
	CHECK(ioqos_group_count(q) == 5, "load_buf created 5 groups (%u)",
	      ioqos_group_count(q));
	CHECK(limits_of(q, "/", &l) && l.depth == 32, "load_buf: / depth=32");
	CHECK(limits_of(q, "/vm1", &l) && l.bps[0] == 100 << 20 &&
	      l.weight == 300, "load_buf: /vm1 rbps=100M weight=300 (CRLF)");
	CHECK(limits_of(q, "/vm1/disk1", &l) && l.weight == 200,
	      "load_buf: /vm1/disk1 prio=0 -> weight 200 (tabs)");
	CHECK(limits_of(q, "/vm1/disk2", &l) && l.iops[0] == 1024 &&
	      l.iops_low[0] == 100, "load_buf: comment right after a value");
	CHECK(limits_of(q, "/vm2", &l) && l.bps[0] == IOQOS_UNLIMITED,
	      "load_buf: commented-out line ignored, last line without newline");
	ioqos_free(q);

	q = ioqos_new();
	ret = ioqos_load_buf(q, "empty.conf", "", 0, 0, err, sizeof(err));
	CHECK(ret == 0 && ioqos_group_count(q) == 1,
	      "load_buf of an empty buffer -> %d", ret);
	ret = ioqos_load_buf(q, "empty.conf", "\n# x\n\r\n", 7, 0, err,
			     sizeof(err));
	CHECK(ret == 0 && ioqos_group_count(q) == 1,
	      "load_buf of comments and blank lines -> %d", ret);
	ioqos_free(q);

	/* ioqos_load from a real file */
	fd = mkstemp(tmpl);
	if (fd < 0 || write(fd, cfg, sizeof(cfg) - 1) != (ssize_t)(sizeof(cfg) - 1)) {
		CHECK(false, "write a temporary config");
		if (fd >= 0) {
			close(fd);
			unlink(tmpl);
		}
		return;
	}
	close(fd);
	q = ioqos_new();
	ret = ioqos_load(q, tmpl, 0, err, sizeof(err));
	CHECK(ret == 0 && ioqos_group_count(q) == 5 &&
	      limits_of(q, "/vm1", &l) && l.weight == 300,
	      "ioqos_load of a file -> %d %s", ret, err);
	ioqos_free(q);
	unlink(tmpl);
}

/* ---- bad inputs ------------------------------------------------------------ */

/* the controller that every bad input must leave alone */
static struct ioqos *base_new(void)
{
	static const char *const setup[][2] = {
		{ "/", "depth=32 rio_cost=8k" },
		{ "/a", "rbps=10M wbps=5M weight=300" },
		{ "/a/b", "riops=1k burst=50ms prio=2" },
		{ "/lim", "rbps=1M riops=100" },
		{ "/low", "wbps_low=1M" },
	};
	struct ioqos *q = ioqos_new();
	char err[256];
	size_t i;

	if (q == NULL)
		abort();
	for (i = 0; i < sizeof(setup) / sizeof(setup[0]); i++) {
		if (ioqos_set(q, setup[i][0], setup[i][1], 0, err,
			      sizeof(err)) != 0) {
			CHECK(false, "base setup %s '%s': %s", setup[i][0],
			      setup[i][1], err);
		}
	}
	return q;
}

/*
 * One failing call: a negative errno (@want_ret if not 0), a non-empty
 * one-line message containing every string of @needles, nothing changed.
 */
static void expect_fail(struct ioqos *q, const char *what, int ret,
			int want_ret, const char *err, const struct snap *before,
			const char *const *needles)
{
	struct snap after;
	const char *diff;
	size_t i;

	CHECK(ret < 0 && (want_ret == 0 || ret == want_ret),
	      "%s fails -> %d (%s)", what, ret, ioqos_strerror(ret));
	CHECK(err[0] != '\0' && strchr(err, '\n') == NULL &&
	      strchr(err, '\r') == NULL,
	      "%s: one-line message: %s", what, show(err, strlen(err)));
	for (i = 0; needles[i] != NULL; i++)
		CHECK(strstr(err, needles[i]) != NULL,
		      "%s: message names '%s'", what, shows(needles[i]));
	snap_take(q, &after);
	diff = snap_diff(before, &after);
	CHECK(diff == NULL, "%s: controller unchanged%s%s", what,
	      diff != NULL ? ": " : "", diff != NULL ? diff : "");
	snap_free(&after);
}

struct bad_set {
	const char *path;
	const char *settings;
	int ret;                 /* the errno wanted, 0: any negative */
	const char *needles[4];  /* strings the message must hold */
};

static const struct bad_set bad_sets[] = {
	{ "/a", "foo=1", -EINVAL, { "foo", "1" } },
	{ "/a", "rbps=1 Rbps=2", -EINVAL, { "Rbps", "2" } },
	{ "/a", "rbps", -EINVAL, { "rbps" } },
	{ "/a", "rbps:5", -EINVAL, { "rbps:5" } },
	{ "/a", "=5", -EINVAL, { "=5" } },
	{ "/a", "rbps=", -EINVAL, { "rbps" } },
	{ "/a", "wbps=1M rbps= ", -EINVAL, { "rbps" } },
	{ "/a", "rbps=-5", -EINVAL, { "rbps", "-5" } },
	{ "/a", "weight=-1", -EINVAL, { "weight", "-1" } },
	{ "/a", "rbps=0", -EINVAL, { "rbps", "0" } },
	{ "/a", "wiops=0k", -EINVAL, { "wiops", "0k" } },
	{ "/a", "rbps=99999999999999999999", -ERANGE,
	  { "rbps", "99999999999999999999" } },
	{ "/a", "wbps=16777216T", -ERANGE, { "wbps", "16777216T" } },
	{ "/a", "riops=8193P", -ERANGE, { "riops", "8193P" } },
	{ "/a", "riops=9223372036854775809", -ERANGE,
	  { "riops", "9223372036854775809" } },
	{ "/a", "rbps_low=18446744073709551616", -ERANGE,
	  { "rbps_low", "18446744073709551616" } },
	{ "/a", "rbps=10X", -EINVAL, { "rbps", "10X" } },
	{ "/a", "rbps=10kk", -EINVAL, { "rbps", "10kk" } },
	{ "/a", "rbps=10B", -EINVAL, { "rbps", "10B" } },
	{ "/a", "rbps=10KIB", -EINVAL, { "rbps", "10KIB" } },
	{ "/a", "rbps=10Ki5", -EINVAL, { "rbps", "10Ki5" } },
	{ "/a", "wbps=1.5M", -EINVAL, { "wbps", "1.5M" } },
	{ "/a", "wbps=+5", -EINVAL, { "wbps", "+5" } },
	{ "/a", "wbps=0x10", -EINVAL, { "wbps", "0x10" } },
	{ "/a", "wbps=abc", -EINVAL, { "wbps", "abc" } },
	{ "/a", "wbps=MAX", -EINVAL, { "wbps", "MAX" } },
	{ "/a", "rbps_low=max", -EINVAL, { "rbps_low", "max" } },
	{ "/a", "burst=10", -EINVAL, { "burst", "10" } },
	{ "/a", "burst=10m s", -EINVAL, { "burst", "10m" } },
	{ "/a", "burst=5h", -EINVAL, { "burst", "5h" } },
	{ "/a", "burst=0s", -EINVAL, { "burst", "0s" } },
	{ "/a", "burst=3601s", -EINVAL, { "burst", "3601s" } },
	{ "/a", "burst=ms", -EINVAL, { "burst", "ms" } },
	{ "/a", "burst=max", -EINVAL, { "burst", "max" } },
	{ "/a", "burst=99999999999999999999s", -ERANGE,
	  { "burst", "99999999999999999999s" } },
	{ "/a", "weight=0", -EINVAL, { "weight", "0" } },
	{ "/a", "weight=10001", -EINVAL, { "weight", "10001" } },
	{ "/a", "weight=1k", -EINVAL, { "weight", "1k" } },
	{ "/a", "weight=max", -EINVAL, { "weight", "max" } },
	{ "/a", "prio=8", -EINVAL, { "prio", "8" } },
	{ "/a", "rbps=1 rbps=2", -EINVAL, { "rbps", "2" } },
	{ "/a", "weight=5 prio=4", -EINVAL, { "prio", "4" } },
	{ "/a", "prio=4 weight=5", -EINVAL, { "weight", "5" } },
	{ "/a", "burst=1s rbps=1M burst=2s", -EINVAL, { "burst", "2s" } },
	/* the root-only keys elsewhere, and bad device values */
	{ "/a", "depth=64", -EINVAL, { "depth", "64", "/a" } },
	{ "/a/b", "cost=iops", -EINVAL, { "cost", "iops" } },
	{ "/a", "rio_cost=4k", -EINVAL, { "rio_cost", "4k" } },
	{ "/a", "wbyte_cost=1", -EINVAL, { "wbyte_cost" } },
	{ "/", "depth=0", -EINVAL, { "depth", "0" } },
	{ "/", "depth=1048577", -EINVAL, { "depth", "1048577" } },
	{ "/", "cost=fair", -EINVAL, { "cost", "fair" } },
	{ "/", "rio_cost=2G", -EINVAL, { "rio_cost", "2G" } },
	{ "/", "wio_cost=max", -EINVAL, { "wio_cost", "max" } },
	{ "/", "rbyte_cost=1025", -EINVAL, { "rbyte_cost", "1025" } },
	{ "/", "rbyte_cost=1k", -EINVAL, { "rbyte_cost", "1k" } },
	/* an error after good keys: nothing of the good ones applied */
	{ "/a", "rbps=1 wbps=2 weight=7 riops=nope", -EINVAL,
	  { "riops", "nope" } },
	{ "/new", "rbps=1M wbps=oops", -EINVAL, { "wbps", "oops" } },
	{ "/new/deeper", "weight=0", -EINVAL, { "weight" } },
	/* bytes that would break a one-line message */
	{ "/a", "rbps=1\nwbps=2", -EINVAL, { "rbps" } },
	{ "/a", "rbps=\x01\x7f", -EINVAL, { "rbps" } },
	{ "/a", "rb\rps=1", -EINVAL, { "rb" } },
	/* bad paths */
	{ "a", "rbps=1", -EINVAL, { "'a'" } },
	{ "", "rbps=1", -EINVAL, { "''" } },
	{ "//", "rbps=1", -EINVAL, { "//" } },
	{ "/a/", "rbps=1", -EINVAL, { "/a/" } },
	{ "/a//b", "rbps=1", -EINVAL, { "/a//b" } },
	{ "/a/../b", "rbps=1", -EINVAL, { "/a/../b" } },
	{ "/a/./b", "rbps=1", -EINVAL, { "/a/./b" } },
	{ "/..", "rbps=1", -EINVAL, { "/.." } },
	{ "/a b", "rbps=1", -EINVAL, { "/a b" } },
	{ "/a#b", "rbps=1", -EINVAL, { "/a#b" } },
	{ "/caf\xc3\xa9", "rbps=1", -EINVAL, { "/caf" } },
	{ "/a\nb", "rbps=1", -EINVAL, { "/a" } },
	{ "/a\tb", "rbps=1", -EINVAL, { "/a" } },
	/* a low above its max (the tree's cross-key check) */
	{ "/a", "rbps=1M rbps_low=2M", -EINVAL, { "rbps_low" } },
	{ "/n", "wiops=10 wiops_low=11", -EINVAL, { "wiops_low" } },
	{ "/lim", "rbps_low=2M", -EINVAL, { "rbps_low" } },
	{ "/lim", "riops_low=101", -EINVAL, { "riops_low" } },
	{ "/low", "wbps=512k", -EINVAL, { "wbps" } },
};

static void test_bad_sets(void)
{
	struct ioqos *q = base_new();
	struct snap before;
	char what[300];
	size_t i;

	snap_take(q, &before);
	for (i = 0; i < sizeof(bad_sets) / sizeof(bad_sets[0]); i++) {
		const struct bad_set *b = &bad_sets[i];
		char err[256];
		int ret;

		memset(err, 'x', sizeof(err));
		err[sizeof(err) - 1] = '\0';
		ret = ioqos_set(q, b->path, b->settings, 1000, err, sizeof(err));
		snprintf(what, sizeof(what), "set %s '%s'", shows(b->path),
			 shows(b->settings));
		expect_fail(q, what, ret, b->ret, err, &before, b->needles);
	}

	/* a long path */
	{
		static const char *const none[] = { "/aaaa", NULL };
		char *p = malloc(IOQOS_PATH_MAX + 2);
		char err[256];
		int ret;

		p[0] = '/';
		memset(p + 1, 'a', IOQOS_PATH_MAX);
		p[IOQOS_PATH_MAX + 1] = '\0';
		ret = ioqos_set(q, p, "rbps=1", 0, err, sizeof(err));
		expect_fail(q, "set a path longer than IOQOS_PATH_MAX", ret,
			    -EINVAL, err, &before, none);
		free(p);
	}

	/* a tiny or absent message buffer is never overrun */
	{
		static const char *const none[] = { NULL };
		char err[9];
		int ret;

		memset(err, 'x', sizeof(err));
		ret = ioqos_set(q, "/a", "rbps=12x", 0, err, 8);
		CHECK(err[8] == 'x' && strlen(err) == 7,
		      "message cut to errlen 8: '%s'", err);
		expect_fail(q, "set with errlen 8", ret, -EINVAL, err, &before,
			    none);
		ret = ioqos_set(q, "/a", "rbps=12x", 0, NULL, 0);
		CHECK(ret == -EINVAL, "set with no message buffer -> %d", ret);
		err[0] = 'x';
		ret = ioqos_set(q, "/a", "rbps=12x", 0, err, 0);
		CHECK(ret == -EINVAL && err[0] == 'x',
		      "errlen 0 leaves err alone -> %d", ret);
	}
	snap_free(&before);
	ioqos_free(q);
}

struct bad_file {
	const char *buf;
	size_t len;              /* 0: strlen(buf) */
	int ret;
	const char *needles[4];
};

static const struct bad_file bad_files[] = {
	{ "/x rbps=1M\n/b foo=1\n", 0, -EINVAL, { "cfg:2", "foo", "1" } },
	{ "/x rbps=1M\n/y wbps=2M\n/z rbps=oops", 0, -EINVAL,
	  { "cfg:3", "rbps", "oops" } },
	{ "/x rbps=1M\r\n/y wbps=2M\r\n/z rbps=oops\r\n", 0, -EINVAL,
	  { "cfg:3", "rbps", "oops" } },
	{ "/x rbps=1M\n\n# c\n/y wbps=2M\n/z burst=5h # last\n", 0, -EINVAL,
	  { "cfg:5", "burst", "5h" } },
	{ "/x rbps=1M\n/y wbps=2M\n/x wbps=2M\n", 0, -EINVAL,
	  { "cfg:3", "/x", "line 1" } },
	{ "/a rbps=1M\n/a rbps=1M\n", 0, -EINVAL, { "cfg:2", "/a", "line 1" } },
	{ "/x rbps=1M\n/y\0 wbps=1\n", 23, -EINVAL, { "cfg:2" } },
	{ "/x rbps\n", 0, -EINVAL, { "cfg:1", "rbps" } },
	{ "/x rbps=\n", 0, -EINVAL, { "cfg:1", "rbps" } },
	{ "/x rbps=-5\n", 0, -EINVAL, { "cfg:1", "rbps", "-5" } },
	{ "/x wbps=0\n", 0, -EINVAL, { "cfg:1", "wbps", "0" } },
	{ "/x wbps=16777216T\n", 0, -ERANGE, { "cfg:1", "wbps", "16777216T" } },
	{ "/x rbps=10kk\n", 0, -EINVAL, { "cfg:1", "rbps", "10kk" } },
	{ "/x weight=10001\n", 0, -EINVAL, { "cfg:1", "weight", "10001" } },
	{ "/x prio=8\n", 0, -EINVAL, { "cfg:1", "prio", "8" } },
	{ "/x rbps=1 rbps=2\n", 0, -EINVAL, { "cfg:1", "rbps", "2" } },
	{ "/x depth=4\n", 0, -EINVAL, { "cfg:1", "depth", "4" } },
	{ "/ depth=4\n/x cost=iops\n", 0, -EINVAL, { "cfg:2", "cost", "iops" } },
	{ "x rbps=1\n", 0, -EINVAL, { "cfg:1", "'x'" } },
	{ "/ok rbps=1\n/a/ rbps=1\n", 0, -EINVAL, { "cfg:2", "/a/" } },
	{ "/ok rbps=1\n/a/../b rbps=1\n", 0, -EINVAL, { "cfg:2", "/a/../b" } },
	{ "/ok rbps=1\n/caf\xc3\xa9 rbps=1\n", 0, -EINVAL, { "cfg:2", "/caf" } },
	{ "/ok rbps=1\n/a\rb rbps=1\n", 0, -EINVAL, { "cfg:2", "/a" } },
	{ "/x rbps=1M # ok\n/y\twbps=1x\r\n", 0, -EINVAL,
	  { "cfg:2", "wbps", "1x" } },
	{ "/x rbps=1M rbps_low=2M\n", 0, -EINVAL, { "cfg:1", "rbps_low" } },
	{ "/x rbps=1M\n/lim rbps_low=2M\n", 0, -EINVAL,
	  { "cfg:2", "rbps_low" } },
};

static void test_bad_files(void)
{
	struct ioqos *q = base_new();
	struct snap before;
	char what[300];
	char err[256];
	size_t i;
	int ret;

	snap_take(q, &before);
	for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		const struct bad_file *b = &bad_files[i];
		size_t len = b->len != 0 ? b->len : strlen(b->buf);

		ret = ioqos_load_buf(q, "cfg", b->buf, len, 1000, err,
				     sizeof(err));
		snprintf(what, sizeof(what), "load '%s'", show(b->buf, len));
		expect_fail(q, what, ret, b->ret, err, &before, b->needles);
	}

	/* a line over 4096 bytes, after a good line */
	{
		static const char *const needles[] = { "cfg:2", "too long", NULL };
		size_t n = 5000, len;
		char *buf = malloc(n + 64);

		len = (size_t)sprintf(buf, "/x rbps=1M\n/y ");
		memset(buf + len, ' ', n);
		len += n;
		len += (size_t)sprintf(buf + len, "wbps=1\n/z rbps=1\n");
		ret = ioqos_load_buf(q, "cfg", buf, len, 0, err, sizeof(err));
		expect_fail(q, "load a 5000-byte line", ret, -EINVAL, err,
			    &before, needles);
		free(buf);
	}
	/* exactly 4096 bytes is still fine */
	{
		struct ioqos *q2 = ioqos_new();
		size_t len;
		char *buf = malloc(4096 + 8);

		len = (size_t)sprintf(buf, "/y wbps=1");
		memset(buf + len, ' ', 4096 - len);
		buf[4096] = '\n';
		ret = ioqos_load_buf(q2, "cfg", buf, 4097, 0, err, sizeof(err));
		CHECK(ret == 0, "load a 4096-byte line -> %d %s", ret,
		      ret < 0 ? err : "");
		free(buf);
		ioqos_free(q2);
	}

	/* a missing file: the message names it */
	{
		static const char *const needles[] = {
			"/nonexistent-dir/ioqos-missing.conf", NULL
		};

		ret = ioqos_load(q, "/nonexistent-dir/ioqos-missing.conf", 0,
				 err, sizeof(err));
		expect_fail(q, "load a missing file", ret, -ENOENT, err,
			    &before, needles);
	}
	snap_free(&before);
	ioqos_free(q);
}

/*
 * ioqos_describe() writes settings in the syntax the parser reads: replaying
 * every group's text on a fresh controller gives the same limits.
 */
static void test_roundtrip(void)
{
	struct ioqos *q = base_new(), *r = ioqos_new();
	struct ioqos_limits a, b;
	char desc[1024], err[256] = "";
	uint32_t i;
	int ret;

	ret = ioqos_set(q, "/a/b", "riops_low=5 wbps=1P burst=1500us", 0, err,
			sizeof(err));
	CHECK(ret == 0, "roundtrip setup -> %d %s", ret, err);
	ret = ioqos_set(q, "/", "cost=iops wbyte_cost=3", 0, err, sizeof(err));
	CHECK(ret == 0, "roundtrip setup of / -> %d %s", ret, err);
	for (i = 0; i < ioqos_group_count(q); i++) {
		const char *path = ioqos_group_path(q, i);

		ioqos_describe(q, i, desc, sizeof(desc));
		ret = ioqos_set(r, path, desc, 0, err, sizeof(err));
		CHECK(ret == 0, "replay describe of %s '%s' -> %d %s", path,
		      desc, ret, ret < 0 ? err : "");
	}
	for (i = 0; i < ioqos_group_count(q); i++) {
		const char *path = ioqos_group_path(q, i);

		CHECK(limits_of(q, path, &a) && limits_of(r, path, &b) &&
		      limits_eq(&a, &b), "replayed %s has the same limits", path);
	}
	ioqos_free(r);
	ioqos_free(q);
}

/* ---- the parser on its own --------------------------------------------------- */

static void test_parser(void)
{
	struct ioqos__conf c;
	char err[256];
	int ret, k, j;

	ret = ioqos__conf_parse("wbps=8192P rbps_low=2 prio=4", false, &c,
				NULL, err, sizeof(err));
	CHECK(ret == 0 && c.set == ((1u << IOQOS__K_WBPS) |
				    (1u << IOQOS__K_RBPS_LOW) |
				    (1u << IOQOS__K_WEIGHT)) &&
	      c.val[IOQOS__K_WBPS] == 1ull << 63 &&
	      c.val[IOQOS__K_RBPS_LOW] == 2 && c.val[IOQOS__K_WEIGHT] == 100,
	      "conf_parse fills set and val");
	ret = ioqos__conf_parse("cost=iops depth=max", true, &c, NULL, err,
				sizeof(err));
	CHECK(ret == 0 && c.val[IOQOS__K_COST] == IOQOS__COST_IOPS &&
	      c.val[IOQOS__K_DEPTH] == IOQOS_UNLIMITED,
	      "conf_parse: cost preset and depth=max");
	ret = ioqos__conf_parse("  ", false, &c, NULL, err, sizeof(err));
	CHECK(ret == 0 && c.set == 0, "conf_parse: blanks only");
	ret = ioqos__conf_parse("rbps=1x", false, &c, "f.conf:7: ", err,
				sizeof(err));
	CHECK(ret == -EINVAL && strncmp(err, "f.conf:7: ", 10) == 0,
	      "conf_parse: message starts with where: %s", err);
	ret = ioqos__path_check("/", NULL, err, sizeof(err));
	CHECK(ret == 0, "path_check: '/' is the root");
	ret = ioqos__path_check("/..a/b..", NULL, err, sizeof(err));
	CHECK(ret == 0, "path_check: '..a' and 'b..' are names");
	ret = ioqos__path_check("/a/..", "x:1: ", err, sizeof(err));
	CHECK(ret == -EINVAL && strncmp(err, "x:1: ", 5) == 0 &&
	      strstr(err, "/a/..") != NULL,
	      "path_check: where and path in message: %s", err);

	for (k = 0; k < IOQOS__K_NR; k++) {
		const char *n = ioqos__key_name((enum ioqos__key)k);
		bool uniq = n != NULL && n[0] != '\0';

		for (j = 0; uniq && j < k; j++)
			uniq = strcmp(n, ioqos__key_name((enum ioqos__key)j)) != 0;
		CHECK(uniq, "key_name(%d) = '%s'", k, n != NULL ? n : "(null)");
	}

	CHECK(strcmp(ioqos_strerror(-12345), "unknown error") == 0,
	      "strerror of an unknown errno");
	CHECK(ioqos_strerror(-EINVAL)[0] != '\0' &&
	      ioqos_strerror(-ERANGE)[0] != '\0' &&
	      ioqos_strerror(-ENOENT)[0] != '\0' &&
	      ioqos_strerror(-ENOMEM)[0] != '\0' &&
	      ioqos_strerror(-EBUSY)[0] != '\0' &&
	      strcmp(ioqos_strerror(-EINVAL), "unknown error") != 0 &&
	      strcmp(ioqos_strerror(-EBUSY), "unknown error") != 0,
	      "strerror of the library's errnos");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_parser();
	test_good_counts();
	test_good_other();
	test_good_files();
	test_bad_sets();
	test_bad_files();
	test_roundtrip();
	return th_exit();
}
