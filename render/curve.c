/* curve.c — ASCII memory curve for the command line and the fallback UI. */
#include "render/curve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/units.h"
#include "src/base/xalloc.h"

int curve_column(int t, int T, int width)
{
    if (T <= width)
        return t;
    return (int)((int64_t)t * width / T);
}

char *curve_ascii(const int64_t *mem, int T, int width, int height, int64_t budget)
{
    if (width < 8)
        width = 8;
    if (height < 3)
        height = 3;
    int cols = T < width ? (T > 0 ? T : 1) : width;
    int64_t *colmax = xcalloc((size_t)cols, sizeof *colmax);
    int64_t top = budget > 0 ? budget : 1;
    for (int t = 0; t < T; t++) {
        int c = curve_column(t, T, cols);
        if (mem[t] > colmax[c])
            colmax[c] = mem[t];
        if (mem[t] > top)
            top = mem[t];
    }
    const int label = 11;
    size_t cap = (size_t)(height + 2) * (size_t)(cols + label + 4) + 256;
    char *out = xmalloc(cap);
    size_t u = 0;
    for (int r = height; r >= 1; r--) {
        /* row r covers (top*(r-1)/height, top*r/height] */
        int64_t hi = (int64_t)((double)top * r / height);
        int64_t lo = (int64_t)((double)top * (r - 1) / height);
        char lab[32] = "";
        if (r == height || r == (height + 1) / 2)
            units_format_bytes(hi, lab, sizeof lab);
        u += (size_t)snprintf(out + u, cap - u, "%*s |", label - 1, lab);
        int budget_row = budget > 0 && budget > lo && budget <= hi;
        for (int c = 0; c < cols; c++) {
            char ch = ' ';
            if (colmax[c] > lo)
                ch = '#';
            else if (budget_row)
                ch = '-';
            out[u++] = ch;
        }
        out[u++] = '\n';
    }
    u += (size_t)snprintf(out + u, cap - u, "%*s +", label - 1, "0 B");
    for (int c = 0; c < cols; c++)
        out[u++] = '-';
    u += (size_t)snprintf(out + u, cap - u, "\n%*s  step 1 .. %d\n", label - 1, "", T);
    out[u] = '\0';
    free(colmax);
    return out;
}
