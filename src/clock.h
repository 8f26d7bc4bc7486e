/* clock.h — the one clock: seconds on CLOCK_MONOTONIC, for time limits,
 * deadlines and measured durations everywhere. */
#ifndef REMAT_CLOCK_H
#define REMAT_CLOCK_H

double clock_now(void);

#endif
