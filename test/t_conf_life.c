/* SPDX-License-Identifier: MIT */
/*
 * The life of a config applied in steps: what it keeps, what may happen
 * between its steps, and running out of memory.
 *
 * 1. Keeping a value in force (ioqos_conf_keep): /a rbps=1M wbps=2M in
 *    force, "/a rbps=5 weight=7" and "/b rbps=9" applied keeping rbps:
 *    /a keeps 1M (and 3M when ioqos_set() moved it between the steps),
 *    loses wbps, takes weight 7; /b, with none in force, takes 9.
 *    Refused: a path without a line (-ENOENT), a key the line does not
 *    give or no key at all (-EINVAL), a max with its low on the line or a
 *    low with its max (-EINVAL), any keep while the config is applied
 *    (-EBUSY).
 * 2. Between steps: a group the config names cannot be removed until its
 *    settings are in (-EBUSY), and can be after; a second config, or a
 *    replacing load, on the same controller is refused (-EBUSY), as is
 *    the same config on another controller; the first goes on unharmed.
 *    A config freed halfway lets its groups go; one whose controller was
 *    freed halfway can be freed, and applied again elsewhere; a config
 *    applied twice gives the same settings; an empty one gives every
 *    group the defaults and reports all but "/".
 * 3. Out of memory (the library's malloc, calloc and realloc fail after
 *    N calls, N = 0, 1, 2 ... until none fails, linked with --wrap): the
 *    parse returns -ENOMEM and no config; the reservation returns -ENOMEM
 *    with a message naming the config, no setting of a group there before
 *    changes, and nothing is left marked: every group is removable, and
 *    the same config then applies as a replacing load on a twin does.
 */
#include "conf_gen.h"

/* ---- allocations that fail on demand (the test is linked with --wrap) ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

static long allocs_left = -1;   /* -1: none fails; else how many succeed first */

static bool alloc_fails(void)
{
	if (allocs_left < 0)
		return false;
	if (allocs_left == 0)
		return true;
	allocs_left--;
	return false;
}

void *__wrap_malloc(size_t n)
{
	return alloc_fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __real_realloc(p, n);
}

/* ---- helpers ------------------------------------------------------------- */

static struct ioqos_conf *parse_ok(const char *text)
{
	struct ioqos_conf *c = NULL;
	char err[256] = "";

	if (ioqos_conf_parse("k.conf", text, strlen(text), &c, err, sizeof(err)) < 0)
		CHECK_FATAL("parse: %s", err);
	return c;
}

static int apply_all(struct ioqos *q, struct ioqos_conf *c, uint64_t now)
{
	char err[256];

	return ioqos_conf_apply(q, c, now, 0, NULL, NULL, err, sizeof(err));
}

#define LIM "wbps=max riops=max wiops=max rbps_low=0 wbps_low=0 riops_low=0 wiops_low=0"

static void keep(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_conf *c = parse_ok("/a rbps=5 weight=7\n/b rbps=9\n");
	char err[256] = "";

	set_ok(q, "/a", "rbps=1M wbps=2M", 0);
	CHECK_EQ_INT("1. keep /a rbps", 0, ioqos_conf_keep(c, "/a", "rbps", err, sizeof(err)));
	CHECK_EQ_INT("1. keep /b rbps", 0, ioqos_conf_keep(c, "/b", " rbps ", err, sizeof(err)));
	CHECK_EQ_INT("1. applied", 0, apply_all(q, c, T_S(1)));
	describe_is(q, "/a", "rbps=1048576 " LIM " weight=7");
	describe_is(q, "/b", "rbps=9 " LIM " weight=100");

	/* moved between the steps: the value at its step is kept */
	CHECK_EQ_INT("1. reserved", 0, ioqos_conf_reserve(q, c, 0, err, sizeof(err)));
	set_ok(q, "/a", "rbps=3M", T_S(2));
	CHECK_EQ_INT("1. keep refused while applied", -EBUSY,
		     ioqos_conf_keep(c, "/a", "weight", err, sizeof(err)));
	CHECK_EQ_INT("1. applied again", 0, apply_all(q, c, T_S(2)));
	describe_is(q, "/a", "rbps=3145728 " LIM " weight=7");
	ioqos_conf_free(c);

	c = parse_ok("/a rbps=5\n/l rbps=2M rbps_low=1M\n/m rbps=max rbps_low=1M\n");
	CHECK_EQ_INT("1. no line for /zz", -ENOENT, ioqos_conf_keep(c, "/zz", "rbps", err, sizeof(err)));
	CHECK_EQ_INT("1. wbps not given", -EINVAL, ioqos_conf_keep(c, "/a", "wbps", err, sizeof(err)));
	CHECK(strstr(err, "k.conf:1: group '/a': cannot keep 'wbps'") == err, "1. says why: %s", err);
	CHECK_EQ_INT("1. no such key", -EINVAL, ioqos_conf_keep(c, "/a", "rbps nokey", err, sizeof(err)));
	CHECK_EQ_INT("1. a max beside its low", -EINVAL, ioqos_conf_keep(c, "/l", "rbps", err, sizeof(err)));
	CHECK(strstr(err, "cannot keep 'rbps' beside 'rbps_low'") != NULL, "1. says why: %s", err);
	CHECK_EQ_INT("1. a low beside its max", -EINVAL,
		     ioqos_conf_keep(c, "/l", "rbps_low", err, sizeof(err)));
	CHECK_EQ_INT("1. a low beside max=max", 0, ioqos_conf_keep(c, "/m", "rbps_low", err, sizeof(err)));
	ioqos_conf_free(c);
	ioqos_free(q);
}

