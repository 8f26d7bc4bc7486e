/* cands.h — the candidate set: the schedules a solver has produced, each
 * simulated once, and the one rule that picks among them for a budget.
 *
 * Most solvers make a family of schedules once (a DP's Pareto front,
 * TWRemat's k scan, chain slot counts) and then only choose; the portfolio
 * solver pools every member's plans. They all fill a CandSet and pick with
 * cands_pick, so "cheapest within the budget, else the lowest peak" is
 * written once. A candidate holds its steps, or only a solver-private tag
 * and data from which the set's rebuild callback makes them again (for
 * schedules too long to keep).
 *
 * Ownership: the set owns candidates' steps; `data` is owned by the set
 * when free_data is set, else borrowed.
 */
#ifndef REMAT_CANDS_H
#define REMAT_CANDS_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/plan.h"

struct Progress;

typedef struct Cand {
    int *steps;             /* owned; NULL when rebuilt on demand */
    int T;
    int64_t peak;           /* simulated, never the solver's claim */
    double cost;
    int tag;                /* solver-private (k, slot count, chain id) */
    void *data;             /* solver-private */
    const char *origin;     /* static name of the solver that made it */
} Cand;

typedef struct CandSet {
    Cand *c;
    int n, cap;
    /* Steps of a candidate stored without them (may be NULL when every
     * candidate keeps its steps). ctx is the caller's. */
    int (*rebuild)(void *ctx, const Cand *c, Plan *out, struct Progress *p, Err *e);
    void *ctx;
    void (*free_data)(void *data);
} CandSet;

void cands_init(CandSet *cs);
void cands_done(CandSet *cs);
void cands_clear(CandSet *cs);

/* Simulate steps[0..T) on g and add them as a candidate (steps copied when
 * keep, else only the figures: the rebuild callback must then make them).
 * Returns the index, or -1 with e set when the schedule is invalid (a bug
 * in the solver that made it). */
int cands_add_steps(CandSet *cs, const Graph *g, const int *steps, int T, int keep, int tag,
                    void *data, const char *origin, Err *e);
/* The candidates of a family: for each tags[i], the set's rebuild makes the
 * schedule and it is simulated once and added without its steps (they are
 * made again when picked). Polls p; on cancellation or an invalid schedule
 * the set is emptied and the error returned ("NAME: cancelled", "NAME:
 * internal error: ..."). */
int cands_add_family(CandSet *cs, const struct Graph *g, const int *tags, int n, const char *origin,
                     struct Progress *p, Err *e);
/* Add a candidate whose figures the caller already simulated; steps (may
 * be NULL) pass to the set. */
int cands_add(CandSet *cs, int *steps, int T, int64_t peak, double cost, int tag, void *data,
              const char *origin);

/* Among figures: 1 when (peak, cost) beats (bpeak, bcost) for the budget:
 * within the budget beats above it; within, the cheaper (then the lower
 * peak); above, the lower peak (then the cheaper). PLAN_NO_BUDGET asks for
 * nothing: every candidate fits, so the cheapest wins. */
int cands_better(int64_t budget, int64_t peak, double cost, int64_t bpeak, double bcost);
/* Index of the candidate that rule picks (ties: the earlier one); -1 for
 * an empty set. */
int cands_pick(const CandSet *cs, int64_t budget);
/* The lowest peak, then the cheapest: what "as low as it can go" picks. */
int cands_pick_lowest(const CandSet *cs);
/* Candidate i's schedule into out (its steps, or rebuilt). */
int cands_emit(const CandSet *cs, int i, Plan *out, struct Progress *p, Err *e);

#endif
