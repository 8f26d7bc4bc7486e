/* greedy.c — GreedyRemat (Kumar et al. 2019 §4, the XLA heuristic): walk a
 * topological order; before each step, while the memory the step would need
 * is over the budget, drop the held value whose eviction frees the most
 * (largest first, then cheapest to rebuild, then farthest next use); a
 * dropped value is recomputed, with any of its own missing inputs, just
 * before its next reader runs. When nothing can be dropped it moves on.
 *
 * greedy_ranked (greedy.h) walks the same way with the values it may drop
 * and their order given, for the cascade LP's plan.
 *
 * Its memory model holds a value from its production until its last reader
 * has run or it is dropped; the spec frees a copy after its last read, so
 * the simulated peak never exceeds the model's. Cost: O(T * (deg + L)) with
 * T the schedule length and L the number of held values scanned per
 * eviction.
 */
#include <stdlib.h>
#include <string.h>

#include "solvers/greedy.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/base/csr.h"
#include "src/base/heap.h"
#include "src/base/xalloc.h"

static const SolverParam params[] = {
    OPT_P_INT("max_steps", "auto", 1, 1e12, "auto",
              "give up past this many steps (auto: 50 x nodes + 10000); tight budgets can make greedy thrash"),
    OPT_P_END,
};

typedef struct {
    int *order;     /* the graph's topological order, input nodes left out */
    int T;
    int *pos;       /* position of each node in order, -1 for inputs */
    /* positions of each node's readers, ascending: reader_pos[reader_off[v]
     * .. reader_off[v+1]) */
    int *reader_off, *reader_pos;
} Greedy;

/* A candidate for eviction with its key when pushed; stale once the node's
 * version has moved on (its key changed, or it was dropped). */
typedef struct {
    int64_t size;
    int rank, cheap, next, node;
    unsigned ver;
} Evict;

/* Working state of one run. */
typedef struct {
    const Graph *g;
    const Greedy *st;
    unsigned char *present;   /* value held in the model */
    unsigned char *done;      /* ran at least once */
    int *need;                /* consumers that have not run yet */
    int *pin;                 /* readers waiting on the stack */
    int *missing;             /* non-input inputs not held */
    int *next_reader;         /* index into the reader list: first not yet run */
    unsigned *ver;
    int64_t cur;              /* model memory between steps */
    int track;                /* keep the heap (a budget was given) */
    Evict *heap;
    int nheap, capheap;
    const unsigned char *rank;  /* NULL, or greedy_ranked's ranks */
    GreedyPick pick;            /* within a rank (greedy_ranked) */
    /* GREEDY_CHEAPEST_RERUN (greedy_ranked with a budget) only: */
    int now;                    /* position in the order being run */
    int *held, nheld;           /* the values held, not inputs (NULL: not kept) */
    int *held_at;               /* v's index in held */
    unsigned *stamp;            /* rerun costs known this scan */
    double *chain;
    unsigned scan_id;
} Run;

static int is_input(const Graph *g, int v)
{
    return g->nodes[v].phase == PHASE_INPUT;
}

/* ---- the eviction order: a max-heap with lazy deletion --------------------
 * The rule is the lexicographic maximum of (size, cheap, next use, -index)
 * over held values that are not outputs, not empty and not pinned (the
 * heap holds exactly those): the
 * largest value; among equals one whose inputs are all held (a one-step
 * rebuild); then the one read latest (Belady); then the lowest index. Each
 * change of a value's key pushes a fresh entry and bumps its version, so a
 * pop skips stale entries; an eviction is O(log n) instead of a scan of
 * every held value. */

static inline int evict_first(const Run *r, const Evict *a, const Evict *b)
{
    /* greedy_ranked: the higher rank, then (GREEDY_LATEST) the one read
     * latest (a chosen value runs again anyway; which one goes first only
     * decides how soon) or (GREEDY_LARGEST) the rule below; without ranks
     * every entry has rank 0 */
    if (a->rank != b->rank)
        return a->rank > b->rank;
    if (a->rank && r->pick == GREEDY_LATEST && a->next != b->next)
        return a->next > b->next;
    if (a->size != b->size)
        return a->size > b->size;
    if (a->cheap != b->cheap)
        return a->cheap > b->cheap;
    if (a->next != b->next)
        return a->next > b->next;
    return a->node < b->node;
}
HEAP_DEFINE(evict, Evict, Run, evict_first)