static void between(void)
{
	struct ioqos *q = ioqos_new(), *q2 = ioqos_new();
	struct ioqos_conf *c = parse_ok("/a weight=5\n/b weight=6\n/c/d weight=7\n"), *c2;
	uint32_t a = grp(q, "/a"), b = grp(q, "/b"), x = grp(q, "/x");
	char err[256] = "", *s1, *s2;

	CHECK_EQ_INT("2. reserve, a group a call", 1, ioqos_conf_reserve(q, c, 1, err, sizeof(err)));
	CHECK_EQ_INT("2. /a cannot go", -EBUSY, ioqos_group_remove(q, a, 0, NULL));
	CHECK_EQ_INT("2. /b not yet reserved: can go", 0, ioqos_group_remove(q, b, 0, NULL));
	CHECK_EQ_INT("2. the rest reserved", 0, ioqos_conf_reserve(q, c, 0, err, sizeof(err)));
	b = grp(q, "/b");
	CHECK_EQ_INT("2. /b cannot go", -EBUSY, ioqos_group_remove(q, b, 0, NULL));
	CHECK_EQ_INT("2. /x can", 0, ioqos_group_remove(q, x, 0, NULL));
	CHECK_EQ_INT("2. /a's settings in", 1, ioqos_conf_apply(q, c, 0, 1, NULL, NULL, err, sizeof(err)));
	CHECK_EQ_INT("2. /a can go now", 0, ioqos_group_remove(q, a, 0, NULL));
	CHECK_EQ_INT("2. /b still not", -EBUSY, ioqos_group_remove(q, b, 0, NULL));

	c2 = parse_ok("/a\n");
	CHECK_EQ_INT("2. a second config", -EBUSY, apply_all(q, c2, 0));
	CHECK_EQ_INT("2. a replacing load", -EBUSY,
		     ioqos_load_buf_replace(q, "r.conf", "/\n", 2, 0, NULL, NULL, err, sizeof(err)));
	CHECK(strcmp(err, "r.conf: another config is being applied to this controller") == 0,
	      "2. says why: %s", err);
	CHECK_EQ_INT("2. the config elsewhere", -EBUSY, apply_all(q2, c, 0));
	CHECK_EQ_INT("2. the first goes on", 0, apply_all(q, c, 0));
	CHECK_EQ_INT("2. /b can go", 0, ioqos_group_remove(q, b, 0, NULL));
	CHECK_EQ_INT("2. the second now", 0, apply_all(q, c2, 0));

	/* freed halfway: its groups can go, and the controller takes another */
	CHECK_EQ_INT("2. reserved", 0, ioqos_conf_reserve(q, c, 0, err, sizeof(err)));
	ioqos_conf_free(c);
	CHECK_EQ_INT("2. /c/d can go", 0,
		     ioqos_group_remove(q, (uint32_t)ioqos_group_find(q, "/c/d"), 0, NULL));
	CHECK_EQ_INT("2. another config applies", 0, apply_all(q, c2, 0));

	/* its controller freed halfway: freed, or applied elsewhere */
	c = parse_ok("/a weight=5\n/b weight=6\n");
	CHECK_EQ_INT("2. halfway", 1, ioqos_conf_apply(q, c, 0, 1, NULL, NULL, err, sizeof(err)));
	ioqos_free(q);
	CHECK_EQ_INT("2. applied elsewhere", 0, apply_all(q2, c, 0));
	s1 = cg_settings(q2);
	CHECK_EQ_INT("2. and again", 0, apply_all(q2, c, T_S(1)));
	s2 = cg_settings(q2);
	CHECK(strcmp(s1, s2) == 0, "2. twice, the same: %s", s2);
	free(s1);
	free(s2);
	ioqos_conf_free(c);

	/* an empty config: all at the defaults */
	c = parse_ok("");
	set_ok(q2, "/", "depth=4", 0);
	CHECK_EQ_INT("2. empty", 0, apply_all(q2, c, 0));
	describe_is(q2, "/a", "rbps=max " LIM " weight=100");
	CHECK(ioqos_describe(q2, 0, err, sizeof(err)) > 0 && strstr(err, "depth=max"),
	      "2. / at the defaults: %s", err);
	ioqos_conf_free(c);
	ioqos_conf_free(c2);
	ioqos_free(q2);
}

