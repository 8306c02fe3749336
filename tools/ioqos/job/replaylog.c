/* SPDX-License-Identifier: MIT */
/*
 * fio's iologs, read as fio 3.33 reads them for read_iolog= (iolog.c,
 * read_iolog()), and checked as fio does not check them.
 *
 * The format.  A first line "fio version 2 iolog" or "fio version 3
 * iolog", then a line per action, its fields apart by blanks:
 *
 *     version 2                        version 3 (fio 3.31 and later)
 *     FILE add|open|close              TIME FILE add|open|close
 *     FILE ACTION OFFSET LENGTH        TIME FILE ACTION OFFSET LENGTH
 *
 * ACTION is read, write, sync or datasync (a sync's OFFSET and LENGTH are
 * read and not used) or, in version 2 only, wait, whose OFFSET is a time.
 * TIME is in microseconds: fio writes utime_since_now() there, and its
 * HOWTO gives no unit.  Before each line fio waits until the line's time
 * less the line before's has passed since it issued the line before (the
 * first line waits for nothing), so a log replays its gaps, not a clock:
 * an I/O held up by a full job puts off the ones after it, as a program's
 * think times would.  A line that does something becomes an entry
 * (struct rl_entry) holding that gap; a file action of version 3 is an
 * entry too (RL_MARK), for fio waits for its time as for an I/O's.  A
 * version 2 wait is fio's code rather than its HOWTO: until OFFSET
 * milliseconds after fio began (mtime_since_genesis()), not OFFSET
 * microseconds after the wait before.  Worked example, version 3:
 *
 *     0 f add  /  0 f open  /  0 f read 0 4096  /  100000 f read 4096 4096
 *     250000 f write 0 4096
 *
 * gives entries with gaps 0, 0, 0, 100000 and 150000 us: the reads go at
 * 0 and 100 ms and the write at 250 ms, when each finds a free slot.
 *
 * What fio takes and ioqos refuses, each an error naming the file, the
 * line and the value: a first line of another version (fio: "iolog
 * version 1 is no longer supported") or a blktrace file (fio replays
 * those; ioqos does not), an action it does not know, fields missing or
 * left over, a number that is not a decimal one (fio's sscanf takes "-5"
 * for 2^64 - 5), an offset or offset + length past 2^63 - 1, a length of
 * 0 or past 2147479552 (Linux's largest read or write), a time that goes
 * back (fio waits 0 for it) or past a year, a version 3 wait (fio skips it
 * with a message), a trim (fio 3.33 skips it too, "bad ddir: 2"), a file
 * added twice, an I/O on a file never added (fio crashes) or not open (an
 * assertion of fio's fails), a line longer than REPLAYLOG_LINE_MAX or
 * holding a NUL byte, more than REPLAYLOG_FILES_MAX files, and a log with
 * no read or write (fio: "failed initializing iolog").  A blank line is
 * skipped (fio says it is bad and goes on).  Nothing of a log that fails
 * is kept.
 *
 * One difference in what a log means: fio takes a time of 0 for "no time
 * yet" (delay_since_ttime()), so the line after one stamped 0 goes at
 * once whatever its own time; here every gap counts, as fio's HOWTO has
 * it (times "start at 0").
 *
 * The parse is one pass over the lines; a name is found in a hash table
 * (FNV-1a, open addressing), so each line costs a constant, however many
 * files the log has.  Memory: the file's bytes while it is read, and 32
 * bytes an entry.
 */
#include "job/replaylog.h"

#include "job/jobfile_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char hdr2[] = "fio version 2 iolog";
static const char hdr3[] = "fio version 3 iolog";

/* a log's file while it is read */
struct pfile {
	uint32_t added;               /* the line of its add */
	bool open;                    /* opened, not closed since */
	uint32_t closed;              /* the line of its last close, 0: none */
};

