/* clock.h — seconds on the monotonic clock: solve timings, the explorer's
 * debounce and spinners. One definition for every caller. */
#ifndef REMAT_CLOCK_H
#define REMAT_CLOCK_H

/* Seconds since an arbitrary fixed point; never goes backwards. */
double clock_now(void);

#endif
