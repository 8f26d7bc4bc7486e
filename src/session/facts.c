/* facts.c — the figures of a shown plan, computed once (facts.h). */
#include "src/session/facts.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

static const Graph *facts_g;
static const int *facts_runs;

static int by_extra(const void *a, const void *b)
{
    int u = *(const int *)a, v = *(const int *)b;
    double eu = (facts_runs[u] - 1) * facts_g->nodes[u].cost;
    double ev = (facts_runs[v] - 1) * facts_g->nodes[v].cost;
    return eu < ev ? 1 : eu > ev ? -1 : u - v;
}

void facts_done(PlanFacts *f)
{
    free(f->runs);
    free(f->first_step);
    free(f->rerun);
    free(f->recomputed);
    free(f->alive_peak);
    memset(f, 0, sizeof *f);
}

void facts_compute(PlanFacts *f, const Graph *g, const Plan *p, const Sim *sim)
{
    facts_done(f);
    f->runs = xcalloc((size_t)g->n + 1, sizeof *f->runs);
    f->first_step = xmallocarray((size_t)g->n + 1, sizeof *f->first_step);
    f->rerun = xcalloc((size_t)p->T + 1, 1);
    for (int v = 0; v < g->n; v++)
        f->first_step[v] = -1;
    for (int t = 0; t < p->T; t++) {
        int v = p->steps[t];
        if (f->runs[v]++) {
            f->rerun[t] = 1;
            f->n_rerun_steps++;
            f->extra_cost += g->nodes[v].cost;
        } else {
            f->first_step[v] = t;
        }
    }
    f->recomputed = xmallocarray((size_t)g->n + 1, sizeof *f->recomputed);
    for (int v = 0; v < g->n; v++)
        if (f->runs[v] > 1)
            f->recomputed[f->n_recomputed++] = v;
    facts_g = g;    /* qsort has no context argument; UI thread only */
    facts_runs = f->runs;
    qsort(f->recomputed, (size_t)f->n_recomputed, sizeof *f->recomputed, by_extra);
    f->alive_peak = xcalloc((size_t)g->n + 1, 1);
    LiveValue *lv;
    int n = sim->peak_step >= 0 ? sim_live_at(g, p->steps, sim, sim->peak_step, &lv) : -1;
    for (int i = 0; i < n; i++)
        if (lv[i].reason != LIVE_WORKSPACE)
            f->alive_peak[lv[i].node] = 1;
    if (n >= 0)
        free(lv);
}

