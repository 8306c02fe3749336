/* SPDX-License-Identifier: MIT */
/*
 * global=NAME read beside the library's parser (no Redis needed: nothing
 * connects until the thread starts).  Every mistake is an error naming the
 * file, the line, the key and the value, and changes nothing; the library's
 * own errors still name the line the user wrote; a global group's limits
 * never reach the controller (it holds the local limit of the lease, 1
 * until the first answer); a reload that drops global= hands the group
 * back to the file (what it does not name, unlimited); lines in cgroup v2
 * syntax carry global= too; a replacing load gives every other setting
 * as the file says, and a global group it no longer names, passed to the
 * caller's callback and removed there, stays removed; buckets may change
 * hands (move, swap) in one load.
 */
#include "base.h"

#include <ioqos_cluster.h>

static struct ioqos *q;
static struct ioqos_cluster *cl;

static int load(const char *conf, char *err, size_t errlen)
{
	err[0] = 0;
	return ioqos_cluster_load_buf(cl, "t.qos", conf, strlen(conf), 0, err, errlen);
}

static void refused(const char *conf, const char *want)
{
	char err[512], before[512] = "", after[512] = "";
	int id = ioqos_group_find(q, "/keep");

	ioqos_describe(q, (uint32_t)id, before, sizeof(before));
	CHECK(load(conf, err, sizeof(err)) < 0 && strstr(err, want),
	      "refused: '%s' says '%s' (got '%s')", want, want, err);
	ioqos_describe(q, (uint32_t)id, after, sizeof(after));
	CHECK(!strcmp(before, after), "and /keep is unchanged");
}

/* a replacing load's callback: counts, and removes the group when asked */
static unsigned unnamed_n;
static char unnamed_last[64];
static bool unnamed_remove;

static void unnamed(void *arg, struct ioqos *qq, uint32_t id, const char *path)
{
	struct ioqos_req *queued;

	(void)arg;
	unnamed_n++;
	snprintf(unnamed_last, sizeof(unnamed_last), "%s", path);
	if (unnamed_remove)
		CHECK(ioqos_group_remove(qq, id, 0, &queued) == 0 && !queued,
		      "the callback removes %s", unnamed_last);   /* path goes with it */
}

static int load_replace(const char *conf, char *err, size_t errlen)
{
	err[0] = 0;
	unnamed_n = 0;
	unnamed_last[0] = 0;
	return ioqos_cluster_load_buf_replace(cl, "t.qos", conf, strlen(conf), 0, unnamed,
					      NULL, err, errlen);
}

static uint32_t weight(const char *path)
{
	struct ioqos_limits L;
	int id = ioqos_group_find(q, path);

	if (id < 0 || ioqos_limits_get(q, (uint32_t)id, &L) < 0)
		return 0;
	return L.weight;
}

static uint64_t rbps(const char *path)
{
	struct ioqos_limits L;
	int id = ioqos_group_find(q, path);

	if (id < 0 || ioqos_limits_get(q, (uint32_t)id, &L) < 0)
		return 0;
	return L.bps[IOQOS_READ];
}

