/* SPDX-License-Identifier: MIT */
/*
 * The stage-1 wake-ups: a hierarchical timing wheel with exact times.
 *
 * The problem.  Every stage-1 node that waits on its buckets has a time at
 * which its head request can pass, and the controller fires them in order
 * of (time, sequence number): the same order in every run.  One heap of
 * all of them costs O(log n) per change, and with 100,000 waiting nodes
 * each change walks eight or nine levels of a heap that is not in any
 * cache, while a busy tree re-arms a few timers per request.
 *
 * The algorithm (Varghese and Lauck's hierarchical wheel, as Linux's timer
 * wheel and Carousel use it, with the times kept exact):
 *
 *   level 0: 64 slots of 4 us        |  near: a small exact heap of the
 *   level 1: 64 slots of 256 us      |  timers of the current 4-us slot
 *   level 2: 64 slots of 16 ms       |  (and of any earlier time), by
 *   ...                              |  (ns, seq)
 *   level 6: 64 slots of 2^48 ns     |
 *
 * `base` is the start of the current level-0 slot.  A timer due in that
 * slot or before goes into the near heap; any other goes into the level
 * whose digit (6 bits of time / 4 us) is the highest one where its time
 * differs from base, at the slot that digit names: an O(1) list insertion,
 * and removal is an unlink.  So every timer in level k shares base's
 * digits above k and is later than everything in levels below k: the
 * earliest timer of the wheel is in the first non-empty slot (a
 * find-first-set over a 64-bit map) of the lowest non-empty level.
 *
 * When the near heap has nothing due up to the end of the current slot,
 * that slot is taken out: base moves to its start and its timers are put
 * in again, relative to the new base (a level-0 slot goes into the near
 * heap, a higher one spreads over the levels below it).  A timer moves at
 * most once per level, so the cost is O(levels) per timer, whatever their
 * number, and the near heap holds only the timers of one 4-us slot.
 *
 * Exactness.  Nothing is rounded: a timer keeps its time in ns and its
 * sequence number, and the near heap orders them exactly.  Two timers of
 * the same time are always in the same place (a time at or before base's
 * slot goes to the near heap, a later one to the wheel, and a wheel slot
 * enters the near heap whole), so they come out by their sequence numbers
 * as from one heap: the wheel changes the cost, never the order.  Times
 * beyond the last level (208 days ahead of base, and the end of time,
 * UINT64_MAX) wait in the near heap too.
 *
 * Example: base = 0, timers at 10 us (10000 / 4096 = 2: level 0, slot 2),
 * 300 us (73 units of 4 us = 1 * 64 + 9: level 1, slot 1) and 20 s (level
 * 3, slot 18).  The top is sought: the near heap is empty, level 0 has
 * slot 2, base becomes 8192 ns and the 10-us timer enters the near heap.
 * Once it has fired, level 0 is empty; level 1 slot 1 moves base to
 * 262144 ns and its timer to level 0 slot 9, and from there, when it is
 * sought, into the near heap.
 *
 * Known weakness: base never goes back, so a timer armed before base's
 * slot (a node due at a time already passed) goes to the near heap; it is
 * due, and leaves it at the next ioqos_next().
 */
#include "wheel.h"

/* take slot @s of level @lv out: base moves to its start, its timers in again */
static void cascade(struct ioqos__wheel *w, unsigned lv, unsigned s)
{
	unsigned sh = IOQOS__WHEEL_SHIFT + IOQOS__WHEEL_BITS * lv;
	uint64_t above = sh + IOQOS__WHEEL_BITS >= 64 ? 0 :
			 w->base >> (sh + IOQOS__WHEEL_BITS) << (sh + IOQOS__WHEEL_BITS);
	struct ioqos__tmr *t = w->slot[lv][s], *next;

	w->slot[lv][s] = NULL;
	w->map[lv] &= ~(1ull << s);
	w->base = above | (uint64_t)s << sh;
	for (; t; t = next) {
		next = t->next;
		t->next = NULL;
		t->pprev = NULL;
		w->nr_wheel--;   /* counted again as it goes back in */
		ioqos__wheel_add(w, t);
	}
}

struct ioqos__tmr *ioqos__wheel_top_(struct ioqos__wheel *w)
{
	for (;;) {
		struct ioqos__hent *e = ioqos__heap_top(&w->near);
		unsigned lv;

		if (e && e->key >> IOQOS__WHEEL_SHIFT <= w->base >> IOQOS__WHEEL_SHIFT)
			return ioqos__tmr_of(e);   /* before anything in the wheel */
		for (lv = 0; lv < IOQOS__WHEEL_LEVELS && !w->map[lv]; lv++)
			;
		if (lv == IOQOS__WHEEL_LEVELS)
			return e ? ioqos__tmr_of(e) : NULL;
		cascade(w, lv, (unsigned)__builtin_ctzll(w->map[lv]));
	}
}
