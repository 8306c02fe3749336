/* SPDX-License-Identifier: MIT */
/*
 * fio's options as ioqos reads them: one table of name, what it sets and
 * how its value is read, and the readers of the options whose values have
 * a syntax of their own (rw, ioengine, bssplit, random_distribution...).
 *
 * An option is in the table only when ioqos gives it fio's meaning.  Some
 * values of an accepted option are still refused, each with the reason
 * (experimental_verify=1: not run; zonemode=zbd: no zoned devices;
 * fallocate=none: ioqos lays every file out before the run).  fio options
 * that ioqos knows and does not run are named in a second table with the
 * reason, so that the error says why rather than "unknown".
 */
#include "errpolicy.h"
#include "jobfile.h"
#include "lattarget.h"
#include "steady.h"
#include "vhash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum vtype {
	V_STR,        /* a string (copied) */
	V_NAME,       /* name=: the job's name */
	V_SIZE,       /* uint64 with size suffixes */
	V_PAIR,       /* "read,write[,trim]" sizes */
	V_UINT,       /* unsigned int in [lo, hi] */
	V_U64,        /* uint64 in [lo, hi], no suffixes */
	V_TIME,       /* ns; seconds unless suffixed */
	V_MSEC,       /* ns; milliseconds unless suffixed */
	V_USEC,       /* ns; microseconds unless suffixed */
	V_BOOL,       /* bool; a bare option name means true */
	V_SET,        /* bool that can only be switched on (fio's "set" options) */
	V_SPECIAL,    /* a syntax of its own: set_special() */
};

struct opt {
	const char *name;
	enum job_opt id;
	enum vtype type;
	size_t off;            /* offset of the field in struct job */
	uint64_t lo, hi;       /* V_UINT / V_U64 range; V_SIZE, V_TIME: the
				* largest value (0: any) */
};

#define F(x) offsetof(struct job, x)

