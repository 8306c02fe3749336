/* SPDX-License-Identifier: MIT */
/*
 * A config of global groups put in force: read, compared and parsed
 * first, with no lock held, then put in force in short steps under the
 * front end's lock, the module's part of it in a time that grows with the
 * groups that come, go and change, not with those it keeps.
 *
 * The problem.  A reload loaded the whole file under the front end's lock
 * (every request of the nbdkit filter waits on it) and, for every global
 * group, walked every other to find it, register it and set its local
 * limits: at 10,000 groups a reload that only appended a comment held
 * the lock for 10 s, and the renewals, waiting on cl->lock, ran out.
 *
 * The algorithm.  ioqos_cluster_conf_parse(), with no lock: A and the
 * specs of the file (conf.c), checked whole on a scratch controller, then
 * compared with the config in force (cl->conf, by path in both maps):
 *
 *	a group global in both, same bucket, same limits   nothing
 *	global in both, another bucket or other limits      modified
 *	global in the new one only                          add (its record
 *	                                                    made here)
 *	global in the old one only, or registered alone     gone (with the
 *	                                                    limits the file
 *	                                                    gives it)
 *
 * and C, the library's replacing config (conf.c), parsed by the library
 * (ioqos_conf_parse()), each group global in both keeping its limits in
 * force (ioqos_conf_keep()).  Then, under the front end's lock, the
 * library's steps (ioqos_conf_reserve(), ioqos_conf_apply(), src/
 * confapply.c) with the module's two moments among them:
 *
 *	begin          stale or not; room for the adds in the table
 *	reserve steps  the library makes the groups and room for them
 *	commit         the gone are taken out, the config in force replaced
 *	               (its generation moved on if some group is modified)
 *	apply steps    the library puts every line in force
 *	end            the adds go in, with their joining limits
 *
 * The gone go before any step changes a setting, so that no tick moves
 * the limits their step gives them; the adds after the last, so that no
 * step puts back the joining limit over a lease a tick set.  Between the
 * two, the ticks move the limits of the groups global in both, whose
 * steps keep what the ticks set.  The modified are not touched: each
 * takes its new spec when the tick's pass reaches it (local.c), a batch a
 * call.  The old config and the records taken out are freed by the next
 * parse, outside every lock.
 *
 * Example: 100,000 global groups, a comment appended: the comparison
 * finds nothing, the commit swaps two pointers, and the library's steps
 * find every line as it is in force.  Every rbps doubled: every group
 * modified, C the same (the limits are kept), the commit moves the
 * generation on, and 98 ticks of 1,024 groups take the new limits.  A
 * tenant added: one record, which goes in after the last step.
 *
 * The whole loads go through the same calls: a replacing one
 * (ioqos_cluster_load_buf_replace()) is the parse and every step in one
 * call; a merging one (ioqos_cluster_load_buf()) merges B into the
 * controller and commits at once.  Both then bring every group to its
 * spec at once, as before.
 *
 * Weaknesses: the groups that come and go cost under the lock (a few
 * microseconds each); a config that adds 100,000 global groups at once
 * holds the lock for them in its last step.  Between the commit and the
 * end of the next pass, some groups renew on their old limits or
 * buckets.  A config read before another was committed (or a group
 * registered) cannot be put in force: parse it again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char *const dim_key[IOQOS_CL_DIMS] = { "rbps", "wbps", "riops", "wiops" };

/* @path stops being global: note it, with what the file gives it (room
 * made) */
static bool gone(struct cl_conf *c, struct ioqos *sq, const char *path)
{
	struct cl_gone *x = &c->gone[c->n_gone];
	struct ioqos_limits L;

	ioqos__cl_limits_of(sq, path, x->file, &L);
	x->path = strdup(path);
	c->n_gone += x->path != NULL;
	return x->path != NULL;
}

/* what @c changes against cl's config in force; false: out of memory.
 * No lock: only a commit or a registration changes what it reads. */
