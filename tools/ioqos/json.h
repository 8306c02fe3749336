/* SPDX-License-Identifier: MIT */
/*
 * A small streaming JSON writer: objects and arrays are opened and closed
 * in order, commas and indentation are the writer's business, strings are
 * escaped, and numbers that are not finite are written as 0 so that the
 * output is always valid JSON.
 */
#ifndef IOQOS_JSON_H
#define IOQOS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_DEPTH_MAX];  /* nothing written yet at this level */
	bool is_obj[JSON_DEPTH_MAX];
};

void json_init(struct json *j, FILE *f);
/* @key is NULL inside arrays and at the top */
void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_dbl(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
/* ends the document with a newline */
void json_end(struct json *j);

#endif
