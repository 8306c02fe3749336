/* SPDX-License-Identifier: MIT */
/*
 * What ioqos_load() and ioqos_load_replace() read: regular files only.  A
 * FIFO with no writer, /dev/zero, /dev/null, a directory and a link to
 * /dev/zero are each refused at once, -EINVAL and one line naming the file
 * and what it is, the controller unchanged; a regular file beside them,
 * and a link to it, load.  A FIFO's open used to wait for a writer for
 * ever and /dev/zero was read up to 256 MiB, so the loads run under an
 * alarm: a load that waits makes the program fail, not hang.
 */
#include "base.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

/* the scratch directory and its files, removed on every exit */
static char dir[64];
static char fifo[96], regular[96], zero_link[96], reg_link[96];

static void scratch_remove(void)
{
	unlink(fifo);
	unlink(regular);
	unlink(zero_link);
	unlink(reg_link);
	rmdir(dir);
}

/* a load that did not come back: fail, and leave nothing behind */
static void on_alarm(int sig)
{
	static const char msg[] = "not ok - a load waited 30 s: it waits on what it opened\n";
	ssize_t n;

	(void)sig;
	n = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)n;
	scratch_remove();
	_exit(1);
}

/* load @path both ways: refused, naming it and @kind, nothing changed */
static void refused(const char *path, const char *kind)
{
	struct ioqos *q = ioqos_new();
	char err[512], want[256], before[256] = "", after[256] = "";
	int ret;

	if (q == NULL || ioqos_set(q, "/keep", "rbps=1M", 0, err, sizeof(err)) < 0) {
		CHECK(false, "a controller for %s", path);
		ioqos_free(q);
		return;
	}
	snprintf(want, sizeof(want), "%s: not a regular file (%s)", path, kind);
	ioqos_describe(q, 1, before, sizeof(before));

	err[0] = '\0';
	alarm(30);
	ret = ioqos_load(q, path, 0, err, sizeof(err));
	alarm(0);
	CHECK(ret == -EINVAL && strcmp(err, want) == 0,
	      "ioqos_load(%s) -> %d '%s', want -EINVAL '%s'", path, ret, err, want);

	err[0] = '\0';
	alarm(30);
	ret = ioqos_load_replace(q, path, 0, NULL, NULL, err, sizeof(err));
	alarm(0);
	CHECK(ret == -EINVAL && strcmp(err, want) == 0,
	      "ioqos_load_replace(%s) -> %d '%s', want -EINVAL '%s'", path, ret, err,
	      want);

	ioqos_describe(q, 1, after, sizeof(after));
	CHECK(ioqos_group_count(q) == 2 && strcmp(before, after) == 0,
	      "after %s: /keep as it was, no group made", path);
	ioqos_free(q);
}

/* load regular file @path both ways: /vm1 gets its rbps */
static void loads(const char *path)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_limits l;
	char err[512] = "";
	int ret;

	ret = ioqos_load(q, path, 0, err, sizeof(err));
	CHECK(ret == 0 && ioqos_limits_get(q, 1, &l) == 0 && l.bps[IOQOS_READ] == 1000,
	      "ioqos_load(%s) -> %d %s", path, ret, err);
	ret = ioqos_load_replace(q, path, 0, NULL, NULL, err, sizeof(err));
	CHECK(ret == 0 && ioqos_limits_get(q, 1, &l) == 0 && l.bps[IOQOS_READ] == 1000,
	      "ioqos_load_replace(%s) -> %d %s", path, ret, err);
	ioqos_free(q);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	struct sigaction sa;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);

	snprintf(dir, sizeof(dir), "%s/t_loadfile.XXXXXX",
		 tmp != NULL && strlen(tmp) < 32 ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		CHECK(false, "a scratch directory in %s: %s", dir, strerror(errno));
		return th_exit();
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(regular, sizeof(regular), "%s/q.conf", dir);
	snprintf(zero_link, sizeof(zero_link), "%s/zero", dir);
	snprintf(reg_link, sizeof(reg_link), "%s/link.conf", dir);

	fd = open(regular, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "/vm1 rbps=1000\n", 15) == 15,
	      "write %s", regular);
	if (fd >= 0)
		close(fd);
	loads(regular);
	if (symlink(regular, reg_link) == 0)
		loads(reg_link);
	else
		th_skip("a link to a config", "symlink: %s", strerror(errno));

	if (mkfifo(fifo, 0600) == 0)
		refused(fifo, "a FIFO");
	else
		th_skip("a FIFO", "mkfifo: %s", strerror(errno));
	if (access("/dev/zero", R_OK) == 0) {
		refused("/dev/zero", "a device");
		if (symlink("/dev/zero", zero_link) == 0)
			refused(zero_link, "a device");
	} else {
		th_skip("/dev/zero", "not here");
	}
	if (access("/dev/null", R_OK) == 0)
		refused("/dev/null", "a device");
	refused(dir, "a directory");

	scratch_remove();
	return th_exit();
}
