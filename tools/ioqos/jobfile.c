/* SPDX-License-Identifier: MIT */
/*
 * The fio job-file parser (see jobfile.h for the language).
 *
 * A file is read line by line into a private list of jobs; [global] is a
 * job that is never run, copied into each job section that follows it.  An
 * option is looked up in one table (name, what it sets, how its value is
 * read) and anything not in the table is an error: fio has hundreds of
 * options, and running a job file with one of them silently dropped would
 * measure something else than what its author meant.  Only when the whole
 * file has parsed are its jobs appended to the caller's set, so a failed
 * parse changes nothing.
 *
 * Value syntax follows fio: sizes "4k", "1m", "0x1000"; pairs "4k,64k"
 * (read,write; an empty side keeps the default, one value sets both);
 * times "60", "500ms", "2m"; booleans "1", "0", "true", "false", or the
 * bare option name.
 */
#include "jobfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* a job file larger than this is not a job file */
#define JOBFILE_MAX_BYTES (4u << 20)
#define LINE_MAX_BYTES 4096

static void errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- value parsers ---------------------------------------------------- */

/* an unsigned number, decimal or 0x hex, with no sign: 0 or -EINVAL/-ERANGE */
static int parse_num(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	const char *p = s;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		base = 16;
		p += 2;
	}
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	*end = p;
	*out = v;
	return 0;
}

static int mul_check(uint64_t v, uint64_t m, uint64_t *out)
{
	if (m && v > UINT64_MAX / m)
		return -ERANGE;
	*out = v * m;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	const char *p;
	uint64_t v, m = 1;
	int rc;
	char suf[8];
	size_t n;

	rc = parse_num(s, &p, &v);
	if (rc)
		return rc;
	n = strlen(p);
	if (n >= sizeof(suf))
		return -EINVAL;
	for (size_t i = 0; i <= n; i++)
		suf[i] = (char)tolower((unsigned char)p[i]);
	if (n) {
		static const char units[] = "kmgtp";
		const char *u = strchr(units, suf[0]);
		uint64_t base;
		unsigned pow;

		if (!u || !suf[0])
			return -EINVAL;
		pow = (unsigned)(u - units) + 1;
		/* fio's kb_base=1024 rule: k, kb = 1024; kib = 1000 */
		if (!strcmp(suf + 1, "") || !strcmp(suf + 1, "b"))
			base = 1024;
		else if (!strcmp(suf + 1, "ib"))
			base = 1000;
		else
			return -EINVAL;
		for (unsigned i = 0; i < pow; i++)
			if (mul_check(m, base, &m))
				return -ERANGE;
	} else if (*p) {
		return -EINVAL;
	}
	return mul_check(v, m, out);
}

int parse_time_ns(const char *s, uint64_t unit_ns, uint64_t *out)
{
	static const struct { const char *suf; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000ull }, { "m", 60000000000ull },
		{ "h", 3600000000000ull }, { "d", 86400000000000ull },
	};
	const char *p;
	uint64_t v;
	int rc = parse_num(s, &p, &v);

	if (rc)
		return rc;
	if (*p) {
		size_t i;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(p, units[i].suf))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		unit_ns = units[i].ns;
	}
	return mul_check(v, unit_ns, out);
}

int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no") ||
	    !strcasecmp(s, "off")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* ---- the option table ------------------------------------------------- */

enum vtype {
	V_STR,        /* a string (copied) */
	V_NAME,       /* name=: the job's name */
	V_SIZE,       /* uint64 with size suffixes */
	V_PAIR,       /* "read,write" sizes */
	V_UINT,       /* unsigned int in [lo, hi] */
	V_TIME,       /* ns; seconds unless suffixed */
	V_BOOL,       /* bool; a bare option name means true */
	V_SET,        /* bool that can only be switched on (fio's "set" options) */
	V_SPECIAL,    /* rw, ioengine, file_service_type, rwmix*, prio... */
};

