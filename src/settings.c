/* SPDX-License-Identifier: MIT */
/*
 * The settings parser: "key=value ..." strings (ioqos_set) and config files
 * of one group a line (ioqos_load, ioqos_load_buf).
 *
 * Grammar
 *
 *	file     = { line '\n' }            a '\r' before the '\n' is dropped
 *	line     = [ PATH { blank setting } ] [ '#' comment ]
 *	settings = { blank } [ setting { blank+ setting } ] { blank }
 *	setting  = KEY '=' VALUE            blank = ' ' | '\t'
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
 *	depth (root)                   count, 1..2^20 or max
 *	cost (root)                    iops | bytes | hybrid
 *	rio_cost wio_cost (root)       count, 0..2^30
 *	rbyte_cost wbyte_cost (root)   plain integer 0..1024
 *
 * Errors
 *
 * Every message is one line naming the key and the value as written, e.g.
 *
 *	qos.conf:3: key 'rbps': bad value '12x' (unknown suffix 'x' ...)
 *
 * Bytes that would break the line (control characters, non-ASCII) are shown
 * as \xNN and a long value is cut with "...", so a message is always one
 * printable line whatever the input was.
 *
 * All-or-nothing
 *
 * Parsing never touches the controller.  ioqos_set() parses and checks
 * (ioqos__conf_check, in tree.c) before it creates the group; a load parses
 * and checks every line first, keeping the (path, conf) pairs in a
 * temporary array, and only then creates all the groups and applies the
 * confs in file order.  The one failure left after the checks is running
 * out of memory while creating groups: then nothing is applied, though
 * groups created up to that point remain (with default settings).
 *
 * A replacing load (ioqos_load_replace) is the whole truth: its confs are
 * checked alone, not merged with the settings in force, and applied in
 * their place; every group the file does not name gets the defaults and is
 * reported to the caller, who may remove it.
 *
 * Weaknesses: a settings value cannot contain a blank, and a load keeps the
 * whole file in memory (capped at IOQOS__FILE_MAX).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ioqos.h"
#include "conf.h"
#include "cgroup.h"

enum {
	/* longest config line, not counting its line ending */
	IOQOS__LINE_MAX = 4096,
	/* how much of a value or path is quoted in a message */
	IOQOS__QUOTE_MAX = 64,
	/* room for a quoted string: each byte may become \xNN, plus "..." */
	IOQOS__QUOTE_BUF = IOQOS__QUOTE_MAX * 4 + 4,
	/* the largest count accepted: 2^63 = 8192P */
	IOQOS__LOG2_COUNT_MAX = 63,
};
/* a config file larger than this is refused rather than read */
#define IOQOS__FILE_MAX ((size_t)256 << 20)
#define IOQOS__COUNT_MAX ((uint64_t)1 << IOQOS__LOG2_COUNT_MAX)

/* ---- messages ------------------------------------------------------------ */

void ioqos__errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	err[errlen - 1] = '\0';
}

/*
 * Quote @n bytes of @s for a one-line message: printable ASCII as is,
 * anything else as \xNN, at most IOQOS__QUOTE_MAX bytes then "...".
 * @dst holds IOQOS__QUOTE_BUF bytes.  Returns @dst.
 */
static const char *quote(char *dst, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < n && i < IOQOS__QUOTE_MAX; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch >= 0x20 && ch < 0x7f) {
			dst[o++] = (char)ch;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[ch >> 4];
			dst[o++] = hex[ch & 15];
		}
	}
	if (i < n) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = '\0';
	return dst;
}

static const char *quote_str(char *dst, const char *s)
{
	return quote(dst, s, strnlen(s, IOQOS__QUOTE_MAX + 1));
}

/* for the translation of cgroup syntax (cgroup.c), which splits and quotes
 * lines as this file does */
_Static_assert(IOQOS__CG_LINE_MAX == IOQOS__LINE_MAX &&
	       IOQOS__CG_QUOTE_BUF == IOQOS__QUOTE_BUF, "cgroup.h and settings.c");

const char *ioqos__quote(char *dst, const char *s, size_t n)
{
	return quote(dst, s, n);
}

const char *ioqos_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid argument";
	case -ERANGE:
		return "value too large";
	case -ENOENT:
		return "no such group or file";
	case -ENOMEM:
		return "out of memory";
	case -EBUSY:
		return "request already dispatched";
	default:
		return "unknown error";
	}
}

