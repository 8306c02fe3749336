/* SPDX-License-Identifier: MIT */
/*
 * ioqos: a fio-compatible load generator whose jobs are controlled by
 * libioqos, on a real file or block device or on a simulated device.
 *
 *   ioqos run [JOBFILE...] [options] run the jobs of the job files and of
 *                                    fio's options, print fio-like reports
 *   ioqos check FILE...              validate a job file or a qos config
 *                                    and say what it means
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ioqos.h>

#include "report/describe.h"
#include "report/report.h"
#include "engines/engines.h"
#include "feat/feats.h"
#include "job/jobfile.h"
#include "job/jobplan.h"
#include "run/runner.h"
#include "sim/sim.h"

static const char usage[] =
"usage: ioqos run [JOBFILE...] [fio options] [options]\n"
"       ioqos check FILE... | ioqos check [JOBFILE...] fio options\n"
"       ioqos --help | --version\n"
"\n"
"Run fio job files with every job's I/O passed through one ioqos controller.\n"
"Jobs join groups by cgroup= (with cgroup_weight=) or prio=; limits, lows,\n"
"weights and the device depth come from an ioqos config given with --qos.\n"
"With no depth written, groups that share by weight or low limit get\n"
"depth=auto, so that the weights hold; \"/ depth=max\" holds nothing back.\n"
"\n"
"fio options: any job option as --key=value (or --key value, or a bare\n"
"--flag), read as fio 3.33 reads its command line: each --name=NAME starts\n"
"a job; the options before the first --name (and after --name=global) are\n"
"global ones, the defaults of the command line's jobs and of the first job\n"
"file, whose own [global] overrides them.  --runtime and --timeout are the\n"
"job option runtime=, as under fio.\n"
"\n"
"run options:\n"
"  --qos FILE                ioqos config: \"PATH key=value ...\" lines\n"
"  --redis ADDRESS           Redis for the config's global=NAME groups, whose\n"
"                            limits are shared by every run naming NAME\n"
"                            (unix:PATH or HOST:PORT; real engines only)\n"
"  --engine E                io_uring (default), psync, null or sim;\n"
"                            overrides the jobs' ioengine=\n"
"  --device D                sim device: ssd (default), nvme, hdd, or a\n"
"                            parameter file (see examples/sim/*.dev)\n"
"  --seed N                  seed for offsets and the sim device (default 1)\n"
"  --output-format F         normal (default), json, json+ (with the\n"
"                            latency bins) or terse, or several: json,normal\n"
"  --runtime-all T           every job's runtime=, over what the job files\n"
"                            say (fio's --runtime is only a default)\n"
"  --section NAME            run only the job sections so named (as fio's\n"
"                            --section; may be given more than once)\n"
"  --log-interval MS         per-interval figures per group, as CSV\n"
"  --log FILE                write that CSV to FILE (default: after the report)\n"
"  --plot FILE.svg           plot each group's bandwidth over time\n"
"  --stop-after T            stop every job after T of I/O, wall clock\n"
"                            (seconds, or 500ms, 2m ...); exit 0\n"
"\n"
"check: a job file (it has [sections]) is parsed and each job described;\n"
"any other file is read as an ioqos config and each group's settings shown.\n"
"With fio options, the jobs of the command line and of the job files are\n"
"described as run would take them.\n"
"\n"
"SIGINT (Ctrl-C) or SIGTERM stops the run and prints the partial report;\n"
"a second one kills.\n"
"\n"
"Exit status: 0 success (also when --stop-after ends the run), 1 error,\n"
"2 bad usage, 128 stopped by SIGINT or SIGTERM (fio's status).\n";

/* a reason of one or more lines, each "ioqos: ..." */
static void print_err(const char *err)
{
	while (*err) {
		size_t len = strcspn(err, "\n");
		char line[1024];

		/* control bytes in a value or a path are never echoed raw */
		str_escape(line, sizeof(line), err, len, false);
		fprintf(stderr, "ioqos: %s\n", line);
		err += len;
		if (*err)
			err++;
	}
}

static int die_usage(const char *msg, const char *arg)
{
	char a[512];

	str_escape(a, sizeof(a), arg ? arg : "", (size_t)-1, false);
	fprintf(stderr, "ioqos: %s%s%s (see ioqos --help)\n", msg, arg ? " " : "", a);
	return 2;
}

/* ---- check ------------------------------------------------------------ */

/*
 * The largest file check reads: the library's own limit on a config file.
 * A job file is held to JOBFILE_MAX_BYTES, as run holds it.
 */
