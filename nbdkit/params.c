/* SPDX-License-Identifier: MIT */
/*
 * The filter's parameters, as nbdkit parses the command line: each key in
 * params_config(), then params_complete() makes the controller, loads the
 * config and checks what depends on several keys.  Defaults: ioqos-group
 * export, ioqos-exports config with a config file (any without), at most
 * MAX_GROUPS_DEFAULT groups on demand, ioqos-poll 1s (10 ms at least:
 * POLL_NS_MIN).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nbdkit-filter.h>

#include "filter.h"


/* "500ms", "2s", "0": a duration in ns; -1 if malformed or over an hour */
static int parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", NS_PER_S },
	};
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > 3600ull * NS_PER_S)
		return -1;
	if (*end == '\0') {
		if (v != 0)
			return -1;     /* a bare number other than 0 needs a unit */
		*ns = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			if (v > 3600ull * NS_PER_S / units[i].ns)
				return -1;
			*ns = v * units[i].ns;
			return 0;
		}
	}
	return -1;
}

/* the cluster module's messages (from its own thread) */
static void cluster_log(void *arg, const char *msg)
{
	(void)arg;
	nbdkit_error("ioqos: cluster: %s", msg);
}

int params_config(nbdkit_next_config *next, nbdkit_backend *nxdata,
		  const char *key, const char *value)
{
	if (strcmp(key, "ioqos-config") == 0) {
		free(g.config);
		g.config = nbdkit_absolute_path(value);
		return g.config ? 0 : -1;
	}
	if (strcmp(key, "ioqos-redis") == 0) {
		free(g.redis);
		g.redis = strdup(value);
		return g.redis ? 0 : -1;
	}
	if (strcmp(key, "ioqos-stats") == 0) {
		free(g.stats);
		g.stats = nbdkit_absolute_path(value);
		return g.stats ? 0 : -1;
	}
	if (strcmp(key, "ioqos-stats-format") == 0) {
		if (strcmp(value, "text") == 0) {
			g.stats_format = STATS_TEXT;
		} else if (strcmp(value, "prometheus") == 0) {
			g.stats_format = STATS_PROMETHEUS;
		} else if (strcmp(value, "json") == 0) {
			g.stats_format = STATS_JSON;
		} else {
			nbdkit_error("ioqos: ioqos-stats-format: bad value '%s' "
				     "(text, prometheus or json)", value);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "ioqos-group") == 0) {
		free(g.fixed);
		g.fixed = NULL;
		if (strcmp(value, "export") == 0) {
			g.mode = BY_EXPORT;
		} else if (strcmp(value, "peer") == 0) {
			g.mode = BY_PEER;
		} else if (strcmp(value, "cgroup") == 0) {
			g.mode = BY_CGROUP;
		} else if (strncmp(value, "fixed:", 6) == 0) {
			g.mode = FIXED;
			g.fixed = strdup(value + 6);
			if (!g.fixed) {
				nbdkit_error("ioqos: out of memory");
				return -1;
			}
		} else {
			nbdkit_error("ioqos: ioqos-group: bad value '%s' "
				     "(export, peer, cgroup or fixed:/PATH)", value);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "ioqos-exports") == 0) {
		if (strcmp(value, "config") == 0) {
			g.exports = EXPORTS_CONFIG;
		} else if (strcmp(value, "any") == 0) {
			g.exports = EXPORTS_ANY;
		} else {
			nbdkit_error("ioqos: ioqos-exports: bad value '%s' (config or any)", value);
			return -1;
		}
		g.exports_set = true;
		return 0;
	}
	if (strcmp(key, "ioqos-max-groups") == 0) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (value[0] < '0' || value[0] > '9' || *end || errno || v > 1000000) {
			nbdkit_error("ioqos: ioqos-max-groups: bad value '%s' "
				     "(a number of groups, 0 to 1000000)", value);
			return -1;
		}
		g.max_groups = (uint32_t)v;
		return 0;
	}
	if (strcmp(key, "ioqos-poll") == 0) {
		if (parse_duration(value, &g.poll_ns) < 0) {
			nbdkit_error("ioqos: ioqos-poll: bad value '%s' "
				     "(a duration such as 500ms or 2s, 10ms to 3600s; 0 = never)",
				     value);
			return -1;
		}
		if (g.poll_ns != 0 && g.poll_ns < POLL_NS_MIN) {
			nbdkit_error("ioqos: ioqos-poll: bad value '%s': shorter than %d ms, "
				     "the least (each poll stats the config and writes the "
				     "stats file; 0 = never)", value, POLL_NS_MIN / 1000000);
			return -1;
		}
		return 0;
	}
	return next(nxdata, key, value);
}

int params_complete(nbdkit_next_config_complete *next, nbdkit_backend *nxdata)
{
	int ret;

	g.q = ioqos_new();
	g.mt = g.q ? ioqos_mt_new(g.q) : NULL;
	if (!g.mt) {
		nbdkit_error("ioqos: out of memory");
		return -1;
	}
	ioqos_mt_timer(g.mt, gate_timer, NULL);
	g.start_ns = now_ns();
	if (g.redis) {
		char err[512];
		struct ioqos_cluster_opts o = { .log = cluster_log };

		/* before the config, which ioqos_cluster_load_buf() loads */
		g.cl = ioqos_cluster_new(g.q, g.redis, &o, err, sizeof(err));
		if (!g.cl) {
			nbdkit_error("ioqos: ioqos-redis: %s", err);
			return -1;
		}
	}
	if (!g.exports_set)
		g.exports = g.config ? EXPORTS_CONFIG : EXPORTS_ANY;
	if (g.config) {
		g.sig = file_sig_of(g.config);
		if (!g.sig.exists) {
			nbdkit_error("ioqos: ioqos-config: %s: %s", g.config, strerror(errno));
			return -1;
		}
		if (config_reload(true) < 0)
			return -1;
	}
	if (g.stats) {
		char err[PATH_MAX + 64];

		if (stats_path_check(g.stats, err, sizeof(err)) < 0) {
			nbdkit_error("ioqos: ioqos-stats: %s", err);
			return -1;
		}
	}
	if (g.mode == FIXED) {
		if (strcmp(g.fixed, "/") == 0) {
			nbdkit_error("ioqos: ioqos-group=fixed:/: \"/\" is the device itself, "
				     "not a tenant's group");
			return -1;
		}
		ioqos_mt_lock(g.mt);
		ret = ioqos_group(g.q, g.fixed);
		ioqos_mt_unlock(g.mt, now_ns());
		if (ret < 0) {
			nbdkit_error("ioqos: ioqos-group=fixed:%s: %s", g.fixed,
				     ret == -EINVAL ? "not a group path (like /vm1)" :
				     ioqos_strerror(ret));
			return -1;
		}
	}
	leave_log_version();
	group_log_removal();
	return next(nxdata);
}
