/* SPDX-License-Identifier: MIT */
/*
 * Which group a connection joins, and whether it may.
 *
 * The group, by ioqos-group: by export name (default; "vm1" and "/vm1" both
 * give /vm1, "" gives /default), by the client's address (/peer/127.0.0.1,
 * /peer/uid-1000 on a unix socket), by the cgroup v2 path of a unix
 * client's process (/system.slice/foo.service; cgroup.c), or one fixed
 * group.  No connection joins "/" itself: it is the device, whose own
 * requests would compete with every tenant as one more.
 *
 * Whether it may (group_join()), in this order:
 *   - by export name under ioqos-exports=config (the default when there is
 *     a config file), only the groups the config names are served: any
 *     other export name is refused, so a client cannot make groups;
 *   - every allow= list on the way from the group up to "/" must admit the
 *     connection's identity (allow.c);
 *   - a group the config does not name is made on demand (ioqos-exports=any,
 *     or by peer or cgroup), at most ioqos-max-groups of them at once, missing
 *     ancestors included, with the library's defaults (no limit, weight
 *     100); when its last connection closes it is removed again
 *     (group_leave()), and so is each on-demand ancestor it leaves empty.
 *   A group a reload no longer names goes the same way (group_unnamed()):
 *     at once if nobody is in it, else with its last connection.
 *
 * Removals go through ioqos_mt_group_remove(), which takes the controller
 * itself: so they are made with the controller let go, g.lock held (the
 * groups a reload step no longer names are noted during the step and
 * dealt with after it, group_unnamed_flush()).  Every other call here is
 * made holding both.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* the group path of a connection; 0, or -1 with the reason in @why */
int group_path(const char *exportname, char *path, size_t len, char *why, size_t whylen)
{
	int n;

	switch (g.mode) {
	case FIXED:
		n = snprintf(path, len, "%s", g.fixed);
		break;
	case BY_EXPORT:
		if (exportname[0] == '\0')
			n = snprintf(path, len, "/default");
		else if (exportname[0] == '/')
			n = snprintf(path, len, "%s", exportname);
		else
			n = snprintf(path, len, "/%s", exportname);
		break;
	case BY_PEER: {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char addr[INET6_ADDRSTRLEN];

		memset(&ss, 0, sizeof(ss));
		if (nbdkit_peer_name((struct sockaddr *)&ss, &sl) < 0) {
			snprintf(why, whylen, "the client's address: %s", strerror(errno));
			return -1;
		}
		if (ss.ss_family == AF_INET &&
		    inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr,
			      addr, sizeof(addr))) {
			n = snprintf(path, len, "/peer/%s", addr);
		} else if (ss.ss_family == AF_INET6 &&
			   inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
				     addr, sizeof(addr))) {
			n = snprintf(path, len, "/peer/%s", addr);
		} else if (ss.ss_family == AF_UNIX) {
			/* unix clients are usually unnamed: the user is the tenant */
			int64_t uid = nbdkit_peer_uid();

			if (uid >= 0)
				n = snprintf(path, len, "/peer/uid-%" PRId64, uid);
			else
				n = snprintf(path, len, "/peer/unix");
		} else {
			snprintf(why, whylen, "ioqos-group=peer: unknown address family %d",
				 (int)ss.ss_family);
			return -1;
		}
		break;
	}
	case BY_CGROUP:
		return cgroup_group_path(path, len, why, whylen);
	default:
		snprintf(why, whylen, "no ioqos-group mode");
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(why, whylen, "group path too long");
		return -1;
	}
	return 0;
}

static struct ginfo *ginfo(uint32_t id);

/*
 * Remove group @id from the controller, with g.lock held and the
 * controller let go.  Every request of the group is done when its last
 * connection closes, so none can be queued (one that were would come back
 * out of its lane refused).
 */
static int group_remove(uint32_t id)
{
	return ioqos_mt_group_remove(g.mt, id, now_ns());
}

/* at start: say whether groups made on demand go again */
void group_log_removal(void)
{
	nbdkit_debug("ioqos: groups made on demand are removed when their last "
		     "connection closes, as are groups a reload no longer names");
}

/*
 * Holding the controller and g.lock, in a reload's step: the config no
 * longer names group @id (the library has put it back to the defaults;
 * its children came first).  Noted, with its path, for
 * group_unnamed_flush(); without memory to note it, it stays as a group
 * made on demand would.
 */