struct parse {
	const char *path;
	struct replaylog *l;
	struct pfile *pf;             /* as l->files */
	unsigned cap;                 /* of l->files and pf */
	uint32_t *hash;               /* index + 1 into l->files, 0: empty */
	unsigned hmask;               /* its size less 1, a power of two less 1 */
	size_t ecap;                  /* entries allocated */
	uint64_t prev_us;             /* version 3: the time of the line before */
	bool timed;                   /* version 3: a line has been timed */
	uint64_t reads, writes;
	char *err;
	size_t errlen;
};

static int perr(struct parse *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "PATH:LINE: why" (LINE 0: "PATH: why"), escaped, into p->err: -EINVAL */
static int perr(struct parse *p, unsigned line, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (line)
		jf_errf(p->err, p->errlen, "%s:%u: %s", p->path, line, why);
	else
		jf_errf(p->err, p->errlen, "%s: %s", p->path, why);
	return -EINVAL;
}

/* blktrace's first word (struct blk_io_trace's magic, its low byte the
 * version), in either byte order, as fio's is_blktrace() looks for it */
static bool is_blktrace(const char *b, size_t len)
{
	const unsigned char *u = (const unsigned char *)b;
	uint32_t le, be;

	if (len < 4)
		return false;
	le = u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
	be = u[3] | (uint32_t)u[2] << 8 | (uint32_t)u[1] << 16 | (uint32_t)u[0] << 24;
	return (le & 0xffffff00u) == 0x65617400u || (be & 0xffffff00u) == 0x65617400u;
}

/* a decimal number of at most @max (9 or more): 0, -EINVAL (not one),
 * -ERANGE (past @max) */
static int dec(const char *t, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*t)
		return -EINVAL;
	for (; *t; t++) {
		unsigned d = (unsigned)(*t - '0');

		if (*t < '0' || *t > '9')
			return -EINVAL;
		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* field @what of line @line, a number of at most @max (@range says what
 * that bound is): 0, or -EINVAL with the message */
static int field(struct parse *p, unsigned line, const char *what, const char *t,
		 uint64_t max, const char *range, uint64_t *out)
{
	int rc = dec(t, max, out);

	if (rc == -ERANGE)
		return perr(p, line, "%s %.64s: past %" PRIu64 " (%s)", what, t, max, range);
	if (rc)
		return perr(p, line, "%s '%.64s': %s", what, t, t[0] == '-' ?
			    "negative" : "not a decimal number");
	return 0;
}

static uint32_t fnv(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* the index of file @name, or -1 */
static int find(const struct parse *p, const char *name)
{
	if (!p->hash)
		return -1;
	for (uint32_t h = fnv(name) & p->hmask;; h = (h + 1) & p->hmask) {
		uint32_t v = p->hash[h];

		if (!v)
			return -1;
		if (!strcmp(p->l->files[v - 1], name))
			return (int)(v - 1);
	}
}

/* file @i into the hash table @h of @mask + 1 slots */
static void hash_put(uint32_t *h, uint32_t mask, const char *name, unsigned i)
{
	uint32_t k = fnv(name) & mask;

	while (h[k])
		k = (k + 1) & mask;
	h[k] = i + 1;
}

/* the hash table at twice the files at least, the last one in it: 0 or
 * -ENOMEM */
static int rehash(struct parse *p)
{
	unsigned size = p->hash ? (p->hmask + 1) * 2 : 64, n = p->l->nfiles;
	uint32_t *h;

	if (p->hash && n * 2 <= p->hmask + 1) {
		hash_put(p->hash, p->hmask, p->l->files[n - 1], n - 1);
		return 0;
	}
	h = calloc(size, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		hash_put(h, size - 1, p->l->files[i], i);
	free(p->hash);
	p->hash = h;
	p->hmask = size - 1;
	return 0;
}

/* file @name added on line @line: 0, or -EINVAL/-ENOMEM */
static int add_file(struct parse *p, const char *name, unsigned line)
{
	struct replaylog *l = p->l;
	int k = find(p, name);

	if (k >= 0)
		return perr(p, line, "'%.256s' added again (first on line %u)", name,
			    p->pf[k].added);
	if (l->nfiles == REPLAYLOG_FILES_MAX)
		return perr(p, line, "'%.256s': more than %u files", name,
			    REPLAYLOG_FILES_MAX);
	if (l->nfiles == p->cap) {
		unsigned cap = p->cap ? p->cap * 2 : 8;
		char **f = realloc(l->files, cap * sizeof(*f));
		struct pfile *pf;

		if (!f)
			return -ENOMEM;
		l->files = f;
		if (!(pf = realloc(p->pf, cap * sizeof(*pf))))
			return -ENOMEM;
		p->pf = pf;
		p->cap = cap;
	}
	if (!(l->files[l->nfiles] = strdup(name)))
		return -ENOMEM;
	p->pf[l->nfiles] = (struct pfile){ .added = line };
	l->nfiles++;
	return rehash(p);
}

/* an entry of the log, in the room one_line() made */
static struct rl_entry *entry(struct parse *p, enum rl_act act, unsigned line,
			      uint64_t gap_us)
{
	struct rl_entry *e = &p->l->e[p->l->n++];

	*e = (struct rl_entry){ .gap_us = gap_us, .line = line, .act = (uint8_t)act };
	return e;
}

/* the file of an action on line @line: its index, or -EINVAL; @io: the
 * action moves data or syncs, and the file must be open */
static int file_of(struct parse *p, const char *name, const char *act,
		   unsigned line, bool io)
{
	int k = find(p, name);

	if (k < 0)
		return perr(p, line, "%s of '%.256s', a file never added (no "
			    "'FILE add' line before)", act, name);
	if (io && !p->pf[k].open) {
		if (p->pf[k].closed)
			return perr(p, line, "%s of '%.256s', closed on line %u", act,
				    name, p->pf[k].closed);
		return perr(p, line, "%s of '%.256s', a file not opened (no "
			    "'FILE open' line before)", act, name);
	}
	return k;
}

/* a file action (add, open, close) of line @line: 0, or -errno */
static int file_action(struct parse *p, const char *name, const char *act,
		       unsigned line, uint64_t gap_us)
{
	int k, rc;

	if (!strcmp(act, "add")) {
		if ((rc = add_file(p, name, line)))
			return rc;
	} else {
		if ((k = file_of(p, name, act, line, false)) < 0)
			return k;
		/* an open of an open file, a close of a closed one: fio's are
		 * no more than that, and so are these */
		p->pf[k].open = act[0] == 'o';
		if (act[0] == 'c')
			p->pf[k].closed = line;
	}
	/* a mark at once after another goes with it: nothing to wait for */
	if (p->l->version == 3 && (gap_us || !p->l->n || p->l->e[p->l->n - 1].act != RL_MARK))
		entry(p, RL_MARK, line, gap_us);
	return 0;
}

/* an action with an offset and a length on line @line: 0, or -errno */
static int io_action(struct parse *p, const char *name, const char *act,
		     const char *toff, const char *tlen, unsigned line, uint64_t gap_us)
{
	static const char *const names[] = {
		[RL_READ] = "read", [RL_WRITE] = "write", [RL_SYNC] = "sync",
		[RL_DATASYNC] = "datasync", [RL_WAIT] = "wait",
	};
	uint64_t off, len;
	int a = -1, k = 0;

	for (int i = 0; i <= RL_WAIT; i++)
		if (!strcmp(act, names[i]))
			a = i;
	if (a == RL_WAIT) {
		if (p->l->version == 3)
			return perr(p, line, "wait: not an action of version 3, whose "
				    "times are its waits (fio skips it)");
		/* fio reads the file's name of a wait and uses nothing of it */
		if (field(p, line, "wait", toff, REPLAYLOG_WAIT_MAX_MS,
			  "a year, in ms", &off) ||
		    field(p, line, "length", tlen, UINT32_MAX, "2^32 - 1", &len))
			return -EINVAL;
		entry(p, RL_WAIT, line, 0)->off = off;
		return 0;
	}
	if (a < 0)
		return perr(p, line, "'%.64s': not an action of fio's iologs (read, "
			    "write, sync, datasync%s)", act, p->l->version == 2 ?
			    ", wait" : "");
	if ((k = file_of(p, name, act, line, true)) < 0)
		return k;
	if (field(p, line, "offset", toff, FILE_BYTES_MAX,
		  "2^63 - 1, the largest file offset", &off) ||
	    field(p, line, "length", tlen, a <= RL_WRITE ? IO_BYTES_MAX : UINT32_MAX,
		  a <= RL_WRITE ? "Linux's largest read or write" : "2^32 - 1", &len))
		return -EINVAL;
	if (a <= RL_WRITE) {
		struct rl_entry *e;

		if (!len)
			return perr(p, line, "%s of 0 bytes", act);
		if (off + len > FILE_BYTES_MAX)
			return perr(p, line, "%s of %" PRIu64 " bytes at %" PRIu64 " ends "
				    "past 2^63 - 1, the largest file offset", act, len, off);
		if (a == RL_READ)
			p->reads++;
		else
			p->writes++;
		if (len > p->l->max_len)
			p->l->max_len = (uint32_t)len;
		e = entry(p, (enum rl_act)a, line, gap_us);
		e->off = off;
		e->len = (uint32_t)len;
		e->file = (uint16_t)k;
		return 0;
	}
	entry(p, (enum rl_act)a, line, gap_us)->file = (uint16_t)k;
	return 0;
}

/* one line after the header, split into its @nt fields: 0, or -errno */
static int one_line(struct parse *p, char **t, unsigned nt, unsigned line)
{
	uint64_t ts = 0, gap = 0;
	unsigned k = p->l->version == 3;

	/* room for the one entry a line makes at most */
	if (p->l->n == p->ecap) {
		size_t cap = p->ecap ? p->ecap * 2 : 1024;
		struct rl_entry *e = realloc(p->l->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		p->l->e = e;
		p->ecap = cap;
	}

	if (nt < k + 2 || nt > k + 4 || nt == k + 3)
		return perr(p, line, "%u field%s: expected %sFILE ACTION, or %sFILE "
			    "ACTION OFFSET LENGTH", nt, nt == 1 ? "" : "s", k ? "TIME " : "",
			    k ? "TIME " : "");
	if (k) {
		if (field(p, line, "time", t[0], REPLAYLOG_TIME_MAX_US,
			  "a year, in us", &ts))
			return -EINVAL;
		if (p->timed && ts < p->prev_us)
			return perr(p, line, "time %" PRIu64 " is before the line before's, "
				    "%" PRIu64 " (a log's times never go back)", ts, p->prev_us);
		gap = p->timed ? ts - p->prev_us : 0;
		p->prev_us = ts;
		p->timed = true;
	}
	if (strlen(t[k]) > 4095)
		return perr(p, line, "a file name of %zu bytes (4095 at most)", strlen(t[k]));
	if (!strcmp(t[k + 1], "add") || !strcmp(t[k + 1], "open") ||
	    !strcmp(t[k + 1], "close")) {
		if (nt != k + 2)
			return perr(p, line, "%s takes no offset or length", t[k + 1]);
		return file_action(p, t[k], t[k + 1], line, gap);
	}
	if (!strcmp(t[k + 1], "trim"))
		return perr(p, line, "trim: fio 3.33 replays no trim of a log (it skips "
			    "them: 'bad ddir: 2'), and neither does ioqos");
	if (nt != k + 4)
		return perr(p, line, "'%.64s' needs an offset and a length", t[k + 1]);
	return io_action(p, t[k], t[k + 1], t[k + 2], t[k + 3], line, gap);
}

/* the header of line 1 (@s, its @n bytes): 0, or -EINVAL */
static int header(struct parse *p, const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n == strlen(hdr2) && !memcmp(s, hdr2, n))
		p->l->version = 2;
	else if (n == strlen(hdr3) && !memcmp(s, hdr3, n))
		p->l->version = 3;
	else
		return perr(p, 1, "'%.*s': not the first line of a fio iolog ('%s' or "
			    "'%s'; fio 3.33 reads no other)", (int)(n > 64 ? 64 : n), s,
			    hdr2, hdr3);
	return 0;
}

/* split @s at blanks into at most 5 fields of @t (one more: too many) */
static unsigned split(char *s, char **t)
{
	unsigned n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
			*s++ = '\0';
		if (!*s || n == 6)
			return n;
		t[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\v' && *s != '\f')
			s++;
	}
}

static int parse_lines(struct parse *p, const char *buf, size_t len)
{
	char lb[REPLAYLOG_LINE_MAX + 1];
	size_t pos = 0;
	unsigned line = 0;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		char *t[6];
		unsigned nt;
		int rc;

		pos += n + (nl != NULL);
		line++;
		/* the header first: a binary file is "not an iolog" */
		if (line == 1) {
			if ((rc = header(p, s, n)))
				return rc;
			continue;
		}
		if (n > REPLAYLOG_LINE_MAX)
			return perr(p, line, "longer than %u bytes", REPLAYLOG_LINE_MAX);
		if (memchr(s, '\0', n))
			return perr(p, line, "a NUL byte");
		memcpy(lb, s, n);
		lb[n] = '\0';
		nt = split(lb, t);
		if (nt && (rc = one_line(p, t, nt, line)))
			return rc;
	}
	if (!line)
		return perr(p, 0, "empty: not a fio iolog (its first line is '%s' or '%s')",
			    hdr2, hdr3);
	if (!p->reads && !p->writes)
		return perr(p, 0, "no read or write in it (fio: failed initializing "
			    "iolog)");
	return 0;
}

int replaylog_parse(const char *path, const char *buf, size_t len,
		    struct replaylog **out, char *err, size_t errlen)
{
	struct parse p = { .path = path, .err = err, .errlen = errlen };
	int rc;

	*out = NULL;
	if (is_blktrace(buf, len))
		return perr(&p, 0, "a blktrace file: ioqos replays fio's iologs "
			    "(versions 2 and 3), not blktrace's binary traces");
	p.l = calloc(1, sizeof(*p.l));
	rc = p.l && (p.l->path = strdup(path)) ? parse_lines(&p, buf, len) : -ENOMEM;
	free(p.pf);
	free(p.hash);
	if (rc == -ENOMEM)
		jf_errf(err, errlen, "%s: out of memory", path);
	if (rc) {
		replaylog_free(p.l);
		return rc;
	}
	/* what it did not use of its room back */
	if (p.l->n < p.ecap) {
		struct rl_entry *e = realloc(p.l->e, p.l->n * sizeof(*e));

		if (e)
			p.l->e = e;
	}
	p.l->writes = p.writes > 0;
	*out = p.l;
	return 0;
}

int replaylog_load(const char *path, struct replaylog **out, char *err,
		   size_t errlen)
{
	char *buf, head[4];
	size_t len;
	int rc = jobfile_read(path, REPLAYLOG_MAX_BYTES, &buf, &len, err, errlen);

	*out = NULL;
	if (rc == -EFBIG) {
		/* a trace too large for a log may be a blktrace: say so */
		struct stat st;
		int fd = jobfile_open(path, &st, err, errlen);

		if (fd >= 0 && read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
		    is_blktrace(head, sizeof(head)))
			jf_errf(err, errlen, "%s: a blktrace file: ioqos replays fio's "
				"iologs (versions 2 and 3), not blktrace's binary traces",
				path);
		else
			jf_errf(err, errlen, "%s: larger than %zu bytes, the largest iolog "
				"ioqos reads", path, REPLAYLOG_MAX_BYTES);
		if (fd >= 0)
			close(fd);
	}
	if (rc)
		return rc;
	rc = replaylog_parse(path, buf, len, out, err, errlen);
	free(buf);
	return rc;
}

void replaylog_free(struct replaylog *l)
{
	if (!l)
		return;
	for (unsigned i = 0; i < l->nfiles; i++)
		free(l->files[i]);
	free(l->files);
	free(l->e);
	free(l->path);
	free(l);
}
