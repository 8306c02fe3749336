/* SPDX-License-Identifier: MIT */
/*
 * replay: a tree of limited groups, replayed in virtual time.
 *
 * The default is test C of the 2014 blk-throttle token-bucket patch
 * ("blk-throttle: simplify logic by token bucket algorithm"):
 *
 *	/
 *	|-- 1 [200k]            k = 1024 B/s, so 200k = 204800 B/s
 *	|   `-- 2 [100k]
 *	|       `-- 3 [50k]
 *	`-- 4 [50k]
 *
 * with one dd-like reader in each of /1, /1/2, /1/2/3 and /4: 128 KiB reads,
 * one outstanding at a time, the next one issued as soon as the last
 * completes.  The replay drives the controller exactly as a real front end
 * would (submit, next until NULL, sleep until wake_ns or a completion,
 * done), but the clock is a variable, so 100 seconds take a few
 * milliseconds and every run gives the same numbers.
 *
 * What each reader should get (the "expected" column) is worked out from
 * the limits alone, by water-filling from the root down: a group's limit
 * (or what its parent leaves it) is divided among its own requests (weight
 * 100) and its children (their weights), and whatever a source cannot use
 * goes to the others.  In test C, /1/2's subtree is capped at 100k by /1/2,
 * so /1's own reader gets 200k - 100k = 100k; inside /1/2, /1/2/3 is capped
 * at 50k, so /1/2's own reader gets 100k - 50k = 50k.
 *
 * The "achieved" rate of a reader is the bytes it was dispatched after its
 * first request divided by the time from its first dispatch to its last:
 * the steady rate.  Counting whole requests over the run instead would be
 * off by up to one 128 KiB request: 2.6% of 50k over 100 seconds.
 *
 * Tests A and B of the same patch are here too; --config replays any
 * config file with readers placed by --reader.  Only the public API is
 * used.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ioqos.h>

#define NS_PER_S 1000000000ull
#define DEFAULT_SIZE (128u * 1024)   /* dd's read size in the 2014 tests, bytes */
#define MAX_READERS 4096
#define MAX_SECONDS 1000000.0        /* keeps the end time far inside 64 bits */
/* more dispatches than any sane replay: a runaway loop, not a result */
#define MAX_DISPATCHES 200000000ull

struct reader {
	struct ioqos_req req;        /* its one outstanding request */
	const char *path;            /* its group */
	bool path_owned;             /* path was copied out of a --reader argument */
	uint32_t gid;
	uint64_t size;               /* bytes per read */
	uint64_t done_at_ns;         /* completion time while in flight, else UINT64_MAX */
	uint64_t n;                  /* requests dispatched */
	uint64_t bytes;              /* their bytes */
	uint64_t first_ns, last_ns;  /* first and last dispatch */
	double demand_Bps;           /* what the device lets it reach, B/s (INFINITY) */
	double expected_Bps;         /* worked out from the limits, NAN if unknown */
	const char *kernel;          /* what dd measured in 2014, as printed, or NULL */
	double kernel_Bps;           /* the same in B/s (dd's kB = 1000 B) */
	bool kernel_cmp;             /* its error vs expected means something */
};

struct test {
	const char *name;
	const char *title;
	const char *config;          /* an ioqos config, as a file would hold it */
	uint64_t device_Bps;         /* 0: every read completes at once */
	struct { const char *path, *kernel; double kernel_Bps; bool cmp; } rd[4];
	const char *note;
};

/*
 * The three tests of the patch's mail of April 2014.  The kernel figures are
 * dd's, whose kB is 1000 bytes: test A's "205kB/s" is the 204800 B/s limit.
 */
