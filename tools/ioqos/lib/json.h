/* SPDX-License-Identifier: MIT */
/*
 * The report's JSON, written through json-c (Debian's libjson-c-dev): the
 * report opens and closes objects and arrays in order and adds values with
 * their keys; json-c builds the tree, escapes the strings and prints it at
 * jw_end().  Strings that are not valid UTF-8 have the bad bytes replaced
 * by U+FFFD and numbers that are not finite are written as 0, so that the
 * output is always valid JSON.
 */
#ifndef IOQOS_JSON_H
#define IOQOS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_DEPTH_MAX 32

struct json_object;

struct jw {
	FILE *f;
	int depth;                                 /* open containers */
	struct json_object *open[JW_DEPTH_MAX];  /* open[0] is the document */
};

void jw_init(struct jw *j, FILE *f);
/* @key is NULL inside arrays and at the top */
void jw_obj_open(struct jw *j, const char *key);
void jw_obj_close(struct jw *j);
void jw_arr_open(struct jw *j, const char *key);
void jw_arr_close(struct jw *j);
void jw_str(struct jw *j, const char *key, const char *v);
/* the same for a key that may repeat one before it: fio lists options as
 * read, "bs" twice when it was given twice */
void jw_str_again(struct jw *j, const char *key, const char *v);
void jw_u64(struct jw *j, const char *key, uint64_t v);
void jw_i64(struct jw *j, const char *key, int64_t v);
void jw_dbl(struct jw *j, const char *key, double v);
void jw_bool(struct jw *j, const char *key, bool v);
/* prints the document, ends it with a newline and frees it */
void jw_end(struct jw *j);

#endif
