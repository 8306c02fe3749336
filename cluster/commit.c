/* SPDX-License-Identifier: MIT */
/*
 * A config of global groups put in force: read and compared first, with
 * no lock held, then committed in a time that grows with the groups that
 * come and go, not with those it keeps.
 *
 * The problem.  A reload loaded the whole file under the front end's lock
 * (every request of the nbdkit filter waits on it) and, for every global
 * group, walked every other to find it, register it and set its local
 * limits: at 10,000 groups a reload that only appended a comment held
 * the lock for 10 s, and the renewals, waiting on cl->lock, ran out.
 *
 * The algorithm.  ioqos_cluster_prepare(), with no lock: A, B, C of the
 * file (conf.c), checked whole on a scratch controller, then compared with
 * the config in force (cl->conf, by path in both maps):
 *
 *	a group global in both, same bucket, same limits   nothing
 *	global in both, another bucket or other limits      modified
 *	global in the new one only                          add (its record
 *	                                                    made here)
 *	global in the old one only, or registered alone     gone (with the
 *	                                                    limits the file
 *	                                                    gives it)
 *
 * ioqos_cluster_commit(), under the front end's lock, after the front end
 * merged the lines of C that changed: the gone are handed back and taken
 * out, the adds go in with their joining limits, and the new config takes
 * the old one's place.  The modified are not touched: the config's
 * generation moves on, and each group takes its new spec when the tick's
 * pass reaches it (local.c), a batch a call.  The old config and the
 * records taken out are freed by the next prepare, outside every lock.
 *
 * Example: 100,000 global groups, a comment appended: the diff finds
 * nothing, and the commit swaps two pointers.  Every rbps doubled: C is
 * the same (the limits are blanked there), the front end merges nothing,
 * the commit moves the generation on, and 98 ticks of 1,024 groups take
 * the new limits.  A tenant added: one line of C, one record.
 *
 * The same calls make the loads of a whole file (ioqos_cluster_load_buf()
 * and its _replace form): the module loads B into the controller itself,
 * commits, and brings every group to its spec at once, as before.
 *
 * Weaknesses: the groups that come and go cost under the lock (a few
 * microseconds each), as the lines of C that the front end merges for
 * them do; a config that adds 100,000 global groups at once holds the
 * lock as a whole load did.  Between a commit and the end of the next
 * pass, some groups renew on their old limits or buckets.  A config read
 * before another was committed (or a group registered) cannot be
 * committed: prepare it again.
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
static bool gone(struct ioqos_cluster_conf *c, struct ioqos *sq, const char *path)
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
static bool compare(struct ioqos_cluster *cl, struct ioqos_cluster_conf *c,
		    struct ioqos *sq)
{
	const struct ioqos_cluster_conf *old = cl->conf;
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

int ioqos_cluster_prepare(struct ioqos_cluster *cl, const char *name, const char *buf,
			  size_t len, struct ioqos_cluster_conf **out, char *err,
			  size_t errlen)
{
	struct ioqos_cluster_conf *c = calloc(1, sizeof(*c));
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

const char *ioqos_cluster_conf_text(const struct ioqos_cluster_conf *c, size_t *len)
{
	*len = c->len;
	return c->text;
}

void ioqos_cluster_conf_free(struct ioqos_cluster_conf *c)
{
	ioqos__cl_conf_free(c);
}

/*
 * @g is no longer global, after a merging load: of its limits, those the
 * file gives it (@file, for this device) are in force already, the others
 * become unlimited.  (A replacing load has done that itself.)  A group the
 * front end removed meanwhile stays removed.
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
 * @c in force, its text in the controller already (B by @replace, else B
 * or C merged); cl->lock held.  Room is made first, so that past it
 * nothing fails: 0, or -ENOMEM with nothing changed.  A group the
 * controller cannot make stays out, and the next config adds it.
 */
