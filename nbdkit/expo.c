/* SPDX-License-Identifier: MIT */
/*
 * The stats file for a monitoring system: Prometheus' text exposition
 * format (version 0.0.4) or JSON, selected by ioqos-stats-format.
 *
 * A group's figures here are those of its subtree, as in `ioqos run`'s
 * table: "/" counts every request.  The library can sum a subtree
 * (ioqos_stats_id()'s tree_* fields) but only by walking it, under the
 * controller's lock, and for the dispatched and queued counts only.  So the
 * writer copies each group's own counters, a chunk at a time as for the
 * text form (and, as there, asks only groups that ever had a connection:
 * the others' own counters are zero), and the sums are made here, with
 * the lock let go:
 *
 *  - expo_add() keeps every chunk's copies, in id order;
 *  - expo_format() sorts them by path with '/' below every other byte, so
 *    that a group's subtree follows it at once (preorder), and folds each
 *    group into its nearest ancestor present with a stack of the current
 *    path's ancestors: O(n log n) for n groups, no lookup by path;
 *  - then writes each metric family for every group, in id order.
 *
 * Every figure of a group (dispatched, queued, in flight, done, cancelled)
 * is then its subtree's, and all of one chunk's groups are of one moment.
 * The JSON form gives each group's own figures beside them.
 *
 * The timestamp is a gauge, ioqos_stats_timestamp_seconds, not a
 * timestamp on each sample: node_exporter's textfile collector refuses a
 * file with sample timestamps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* one group: its own counters and its subtree's */
struct ent {
	struct group_copy own;      /* path_at: in expo.paths */
	struct group_copy tree;     /* own plus every descendant's */
};

struct expo {
	struct ent *e;              /* the groups, in id order */
	size_t n, cap;              /* entries used, allocated */
	char *paths;                /* their paths, NUL-terminated, end to end */
	size_t plen, pcap;          /* bytes used, allocated */
};

struct expo *expo_new(void)
{
	return calloc(1, sizeof(struct expo));
}

void expo_free(struct expo *x)
{
	if (!x)
		return;
	free(x->e);
	free(x->paths);
	free(x);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t want = *cap ? *cap : 64;

	if (need <= *cap)
		return true;
	while (want < need)
		want *= 2;
	void *q = realloc(*p, want * size);

	if (!q)
		return false;
	*p = q;
	*cap = want;
	return true;
}

bool expo_add(struct expo *x, const struct group_copy *gc, uint32_t n, const char *arena)
{
	for (uint32_t i = 0; i < n; i++) {
		if (gc[i].path_at == SIZE_MAX)
			continue;
		const char *path = arena + gc[i].path_at;
		size_t plen = strlen(path) + 1;

		if (!grow((void **)&x->e, &x->cap, x->n + 1, sizeof(*x->e)) ||
		    !grow((void **)&x->paths, &x->pcap, x->plen + plen, 1))
			return false;
		memcpy(x->paths + x->plen, path, plen);
		x->e[x->n].own = gc[i];
		x->e[x->n].own.path_at = x->plen;
		x->e[x->n].tree = x->e[x->n].own;
		x->plen += plen;
		x->n++;
	}
	return true;
}

/* for qsort(): the paths, with '/' ordered below every byte of a name */
static const char *sort_paths;

static int cmp_path(const void *a, const void *b)
{
	const unsigned char *s = (const unsigned char *)sort_paths + *(const size_t *)a;
	const unsigned char *t = (const unsigned char *)sort_paths + *(const size_t *)b;

	while (*s && *s == *t)
		s++, t++;
	int cs = *s == '/' ? 1 : *s, ct = *t == '/' ? 1 : *t;

	return cs - ct;
}

/* is @a a proper ancestor of @b? */
static bool ancestor(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (strcmp(a, "/") == 0)
		return strcmp(b, "/") != 0;
	return strncmp(a, b, la) == 0 && b[la] == '/';
}

