/* SPDX-License-Identifier: MIT */
/*
 * The timing wheel of the stage-1 wake-ups gives exactly the order of one
 * heap: the same timers, armed, re-armed and taken out at random, with
 * times close together (many in one 4-us slot, many equal), spread over
 * seconds and days, beyond the wheel's last level and at the end of time,
 * come out of the wheel and of a reference heap in the same (time, seq)
 * order, and the earliest is the same after every step.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"
#include "wheel.h"

#define N 4096
#define STEPS 2000000

static struct ioqos__tmr tw[N];      /* in the wheel */
static struct ioqos__hent th[N];     /* the same timers in the reference heap */
static struct rng rng = { 88172645463325252ull };

static uint64_t rnd(void)
{
	return rng_next(&rng);
}

/* a time at or after @now: near, far, equal to another, or the end of time */
static uint64_t when(uint64_t now)
{
	uint64_t r = rnd(), d;

	switch (r % 8) {
	case 0: d = 0; break;
	case 1: d = (r >> 8) % 4096; break;
	case 2: d = (r >> 8) % 1000000; break;
	case 3: d = (r >> 8) % 100000000000ull; break;
	case 4: d = (r >> 8) % (1ull << 56); break;
	case 5: return UINT64_MAX;
	case 6: d = ((r >> 8) % 16) * 1000; break;
	default: d = (r >> 8) % 64000000; break;
	}
	return d > UINT64_MAX - now ? UINT64_MAX : now + d;
}

static bool run(void)
{
	struct ioqos__wheel *w = calloc(1, sizeof(*w));
	struct ioqos__heap h = { 0 };
	uint64_t now = 0, seq = 0, fired = 0;
	long step;

	if (!CHECK_SILENT(w && !ioqos__wheel_reserve(w, N) && !ioqos__heap_reserve(&h, N),
			  "out of memory"))
		return false;
	for (int i = 0; i < N; i++) {
		ioqos__tmr_init(&tw[i]);
		th[i].idx = IOQOS__HEAP_NONE;
	}
	for (step = 0; step < STEPS; step++) {
		uint64_t r = rnd();
		int i = (int)(r % N);
		struct ioqos__tmr *t;
		struct ioqos__hent *e;

		if (r % 5 < 3) {             /* arm or re-arm: a re-armed one keeps its seq */
			uint64_t k = when(now);

			if (ioqos__tmr_armed(&tw[i])) {
				ioqos__wheel_del(w, &tw[i]);
				th[i].key = k;
				ioqos__theap_fix(&h, &th[i]);
			} else {
				tw[i].h.seq = th[i].seq = seq++;
				th[i].key = k;
				ioqos__theap_push(&h, &th[i]);
			}
			tw[i].h.key = k;
			ioqos__wheel_add(w, &tw[i]);
		} else if (r % 5 == 3) {     /* taken out */
			if (!CHECK_SILENT(ioqos__tmr_armed(&tw[i]) == ioqos__hent_in(&th[i]),
					  "armed differs at step %ld", step))
				return false;
			if (ioqos__tmr_armed(&tw[i])) {
				ioqos__wheel_del(w, &tw[i]);
				ioqos__theap_del(&h, &th[i]);
			}
		} else {                     /* time passes: fire what is due */
			uint64_t to = now + (r >> 40) % 2000000;

			now = (r >> 8) % 1000 == 0 ? when(now) : to;
			while ((e = ioqos__heap_top(&h)) && e->key <= now) {
				t = ioqos__wheel_top(w);
				if (!CHECK_SILENT(t && t == &tw[e - th],
						  "order differs at step %ld", step))
					return false;
				ioqos__wheel_del(w, t);
				ioqos__theap_del(&h, e);
				fired++;
			}
		}
		t = ioqos__wheel_top(w);
		e = ioqos__heap_top(&h);
		if (!CHECK_SILENT((t == NULL) == (e == NULL) && (!t || t == &tw[e - th]),
				  "earliest differs at step %ld", step))
			return false;
		if (now == UINT64_MAX) {
			/* the end of time: everything fired; a new clock and wheel */
			if (!CHECK_SILENT(!ioqos__heap_top(&h),
					  "left at the end of time at step %ld", step))
				return false;
			ioqos__wheel_free(w);
			*w = (struct ioqos__wheel){ 0 };
			if (!CHECK_SILENT(!ioqos__wheel_reserve(w, N),
					  "out of memory at step %ld", step))
				return false;
			now = 0;
		}
	}
	CHECK(step == STEPS, "%ld steps, %llu timers fired in the heap's order", step,
	      (unsigned long long)fired);
	ioqos__wheel_free(w);
	ioqos__heap_free(&h);
	free(w);
	return true;
}

int main(void)
{
	run();
	return th_exit();
}
