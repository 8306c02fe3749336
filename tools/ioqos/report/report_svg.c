/* SPDX-License-Identifier: MIT */
/*
 * The SVG plot: each ioqos group's bandwidth over time (read + write, its
 * subtree included), one line per group, its limits dashed in its colour.
 *
 * What keeps it readable:
 *   - lines are drawn widest first and narrower after, so where two groups
 *     run at the same rate the one below shows as a border of the one on
 *     top, and no line hides another;
 *   - the limits are drawn last, over the lines, as dashes of the group's
 *     colour on a white dash: a group that meets its limit runs along the
 *     dashed line, and the dashes stay visible on it; each group's
 *     dashes start at another phase, so coinciding limits show both;
 *   - the last interval of a run is usually partial.  Its rate is its
 *     bytes over its own length, and over a sliver of time that is noise:
 *     one request in the last 0.1 ms reads as many times the limit (a
 *     bucket's burst B over a window T allows R + B/T).  An interval
 *     shorter than half the log interval is left out of the plot (unless
 *     it is all a group has); the CSV and JSON keep it, with its length;
 *   - the legend holds, per group, its path, its weight and a row per
 *     limit; the picture grows taller to hold them all, and a path too long for the legend's
 *     width is cut at the front ("…/b/c"), where paths share the most.
 */
#include "report/report.h"
#include "report/report_groups.h"
#include "run/runner_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define LEGEND_CHARS 26           /* a path longer than this is cut */

static const char *colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

