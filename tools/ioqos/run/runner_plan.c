/* SPDX-License-Identifier: MIT */
/*
 * A run's streams (each job times numjobs), their regions in their files,
 * their seeds and random maps, and their I/Os with buffers.
 */
#include "run/falloc.h"
#include "run/feat_call.h"
#include "run/filldev.h"
#include "run/iomem.h"
#include "run/runner_parts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* is @f a file on disk: does a job on an engine of files use it?  (a file
 * of null jobs alone is never opened, as fio's null engine opens none) */
bool file_real(const struct runner *r, const struct rfile *f)
{
	for (unsigned si = 0; si < r->nstreams; si++) {
		const struct stream *s = &r->streams[si];

		if (!(s->eng->flags & ENG_F_FILES))
			continue;
		for (unsigned k = 0; k < s->nfiles; k++)
			if (s->files[k] == f)
				return true;
	}
	return false;
}

/* a file on disk: opened (or left to its first job) and laid out */
static int plan_real(struct runner *r, struct rfile *f, char *err, size_t errlen)
{
	bool writes = false, early = false;
	int rc;

	f->fill = fill_file(r, f);
	/* create_on_open=1: opened when its first job starts */
	if (falloc_deferred(r, f)) {
		if (!f->need) {
			snprintf(err, errlen, "%s: size= is needed: create_on_open "
				 "leaves the file to its jobs", f->path);
			return -EINVAL;
		}
		f->deferred = true;
		f->size = f->need;
		return 0;
	}
	for (unsigned si = 0; si < r->nstreams; si++)
		for (unsigned k = 0; k < r->streams[si].nfiles; k++) {
			if (r->streams[si].files[k] != f)
				continue;
			writes |= r->streams[si].replay ? replay_writes(&r->streams[si]) :
				  job_wside(r->streams[si].job);
			early |= !fill_late(&r->streams[si]);
		}
	rc = open_file(r, f, writes, err, errlen);
	if (rc)
		return rc;
	if (f->is_blk && f->need > f->size) {
		snprintf(err, errlen, "%s: the jobs need %" PRIu64
			 " bytes, the device holds %" PRIu64, f->path, f->need,
			 f->size);
		return -EINVAL;
	}
	/* create_serialize=0 jobs alone: sized when they start; a replay's
	 * file is as it is, its log's I/Os checked against it (replay.c) */
	if (!f->is_blk && !f->fill && early && f->need == 0 && f->size == 0 &&
	    !f->replayed) {
		snprintf(err, errlen, "%s: size= is needed: the file is empty or "
			 "missing", f->path);
		return -EINVAL;
	}
	return falloc_layout(r, f, err, errlen);
}

/*
 * Size each stream's region: fio's rules.  size= is the I/O of one clone,
 * divided among its files; filesize= is each file's size, the region
 * from offset= to its end; with neither, an existing file's (or the sim
 * device's) size, less offset=.
 */
int plan_sizes(struct runner *r, char *err, size_t errlen)
{
	uint64_t base = 0;

	/* what each file must hold */
	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		const struct job *j = s->job;
		uint64_t need = 0;

		/* a replay: what its log reaches (replay.c) */
		if (s->replay) {
			replay_sizes(s);
			continue;
		}
		/* filesize= is the file's size, offset= inside it, as in fio */
		if (j->filesize)
			need = j->filesize;
		else if (j->size)
			need = s->offset + (j->size + s->nfiles - 1) / s->nfiles;
		for (unsigned k = 0; k < s->nfiles; k++)
			if (need > s->files[k]->need)
				s->files[k]->need = need;
	}
	for (unsigned i = 0; i < r->nfiles; i++) {
		struct rfile *f = &r->files[i];
		int rc;

		if (!file_real(r, f)) {
			/* the sim's device, or a file of null jobs alone */
			if (!f->need)
				f->need = r->dev_bytes;
			f->size = f->need;
			f->base = base;
			base += (f->size + 4095) & ~(uint64_t)4095;
		} else if ((rc = plan_real(r, f, err, errlen))) {
			return rc;
		}
	}
	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		int rc;

		/* create_serialize=0: when it starts (filldev.c); a replay
		 * draws no offset from a region */
		if (!fill_late(s) && !s->replay && (rc = plan_region(r, s, false, err, errlen)))
			return rc;
	}
	return 0;
}

/*
 * The region of @s in its files and what it issues; @restat: the files'
 * sizes as they are now (a job of create_serialize=0, at its start)
 */
