/* SPDX-License-Identifier: MIT */
/*
 * What the settings parser (settings.c), the syntax of values (values.c),
 * the messages (msg.c) and the loader of config files (load.c) share.
 */
#ifndef IOQOS_SETTINGS_INT_H
#define IOQOS_SETTINGS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioqos.h"
#include "conf.h"
#include "cgroup.h"
#include "msg.h"

enum {
	/* longest config line, not counting its line ending */
	IOQOS__LINE_MAX = 4096,
	/* the largest count accepted: 2^63 = 8192P */
	IOQOS__LOG2_COUNT_MAX = 63,
};
#define IOQOS__COUNT_MAX ((uint64_t)1 << IOQOS__LOG2_COUNT_MAX)

/* for the translation of cgroup syntax (cgroup.c), which splits and quotes
 * lines as the loader does */
_Static_assert(IOQOS__CG_LINE_MAX == IOQOS__LINE_MAX, "cgroup.h and settings_int.h");

/* ---- keys and values (values.c) ------------------------------------------ */

struct ioqos__keydef {
	const char *name;   /* as written in settings */
	uint8_t key;        /* enum ioqos__key it sets */
	uint8_t kind;       /* enum kind (values.c) */
	bool root_only;     /* device settings: valid on "/" only */
};

/* why a value was refused: the text after "bad value '...' (" */
struct ioqos__why {
	char text[IOQOS__QUOTE_BUF + 96];
};

/* the key named by s[0..n), NULL for none */
const struct ioqos__keydef *ioqos__keydef_find(const char *s, size_t n);

/* the value of one key, per its kind; -errno with the reason in @w */
int ioqos__parse_value(const struct ioqos__keydef *kd, const char *s, size_t n,
		       uint64_t *v, struct ioqos__why *w);

/* ---- settings (settings.c) ----------------------------------------------- */

static inline bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* the next token of the blank-separated text at *@p: its first byte, or
 * NULL at the end; its length in *@n, and *@p just past it */
static inline const char *ioqos__token(const char **p, size_t *n)
{
	const char *s = *p, *t;

	while (is_blank(*s))
		s++;
	*p = s;
	if (*s == '\0')
		return NULL;
	for (t = s; *t != '\0' && !is_blank(*t); t++)
		;
	*n = (size_t)(t - s);
	*p = t;
	return s;
}

#endif
