/* SPDX-License-Identifier: MIT */
/*
 * ioqos-group=cgroup: a unix-socket client's group is the cgroup v2 path
 * of the process that connected, so that systemd units and containers are
 * tenants under the names the kernel gives them.
 *
 * Where it comes from.  The kernel reports the connecting process's pid
 * on a unix socket (SO_PEERCRED, nbdkit_peer_pid()); the "0::" line of
 * /proc/PID/cgroup is that process's cgroup v2 path, relative to the root
 * of nbdkit's cgroup namespace ("0::/system.slice/foo.service").  Nothing
 * the client sends is used.  TCP and any other transport have no process
 * behind them that nbdkit can see, so those clients are refused.
 *
 * The mapping.  A group path allows the bytes A-Z a-z 0-9 . _ : @ + -
 * between slashes; a cgroup name may hold any byte but '/' and '\n'.
 * Each slash-separated name is written byte by byte: A-Z a-z 0-9 . _ : @ -
 * as they are, any other byte (the '+' itself included) as '+' and two
 * lower-case hex digits.  So "/system.slice/user@1000.service" stays as
 * it is, systemd's "dev-disk-by\x2duuid-1.swap" becomes
 * "dev-disk-by+5cx2duuid-1.swap" and "a b+c" becomes "a+20b+2bc": '+'
 * never stands for itself, so the mapping can be undone and two cgroups
 * never share a group.  A mapped path longer than a group path may be is
 * refused, never cut short.
 *
 * Refused, each with the reason in nbdkit's log: a pid nbdkit cannot see
 * (0: the client is in another pid namespace), a process that is gone or
 * whose /proc/PID/cgroup cannot be read, no "0::" line (no cgroup v2), the
 * root cgroup (it would be "/", the device), a cgroup outside nbdkit's
 * cgroup namespace ("/.." components), a cgroup already removed (the
 * kernel marks it " (deleted)", and the process is exiting: a live cgroup
 * may have a name that ends so, and is served; cgroup_removed()).
 *
 * What it does not see: the pid is the one of the process that called
 * connect(), read when the connection opens.  A process that moves to
 * another cgroup later stays in its group until it connects again; a
 * socket handed to another process keeps the group of the one that
 * connected.  If that process has exited by the time nbdkit reads /proc,
 * the client is refused (or, had the pid been reused in that instant, it
 * would get the new process's cgroup).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>
#include <unistd.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* the longest /proc/PID/cgroup read: a line per hierarchy, each a path */
#define CGROUP_FILE_MAX (256 * 1024)

/* a byte a group path takes as it is ('+' is the escape) */
static bool cg_plain(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
	       ch == ':' || ch == '@' || ch == '-';
}

/*
 * The group path of cgroup path @cg (as /proc shows it) into @path; 0, or
 * -1 with the reason in @why.
 */
int cgroup_map(const char *cg, char *path, size_t len, char *why, size_t whylen)
{
	static const char hex[] = "0123456789abcdef";
	char qc[LOG_STR_BUF];      /* @cg as logged: its maker chose the names */
	size_t n = 0, start;

	if (cg[0] != '/') {
		snprintf(why, whylen, "cgroup path '%s' is not absolute", log_str(qc, cg));
		return -1;
	}
	if (strcmp(cg, "/") == 0) {
		snprintf(why, whylen, "the client is in the root cgroup /, which would "
			 "be the device itself, not a tenant's group");
		return -1;
	}
	/* each name: neither empty, "." nor ".." (outside the namespace) */
	for (const char *p = cg + 1;; ) {
		const char *slash = strchr(p, '/');
		size_t nl = slash ? (size_t)(slash - p) : strlen(p);

		if (nl == 0 || (nl == 1 && p[0] == '.')) {
			snprintf(why, whylen, "cgroup path '%s' has an empty or '.' name",
				 log_str(qc, cg));
			return -1;
		}
		if (nl == 2 && p[0] == '.' && p[1] == '.') {
			snprintf(why, whylen, "the client's cgroup %s is outside "
				 "nbdkit's cgroup namespace", log_str(qc, cg));
			return -1;
		}
		if (!slash)
			break;
		p = slash + 1;
	}
	for (start = 0; cg[start]; start++) {
		unsigned char ch = (unsigned char)cg[start];
		size_t need = (ch == '/' || cg_plain(ch)) ? 1 : 3;

		/* room for it and the NUL, within a group path's length */
		if (n + need + 1 > len || n + need + 1 > IOQOS_PATH_MAX) {
			snprintf(why, whylen, "the client's cgroup %s maps to a group "
				 "path longer than %d bytes", log_str(qc, cg), IOQOS_PATH_MAX - 1);
			return -1;
		}
		if (need == 1) {
			path[n++] = (char)ch;
		} else {
			path[n++] = '+';
			path[n++] = hex[ch >> 4];
			path[n++] = hex[ch & 15];
		}
	}
	path[n] = '\0';
	return 0;
}