/* ---- keys ------------------------------------------------------------------ */

static const char *const key_names[IOQOS__K_NR] = {
	[IOQOS__K_RBPS] = "rbps",
	[IOQOS__K_WBPS] = "wbps",
	[IOQOS__K_RIOPS] = "riops",
	[IOQOS__K_WIOPS] = "wiops",
	[IOQOS__K_RBPS_LOW] = "rbps_low",
	[IOQOS__K_WBPS_LOW] = "wbps_low",
	[IOQOS__K_RIOPS_LOW] = "riops_low",
	[IOQOS__K_WIOPS_LOW] = "wiops_low",
	[IOQOS__K_WEIGHT] = "weight",
	[IOQOS__K_BURST] = "burst",
	[IOQOS__K_DEPTH] = "depth",
	[IOQOS__K_COST] = "cost",
	[IOQOS__K_RIO_COST] = "rio_cost",
	[IOQOS__K_WIO_COST] = "wio_cost",
	[IOQOS__K_RBYTE_COST] = "rbyte_cost",
	[IOQOS__K_WBYTE_COST] = "wbyte_cost",
};

const char *ioqos__key_name(enum ioqos__key k)
{
	if ((unsigned)k >= IOQOS__K_NR)
		return "?";
	return key_names[k];
}

/* how a key's value is written and checked */
enum kind {
	KIND_MAX,        /* a hard limit: count 1..2^63 or max */
	KIND_LOW,        /* a soft limit: count 0..2^63 */
	KIND_WEIGHT,     /* integer 1..10000 */
	KIND_PRIO,       /* integer 0..7, stored as a weight */
	KIND_BURST,      /* duration 1ns..IOQOS__BURST_NS_MAX */
	KIND_DEPTH,      /* count 1..IOQOS__DEPTH_MAX, max or auto */
	KIND_COST,       /* a cost preset name */
	KIND_IO_COST,    /* count 0..IOQOS__IO_COST_MAX */
	KIND_BYTE_COST,  /* integer 0..IOQOS__BYTE_COST_MAX */
};

struct keydef {
	const char *name;   /* as written in settings */
	uint8_t key;        /* enum ioqos__key it sets */
	uint8_t kind;       /* enum kind */
	bool root_only;     /* device settings: valid on "/" only */
};

static const struct keydef keydefs[] = {
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
	{ "depth", IOQOS__K_DEPTH, KIND_DEPTH, true },
	{ "cost", IOQOS__K_COST, KIND_COST, true },
	{ "rio_cost", IOQOS__K_RIO_COST, KIND_IO_COST, true },
	{ "wio_cost", IOQOS__K_WIO_COST, KIND_IO_COST, true },
	{ "rbyte_cost", IOQOS__K_RBYTE_COST, KIND_BYTE_COST, true },
	{ "wbyte_cost", IOQOS__K_WBYTE_COST, KIND_BYTE_COST, true },
};

static const struct keydef *keydef_find(const char *s, size_t n)
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

/* ---- values ---------------------------------------------------------------- */

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

/* why a value was refused: the text after "bad value '...' (" */
struct why {
	char text[IOQOS__QUOTE_BUF + 96];
};

static int bad(struct why *w, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct why *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->text, sizeof(w->text), fmt, ap);
	va_end(ap);
	return ret;
}

/* the digits at the start of a value, or a reason why there are none */
static int scan_number(const char *s, size_t n, uint64_t *v, bool *big,
		       size_t *ndig, struct why *w)
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
static int parse_count(const char *s, size_t n, uint64_t *v, struct why *w)
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
		   quote(q, suf, nsuf));
}

/* a plain decimal integer, no suffix, at most 2^63 */
static int parse_int(const char *s, size_t n, uint64_t *v, struct why *w)
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
			  struct why *w)
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
		   quote(q, s + i, n - i));
}

