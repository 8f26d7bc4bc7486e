/* repair.h — lower a schedule's peak by freeing what the peak holds. */
#ifndef REMAT_REPAIR_H
#define REMAT_REPAIR_H

#include <stdint.h>

#include "src/graph/graph.h"

/* While the schedule's peak is above limit: of the values held across the
 * peak step but not read there, free one, by running it again just before
 * its next read (with the inputs it needs that are no longer held there)
 * or by moving the steps that read it after the peak up to just after its
 * last read before; of those moves, the one whose schedule has the lowest
 * peak, then the least memory above limit, then the lowest cost. Stops at
 * the limit, when no move lowers the peak or the memory above limit, or
 * when the work allowance (simulated steps and edges) is spent. *steps is
 * reallocated as it grows (*T with it); an invalid schedule is left as it
 * is. rule (NULL: none) is the solver's pin/force per node: a pinned node
 * never runs again. Returns the moves made. */
int plan_repair(const Graph *g, int **steps, int *T, int64_t limit, const unsigned char *rule,
                int64_t work);

/* A start for a search that plan_repair leaves above limit, where a value
 * held across the peak cannot be made again from what is still held (its
 * inputs are gone: a gradient whose rerun needs the backward from the
 * loss run again). One of the largest such values is made again after the
 * peak by the cheapest cone of its ancestors for a weight on memory held
 * across the peak (a minimum cut; several weights tried): the cone runs
 * again, the values it reads and does not run are held. Each cone is
 * replayed three ways (every run of the prefix, first runs, depth first)
 * at up to 32 positions after the peak (the steps after the peak that need
 * the value move after the replay); the lowest-peaking of each is
 * repaired (plan_repair), and the cheapest within limit kept, else the
 * lowest peak. Its peak may be higher than before: it is a start for
 * annealing, not an answer. Returns 1 when *steps was replaced. */
int plan_rerun_deep(const Graph *g, int **steps, int *T, int64_t limit, const unsigned char *rule,
                    int64_t work);

#endif