/* a "nice" tick step for a range: 1, 2 or 5 times a power of ten */
static double nice_step(double range, int ticks)
{
	double raw = range / ticks, p = pow(10, floor(log10(raw))), m = raw / p;

	if (m < 1.5)
		return p;
	if (m < 3.5)
		return 2 * p;
	if (m < 7.5)
		return 5 * p;
	return 10 * p;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

/* the path as the legend shows it */
static void legend_path(FILE *f, const char *path)
{
	size_t n = strlen(path);

	if (n <= LEGEND_CHARS) {
		xml_text(f, path);
		return;
	}
	fputs("\xe2\x80\xa6", f);    /* U+2026, an ellipsis */
	xml_text(f, path + n - (LEGEND_CHARS - 1));
}

static bool plotted(const struct runner *r, unsigned g)
{
	return r->grps[g].used && (g != 0 || r->grps[0].has_jobs);
}

/* is row @i drawn: not a sliver of an interval at the end, unless it is
 * all there is of its group */
static bool row_drawn(const struct runner *r, size_t i)
{
	if (report_row_len(r, i) * 2 >= r->iv_ns)
		return true;
	for (size_t k = 0; k < i; k++)
		if (r->rows[k].group == r->rows[i].group)
			return false;
	return true;
}

static double row_bw(const struct runner *r, size_t i)
{
	uint64_t len = report_row_len(r, i);
	const struct iv_row *row = &r->rows[i];

	return len ? (double)(row->bytes[0] + row->bytes[1]) * 1e9 / (double)len : 0;
}

static unsigned limit_count(const struct grp *g)
{
	return (g->lim.bps[0] != IOQOS_UNLIMITED) + (g->lim.bps[1] != IOQOS_UNLIMITED);
}

int report_svg(struct runner *r, FILE *f, const char *path, char *err,
	       size_t errlen)
{
	const double W = 960, L = 90, R = 270, T = 50, B = 60, ROW = 18, LIMROW = 14;
	double H = 540, ph, pw = W - L - R, tmax = 0, ymax = 0, div = 1, legend = 0;
	const char *unit = "B/s";
	unsigned ci = 0, nplot = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct iv_row *row = &r->rows[i];

		if (!plotted(r, row->group) || !row_drawn(r, i))
			continue;
		if ((double)row->t_ns / 1e9 > tmax)
			tmax = (double)row->t_ns / 1e9;
		if (row_bw(r, i) > ymax)
			ymax = row_bw(r, i);
	}
	for (unsigned g = 0; g < r->ngrps; g++) {
		if (!plotted(r, g))
			continue;
		nplot++;
		legend += ROW + LIMROW * (1 + limit_count(&r->grps[g])) + 8;
		for (int d = 0; d < 2; d++)
			if (g && r->grps[g].lim.bps[d] != IOQOS_UNLIMITED &&
			    (double)r->grps[g].lim.bps[d] > ymax / 1.1 &&
			    (double)r->grps[g].lim.bps[d] < 1e15)
				ymax = (double)r->grps[g].lim.bps[d] * 1.1;
	}
	if (T + legend + B > H)
		H = T + legend + B;
	ph = H - T - B;
	if (tmax <= 0)
		tmax = 1;
	if (ymax <= 0)
		ymax = 1;
	ymax *= 1.05;
	if (ymax >= 1024.0 * 1024 * 1024 * 2) {
		div = 1024.0 * 1024 * 1024;
		unit = "GiB/s";
	} else if (ymax >= 1024.0 * 1024 * 2) {
		div = 1024.0 * 1024;
		unit = "MiB/s";
	} else if (ymax >= 1024.0 * 2) {
		div = 1024.0;
		unit = "KiB/s";
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"13\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H, W, H);
	fprintf(f, "<text x=\"%.0f\" y=\"28\" font-size=\"16\" text-anchor=\"middle\">"
		"Bandwidth per ioqos group (%s engine)</text>\n", L + pw / 2, r->engine_name);
	/* grid and ticks */
	{
		double ys = nice_step(ymax / div, 6), xs = nice_step(tmax, 8);
		for (double v = 0; v <= ymax / div + 1e-9; v += ys) {
			double y = T + ph - v * div / ymax * ph;
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#dddddd\"/>\n", L, y, L + pw, y);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
				L - 6, y + 4, v);
		}
		for (double v = 0; v <= tmax + 1e-9; v += xs) {
			double x = L + v / tmax * pw;
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#dddddd\"/>\n", x, T, x, T + ph);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
				x, T + ph + 18, v);
		}
	}
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
		"stroke=\"black\"/>\n", L, T, pw, ph);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">time (s)</text>\n",
		L + pw / 2, H - 15);
	fprintf(f, "<text transform=\"translate(22 %.0f) rotate(-90)\" "
		"text-anchor=\"middle\">bandwidth (%s)</text>\n", T + ph / 2, unit);

	/* the lines, widest first; then the legend */
	for (unsigned g = 0; g < r->ngrps; g++) {
		double width = nplot > 1 ? 2.0 + 5.0 * (double)(nplot - 1 - ci) /
						     (double)(nplot - 1) : 2.0;
		bool any = false;

		if (!plotted(r, g))
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
			"stroke-linejoin=\"round\" points=\"",
			colors[ci % (sizeof(colors) / sizeof(colors[0]))], width);
		for (size_t i = 0; i < r->nrows; i++) {
			if (r->rows[i].group != g || !row_drawn(r, i))
				continue;
			fprintf(f, "%s%.1f,%.1f", any ? " " : "",
				L + (double)r->rows[i].t_ns / 1e9 / tmax * pw,
				T + ph - row_bw(r, i) / ymax * ph);
			any = true;
		}
		fprintf(f, "\"/>\n");
		ci++;
	}
	ci = 0;
	legend = T + 10;
	for (unsigned g = 0; g < r->ngrps; g++) {
		const struct grp *gr = &r->grps[g];
		const char *col = colors[ci % (sizeof(colors) / sizeof(colors[0]))];
		double ly = legend;

		if (!plotted(r, g))
			continue;
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"3\"/>\n", L + pw + 15, ly, L + pw + 45, ly, col);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">", L + pw + 52, ly + 4);
		legend_path(f, gr->path);
		fputs("</text>\n", f);
		legend += ROW;
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\">weight %u%s</text>\n",
			L + pw + 52, legend, gr->lim.weight,
			gr->has_children ? ", with subgroups" : "");
		legend += LIMROW;
		for (int d = 0; d < 2; d++) {
			char lim[32];
			double y;

			if (gr->lim.bps[d] == IOQOS_UNLIMITED)
				continue;
			y = T + ph - (double)gr->lim.bps[d] / ymax * ph;
			/* white dashes under the coloured ones: visible on a line
			 * of the same colour that runs at the limit */
			fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
				"stroke=\"white\" stroke-dasharray=\"8 5\" stroke-width=\"4\"/>\n",
				L, y, L + pw, y);
			/* each group's dashes start further along, so that two
			 * limits at one rate show both colours in turn */
			fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
				"stroke=\"%s\" stroke-dasharray=\"8 5\" stroke-dashoffset=\"%u\" "
				"stroke-width=\"1.5\"/>\n", L, y, L + pw, y, col, (ci * 4) % 13);
			fmt_bytes(lim, sizeof(lim), (double)gr->lim.bps[d], false);
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">"
				"- - limit %s %s/s</text>\n", L + pw + 52, legend, col,
				d ? "write" : "read", lim);
			legend += LIMROW;
		}
		legend += 8;
		ci++;
	}
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}
