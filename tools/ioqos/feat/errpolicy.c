/* SPDX-License-Identifier: MIT */
/*
 * fio's continue_on_error=, ignore_error= and error_dump=, as fio 3.33
 * applies them (td_error.c, options.c).
 *
 * An error has a type: verify when it is EILSEQ (a block read back that
 * does not match), else read or write by the I/O's direction.  The job
 * goes on after an error when continue_on_error= names its type (none,
 * read, write, io = read and write, verify, all; 0 is none and 1 all) and
 * the error is in that type's list, which is fio's default, EIO and
 * EILSEQ, unless ignore_error= gives one.  ignore_error=READ,WRITE,VERIFY
 * takes a ':'-separated list per type, each an errno name of fio's table
 * (EPERM to ERANGE, Linux's numbers 1 to 34) or a number; a non-empty
 * list also switches continue_on_error on for its type, as fio's does, so
 * "ignore_error=,ENOSPC" alone lets a job write on through ENOSPC.
 *
 * A forgiven error is counted for the job (fio's total_err, and
 * first_error, the errno of the first), the I/O is not counted in the
 * figures, and the job goes on to its size or runtime.  The report is
 * fio's: err= is the first error while nothing was fatal, and jobs with
 * continue_on_error set have "errors : total=N, first_error=E/<text>" in
 * the text, total_err and first_error in the JSON, and the two at the end
 * of the terse line; the exit status stays 0.  With group_reporting the
 * counts add up and first_error is the last job's, as in fio.
 * error_dump=1 prints each forgiven error as fio does ("io_u error on
 * file F: TEXT: write offset=O, buflen=L"); an error that is not forgiven
 * ends its job (stream_error), with ioqos's message, and the other jobs
 * go on, as in fio; the exit status is then the number of jobs so ended.
 * A short transfer is resubmitted (shortio.c); a piece of it that moves
 * no byte is EIO on a synchronous engine, fio's "full resid".
 */
#include "feat/errpolicy.h"

#include "report/report_fio.h"
#include "run/runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fio's str2error() table: index + 1 is the errno (Linux's numbering) */
static const char *const err_names[] = {
	"EPERM", "ENOENT", "ESRCH", "EINTR", "EIO", "ENXIO", "E2BIG", "ENOEXEC",
	"EBADF", "ECHILD", "EAGAIN", "ENOMEM", "EACCES", "EFAULT", "ENOTBLK",
	"EBUSY", "EEXIST", "EXDEV", "ENODEV", "ENOTDIR", "EISDIR", "EINVAL",
	"ENFILE", "EMFILE", "ENOTTY", "ETXTBSY", "EFBIG", "ENOSPC", "ESPIPE",
	"EROFS", "EMLINK", "EPIPE", "EDOM", "ERANGE",
};

int errpol_set_coe(struct job *j, const char *v, char *why, size_t whylen)
{
	static const struct { const char *s; unsigned bits; } vals[] = {
		{ "none", 0 }, { "0", 0 }, { "read", ERRT_F_READ },
		{ "write", ERRT_F_WRITE }, { "io", ERRT_F_READ | ERRT_F_WRITE },
		{ "verify", ERRT_F_VERIFY }, { "all", ERRT_F_ANY }, { "1", ERRT_F_ANY },
	};

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (!strcmp(v, vals[i].s)) {
			j->coe = vals[i].bits;
			return 0;
		}
	snprintf(why, whylen, "expected none, read, write, io, verify, all, 0 or 1");
	return -EINVAL;
}

/* one errno of a list: fio's name or a number (its sign dropped) */
static int err_number(const char *e, unsigned *out)
{
	char *end;
	long n;

	if (e[0] == 'E') {
		for (size_t i = 0; i < sizeof(err_names) / sizeof(err_names[0]); i++)
			if (!strcmp(e, err_names[i])) {
				*out = (unsigned)i + 1;
				return 0;
			}
		return -EINVAL;
	}
	n = strtol(e, &end, 10);
	if (end == e || *end || n == 0 || n > 4095 || n < -4095)
		return -EINVAL;
	*out = (unsigned)(n < 0 ? -n : n);
	return 0;
}