static const struct test tests[] = {
	{
		"A", "one reader in /1/2/3, throttled by its ancestor /1",
		"/1 rbps=200k\n/1/2\n/1/2/3\n/4\n",
		0,
		{ { "/1/2/3", "205 kB/s", 205000, true } },
		"/1/2/3 has no limit of its own; /1's 200k holds it.",
	},
	{
		"B", "four readers, /1 unlimited",
		"/1/2 rbps=100k\n/1/2/3 rbps=50k\n/4 rbps=50k\n",
		171000000,
		{ { "/1", "171 MB/s", 171e6, false },
		  { "/1/2", "51.9 kB/s", 51900, true },
		  { "/1/2/3", "51.2 kB/s", 51200, true },
		  { "/4", "51.3 kB/s", 51300, true } },
		"/1 is unlimited: its reader runs at the device's speed, here a device\n"
		"serving each read at 171 MB/s (the kernel's figure); the limited\n"
		"readers see the same device.",
	},
	{
		"C", "four readers in three levels",
		"/1 rbps=200k\n/1/2 rbps=100k\n/1/2/3 rbps=50k\n/4 rbps=50k\n",
		0,
		{ { "/1", "104 kB/s", 104000, true },
		  { "/1/2", "52.8 kB/s", 52800, true },
		  { "/1/2/3", "51.1 kB/s", 51100, true },
		  { "/4", "51.4 kB/s", 51400, true } },
		"/1's own reader gets 200k - 100k: /1/2's subtree (capped at 100k by\n"
		"/1/2) takes 100k of /1's limit.  Likewise /1/2's own reader gets\n"
		"100k - 50k, the other 50k going to /1/2/3.",
	},
};

static const char *prog = "replay";

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s [--test A|B|C] [--seconds N] [--device RATE|instant]\n"
"       %s --config FILE --reader PATH[:SIZE] [--reader ...] [--seconds N]\n"
"          [--device RATE|instant] [--strict]\n"
"\n"
"Replays a tree of limited groups in virtual time with libioqos and prints,\n"
"for each reader, the rate it achieved against the rate its limits imply.\n"
"\n"
"  --test A|B|C     a test of the 2014 blk-throttle token-bucket patch\n"
"                   (default C: /1=200k /1/2=100k /1/2/3=50k /4=50k, one\n"
"                   128 KiB reader in each of the four groups)\n"
"  --seconds N      virtual seconds to replay (default 100)\n"
"  --config FILE    load an ioqos config file (\"PATH key=value ...\" lines)\n"
"  --reader P[:S]   a reader in group P issuing reads of S bytes (default\n"
"                   128k), one at a time; repeat for more readers\n"
"  --device RATE    each read takes SIZE / RATE to complete (B/s, k/M/G =\n"
"                   1024); \"instant\" completes at once (default, except in\n"
"                   test B)\n"
"  --strict         exit 1 if a reader is 1%% or more off its expected rate\n"
"  --help           this text\n"
"\n"
"The expected rate assumes limited groups share by bytes and a group's own\n"
"readers take turns; it is not worked out under an iops limit whose\n"
"readers differ in size.\n",
		prog, prog);
}

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try --help)\n");
	exit(2);
}

/* a count with an optional k/M/G/T suffix (powers of 1024, an optional i/B) */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v, mul = 1;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	case 't': case 'T': mul = 1ull << 40; end++; break;
	default: break;
	}
	if (mul > 1 && *end == 'i')
		end++;
	if (mul > 1 && (*end == 'B' || *end == 'b'))
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

/* ---- what the limits imply ---------------------------------------------- */

struct node {
	int parent;                  /* -1 for "/" */
	double cap_Bps;              /* its own limit in bytes/s, INFINITY if none */
	double weight;
	double demand_Bps;           /* what its subtree would take, capped by its limit */
	double own_demand_Bps;       /* what its own readers would take */
	uint64_t size;               /* the readers' size in its subtree, 0 if mixed */
	bool has_readers;            /* in its subtree */
	bool iops_limited;
	double iops;
};

