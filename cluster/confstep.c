/* SPDX-License-Identifier: MIT */
/*
 * A replacing config with global= lines, parsed off the front end's lock
 * and put in force in steps under it (ioqos_cluster_conf_parse, _reserve,
 * _apply), as the library does for a plain config (ioqos_conf_parse).
 *
 * The text is taken apart as a load takes it (conf.c): global= blanked,
 * the whole file checked on a scratch controller, each global group's
 * limits read there, and b written with the local limits in force of the
 * global groups (1 for one not global yet).  b is parsed into a library
 * config, which the steps put in force.
 *
 * Ticks between steps.  The front end's ticks (ioqos_cluster_tick) run
 * under its lock, so they run between two steps, and move the local
 * limits of the global groups with their leases.  b holds those limits as
 * they were when it was written, which a later step would put back, and
 * the module would then believe in force a lease it no longer is.  So b's
 * lines keep them (ioqos_conf_keep): a global group's step leaves its
 * lease's limits as the last tick set them.  A group this file no longer
 * makes global must not be moved by a tick after its step has given it
 * the file's limits: it lets go of its bucket as soon as the reservation
 * is over, before any step changes a setting (a failed reservation
 * leaves every group global as it was).  A group that becomes global,
 * or moves to another bucket, registers once the last step is done, as
 * after a load.
 *
 * The text is taken apart while no load of the same module runs: the
 * groups registered are read then, and only loads change them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ioqos_cluster_conf {
	struct cl_text t;          /* the text, taken apart */
	struct ioqos_conf *c;      /* b, parsed, the leases' limits kept */
	bool reserved;             /* the library's reservation is over */
};

static const char *const dim_key[IOQOS_CL_DIMS] = { "rbps", "wbps", "riops", "wiops" };

int ioqos_cluster_conf_parse(struct ioqos_cluster *cl, const char *name, const char *buf,
			     size_t len, struct ioqos_cluster_conf **out,
			     char *err, size_t errlen)
{
	struct ioqos_cluster_conf *cc = calloc(1, sizeof(*cc));
	int ret;

	*out = NULL;
	if (!name)
		name = "config";
	if (!cc) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	ret = ioqos__cl_text(cl, name, buf, len, 0, &cc->t, err, errlen);
	if (ret == 0)
		ret = ioqos_conf_parse(name, cc->t.b, cc->t.blen, &cc->c, err, errlen);
	for (size_t i = 0; ret == 0 && i < cc->t.ng; i++) {
		char keys[64];
		size_t n = 0;

		for (int d = 0; d < IOQOS_CL_DIMS; d++)
			if (cc->t.keep[i] & (1u << d))
				n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s ", dim_key[d]);
		if (n)
			ret = ioqos_conf_keep(cc->c, cc->t.gl[i].path, keys, err, errlen);
	}
	/* what the steps need: b's config, the global groups, their limits */
	ioqos_free(cc->t.sq);
	cc->t.sq = NULL;
	if (ret < 0) {
		ioqos_cluster_conf_free(cc);
		return ret;
	}
	*out = cc;
	return 0;
}

int ioqos_cluster_conf_reserve(struct ioqos_cluster *cl, struct ioqos_cluster_conf *cc,
			       uint32_t max_groups, char *err, size_t errlen)
{
	int ret;

	if (cc->reserved)
		return 0;
	ret = ioqos_conf_reserve(cl->q, cc->c, max_groups, err, errlen);
	if (ret != 0)
		return ret;
	ioqos__cl_let_go(cl, &cc->t, true, false, false, 0);
	cc->reserved = true;
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
	cc->reserved = false;          /* done: it may be applied again */
	ioqos__cl_let_go(cl, &cc->t, false, true, false, now_ns);
	return ioqos__cl_register_all(cl, &cc->t, now_ns, err, errlen);
}

void ioqos_cluster_conf_free(struct ioqos_cluster_conf *cc)
{
	if (!cc)
		return;
	ioqos_conf_free(cc->c);
	ioqos__cl_text_free(&cc->t);
	free(cc);
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
	return ret;
}
