/* SPDX-License-Identifier: MIT */
/*
 * The fio job-file parser (see jobfile.h for the language).
 *
 * A file is read line by line into a private list of jobs; [global] is a
 * job that is never run, copied into each job section that follows it.  An
 * option is looked up in one table (jobopts.c) and anything not in it is an
 * error: fio has hundreds of options, and running a job file with one of
 * them silently dropped would measure something else than what its author
 * meant.  A bad line does not stop the parse: every problem of the file is
 * reported at once, one line each, and only a file with none appends its
 * jobs to the caller's set, so a failed parse changes nothing.
 *
 * "${VAR}" in a value is replaced by the environment variable VAR, as fio
 * does; a variable that is not set is an error naming it.
 *
 * Value syntax follows fio: sizes "4k", "1m", "0x1000"; pairs "4k,64k"
 * (read,write; an empty side keeps the default, one value sets both);
 * times "60", "500ms", "2m"; booleans "1", "0", "true", "false", or the
 * bare option name.
 */
#include "job/jobfile_int.h"
#include "job/jobopts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * "${VAR}" replaced from the environment into @out: 0, or -EINVAL with the
 * variable named in @why
 */
static int expand_env(const char *v, char *out, size_t outlen, char *why,
		      size_t whylen)
{
	size_t o = 0;

	while (*v) {
		const char *close, *val;
		char name[128];
		size_t len;

		if (v[0] != '$' || v[1] != '{') {
			if (o + 1 >= outlen)
				goto toolong;
			out[o++] = *v++;
			continue;
		}
		close = strchr(v + 2, '}');
		len = close ? (size_t)(close - v - 2) : 0;
		if (!close || !len || len >= sizeof(name)) {
			snprintf(why, whylen, "bad ${VAR}");
			return -EINVAL;
		}
		memcpy(name, v + 2, len);
		name[len] = '\0';
		val = getenv(name);
		if (!val) {
			snprintf(why, whylen, "environment variable %s is not set", name);
			return -EINVAL;
		}
		len = strlen(val);
		if (o + len >= outlen)
			goto toolong;
		memcpy(out + o, val, len);
		o += len;
		v = close + 1;
	}
	out[o] = '\0';
	return 0;
toolong:
	snprintf(why, whylen, "longer than %zu bytes after expansion", outlen - 1);
	return -EINVAL;
}

/* "a,b": split a pair value; an empty side is left as it was */
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

/* a new job section @sec, with the [global] in force: NULL when out of memory */
struct job *jf_new_section(struct job **jobs, size_t *njobs, size_t *cap,
			   const struct job *global, const char *sec,
			   const char *name, unsigned lineno)
{
	struct job *cur;

	if (*njobs == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct job *nj = realloc(*jobs, nc * sizeof(*nj));
		if (!nj)
			return NULL;
		*jobs = nj;
		*cap = nc;
	}
	cur = &(*jobs)[*njobs];
	if (jf_job_copy(cur, global))
		return NULL;
	(*njobs)++;
	snprintf(cur->name, sizeof(cur->name), "%s", sec);
	if (lineno)
		snprintf(cur->where, sizeof(cur->where), "%.200s:%u", name, lineno);
	else
		snprintf(cur->where, sizeof(cur->where), "%.200s", name);
	return cur;
}

/*
 * one "key[=value]" line of the section @cur; @lineno 0: an option of the
 * command line, @name "command line", whose values fio takes as they are
 * (the shell has expanded them: no ${VAR})
 */
int jf_option_line(struct job *cur, struct problems *pr, char *s,
		   const char *name, unsigned lineno)
{
	char *eq = strchr(s, '='), *key, *val, why[200], xval[LINE_MAX_BYTES], at[240];
	int rc;

	if (lineno)
		snprintf(at, sizeof(at), "%.200s:%u", name, lineno);
	else
		snprintf(at, sizeof(at), "%.200s", name);
	if (eq) {
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
	} else {
		key = s;
		val = NULL;
	}
	if (lineno && val && strstr(val, "${")) {
		if (expand_env(val, xval, sizeof(xval), why, sizeof(why))) {
			jf_problem(pr, "%s: %s=%.64s: %s", at, key, val, why);
			return 0;
		}
		val = xval;
	}
	rc = jobopt_set(cur, key, val, why, sizeof(why));
	if (rc == -ENOMEM)
		return rc;
	if (rc == -ENOENT) {
		jf_problem(pr, "%s: unknown or unsupported option '%.64s'", at, key);
		return 0;
	}
	if (rc) {
		jf_problem(pr, "%s: %s=%.64s: %s", at, key, val ? val : "", why);
		return 0;
	}
	/* fio lists the options given a value */
	if (val && jf_kv_add(&cur->opts, key, val))
		return -ENOMEM;
	return 0;
}

