/* json_util.h — small helpers shared by the JSON readers and writers:
 * exact integer and number formatting, checked field access with JSON-path
 * error messages, and parse-error positions as line:column. */
#ifndef REMAT_JSON_UTIL_H
#define REMAT_JSON_UTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "src/err.h"

/* Parse text (len bytes + NUL), rejecting trailing garbage. On failure sets
 * "FNAME:LINE:COL: invalid JSON near '...'" and returns NULL. */
cJSON *json_parse(const char *text, size_t len, const char *fname, Err *e);

/* Raw JSON numbers that print exactly (cJSON would print large ints as %g). */
cJSON *json_int(int64_t v);
cJSON *json_num(double v);

/* Read a non-negative integer field (<= 2^53). Missing: *out = def, ok.
 * Wrong type, fraction, negative or too large: ERR_INVALID naming path. */
int json_get_size(const cJSON *obj, const char *key, int64_t def, int64_t *out,
                  const char *fname, const char *path, Err *e);
/* Finite non-negative number field. */
int json_get_cost(const cJSON *obj, const char *key, double def, double *out,
                  const char *fname, const char *path, Err *e);
/* String field; missing gives def (may be NULL). Wrong type is an error. */
int json_get_str(const cJSON *obj, const char *key, const char *def, const char **out,
                 const char *fname, const char *path, Err *e);

/* Format a number the way the writers do: integers without a fraction. */
void json_format_num(double v, char *buf, size_t n);

#endif
