/* checkmate.h — what the Checkmate solvers offer beyond the solver
 * interface: the LP bound the explorer and `remat solve --bound` show next
 * to every plan. */
#ifndef REMAT_CHECKMATE_H
#define REMAT_CHECKMATE_H

#include <stdint.h>

#include "src/graph/graph.h"
#include "src/plan/solver.h"

/* Largest graph (non-input nodes) the LP bound is computed for: its model
 * grows with the square of the nodes. */
#define CHECKMATE_LP_MAX_NODES 400

/* The optimum of the LP relaxation of Checkmate's MILP on the graph's own
 * order for budget: no schedule in Checkmate's model (frontier-advancing
 * stages on that order) costs less. A schedule in another order can. Runs
 * CLP in a child process (stoppable through p, at most `seconds`).
 * ERR_OK with *bound; ERR_OVER_BUDGET when even the relaxation has no
 * solution (no schedule of that model fits); ERR_LIMIT for graphs above
 * CHECKMATE_LP_MAX_NODES or past the time; ERR_CANCELLED. */
int checkmate_lp_bound(const Graph *g, int64_t budget, double seconds, Progress *p, double *bound,
                       Err *e);

/* A lower bound on the cost of every plan within budget whose first runs
 * follow order[0..n) (every running node once, topological), for graphs
 * of any size: per step, what must be freed, covered by the values it
 * could drop and recompute later (cover.c says why it holds and how
 * close it is); on orders of at most ORDER_SEARCH_MAX nodes the order's
 * optimum itself when the order search finishes in time. CBC solves the
 * cover in a child process (stoppable through p); past its time its best
 * possible value stands, still a bound. Where the cascade rows
 * (cascade_bound) can have a second or more after it, the cover gets a
 * fifth of `seconds` and the cascade the rest, starting from the cover's
 * choice; with less, the cover takes what it needs and the cascade what
 * is left (from 0.1 s); the larger value is the bound. *whole (may be NULL) says
 * whether the cascade gave one (or was not needed).
 * ERR_OK with *bound; ERR_OVER_BUDGET (message names the node) when some
 * step cannot fit in that order at all; ERR_LIMIT when neither gave
 * anything in time; ERR_CANCELLED; ERR_IO. */
/* Seconds the explorer's compare view and `remat solve --bound` give a
 * cover bound (most take well under one). */
#define COVER_BOUND_SECONDS 10

int cover_bound(const Graph *g, const int *order, int n, int64_t budget, double seconds, Progress *p,
                double *bound, int *whole, Err *e);

/* The cover bound's rows made stronger by what a rerun needs (cascade.c
 * says how): the least extra cost over order[0..n)'s own into *extra (an
 * LP's, so it may sit below the cover's MILP where few values choose).
 * hint (n positions, may be NULL): a choice of values to run again, the
 * cover's, whose broken steps start the rounds. xout (n, may be NULL):
 * the last LP's x, how much each position runs again, when ERR_OK. Same
 * statuses as cover_bound. */
int cascade_bound(const Graph *g, const int *order, int n, int64_t budget, double seconds, Progress *p,
                  const unsigned char *hint, double *extra, double *xout, Err *e);

/* A plan in the graph's order from the cascade LP's choice at model
 * budget mb: the values it runs again by at least a threshold (falling:
 * 0.5, 0.2, 0.05) are dropped and run again as the cover's plan does
 * (cover_plan), or dropped only when memory runs over `budget` by a
 * greedy walk (greedy_ranked); the cheapest within `budget` into out
 * (simulated, tidied), else the lowest peak, and the LP's bound on the
 * graph's order at mb in *bound (-1: none), told to p's listener
 * (progress_bound) when mb is the budget, before the rounding. ERR_OK; ERR_LIMIT when the LP
 * gave nothing in `seconds` or no memory must be freed at mb;
 * ERR_OVER_BUDGET, ERR_CANCELLED, ERR_IO. */