#define CHECK_MAX_BYTES ((size_t)256 << 20)

/* is @buf a job file: its first meaningful line is [x] (a NUL byte is
 * meaningful: no job file, and the config's parser names its line) */
static bool is_jobfile(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;

	while (s < end) {
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end)
			return false;
		if (*s == '#' || *s == ';' || *s == '\n' || *s == '\r') {
			const char *nl = memchr(s, '\n', (size_t)(end - s));

			if (!nl)
				return false;
			s = nl + 1;
			continue;
		}
		return *s == '[';
	}
	return false;
}

/* ---- run -------------------------------------------------------------- */

/* "--opt VALUE" or "--opt=VALUE": the value, advancing *i; NULL if none */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] == '\0') {
		if (*i + 1 >= argc)
			return "";
		return argv[++*i];
	}
	return NULL;
}

/* "json,normal": fio's list of formats, any of them at once */
static int parse_formats(const char *v, unsigned *out)
{
	static const struct { const char *name; unsigned bit; } f[] = {
		{ "normal", OUT_NORMAL }, { "json", OUT_JSON },
		{ "json+", OUT_JSONPLUS }, { "terse", OUT_TERSE },
	};
	unsigned bits = 0;

	while (*v) {
		size_t len = strcspn(v, ","), k;

		for (k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			if (strlen(f[k].name) == len && !strncmp(v, f[k].name, len))
				break;
		if (k == sizeof(f) / sizeof(f[0]))
			return -EINVAL;
		bits |= f[k].bit;
		v += len;
		if (*v == ',' && *++v == '\0')
			return -EINVAL;
	}
	if (!bits)
		return -EINVAL;
	*out = bits;
	return 0;
}

/* the command line of run and check */
struct cli {
	struct run_opts o;
	const char *files[256];       /* job files, in order */
	int nfiles;
	const char *sections[256];    /* --section NAMEs */
	int nsections;
	char **jobargs;               /* fio's options: "key=value" or "key" */
	size_t njobargs;
	uint64_t runtime_all_ns;      /* --runtime-all, 0: none */
};

static void cli_free(struct cli *c)
{
	for (size_t i = 0; i < c->njobargs; i++)
		free(c->jobargs[i]);
	free(c->jobargs);
}

/*
 * "--key=value", "--key VALUE" or a bare "--key": one of fio's options, to
 * be read as fio's command line reads them (jobset_cmdline).  The next
 * argument, whatever it is, is the value of an option that needs one, as
 * fio's getopt_long takes it: 0, or 2 (out of memory)
 */
static int add_jobarg(struct cli *c, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2;
	char **nv = realloc(c->jobargs, (c->njobargs + 1) * sizeof(*nv)), *s;
	size_t len = strlen(a);

	if (!nv)
		return 2;
	c->jobargs = nv;
	if (!strchr(a, '=') && jobopt_cmdline_arg(a) == JOBOPT_ARG_REQUIRED &&
	    *i + 1 < argc) {
		const char *v = argv[++*i];

		s = malloc(len + strlen(v) + 2);
		if (s)
			sprintf(s, "%s=%s", a, v);
	} else {
		s = strdup(a);
	}
	if (!s)
		return 2;
	c->jobargs[c->njobargs++] = s;
	return 0;
}

/* ioqos's own options, fio's options and the job files: 0, else the exit
 * status (2: bad usage) */
static int parse_cli(int argc, char **argv, struct cli *c)
{
	struct run_opts *o = &c->o;

	memset(c, 0, sizeof(*c));
	o->seed = 1;
	o->out = stdout;
	o->format = OUT_NORMAL;
	for (int i = 0; i < argc; i++) {
		const char *v;
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			if (c->nfiles == (int)(sizeof(c->files) / sizeof(c->files[0])))
				return die_usage("too many job files", NULL);
			c->files[c->nfiles++] = a;
			continue;
		}
		if ((v = opt_value(argc, argv, &i, "--qos"))) {
			if (!*v)
				return die_usage("--qos needs a file", NULL);
			o->qos_file = v;
		} else if ((v = opt_value(argc, argv, &i, "--redis"))) {
			if (!*v)
				return die_usage("--redis needs an address", NULL);
			o->redis = v;
		} else if ((v = opt_value(argc, argv, &i, "--engine"))) {
			if (!strcmp(v, "sim"))
				o->engine = ENG_SIM;
			else if (!strcmp(v, "null"))
				o->engine = ENG_NULL;
			else if (!strcmp(v, "psync"))
				o->engine = ENG_PSYNC;
			else if (!strcmp(v, "io_uring"))
				o->engine = ENG_URING;
			else
				return die_usage("--engine: expected io_uring, psync, null or sim, "
						 "not", v);
		} else if ((v = opt_value(argc, argv, &i, "--device"))) {
			if (!*v)
				return die_usage("--device needs a value", NULL);
			o->device = v;
		} else if ((v = opt_value(argc, argv, &i, "--seed"))) {
			char *end;
			errno = 0;
			o->seed = strtoull(v, &end, 0);
			if (!*v || *end || errno || *v == '-')
				return die_usage("--seed: bad number", v);
		} else if ((v = opt_value(argc, argv, &i, "--output-format"))) {
			if (parse_formats(v, &o->format))
				return die_usage("--output-format: expected a list of normal, "
						 "json, json+ and terse, not", v);
		} else if ((v = opt_value(argc, argv, &i, "--runtime-all"))) {
			if (parse_time_ns(v, 1000000000ull, &c->runtime_all_ns) ||
			    !c->runtime_all_ns || c->runtime_all_ns > JOB_TIME_MAX_NS)
				return die_usage("--runtime-all: expected a time up to 365d such "
						 "as 5 or 500ms, not", v);
		} else if ((v = opt_value(argc, argv, &i, "--log-interval"))) {
			if (parse_time_ns(v, 1000000, &o->log_interval_ns) ||
			    o->log_interval_ns < 1000000)
				return die_usage("--log-interval: expected milliseconds (>= 1), not",
						 v);
		} else if ((v = opt_value(argc, argv, &i, "--log"))) {
			if (!*v)
				return die_usage("--log needs a file", NULL);
			o->log_file = v;
		} else if ((v = opt_value(argc, argv, &i, "--stop-after"))) {
			if (parse_time_ns(v, 1000000000ull, &o->timeout_ns) || !o->timeout_ns ||
			    o->timeout_ns > JOB_TIME_MAX_NS)
				return die_usage("--stop-after: expected a time such as 90, "
						 "1500ms, 2m, not", v);
		} else if ((v = opt_value(argc, argv, &i, "--section"))) {
			if (!*v)
				return die_usage("--section needs a section name", NULL);
			if (c->nsections == (int)(sizeof(c->sections) / sizeof(c->sections[0])))
				return die_usage("too many --section", NULL);
			c->sections[c->nsections++] = v;
		} else if ((v = opt_value(argc, argv, &i, "--plot"))) {
			if (!*v)
				return die_usage("--plot needs a file", NULL);
			o->plot_file = v;
		} else if (a[1] == '-' && a[2] && a[2] != '=') {
			/* fio's job options, --runtime and --timeout among them */
			if (add_jobarg(c, argc, argv, &i)) {
				fprintf(stderr, "ioqos: out of memory\n");
				return 1;
			}
		} else {
			return die_usage("unknown option", a);
		}
	}
	return 0;
}

