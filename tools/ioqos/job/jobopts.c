/* SPDX-License-Identifier: MIT */
/*
 * fio's options as ioqos reads them: one table of name, what it sets and
 * how its value is read.  A value of a common kind (a size, a time, a
 * flag...) is read here by its type; a value with a syntax of its own
 * (rw, ioengine, bssplit, random_distribution...) by the reader its row
 * names, as each row of fio's option table names its callback.
 *
 * An option is in the table only when ioqos gives it fio's meaning.  Some
 * values of an accepted option are still refused, each with the reason
 * (experimental_verify=1: not run; zonemode=zbd: no zoned devices).  fio options
 * that ioqos knows and does not run are named in a second table with the
 * reason (jobopts_refused.c), so that the error says why rather than
 * "unknown".  The readers of values with a syntax of their own are in
 * jobopts_special.c and the files of their families (see jobopts.h), all
 * below the table: none of them calls back into it.
 */
#include "job/jobopts.h"
#include "job/jobopts_feat.h"
#include "job/jobopts_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct opt opts[] = {
	{ "name",              JO_NAME,              V_NAME,    0, 0, 0, NULL },
	{ "description",       JO_DESCRIPTION,       V_STR,     F(description), 0, 0, NULL },
	{ "filename",          JO_FILENAME,          V_STR,     F(filename), 0, 0, NULL },
	{ "directory",         JO_DIRECTORY,         V_STR,     F(directory), 0, 0, NULL },
	{ "size",              JO_SIZE,              V_SIZE,    F(size), 0, FILE_BYTES_MAX, NULL },
	{ "filesize",          JO_FILESIZE,          V_SIZE,    F(filesize), 0, FILE_BYTES_MAX, NULL },
	{ "offset",            JO_OFFSET,            V_SIZE,    F(offset), 0, FILE_BYTES_MAX, NULL },
	{ "rw",                JO_RW,                V_SPECIAL, 0, 0, 0, opt_set_rw },
	{ "readwrite",         JO_RW,                V_SPECIAL, 0, 0, 0, opt_set_rw },
	{ "rwmixread",         JO_RWMIXREAD,         V_SPECIAL, 0, 0, 100, opt_set_rwmix },
	{ "rwmixwrite",        JO_RWMIXWRITE,        V_SPECIAL, 0, 0, 100, opt_set_rwmix },
	{ "bs",                JO_BS,                V_PAIR,    F(bs), 0, 0, NULL },
	{ "blocksize",         JO_BS,                V_PAIR,    F(bs), 0, 0, NULL },
	{ "iodepth",           JO_IODEPTH,           V_UINT,    F(iodepth), 1, 65536, NULL },
	{ "iodepth_low",       JO_IODEPTH_LOW,       V_UINT,    F(iodepth_low), 0, 65536, NULL },
	{ "nice",              JO_NICE,              V_SPECIAL, 0, 0, 0, opt_set_nice },
	{ "iodepth_batch", JO_IODEPTH_BATCH, V_UINT, F(iodepth_batch), 0, 65536, NULL },
	{ "iodepth_batch_submit", JO_IODEPTH_BATCH, V_UINT, F(iodepth_batch), 0, 65536, NULL },
	{ "iodepth_batch_complete_max", JO_IODEPTH_BATCH_COMPLETE_MAX, V_UINT, F(batch_cpl_max),
	  0, 65536, NULL },
	{ "iodepth_batch_complete", JO_IODEPTH_BATCH_COMPLETE, V_UINT, F(batch_cpl_min), 0, 65536, NULL },
	{ "iodepth_batch_complete_min", JO_IODEPTH_BATCH_COMPLETE, V_UINT, F(batch_cpl_min), 0, 65536, NULL },
	{ "numjobs",           JO_NUMJOBS,           V_UINT,    F(numjobs), 1, 65536, NULL },
	{ "runtime",           JO_RUNTIME,           V_TIME,    F(runtime_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "timeout",           JO_RUNTIME,           V_TIME,    F(runtime_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "time_based",        JO_TIME_BASED,        V_SET,     F(time_based), 0, 0, NULL },
	{ "ramp_time",         JO_RAMP_TIME,         V_TIME,    F(ramp_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "startdelay",        JO_STARTDELAY,        V_TIME,    F(startdelay_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "direct",            JO_DIRECT,            V_BOOL,    F(direct), 0, 0, NULL },
	{ "buffered",          JO_BUFFERED,          V_SPECIAL, 0, 0, 0, opt_set_buffered },
	{ "ioengine",          JO_IOENGINE,          V_SPECIAL, 0, 0, 0, opt_set_engine },
	{ "thread",            JO_THREAD,            V_BOOL,    F(thread), 0, 0, NULL },
	{ "group_reporting",   JO_GROUP_REPORTING,   V_SET,     F(group_reporting), 0, 0, NULL },
	{ "new_group",         JO_NEW_GROUP,         V_SET,     F(new_group), 0, 0, NULL },
	{ "stonewall",         JO_STONEWALL,         V_SET,     F(stonewall), 0, 0, NULL },
	{ "wait_for_previous", JO_STONEWALL,         V_SET,     F(stonewall), 0, 0, NULL },
	{ "cgroup",            JO_CGROUP,            V_STR,     F(cgroup), 0, 0, NULL },
	{ "cgroup_weight",     JO_CGROUP_WEIGHT,     V_UINT,    F(cgroup_weight), 1, 10000, NULL },
	{ "prio",              JO_PRIO,              V_SPECIAL, 0, 0, 7, opt_set_prio },
	{ "prioclass",         JO_PRIOCLASS,         V_SPECIAL, 0, 0, 3, opt_set_prioclass },
	{ "rate",              JO_RATE,              V_PAIR,    F(rate), 0, 0, NULL },
	{ "rate_iops",         JO_RATE_IOPS,         V_PAIR,    F(rate_iops), 0, 0, NULL },
	{ "randrepeat",        JO_RANDREPEAT,        V_BOOL,    F(randrepeat), 0, 0, NULL },
	{ "randseed",          JO_RANDSEED,          V_SIZE,    F(randseed), 0, 0, NULL },
	{ "norandommap",       JO_NORANDOMMAP,       V_SET,     F(norandommap), 0, 0, NULL },
	{ "overwrite",         JO_OVERWRITE,         V_BOOL,    F(overwrite), 0, 0, NULL },
	{ "file_service_type", JO_FILE_SERVICE_TYPE, V_SPECIAL, 0, 0, 0, opt_set_fst },
	{ "rw_sequencer",      JO_RW_SEQUENCER,      V_SPECIAL, 0, 0, 0, opt_set_rw_sequencer },
	{ "io_size",           JO_IO_SIZE,           V_SIZE,    F(io_size), 0, FILE_BYTES_MAX, NULL },
	{ "io_limit",          JO_IO_SIZE,           V_SIZE,    F(io_size), 0, FILE_BYTES_MAX, NULL },
	{ "loops",             JO_LOOPS,             V_UINT,    F(loops), 1, 1000000000, NULL },
	{ "number_ios",        JO_NUMBER_IOS,        V_U64,     F(number_ios), 0, UINT64_MAX, NULL },
	{ "bsrange",           JO_BSRANGE,           V_SPECIAL, 0, 0, 0, opt_set_bsrange },
	{ "blocksize_range",   JO_BSRANGE,           V_SPECIAL, 0, 0, 0, opt_set_bsrange },
	{ "bssplit",           JO_BSSPLIT,           V_SPECIAL, 0, 0, 0, opt_set_bssplit },
	{ "blockalign",        JO_BLOCKALIGN,        V_PAIR,    F(blockalign), 0, 0, NULL },
	{ "ba",                JO_BLOCKALIGN,        V_PAIR,    F(blockalign), 0, 0, NULL },
	{ "nrfiles",           JO_NRFILES,           V_UINT,    F(nrfiles), 1, 65535, NULL },
	{ "nr_files",          JO_NRFILES,           V_UINT,    F(nrfiles), 1, 65535, NULL },
	{ "filename_format",   JO_FILENAME_FORMAT,   V_STR,     F(filename_format), 0, 0, NULL },
	{ "create_on_open",    JO_CREATE_ON_OPEN,    V_BOOL,    F(create_on_open), 0, 0, NULL },
	{ "random_distribution", JO_RANDOM_DISTRIBUTION, V_SPECIAL, 0, 0, 0, opt_set_dist },
	{ "buffer_pattern",    JO_BUFFER_PATTERN,    V_SPECIAL, 0, 0, 0, opt_set_pattern },
	{ "disable_lat",       JO_DISABLE_LAT,       V_BOOL,    F(disable_lat), 0, 0, NULL },
	{ "disable_clat",      JO_DISABLE_CLAT,      V_BOOL,    F(disable_clat), 0, 0, NULL },
	{ "disable_slat",      JO_DISABLE_SLAT,      V_BOOL,    F(disable_slat), 0, 0, NULL },
	{ "lat_percentiles",   JO_LAT_PERCENTILES,   V_BOOL,    F(lat_percentiles), 0, 0, NULL },
	{ "gtod_reduce",       JO_GTOD_REDUCE,       V_SPECIAL, 0, 0, 0, opt_set_gtod_reduce },
	{ "fallocate",         JO_FALLOCATE,         V_SPECIAL, 0, 0, 0, falloc_set },
	{ "io_submit_mode",    JO_IO_SUBMIT_MODE,    V_SPECIAL, 0, 0, 0, opt_set_submit_mode },
	{ "write_bw_log",      JO_WRITE_BW_LOG,      V_SPECIAL, 0, 0, 0, opt_set_log },
	{ "write_iops_log",    JO_WRITE_IOPS_LOG,    V_SPECIAL, 0, 0, 0, opt_set_log },
	{ "write_lat_log",     JO_WRITE_LAT_LOG,     V_SPECIAL, 0, 0, 0, opt_set_log },
	{ "log_prio",          JO_LOG_PRIO,          V_BOOL,    F(log_prio), 0, 0, NULL },
	{ "log_avg_msec",      JO_LOG_AVG_MSEC,      V_MSEC,    F(log_avg_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "log_offset",        JO_LOG_OFFSET,        V_BOOL,    F(log_offset), 0, 0, NULL },
	{ "log_max_value",     JO_LOG_MAX_VALUE,     V_BOOL,    F(log_max), 0, 0, NULL },
	{ "zonemode",          JO_ZONEMODE,          V_SPECIAL, 0, 0, 0, opt_set_zonemode },
	{ "zonesize",          JO_ZONESIZE,          V_SIZE,    F(zonesize), 0, FILE_BYTES_MAX, NULL },
	{ "zonerange",         JO_ZONERANGE,         V_SIZE,    F(zonerange), 0, FILE_BYTES_MAX, NULL },
	{ "zoneskip",          JO_ZONESKIP,          V_SIZE,    F(zoneskip), 0, FILE_BYTES_MAX, NULL },
	{ "verify",            JO_VERIFY,            V_SPECIAL, 0, 0, 0, opt_set_verify },
	{ "clat_percentiles",  JO_CLAT_PERCENTILES,  V_SPECIAL, 0, 0, 0, opt_set_clat_pct },
	{ "kb_base",           JO_KB_BASE,           V_SPECIAL, 0, 0, 0, opt_set_kb_base },
	{ "allow_file_create", JO_ALLOW_FILE_CREATE, V_SPECIAL, 0, 0, 0, opt_set_file_create },
	{ "random_generator",  JO_RANDOM_GENERATOR,  V_SPECIAL, 0, 0, 0, opt_set_rand_gen },
	{ "do_verify",         JO_DO_VERIFY,         V_BOOL,    F(do_verify), 0, 0, NULL },
	{ "verify_only",       JO_VERIFY_ONLY,       V_BOOL,    F(verify_only), 0, 0, NULL },
	{ "verify_interval",   JO_VERIFY_INTERVAL,   V_SPECIAL, 0, 80, IO_BYTES_MAX, opt_set_verify_size },
	{ "verify_offset",     JO_VERIFY_OFFSET,     V_SPECIAL, 0, 40, IO_BYTES_MAX, opt_set_verify_size },
	{ "verify_pattern",    JO_VERIFY_PATTERN,    V_SPECIAL, 0, 0, 0, opt_set_vpattern },
	{ "verify_fatal",      JO_VERIFY_FATAL,      V_BOOL,    F(verify_fatal), 0, 0, NULL },
	{ "verify_dump",       JO_VERIFY_DUMP,       V_BOOL,    F(verify_dump), 0, 0, NULL },
	{ "verify_async",      JO_VERIFY_ASYNC,      V_UINT,    F(verify_async), 0, 1024, NULL },
	{ "verify_backlog",    JO_VERIFY_BACKLOG,    V_U64,     F(verify_backlog), 0, UINT64_MAX, NULL },
	{ "verify_backlog_batch", JO_VERIFY_BATCH,   V_UINT,    F(verify_batch), 0, 1u << 30, NULL },
	{ "verify_state_save", JO_VERIFY_STATE_SAVE, V_SPECIAL, 0, 0, 0, opt_set_vstate_save },
	{ "verify_state_load", JO_VERIFY_STATE_LOAD, V_SPECIAL, 0, 0, 0, opt_set_vstate_load },
	{ "experimental_verify", JO_EXPERIMENTAL_VERIFY, V_SPECIAL, 0, 0, 0, opt_set_exp_verify },
	{ "verifysort",        JO_VERIFYSORT,        V_SPECIAL, 0, 0, 0, opt_set_ignored },
	{ "verifysort_nr",     JO_VERIFYSORT,        V_SPECIAL, 0, 0, 0, opt_set_ignored },
	{ "offset_increment",  JO_OFFSET_INCREMENT,  V_SIZE,    F(offset_increment), 0, FILE_BYTES_MAX, NULL },
	/* the tiobench profile's option, which fio takes in any job: without
	 * profile= (which ioqos refuses) it does nothing, there as here */
	{ "threads",           JO_THREADS,           V_UINT,    F(tiobench_threads), 0, UINT32_MAX, NULL },
	{ "thinktime",         JO_THINKTIME,         V_USEC,    F(thinktime_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "thinktime_spin",    JO_THINKTIME_SPIN,    V_USEC,    F(thinktime_spin_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "thinktime_iotime",  JO_THINKTIME_IOTIME,  V_TIME,    F(thinktime_iotime_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "thinktime_blocks",  JO_THINKTIME_BLOCKS,  V_SPECIAL, 0, 1, UINT32_MAX, opt_set_tt_blocks },
	{ "thinktime_blocks_type", JO_THINKTIME_BLOCKS_TYPE, V_SPECIAL, 0, 0, 0, opt_set_tt_blocks_type },
	{ "exitall",           JO_EXITALL,           V_SET,     F(exitall), 0, 0, NULL },
	{ "exitall_on_error",  JO_EXITALL_ON_ERROR,  V_SET,     F(exitall_on_error), 0, 0, NULL },
	{ "exit_what",         JO_EXIT_WHAT,         V_SPECIAL, 0, 0, 0, opt_set_exit_what },
	{ "wait_for",          JO_WAIT_FOR,          V_STR,     F(wait_for), 0, 0, NULL },
	{ "verify_write_sequence", JO_VERIFY_WRITE_SEQUENCE, V_BOOL, F(verify_write_sequence), 0, 0, NULL },
	{ "flow",              JO_FLOW,              V_UINT,    F(flow), 0, 1000, NULL },
	{ "flow_id",           JO_FLOW_ID,           V_UINT,    F(flow_id), 0, UINT32_MAX, NULL },
	{ "flow_sleep",        JO_FLOW_SLEEP,        V_SPECIAL, 0, 0, 0, opt_set_flow_sleep },
	{ "flow_watermark",    JO_FLOW_WATERMARK,    V_SPECIAL, 0, 0, 0, opt_set_ignored },
	{ "rate_min",          JO_RATE_MIN,          V_PAIR,    F(rate_min), 0, 0, NULL },
	{ "ratemin",           JO_RATE_MIN,          V_PAIR,    F(rate_min), 0, 0, NULL },
	{ "rate_iops_min",     JO_RATE_IOPS_MIN,     V_PAIR,    F(rate_iops_min), 0, 0, NULL },
	{ "rate_cycle",        JO_RATECYCLE,         V_MSEC,    F(ratecycle_ns), 1000000, JOB_TIME_MAX_NS, NULL },
	{ "ratecycle",         JO_RATECYCLE,         V_MSEC,    F(ratecycle_ns), 1000000, JOB_TIME_MAX_NS, NULL },
	{ "rate_process",      JO_RATE_PROCESS,      V_SPECIAL, 0, 0, 0, opt_set_rate_process },
	{ "latency_target",    JO_LATENCY_TARGET,    V_USEC,    F(latency_target_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "latency_window",    JO_LATENCY_WINDOW,    V_USEC,    F(latency_window_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "latency_percentile", JO_LATENCY_PERCENTILE, V_SPECIAL, 0, 0, 0, lattarget_set_pct },
	{ "latency_run",       JO_LATENCY_RUN,       V_BOOL,    F(latency_run), 0, 0, NULL },
	{ "steadystate",       JO_SS,                V_SPECIAL, 0, 0, 0, steady_set },
	{ "ss",                JO_SS,                V_SPECIAL, 0, 0, 0, steady_set },
	{ "steadystate_duration", JO_SS_DUR,         V_TIME,    F(ss_dur_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "ss_dur",            JO_SS_DUR,            V_TIME,    F(ss_dur_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "steadystate_ramp_time", JO_SS_RAMP,       V_TIME,    F(ss_ramp_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "ss_ramp",           JO_SS_RAMP,           V_TIME,    F(ss_ramp_ns), 0, JOB_TIME_MAX_NS, NULL },
	{ "continue_on_error", JO_CONTINUE_ON_ERROR, V_SPECIAL, 0, 0, 0, errpol_set_coe },
	{ "ignore_error",      JO_IGNORE_ERROR,      V_SPECIAL, 0, 0, 0, errpol_set_ignore },
	{ "error_dump",        JO_ERROR_DUMP,        V_BOOL,    F(error_dump), 0, 0, NULL },
	{ "dedupe_percentage", JO_DEDUPE_PERCENTAGE, V_UINT,    F(dedupe_pct), 0, 100, NULL },
	{ "dedupe_mode",       JO_DEDUPE_MODE,       V_SPECIAL, 0, 0, 0, bufgen_set_mode },
	{ "dedupe_working_set_percentage", JO_DEDUPE_WSET, V_UINT, F(dedupe_ws_pct), 0, 100, NULL },
	{ "dedupe_global",     JO_DEDUPE_GLOBAL,     V_BOOL,    F(dedupe_global), 0, 0, NULL },
	{ "buffer_compress_percentage", JO_COMPRESS_PCT, V_UINT, F(compress_pct), 0, 100, NULL },
	{ "buffer_compress_chunk", JO_COMPRESS_CHUNK, V_SIZE,   F(compress_chunk), 0, IO_BYTES_MAX, NULL },
	{ "refill_buffers",    JO_REFILL_BUFFERS,    V_BOOL,    F(refill_buffers), 0, 0, NULL },
	{ "scramble_buffers",  JO_SCRAMBLE_BUFFERS,  V_BOOL,    F(scramble_buffers), 0, 0, NULL },
	{ "zero_buffers",      JO_ZERO_BUFFERS,      V_BOOL,    F(zero_buffers), 0, 0, NULL },
	{ "cmdprio_percentage", JO_CMDPRIO_PERCENTAGE, V_SPECIAL, 0, 0, 0, prio_set_pct },
	{ "cmdprio_class",     JO_CMDPRIO_CLASS,     V_SPECIAL, 0, 0, 0, prio_set_class },
	{ "cmdprio",           JO_CMDPRIO,           V_SPECIAL, 0, 0, 0, prio_set_level },
	{ "cmdprio_bssplit",   JO_CMDPRIO_BSSPLIT,   V_SPECIAL, 0, 0, 0, prio_set_bssplit },
	{ "fill_device",       JO_FILL_DEVICE,       V_BOOL,    F(fill_device), 0, 0, NULL },
	{ "fill_fs",           JO_FILL_DEVICE,       V_BOOL,    F(fill_device), 0, 0, NULL },
	{ "create_serialize",  JO_CREATE_SERIALIZE,  V_BOOL,    F(create_serialize), 0, 0, NULL },
	{ "cpus_allowed",      JO_CPUS_ALLOWED,      V_SPECIAL, 0, 0, 0, place_set },
	{ "cpumask",           JO_CPUMASK,           V_SPECIAL, 0, 0, 0, place_set },
	{ "cpus_allowed_policy", JO_CPUS_ALLOWED_POLICY, V_SPECIAL, 0, 0, 0, place_set },
	{ "numa_cpu_nodes",    JO_NUMA_CPU_NODES,    V_SPECIAL, 0, 0, 0, place_set },
	{ "numa_mem_policy",   JO_NUMA_MEM_POLICY,   V_SPECIAL, 0, 0, 0, place_set },
	{ "fsync",             JO_FSYNC,             V_UINT,    F(fsync_blocks), 0, UINT32_MAX, NULL },
	{ "fdatasync",         JO_FDATASYNC,         V_UINT,    F(fdatasync_blocks), 0, UINT32_MAX, NULL },
	{ "end_fsync",         JO_END_FSYNC,         V_BOOL,    F(end_fsync), 0, 0, NULL },
	{ "fsync_on_close",    JO_FSYNC_ON_CLOSE,    V_BOOL,    F(fsync_on_close), 0, 0, NULL },
	{ "sync",              JO_SYNC,              V_SPECIAL, 0, 0, 0, fsync_set_sync },
	{ "invalidate",        JO_INVALIDATE,        V_BOOL,    F(invalidate), 0, 0, NULL },
	{ "unlink",            JO_UNLINK,            V_BOOL,    F(unlink), 0, 0, NULL },
	{ "mem",               JO_MEM,               V_SPECIAL, 0, 0, 0, iomem_set },
	{ "iomem",             JO_MEM,               V_SPECIAL, 0, 0, 0, iomem_set },
	{ "slat_percentiles",  JO_SLAT_PERCENTILES,  V_BOOL,    F(slat_percentiles), 0, 0, NULL },
	{ "percentile_list",   JO_PERCENTILE_LIST,   V_SPECIAL, 0, 0, 0, opt_set_pct_list },
	{ "read_iolog",        JO_READ_IOLOG,        V_STR,     F(read_iolog), 0, 0, NULL },
	{ "read_iolog_chunked", JO_READ_IOLOG_CHUNKED, V_BOOL,  F(read_iolog_chunked), 0, 0, NULL },
	{ "replay_no_stall",   JO_REPLAY_NO_STALL,   V_BOOL,    F(replay_no_stall), 0, 0, NULL },
	{ "replay_time_scale", JO_REPLAY_TIME_SCALE, V_UINT,    F(replay_time_scale), 1, UINT32_MAX, NULL },
	{ "replay_redirect",   JO_REPLAY_REDIRECT,   V_STR,     F(replay_redirect), 0, 0, NULL },
	{ "replay_align",      JO_REPLAY_ALIGN,      V_SPECIAL, 0, 0, 0, replay_set_align },
	{ "replay_scale",      JO_REPLAY_SCALE,      V_UINT,    F(replay_scale), 0, UINT32_MAX, NULL },
	{ "write_iolog",       JO_WRITE_IOLOG,       V_STR,     F(write_iolog), 0, 0, NULL },
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

static const struct opt *find_opt(const char *name)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

/* a flag, or an option whose bare name has a meaning */
static bool bare_ok(const struct opt *o)
{
	return o->type == V_BOOL || o->type == V_SET || o->id == JO_BUFFERED ||
	       o->id == JO_GTOD_REDUCE || o->id == JO_WRITE_BW_LOG ||
	       o->id == JO_VERIFY_STATE_SAVE || o->id == JO_VERIFY_STATE_LOAD ||
	       o->id == JO_EXPERIMENTAL_VERIFY || o->id == JO_VERIFYSORT ||
	       o->id == JO_FLOW_WATERMARK || o->id == JO_WRITE_IOPS_LOG ||
	       o->id == JO_WRITE_LAT_LOG;
}

int jobopt_cmdline_arg(const char *key)
{
	const struct opt *o = find_opt(key);

	if (!o)
		return JOBOPT_ARG_UNKNOWN;
	/* fio's FIO_OPT_STR_SET options, getopt's optional_argument */
	if (o->type == V_SET || o->id == JO_VERIFY_ONLY || o->id == JO_THREAD ||
	    o->id == JO_ZERO_BUFFERS || o->id == JO_REFILL_BUFFERS)
		return JOBOPT_ARG_OPTIONAL;
	return JOBOPT_ARG_REQUIRED;
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
		const char *r = opt_refused(key);

		if (!r)
			return -ENOENT;
		snprintf(why, whylen, "%s", r);
		return -EINVAL;
	}
	f = (char *)j + o->off;
	if (!v && !bare_ok(o)) {
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
		if (opt_size_pct(j, o->id, v, &rc, why, whylen))
			break;
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
		/* bs= keeps its trim side; the others have none */
		uint64_t *bs = f;
		bool trim = o->id == JO_BS, third;
		uint64_t out[3] = { bs[0], bs[1], trim ? bs[2] : 0 };

		if (opt_parse_pair(v, out, &third)) {
			snprintf(why, whylen, "expected SIZE or READ,WRITE%s such as 4k,64k",
				 trim ? "[,TRIM]" : "");
			break;
		}
		/* bs= and blockalign= are of one I/O; rate=, rate_iops= and
		 * their minimums are unsigned 64-bit, as fio's */
		if (o->id == JO_BS && (out[0] > IO_BYTES_MAX || out[1] > IO_BYTES_MAX ||
				       out[2] > IO_BYTES_MAX)) {
			opt_io_too_large(why, whylen);
			break;
		}
		if (o->id == JO_BLOCKALIGN && (out[0] > IO_BYTES_MAX || out[1] > IO_BYTES_MAX)) {
			snprintf(why, whylen, "larger than %llu bytes: it aligns blocks, "
				 "and a block is at most that (Linux's largest single "
				 "read or write)", (unsigned long long)IO_BYTES_MAX);
			break;
		}
		bs[0] = out[0];
		bs[1] = out[1];
		if (trim)
			bs[2] = out[2];
		else if (!j->trim_side_opt && third)
			j->trim_side_opt = o->name;   /* refused for a job that trims */
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
		rc = o->set(j, o, v, why, whylen);
		break;
	}
	if (!rc)
		j->set[o->id / 64] |= 1ull << (o->id % 64);
	return rc;
}
