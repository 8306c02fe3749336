/* SPDX-License-Identifier: MIT */
/*
 * A config parsed apart from any controller (struct ioqos_conf): the text
 * of a config file into one entry a group line, every line parsed and
 * checked, nothing applied.  ioqos_conf_parse() and ioqos_conf_load()
 * (load.c) make one; confapply.c applies it; every load goes through here
 * (load.c).
 *
 * The problem.  A replacing load of 100,000 groups spends most of its
 * time reading the text: splitting lines, parsing values, finding repeated
 * paths.  Done on the controller, all of it happens while the front end
 * holds the controller's lock, and every request of every tenant waits.
 * None of it needs the controller: a replacing load checks each line
 * alone (a low against the max of the same line), so the text can be
 * parsed and checked on another thread while requests go on, and only
 * the result handed to the controller.
 *
 * The pieces.  An entry holds the line's path (an offset into one string
 * buffer, so that 100,000 paths are one allocation that grows, not
 * 100,000), its line number for messages, and its settings (struct
 * ioqos__conf).  An open-addressing index on the path, kept at most half
 * full, finds a path given twice: "/a" on lines 3 and 7 is refused at
 * line 7, "already configured on line 3".
 *
 * A merging load (ioqos_load_buf) goes through the same parser with the
 * controller, to check each line merged into the settings the group has:
 * the same messages, in the same order (the first bad line wins, whether
 * its syntax or its check is bad).
 *
 * Keeping a value in force (ioqos_conf_keep): a setting that another part
 * of the program moves at run time (a cluster lease's local limit) would
 * be put back to the file's value by every reload.  An entry may name
 * keys whose value in force at the moment it is applied is kept instead;
 * a group that has none set takes the file's.  A kept max may not have a
 * low beside it on the line, nor a kept low a max: the kept value is not
 * known here, so the check of the two could not be made.
 *
 * Weakness: the whole text is held (a copy translated from the cgroup
 * forms as well, when it has them), and a config is at most 256 MiB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathhash.h"
#include "settings_int.h"

/* the slot holding @path, or the empty slot where it would go */
static uint32_t *conf_slot(struct ioqos_conf *c, const char *path)
{
	size_t i = (size_t)ioqos__path_hash(path, strlen(path)) & (c->nslot - 1);

	while (c->slot[i] != 0 &&
	       strcmp(ioqos__centry_path(c, &c->e[c->slot[i] - 1]), path) != 0)
		i = (i + 1) & (c->nslot - 1);
	return &c->slot[i];
}

/* room for one more entry and @plen more bytes of path; 0 or -ENOMEM */
static int conf_grow(struct ioqos_conf *c, size_t plen)
{
	if (c->n == c->cap) {
		size_t cap = c->cap != 0 ? c->cap * 2 : 16;
		struct ioqos__centry *e = realloc(c->e, cap * sizeof(*e));

		if (e == NULL)
			return -ENOMEM;
		c->e = e;
		c->cap = cap;
	}
	if (c->paths_len + plen + 1 > c->paths_cap) {
		size_t cap = c->paths_cap != 0 ? c->paths_cap : 4096;
		char *p;

		while (cap < c->paths_len + plen + 1)
			cap *= 2;
		p = realloc(c->paths, cap);
		if (p == NULL)
			return -ENOMEM;
		c->paths = p;
		c->paths_cap = cap;
	}
	if (2 * (c->n + 1) > c->nslot) {
		size_t nslot = c->nslot != 0 ? c->nslot * 2 : 32, i;
		uint32_t *old = c->slot;

		if (c->n + 1 >= UINT32_MAX)
			return -ENOMEM;
		c->slot = calloc(nslot, sizeof(*c->slot));
		if (c->slot == NULL) {
			c->slot = old;
			return -ENOMEM;
		}
		c->nslot = nslot;
		for (i = 0; i < c->n; i++)
			*conf_slot(c, ioqos__centry_path(c, &c->e[i])) = (uint32_t)(i + 1);
		free(old);
	}
	return 0;
}

