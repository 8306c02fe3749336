/* SPDX-License-Identifier: MIT */
/*
 * SIGINT and SIGTERM during a run: the first stops it, as fio's first
 * Ctrl-C does, and the report covers what was done.
 */
#include "run/runner_parts.h"

#include <string.h>
#include <time.h>

volatile sig_atomic_t got_signal;   /* SIGINT or SIGTERM, 0: none */

static volatile sig_atomic_t first_signal_s;   /* CLOCK_MONOTONIC seconds of it */

/*
 * The first SIGINT or SIGTERM stops the run and prints the partial report;
 * one that comes a second or more after it ends the program the usual way
 * (a second Ctrl-C).  timeout(1) sends its signal twice at once, to the
 * command and to its process group: that counts as one.
 */
static void on_signal(int sig)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);   /* async-signal-safe */
	if (!got_signal) {
		got_signal = sig;
		first_signal_s = (sig_atomic_t)ts.tv_sec;
	} else if (ts.tv_sec - first_signal_s >= 2) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

void signals_catch(struct sigaction *old_int, struct sigaction *old_term)
{
	struct sigaction sa;

	got_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old_int);
	sigaction(SIGTERM, &sa, old_term);
}
