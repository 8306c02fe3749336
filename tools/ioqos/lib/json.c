/* SPDX-License-Identifier: MIT */
#include "lib/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

void jw_init(struct jw *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* the length of the well-formed UTF-8 sequence at @p, or 0 */
static size_t utf8_len(const unsigned char *p)
{
	size_t n, k;

	if (*p < 0x80)
		return 1;
	n = *p >= 0xc2 && *p < 0xe0 ? 2 : *p >= 0xe0 && *p < 0xf0 ? 3 :
	    *p >= 0xf0 && *p < 0xf5 ? 4 : 0;
	for (k = 1; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] >= 0xa0) ||
	    (*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] >= 0x90))
		return 0;      /* overlong, surrogate or beyond U+10FFFF */
	return n;
}

/* @s with every byte that is not part of valid UTF-8 as U+FFFD (malloc'd) */
static char *utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(strlen(s) * 3 + 1), *o = out;
	size_t n;

	if (!out)
		return NULL;
	while (*p) {
		n = utf8_len(p);
		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

/* put @v into the open container (an object under @key, an array, or the top) */
static void add_ex(struct jw *j, const char *key, struct json_object *v, unsigned flags)
{
	struct json_object *top = j->depth ? j->open[j->depth - 1] : NULL;
	char *k;

	if (!top) {
		json_object_put(j->open[0]);
		j->open[0] = v;
		j->depth = 0;
		return;
	}
	if (json_object_is_type(top, json_type_array)) {
		json_object_array_add(top, v);
		return;
	}
	k = utf8_clean(key ? key : "");
	json_object_object_add_ex(top, k ? k : "", v, flags);
	free(k);
}

static void add(struct jw *j, const char *key, struct json_object *v)
{
	add_ex(j, key, v, 0);
}

static void open_(struct jw *j, const char *key, struct json_object *c)
{
	if (!j->depth && !j->open[0]) {
		j->open[0] = c;
		j->depth = 1;
		return;
	}
	add(j, key, c);
	if (j->depth < JW_DEPTH_MAX)
		j->open[j->depth++] = c;
}

void jw_obj_open(struct jw *j, const char *key)
{
	open_(j, key, json_object_new_object());
}

void jw_arr_open(struct jw *j, const char *key)
{
	open_(j, key, json_object_new_array());
}

void jw_obj_close(struct jw *j)
{
	if (j->depth)
		j->depth--;
}

void jw_arr_close(struct jw *j)
{
	jw_obj_close(j);
}

void jw_str(struct jw *j, const char *key, const char *v)
{
	char *c = utf8_clean(v ? v : "");

	add(j, key, json_object_new_string(c ? c : ""));
	free(c);
}

void jw_str_again(struct jw *j, const char *key, const char *v)
{
	char *c = utf8_clean(v ? v : "");

	/* json-c keeps a key it is told is new beside one of the same name */
	add_ex(j, key, json_object_new_string(c ? c : ""), JSON_C_OBJECT_ADD_KEY_IS_NEW);
	free(c);
}

void jw_u64(struct jw *j, const char *key, uint64_t v)
{
	add(j, key, json_object_new_uint64(v));
}

void jw_i64(struct jw *j, const char *key, int64_t v)
{
	add(j, key, json_object_new_int64(v));
}

void jw_dbl(struct jw *j, const char *key, double v)
{
	char buf[64];

	if (!isfinite(v))
		v = 0;
	snprintf(buf, sizeof(buf), "%.6f", v);
	add(j, key, json_object_new_double_s(v, buf));
}

void jw_bool(struct jw *j, const char *key, bool v)
{
	add(j, key, json_object_new_boolean(v));
}

void jw_end(struct jw *j)
{
	if (j->open[0])
		fputs(json_object_to_json_string_ext(j->open[0], JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_SPACED |
						     JSON_C_TO_STRING_NOSLASHESCAPE), j->f);
	fputc('\n', j->f);
	fflush(j->f);
	json_object_put(j->open[0]);
	j->open[0] = NULL;
	j->depth = 0;
}
