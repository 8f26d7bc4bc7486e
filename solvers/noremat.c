/* noremat.c — no recomputation: every node runs once, each value freed after
 * its last use (the simulator's semantics do the freeing).
 *
 * order=graph runs the graph's own order (the spec's baseline). order=memory
 * is a memory-aware topological order: among the ready nodes it runs the one
 * whose step adds the least to live memory (its output minus the inputs it
 * is the last reader of), preferring the earliest in the file on ties. It is
 * a cheap heuristic, not an optimum; it never changes the cost.
 */
#include <stdlib.h>

#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_CHOICE("order", "graph", "graph|memory",
                 "graph: the file's topological order; memory: greedy memory-aware order"),
    OPT_P_END,
};

typedef struct {
    int *order;
    int T;
} NoRemat;

/* Bytes a step frees and adds: ready node v adds size(v) and frees each
 * non-input input whose unscheduled-consumer count drops to zero. */
static int64_t delta_of(const Graph *g, int v, const int *left)
{
    int64_t d = g->nodes[v].size;
    for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
        int u = g->in_idx[k];
        if (g->nodes[u].phase != PHASE_INPUT && left[u] == 1 && !g->is_output[u])
            d -= g->nodes[u].size;
    }
    return d;
}

/* O(n^2) in the worst case (scan of the ready list per step) — fine for the
 * graphs people explore by hand; the ready list is usually short. */
static int *mem_aware_order(const Graph *g, int *T)
{
    int n = g->n;
    int *indeg = xcalloc((size_t)n, sizeof *indeg);
    int *left = xcalloc((size_t)n, sizeof *left); /* unscheduled consumers */
    int *ready = xmallocarray((size_t)n, sizeof *ready);
    int *out = xmallocarray((size_t)n, sizeof *out);
    int nr = 0, m = 0;
    for (int v = 0; v < n; v++) {
        left[v] = g->out_off[v + 1] - g->out_off[v];
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (g->nodes[g->in_idx[k]].phase != PHASE_INPUT)
                indeg[v]++;
        if (g->nodes[v].phase != PHASE_INPUT && indeg[v] == 0)
            ready[nr++] = v;
    }
    /* input nodes count as already run for their consumers */
    while (nr) {
        int best = 0;
        int64_t bd = delta_of(g, ready[0], left);
        for (int i = 1; i < nr; i++) {
            int64_t d = delta_of(g, ready[i], left);
            if (d < bd || (d == bd && ready[i] < ready[best])) {
                bd = d;
                best = i;
            }
        }
        int v = ready[best];
        ready[best] = ready[--nr];
        out[m++] = v;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            left[g->in_idx[k]]--;
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
            int w = g->out_idx[k];
            if (--indeg[w] == 0)
                ready[nr++] = w;
        }
    }
    free(indeg);
    free(left);
    free(ready);
    *T = m;
    return out;
}

static int noremat_prepare(Solver *s, Err *e)
{
    int memory;   /* order: graph|memory */
    if (solver_opt_choice(s, "order", &memory, e))
        return e->code;
    NoRemat *st = s->state;
    st->order = memory ? mem_aware_order(s->g, &st->T) : sim_baseline_order(s->g, &st->T);
    return ERR_OK;
}

static int noremat_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    (void)budget;
    (void)p;
    (void)e;
    const NoRemat *st = s->state;
    for (int t = 0; t < st->T; t++)
        plan_push(out, st->order[t]);
    return ERR_OK;
}

static void noremat_release(Solver *s)
{
    NoRemat *st = s->state;
    free(st->order);
}

const SolverClass solver_noremat = {
    .name = "noremat",
    .title = "no recomputation: run every node once, free each value after its last use",
    .caps = SOLVER_BUDGETLESS,
    .params = params,
    .state_size = sizeof(NoRemat),
    .prepare = noremat_prepare,
    .solve = noremat_solve,
    .release = noremat_release,
};
