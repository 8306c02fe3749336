/* SPDX-License-Identifier: MIT */
/*
 * Who may join a group: allow= lists, and a connection's identity as the
 * kernel reports it.
 *
 * The problem.  An export name is whatever the client sends, so naming a
 * group proves nothing: any client that can reach the socket can ask for
 * /vm1.  What a client cannot choose is what the kernel says about its end
 * of the connection: on a unix socket the uid and gid of the process that
 * connected (SO_PEERCRED, nbdkit_peer_uid() and nbdkit_peer_gid()), over
 * TCP its address (getpeername(), nbdkit_peer_name()).  A config line may
 * say who may join its group:
 *
 *   /vm1  allow=uid:1001,gid:64      the user 1001, or any process whose
 *                                    primary group is 64, on a unix socket
 *   /vm2  allow=192.0.2.7,10.1.0.0/16,2001:db8::/32
 *
 * A connection joins a group only if every group on the way from it up to
 * "/" that has an allow= list admits it, so "/tenants allow=gid:100" covers
 * every group below /tenants; a group without allow= (and without one
 * above it) admits anyone.  An entry never matches the other transport:
 * uid: and gid: match only unix sockets, addresses only TCP.  An IPv4
 * client of a dual-stack socket (::ffff:192.0.2.7) is matched as IPv4.
 *
 * What this does not see: a unix client's supplementary groups (SO_PEERCRED
 * has the primary group only), and under TLS which certificate the client
 * showed (nbdkit 1.32 does not say; --tls-verify-peer makes it prove it
 * holds one the CA signed, and the address is still what is matched).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <nbdkit-filter.h>

#include "filter.h"

enum allow_kind { ALLOW_UID, ALLOW_GID, ALLOW_NET4, ALLOW_NET6 };

/* one entry of an allow= list */
struct allow_ent {
	uint8_t kind;              /* enum allow_kind */
	uint8_t prefix;            /* significant bits of addr (NET4: 0..32, NET6: 0..128) */
	uint32_t id;               /* the uid or gid */
	uint8_t addr[16];          /* the network, in network byte order */
};

struct allow {
	uint32_t n;                /* entries */
	struct allow_ent ent[];    /* them */
};

/* "N": a uid or gid; -1 if not a plain number below 2^32 - 1 */
static int parse_id(const char *s, size_t len, uint32_t *id)
{
	uint64_t v = 0;

	if (len == 0 || len > 10)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= UINT32_MAX)       /* (uid_t)-1 means "no user" */
		return -1;
	*id = (uint32_t)v;
	return 0;
}

/* an address, with /BITS or without (a single host) */
static int parse_net(const char *s, size_t len, struct allow_ent *e)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash;
	unsigned long bits;
	char *end;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash)
		buf[slash - buf] = '\0';
	if (inet_pton(AF_INET, buf, e->addr) == 1) {
		e->kind = ALLOW_NET4;
		e->prefix = 32;
	} else if (inet_pton(AF_INET6, buf, e->addr) == 1) {
		e->kind = ALLOW_NET6;
		e->prefix = 128;
	} else {
		return -1;
	}
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			return -1;
		errno = 0;
		bits = strtoul(slash + 1, &end, 10);
		if (errno || *end || bits > e->prefix)
			return -1;
		e->prefix = (uint8_t)bits;
	}
	return 0;
}

/*
 * Parse an allow= value: 0 and *@out (malloc'd), or -1 with a reason in
 * @why naming the entry.
 */
int allow_parse(const char *value, struct allow **out, char *why, size_t whylen)
{
	size_t n = 1, len = strlen(value);
	struct allow *a;
	const char *p = value;

	for (size_t i = 0; i < len; i++)
		n += value[i] == ',';
	a = calloc(1, sizeof(*a) + n * sizeof(a->ent[0]));
	if (!a) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t elen = comma ? (size_t)(comma - p) : strlen(p);
		struct allow_ent *e = &a->ent[a->n];
		int ok;

		memset(e, 0, sizeof(*e));
		if (elen > 4 && memcmp(p, "uid:", 4) == 0) {
			e->kind = ALLOW_UID;
			ok = parse_id(p + 4, elen - 4, &e->id) == 0;
		} else if (elen > 4 && memcmp(p, "gid:", 4) == 0) {
			e->kind = ALLOW_GID;
			ok = parse_id(p + 4, elen - 4, &e->id) == 0;
		} else {
			ok = parse_net(p, elen, e) == 0;
		}
		if (!ok) {
			snprintf(why, whylen, "'%.*s' is not uid:N, gid:N, an IPv4 or IPv6 "
				 "address, or a CIDR range", (int)(elen > 64 ? 64 : elen), p);
			free(a);
			return -1;
		}
		a->n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = a;
	return 0;
}

void allow_free(struct allow *a)
{
	free(a);
}

/* the connection's identity, from the kernel by way of nbdkit; 0 or -1 */
int peer_get(struct peer *p)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(p, 0, sizeof(*p));
	memset(&ss, 0, sizeof(ss));
	p->uid = p->gid = -1;
	if (nbdkit_peer_name((struct sockaddr *)&ss, &sl) < 0)
		return -1;
	p->family = ss.ss_family;
	if (ss.ss_family == AF_UNIX) {
		p->uid = nbdkit_peer_uid();
		p->gid = nbdkit_peer_gid();
	} else if (ss.ss_family == AF_INET) {
		memcpy(p->addr, &((struct sockaddr_in *)&ss)->sin_addr, 4);
	} else if (ss.ss_family == AF_INET6) {
		const struct in6_addr *a6 = &((struct sockaddr_in6 *)&ss)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a6)) {
			p->family = AF_INET;
			memcpy(p->addr, a6->s6_addr + 12, 4);
		} else {
			memcpy(p->addr, a6->s6_addr, 16);
		}
	}
	return 0;
}

/* "uid 1000 gid 1000", "192.0.2.7": for messages */
void peer_str(const struct peer *p, char *s, size_t len)
{
	if (p->family == AF_UNIX)
		snprintf(s, len, "uid %" PRId64 " gid %" PRId64, p->uid, p->gid);
	else if ((p->family == AF_INET && inet_ntop(AF_INET, p->addr, s, (socklen_t)len)) ||
		 (p->family == AF_INET6 && inet_ntop(AF_INET6, p->addr, s, (socklen_t)len)))
		return;
	else
		snprintf(s, len, "a client of address family %d", p->family);
}

static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));

	return (a[whole] & mask) == (b[whole] & mask);
}

bool allow_match(const struct allow *a, const struct peer *p)
{
	for (uint32_t i = 0; i < a->n; i++) {
		const struct allow_ent *e = &a->ent[i];

		switch (e->kind) {
		case ALLOW_UID:
			if (p->family == AF_UNIX && p->uid == (int64_t)e->id)
				return true;
			break;
		case ALLOW_GID:
			if (p->family == AF_UNIX && p->gid == (int64_t)e->id)
				return true;
			break;
		case ALLOW_NET4:
			if (p->family == AF_INET && prefix_match(p->addr, e->addr, e->prefix))
				return true;
			break;
		case ALLOW_NET6:
			if (p->family == AF_INET6 && prefix_match(p->addr, e->addr, e->prefix))
				return true;
			break;
		}
	}
	return false;
}
