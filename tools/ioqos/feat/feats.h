/* SPDX-License-Identifier: MIT */
/*
 * The features of fio's options that the loop runs (run/feat.h), in the
 * order their hooks are called.
 */
#ifndef IOQOS_FEATS_H
#define IOQOS_FEATS_H

#include "run/feat.h"

/* NULL-terminated, for run_opts.features */
extern const struct feat_ops *const feat_table[];

#endif