/* the jobs of the command line and of the job files, as fio reads them:
 * 0, or 1 with the reasons printed */
static int load_jobs(struct cli *c, struct jobset *set, enum engine_kind engine)
{
	char err[8192];

	if (c->nsections) {
		set->sections = c->sections;
		set->nsections = (unsigned)c->nsections;
	}
	if (c->njobargs && jobset_cmdline(set, c->jobargs, c->njobargs, err, sizeof(err)))
		goto bad;
	for (int i = 0; i < c->nfiles; i++)
		if (jobfile_load(set, c->files[i], err, sizeof(err)))
			goto bad;
	/* ioqos's --runtime-all: every job's runtime=, over the files' */
	for (size_t i = 0; c->runtime_all_ns && i < set->n; i++)
		set->jobs[i].runtime_ns = c->runtime_all_ns;
	if (jobset_finish(set, err, sizeof(err)) ||
	    jobset_engines(set, engine, err, sizeof(err)))
		goto bad;
	return 0;
bad:
	print_err(err);
	jobset_free(set);
	return 1;
}

static int cmd_run(int argc, char **argv)
{
	struct cli c;
	struct run_opts *o = &c.o;
	struct jobset set = { 0 };
	int rc;
	char err[8192];

	rc = parse_cli(argc, argv, &c);
	if (rc)
		goto out;
	rc = 2;
	if (!c.nfiles && !c.njobargs)
		die_usage("run needs a job file or fio's --name= options", NULL);
	else if (o->log_file && !o->log_interval_ns)
		die_usage("--log needs --log-interval", NULL);
	else if (o->device && o->engine != ENG_SIM && o->engine != ENG_DEFAULT)
		die_usage("--device is for the sim engine", NULL);
	else if (o->redis && !o->qos_file)
		die_usage("--redis needs --qos", NULL);
	else
		rc = 0;
	if (rc)
		goto out;
	if (o->device && o->engine == ENG_DEFAULT)
		o->engine = ENG_SIM;
	rc = load_jobs(&c, &set, o->engine);
	if (rc)
		goto out;
	o->progress = isatty(STDERR_FILENO);
	o->reports = &report_writers;
	o->features = feat_table;
	o->engines = eng_table;
	rc = runner_run(&set, o, err, sizeof(err));
	jobset_free(&set);
	if (rc) {
		print_err(err);
		/* fio's status when a signal ends its run, or when jobs end by
		 * errors: how many */
		rc = rc == -EINTR ? 128 : rc > 0 ? rc : 1;
	}
out:
	cli_free(&c);
	return rc;
}