static bool compare(struct ioqos_cluster *cl, struct cl_conf *c, struct ioqos *sq)
{
	const struct cl_conf *old = cl->conf;
	size_t most_gone = (old ? old->n : 0) + cl->n_hand;

	c->base_seq = cl->conf_seq;
	c->add = malloc((c->n ? c->n : 1) * sizeof(*c->add));
	c->gone = malloc((most_gone ? most_gone : 1) * sizeof(*c->gone));
	if (!c->add || !c->gone)
		return false;
	for (size_t i = 0; i < c->n; i++) {
		const struct cl_spec *s = &c->spec[i];
		const struct cl_spec *o = old ? ioqos__cl_map_get((struct cl_map *)&old->by_path,
								 s->path) : NULL;
		const struct cl_group *had = ioqos__cl_peek(cl, s->path);
		struct cl_group *g;

		if (had) {
			/* registered alone, the config takes it; or the config's */
			c->modified |= had->by_hand || !o || strcmp(o->name, s->name) != 0 ||
				       memcmp(o->limit, s->limit, sizeof(o->limit)) != 0;
			continue;
		}
		g = ioqos__cl_group_new(cl, s->path, s->name);
		if (!g)
			return false;
		c->add[c->n_add++] = g;
		ioqos__cl_set_limits(g, s->limit);
	}
	for (size_t i = 0; old && i < old->n; i++)
		if (!ioqos__cl_map_get(&c->by_path, old->spec[i].path) &&
		    !gone(c, sq, old->spec[i].path))
			return false;
	for (uint32_t i = 0; i < cl->n_hand; i++)
		if (!ioqos__cl_map_get(&c->by_path, cl->hand[i]->path) &&
		    !gone(c, sq, cl->hand[i]->path))
			return false;
	return true;
}

/* @buf read, checked and compared with the config in force, no lock:
 * *@out, or -errno with a reason */
static int prepare(struct ioqos_cluster *cl, const char *name, const char *buf, size_t len,
		   struct cl_conf **out, char *err, size_t errlen)
{
	struct cl_conf *c = calloc(1, sizeof(*c));
	struct ioqos *sq = ioqos_new();
	int ret = -ENOMEM;

	*out = NULL;
	/* the configs spent by the last commits: freed here, outside every lock */
	ioqos__cl_conf_free(cl->spent);
	cl->spent = NULL;
	if (!c || !sq || !(c->name = strdup(name ? name : "config"))) {
		snprintf(err, errlen, "%s: out of memory", name ? name : "config");
		goto fail;
	}
	ret = ioqos__cl_conf_read(c, sq, buf, len, err, errlen);
	if (ret < 0)
		goto fail;
	if (!compare(cl, c, sq)) {
		snprintf(err, errlen, "%s: out of memory", c->name);
		ret = -ENOMEM;
		goto fail;
	}
	ioqos_free(sq);
	*out = c;
	return 0;
fail:
	ioqos_free(sq);
	ioqos__cl_conf_free(c);
	return ret;
}

/*
 * C of @cc's config, parsed by the library into cc->c; a group global in
 * force and in this config keeps the limits it holds (those the file
 * gives it: the others are max).  0 or -errno with a reason.
 */
static int parse_c(struct ioqos_cluster *cl, struct ioqos_cluster_conf *cc, char *err,
		   size_t errlen)
{
	struct cl_conf *c = cc->cf;
	size_t len;
	char *text = ioqos__cl_conf_text(NULL, c, &len);
	int ret;

	if (!text) {
		snprintf(err, errlen, "%s: out of memory", c->name);
		return -ENOMEM;
	}
	ret = ioqos_conf_parse(c->name, text, len, &cc->c, err, errlen);
	free(text);
	for (size_t i = 0; ret == 0 && i < c->n; i++) {
		const struct cl_spec *s = &c->spec[i];
		char keys[64];
		size_t n = 0;

		if (!ioqos__cl_peek(cl, s->path))
			continue;              /* joins: takes C's joining limits */
		for (int d = 0; d < IOQOS_CL_DIMS; d++)
			if (s->limit[d] != IOQOS_UNLIMITED)
				n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s ", dim_key[d]);
		if (n)
			ret = ioqos_conf_keep(cc->c, s->path, keys, err, errlen);
	}
	return ret;
}

