/* fastsa.h — hooks into the FastSA solver (solvers/fastsa/fastsa.c) for
 * tests, benchmarks and the portfolio solver; the solver itself is reached
 * through the registry. */
#ifndef REMAT_FASTSA_H
#define REMAT_FASTSA_H
#include <stdint.h>

#include "src/graph/graph.h"
#include "src/plan/relay.h"
#include "src/plan/solver.h"

/* Load g's own order into a fresh slotted state (slack slots per step),
 * then try `steps` random mutations (add, remove, move), keeping every
 * valid one. Returns the decoded schedule (*sched, *T; caller frees
 * *sched), and per step the memory the segment tree holds for it in
 * *mem (caller frees), plus its peak in *peak. */
void fastsa_random_walk(const Graph *g, int steps, uint64_t seed, int slack, int **sched, int *T,
                        int64_t **mem, int64_t *peak);
/* A search from starts[0..n) for at most time_limit seconds, the schedule
 * into out->steps: with full, every start of a solve as well (the graph's
 * order, grouping, seeds, restarts); without, one run from each start (a
 * re-solve). The portfolio solver hands fastsa its members' best plans
 * this way. With `in` (a full search), a plan another thread holds there
 * for it (relay_take) is run from next, between runs, and the search ends
 * (its best plan the answer) once relay_enough says a plan at hand is
 * enough. s must be a fastsa solver. */
int fastsa_search_from(Solver *s, int64_t budget, const Plan *starts, int n, double time_limit,
                       int full, Relay *in, Plan *out, Progress *p, Err *e);
/* The plan seed solver `name` made for budget, used as that seed's start
 * by the next full search at that budget instead of running the solver
 * again (the portfolio's members are the same solvers with the same
 * options). One per solver, the last given; ignored for a solver not in
 * the seeds= list. s must be a fastsa solver. */
void fastsa_seed_plan(Solver *s, const char *name, int64_t budget, const int *steps, int T);
/* Mutations tried by the last solve of s (a fastsa solver). */
long long fastsa_last_tried(const Solver *s);
#endif
