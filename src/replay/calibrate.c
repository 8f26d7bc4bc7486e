/* calibrate.c — a graph's workspaces from a replay (calibrate.h). */
#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"
#include "src/replay/calibrate.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int calibrate_workspaces(const Graph *g, const Plan *p, const Replay *r, int64_t *extra, int64_t *floor,
                         Err *e)
{
    memset(extra, 0, (size_t)g->n * sizeof *extra);
    *floor = 0;
    if (r->T != p->T)
        return err_set(e, ERR_INVALID, "the replay has %d steps, the plan %d: it is a replay of another plan",
                       r->T, p->T),
               -1;
    if (r->simulated_peak != p->peak)
        return err_set(e, ERR_INVALID,
                       "the replay simulated a peak of %lld, the plan has %lld: it is a replay of another plan",
                       (long long)r->simulated_peak, (long long)p->peak),
               -1;
    if (p->T == 0)
        return 0;
    int64_t *ex = xmalloc((size_t)p->T * sizeof *ex);
    for (int t = 0; t < p->T; t++) {
        int64_t d = r->steps[t].measured - r->steps[t].simulated;
        ex[t] = d > 0 ? d : 0;
    }
    int64_t *sorted = xmalloc((size_t)p->T * sizeof *sorted);
    memcpy(sorted, ex, (size_t)p->T * sizeof *sorted);
    qsort(sorted, (size_t)p->T, sizeof *sorted, cmp_i64);
    *floor = sorted[p->T / 2];
    free(sorted);
    int64_t keep = p->peak / 1000 > ((int64_t)1 << 20) ? p->peak / 1000 : (int64_t)1 << 20;
    int given = 0;
    for (int t = 0; t < p->T; t++) {
        int v = p->steps[t];
        int64_t w = ex[t] - *floor;
        if (w > keep && w > extra[v]) {
            given += extra[v] == 0;
            extra[v] = w;
        }
    }
    free(ex);
    return given;
}

Graph *graph_with_extra_workspace(const Graph *g, const int64_t *extra, Err *e)
{
    int64_t total = 0;
    for (int v = 0; v < g->n; v++) {
        int64_t w = g->nodes[v].workspace + extra[v];
        if (extra[v] < 0 || w > GRAPH_SIZE_MAX) {
            err_set(e, ERR_INVALID, "node '%s': a workspace of %lld bytes is outside 0..2^53", g->nodes[v].id,
                    (long long)w);
            return NULL;
        }
        total += g->nodes[v].size + w; /* each term < 2^54: no overflow before the check */
        if (total >= GRAPH_TOTAL_MAX) {
            err_set(e, ERR_INVALID, "node '%s': the sizes and workspaces up to it sum to 2^62 or more",
                    g->nodes[v].id);
            return NULL;
        }
    }
    Graph *c = graph_clone(g);
    for (int v = 0; v < g->n; v++)
        c->nodes[v].workspace += extra[v];
    return c;
}