/*
 * Divide @cap among @n sources of weights @w and demands @d: each gets
 * cap * w / sum(w) unless it wants less, in which case it gets what it
 * wants and the rest is divided again among the others.
 */
static void waterfill(double cap, int n, const double *w, const double *d,
		      double *out)
{
	bool *fixed = calloc((size_t)n, sizeof(*fixed));
	bool again = true;

	if (!fixed) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	while (again) {
		double left = cap, wsum = 0;

		again = false;
		for (int i = 0; i < n; i++) {
			if (fixed[i])
				left -= out[i];
			else
				wsum += w[i];
		}
		for (int i = 0; i < n; i++) {
			if (fixed[i])
				continue;
			out[i] = wsum > 0 ? left * w[i] / wsum : 0;
			if (d[i] <= out[i] && isfinite(d[i])) {
				out[i] = d[i];
				fixed[i] = true;
				again = true;
				break;          /* redivide with this one settled */
			}
		}
	}
	free(fixed);
}

/* set expected_Bps of every reader; false if it cannot be worked out */
static bool work_out_expected(struct ioqos *q, struct reader *rd, int nrd)
{
	uint32_t ng = ioqos_group_count(q);
	struct node *nd = calloc(ng, sizeof(*nd));
	bool ok = true;

	if (!nd) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	for (uint32_t id = 0; id < ng; id++) {
		struct ioqos_limits l;
		const char *path = ioqos_group_path(q, id);
		const char *slash = path ? strrchr(path, '/') : NULL;

		nd[id].parent = -1;
		if (slash && id != 0) {
			char parent[IOQOS_PATH_MAX + 1];
			size_t len = (size_t)(slash - path);

			if (len == 0)
				len = 1;        /* "/x": the parent is "/" */
			memcpy(parent, path, len);
			parent[len] = '\0';
			nd[id].parent = ioqos_group_find(q, parent);
		}
		nd[id].cap_Bps = INFINITY;
		nd[id].weight = 100;
		nd[id].iops = INFINITY;
		if (ioqos_limits_get(q, id, &l) == 0) {
			if (l.bps[IOQOS_READ] != IOQOS_UNLIMITED)
				nd[id].cap_Bps = (double)l.bps[IOQOS_READ];
			if (l.iops[IOQOS_READ] != IOQOS_UNLIMITED) {
				nd[id].iops_limited = true;
				nd[id].iops = (double)l.iops[IOQOS_READ];
			}
			nd[id].weight = l.weight;
		}
	}

	/* which subtrees hold readers, and of which size */
	for (int i = 0; i < nrd; i++) {
		for (int id = (int)rd[i].gid; id >= 0; id = nd[id].parent) {
			if (!nd[id].has_readers)
				nd[id].size = rd[i].size;
			else if (nd[id].size != rd[i].size)
				nd[id].size = 0;
			nd[id].has_readers = true;
		}
		nd[rd[i].gid].own_demand_Bps += rd[i].demand_Bps;
	}
	for (uint32_t id = 0; id < ng; id++) {
		if (!nd[id].iops_limited || !nd[id].has_readers)
			continue;
		if (nd[id].size == 0)
			ok = false;     /* an iops limit over mixed sizes */
		else
			nd[id].cap_Bps = fmin(nd[id].cap_Bps,
					      nd[id].iops * (double)nd[id].size);
	}

	/* demand, bottom-up: children have larger ids than their parents */
	for (int64_t id = (int64_t)ng - 1; id >= 0; id--)
		nd[id].demand_Bps += nd[id].own_demand_Bps;
	for (int64_t id = (int64_t)ng - 1; id >= 0; id--) {
		nd[id].demand_Bps = fmin(nd[id].demand_Bps, nd[id].cap_Bps);
		if (nd[id].parent >= 0)
			nd[nd[id].parent].demand_Bps += nd[id].demand_Bps;
	}

	/* allocation, top-down: each group divides what it gets */
	double *alloc = calloc(ng, sizeof(*alloc));
	double *w = calloc((size_t)ng + (size_t)nrd + 1, sizeof(*w));
	double *d = calloc((size_t)ng + (size_t)nrd + 1, sizeof(*d));
	double *o = calloc((size_t)ng + (size_t)nrd + 1, sizeof(*o));
	uint32_t *who = calloc((size_t)ng + (size_t)nrd + 1, sizeof(*who));

	if (!alloc || !w || !d || !o || !who) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	if (ng > 0)
		alloc[0] = nd[0].demand_Bps;
	for (uint32_t id = 0; id < ng; id++) {
		int n = 0;
		double own_share;

		if (!nd[id].has_readers)
			continue;
		/* source 0: the group's own readers, weight 100 */
		w[n] = 100;
		d[n] = nd[id].own_demand_Bps;
		who[n++] = UINT32_MAX;
		for (uint32_t c = id + 1; c < ng; c++) {
			if (nd[c].parent != (int)id || !nd[c].has_readers)
				continue;
			w[n] = nd[c].weight;
			d[n] = nd[c].demand_Bps;
			who[n++] = c;
		}
		waterfill(alloc[id], n, w, d, o);
		own_share = o[0];
		for (int i = 1; i < n; i++)
			alloc[who[i]] = o[i];

		/* own readers take turns: equal I/O counts, bytes by size */
		n = 0;
		for (int i = 0; i < nrd; i++) {
			if (rd[i].gid != id)
				continue;
			w[n] = (double)rd[i].size;
			d[n] = rd[i].demand_Bps;
			who[n++] = (uint32_t)i;
		}
		if (n > 0) {
			waterfill(own_share, n, w, d, o);
			for (int i = 0; i < n; i++)
				rd[who[i]].expected_Bps = o[i];
		}
	}
	if (!ok)
		for (int i = 0; i < nrd; i++)
			rd[i].expected_Bps = NAN;
	free(alloc);
	free(w);
	free(d);
	free(o);
	free(who);
	free(nd);
	return ok;
}

