/* SPDX-License-Identifier: MIT */
/*
 * Messages (msg.c): what every part that reports an error shares, the
 * config parsers, the settings' checks and the syntax of paths.
 */
#ifndef IOQOS_MSG_H
#define IOQOS_MSG_H

#include <stddef.h>

enum {
	/* how much of a value or path is quoted in a message */
	IOQOS__QUOTE_MAX = 64,
	/* room for a quoted string: each byte may become \xNN, plus "..." */
	IOQOS__QUOTE_BUF = IOQOS__QUOTE_MAX * 4 + 4,
};

/* snprintf into err (if errlen > 0), always NUL-terminated */
void ioqos__errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* quote @n bytes of @s for a one-line message; returns @dst, which holds
 * IOQOS__QUOTE_BUF bytes */
const char *ioqos__quote(char *dst, const char *s, size_t n);

/* @s, NUL-terminated, quoted as ioqos__quote() does; returns @dst */
const char *ioqos__quote_str(char *dst, const char *s);

#endif