int ioqos_cluster_conf_parse(struct ioqos_cluster *cl, const char *name, const char *buf,
			     size_t len, struct ioqos_cluster_conf **out,
			     char *err, size_t errlen)
{
	struct ioqos_cluster_conf *cc = calloc(1, sizeof(*cc));
	int ret;

	*out = NULL;
	if (!cc) {
		snprintf(err, errlen, "%s: out of memory", name ? name : "config");
		return -ENOMEM;
	}
	cc->cl = cl;
	cc->stage = CL_PARSED;
	ret = prepare(cl, name, buf, len, &cc->cf, err, errlen);
	if (ret == 0)
		ret = parse_c(cl, cc, err, errlen);
	if (ret < 0) {
		ioqos_cluster_conf_free(cc);
		return ret;
	}
	*out = cc;
	return 0;
}

void ioqos_cluster_conf_free(struct ioqos_cluster_conf *cc)
{
	if (!cc)
		return;
	ioqos_conf_free(cc->c);        /* an apply given up: as the library's */
	if (cc->stage <= CL_RESERVING)
		ioqos__cl_conf_free(cc->cf);   /* not committed: still this config's */
	free(cc);
}

/* is @c still a comparison with the config in force?  0 or -ESTALE */
static int fresh(struct ioqos_cluster *cl, const struct cl_conf *c, char *err, size_t errlen)
{
	if (c->base_seq == cl->conf_seq)
		return 0;
	snprintf(err, errlen, "%s: the config in force changed since this one was read: "
		 "read it again", c->name);
	return -ESTALE;
}

/* room for what a commit of @c puts in, that nothing fails past it;
 * cl->lock held.  0 or -ENOMEM with nothing changed */
static int room(struct ioqos_cluster *cl, struct cl_conf *c, char *err, size_t errlen)
{
	if (ioqos__cl_reserve(cl, cl->ng + (uint32_t)c->n_add) < 0 ||
	    (c->n_gone && !c->dead && !(c->dead = malloc(c->n_gone * sizeof(*c->dead))))) {
		snprintf(err, errlen, "%s: out of memory", c->name);
		return -ENOMEM;
	}
	return 0;
}

/*
 * @g is no longer global, after a merging load: of its limits, those the
 * file gives it (@file, for this device) are in force already, the others
 * become unlimited.  (A replacing config's steps give it its line.)  A
 * group the front end removed meanwhile stays removed.
 */
static void hand_back(struct ioqos_cluster *cl, struct cl_group *g,
		      const uint64_t file[IOQOS_CL_DIMS], uint64_t now)
{
	char set[64];
	size_t n = 0;

	if (ioqos_group_find(cl->q, g->path) < 0)
		return;
	for (int d = 0; d < IOQOS_CL_DIMS; d++)
		if (g->applied[d] != IOQOS_UNLIMITED && file[d] == IOQOS_UNLIMITED)
			n += (size_t)snprintf(set + n, sizeof(set) - n, "%s=max ", dim_key[d]);
	if (n)
		ioqos_set(cl->q, g->path, set, now, NULL, 0);
}

/*
 * @c becomes the config in force, room made (room()): the gone handed
 * back (@hand, after a merging load) and taken out, the groups registered
 * alone that it names made its own, its generation moved on if it
 * modifies some group.  cl->lock held; cannot fail.
 */