/* ---- the replay --------------------------------------------------------- */

static void submit(struct ioqos *q, struct reader *r, uint64_t now_ns)
{
	memset(&r->req, 0, sizeof(r->req));
	r->req.bytes = r->size;
	r->req.group = r->gid;
	r->req.dir = IOQOS_READ;
	r->req.data = r;
	r->done_at_ns = UINT64_MAX;
	ioqos_submit(q, &r->req, now_ns);
}

/* how long the device takes for a read of @size bytes, ns (0: instant) */
static uint64_t service_ns(uint64_t size, uint64_t device_Bps)
{
	if (device_Bps == 0)
		return 0;
	/* round to nearest; at least 1 ns so that time moves */
	double ns = nearbyint((double)size * NS_PER_S / (double)device_Bps);

	return ns < 1 ? 1 : ns > 1e18 ? (uint64_t)1e18 : (uint64_t)ns;
}

static uint64_t replay(struct ioqos *q, struct reader *rd, int nrd,
		       uint64_t device_Bps, uint64_t end_ns)
{
	uint64_t now = 0, total = 0, stuck = 0;

	for (int i = 0; i < nrd; i++)
		submit(q, &rd[i], now);

	for (;;) {
		struct ioqos_req *r;
		uint64_t wake = UINT64_MAX, next_ns;
		bool progress = false;

		while ((r = ioqos_next(q, now, &wake)) != NULL) {
			struct reader *x = r->data;
			uint64_t svc = service_ns(x->size, device_Bps);

			if (x->n++ == 0)
				x->first_ns = now;
			x->last_ns = now;
			x->bytes += r->bytes;
			progress = true;
			if (++total > MAX_DISPATCHES) {
				fprintf(stderr, "%s: more than %llu dispatches: give "
					"unlimited readers a --device rate\n", prog,
					(unsigned long long)MAX_DISPATCHES);
				exit(1);
			}
			if (svc == 0) {
				ioqos_done(q, r, now);
				submit(q, x, now);
			} else {
				x->done_at_ns = now + svc;
			}
		}

		next_ns = wake;
		for (int i = 0; i < nrd; i++)
			if (rd[i].done_at_ns < next_ns)
				next_ns = rd[i].done_at_ns;
		if (next_ns == UINT64_MAX) {
			fprintf(stderr, "%s: stalled at %.9f s: requests queued, "
				"nothing to wait for\n", prog, (double)now / NS_PER_S);
			exit(1);
		}
		if (next_ns >= end_ns)
			break;
		if (next_ns <= now) {
			/* a wake-up that is not in the future: tolerate a few */
			if (!progress && ++stuck > 1000) {
				fprintf(stderr, "%s: no progress at %.9f s "
					"(wake_ns %llu not after now)\n", prog,
					(double)now / NS_PER_S,
					(unsigned long long)wake);
				exit(1);
			}
		} else {
			stuck = 0;
			now = next_ns;
		}
		for (int i = 0; i < nrd; i++) {
			if (rd[i].done_at_ns == now) {
				ioqos_done(q, &rd[i].req, now);
				submit(q, &rd[i], now);
			}
		}
	}
	return total;
}

