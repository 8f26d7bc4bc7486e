/* tidy.h — drop the reruns a schedule does not need. */
#ifndef REMAT_TIDY_H
#define REMAT_TIDY_H

#include <stdint.h>

#include "src/graph/graph.h"

/* Delete, one at a time, steps that run a node again when the schedule
 * stays valid and its peak stays at most limit; steps[] shrinks in place
 * and *T with it. The cost only falls. Returns how many steps went. A
 * schedule that is invalid, or over limit already, is left as it is.
 * rule (NULL: none) is the solver's pin/force per node (solver.h): a
 * forced node keeps every run. */
int plan_tidy(const Graph *g, int *steps, int *T, int64_t limit, const unsigned char *rule);

#endif