static const struct opt opts[] = {
	{ "name",              JO_NAME,              V_NAME,    0, 0, 0 },
	{ "description",       JO_DESCRIPTION,       V_STR,     F(description), 0, 0 },
	{ "filename",          JO_FILENAME,          V_STR,     F(filename), 0, 0 },
	{ "directory",         JO_DIRECTORY,         V_STR,     F(directory), 0, 0 },
	{ "size",              JO_SIZE,              V_SIZE,    F(size), 0, FILE_BYTES_MAX },
	{ "filesize",          JO_FILESIZE,          V_SIZE,    F(filesize), 0, FILE_BYTES_MAX },
	{ "offset",            JO_OFFSET,            V_SIZE,    F(offset), 0, FILE_BYTES_MAX },
	{ "rw",                JO_RW,                V_SPECIAL, 0, 0, 0 },
	{ "readwrite",         JO_RW,                V_SPECIAL, 0, 0, 0 },
	{ "rwmixread",         JO_RWMIXREAD,         V_SPECIAL, 0, 0, 100 },
	{ "rwmixwrite",        JO_RWMIXWRITE,        V_SPECIAL, 0, 0, 100 },
	{ "bs",                JO_BS,                V_PAIR,    F(bs), 0, 0 },
	{ "blocksize",         JO_BS,                V_PAIR,    F(bs), 0, 0 },
	{ "iodepth",           JO_IODEPTH,           V_UINT,    F(iodepth), 1, 65536 },
	{ "numjobs",           JO_NUMJOBS,           V_UINT,    F(numjobs), 1, 65536 },
	{ "runtime",           JO_RUNTIME,           V_TIME,    F(runtime_ns), 0, JOB_TIME_MAX_NS },
	{ "timeout",           JO_RUNTIME,           V_TIME,    F(runtime_ns), 0, JOB_TIME_MAX_NS },
	{ "time_based",        JO_TIME_BASED,        V_SET,     F(time_based), 0, 0 },
	{ "ramp_time",         JO_RAMP_TIME,         V_TIME,    F(ramp_ns), 0, JOB_TIME_MAX_NS },
	{ "startdelay",        JO_STARTDELAY,        V_TIME,    F(startdelay_ns), 0, JOB_TIME_MAX_NS },
	{ "direct",            JO_DIRECT,            V_BOOL,    F(direct), 0, 0 },
	{ "buffered",          JO_BUFFERED,          V_SPECIAL, 0, 0, 0 },
	{ "ioengine",          JO_IOENGINE,          V_SPECIAL, 0, 0, 0 },
	{ "thread",            JO_THREAD,            V_BOOL,    F(thread), 0, 0 },
	{ "group_reporting",   JO_GROUP_REPORTING,   V_SET,     F(group_reporting), 0, 0 },
	{ "new_group",         JO_NEW_GROUP,         V_SET,     F(new_group), 0, 0 },
	{ "stonewall",         JO_STONEWALL,         V_SET,     F(stonewall), 0, 0 },
	{ "wait_for_previous", JO_STONEWALL,         V_SET,     F(stonewall), 0, 0 },
	{ "cgroup",            JO_CGROUP,            V_STR,     F(cgroup), 0, 0 },
	{ "cgroup_weight",     JO_CGROUP_WEIGHT,     V_UINT,    F(cgroup_weight), 1, 10000 },
	{ "prio",              JO_PRIO,              V_SPECIAL, 0, 0, 7 },
	{ "prioclass",         JO_PRIOCLASS,         V_SPECIAL, 0, 0, 3 },
	{ "rate",              JO_RATE,              V_PAIR,    F(rate), 0, 0 },
	{ "rate_iops",         JO_RATE_IOPS,         V_PAIR,    F(rate_iops), 0, 0 },
	{ "randrepeat",        JO_RANDREPEAT,        V_BOOL,    F(randrepeat), 0, 0 },
	{ "randseed",          JO_RANDSEED,          V_SIZE,    F(randseed), 0, 0 },
	{ "norandommap",       JO_NORANDOMMAP,       V_SET,     F(norandommap), 0, 0 },
	{ "overwrite",         JO_OVERWRITE,         V_BOOL,    F(overwrite), 0, 0 },
	{ "file_service_type", JO_FILE_SERVICE_TYPE, V_SPECIAL, 0, 0, 0 },
	{ "io_size",           JO_IO_SIZE,           V_SIZE,    F(io_size), 0, FILE_BYTES_MAX },
	{ "io_limit",          JO_IO_SIZE,           V_SIZE,    F(io_size), 0, FILE_BYTES_MAX },
	{ "loops",             JO_LOOPS,             V_UINT,    F(loops), 1, 1000000000 },
	{ "number_ios",        JO_NUMBER_IOS,        V_U64,     F(number_ios), 0, UINT64_MAX },
	{ "bsrange",           JO_BSRANGE,           V_SPECIAL, 0, 0, 0 },
	{ "blocksize_range",   JO_BSRANGE,           V_SPECIAL, 0, 0, 0 },
	{ "bssplit",           JO_BSSPLIT,           V_SPECIAL, 0, 0, 0 },
	{ "blockalign",        JO_BLOCKALIGN,        V_PAIR,    F(blockalign), 0, 0 },
	{ "ba",                JO_BLOCKALIGN,        V_PAIR,    F(blockalign), 0, 0 },
	{ "nrfiles",           JO_NRFILES,           V_UINT,    F(nrfiles), 1, 65535 },
	{ "nr_files",          JO_NRFILES,           V_UINT,    F(nrfiles), 1, 65535 },
	{ "filename_format",   JO_FILENAME_FORMAT,   V_STR,     F(filename_format), 0, 0 },
	{ "create_on_open",    JO_CREATE_ON_OPEN,    V_SPECIAL, 0, 0, 0 },
	{ "random_distribution", JO_RANDOM_DISTRIBUTION, V_SPECIAL, 0, 0, 0 },
	{ "buffer_pattern",    JO_BUFFER_PATTERN,    V_SPECIAL, 0, 0, 0 },
	{ "disable_lat",       JO_DISABLE_LAT,       V_BOOL,    F(disable_lat), 0, 0 },
	{ "disable_clat",      JO_DISABLE_CLAT,      V_BOOL,    F(disable_clat), 0, 0 },
	{ "disable_slat",      JO_DISABLE_SLAT,      V_BOOL,    F(disable_slat), 0, 0 },
	{ "lat_percentiles",   JO_LAT_PERCENTILES,   V_BOOL,    F(lat_percentiles), 0, 0 },
	{ "gtod_reduce",       JO_GTOD_REDUCE,       V_SPECIAL, 0, 0, 0 },
	{ "fallocate",         JO_FALLOCATE,         V_SPECIAL, 0, 0, 0 },
	{ "io_submit_mode",    JO_IO_SUBMIT_MODE,    V_SPECIAL, 0, 0, 0 },
	{ "write_bw_log",      JO_WRITE_BW_LOG,      V_SPECIAL, 0, 0, 0 },
	{ "write_iops_log",    JO_WRITE_IOPS_LOG,    V_SPECIAL, 0, 0, 0 },
	{ "write_lat_log",     JO_WRITE_LAT_LOG,     V_SPECIAL, 0, 0, 0 },
	{ "log_prio",          JO_LOG_PRIO,          V_BOOL,    F(log_prio), 0, 0 },
	{ "log_avg_msec",      JO_LOG_AVG_MSEC,      V_MSEC,    F(log_avg_ns), 0, JOB_TIME_MAX_NS },
	{ "log_offset",        JO_LOG_OFFSET,        V_BOOL,    F(log_offset), 0, 0 },
	{ "zonemode",          JO_ZONEMODE,          V_SPECIAL, 0, 0, 0 },
	{ "zonesize",          JO_ZONESIZE,          V_SIZE,    F(zonesize), 0, FILE_BYTES_MAX },
	{ "zonerange",         JO_ZONERANGE,         V_SIZE,    F(zonerange), 0, FILE_BYTES_MAX },
	{ "zoneskip",          JO_ZONESKIP,          V_SIZE,    F(zoneskip), 0, FILE_BYTES_MAX },
	{ "verify",            JO_VERIFY,            V_SPECIAL, 0, 0, 0 },
	{ "clat_percentiles",  JO_CLAT_PERCENTILES,  V_SPECIAL, 0, 0, 0 },
	{ "kb_base",           JO_KB_BASE,           V_SPECIAL, 0, 0, 0 },
	{ "allow_file_create", JO_ALLOW_FILE_CREATE, V_SPECIAL, 0, 0, 0 },
	{ "random_generator",  JO_RANDOM_GENERATOR,  V_SPECIAL, 0, 0, 0 },
	{ "do_verify",         JO_DO_VERIFY,         V_BOOL,    F(do_verify), 0, 0 },
	{ "verify_only",       JO_VERIFY_ONLY,       V_BOOL,    F(verify_only), 0, 0 },
	{ "verify_interval",   JO_VERIFY_INTERVAL,   V_SPECIAL, 0, 80, IO_BYTES_MAX },
	{ "verify_offset",     JO_VERIFY_OFFSET,     V_SPECIAL, 0, 40, IO_BYTES_MAX },
	{ "verify_pattern",    JO_VERIFY_PATTERN,    V_SPECIAL, 0, 0, 0 },
	{ "verify_fatal",      JO_VERIFY_FATAL,      V_BOOL,    F(verify_fatal), 0, 0 },
	{ "verify_dump",       JO_VERIFY_DUMP,       V_BOOL,    F(verify_dump), 0, 0 },
	{ "verify_async",      JO_VERIFY_ASYNC,      V_UINT,    F(verify_async), 0, 1024 },
	{ "verify_backlog",    JO_VERIFY_BACKLOG,    V_U64,     F(verify_backlog), 0, UINT64_MAX },
	{ "verify_backlog_batch", JO_VERIFY_BATCH,   V_UINT,    F(verify_batch), 0, 1u << 30 },
	{ "verify_state_save", JO_VERIFY_STATE_SAVE, V_SPECIAL, 0, 0, 0 },
	{ "verify_state_load", JO_VERIFY_STATE_LOAD, V_SPECIAL, 0, 0, 0 },
	{ "experimental_verify", JO_EXPERIMENTAL_VERIFY, V_SPECIAL, 0, 0, 0 },
	{ "verifysort",        JO_VERIFYSORT,        V_SPECIAL, 0, 0, 0 },
	{ "verifysort_nr",     JO_VERIFYSORT,        V_SPECIAL, 0, 0, 0 },
	{ "offset_increment",  JO_OFFSET_INCREMENT,  V_SIZE,    F(offset_increment), 0, FILE_BYTES_MAX },
	/* the tiobench profile's option, which fio takes in any job: without
	 * profile= (which ioqos refuses) it does nothing, there as here */
	{ "threads",           JO_THREADS,           V_UINT,    F(tiobench_threads), 0, UINT32_MAX },
	{ "thinktime",         JO_THINKTIME,         V_USEC,    F(thinktime_ns), 0, JOB_TIME_MAX_NS },
	{ "thinktime_spin",    JO_THINKTIME_SPIN,    V_USEC,    F(thinktime_spin_ns), 0, JOB_TIME_MAX_NS },
	{ "thinktime_iotime",  JO_THINKTIME_IOTIME,  V_TIME,    F(thinktime_iotime_ns), 0, JOB_TIME_MAX_NS },
	{ "thinktime_blocks",  JO_THINKTIME_BLOCKS,  V_SPECIAL, 0, 1, UINT32_MAX },
	{ "thinktime_blocks_type", JO_THINKTIME_BLOCKS_TYPE, V_SPECIAL, 0, 0, 0 },
	{ "exitall",           JO_EXITALL,           V_SET,     F(exitall), 0, 0 },
	{ "exitall_on_error",  JO_EXITALL_ON_ERROR,  V_SET,     F(exitall_on_error), 0, 0 },
	{ "exit_what",         JO_EXIT_WHAT,         V_SPECIAL, 0, 0, 0 },
	{ "wait_for",          JO_WAIT_FOR,          V_STR,     F(wait_for), 0, 0 },
	{ "verify_write_sequence", JO_VERIFY_WRITE_SEQUENCE, V_BOOL, F(verify_write_sequence), 0, 0 },
	{ "flow",              JO_FLOW,              V_UINT,    F(flow), 0, 1000 },
	{ "flow_id",           JO_FLOW_ID,           V_UINT,    F(flow_id), 0, UINT32_MAX },
	{ "flow_sleep",        JO_FLOW_SLEEP,        V_SPECIAL, 0, 0, 0 },
	{ "flow_watermark",    JO_FLOW_WATERMARK,    V_SPECIAL, 0, 0, 0 },
	{ "rate_min",          JO_RATE_MIN,          V_PAIR,    F(rate_min), 0, 0 },
	{ "ratemin",           JO_RATE_MIN,          V_PAIR,    F(rate_min), 0, 0 },
	{ "rate_iops_min",     JO_RATE_IOPS_MIN,     V_PAIR,    F(rate_iops_min), 0, 0 },
	{ "rate_cycle",        JO_RATECYCLE,         V_MSEC,    F(ratecycle_ns), 1000000, JOB_TIME_MAX_NS },
	{ "ratecycle",         JO_RATECYCLE,         V_MSEC,    F(ratecycle_ns), 1000000, JOB_TIME_MAX_NS },
	{ "rate_process",      JO_RATE_PROCESS,      V_SPECIAL, 0, 0, 0 },
	{ "latency_target",    JO_LATENCY_TARGET,    V_USEC,    F(latency_target_ns), 0, JOB_TIME_MAX_NS },
	{ "latency_window",    JO_LATENCY_WINDOW,    V_USEC,    F(latency_window_ns), 0, JOB_TIME_MAX_NS },
	{ "latency_percentile", JO_LATENCY_PERCENTILE, V_SPECIAL, 0, 0, 0 },
	{ "latency_run",       JO_LATENCY_RUN,       V_BOOL,    F(latency_run), 0, 0 },
	{ "steadystate",       JO_SS,                V_SPECIAL, 0, 0, 0 },
	{ "ss",                JO_SS,                V_SPECIAL, 0, 0, 0 },
	{ "steadystate_duration", JO_SS_DUR,         V_TIME,    F(ss_dur_ns), 0, JOB_TIME_MAX_NS },
	{ "ss_dur",            JO_SS_DUR,            V_TIME,    F(ss_dur_ns), 0, JOB_TIME_MAX_NS },
	{ "steadystate_ramp_time", JO_SS_RAMP,       V_TIME,    F(ss_ramp_ns), 0, JOB_TIME_MAX_NS },
	{ "ss_ramp",           JO_SS_RAMP,           V_TIME,    F(ss_ramp_ns), 0, JOB_TIME_MAX_NS },
	{ "continue_on_error", JO_CONTINUE_ON_ERROR, V_SPECIAL, 0, 0, 0 },
	{ "ignore_error",      JO_IGNORE_ERROR,      V_SPECIAL, 0, 0, 0 },
	{ "error_dump",        JO_ERROR_DUMP,        V_BOOL,    F(error_dump), 0, 0 },
};

