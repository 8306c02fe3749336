/* SPDX-License-Identifier: MIT */
/*
 * The config file, loaded again when it changes.
 *
 * Config changes.  nbdkit ends on SIGHUP, so the filter watches the file, as
 * nbdkit's rate filter does with rate-file: the timer thread stat()s it every
 * ioqos-poll (default 1 s) and, when its inode, size, mtime or ctime
 * changed, loads it again with ioqos_load_buf() at now.  The library
 * reschedules queued requests under the new limits at once.  A file that
 * does not parse changes nothing (the error is logged).  As with
 * ioqos_load(), keys the new file no longer names keep their values.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <nbdkit-filter.h>

#include "filter.h"

struct file_sig file_sig_of(const char *path)
{
	struct file_sig s;
	struct stat st;

	memset(&s, 0, sizeof(s));
	if (stat(path, &st) == 0) {
		s.exists = true;
		s.dev = st.st_dev;
		s.ino = st.st_ino;
		s.size_bytes = st.st_size;
		s.mtime = st.st_mtim;
		s.ctime = st.st_ctim;
	}
	return s;
}

static bool file_sig_same(const struct file_sig *a, const struct file_sig *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
	       a->size_bytes == b->size_bytes &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* the whole file in a malloc'd buffer (NUL-terminated), or NULL with errno */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *p;

			if (cap >= CONFIG_MAX_BYTES) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap ? 2 * cap : 8192;
			p = realloc(buf, cap + 1);
			if (!p)
				goto fail;
			buf = p;
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0) {
			if (ferror(f)) {
				errno = EIO;
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

/*
 * Load the config file if it changed since it was last loaded (always, if
 * @force).  Returns 0 (loaded or unchanged) or -1 (logged; nothing changed).
 */
int config_reload(bool force)
{
	struct wakes wk = { 0 };
	char err[512];
	struct file_sig sig;
	size_t len = 0;
	char *buf;
	int ret;

	if (!g.config)
		return 0;
	sig = file_sig_of(g.config);
	if (!force && file_sig_same(&sig, &g.sig))
		return 0;
	/* remember it even when it fails: one message per change, not per poll */
	g.sig = sig;
	buf = read_file(g.config, &len);
	if (!buf) {
		nbdkit_error("ioqos: %s: %s", g.config, strerror(errno));
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	uint64_t now = now_ns();

	ret = ioqos_load_buf(g.q, g.config, buf, len, now, err, sizeof(err));
	if (ret == 0) {
		if (!force)
			g.reloads++;
		gate_pump(now, &wk);
	}
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
	free(buf);
	if (ret < 0) {
		nbdkit_error("ioqos: %s", err);
		return -1;
	}
	if (!force)
		nbdkit_debug("ioqos: reloaded %s", g.config);
	return 0;
}
