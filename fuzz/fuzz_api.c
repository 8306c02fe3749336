/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the whole request API.
 *
 * The input is a program: each operation takes a byte for what to do and
 * bytes for its arguments.  Two controllers share one pool of requests, so
 * that every request can also be handed to the wrong one.  Operations:
 *
 *	submit    a request of the pool, in any state (held ones included),
 *	          to a group of the tree, with a size from 0 to 2^64 - 1
 *	next      ioqos_next() until NULL
 *	done      of any request of the pool, on either controller
 *	cancel    the same
 *	set       settings from a list (limits from 1 B/s to 2^63, lows,
 *	          weights, bursts, iops sizes, latency targets, depth N / max /
 *	          auto) on a group
 *	remove    a group (ioqos_group_remove), with requests queued and in
 *	          flight
 *	replace   a replacing load of one or two lines, whose callback
 *	          removes some of the groups it does not name
 *	time      forwards a little or a lot, backwards, or to UINT64_MAX
 *
 * The harness keeps its own account of every request (new, queued at a
 * controller, in flight at one) and checks after every call:
 *   - each return code is the documented one for the request's state:
 *     -EBUSY for a submit of a held request, -EINVAL for a done or cancel
 *     of a request that controller does not hold in that state;
 *   - a removal gives back exactly the requests of the group that were
 *     queued, and answers -EINVAL for "/", -ENOTEMPTY with children;
 *   - a request comes out of ioqos_next() only if it is queued there, so
 *     exactly once; a NULL comes with a wake-up strictly after the
 *     controller's clock (or UINT64_MAX), so a caller that sleeps until
 *     then never spins;
 *   - one batch of ioqos_next() calls returns at most the queued count
 *     (the steps are bounded: a call that hangs is a libFuzzer timeout);
 *   - ioqos_queued(), ioqos_inflight() and the root's tree counters equal
 *     the account.
 * At the end, time jumps to UINT64_MAX, everything that can go is
 * dispatched and completed, the rest cancelled, and both controllers must
 * be empty.  The same harness runs under `make check` on random programs
 * (test/t_api_fuzz.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioqos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FA_ASSERT(cond)                                                     \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz_api: %s:%d: %s\n",            \
				__FILE__, __LINE__, #cond);                 \
			abort();                                            \
		}                                                           \
	} while (0)

#define FA_NREQ 48
#define FA_NQ 2

static const char *const fa_paths[] = {
	"/", "/a", "/a/b", "/a/b/c", "/a/d", "/e", "/e/f", "/g",
};
#define FA_NPATH (sizeof(fa_paths) / sizeof(fa_paths[0]))

static const char *const fa_settings[] = {
	"rbps=1", "wbps=1", "rbps=1k", "wbps=4096 wiops=3", "riops=1",
	"rbps=1M riops=100", "wbps=100M", "rbps=9223372036854775808",
	"wbps=4611686018427387904", "rbps=max wbps=max riops=max wiops=max",
	"weight=1", "weight=10000", "prio=0", "rbps_low=1k", "wbps_low=1M",
	"riops_low=10", "rbps_low=0 wbps_low=0 riops_low=0 wiops_low=0",
	"burst=1ns", "burst=3600s", "burst=10ms", "rbps=64k burst=1s",
	"rbps_low=32k rbps=64k",
	"iops_size=4k riops=100", "iops_size=1 wiops=3", "iops_size=0", "iops_size=max",
	"iops_size=64k", "wbps=1M wiops=256 iops_size=4k",
	"latency=1ns", "latency=10s", "latency=100us", "latency=0", "latency=2ms weight=50",
	/* on "/" only (elsewhere: an error, which is fine) */
	"depth=1", "depth=2", "depth=max", "depth=auto", "depth=32",
	"cost=iops", "cost=bytes", "rio_cost=1G wbyte_cost=1024",
};
#define FA_NSET (sizeof(fa_settings) / sizeof(fa_settings[0]))

enum fa_where { FA_NEW, FA_QUEUED, FA_INFLIGHT };

struct fa {
	const uint8_t *p, *end;
	struct ioqos *q[FA_NQ];
	uint64_t now[FA_NQ];            /* the latest time given to each */
	uint64_t queued[FA_NQ], inflight[FA_NQ];
	int gid[FA_NQ][FA_NPATH];       /* -1 until created */
	struct ioqos_req r[FA_NREQ];
	uint8_t where[FA_NREQ];         /* enum fa_where */
	uint8_t at[FA_NREQ];            /* which controller holds it */
	uint8_t path[FA_NREQ];          /* index in fa_paths of its group */
	uint64_t t;                     /* the time the next call gives */
};

static uint64_t fa_byte(struct fa *f)
{
	return f->p < f->end ? *f->p++ : 0;
}

static uint64_t fa_u64(struct fa *f)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | fa_byte(f);
	return v;
}

