/* measured.h — a replay's measured curve placed on the explorer's plot
 * grid, and how far its peak is from the simulated one. */
#ifndef REMAT_MEASURED_H
#define REMAT_MEASURED_H

#include <stddef.h>
#include <stdint.h>

/* Measured curve on the plot: for each of w columns the row (0 on top of
 * h rows over values 0..top) holding meas at the column's step, or -1 when
 * the column has no step of meas (T steps of a `steps`-step axis). */
void measured_rows(const int64_t *meas, int T, int steps, int w, int h, int64_t top, int *rows);
/* Relative difference of the measured peak over the simulated one. */
double measured_diff(int64_t measured_peak, int64_t simulated_peak);

#endif