/* check @v against [lo, hi] for a key */
static int in_range(uint64_t v, uint64_t lo, uint64_t hi, struct why *w)
{
	if (v < lo && lo == 1)
		return bad(w, -EINVAL, "zero is not allowed here");
	if (v < lo || v > hi)
		return bad(w, -EINVAL, "out of range %llu..%llu",
			   (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

/* the value of one key, per its kind; -errno with the reason in @w */
static int parse_value(const struct keydef *kd, const char *s, size_t n,
		       uint64_t *v, struct why *w)
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

/* ---- settings ---------------------------------------------------------- */

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

int ioqos__conf_parse(const char *settings, bool is_root, struct ioqos__conf *c,
		      const char *where, char *err, size_t errlen)
{
	char qk[IOQOS__QUOTE_BUF], qv[IOQOS__QUOTE_BUF];
	const struct keydef *weight_by = NULL;  /* which key set the weight */
	const char *p = settings != NULL ? settings : "";
	const char *pre = where != NULL ? where : "";

	memset(c, 0, sizeof(*c));
	for (;;) {
		const char *tok, *eq, *val;
		const struct keydef *kd;
		size_t ntok, nkey, nval;
		struct why w;
		uint64_t v;
		int ret;

		while (is_blank(*p))
			p++;
		if (*p == '\0')
			return 0;
		tok = p;
		while (*p != '\0' && !is_blank(*p))
			p++;
		ntok = (size_t)(p - tok);

		eq = memchr(tok, '=', ntok);
		if (eq == NULL) {
			ioqos__errf(err, errlen,
				    "%ssetting '%s': missing '=' (want key=value)",
				    pre, quote(qk, tok, ntok));
			return -EINVAL;
		}
		nkey = (size_t)(eq - tok);
		val = eq + 1;
		nval = ntok - nkey - 1;
		if (nkey == 0) {
			ioqos__errf(err, errlen,
				    "%ssetting '%s': missing key before '='",
				    pre, quote(qk, tok, ntok));
			return -EINVAL;
		}
		quote(qk, tok, nkey);
		quote(qv, val, nval);
		kd = keydef_find(tok, nkey);
		if (kd == NULL) {
			ioqos__errf(err, errlen,
				    "%sunknown key '%s' (value '%s')",
				    pre, qk, qv);
			return -EINVAL;
		}
		if (kd->root_only && !is_root) {
			ioqos__errf(err, errlen,
				    "%skey '%s' (value '%s') is only valid on group '/'",
				    pre, qk, qv);
			return -EINVAL;
		}
		if (c->set & (1u << kd->key)) {
			if (kd->key == IOQOS__K_WEIGHT && weight_by != kd)
				ioqos__errf(err, errlen,
					    "%skey '%s' (value '%s'): the weight is already given by '%s'; use one of weight and prio",
					    pre, qk, qv, weight_by->name);
			else
				ioqos__errf(err, errlen,
					    "%skey '%s' given twice (value '%s')",
					    pre, qk, qv);
			return -EINVAL;
		}
		if (nval == 0) {
			ioqos__errf(err, errlen, "%skey '%s': empty value",
				    pre, qk);
			return -EINVAL;
		}
		ret = parse_value(kd, val, nval, &v, &w);
		if (ret < 0) {
			ioqos__errf(err, errlen,
				    "%skey '%s': bad value '%s' (%s)",
				    pre, qk, qv, w.text);
			return ret;
		}
		c->set |= 1u << kd->key;
		c->val[kd->key] = v;
		if (kd->key == IOQOS__K_WEIGHT)
			weight_by = kd;
	}
}

/* ---- paths ---------------------------------------------------------------- */

static bool path_byte_ok(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
	       ch == ':' || ch == '@' || ch == '+' || ch == '-';
}

int ioqos__path_check(const char *path, const char *where, char *err,
		      size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF];
	const char *pre = where != NULL ? where : "";
	const char *why = NULL;
	size_t n, i, start;

	if (path == NULL) {
		ioqos__errf(err, errlen, "%smissing group path", pre);
		return -EINVAL;
	}
	n = strnlen(path, IOQOS_PATH_MAX);
	if (n == 0)
		why = "empty";
	else if (n >= IOQOS_PATH_MAX)
		why = "too long";
	else if (path[0] != '/')
		why = "must start with '/'";
	else if (n == 1)
		return 0;
	else if (path[n - 1] == '/')
		why = "must not end with '/'";
	for (i = 1, start = 1; why == NULL && i <= n; i++) {
		size_t len;

		if (i < n && path[i] != '/') {
			if (!path_byte_ok((unsigned char)path[i]))
				why = "bytes allowed are A-Z a-z 0-9 . _ : @ + -";
			continue;
		}
		len = i - start;
		if (len == 0)
			why = "empty component";
		else if (len <= 2 && memcmp(path + start, "..", len) == 0)
			why = "'.' and '..' are not allowed";
		start = i + 1;
	}
	if (why == NULL)
		return 0;
	ioqos__errf(err, errlen, "%sbad group path '%s': %s", pre,
		    quote(qp, path, n), why);
	return -EINVAL;
}

/* ---- ioqos_set ----------------------------------------------------------- */

int ioqos_set(struct ioqos *q, const char *path, const char *settings,
	      uint64_t now_ns, char *err, size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF];
	char where[IOQOS__QUOTE_BUF + 16];
	struct ioqos__conf c;
	int ret, id;

	if (q == NULL) {
		ioqos__errf(err, errlen, "no controller");
		return -EINVAL;
	}
	ret = ioqos__path_check(path, NULL, err, errlen);
	if (ret < 0)
		return ret;
	snprintf(where, sizeof(where), "group '%s': ", quote_str(qp, path));
	ret = ioqos__conf_parse(settings, strcmp(path, "/") == 0, &c, where,
				err, errlen);
	if (ret < 0)
		return ret;
	ret = ioqos__conf_check(q, path, &c, false, NULL, err, errlen);
	if (ret < 0)
		return ret;
	id = ioqos_group(q, path);
	if (id < 0) {
		ioqos__errf(err, errlen, "%scannot create the group: %s",
			    where, ioqos_strerror(id));
		return id;
	}
	ret = ioqos__conf_prepare(q, (uint32_t)id, &c);
	if (ret < 0) {
		ioqos__errf(err, errlen, "%s%s", where, ioqos_strerror(ret));
		return ret;
	}
	ioqos__conf_apply(q, (uint32_t)id, &c, now_ns);
	return 0;
}

/* ---- config files ---------------------------------------------------------- */

/* one group line of a config, parsed and checked, waiting to be applied */
struct entry {
	char *path;              /* malloc'd, checked */
	unsigned long line;      /* 1-based line number */
	int id;                  /* group id, once created */
	struct ioqos__conf c;
};

/* the entries of a load, with an index on path to find repeats */
struct load {
	struct entry *e;
	size_t n, cap;
	uint32_t *slot;          /* open addressing: entry index + 1, 0 = empty */
	size_t nslot;            /* a power of 2, at least twice n */
};

static uint64_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;    /* FNV-1a */

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* the slot holding @path, or the empty slot where it would go */
static uint32_t *load_slot(struct load *L, const char *path)
{
	size_t i = (size_t)path_hash(path) & (L->nslot - 1);

	while (L->slot[i] != 0 &&
	       strcmp(L->e[L->slot[i] - 1].path, path) != 0)
		i = (i + 1) & (L->nslot - 1);
	return &L->slot[i];
}

/* make room for one more entry; 0 or -ENOMEM */
static int load_grow(struct load *L)
{
	if (L->n == L->cap) {
		size_t cap = L->cap != 0 ? L->cap * 2 : 16;
		struct entry *e = realloc(L->e, cap * sizeof(*e));

		if (e == NULL)
			return -ENOMEM;
		L->e = e;
		L->cap = cap;
	}
	if (2 * (L->n + 1) > L->nslot) {
		size_t nslot = L->nslot != 0 ? L->nslot * 2 : 32;
		uint32_t *old = L->slot;
		size_t i;

		if (L->n + 1 >= UINT32_MAX)
			return -ENOMEM;
		L->slot = calloc(nslot, sizeof(*L->slot));
		if (L->slot == NULL) {
			L->slot = old;
			return -ENOMEM;
		}
		L->nslot = nslot;
		for (i = 0; i < L->n; i++)
			*load_slot(L, L->e[i].path) = (uint32_t)(i + 1);
		free(old);
	}
	return 0;
}

static void load_free(struct load *L)
{
	size_t i;

	for (i = 0; i < L->n; i++)
		free(L->e[i].path);
	free(L->e);
	free(L->slot);
}

/*
 * Parse and check one line (comment and line ending already cut off,
 * NUL-terminated in @line, which may be modified).  A group line is added
 * to @L.  0 or -errno with a message prefixed by @where.
 */
static int load_line(struct ioqos *q, struct load *L, char *line,
		     unsigned long lineno, bool replace, const char *where,
		     char *err, size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF];
	char *p = line, *path, *settings;
	struct entry *e;
	uint32_t *slot;
	int ret;

	while (is_blank(*p))
		p++;
	if (*p == '\0')
		return 0;
	path = p;
	while (*p != '\0' && !is_blank(*p))
		p++;
	settings = p;
	if (*p != '\0') {
		*p = '\0';
		settings = p + 1;
	}

	ret = ioqos__path_check(path, where, err, errlen);
	if (ret < 0)
		return ret;
	if (load_grow(L) < 0)
		goto nomem;
	slot = load_slot(L, path);
	if (*slot != 0) {
		ioqos__errf(err, errlen,
			    "%sgroup '%s' is already configured on line %lu",
			    where, quote_str(qp, path), L->e[*slot - 1].line);
		return -EINVAL;
	}
	e = &L->e[L->n];
	ret = ioqos__conf_parse(settings, strcmp(path, "/") == 0, &e->c,
				where, err, errlen);
	if (ret < 0)
		return ret;
	ret = ioqos__conf_check(q, path, &e->c, replace, where, err, errlen);
	if (ret < 0)
		return ret;
	e->path = strdup(path);
	if (e->path == NULL)
		goto nomem;
	e->line = lineno;
	e->id = -1;
	L->n++;
	*slot = (uint32_t)L->n;
	return 0;

nomem:
	ioqos__errf(err, errlen, "%s%s", where, ioqos_strerror(-ENOMEM));
	return -ENOMEM;
}