void group_unnamed(uint32_t id)
{
	const char *path = ioqos_group_path(g.q, id);
	struct unnamed *u = g.unnamed;
	struct ginfo *gi;

	if (id == 0 || !path)
		return;
	if (g.n_unnamed == g.cap_unnamed) {
		size_t cap = g.cap_unnamed ? g.cap_unnamed * 2 : 64;

		u = realloc(g.unnamed, cap * sizeof(*u));
		if (u) {
			g.unnamed = u;
			g.cap_unnamed = cap;
		}
	}
	if (u && (u[g.n_unnamed].path = strdup(path)) != NULL) {
		u[g.n_unnamed++].id = id;
		return;
	}
	if ((gi = ginfo(id)) && !gi->on_demand) {
		gi->on_demand = true;
		g.on_demand++;
	}
}

static void unnamed_one(uint32_t id, const char *p, struct ginfo *gi)
{
	if ((!gi || gi->conns == 0) && group_remove(id) == 0) {
		if (gi) {
			if (gi->on_demand)
				g.on_demand--;
			memset(gi, 0, sizeof(*gi));
		}
		nbdkit_debug("ioqos: group %s removed: the config no longer names it", p);
		return;
	}
	/* in use, or a parent of a group in use: it goes as one made on demand */
	if (gi && !gi->on_demand) {
		gi->on_demand = true;
		g.on_demand++;
	}
	nbdkit_debug("ioqos: group %s: no longer in the config, at the defaults until "
		     "its last connection closes", p);
}

/*
 * The groups noted by group_unnamed(), in their order (children before
 * parents), with g.lock held and the controller let go: each goes now if
 * nobody is in it, else with its last connection, as a group made on
 * demand does.
 */
void group_unnamed_flush(void)
{
	for (size_t i = 0; i < g.n_unnamed; i++) {
		uint32_t id = g.unnamed[i].id;
		char *p = g.unnamed[i].path;
		struct ginfo *gi = ginfo(id);

		unnamed_one(id, p, gi);
		free(p);
	}
	g.n_unnamed = 0;
}

/* what the filter knows of group @id, growing the table; NULL if out of memory */
static struct ginfo *ginfo(uint32_t id)
{
	if (id >= g.gi_len) {
		uint32_t len = g.gi_len ? g.gi_len : 1024;

		while (len <= id)
			len *= 2;
		struct ginfo *p = realloc(g.gi, len * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + g.gi_len, 0, (len - g.gi_len) * sizeof(*p));
		g.gi = p;
		g.gi_len = len;
	}
	return &g.gi[id];
}

