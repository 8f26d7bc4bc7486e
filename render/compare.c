/* compare.c — the compare table's rows and the trade-off chart
 * (compare.h). No terminal and no solving here. */
#include "render/compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/plot.h"
#include "src/base/units.h"

void compare_row_text(const CompareRow *r, int64_t budget, double bound_cost, int name_w, char *buf,
                      size_t n)
{
    if (!r->has_plan) {
        snprintf(buf, n, "%-*s refused: %s", name_w, r->cls->name, r->msg[0] ? r->msg : "no plan");
        return;
    }
    char pk[48], bu[48], gap[32] = "";
    plot_bytes_pair(r->peak, budget >= 0 ? budget : r->peak, pk, sizeof pk, bu, sizeof bu);
    int over = r->rc == ERR_OVER_BUDGET || (budget >= 0 && r->peak > budget);
    /* the bound holds for plans within the budget only */
    if (bound_cost > 0 && !over)
        snprintf(gap, sizeof gap, "  gap %+8.1f%%", 100 * (r->cost / bound_cost - 1));
    else if (bound_cost >= 0)
        snprintf(gap, sizeof gap, "  gap %9s", "-");
    snprintf(buf, n, "%-*s peak %12s  cost %+8.1f%%  %8.3fs%s%s", name_w, r->cls->name, pk,
             r->overhead * 100, r->secs, gap, over ? "  OVER budget" : "");
}

int tradeoff_grid(const TradeoffPoint *pts, int n, int64_t lo, int64_t hi, int w, int h, char *grid)
{
    memset(grid, ' ', (size_t)w * (size_t)h);
    if (w < 1 || h < 1)
        return 0;
    double omax = 0;
    for (int i = 0; i < n; i++)
        if (pts[i].has_plan && pts[i].overhead > omax)
            omax = pts[i].overhead;
    int drawn = 0;
    for (int i = 0; i < n; i++) {
        if (!pts[i].has_plan)
            continue;
        double o = pts[i].overhead;
        int c = omax > 0 ? (int)lround(o / omax * (w - 1)) : 0;
        double f = hi > lo ? (double)(pts[i].peak - lo) / (double)(hi - lo) : 0;
        if (f < 0)
            f = 0;
        if (f > 1)
            f = 1;
        int r = (h - 1) - (int)lround(f * (h - 1));
        grid[(size_t)r * w + c] = '*';
        drawn++;
    }
    return drawn;
}

