/* fastsa.h — hooks into the FastSA solver (solvers/fastsa.c) for tests and
 * benchmarks; the solver itself is reached through the registry. */
#ifndef REMAT_FASTSA_H
#define REMAT_FASTSA_H
#include <stdint.h>

#include "src/graph.h"
#include "src/solver.h"

/* Load g's own order into a fresh slotted state (slack slots per step),
 * then try `steps` random mutations (add, remove, move), keeping every
 * valid one. Returns the decoded schedule (*sched, *T; caller frees
 * *sched), and per step the memory the segment tree holds for it in
 * *mem (caller frees), plus its peak in *peak. */
void fastsa_random_walk(const Graph *g, int steps, uint64_t seed, int slack, int **sched, int *T,
                        int64_t **mem, int64_t *peak);
/* Mutations tried by the last solve of s (a fastsa solver). */
long long fastsa_last_tried(const Solver *s);
#endif