static void commit(struct ioqos_cluster *cl, struct cl_conf *c, bool hand, uint64_t now)
{
	for (size_t i = 0; i < c->n_gone; i++) {
		struct cl_group *g = ioqos__cl_find(cl, c->gone[i].path);

		if (!g)
			continue;
		if (hand)
			hand_back(cl, g, c->gone[i].file, now);
		ioqos__cl_take_out(cl, g);
		c->dead[c->n_dead++] = g;
	}
	for (uint32_t i = 0; i < cl->n_hand;)
		if (ioqos__cl_map_get(&c->by_path, cl->hand[i]->path))
			ioqos__cl_by_hand(cl, cl->hand[i], false);   /* the config's now */
		else
			i++;
	if (c->modified) {
		cl->conf_gen++;                /* each group follows in the tick's pass */
		cl->pass_wanted = true;
	}
	cl->conf_seq++;
	if (cl->conf) {                    /* freed by the next parse */
		cl->conf->older = cl->spent;
		cl->spent = cl->conf;
	}
	cl->conf = c;
}

/*
 * The groups that become global with @c, committed, go in: registered,
 * their local limits set.  @joining: the controller holds their joining
 * limits already (C, put in force), set again only what differs.
 * cl->lock held.  A group the controller cannot make, or that was
 * registered meanwhile, stays out (the next config adds the first).
 */
static void join(struct ioqos_cluster *cl, struct cl_conf *c, bool joining, uint64_t now)
{
	for (size_t i = 0; i < c->n_add; i++) {
		struct cl_group *g = c->add[i];
		int id;

		if (!g || ioqos__cl_find(cl, g->path))
			continue;
		id = ioqos_group(cl->q, g->path);
		if (id < 0)
			continue;
		ioqos__cl_insert(cl, g);   /* room made */
		c->add[i] = NULL;
		g->gid = (uint32_t)id;
		g->gen = cl->conf_gen;
		for (int d = 0; joining && d < IOQOS_CL_DIMS; d++)
			g->applied[d] = g->limit[d] == IOQOS_UNLIMITED ? IOQOS_UNLIMITED : 1;
		ioqos__cl_apply(cl, g, now);
	}
	pthread_cond_signal(&cl->cond);    /* renew at once: a new bucket has no lease */
}

int ioqos_cluster_conf_reserve(struct ioqos_cluster *cl, struct ioqos_cluster_conf *cc,
			       uint32_t max_groups, char *err, size_t errlen)
{
	int ret;

	if (!cl || !cc || cc->cl != cl) {
		snprintf(err, errlen, "no cluster object, or a config parsed for another");
		return -EINVAL;
	}
	if (cc->stage == CL_DONE) {
		snprintf(err, errlen, "the config is in force already: read it again");
		return -ESTALE;
	}
	if (cc->stage == CL_APPLYING)
		return 0;
	if (cc->stage == CL_PARSED) {
		ret = fresh(cl, cc->cf, err, errlen);
		if (ret < 0)
			return ret;
		pthread_mutex_lock(&cl->lock);
		ret = room(cl, cc->cf, err, errlen);
		pthread_mutex_unlock(&cl->lock);
		if (ret < 0)
			return ret;
		cc->stage = CL_RESERVING;
	}
	ret = ioqos_conf_reserve(cl->q, cc->c, max_groups, err, errlen);
	if (ret < 0)
		cc->stage = CL_PARSED;         /* the library changed no setting */
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&cl->lock);
	commit(cl, cc->cf, false, 0);
	pthread_mutex_unlock(&cl->lock);
	cc->stage = CL_APPLYING;           /* cc->cf is the module's from here */
	return 0;
}

int ioqos_cluster_conf_apply(struct ioqos_cluster *cl, struct ioqos_cluster_conf *cc,
			     uint64_t now_ns, uint32_t max_groups, ioqos_unnamed_fn *unnamed,
			     void *arg, char *err, size_t errlen)
{
	int ret = ioqos_cluster_conf_reserve(cl, cc, max_groups, err, errlen);

	if (ret != 0)
		return ret;
	ret = ioqos_conf_apply(cl->q, cc->c, now_ns, max_groups, unnamed, arg, err, errlen);
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&cl->lock);
	join(cl, cc->cf, true, now_ns);
	pthread_mutex_unlock(&cl->lock);
	cc->stage = CL_DONE;
	cc->cf = NULL;                     /* the module's, freed when spent */
	return 0;
}

