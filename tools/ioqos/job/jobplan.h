/* SPDX-License-Identifier: MIT */
/* What a job's options mean for each I/O (see jobplan.c). */
#ifndef IOQOS_JOBPLAN_H
#define IOQOS_JOBPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"
#include "lib/rng.h"

/* does the job read, does it write (rw= and rwmixread=)? */
bool job_reads(const struct job *j);
bool job_writes(const struct job *j);
/* does it trim (trim.c)?  A trim is sized, paced and charged as a write */
bool job_trims(const struct job *j);
/* does it use the write side of bs=, rate= and the like: writes or trims */
bool job_wside(const struct job *j);
/* the smallest and the largest block size in direction @dir, bytes */
uint64_t job_bs_low(const struct job *j, int dir);
uint64_t job_bs_high(const struct job *j, int dir);
/* the size of the next I/O in direction @dir, bytes */
uint64_t job_next_bs(const struct job *j, struct rng *rng, int dir);
/* the unit of offsets: blockalign, else the smallest block size */
uint64_t job_align(const struct job *j, bool reads, bool writes);
/* the next sequential offset into a region of @region bytes for an I/O of
 * @len bytes; *pos is the stream's position, advanced */
uint64_t job_seq_next(const struct job *j, uint64_t *pos, uint64_t len,
		      uint64_t region);
/* a block in [0, n) by the job's random_distribution (not uniform) */
uint64_t job_rand_block(const struct job *j, struct rng *rng, uint64_t n);
/* the bytes a clone issues: io_size (or @region_bytes) times loops */
uint64_t job_io_bytes(const struct job *j, uint64_t region_bytes);
/* the name of file @k of clone @clone (filename_format): 0, or -1 if too long */
int job_file_name(const struct job *j, unsigned clone, unsigned k, char *buf,
		  size_t len);


#endif
