/* sweep.h — one solver over a list of budgets: the budgets spread evenly
 * over a range (one rounding for `remat sweep`, the explorer's trade-off
 * chart and everything else), and at each point the service's final answer
 * (src/session/service.h), the plan `remat solve` gives at that budget.
 */
#ifndef REMAT_SWEEP_H
#define REMAT_SWEEP_H

#include <stdatomic.h>
#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/plan/solver.h"

/* n budgets evenly from lo to hi inclusive, rounded to the nearest byte
 * (lo when n == 1; a caller wanting one point at hi passes lo == hi). */
void sweep_budgets(int64_t lo, int64_t hi, int n, int64_t *out);

/* One point: the budget asked, the answer and its wall time. */
typedef struct SweepPoint {
    int64_t budget;
    int rc;                 /* ERR_OK, ERR_OVER_BUDGET, or the solver's error */
    Err err;
    Plan plan;              /* evaluated when has_plan */
    int has_plan;           /* rc OK, or OVER_BUDGET with the best plan found */
    double secs;
} SweepPoint;

/* The final answer of cls at each budget (one service, so a class without
 * a warm start is prepared once; auto and fastsa solve each point afresh,
 * as `remat solve` does). pts[i] are initialised here; free with
 * sweep_points_done. Returns 0, ERR_CANCELLED, or the error of a solver
 * that refuses the graph (e set, pts empty). *at: the index of the point
 * being solved (may be NULL). */
int sweep_run(const Graph *g, const SolverClass *cls, const SolverOpts *opts, const int64_t *budgets,
              int n, SweepPoint *pts, Progress *p, atomic_int *at, Err *e);
void sweep_points_done(SweepPoint *pts, int n);

#endif
