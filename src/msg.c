/* SPDX-License-Identifier: MIT */
/*
 * The messages of the settings parser and the loader (settings.c,
 * values.c, load.c), and the names of the error codes.
 *
 * Every message is one line naming the key and the value as written, e.g.
 *
 *	qos.conf:3: key 'rbps': bad value '12x' (unknown suffix 'x' ...)
 *
 * Bytes that would break the line (control characters, non-ASCII) are shown
 * as \xNN and a long value is cut with "...", so a message is always one
 * printable line whatever the input was.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ioqos.h"
#include "msg.h"

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
const char *ioqos__quote(char *dst, const char *s, size_t n)
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

const char *ioqos__quote_str(char *dst, const char *s)
{
	return ioqos__quote(dst, s, strnlen(s, IOQOS__QUOTE_MAX + 1));
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