struct opt {
	const char *name;
	enum job_opt id;
	enum vtype type;
	size_t off;            /* offset of the field in struct job */
	uint64_t lo, hi;       /* V_UINT range */
};

#define F(x) offsetof(struct job, x)

static const struct opt opts[] = {
	{ "name",              JO_NAME,              V_NAME,    0, 0, 0 },
	{ "description",       JO_DESCRIPTION,       V_STR,     F(description), 0, 0 },
	{ "filename",          JO_FILENAME,          V_STR,     F(filename), 0, 0 },
	{ "directory",         JO_DIRECTORY,         V_STR,     F(directory), 0, 0 },
	{ "size",              JO_SIZE,              V_SIZE,    F(size), 0, 0 },
	{ "filesize",          JO_FILESIZE,          V_SIZE,    F(filesize), 0, 0 },
	{ "offset",            JO_OFFSET,            V_SIZE,    F(offset), 0, 0 },
	{ "rw",                JO_RW,                V_SPECIAL, 0, 0, 0 },
	{ "readwrite",         JO_RW,                V_SPECIAL, 0, 0, 0 },
	{ "rwmixread",         JO_RWMIXREAD,         V_SPECIAL, 0, 0, 100 },
	{ "rwmixwrite",        JO_RWMIXWRITE,        V_SPECIAL, 0, 0, 100 },
	{ "bs",                JO_BS,                V_PAIR,    F(bs), 0, 0 },
	{ "blocksize",         JO_BS,                V_PAIR,    F(bs), 0, 0 },
	{ "iodepth",           JO_IODEPTH,           V_UINT,    F(iodepth), 1, 65536 },
	{ "numjobs",           JO_NUMJOBS,           V_UINT,    F(numjobs), 1, 65536 },
	{ "runtime",           JO_RUNTIME,           V_TIME,    F(runtime_ns), 0, 0 },
	{ "timeout",           JO_RUNTIME,           V_TIME,    F(runtime_ns), 0, 0 },
	{ "time_based",        JO_TIME_BASED,        V_SET,     F(time_based), 0, 0 },
	{ "ramp_time",         JO_RAMP_TIME,         V_TIME,    F(ramp_ns), 0, 0 },
	{ "startdelay",        JO_STARTDELAY,        V_TIME,    F(startdelay_ns), 0, 0 },
	{ "direct",            JO_DIRECT,            V_BOOL,    F(direct), 0, 0 },
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
};

const char *job_opt_name(enum job_opt o)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (opts[i].id == o)
			return opts[i].name;
	return "?";
}

static void job_defaults(struct job *j)
{
	memset(j, 0, sizeof(*j));
	j->rw = RW_READ;
	j->rwmixread = 50;
	j->bs[0] = j->bs[1] = 4096;
	j->iodepth = 1;
	j->numjobs = 1;
	j->direct = true;
	j->prio = -1;
	j->prioclass = -1;
	j->randrepeat = true;
	j->fst = FST_ROUNDROBIN;
	j->fst_n = 1;
	j->groupid = -1;
}

