/* fit.c — largest batch multiplier that fits a memory size, with and
 * without recomputation. Peaks grow monotonically with the multiplier, so
 * both searches are bisections over integers. */
#include "src/fit.h"

#include <math.h>
#include <string.h>

#include "src/sim.h"
#include "src/xalloc.h"

void fit_result_init(FitResult *r)
{
    memset(r, 0, sizeof *r);
    plan_init(&r->plan);
}

void fit_result_done(FitResult *r)
{
    plan_done(&r->plan);
    fit_result_init(r);
}

/* 1 if the solver fits memory at multiplier b (plan kept in out), 0 if
 * not, negative error code otherwise. */
static int try_b(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t memory,
                 double max_overhead, int b, Plan *out, Progress *p, Err *e)
{
    /* a multiplier whose figures leave the graph limits cannot fit either */
    Graph *gb = graph_scaled(g, b, NULL);
    if (!gb)
        return 0;
    if (graph_min_peak(gb, NULL) > memory) {
        graph_free(gb);
        return 0;
    }
    Solver *s = solver_new(cls, gb, opts, e);
    if (!s) {
        graph_free(gb);
        return -(e->code ? e->code : ERR_INVALID);
    }
    Plan pl;
    plan_init(&pl);
    int rc = solver_plan(s, memory, NULL, &pl, p, e);
    int ok = 0;
    if (rc == ERR_OK)
        ok = max_overhead < 0 || plan_overhead(&pl) <= max_overhead + 1e-12;
    else if (rc != ERR_OVER_BUDGET)
        ok = -rc;
    if (ok == 1) {
        plan_copy(out, &pl);
    }
    plan_done(&pl);
    solver_free(s);
    graph_free(gb);
    return ok;
}

int fit_batch(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t memory,
              double max_overhead, int b_max, FitResult *out, Progress *p, Err *e)
{
    fit_result_init(out);
    /* without recomputation the curve is params + b * (the rest), and the
     * peak step does not move with b: one simulation answers it */
    Graph *g1 = graph_clone(g);
    int64_t peak1, params = 0;
    double c1;
    sim_baseline(g1, &peak1, &c1);
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_INPUT && strcmp(g->nodes[v].op, "param") == 0)
            params += g->nodes[v].size;
    int64_t act = peak1 - params;
    if (act > 0 && memory > params) {
        int64_t b = (memory - params) / act;
        out->b_plain = b > b_max ? b_max : (int)b;
        out->peak_plain = params + out->b_plain * act;
        if (!out->b_plain)
            out->peak_plain = 0;
    }
    graph_free(g1);
    /* with recomputation: grow until it fails, then bisect */
    int lo = 0, hi = 1;
    Plan tmp;
    plan_init(&tmp);
    for (;;) {
        if (progress_cancelled(p)) {
            plan_done(&tmp);
            return err_set(e, ERR_CANCELLED, "fit: cancelled");
        }
        int r = try_b(g, cls, opts, memory, max_overhead, hi, &tmp, p, e);
        if (r < 0) {
            plan_done(&tmp);
            return -r;
        }
        if (!r)
            break;
        lo = hi;
        plan_copy(&out->plan, &tmp);
        if (hi >= b_max)
            break;
        hi = hi * 2 > b_max ? b_max : hi * 2;
    }
    if (lo < b_max)
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            int r = try_b(g, cls, opts, memory, max_overhead, mid, &tmp, p, e);
            if (r < 0) {
                plan_done(&tmp);
                return -r;
            }
            if (r) {
                lo = mid;
                plan_copy(&out->plan, &tmp);
            } else {
                hi = mid;
            }
        }
    plan_done(&tmp);
    out->b_remat = lo;
    if (lo) {
        out->peak_remat = out->plan.peak;
        out->overhead_remat = plan_overhead(&out->plan);
    }
    return ERR_OK;
}
