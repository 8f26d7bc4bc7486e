/* explore.c — the compare table's rows, the trade-off chart, the
 * measured-curve placement and the per-step allocate/free line behind the
 * explorer's views (see explore.h). No terminal and no solving here. */
#include "render/explore.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/plot.h"
#include "src/base/units.h"
#include "src/base/xalloc.h"

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

void play_step_text(const Graph *g, const int *sched, const Sim *s, int t, char *buf, size_t n)
{
    if (t < 0 || t >= s->T) {
        snprintf(buf, n, "no step %d", t + 1);
        return;
    }
    const Node *v = &g->nodes[sched[t]];
    char sz[32], ws[32];
    units_format_bytes(v->size, sz, sizeof sz);
    size_t u = (size_t)snprintf(buf, n, "step %d/%d runs %s: allocates %s", t + 1, s->T, v->id, sz);
    if (v->workspace > 0 && u < n) {
        units_format_bytes(v->workspace, ws, sizeof ws);
        u += (size_t)snprintf(buf + u, n - u, " (+%s workspace, freed at once)", ws);
    }
    int freed = 0;
    for (int p = 0; p <= t && u < n; p++)
        if (s->held_until[p] == t && !(t == s->T - 1 && g->is_output[sched[p]])) {
            u += (size_t)snprintf(buf + u, n - u, "%s%s", freed ? ", " : "; frees ", g->nodes[sched[p]].id);
            freed++;
        }
    if (!freed && u < n)
        snprintf(buf + u, n - u, "; frees nothing");
}