static int check_files(int argc, const char *const *argv)
{
	char err[8192];
	int bad = 0;

	for (int i = 0; i < argc; i++) {
		char *buf;
		size_t len;

		/* read once, here: the same bytes are classified and parsed,
		 * and anything but a regular file is refused unread */
		if (jobfile_read(argv[i], CHECK_MAX_BYTES, &buf, &len, err, sizeof(err))) {
			print_err(err);
			bad = 1;
			continue;
		}
		if (is_jobfile(buf, len)) {
			struct jobset set = { 0 };

			if (len > JOBFILE_MAX_BYTES) {
				snprintf(err, sizeof(err), "%s: larger than %zu bytes", argv[i],
					 JOBFILE_MAX_BYTES);
				print_err(err);
				free(buf);
				bad = 1;
				continue;
			}
			if (jobfile_parse_buf(&set, argv[i], buf, len, err, sizeof(err)) ||
			    jobset_finish(&set, err, sizeof(err)) ||
			    jobset_engines(&set, ENG_DEFAULT, err, sizeof(err))) {
				print_err(err);
				jobset_free(&set);
				free(buf);
				bad = 1;
				continue;
			}
			free(buf);
			printf("%s: job file, %zu job%s\n", argv[i], set.n,
			       set.n == 1 ? "" : "s");
			for (size_t n = 0; n < set.n; n++)
				job_describe(&set.jobs[n]);
			jobset_free(&set);
		} else {
			struct ioqos *q = ioqos_new();
			char desc[1024];
			uint32_t n;

			if (!q) {
				fprintf(stderr, "ioqos: out of memory\n");
				free(buf);
				return 1;
			}
			if (ioqos_load_buf(q, argv[i], buf, len, 0, err, sizeof(err)) < 0) {
				print_err(err);
				ioqos_free(q);
				free(buf);
				bad = 1;
				continue;
			}
			free(buf);
			n = ioqos_group_count(q);
			printf("%s: ioqos config, %u group%s\n", argv[i], n, n == 1 ? "" : "s");
			for (uint32_t g = 0; g < n; g++) {
				if (ioqos_describe(q, g, desc, sizeof(desc)) < 0)
					continue;
				printf("  %s: %s\n", ioqos_group_path(q, g), desc);
			}
			ioqos_free(q);
		}
	}
	return bad;
}

/* the jobs of fio's options on the command line, and of the job files
 * beside them, as run reads them */
static int check_cmdline(struct cli *c)
{
	struct jobset set = { 0 };

	if (load_jobs(c, &set, c->o.engine))
		return 1;
	printf("command line%s: %zu job%s\n", c->nfiles ? " and job files" : "", set.n,
	       set.n == 1 ? "" : "s");
	for (size_t n = 0; n < set.n; n++)
		job_describe(&set.jobs[n]);
	jobset_free(&set);
	return 0;
}

static int cmd_check(int argc, char **argv)
{
	struct cli c;
	int rc;

	if (argc < 1)
		return die_usage("check needs a file", NULL);
	rc = parse_cli(argc, argv, &c);
	if (!rc && c.njobargs)
		rc = check_cmdline(&c);
	else if (!rc && !c.nfiles)
		rc = die_usage("check needs a file", NULL);
	else if (!rc)
		rc = check_files(c.nfiles, c.files);
	cli_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return die_usage("no command", NULL);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ioqos %s\n", IOQOS_VERSION_STRING);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	return die_usage("unknown command", argv[1]);
}
