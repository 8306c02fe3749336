/* SPDX-License-Identifier: MIT */
/*
 * ioqos_describe(): a group's settings in force as one line of the
 * settings' own syntax, every limit given ("max" where none is), the
 * device's settings on "/" only.  It writes what the parsers read, and so
 * sits beside them, above the controller.
 */
#include <errno.h>
#include <stdio.h>

#include "internal.h"

/* append "key=value" for a rate or size; "max" for unlimited */
static size_t put_num(char *buf, size_t len, size_t at, enum ioqos__key k, uint64_t v)
{
	int n;

	if (v == IOQOS_UNLIMITED)
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     "%s%s=max", at ? " " : "", ioqos__key_name(k));
	else
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     "%s%s=%llu", at ? " " : "", ioqos__key_name(k),
			     (unsigned long long)v);
	return at + (size_t)(n > 0 ? n : 0);
}

int ioqos_describe(struct ioqos *q, uint32_t id, char *buf, size_t len)
{
	static const char *const presets[] = { "hybrid", "iops", "bytes" };
	struct ioqos__conf c;
	struct ioqos_limits lim;
	size_t at = 0;
	int d, n;

	if (ioqos_limits_get(q, id, &lim))
		return -ENOENT;
	if (len)
		buf[0] = '\0';
	ioqos__gconf_get(q->groups[id], &c);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, d ? IOQOS__K_WBPS : IOQOS__K_RBPS, lim.bps[d]);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, d ? IOQOS__K_WIOPS : IOQOS__K_RIOPS, lim.iops[d]);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, d ? IOQOS__K_WBPS_LOW : IOQOS__K_RBPS_LOW, lim.bps_low[d]);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, d ? IOQOS__K_WIOPS_LOW : IOQOS__K_RIOPS_LOW, lim.iops_low[d]);
	at = put_num(buf, len, at, IOQOS__K_WEIGHT, lim.weight);
	if (lim.burst_ns) {
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     " burst=%lluns", (unsigned long long)lim.burst_ns);
		at += (size_t)(n > 0 ? n : 0);
	}
	if (lim.latency_ns) {
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     " latency=%lluns", (unsigned long long)lim.latency_ns);
		at += (size_t)(n > 0 ? n : 0);
	}
	/* the size in force, where one is or the group gives "none" itself
	 * (so that replaying the text gives the same sizes everywhere) */
	if (lim.iops_size != IOQOS_UNLIMITED || (c.set & (1u << IOQOS__K_IOPS_SIZE)))
		at = put_num(buf, len, at, IOQOS__K_IOPS_SIZE, lim.iops_size);
	if (id == IOQOS__ROOT) {
		if (lim.depth == IOQOS_DEPTH_AUTO) {
			n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
				     " depth=auto");
			at += (size_t)(n > 0 ? n : 0);
		} else {
			at = put_num(buf, len, at, IOQOS__K_DEPTH, lim.depth);
		}
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     " cost=%s", presets[c.set & (1u << IOQOS__K_COST) ? c.val[IOQOS__K_COST] :
				   IOQOS__COST_HYBRID]);
		at += (size_t)(n > 0 ? n : 0);
		for (d = 0; d < 2; d++)
			at = put_num(buf, len, at, d ? IOQOS__K_WIO_COST : IOQOS__K_RIO_COST, lim.io_cost[d]);
		for (d = 0; d < 2; d++)
			at = put_num(buf, len, at, d ? IOQOS__K_WBYTE_COST : IOQOS__K_RBYTE_COST, lim.byte_cost[d]);
	}
	return at > INT32_MAX ? INT32_MAX : (int)at;
}
