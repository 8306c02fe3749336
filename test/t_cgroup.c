/* SPDX-License-Identifier: MIT */
/*
 * cgroup v2 syntax in config files (src/parse/cgroup.c): lines pasted from io.max
 * ("/t 8:16 rbps=1048576 wiops=max") and io.weight ("/t default 100",
 * "/t 8:16 200"), for the device named by device=MAJ:MIN on '/'.
 *
 * Accepted forms come in pairs: a config in cgroup syntax and the same
 * config in ioqos's own.  Both are loaded on fresh controllers, which must
 * then hold the same groups with the same settings (every group's path and
 * ioqos_describe() text), so each case says exactly what the cgroup form
 * means.  A few direct checks through ioqos_limits_get() guard the oracle.
 *
 * Rejected forms must fail with -EINVAL and one line that starts with
 * "cfg:LINE: " and names the key and the value, and must leave a
 * controller that already holds a config exactly as it was.
 *
 * Prints one line per check (helpers.h); exits 0 if all pass, 1 if any fails.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ioqos.h"
#include "helpers.h"

/* a config on one line of output: newlines as '|' */
static const char *flat(const char *s)
{
	static char buf[4][400];
	static unsigned k;
	char *b = buf[k++ % 4];
	size_t i;

	for (i = 0; s[i] != '\0' && i + 4 < sizeof(buf[0]); i++)
		b[i] = s[i] == '\n' ? '|' : s[i] == '\r' ? '^' : s[i];
	b[i] = '\0';
	if (s[i] != '\0')
		strcpy(b + i, "...");
	return b;
}

/* every group as "path: settings" lines, sorted by path: what a controller
 * holds, whatever order its groups were created in (malloc'd) */
