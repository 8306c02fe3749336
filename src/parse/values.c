/* SPDX-License-Identifier: MIT */
/*
 * The keys of the settings and the syntax of their values (settings.c
 * parses the settings text around them).
 *
 * Values
 *
 *	count    = DIGITS [ suffix ] | "max"
 *	suffix   = ( k|K | m|M | g|G | t|T | p|P ) [ 'i' ] [ 'B' | 'b' ]
 *	duration = DIGITS ( "ns" | "us" | "ms" | "s" )
 *
 * Every suffix is a power of 1024, as fio counts by default: 4k, 4K, 4Ki,
 * 4KiB, 4KB and 4kb are all 4096.  A trailing B/b is accepted because fio
 * job files and cgroup docs write sizes that way and the meaning is not in
 * doubt; a bare "B" (no multiplier letter) is not, so "10B" is an error
 * rather than a silent "10".  The same suffixes apply to I/O counts
 * (riops=10k), where the B reads oddly but does no harm.  Numbers are plain
 * decimal: no sign, no fraction, no hex.  Keys and words (max, iops,
 * bytes, hybrid, the duration units) are lower case only; the multiplier
 * letters are not case-sensitive.  A count may be at most 2^63
 * (8192P); anything larger, or a suffix that overflows, is -ERANGE.
 * A value that fits in 64 bits but is outside a key's range (weight=10001,
 * burst=3601s) is -EINVAL, like every other mistake.
 *
 * Which syntax each key takes, and its range:
 *
 *	rbps wbps riops wiops          count, 1..2^63 or max
 *	rbps_low ... wiops_low         count, 0..2^63 (0 = none; max refused)
 *	weight                         plain integer 1..10000
 *	prio                           plain integer 0..7, stored as weight
 *	                               25 * (8 - prio): 0 -> 200, 4 -> 100, 7 -> 25
 *	burst                          duration, 1ns..3600s
 *	latency                        duration, 1ns..10s, or 0 (none)
 *	iops_size                      count, 1..2^63, or 0 or max (none:
 *	                               both are stored as max)
 *	depth (root)                   count, 1..2^20 or max
 *	cost (root)                    iops | bytes | hybrid
 *	rio_cost wio_cost (root)       count, 0..2^30
 *	rbyte_cost wbyte_cost (root)   plain integer 0..1024
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "settings_int.h"

/* ---- keys ---------------------------------------------------------------- */

/* how a key's value is written and checked */
enum kind {
	KIND_MAX,        /* a hard limit: count 1..2^63 or max */
	KIND_LOW,        /* a soft limit: count 0..2^63 */
	KIND_WEIGHT,     /* integer 1..10000 */
	KIND_PRIO,       /* integer 0..7, stored as a weight */
	KIND_BURST,      /* duration 1ns..IOQOS__BURST_NS_MAX */
	KIND_LATENCY,    /* duration 1ns..IOQOS__LATENCY_NS_MAX, or 0: none */
	KIND_IOPS_SIZE,  /* count 1..2^63; 0 or max: none (stored as max) */
	KIND_DEPTH,      /* count 1..IOQOS__DEPTH_MAX, max or auto */
	KIND_COST,       /* a cost preset name */
	KIND_IO_COST,    /* count 0..IOQOS__IO_COST_MAX */
	KIND_BYTE_COST,  /* integer 0..IOQOS__BYTE_COST_MAX */
};

static const struct ioqos__keydef keydefs[] = {
	{ "rbps", IOQOS__K_RBPS, KIND_MAX, false },
	{ "wbps", IOQOS__K_WBPS, KIND_MAX, false },
	{ "riops", IOQOS__K_RIOPS, KIND_MAX, false },
	{ "wiops", IOQOS__K_WIOPS, KIND_MAX, false },
	{ "rbps_low", IOQOS__K_RBPS_LOW, KIND_LOW, false },
	{ "wbps_low", IOQOS__K_WBPS_LOW, KIND_LOW, false },
	{ "riops_low", IOQOS__K_RIOPS_LOW, KIND_LOW, false },
	{ "wiops_low", IOQOS__K_WIOPS_LOW, KIND_LOW, false },
	{ "weight", IOQOS__K_WEIGHT, KIND_WEIGHT, false },
	{ "prio", IOQOS__K_WEIGHT, KIND_PRIO, false },
	{ "burst", IOQOS__K_BURST, KIND_BURST, false },
	{ "iops_size", IOQOS__K_IOPS_SIZE, KIND_IOPS_SIZE, false },
	{ "latency", IOQOS__K_LATENCY, KIND_LATENCY, false },
	{ "depth", IOQOS__K_DEPTH, KIND_DEPTH, true },
	{ "cost", IOQOS__K_COST, KIND_COST, true },
	{ "rio_cost", IOQOS__K_RIO_COST, KIND_IO_COST, true },
	{ "wio_cost", IOQOS__K_WIO_COST, KIND_IO_COST, true },
	{ "rbyte_cost", IOQOS__K_RBYTE_COST, KIND_BYTE_COST, true },
	{ "wbyte_cost", IOQOS__K_WBYTE_COST, KIND_BYTE_COST, true },
};