int cascade_plan_at(const Graph *g, int64_t budget, int64_t mb, double seconds, Progress *p, Plan *out,
                    double *bound, Err *e);

/* cascade_plan_at at the budget and, while no rounding fits (the reruns'
 * own steps lift the peak: no row sees them), again at lower model
 * budgets, as cover_plan's rounds; once one fits, at budgets halfway back
 * (the rounding is not monotone in mb), then 1, 2, 4 ... % of the budget
 * below the lowest fit while the plans fit. The first LP has `seconds`,
 * the later rounds what is left of `more` (at most `seconds`) from the
 * start: a large graph's first LP may take longer than its rounds are
 * worth (llama_8k at 25 %: 9 s). The best plan into out, the bound at the
 * budget into *bound; each cheaper plan within the budget is offered to
 * p's listener as the rounds find it (progress_offer, origin "cascade").
 * The same statuses as cascade_plan_at's at the budget; a later round's
 * failure ends the rounds. */
int cascade_plan(const Graph *g, int64_t budget, double seconds, double more, Progress *p, Plan *out, double *bound,
                 Err *e);

/* A plan in the graph's order from the cover's choice (cover.c says how):
 * its steps into out, with out->peak and out->cost simulated, the lowest
 * peak found when none fits the budget, and the graph order's cover bound
 * at the budget in *bound (-1: none). Shares `seconds` over its rounds.
 * ERR_OK, ERR_OVER_BUDGET when a step cannot fit in the order, ERR_LIMIT,
 * ERR_CANCELLED, ERR_IO. */
int cover_plan(const Graph *g, int64_t budget, double seconds, Progress *p, Plan *out, double *bound, Err *e);

/* The cover bound over plans whose first runs follow the graph's order or
 * the order of steps[0..T) (that plan's, when it differs): the smaller of
 * the two orders' bounds, so it holds for the plan and for everything in
 * Checkmate's model on the graph's order. graph_bound > 0 is the graph
 * order's bound at this budget, known already (not solved again).
 * `seconds` is shared; *whole (may be NULL) as cover_bound's, for the
 * orders solved here. ERR_OK with *bound; ERR_UNSUPPORTED when the plan
 * leaves a node out; ERR_OVER_BUDGET when neither order fits; ERR_LIMIT;
 * ERR_CANCELLED; ERR_IO. */
int cover_bound_plan(const Graph *g, const int *steps, int T, int64_t budget, double graph_bound, double seconds,
                     Progress *p, double *bound, int *whole, Err *e);

/* The most nodes an order may have for order_search (its held sets are
 * 64-bit masks). */
#define ORDER_SEARCH_MAX 64

/* The cheapest plan within budget whose first runs follow order[0..n)
 * (every running node once, topological), found exactly by an A* search
 * over what is held (order_search.c says how), for orders of at most 64
 * nodes: its steps into out (not simulated) and its cost into *cost, when
 * that cost is at most cutoff (INFINITY: any). It includes every plan of
 * Checkmate's model on the order, so it is never dearer than the model's
 * optimum. ERR_OK; ERR_OVER_BUDGET when no such plan exists (proven);
 * ERR_LIMIT past `seconds`, past max_states states or above 64 nodes;
 * ERR_CANCELLED. */
int order_search(const Graph *g, const int *order, int n, int64_t budget, double cutoff, double seconds,
                 long long max_states, Progress *p, Plan *out, double *cost, Err *e);

/* checkmate's solve (a solver of class "checkmate", its own options) with
 * `start` as CBC's warm start and the source of the best plan's order, in
 * place of its warm= portfolio: the auto portfolio hands it its pool's best
 * plan. Like a solve, it returns the plan's steps: each order's plan was
 * simulated by the spec and is within the budget, and the caller
 * simulates the answer (as solver_plan does; auto's pool does). */
int checkmate_solve_from(Solver *s, int64_t budget, const Plan *start, Plan *out, Progress *p, Err *e);

#endif
