/* SPDX-License-Identifier: MIT */
/*
 * A real redis-server for a test: on a unix socket in a scratch directory,
 * without persistence, stopped by its PID.  It also dies with the test
 * (PR_SET_PDEATHSIG), and a SIGTERM or SIGINT to the test (the runner's
 * timeout, ^C) kills it and removes the directory: the C form of a shell
 * test's trap.  A test without redis-server on PATH is skipped (77).
 */
#ifndef TEST_CLUSTER_REDIS_H
#define TEST_CLUSTER_REDIS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "base.h"

/* in static storage: the exit handler and the signal handler use it */
struct redis_srv {
	pid_t pid;                 /* the server, 0: not running */
	char dir[64];              /* scratch directory */
	char sock[128];            /* its unix socket */
	char addr[140];            /* "unix:" sock, for ioqos_cluster_new */
};

static struct redis_srv *redis_the;  /* for the signal handler and atexit */

static inline void redis_kill_now(void)
{
	if (redis_the && redis_the->pid > 0)
		kill(redis_the->pid, SIGKILL);
}

static inline void redis_cleanup(void)
{
	char p[200];

	if (!redis_the)
		return;
	if (redis_the->pid > 0) {
		kill(redis_the->pid, SIGKILL);
		waitpid(redis_the->pid, NULL, 0);
		redis_the->pid = 0;
	}
	unlink(redis_the->sock);
	snprintf(p, sizeof(p), "%s/redis.log", redis_the->dir);
	unlink(p);
	rmdir(redis_the->dir);
}

static inline void redis_on_signal(int sig)
{
	redis_kill_now();
	signal(sig, SIG_DFL);
	raise(sig);
}

static inline void redis_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* start (or restart, same socket) the server; 0, or exits 77 / 1 */
static inline int redis_start(struct redis_srv *s)
{
	char log[200];

	if (!redis_the) {
		if (system("command -v redis-server >/dev/null 2>&1") != 0)
			th_skip_all("redis-server is not installed");
		snprintf(s->dir, sizeof(s->dir), "/tmp/ioqos-redis-XXXXXX");
		if (!mkdtemp(s->dir)) {
			perror("mkdtemp");
			exit(1);
		}
		snprintf(s->sock, sizeof(s->sock), "%s/redis.sock", s->dir);
		snprintf(s->addr, sizeof(s->addr), "unix:%s", s->sock);
		redis_the = s;
		atexit(redis_cleanup);
		signal(SIGTERM, redis_on_signal);
		signal(SIGINT, redis_on_signal);
	}
	snprintf(log, sizeof(log), "%s/redis.log", s->dir);
	s->pid = fork();
	if (s->pid < 0) {
		perror("fork");
		exit(1);
	}
	if (s->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", s->sock,
		       "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
		       "--dir", s->dir, "--daemonize", "no", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {       /* up to 5 s */
		struct timeval tv = { 0, 100000 };
		redisContext *c = redisConnectUnixWithTimeout(s->sock, tv);
		redisReply *r = c && !c->err ? redisCommand(c, "PING") : NULL;
		int up = r && r->type == REDIS_REPLY_STATUS;

		if (r)
			freeReplyObject(r);
		if (c)
			redisFree(c);
		if (up)
			return 0;
		redis_sleep_ms(10);
	}
	fprintf(stderr, "redis-server did not come up (see %s)\n", log);
	exit(1);
}

/* kill the server by its PID (SIGKILL: as a crash) */
static inline void redis_stop(struct redis_srv *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
	unlink(s->sock);
}

static inline redisContext *redis_connect(struct redis_srv *s)
{
	struct timeval tv = { 2, 0 };
	redisContext *c = redisConnectUnixWithTimeout(s->sock, tv);

	if (!c || c->err) {
		fprintf(stderr, "connect %s: %s\n", s->sock, c ? c->errstr : "oom");
		exit(1);
	}
	return c;
}

#endif