static int put_in_force(struct ioqos_cluster *cl, struct ioqos_cluster_conf *c,
			bool replace, uint64_t now)
{
	if (ioqos__cl_reserve(cl, cl->ng + (uint32_t)c->n_add) < 0 ||
	    (c->n_gone && !(c->dead = malloc(c->n_gone * sizeof(*c->dead)))))
		return -ENOMEM;
	for (size_t i = 0; i < c->n_gone; i++) {
		struct cl_group *g = ioqos__cl_find(cl, c->gone[i].path);

		if (!g)
			continue;
		if (!replace)
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
	for (size_t i = 0; i < c->n_add; i++) {
		struct cl_group *g = c->add[i];
		int id = ioqos_group(cl->q, g->path);

		if (id < 0)
			continue;
		ioqos__cl_insert(cl, g);   /* room made */
		c->add[i] = NULL;
		g->gid = (uint32_t)id;
		g->gen = cl->conf_gen;
		/* B, replacing, gave the joining limits (1, or none where the
		 * file gives no global limit): set again only what differs */
		for (int d = 0; replace && d < IOQOS_CL_DIMS; d++)
			g->applied[d] = g->limit[d] == IOQOS_UNLIMITED ? IOQOS_UNLIMITED : 1;
		ioqos__cl_apply(cl, g, now);
	}
	cl->conf_seq++;
	if (cl->conf) {                    /* freed by the next prepare */
		cl->conf->older = cl->spent;
		cl->spent = cl->conf;
	}
	cl->conf = c;
	pthread_cond_signal(&cl->cond);    /* renew at once: a new bucket has no lease */
	return 0;
}

/* the commits: @whole, B loaded first, replacing or merging; else the
 * front end merged C's change */
static int commit(struct ioqos_cluster *cl, struct ioqos_cluster_conf *c, bool whole,
		  bool replace, uint64_t now, ioqos_unnamed_fn *unnamed, void *arg,
		  char *err, size_t errlen)
{
	char *b = NULL;
	size_t blen = 0;
	int ret = 0;

	if (c->base_seq != cl->conf_seq) {
		snprintf(err, errlen, "%s: the config in force changed since this one was "
			 "read: read it again", c->name);
		ret = -ESTALE;
		goto out;
	}
	if (whole) {
		b = ioqos__cl_conf_text(cl, c, &blen);
		ret = !b ? -ENOMEM :
		      replace ? ioqos_load_buf_replace(cl->q, c->name, b, blen, now, unnamed,
						       arg, err, errlen) :
		      ioqos_load_buf(cl->q, c->name, b, blen, now, err, errlen);
		if (!b)
			snprintf(err, errlen, "%s: out of memory", c->name);
		free(b);
		if (ret < 0)
			goto out;
	}
	pthread_mutex_lock(&cl->lock);
	ret = put_in_force(cl, c, whole && replace, now);
	if (ret == 0)
		c = NULL;                  /* the module's now, spent when replaced */
	else
		snprintf(err, errlen, "%s: out of memory", c->name);
	pthread_mutex_unlock(&cl->lock);
out:
	ioqos__cl_conf_free(c);
	return ret;
}

int ioqos_cluster_commit(struct ioqos_cluster *cl, struct ioqos_cluster_conf *c,
			 uint64_t now_ns, char *err, size_t errlen)
{
	return commit(cl, c, false, false, now_ns, NULL, NULL, err, errlen);
}

int ioqos_cluster_commit_replace(struct ioqos_cluster *cl, struct ioqos_cluster_conf *c,
				 uint64_t now_ns, ioqos_unnamed_fn *unnamed, void *arg,
				 char *err, size_t errlen)
{
	return commit(cl, c, true, true, now_ns, unnamed, arg, err, errlen);
}

/* a whole load, merging or replacing, with every group at its spec at once */
static int load(struct ioqos_cluster *cl, const char *name, const char *buf, size_t len,
		uint64_t now_ns, bool replace, ioqos_unnamed_fn *unnamed, void *arg,
		char *err, size_t errlen)
{
	struct ioqos_cluster_conf *c;
	int ret = ioqos_cluster_prepare(cl, name, buf, len, &c, err, errlen);

	if (ret == 0)
		ret = commit(cl, c, true, replace, now_ns, unnamed, arg, err, errlen);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&cl->lock);
	for (uint32_t i = 0; i < cl->ng; i++) {
		CL_VISIT(cl);
		ioqos__cl_follow(cl, cl->g[i], now_ns);
	}
	pthread_mutex_unlock(&cl->lock);
	return 0;
}

int ioqos_cluster_load_buf(struct ioqos_cluster *cl, const char *name,
			   const char *buf, size_t len, uint64_t now_ns,
			   char *err, size_t errlen)
{
	return load(cl, name, buf, len, now_ns, false, NULL, NULL, err, errlen);
}

int ioqos_cluster_load_buf_replace(struct ioqos_cluster *cl, const char *name,
				   const char *buf, size_t len, uint64_t now_ns,
				   ioqos_unnamed_fn *unnamed, void *arg,
				   char *err, size_t errlen)
{
	return load(cl, name, buf, len, now_ns, true, unnamed, arg, err, errlen);
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
