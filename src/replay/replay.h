/* replay.h — running a plan for real and measuring its memory.
 *
 * The CPU backend (replay_cpu.c) executes the schedule with one real buffer
 * per produced value (size × scale bytes, every page touched), reads each
 * step's inputs and writes its output, spins work proportional to the
 * node's cost (calibrated once), and frees each value by the spec's
 * semantics. Per step it records the allocator's live bytes (while the step
 * runs), the process's resident set and the step's wall time. The CUDA
 * backend is a separate program (remat-cuda, built when nvcc is present)
 * that writes the same remat-replay document, and so is the torch backend
 * (tools/replay_torch.py: the model's own operators, for graphs exported
 * with a recipe), which adds the gradient comparison.
 */
#ifndef REMAT_REPLAY_H
#define REMAT_REPLAY_H

#include <stdint.h>

#include "src/graph/graph.h"
#include "src/plan/plan.h"

typedef struct ReplayStep {
    int64_t simulated;      /* spec memory during the step, unscaled bytes */
    int64_t measured;       /* allocator live bytes while it ran, unscaled */
    int64_t rss;            /* resident set growth over the start, unscaled */
    double time_s;          /* wall time of the step */
} ReplayStep;

typedef struct Replay {
    char backend[16];       /* "cpu" or "cuda" */
    char device[128];
    double scale;           /* bytes allocated per graph byte */
    int T;
    ReplayStep *steps;      /* T entries; owned */
    int64_t simulated_peak, measured_peak, rss_peak; /* unscaled */
    double correlation;     /* Pearson r of step time vs node cost; NAN if undefined */
    double seconds;         /* total wall time */
    /* torch backend (tools/replay_torch.py): the schedule's parameter
     * gradients against plain autograd's; grad_match -1 when not compared */
    int grad_match;
    double grad_max_diff;
    /* torch backend on CUDA: bytes allocated before the run that are no
     * value of the graph (the matrix libraries' workspaces), not counted
     * in measured; 0 elsewhere */
    int64_t outside;
} Replay;

void replay_init(Replay *r);
void replay_done(Replay *r);

/* ERR_USAGE, saying the smallest usable scale, when scale is below 1 and
 * rounding every buffer to whole bytes could move a replay's measured peak
 * by more than 1 % (--scale 1e-300 would measure nothing at all). */
int replay_scale_check(const Graph *g, int64_t peak, double scale, Err *e);

/* Replay plan on the CPU. scale <= 0 picks one that makes the peak about
 * 64 MiB (at least 1); a scale replay_scale_check refuses is ERR_USAGE. target_s: total seconds of compute work to spread
 * over the steps by cost (0.5 is a good default). ERR_INVALID for an
 * invalid schedule, ERR_NOMEM if buffers cannot be had. */
int replay_cpu(const Graph *g, const Plan *plan, double scale, double target_s, Replay *out,
               Err *e);

/* remat-replay JSON (docs/formats.md); caller frees. */
/* Pearson r of each step's measured time against its node's cost (NAN
 * when either does not vary): how well the graph's costs predict time. */
double replay_cost_correlation(const Replay *r, const Graph *g, const Plan *plan);

char *replay_to_json(const Replay *r, const Graph *g, const Plan *plan);
/* Read a remat-replay document written for this plan's length. */
int replay_from_json(Replay *r, const char *text, size_t len, const char *fname, Err *e);
/* replay_from_json of the file at path (r initialized whatever happens). */
int replay_load(Replay *r, const char *path, Err *e);

#endif
