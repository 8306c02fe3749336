/* SPDX-License-Identifier: MIT */
/*
 * The settings parser: "key=value ..." strings (ioqos_set) and config files
 * of one group a line (ioqos_load, ioqos_load_buf).
 *
 * The parts: the keys and the syntax of their values are in values.c, the
 * messages in msg.c, config files in load.c.
 *
 * Grammar
 *
 *	file     = { line '\n' }            a '\r' before the '\n' is dropped
 *	line     = [ PATH { blank setting } ] [ '#' comment ]
 *	settings = { blank } [ setting { blank+ setting } ] { blank }
 *	setting  = KEY '=' VALUE            blank = ' ' | '\t'
 *
 * All-or-nothing
 *
 * Parsing never touches the controller: ioqos_set() changes nothing until
 * its settings are parsed and checked (ioqos__conf_check, in apply.c), and
 * a load (load.c) nothing until every line of the file is.
 *
 * Weakness: a settings value cannot contain a blank.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "settings_int.h"

/* ---- settings ---------------------------------------------------------- */

int ioqos__conf_parse(const char *settings, bool is_root, struct ioqos__conf *c,
		      const char *where, char *err, size_t errlen)
{
	char qk[IOQOS__QUOTE_BUF], qv[IOQOS__QUOTE_BUF];
	const struct ioqos__keydef *weight_by = NULL;  /* which key set the weight */
	const char *p = settings != NULL ? settings : "";
	const char *pre = where != NULL ? where : "";

	memset(c, 0, sizeof(*c));
	for (;;) {
		const char *tok, *eq, *val;
		const struct ioqos__keydef *kd;
		size_t ntok, nkey, nval;
		struct ioqos__why w;
		uint64_t v;
		int ret;

		tok = ioqos__token(&p, &ntok);
		if (tok == NULL)
			return 0;

		eq = memchr(tok, '=', ntok);
		if (eq == NULL) {
			ioqos__errf(err, errlen,
				    "%ssetting '%s': missing '=' (want key=value)",
				    pre, ioqos__quote(qk, tok, ntok));
			return -EINVAL;
		}
		nkey = (size_t)(eq - tok);
		val = eq + 1;
		nval = ntok - nkey - 1;
		if (nkey == 0) {
			ioqos__errf(err, errlen,
				    "%ssetting '%s': missing key before '='",
				    pre, ioqos__quote(qk, tok, ntok));
			return -EINVAL;
		}
		ioqos__quote(qk, tok, nkey);
		ioqos__quote(qv, val, nval);
		kd = ioqos__keydef_find(tok, nkey);
		if (kd == NULL) {
			ioqos__errf(err, errlen,
				    "%sunknown key '%s' (value '%s')",
				    pre, qk, qv);
			return -EINVAL;
		}
		if (kd->root_only && !is_root) {
			ioqos__errf(err, errlen,
				    "%skey '%s' (value '%s') is only valid on group '/'",
				    pre, qk, qv);
			return -EINVAL;
		}
		if (c->set & (1u << kd->key)) {
			if (kd->key == IOQOS__K_WEIGHT && weight_by != kd)
				ioqos__errf(err, errlen,
					    "%skey '%s' (value '%s'): the weight is already given by '%s'; use one of weight and prio",
					    pre, qk, qv, weight_by->name);
			else
				ioqos__errf(err, errlen,
					    "%skey '%s' given twice (value '%s')",
					    pre, qk, qv);
			return -EINVAL;
		}
		if (nval == 0) {
			ioqos__errf(err, errlen, "%skey '%s': empty value",
				    pre, qk);
			return -EINVAL;
		}
		ret = ioqos__parse_value(kd, val, nval, &v, &w);
		if (ret < 0) {
			ioqos__errf(err, errlen,
				    "%skey '%s': bad value '%s' (%s)",
				    pre, qk, qv, w.text);
			return ret;
		}
		c->set |= 1u << kd->key;
		c->val[kd->key] = v;
		if (kd->key == IOQOS__K_WEIGHT)
			weight_by = kd;
	}
}

/* ---- ioqos_set ----------------------------------------------------------- */

int ioqos_set(struct ioqos *q, const char *path, const char *settings,
	      uint64_t now_ns, char *err, size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF];
	char where[IOQOS__QUOTE_BUF + 16];
	struct ioqos__conf c;
	int ret, id;

	if (q == NULL) {
		ioqos__errf(err, errlen, "no controller");
		return -EINVAL;
	}
	ret = ioqos__path_check(path, NULL, err, errlen);
	if (ret < 0)
		return ret;
	snprintf(where, sizeof(where), "group '%s': ", ioqos__quote_str(qp, path));
	ret = ioqos__conf_parse(settings, strcmp(path, "/") == 0, &c, where,
				err, errlen);
	if (ret < 0)
		return ret;
	ret = ioqos__conf_check(q, path, &c, false, NULL, err, errlen);
	if (ret < 0)
		return ret;
	id = ioqos_group(q, path);
	if (id < 0) {
		ioqos__errf(err, errlen, "%scannot create the group: %s",
			    where, ioqos_strerror(id));
		return id;
	}
	ret = ioqos__conf_prepare(q, (uint32_t)id, &c);
	if (ret < 0) {
		ioqos__errf(err, errlen, "%s%s", where, ioqos_strerror(ret));
		return ret;
	}
	ioqos__conf_apply(q, (uint32_t)id, &c, now_ns);
	ioqos__conf_done(q, now_ns);
	return 0;
}
