/* SPDX-License-Identifier: MIT */
/*
 * The parser's messages: one line each, control bytes escaped, and the
 * problems of one parse gathered, as many as the caller's buffer holds.
 */
#include "job/jobfile_int.h"

#include <stdarg.h>
#include <stdio.h>

void jf_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	if (!errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	str_escape(err, errlen, line, (size_t)-1, false);
}

void jf_problem(struct problems *p, const char *fmt, ...)
{
	va_list ap;
	char raw[640], line[1024];
	size_t len;

	p->n++;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* a value may hold control bytes: never echo them raw */
	len = str_escape(line, sizeof(line), raw, (size_t)-1, false);
	/* keep room for the count of the ones left out */
	if (!p->errlen || p->used + len + 2 + 48 > p->errlen)
		return;
	snprintf(p->err + p->used, p->errlen - p->used, "%s%s", p->used ? "\n" : "",
		 line);
	p->used += len + (p->used ? 1 : 0);
	p->shown++;
}

void jf_problems_end(struct problems *p)
{
	if (p->n > p->shown && p->errlen > p->used)
		snprintf(p->err + p->used, p->errlen - p->used, "%s(and %u more)",
			 p->used ? "\n" : "", p->n - p->shown);
}
