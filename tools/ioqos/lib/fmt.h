/* SPDX-License-Identifier: MIT */
/* Figures in few characters, as fio's reports write them (fmt.c). */
#ifndef IOQOS_FMT_H
#define IOQOS_FMT_H

#include <stdbool.h>
#include <stddef.h>

/* fio-style "1.5MiB/s" and friends */
void fmt_bytes(char *buf, size_t len, double v, bool si);
/* "1863k" and friends */
void fmt_count(char *buf, size_t len, double v);

#endif
