/* SPDX-License-Identifier: MIT */
/*
 * The interface between the config parsers (settings.c, load.c, cgroup.c)
 * and the controller (apply.c): the parsers turn "key=value ..." into a
 * struct ioqos__conf without touching the controller; apply.c checks a
 * conf against a group and applies it.  Parsing, checking and applying are separate so that a
 * whole config file is parsed and checked before anything is applied.
 */
#ifndef IOQOS_CONF_H
#define IOQOS_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioqos.h"
#include "msg.h"

/* settings keys; a conf holds a value for each key whose bit is in ->set */
enum ioqos__key {
	IOQOS__K_RBPS,
	IOQOS__K_WBPS,
	IOQOS__K_RIOPS,
	IOQOS__K_WIOPS,
	IOQOS__K_RBPS_LOW,
	IOQOS__K_WBPS_LOW,
	IOQOS__K_RIOPS_LOW,
	IOQOS__K_WIOPS_LOW,
	IOQOS__K_WEIGHT,     /* 1..10000; prio= is turned into this by the parser */
	IOQOS__K_BURST,      /* ns, 1..IOQOS__BURST_NS_MAX */
	IOQOS__K_IOPS_SIZE,  /* bytes a request counts per I/O against riops and
	                      * wiops, 1..2^63; IOQOS_UNLIMITED: none (0 or max),
	                      * a request is one I/O.  Inherited (gconf.c) */
	IOQOS__K_LATENCY,    /* a latency target, ns, 1..IOQOS__LATENCY_NS_MAX;
	                      * 0: none (latency.c) */
	/* root only */
	IOQOS__K_DEPTH,      /* 1..IOQOS__DEPTH_MAX or IOQOS_UNLIMITED */
	IOQOS__K_COST,       /* enum ioqos__cost_preset */
	IOQOS__K_RIO_COST,   /* bytes-equivalent, 0..IOQOS__IO_COST_MAX */
	IOQOS__K_WIO_COST,
	IOQOS__K_RBYTE_COST, /* 0..IOQOS__BYTE_COST_MAX */
	IOQOS__K_WBYTE_COST,
	IOQOS__K_NR
};

enum ioqos__cost_preset {
	IOQOS__COST_HYBRID,  /* the default: an I/O costs as 16 KiB, plus its bytes */
	IOQOS__COST_IOPS,    /* every I/O the same, whatever its size */
	IOQOS__COST_BYTES,   /* bytes only */
};

enum {
	IOQOS__WEIGHT_MIN = 1,
	IOQOS__WEIGHT_MAX = 10000,
	IOQOS__WEIGHT_DEFAULT = 100,
	/* a burst beyond an hour of the rate is a second limit nobody wants */
	IOQOS__BURST_NS_MAX_S = 3600,
	/* a latency target of 10 s is no target: requests of such a tenant
	 * never wait that long behind others on any device that works */
	IOQOS__LATENCY_S_MAX = 10,
	/* more outstanding requests than any device queue; "max" is separate */
	IOQOS__DEPTH_MAX = 1 << 20,
	/* one I/O at most a GiB of transfer, a byte at most 1024: costs stay far
	 * below the cap on one service's virtual time (fq.h, vt_delta) */
	IOQOS__IO_COST_MAX = 1 << 30,
	IOQOS__BYTE_COST_MAX = 1024,
};
#define IOQOS__BURST_NS_MAX ((uint64_t)IOQOS__BURST_NS_MAX_S * 1000000000ull)
#define IOQOS__LATENCY_NS_MAX ((uint64_t)IOQOS__LATENCY_S_MAX * 1000000000ull)

struct ioqos__conf {
	uint32_t set;                 /* bit (1u << key) for each key given */
	uint64_t val[IOQOS__K_NR];    /* its value, in the unit noted on the key */
};

/* the name of a key as written in settings */
const char *ioqos__key_name(enum ioqos__key k);

/*
 * Parse "key=value key=value ..." (separated by blanks) into @c.  @is_root
 * allows the root-only keys.  On error returns -EINVAL (or -ERANGE for a
 * number that does not fit) and writes a one-line reason that names the key
 * and the value (prefixed by @where, e.g. "file:3: ", if not NULL).
 * A key given twice is an error.
 */
int ioqos__conf_parse(const char *settings, bool is_root, struct ioqos__conf *c,
		      const char *where, char *err, size_t errlen);

/*
 * Check @c against the settings the group at @path would have once @c (and
 * the earlier confs for the same path in a load, already merged into
 * @c) is applied: a low above its max, and so on.  @path need not exist.
 * @replace: @c replaces the group's settings (else it is merged into them).
 * Returns 0 or -EINVAL with a reason (prefixed by @where) in @err.
 */
