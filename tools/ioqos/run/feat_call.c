/* SPDX-License-Identifier: MIT */
/*
 * The run's hooks of the features (feat.h), called for every feature of
 * the table in its order, and each stream's list of the features it uses.
 */
#include "run/feat_call.h"
#include "run/runner_parts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct feat_ops *const none[] = { NULL };

static const struct feat_ops *const *table(const struct runner *r)
{
	return r->o->features ? r->o->features : none;
}

int feat_plan(struct runner *r, char *err, size_t errlen)
{
	for (const struct feat_ops *const *f = table(r); *f; f++) {
		int rc;

		if ((*f)->plan && (rc = (*f)->plan(r, err, errlen)))
			return rc;
	}
	return 0;
}

int feat_setup(struct runner *r, char *err, size_t errlen)
{
	for (const struct feat_ops *const *f = table(r); *f; f++) {
		int rc;

		if ((*f)->setup && (rc = (*f)->setup(r, err, errlen)))
			return rc;
	}
	return 0;
}

size_t feat_buf_len(const struct runner *r, const struct stream *s, size_t len)
{
	for (const struct feat_ops *const *f = table(r); *f; f++)
		if ((*f)->buf_len)
			len = (*f)->buf_len(s, len);
	return len;
}

int feat_buf(const struct runner *r, const struct stream *s, void *buf, size_t len,
	     uint64_t maxbs, unsigned k, char *err, size_t errlen)
{
	for (const struct feat_ops *const *f = table(r); *f; f++) {
		int rc;

		if ((*f)->buf && (rc = (*f)->buf(s, buf, len, maxbs, k, err, errlen)))
			return rc;
	}
	return 0;
}

int feat_phase(struct runner *r, unsigned phase)
{
	for (const struct feat_ops *const *f = table(r); *f; f++) {
		int rc;

		if ((*f)->phase && (rc = (*f)->phase(r, phase)))
			return rc;
	}
	return 0;
}

void feat_free(struct runner *r)
{
	for (const struct feat_ops *const *f = table(r); *f; f++)
		if ((*f)->free)
			(*f)->free(r);
}

/* has @f hook @h? */
static bool has(const struct feat_ops *f, enum feat_hook h)
{
	switch (h) {
	case HK_PREPARE:  return f->prepare;
	case HK_START:    return f->start;
	case HK_FULL:     return f->full;
	case HK_NEXT:     return f->next;
	case HK_TAKE:     return f->take;
	case HK_DRY:      return f->dry;
	case HK_GATE:     return f->gate;
	case HK_DRAWN:    return f->drawn;
	case HK_SETTLE:   return f->settle;
	case HK_QUEUED:   return f->queued;
	case HK_ISSUED:   return f->issued;
	case HK_ERROR:    return f->error;
	case HK_CHECK:    return f->check;
	case HK_DONE:     return f->done;
	case HK_FREED:    return f->freed;
	case HK_READBACK: return f->readback;
	case HK_FINISH:   return f->finish;
	case FEAT_HOOKS:  break;
	}
	return false;
}

int feat_pick(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		memset(s->nhk, 0, sizeof(s->nhk));
		for (const struct feat_ops *const *f = table(r); *f; f++) {
			if ((*f)->uses && !(*f)->uses(s))
				continue;
			for (unsigned h = 0; h < FEAT_HOOKS; h++) {
				if (!has(*f, h))
					continue;
				if (s->nhk[h] == FEAT_MAX) {
					snprintf(err, errlen, "more than %u features for "
						 "job '%s'", FEAT_MAX, s->job->name);
					return -EINVAL;
				}
				s->hk[h][s->nhk[h]++] = *f;
			}
		}
	}
	return 0;
}

int runner_timer(struct runner *r, struct stream *s, const struct feat_ops *f,
		 uint64_t t)
{
	/* the event carries the table's row; the loop only reads it */
	return ev_push(r, t, EV_FEAT, s->index, (void *)(uintptr_t)f);
}
