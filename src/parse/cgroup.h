/* SPDX-License-Identifier: MIT */
/*
 * cgroup v2 syntax in config files (cgroup.c): lines pasted from io.max and
 * io.weight, translated into the loader's own syntax before it parses them.
 */
#ifndef IOQOS_CGROUP_H
#define IOQOS_CGROUP_H

#include <stddef.h>

/* the loader's limits (settings_int.h checks that they agree) */
#define IOQOS__CG_LINE_MAX 4096              /* longest config line, bytes */

/*
 * Translate the cgroup forms of config @buf (@len bytes, named @qname in
 * messages, already quoted) into the loader's syntax, line for line, so
 * that the loader's messages keep their line numbers.  Returns 0 with *out
 * NULL when the config has no cgroup form (load @buf as it is), 0 with
 * *out a malloc'd buffer of *outlen bytes to load instead, or -EINVAL /
 * -ENOMEM with a one-line message "NAME:LINE: ..." in @err.
 */
int ioqos__cgroup_translate(const char *qname, const char *buf, size_t len,
			    char **out, size_t *outlen, char *err,
			    size_t errlen);

#endif
