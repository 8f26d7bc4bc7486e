/* sweep.c — budgets over a range and timed solves over them (sweep.h). */
#include "src/session/sweep.h"

#include <string.h>

#include "src/base/clock.h"

void sweep_budgets(int64_t lo, int64_t hi, int n, int64_t *out)
{
    if (n == 1) {
        out[0] = lo;
        return;
    }
    for (int i = 0; i < n; i++)
        out[i] = lo + (int64_t)((double)(hi - lo) * i / (n - 1) + 0.5);
    out[n - 1] = hi;
}

int sweep_point(Solver *s, int64_t budget, const Plan *prev, SweepPoint *pt, Progress *p)
{
    memset(pt, 0, sizeof *pt);
    plan_init(&pt->plan);
    pt->budget = budget;
    err_clear(&pt->err);
    double t0 = clock_now();
    pt->rc = solver_plan(s, budget, prev, &pt->plan, p, &pt->err);
    pt->secs = clock_now() - t0;
    pt->has_plan = (pt->rc == ERR_OK || pt->rc == ERR_OVER_BUDGET) && pt->plan.T > 0;
    return pt->rc;
}

int sweep_run(const Graph *g, const SolverClass *cls, const SolverOpts *opts, const int64_t *budgets,
              int n, SweepPoint *pts, Progress *p, atomic_int *at, Err *e)
{
    for (int i = 0; i < n; i++) {
        memset(&pts[i], 0, sizeof pts[i]);
        plan_init(&pts[i].plan);
        pts[i].budget = budgets[i];
    }
    Solver *s = solver_new_cancellable(cls, g, opts, p, e);
    if (!s)
        return e->code ? e->code : ERR_INVALID;
    const Plan *prev = NULL;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (progress_cancelled(p)) {
            rc = ERR_CANCELLED;
            break;
        }
        if (at)
            atomic_store(at, i);
        plan_done(&pts[i].plan);
        if (sweep_point(s, budgets[i], prev, &pts[i], p) == ERR_CANCELLED) {
            rc = ERR_CANCELLED;
            break;
        }
        if (pts[i].has_plan)
            prev = &pts[i].plan;
    }
    solver_free(s);
    return rc;
}

void sweep_points_done(SweepPoint *pts, int n)
{
    for (int i = 0; i < n; i++)
        plan_done(&pts[i].plan);
}
