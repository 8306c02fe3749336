/* SPDX-License-Identifier: MIT */
/*
 * The config file, loaded again when it changes.
 *
 * Config changes.  nbdkit ends on SIGHUP, so the filter watches the file, as
 * nbdkit's rate filter does with rate-file: the poll thread stat()s it every
 * ioqos-poll (default 1 s) and, when its inode, size, mtime or ctime
 * changed, loads it again with ioqos_load_buf_replace() at now: the file is
 * the whole truth.  A key it no longer names returns to its default, burst
 * included; a group it no longer names returns to the defaults and goes
 * away, at once if nobody is in it, else with its last connection
 * (group_unnamed()).  The library reschedules queued requests under the
 * new limits at once.  A file that does not parse, or is not a regular
 * file (files.c), changes nothing (the error is logged).
 *
 * The filter's own key.  A line may also say who may join its group,
 * allow=LIST (allow.c), which the library's parser would refuse as an
 * unknown key: config_take() parses every allow= first, with file:line
 * errors, and blanks it out of the buffer (the line numbers stay), and
 * notes every path a line names (for ioqos-exports=config).  Only when the
 * library has loaded the rest does the filter take the new lists and names
 * in, in the same hold of g.lock: all or nothing.  With ioqos-redis the
 * cluster module loads the rest instead (ioqos_cluster_load_buf_replace()),
 * taking its own global= out in the same way.
 */
#include <errno.h>
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

/*
 * Load the config file if it changed since it was last loaded (always, if
 * @force).  Returns 0 (loaded or unchanged) or -1 (logged; nothing changed).
 */
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

int config_reload(bool force)
{
	struct config_extra x;
	struct wakes wk = { 0 };
	char err[512];
	struct file_sig sig;
	size_t len = 0;
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
	if (ret == 0) {
		pthread_mutex_lock(&g.lock);
		uint64_t now = now_ns();

		/* with ioqos-redis, the module takes its global= out first */
		ret = g.cl ? ioqos_cluster_load_buf_replace(g.cl, g.config, buf, len, now,
							    unnamed, NULL, err, sizeof(err)) :
		      ioqos_load_buf_replace(g.q, g.config, buf, len, now, unnamed, NULL,
					     err, sizeof(err));
		if (ret == 0) {
			group_config_set(x.names, x.n_names, x.rules, x.n_rules);
			memset(&x, 0, sizeof(x));      /* taken over */
			if (!force)
				g.reloads++;
			gate_pump(now, &wk);
		}
		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		extra_free(&x);
	}
	free(buf);
	if (ret < 0) {
		nbdkit_error("ioqos: %s", err);
		return -1;
	}
	if (!force)
		nbdkit_debug("ioqos: reloaded %s", g.config);
	return 0;
}
