/* SPDX-License-Identifier: MIT */
/*
 * A replacing config with global= put in force in steps
 * (ioqos_cluster_conf_parse, _reserve, _apply), with what a tick does
 * between the steps stood in for by ioqos_set() (no Redis needed: nothing
 * connects until the thread starts).
 *
 * In force: /g and /h global (rbps 1, the joining limit), /x weight 5.
 * The new config keeps /g global, makes /h local at 10M, gives /x weight
 * 6, and makes /n global.  Parsed, it changes nothing.  Reserved: /h is
 * no longer global (the module leaves it to the steps), /g is.  A "tick"
 * sets /g's rbps to 777 between the steps: /g's step keeps it, and /h
 * gets the file's 10M, /x weight 6, /n the joining 1, registered once
 * the last step is done.  A config with a mistake is refused by the parse,
 * with its line, and nothing changes.
 */
#include "base.h"

#include <ioqos_cluster.h>

static uint64_t rbps(struct ioqos *q, const char *path)
{
	struct ioqos_limits l;

	ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, path), &l);
	return l.bps[IOQOS_READ];
}

int main(void)
{
	static const char first[] = "/g rbps=30M global=g\n/h rbps=10M global=h\n/x weight=5\n";
	static const char second[] = "/g rbps=30M global=g\n/h rbps=10M\n/x weight=6\n"
				     "/n wbps=1M global=n\n";
	struct ioqos *q = ioqos_new();
	struct ioqos_cluster_conf *cc = NULL;
	struct ioqos_cluster *cl;
	uint64_t loc[IOQOS_CL_DIMS];
	struct ioqos_limits l;
	char err[512] = "";
	int ret, calls = 0;

	cl = ioqos_cluster_new(q, "unix:/nonexistent/redis.sock", NULL, err, sizeof(err));
	if (!CHECK(cl != NULL, "a cluster object (%s)", cl ? "" : err))
		return th_exit();
	CHECK(ioqos_cluster_load_buf(cl, "t.qos", first, sizeof(first) - 1, 0, err,
				     sizeof(err)) == 0, "the first config (%s)", err);
	CHECK_EQ("/g joins at 1", 1, rbps(q, "/g"));

	/* a mistake: refused at its line, nothing changed */
	ret = ioqos_cluster_conf_parse(cl, "t.qos", "/g rbps=30M global=g\n/x weight=0\n", 33,
				       &cc, err, sizeof(err));
	CHECK(ret < 0 && cc == NULL && strstr(err, "t.qos:2: key 'weight'"),
	      "a bad config is refused at its line (%s)", err);

	CHECK_EQ_INT("parsed", 0, ioqos_cluster_conf_parse(cl, "t.qos", second, sizeof(second) - 1,
							   &cc, err, sizeof(err)));
	CHECK_EQ_INT("the parse changes nothing: /x", 0,
		     ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/x"), &l));
	CHECK_EQ("/x's weight still 5", 5, l.weight);
	CHECK_EQ_INT("/h still global", 0, ioqos_cluster_local(cl, "/h", loc));
	while ((ret = ioqos_cluster_conf_reserve(cl, cc, 1, err, sizeof(err))) == 1)
		calls++;
	CHECK_EQ_INT("reserved", 0, ret);
	CHECK(calls >= 2, "in steps of a group (%d)", calls);
	CHECK_EQ_INT("/h is let go at once", -ENOENT, ioqos_cluster_local(cl, "/h", loc));
	CHECK_EQ_INT("/g is not", 0, ioqos_cluster_local(cl, "/g", loc));
	CHECK_EQ_INT("/n is not global yet", -ENOENT, ioqos_cluster_local(cl, "/n", loc));

	/* a tick between the steps moves /g's local limit */
	CHECK(ioqos_set(q, "/g", "rbps=777", 0, err, sizeof(err)) == 0, "a tick (%s)", err);
	calls = 0;
	while ((ret = ioqos_cluster_conf_apply(cl, cc, 0, 1, NULL, NULL, err, sizeof(err))) == 1)
		calls++;
	CHECK_EQ_INT("applied", 0, ret);
	CHECK(calls >= 4, "in steps of a group (%d)", calls);
	CHECK_EQ("/g keeps what the tick set", 777, rbps(q, "/g"));
	CHECK_EQ("/h has the file's limit", 10 * MIB, rbps(q, "/h"));
	ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/x"), &l);
	CHECK_EQ("/x's weight 6", 6, l.weight);
	ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/n"), &l);
	CHECK_EQ("/n joins at 1", 1, l.bps[IOQOS_WRITE]);
	CHECK_EQ_INT("/n registered at the end", 0, ioqos_cluster_local(cl, "/n", loc));
	ioqos_cluster_conf_free(cc);

	/* in one call, the same */
	CHECK(ioqos_cluster_load_buf_replace(cl, "t.qos", second, sizeof(second) - 1, 0, NULL,
					     NULL, err, sizeof(err)) == 0, "again whole (%s)", err);
	CHECK_EQ("/g still keeps it", 777, rbps(q, "/g"));
	ioqos_cluster_free(cl);
	ioqos_free(q);
	return th_exit();
}
