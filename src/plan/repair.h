/* repair.h — lower a schedule's peak by running again what the peak holds. */
#ifndef REMAT_REPAIR_H
#define REMAT_REPAIR_H

#include <stdint.h>

#include "src/graph/graph.h"

/* While the schedule's peak is above limit: of the values held across the
 * peak step but not read there, run one again just before its next read
 * (with the inputs it needs that are no longer held there), the one whose
 * schedule has the lowest peak, then the least memory above limit. Stops
 * at the limit, when no insertion lowers either, or when the work
 * allowance (simulated steps and edges) is spent. *steps is reallocated
 * as it grows (*T with it); an invalid schedule is left as it is.
 * rule (NULL: none) is the solver's pin/force per node: a pinned node
 * never runs again. Returns the insertions made. */
int plan_repair(const Graph *g, int **steps, int *T, int64_t limit, const unsigned char *rule,
                int64_t work);

#endif
