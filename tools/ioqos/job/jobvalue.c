/* SPDX-License-Identifier: MIT */
/*
 * Values in fio job files: numbers (decimal or 0x hex), sizes with fio's
 * suffixes (see jobfile.h for the kb_base=1024 rule), times, booleans,
 * words from a list (opt_only(), for the option readers of jobopts*.c).
 * Each parser takes the whole string or fails: "4kx" is not 4k.
 */
#include "job/jobfile.h"
#include "job/jobopts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* an unsigned number, decimal or 0x hex, with no sign: 0 or -EINVAL/-ERANGE */
int parse_uint(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	const char *p = s;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	}
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*end = p;
	*out = v;
	return 0;
}

static int mul_check(uint64_t v, uint64_t m, uint64_t *out)
{
	if (m && v > UINT64_MAX / m)
		return -ERANGE;
	*out = v * m;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *p;
	uint64_t v, m = 1;
	int rc;
	char suf[8];
	size_t n;

	rc = parse_uint(s, &p, &v);
	if (rc)
		return rc;
	n = strlen(p);
	if (n >= sizeof(suf))
		return -EINVAL;
	for (size_t i = 0; i <= n; i++)
		suf[i] = (char)tolower((unsigned char)p[i]);
	if (n) {
		static const char units[] = "kmgtp";
		const char *u = strchr(units, suf[0]);
		uint64_t base;
		unsigned pow;

		if (!u || !suf[0])
			return -EINVAL;
		pow = (unsigned)(u - units) + 1;
		/* fio's kb_base=1024 rule: k, kb = 1024; kib = 1000; and ki,
		 * which fio takes by its first letter, as k (fio has no e:
		 * "15e" is 15 there, refused here) */
		if (!strcmp(suf + 1, "") || !strcmp(suf + 1, "b") || !strcmp(suf + 1, "i"))
			base = 1024;
		else if (!strcmp(suf + 1, "ib"))
			base = 1000;
		else
			return -EINVAL;
		for (unsigned i = 0; i < pow; i++)
			if (mul_check(m, base, &m))
				return -ERANGE;
	} else if (*p) {
		return -EINVAL;
	}
	return mul_check(v, m, out);
}

int parse_time_ns(const char *s, uint64_t unit_ns, uint64_t *out)
{
	static const struct { const char *suf; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
		{ "h", 3600000000000ull }, { "d", 86400000000000ull },
	};
	const char *p;
	uint64_t v;
	int rc = parse_uint(s, &p, &v);

	if (rc)
		return rc;
	if (*p) {
		size_t i;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(p, units[i].suf))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		unit_ns = units[i].ns;
	}
	return mul_check(v, unit_ns, out);
}

int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") ||
	    !strcasecmp(s, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* a value that must be one of @ok, else the reason */
int opt_only(const char *v, const char *const *ok, const char *reason,
		char *why, size_t whylen)
{
	for (; *ok; ok++)
		if (!strcmp(v, *ok))
			return 0;
	snprintf(why, whylen, "%s", reason);
	return -EINVAL;
}

size_t str_escape(char *out, size_t outlen, const char *s, size_t n, bool keep_nl)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 0x20 && c != 0x7f) || (c == '\n' && keep_nl)) {
			if (o + 1 >= outlen)
				break;
			out[o++] = (char)c;
			continue;
		}
		if (o + 4 >= outlen)
			break;
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 15];
	}
	out[o] = '\0';
	return o;
}