/*
 * Parse and check one line (comment and line ending already cut off,
 * NUL-terminated in @line, which may be modified).  A group line is added
 * to @c.  0 or -errno with a message prefixed by @where.
 */
static int conf_line(struct ioqos_conf *c, struct ioqos *merge_q, char *line,
		     unsigned long lineno, const char *where, char *err, size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF];
	const char *p = line;
	char *path, *settings;
	struct ioqos__centry *e;
	uint32_t *slot;
	size_t plen;
	int ret;

	path = (char *)ioqos__token(&p, &plen);
	if (path == NULL)
		return 0;
	settings = (char *)p;
	if (*settings != '\0')
		*settings++ = '\0';   /* the path ends here */

	ret = ioqos__path_check(path, where, err, errlen);
	if (ret < 0)
		return ret;
	if (conf_grow(c, plen) < 0)
		goto nomem;
	slot = conf_slot(c, path);
	if (*slot != 0) {
		ioqos__errf(err, errlen,
			    "%sgroup '%s' is already configured on line %lu",
			    where, ioqos__quote_str(qp, path), c->e[*slot - 1].line);
		return -EINVAL;
	}
	e = &c->e[c->n];
	ret = ioqos__conf_parse(settings, strcmp(path, "/") == 0, &e->c,
				where, err, errlen);
	if (ret < 0)
		return ret;
	ret = merge_q ? ioqos__conf_check(merge_q, path, &e->c, false, where, err, errlen) :
	      ioqos__conf_check_alone(path, &e->c, where, err, errlen);
	if (ret < 0)
		return ret;
	memcpy(c->paths + c->paths_len, path, plen + 1);
	e->path_at = c->paths_len;
	c->paths_len += plen + 1;
	e->line = lineno;
	e->keep = 0;
	e->id = UINT32_MAX;          /* none yet */
	c->n++;
	*slot = (uint32_t)c->n;
	return 0;

nomem:
	ioqos__errf(err, errlen, "%s%s", where, ioqos_strerror(-ENOMEM));
	return -ENOMEM;
}

int ioqos__conf_text(struct ioqos_conf *c, const char *name, const char *buf,
		     size_t len, struct ioqos *merge_q, char *err, size_t errlen)
{
	char where[IOQOS__QUOTE_BUF + 32];
	char *line, *cg = NULL;
	unsigned long lineno = 0;
	size_t pos = 0, cglen;
	int ret;

	ioqos__quote_str(c->qname, name != NULL ? name : "config");
	line = malloc(IOQOS__LINE_MAX + 1);
	if (line == NULL) {
		ioqos__errf(err, errlen, "%s: %s", c->qname, ioqos_strerror(-ENOMEM));
		return -ENOMEM;
	}
	/* lines pasted from cgroup's io.max and io.weight, in our syntax */
	ret = ioqos__cgroup_translate(c->qname, buf, len, &cg, &cglen, err, errlen);
	if (ret < 0)
		goto out;
	if (cg != NULL) {
		buf = cg;
		len = cglen;
	}
	while (pos < len) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl != NULL ? (size_t)(nl - l) : len - pos;
		const char *hash;

		pos += n + (nl != NULL);
		lineno++;
		snprintf(where, sizeof(where), "%s:%lu: ", c->qname, lineno);
		if (n > 0 && l[n - 1] == '\r')
			n--;
		if (memchr(l, '\0', n) != NULL) {
			ioqos__errf(err, errlen, "%sNUL byte in the line", where);
			ret = -EINVAL;
			goto out;
		}
		if (n > IOQOS__LINE_MAX) {
			ioqos__errf(err, errlen,
				    "%sline too long (%zu bytes, at most %d)",
				    where, n, IOQOS__LINE_MAX);
			ret = -EINVAL;
			goto out;
		}
		hash = memchr(l, '#', n);
		if (hash != NULL)
			n = (size_t)(hash - l);
		memcpy(line, l, n);
		line[n] = '\0';
		ret = conf_line(c, merge_q, line, lineno, where, err, errlen);
		if (ret < 0)
			goto out;
	}
	ret = 0;