static uint64_t fa_size(struct fa *f)
{
	static const uint64_t sizes[] = {
		0, 1, 512, 4096, 65536, 1 << 20, 32 << 20, 1ull << 40,
		1ull << 62, 1ull << 63, UINT64_MAX - 1, UINT64_MAX,
	};
	uint64_t k = fa_byte(f);

	if (k < 2 * sizeof(sizes) / sizeof(sizes[0]))
		return sizes[k / 2];
	return k < 200 ? (k - 23) * 4096 : fa_u64(f);
}

static void fa_time(struct fa *f)
{
	uint64_t k = fa_byte(f), v;

	switch (k % 8) {
	case 0: case 1: case 2:         /* forwards, up to 65 ms */
		v = (fa_byte(f) << 8 | fa_byte(f)) * 1000;
		f->t = f->t + v < f->t ? UINT64_MAX : f->t + v;
		break;
	case 3:                          /* forwards, up to 255 s */
		v = fa_byte(f) * 1000000000ull;
		f->t = f->t + v < f->t ? UINT64_MAX : f->t + v;
		break;
	case 4:                          /* backwards */
		v = (fa_byte(f) + 1) * 1000000ull;
		f->t = f->t > v ? f->t - v : 0;
		break;
	case 5:                          /* anywhere */
		f->t = fa_u64(f);
		break;
	case 6:                          /* the end of time */
		f->t = UINT64_MAX;
		break;
	default:                         /* just before it */
		f->t = UINT64_MAX - fa_byte(f);
		break;
	}
}

static void fa_clock(struct fa *f, int c)
{
	if (f->t > f->now[c])
		f->now[c] = f->t;
}

static void fa_check_counts(struct fa *f, int c)
{
	struct ioqos_stats st;

	FA_ASSERT(ioqos_queued(f->q[c]) == f->queued[c]);
	FA_ASSERT(ioqos_inflight(f->q[c]) == f->inflight[c]);
	FA_ASSERT(ioqos_stats_id(f->q[c], 0, &st) == 0);
	FA_ASSERT(st.tree_queued[0] + st.tree_queued[1] == f->queued[c]);
}

/* the ids of every path of the list that exists (creating makes ancestors) */
static void fa_refresh(struct fa *f, int c)
{
	unsigned k;

	for (k = 0; k < FA_NPATH; k++)
		f->gid[c][k] = ioqos_group_find(f->q[c], fa_paths[k]);
}

static int fa_group(struct fa *f, int c, unsigned k)
{
	if (f->gid[c][k] < 0) {
		FA_ASSERT(ioqos_group(f->q[c], fa_paths[k]) >= 0);
		fa_refresh(f, c);
		FA_ASSERT(f->gid[c][k] >= 0);
	}
	return f->gid[c][k];
}

/* does path @k have a child among the groups that exist? */
static int fa_has_child(struct fa *f, int c, unsigned k)
{
	size_t n = strlen(fa_paths[k]);
	unsigned j;

	for (j = 0; j < FA_NPATH; j++)
		if (f->gid[c][j] >= 0 && j != k && !strncmp(fa_paths[j], fa_paths[k], n) &&
		    (n == 1 || fa_paths[j][n] == '/'))
			return 1;
	return 0;
}

