/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

static void put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else {
				/* well-formed UTF-8 passes, any other byte is U+FFFD */
				int n = *p >= 0xf0 && *p < 0xf5 ? 3 : *p >= 0xe0 ? 2 :
					*p >= 0xc2 && *p < 0xe0 ? 1 : -1;
				int k;
				for (k = 1; n > 0 && k <= n; k++)
					if ((p[k] & 0xc0) != 0x80)
						break;
				if (n > 0 && k > n &&
				    ((*p == 0xe0 && p[1] < 0xa0) || (*p == 0xed && p[1] >= 0xa0) ||
				     (*p == 0xf0 && p[1] < 0x90) || (*p == 0xf4 && p[1] >= 0x90)))
					n = -1;    /* overlong, surrogate or beyond U+10FFFF */
				if (n < 0 || k <= n || *p > 0xf4) {
					fputs("\\ufffd", f);
				} else {
					fwrite(p, 1, (size_t)n + 1, f);
					p += n;
				}
			}
		}
	}
	fputc('"', f);
}

/* comma, newline, indentation and key before a value */
static void lead(struct json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	if (j->depth && j->is_obj[j->depth]) {
		put_string(j->f, key ? key : "");
		fputs(": ", j->f);
	}
}

static void open_(struct json *j, const char *key, bool obj)
{
	lead(j, key);
	fputc(obj ? '{' : '[', j->f);
	if (j->depth + 1 < JSON_DEPTH_MAX) {
		j->depth++;
		j->first[j->depth] = true;
		j->is_obj[j->depth] = obj;
	}
}

static void close_(struct json *j, bool obj)
{
	bool empty = j->first[j->depth];

	if (j->depth)
		j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(obj ? '}' : ']', j->f);
}

void json_obj_open(struct json *j, const char *key) { open_(j, key, true); }
void json_obj_close(struct json *j) { close_(j, true); }
void json_arr_open(struct json *j, const char *key) { open_(j, key, false); }
void json_arr_close(struct json *j) { close_(j, false); }

void json_str(struct json *j, const char *key, const char *v)
{
	lead(j, key);
	put_string(j->f, v ? v : "");
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void json_dbl(struct json *j, const char *key, double v)
{
	lead(j, key);
	if (!isfinite(v))
		v = 0;
	fprintf(j->f, "%.6f", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
