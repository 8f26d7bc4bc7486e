/* numparse.h — strict decimal numbers for the text formats (DOT attribute
 * values, `p remat2`, Kusumoto's text): what the docs call an integer or a
 * number, and nothing strtod or sscanf would also take (hex, "inf", "nan",
 * leading blanks, a sign, digits cut off at the first letter).
 */
#ifndef REMAT_NUMPARSE_H
#define REMAT_NUMPARSE_H

#include <stdint.h>

enum { NUM_OK = 0, NUM_SYNTAX = -1, NUM_RANGE = 1 };

/* The whole of s is decimal digits with a value in 0..max: NUM_OK and *out.
 * NUM_SYNTAX for anything else ("0x10", "-1", "1.5", "", "12ab"), NUM_RANGE
 * for digits whose value passes max (never wraps). */
int num_parse_int(const char *s, int64_t max, int64_t *out);

/* The whole of s is a non-negative decimal number, digits[.digits][e[+-]digits]
 * (".5" and "5." too), with a value in 0..max: NUM_OK and *out; NUM_SYNTAX or
 * NUM_RANGE as above. */
int num_parse_real(const char *s, double max, double *out);

#endif
