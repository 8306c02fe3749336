/* SPDX-License-Identifier: MIT */
/*
 * fio's iologs, versions 2 and 3, as a job replays them (read_iolog=):
 * read whole and checked before the run, all or nothing (replaylog.c);
 * run/replay.c issues them.
 */
#ifndef IOQOS_REPLAYLOG_H
#define IOQOS_REPLAYLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* an iolog larger than this is refused on its size, unread: a line of
 * fio's is some 40 bytes (1.5 million I/Os in 64 MiB), and each takes an
 * entry of 32 bytes in memory (the shortest lines, 230 MB at most) */
#define REPLAYLOG_MAX_BYTES ((size_t)64 << 20)
/* a line longer than this is refused (fio reads 4096 bytes a line) */
#define REPLAYLOG_LINE_MAX 8192
/* the files one log may add: an I/O names its file by a 16-bit index */
#define REPLAYLOG_FILES_MAX 65535
/* the latest time of a version 3 line, us, and of a version 2 wait, ms:
 * a year, the longest a run may take */
#define REPLAYLOG_TIME_MAX_US (365ull * 86400 * 1000000)
#define REPLAYLOG_WAIT_MAX_MS (365ull * 86400 * 1000)

/* what a line of the log does, in the order it comes */
enum rl_act {
	RL_READ,          /* read len bytes at off */
	RL_WRITE,         /* write len bytes at off */
	RL_SYNC,          /* fsync the file */
	RL_DATASYNC,      /* fdatasync the file */
	RL_WAIT,          /* version 2: wait until off ms since the job began */
	RL_MARK,          /* version 3: a file's add, open or close, which moves
			   * nothing but is a point in the log's time */
};

struct rl_entry {
	uint64_t off;                 /* bytes; RL_WAIT: the time, ms */
	uint64_t gap_us;              /* version 3: its time less the line
				       * before's, us (the first line's: 0) */
	uint32_t len;                 /* bytes (RL_READ, RL_WRITE) */
	uint32_t line;                /* its line in the log, for messages */
	uint16_t file;                /* index in files[] (not RL_WAIT, RL_MARK) */
	uint8_t act;                  /* enum rl_act */
};

struct replaylog {
	char *path;                   /* as given, for messages */
	unsigned version;             /* 2 or 3 */
	char **files;                 /* the names its add lines gave, in order */
	unsigned nfiles;
	struct rl_entry *e;           /* its lines that do something, in order */
	size_t n;
	uint32_t max_len;             /* its largest read or write, bytes */
	bool writes;                  /* it writes */
};

/*
 * Parse the log in @buf (@len bytes, the file's whole content; @path names
 * it in messages): 0 and a new log in *@out, or -EINVAL (-ENOMEM) with one
 * line in @err naming @path, the line, and what is wrong with it.
 */
int replaylog_parse(const char *path, const char *buf, size_t len,
		    struct replaylog **out, char *err, size_t errlen);
/* the same from the regular file @path (anything else is refused unread) */
int replaylog_load(const char *path, struct replaylog **out, char *err,
		   size_t errlen);
void replaylog_free(struct replaylog *l);

#endif