static void fold(struct group_copy *to, const struct group_copy *from)
{
	for (int d = 0; d < 2; d++) {
		to->ios[d] += from->ios[d];
		to->bytes[d] += from->bytes[d];
		to->queued[d] += from->queued[d];
	}
	to->inflight += from->inflight;
	to->done += from->done;
	to->cancelled += from->cancelled;
	if (from->max_wait_ns > to->max_wait_ns)
		to->max_wait_ns = from->max_wait_ns;
}

/* sum each group's subtree into its .tree; false when out of memory */
static bool subtree_sums(struct expo *x)
{
	size_t *order = malloc((x->n ? x->n : 1) * sizeof(*order));
	size_t *stack = malloc((x->n ? x->n : 1) * sizeof(*stack));
	size_t depth = 0;

	if (!order || !stack) {
		free(order);
		free(stack);
		return false;
	}
	/* sort offsets of paths, then map them back to entries */
	for (size_t i = 0; i < x->n; i++)
		order[i] = x->e[i].own.path_at;
	sort_paths = x->paths;
	qsort(order, x->n, sizeof(*order), cmp_path);
	for (size_t i = 0; i < x->n; i++) {
		/* entries are in path_at order: find by binary search */
		size_t lo = 0, hi = x->n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (x->e[mid].own.path_at < order[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		order[i] = lo;
	}
	for (size_t i = 0; i <= x->n; i++) {
		const char *path = i < x->n ? x->paths + x->e[order[i]].own.path_at : NULL;

		while (depth > 0 &&
		       (!path || !ancestor(x->paths + x->e[stack[depth - 1]].own.path_at, path))) {
			depth--;
			if (depth > 0)
				fold(&x->e[stack[depth - 1]].tree, &x->e[stack[depth]].tree);
		}
		if (path)
			stack[depth++] = order[i];
	}
	free(order);
	free(stack);
	return true;
}

/* a depth as a gauge: +Inf for no limit */
static void put_depth(FILE *f, const char *name, uint64_t d)
{
	if (d == IOQOS_UNLIMITED)
		fprintf(f, "%s +Inf\n", name);
	else
		fprintf(f, "%s %" PRIu64 "\n", name, d == IOQOS_DEPTH_AUTO ? 0 : d);
}

/*
 * @s (at most @max bytes) inside double quotes, as both a Prometheus label
 * value and a JSON string take it: '\\' and '"' escaped, any byte that is
 * not printable ASCII as '?' (the cluster's reasons are printable already)
 */
static void put_escaped(FILE *f, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\\' || ch == '"')
			fputc('\\', f);
		fputc(ch >= 0x20 && ch < 0x7f ? ch : '?', f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* the per-group families: subtree figures, one sample per group (and direction) */
enum gfield { G_IOS, G_BYTES, G_QUEUED, G_INFLIGHT, G_DONE, G_CANCELLED, G_MAX_WAIT };

static const struct {
	const char *name, *type, *help;
	enum gfield field;
	bool per_dir;
} gfam[] = {
	{ "ioqos_dispatched_requests_total", "counter",
	  "Requests dispatched to the plugin from the group and its subtree.", G_IOS, true },
	{ "ioqos_dispatched_bytes_total", "counter",
	  "Bytes of the requests dispatched from the group and its subtree.", G_BYTES, true },
	{ "ioqos_queued_requests", "gauge",
	  "Requests of the group and its subtree held by the controller now.", G_QUEUED, true },
	{ "ioqos_inflight_requests", "gauge",
	  "Requests of the group and its subtree dispatched and not yet done.", G_INFLIGHT, false },
	{ "ioqos_completed_requests_total", "counter",
	  "Requests of the group and its subtree completed.", G_DONE, false },
	{ "ioqos_cancelled_requests_total", "counter",
	  "Requests of the group and its subtree taken back before dispatch.", G_CANCELLED, false },
	{ "ioqos_max_wait_seconds", "gauge",
	  "Longest submit-to-dispatch time of a request of the group and its subtree, "
	  "either direction, since start.", G_MAX_WAIT, false },
};

static uint64_t gvalue(const struct group_copy *c, enum gfield fld, int d)
{
	switch (fld) {
	case G_IOS:       return c->ios[d];
	case G_BYTES:     return c->bytes[d];
	case G_QUEUED:    return c->queued[d];
	case G_INFLIGHT:  return c->inflight;
	case G_DONE:      return c->done;
	case G_CANCELLED: return c->cancelled;
	case G_MAX_WAIT:  return c->max_wait_ns;
	}
	return 0;
}

/* ioqos-redis: the leases' state, one series per state (1 for the one in force) */
static void prometheus_redis(FILE *f, const struct ioqos_cluster_status *cs)
{
	static const enum ioqos_cl_state states[] = {
		IOQOS_CL_JOINING, IOQOS_CL_LEASED, IOQOS_CL_FALLBACK,
	};

	family(f, "ioqos_redis_state", "gauge",
	       "The global groups' state: joining (no answer yet), leased, or fallback "
	       "(Redis unreachable, or a bucket's lease script answering errors: local "
	       "limits of R / n); 1 for the state in force.");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		fprintf(f, "ioqos_redis_state{state=\"%s\"} %d\n", cluster_state_name(states[i]),
			cs->state == states[i]);
	family(f, "ioqos_redis_round_trips_total", "counter", "Lease renewals Redis answered.");
	fprintf(f, "ioqos_redis_round_trips_total %" PRIu64 "\n", cs->round_trips);
	family(f, "ioqos_redis_outages_total", "counter",
	       "Times Redis was lost, or a bucket's lease script began to answer errors.");
	fprintf(f, "ioqos_redis_outages_total %" PRIu64 "\n", cs->outages);
	family(f, "ioqos_redis_fallback_info", "gauge",
	       "In fallback only: 1, with why in the reason label.");
	if (cs->state == IOQOS_CL_FALLBACK) {
		fputs("ioqos_redis_fallback_info{reason=\"", f);
		put_escaped(f, cs->reason, sizeof(cs->reason));
		fputs("\"} 1\n", f);
	}
	family(f, "ioqos_redis_live_instances", "gauge",
	       "Instances seen on the global buckets at the last answer.");
	fprintf(f, "ioqos_redis_live_instances %" PRIu64 "\n", cs->live);
}

/* the latency targets: one sample per group that has one, its own figures */
static void prometheus_latency(FILE *f, const struct expo *x)
{
	static const struct {
		const char *name, *type, *help;
	} fams[] = {
		{ "ioqos_latency_target_seconds", "gauge", "The group's latency= target." },
		{ "ioqos_latency_window_p99_seconds", "gauge",
		  "The 99th percentile of the group's completion latency over its last "
		  "window of 128 (the statistic the target holds)." },
		{ "ioqos_latency_completed_total", "counter",
		  "The group's completions counted against its target." },
		{ "ioqos_latency_misses_total", "counter",
		  "Of them, those longer than the target." },
		{ "ioqos_latency_bound", "gauge",
		  "The depth the group holds the device to while active (+Inf: none yet)." },
	};

	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++) {
		family(f, fams[k].name, fams[k].type, fams[k].help);
		for (size_t i = 0; i < x->n; i++) {
			const struct ioqos_latency *l = &x->e[i].own.lat;

			if (!l->target_ns)
				continue;
			fprintf(f, "%s{group=\"%s\"} ", fams[k].name, x->paths + x->e[i].own.path_at);
			if (k == 0)
				fprintf(f, "%.9g\n", l->target_ns / 1e9);
			else if (k == 1)
				fprintf(f, "%.9g\n", l->window_ns / 1e9);
			else if (k == 2)
				fprintf(f, "%" PRIu64 "\n", l->done);
			else if (k == 3)
				fprintf(f, "%" PRIu64 "\n", l->misses);
			else if (l->bound == IOQOS_UNLIMITED)
				fputs("+Inf\n", f);
			else
				fprintf(f, "%" PRIu64 "\n", l->bound);
		}
	}
}

/* one sample of a family of one: NAME VALUE */
static void single(FILE *f, const char *name, const char *type, const char *help,
		   uint64_t v)
{
	family(f, name, type, help);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

/* what the controller's lanes did (struct ioqos_mt_stats) */
static void prometheus_lanes(FILE *f, const struct ioqos_mt_stats *mt)
{
	single(f, "ioqos_lanes", "gauge",
	       "Lanes into the controller open now: one per nbdkit thread that has served a request.",
	       mt->lanes);
	single(f, "ioqos_lane_batches_total", "counter",
	       "Batches the controller applied: each a hold of it that applied what lanes posted and dispatched.",
	       mt->batches);
	single(f, "ioqos_lane_posts_total", "counter",
	       "Submits and completions the controller applied, by their own thread or by another's batch.",
	       mt->posts);
	single(f, "ioqos_lane_back_total", "counter",
	       "Requests put back on their lanes: dispatched, refused or cancelled by a removal.",
	       mt->back);
	single(f, "ioqos_lane_wakes_total", "counter",
	       "Sleeping threads woken by the thread whose batch put their request back.",
	       mt->wakes);
	single(f, "ioqos_lane_refused_total", "counter", "Submits the controller refused.",
	       mt->refused);
	single(f, "ioqos_lane_bad_done_total", "counter",
	       "Completions the controller refused (of a request not dispatched, or done twice).",
	       mt->bad_done);
}

static void prometheus(FILE *f, const struct expo *x, const struct stats_head *h)
{
	const struct dev_means *m = &h->m;
	static const char *const dirs[2] = { "read", "write" };

	family(f, "ioqos_stats_timestamp_seconds", "gauge",
	       "When the filter wrote this file, in seconds since the Unix epoch.");
	fprintf(f, "ioqos_stats_timestamp_seconds %.3f\n", h->unix_ns / 1e9);
	family(f, "ioqos_connections", "gauge", "Open client connections.");
	fprintf(f, "ioqos_connections %" PRIu64 "\n", h->connections);
	family(f, "ioqos_waiting_requests", "gauge", "Requests asleep in the filter, waiting for dispatch.");
	fprintf(f, "ioqos_waiting_requests %" PRIu64 "\n", h->waiting);
	family(f, "ioqos_reloads_total", "counter", "Config loads that took effect after start.");
	fprintf(f, "ioqos_reloads_total %" PRIu64 "\n", h->reloads);
	prometheus_lanes(f, &h->mt);
	if (h->redis)
		prometheus_redis(f, &h->cs);
	family(f, "ioqos_device_depth", "gauge",
	       "Requests allowed out at once now (+Inf: no limit); under depth=auto, "
	       "the depth the controller uses now.");
	put_depth(f, "ioqos_device_depth", m->dev.depth);
	family(f, "ioqos_device_latency_bound", "gauge",
	       "The depth the active latency targets hold the device to (+Inf: none).");
	put_depth(f, "ioqos_device_latency_bound", m->dev.lat_depth);
	family(f, "ioqos_device_depth_set", "gauge",
	       "The depth as configured (+Inf: max, 0: auto).");
	put_depth(f, "ioqos_device_depth_set", m->dev.depth_set);
	family(f, "ioqos_device_depth_rule", "gauge",
	       "What gave the depth set, 1 for the rule in force: written on /, share "
	       "(none written, groups that share: auto), none (none written, nothing "
	       "shares: max).");
	for (uint32_t k = IOQOS_DEPTH_RULE_SET; k <= IOQOS_DEPTH_RULE_NONE; k++)
		fprintf(f, "ioqos_device_depth_rule{rule=\"%s\"} %d\n", ioqos_depth_rule_name(k),
			m->dev.depth_rule == k);
	family(f, "ioqos_device_rule_groups", "gauge",
	       "Groups below / that the depth's rule counts.");
	fprintf(f, "ioqos_device_rule_groups %" PRIu32 "\n", m->dev.rule_groups);
	family(f, "ioqos_device_rule_sharing", "gauge",
	       "Of them, those that give a weight, prio or low limit.");
	fprintf(f, "ioqos_device_rule_sharing %" PRIu32 "\n", m->dev.rule_shares);
	family(f, "ioqos_device_depth_found", "gauge",
	       "Under depth=auto, the depth the search settled on (0: none yet or not auto).");
	fprintf(f, "ioqos_device_depth_found %" PRIu64 "\n", m->dev.depth_found);
	family(f, "ioqos_device_outstanding_mean", "gauge",
	       "Mean requests out, dispatch to done, since the previous write.");
	fprintf(f, "ioqos_device_outstanding_mean %.6g\n", m->outstanding);
	family(f, "ioqos_device_plugin_mean", "gauge",
	       "Mean requests inside the plugin since the previous write.");
	fprintf(f, "ioqos_device_plugin_mean %.6g\n", m->plugin);
	family(f, "ioqos_device_full_ratio", "gauge",
	       "Share of the time since the previous write the depth was full with requests waiting.");
	fprintf(f, "ioqos_device_full_ratio %.6g\n", m->full);
	family(f, "ioqos_device_latency_seconds", "gauge",
	       "Mean service time, dispatch to done, since the previous write.");
	fprintf(f, "ioqos_device_latency_seconds %.9g\n", m->lat_ns / 1e9);
	family(f, "ioqos_device_wake_seconds", "gauge",
	       "Mean time from a woken request's dispatch to the plugin, since the previous write.");
	fprintf(f, "ioqos_device_wake_seconds %.9g\n", m->wake_ns / 1e9);
	family(f, "ioqos_device_done_seconds", "gauge",
	       "Mean time from the plugin's return to the controller's count, since the previous write.");
	fprintf(f, "ioqos_device_done_seconds %.9g\n", m->done_ns / 1e9);
	for (size_t k = 0; k < sizeof(gfam) / sizeof(gfam[0]); k++) {
		family(f, gfam[k].name, gfam[k].type, gfam[k].help);
		for (size_t i = 0; i < x->n; i++) {
			const struct ent *e = &x->e[i];
			const char *path = x->paths + e->own.path_at;

			for (int d = 0; d < (gfam[k].per_dir ? 2 : 1); d++) {
				uint64_t v = gvalue(&e->tree, gfam[k].field, d);

				if (gfam[k].per_dir)
					fprintf(f, "%s{group=\"%s\",dir=\"%s\"}", gfam[k].name,
						path, dirs[d]);
				else
					fprintf(f, "%s{group=\"%s\"}", gfam[k].name, path);
				if (gfam[k].field == G_MAX_WAIT)
					fprintf(f, " %.9g\n", v / 1e9);
				else
					fprintf(f, " %" PRIu64 "\n", v);
			}
		}
	}
	prometheus_latency(f, x);
}

static void json_depth(FILE *f, uint64_t d)
{
	if (d == IOQOS_UNLIMITED)
		fputs("\"max\"", f);
	else if (d == IOQOS_DEPTH_AUTO)
		fputs("\"auto\"", f);
	else
		fprintf(f, "%" PRIu64, d);
}

static void json_group(FILE *f, const struct group_copy *c)
{
	static const char *const dirs[2] = { "read", "write" };

	for (int d = 0; d < 2; d++)
		fprintf(f, "\"%s\": {\"ios\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"queued\": %" PRIu64 "}, ",
			dirs[d], c->ios[d], c->bytes[d], c->queued[d]);
	fprintf(f, "\"inflight\": %" PRIu64 ", \"done\": %" PRIu64 ", \"cancelled\": %" PRIu64
		", \"max_wait_s\": %.9g", c->inflight, c->done, c->cancelled, c->max_wait_ns / 1e9);
}

/* JSON numbers cannot be NaN or infinite: the means are finite by construction */
static void json(FILE *f, const struct expo *x, const struct stats_head *h)
{
	const struct dev_means *m = &h->m;

	fprintf(f, "{\"timestamp\": %.3f, \"connections\": %" PRIu64 ", \"waiting\": %" PRIu64
		", \"queued\": %" PRIu64 ", \"inflight\": %" PRIu64 ", \"reloads\": %" PRIu64,
		h->unix_ns / 1e9, h->connections, h->waiting, h->queued, h->inflight, h->reloads);
	fprintf(f, ",\n \"lanes\": {\"open\": %" PRIu32 ", \"batches\": %" PRIu64
		", \"posts\": %" PRIu64 ", \"back\": %" PRIu64 ", \"wakes\": %" PRIu64
		", \"refused\": %" PRIu64 ", \"bad_done\": %" PRIu64 "}", h->mt.lanes,
		h->mt.batches, h->mt.posts, h->mt.back, h->mt.wakes, h->mt.refused,
		h->mt.bad_done);
	if (h->redis) {
		fprintf(f, ",\n \"redis\": {\"state\": \"%s\", \"round_trips\": %" PRIu64
			", \"outages\": %" PRIu64 ", \"live\": %" PRIu64 ", \"reason\": \"",
			cluster_state_name(h->cs.state), h->cs.round_trips, h->cs.outages,
			h->cs.live);
		put_escaped(f, h->cs.reason, sizeof(h->cs.reason));
		fputs("\"}", f);
	}
	fputs(",\n \"device\": {\"depth\": ", f);
	json_depth(f, m->dev.depth);
	fputs(", \"depth_set\": ", f);
	json_depth(f, m->dev.depth_set);
	fputs(", \"latency_bound\": ", f);
	json_depth(f, m->dev.lat_depth);
	fprintf(f, ", \"depth_rule\": \"%s\", \"rule_groups\": %" PRIu32 ", \"rule_sharing\": %"
		PRIu32, ioqos_depth_rule_name(m->dev.depth_rule), m->dev.rule_groups,
		m->dev.rule_shares);
	fprintf(f, ", \"depth_found\": %" PRIu64 ", \"outstanding\": %.6g, \"plugin\": %.6g"
		", \"full\": %.6g, \"lat_s\": %.9g, \"wake_s\": %.9g, \"done_s\": %.9g",
		m->dev.depth_found, m->outstanding, m->plugin, m->full,
		m->lat_ns / 1e9, m->wake_ns / 1e9, m->done_ns / 1e9);
	if (m->dev.depth_set == IOQOS_DEPTH_AUTO)
		fprintf(f, ", \"lat_min_s\": %.9g, \"lat_round_s\": %.9g, \"round_iops\": %" PRIu64
			", \"peak_iops\": %" PRIu64 ", \"rounds\": %" PRIu64 ", \"changes\": %" PRIu64,
			m->dev.lat_min_ns / 1e9, m->dev.lat_round_ns / 1e9, m->dev.round_iops,
			m->dev.peak_iops, m->dev.rounds, m->dev.changes);
	fputs("},\n \"groups\": [", f);
	for (size_t i = 0; i < x->n; i++) {
		const struct ent *e = &x->e[i];

		/* group paths are [A-Za-z0-9._:@+-] and '/': nothing to escape */
		fprintf(f, "%s\n  {\"path\": \"%s\", ", i ? "," : "", x->paths + e->own.path_at);
		json_group(f, &e->tree);
		fputs(", \"own\": {", f);
		json_group(f, &e->own);
		fputs("}", f);
		if (e->own.lat.target_ns) {
			fprintf(f, ", \"latency\": {\"target_s\": %.9g, \"window_p99_s\": %.9g"
				", \"window_mean_s\": %.9g, \"done\": %" PRIu64 ", \"misses\": %"
				PRIu64 ", \"bound\": ", e->own.lat.target_ns / 1e9,
				e->own.lat.window_ns / 1e9, e->own.lat.mean_ns / 1e9,
				e->own.lat.done, e->own.lat.misses);
			json_depth(f, e->own.lat.bound);
			fputs("}", f);
		}
		fputs("}", f);
	}
	fputs("\n ]}\n", f);
}

/* the whole file into *@buf (malloc'd, *@len bytes); false when out of memory */
bool expo_format(struct expo *x, const struct stats_head *h, char **buf, size_t *len)
{
	FILE *f;

	if (!subtree_sums(x))
		return false;
	f = open_memstream(buf, len);
	if (!f)
		return false;
	if (g.stats_format == STATS_JSON)
		json(f, x, h);
	else
		prometheus(f, x, h);
	bool ok = !ferror(f);

	if (fclose(f) != 0)
		ok = false;
	return ok;
}
