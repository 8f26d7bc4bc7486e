/* play.h — the play line: what one step of a schedule allocates and
 * frees, in words. */
#ifndef REMAT_PLAY_H
#define REMAT_PLAY_H

#include <stddef.h>

#include "src/graph/graph.h"
#include "src/plan/sim.h"

/* "step 5 run C (allocates 2 B, +ws 1 B); frees A, B" for step t of
 * sched (simulated as s). Values freed are those whose holding ends at t. */
void play_step_text(const Graph *g, const int *sched, const Sim *s, int t, char *buf, size_t n);

#endif