const struct ioqos__keydef *ioqos__keydef_find(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(keydefs) / sizeof(keydefs[0]); i++)
		if (strlen(keydefs[i].name) == n &&
		    memcmp(keydefs[i].name, s, n) == 0)
			return &keydefs[i];
	return NULL;
}

static const struct {
	const char *name;
	enum ioqos__cost_preset preset;
} cost_presets[] = {
	{ "hybrid", IOQOS__COST_HYBRID },
	{ "iops", IOQOS__COST_IOPS },
	{ "bytes", IOQOS__COST_BYTES },
};

/* ---- values -------------------------------------------------------------- */

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool span_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

/*
 * Leading decimal digits of s[0..n): how many there are, and their value
 * saturated at UINT64_MAX (*big set when it did not fit).
 */
static size_t scan_digits(const char *s, size_t n, uint64_t *v, bool *big)
{
	size_t i;

	*v = 0;
	*big = false;
	for (i = 0; i < n && is_digit(s[i]); i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (*v > (UINT64_MAX - d) / 10) {
			*big = true;
			*v = UINT64_MAX;
		} else if (!*big) {
			*v = *v * 10 + d;
		}
	}
	return i;
}

static int bad(struct ioqos__why *w, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct ioqos__why *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->text, sizeof(w->text), fmt, ap);
	va_end(ap);
	return ret;
}

/* the digits at the start of a value, or a reason why there are none */
static int scan_number(const char *s, size_t n, uint64_t *v, bool *big,
		       size_t *ndig, struct ioqos__why *w)
{
	if (n > 0 && s[0] == '-')
		return bad(w, -EINVAL, "negative values are not allowed");
	*ndig = scan_digits(s, n, v, big);
	if (*ndig == 0)
		return bad(w, -EINVAL, "not a number");
	return 0;
}

/*
 * A count: DIGITS with an optional binary suffix.  0..2^63 in *v, or
 * -EINVAL / -ERANGE with the reason in @w.  "max" is the caller's.
 */
static int parse_count(const char *s, size_t n, uint64_t *v, struct ioqos__why *w)
{
	static const char letters[] = "kmgtp";
	char q[IOQOS__QUOTE_BUF];
	const char *suf, *l;
	size_t i, nsuf;
	unsigned shift = 0;
	bool big;
	int ret;

	ret = scan_number(s, n, v, &big, &i, w);
	if (ret < 0)
		return ret;
	suf = s + i;
	nsuf = n - i;
	if (nsuf > 0) {
		size_t j = 1;
		char ch = suf[0];

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		l = ch != '\0' ? strchr(letters, ch) : NULL;
		if (l == NULL)
			goto bad_suffix;
		shift = 10 * (unsigned)(l - letters + 1);
		if (j < nsuf && suf[j] == 'i')
			j++;
		if (j < nsuf && (suf[j] == 'B' || suf[j] == 'b'))
			j++;
		if (j != nsuf)
			goto bad_suffix;
	}
	if (big || *v > (IOQOS__COUNT_MAX >> shift))
		return bad(w, -ERANGE, "too large: the limit is 2^63");
	*v <<= shift;
	return 0;

bad_suffix:
	return bad(w, -EINVAL,
		   "unknown suffix '%s': use k, M, G, T or P, "
		   "optionally followed by i, B or iB",
		   ioqos__quote(q, suf, nsuf));
}

/* a plain decimal integer, no suffix, at most 2^63 */
static int parse_int(const char *s, size_t n, uint64_t *v, struct ioqos__why *w)
{
	bool big;
	size_t i;
	int ret;

	ret = scan_number(s, n, v, &big, &i, w);
	if (ret < 0)
		return ret;
	if (i != n)
		return bad(w, -EINVAL, "not an integer");
	if (big || *v > IOQOS__COUNT_MAX)
		return bad(w, -ERANGE, "too large");
	return 0;
}

