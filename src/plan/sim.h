/* sim.h — the schedule simulator: the one place where memory and cost are
 * counted, exactly as ../shared/spec/formats.md §3 defines them.
 *
 * A schedule is an array of node indices n_1..n_T. The value produced at
 * step p is held from p through the last step that reads it before the same
 * node runs again (through T-1 for an output's last production; just step p
 * when nothing reads it). Memory at step t is the resident inputs plus every
 * value held across t plus workspace(n_t). Everything is O(T + E).
 */
#ifndef REMAT_SIM_H
#define REMAT_SIM_H

#include <stdint.h>

#include "src/graph/graph.h"

typedef struct Sim {
    int T;              /* steps */
    int64_t *mem;       /* memory during step t, per the spec; T entries */
    int *held_until;    /* last step the value produced at step t is held */
    int64_t peak;       /* max mem (input bytes when T == 0) */
    int peak_step;      /* first step reaching peak, -1 when T == 0 */
    double cost;        /* sum of node costs over steps */
    int recomputations; /* steps that produce a value already produced */
} Sim;

/* Simulate; fills *s (free with sim_done). Returns ERR_OK for a valid
 * schedule. Invalid schedules return ERR_INVALID with a message naming the
 * first offending step ("step 4 (C): reads 'B' before any step produces
 * it"), an input node in the schedule, an index out of range, or an output
 * never produced; *s is then left empty. */
int sim_run(const Graph *g, const int *sched, int T, Sim *s, Err *e);
void sim_done(Sim *s);

/* One value alive at a step, for "why does it peak here". */
typedef struct LiveValue {
    int node;           /* the value's producer */
    int64_t size;
    int produced_at;    /* step of the production held here; -1 for inputs */
    int next_read;      /* first step after t that reads this copy; -1 none */
    int held_until;     /* last step this copy is held (T-1 for outputs) */
    int reason;         /* LIVE_* below */
} LiveValue;

enum { LIVE_INPUT, LIVE_PRODUCED, LIVE_READ, LIVE_HELD, LIVE_WORKSPACE };

/* Values that make up mem[t]: resident inputs, the value produced at t, the
 * values read at t, values held across t, and the workspace of n_t (as an
 * entry with reason LIVE_WORKSPACE and node n_t), sorted largest first
 * (ties by node index). Sizes sum to s->mem[t]. *out is owned by the
 * caller (free()). Returns the count, or -1 for t out of range. */
int sim_live_at(const Graph *g, const int *sched, const Sim *s, int t, LiveValue **out);

/* The graph's own order (its stable topological order) run once: the
 * spec's baseline. sched gets g->n minus input nodes entries; caller frees. */
int *sim_baseline_order(const Graph *g, int *T);

/* Peak and cost of the baseline in one call. */
void sim_baseline(const Graph *g, int64_t *peak, double *cost);

const char *live_reason_name(int reason);

/* The cells every listing of live values shows: size in human units,
 * "step P" or "resident", and "step R", "end" (held to the end) or "-". */
typedef struct LiveCells {
    char size[32];
    char produced[16];
    char next_read[16];
} LiveCells;
void live_cells(const LiveValue *lv, int T, LiveCells *out);

#endif
