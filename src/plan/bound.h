/* bound.h — the lower bound on the cost of the plans within a budget, with
 * one cache for the whole program: auto's answers, `remat solve --bound`
 * and the explorer's compare view all ask here, so a bound is solved once
 * per (graph, order, budget).
 *
 * The bound is the cover bound of solvers/checkmate/cover.c (no plan whose
 * first runs follow the order costs less), raised where it can be by the
 * bound over every order (solvers/bound_any.c); both are defined under
 * solvers/ and src/ sees them only through this header, as it sees the
 * solver table.
 * Thread-safe: the cache has its own lock, and a solve runs outside it.
 */
#ifndef REMAT_BOUND_H
#define REMAT_BOUND_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/solver.h"

/* Seconds the compare view and `remat solve --bound` give a bound (most
 * take well under one; past the time CBC's best possible value stands,
 * still a bound). */
#define BOUND_SECONDS 10

/* The cover bound at budget over plans whose first runs follow the
 * graph's order (steps NULL), or over the graph's order and the order of
 * steps[0..T) (the smaller of the two: it holds for that plan and for the
 * graph's order); raised to the bound over every order (bound_any_cost)
 * where that is higher, which also stands alone where the cover gives
 * none in time. Served from the cache when an answer computed with at
 * least `seconds` is there; seconds 0 only looks. ERR_OK with *lb;
 * ERR_OVER_BUDGET when no plan in the order(s) fits (message names the
 * node); ERR_LIMIT when nothing came in time, or (seconds 0) nothing is
 * cached; ERR_UNSUPPORTED when the plan leaves a node out; ERR_CANCELLED;
 * ERR_IO. Answers other than cancellation and I/O failures are cached. */
int bound_cover(const Graph *g, const int *steps, int T, int64_t budget, double seconds, Progress *p,
                double *lb, Err *e);

/* 1 when the first runs of steps[0..T) follow the graph's order (then
 * bound_cover over the plan is the graph order's bound). */
int bound_same_order(const Graph *g, const int *steps, int T);

/* The graph order's bound at budget when the cache has one good for
 * `seconds` (0: any, also one solved without the cascade rows, which
 * bound_cover with a second or more solves again): 1 with *rc
 * (bound_cover's status), *lb (raised, as bound_cover's, to a cached
 * bound over every order), e, and *every (may be NULL): 1 when *lb holds
 * over every order (that cached bound is as high); 0 otherwise. */
int bound_cover_known(const Graph *g, int64_t budget, double seconds, int *rc, double *lb, int *every, Err *e);

/* bound_any_cost behind the cache (bound_cover leaves its own there):
 * served from it when an answer computed with at least `seconds` is
 * there (or one that tried every X); seconds 0 only looks (ERR_LIMIT when
 * nothing is cached). The same statuses. */
int bound_any(const Graph *g, int64_t budget, double seconds, Progress *p, double *lb, Err *e);

/* Remember the graph order's bound at budget found another way (the
 * cover's plan comes with it), as if solved with `seconds`. */
void bound_cover_remember(const Graph *g, int64_t budget, double seconds, double lb);

/* A lower bound on the peak of every valid schedule, at least
 * graph_min_peak's, stronger where the graph's shape says more:
 *  - only nodes some output needs must run (a node nothing needs can be
 *    left out, so its footprint bounds nothing);
 *  - when a node runs, every input was last made before: the input made
 *    last was made while the others were held, so the memory then is at
 *    least those others plus that input's own footprint (its value, its
 *    inputs that are not the node's, its workspace); the best order of
 *    the inputs for the schedule (largest footprint less size first)
 *    gives the bound;
 *  - an output's last copy is held to the end, so when the output made
 *    last (of all) is made, every other one is held: the same ordering
 *    over the outputs.
 * Resident inputs included. *node (may be NULL) gets the node whose run
 * gives the bound, or -1 when it is the outputs'. O(E log E). */
int64_t bound_min_peak(const Graph *g, int *node);

/* A lower bound on the cost of every valid schedule whose peak is within
 * budget, in any order (solvers/bound_any.c says how): the cost of the
 * nodes some output needs, plus what must run again after the first run
 * of some node X, as a minimum cut, or the sum of what must run again
 * between the first runs of two nodes X1 and X2 and after X2's. *node
 * (may be NULL) gets that X (of a pair, X2; -1: nothing must run again,
 * *lb is the needed nodes' cost). The search tries the most promising X
 * first for half of `seconds` (the first X always), then pairs of the best
 * until `seconds`; whatever it found by then is a bound, and *whole (may
 * be NULL) says whether every X and the pairs were tried. Not cached (bound_cover folds it in,
 * cached). ERR_OK with *lb; ERR_OVER_BUDGET when some node cannot run
 * within the budget at all (message names it); ERR_LIMIT past 20,000
 * running nodes (the ranking of the X is quadratic); ERR_CANCELLED. */
int bound_any_cost(const Graph *g, int64_t budget, double seconds, Progress *p, double *lb, int *node, int *whole,
                   Err *e);

/* Empty the cache (tests). */
void bound_cache_clear(void);

#endif