static int candidate(const Run *r, int v)
{
    const Graph *g = r->g;
    return r->present[v] && !r->pin[v] && !is_input(g, v) && !g->is_output[v] && g->nodes[v].size > 0 &&
           (!r->rank || r->rank[v]);
}

static int entry_valid(const Run *r, const Evict *c)
{
    return c->ver == r->ver[c->node] && candidate(r, c->node);
}

/* Position in the order of v's next first-time reader (T + 1 when none). */
static int next_use(const Run *r, int v)
{
    const Greedy *st = r->st;
    int k = st->reader_off[v] + r->next_reader[v];
    return k < st->reader_off[v + 1] ? st->reader_pos[k] : st->T + 1;
}

static void heap_push_raw(Run *r, Evict c)
{
    xgrow((void **)&r->heap, &r->capheap, r->nheap + 1, sizeof *r->heap);
    evict_push(r->heap, &r->nheap, c, r);
}

/* v's key changed (or v became a candidate): invalidate old entries and
 * push the current key. Stale entries are swept out when they outnumber
 * the live ones, so the heap stays O(n). */
static void touch(Run *r, int v)
{
    r->ver[v]++;
    if (!r->track || !candidate(r, v))
        return;
    if (r->nheap > 2 * r->g->n + 1024) {
        int m = 0;
        for (int i = 0; i < r->nheap; i++)
            if (entry_valid(r, &r->heap[i]))
                r->heap[m++] = r->heap[i];
        r->nheap = m;
        for (int i = m / 2 - 1; i >= 0; i--)
            evict_down(r->heap, m, i, r);
    }
    heap_push_raw(r, (Evict){r->g->nodes[v].size, r->rank ? r->rank[v] : 0, r->missing[v] == 0, next_use(r, v), v,
                             r->ver[v]});
}

/* A held value appeared or vanished: its readers' "cheap" may flip. */
static void readers_changed(Run *r, int v, int d)
{
    const Graph *g = r->g;
    for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
        int w = g->out_idx[k];
        r->missing[w] += d;
        if (r->present[w] && (r->missing[w] == 0 || (d > 0 && r->missing[w] == 1)))
            touch(r, w);
    }
}

static void hold(Run *r, int v)
{
    r->present[v] = 1;
    r->cur += r->g->nodes[v].size;
    if (r->held) {
        r->held_at[v] = r->nheld;
        r->held[r->nheld++] = v;
    }
    if (r->track)
        readers_changed(r, v, -1);
    touch(r, v);
}

static void drop(Run *r, int v)
{
    r->present[v] = 0;
    r->cur -= r->g->nodes[v].size;
    r->ver[v]++;
    if (r->held) {
        int last = r->held[--r->nheld];
        r->held[r->held_at[v]] = last;
        r->held_at[last] = r->held_at[v];
    }
    if (r->track)
        readers_changed(r, v, +1);
}

/* Free v when no reader needs it any more (outputs stay to the end). */
static void maybe_free(Run *r, int v)
{
    if (!is_input(r->g, v) && r->present[v] && r->need[v] == 0 && r->pin[v] == 0 &&
        !r->g->is_output[v])
        drop(r, v);
}

/* What running v again costs now: v's cost and, for each input not held,
 * that input's own (memoised for one scan, so an ancestor two paths share
 * counts in each; past 64 levels a value counts alone). */
static double rerun_cost(Run *r, int v, int depth)
{
    const Graph *g = r->g;
    if (r->stamp[v] == r->scan_id)
        return r->chain[v];
    double c = g->nodes[v].cost;
    if (depth >= 64)
        return c;
    for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
        int u = g->in_idx[k];
        if (!is_input(g, u) && !r->present[u])
            c += rerun_cost(r, u, depth + 1);
    }
    r->stamp[v] = r->scan_id;
    r->chain[v] = c;
    return c;
}

/* Held values a GREEDY_CHEAPEST_RERUN drop looks at, at most. */
#define CHEAPEST_SCAN_MAX 1024