/* ---- output ------------------------------------------------------------- */

static void fmt_rate(char *buf, size_t len, double Bps)
{
	if (isnan(Bps))
		snprintf(buf, len, "-");
	else if (isinf(Bps))
		snprintf(buf, len, "max");
	else if (Bps >= 1024.0 * 1024)
		snprintf(buf, len, "%.2f MiB/s", Bps / (1024.0 * 1024));
	else
		snprintf(buf, len, "%.2f KiB/s", Bps / 1024.0);
}

static void fmt_err(char *buf, size_t len, double got, double want)
{
	if (isnan(got) || isnan(want) || isinf(want) || want <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.2f%%", 100.0 * (got - want) / want);
}

static double achieved_Bps(const struct reader *r)
{
	if (r->n < 2 || r->last_ns == r->first_ns)
		return NAN;
	return (double)(r->bytes - r->size) * NS_PER_S /
	       (double)(r->last_ns - r->first_ns);
}

/* CPU time used so far, ms: the replay itself never looks at a clock */
static double cpu_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void print_config(const char *config)
{
	const char *p = config;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("    %.*s\n", len, p);
		p += len + (nl != NULL);
	}
}

int main(int argc, char **argv)
{
	const struct test *t = &tests[2];
	const char *config_file = NULL;
	double seconds = 100;
	uint64_t device_Bps = 0;
	bool device_given = false, test_given = false, strict = false;
	struct reader *rd = calloc(MAX_READERS, sizeof(*rd));
	int nrd = 0;
	char err[512];

	if (!rd) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const char *eq = strchr(a, '=');
		char opt[32];
		size_t olen = eq && strncmp(a, "--", 2) == 0 ? (size_t)(eq - a) : strlen(a);

		if (olen >= sizeof(opt))
			die_usage("unknown option '%s'", a);
		memcpy(opt, a, olen);
		opt[olen] = '\0';
		if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(opt, "--strict") == 0) {
			strict = true;
			continue;
		}
		if (strcmp(opt, "--test") && strcmp(opt, "--seconds") &&
		    strcmp(opt, "--config") && strcmp(opt, "--reader") &&
		    strcmp(opt, "--device"))
			die_usage("unknown option '%s'", a);
		if (eq && olen < strlen(a))
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			die_usage("option '%s' needs a value", opt);

		if (strcmp(opt, "--test") == 0) {
			t = NULL;
			for (size_t k = 0; k < sizeof(tests) / sizeof(tests[0]); k++)
				if (strcmp(val, tests[k].name) == 0 ||
				    (val[0] == tests[k].name[0] + 32 && !val[1]))
					t = &tests[k];
			if (!t)
				die_usage("--test: '%s' is not A, B or C", val);
			test_given = true;
		} else if (strcmp(opt, "--seconds") == 0) {
			char *end;

			errno = 0;
			seconds = strtod(val, &end);
			if (errno || end == val || *end || !(seconds > 0) ||
			    seconds > MAX_SECONDS)
				die_usage("--seconds: '%s' is not a number of "
					  "seconds in (0, 1000000]", val);
		} else if (strcmp(opt, "--config") == 0) {
			config_file = val;
		} else if (strcmp(opt, "--device") == 0) {
			device_given = true;
			if (strcmp(val, "instant") == 0)
				device_Bps = 0;
			else if (parse_size(val, &device_Bps) < 0 || device_Bps == 0)
				die_usage("--device: '%s' is not a rate in B/s "
					  "(e.g. 500M) or 'instant'", val);
		} else {                /* --reader PATH[:SIZE] */
			const char *colon = strrchr(val, ':');
			uint64_t size = DEFAULT_SIZE;

			if (nrd == MAX_READERS)
				die_usage("too many readers (at most %s)", "4096");
			if (colon && parse_size(colon + 1, &size) == 0) {
				char *p = strndup(val, (size_t)(colon - val));

				if (!p) {
					fprintf(stderr, "%s: out of memory\n", prog);
					return 1;
				}
				rd[nrd].path = p;
				rd[nrd].path_owned = true;
			} else {
				rd[nrd].path = val;
			}
			if (size == 0)
				die_usage("--reader '%s': the size must be at least 1 byte", val);
			rd[nrd++].size = size;
		}
	}
	if (config_file && test_given)
		die_usage("%s", "--test and --config cannot be used together");
	if (nrd > 0 && !config_file)
		die_usage("%s", "--reader needs --config (the tests place their own readers)");
	if (config_file && nrd == 0)
		die_usage("%s", "--config needs at least one --reader PATH[:SIZE]");

	struct ioqos *q = ioqos_new();
	int rc;

	if (!q) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	err[0] = '\0';
	if (config_file)
		rc = ioqos_load(q, config_file, 0, err, sizeof(err));
	else
		rc = ioqos_load_buf(q, "test", t->config, strlen(t->config), 0,
				    err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", prog, err[0] ? err : ioqos_strerror(rc));
		return config_file ? 2 : 1;
	}
	if (!config_file) {
		for (int i = 0; i < 4 && t->rd[i].path; i++) {
			rd[nrd].path = t->rd[i].path;
			rd[nrd].size = DEFAULT_SIZE;
			rd[nrd].kernel = t->rd[i].kernel;
			rd[nrd].kernel_Bps = t->rd[i].kernel_Bps;
			rd[nrd++].kernel_cmp = t->rd[i].cmp;
		}
		if (!device_given)
			device_Bps = t->device_Bps;
	}
	for (int i = 0; i < nrd; i++) {
		int gid = ioqos_group(q, rd[i].path);

		if (gid < 0) {
			if (gid == -EINVAL)
				fprintf(stderr, "%s: --reader '%s': not a group path "
					"(\"/a/b\", names of [A-Za-z0-9._:@+-])\n",
					prog, rd[i].path);
			else
				fprintf(stderr, "%s: --reader '%s': %s\n", prog,
					rd[i].path, ioqos_strerror(gid));
			return gid == -EINVAL ? 2 : 1;
		}
		rd[i].gid = (uint32_t)gid;
		rd[i].demand_Bps = device_Bps ?
			(double)rd[i].size * NS_PER_S /
			(double)service_ns(rd[i].size, device_Bps) : INFINITY;
		rd[i].expected_Bps = NAN;
	}
	work_out_expected(q, rd, nrd);
	for (int i = 0; i < nrd; i++) {
		if (isinf(rd[i].expected_Bps)) {
			fprintf(stderr, "%s: reader in %s is not limited by any "
				"group; give the device a speed with --device RATE\n",
				prog, rd[i].path);
			return 2;
		}
	}

	/* replay */
	uint64_t end_ns = (uint64_t)(seconds * (double)NS_PER_S);
	double cpu0 = cpu_ms();
	uint64_t total = replay(q, rd, nrd, device_Bps, end_ns);
	double cpu = cpu_ms() - cpu0;

	/* report */
	char dev[64];

	if (device_Bps)
		snprintf(dev, sizeof(dev), "%.0f MB/s device",
			 (double)device_Bps / 1e6);
	else
		snprintf(dev, sizeof(dev), "instant completion");
	if (config_file)
		printf("replay: %s, %d reader%s, one read outstanding each, %s\n",
		       config_file, nrd, nrd == 1 ? "" : "s", dev);
	else
		printf("replay: test %s of the 2014 blk-throttle token-bucket patch\n"
		       "  %s; config (k = 1024: 200k = 204800 B/s):\n",
		       t->name, t->title);
	if (!config_file)
		print_config(t->config);
	if (!config_file)
		printf("  readers: %d x dd-like, 128 KiB reads, one outstanding each, %s\n",
		       nrd, dev);
	printf("  %g virtual seconds, %llu reads, %.2f ms of CPU\n\n", seconds,
	       (unsigned long long)total, cpu);

	printf("%-12s %12s %12s %7s %12s %7s", "reader in", "limit (own)",
	       "expected", "reads", "achieved", "error");
	if (!config_file)
		printf("   %-9s %6s", "kernel", "error");
	printf("\n");

	double worst = 0;

	for (int i = 0; i < nrd; i++) {
		struct ioqos_limits l;
		char lim[32], exp[32], got[32], e[32];
		double a = achieved_Bps(&rd[i]);

		if (ioqos_limits_get(q, rd[i].gid, &l) == 0 &&
		    l.bps[IOQOS_READ] != IOQOS_UNLIMITED)
			fmt_rate(lim, sizeof(lim), (double)l.bps[IOQOS_READ]);
		else
			snprintf(lim, sizeof(lim), "max");
		fmt_rate(exp, sizeof(exp), rd[i].expected_Bps);
		fmt_rate(got, sizeof(got), a);
		fmt_err(e, sizeof(e), a, rd[i].expected_Bps);
		if (!isnan(a) && rd[i].expected_Bps > 0)
			worst = fmax(worst, fabs(a - rd[i].expected_Bps) /
					    rd[i].expected_Bps);
		else
			worst = INFINITY;
		printf("%-12s %12s %12s %7llu %12s %7s", rd[i].path, lim, exp,
		       (unsigned long long)rd[i].n, got, e);
		if (rd[i].kernel) {
			char ke[32];

			if (rd[i].kernel_cmp)
				fmt_err(ke, sizeof(ke), rd[i].kernel_Bps,
					rd[i].expected_Bps);
			else
				snprintf(ke, sizeof(ke), "-");
			printf("   %-9s %6s", rd[i].kernel, ke);
		}
		printf("\n");
	}
	printf("\n");
	if (!config_file) {
		printf("%s\n", t->note);
		printf("kernel: what dd reported on the patched 2014 kernel (dd's kB is\n"
		       "1000 B); its error is against the same expected rate.\n");
	}
	printf("achieved: bytes after each reader's first read / time from its first\n"
	       "dispatch to its last.\n");
	if (isinf(worst))
		printf("largest error: - (a reader was dispatched fewer than 2 reads)\n");
	else
		printf("largest error: %.3f%%\n", 100 * worst);

	ioqos_free(q);
	for (int i = 0; i < nrd; i++)
		if (rd[i].path_owned)
			free((char *)rd[i].path);
	free(rd);
	if (strict && !(worst < 0.01))
		return 1;
	return 0;
}