/* fio options ioqos knows and does not run, and why */
static const struct { const char *name, *why; } refused[] = {
	{ "atomic", "ioqos issues no atomic writes (RWF_ATOMIC)" },
	{ "cmdprio", "ioqos sets no priority per I/O (the controller weighs groups: "
		     "cgroup_weight=, prio=)" },
	{ "cmdprio_class", "ioqos sets no priority per I/O (see cmdprio)" },
	{ "cmdprio_percentage", "ioqos sets no priority per I/O (see cmdprio)" },
	{ "cmdprio_bssplit", "ioqos sets no priority per I/O (see cmdprio)" },
	{ "cmdprio_hint", "ioqos sets no priority per I/O (see cmdprio)" },
	{ "dedupe_mode", "ioqos writes its own data" },
	{ "dedupe_global", "ioqos writes its own data" },
	{ "dedupe_working_set_percentage", "ioqos writes its own data" },
	{ "create_serialize", "ioqos lays its files out one after the other" },
	{ "random_sequence_stride", "ioqos draws no random_distribution=sequence" },
	{ "rate_ignore_thinktime", "ioqos's rate= counts the time a job thinks" },
	{ "verify_async_cpus", "ioqos checks blocks inline, on no helper threads "
			       "(see verify_async)" },
	{ "fsync", "ioqos issues no fsync (the controller sees reads and writes only)" },
	{ "fdatasync", "ioqos issues no fdatasync" },
	{ "end_fsync", "ioqos issues no fsync" },
	{ "fsync_on_close", "ioqos issues no fsync" },
	{ "sync", "ioqos opens no file O_SYNC" },
	{ "write_hist_log", "ioqos writes no histogram log (json+ has the bins)" },
	{ "iodepth_batch", "ioqos submits each I/O as the controller releases it" },
	{ "iodepth_batch_submit", "ioqos submits each I/O as the controller releases it" },
	{ "iodepth_batch_complete", "ioqos reaps completions as they come" },
	{ "iodepth_batch_complete_min", "ioqos reaps completions as they come" },
	{ "iodepth_batch_complete_max", "ioqos reaps completions as they come" },
	{ "iodepth_low", "ioqos refills a job's depth at every completion" },
	{ "invalidate", "ioqos does not drop the page cache before a job" },
	{ "unlink", "ioqos leaves its files in place" },
	{ "cpus_allowed", "ioqos runs every job in one thread" },
	{ "cpus_allowed_policy", "ioqos runs every job in one thread" },
	{ "cpumask", "ioqos runs every job in one thread" },
	{ "numa_cpu_nodes", "ioqos runs every job in one thread" },
	{ "numa_mem_policy", "ioqos allocates its own buffers" },
	{ "mem", "ioqos allocates its own buffers" },
	{ "iomem", "ioqos allocates its own buffers" },
	{ "nice", "ioqos runs every job in one thread" },
	{ "dedupe_percentage", "ioqos writes its own data" },
	{ "buffer_compress_percentage", "ioqos writes its own data" },
	{ "scramble_buffers", "ioqos writes its own data" },
	{ "refill_buffers", "ioqos writes its own data" },
	{ "zero_buffers", "ioqos writes its own data" },
	{ "lockfile", "ioqos takes no file locks" },
	{ "openfiles", "ioqos keeps every file open" },
	{ "fill_device", "ioqos runs for size= or runtime=" },
	{ "fill_fs", "ioqos runs for size= or runtime=" },
	{ "include", "ioqos reads one job file at a time (give several files)" },
	{ "percentile_list", "ioqos reports fio's default percentiles" },
	{ "slat_percentiles", "ioqos reports percentiles of clat and lat only" },
};