int main(void)
{
	char err[512];
	struct ioqos_cluster_status st;
	uint64_t loc[IOQOS_CL_DIMS];

	q = ioqos_new();
	cl = ioqos_cluster_new(q, "unix:/nonexistent/redis.sock", NULL, err, sizeof(err));
	if (!CHECK(cl != NULL, "a cluster object (%s)", cl ? "" : err))
		return th_exit();
	CHECK(load("/keep rbps=5M\n", err, sizeof(err)) == 0, "a plain file loads (%s)", err);

	/* addresses */
	static const char *const bad_addr[] = { "", "unix:", "host", ":6379", "h:0", "h:65536",
						"h:-1", "h:+1", "h:12x" };
	for (size_t i = 0; i < sizeof(bad_addr) / sizeof(bad_addr[0]); i++) {
		struct ioqos_cluster *c2 = ioqos_cluster_new(q, bad_addr[i], NULL, err,
							     sizeof(err));

		CHECK(!c2 && strstr(err, "expected unix:PATH or HOST:PORT"),
		      "address '%s' refused (%s)", bad_addr[i], err);
		ioqos_cluster_free(c2);
	}
	{
		struct ioqos_cluster *c2 = ioqos_cluster_new(q, "127.0.0.1:6379", NULL, err,
							     sizeof(err));
		CHECK(c2 != NULL, "HOST:PORT accepted");
		ioqos_cluster_free(c2);
	}

	refused("/a rbps=1M global=\n", "t.qos:1: key 'global': bad value ''");
	refused("\n\n/a rbps=1M global=x/y\n", "t.qos:3: key 'global': bad value 'x/y'");
	refused("/a rbps=1M global=\xff\n", "bad value '\\xff'");
	refused("/a rbps=1M global=a\n/a global=b\n", "t.qos:2: key 'global': bad value 'b' "
		"(line 1 gives /a global=a)");
	refused("/a global=a\n", "t.qos:1: key 'global': bad value 'a' (the group has no rbps");
	refused("/a rbps=1M rbps_low=1k global=a\n", "cannot have low limits");
	refused("/a rbps=1M global=a\n/b wbps=1M global=a\n",
		"t.qos:2: key 'global': bad value 'a' (line 1 gives it to /a already)");
	/* the library's own errors, on the line the user wrote */
	refused("/a rbps=1M global=a\n/b rbps=12x\n", "t.qos:2: key 'rbps': bad value '12x'");
	refused("/a rbps=1M global=a weight=0\n", "t.qos:1: key 'weight'");
	refused("/a rbps=1M global=a\nglobal=b\n", "t.qos:2");

	CHECK(load("# tenant\n/t rbps=30M wiops=2k global=tenant  # all servers\n"
		   "/keep rbps=5M\n", err, sizeof(err)) == 0, "a global group loads (%s)", err);
	CHECK_EQ("/t's local rbps before any answer", 1, rbps("/t"));
	CHECK_EQ("/keep's rbps, the file's", 5 * MIB, rbps("/keep"));
	CHECK(ioqos_cluster_local(cl, "/t", loc) == 0 && loc[IOQOS_CL_RBPS] == 1 &&
	      loc[IOQOS_CL_WIOPS] == 1 && loc[IOQOS_CL_WBPS] == IOQOS_UNLIMITED,
	      "local limits: rbps and wiops held at 1, wbps unlimited");
	ioqos_cluster_status(cl, &st);
	CHECK(st.groups == 1 && st.state == IOQOS_CL_JOINING, "one global group, joining");

	/* the same file again: the global limit never reaches the controller */
	CHECK(load("/t rbps=30M wiops=2k global=tenant\n", err, sizeof(err)) == 0, "reload");
	CHECK_EQ("/t's local rbps after a reload", 1, rbps("/t"));

	/* global= dropped: the file's limit is the group's own again */
	CHECK(load("/t rbps=7M\n", err, sizeof(err)) == 0, "global= dropped (%s)", err);
	CHECK_EQ("/t's rbps, the file's", 7 * MIB, rbps("/t"));
	{
		struct ioqos_limits L;

		ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/t"), &L);
		CHECK_EQ("/t's wiops, not in the file: unlimited", IOQOS_UNLIMITED,
			 L.iops[IOQOS_WRITE]);
	}
	ioqos_cluster_status(cl, &st);
	CHECK_EQ("global groups", 0, st.groups);
	CHECK(ioqos_cluster_local(cl, "/t", loc) == -ENOENT, "/t is no longer managed");

	/* lines pasted from cgroup v2 io.max and io.weight: the io.max line
	 * left with its device alone is blanked whole, the weight stays */
	CHECK(load("/ device=8:16\n/c 8:16 rbps=2M wbps=max riops=max wiops=max global=c\n"
		   "/c 8:0 rbps=9M\n/c 8:16 300\n/keep rbps=5M\n", err, sizeof(err)) == 0,
	      "an io.max line with global= loads (%s)", err);
	CHECK_EQ("/c's local rbps before any answer", 1, rbps("/c"));
	{
		struct ioqos_limits L;

		ioqos_limits_get(q, (uint32_t)ioqos_group_find(q, "/c"), &L);
		CHECK_EQ("/c's weight, from its io.weight line", 300, L.weight);
	}
	CHECK(ioqos_cluster_local(cl, "/c", loc) == 0 && loc[IOQOS_CL_RBPS] == 1 &&
	      loc[IOQOS_CL_WBPS] == IOQOS_UNLIMITED,
	      "local limits: rbps held at 1 (the line for 8:16), wbps unlimited");
	/* a device with only global= after it: the library's error, on its line */
	refused("/ device=8:16\n/c 8:16 global=c\n", "t.qos:2: key 'device': bad value '8:16'");
	/* global= dropped, an rbps left only for another device: none here */
	CHECK(load("/ device=8:16\n/d rbps=2M global=d\n/d 8:0 rbps=9M\n/keep rbps=5M\n",
		   err, sizeof(err)) == 0 && rbps("/d") == 1, "/d global (%s)", err);
	CHECK(load("/ device=8:16\n/d 8:0 rbps=9M\n/keep rbps=5M\n", err, sizeof(err)) == 0,
	      "global= dropped (%s)", err);
	CHECK_EQ("/d's rbps: the file gives none for this device", IOQOS_UNLIMITED, rbps("/d"));

	/* register directly */
	{
		uint64_t lim[IOQOS_CL_DIMS] = { 10 * MIB, IOQOS_UNLIMITED, IOQOS_UNLIMITED,
						IOQOS_UNLIMITED };

		CHECK(ioqos_cluster_register(cl, "/r", "rb", lim, 0, err, sizeof(err)) == 0,
		      "register /r (%s)", err);
		CHECK(ioqos_cluster_register(cl, "/s", "rb", lim, 0, err, sizeof(err)) == -EEXIST,
		      "a second group on the same bucket is refused (%s)", err);
		CHECK(ioqos_cluster_register(cl, "/s", "r b", lim, 0, err, sizeof(err)) == -EINVAL,
		      "a bad name is refused (%s)", err);
		CHECK_EQ("/r's local rbps", 1, rbps("/r"));
	}

	/* buckets that change hands in one load */
	CHECK(load("/a rbps=1M global=x\n/b rbps=1M global=y\n", err, sizeof(err)) == 0,
	      "/a on x, /b on y (%s)", err);
	CHECK(load("/a rbps=1M global=y\n/b rbps=1M global=x\n", err, sizeof(err)) == 0,
	      "/a and /b swap their buckets (%s)", err);
	CHECK(load("/c rbps=1M global=y\n/b rbps=1M global=x\n", err, sizeof(err)) == 0,
	      "y moves from /a to /c (%s)", err);
	ioqos_cluster_status(cl, &st);
	CHECK_EQ("global groups: /b and /c", 2, st.groups);
	CHECK(ioqos_cluster_local(cl, "/a", loc) == -ENOENT && rbps("/a") == IOQOS_UNLIMITED,
	      "/a handed back");
	CHECK_EQ("/c's local rbps", 1, rbps("/c"));
	ioqos_cluster_free(cl);
	ioqos_free(q);

	/* replacing loads (the nbdkit filter's): the file is the whole truth,
	 * and a global group's limits are the leases' still */
	q = ioqos_new();
	cl = ioqos_cluster_new(q, "unix:/nonexistent/redis.sock", NULL, err, sizeof(err));
	CHECK(load_replace("/t rbps=30M global=tenant weight=200\n/keep rbps=5M\n", err,
			   sizeof(err)) == 0, "a replacing load (%s)", err);
	CHECK_EQ("/t's local rbps", 1, rbps("/t"));
	CHECK_EQ("/t's weight", 200, weight("/t"));
	CHECK(load_replace("/t rbps=30M global=tenant\n", err, sizeof(err)) == 0,
	      "again, without weight= and /keep (%s)", err);
	CHECK_EQ("/t's local rbps after it", 1, rbps("/t"));
	CHECK_EQ("/t's weight, back to the default", 100, weight("/t"));
	CHECK(unnamed_n == 1 && !strcmp(unnamed_last, "/keep"), "/keep passed to the callback");
	CHECK_EQ("/keep's rbps, back to the default", IOQOS_UNLIMITED, rbps("/keep"));
	CHECK(load_replace("/t rbps=30M global=a/b\n", err, sizeof(err)) < 0 &&
	      strstr(err, "t.qos:1: key 'global': bad value 'a/b'") && unnamed_n == 0 &&
	      rbps("/t") == 1, "a failing replacing load changes nothing (%s)", err);
	unnamed_remove = true;
	CHECK(load_replace("/keep rbps=5M\n", err, sizeof(err)) == 0,
	      "/t no longer named (%s)", err);
	CHECK(unnamed_n == 1 && !strcmp(unnamed_last, "/t"), "/t passed to the callback");
	CHECK(ioqos_group_find(q, "/t") < 0, "/t stays removed: the module made it not again");
	ioqos_cluster_status(cl, &st);
	CHECK_EQ("global groups", 0, st.groups);
	CHECK(ioqos_cluster_local(cl, "/t", loc) == -ENOENT, "/t is no longer managed");
	ioqos_cluster_free(cl);
	ioqos_free(q);
	return th_exit();
}