/* PF_EXITING of the kernel's task flags, which /proc/PID/stat shows
 * (proc(5): "flags", the PF_* bits of include/linux/sched.h) */
#define TASK_PF_EXITING 0x4u

/*
 * Whether the process of /proc directory @dir is exiting (its task flags
 * have PF_EXITING): 1 or 0, or -1 with errno (ESRCH: it is gone).
 */
static int proc_exiting(int dir)
{
	char buf[512], *p;
	ssize_t n;
	int fd = openat(dir, "stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		errno = n == 0 ? ESRCH : errno;
		return -1;
	}
	buf[n] = '\0';
	/* after the name in parentheses (which may hold anything, ')'
	 * too): state ppid pgrp session tty_nr tpgid, then flags */
	p = strrchr(buf, ')');
	for (int i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	if (!p) {
		errno = EIO;
		return -1;
	}
	return (strtoul(p + 1, NULL, 10) & TASK_PF_EXITING) != 0;
}

/*
 * Whether the cgroup of "0::" line @cg of the process of /proc directory
 * @dir is removed.  The kernel appends " (deleted)" to the path of a
 * cgroup that was removed, and a cgroup may also be named so: the text
 * cannot tell them apart.  The kernel's rules can: a cgroup with a live
 * process in it cannot be removed (rmdir says EBUSY), and a process stops
 * counting as one in the cgroup it is shown in only in exit(), after its
 * task flags took PF_EXITING, which is never cleared (a process moved to
 * another cgroup is shown in that one).  So a process that is not exiting
 * is in a live cgroup, whatever its name; one that is exiting, in a cgroup
 * shown with " (deleted)", is taken to be in a removed one.
 *
 * The race: the flags are read after the cgroup line, through the same
 * /proc directory, so that a process reaped in between (its pid perhaps
 * reused) reads as gone, never as another process; and PF_EXITING, set
 * before the process could leave its cgroup, is seen.  What is left: a
 * process that is exiting in a live cgroup named "... (deleted)" is
 * refused as removed, which it is about to be.  Looking the path up in
 * the cgroup file system would not do better: a removed "x" and a live
 * "x (deleted)" beside it both find a directory there, and nbdkit may
 * not see the mount (a container).
 *
 * 1 (removed), 0 (live: @cg is the whole path), or -1 with errno.
 */
static int cgroup_removed(int dir, const char *cg)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(cg), dl = sizeof(del) - 1;

	if (n < dl || strcmp(cg + n - dl, del) != 0)
		return 0;
	return proc_exiting(dir);
}

/*
 * The cgroup v2 path of process @pid, from /proc/PID/cgroup, into @cg
 * (malloc'd); 0, or -1 with the reason in @why.
 */