const char *job_opt_name(enum job_opt o)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].id == o)
			return opts[i].name;
	return "?";
}

const char *engine_name(enum engine_kind e)
{
	static const char *n[] = { "default", "sim", "null", "psync", "io_uring" };

	return n[e];
}

/* ---- values with a syntax of their own -------------------------------- */

/* split @v at ',' into at most 3 parts (read, write, trim) in @part */
static int split3(const char *v, char part[3][256], unsigned *n)
{
	unsigned k = 0;

	for (;;) {
		size_t len = strcspn(v, ",");

		if (k == 3 || len >= 256)
			return -EINVAL;
		memcpy(part[k], v, len);
		part[k][len] = '\0';
		k++;
		if (!v[len])
			break;
		v += len + 1;
	}
	*n = k;
	return 0;
}

/* "a,b,c": read, write and trim sides; one value sets all, an empty side
 * keeps its default; trims are never issued, so that side only parses */
static int parse_pair(const char *v, uint64_t out[2])
{
	char part[3][256];
	uint64_t val[3] = { out[0], out[1], 0 };
	unsigned n;

	if (split3(v, part, &n))
		return -EINVAL;
	for (unsigned k = 0; k < n; k++)
		if (part[k][0] && parse_size(part[k], &val[k]))
			return -EINVAL;
	if (n == 1)
		val[1] = val[0];
	if (n > 1 && !part[0][0] && !part[1][0] && !(n == 3 && part[2][0]))
		return -EINVAL;
	out[0] = val[0];
	out[1] = val[1];
	return 0;
}

/* bsrange=4k-64k[,8k-16k] */
static int io_too_large(char *why, size_t whylen)
{
	snprintf(why, whylen, "larger than %llu bytes, the most one I/O carries "
		 "(Linux's largest single read or write)",
		 (unsigned long long)IO_BYTES_MAX);
	return -EINVAL;
}

static int set_bsrange(struct job *j, const char *v, char *why, size_t whylen)
{
	char part[3][256];
	unsigned n;

	if (split3(v, part, &n))
		goto bad;
	for (unsigned k = 0; k < n && k < 2; k++) {
		char *dash = strchr(part[k], '-');
		uint64_t lo, hi;

		if (!part[k][0])
			continue;
		if (!dash)
			goto bad;
		*dash = '\0';
		if (parse_size(part[k], &lo) || parse_size(dash + 1, &hi) || !lo || lo > hi)
			goto bad;
		if (hi > IO_BYTES_MAX)
			return io_too_large(why, whylen);
		j->bs_min[k] = lo;
		j->bs_max[k] = hi;
		if (n == 1) {
			j->bs_min[1] = lo;
			j->bs_max[1] = hi;
		}
	}
	return 0;
bad:
	snprintf(why, whylen, "expected MIN-MAX sizes per direction, such as 4k-64k,8k-16k");
	return -EINVAL;
}

/* bssplit=4k/10:64k/50:32k/40[,write list]; a share left out takes an
 * equal part of what the others leave */