/* every group at its spec at once, after a whole load */
static void follow_all(struct ioqos_cluster *cl, uint64_t now)
{
	pthread_mutex_lock(&cl->lock);
	for (uint32_t i = 0; i < cl->ng; i++) {
		CL_VISIT(cl);
		ioqos__cl_follow(cl, cl->g[i], now);
	}
	pthread_mutex_unlock(&cl->lock);
}

int ioqos_cluster_load_buf(struct ioqos_cluster *cl, const char *name,
			   const char *buf, size_t len, uint64_t now_ns,
			   char *err, size_t errlen)
{
	struct cl_conf *c;
	char *b = NULL;
	size_t blen = 0;
	int ret = prepare(cl, name, buf, len, &c, err, errlen);

	if (ret < 0)
		return ret;
	pthread_mutex_lock(&cl->lock);
	ret = room(cl, c, err, errlen);
	pthread_mutex_unlock(&cl->lock);
	if (ret == 0 && !(b = ioqos__cl_conf_text(cl, c, &blen))) {
		snprintf(err, errlen, "%s: out of memory", c->name);
		ret = -ENOMEM;
	}
	if (ret == 0)
		ret = ioqos_load_buf(cl->q, c->name, b, blen, now_ns, err, errlen);
	free(b);
	if (ret < 0) {
		ioqos__cl_conf_free(c);
		return ret;
	}
	pthread_mutex_lock(&cl->lock);
	commit(cl, c, true, now_ns);
	join(cl, c, false, now_ns);
	pthread_mutex_unlock(&cl->lock);
	follow_all(cl, now_ns);
	return 0;
}

int ioqos_cluster_load_buf_replace(struct ioqos_cluster *cl, const char *name,
				   const char *buf, size_t len, uint64_t now_ns,
				   ioqos_unnamed_fn *unnamed, void *arg,
				   char *err, size_t errlen)
{
	struct ioqos_cluster_conf *cc;
	int ret = ioqos_cluster_conf_parse(cl, name, buf, len, &cc, err, errlen);

	if (ret < 0)
		return ret;
	ret = ioqos_cluster_conf_apply(cl, cc, now_ns, 0, unnamed, arg, err, errlen);
	ioqos_cluster_conf_free(cc);
	if (ret == 0)
		follow_all(cl, now_ns);
	return ret;
}

/*
 * @file for reading, as ioqos_load() reads a config: a regular file only.
 * O_NONBLOCK, for the open of a FIFO waits for a writer (for ever, where
 * none comes); fstat() then refuses it, and /dev/zero, whose reads would
 * run to the cap, and a directory.  The fd, or -errno.
 */
static int conf_open(const char *file, char *err, size_t errlen)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", file, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", file);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int ioqos_cluster_load(struct ioqos_cluster *cl, const char *file, uint64_t now_ns,
		       char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int ret, fd = conf_open(file, err, errlen);

	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t got;

		if (cap - len < 4096) {
			char *p = cap < CL_FILE_MAX ? realloc(buf, cap ? 2 * cap : 8192) : NULL;

			if (!p) {
				snprintf(err, errlen, "%s: %s", file, cap < CL_FILE_MAX ?
					 "out of memory" : "too large");
				ret = cap < CL_FILE_MAX ? -ENOMEM : -EFBIG;
				goto out;
			}
			buf = p;
			cap = cap ? 2 * cap : 8192;
		}
		got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", file, strerror(-ret));
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	ret = ioqos_cluster_load_buf(cl, file, buf, len, now_ns, err, errlen);
out:
	close(fd);
	free(buf);
	return ret;
}
