/* calibrate.h — a graph's workspaces from a replay on a GPU.
 *
 * A plan replayed with the model's own operators on CUDA measures more
 * than the simulator counts at the steps whose operators take memory while
 * they run (cuDNN's convolution workspaces: up to 769 MB on resnet50 at
 * batch 128, docs/gpu.md). That is what a node's `workspace` says, so the
 * replay can write it into the graph, and plans made on the calibrated
 * graph leave room for it: on resnet18 and resnet50 the replayed plan's
 * peak on the calibrated graph is within 0.3 % of the measured one.
 */
#ifndef REMAT_CALIBRATE_H
#define REMAT_CALIBRATE_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/replay/replay.h"

/* The workspace each node needs beyond what g says, from r, a replay of
 * plan p: at step t the measured bytes over the simulated ones, less the
 * median of that excess over every step (what every step carries: the
 * allocator's rounding, a few MB), into extra[v] as the largest over v's
 * runs; kept where above max(1 MiB, 0.1 % of the simulated peak) (else 0).
 * *floor gets the median. Returns the number of nodes given an extra, or
 * -1 with ERR_INVALID when r is not a replay of p (another number of steps
 * or another simulated peak). */
int calibrate_workspaces(const Graph *g, const Plan *p, const Replay *r, int64_t *extra, int64_t *floor,
                         Err *e);

/* A copy of g with extra[v] added to every node's workspace (caller
 * frees); NULL with ERR_INVALID, naming the node, when a workspace would
 * pass 2^53 or the graph's sizes and workspaces 2^62. */
Graph *graph_with_extra_workspace(const Graph *g, const int64_t *extra, Err *e);

#endif
