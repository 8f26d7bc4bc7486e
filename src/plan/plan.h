/* plan.h — a plan: the schedule a solver chose, with the figures the
 * simulator derives from it (never the solver's own claims).
 *
 * The caller owns a Plan: plan_init/plan_done for one embedded in another
 * struct, plan_push to append steps. plan_evaluate fills peak, cost and the
 * baseline figures through sim.c. The remat-plan JSON reader and writer
 * live here too (spec §2).
 */
#ifndef REMAT_PLAN_H
#define REMAT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "src/graph/graph.h"

#define PLAN_NO_BUDGET ((int64_t)-1)
/* A budget asked as `min`: the tightest one the solver reaches
 * (service_tightest); never a plan's own budget. */
#define PLAN_TIGHTEST ((int64_t)-2)

typedef struct Plan {
    char *graph;            /* graph name; owned */
    char *solver;           /* solver name; owned */
    char *origin;           /* the solver whose schedule this is when not `solver`
                             * (a portfolio's winner); owned, NULL otherwise */
    int64_t budget;         /* PLAN_NO_BUDGET when none */
    int *steps;             /* node indices, T of them */
    int T, cap;
    /* derived by plan_evaluate (or read from a file, then checked) */
    int64_t peak;
    double cost;
    int64_t baseline_peak;
    double baseline_cost;
    int peak_step;
    int recomputations;
    /* from solvers that prove things (the MILP, the LP bound): a lower
     * bound on the cost of every schedule their model allows within the
     * budget (< 0: none), and whether the plan is proven optimal in it */
    double bound;
    int optimal;
} Plan;

void plan_init(Plan *p);
void plan_done(Plan *p);
void plan_reset(Plan *p);                       /* drop steps, keep names */
void plan_push(Plan *p, int node);
/* plan_reset, then steps[0..T) copied in. */
void plan_set_steps(Plan *p, const int *steps, int T);
void plan_set_names(Plan *p, const char *graph, const char *solver);
/* Set (copy) or clear (NULL) origin. */
void plan_set_origin(Plan *p, const char *origin);
void plan_copy(Plan *dst, const Plan *src);     /* dst is overwritten */
/* Exchange the schedules of a and b, leaving names, budget and figures:
 * how a solver keeps its best trial without losing what solver_plan set. */
void plan_swap_steps(Plan *a, Plan *b);

/* Simulate p on g and store the figures in p. ERR_INVALID (with the
 * simulator's message) when the schedule is invalid. */
int plan_evaluate(Plan *p, const Graph *g, Err *e);
/* The same with the baseline figures already known (a solver keeps them),
 * and the simulation handed to the caller in *keep (NULL: dropped; the
 * caller sim_done()s it), so nothing is simulated twice. */
struct Sim;
int plan_evaluate_with(Plan *p, const Graph *g, int64_t base_peak, double base_cost, struct Sim *keep,
                       Err *e);

/* Check a plan read from a file: the schedule is valid and its stated
 * peak/cost (and baseline figures when present) equal the simulated ones.
 * Messages say which figure differs. */
int plan_check(const Plan *p, const Graph *g, Err *e);

/* remat-plan JSON; extra is an optional cJSON object whose items are added
 * to the top level (curve, annotations); ownership of extra passes in. */
struct cJSON;
char *plan_to_json(const Plan *p, const Graph *g, struct cJSON *extra);

/* Read a remat-plan: node ids resolved against g; unknown ids, input nodes
 * and malformed fields are ERR_INVALID naming schedule[i]. Figures the file
 * states are kept as read (peak = -1 when absent) so plan_check can compare. */
int plan_from_json(Plan *p, const Graph *g, const char *text, size_t len, const char *fname,
                   Err *e);
int plan_load(Plan *p, const Graph *g, const char *path, Err *e);

/* Number of distinct nodes run more than once, and extra cost over baseline
 * as a fraction (0.25 = +25 %). */
int plan_recomputed_nodes(const Plan *p, const Graph *g);
double plan_overhead(const Plan *p);

#endif