/* group @k of controller @c was removed, giving back @list */
static void fa_removed(struct fa *f, int c, unsigned k, struct ioqos_req *list)
{
	uint64_t want = 0, got = 0;
	int i;

	for (i = 0; i < FA_NREQ; i++)
		if (f->where[i] == FA_QUEUED && f->at[i] == c && f->path[i] == k)
			want++;
	for (; list; list = list->_next) {
		i = (int)(list - f->r);
		FA_ASSERT(list >= f->r && list < f->r + FA_NREQ);
		FA_ASSERT(f->where[i] == FA_QUEUED && f->at[i] == c && f->path[i] == k);
		f->where[i] = FA_NEW;
		f->queued[c]--;
		got++;
	}
	FA_ASSERT(got == want);
	f->gid[c][k] = -1;
}

static void fa_remove(struct fa *f, int c)
{
	unsigned k = (unsigned)(fa_byte(f) % FA_NPATH);
	struct ioqos_req *list = (struct ioqos_req *)1;
	int rc;

	if (f->gid[c][k] < 0)
		return;
	rc = ioqos_group_remove(f->q[c], (uint32_t)f->gid[c][k], f->t, &list);
	if (k == 0) {
		FA_ASSERT(rc == -EINVAL && list == NULL);
	} else if (fa_has_child(f, c, k)) {
		FA_ASSERT(rc == -ENOTEMPTY && list == NULL);
	} else {
		FA_ASSERT(rc == 0);
		fa_clock(f, c);
		fa_removed(f, c, k, list);
	}
}

struct fa_cb {
	struct fa *f;
	int c;
	uint8_t mask;                   /* remove the unnamed paths of these bits */
};

static void fa_unnamed(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	struct fa_cb *cb = arg;
	struct ioqos_req *list;
	unsigned k;

	for (k = 1; k < FA_NPATH; k++)
		if (!strcmp(path, fa_paths[k]))
			break;
	FA_ASSERT(k < FA_NPATH && cb->f->gid[cb->c][k] == (int)id);
	if (!(cb->mask >> k & 1) || fa_has_child(cb->f, cb->c, k))
		return;
	FA_ASSERT(ioqos_group_remove(q, id, cb->f->t, &list) == 0);
	fa_removed(cb->f, cb->c, k, list);
}

static void fa_replace(struct fa *f, int c)
{
	struct fa_cb cb = { f, c, (uint8_t)fa_byte(f) };
	char buf[512], err[256];
	int n = 0, lines = 1 + (int)(fa_byte(f) & 1), i, rc;

	for (i = 0; i < lines; i++) {
		unsigned k = (unsigned)(fa_byte(f) % FA_NPATH);

		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s %s\n", fa_paths[k],
			      fa_settings[fa_byte(f) % FA_NSET]);
	}
	rc = ioqos_load_buf_replace(f->q[c], "fuzz", buf, (size_t)n, f->t, fa_unnamed,
				    &cb, err, sizeof(err));
	if (rc == 0)
		fa_clock(f, c);
	fa_refresh(f, c);
}

static void fa_submit(struct fa *f, int c, int i)
{
	struct ioqos_req *r = &f->r[i];
	int rc;

	if (f->where[i] == FA_NEW) {
		f->path[i] = (uint8_t)(fa_byte(f) % FA_NPATH);
		r->group = (uint32_t)fa_group(f, c, f->path[i]);
		r->dir = (uint8_t)(fa_byte(f) & 1);
		r->bytes = fa_size(f);
	}
	rc = ioqos_submit(f->q[c], r, f->t);
	if (f->where[i] != FA_NEW) {
		FA_ASSERT(rc == -EBUSY);
		return;
	}
	FA_ASSERT(rc == 0);
	fa_clock(f, c);
	f->where[i] = FA_QUEUED;
	f->at[i] = (uint8_t)c;
	f->queued[c]++;
}

