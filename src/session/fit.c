/* fit.c — largest batch multiplier that fits a memory size, with and
 * without recomputation. Peaks grow monotonically with the multiplier, so
 * the solver's search is a bisection over whole steps of a unit; each step
 * is the service's final answer on the scaled graph. */
#include "src/session/fit.h"

#include <math.h>
#include <string.h>

#include "src/plan/sim.h"
#include "src/session/service.h"
#include "src/base/xalloc.h"

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

/* 1 if the solver fits memory at multiplier m (plan kept in out), 0 if
 * not, negative error code otherwise. Each multiplier gets the service's
 * final answer on the scaled graph: what `remat solve` gives there. */
static int try_m(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t memory,
                 double max_overhead, double m, Plan *out, Progress *p, Err *e)
{
    /* a multiplier whose figures leave the graph limits cannot fit either */
    Graph *gb = graph_scaled(g, m, NULL);
    if (!gb)
        return 0;
    if (graph_min_peak(gb, NULL) > memory) {
        graph_free(gb);
        return 0;
    }
    Answer a;
    int rc = service_solve(gb, cls, opts, memory, p, &a);
    int ok = 0;
    if (rc == ERR_OK)
        ok = max_overhead < 0 || plan_overhead(&a.plan) <= max_overhead + 1e-12;
    else if (rc != ERR_OVER_BUDGET)
        ok = -rc;
    if (ok < 0)
        *e = a.err;
    if (ok == 1)
        plan_copy(out, &a.plan);
    answer_done(&a);
    graph_free(gb);
    return ok;
}

/* Without recomputation the curve is params + m * (the rest), and the peak
 * step does not move with m: one simulation answers it. */
static void fit_plain(const Graph *g, int64_t memory, double unit, int b_max, FitResult *out)
{
    int64_t peak1, params = 0;
    double c1;
    sim_baseline(g, &peak1, &c1);
    out->peak_one = peak1;
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_INPUT && strcmp(g->nodes[v].op, "param") == 0)
            params += g->nodes[v].size;
    int64_t act = peak1 - params;
    if (act <= 0 || memory <= params)
        return;
    double m = (double)(memory - params) / (double)act;
    if (m > b_max)
        m = b_max;
    out->m_plain = m;
    int64_t b = (memory - params) / act;
    out->b_plain = b > b_max ? b_max : (int)b;
    out->peak_plain = out->b_plain ? params + out->b_plain * act : 0;
    if (unit < 1)   /* the real answer, in whole units, rounded down */
        out->m_plain = floor(m / unit + 1e-9) * unit;
}

double fit_unit(const Graph *g)
{
    for (int v = 0; v < g->n; v++) {
        const Node *nd = &g->nodes[v];
        int fixed = nd->phase == PHASE_INPUT && strcmp(nd->op, "param") == 0;
        if (!fixed && nd->size > 0 && nd->size < 100)
            return 1;
    }
    return 0.01;
}

int fit_batch_units(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t memory,
                    double max_overhead, double unit, int b_max, FitResult *out, Progress *p, Err *e)
{
    fit_result_init(out);
    if (!(unit > 0) || unit > 1)
        unit = 1;
    fit_plain(g, memory, unit, b_max, out);
    /* with recomputation: k units from multiplier 1, doubling until it
     * fails, then bisect (below 1 when 1 already fails) */
    long kmax = (long)floor(b_max / unit + 1e-9);
    long lo = 0, hi = (long)floor(1 / unit + 1e-9);
    if (hi > kmax)
        hi = kmax;
    Plan tmp;
    plan_init(&tmp);
    int rc = ERR_OK;
    for (;;) {
        if (progress_cancelled(p)) {
            rc = err_set(e, ERR_CANCELLED, "fit: cancelled");
            break;
        }
        int r = try_m(g, cls, opts, memory, max_overhead, hi * unit, &tmp, p, e);
        if (r < 0) {
            rc = -r;
            break;
        }
        if (!r)
            break;
        lo = hi;
        plan_copy(&out->plan, &tmp);
        if (hi >= kmax)
            break;
        hi = hi * 2 > kmax ? kmax : hi * 2;
    }
    while (!rc && lo < kmax && hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        int r = try_m(g, cls, opts, memory, max_overhead, mid * unit, &tmp, p, e);
        if (r < 0) {
            rc = -r;
            break;
        }
        if (r) {
            lo = mid;
            plan_copy(&out->plan, &tmp);
        } else {
            hi = mid;
        }
    }
    plan_done(&tmp);
    if (rc)
        return rc;
    out->m_remat = lo * unit;
    out->b_remat = (int)floor(out->m_remat + 1e-9);
    if (lo) {
        out->peak_remat = out->plan.peak;
        out->overhead_remat = plan_overhead(&out->plan);
    }
    return ERR_OK;
}

int fit_batch(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t memory,
              double max_overhead, int b_max, FitResult *out, Progress *p, Err *e)
{
    return fit_batch_units(g, cls, opts, memory, max_overhead, 1, b_max, out, p, e);
}