static void kv_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].val);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int kv_add(struct kvlist *l, const char *key, const char *val)
{
	struct kv *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	nv[l->n].key = strdup(key);
	nv[l->n].val = strdup(val ? val : "");
	if (!nv[l->n].key || !nv[l->n].val) {
		free(nv[l->n].key);
		free(nv[l->n].val);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static int kv_copy(struct kvlist *dst, const struct kvlist *src)
{
	dst->v = NULL;
	dst->n = 0;
	for (size_t i = 0; i < src->n; i++)
		if (kv_add(dst, src->v[i].key, src->v[i].val)) {
			kv_free(dst);
			return -ENOMEM;
		}
	return 0;
}

static void job_release(struct job *j)
{
	kv_free(&j->opts);
	kv_free(&j->gopts);
	free(j->filename);
	free(j->directory);
	free(j->cgroup);
	free(j->description);
	j->filename = j->directory = j->cgroup = j->description = NULL;
}

/* a deep copy of @src into @dst: 0 or -ENOMEM */
static int job_copy(struct job *dst, const struct job *src)
{
	*dst = *src;
	dst->filename = dst->directory = dst->cgroup = dst->description = NULL;
	dst->opts.v = dst->gopts.v = NULL;
	dst->opts.n = dst->gopts.n = 0;
	/* a section copies [global]: its options are the job's global ones */
	if (kv_copy(&dst->gopts, &src->opts))
		goto nomem;
#define DUP(f) do { if (src->f && !(dst->f = strdup(src->f))) goto nomem; } while (0)
	DUP(filename);
	DUP(directory);
	DUP(cgroup);
	DUP(description);
#undef DUP
	return 0;
nomem:
	job_release(dst);
	return -ENOMEM;
}

/* "a,b": split a pair value; an empty side is left as it was */
static int parse_pair(const char *v, uint64_t out[2])
{
	const char *comma = strchr(v, ',');
	char side[64];
	uint64_t r = out[0], w = out[1];

	if (!comma) {
		if (parse_size(v, &r))
			return -EINVAL;
		out[0] = out[1] = r;
		return 0;
	}
	if (strchr(comma + 1, ','))
		return -EINVAL;    /* fio's third (trim) value: ioqos has no trims */
	if ((size_t)(comma - v) >= sizeof(side))
		return -EINVAL;
	memcpy(side, v, (size_t)(comma - v));
	side[comma - v] = '\0';
	if (side[0] && parse_size(side, &r))
		return -EINVAL;
	if (comma[1] && parse_size(comma + 1, &w))
		return -EINVAL;
	if (!side[0] && !comma[1])
		return -EINVAL;
	out[0] = r;
	out[1] = w;
	return 0;
}

static int set_special(struct job *j, const struct opt *o, const char *v,
		       char *why, size_t whylen)
{
	uint64_t n;
	const char *end;

	switch (o->id) {
	case JO_RW: {
		static const struct { const char *s; enum rw_mode m; } modes[] = {
			{ "read", RW_READ }, { "write", RW_WRITE },
			{ "randread", RW_RANDREAD }, { "randwrite", RW_RANDWRITE },
			{ "rw", RW_RW }, { "readwrite", RW_RW },
			{ "randrw", RW_RANDRW },
		};
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (!strcmp(v, modes[i].s)) {
				j->rw = modes[i].m;
				return 0;
			}
		if (strchr(v, ':'))
			snprintf(why, whylen, "the ':N' offset modifier is not supported");
		else
			snprintf(why, whylen, "expected read, write, randread, randwrite, rw, readwrite or randrw");
		return -EINVAL;
	}
	case JO_RWMIXREAD:
	case JO_RWMIXWRITE:
		if (parse_num(v, &end, &n) || *end || n > 100) {
			snprintf(why, whylen, "expected a percentage 0..100");
			return -EINVAL;
		}
		j->rwmixread = o->id == JO_RWMIXREAD ? (unsigned)n : 100 - (unsigned)n;
		return 0;
	case JO_PRIO:
		if (parse_num(v, &end, &n) || *end || n > 7) {
			snprintf(why, whylen, "expected 0..7");
			return -EINVAL;
		}
		j->prio = (int)n;
		return 0;
	case JO_PRIOCLASS:
		if (parse_num(v, &end, &n) || *end || n > 3) {
			snprintf(why, whylen, "expected 0..3");
			return -EINVAL;
		}
		if (n != 2 && n != 0) {
			snprintf(why, whylen, "only class 2 (best effort) is supported: "
				 "ioqos has no real-time or idle class");
			return -EINVAL;
		}
		j->prioclass = (int)n;
		return 0;
	case JO_IOENGINE:
		if (!strcmp(v, "io_uring") || !strcmp(v, "libaio"))
			j->engine = ENG_URING;
		else if (!strcmp(v, "psync") || !strcmp(v, "sync") || !strcmp(v, "pvsync"))
			j->engine = ENG_PSYNC;
		else if (!strcmp(v, "null"))
			j->engine = ENG_NULL;
		else if (!strcmp(v, "sim"))
			j->engine = ENG_SIM;
		else {
			snprintf(why, whylen, "supported: io_uring, libaio (run on io_uring), "
				 "psync, sync, pvsync, null, sim");
			return -EINVAL;
		}
		return 0;
	case JO_FILE_SERVICE_TYPE: {
		const char *colon = strchr(v, ':');
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
		if (colon && (parse_num(colon + 1, &end, &n) || *end || n < 1 || n > 1000000000)) {
			snprintf(why, whylen, "bad ':N'");
			return -EINVAL;
		}
		j->fst = f;
		j->fst_n = (unsigned)n;
		return 0;
	}
	default:
		break;
	}
	return -EINVAL;
}

/* set option @o of @j from @v (NULL for a bare option name) */
static int set_opt(struct job *j, const struct opt *o, const char *v,
		   char *why, size_t whylen)
{
	void *f = (char *)j + o->off;
	uint64_t n;
	const char *end;
	bool b;

	why[0] = '\0';
	if (!v && o->type != V_BOOL && o->type != V_SET) {
		snprintf(why, whylen, "needs a value");
		return -EINVAL;
	}
	if (v && strstr(v, "${")) {
		snprintf(why, whylen, "environment variables are not expanded");
		return -EINVAL;
	}
	switch (o->type) {
	case V_NAME:
		if (!v[0] || strlen(v) >= JOB_NAME_MAX) {
			snprintf(why, whylen, "a name of 1..%d bytes", JOB_NAME_MAX - 1);
			return -EINVAL;
		}
		snprintf(j->name, sizeof(j->name), "%s", v);
		return 0;
	case V_STR: {
		char **s = f, *c;
		if (!v[0]) {
			snprintf(why, whylen, "empty value");
			return -EINVAL;
		}
		if (!(c = strdup(v)))
			return -ENOMEM;
		free(*s);
		*s = c;
		return 0;
	}
	case V_SIZE:
		if (parse_size(v, &n)) {
			snprintf(why, whylen, "expected a size such as 4096, 4k, 1m, 2g");
			return -EINVAL;
		}
		*(uint64_t *)f = n;
		return 0;
	case V_PAIR:
		if (parse_pair(v, f)) {
			snprintf(why, whylen, "expected SIZE or READ,WRITE such as 4k,64k");
			return -EINVAL;
		}
		return 0;
	case V_UINT:
		if (parse_num(v, &end, &n) || *end || n < o->lo || n > o->hi) {
			snprintf(why, whylen, "expected an integer %llu..%llu",
				 (unsigned long long)o->lo, (unsigned long long)o->hi);
			return -EINVAL;
		}
		*(unsigned *)f = (unsigned)n;
		if (o->id == JO_CGROUP_WEIGHT)
			*(uint32_t *)f = (uint32_t)n;
		return 0;
	case V_TIME:
		if (parse_time_ns(v, 1000000000ull, &n)) {
			snprintf(why, whylen, "expected a time such as 60, 500ms, 2m");
			return -EINVAL;
		}
		*(uint64_t *)f = n;
		return 0;
	case V_BOOL:
	case V_SET:
		if (!v)
			b = true;
		else if (parse_bool(v, &b)) {
			snprintf(why, whylen, "expected 0 or 1");
			return -EINVAL;
		}
		*(bool *)f = b;
		return 0;
	case V_SPECIAL:
		return set_special(j, o, v, why, whylen);
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

/* trim blanks at both ends, in place */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static void jobs_free(struct job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		job_release(&jobs[i]);
	free(jobs);
}

int jobfile_parse_buf(struct jobset *set, const char *name, const char *buf,
		      size_t len, char *err, size_t errlen)
{
	struct job global, *jobs = NULL, *cur = NULL;
	size_t njobs = 0, capjobs = 0, pos = 0;
	unsigned lineno = 0;
	char line[LINE_MAX_BYTES], why[160];
	int rc = 0;

	job_defaults(&global);
	while (pos < len) {
		size_t start = pos, n;
		char *s, *eq, *key, *val;

		while (pos < len && buf[pos] != '\n')
			pos++;
		n = pos - start;
		pos++;          /* past the '\n' */
		lineno++;
		if (n >= sizeof(line)) {
			errf(err, errlen, "%s:%u: line longer than %d bytes", name, lineno,
			     LINE_MAX_BYTES - 1);
			rc = -EINVAL;
			goto out;
		}
		memcpy(line, buf + start, n);
		line[n] = '\0';
		if (memchr(line, '\0', n)) {
			errf(err, errlen, "%s:%u: NUL byte in line", name, lineno);
			rc = -EINVAL;
			goto out;
		}
		s = trim(line);
		if (s[0] == ';' || s[0] == '#' || !s[0])
			continue;
		/* trailing comments, as fio strips them */
		s[strcspn(s, ";#")] = '\0';
		s = trim(s);
		if (s[0] == '[') {
			char *close = strchr(s, ']');
			char *sec;

			if (!close || close[1]) {
				errf(err, errlen, "%s:%u: bad section header '%.64s'", name,
				     lineno, s);
				rc = -EINVAL;
				goto out;
			}
			*close = '\0';
			sec = trim(s + 1);
			if (!sec[0] || strlen(sec) >= JOB_NAME_MAX) {
				errf(err, errlen, "%s:%u: bad section name", name, lineno);
				rc = -EINVAL;
				goto out;
			}
			if (!strcmp(sec, "global")) {
				cur = &global;
				continue;
			}
			if (njobs == capjobs) {
				size_t nc = capjobs ? capjobs * 2 : 8;
				struct job *nj = realloc(jobs, nc * sizeof(*nj));
				if (!nj) {
					rc = -ENOMEM;
					goto nomem;
				}
				jobs = nj;
				capjobs = nc;
			}
			cur = &jobs[njobs];
			if (job_copy(cur, &global)) {
				rc = -ENOMEM;
				goto nomem;
			}
			njobs++;
			snprintf(cur->name, sizeof(cur->name), "%s", sec);
			snprintf(cur->where, sizeof(cur->where), "%.200s:%u", name, lineno);
			continue;
		}
		if (!cur) {
			errf(err, errlen, "%s:%u: option '%.64s' outside any section", name,
			     lineno, s);
			rc = -EINVAL;
			goto out;
		}
		eq = strchr(s, '=');
		if (eq) {
			*eq = '\0';
			key = trim(s);
			val = trim(eq + 1);
		} else {
			key = s;
			val = NULL;
		}
		{
			const struct opt *o = find_opt(key);

			if (!o) {
				errf(err, errlen, "%s:%u: unknown or unsupported option '%.64s'",
				     name, lineno, key);
				rc = -EINVAL;
				goto out;
			}
			rc = set_opt(cur, o, val, why, sizeof(why));
			if (rc == -ENOMEM)
				goto nomem;
			if (rc) {
				errf(err, errlen, "%s:%u: %s=%.64s: %s", name, lineno, key,
				     val ? val : "", why);
				goto out;
			}
			cur->set |= 1ull << o->id;
			/* fio lists the options given a value */
			if (val && kv_add(&cur->opts, key, val)) {
				rc = -ENOMEM;
				goto nomem;
			}
		}
	}
	/* append: all or nothing */
	if (njobs) {
		if (set->n + njobs > set->cap) {
			size_t nc = set->cap ? set->cap : 8;
			struct job *nj;
			while (nc < set->n + njobs)
				nc *= 2;
			nj = realloc(set->jobs, nc * sizeof(*nj));
			if (!nj) {
				rc = -ENOMEM;
				goto nomem;
			}
			set->jobs = nj;
			set->cap = nc;
		}
		memcpy(set->jobs + set->n, jobs, njobs * sizeof(*jobs));
		set->n += njobs;
		free(jobs);
		jobs = NULL;
		njobs = 0;
	}
	rc = 0;
	goto out;
nomem:
	errf(err, errlen, "%s: out of memory", name);
out:
	jobs_free(jobs, njobs);
	job_release(&global);
	return rc;
}

int jobfile_load(struct jobset *set, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t got = 0;
	int rc;

	if (fd < 0) {
		rc = -errno;
		errf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > JOBFILE_MAX_BYTES) {
		close(fd);
		errf(err, errlen, "%s: larger than %u bytes", path, JOBFILE_MAX_BYTES);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		errf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			errf(err, errlen, "%s: %s", path, strerror(-rc));
			free(buf);
			close(fd);
			return rc;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	rc = jobfile_parse_buf(set, path, buf, got, err, errlen);
	free(buf);
	return rc;
}

int jobset_finish(struct jobset *set, char *err, size_t errlen)
{
	int gid = 0;

	if (!set->n) {
		errf(err, errlen, "no jobs");
		return -EINVAL;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct job *j = &set->jobs[i];
		bool reads = j->rw != RW_WRITE && j->rw != RW_RANDWRITE;
		bool writes = j->rw != RW_READ && j->rw != RW_RANDREAD;

		if ((j->rw == RW_RW || j->rw == RW_RANDRW) && j->rwmixread == 0)
			reads = false;
		if ((j->rw == RW_RW || j->rw == RW_RANDRW) && j->rwmixread == 100)
			writes = false;
		if ((reads && !j->bs[0]) || (writes && !j->bs[1])) {
			errf(err, errlen, "%s: job '%s': bs=0", j->where, j->name);
			return -EINVAL;
		}
		if ((j->set & (1ull << JO_SIZE)) && j->size == 0) {
			errf(err, errlen, "%s: job '%s': size=0", j->where, j->name);
			return -EINVAL;
		}
		if ((j->set & (1ull << JO_FILESIZE)) && j->filesize == 0) {
			errf(err, errlen, "%s: job '%s': filesize=0", j->where, j->name);
			return -EINVAL;
		}
		if (j->size && ((reads && j->bs[0] > j->size) ||
				(writes && j->bs[1] > j->size))) {
			errf(err, errlen, "%s: job '%s': bs=%llu is larger than size=%llu",
			     j->where, j->name,
			     (unsigned long long)(reads ? j->bs[0] : j->bs[1]),
			     (unsigned long long)j->size);
			return -EINVAL;
		}
		if (j->time_based && !j->runtime_ns) {
			errf(err, errlen, "%s: job '%s': time_based needs runtime=",
			     j->where, j->name);
			return -EINVAL;
		}
		if (j->cgroup && j->prio >= 0) {
			errf(err, errlen, "%s: job '%s': prio= inside cgroup= is not supported "
			     "(use cgroup_weight=)", j->where, j->name);
			return -EINVAL;
		}
		if (j->cgroup && (j->cgroup[0] == '/' ? !j->cgroup[1] : 0)) {
			errf(err, errlen, "%s: job '%s': cgroup=/ names the root", j->where,
			     j->name);
			return -EINVAL;
		}
		/* fio: the first job is group 0; new_group and stonewall start
		 * the next one */
		if (i > 0 && (j->new_group || j->stonewall))
			gid++;
		j->groupid = gid;
	}
	return 0;
}

void jobset_free(struct jobset *set)
{
	jobs_free(set->jobs, set->n);
	set->jobs = NULL;
	set->n = set->cap = 0;
}
