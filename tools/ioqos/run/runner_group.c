/* SPDX-License-Identifier: MIT */
/*
 * Jobs into ioqos groups: cgroup=, prio= and cgroup_weight= name a group
 * and its weight, then --qos loads the limits; the report gets its own
 * view of the tree.
 */
#include "run/runner_parts.h"

#include <ioqos_cluster.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- groups ----------------------------------------------------------- */

void runner_job_group(const struct job *j, char *buf, size_t len)
{
	if (j->cgroup) {
		const char *c = j->cgroup;
		while (*c == '/')
			c++;
		snprintf(buf, len, "/%s", c);
	} else if (j->prio >= 0 || j->cgroup_weight) {
		snprintf(buf, len, "/%s", j->name);
	} else {
		snprintf(buf, len, "/");
	}
}

/* the weight a job asks for its group, 0 for none */
static uint32_t job_weight(const struct job *j)
{
	if (j->cgroup_weight)
		return j->cgroup_weight;
	if (j->prio >= 0)
		return 25u * (8u - (unsigned)j->prio);
	return 0;
}

int setup_groups(struct runner *r, char *err, size_t errlen)
{
	struct jobset *set = r->set;
	uint32_t *weights;
	uint32_t njob_groups;
	char path[IOQOS_PATH_MAX], e[512];
	int rc;

	/* create every job's group first: a qos path not among them, or their
	 * ancestors, names a group no job uses */
	for (size_t i = 0; i < set->n; i++) {
		runner_job_group(&set->jobs[i], path, sizeof(path));
		rc = ioqos_group(r->q, path);
		if (rc < 0) {
			snprintf(err, errlen, "%s: job '%s': bad group path '%s': %s",
				 set->jobs[i].where, set->jobs[i].name, path,
				 ioqos_strerror(rc));
			return rc;
		}
	}
	njob_groups = ioqos_group_count(r->q);
	weights = calloc(njob_groups, sizeof(*weights));
	if (!weights)
		return -ENOMEM;
	for (size_t i = 0; i < set->n; i++) {
		const struct job *j = &set->jobs[i];
		uint32_t w = job_weight(j);
		int id;

		if (!w)
			continue;
		runner_job_group(j, path, sizeof(path));
		id = ioqos_group_find(r->q, path);
		if (weights[id] && weights[id] != w) {
			snprintf(err, errlen, "%s: job '%s': group %s is given weight %u "
				 "and weight %u by different jobs", j->where, j->name, path,
				 weights[id], w);
			free(weights);
			return -EINVAL;
		}
		if (!weights[id]) {
			char s[32];
			snprintf(s, sizeof(s), "weight=%u", w);
			rc = ioqos_set(r->q, path, s, r->now_ns, e, sizeof(e));
			if (rc < 0) {
				snprintf(err, errlen, "%s: job '%s': %s", j->where, j->name, e);
				free(weights);
				return rc;
			}
		}
		weights[id] = w;
	}
	free(weights);
	if (r->o->qos_file) {
		rc = r->cl ? ioqos_cluster_load(r->cl, r->o->qos_file, r->now_ns, e, sizeof(e)) :
		     ioqos_load(r->q, r->o->qos_file, r->now_ns, e, sizeof(e));
		if (rc < 0) {
			snprintf(err, errlen, "%s", e);
			return rc;
		}
		if (ioqos_group_count(r->q) > njob_groups) {
			snprintf(err, errlen, "%s: group %s is used by no job", r->o->qos_file,
				 ioqos_group_path(r->q, njob_groups));
			return -EINVAL;
		}
	}

	/* the report's view of the tree */
	r->ngrps = ioqos_group_count(r->q);
	r->grps = calloc(r->ngrps, sizeof(*r->grps));
	if (!r->grps)
		return -ENOMEM;
	for (unsigned g = 0; g < r->ngrps; g++) {
		struct grp *gr = &r->grps[g];
		const char *p = ioqos_group_path(r->q, g);
		char *slash;

		snprintf(gr->path, sizeof(gr->path), "%s", p ? p : "?");
		gr->parent = -1;
		if (g) {
			char pp[IOQOS_PATH_MAX];
			snprintf(pp, sizeof(pp), "%s", gr->path);
			slash = strrchr(pp, '/');
			if (slash == pp)
				pp[1] = '\0';
			else if (slash)
				*slash = '\0';
			gr->parent = ioqos_group_find(r->q, pp);
		}
		ioqos_limits_get(r->q, g, &gr->lim);
	}
	for (size_t i = 0; i < set->n; i++) {
		int g;
		runner_job_group(&set->jobs[i], path, sizeof(path));
		g = ioqos_group_find(r->q, path);
		r->grps[g].has_jobs = true;
		for (int a = g; a >= 0; a = r->grps[a].parent) {
			r->grps[a].used = true;
			if (a != g)
				r->grps[a].has_children = true;
		}
	}
	return 0;
}