/* a request was ever submitted to group @id (for the stats writer) */
bool group_used(uint32_t id)
{
	return id < g.gi_len && g.gi[id].used;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* does the config name @path? */
static bool named(const char *path)
{
	return g.names && bsearch(&path, g.names, g.n_names, sizeof(*g.names), cmp_str);
}

/* is @path @top or below it? */
static bool path_under(const char *path, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(path, top, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* the parent's path of @path (not "/") into @parent */
static void parent_path(const char *path, char *parent)
{
	const char *slash = strrchr(path, '/');
	size_t n = (size_t)(slash - path);

	if (n == 0)
		n = 1;             /* "/a": "/" */
	memcpy(parent, path, n);
	parent[n] = '\0';
}

/* how many of @path and its ancestors (below "/") do not exist yet */
static uint32_t missing_groups(const char *path)
{
	char p[IOQOS_PATH_MAX];
	uint32_t n = 0;

	snprintf(p, sizeof(p), "%s", path);
	while (strcmp(p, "/") != 0 && ioqos_group_find(g.q, p) == -ENOENT) {
		n++;
		parent_path(p, p);
	}
	return n;
}

/*
 * With g.lock held and the controller: let the connection of @peer join
 * the group at @path.
 * Returns its id, or -errno with the reason in @why: -EPERM ("/"),
 * -ENOENT (not in the config), -EACCES (allow=), -ENOSPC
 * (ioqos-max-groups), -EINVAL (not a group path), -ENOMEM.
 */
int group_join(const char *path, const struct peer *peer, char *why, size_t whylen)
{
	char who[INET6_ADDRSTRLEN + 64];
	char qp[LOG_STR_BUF];      /* @path as logged: a client's export name */
	uint32_t missing;
	struct ginfo *gi;
	int id;

	if (strcmp(path, "/") == 0) {
		snprintf(why, whylen, "\"/\" is the device itself, not a tenant's group");
		return -EPERM;
	}
	if (g.mode == BY_EXPORT && g.exports == EXPORTS_CONFIG && !named(path)) {
		snprintf(why, whylen, "the config names no group %s (ioqos-exports=config)",
			 log_str(qp, path));
		return -ENOENT;
	}
	for (size_t i = 0; i < g.n_rules; i++) {
		const struct rule *r = &g.rules[i];

		if (path_under(path, r->path) && !allow_match(r->allow, peer)) {
			peer_str(peer, who, sizeof(who));
			snprintf(why, whylen, "%s may not join %s (allow= of %s, line %lu)",
				 who, log_str(qp, path), r->path, r->line);
			return -EACCES;
		}
	}
	id = ioqos_group_find(g.q, path);
	if (id == -ENOENT) {
		missing = missing_groups(path);
		if (g.on_demand + missing > g.max_groups) {
			snprintf(why, whylen, "ioqos-max-groups=%u groups made for "
				 "connections already", g.max_groups);
			return -ENOSPC;
		}
		id = ioqos_group(g.q, path);
		if (id >= 0) {
			/* mark the new ones: the group and its missing ancestors */
			char p[IOQOS_PATH_MAX];
			int a = id;

			snprintf(p, sizeof(p), "%s", path);
			for (uint32_t k = 0; k < missing && a > 0; k++) {
				if (!(gi = ginfo((uint32_t)a)))
					return -ENOMEM;
				gi->on_demand = true;
				g.on_demand++;
				parent_path(p, p);
				a = ioqos_group_find(g.q, p);
			}
		}
	}
	if (id < 0) {
		snprintf(why, whylen, "%s", id == -EINVAL ?
			 "not a group path (letters, digits and ._:@+- between slashes)" :
			 ioqos_strerror(id));
		return id;
	}
	if (!(gi = ginfo((uint32_t)id))) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	gi->conns++;
	gi->used = true;
	return id;
}

/*
 * With g.lock held, the controller let go: a connection of group @id has
 * closed.  An on-demand group left without connections is removed, and
 * then each on-demand ancestor that this leaves empty.
 */
void group_leave(uint32_t id)
{
	char p[IOQOS_PATH_MAX];
	struct ioqos *q;
	const char *path;
	int parent;

	if (id >= g.gi_len || g.gi[id].conns == 0)
		return;
	g.gi[id].conns--;
	while (id > 0 && id < g.gi_len && g.gi[id].on_demand && g.gi[id].conns == 0) {
		q = ioqos_mt_lock(g.mt);
		path = ioqos_group_path(q, id);
		if (path)
			snprintf(p, sizeof(p), "%s", path);
		ioqos_mt_unlock(g.mt, now_ns());
		if (!path || group_remove(id) < 0)
			break;     /* children, or no removal in this library */
		memset(&g.gi[id], 0, sizeof(g.gi[id]));
		g.on_demand--;
		nbdkit_debug("ioqos: group %s removed", p);
		parent_path(p, p);
		q = ioqos_mt_lock(g.mt);
		parent = ioqos_group_find(q, p);
		ioqos_mt_unlock(g.mt, now_ns());
		if (parent <= 0)
			break;
		id = (uint32_t)parent;
	}
}

/*
 * With g.lock held and the controller, after a config load: what it names (@names, sorted by
 * strcmp) and who may join what, taken over; the old ones are handed back
 * in the same variables, for the caller to free once the lock is let go.
 * A group it names is no longer one made on demand.
 */
void group_config_swap(char ***names, size_t *n_names, struct rule **rules, size_t *n_rules)
{
	char **on = g.names;
	size_t onn = g.n_names, onr = g.n_rules;
	struct rule *or = g.rules;

	g.names = *names;
	g.n_names = *n_names;
	g.rules = *rules;
	g.n_rules = *n_rules;
	*names = on;
	*n_names = onn;
	*rules = or;
	*n_rules = onr;
	for (uint32_t id = 1; g.on_demand && id < g.gi_len; id++) {
		const char *path = g.gi[id].on_demand ? ioqos_group_path(g.q, id) : NULL;

		if (path && named(path)) {
			g.gi[id].on_demand = false;
			g.on_demand--;
		}
	}
}

/* at unload, no other thread running */
void group_free_all(void)
{
	char **names = NULL;
	struct rule *rules = NULL;
	size_t n_names = 0, n_rules = 0;

	if (g.mt) {
		ioqos_mt_lock(g.mt);
		group_config_swap(&names, &n_names, &rules, &n_rules);
		ioqos_mt_unlock(g.mt, now_ns());
	}
	for (size_t i = 0; i < n_names; i++)
		free(names[i]);
	free(names);
	for (size_t i = 0; i < n_rules; i++) {
		free(rules[i].path);
		allow_free(rules[i].allow);
	}
	free(rules);
	free(g.gi);
	g.gi = NULL;
	g.gi_len = 0;
	for (size_t i = 0; i < g.n_unnamed; i++)
		free(g.unnamed[i].path);
	free(g.unnamed);
	g.unnamed = NULL;
	g.n_unnamed = g.cap_unnamed = 0;
}