/* pass 2 of a replacing load: the file's confs in place of the groups' */
static int load_replace(struct ioqos *q, struct load *L, uint64_t now_ns,
			ioqos_unnamed_fn *unnamed, void *arg)
{
	uint32_t *ids = malloc((L->n + 1) * sizeof(*ids));
	const struct ioqos__conf **confs = malloc((L->n + 1) * sizeof(*confs));
	size_t i;
	int ret = -ENOMEM;

	if (ids && confs) {
		for (i = 0; i < L->n; i++) {
			ids[i] = (uint32_t)L->e[i].id;
			confs[i] = &L->e[i].c;
		}
		ret = ioqos__conf_replace_all(q, ids, confs, L->n, now_ns, unnamed, arg);
	}
	free(ids);
	free(confs);
	return ret;
}

static int load_buf(struct ioqos *q, const char *name, const char *buf,
		    size_t len, uint64_t now_ns, bool replace,
		    ioqos_unnamed_fn *unnamed, void *arg, char *err, size_t errlen)
{
	char qn[IOQOS__QUOTE_BUF];
	char where[IOQOS__QUOTE_BUF + 32];
	char *line, *cg = NULL;
	struct load L = { 0 };
	unsigned long lineno = 0;
	size_t pos = 0, i, cglen;
	int ret = 0;

	quote_str(qn, name != NULL ? name : "config");
	if (q == NULL || (buf == NULL && len > 0)) {
		ioqos__errf(err, errlen, "%s: no controller or no buffer", qn);
		return -EINVAL;
	}
	line = malloc(IOQOS__LINE_MAX + 1);
	if (line == NULL) {
		ioqos__errf(err, errlen, "%s: %s", qn, ioqos_strerror(-ENOMEM));
		return -ENOMEM;
	}
	/* lines pasted from cgroup's io.max and io.weight, in our syntax */
	ret = ioqos__cgroup_translate(qn, buf, len, &cg, &cglen, err, errlen);
	if (ret < 0)
		goto out;
	if (cg != NULL) {
		buf = cg;
		len = cglen;
	}

	/* pass 1: parse and check every line, change nothing */
	while (pos < len) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - l) : len - pos;
		const char *hash;

		pos += n + (nl != NULL);
		lineno++;
		snprintf(where, sizeof(where), "%s:%lu: ", qn, lineno);
		if (n > 0 && l[n - 1] == '\r')
			n--;
		if (memchr(l, '\0', n) != NULL) {
			ioqos__errf(err, errlen, "%sNUL byte in the line", where);
			ret = -EINVAL;
			goto out;
		}
		if (n > IOQOS__LINE_MAX) {
			ioqos__errf(err, errlen,
				    "%sline too long (%zu bytes, at most %d)",
				    where, n, IOQOS__LINE_MAX);
			ret = -EINVAL;
			goto out;
		}
		hash = memchr(l, '#', n);
		if (hash != NULL)
			n = (size_t)(hash - l);
		memcpy(line, l, n);
		line[n] = '\0';
		ret = load_line(q, &L, line, lineno, replace, where, err, errlen);
		if (ret < 0)
			goto out;
	}

	/* pass 2: create every group, then apply in file order */
	for (i = 0; i < L.n; i++) {
		L.e[i].id = ioqos_group(q, L.e[i].path);
		if (L.e[i].id < 0) {
			ret = L.e[i].id;
			ioqos__errf(err, errlen,
				    "%s:%lu: group '%s': cannot create the group: %s",
				    qn, L.e[i].line, L.e[i].path,
				    ioqos_strerror(ret));
			goto out;
		}
	}
	for (i = 0; i < L.n; i++) {
		ret = ioqos__conf_prepare(q, (uint32_t)L.e[i].id, &L.e[i].c);
		if (ret < 0) {
			ioqos__errf(err, errlen, "%s:%lu: group '%s': %s", qn, L.e[i].line,
				    L.e[i].path, ioqos_strerror(ret));
			goto out;
		}
	}
	if (replace) {
		ret = load_replace(q, &L, now_ns, unnamed, arg);
		if (ret < 0)
			ioqos__errf(err, errlen, "%s: %s", qn, ioqos_strerror(ret));
		goto out;
	}
	for (i = 0; i < L.n; i++)
		ioqos__conf_apply(q, (uint32_t)L.e[i].id, &L.e[i].c, now_ns);
	ret = 0;