/* a duration: DIGITS followed by ns, us, ms or s; in ns */
static int parse_duration(const char *s, size_t n, uint64_t *v,
			  struct ioqos__why *w)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	char q[IOQOS__QUOTE_BUF];
	size_t i, u;
	bool big;
	int ret;

	ret = scan_number(s, n, v, &big, &i, w);
	if (ret < 0)
		return ret;
	if (i == n)
		return bad(w, -EINVAL, "missing unit: use ns, us, ms or s");
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		if (!span_is(s + i, n - i, units[u].unit))
			continue;
		if (big || *v > UINT64_MAX / units[u].ns)
			return bad(w, -ERANGE, "too large");
		*v *= units[u].ns;
		return 0;
	}
	return bad(w, -EINVAL, "unknown unit '%s': use ns, us, ms or s",
		   ioqos__quote(q, s + i, n - i));
}

/* check @v against [lo, hi] for a key */
static int in_range(uint64_t v, uint64_t lo, uint64_t hi, struct ioqos__why *w)
{
	if (v < lo && lo == 1)
		return bad(w, -EINVAL, "zero is not allowed here");
	if (v < lo || v > hi)
		return bad(w, -EINVAL, "out of range %llu..%llu",
			   (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

/* the value of one key, per its kind; -errno with the reason in @w */
int ioqos__parse_value(const struct ioqos__keydef *kd, const char *s, size_t n,
		       uint64_t *v, struct ioqos__why *w)
{
	bool is_max = span_is(s, n, "max");
	size_t i;
	int ret;

	switch (kd->kind) {
	case KIND_MAX:
	case KIND_DEPTH:
		if (kd->kind == KIND_DEPTH && span_is(s, n, "auto")) {
			*v = IOQOS_DEPTH_AUTO;
			return 0;
		}
		if (is_max) {
			*v = IOQOS_UNLIMITED;
			return 0;
		}
		ret = parse_count(s, n, v, w);
		if (ret < 0)
			return ret;
		if (kd->kind == KIND_DEPTH)
			return in_range(*v, 1, IOQOS__DEPTH_MAX, w);
		return in_range(*v, 1, IOQOS__COUNT_MAX, w);
	case KIND_IOPS_SIZE:
		if (!is_max) {
			ret = parse_count(s, n, v, w);
			if (ret < 0)
				return ret;
		}
		if (is_max || *v == 0)
			*v = IOQOS_UNLIMITED;
		return 0;
	case KIND_LOW:
		if (is_max)
			return bad(w, -EINVAL,
				   "a low limit cannot be 'max'; 0 means none");
		return parse_count(s, n, v, w);
	case KIND_IO_COST:
		if (is_max)
			return bad(w, -EINVAL, "'max' is not allowed here");
		ret = parse_count(s, n, v, w);
		return ret < 0 ? ret : in_range(*v, 0, IOQOS__IO_COST_MAX, w);
	case KIND_WEIGHT:
		ret = parse_int(s, n, v, w);
		return ret < 0 ? ret : in_range(*v, IOQOS__WEIGHT_MIN,
						IOQOS__WEIGHT_MAX, w);
	case KIND_PRIO:
		ret = parse_int(s, n, v, w);
		if (ret == 0)
			ret = in_range(*v, 0, 7, w);
		if (ret < 0)
			return ret;
		*v = 25 * (8 - *v);
		return 0;
	case KIND_BYTE_COST:
		ret = parse_int(s, n, v, w);
		return ret < 0 ? ret : in_range(*v, 0, IOQOS__BYTE_COST_MAX, w);
	case KIND_BURST:
		ret = parse_duration(s, n, v, w);
		if (ret < 0)
			return ret;
		if (*v == 0)
			return bad(w, -EINVAL, "zero is not allowed here");
		if (*v > IOQOS__BURST_NS_MAX)
			return bad(w, -EINVAL, "longer than %us",
				   (unsigned)IOQOS__BURST_NS_MAX_S);
		return 0;
	case KIND_LATENCY:
		ret = parse_duration(s, n, v, w);
		if (ret < 0)
			return ret;
		if (*v > IOQOS__LATENCY_NS_MAX)
			return bad(w, -EINVAL, "longer than %us",
				   (unsigned)IOQOS__LATENCY_S_MAX);
		return 0;
	case KIND_COST:
		for (i = 0; i < sizeof(cost_presets) / sizeof(cost_presets[0]);
		     i++) {
			if (span_is(s, n, cost_presets[i].name)) {
				*v = (uint64_t)cost_presets[i].preset;
				return 0;
			}
		}
		return bad(w, -EINVAL, "use iops, bytes or hybrid");
	}
	return bad(w, -EINVAL, "internal error: unknown kind");
}
