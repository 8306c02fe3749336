/* SPDX-License-Identifier: MIT */
/* Lists of CPU and node ids: "0-3,8", and for nodes "all" and "!LIST"
 * (idlist.c). */
#ifndef IOQOS_IDLIST_H
#define IOQOS_IDLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"

/* id @id in the bit set @bits (IDSET_MAX / 64 words) */
void ids_set(uint64_t *bits, unsigned id);
bool ids_has(const uint64_t *bits, unsigned id);
/* "0-3,8" into @bits (ORed in); 0, or -EINVAL and why, naming @what
 * ("CPU", "node") */
int ids_parse(const char *v, uint64_t *bits, const char *what, char *why,
	      size_t whylen);
/* @bits as a list "0-3,8" into @buf ("none" when empty) */
void ids_format(const uint64_t *bits, char *buf, size_t len);
/* a node list: libnuma's "all", "!LIST" or LIST into @n; 0, or -EINVAL
 * and why */
int nodes_parse(struct idset *n, const char *v, char *why, size_t whylen);

#endif