out:
	load_free(&L);
	free(line);
	free(cg);
	return ret;
}

int ioqos_load_buf(struct ioqos *q, const char *name, const char *buf,
		   size_t len, uint64_t now_ns, char *err, size_t errlen)
{
	return load_buf(q, name, buf, len, now_ns, false, NULL, NULL, err, errlen);
}

int ioqos_load_buf_replace(struct ioqos *q, const char *name, const char *buf,
			   size_t len, uint64_t now_ns, ioqos_unnamed_fn *unnamed,
			   void *arg, char *err, size_t errlen)
{
	return load_buf(q, name, buf, len, now_ns, true, unnamed, arg, err, errlen);
}

/* read all of @fd into a malloc'd buffer; 0 or -errno */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	struct stat st;
	char *buf;

	/* a regular file's size saves the reallocations (+1 to see EOF) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < IOQOS__FILE_MAX)
		cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (buf == NULL)
		return -ENOMEM;
	for (;;) {
		ssize_t got;

		if (len == cap) {
			char *nbuf;

			if (cap >= IOQOS__FILE_MAX) {
				free(buf);
				return -EFBIG;
			}
			nbuf = realloc(buf, cap * 2);
			if (nbuf == NULL) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap *= 2;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

static int load_file(struct ioqos *q, const char *file, uint64_t now_ns, bool replace,
		     ioqos_unnamed_fn *unnamed, void *arg, char *err, size_t errlen)
{
	char qf[IOQOS__QUOTE_BUF];
	char *buf = NULL;
	size_t len = 0;
	int fd, ret;

	if (file == NULL) {
		ioqos__errf(err, errlen, "missing config file name");
		return -EINVAL;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = read_all(fd, &buf, &len);
		close(fd);
	}
	if (ret < 0) {
		ioqos__errf(err, errlen, "%s: cannot read: %s",
			    quote_str(qf, file), strerror(-ret));
		return ret;
	}
	ret = load_buf(q, file, buf, len, now_ns, replace, unnamed, arg, err, errlen);
	free(buf);
	return ret;
}

int ioqos_load(struct ioqos *q, const char *file, uint64_t now_ns,
	       char *err, size_t errlen)
{
	return load_file(q, file, now_ns, false, NULL, NULL, err, errlen);
}

int ioqos_load_replace(struct ioqos *q, const char *file, uint64_t now_ns,
		       ioqos_unnamed_fn *unnamed, void *arg, char *err, size_t errlen)
{
	return load_file(q, file, now_ns, true, unnamed, arg, err, errlen);
}