static void fa_next(struct fa *f, int c)
{
	uint64_t n = 0, wake;
	struct ioqos_req *r;

	for (;;) {
		r = ioqos_next(f->q[c], f->t, &wake);
		fa_clock(f, c);
		if (!r)
			break;
		FA_ASSERT(r >= f->r && r < f->r + FA_NREQ);
		FA_ASSERT(f->where[r - f->r] == FA_QUEUED && f->at[r - f->r] == c);
		f->where[r - f->r] = FA_INFLIGHT;
		f->queued[c]--;
		f->inflight[c]++;
		FA_ASSERT(++n <= FA_NREQ);
	}
	FA_ASSERT(wake == UINT64_MAX || wake > f->now[c]);
}

static void fa_done(struct fa *f, int c, int i)
{
	int rc = ioqos_done(f->q[c], &f->r[i], f->t);

	if (f->where[i] == FA_INFLIGHT && f->at[i] == c) {
		FA_ASSERT(rc == 0);
		fa_clock(f, c);
		f->where[i] = FA_NEW;
		f->inflight[c]--;
	} else {
		FA_ASSERT(rc == -EINVAL);
	}
}

static void fa_cancel(struct fa *f, int c, int i)
{
	int rc = ioqos_cancel(f->q[c], &f->r[i]);

	if (f->where[i] == FA_QUEUED && f->at[i] == c) {
		FA_ASSERT(rc == 0);
		f->where[i] = FA_NEW;
		f->queued[c]--;
	} else if (f->where[i] == FA_INFLIGHT && f->at[i] == c) {
		FA_ASSERT(rc == -EBUSY);
	} else {
		FA_ASSERT(rc == -EINVAL);
	}
}

static void fa_set(struct fa *f, int c)
{
	unsigned k = (unsigned)(fa_byte(f) % FA_NPATH);
	const char *s = fa_settings[fa_byte(f) % FA_NSET];
	char err[256];
	int rc = ioqos_set(f->q[c], fa_paths[k], s, f->t, err, sizeof(err));

	if (rc == 0) {
		fa_clock(f, c);
		fa_refresh(f, c);
	}
}

/* the end: everything that can go goes, the rest is cancelled */
static void fa_drain(struct fa *f)
{
	int c, i;

	f->t = UINT64_MAX;
	for (c = 0; c < FA_NQ; c++) {
		for (;;) {
			fa_next(f, c);
			if (!f->inflight[c])
				break;
			for (i = 0; i < FA_NREQ; i++)
				if (f->where[i] == FA_INFLIGHT && f->at[i] == c)
					fa_done(f, c, i);
		}
		for (i = 0; i < FA_NREQ; i++)
			if (f->where[i] == FA_QUEUED && f->at[i] == c)
				fa_cancel(f, c, i);
		fa_check_counts(f, c);
		FA_ASSERT(f->queued[c] == 0 && f->inflight[c] == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fa *f = calloc(1, sizeof(*f));
	int c;

	FA_ASSERT(f != NULL);
	f->p = data;
	f->end = data + size;
	for (c = 0; c < FA_NQ; c++) {
		f->q[c] = ioqos_new();
		FA_ASSERT(f->q[c] != NULL);
		memset(f->gid[c], -1, sizeof(f->gid[c]));
		f->gid[c][0] = 0;
	}
	while (f->p < f->end) {
		uint64_t op = fa_byte(f);
		int i = (int)(fa_byte(f) % FA_NREQ);

		c = (int)(op >> 7) & 1;   /* the second controller: ops of 128 and up */
		switch (op % 18) {
		case 0: case 1: case 2: case 3:
			fa_submit(f, c, i);
			break;
		case 4: case 5: case 6:
			fa_next(f, c);
			break;
		case 7: case 8:
			fa_done(f, c, i);
			break;
		case 9:
			fa_cancel(f, c, i);
			break;
		case 10: case 11:
			fa_set(f, c);
			break;
		case 12:
			fa_remove(f, c);
			break;
		case 13:
			fa_replace(f, c);
			break;
		default:
			fa_time(f);
			break;
		}
		fa_check_counts(f, c);
	}
	fa_drain(f);
	for (c = 0; c < FA_NQ; c++)
		ioqos_free(f->q[c]);
	free(f);
	return 0;
}
