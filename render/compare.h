/* compare.h — the explorer's compare view without a terminal: one
 * solver's row of the table, and the trade-off chart of peak against cost
 * over a budget sweep. Pure functions of their inputs. */
#ifndef REMAT_COMPARE_H
#define REMAT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "src/plan/solver.h"

/* One solver's answer at one budget, as the Compare view lists it. */
typedef struct CompareRow {
    const SolverClass *cls;
    int rc;                 /* ERR_OK, ERR_OVER_BUDGET, or its refusal */
    char msg[1024];         /* the refusal / error message when rc != OK */
    int64_t peak;           /* simulated peak (when a plan came back) */
    double overhead;        /* cost overhead over the baseline (0.2 = +20 %) */
    double cost;            /* the plan's compute cost */
    double secs;            /* prepare + solve wall time */
    int has_plan;
} CompareRow;

/* One line for a row, its columns aligned with every row of one table:
 * "NAME  peak P  cost +O%  S s", then "gap +G%" (the cost over a lower
 * bound on the cost of plans within the budget) when bound_cost > 0 ("gap
 * -" when it is 0 or the plan is over the budget; no column when it is
 * < 0), then "OVER budget" when the peak is above budget (-1: none);
 * or "NAME refused: msg". name_w is the width of the name column. The peak
 * has the digits it needs not to read as equal to the budget. */
void compare_row_text(const CompareRow *r, int64_t budget, double bound_cost, int name_w, char *buf,
                      size_t n);

/* One point of the trade-off chart. */
typedef struct TradeoffPoint {
    int has_plan;
    int64_t peak;
    double overhead;
} TradeoffPoint;

/* Trade-off chart: w*h chars (row 0 on top) with '*' at each point's
 * (overhead on x from 0 to the largest, peak on y from lo to hi); points
 * without a plan are skipped. Returns the number of points drawn. */
int tradeoff_grid(const TradeoffPoint *pts, int n, int64_t lo, int64_t hi, int w, int h, char *grid);

#endif