int plan_region(struct runner *r, struct stream *s, bool restat, char *err,
		size_t errlen)
{
	const struct job *j = s->job;
	uint64_t fsz = UINT64_MAX, len, minbs = job_min_bs(j), maxbs = job_max_bs(j), region;
	bool fill = fill_unbounded(s);

	for (unsigned k = 0; k < s->nfiles; k++) {
		struct rfile *f = s->files[k];
		struct stat st;

		if (restat && f->fd >= 0 && !f->is_blk && !fstat(f->fd, &st))
			f->size = (uint64_t)st.st_size;
		if (f->size < fsz)
			fsz = f->size;
	}
	/* fill_device=: as far as a file goes, ENOSPC being the end */
	if (fill)
		fsz = FILE_BYTES_MAX;
	/* fio's percentages of the file's size (get_start_offset()): the
	 * offset rounded up to the smallest block */
	if (j->offset_pct || j->offset_inc_pct) {
		uint64_t inc = j->offset_inc_pct ? fsz / 100 * j->offset_inc_pct +
			       fsz % 100 * j->offset_inc_pct / 100 : j->offset_increment;
		uint64_t off = j->offset_pct ? fsz / 100 * j->offset_pct +
			       fsz % 100 * j->offset_pct / 100 : j->offset;

		off += s->clone * inc;
		s->offset = (off + minbs - 1) / minbs * minbs;
	}
	if (s->offset >= fsz && fsz) {
		snprintf(err, errlen, "%s: job '%s': offset=%" PRIu64 " is past the "
			 "end of %s (%" PRIu64 " bytes)", j->where, j->name, s->offset,
			 s->files[0]->path, fsz);
		return -EINVAL;
	}
	if (j->size_pct) {
		/* fio's size_percent: of the file, within it past offset=,
		 * whole blocks */
		uint64_t file = j->filesize ? j->filesize : fsz;

		len = file / 100 * j->size_pct + file % 100 * j->size_pct / 100;
		if (file > s->offset && len > file - s->offset)
			len = file - s->offset;
		len -= len % minbs;
	} else if (j->filesize) {
		/* fio's io_size of the file: filesize - offset */
		if (s->offset >= j->filesize) {
			snprintf(err, errlen, "%s: job '%s': offset=%" PRIu64 " is past "
				 "filesize=%" PRIu64, j->where, j->name, s->offset, j->filesize);
			return -EINVAL;
		}
		len = j->filesize - s->offset;
	} else if (j->size)
		len = (j->size + s->nfiles - 1) / s->nfiles;
	else if (fsz > s->offset)
		len = fsz - s->offset;
	else
		len = 0;
	if (!len) {
		snprintf(err, errlen, "%s: job '%s': size= is needed%s", j->where,
			 j->name, s->eng->kind == ENG_NULL ? " with the null engine" :
			 restat ? " (its file is empty when it starts)" : "");
		return -EINVAL;
	}
	if (s->offset + len > fsz) {
		snprintf(err, errlen, "%s: job '%s': offset=%" PRIu64 " + %" PRIu64
			 " bytes is past the end of %s (%" PRIu64 " bytes)", j->where,
			 j->name, s->offset, len, s->files[0]->path, fsz);
		return -EINVAL;
	}
	if (maxbs > len) {
		snprintf(err, errlen, "%s: job '%s': bs=%" PRIu64 " is larger than "
			 "the %" PRIu64 " bytes of each file", j->where, j->name, maxbs,
			 len);
		return -EINVAL;
	}
	s->region_len = len;
	region = j->size ? j->size : len * s->nfiles;
	if (j->io_size_pct)
		region = region / 100 * j->io_size_pct + region % 100 * j->io_size_pct / 100;
	s->io_size = fill && !j->size && !j->io_size && !j->io_size_pct ? UINT64_MAX :
		     job_io_bytes(j, region);
	s->nblocks = (len - maxbs) / minbs + 1;
	/* the random map: an LCG over the next power of two, full period
	 * (odd increment, multiplier 1 mod 4), scrambled by a bijection */
	s->map_mask = 1;
	while (s->map_mask < s->nblocks)
		s->map_mask <<= 1;
	s->map_mask -= 1;
	s->map_shift = (64 - (unsigned)__builtin_clzll(s->map_mask | 1) + 1) / 2;
	s->min_bs = minbs;
	s->map_add = (rng_next(&s->rng) | 1) & s->map_mask;
	s->map_mul = rng_next(&s->rng) | 1;
	for (unsigned k = 0; k < s->nfiles; k++) {
		s->map_x[k] = rng_next(&s->rng) & s->map_mask;
		s->seq_pos[k] = 0;
	}
	return 0;
}

/*
 * iodepth_low=, iodepth_batch_complete_min= and _max=: once a job is full,
 * fio reaps -- each call at least min(complete_min, depth) completions (1
 * when it is 0) and at most the larger of complete_min and complete_max
 * (batch.c) -- and goes on reaping while more than iodepth_low are in
 * flight (0, or more than iodepth: iodepth) before it submits again
 * (backend.c wait_for_completions(), ioengines.c td_io_getevents()).  So a
 * full stream refills when its busy I/Os fall to where those reaps end,
 * each taking all it may (a device that keeps up); by default depth - 1,
 * at every completion.  At iodepth=32, iodepth_low=4 and a cap of 8: 32,
 * 24, 16, 8, 0, a refill of all 32.
 */
