/* SPDX-License-Identifier: MIT */
/*
 * The config file, loaded again when it changes.
 *
 * Config changes.  nbdkit ends on SIGHUP, so the filter watches the file, as
 * nbdkit's rate filter does with rate-file: the poll thread stat()s it every
 * ioqos-poll (default 1 s) and, when its inode, size, mtime or ctime
 * changed, loads it again at now: the file is the whole truth, as
 * ioqos_load_buf_replace() takes it.  A key it no longer names returns to
 * its default, burst included; a group it no longer names returns to the
 * defaults and goes away, at once if nobody is in it, else with its last
 * connection (group_unnamed()).  The library reschedules queued requests
 * under the new limits at once.  A file that does not parse, or is not a
 * regular file (files.c), changes nothing (the error is logged).
 *
 * Without stopping requests.  Every request of every export waits while
 * g.lock is held, so the file is read, its own keys taken out, compared
 * with the config in force and checked before the lock is taken, and
 * under it only what changed is loaded, as a merging config (delta.c): a
 * reload that changes one line of 100,000 holds the lock for microseconds
 * where a whole load held it for a hundred milliseconds.  Where a merge
 * cannot say the change, the whole file is loaded under the lock as
 * before (checked first all the same), and so always at start.  With
 * ioqos-redis the module reads and checks the whole file first, outside
 * the lock too (ioqos_cluster_prepare()), and gives the text that is the
 * library's, global= and the global groups' limits blanked: that text is
 * compared and merged in the same way, and the module then puts its
 * global groups in force under the lock (ioqos_cluster_commit()), in a
 * time that grows with the groups that come and go, not with the others.
 *
 * The filter's own key.  A line may also say who may join its group,
 * allow=LIST (allow.c), which the library's parser would refuse as an
 * unknown key: config_take() parses every allow= first, with file:line
 * errors, and blanks it out of the buffer (the line numbers stay), and
 * notes every path a line names (for ioqos-exports=config).  Only when the
 * library has loaded the rest does the filter take the new lists and names
 * in, in the same hold of g.lock: all or nothing.  With ioqos-redis the
 * cluster module takes its own global= out of the rest in the same way.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <nbdkit-filter.h>

#include "filter.h"

struct file_sig file_sig_of(const char *path)
{
	struct file_sig s;
	struct stat st;

	memset(&s, 0, sizeof(s));
	if (stat(path, &st) == 0) {
		s.exists = true;
		s.dev = st.st_dev;
		s.ino = st.st_ino;
		s.size_bytes = st.st_size;
		s.mtime = st.st_mtim;
		s.ctime = st.st_ctim;
	}
	return s;
}

static bool file_sig_same(const struct file_sig *a, const struct file_sig *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
	       a->size_bytes == b->size_bytes &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* the filter's part of a config, taken out of it by config_take() */
struct config_extra {
	char **names;              /* every path a line names, one each */
	size_t n_names;
	struct rule *rules;        /* every allow= */
	size_t n_rules;
};

