/* SPDX-License-Identifier: MIT */
/* `ioqos check`'s description of a job (describe.c) */
#ifndef IOQOS_DESCRIBE_H
#define IOQOS_DESCRIBE_H

#include "job/jobfile.h"

/* print what job @j does, a few indented lines, on stdout */
void job_describe(const struct job *j);

#endif
