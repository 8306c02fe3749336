/* SPDX-License-Identifier: MIT */
/*
 * Stage-1 state is made only where a request can wait: at a group limited
 * in that direction, and below it (internal.h).  Two things are checked.
 *
 * Where it is: a tree with no limit has none; a limit on /a gives /a and
 * its subtree one in that direction only; a group created under /a later
 * gets one; a lifted limit leaves it; a removed group's is reused.
 *
 * That it changes nothing: two controllers are driven by the same random
 * steps (submits of small and large requests in both directions, dispatch
 * on a device of a few slots, completions, cancels, new limits, lows and
 * weights, groups created and removed) and must give out the same requests
 * at the same times with the same wake-ups.  They differ in one thing: in
 * the second, a limit set and lifted at time 0 on "/" in both directions
 * made stage-1 state for every group from the start, as there was before
 * it was made on demand, where the first makes it only when a limit
 * comes.
 */
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "internal.h"

#define POOL 96
#define STEPS 30000
#define SEEDS 6
#define MAXG 24

struct twin {
	struct ioqos *q[2];
	struct ioqos_req req[2][POOL];
	bool busy[POOL];             /* submitted, not yet done or cancelled */
	bool out[POOL];              /* dispatched, not done */
	unsigned long given;         /* requests given out by both */
	char path[MAXG][32];         /* the groups, "" for a removed slot */
	uint64_t now;
};

static bool has_lim(struct ioqos *q, const char *path, int d)
{
	int id = ioqos_group_find(q, path);

	return id >= 0 && ioqos__g(q, (uint32_t)id)->lim[d] != NULL;
}

static void where(void)
{
	struct ioqos *q = ioqos_new();
	char err[128];
	struct ioqos_req *back;
	int id;

	ioqos_group(q, "/a/x");
	ioqos_group(q, "/b/y");
	CHECK(!has_lim(q, "/", 0) && !has_lim(q, "/a/x", 0) && !has_lim(q, "/b/y", 1),
	      "no limit anywhere: no stage-1 state anywhere");
	CHECK(ioqos_set(q, "/a", "rbps=1M weight=300", 0, err, sizeof(err)) == 0, "set /a");
	CHECK(has_lim(q, "/a", 0) && has_lim(q, "/a/x", 0), "/a rbps: /a and /a/x have it in reads");
	CHECK(!has_lim(q, "/a", 1) && !has_lim(q, "/a/x", 1), "... and not in writes");
	CHECK(!has_lim(q, "/", 0) && !has_lim(q, "/b", 0) && !has_lim(q, "/b/y", 0),
	      "... and neither / nor /b nor /b/y");
	ioqos_group(q, "/a/z");
	CHECK(has_lim(q, "/a/z", 0), "a group made under /a has it");
	CHECK(ioqos_set(q, "/b/y", "wbps=max rbps_low=1k", 0, err, sizeof(err)) == 0,
	      "set /b/y");
	CHECK(!has_lim(q, "/b/y", 1) && !has_lim(q, "/b/y", 0), "max and a low make none");
	CHECK(ioqos_set(q, "/a", "rbps=max", 0, err, sizeof(err)) == 0, "lift /a");
	CHECK(has_lim(q, "/a", 0) && has_lim(q, "/a/z", 0), "a lifted limit leaves it");
	id = ioqos_group_find(q, "/a/z");
	CHECK(ioqos_group_remove(q, (uint32_t)id, 0, &back) == 0, "remove /a/z");
	CHECK(q->free_lims != NULL, "its state waits for reuse");
	ioqos_group(q, "/a/w");
	CHECK(q->free_lims == NULL && has_lim(q, "/a/w", 0), "and is reused");
	ioqos_free(q);
}

static int find_idx(struct twin *t, int c, const struct ioqos_req *r)
{
	return r ? (int)(r - t->req[c]) : -1;
}

static bool twin_set(struct twin *t, const char *path, const char *set)
{
	char err[160];
	int a = ioqos_set(t->q[0], path, set, t->now, err, sizeof(err));
	int b = ioqos_set(t->q[1], path, set, t->now, err, sizeof(err));

	CHECK_SILENT(a == b, "set %s '%s' alike: %d and %d", path, set, a, b);
	return a == 0;
}

static int rnd_group(struct twin *t, struct rng *rg)
{
	for (int tries = 0; tries < 64; tries++) {
		int i = (int)rng_below(rg, MAXG);

		if (t->path[i][0])
			return i;
	}
	return 0;
}

