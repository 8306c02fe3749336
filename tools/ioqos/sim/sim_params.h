/* SPDX-License-Identifier: MIT */
/*
 * Shared by the three files of the simulated device's parameters:
 * sim_params.c (the presets, the factors), sim_describe.c (the report's
 * line) and sim_load.c (the device files).  The rest of the tree uses
 * sim.h.
 */
#ifndef IOQOS_SIM_PARAMS_H
#define IOQOS_SIM_PARAMS_H

#include <stddef.h>

/* a decimal "2", "1.5", "0.125" (up to 3 decimals, at most 1000000) as
 * thousandths: 0 or -EINVAL (sim_params.c) */
int sim_parse_milli(const char *s, unsigned *milli);

/* append to @buf at *@o, as far as it fits (sim_describe.c) */
void sim_cat(char *buf, size_t len, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