static int split_one(struct bs_split *sp, unsigned *nsp, char *list)
{
	unsigned n = 0, open = 0, sum = 0;
	char *save = NULL;

	for (char *e = strtok_r(list, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(e, '/');
		uint64_t bs, pct = 0;
		const char *end;

		if (n == BSSPLIT_MAX)
			return -EINVAL;
		if (slash)
			*slash = '\0';
		if (parse_size(e, &bs) || !bs)
			return -EINVAL;
		if (slash && slash[1]) {
			if (parse_uint(slash + 1, &end, &pct) || *end || pct > 100)
				return -EINVAL;
		} else {
			open++;
			pct = UINT32_MAX;
		}
		sp[n].bs = bs;
		sp[n].pct = (uint32_t)pct;
		if (pct != UINT32_MAX)
			sum += (unsigned)pct;
		n++;
	}
	if (!n || sum > 100 || (!open && sum != 100))
		return -EINVAL;
	for (unsigned k = 0, given = 0; k < n; k++)
		if (sp[k].pct == UINT32_MAX) {
			/* the last open entry takes the rounding */
			unsigned share = (100 - sum) / open;
			sp[k].pct = ++given == open ? 100 - sum - share * (open - 1) : share;
		}
	*nsp = n;
	return 0;
}

static int set_bssplit(struct job *j, const char *v, char *why, size_t whylen)
{
	char part[3][256];
	unsigned n;

	if (split3(v, part, &n))
		goto bad;
	for (unsigned k = 0; k < n && k < 2; k++) {
		if (!part[k][0])
			continue;
		if (split_one(j->split[k], &j->nsplit[k], part[k]))
			goto bad;
		for (unsigned e = 0; e < j->nsplit[k]; e++)
			if (j->split[k][e].bs > IO_BYTES_MAX)
				return io_too_large(why, whylen);
	}
	if (n == 1) {
		memcpy(j->split[1], j->split[0], sizeof(j->split[0]));
		j->nsplit[1] = j->nsplit[0];
	}
	return 0;
bad:
	snprintf(why, whylen, "expected SIZE/PERCENT:SIZE/PERCENT... per direction, "
		 "the percentages adding up to 100");
	return -EINVAL;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	if (!s[0])
		return -EINVAL;
	*out = strtod(s, &end);
	return *end ? -EINVAL : 0;
}

static int set_dist(struct job *j, const char *v, char *why, size_t whylen)
{
	const char *colon = strchr(v, ':'), *arg = colon ? colon + 1 : NULL;
	size_t len = colon ? (size_t)(colon - v) : strlen(v);
	double x;

	if (len == 6 && !strncmp(v, "random", len) && !arg) {
		j->dist = DIST_RANDOM;
		return 0;
	}
	if (len == 4 && !strncmp(v, "zipf", len)) {
		if (!arg || parse_double(arg, &x) || x <= 0 || x == 1.0)
			goto bad;
		j->dist = DIST_ZIPF;
		j->dist_arg = x;
		return 0;
	}
	if (len == 6 && !strncmp(v, "pareto", len)) {
		if (!arg || parse_double(arg, &x) || x <= 0 || x >= 1)
			goto bad;
		j->dist = DIST_PARETO;
		j->dist_arg = x;
		return 0;
	}
	if ((len == 6 && !strncmp(v, "normal", len)) || (len == 5 && !strncmp(v, "gauss", len))) {
		x = 0;
		if (arg && (parse_double(arg, &x) || x < 0 || x > 100))
			goto bad;
		j->dist = DIST_NORMAL;
		j->dist_arg = x;
		return 0;
	}
	if (len == 5 && !strncmp(v, "zoned", len) && arg) {
		char buf[512], *save = NULL;
		unsigned n = 0, io = 0, range = 0;

		if (strlen(arg) >= sizeof(buf))
			goto bad;
		snprintf(buf, sizeof(buf), "%s", arg);
		for (char *e = strtok_r(buf, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
			char *slash = strchr(e, '/');
			uint64_t a, b;
			const char *end;

			if (!slash || n == ZONES_MAX)
				goto bad;
			*slash = '\0';
			if (parse_uint(e, &end, &a) || *end || a > 100)
				goto bad;
			if (!slash[1])
				b = 100 - range;     /* "20/": the rest of the region */
			else if (parse_uint(slash + 1, &end, &b) || *end || b > 100)
				goto bad;
			j->zones[n].io_pct = (uint32_t)a;
			j->zones[n].range_pct = (uint32_t)b;
			io += (unsigned)a;
			range += (unsigned)b;
			n++;
		}
		if (!n || io != 100 || range != 100)
			goto bad;
		j->dist = DIST_ZONED;
		j->nzones = n;
		return 0;
	}
bad:
	snprintf(why, whylen, "supported: random, zipf:THETA (not 1), pareto:H (0<H<1), "
		 "normal[:DEV%%], zoned:IO%%/RANGE%%:... (each adding up to 100)");
	return -EINVAL;
}

/* buffer_pattern=0x01, ="text", or several joined by '|' */
static int set_pattern(struct job *j, const char *v, char *why, size_t whylen)
{
	unsigned n = 0;
	const char *p = v;

	while (*p) {
		if (*p == '"' || *p == '\'') {
			const char *close = strchr(p + 1, *p);
			size_t len;

			if (!close)
				goto bad;
			len = (size_t)(close - p - 1);
			if (n + len > PATTERN_MAX)
				goto bad;
			memcpy(j->pattern + n, p + 1, len);
			n += (unsigned)len;
			p = close + 1;
		} else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			const char *h = p + 2;
			size_t digits = strspn(h, "0123456789abcdefABCDEF");

			if (!digits)
				goto bad;
			/* big-endian bytes, an odd digit count padded in front */
			for (size_t i = 0; i < digits;) {
				char byte[3] = { h[i], 0, 0 };

				if (n == PATTERN_MAX)
					goto bad;
				if (i > 0 || digits % 2 == 0)
					byte[1] = h[++i];
				i++;
				j->pattern[n++] = (uint8_t)strtoul(byte, NULL, 16);
			}
			p = h + digits;
		} else {
			goto bad;
		}
		if (*p == '|')
			p++;
		else if (*p)
			goto bad;
	}
	if (!n)
		goto bad;
	j->pattern_len = n;
	return 0;
bad:
	snprintf(why, whylen, "expected 0xHEX or \"text\", joined by | (at most %d bytes)",
		 PATTERN_MAX);
	return -EINVAL;
}

/* a value that must be one of @ok, else the reason */
static int only(const char *v, const char *const *ok, const char *reason,
		char *why, size_t whylen)
{
	for (; *ok; ok++)
		if (!strcmp(v, *ok))
			return 0;
	snprintf(why, whylen, "%s", reason);
	return -EINVAL;
}

/* verify=: fio 3.33's names (crc32c-intel is crc32c; pattern has no header) */
static int set_verify(struct job *j, const char *v, char *why, size_t whylen)
{
	static const struct { const char *s; unsigned t; } names[] = {
		{ "0", VFY_NONE }, { "none", VFY_NONE }, { "md5", VFY_MD5 },
		{ "crc64", VFY_CRC64 }, { "crc32", VFY_CRC32 },
		{ "crc32c-intel", VFY_CRC32C }, { "crc32c", VFY_CRC32C },
		{ "crc16", VFY_CRC16 }, { "crc7", VFY_CRC7 }, { "sha1", VFY_SHA1 },
		{ "sha256", VFY_SHA256 }, { "sha512", VFY_SHA512 },
		{ "sha3-224", VFY_SHA3_224 }, { "sha3-256", VFY_SHA3_256 },
		{ "sha3-384", VFY_SHA3_384 }, { "sha3-512", VFY_SHA3_512 },
		{ "xxhash", VFY_XXHASH }, { "meta", VFY_META },
		{ "pattern", VFY_PATTERN }, { "null", VFY_NULL },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i].s)) {
			j->verify = names[i].t;
			return 0;
		}
	snprintf(why, whylen, "expected 0, md5, crc64, crc32, crc32c, crc32c-intel, "
		 "crc16, crc7, sha1, sha256, sha512, sha3-224, sha3-256, sha3-384, "
		 "sha3-512, xxhash, meta, pattern or null");
	return -EINVAL;
}