int ioqos__conf_check(struct ioqos *q, const char *path,
		      const struct ioqos__conf *c, bool replace,
		      const char *where, char *err, size_t errlen);

/*
 * Make room for what a checked conf @c needs once applied to group @id (a
 * low's state, and the slots that sort its parent's children by their
 * lows): 0, or -ENOMEM with nothing applied.  Call it for every conf
 * before applying any.
 */
int ioqos__conf_prepare(struct ioqos *q, uint32_t id, const struct ioqos__conf *c);

/*
 * Apply a checked and prepared conf to group @id at @now_ns: merged into the settings
 * it has (ioqos_set, ioqos_load), or in their place, every key it does not
 * name back to its default (a replacing load).  Cannot fail.
 */
void ioqos__conf_apply(struct ioqos *q, uint32_t id,
		       const struct ioqos__conf *c, uint64_t now_ns);
void ioqos__conf_replace(struct ioqos *q, uint32_t id,
			 const struct ioqos__conf *c, uint64_t now_ns);
/*
 * A call that applied confs is done: what follows from all of them
 * together, at @now_ns (the depth nobody wrote, src/depth_rule.c), once,
 * so that the states a load passes through on its way do not count.
 */
void ioqos__conf_done(struct ioqos *q, uint64_t now_ns);

/*
 * Check a group path without creating anything: 0 or -EINVAL with a reason
 * (prefixed by @where) in @err.
 */
int ioqos__path_check(const char *path, const char *where, char *err,
		      size_t errlen);

/*
 * A config parsed apart from any controller (struct ioqos_conf; public by
 * name only): the parsers (src/parse/conftext.c) fill it, confapply.c
 * applies it.  One entry a group line, in file order, with an index on
 * the path.
 */
struct ioqos__centry {
	size_t path_at;               /* its path: at c->paths + path_at, checked */
	unsigned long line;           /* where the file gives it, 1-based */
	uint32_t keep;                /* keys (1u << key) whose value in force is
	                               * kept when it is applied (ioqos_conf_keep) */
	uint32_t id;                  /* its group, once the reservation made it */
	struct ioqos__conf c;         /* the settings the line gives */
};

/* the stages of an apply in progress (confapply.c) */
enum ioqos__cstage {
	IOQOS__CS_IDLE = 0,           /* none in progress */
	IOQOS__CS_RESERVE,            /* making the named groups and their room */
	IOQOS__CS_NAMED,              /* giving the named groups their settings */
	IOQOS__CS_REST,               /* the others the defaults */
	IOQOS__CS_UNNAMED,            /* reporting those to the caller */
};

struct ioqos_conf {
	char qname[IOQOS__QUOTE_BUF]; /* the config's name, quoted, for messages */
	struct ioqos__centry *e;      /* the group lines, in file order */
	size_t n, cap;
	char *paths;                  /* their paths, each NUL-terminated */
	size_t paths_len, paths_cap;  /* bytes */
	uint32_t *slot;               /* index on path: entry + 1, 0 = empty */
	size_t nslot;                 /* a power of 2, at least twice n */
	/* the apply in progress (confapply.c) */
	struct ioqos *q;              /* the controller it goes to, NULL: none */
	uint8_t stage;                /* enum ioqos__cstage */
	size_t at;                    /* the stage's next entry, id or report */
	uint32_t scan_end;            /* ids the rest's stage goes over */
	uint32_t *unnamed;            /* the groups to report, deepest first */
	uint16_t *depth;              /* their depths, as they were found */
	size_t n_unnamed;
};

/* the path of entry @e of @c */
static inline const char *ioqos__centry_path(const struct ioqos_conf *c,
					     const struct ioqos__centry *e)
{
	return c->paths + e->path_at;
}

/*
 * Parse config text @buf (@len bytes, @name in messages) into @c, which
 * is empty (zeroed): every line parsed and checked, the cgroup forms
 * translated first.  Without @merge_q, each line is checked alone, as a
 * replacing load takes it; with it, merged into the settings the group
 * has in @merge_q (which it only reads), as a merging load takes it.
 * 0, or -errno with a "NAME:LINE: ..." message; @c then holds what it
 * parsed before the error, for ioqos_conf_free().
 */
int ioqos__conf_text(struct ioqos_conf *c, const char *name, const char *buf,
		     size_t len, struct ioqos *merge_q, char *err, size_t errlen);

/* confapply.c: the apply in progress of @c given up, if there is one:
 * the groups it reached keep what it gave them (ioqos_conf_free) */
void ioqos__conf_abort(struct ioqos_conf *c);

/* the settings @c alone would give: 0 or -EINVAL with a reason
 * (prefixed by @where) in @err; ioqos__conf_check without a controller */
int ioqos__conf_check_alone(const char *path, const struct ioqos__conf *c,
			    const char *where, char *err, size_t errlen);

#endif
