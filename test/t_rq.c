/* SPDX-License-Identifier: MIT */
/*
 * The radix fair queue gives exactly the order of one heap: the same
 * sources, joining at the virtual time or after it, served at the top
 * (their tag grows by a delta of one of several weights, or they leave),
 * taken out, and given new tags either way, come out of the radix queue
 * and of a reference heap in the same (tag, seq) order, and the lowest is
 * the same after every step.  Tags tie often (equal deltas, joins at v),
 * the virtual time starts just below 2^64 and wraps, the queue starts as
 * a plain heap and becomes a radix queue with sources in it (as a node
 * that gains many children does), and it is rebuilt now and then with a
 * slot width of 2^0 .. 2^28, besides the widths it chooses itself.  A walk
 * over every position finds each queued source once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"
#include "rq.h"

#define N 2048
#define STEPS 1000000

static struct ioqos__hent ea[N];     /* in the radix queue */
static struct ioqos__hent eb[N];     /* the same sources in the reference heap */
static struct rng rng = { 88172645463325252ull };

static uint64_t rnd(void)
{
	return rng_next(&rng);
}

/* a service delta: a few weights and costs, so that many tie */
static uint64_t delta(uint64_t r)
{
	switch (r % 7) {
	case 0: return 0;
	case 6: return (r >> 8) % (1ull << 60);   /* the largest step (fq.h) */
	case 1: return 1u << 20;
	case 2: return 3u << 22;
	case 3: return (r >> 8) % (1ull << 32);
	case 4: return (r >> 8) % (1ull << 44);
	default: return (1ull << 30) / (1 + (r >> 8) % 1000);   /* case 5 */
	}
}

/*
 * Widest slots (2^28: level 5 spans all 64 bits), tags up to the largest
 * step apart across the wrap: the tag that wrapped is later than one in
 * level 5's last slot, though its slot there would come first.
 */
static int wrap_case(void)
{
	static struct ioqos__hent t[3];
	struct ioqos__rq *rq = NULL;
	struct ioqos__heap h = { 0 };
	uint64_t q = 1ull << 58;
	int ok;

	if (ioqos__heap_reserve(&h, IOQOS__RQ_MIN) ||
	    ioqos__rq_reserve(&rq, IOQOS__RQ_MIN, 0))
		return 0;
	ioqos__rq_rebuild(rq, &h, IOQOS__RQ_SH_MAX);
	t[0].key = 62 * q;                       /* base's slot */
	t[1].key = 63 * q + 5;                   /* level 5, slot 63 */
	t[2].key = t[1].key + (1ull << 60);      /* wrapped: slot 3 */
	for (int i = 0; i < 3; i++) {
		t[i].seq = (uint64_t)i;
		ioqos__rq_push(rq, &h, &t[i]);
	}
	ok = ioqos__rq_top(rq, &h) == &t[0];
	ioqos__rq_del(rq, &h, &t[0]);
	ok = ok && ioqos__rq_top(rq, &h) == &t[1];
	ioqos__rq_del(rq, &h, &t[1]);
	ok = ok && ioqos__rq_top(rq, &h) == &t[2];
	ioqos__rq_free(rq);
	ioqos__heap_free(&h);
	return ok;
}

/*
 * @STEPS random steps; the queue is a plain heap of room for all until step
 * @convert (then a radix queue whose near heap is that heap), or, with
 * @convert 0, a radix queue from the start whose near heap has @near slots
 * only, so that it fills and the sorted run takes what it cannot hold.
 */
