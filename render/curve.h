/* curve.h — the memory-over-time curve as text: a column per group of
 * steps (the column's maximum, so the peak is never hidden), rows from 0 to
 * the top of the scale, the budget as a row of '-' where it crosses.
 * Pure output: no terminal handling. */
#ifndef REMAT_CURVE_H
#define REMAT_CURVE_H

#include <stdint.h>

/* Text chart (rows joined by '\n', caller frees) of mem[0..T), width
 * columns and height rows of plot plus a labelled axis. budget < 0: none. */
char *curve_ascii(const int64_t *mem, int T, int width, int height, int64_t budget);

/* Map T steps onto width columns: column of step t. */
int curve_column(int t, int T, int width);

#endif