static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *snapshot(struct ioqos *q)
{
	uint32_t i, n = ioqos_group_count(q);
	char **lines = calloc(n != 0 ? n : 1, sizeof(*lines));
	size_t len = 1, o = 0;
	char *out;

	if (lines == NULL)
		abort();
	for (i = 0; i < n; i++) {
		const char *path = ioqos_group_path(q, i);
		int dl = ioqos_describe(q, i, NULL, 0);
		size_t pl = strlen(path);

		lines[i] = malloc(pl + (size_t)(dl > 0 ? dl : 0) + 4);
		if (lines[i] == NULL)
			abort();
		memcpy(lines[i], path, pl);
		memcpy(lines[i] + pl, ": ", 2);
		if (dl > 0)
			ioqos_describe(q, i, lines[i] + pl + 2, (size_t)dl + 1);
		else
			lines[i][pl + 2] = '\0';
		len += strlen(lines[i]) + 1;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	out = malloc(len);
	if (out == NULL)
		abort();
	for (i = 0; i < n; i++) {
		o += (size_t)sprintf(out + o, "%s\n", lines[i]);
		free(lines[i]);
	}
	out[o] = '\0';
	free(lines);
	return out;
}

/* load @cfg on a fresh controller; NULL (and a failed check) if it fails */
static struct ioqos *load_new(const char *what, const char *cfg)
{
	struct ioqos *q = ioqos_new();
	char err[256] = "";
	int ret;

	if (q == NULL)
		abort();
	ret = ioqos_load_buf(q, "cfg", cfg, strlen(cfg), 0, err, sizeof(err));
	if (!CHECK(ret == 0, "%s: '%s' loads -> %d %s", what, flat(cfg), ret, err)) {
		ioqos_free(q);
		return NULL;
	}
	return q;
}

/* ---- accepted forms ------------------------------------------------------- */

struct same {
	const char *what;
	const char *cgroup;      /* a config with cgroup forms */
	const char *native;      /* the same config in ioqos's own syntax */
};

static const struct same sames[] = {
	{ "io.max line for this device",
	  "/ device=8:16\n/t 8:16 rbps=1048576 wiops=max\n",
	  "/\n/t rbps=1048576 wiops=max\n" },
	{ "io.max as cat io.max prints it, every key",
	  "/ device=8:16\n/t 8:16 rbps=1048576 wbps=max riops=max wiops=120\n",
	  "/\n/t rbps=1048576 wiops=120\n" },
	{ "io.max lines for other devices are skipped",
	  "/ device=8:16 depth=32\n/t 8:0 rbps=1M\n/t 8:16 wbps=2M\n/t 259:0 riops=5\n/u 8:32 rbps=1\n",
	  "/ depth=32\n/t wbps=2M\n" },
	{ "device= anywhere on '/', and after the lines that need it",
	  "/a 8:16 rbps=1M\n/ depth=4 device=8:16 cost=iops\n",
	  "/a rbps=1M\n/ depth=4 cost=iops\n" },
	{ "device= alone changes nothing else",
	  "/ device=8:16\n/a rbps=1M weight=300\n",
	  "/\n/a rbps=1M weight=300\n" },
	{ "our own keys after a device",
	  "/ device=253:3\n/a 253:3 rbps_low=1M burst=20ms prio=2\n",
	  "/\n/a rbps_low=1M burst=20ms prio=2\n" },
	{ "io.weight default",
	  "/t default 300\n",
	  "/t weight=300\n" },
	{ "io.weight bare number is the default",
	  "/t 250\n",
	  "/t weight=250\n" },
	{ "io.weight for this device",
	  "/ device=8:16\n/t 8:16 200\n",
	  "/\n/t weight=200\n" },
	{ "the device's weight wins over the default, after it",
	  "/ device=8:16\n/t default 10\n/t 8:16 20\n",
	  "/\n/t weight=20\n" },
	{ "the device's weight wins over the default, before it",
	  "/ device=8:16\n/t 8:16 40\n/t default 30\n",
	  "/\n/t weight=40\n" },
	{ "another device's weight is skipped",
	  "/ device=8:16\n/t default 30\n/t 8:0 500\n/u 8:0 7\n",
	  "/\n/t weight=30\n" },
	{ "MAJ:MIN default leaves the default",
	  "/ device=8:16\n/t 8:16 default\n/t default 70\n",
	  "/\n/t weight=70\n" },
	{ "MAJ:MIN default alone: the group with weight 100",
	  "/ device=8:16\n/t 8:16 default\n",
	  "/\n/t\n" },
	{ "a weight joins the group's io.max line",
	  "/ device=8:16\n/t 8:16 rbps=1M\n/t default 300\n/t 8:16 600\n",
	  "/\n/t rbps=1M weight=600\n" },
	{ "a weight joins the group's own line, before it",
	  "/t default 5\n/t wbps=1k riops=9\n",
	  "/t wbps=1k riops=9 weight=5\n" },
	{ "weights of many groups, in any order",
	  "/ device=8:16\n/b 8:16 2\n/a default 1\n/c default 3\n/a 8:16 4\n/b rbps=1M\n/c 8:0 9\n",
	  "/\n/b rbps=1M weight=2\n/a weight=4\n/c weight=3\n" },
	{ "the limits of '/' in io.max form",
	  "/ 8:16 device=8:16 rbps=10M\n/a default 2\n",
	  "/ rbps=10M\n/a weight=2\n" },
	{ "comments, CRLF, tabs and a last line without newline",
	  "/\tdevice=8:16\t# the disk\r\n/t\t8:16\trbps=1M # io.max\r\n\n# x\n/t default 9 # io.weight\r\n/u  8:16   3",
	  "/\n/t rbps=1M weight=9\n/u weight=3\n" },
	{ "weight 1 and 10000, and 0-padded numbers",
	  "/ device=08:016\n/a default 1\n/b 8:16 10000\n/c 0100\n",
	  "/\n/a weight=1\n/b weight=10000\n/c weight=100\n" },
	{ "the largest device number",
	  "/ device=4095:1048575\n/a 4095:1048575 rbps=1\n",
	  "/\n/a rbps=1\n" },
	{ "nested groups",
	  "/ device=8:16\n/vm1 8:16 rbps=200M\n/vm1/db default 300\n/vm1/log 8:16 100\n",
	  "/\n/vm1 rbps=200M\n/vm1/db weight=300\n/vm1/log weight=100\n" },
	{ "io.latency for this device, in microseconds",
	  "/ device=8:16\n/t 8:16 target=500\n",
	  "/\n/t latency=500us\n" },
	{ "io.latency for another device is skipped; 0 is none",
	  "/ device=8:16\n/t 8:0 target=75\n/u 8:16 target=0\n",
	  "/\n/u\n" },
	{ "io.latency joins the io.max line and the weight",
	  "/ device=8:16\n/t 8:16 target=2000\n/t default 300\n/t 8:16 rbps=1M\n",
	  "/\n/t rbps=1M weight=300 latency=2ms\n" },
	{ "io.latency and a weight, no line of limits",
	  "/ device=8:16\n/t 8:16 target=10000000\n/t 8:16 40\n",
	  "/\n/t weight=40 latency=10s\n" },
};

static void test_sames(void)
{
	size_t i;

	for (i = 0; i < sizeof(sames) / sizeof(sames[0]); i++) {
		const struct same *s = &sames[i];
		struct ioqos *a = load_new(s->what, s->cgroup);
		struct ioqos *b = load_new(s->what, s->native);
		char *sa, *sb;

		if (a == NULL || b == NULL) {
			ioqos_free(a);
			ioqos_free(b);
			continue;
		}
		sa = snapshot(a);
		sb = snapshot(b);
		CHECK(strcmp(sa, sb) == 0, "%s: '%s' means '%s'%s%s%s%s", s->what,
		      flat(s->cgroup), flat(s->native),
		      strcmp(sa, sb) != 0 ? "\n  got:  " : "",
		      strcmp(sa, sb) != 0 ? flat(sa) : "",
		      strcmp(sa, sb) != 0 ? "\n  want: " : "",
		      strcmp(sa, sb) != 0 ? flat(sb) : "");
		free(sa);
		free(sb);
		ioqos_free(a);
		ioqos_free(b);
	}
}

/* the oracle itself: what the loaded controller holds, key by key */
static void test_direct(void)
{
	static const char cfg[] =
		"/ device=8:16 depth=8\n"
		"/tenant 8:16 rbps=1048576 wiops=max\n"
		"/tenant 8:0 wbps=5\n"
		"/tenant default 100\n"
		"/tenant 8:16 200\n"
		"/other default 300\n";
	struct ioqos_limits l;
	struct ioqos *q = load_new("direct", cfg);
	int id;

	if (q == NULL)
		return;
	id = ioqos_group_find(q, "/tenant");
	CHECK(id >= 0 && ioqos_limits_get(q, (uint32_t)id, &l) == 0 &&
	      l.bps[IOQOS_READ] == 1048576 &&
	      l.bps[IOQOS_WRITE] == IOQOS_UNLIMITED &&
	      l.iops[IOQOS_WRITE] == IOQOS_UNLIMITED && l.weight == 200,
	      "/tenant: rbps 1048576, wbps of 8:0 not applied, weight of 8:16 (%llu %llu %u)",
	      (unsigned long long)l.bps[IOQOS_READ],
	      (unsigned long long)l.bps[IOQOS_WRITE], l.weight);
	id = ioqos_group_find(q, "/other");
	CHECK(id >= 0 && ioqos_limits_get(q, (uint32_t)id, &l) == 0 &&
	      l.weight == 300, "/other: weight 300 from its default (%u)",
	      l.weight);
	CHECK(ioqos_limits_get(q, 0, &l) == 0 && l.depth == 8, "/: depth 8");
	CHECK(ioqos_group_count(q) == 3, "three groups (%u)",
	      ioqos_group_count(q));
	ioqos_free(q);
}

/* a file, through ioqos_load(): the message names the file */
static void test_file(void)
{
	char path[] = "/tmp/ioqos-t_cgroup.XXXXXX";
	static const char cfg[] = "/ device=8:16\n/a 8:16 weight=3 rbps=1M\n/a default 0\n";
	struct ioqos *q = ioqos_new();
	char err[256] = "", want[64];
	int fd = mkstemp(path), ret;

	if (q == NULL || fd < 0 || write(fd, cfg, sizeof(cfg) - 1) != (ssize_t)(sizeof(cfg) - 1))
		abort();
	close(fd);
	ret = ioqos_load(q, path, 0, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:3: key 'default'", path);
	CHECK(ret == -EINVAL && strncmp(err, want, strlen(want)) == 0,
	      "ioqos_load of a file: -> %d '%s'", ret, err);
	CHECK(ioqos_group_count(q) == 1, "ioqos_load: nothing created");
	unlink(path);
	ioqos_free(q);
}

/* ---- rejected forms ------------------------------------------------------- */

struct bad {
	const char *cfg;
	const char *needles[4];   /* the first is the message's start */
};

static const struct bad bads[] = {
	/* the device */
	{ "/a rbps=1M\n/t 8:16 rbps=1M\n",
	  { "cfg:2: key 'device': bad value '8:16' (the line is for a device, but the config names none" } },
	{ "/t 8:16 200\n", { "cfg:1: key 'device': bad value '8:16'", "names none" } },
	{ "/ device=8:x\n", { "cfg:1: key 'device': bad value '8:x' (want MAJ:MIN" } },
	{ "/ device=8\n", { "cfg:1: key 'device': bad value '8' (want MAJ:MIN" } },
	{ "/ device=\n", { "cfg:1: key 'device': bad value '' (empty)" } },
	{ "/ device=:16\n", { "cfg:1: key 'device': bad value ':16'" } },
	{ "/ device=-8:16\n", { "cfg:1: key 'device': bad value '-8:16'" } },
	{ "/ device=4096:0\n", { "cfg:1: key 'device': bad value '4096:0' (the major is at most 4095)" } },
	{ "/ device=8:1048576\n", { "cfg:1: key 'device': bad value '8:1048576' (the minor is at most 1048575)" } },
	{ "/ device=8:16 device=8:0\n", { "cfg:1: key 'device' given twice (value '8:0')" } },
	/* io.latency */
	{ "/ device=8:16\n/t 8:16 target=5x\n",
	  { "cfg:2: key '8:16': bad value 'target=5x' (io.latency's target=N is a whole number of microseconds)" } },
	{ "/ device=8:16\n/t 8:16 target=\n", { "cfg:2: key '8:16': bad value 'target='" } },
	{ "/ device=8:16\n/t 8:16 target=10000001\n",
	  { "cfg:2: key '8:16': bad value 'target=10000001' (a target is at most 10000000 us" } },
	{ "/ device=8:16\n/t 8:16 target=5 rbps=1\n",
	  { "cfg:2: key '8:16' (value 'target=5'): an io.latency line has target= alone ('rbps=1'" } },
	{ "/ device=8:16\n/t 8:16 target=5\n/t 8:16 target=6\n",
	  { "cfg:3: key '8:16' given twice for group '/t' (value 'target=6'; first on line 2)" } },
	{ "/ device=8:16\n/t 8:16 target=5\n/t latency=1ms\n",
	  { "cfg:2: key '8:16' (value 'target=5'): group '/t' has a latency target on line 3 too ('latency=1ms')" } },
	{ "/t 8:16 target=5\n", { "cfg:1: key 'device': bad value '8:16'", "names none" } },
	{ "/t latency=1\n", { "cfg:1: key 'latency': bad value '1' (missing unit" } },
	{ "/t latency=10001ms\n", { "cfg:1: key 'latency': bad value '10001ms' (longer than 10s)" } },
	{ "/t latency=-5us\n", { "cfg:1: key 'latency': bad value '-5us'" } },
	{ "/ device=8:16\n/a rbps=1\n/ device=8:0\n", { "cfg:3: key 'device' given twice (value '8:0')" } },
	{ "/ device=8:16\n/t device=8:16\n", { "cfg:2: key 'device' (value '8:16') is only valid on group '/'" } },
	{ "/t rbps=1 device=8:16\n", { "cfg:1: key 'device' (value '8:16') is only valid on group '/'" } },
	{ "/ device=8:16\n/t 8:16\n", { "cfg:2: key 'device': bad value '8:16' (nothing follows it" } },
	{ "/ device=8:16\n/t 8:1x6 rbps=1\n", { "cfg:2: key 'device': bad value '8:1x6'" } },
	{ "/ device=8:16\n/t 99999:1 200\n", { "cfg:2: key 'device': bad value '99999:1' (the major" } },
	/* weights */
	{ "/t default\n", { "cfg:1: key 'default': bad value '' (missing the weight)" } },
	{ "/t default abc\n", { "cfg:1: key 'default': bad value 'abc' (a weight is an integer 1..10000)" } },
	{ "/t default 0\n", { "cfg:1: key 'default': bad value '0' (out of range 1..10000)" } },
	{ "/t default 10001\n", { "cfg:1: key 'default': bad value '10001' (out of range 1..10000)" } },
	{ "/t default 99999999999999999999\n", { "cfg:1: key 'default': bad value '99999999999999999999' (out of range" } },
	{ "/t default -5\n", { "cfg:1: key 'default': bad value '-5'" } },
	{ "/t default 1k\n", { "cfg:1: key 'default': bad value '1k'" } },
	{ "/t default max\n", { "cfg:1: key 'default': bad value 'max'" } },
	{ "/t default default\n", { "cfg:1: key 'default': bad value 'default'" } },
	{ "/t 20000\n", { "cfg:1: key 'default': bad value '20000' (out of range 1..10000)" } },
	{ "/t 0\n", { "cfg:1: key 'default': bad value '0' (out of range" } },
	{ "/ device=8:16\n/t 8:16 abc\n",
	  { "cfg:2: key '8:16': bad value 'abc' (a weight is an integer 1..10000, or 'default')" } },
	{ "/ device=8:16\n/t 8:16 0\n", { "cfg:2: key '8:16': bad value '0' (out of range 1..10000)" } },
	{ "/ device=8:16\n/t 8:0 0\n", { "cfg:2: key '8:0': bad value '0' (out of range 1..10000)" } },
	{ "/t default 100 200\n",
	  { "cfg:1: key 'default' (value '100'): one weight per line, and nothing after it ('200')" } },
	{ "/ device=8:16\n/t 8:16 100 rbps=1\n", { "cfg:2: key '8:16' (value '100'): one weight per line", "'rbps=1'" } },
	{ "/t default 100\n/u default 1\n/t default 200\n",
	  { "cfg:3: key 'default' given twice for group '/t' (value '200'; first on line 1)" } },
	{ "/t 100\n/t default 200\n", { "cfg:2: key 'default' given twice for group '/t' (value '200'; first on line 1)" } },
	{ "/ device=8:16\n/t 8:16 100\n/t 8:16 default\n",
	  { "cfg:3: key '8:16' given twice for group '/t' (value 'default'; first on line 2)" } },
	{ "/t weight=300\n/t default 200\n",
	  { "cfg:2: key 'default' (value '200'): group '/t' has a weight on line 1 too ('weight=300'); give it once" } },
	{ "/ device=8:16\n/t 8:16 200\n/t 8:16 prio=3 rbps=1M\n",
	  { "cfg:2: key '8:16' (value '200'): group '/t' has a weight on line 3 too ('prio=3')" } },
	{ "/ device=8:16\n/t/ default 100\n", { "cfg:2: ", "bad group path '/t/'" } },
	{ "/t/../u 100\n", { "cfg:1: ", "bad group path '/t/../u'" } },
	/* lines for another device are checked too */
	{ "/ device=8:16\n/t 8:0 rbps=12x\n", { "cfg:2: ", "'rbps'", "'12x'" } },
	{ "/ device=8:16\n/t 8:0 foo=1\n", { "cfg:2: ", "'foo'", "'1'" } },
	{ "/ device=8:16\n/t 8:0 depth=3\n", { "cfg:2: ", "'depth'", "only valid on group '/'" } },
	{ "/ device=8:16\n/t 8:0 rbps=1 rbps=2\n", { "cfg:2: ", "'rbps' given twice" } },
	{ "/ device=8:16\n/t/.. 8:0 rbps=1\n", { "cfg:2: ", "bad group path" } },
	{ "/ device=8:16\n/t 8:0 rbps=1 200\n", { "cfg:2: ", "'200'", "missing '='" } },
	/* the loader's own rules still hold, at the lines as written */
	{ "/ device=8:16\n/t 8:16 rbps=1M\n/t rbps=2M\n", { "cfg:3: ", "group '/t' is already configured on line 2" } },
	{ "/ device=8:16\n/t 8:16 rbps=1M\n/t 8:16 wbps=2M\n", { "cfg:3: ", "already configured on line 2" } },
	{ "/ device=8:16\n\n\n/t 8:16 rbps=12q\n", { "cfg:4: ", "'rbps'", "'12q'" } },
	{ "/ device=8:16\n/t 8:16 200\n/u wbps=1 rbps_low=2 rbps=1\n", { "cfg:3: ", "rbps_low" } },
	{ "/t default 5\n/t 8:16 rbps=1M\n", { "cfg:2: key 'device'", "names none" } },
};

static void test_bads(void)
{
	static const char base[] = "/ depth=16\n/keep rbps=1M weight=50\n";
	struct ioqos *q = load_new("base config", base);
	char *before;
	size_t i, k;

	if (q == NULL)
		return;
	before = snapshot(q);
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		char err[256] = "";
		char *after;
		int ret;

		ret = ioqos_load_buf(q, "cfg", b->cfg, strlen(b->cfg), 0, err,
				     sizeof(err));
		CHECK(ret == -EINVAL, "'%s' fails -> %d", flat(b->cfg), ret);
		CHECK(strchr(err, '\n') == NULL &&
		      strncmp(err, b->needles[0], strlen(b->needles[0])) == 0,
		      "'%s': message '%s' starts '%s'", flat(b->cfg), err,
		      b->needles[0]);
		for (k = 1; k < 4 && b->needles[k] != NULL; k++)
			CHECK(strstr(err, b->needles[k]) != NULL,
			      "'%s': message names %s", flat(b->cfg), b->needles[k]);
		after = snapshot(q);
		CHECK(strcmp(before, after) == 0, "'%s': controller unchanged",
		      flat(b->cfg));
		free(after);
	}
	free(before);
	ioqos_free(q);
}

/* a line that the added weight makes longer than the loader takes */
static void test_long(void)
{
	size_t n = 4090, len;
	char *cfg = malloc(n + 64), err[256] = "";
	struct ioqos *q = ioqos_new();
	int ret;

	if (cfg == NULL || q == NULL)
		abort();
	len = (size_t)sprintf(cfg, "/t rbps=");
	memset(cfg + len, '0', n - len - 1);       /* rbps=000...01 */
	len = n - 1;
	len += (size_t)sprintf(cfg + len, "1\n/t default 300\n");
	ret = ioqos_load_buf(q, "cfg", cfg, len, 0, err, sizeof(err));
	CHECK(ret == -EINVAL && strstr(err, "cfg:1: line too long with the weight of line 2 added") == err,
	      "a %zu-byte line and its weight -> %d '%s'", n, ret, err);
	cfg[n - 1] = '\0';
	memcpy(cfg + n - 1, "1\n", 3);             /* the same line alone loads */
	ret = ioqos_load_buf(q, "cfg", cfg, n + 1, 0, err, sizeof(err));
	CHECK(ret == 0, "the %zu-byte line alone loads -> %d %s", n, ret, ret < 0 ? err : "");
	free(cfg);
	ioqos_free(q);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_sames();
	test_direct();
	test_file();
	test_bads();
	test_long();
	return th_exit();
}