/* one 0x... run of verify_pattern= at @p into @out; NULL if bad */
static const char *vpat_hex(const char *p, uint8_t *out, unsigned *n)
{
	size_t digits = strspn(p + 2, "0123456789abcdefABCDEF");

	/* "0xff0x14": the 0 before the next 0x is that one's */
	if (digits > 1 && (p[2 + digits] == 'x' || p[2 + digits] == 'X'))
		digits--;
	if (!digits)
		return NULL;
	p += 2;
	for (size_t i = 0; i < digits;) {
		char byte[3] = { p[i], 0, 0 };

		if (*n == PATTERN_MAX)
			return NULL;
		/* an odd count: the first digit is a byte of its own */
		if (i > 0 || digits % 2 == 0)
			byte[1] = p[++i];
		i++;
		out[(*n)++] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return p + digits;
}

/* a decimal int of verify_pattern=: its bytes, little-endian, fewest */
static const char *vpat_dec(const char *p, uint8_t *out, unsigned *n)
{
	const char *x = strstr(p, "0x"), *X = strstr(p, "0X");
	char num[24], *end;
	size_t len;
	long v;
	unsigned u;

	if (X && (!x || X < x))
		x = X;
	len = x ? (size_t)(x - p) : strcspn(p, "\"%");
	if (!len || len >= sizeof(num))
		return NULL;
	memcpy(num, p, len);
	num[len] = '\0';
	errno = 0;
	v = strtol(num, &end, 10);
	if (end == num || errno || v > INT32_MAX || v < INT32_MIN)
		return NULL;
	u = (unsigned)v;
	do {
		if (*n == PATTERN_MAX)
			return NULL;
		out[(*n)++] = (uint8_t)u;
		u >>= 8;
	} while (u);
	return p + (end - num);
}

/* verify_pattern= in fio's syntax: 0xHEX, a decimal int, "text" and %o
 * (the I/O's offset, 8 bytes little-endian), one after the other */
static int set_vpattern(struct job *j, const char *v, char *why, size_t whylen)
{
	uint8_t pat[PATTERN_MAX];
	uint16_t fmt[VPATTERN_FMT_MAX];
	unsigned n = 0, nfmt = 0;
	const char *p = v;

	while (p && *p) {
		if (*p == '"') {
			const char *close = strchr(p + 1, '"');
			size_t len = close ? (size_t)(close - p - 1) : 0;

			if (!close || n + len > PATTERN_MAX)
				p = NULL;
			else {
				memcpy(pat + n, p + 1, len);
				n += (unsigned)len;
				p = close + 1;
			}
		} else if (p[0] == '%' && p[1] == 'o') {
			if (nfmt == VPATTERN_FMT_MAX || n + 8 > PATTERN_MAX) {
				p = NULL;
				break;
			}
			fmt[nfmt++] = (uint16_t)n;
			memset(pat + n, 0, 8);
			n += 8;
			p += 2;
		} else if (*p == '\'') {
			snprintf(why, whylen, "a pattern file ('NAME') is not read by ioqos: "
				 "give the bytes");
			return -EINVAL;
		} else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			p = vpat_hex(p, pat, &n);
		} else {
			p = vpat_dec(p, pat, &n);
		}
	}
	if (!p || !n) {
		snprintf(why, whylen, "expected 0xHEX, decimal numbers, \"text\" and %%o, "
			 "one after the other (at most %d bytes)", PATTERN_MAX);
		return -EINVAL;
	}
	memcpy(j->vpattern, pat, n);
	j->vpattern_len = n;
	memcpy(j->vpattern_fmt, fmt, sizeof(fmt[0]) * nfmt);
	j->vpattern_nfmt = nfmt;
	/* fio: a pattern with no verify= given is checked with a header */
	if (!job_isset(j, JO_VERIFY))
		j->verify = VFY_PATTERN_HDR;
	return 0;
}

static int set_engine(struct job *j, const char *v, char *why, size_t whylen)
{
	static const struct { const char *fio; enum engine_kind e; } map[] = {
		{ "io_uring", ENG_URING }, { "libaio", ENG_URING },
		{ "posixaio", ENG_URING }, { "psync", ENG_PSYNC },
		{ "sync", ENG_PSYNC }, { "vsync", ENG_PSYNC }, { "pvsync", ENG_PSYNC },
		{ "pvsync2", ENG_PSYNC }, { "mmap", ENG_PSYNC }, { "null", ENG_NULL },
		{ "sim", ENG_SIM },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(v, map[i].fio)) {
			j->engine = map[i].e;
			snprintf(j->engine_fio, sizeof(j->engine_fio), "%s", v);
			return 0;
		}
	snprintf(why, whylen, "ioqos runs io_uring, libaio and posixaio (on io_uring), "
		 "sync, psync, vsync, pvsync, pvsync2 and mmap (on psync), null and sim; "
		 "not the '%.24s' engine", v);
	return -EINVAL;
}

static int set_rw(struct job *j, const char *v, char *why, size_t whylen)
{
	static const struct { const char *s; enum rw_mode m; } modes[] = {
		{ "read", RW_READ }, { "write", RW_WRITE },
		{ "randread", RW_RANDREAD }, { "randwrite", RW_RANDWRITE },
		{ "rw", RW_RW }, { "readwrite", RW_RW }, { "randrw", RW_RANDRW },
	};
	const char *colon = strchr(v, ':');
	size_t len = colon ? (size_t)(colon - v) : strlen(v);

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		uint64_t n = 0;
		bool neg = false;
		const char *a = colon ? colon + 1 : NULL;

		if (strlen(modes[i].s) != len || strncmp(v, modes[i].s, len))
			continue;
		if (a) {
			bool random = modes[i].m == RW_RANDREAD || modes[i].m == RW_RANDWRITE ||
				      modes[i].m == RW_RANDRW;
			const char *end;

			if (*a == '-' && !random) {
				neg = true;
				a++;
			}
			if (random ? parse_uint(a, &end, &n) || *end || !n : parse_size(a, &n) ||
			    n > (1ull << 62)) {
				snprintf(why, whylen, random ? "':N' is the number of I/Os per new "
					 "random offset, N >= 1" : "':N' is a size to skip after "
					 "each I/O, such as :8k or :-8k");
				return -EINVAL;
			}
		}
		j->rw = modes[i].m;
		j->rw_mod = neg ? (uint64_t)-(int64_t)n : n;
		return 0;
	}
	if (!strncmp(v, "trim", 4) || !strncmp(v, "randtrim", 8))
		snprintf(why, whylen, "ioqos issues no trims");
	else
		snprintf(why, whylen, "expected read, write, randread, randwrite, rw, "
			 "readwrite or randrw, optionally with :N");
	return -EINVAL;
}

static int set_uint_range(const char *v, uint64_t hi, uint64_t *out, char *why,
			  size_t whylen)
{
	const char *end;

	if (parse_uint(v, &end, out) || *end || *out > hi) {
		snprintf(why, whylen, "expected 0..%llu", (unsigned long long)hi);
		return -EINVAL;
	}
	return 0;
}

