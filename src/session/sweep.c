/* sweep.c — budgets over a range and timed solves over them (sweep.h). */
#include "src/session/sweep.h"

#include <string.h>

#include "src/session/service.h"

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

int sweep_run(const Graph *g, const SolverClass *cls, const SolverOpts *opts, const int64_t *budgets,
              int n, SweepPoint *pts, Progress *p, atomic_int *at, Err *e)
{
    for (int i = 0; i < n; i++) {
        memset(&pts[i], 0, sizeof pts[i]);
        plan_init(&pts[i].plan);
        pts[i].budget = budgets[i];
    }
    Service *en = service_new(g);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (progress_cancelled(p)) {
            rc = ERR_CANCELLED;
            break;
        }
        if (at)
            atomic_store(at, i);
        Answer a;
        service_answer(en, cls, opts, budgets[i], 0, p, &a);
        SweepPoint *pt = &pts[i];
        pt->rc = a.rc;
        pt->err = a.err;
        pt->secs = a.secs;
        pt->has_plan = a.has_plan;
        if (a.has_plan)
            plan_copy(&pt->plan, &a.plan);
        answer_done(&a);
        if (pt->rc == ERR_CANCELLED) {
            rc = ERR_CANCELLED;
        } else if (!pt->has_plan && pt->rc != ERR_OVER_BUDGET) {
            /* the solver refuses the graph (or failed): say so once */
            *e = pt->err;
            rc = pt->rc;
        }
    }
    service_free(en);
    if (rc && rc != ERR_CANCELLED)
        sweep_points_done(pts, n);
    return rc;
}

void sweep_points_done(SweepPoint *pts, int n)
{
    for (int i = 0; i < n; i++)
        plan_done(&pts[i].plan);
}
