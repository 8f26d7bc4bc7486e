/* advice.h — which values held at a step are worth recomputing.
 *
 * A value held across step t without being read there costs its bytes for
 * the whole idle stretch between its last use (production or read) before
 * t and its next read after t. Freeing it after the last use and running
 * its node again just before the next read saves bytes × idle steps of
 * memory for one more run of the node: the score ranks candidates by that
 * ratio, bytes × idle ÷ cost. Resident inputs (never run) and outputs
 * (held to the end) are not candidates.
 */
#ifndef REMAT_ADVICE_H
#define REMAT_ADVICE_H

#include <stdint.h>

#include "src/graph/graph.h"
#include "src/plan/sim.h"

typedef struct Advice {
    int node;
    int64_t bytes;
    int produced_at;        /* step of the copy held at t */
    int last_use;           /* last step <= t that produced or read it */
    int next_read;          /* first step > t that reads it */
    int idle;               /* next_read - last_use */
    double cost;            /* one more run of the node */
    double score;           /* bytes * idle / cost; cost 0 ranks first */
    int inputs_held;        /* 1 when every value it reads is held at next_read - 1 */
} Advice;

/* Candidates at step t of sched (simulated as s), best first (ties by
 * bytes, then node index). *out is owned by the caller (free()); returns
 * the count, 0 when nothing qualifies, -1 for t out of range. */
int advice_at(const Graph *g, const int *sched, const Sim *s, int t, Advice **out);

#endif
