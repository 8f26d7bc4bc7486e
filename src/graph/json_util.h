/* json_util.h — small helpers shared by the JSON readers and writers:
 * exact integer and number formatting, checked field access with JSON-path
 * error messages, and parse-error positions as line:column. */
#ifndef REMAT_JSON_UTIL_H
#define REMAT_JSON_UTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "src/base/err.h"

/* Parse text (len bytes + NUL), rejecting trailing garbage. On failure sets
 * "FNAME:LINE:COL: invalid JSON near '...'" and returns NULL. Also refused:
 * invalid UTF-8 and NUL bytes, "\u0000" inside a string (line:col), and an
 * object with a duplicate key ("FNAME: nodes[3]: duplicate key 'size'").
 * Number items whose double may differ from their literal (integral doubles
 * written with a fraction, an exponent or more than 15 digits) carry the
 * literal in valuestring, for json_get_int; cJSON_Delete frees it. */
cJSON *json_parse(const char *text, size_t len, const char *fname, Err *e);

/* Raw JSON numbers that print exactly (cJSON would print large ints as %g). */
cJSON *json_int(int64_t v);
cJSON *json_num(double v);

/* Largest integer a JSON number holds exactly in every reader (doubles). */
#define JSON_EXACT_MAX ((int64_t)1 << 53)

/* Read an integer field in 0..max exactly as written (on items from
 * json_parse: "9007199254740993" is that number, not 2^53, and
 * "1.0000000000000001" is not an integer). Missing: *out = def, ok. Wrong
 * type, fraction, negative or above max: ERR_INVALID naming path. */
int json_get_int(const cJSON *obj, const char *key, int64_t def, int64_t max, int64_t *out,
                 const char *fname, const char *path, Err *e);
/* The exact integer a number item (from json_parse) is written as: 0 and
 * *out; -1 when it is not a number or not an integer; 1 when it is an
 * integer beyond int64. */
int json_item_int(const cJSON *it, int64_t *out);
/* json_get_int with max JSON_EXACT_MAX: sizes and workspaces. */
int json_get_size(const cJSON *obj, const char *key, int64_t def, int64_t *out,
                  const char *fname, const char *path, Err *e);
/* Finite number field in 0..max. */
int json_get_num(const cJSON *obj, const char *key, double def, double max, double *out,
                 const char *fname, const char *path, Err *e);
/* json_get_num with max GRAPH_COST_MAX: node costs. */
int json_get_cost(const cJSON *obj, const char *key, double def, double *out,
                  const char *fname, const char *path, Err *e);
/* String field; missing gives def (may be NULL). Wrong type is an error. */
int json_get_str(const cJSON *obj, const char *key, const char *def, const char **out,
                 const char *fname, const char *path, Err *e);

/* Format a number the way the writers do: integers without a fraction. */
void json_format_num(double v, char *buf, size_t n);

/* The document as text with a final newline (formatted, or on one line),
 * in memory the caller frees; the document is deleted. */
char *json_print_line(cJSON *root, int formatted);

#endif
