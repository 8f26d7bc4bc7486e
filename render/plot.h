/* plot.h — the explorer's layout arithmetic, kept free of any terminal so
 * it can be unit-tested: the memory curve as a grid of cells (plan, faint
 * baseline, budget line, peak mark), the step<->column and value<->column
 * mappings of the curve and the budget slider, and axis labels.
 */
#ifndef REMAT_PLOT_H
#define REMAT_PLOT_H

#include <stddef.h>
#include <stdint.h>

enum { PC_EMPTY, PC_PLAN, PC_BASE, PC_BUDGET, PC_PEAK };

typedef struct PlotCell {
    unsigned char kind;     /* PC_* */
    unsigned char eighths;  /* PC_PLAN: 1..8 of the cell filled from below */
    unsigned char over;     /* PC_PLAN: the cell lies above the budget */
} PlotCell;

/* The plan's curve runs over the whole width on its own time axis (T
 * steps), and so does the baseline's (TB steps): a plan with
 * recomputations has more steps than the baseline, and both are drawn
 * from the first step to the last. */
typedef struct PlotInput {
    const int64_t *mem;     /* plan curve, T steps (may be NULL with T 0) */
    int T;
    const int64_t *base;    /* baseline curve, TB steps (may be NULL) */
    int TB;
    int64_t budget;         /* < 0: no budget line */
    int peak_step;          /* step of the plan's peak, -1 none */
} PlotInput;

/* Steps of the plan's time axis: T (TB before there is a plan), at least 1. */
int plot_steps(const PlotInput *in);
/* Top of the value scale: the largest of both curves and the budget plus
 * one row of headroom for the peak mark; at least 1. */
int64_t plot_top(const PlotInput *in, int h);
/* Column of step t when `steps` steps share `w` columns (first column
 * when a step spans several), and the step shown in column c. */
int plot_col_of_step(int t, int steps, int w);
int plot_step_of_col(int c, int steps, int w);
/* Fill cells (w*h, row 0 at the top) for values 0..top. */
void plot_curve(const PlotInput *in, int w, int h, int64_t top, PlotCell *cells);
/* Value at the top edge of row `row` of h; the axis labels every `every`
 * rows from the top (row % every == 0): 1 and buf filled, else 0. */
int64_t plot_row_value(int row, int h, int64_t top);
int plot_axis_label(int row, int h, int64_t top, int every, char *buf, size_t n);
/* Slider of w columns over [lo, hi]: column of value v (clamped) and value
 * of column c (clamped). col_of(value_of(c)) == c whenever hi - lo >= w - 1. */
int plot_slider_col(int64_t v, int64_t lo, int64_t hi, int w);
int64_t plot_slider_value(int c, int64_t lo, int64_t hi, int w);

/* a and b as units_format_bytes prints them, with more decimals when
 * different amounts would print alike ("129 MiB" against "129 MiB"
 * becomes "128.6 MiB" against "129.3 MiB"), exact bytes as the last
 * resort. Equal amounts print alike. */
void plot_bytes_pair(int64_t a, int64_t b, char *abuf, size_t an, char *bbuf, size_t bn);

#endif
