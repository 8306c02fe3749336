/* SPDX-License-Identifier: MIT */
/*
 * fio's jobs given on the command line (jobfile.h), parsed as job-file
 * lines whose place is "command line".
 */
#include "job/jobfile_int.h"
#include "job/jobopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * fio's jobs of the command line (parse_cmd_line()): each name= starts a
 * job; the options before the first one, and after a name=global (any
 * name fio's strncmp(val, "global", 6) takes for it), are the global
 * ones.  A name= that --section leaves out is dropped, and the options
 * after it, until the next name=, are global ones: fio's own way.
 */
int jobset_cmdline(struct jobset *set, char *const *args, size_t nargs, char *err,
		   size_t errlen)
{
	static const char where[] = "command line";
	struct job *global = malloc(sizeof(*global)), *jobs = NULL, *cur;
	size_t njobs = 0, capjobs = 0;
	struct problems pr = { err, errlen, 0, 0, 0 };
	char line[LINE_MAX_BYTES];
	int rc = 0;

	if (errlen)
		err[0] = '\0';
	if (!global || set->cmd_global || set->nfiles) {
		free(global);
		jf_errf(err, errlen, "%s: %s", where, global ? "given twice, or after a "
		     "job file" : "out of memory");
		return global ? -EINVAL : -ENOMEM;
	}
	jf_job_defaults(global);
	cur = global;
	for (size_t i = 0; i < nargs; i++) {
		const char *eq = strchr(args[i], '='), *val = eq ? eq + 1 : NULL;

		if (strlen(args[i]) >= sizeof(line)) {
			jf_problem(&pr, "%s: option longer than %zu bytes", where,
				sizeof(line) - 1);
			continue;
		}
		snprintf(line, sizeof(line), "%s", args[i]);
		/* the last argument, an option that needs a value: fio's getopt
		 * says "requires an argument" (a job file may give it bare) */
		if (!eq && jobopt_cmdline_arg(line) == JOBOPT_ARG_REQUIRED) {
			jf_problem(&pr, "%s: %s needs a value (--%s=VALUE)", where, line, line);
			continue;
		}
		if (eq && (size_t)(eq - args[i]) == 4 && !strncmp(args[i], "name", 4)) {
			if (!strncmp(val, "global", 6) || !jf_section_taken(set, val)) {
				cur = global;
				if (strncmp(val, "global", 6))
					continue;
			} else {
				cur = jf_new_section(&jobs, &njobs, &capjobs, global, val,
						  where, 0);
				if (!cur) {
					rc = -ENOMEM;
					goto nomem;
				}
			}
		}
		rc = jf_option_line(cur, &pr, line, where, 0);
		if (rc)
			goto nomem;
	}
	rc = jf_conclude(set, &pr, &jobs, &njobs, global);
	if (rc == -ENOMEM)
		goto nomem;
	if (!rc) {
		set->cmd_global = global;
		global = NULL;
	}
	goto out;
nomem:
	jf_errf(err, errlen, "%s: out of memory", where);
out:
	jf_jobs_free(jobs, njobs);
	if (global)
		jf_job_release(global);
	free(global);
	return rc;
}
