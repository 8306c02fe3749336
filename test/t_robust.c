/* SPDX-License-Identifier: MIT */
/*
 * No caller can hang or corrupt the controller: times that go backwards or
 * jump to the end of time, sizes up to 2^64 - 1, requests submitted twice,
 * completed twice or handed to the wrong controller.  Each case returns at
 * once with the documented result, and the counts stay right.
 *
 * 1. A wait longer than 2^63 ns: 1 TiB at 1 B/s.  It saturates at the end
 *    of time (wake UINT64_MAX); a call at 2^63 + 1 ns, where a wait capped
 *    near 2^63 used to re-arm the same past key for ever, returns NULL.
 * 2. A call 1 s in the past: / wbps=1, 1 TiB submitted at 2 s, then
 *    ioqos_next() at 1 s: NULL, the clock stays at 2 s.
 * 3. Time backwards with exact figures: / wbps=1000, A (4000 B) at 0 goes
 *    at 4 s; B (1000 B) submitted "at 0.5 s" after a call at 1 s is taken
 *    at 1 s and goes at 5 s, even when asked for at 3 s in between; its
 *    wait is 4 s.
 * 4. A wait that ends exactly 1 ns before 2^63: 9223372036 B at 1 B/s go at
 *    9223372036 s; the caller wakes 1 ns late; the next byte is due 1 s
 *    after the first was due.
 * 5. The end of time: a request that cannot pass before UINT64_MAX stays
 *    queued and is cancelled; an unlimited controller still dispatches at
 *    UINT64_MAX; a low limit's "falls below at" cannot loop there.
 * 6. 2^64 - 1 bytes under rbps=2^62 go at exactly 4 s (the cap of the
 *    bucket, depth + largest request, no longer wraps).
 * 7. Double submit, submit in flight, double done, done and cancel of
 *    another controller's request, done of a request never dispatched:
 *    -EBUSY / -EINVAL, and neither controller's counts move.
 */
#include <signal.h>
#include <unistd.h>

#include "helpers.h"

static void huge_wait(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req a = req_make(0, IOQOS_WRITE, 1ull << 40);
	uint64_t wake = 0;

	set_ok(q, "/", "wbps=1", 0);
	CHECK_EQ_INT("1. submit", 0, ioqos_submit(q, &a, 0));
	CHECK(ioqos_next(q, 0, &wake) == NULL, "1. nothing at 0");
	CHECK_EQ("1. wake: the end of time", UINT64_MAX, wake);
	CHECK(ioqos_next(q, (1ull << 63) + 1, &wake) == NULL, "1. nothing at 2^63 + 1");
	CHECK_EQ("1. wake still the end of time", UINT64_MAX, wake);
	CHECK(ioqos_next(q, UINT64_MAX, &wake) == NULL, "1. nothing at the end of time");
	CHECK_EQ("1. wake after the end", UINT64_MAX, wake);
	CHECK_EQ("1. still queued", 1, ioqos_queued(q));
	CHECK_EQ_INT("1. cancel", 0, ioqos_cancel(q, &a));
	CHECK_EQ("1. queued after cancel", 0, ioqos_queued(q));
	ioqos_free(q);
}

static void past_call(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req a = req_make(0, IOQOS_WRITE, 1ull << 40);
	struct ioqos_device dev;
	uint64_t wake = 0;

	set_ok(q, "/", "wbps=1", 0);
	CHECK_EQ_INT("2. submit at 2 s", 0, ioqos_submit(q, &a, T_S(2)));
	CHECK(ioqos_next(q, T_S(1), &wake) == NULL, "2. nothing at 1 s");
	CHECK_EQ("2. wake", UINT64_MAX, wake);
	ioqos_device(q, &dev);
	CHECK_EQ("2. the clock stays at 2 s", T_S(2), dev.clock_ns);
	CHECK_EQ_INT("2. cancel", 0, ioqos_cancel(q, &a));
	ioqos_free(q);
}

static void backwards_exact(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req a = req_make(0, IOQOS_WRITE, 4000), b = req_make(0, IOQOS_WRITE, 1000);
	struct ioqos_stats st;
	uint64_t wake = 0;

	set_ok(q, "/", "wbps=1000", 0);
	ioqos_submit(q, &a, 0);
	CHECK(ioqos_next(q, T_S(1), &wake) == NULL, "3. nothing at 1 s");
	CHECK_EQ("3. A due at 4 s", T_S(4), wake);
	CHECK_EQ_INT("3. B submitted in the past", 0, ioqos_submit(q, &b, T_MS(500)));
	CHECK(ioqos_next(q, T_S(4) - 1, &wake) == NULL, "3. nothing 1 ns early");
	CHECK(ioqos_next(q, T_S(4), &wake) == &a, "3. A at 4 s");
	CHECK(ioqos_next(q, T_S(4), &wake) == NULL, "3. B not yet");
	CHECK_EQ("3. B due at 5 s", T_S(5), wake);
	CHECK(ioqos_next(q, T_S(3), &wake) == NULL, "3. a call at 3 s: nothing");
	CHECK_EQ("3. B still due at 5 s", T_S(5), wake);
	CHECK(ioqos_next(q, T_S(5), &wake) == &b, "3. B at 5 s");
	CHECK_EQ("3. nothing waits", UINT64_MAX, wake);
	CHECK_EQ_INT("3. done A in the past", 0, ioqos_done(q, &a, T_S(2)));
	CHECK_EQ_INT("3. done B", 0, ioqos_done(q, &b, T_S(6)));
	ioqos_stats_id(q, 0, &st);
	CHECK_EQ("3. waited", 2, st.waited[IOQOS_WRITE]);
	CHECK_EQ("3. wait_ns: 4 s + 4 s", T_S(8), st.wait_ns[IOQOS_WRITE]);
	CHECK_EQ("3. max wait", T_S(4), st.max_wait_ns[IOQOS_WRITE]);
	CHECK_EQ("3. done", 2, st.done);
	ioqos_free(q);
}

