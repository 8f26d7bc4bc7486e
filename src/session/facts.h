/* facts.h — the figures of the plan the explorer shows, computed once
 * when it is shown and read by every view and the export: how often each
 * node runs, which steps rerun a node, the recomputed nodes by extra cost,
 * the values alive at the peak. */
#ifndef REMAT_FACTS_H
#define REMAT_FACTS_H

#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"

/* Figures of the shown plan, computed once when it is shown and read by
 * every view and the export. */
typedef struct PlanFacts {
    int *runs;              /* g->n: how often each node runs */
    int *first_step;        /* g->n: step of its first run, -1 when it never runs */
    unsigned char *rerun;   /* T: 1 when step t runs its node again (a recomputation) */
    int *recomputed;        /* nodes run more than once, largest extra cost first */
    int n_recomputed;
    int n_rerun_steps;
    double extra_cost;      /* cost of the reruns */
    unsigned char *alive_peak;  /* g->n: 1 when the node's value is alive at the peak step */
} PlanFacts;

/* f's figures for plan p of g simulated as sim (f's old ones freed;
 * f zeroed or computed before). */
void facts_compute(PlanFacts *f, const Graph *g, const Plan *p, const Sim *sim);
void facts_done(PlanFacts *f);

#endif