static unsigned refill_at(const struct job *j, unsigned depth)
{
	unsigned low = j->iodepth_low && j->iodepth_low <= depth ? j->iodepth_low : depth;
	unsigned min = j->batch_cpl_min < depth ? j->batch_cpl_min : depth;
	unsigned cap = batch_cpl_cap(j), cur = depth;

	if (!min)
		min = 1;
	if (cap < min)
		cap = min;
	do
		cur -= cap < cur ? cap : cur;
	while (cur > low);
	return cur;
}

int make_streams(struct runner *r, char *err, size_t errlen)
{
	unsigned n = 0, phase = 0;
	char path[IOQOS_PATH_MAX];

	for (size_t i = 0; i < r->set->n; i++)
		n += r->set->jobs[i].numjobs;
	r->streams = calloc(n, sizeof(*r->streams));
	if (!r->streams)
		return -ENOMEM;
	r->nstreams = n;
	n = 0;
	for (size_t i = 0; i < r->set->n; i++) {
		struct job *j = &r->set->jobs[i];
		uint64_t seed;

		if (i > 0 && j->stonewall)
			phase++;
		runner_job_group(j, path, sizeof(path));
		for (unsigned c = 0; c < j->numjobs; c++, n++) {
			struct stream *s = &r->streams[n];

			s->job = j;
			s->clone = c;
			s->index = n;
			s->phase = phase;
			s->group = (uint32_t)ioqos_group_find(r->q, path);
			s->eng = r->engs[job_engine(j, r->o->engine)];
			s->depth = j->iodepth;
			s->max_bs = job_max_bs(j);
			if (s->eng->stream_depth && s->depth > s->eng->stream_depth)
				s->depth = s->eng->stream_depth;
			s->refill_at = refill_at(j, s->depth);
			s->batch = batch_size(j, s->depth);
			s->js.cpl_cap = batch_cpl_cap(j);
			s->next_dir = -1;
			s->end_ns = UINT64_MAX;
			/* fio's offset_increment: each clone further in */
			s->offset = j->offset + c * j->offset_increment;
			/* the seed: randseed= if given, else --seed; then the job and
			 * the clone, so clones differ and reruns repeat */
			seed = job_isset(j, JO_RANDSEED) ? j->randseed : r->o->seed;
			if (!j->randrepeat)
				seed ^= mono_ns();
			seed = seed * 0x9e3779b97f4a7c15ull + i * 0x632be59bd9b4e019ull + c;
			rng_seed(&s->rng, seed);
			rng_seed(&s->rate_rng[0], seed ^ 0x5851f42d4c957f2dull);
			rng_seed(&s->rate_rng[1], seed ^ 0x14057b7ef767814full);
		}
	}
	r->nphases = phase + 1;
	(void)err;
	(void)errlen;
	return 0;
}

/*
 * The buffers of every I/O in flight against the machine's memory, before
 * any file is laid out: refused with the figures rather than left to the
 * OOM killer half-way
 */
int check_buffers(struct runner *r, char *err, size_t errlen)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	unsigned __int128 need = 0;

	for (unsigned si = 0; si < r->nstreams; si++)
		if (r->streams[si].eng->flags & ENG_F_FILES)
			need += (unsigned __int128)r->streams[si].depth *
				r->streams[si].max_bs;
	if (pages > 0 && psz > 0 && need > (unsigned __int128)pages * (uint64_t)psz) {
		snprintf(err, errlen, "the I/O buffers (numjobs x iodepth x bs) take "
			 "%" PRIu64 " MiB, more than the %" PRIu64 " MiB of memory",
			 (uint64_t)(need >> 20), ((uint64_t)pages * (uint64_t)psz) >> 20);
		return -ENOMEM;
	}
	return 0;
}

int alloc_ios(struct runner *r, char *err, size_t errlen)
{
	for (unsigned si = 0; si < r->nstreams; si++) {
		struct stream *s = &r->streams[si];
		uint64_t maxbs = s->max_bs;
		bool real = s->eng->flags & ENG_F_FILES;

		s->ios = calloc(s->depth, sizeof(*s->ios));
		if (!s->ios)
			return -ENOMEM;
		for (unsigned k = 0; k < s->depth; k++) {
			struct io *io = &s->ios[k];
			io->s = s;
			if (real) {
				/* each buffer at a multiple of 4096, in one region
				 * taken as mem= says (iomem.c) */
				size_t len = (feat_buf_len(r, s, maxbs) + 4095) / 4096 * 4096;
				int rc;

				if (!k && (rc = iomem_alloc(s, len, err, errlen)))
					return rc;
				io->buf = iomem_buf(s, k, len);
				/* numa_mem_policy=: bound before the first
				 * write; then filled (buffer_pattern=, ...) */
				if ((rc = feat_buf(r, s, io->buf, len, maxbs, k, err, errlen)))
					return rc;
			}
			io->next = s->free;
			s->free = io;
		}
	}
	return 0;
}
