/* plot.c — curve cells and the mappings behind the explorer's curve and
 * slider. Column maxima keep the peak visible however many steps share a
 * column. */
#include "render/plot.h"

#include <stdio.h>
#include <string.h>

#include "src/base/units.h"

int plot_steps(const PlotInput *in)
{
    int s = in->T > 0 ? in->T : in->TB;
    return s > 0 ? s : 1;
}

static int64_t max_of(const int64_t *m, int T)
{
    int64_t x = 0;
    for (int t = 0; t < T; t++)
        if (m[t] > x)
            x = m[t];
    return x;
}

int64_t plot_top(const PlotInput *in, int h)
{
    int64_t mx = max_of(in->mem, in->T);
    int64_t b = max_of(in->base, in->TB);
    if (b > mx)
        mx = b;
    if (in->budget > mx)
        mx = in->budget;
    if (h < 1)
        h = 1;
    return mx + mx / h + 1;
}

/* v limited to lo..hi (hi >= lo). */
static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int plot_col_of_step(int t, int steps, int w)
{
    if (steps < 1 || w < 1)
        return 0;
    t = clamp_int(t, 0, steps - 1);
    return (int)((int64_t)t * w / steps);
}

int plot_step_of_col(int c, int steps, int w)
{
    if (steps < 1 || w < 1)
        return 0;
    c = clamp_int(c, 0, w - 1);
    /* the step whose first column is the last one <= c */
    int t = (int)(((int64_t)c * steps + steps - 1) / w);
    while (t > 0 && plot_col_of_step(t, steps, w) > c)
        t--;
    while (t + 1 < steps && plot_col_of_step(t + 1, steps, w) <= c)
        t++;
    return t;
}

/* Largest value over the steps that map to column c (0 if none). */
static int64_t col_max(const int64_t *m, int T, int c, int steps, int w)
{
    int t0 = plot_step_of_col(c, steps, w);
    int64_t x = 0;
    for (int t = t0; t < T && plot_col_of_step(t, steps, w) == plot_col_of_step(t0, steps, w); t++)
        if (m[t] > x)
            x = m[t];
    return x;
}

static int eighths_of(int64_t v, int64_t top, int h)
{
    if (v <= 0)
        return 0;
    long double e = (long double)v * h * 8 / (long double)top;
    int k = (int)(e + 0.5L);
    return k < 1 ? 1 : k;
}

void plot_curve(const PlotInput *in, int w, int h, int64_t top, PlotCell *cells)
{
    int steps = plot_steps(in);
    if (top < 1)
        top = 1;
    int peak_col = in->peak_step >= 0 ? plot_col_of_step(in->peak_step, steps, w) : -1;
    /* counted from the bottom: the row whose upper edge (the value its
     * axis label names) is the first at or above the budget, so the line
     * sits on the row labelled with the budget when one is */
    int budget_row = -1;
    if (in->budget >= 0) {
        long double x = (long double)in->budget * h / (long double)top;
        budget_row = (int)x;
        if ((long double)budget_row == x)
            budget_row--;
        if (budget_row < 0)
            budget_row = 0;
        if (budget_row >= h)
            budget_row = h - 1;
    }
    int over_from = in->budget >= 0 ? eighths_of(in->budget, top, h) : -1;
    for (int c = 0; c < w; c++) {
        int hp = eighths_of(col_max(in->mem, in->T, c, steps, w), top, h);
        int hb = eighths_of(col_max(in->base, in->TB, c, in->TB > 0 ? in->TB : 1, w), top, h);
        for (int rb = 0; rb < h; rb++) {
            PlotCell *pc = &cells[(size_t)(h - 1 - rb) * w + c];
            pc->eighths = 0;
            pc->over = over_from >= 0 && hp > over_from && rb * 8 + 8 > over_from;
            if (hp >= rb * 8 + 8) {
                pc->kind = PC_PLAN;
                pc->eighths = 8;
            } else if (hp > rb * 8) {
                pc->kind = PC_PLAN;
                pc->eighths = (unsigned char)(hp - rb * 8);
            } else if (hb > rb * 8 + 3) {
                pc->kind = PC_BASE;
            } else {
                pc->kind = PC_EMPTY;
            }
            if (pc->kind != PC_PLAN)
                pc->over = 0;
            if (rb == budget_row && pc->kind != PC_PLAN)
                pc->kind = PC_BUDGET;
        }
        if (c == peak_col && in->T > 0) {
            int rb = (hp + 7) / 8;  /* first row above the plan's bar */
            if (rb >= h)
                rb = h - 1;
            PlotCell *pc = &cells[(size_t)(h - 1 - rb) * w + c];
            pc->kind = PC_PEAK;
            pc->eighths = 0;
            pc->over = 0;
        }
    }
}

int64_t plot_row_value(int row, int h, int64_t top)
{
    if (h < 1)
        return 0;
    return (int64_t)((long double)top * (h - row) / h);
}

int plot_axis_label(int row, int h, int64_t top, int every, char *buf, size_t n)
{
    if (every < 1 || row < 0 || row >= h || row % every != 0)
        return 0;
    units_format_bytes(plot_row_value(row, h, top), buf, n);
    /* with few distinct values (sizes of a few bytes) two labelled rows
     * can round to one value: it is written once, on the upper row */
    if (row >= every) {
        char above[64];
        units_format_bytes(plot_row_value(row - every, h, top), above, sizeof above);
        if (!strcmp(above, buf))
            return 0;
    }
    return 1;
}

int plot_slider_col(int64_t v, int64_t lo, int64_t hi, int w)
{
    if (w <= 1 || hi <= lo)
        return 0;
    if (v <= lo)
        return 0;
    if (v >= hi)
        return w - 1;
    long double f = (long double)(v - lo) * (w - 1) / (long double)(hi - lo);
    return (int)(f + 0.5L);
}

int64_t plot_slider_value(int c, int64_t lo, int64_t hi, int w)
{
    if (w <= 1 || hi <= lo || c <= 0)
        return lo;
    if (c >= w - 1)
        return hi;
    long double f = (long double)(hi - lo) * c / (w - 1);
    return lo + (int64_t)(f + 0.5L);
}

static void bytes_decimals(int64_t b, int u, int dec, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)b;
    for (int i = 0; i < u; i++)
        v /= 1024.0;
    snprintf(buf, n, "%.*f %s", dec, v, unit[u]);
}

void plot_bytes_pair(int64_t a, int64_t b, char *abuf, size_t an, char *bbuf, size_t bn)
{
    units_format_bytes(a, abuf, an);
    units_format_bytes(b, bbuf, bn);
    if (a == b || strcmp(abuf, bbuf))
        return;
    int64_t m = a > b ? a : b;
    int u = 0;
    for (double v = (double)m; v >= 1024.0 && u < 5; v /= 1024.0)
        u++;
    for (int dec = 1; u > 0 && dec <= 3; dec++) {
        bytes_decimals(a, u, dec, abuf, an);
        bytes_decimals(b, u, dec, bbuf, bn);
        if (strcmp(abuf, bbuf))
            return;
    }
    snprintf(abuf, an, "%lld B", (long long)a);
    snprintf(bbuf, bn, "%lld B", (long long)b);
}
