/* SPDX-License-Identifier: MIT */
/*
 * The status line on a terminal, after fio's eta line: what matters first
 * and always, then as much detail as the terminal's width leaves room for.
 *
 *   [elapsed 12.0s eta 48s] 20 groups r=812MiB/s w=0B/s | /a 40.6MiB/s /b ... +14
 *
 * The clock and the time left, the totals, then each group with jobs and
 * its rate since the start, as many as fit; "+N" counts the ones left out.
 * The line never reaches the last column, so the terminal never wraps it
 * and "\r" always goes back to its start.
 */
#include "report/report.h"
#include "run/runner_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

unsigned progress_width(int fd)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");

	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	if (c && atoi(c) > 0)
		return (unsigned)atoi(c);
	return 80;
}

/* append @s to @line (of @cap bytes) if it keeps the line within @max
 * columns (ASCII: a byte a column); returns whether it did */
static bool add(char *line, size_t cap, size_t max, const char *s)
{
	size_t n = strlen(line), k = strlen(s);

	if (n + k > max || n + k >= cap)
		return false;
	memcpy(line + n, s, k + 1);
	return true;
}

void progress_format(const struct runner *r, char *line, size_t cap,
		     unsigned width)
{
	uint64_t el = r->now_ns - r->t0_ns, eta = 0, tot[2] = { 0, 0 };
	size_t max = width > 1 ? width - 1 : 1;
	unsigned ngroups = 0, shown = 0;
	char piece[IOQOS_PATH_MAX + 64], a[32], b[32];

	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct stream *s = &r->streams[i];
		if (!s->done && s->end_ns != UINT64_MAX && s->end_ns > r->now_ns &&
		    s->end_ns - r->now_ns > eta)
			eta = s->end_ns - r->now_ns;
	}
	for (unsigned g = 0; g < r->ngrps; g++) {
		if (!r->grps[g].has_jobs)
			continue;
		ngroups++;
		tot[0] += r->grps[g].bytes[0];
		tot[1] += r->grps[g].bytes[1];
	}
	line[0] = '\0';
	if (eta)
		snprintf(piece, sizeof(piece), "[%s %.1fs eta %.0fs]",
			 r->virt ? "virtual" : "elapsed", (double)el / 1e9,
			 (double)eta / 1e9);
	else
		snprintf(piece, sizeof(piece), "[%s %.1fs]",
			 r->virt ? "virtual" : "elapsed", (double)el / 1e9);
	if (!add(line, cap, max, piece)) {
		/* narrower than the clock itself: as much of it as fits */
		snprintf(line, max + 1 < cap ? max + 1 : cap, "%s", piece);
		return;
	}
	fmt_bytes(a, sizeof(a), el ? (double)tot[0] * 1e9 / (double)el : 0, false);
	fmt_bytes(b, sizeof(b), el ? (double)tot[1] * 1e9 / (double)el : 0, false);
	snprintf(piece, sizeof(piece), " %u group%s r=%s/s w=%s/s", ngroups,
		 ngroups == 1 ? "" : "s", a, b);
	if (!add(line, cap, max, piece)) {
		snprintf(piece, sizeof(piece), " r=%s/s w=%s/s", a, b);
		add(line, cap, max, piece);
		return;
	}
	for (unsigned g = 0; g < r->ngrps; g++) {
		char more[24];
		size_t keep, room;

		if (!r->grps[g].has_jobs)
			continue;
		fmt_bytes(a, sizeof(a), el ? (double)(r->grps[g].bytes[0] +
			  r->grps[g].bytes[1]) * 1e9 / (double)el : 0, false);
		snprintf(piece, sizeof(piece), "%s%s %s/s", shown ? " " : " | ",
			 r->grps[g].path, a);
		/* room for this group and, if any follow, for "+N" */
		snprintf(more, sizeof(more), " +%u", ngroups - shown - 1);
		keep = strlen(line);
		room = shown + 1 < ngroups ? strlen(more) : 0;
		if (max > room && add(line, cap, max - room, piece)) {
			shown++;
			continue;
		}
		line[keep] = '\0';
		snprintf(more, sizeof(more), " +%u", ngroups - shown);
		add(line, cap, max, more);
		return;
	}
}
