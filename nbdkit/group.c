/* SPDX-License-Identifier: MIT */
/*
 * Which group a connection joins, by ioqos-group: by export name (default;
 * "vm1" and "/vm1" both give /vm1, "" gives /default), by the client's
 * address (/peer/127.0.0.1, /peer/uid-1000 on a unix socket), or one fixed
 * group.  A group the config does not name is created on first use with the
 * library's defaults (no limit, weight 100).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* the group path of a connection; 0, or -1 (logged) */
int group_path(const char *exportname, char *path, size_t len)
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
		if (nbdkit_peer_name((struct sockaddr *)&ss, &sl) < 0)
			return -1;
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
			nbdkit_error("ioqos: ioqos-group=peer: unknown address family %d",
				     (int)ss.ss_family);
			return -1;
		}
		break;
	}
	default:
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		nbdkit_error("ioqos: group path too long");
		return -1;
	}
	return 0;
}

/*
 * Which groups ever had a connection, so ever a request of their own: the
 * stats writer reads the others' own counters as zero without asking the
 * library, whose ioqos_stats_id() walks the group's whole subtree (the
 * root's is every group).  With g.lock held; false when out of memory.
 */
bool group_mark_used(uint32_t id)
{
	if (id >= g.used_len) {
		uint32_t len = g.used_len ? g.used_len : 1024;

		while (len <= id)
			len *= 2;
		uint8_t *p = realloc(g.used, len);

		if (!p)
			return false;
		memset(p + g.used_len, 0, len - g.used_len);
		g.used = p;
		g.used_len = len;
	}
	g.used[id] = 1;
	return true;
}

bool group_used(uint32_t id)
{
	return id < g.used_len && g.used[id];
}