out:
	free(line);
	free(cg);
	return ret;
}

int ioqos_conf_parse(const char *name, const char *buf, size_t len,
		     struct ioqos_conf **out, char *err, size_t errlen)
{
	struct ioqos_conf *c;
	char qn[IOQOS__QUOTE_BUF];
	int ret;

	if (out == NULL || (buf == NULL && len > 0)) {
		ioqos__errf(err, errlen, "%s: no buffer or nowhere to put the config",
			    ioqos__quote_str(qn, name != NULL ? name : "config"));
		return -EINVAL;
	}
	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		ioqos__errf(err, errlen, "%s: %s",
			    ioqos__quote_str(qn, name != NULL ? name : "config"),
			    ioqos_strerror(-ENOMEM));
		return -ENOMEM;
	}
	ret = ioqos__conf_text(c, name, buf, len, NULL, err, errlen);
	if (ret < 0) {
		ioqos_conf_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

/* a max and its low: a kept one cannot be checked against the other */
static const enum ioqos__key pair[][2] = {
	{ IOQOS__K_RBPS, IOQOS__K_RBPS_LOW }, { IOQOS__K_WBPS, IOQOS__K_WBPS_LOW },
	{ IOQOS__K_RIOPS, IOQOS__K_RIOPS_LOW }, { IOQOS__K_WIOPS, IOQOS__K_WIOPS_LOW },
};

int ioqos_conf_keep(struct ioqos_conf *c, const char *path, const char *keys,
		    char *err, size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF], qk[IOQOS__QUOTE_BUF];
	struct ioqos__centry *e;
	const char *p = keys != NULL ? keys : "";
	uint32_t keep = 0, *slot;
	size_t i, n;

	if (c == NULL || path == NULL) {
		ioqos__errf(err, errlen, "no config or no path");
		return -EINVAL;
	}
	if (c->stage != IOQOS__CS_IDLE) {
		ioqos__errf(err, errlen, "%s: the config is being applied", c->qname);
		return -EBUSY;
	}
	slot = c->nslot ? conf_slot(c, path) : NULL;
	if (slot == NULL || *slot == 0) {
		ioqos__errf(err, errlen, "%s: no line for group '%s'", c->qname,
			    ioqos__quote_str(qp, path));
		return -ENOENT;
	}
	e = &c->e[*slot - 1];
	for (;;) {
		const struct ioqos__keydef *kd;
		const char *tok = ioqos__token(&p, &n);

		if (tok == NULL)
			break;
		kd = ioqos__keydef_find(tok, n);
		if (kd == NULL || !(e->c.set & (1u << kd->key))) {
			ioqos__errf(err, errlen, "%s:%lu: group '%s': cannot keep '%s': %s",
				    c->qname, e->line, ioqos__quote_str(qp, path),
				    ioqos__quote(qk, tok, n),
				    kd ? "the line does not give it" : "no such key");
			return -EINVAL;
		}
		keep |= 1u << kd->key;
	}
	for (i = 0; i < sizeof(pair) / sizeof(pair[0]); i++) {
		enum ioqos__key mx = pair[i][0], lo = pair[i][1];
		bool bad = ((keep >> mx) & 1 && e->c.set & (1u << lo) && e->c.val[lo]) ||
			   ((keep >> lo) & 1 && e->c.set & (1u << mx) &&
			    e->c.val[mx] != IOQOS_UNLIMITED);

		if (bad) {
			ioqos__errf(err, errlen,
				    "%s:%lu: group '%s': cannot keep '%s' beside '%s': the two could not be checked",
				    c->qname, e->line, ioqos__quote_str(qp, path),
				    ioqos__key_name((keep >> mx) & 1 ? mx : lo),
				    ioqos__key_name((keep >> mx) & 1 ? lo : mx));
			return -EINVAL;
		}
	}
	e->keep |= keep;
	return 0;
}

void ioqos_conf_free(struct ioqos_conf *c)
{
	if (c == NULL)
		return;
	ioqos__conf_abort(c);
	free(c->e);
	free(c->paths);
	free(c->slot);
	free(c);
}