/* GREEDY_CHEAPEST_RERUN: of the highest rank held, the value whose rerun
 * (with the inputs it would need again) costs least per byte freed and
 * per step until it is read (DTR's rule, Kirisame et al. 2021, with the
 * next read known). A scan of the held values, not a heap: the costs
 * change with every value dropped or made. -1 when none may go. */
static int pick_cheapest_rerun(Run *r)
{
    const Graph *g = r->g;
    int best = -1, best_rank = 0;
    double best_h = 0;
    r->scan_id++;
    /* past CHEAPEST_SCAN_MAX held values, an evenly spaced sample of that
     * many, from an offset that moves each drop (DTR samples too): a full
     * scan at each drop took 84 s on bench_scale's 200K-node graph */
    int step = r->nheld > CHEAPEST_SCAN_MAX ? r->nheld / CHEAPEST_SCAN_MAX : 1;
    for (int i = step > 1 ? (int)(r->scan_id % (unsigned)step) : 0; i < r->nheld; i += step) {
        int v = r->held[i];
        if (!candidate(r, v) || (best >= 0 && r->rank[v] < best_rank))
            continue;
        double steps = (double)(next_use(r, v) - r->now) + 1;
        double h = rerun_cost(r, v, 0) / ((double)g->nodes[v].size * steps);
        if (best < 0 || r->rank[v] > best_rank || h < best_h) {
            best = v;
            best_rank = r->rank[v];
            best_h = h;
        }
    }
    return best;
}

/* Drop values until running x fits in budget or nothing may be dropped. */
static void make_room(Run *r, int x, int64_t budget)
{
    const Graph *g = r->g;
    int64_t want = g->nodes[x].size + g->nodes[x].workspace;
    if (r->held) {
        int v;
        while (r->cur + want > budget && (v = pick_cheapest_rerun(r)) >= 0)
            drop(r, v);
        return;
    }
    while (r->cur + want > budget && r->nheap) {
        Evict c = evict_pop(r->heap, &r->nheap, r);
        if (entry_valid(r, &c))
            drop(r, c.node);
    }
}

/* A pinned value is no candidate: it leaves the heap when pinned and
 * comes back when the last reader on the stack has run. */
static void pin_inputs(Run *r, int x, int d)
{
    const Graph *g = r->g;
    for (int k = g->in_off[x]; k < g->in_off[x + 1]; k++) {
        int u = g->in_idx[k];
        r->pin[u] += d;
        if (r->track && r->pin[u] == (d > 0))
            touch(r, u);
    }
}

/* Run x, rebuilding missing inputs first (depth-first, explicit stack;
 * scan[i] is how far stack entry i has checked its inputs: those before it
 * are held and pinned, so they stay). Returns -1 when the schedule grows
 * past max_steps or the caller cancels (rebuilds can cascade). */
static int run_node(Run *r, int x, int64_t budget, int *stack, int *scan, Plan *out,
                    long long max_steps, Progress *p)
{
    const Graph *g = r->g;
    int sp = 0;
    scan[sp] = g->in_off[x];
    stack[sp++] = x;
    pin_inputs(r, x, 1);
    while (sp) {
        if (out->T > max_steps || ((out->T & 1023) == 0 && progress_cancelled(p)))
            return -1;
        int y = stack[sp - 1], miss = -1;
        for (int k = scan[sp - 1]; k < g->in_off[y + 1]; k++) {
            int u = g->in_idx[k];
            if (!is_input(g, u) && !r->present[u]) {
                miss = u;
                scan[sp - 1] = k;
                break;
            }
        }
        if (miss >= 0) {
            /* a missing input is never on the stack: stack entries are
             * missing values whose readers pin their inputs */
            scan[sp] = g->in_off[miss];
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
            if (first) {
                r->need[u]--;
                /* y was u's next first-time reader: readers run first in
                 * order, and u's list is in order */
                if (!is_input(g, u)) {
                    r->next_reader[u]++;
                    if (r->present[u])
                        touch(r, u);
                }
            }
            maybe_free(r, u);
        }
        maybe_free(r, y);
    }
    return 0;
}