static void near_2_63(void)
{
	struct ioqos *q = ioqos_new();
	const uint64_t n = 9223372036ull, t = n * NS_PER_S;   /* t < 2^63 */
	struct ioqos_req a = req_make(0, IOQOS_READ, n), b = req_make(0, IOQOS_READ, 1);
	uint64_t wake = 0;

	set_ok(q, "/", "rbps=1", 0);
	ioqos_submit(q, &a, 0);
	ioqos_submit(q, &b, 0);
	CHECK(ioqos_next(q, 0, &wake) == NULL, "4. nothing at 0");
	CHECK_EQ("4. A due", t, wake);
	CHECK(ioqos_next(q, t + 1, &wake) == &a, "4. A, 1 ns late");
	CHECK(ioqos_next(q, t + 1, &wake) == NULL, "4. B not yet");
	CHECK_EQ("4. B due 1 s after A was", t + NS_PER_S, wake);
	CHECK(ioqos_next(q, t + NS_PER_S, &wake) == &b, "4. B");
	CHECK_EQ("4. queued", 0, ioqos_queued(q));
	ioqos_free(q);
}

static void end_of_time(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req a = req_make(0, IOQOS_READ, UINT64_MAX), u;
	struct ioqos_req x[4];
	uint32_t ga, gb;
	uint64_t wake = 0;
	int i;

	/* 2^64 - 1 bytes at 1 B/s: never */
	set_ok(q, "/", "rbps=1", 0);
	ioqos_submit(q, &a, UINT64_MAX);
	CHECK(ioqos_next(q, UINT64_MAX, &wake) == NULL, "5. nothing at the end");
	CHECK_EQ("5. wake", UINT64_MAX, wake);
	CHECK(ioqos_next(q, 0, &wake) == NULL, "5. nothing at 0 after the end");
	CHECK_EQ_INT("5. cancel", 0, ioqos_cancel(q, &a));
	/* the limit lifted: the same request goes at once */
	CHECK_EQ_INT("5. resubmit after cancel", 0, ioqos_submit(q, &a, 0));
	set_ok(q, "/", "rbps=max", 0);
	CHECK(ioqos_next(q, 0, &wake) == &a, "5. goes once the limit is lifted");
	CHECK_EQ_INT("5. done", 0, ioqos_done(q, &a, 0));
	ioqos_free(q);

	/* an unlimited controller at the end of time */
	q = ioqos_new();
	u = req_make(0, IOQOS_WRITE, 4096);
	ioqos_submit(q, &u, UINT64_MAX);
	CHECK(ioqos_next(q, UINT64_MAX, &wake) == &u, "5. unlimited at the end of time");
	CHECK_EQ_INT("5. done at 0", 0, ioqos_done(q, &u, 0));
	CHECK_EQ("5. inflight", 0, ioqos_inflight(q));
	ioqos_free(q);

	/* a low limit at the end of time: /a is below its low there */
	q = ioqos_new();
	set_ok(q, "/", "depth=1", 0);
	ga = grp(q, "/a");
	gb = grp(q, "/b");
	set_ok(q, "/a", "wbps_low=1000", 0);
	for (i = 0; i < 4; i++) {
		x[i] = req_make(i < 2 ? gb : ga, IOQOS_WRITE, 4096);
		ioqos_submit(q, &x[i], T_S(1));
	}
	CHECK(ioqos_next(q, T_S(1), &wake) == &x[0], "5. /b first: nothing contended");
	CHECK_EQ_INT("5. done", 0, ioqos_done(q, &x[0], UINT64_MAX));
	CHECK(ioqos_next(q, UINT64_MAX, &wake) == &x[2], "5. /a, below its low");
	CHECK_EQ_INT("5. done", 0, ioqos_done(q, &x[2], UINT64_MAX));
	CHECK(ioqos_next(q, UINT64_MAX, &wake) != NULL, "5. one more");
	CHECK_EQ("5. queued", 1, ioqos_queued(q));
	ioqos_free(q);
}