/*
 * The next line of @buf from *@pos into @line, its comments and blanks
 * trimmed: the line (possibly empty), or NULL at the end.  A line too
 * long or with a NUL byte is a problem, and empty.
 */
static char *next_line(const char *buf, size_t len, size_t *pos, char *line,
		       unsigned *lineno, struct problems *pr, const char *name)
{
	size_t start = *pos, n;
	char *s;

	if (*pos >= len)
		return NULL;
	while (*pos < len && buf[*pos] != '\n')
		(*pos)++;
	n = *pos - start;
	(*pos)++;          /* past the '\n' */
	(*lineno)++;
	line[0] = '\0';
	if (n >= LINE_MAX_BYTES) {
		jf_problem(pr, "%s:%u: line longer than %d bytes", name, *lineno,
			LINE_MAX_BYTES - 1);
		return line;
	}
	memcpy(line, buf + start, n);
	line[n] = '\0';
	if (memchr(line, '\0', n)) {
		jf_problem(pr, "%s:%u: NUL byte in line", name, *lineno);
		line[0] = '\0';
		return line;
	}
	s = trim(line);
	if (s[0] == ';' || s[0] == '#')
		return s + strlen(s);
	/* trailing comments, as fio strips them */
	s[strcspn(s, ";#")] = '\0';
	return trim(s);
}

/* fio's include: "include FILE" inside a section; FILE as given, else
 * beside the job file that names it */
#define INCLUDE_DEPTH_MAX 8

static int option_or_include(struct job *cur, struct problems *pr, char *s,
			     const char *name, unsigned lineno, unsigned depth);

static int include_file(struct job *cur, struct problems *pr, const char *arg,
			const char *name, unsigned lineno, unsigned depth)
{
	char path[4096], why[512], line[LINE_MAX_BYTES], *buf, *s;
	const char *slash = strrchr(name, '/');
	size_t len, pos = 0;
	unsigned ln = 0;
	int rc;

	if (!arg[0]) {
		jf_problem(pr, "%s:%u: include names no file", name, lineno);
		return 0;
	}
	if (depth >= INCLUDE_DEPTH_MAX) {
		jf_problem(pr, "%s:%u: include %.200s: more than %d includes deep", name,
			lineno, arg, INCLUDE_DEPTH_MAX);
		return 0;
	}
	if (access(arg, F_OK) && slash && arg[0] != '/')
		snprintf(path, sizeof(path), "%.*s%s", (int)(slash - name + 1), name, arg);
	else
		snprintf(path, sizeof(path), "%s", arg);
	rc = jobfile_read(path, JOBFILE_MAX_BYTES, &buf, &len, why, sizeof(why));
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		jf_problem(pr, "%s:%u: include %.200s", name, lineno, why);
		return 0;
	}
	while ((s = next_line(buf, len, &pos, line, &ln, pr, path)) != NULL) {
		if (!s[0])
			continue;
		if (s[0] == '[') {
			jf_problem(pr, "%s:%u: a section header in an included file "
				"(fio takes options only there)", path, ln);
			continue;
		}
		rc = option_or_include(cur, pr, s, path, ln, depth + 1);
		if (rc)
			break;
	}
	free(buf);
	return rc;
}

static int option_or_include(struct job *cur, struct problems *pr, char *s,
			     const char *name, unsigned lineno, unsigned depth)
{
	if (!strncmp(s, "include", 7) && (!s[7] || isspace((unsigned char)s[7])))
		return include_file(cur, pr, trim(s + 7), name, lineno, depth);
	return jf_option_line(cur, pr, s, name, lineno);
}

/* fio's --section=: is job section @sec one to take?  fio reads the lines
 * of the others not at all (skip_this_section()) */
bool jf_section_taken(const struct jobset *set, const char *sec)
{
	if (!set->sections)
		return true;
	for (unsigned i = 0; i < set->nsections; i++)
		if (!strcmp(set->sections[i], sec))
			return true;
	return false;
}

/*
 * @*jobs (@*njobs of them) moved to the end of @set, and fio's "global
 * options" made those of @global (fio prints the global section last
 * read): 0, or -ENOMEM with @set as it was
 */