static int set_special(struct job *j, const struct opt *o, const char *v,
		       char *why, size_t whylen)
{
	static const char *const one[] = { "1", NULL };
	static const char *const zero[] = { "0", NULL };
	uint64_t n;
	bool b;
	int rc;

	switch (o->id) {
	case JO_RW:
		return set_rw(j, v, why, whylen);
	case JO_RWMIXREAD:
	case JO_RWMIXWRITE:
		if (set_uint_range(v, 100, &n, why, whylen))
			return -EINVAL;
		j->rwmixread = o->id == JO_RWMIXREAD ? (unsigned)n : 100 - (unsigned)n;
		return 0;
	case JO_PRIO:
		if (set_uint_range(v, 7, &n, why, whylen))
			return -EINVAL;
		j->prio = (int)n;
		return 0;
	case JO_PRIOCLASS:
		if (set_uint_range(v, 3, &n, why, whylen))
			return -EINVAL;
		if (n != 2 && n != 0) {
			snprintf(why, whylen, "only class 2 (best effort) is supported: "
				 "ioqos has no real-time or idle class");
			return -EINVAL;
		}
		j->prioclass = (int)n;
		return 0;
	case JO_IOENGINE:
		return set_engine(j, v, why, whylen);
	case JO_BUFFERED:
		if (v && parse_bool(v, &b)) {
			snprintf(why, whylen, "expected 0 or 1");
			return -EINVAL;
		}
		j->direct = v ? !b : false;
		return 0;
	case JO_GTOD_REDUCE:
		if (v && parse_bool(v, &b)) {
			snprintf(why, whylen, "expected 0 or 1");
			return -EINVAL;
		}
		b = v ? b : true;
		j->disable_lat = j->disable_clat = j->disable_slat = b;
		return 0;
	case JO_FILE_SERVICE_TYPE: {
		const char *colon = strchr(v, ':'), *end;
		size_t len = colon ? (size_t)(colon - v) : strlen(v);
		enum file_service f;

		if (len == 10 && !strncmp(v, "roundrobin", len))
			f = FST_ROUNDROBIN;
		else if (len == 10 && !strncmp(v, "sequential", len))
			f = FST_SEQUENTIAL;
		else if (len == 6 && !strncmp(v, "random", len))
			f = FST_RANDOM;
		else {
			snprintf(why, whylen, "supported: random, roundrobin, sequential (with :N)");
			return -EINVAL;
		}
		n = 1;
		if (colon && (parse_uint(colon + 1, &end, &n) || *end || n < 1 || n > 1000000000)) {
			snprintf(why, whylen, "bad ':N'");
			return -EINVAL;
		}
		j->fst = f;
		j->fst_n = (unsigned)n;
		return 0;
	}
	case JO_BSRANGE:
		return set_bsrange(j, v, why, whylen);
	case JO_BSSPLIT:
		return set_bssplit(j, v, why, whylen);
	case JO_RANDOM_DISTRIBUTION:
		return set_dist(j, v, why, whylen);
	case JO_BUFFER_PATTERN:
		return set_pattern(j, v, why, whylen);
	case JO_FALLOCATE: {
		static const char *const ok[] = { "posix", "native", "keep", "1", NULL };
		return only(v, ok, "ioqos lays every file out with data before the run, "
			    "so blocks are allocated as with posix, native or keep", why, whylen);
	}
	case JO_IO_SUBMIT_MODE: {
		/* offload: submission times that follow the rate, not the
		 * completions, which ioqos's timers give inline (ratepoisson.c) */
		static const char *const ok[] = { "inline", "offload", NULL };
		return only(v, ok, "expected inline or offload", why, whylen);
	}
	case JO_LATENCY_PERCENTILE:
		return lattarget_set_pct(j, v, why, whylen);
	case JO_SS:
		return steady_set(j, v, why, whylen);
	case JO_RATE_PROCESS: {
		static const char *const ok[] = { "linear", "poisson", NULL };

		rc = only(v, ok, "expected linear or poisson", why, whylen);
		if (!rc)
			j->rate_poisson = !strcmp(v, "poisson");
		return rc;
	}
	case JO_WRITE_BW_LOG:
	case JO_WRITE_IOPS_LOG:
	case JO_WRITE_LAT_LOG: {
		char **p = o->id == JO_WRITE_BW_LOG ? &j->bw_log :
			   o->id == JO_WRITE_IOPS_LOG ? &j->iops_log : &j->lat_log;
		char *c = strdup(v && v[0] ? v : j->name);

		if (!c)
			return -ENOMEM;
		free(*p);
		*p = c;
		if (o->id == JO_WRITE_BW_LOG)
			j->write_bw_log = true;
		else if (o->id == JO_WRITE_IOPS_LOG)
			j->write_iops_log = true;
		else
			j->write_lat_log = true;
		return 0;
	}
	case JO_ZONEMODE:
		if (!strcmp(v, "none")) {
			j->strided = false;
			return 0;
		}
		if (!strcmp(v, "strided")) {
			j->strided = true;
			return 0;
		}
		snprintf(why, whylen, "supported: none, strided (ioqos does not manage "
			 "zoned block devices)");
		return -EINVAL;
	case JO_CREATE_ON_OPEN: {
		static const char *const ok[] = { "0", NULL };
		return only(v ? v : "1", ok, "ioqos lays a file out before the run; fio with "
			    "create_on_open leaves it to the job's first I/O", why, whylen);
	}
	case JO_VERIFY:
		return set_verify(j, v, why, whylen);
	case JO_CONTINUE_ON_ERROR:
		return errpol_set_coe(j, v, why, whylen);
	case JO_IGNORE_ERROR:
		return errpol_set_ignore(j, v, why, whylen);
	case JO_VERIFY_PATTERN:
		return set_vpattern(j, v, why, whylen);
	case JO_VERIFY_INTERVAL:
	case JO_VERIFY_OFFSET:
		if (parse_size(v, &n) || n < o->lo || n > o->hi) {
			snprintf(why, whylen, "expected a size of %llu bytes or more",
				 (unsigned long long)o->lo);
			return -EINVAL;
		}
		*(o->id == JO_VERIFY_INTERVAL ? &j->verify_interval : &j->verify_offset) = n;
		return 0;
	case JO_VERIFY_STATE_SAVE:
		return only(v ? v : "1", zero, "ioqos writes no verify state file when a "
			    "run is stopped (fio's JOB-N-verify.state)", why, whylen);
	case JO_VERIFY_STATE_LOAD:
		return only(v ? v : "1", zero, "ioqos reads no verify state file (fio's "
			    "JOB-N-verify.state)", why, whylen);
	case JO_EXPERIMENTAL_VERIFY:
		return only(v ? v : "1", zero, "fio's experimental_verify (replaying the "
			    "offsets instead of logging the writes) is not run: ioqos logs "
			    "the writes, as fio does by default", why, whylen);
	case JO_THINKTIME_BLOCKS: {
		const char *end;

		if (parse_uint(v, &end, &n) || *end || n < 1 || n > UINT32_MAX) {
			snprintf(why, whylen, "expected an integer 1..%u", UINT32_MAX);
			return -EINVAL;
		}
		j->thinktime_blocks = (unsigned)n;
		j->thinktime_blocks_set = true;
		return 0;
	}
	case JO_THINKTIME_BLOCKS_TYPE: {
		static const char *const ok[] = { "complete", "issue", NULL };

		rc = only(v, ok, "expected complete or issue", why, whylen);
		if (!rc)
			j->thinktime_issue = !strcmp(v, "issue");
		return rc;
	}
	case JO_EXIT_WHAT: {
		static const char *const ok[] = { "group", "stonewall", "all", NULL };

		rc = only(v, ok, "expected group, stonewall or all", why, whylen);
		if (!rc)
			j->exit_what = !strcmp(v, "all") ? EXIT_ALL : !strcmp(v, "stonewall") ?
				       EXIT_STONEWALL : EXIT_GROUP;
		return rc;
	}
	case JO_VERIFYSORT:
	case JO_FLOW_WATERMARK:
		/* fio ignores these (soft-deprecated), and so does ioqos */
		return 0;
	case JO_FLOW_SLEEP: {
		const char *end;

		if (parse_uint(v, &end, &n) || *end || n > JOB_TIME_MAX_NS / 1000) {
			snprintf(why, whylen, "expected microseconds");
			return -EINVAL;
		}
		j->flow_sleep_ns = n * 1000;
		return 0;
	}
	case JO_CLAT_PERCENTILES:
		return only(v, one, "ioqos always reports clat percentiles", why, whylen);
	case JO_KB_BASE: {
		static const char *const ok[] = { "1024", NULL };
		return only(v, ok, "ioqos reads sizes with fio's default kb_base=1024 only",
			    why, whylen);
	}
	case JO_ALLOW_FILE_CREATE:
		return only(v, one, "ioqos creates a missing file", why, whylen);
	case JO_RANDOM_GENERATOR: {
		static const char *const ok[] = { "tausworthe", "lfsr", "tausworthe64", NULL };
		rc = only(v, ok, "expected tausworthe, lfsr or tausworthe64", why, whylen);
		/* every generator is ioqos's own, so offsets never repeat fio's;
		 * lfsr's promise, no offset twice in a pass, is the random map's */
		if (!rc)
			j->lfsr = !strcmp(v, "lfsr");
		return rc;
	}
	default:
		break;
	}
	return -EINVAL;
}

