/* SPDX-License-Identifier: MIT */
/*
 * What a client sends, made safe to log.  An export name is up to 4096
 * bytes of anything (the protocol asks for UTF-8; nothing checks it), and
 * a cgroup's name is whatever its maker chose, '/' and '\n' apart.  Logged
 * raw, a newline let a client that was refused write a line of its own
 * after ours ("ioqos: connection joins /admin"), and an ESC sent the
 * terminal that shows the log whatever sequence the client liked.
 *
 * So every such string is logged through log_str(): C's escapes, \n \r \t
 * for the common controls, \\ and \' for the backslash and the quote the
 * messages put around names (so that an escape in the log always stands
 * for one byte the client sent, and a quoted name always ends where it
 * seems to), and \xHH for any other byte below 0x20 or from 0x7f up
 * (UTF-8 included: the log stays ASCII).  At most LOG_STR_MAX bytes of
 * the string are shown, then "...".
 */
#include <string.h>

#include "filter.h"

const char *log_str(char *buf, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	char *o = buf;
	size_t i;

	for (i = 0; s[i] != '\0' && i < LOG_STR_MAX; i++) {
		unsigned char ch = (unsigned char)s[i];
		char esc = 0;

		switch (ch) {
		case '\n': esc = 'n'; break;
		case '\r': esc = 'r'; break;
		case '\t': esc = 't'; break;
		case '\\': esc = '\\'; break;
		case '\'': esc = '\''; break;
		}
		if (esc) {
			*o++ = '\\';
			*o++ = esc;
		} else if (ch < 0x20 || ch >= 0x7f) {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[ch >> 4];
			*o++ = hex[ch & 15];
		} else {
			*o++ = (char)ch;
		}
	}
	if (s[i] != '\0') {
		memcpy(o, "...", 3);
		o += 3;
	}
	*o = '\0';
	return buf;
}