static void extra_free(struct config_extra *x)
{
	for (size_t i = 0; i < x->n_names; i++)
		free(x->names[i]);
	free(x->names);
	for (size_t i = 0; i < x->n_rules; i++) {
		free(x->rules[i].path);
		allow_free(x->rules[i].allow);
	}
	free(x->rules);
	memset(x, 0, sizeof(*x));
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* append @item (of @size bytes) to a growing array; false when out of memory */
static bool push(void *arrp, size_t *n, size_t size, const void *item)
{
	char **arr = arrp;

	if ((*n & (*n - 1)) == 0) {        /* 0, 1, 2, 4 ...: grow */
		char *p = realloc(*arr, (*n ? *n * 2 : 1) * size);

		if (!p)
			return false;
		*arr = p;
	}
	memcpy(*arr + *n * size, item, size);
	(*n)++;
	return true;
}

/*
 * Take the filter's part out of the config in @buf (@len bytes, @name for
 * messages): parse each allow=, blank it, and note each line's path.  0,
 * or -1 with a one-line reason naming the file, line, key and value.
 */
static int config_take(const char *name, char *buf, size_t len,
		       struct config_extra *x, char *err, size_t errlen)
{
	unsigned long lineno = 0;
	size_t pos = 0;

	memset(x, 0, sizeof(*x));
	while (pos < len) {
		char *l = buf + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, i = 0;
		char *hash = memchr(l, '#', n), *path = NULL;
		bool has_allow = false;

		pos += n + (nl != NULL);
		lineno++;
		if (hash)
			n = (size_t)(hash - l);
		while (i < n) {
			size_t t;

			while (i < n && (is_blank(l[i]) || l[i] == '\r'))
				i++;
			for (t = i; t < n && !is_blank(l[t]) && l[t] != '\r'; t++)
				;
			if (t == i)
				break;
			if (!path) {
				path = strndup(l + i, t - i);
				if (!path || !push(&x->names, &x->n_names, sizeof(path), &path))
					goto nomem;
			} else if (t - i >= 6 && memcmp(l + i, "allow=", 6) == 0) {
				char value[1024], why[256];
				struct rule r = { .line = lineno };

				snprintf(value, sizeof(value), "%.*s", (int)(t - i - 6), l + i + 6);
				if (has_allow) {
					snprintf(err, errlen, "%s:%lu: key 'allow' given twice",
						 name, lineno);
					goto fail;
				}
				for (size_t k = 0; k < x->n_rules; k++) {
					if (strcmp(x->rules[k].path, path) == 0) {
						snprintf(err, errlen, "%s:%lu: key 'allow': %s has "
							 "one already, on line %lu", name, lineno,
							 path, x->rules[k].line);
						goto fail;
					}
				}
				if (t - i - 6 >= sizeof(value) ||
				    allow_parse(value, &r.allow, why, sizeof(why)) < 0) {
					snprintf(err, errlen, "%s:%lu: key 'allow' value '%.64s': %s",
						 name, lineno, value, t - i - 6 >= sizeof(value) ?
						 "too long" : why);
					goto fail;
				}
				has_allow = true;
				r.path = strdup(path);
				if (!r.path || !push(&x->rules, &x->n_rules, sizeof(r), &r)) {
					free(r.path);
					allow_free(r.allow);
					goto nomem;
				}
				memset(l + i, ' ', t - i);   /* the library never sees it */
			}
			i = t;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", name);
fail:
	extra_free(x);
	return -1;
}

static void unnamed(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	(void)arg;
	(void)q;
	(void)path;
	group_unnamed(id);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the config as a whole load would check it, on a scratch controller: 0 or -1 */
static int check(const char *text, size_t len, char *err, size_t errlen)
{
	struct ioqos *s = ioqos_new();
	int ret;

	if (!s) {
		snprintf(err, errlen, "%s: out of memory", g.config);
		return -1;
	}
	ret = ioqos_load_buf(s, g.config, text, len, 0, err, errlen);
	ioqos_free(s);
	return ret < 0 ? -1 : 0;
}

/* the whole file, replacing, under g.lock (with ioqos-redis, the config
 * *@cc that the module read from it, which it takes) */
static int load_whole(struct ioqos_cluster_conf **cc, const char *buf, size_t len,
		      uint64_t now, char *err, size_t errlen)
{
	struct ioqos_cluster_conf *c = *cc;

	*cc = NULL;
	return g.cl ? ioqos_cluster_commit_replace(g.cl, c, now, unnamed, NULL, err, errlen) :
	       ioqos_load_buf_replace(g.q, g.config, buf, len, now, unnamed, NULL, err, errlen);
}

/*
 * Under g.lock: what @d changes (delta.c), or the whole file in @buf when
 * a merge cannot say it or fails (out of memory as it made groups); with
 * ioqos-redis, then the module's global groups (*@cc, which it takes).
 */
static int apply(const struct delta *d, struct ioqos_cluster_conf **cc, const char *buf,
		 size_t len, uint64_t now, char *err, size_t errlen)
{
	struct ioqos_cluster_conf *c = *cc;

	if (d->whole)
		return load_whole(cc, buf, len, now, err, errlen);
	if (d->len && ioqos_load_buf(g.q, g.config, d->buf, d->len, now, err, errlen) < 0) {
		nbdkit_debug("ioqos: %s: the change did not load (%s): loading the whole file",
			     g.config, err);
		return load_whole(cc, buf, len, now, err, errlen);
	}
	for (size_t i = 0; i < d->n_gone; i++) {
		int id = ioqos_group_find(g.q, d->gone[i]);

		if (id > 0)
			group_unnamed((uint32_t)id);
	}
	*cc = NULL;
	return g.cl ? ioqos_cluster_commit(g.cl, c, now, err, errlen) : 0;
}

/* the config loaded last, as delta.c compares it (the poll thread's, and
 * params_complete()'s before it starts) */
static struct cset in_force;

/* at unload */
void config_free(void)
{
	cset_free(&in_force);
}

/*
 * Load the config file if it changed since it was last loaded (always, if
 * @force: at start).  Returns 0 (loaded or unchanged) or -1 (logged;
 * nothing changed).  Everything but the change itself is done before
 * g.lock is taken: reading, the filter's own keys, the comparison with the
 * config in force (delta.c) and the library's checks.
 */
int config_reload(bool force)
{
	uint64_t leaves = atomic_load_explicit(&meter.leaves, memory_order_relaxed);
	struct config_extra x = { 0 };
	struct cset cs = { 0 };
	struct delta d = { 0 };
	struct wakes wk = { 0 };
	struct ioqos_cluster_conf *cc = NULL;
	char err[1024];
	struct file_sig sig;
	size_t len = 0, tlen = 0;
	uint64_t held_ns = 0;
	const char *text;
	char *buf;
	int ret;

	if (!g.config)
		return 0;
	sig = file_sig_of(g.config);
	if (!force && file_sig_same(&sig, &g.sig))
		return 0;
	/* remember it even when it fails: one message per change, not per poll */
	g.sig = sig;
	buf = config_read(g.config, &len, err, sizeof(err));
	if (!buf) {
		nbdkit_error("ioqos: %s", err);
		return -1;
	}
	ret = config_take(g.config, buf, len, &x, err, sizeof(err));
	/* with ioqos-redis, the module takes its part out: the library's is left */
	text = buf;
	tlen = len;
	if (ret == 0 && g.cl) {
		ret = ioqos_cluster_prepare(g.cl, g.config, buf, len, &cc, err, sizeof(err));
		if (ret == 0)
			text = ioqos_cluster_conf_text(cc, &tlen);
	}
	if (ret == 0) {
		if (x.n_names)            /* sorted here, not under the lock */
			qsort(x.names, x.n_names, sizeof(*x.names), cmp_name);
		if (cset_build(text, tlen, &cs) < 0 ||
		    (!force && delta_make(&in_force, &cs, text, &d) < 0)) {
			snprintf(err, sizeof(err), "%s: out of memory", g.config);
			ret = -1;
		}
		/* at start: the whole file, as it checks itself (with
		 * ioqos-redis the module checked the whole file already) */
		if (force)
			d.whole = true;
		else if (ret == 0 && !g.cl)
			ret = d.whole ? check(buf, len, err, sizeof(err)) :
			      check(d.check, d.check_len, err, sizeof(err));
	}
	if (ret == 0) {
		pthread_mutex_lock(&g.lock);
		uint64_t now = now_ns();

		leaves = atomic_load_explicit(&meter.leaves, memory_order_relaxed) - leaves;
		ret = apply(&d, &cc, buf, len, now, err, sizeof(err));
		if (ret < 0)
			in_force.simple = false;     /* what is in force now: load it whole next */
		if (ret == 0) {
			group_config_swap(&x.names, &x.n_names, &x.rules, &x.n_rules);
			if (!force)
				g.reloads++;
			gate_pump(now, &wk);
		}
		held_ns = now_ns() - now;
		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
	}
	extra_free(&x);                      /* the new ones' remains, or the old ones */
	ioqos_cluster_conf_free(cc);         /* prepared, never committed */
	free(buf);
	if (ret == 0) {
		cset_free(&in_force);
		in_force = cs;
	} else {
		cset_free(&cs);
	}
	if (ret < 0) {
		delta_free(&d);
		nbdkit_error("ioqos: %s", err);
		return -1;
	}
	if (!force) {
		char what[96];

		if (d.whole)
			snprintf(what, sizeof(what), "the whole file");
		else
			snprintf(what, sizeof(what), "%zu line%s changed, %zu groups gone",
				 d.lines, d.lines == 1 ? "" : "s", d.n_gone);
		nbdkit_debug("ioqos: reloaded %s: %s, the controller's lock held %.1f us; "
			     "%" PRIu64 " requests done while it was read and checked",
			     g.config, what, held_ns / 1e3, leaves);
	}
	delta_free(&d);
	return 0;
}