int errpol_set_ignore(struct job *j, const char *v, char *why, size_t whylen)
{
	uint16_t list[ERRT_N][IGNERR_MAX];
	unsigned nlist[ERRT_N] = { 0 }, t = 0;
	char buf[1024], *p = buf;

	if (strlen(v) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", v);
	while (p) {
		char *comma = strchr(p, ','), *save = NULL;

		if (comma)
			*comma = '\0';
		if (t == ERRT_N)
			goto bad;
		for (char *e = strtok_r(p, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
			unsigned n;

			if (nlist[t] == IGNERR_MAX || err_number(e, &n))
				goto bad;
			list[t][nlist[t]++] = (uint16_t)n;
		}
		p = comma ? comma + 1 : NULL;
		t++;
	}
	for (t = 0; t < ERRT_N; t++) {
		if (!nlist[t])
			continue;
		memcpy(j->ignore_err[t], list[t], sizeof(list[t][0]) * nlist[t]);
		j->nignore[t] = nlist[t];
		j->coe |= 1u << t;
	}
	return 0;
bad:
	snprintf(why, whylen, "expected READ,WRITE,VERIFY lists of errors joined by ':', "
		 "each EPERM..ERANGE or a number (at most %d a list)", IGNERR_MAX);
	return -EINVAL;
}

static bool in_list(const struct job *j, unsigned t, int err)
{
	static const int dflt[] = { EIO, EILSEQ };

	if (!j->nignore[t])
		return err == dflt[0] || err == dflt[1];
	for (unsigned i = 0; i < j->nignore[t]; i++)
		if (j->ignore_err[t][i] == err)
			return true;
	return false;
}

/* fio's td_error_type(): a trim's error is a write's, as its charge is */
static unsigned err_type(const struct io *io, int err, bool verify)
{
	return err == EILSEQ || verify ? ERRT_VERIFY :
	       io->dir == IOQOS_WRITE ? ERRT_WRITE : ERRT_READ;
}

void errpol_fatal(struct stream *s, const struct io *io, int err, uint64_t t_ns)
{
	/* fio's break_on_this_error(): an error of a type the job goes on
	 * after, but not in its list, is counted before the job stops */
	if (s->job->coe & (1u << err_type(io, err, false)) && !s->err_total++)
		s->err_first = err;
	/* in fio's total_ios, as every submission is */
	if (t_ns >= s->stats_start_ns && t_ns <= s->end_ns)
		s->st[io_sdir(io)].err_ios++;
}

bool errpol_forgive(struct stream *s, const struct io *io, const char *path,
		    int err, bool verify, uint64_t t_ns)
{
	const struct job *j = s->job;
	unsigned t = err_type(io, err, verify);

	if (!(j->coe & (1u << t)) || !in_list(j, t, err))
		return false;
	if (!s->err_total++)
		s->err_first = err;
	/* a failed I/O of the stats window is in fio's total_ios; a block
	 * that failed its verify was a read that completed, counted there */
	if (!verify && t_ns >= s->stats_start_ns && t_ns <= s->end_ns)
		s->st[io_sdir(io)].err_ios++;
	if (j->error_dump)
		fprintf(stderr, "ioqos: io_u error on file %s: %s: %s offset=%" PRIu64
			", buflen=%u\n", path, strerror(err), io->trim ? "trim" :
			io->dir ? "write" : "read",
			io->off, io->len);
	return true;
}

int errpol_unit_error(const struct runner *r, const struct unit *u)
{
	if (r->error)
		return -r->error;
	if (u->err_job)
		return -u->err_job;
	return u->job->coe ? u->err_shown : 0;
}
