/* SPDX-License-Identifier: MIT */
/*
 * The base of every C test program and of every driver header: units,
 * checks and the exit code, skips, and a deterministic PRNG.  The drivers
 * (helpers.h: groups of readers in virtual time; share.h and devmodel.h:
 * device models for stage 2; cluster/drive.h: instances in real time)
 * build on it and add only their own models.
 *
 * Checks.  CHECK() and its typed variants print one line per check,
 * "ok N - file:line: what" or "not ok N - file:line: what: expected E, got G",
 * and count failures; th_exit() prints the summary ("# N checks, N failed")
 * and gives the exit code.  th_quiet(true) prints only failures (for
 * property tests that make millions of checks); after TH_MAX_FAIL_LINES
 * failures the rest are only counted.  CHECK_FATAL() is a failure the test
 * cannot go on after.
 *
 * Skips.  A part that cannot run here says so with th_skip(): a line
 * "skip PART: REASON", counted in the summary, never an ok line;
 * test/run-tests.sh lists those of a test that passed.  A test that cannot
 * run at all calls th_skip_all() (exit 77).
 *
 * PRNG.  splitmix64: one 64-bit word of state, every seed is good, the same
 * seed gives the same sequence on every machine.
 */
#ifndef IOQOS_TEST_BASE_H
#define IOQOS_TEST_BASE_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ioqos.h>

/* ---- time and sizes ---------------------------------------------------- */

#define NS_PER_S   ((uint64_t)1000000000)
#define T_S(x)     ((uint64_t)(x) * NS_PER_S)
#define T_MS(x)    ((uint64_t)(x) * 1000000)
#define T_US(x)    ((uint64_t)(x) * 1000)
#define KIB        ((uint64_t)1024)
#define MIB        ((uint64_t)1024 * 1024)

static inline double ns_to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* ---- checks ------------------------------------------------------------- */

#define TH_MAX_FAIL_LINES 200

struct th_state {
	unsigned long checks;      /* checks made */
	unsigned long fails;       /* checks failed */
	unsigned long skips;       /* parts skipped */
	bool quiet;                /* print only failures */
};

static inline struct th_state *th_st(void)
{
	static struct th_state s;

	return &s;
}

static inline void th_quiet(bool quiet)
{
	th_st()->quiet = quiet;
}

static inline unsigned long th_fails(void)
{
	return th_st()->fails;
}

static inline bool th_vcheck(bool ok, const char *file, int line,
			     const char *fmt, va_list ap)
{
	struct th_state *s = th_st();

	s->checks++;
	if (!ok)
		s->fails++;
	if (ok && s->quiet)
		return ok;
	if (!ok && s->fails > TH_MAX_FAIL_LINES) {
		if (s->fails == TH_MAX_FAIL_LINES + 1)
			printf("# more failures follow, counted only\n");
		return ok;
	}
	printf("%s %lu - %s:%d: ", ok ? "ok" : "not ok", s->checks, file, line);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	return ok;
}

__attribute__((format(printf, 4, 5)))
static inline bool th_check(bool ok, const char *file, int line,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ok = th_vcheck(ok, file, line, fmt, ap);
	va_end(ap);
	return ok;
}

/* a check that is neither printed nor counted when it holds */
__attribute__((format(printf, 4, 5)))
static inline bool th_check_silent(bool ok, const char *file, int line,
				   const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return ok;
	va_start(ap, fmt);
	ok = th_vcheck(ok, file, line, fmt, ap);
	va_end(ap);
	return ok;
}

/* CHECK(cond, fmt, ...): a free-form check */
#define CHECK(cond, ...) th_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* the same, but silent and not counted when it holds (for inner loops) */
#define CHECK_SILENT(cond, ...)						\
	th_check_silent(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define CHECK_EQ(what, exp, got) do {					\
	uint64_t e_ = (uint64_t)(exp), g_ = (uint64_t)(got);		\
	th_check(e_ == g_, __FILE__, __LINE__,				\
		 "%s: expected %" PRIu64 ", got %" PRIu64, (what), e_, g_); \
} while (0)

#define CHECK_EQ_INT(what, exp, got) do {				\
	long long e_ = (long long)(exp), g_ = (long long)(got);	\
	th_check(e_ == g_, __FILE__, __LINE__,				\
		 "%s: expected %lld, got %lld", (what), e_, g_);	\
} while (0)

#define CHECK_LE(what, got, bound) do {					\
	uint64_t g_ = (uint64_t)(got), b_ = (uint64_t)(bound);		\
	th_check(g_ <= b_, __FILE__, __LINE__,				\
		 "%s: expected <= %" PRIu64 ", got %" PRIu64, (what), b_, g_); \
} while (0)

#define CHECK_GE(what, got, bound) do {					\
	uint64_t g_ = (uint64_t)(got), b_ = (uint64_t)(bound);		\
	th_check(g_ >= b_, __FILE__, __LINE__,				\
		 "%s: expected >= %" PRIu64 ", got %" PRIu64, (what), b_, g_); \
} while (0)