static int cgroup_of(int64_t pid, char **cg, char *why, size_t whylen)
{
	char fn[64], qc[LOG_STR_BUF];
	char *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t n;
	FILE *f = NULL;
	int ret = -1, dir, fd, removed;

	*cg = NULL;
	/* the process's /proc directory, once: every read below is of this
	 * process, or fails if it has gone */
	snprintf(fn, sizeof(fn), "/proc/%" PRId64, pid);
	dir = open(fn, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = dir < 0 ? -1 : openat(dir, "cgroup", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !(f = fdopen(fd, "r")))
		close(fd);
	strncat(fn, "/cgroup", sizeof(fn) - strlen(fn) - 1);
	if (!f) {
		if (errno == ENOENT || errno == ESRCH)
			snprintf(why, whylen, "the client's process %" PRId64 " is gone", pid);
		else
			snprintf(why, whylen, "%s: %s", fn, strerror(errno));
		if (dir >= 0)
			close(dir);
		return -1;
	}
	errno = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		total += (size_t)n;
		if (total > CGROUP_FILE_MAX)
			break;
		if (line[n - 1] != '\n')
			break;                 /* cut short: the process exited */
		line[--n] = '\0';
		if (strncmp(line, "0::", 3) != 0)
			continue;
		removed = cgroup_removed(dir, line + 3);
		if (removed < 0) {
			if (errno == ENOENT || errno == ESRCH)
				snprintf(why, whylen, "the client's process %" PRId64 " is gone",
					 pid);
			else
				snprintf(why, whylen, "/proc/%" PRId64 "/stat: %s", pid,
					 strerror(errno));
			goto out;
		}
		if (removed) {
			line[n - (sizeof(" (deleted)") - 1)] = '\0';
			snprintf(why, whylen, "the client's cgroup %s is removed (its "
				 "process %" PRId64 " is exiting)", log_str(qc, line + 3), pid);
			goto out;
		}
		if (!(*cg = strdup(line + 3))) {
			snprintf(why, whylen, "out of memory");
			goto out;
		}
		ret = 0;
		goto out;
	}
	if (ferror(f) && errno == ESRCH)
		snprintf(why, whylen, "the client's process %" PRId64 " is gone", pid);
	else if (ferror(f))
		snprintf(why, whylen, "%s: %s", fn, strerror(errno ? errno : EIO));
	else if (total > CGROUP_FILE_MAX)
		snprintf(why, whylen, "%s: longer than %d bytes", fn, CGROUP_FILE_MAX);
	else
		snprintf(why, whylen, "%s has no cgroup v2 line (0::): "
			 "no cgroup2 hierarchy on this machine?", fn);
out:
	free(line);
	fclose(f);
	close(dir);
	return ret;
}

/*
 * ioqos-group=cgroup: the group path of this connection's client into
 * @path; 0, or -1 with the reason in @why.
 */
int cgroup_group_path(char *path, size_t len, char *why, size_t whylen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int64_t pid;
	char *cg;
	int ret;

	memset(&ss, 0, sizeof(ss));
	if (nbdkit_peer_name((struct sockaddr *)&ss, &sl) < 0) {
		snprintf(why, whylen, "ioqos-group=cgroup: the client's address: %s",
			 strerror(errno));
		return -1;
	}
	if (ss.ss_family != AF_UNIX) {
		snprintf(why, whylen, "ioqos-group=cgroup serves unix-socket clients "
			 "only: a %s client has no process here to take a cgroup from",
			 ss.ss_family == AF_INET || ss.ss_family == AF_INET6 ? "TCP" :
			 "non-unix");
		return -1;
	}
	pid = nbdkit_peer_pid();
	if (pid < 0) {
		snprintf(why, whylen, "ioqos-group=cgroup: the client's pid is unknown "
			 "(SO_PEERCRED)");
		return -1;
	}
	if (pid == 0) {
		snprintf(why, whylen, "ioqos-group=cgroup: the client's process is not "
			 "in nbdkit's pid namespace (pid 0)");
		return -1;
	}
	if (cgroup_of(pid, &cg, why, whylen) < 0)
		return -1;
	ret = cgroup_map(cg, path, len, why, whylen);
	if (ret == 0) {
		char qc[LOG_STR_BUF];

		nbdkit_debug("ioqos: client pid %" PRId64 " is in cgroup %s", pid,
			     log_str(qc, cg));
	}
	free(cg);
	return ret;
}
