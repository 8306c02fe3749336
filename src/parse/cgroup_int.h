/* SPDX-License-Identifier: MIT */
/*
 * What the translation of cgroup syntax shares between its two files: the
 * config's lines and their forms, the state of the translation (struct
 * cg), and the splitting, checking and classifying of lines
 * (cgroup_line.c) that the passes over the config (cgroup.c) use.
 */
#ifndef IOQOS_CGROUP_INT_H
#define IOQOS_CGROUP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"

enum {
	CG_MAJOR_MAX = (1 << 12) - 1,     /* Linux dev_t: 12 bits of major */
	CG_MINOR_BITS = 20,               /* and 20 of minor */
	CG_MINOR_MAX = (1 << CG_MINOR_BITS) - 1,
	/* what an output line may grow by: " weight=10000" and
	 * " latency=10000000us" */
	CG_GROW = 40,
	/* io.latency's target=N is in microseconds, at most the library's
	 * longest target (IOQOS__LATENCY_S_MAX) */
	CG_LAT_US_MAX = 10000000,
};

struct span {
	const char *p;          /* first byte */
	size_t n;               /* length, bytes */
};

/* one line of a config, split as the loader splits it */
struct line {
	struct span s;          /* its text, line ending and comment cut off */
	unsigned long no;       /* line number, from 1 */
	bool raw;               /* NUL byte or too long: left to the loader */
};

enum form {
	FORM_EMPTY,             /* blank, a comment, or raw */
	FORM_NATIVE,            /* PATH key=value ... */
	FORM_MAX,               /* PATH MAJ:MIN key=value ...   (io.max) */
	FORM_WEIGHT,            /* PATH default N | PATH N | PATH MAJ:MIN N|default */
	FORM_LATENCY,           /* PATH MAJ:MIN target=N   (io.latency, N in us) */
};

/* a line, classified */
struct cline {
	enum form form;
	struct span path;
	struct span rest;       /* the settings: after the path, or the device */
	struct span key;        /* FORM_WEIGHT: "default" or the device */
	struct span val;        /* FORM_WEIGHT: the weight as written */
	uint32_t weight;        /* FORM_WEIGHT: 1..10000; 0 for MAJ:MIN default;
	                         * FORM_LATENCY: the target, us (0: none) */
	bool has_dev;           /* a device is named */
	bool this_dev;          /* ... and it is the config's device */
};

/* a weight or latency line (this device's, or a default weight), to meet
 * its group's lines */
struct wline {
	struct span path;
	struct span key;        /* "default" or the device, as written */
	struct span val;        /* the weight, or target=N, as written */
	unsigned long no;       /* its line */
	uint32_t weight;        /* 1..10000; 0 for MAJ:MIN default; a latency
	                         * line's target, us */
	bool dev;               /* for this device, else the default */
	bool lat;               /* an io.latency line */
};

/* a group that has weight or latency lines for this device (or defaults) */
struct wgroup {
	struct span path;
	const struct wline *from;   /* the line that decided its weight, or NULL */
	const struct wline *lat;    /* its io.latency line, or NULL */
	unsigned long first;        /* its first weight or latency line */
	unsigned long carrier;      /* its line of limits, 0 if none */
};

struct cg {
	const char *qname;      /* the config's name, quoted */
	const char *buf;        /* the config */
	size_t len;             /* its length, bytes */
	char *err;              /* the caller's message buffer */
	size_t errlen;
	uint32_t dev;           /* the config's device (major << 20 | minor) */
	bool has_dev;           /* device= was given */
	bool any;               /* some cgroup form was seen */
	struct wline *w;        /* the weight lines */
	size_t nw, capw;
	struct wgroup *g;       /* the groups they weigh, sorted by path */
	size_t ng;
	unsigned long nlines;   /* lines in the config */
	char tmp[IOQOS__CG_LINE_MAX + 1];   /* a NUL-terminated copy */
};

/* ---- lines, tokens and values (cgroup_line.c) ---------------------------- */

bool ioqos__cg_span_is(struct span s, const char *word);
bool ioqos__cg_span_starts(struct span s, const char *prefix);
int ioqos__cg_span_cmp(struct span a, struct span b);

/* the line at *@pos of the config, or false at its end */
bool ioqos__cg_next_line(const struct cg *cg, size_t *pos, struct line *l);

/* the next blank-separated token of @s from *@pos, or false at its end */
bool ioqos__cg_next_token(struct span s, size_t *pos, struct span *t);

/* MAJ:MIN into *@dev; 0 or -EINVAL with a message naming key 'device' */
int ioqos__cg_parse_dev(struct cg *cg, unsigned long no, struct span s,
			uint32_t *dev);

/* what line @l is, checked as far as it can be alone; 0 or -EINVAL */
int ioqos__cg_classify(struct cg *cg, const struct line *l, struct cline *c);

/* the settings of @c into @dst, NUL-terminated, without device= on '/';
 * their length */
size_t ioqos__cg_settings_copy(const struct cline *c, char *dst);

/* a line that is not loaded: check its path, and its settings as the
 * loader would; 0 or -EINVAL */
int ioqos__cg_check_skipped(struct cg *cg, const struct line *l,
			    const struct cline *c);

#endif
