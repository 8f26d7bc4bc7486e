/* measured.c — a measured curve on the plot grid (measured.h). */
#include "render/measured.h"

#include <math.h>

#include "render/plot.h"

void measured_rows(const int64_t *meas, int T, int steps, int w, int h, int64_t top, int *rows)
{
    for (int c = 0; c < w; c++) {
        int t = plot_step_of_col(c, steps, w);
        if (t < 0 || t >= T || top <= 0) {
            rows[c] = -1;
            continue;
        }
        /* row r covers values (top*(h-r-1)/h, top*(h-r)/h] */
        double f = (double)meas[t] / (double)top;
        int r = h - (int)ceil(f * h);
        if (r < 0)
            r = 0;
        if (r > h - 1)
            r = h - 1;
        rows[c] = r;
    }
}

double measured_diff(int64_t measured_peak, int64_t simulated_peak)
{
    if (simulated_peak <= 0)
        return 0;
    return (double)(measured_peak - simulated_peak) / (double)simulated_peak;
}