static void twin_step(struct twin *t, struct rng *rg)
{
	uint64_t op = rng_below(rg, 100);
	char set[96];

	if (op < 35) {                            /* submit */
		int i = (int)rng_below(rg, POOL), g = rnd_group(t, rg), ids[2];
		uint64_t bytes = rng_chance(rg, 0.1) ? rng_range(rg, 64 * KIB, 1024 * KIB) :
				 rng_range(rg, 512, 16 * KIB);
		uint8_t dir = (uint8_t)rng_below(rg, 2);

		if (t->busy[i])
			return;
		for (int c = 0; c < 2; c++) {
			ids[c] = ioqos_group_find(t->q[c], t->path[g]);
			t->req[c][i] = req_make((uint32_t)ids[c], dir, bytes);
		}
		CHECK_SILENT(ids[0] == ids[1], "same id");
		int a = ioqos_submit(t->q[0], &t->req[0][i], t->now);
		int b = ioqos_submit(t->q[1], &t->req[1][i], t->now);

		CHECK_SILENT(a == b, "submit alike");
		t->busy[i] = a == 0;
	} else if (op < 65) {                     /* next, and time moves on */
		uint64_t w[2];
		struct ioqos_req *r[2];

		for (int c = 0; c < 2; c++)
			r[c] = ioqos_next(t->q[c], t->now, &w[c]);
		CHECK_SILENT(find_idx(t, 0, r[0]) == find_idx(t, 1, r[1]) && w[0] == w[1],
			     "next at %" PRIu64 ": request %d and %d, wake %" PRIu64 " and %" PRIu64,
			     t->now, find_idx(t, 0, r[0]), find_idx(t, 1, r[1]), w[0], w[1]);
		if (r[0]) {
			t->out[find_idx(t, 0, r[0])] = true;
			t->given++;
		}
		else if (w[0] != UINT64_MAX && w[0] > t->now && rng_chance(rg, 0.9))
			t->now = w[0];
		else
			t->now += rng_below(rg, T_MS(5));
	} else if (op < 86) {                     /* done: one of those out */
		int i = (int)rng_below(rg, POOL);

		while (i < POOL && !t->out[i])
			i++;
		if (i == POOL)
			return;
		CHECK_SILENT(ioqos_done(t->q[0], &t->req[0][i], t->now) ==
			     ioqos_done(t->q[1], &t->req[1][i], t->now), "done alike");
		t->out[i] = t->busy[i] = false;
	} else if (op < 89) {                     /* cancel */
		int i = (int)rng_below(rg, POOL);

		if (!t->busy[i] || t->out[i])
			return;
		CHECK_SILENT(ioqos_cancel(t->q[0], &t->req[0][i]) ==
			     ioqos_cancel(t->q[1], &t->req[1][i]), "cancel alike");
		t->busy[i] = false;
	} else if (op < 97) {                     /* settings */
		int g = rnd_group(t, rg);
		uint64_t k = rng_below(rg, 6);
		const char *key = k < 2 ? "rbps" : k < 4 ? "wbps" : k == 4 ? "rbps_low" : "weight";

		if (k == 5)
			snprintf(set, sizeof(set), "weight=%" PRIu64, rng_range(rg, 1, 1000));
		else if (rng_chance(rg, 0.25) && k < 4)
			snprintf(set, sizeof(set), "%s=max", key);
		else
			snprintf(set, sizeof(set), "%s=%" PRIu64, key,
				 k == 4 ? rng_range(rg, 1, 256) * KIB : rng_range(rg, 256, 65536) * KIB);
		twin_set(t, t->path[g], set);
	} else {                                  /* a group made or removed */
		int i = (int)rng_below(rg, MAXG);

		if (!i)
			return;
		if (!t->path[i][0]) {
			int p = rnd_group(t, rg);

			if (strlen(t->path[p]) > 20)
				return;
			snprintf(t->path[i], sizeof(t->path[i]), "%s/g%d",
				 strcmp(t->path[p], "/") ? t->path[p] : "", i);
			CHECK_SILENT(ioqos_group(t->q[0], t->path[i]) ==
				     ioqos_group(t->q[1], t->path[i]), "group alike");
		} else {
			int id = ioqos_group_find(t->q[0], t->path[i]), a, b;
			struct ioqos_req *back[2];

			a = ioqos_group_remove(t->q[0], (uint32_t)id, t->now, &back[0]);
			b = ioqos_group_remove(t->q[1], (uint32_t)id, t->now, &back[1]);
			CHECK_SILENT(a == b, "remove alike");
			if (a)
				return;   /* it has children */
			for (; back[0]; back[0] = back[0]->_next, back[1] = back[1]->_next) {
				CHECK_SILENT(find_idx(t, 0, back[0]) == find_idx(t, 1, back[1]),
					     "same requests given back");
				t->busy[find_idx(t, 0, back[0])] = false;
			}
			t->path[i][0] = '\0';
		}
	}
}

static void twins(uint64_t seed)
{
	static struct twin t;
	struct rng rg = rng_seed(seed);
	char err[64];
	unsigned long fails = th_fails();

	memset(&t, 0, sizeof(t));
	for (int c = 0; c < 2; c++)
		t.q[c] = ioqos_new();
	strcpy(t.path[0], "/");
	CHECK(ioqos_set(t.q[1], "/", "rbps=1 wbps=1", 0, err, sizeof(err)) == 0 &&
	      ioqos_set(t.q[1], "/", "rbps=max wbps=max", 0, err, sizeof(err)) == 0,
	      "seed %" PRIu64 ": stage 1 made everywhere in the second", seed);
	twin_set(&t, "/", "depth=4");
	for (int s = 0; s < STEPS; s++)
		twin_step(&t, &rg);
	th_quiet(false);
	CHECK(th_fails() == fails && t.given > STEPS / 20,
	      "seed %" PRIu64 ": %d steps, %lu requests given out alike", seed, STEPS, t.given);
	th_quiet(true);
	for (int c = 0; c < 2; c++)
		ioqos_free(t.q[c]);
}

int main(void)
{
	where();
	th_quiet(true);
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		twins(seed);
	th_quiet(false);
	return th_exit();
}