/* lo <= got <= hi (signed, so that a bound below 0 is fine) */
#define CHECK_RANGE(what, got, lo, hi) do {				\
	long long g_ = (long long)(got), l_ = (long long)(lo);		\
	long long h_ = (long long)(hi);					\
	th_check(g_ >= l_ && g_ <= h_, __FILE__, __LINE__,		\
		 "%s: expected in [%lld, %lld], got %lld", (what), l_, h_, g_); \
} while (0)

/* |got - exp| <= rel * |exp| */
#define CHECK_NEAR(what, exp, got, rel) do {				\
	double e_ = (double)(exp), g_ = (double)(got), r_ = (rel);	\
	double d_ = e_ != 0 ? (g_ - e_) / fabs(e_) : g_;		\
	th_check(fabs(d_) <= r_, __FILE__, __LINE__,			\
		 "%s: expected %.6g within %.3g%%, got %.6g (%+.4f%%)",	\
		 (what), e_, r_ * 100, g_, d_ * 100);			\
} while (0)

/* |got - exp| <= tol (absolute, for percentages and the like) */
#define CHECK_ABS(what, exp, got, tol) do {				\
	double e_ = (double)(exp), g_ = (double)(got), t_ = (tol);	\
	th_check(fabs(g_ - e_) <= t_, __FILE__, __LINE__,		\
		 "%s: expected %.4f +- %.4f, got %.4f", (what), e_, t_, g_); \
} while (0)

/*
 * A part of the test that cannot run here: "skip PART: REASON", counted
 * apart from the checks (test/run-tests.sh lists the skip lines of a test
 * that passed); never an ok line
 */
__attribute__((format(printf, 2, 3)))
static inline void th_skip(const char *part, const char *fmt, ...)
{
	va_list ap;

	th_st()->skips++;
	printf("skip %s: ", part);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* the whole test cannot run here: its reason, and exit 77 (skipped) */
__attribute__((format(printf, 1, 2), noreturn))
static inline void th_skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("skipped: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(77);
}

/* print the summary; the exit code of the program */
static inline int th_exit(void)
{
	struct th_state *s = th_st();

	if (s->skips)
		printf("# %lu checks, %lu failed, %lu parts skipped\n", s->checks,
		       s->fails, s->skips);
	else
		printf("# %lu checks, %lu failed\n", s->checks, s->fails);
	return s->fails ? 1 : 0;
}

/* a failed check the test cannot go on after: the summary, and exit 1 */
#define CHECK_FATAL(...) do {						\
	th_check(false, __FILE__, __LINE__, __VA_ARGS__);		\
	th_exit();							\
	exit(1);							\
} while (0)

/* ---- PRNG (splitmix64) ------------------------------------------------- */

struct rng {
	uint64_t s;
};

static inline struct rng rng_seed(uint64_t seed)
{
	struct rng r = { seed };

	return r;
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [0, n), n > 0 */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/*
 * rng_next() % n, 0 for n == 0: the draw of the tests of device sharing,
 * slightly biased for large n, kept so that their runs stay as they were
 */
static inline uint64_t rng_mod(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

/* uniform in [lo, hi] */
static inline uint64_t rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

/* uniform in [0, 1) */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* true with probability p */
static inline bool rng_chance(struct rng *r, double p)
{
	return rng_unit(r) < p;
}

/* log-uniform in [lo, hi], lo > 0 */
static inline uint64_t rng_log_range(struct rng *r, uint64_t lo, uint64_t hi)
{
	double x = exp(log((double)lo) +
		       rng_unit(r) * (log((double)hi) - log((double)lo)));
	uint64_t v = (uint64_t)x;

	return v < lo ? lo : v > hi ? hi : v;
}

/* ---- controller shorthands ---------------------------------------------- */

/* a request as a caller makes one: zeroed, the public fields set */
static inline struct ioqos_req req_make(uint32_t group, uint8_t dir, uint64_t bytes)
{
	struct ioqos_req r;

	memset(&r, 0, sizeof(r));
	r.group = group;
	r.dir = dir;
	r.bytes = bytes;
	return r;
}

/* create or find a group; a failure is a check failure (returns 0 then) */
static inline uint32_t grp(struct ioqos *q, const char *path)
{
	int id = ioqos_group(q, path);

	if (!CHECK_SILENT(id >= 0, "ioqos_group(\"%s\") = %d", path, id))
		return 0;
	return (uint32_t)id;
}

/* the settings in force at @path are @want, as ioqos_describe() writes them */
static inline void describe_is(struct ioqos *q, const char *path, const char *want)
{
	char buf[512];
	int id = ioqos_group_find(q, path);

	if (!CHECK(id >= 0, "%s exists", path))
		return;
	ioqos_describe(q, (uint32_t)id, buf, sizeof(buf));
	CHECK(strcmp(buf, want) == 0, "%s: '%s', expected '%s'", path, buf, want);
}

/* apply settings; a failure is a check failure */
static inline bool set_ok(struct ioqos *q, const char *path,
			  const char *settings, uint64_t now_ns)
{
	char err[256] = "";
	int rc = ioqos_set(q, path, settings, now_ns, err, sizeof(err));

	if (rc == 0)
		return true;
	CHECK(false, "ioqos_set(\"%s\", \"%s\") = %d: %s", path, settings,
	      rc, err);
	return false;
}

#endif