/* paths of @s (cg_settings) each with the settings it has in @t too */
static bool kept_in(const char *s, const char *t)
{
	for (const char *l = s; *l; l = strchr(l, '\n') + 1) {
		size_t n = strcspn(l, "\n");
		const char *at = strstr(t, l);

		if (!at || (at != t && at[-1] != '\n') || at[n] != '\n')
			return false;
	}
	return true;
}

static void nomem(void)
{
	static const char b[] =
		"/ depth=4\n/a weight=7 rbps_low=1M\n/new/a/very/long/path/indeed riops=9\n"
		"/n2 rbps=1M\n/n2/x wiops_low=3\n/a/b iops_size=4k\n";
	struct ioqos_conf *c = NULL;
	char err[256];
	long n;
	int rc;

	/* the parse: nothing, and nothing leaks (the leak checker at exit) */
	for (n = 0;; n++) {
		allocs_left = n;
		rc = ioqos_conf_parse("b.conf", b, sizeof(b) - 1, &c, err, sizeof(err));
		allocs_left = -1;
		if (rc == 0)
			break;
		CHECK_EQ_INT("3. the parse", -ENOMEM, rc);
		CHECK(c == NULL, "3. no config");
		CHECK(strncmp(err, "b.conf", 6) == 0, "3. names the config: %s", err);
	}
	CHECK_GE("3. the parse allocates", (uint64_t)n, 1);
	/* the reservation, on a controller with requests waiting */
	for (n = 0;; n++) {
		struct rng r = rng_seed(7), r2 = r;
		struct cg_hist *h = malloc(sizeof(*h)), *t = malloc(sizeof(*t));
		char a[4096], *before, *after, *want;
		size_t alen = cg_config(&r, a);

		r2 = r;
		cg_history(h, &r, a, alen);
		cg_history(t, &r2, a, alen);
		before = cg_settings(h->q);
		allocs_left = n;
		rc = ioqos_conf_reserve(h->q, c, 0, err, sizeof(err));
		allocs_left = -1;
		after = cg_settings(h->q);
		if (rc < 0) {
			CHECK_EQ_INT("3. the reservation", -ENOMEM, rc);
			CHECK(strncmp(err, "b.conf", 6) == 0, "3. names the config: %s", err);
			CHECK(kept_in(before, after), "3. no setting changed (%ld allocations)", n);
			for (uint32_t id = ioqos_group_count(h->q); id-- > 1;)
				if (ioqos_group_path(h->q, id))
					CHECK(ioqos_group_remove(h->q, id, 0, NULL) != -EBUSY,
					      "3. group %u removable", id);
		} else {
			CHECK_EQ_INT("3. apply", 0, apply_all(h->q, c, h->now));
			CHECK_EQ_INT("3. on the twin", 0,
				     ioqos_load_buf_replace(t->q, "b.conf", b, sizeof(b) - 1,
							    t->now, NULL, NULL, err, sizeof(err)));
			want = cg_settings(t->q);
			free(after);
			after = cg_settings(h->q);
			CHECK(strcmp(want, after) == 0, "3. as a replacing load");
			free(want);
		}
		free(before);
		free(after);
		ioqos_free(h->q);
		ioqos_free(t->q);
		free(h);
		free(t);
		if (rc == 0)
			break;
	}
	CHECK_GE("3. the reservation allocates", (uint64_t)n, 4);
	ioqos_conf_free(c);
}

int main(void)
{
	keep();
	between();
	nomem();
	return th_exit();
}
