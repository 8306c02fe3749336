/* SPDX-License-Identifier: MIT */
/*
 * The stage-1 wake-ups: a hierarchical timing wheel in front of a small
 * exact heap; the design is told in wheel.c.
 *
 * The caller's contract:
 *   - a timer's time (t->h.key, ns) and tie break (t->h.seq) are set by the
 *     caller before ioqos__wheel_add(); timers come out of
 *     ioqos__wheel_top() in exactly (time, seq) order, as from one heap;
 *   - ioqos__wheel_del() takes out an armed timer (ioqos__tmr_armed());
 *   - ioqos__wheel_reserve() makes room for @n timers beforehand, so that
 *     adding one never allocates.
 */
#ifndef IOQOS_WHEEL_H
#define IOQOS_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

/* a level-0 slot spans 2^IOQOS__WHEEL_SHIFT ns (4 us) */
#define IOQOS__WHEEL_SHIFT 12
/* each level has 64 slots (one bit each in a 64-bit map) */
#define IOQOS__WHEEL_BITS 6
#define IOQOS__WHEEL_SLOTS (1u << IOQOS__WHEEL_BITS)
/* 7 levels: 2^(12 + 42) ns, about 208 days; later times wait in the heap */
#define IOQOS__WHEEL_LEVELS 7
/* h.idx of a timer in slot s of level lv of the wheel: IOQOS__WHEEL_IDX0 +
 * lv * 64 + s, above every heap slot and below IOQOS__HEAP_PARKED */
#define IOQOS__WHEEL_IDX0 (IOQOS__HEAP_PARKED - 1 - IOQOS__WHEEL_LEVELS * IOQOS__WHEEL_SLOTS)

struct ioqos__tmr {
	struct ioqos__hent h;         /* key: when, ns; seq: tie break; idx: the
	                               * near heap's slot, the wheel's slot from
	                               * IOQOS__WHEEL_IDX0 on, or IOQOS__HEAP_NONE
	                               * (not armed) */
	struct ioqos__tmr *next;      /* the next timer in its wheel slot */
	struct ioqos__tmr **pprev;    /* the pointer to it in its wheel slot */
};

struct ioqos__wheel {
	struct ioqos__heap near;      /* timers in the current level-0 slot or
	                               * earlier, and beyond the last level, by
	                               * (ns, seq) */
	uint64_t base;                /* start of the current level-0 slot, ns */
	uint32_t nr_wheel;            /* timers in the levels (not the near heap) */
	uint64_t map[IOQOS__WHEEL_LEVELS];   /* bit s: slot s of a level is not empty */
	struct ioqos__tmr *slot[IOQOS__WHEEL_LEVELS][IOQOS__WHEEL_SLOTS];
};

static inline bool ioqos__tmr_armed(const struct ioqos__tmr *t)
{
	return t->h.idx != IOQOS__HEAP_NONE;
}

static inline struct ioqos__tmr *ioqos__tmr_of(struct ioqos__hent *e)
{
	return (struct ioqos__tmr *)(void *)((char *)e - __builtin_offsetof(struct ioqos__tmr, h));
}

static inline void ioqos__tmr_init(struct ioqos__tmr *t)
{
	t->h.idx = IOQOS__HEAP_NONE;
	t->next = NULL;
	t->pprev = NULL;
}

/* the level of the wheel that holds time @key, IOQOS__WHEEL_LEVELS for the
 * near heap (the current slot or before it, or too far ahead) */
static inline unsigned ioqos__wheel_level(const struct ioqos__wheel *w, uint64_t key)
{
	uint64_t diff = (key >> IOQOS__WHEEL_SHIFT) ^ (w->base >> IOQOS__WHEEL_SHIFT);
	unsigned lv;

	if (key <= w->base || !diff)
		return IOQOS__WHEEL_LEVELS;
	lv = (unsigned)(63 - __builtin_clzll(diff)) / IOQOS__WHEEL_BITS;
	return lv < IOQOS__WHEEL_LEVELS ? lv : IOQOS__WHEEL_LEVELS;
}

static inline void ioqos__wheel_add(struct ioqos__wheel *w, struct ioqos__tmr *t)
{
	unsigned lv = ioqos__wheel_level(w, t->h.key), s;
	struct ioqos__tmr **head;

	if (lv == IOQOS__WHEEL_LEVELS) {
		ioqos__theap_push(&w->near, &t->h);
		return;
	}
	s = (unsigned)(t->h.key >> (IOQOS__WHEEL_SHIFT + IOQOS__WHEEL_BITS * lv)) &
	    (IOQOS__WHEEL_SLOTS - 1);
	head = &w->slot[lv][s];
	t->next = *head;
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = head;
	*head = t;
	t->h.idx = IOQOS__WHEEL_IDX0 + lv * IOQOS__WHEEL_SLOTS + s;
	w->map[lv] |= 1ull << s;
	w->nr_wheel++;
}

static inline void ioqos__wheel_del(struct ioqos__wheel *w, struct ioqos__tmr *t)
{
	uint32_t i = t->h.idx - IOQOS__WHEEL_IDX0;

	if (t->h.idx < IOQOS__WHEEL_IDX0) {
		ioqos__theap_del(&w->near, &t->h);
		return;
	}
	w->nr_wheel--;
	*t->pprev = t->next;
	if (t->next)
		t->next->pprev = t->pprev;
	else if (t->pprev == &w->slot[i / IOQOS__WHEEL_SLOTS][i % IOQOS__WHEEL_SLOTS])
		/* it was alone in its slot: the slot is empty now */
		w->map[i / IOQOS__WHEEL_SLOTS] &= ~(1ull << (i % IOQOS__WHEEL_SLOTS));
	t->next = NULL;
	t->pprev = NULL;
	t->h.idx = IOQOS__HEAP_NONE;
}

struct ioqos__tmr *ioqos__wheel_top_(struct ioqos__wheel *w);

/* the earliest timer, NULL for none (moves timers within, changes no order) */
static inline struct ioqos__tmr *ioqos__wheel_top(struct ioqos__wheel *w)
{
	if (!w->nr_wheel) {   /* the common cases: nothing waits, or all is near */
		struct ioqos__hent *e = ioqos__heap_top(&w->near);

		return e ? ioqos__tmr_of(e) : NULL;
	}
	return ioqos__wheel_top_(w);
}

/* room for @n timers; 0 or -ENOMEM */
static inline int ioqos__wheel_reserve(struct ioqos__wheel *w, uint32_t n)
{
	return ioqos__heap_reserve(&w->near, n);
}

static inline void ioqos__wheel_free(struct ioqos__wheel *w)
{
	ioqos__heap_free(&w->near);
}

#endif