static void huge_request(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req a = req_make(0, IOQOS_READ, UINT64_MAX);
	uint64_t wake = 0;

	set_ok(q, "/", "rbps=4611686018427387904", 0);
	ioqos_submit(q, &a, 0);
	CHECK(ioqos_next(q, 0, &wake) == NULL, "6. nothing at 0");
	/* ceil((2^64 - 1) * 10^9 / 2^62) */
	CHECK_EQ("6. due at 4 s", T_S(4), wake);
	CHECK(ioqos_next(q, T_S(4) - 1, &wake) == NULL, "6. not 1 ns early");
	CHECK(ioqos_next(q, T_S(4), &wake) == &a, "6. at 4 s");
	ioqos_free(q);
}

static void misuse(void)
{
	struct ioqos *q = ioqos_new(), *q2 = ioqos_new();
	struct ioqos_req a = req_make(0, IOQOS_READ, 4096), b = req_make(0, IOQOS_READ, 4096);
	struct ioqos_req o = req_make(0, IOQOS_READ, 4096), never = req_make(0, IOQOS_READ, 1);
	struct ioqos_req junk = req_make(0, IOQOS_READ, 1);
	struct ioqos_stats st;
	uint64_t wake;

	set_ok(q, "/", "depth=1 rbps=4096", 0);
	CHECK_EQ_INT("7. submit a", 0, ioqos_submit(q, &a, 0));
	CHECK_EQ_INT("7. a again: queued", -EBUSY, ioqos_submit(q, &a, 0));
	CHECK_EQ_INT("7. a to another controller", -EBUSY, ioqos_submit(q2, &a, 0));
	CHECK_EQ("7. queued", 1, ioqos_queued(q));
	CHECK_EQ("7. q2 queued", 0, ioqos_queued(q2));
	CHECK_EQ_INT("7. done of a queued request", -EINVAL, ioqos_done(q, &a, 0));
	CHECK_EQ_INT("7. cancel by another controller", -EINVAL, ioqos_cancel(q2, &a));
	CHECK_EQ_INT("7. done of one never submitted", -EINVAL, ioqos_done(q, &never, 0));
	CHECK_EQ_INT("7. cancel of one never submitted", -EINVAL, ioqos_cancel(q, &never));
	junk._state = 0x7f;
	CHECK_EQ_INT("7. submit of a request with a state no controller wrote",
		     -EINVAL, ioqos_submit(q, &junk, 0));

	CHECK(ioqos_next(q, T_S(1), &wake) == &a, "7. a at 1 s");
	CHECK_EQ_INT("7. a again: in flight", -EBUSY, ioqos_submit(q, &a, T_S(1)));
	CHECK_EQ("7. inflight", 1, ioqos_inflight(q));
	CHECK_EQ_INT("7. cancel in flight", -EBUSY, ioqos_cancel(q, &a));

	/* another controller's dispatched request */
	ioqos_submit(q2, &o, 0);
	CHECK(ioqos_next(q2, 0, &wake) == &o, "7. q2 dispatches o");
	CHECK_EQ_INT("7. done of q2's request on q", -EINVAL, ioqos_done(q, &o, T_S(1)));
	CHECK_EQ_INT("7. cancel of q2's dispatched request on q", -EINVAL,
		     ioqos_cancel(q, &o));
	CHECK_EQ("7. q inflight unchanged", 1, ioqos_inflight(q));
	CHECK_EQ("7. q2 inflight", 1, ioqos_inflight(q2));

	CHECK_EQ_INT("7. done a", 0, ioqos_done(q, &a, T_S(1)));
	CHECK_EQ_INT("7. done a twice", -EINVAL, ioqos_done(q, &a, T_S(1)));
	CHECK_EQ_INT("7. cancel of a done request", -EINVAL, ioqos_cancel(q, &a));
	CHECK_EQ("7. inflight 0", 0, ioqos_inflight(q));

	/* the depth slot is free: b goes when its tokens are there */
	ioqos_submit(q, &b, T_S(1));
	CHECK(ioqos_next(q, T_S(2), &wake) == &b, "7. b at 2 s");
	CHECK_EQ_INT("7. done b", 0, ioqos_done(q, &b, T_S(2)));
	/* a completed request may be submitted again as it is */
	CHECK_EQ_INT("7. reuse a", 0, ioqos_submit(q, &a, T_S(2)));
	CHECK(ioqos_next(q, T_S(3), &wake) == &a, "7. a again at 3 s");
	CHECK_EQ_INT("7. done", 0, ioqos_done(q, &a, T_S(3)));
	ioqos_stats_id(q, 0, &st);
	CHECK_EQ("7. ios", 3, st.ios[IOQOS_READ]);
	CHECK_EQ("7. done", 3, st.done);
	CHECK_EQ("7. queued", 0, st.queued[IOQOS_READ]);
	CHECK_EQ("7. inflight", 0, st.inflight);
	CHECK_EQ_INT("7. q2 done o", 0, ioqos_done(q2, &o, 0));
	ioqos_free(q);
	ioqos_free(q2);
}

int main(void)
{
	alarm(60);   /* a hang fails here, not at the runner's timeout */
	huge_wait();
	past_call();
	backwards_exact();
	near_2_63();
	end_of_time();
	huge_request();
	misuse();
	return th_exit();
}
