/* greedy.c — GreedyRemat (Kumar et al. 2019 §4, the XLA heuristic): walk a
 * topological order; before each step, while the memory the step would need
 * is over the budget, drop the held value whose eviction frees the most
 * (largest first, then cheapest to rebuild, then farthest next use); a
 * dropped value is recomputed, with any of its own missing inputs, just
 * before its next reader runs. When nothing can be dropped it moves on.
 *
 * Its memory model holds a value from its production until its last reader
 * has run or it is dropped; the spec frees a copy after its last read, so
 * the simulated peak never exceeds the model's. Cost: O(T * (deg + L)) with
 * T the schedule length and L the number of held values scanned per
 * eviction.
 */
#include <stdlib.h>
#include <string.h>

#include "src/sim.h"
#include "src/solver.h"
#include "src/xalloc.h"

static const SolverParam params[] = {
    OPT_P_INT("max_steps", "auto", 1, 1e12, "auto",
              "give up past this many steps (auto: 50 x nodes + 10000); tight budgets can make greedy thrash"),
    OPT_P_END,
};

typedef struct {
    int *order;     /* the graph's topological order, input nodes left out */
    int T;
    int *pos;       /* position of each node in order, -1 for inputs */
} Greedy;

/* Working state of one run. */
typedef struct {
    const Graph *g;
    const Greedy *st;
    unsigned char *present;   /* value held in the model */
    unsigned char *done;      /* ran at least once */
    int *need;                /* consumers that have not run yet */
    int *pin;                 /* readers waiting on the stack */
    int *held;                /* list of present non-input values */
    int *held_at;             /* index in held, -1 when absent */
    int nheld;
    int64_t cur;              /* model memory between steps */
} Run;

static int is_input(const Graph *g, int v)
{
    return g->nodes[v].phase == PHASE_INPUT;
}

static void hold(Run *r, int v)
{
    r->present[v] = 1;
    r->held_at[v] = r->nheld;
    r->held[r->nheld++] = v;
    r->cur += r->g->nodes[v].size;
}

static void drop(Run *r, int v)
{
    int i = r->held_at[v], last = r->held[--r->nheld];
    r->held[i] = last;
    r->held_at[last] = i;
    r->held_at[v] = -1;
    r->present[v] = 0;
    r->cur -= r->g->nodes[v].size;
}

/* Free v when no reader needs it any more (outputs stay to the end). */
static void maybe_free(Run *r, int v)
{
    if (!is_input(r->g, v) && r->present[v] && r->need[v] == 0 && r->pin[v] == 0 &&
        !r->g->is_output[v])
        drop(r, v);
}

/* Position in the order of v's next first-time reader (INT_MAX-ish when none). */
static int next_use(const Run *r, int v)
{
    const Graph *g = r->g;
    int best = r->st->T + 1;
    for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
        int w = g->out_idx[k];
        if (!r->done[w] && r->st->pos[w] < best)
            best = r->st->pos[w];
    }
    return best;
}

/* 1 when every non-input input of v is held, so rebuilding v is one step. */
static int cheap(const Run *r, int v)
{
    const Graph *g = r->g;
    for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
        int u = g->in_idx[k];
        if (!is_input(g, u) && !r->present[u])
            return 0;
    }
    return 1;
}

/* Drop values until running x fits in budget or nothing may be dropped. */
static void make_room(Run *r, int x, int64_t budget)
{
    const Graph *g = r->g;
    int64_t want = g->nodes[x].size + g->nodes[x].workspace;
    while (r->cur + want > budget) {
        int best = -1, bcheap = 0, bnext = 0;
        for (int i = 0; i < r->nheld; i++) {
            int u = r->held[i];
            if (r->pin[u] || g->is_output[u] || g->nodes[u].size == 0)
                continue;
            int64_t su = g->nodes[u].size;
            if (best >= 0 && su < g->nodes[best].size)
                continue;
            int c = cheap(r, u), nx = next_use(r, u);
            if (best < 0 || su > g->nodes[best].size || c > bcheap ||
                (c == bcheap && (nx > bnext || (nx == bnext && u < best)))) {
                best = u;
                bcheap = c;
                bnext = nx;
            }
        }
        if (best < 0)
            return;
        drop(r, best);
    }
}

static void pin_inputs(Run *r, int x, int d)
{
    const Graph *g = r->g;
    for (int k = g->in_off[x]; k < g->in_off[x + 1]; k++)
        r->pin[g->in_idx[k]] += d;
}