int jf_conclude(struct jobset *set, struct problems *pr, struct job **jobs,
		size_t *njobs, const struct job *global)
{
	struct kvlist g;

	if (pr->n) {
		jf_problems_end(pr);
		return -EINVAL;
	}
	if (jf_kv_copy(&g, &global->opts))
		return -ENOMEM;
	if (set->n + *njobs > set->cap) {
		size_t nc = set->cap ? set->cap : 8;
		struct job *nj;

		while (nc < set->n + *njobs)
			nc *= 2;
		nj = realloc(set->jobs, nc * sizeof(*nj));
		if (!nj) {
			jf_kv_free(&g);
			return -ENOMEM;
		}
		set->jobs = nj;
		set->cap = nc;
	}
	if (*njobs)
		memcpy(set->jobs + set->n, *jobs, *njobs * sizeof(**jobs));
	set->n += *njobs;
	free(*jobs);
	*jobs = NULL;
	*njobs = 0;
	jf_kv_free(&set->gopts);
	set->gopts = g;
	return 0;
}

int jobfile_parse_buf(struct jobset *set, const char *name, const char *buf,
		      size_t len, char *err, size_t errlen)
{
	struct job global, *jobs = NULL, *cur = NULL, skip;
	size_t njobs = 0, capjobs = 0, pos = 0;
	unsigned lineno = 0;
	char line[LINE_MAX_BYTES], *s;
	struct problems pr = { err, errlen, 0, 0, 0 };
	bool skipping = false;        /* in a section --section= leaves out */
	int rc = 0;

	if (errlen)
		err[0] = '\0';
	jf_job_defaults(&skip);
	/* fio: the command line's global options are the defaults of the
	 * first job file only (fill_def_thread() starts each later one anew) */
	if (set->cmd_global && !set->nfiles) {
		if (jf_job_copy(&global, set->cmd_global)) {
			jf_job_defaults(&global);
			rc = -ENOMEM;
			goto nomem;
		}
		/* the copy's options are its own: the [global] they start */
		global.opts = global.gopts;
		global.gopts = (struct kvlist){ 0 };
	} else {
		jf_job_defaults(&global);
	}
	while ((s = next_line(buf, len, &pos, line, &lineno, &pr, name)) != NULL) {
		if (!s[0])
			continue;
		if (s[0] == '[') {
			char *close = strchr(s, ']');
			char *sec;

			if (!close || close[1]) {
				jf_problem(&pr, "%s:%u: bad section header '%.64s'", name, lineno, s);
				cur = &skip;      /* its options are still checked */
				continue;
			}
			*close = '\0';
			sec = trim(s + 1);
			if (!sec[0] || strlen(sec) >= JOB_NAME_MAX) {
				jf_problem(&pr, "%s:%u: bad section name", name, lineno);
				cur = &skip;
				continue;
			}
			if (!strcmp(sec, "global")) {
				cur = &global;
				continue;
			}
			if (!jf_section_taken(set, sec)) {
				cur = NULL;
				skipping = true;
				continue;
			}
			skipping = false;
			cur = jf_new_section(&jobs, &njobs, &capjobs, &global, sec, name, lineno);
			if (!cur) {
				rc = -ENOMEM;
				goto nomem;
			}
			continue;
		}
		if (skipping)
			continue;
		if (!cur) {
			jf_problem(&pr, "%s:%u: option '%.64s' outside any section", name, lineno, s);
			continue;
		}
		rc = option_or_include(cur, &pr, s, name, lineno, 0);
		if (rc)
			goto nomem;
	}
	/* all or nothing: the jobs, then fio's "global options" */
	rc = jf_conclude(set, &pr, &jobs, &njobs, &global);
	if (rc == -ENOMEM)
		goto nomem;
	if (!rc)
		set->nfiles++;
	goto out;
nomem:
	jf_errf(err, errlen, "%s: out of memory", name);
out:
	jf_jobs_free(jobs, njobs);
	jf_job_release(&global);
	jf_job_release(&skip);
	return rc;
}

int jobfile_load(struct jobset *set, const char *path, char *err, size_t errlen)
{
	char *buf;
	size_t got;
	int rc = jobfile_read(path, JOBFILE_MAX_BYTES, &buf, &got, err, errlen);

	if (rc)
		return rc;
	rc = jobfile_parse_buf(set, path, buf, got, err, errlen);
	free(buf);
	return rc;
}

void jobset_free(struct jobset *set)
{
	jf_jobs_free(set->jobs, set->n);
	set->jobs = NULL;
	set->n = set->cap = 0;
	if (set->cmd_global)
		jf_job_release(set->cmd_global);
	free(set->cmd_global);
	set->cmd_global = NULL;
	jf_kv_free(&set->gopts);
	set->nfiles = 0;
}

