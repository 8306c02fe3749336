/* SPDX-License-Identifier: MIT */
/*
 * Lists of CPU and node ids in libnuma's and the kernel's syntax, for
 * cpus_allowed=, numa_cpu_nodes= and numa_mem_policy= (placement.c) and
 * for the lists sysfs gives: "0-3,8" (ranges and single ids, low to high,
 * joined by commas), and for nodes also "all" and "!LIST" (every node but
 * these).  Parsed by syntax alone into a bit set of IDSET_MAX ids; what
 * the machine has is placement.c's question.
 */
#include "job/idlist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ids_set(uint64_t *bits, unsigned id)
{
	bits[id / 64] |= 1ull << (id % 64);
}

bool ids_has(const uint64_t *bits, unsigned id)
{
	return (bits[id / 64] >> (id % 64)) & 1;
}

/* "0-3,8" into @bits (ORed in); -EINVAL and why for anything else */
int ids_parse(const char *v, uint64_t *bits, const char *what, char *why,
	      size_t whylen)
{
	const char *p = v;

	if (!*p)
		goto bad;
	for (;;) {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			goto bad;
		a = b = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				goto bad;
			b = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (a > b || b >= IDSET_MAX) {
			snprintf(why, whylen, "%s %lu-%lu: ids run 0..%u, low to high", what,
				 a, b, IDSET_MAX - 1);
			return -EINVAL;
		}
		for (unsigned long i = a; i <= b; i++)
			ids_set(bits, (unsigned)i);
		if (!*p)
			return 0;
		if (*p != ',' || !p[1])
			goto bad;
		p++;
	}
bad:
	snprintf(why, whylen, "expected a list of %ss such as 0-3,8", what);
	return -EINVAL;
}

/* @bits as a list "0-3,8" into @buf */
void ids_format(const uint64_t *bits, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < IDSET_MAX && o < len; i++) {
		unsigned k = i;

		if (!ids_has(bits, i))
			continue;
		while (k + 1 < IDSET_MAX && ids_has(bits, k + 1))
			k++;
		o += (size_t)snprintf(buf + o, len - o, k > i ? "%s%u-%u" : "%s%u",
				      o ? "," : "", i, k);
		i = k;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* a node list: libnuma's "all", "!LIST" or LIST */
int nodes_parse(struct idset *n, const char *v, char *why, size_t whylen)
{
	memset(n, 0, sizeof(*n));
	if (!strcmp(v, "all")) {
		n->all = true;
		return 0;
	}
	if (v[0] == '+') {
		snprintf(why, whylen, "ioqos reads no node list relative to the cpuset "
			 "('+'): list the nodes");
		return -EINVAL;
	}
	if (v[0] == '!') {
		n->invert = true;
		v++;
	}
	return ids_parse(v, n->bits, "node", why, whylen);
}