static const struct opt *find_opt(const char *name)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

int jobopt_set(struct job *j, const char *key, const char *v, char *why,
	       size_t whylen)
{
	const struct opt *o = find_opt(key);
	void *f;
	uint64_t n;
	const char *end;
	bool b;
	int rc = -EINVAL;

	why[0] = '\0';
	if (!o) {
		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
			if (!strcmp(refused[i].name, key)) {
				snprintf(why, whylen, "%s", refused[i].why);
				return -EINVAL;
			}
		return -ENOENT;
	}
	f = (char *)j + o->off;
	if (!v && o->type != V_BOOL && o->type != V_SET && o->id != JO_BUFFERED &&
	    o->id != JO_GTOD_REDUCE && o->id != JO_WRITE_BW_LOG &&
	    o->id != JO_CREATE_ON_OPEN && o->id != JO_VERIFY_STATE_SAVE &&
	    o->id != JO_VERIFY_STATE_LOAD && o->id != JO_EXPERIMENTAL_VERIFY &&
	    o->id != JO_VERIFYSORT && o->id != JO_FLOW_WATERMARK &&
	    o->id != JO_WRITE_IOPS_LOG && o->id != JO_WRITE_LAT_LOG) {
		snprintf(why, whylen, "needs a value");
		return -EINVAL;
	}
	switch (o->type) {
	case V_NAME:
		if (!v[0] || strlen(v) >= JOB_NAME_MAX) {
			snprintf(why, whylen, "a name of 1..%d bytes", JOB_NAME_MAX - 1);
			break;
		}
		snprintf(j->name, sizeof(j->name), "%s", v);
		rc = 0;
		break;
	case V_STR: {
		char **s = f, *c;
		if (!v[0]) {
			snprintf(why, whylen, "empty value");
			break;
		}
		if (!(c = strdup(v)))
			return -ENOMEM;
		free(*s);
		*s = c;
		rc = 0;
		break;
	}
	case V_SIZE:
		if (parse_size(v, &n)) {
			snprintf(why, whylen, "expected a size such as 4096, 4k, 1m, 2g");
			break;
		}
		if (o->hi && n > o->hi) {
			snprintf(why, whylen, "more than %llu bytes (the largest file "
				 "offset)", (unsigned long long)o->hi);
			break;
		}
		*(uint64_t *)f = n;
		rc = 0;
		break;
	case V_PAIR: {
		uint64_t *bs = f, was[2] = { bs[0], bs[1] };

		if (parse_pair(v, f)) {
			snprintf(why, whylen, "expected SIZE or READ,WRITE such as 4k,64k");
			break;
		}
		if (bs[0] > IO_BYTES_MAX || bs[1] > IO_BYTES_MAX) {
			bs[0] = was[0];
			bs[1] = was[1];
			io_too_large(why, whylen);
			break;
		}
		rc = 0;
		break;
	}
	case V_UINT:
	case V_U64:
		if (parse_uint(v, &end, &n) || *end || n < o->lo || n > o->hi) {
			snprintf(why, whylen, "expected an integer %llu..%llu",
				 (unsigned long long)o->lo, (unsigned long long)o->hi);
			break;
		}
		if (o->type == V_U64)
			*(uint64_t *)f = n;
		else
			*(unsigned *)f = (unsigned)n;
		if (o->id == JO_CGROUP_WEIGHT)
			*(uint32_t *)f = (uint32_t)n;
		rc = 0;
		break;
	case V_TIME:
	case V_MSEC:
	case V_USEC:
		if (parse_time_ns(v, o->type == V_MSEC ? 1000000ull : o->type == V_USEC ?
				  1000ull : 1000000000ull, &n)) {
			snprintf(why, whylen, "expected a time such as 60, 500ms, 2m");
			break;
		}
		if (o->hi && n > o->hi) {
			snprintf(why, whylen, "longer than %llud, the longest a run may "
				 "take", (unsigned long long)(o->hi / 86400000000000ull));
			break;
		}
		*(uint64_t *)f = n;
		rc = 0;
		break;
	case V_BOOL:
	case V_SET:
		if (!v)
			b = true;
		else if (parse_bool(v, &b)) {
			snprintf(why, whylen, "expected 0 or 1");
			break;
		}
		*(bool *)f = b;
		rc = 0;
		break;
	case V_SPECIAL:
		rc = set_special(j, o, v, why, whylen);
		break;
	}
	if (!rc)
		j->set[o->id / 64] |= 1ull << (o->id % 64);
	return rc;
}

uint64_t job_bs_low(const struct job *j, int dir)
{
	uint64_t lo = j->bs[dir];

	if (j->nsplit[dir]) {
		lo = UINT64_MAX;
		for (unsigned k = 0; k < j->nsplit[dir]; k++)
			if (j->split[dir][k].pct && j->split[dir][k].bs < lo)
				lo = j->split[dir][k].bs;
	} else if (j->bs_min[dir]) {
		lo = j->bs_min[dir];
	}
	return lo;
}

uint64_t job_bs_high(const struct job *j, int dir)
{
	uint64_t hi = j->bs[dir];

	if (j->nsplit[dir]) {
		hi = 0;
		for (unsigned k = 0; k < j->nsplit[dir]; k++)
			if (j->split[dir][k].pct && j->split[dir][k].bs > hi)
				hi = j->split[dir][k].bs;
	} else if (j->bs_max[dir]) {
		hi = j->bs_max[dir];
	}
	return hi;
}
