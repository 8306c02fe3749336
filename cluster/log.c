/* SPDX-License-Identifier: MIT */
/*
 * What both halves of the module use: the clock (monotonic ns), its
 * messages, one printable line each, to the caller's log or to stderr,
 * and what a bucket's name may be.
 * The renewal thread (redis.c) and the front (cluster.c) call here and
 * never each other's helpers, so that cluster.c calls redis.c one way.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "internal.h"

uint64_t ioqos__cl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * CL_NS_PER_S + (uint64_t)ts.tv_nsec;
}

void ioqos__cl_logf(struct ioqos_cluster *cl, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cl->log)
		cl->log(cl->log_arg, msg);
	else
		fprintf(stderr, "ioqos: cluster: %s\n", msg);
}

void ioqos__cl_oneline(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	if (!len)
		return;
	for (; src[n] && n + 1 < len; n++)
		dst[n] = src[n] >= ' ' && src[n] <= '~' ? src[n] : ' ';
	while (n > 0 && dst[n - 1] == ' ')
		n--;
	dst[n] = '\0';
}

bool ioqos__cl_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > IOQOS_CL_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == ':' ||
		      c == '-'))
			return false;
	}
	return true;
}