static bool run(long convert, uint32_t near)
{
	struct ioqos__rq *rq = NULL;
	struct ioqos__heap ha = { 0 }, hb = { 0 };
	uint64_t v = UINT64_MAX - (1ull << 30), seq = 0, served = 0, wraps = 0;
	long step;

	if (!CHECK_SILENT(!ioqos__heap_reserve(&ha, convert ? N : near) &&
			  !ioqos__heap_reserve(&hb, N), "out of memory"))
		return false;
	for (int i = 0; i < N; i++)
		ea[i].idx = eb[i].idx = IOQOS__HEAP_NONE;
	for (step = 0; step < STEPS; step++) {
		uint64_t r = rnd();
		int i = (int)(r % N);
		struct ioqos__hent *a, *b;

		if (step == convert &&    /* many children now */
		    !CHECK_SILENT(!ioqos__rq_reserve(&rq, N, v), "out of memory at step %ld",
				  step))
			return false;
		if (step % 100000 == 99999) {
			/* all served in order until idle; the virtual time then
			 * goes on just below the wrap, and the width is another */
			while ((b = ioqos__heap_top(&hb)) != NULL) {
				a = rq ? ioqos__rq_top(rq, &ha) : ioqos__heap_top(&ha);
				if (!CHECK_SILENT(a - ea == b - eb,
						  "order differs while draining at step %ld", step))
					return false;
				if (rq)
					ioqos__rq_del(rq, &ha, a);
				else
					ioqos__heap_del(&ha, a);
				ioqos__heap_del(&hb, b);
			}
			v = UINT64_MAX - rnd() % (1ull << 34);
			if (rq)
				ioqos__rq_rebuild(rq, &ha, (unsigned)(r % (IOQOS__RQ_SH_MAX + 1)));
		}
		if (r % 11 < 5) {            /* a source joins: at v, or at its finish tag */
			if (ioqos__hent_in(&eb[i]))
				continue;
			ea[i].key = eb[i].key = (r >> 40) % 3 ? v : v + delta(r >> 12);
			ea[i].seq = eb[i].seq = seq++;
			if (rq)
				ioqos__rq_push(rq, &ha, &ea[i]);
			else
				ioqos__heap_push(&ha, &ea[i]);
			ioqos__heap_push(&hb, &eb[i]);
		} else if (r % 11 < 9) {     /* the top is served */
			b = ioqos__heap_top(&hb);
			if (!b)
				continue;
			i = (int)(b - eb);
			uint64_t old = b->key;

			if (old < v)
				wraps++;
			v = old;
			served++;
			if ((r >> 50) % 8 == 0) {        /* not busy any more */
				if (rq)
					ioqos__rq_del(rq, &ha, &ea[i]);
				else
					ioqos__heap_del(&ha, &ea[i]);
				ioqos__heap_del(&hb, b);
				continue;
			}
			ea[i].key = eb[i].key = old + delta(r >> 8);
			ea[i].seq = eb[i].seq = seq++;
			if (rq)
				ioqos__rq_requeue(rq, &ha, &ea[i], old);
			else
				ioqos__heap_down(&ha, ea[i].idx);
			ioqos__heap_down(&hb, eb[i].idx);
		} else if (r % 11 == 9) {    /* taken out (cancelled) */
			if (!CHECK_SILENT(ioqos__hent_in(&ea[i]) == ioqos__hent_in(&eb[i]),
					  "queued differs at step %ld", step))
				return false;
			if (!ioqos__hent_in(&eb[i]))
				continue;
			if (rq)
				ioqos__rq_del(rq, &ha, &ea[i]);
			else
				ioqos__heap_del(&ha, &ea[i]);
			ioqos__heap_del(&hb, &eb[i]);
		} else {                     /* a new tag either way (a weight change) */
			if (!ioqos__hent_in(&eb[i]))
				continue;
			ea[i].key = eb[i].key = v + delta(r >> 8) / 2;
			if (rq) {
				ioqos__rq_del(rq, &ha, &ea[i]);
				ioqos__rq_push(rq, &ha, &ea[i]);
			} else {
				ioqos__heap_fix(&ha, &ea[i]);
			}
			ioqos__heap_fix(&hb, &eb[i]);
		}
		if (rq && (r >> 20) % 5000 == 0)
			ioqos__rq_rebuild(rq, &ha, (unsigned)((r >> 32) % (IOQOS__RQ_SH_MAX + 1)));
		a = rq ? ioqos__rq_top(rq, &ha) : ioqos__heap_top(&ha);
		b = ioqos__heap_top(&hb);
		if (!CHECK_SILENT((a == NULL) == (b == NULL) && (!a || a - ea == b - eb),
				  "top differs at step %ld", step))
			return false;
		if (rq && (r >> 24) % 20000 == 0) {   /* a walk finds each once */
			static uint8_t seen[N];
			uint32_t pos = 0, n = 0;

			for (int j = 0; j < N; j++)
				seen[j] = 0;
			while ((a = ioqos__rq_at(rq, &ha, &pos)) != NULL) {
				if (!CHECK_SILENT(!seen[a - ea]++ && ioqos__hent_in(&eb[a - ea]) &&
						  ioqos__rq_pos(&ha, a) + 1 == pos,
						  "walk differs at step %ld", step))
					return false;
				n++;
			}
			if (!CHECK_SILENT(n == hb.n && n == ha.n + rq->nr,
					  "walk count differs at step %ld", step))
				return false;
		}
	}
	if (!CHECK(rq && wraps, "%ld steps, near heap of %u, %llu served in the heap's order, "
		   "the tags wrapped, slot width 2^%u at the end", step, ha.cap,
		   (unsigned long long)served, rq ? rq->sh : 0))
		return false;
	ioqos__rq_free(rq);
	ioqos__heap_free(&ha);
	ioqos__heap_free(&hb);
	return true;
}

int main(void)
{
	if (CHECK(wrap_case(), "the wrapped tag comes after the one in level 5's last slot"))
		(void)(run(20000, 0) && run(0, 16) && run(0, 1));
	return th_exit();
}