/* Run x, first rebuilding any missing inputs (depth-first, explicit stack). */
/* Run x, rebuilding missing inputs first. Returns -1 when the schedule
 * grows past max_steps or the caller cancels (rebuilds can cascade). */
static int run_node(Run *r, int x, int64_t budget, int *stack, Plan *out, long long max_steps,
                    Progress *p)
{
    const Graph *g = r->g;
    int sp = 0;
    stack[sp++] = x;
    pin_inputs(r, x, 1);
    while (sp) {
        if (out->T > max_steps || ((out->T & 1023) == 0 && progress_cancelled(p)))
            return -1;
        int y = stack[sp - 1], miss = -1;
        for (int k = g->in_off[y]; k < g->in_off[y + 1]; k++) {
            int u = g->in_idx[k];
            if (!is_input(g, u) && !r->present[u]) {
                miss = u;
                break;
            }
        }
        if (miss >= 0) {
            /* a missing input is never on the stack: stack entries are
             * missing values whose readers pin their inputs */
            stack[sp++] = miss;
            pin_inputs(r, miss, 1);
            continue;
        }
        if (budget != PLAN_NO_BUDGET)
            make_room(r, y, budget);
        sp--;
        plan_push(out, y);
        pin_inputs(r, y, -1);
        int first = !r->done[y];
        r->done[y] = 1;
        hold(r, y);
        for (int k = g->in_off[y]; k < g->in_off[y + 1]; k++) {
            int u = g->in_idx[k];
            if (first)
                r->need[u]--;
            maybe_free(r, u);
        }
        maybe_free(r, y);
    }
    return 0;
}

static int greedy_prepare(Solver *s, Err *e)
{
    (void)e;
    const Graph *g = s->g;
    Greedy *st = xcalloc(1, sizeof *st);
    st->order = sim_baseline_order(g, &st->T);
    st->pos = xmallocarray((size_t)g->n, sizeof *st->pos);
    for (int v = 0; v < g->n; v++)
        st->pos[v] = -1;
    for (int t = 0; t < st->T; t++)
        st->pos[st->order[t]] = t;
    s->state = st;
    return ERR_OK;
}

static int greedy_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    const Graph *g = s->g;
    const Greedy *st = s->state;
    size_t n = (size_t)g->n;
    Run r = {.g = g, .st = st, .cur = g->input_bytes};
    r.present = xcalloc(n, 1);
    r.done = xcalloc(n, 1);
    r.need = xmallocarray(n, sizeof *r.need);
    r.pin = xcalloc(n, sizeof *r.pin);
    r.held = xmallocarray(n, sizeof *r.held);
    r.held_at = xmallocarray(n, sizeof *r.held_at);
    int *stack = xmallocarray(n, sizeof *stack);
    for (int v = 0; v < g->n; v++) {
        r.need[v] = g->out_off[v + 1] - g->out_off[v];
        r.held_at[v] = -1;
        r.present[v] = is_input(g, v);
    }
    int rc = ERR_OK;
    long long max_steps = 50LL * g->n + 10000;
    const char *ms = solver_opt_str(s, "max_steps");
    if (strcmp(ms, "auto") != 0 && solver_opt_int(s, "max_steps", &max_steps, e))
        rc = e->code;
    for (int t = 0; t < st->T && rc == ERR_OK; t++) {
        if ((t & 63) == 0) {
            if (progress_cancelled(p)) {
                rc = err_set(e, ERR_CANCELLED, "greedy: cancelled");
                break;
            }
            progress_set(p, (double)t / st->T);
        }
        if (run_node(&r, st->order[t], budget, stack, out, max_steps, p)) {
            rc = progress_cancelled(p)
                     ? err_set(e, ERR_CANCELLED, "greedy: cancelled")
                     : err_set(e, ERR_LIMIT,
                               "greedy: the schedule passed %lld steps at budget %lld (it keeps "
                               "rebuilding what it dropped); try a larger budget or another solver",
                               max_steps, (long long)budget);
            break;
        }
    }
    free(r.present);
    free(r.done);
    free(r.need);
    free(r.pin);
    free(r.held);
    free(r.held_at);
    free(stack);
    return rc;
}

static void greedy_release(Solver *s)
{
    Greedy *st = s->state;
    if (st) {
        free(st->order);
        free(st->pos);
    }
    free(st);
}

const SolverClass solver_greedy = {
    .name = "greedy",
    .title = "GreedyRemat (XLA): walk a topological order, drop and recompute the largest value when over budget",
    .params = params,
    .prepare = greedy_prepare,
    .solve = greedy_solve,
    .release = greedy_release,
};