static void greedy_index(const Graph *g, Greedy *st)
{
    st->order = sim_baseline_order(g, &st->T);
    st->pos = xmallocarray((size_t)g->n, sizeof *st->pos);
    for (int v = 0; v < g->n; v++)
        st->pos[v] = -1;
    for (int t = 0; t < st->T; t++)
        st->pos[st->order[t]] = t;
    /* readers of each value by position, ascending: appended in order */
    Csr c;
    csr_begin(&c, g->n);
    do
        for (int t = 0; t < st->T; t++) {
            int w = st->order[t];
            for (int k = g->in_off[w]; k < g->in_off[w + 1]; k++)
                csr_put(&c, g->in_idx[k], t);
        }
    while (csr_next(&c));
    st->reader_off = c.off;
    st->reader_pos = c.adj;
}

static void greedy_unindex(Greedy *st)
{
    free(st->order);
    free(st->pos);
    free(st->reader_off);
    free(st->reader_pos);
}

static int greedy_prepare(Solver *s, Err *e)
{
    (void)e;
    greedy_index(s->g, s->state);
    return ERR_OK;
}

/* The walk, into out (appended). */
static int greedy_walk(const Graph *g, const Greedy *st, int64_t budget, const unsigned char *rank,
                       GreedyPick pick, long long max_steps, Plan *out, Progress *p, Err *e)
{
    size_t n = (size_t)g->n;
    Run r = {.g = g, .st = st, .cur = g->input_bytes, .track = budget != PLAN_NO_BUDGET, .rank = rank,
             .pick = pick};
    r.present = xcalloc(n, 1);
    r.done = xcalloc(n, 1);
    r.need = xmallocarray(n, sizeof *r.need);
    r.pin = xcalloc(n, sizeof *r.pin);
    r.missing = xcalloc(n, sizeof *r.missing);
    r.next_reader = xcalloc(n, sizeof *r.next_reader);
    r.ver = xcalloc(n, sizeof *r.ver);
    if (rank && pick == GREEDY_CHEAPEST_RERUN && r.track) {
        r.held = xmallocarray(n, sizeof *r.held);
        r.held_at = xmallocarray(n, sizeof *r.held_at);
        r.stamp = xcalloc(n, sizeof *r.stamp);
        r.chain = xmallocarray(n, sizeof *r.chain);
    }
    int *stack = xmallocarray(n, sizeof *stack);
    int *scan = xmallocarray(n, sizeof *scan);
    for (int v = 0; v < g->n; v++) {
        r.need[v] = g->out_off[v + 1] - g->out_off[v];
        r.present[v] = is_input(g, v);
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            r.missing[v] += !is_input(g, g->in_idx[k]);
    }
    int rc = ERR_OK;
    for (int t = 0; t < st->T && rc == ERR_OK; t++) {
        if ((t & 63) == 0) {
            if (progress_cancelled(p)) {
                rc = err_set(e, ERR_CANCELLED, "greedy: cancelled");
                break;
            }
            progress_set(p, (double)t / st->T);
        }
        r.now = t;
        if (run_node(&r, st->order[t], budget, stack, scan, out, max_steps, p)) {
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
    free(r.missing);
    free(r.next_reader);
    free(r.ver);
    free(r.held);
    free(r.held_at);
    free(r.stamp);
    free(r.chain);
    free(r.heap);
    free(stack);
    free(scan);
    return rc;
}

static int greedy_solve(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e)
{
    long long max_steps = 50LL * s->g->n + 10000;
    const char *ms = solver_opt_str(s, "max_steps");
    if (strcmp(ms, "auto") != 0 && solver_opt_int(s, "max_steps", &max_steps, e))
        return e->code;
    return greedy_walk(s->g, s->state, budget, NULL, GREEDY_LATEST, max_steps, out, p, e);
}

int greedy_ranked(const Graph *g, int64_t budget, const unsigned char *rank, GreedyPick pick, Plan *out,
                  Progress *p, Err *e)
{
    Greedy st;
    greedy_index(g, &st);
    plan_reset(out);
    int rc = greedy_walk(g, &st, budget, rank, pick, 50LL * g->n + 10000, out, p, e);
    greedy_unindex(&st);
    return rc;
}

static void greedy_release(Solver *s)
{
    greedy_unindex(s->state);
}

const SolverClass solver_greedy = {
    .name = "greedy",
    .title = "GreedyRemat (XLA): walk a topological order, drop and recompute the largest value when over budget",
    .params = params,
    .state_size = sizeof(Greedy),
    .prepare = greedy_prepare,
    .solve = greedy_solve,
    .release = greedy_release,
};
