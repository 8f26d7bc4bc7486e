/* greedy.h — GreedyRemat's walk with the values it may drop given. */
#ifndef REMAT_GREEDY_H
#define REMAT_GREEDY_H

#include <stdint.h>

#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/plan/solver.h"

/* Which value of a rank goes first: the one read latest (Belady), the
 * greedy solver's own rule (the largest; among equals one whose inputs are
 * held, then the one read latest), or the one whose rerun, with the inputs
 * not held that it needs, costs least per byte and per step until its
 * next read (greedy.c says why). */
typedef enum { GREEDY_LATEST, GREEDY_LARGEST, GREEDY_CHEAPEST_RERUN } GreedyPick;

/* The greedy solver's walk of the graph's order (greedy.c) where only
 * values with rank[v] > 0 may be dropped: higher ranks first, and within
 * a rank as `pick` says; a dropped value runs again, with its missing
 * inputs, just before its next reader, and stays until it is dropped
 * again or no longer read. Where nothing ranked is left to drop the walk
 * goes on over the budget. The schedule into out (reset; not simulated).
 * ERR_OK; ERR_LIMIT past 50 x nodes + 10000 steps (reruns that keep
 * dropping each other); ERR_CANCELLED. */
int greedy_ranked(const Graph *g, int64_t budget, const unsigned char *rank, GreedyPick pick, Plan *out,
                  Progress *p, Err *e);

#endif
