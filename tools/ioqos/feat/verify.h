/* SPDX-License-Identifier: MIT */
/*
 * fio's verify= for the runner: the data a write carries, the log of the
 * blocks written, and the checks of the reads that come back (verify.c;
 * the bytes of a block: verify_block.c).
 */
#ifndef IOQOS_VERIFY_H
#define IOQOS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/feat.h"

struct runner;
struct stream;
struct io;

/* verify='s hooks in the loop */
extern const struct feat_ops feat_verify;

#endif
