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

#include "run/runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/*
 * @io of @s failed with @err and is not forgiven: counted as fio counts
 * it (in total_ios when in the stats window, and, when continue_on_error=
 * names its type, in total_err and first_error).
 */
static void errpol_fatal(struct stream *s, const struct io *io, int err, uint64_t t_ns);

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

static void errpol_fatal(struct stream *s, const struct io *io, int err, uint64_t t_ns)
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

/* continue_on_error=: forgiven, or counted as the job ends */
static bool errpol_error(struct stream *s, const struct io *io, int err, uint64_t t)
{
	if (errpol_forgive(s, io, s->files[io->file]->path, err, false, t))
		return true;
	if (!s->error)
		errpol_fatal(s, io, err, t);
	return false;
}

const struct feat_ops feat_errpolicy = {
	.name = "continue_on_error",
	.own = true,
	.error = errpol_error,
};
