/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the iolog reader of read_iolog=
 * (tools/ioqos/job/replaylog.c): any input must parse or fail with one
 * line naming the log (and its line), holding no control byte, never
 * crash, leak, hang or read out of bounds.  A log that parses holds what
 * the replay relies on: version 2 or 3, a read or a write, every entry's
 * action known and its file one of the log's, every read and write of 1
 * to IO_BYTES_MAX bytes ending by 2^63 - 1 and no larger than max_len,
 * every gap and wait within a year, and marks and gaps of version 3 only.
 * Then a log valid by construction, of as many files as the input has
 * bytes (up to 300, past the hash table's growths) named after them, each
 * added, opened and read in the input's order, must parse to those files
 * and reads.  The reader's sources are included directly, as the fuzz
 * build links only the library.
 */
#include "../tools/ioqos/job/replaylog.c"
#include "../tools/ioqos/job/jobvalue.c"
#include "../tools/ioqos/job/jobread.c"
#include "../tools/ioqos/job/jobmsg.c"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the log of files named after @data's bytes, read in turn: it parses */
static void valid_log(const uint8_t *data, size_t size)
{
	size_t n = size < 300 ? size : 300, cap = 64 + n * 96, len = 0;
	char *buf = malloc(cap), err[512];
	struct replaylog *l;

	FUZZ_ASSERT(buf != NULL);
	len += (size_t)snprintf(buf + len, cap - len, "fio version 3 iolog\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%zu d/%02x.%zu add\n", i,
					data[i], i);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%zu d/%02x.%zu open\n", n,
					data[i], i);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%zu d/%02x.%zu read %u 1\n",
					n + i, data[n - 1 - i], n - 1 - i, data[i]);
	if (n) {
		FUZZ_ASSERT(replaylog_parse("valid", buf, len, &l, err, sizeof(err)) == 0);
		FUZZ_ASSERT(l->nfiles == n);
		for (size_t i = 0, k = 0; i < l->n; i++) {
			if (l->e[i].act != RL_READ)
				continue;
			FUZZ_ASSERT(l->e[i].file == n - 1 - k && l->e[i].off == data[k]);
			k++;
		}
		replaylog_free(l);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replaylog *l = (struct replaylog *)&l;
	char err[512];
	bool io = false;
	int rc;

	valid_log(data, size);
	memset(err, 0x55, sizeof(err));
	rc = replaylog_parse("fuzz.iolog", (const char *)data, size, &l, err, sizeof(err));
	if (rc) {
		FUZZ_ASSERT(rc == -EINVAL || rc == -ENOMEM);
		FUZZ_ASSERT(l == NULL);
		check_message(err, sizeof(err));
		FUZZ_ASSERT(!strncmp(err, "fuzz.iolog", 10));
		for (const char *c = err; *c; c++)
			FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
		return 0;
	}
	FUZZ_ASSERT(l != NULL && (l->version == 2 || l->version == 3));
	FUZZ_ASSERT(l->nfiles >= 1 && l->nfiles <= REPLAYLOG_FILES_MAX && l->n >= 1);
	for (size_t i = 0; i < l->n; i++) {
		const struct rl_entry *e = &l->e[i];

		FUZZ_ASSERT(e->act <= RL_MARK && e->line >= 2);
		FUZZ_ASSERT(e->gap_us <= REPLAYLOG_TIME_MAX_US);
		FUZZ_ASSERT(l->version == 3 || (!e->gap_us && e->act != RL_MARK));
		FUZZ_ASSERT(l->version == 2 || e->act != RL_WAIT);
		if (e->act == RL_WAIT)
			FUZZ_ASSERT(e->off <= REPLAYLOG_WAIT_MAX_MS);
		if (e->act == RL_WAIT || e->act == RL_MARK)
			continue;
		FUZZ_ASSERT(e->file < l->nfiles && l->files[e->file][0]);
		if (e->act > RL_WRITE)
			continue;
		io = true;
		FUZZ_ASSERT(e->len >= 1 && e->len <= IO_BYTES_MAX && e->len <= l->max_len);
		FUZZ_ASSERT(e->off <= FILE_BYTES_MAX - e->len);
		FUZZ_ASSERT(l->writes || e->act == RL_READ);
	}
	FUZZ_ASSERT(io);
	replaylog_free(l);
	return 0;
}
