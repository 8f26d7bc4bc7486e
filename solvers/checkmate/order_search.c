/* order_search.c — the cheapest plan whose first runs follow a given order,
 * exactly, for small graphs: an A* search over what is held.
 *
 * Why: CBC's relaxation of Checkmate's model is weak at tight budgets (a
 * 20-node transformer at 58 % of its peak: root bound 13.2 against an
 * optimum of 19.75), so CBC proves such cases by enumeration, in 20-25 s
 * for a model of a thousand columns; given the optimum as its start it
 * still takes as long. Searched directly, the same question is small.
 *
 * A state is (H, k): the values held and how many of the order have first
 * run. A move runs a node whose inputs are held, within the budget (the
 * spec's memory at that step: inputs, what is held, its value and
 * workspace, formats.md §3): the order's next node (k + 1) or an earlier
 * one again. After it, each value the move touched (its inputs, its own
 * value) is kept or dropped. That is every spec-valid schedule: a value
 * lives until its last read, so it can be dropped at a step that reads it
 * (or at the step that makes it, when nothing reads that copy), and
 * holding a value no later step may read never helps, so such values are
 * dropped at once. Running a value that is held is never needed.
 *
 * The cost of the order's nodes not yet run, plus that of the values that
 * must run again (left() says which), is a lower bound on what is left
 * and never falls by more than a move costs; so the first goal state taken
 * from the queue is optimal (A*). Counting the values that must run again
 * matters: with the nodes not yet run alone, dropping a value that a later
 * node reads looks free until the rerun, and VGG16's training graph at
 * 90 % (45 nodes) ran past a million states. States whose cost plus that
 * bound is above the cutoff (a plan in hand) are never queued. The held sets are
 * bit masks of positions: orders of up to 64 nodes. A state or time limit
 * hands larger cases back to CBC.
 *
 * The plans searched include Checkmate's model on the order (its stages
 * run each node at most once, in position order; here runs may come in any
 * order), so the optimum is at most the model's; it is exactly what the
 * cover bound (cover.c) bounds from below.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/checkmate.h"
#include "src/base/clock.h"
#include "src/base/heap.h"
#include "src/base/xalloc.h"

typedef uint64_t Mask;

typedef struct {
    Mask held;
    int64_t mem;        /* inputs and held values, bytes */
    double g;           /* cost so far */
    double h;           /* left(): the bound on what is left */
    int k;              /* the order's first runs done */
    int node;           /* position run to get here; -1 at the start */
    int parent;         /* state index; -1 at the start */
    int closed;
} State;

typedef struct {
    double f;
    int s;
} QItem;

/* The frontier: lowest f first. */
static inline int lower_f(const void *c, const QItem *a, const QItem *b)
{
    (void)c;
    return a->f < b->f;
}
HEAP_DEFINE(frontier, QItem, void, lower_f)

typedef struct {
    int m;
    Mask *in, *rd;      /* non-input inputs and readers of each position */
    Mask *useful;       /* useful[k]: values some later step may read once k nodes first ran */
    Mask *read_from;    /* read_from[k]: values read by a position >= k */
    Mask outs;
    int64_t *size, *ws;
    double *cost, *rest; /* rest[k]: the cost of positions k..m-1 */
    int64_t inputs, budget;
    /* states, a table from (held, k) to them, and the queue */
    State *st;
    int ns, cap;
    int *slot;
    size_t tcap;
    QItem *q;
    int nq, qcap;
} Search;

static size_t hash_state(Mask h, int k)
{
    uint64_t x = h ^ ((uint64_t)k * 0x9e3779b97f4a7c15ULL);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x;
}

static void table_grow(Search *S)
{
    free(S->slot);
    S->tcap = S->tcap ? 2 * S->tcap : 1024;
    S->slot = xcalloc(S->tcap, sizeof *S->slot);
    for (int i = 0; i < S->ns; i++) {
        size_t a = hash_state(S->st[i].held, S->st[i].k) & (S->tcap - 1);
        while (S->slot[a])
            a = (a + 1) & (S->tcap - 1);
        S->slot[a] = i + 1;
    }
}

static void q_push(Search *S, double f, int s)
{
    if (S->nq == S->qcap) {
        S->qcap = S->qcap ? 2 * S->qcap : 1024;
        S->q = xreallocarray(S->q, (size_t)S->qcap, sizeof *S->q);
    }
    frontier_push(S->q, &S->nq, (QItem){f, s}, NULL);
}

/* The lower bound on what is left from (held, k): the order's nodes not
 * yet run, and every value that must run again. A value that ran, is not
 * held and is read by a node not yet run (or is an output) must; so must
 * each input, not held, of a value that must (it reads it again). No move
 * takes more than its own cost off this: a rerun takes off at most its
 * node (its inputs are held when it runs), and a first run needs its
 * inputs held, so none of them is counted. */
static double left(const Search *S, Mask held, int k)
{
    double h = S->rest[k];
    Mask ran = k >= 64 ? ~(Mask)0 : ((Mask)1 << k) - 1, again = 0;
    for (Mask todo = (S->outs | S->read_from[k]) & ran & ~held; todo; todo &= ~again) {
        int j = 63 - __builtin_clzll(todo);
        again |= (Mask)1 << j;
        h += S->cost[j];
        todo |= S->in[j] & ~held;
    }
    return h;
}

/* Reach (held, k) at cost g from parent by running node; queue it when it
 * is new or cheaper and can still beat the cutoff. */
static void relax(Search *S, Mask held, int64_t mem, int k, double g, int parent, int node, double cut)
{
    if (2 * (size_t)(S->ns + 1) > S->tcap)
        table_grow(S);
    /* a state seen before keeps its bound; most moves reach one */
    size_t a = hash_state(held, k) & (S->tcap - 1);
    for (; S->slot[a]; a = (a + 1) & (S->tcap - 1)) {
        State *x = &S->st[S->slot[a] - 1];
        if (x->held == held && x->k == k) {
            if (g < x->g && !x->closed && g + x->h <= cut) {
                x->g = g;
                x->parent = parent;
                x->node = node;
                q_push(S, g + x->h, S->slot[a] - 1);
            }
            return;
        }
    }
    double h = left(S, held, k);
    if (g + h > cut)
        return;
    if (S->ns == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 1024;
        S->st = xreallocarray(S->st, (size_t)S->cap, sizeof *S->st);
    }
    S->st[S->ns] = (State){held, mem, g, h, k, node, parent, 0};
    S->slot[a] = ++S->ns;
    q_push(S, g + h, S->ns - 1);
}

static void search_index(Search *S, const Graph *g, const int *order, int m, int64_t budget)
{
    memset(S, 0, sizeof *S);
    S->m = m;
    S->in = xcalloc((size_t)m + 1, sizeof *S->in);
    S->rd = xcalloc((size_t)m + 1, sizeof *S->rd);
    S->useful = xcalloc((size_t)m + 1, sizeof *S->useful);
    S->read_from = xcalloc((size_t)m + 2, sizeof *S->read_from);
    S->size = xmallocarray((size_t)m + 1, sizeof *S->size);
    S->ws = xmallocarray((size_t)m + 1, sizeof *S->ws);
    S->cost = xmallocarray((size_t)m + 1, sizeof *S->cost);
    S->rest = xcalloc((size_t)m + 2, sizeof *S->rest);
    S->inputs = g->input_bytes;
    S->budget = budget;
    int *pos = xmallocarray((size_t)g->n + 1, sizeof *pos);
    for (int v = 0; v < g->n; v++)
        pos[v] = -1;
    for (int i = 0; i < m; i++)
        pos[order[i]] = i;
    for (int i = 0; i < m; i++) {
        const Node *nd = &g->nodes[order[i]];
        S->size[i] = nd->size;
        S->ws[i] = nd->workspace;
        S->cost[i] = nd->cost;
        if (g->is_output[order[i]])
            S->outs |= (Mask)1 << i;
        for (int q = g->in_off[order[i]]; q < g->in_off[order[i] + 1]; q++) {
            int j = pos[g->in_idx[q]];
            if (j >= 0) {
                S->in[i] |= (Mask)1 << j;
                S->rd[j] |= (Mask)1 << i;
            }
        }
    }
    free(pos);
    for (int i = m - 1; i >= 0; i--) {
        S->rest[i] = S->rest[i + 1] + S->cost[i];
        S->read_from[i] = S->read_from[i + 1] | S->in[i];
    }
    /* useful[k]: outputs, values a node not yet first run reads, and the
     * inputs of useful values (which may have to run again); readers come
     * later in the order, so one pass downwards */
    for (int k = 0; k <= m; k++) {
        Mask later = k >= 64 ? 0 : ~(Mask)0 << k;
        for (int j = m - 1; j >= 0; j--)
            if ((S->outs >> j & 1) || (S->rd[j] & later) || (S->rd[j] & S->useful[k]))
                S->useful[k] |= (Mask)1 << j;
    }
}

static void search_free(Search *S)
{
    free(S->in);
    free(S->rd);
    free(S->useful);
    free(S->read_from);
    free(S->size);
    free(S->ws);
    free(S->cost);
    free(S->rest);
    free(S->st);
    free(S->slot);
    free(S->q);
}

/* Every move from state u. */
static void expand(Search *S, int u, double cut)
{
    const State x = S->st[u];
    int top = x.k < S->m ? x.k : S->m - 1;
    for (int i = 0; i <= top; i++) {
        Mask bit = (Mask)1 << i;
        if ((x.held & bit) || (S->in[i] & ~x.held) || x.mem + S->size[i] + S->ws[i] > S->budget)
            continue;
        int k2 = i == x.k ? x.k + 1 : x.k;
        Mask touched = S->in[i] | bit, keep = touched & S->useful[k2];
        Mask held = (x.held | bit) & ~(touched & ~S->useful[k2]);
        int64_t mem = x.mem + S->size[i];
        for (Mask d = touched & ~S->useful[k2]; d; d &= d - 1)
            mem -= S->size[__builtin_ctzll(d)];
        /* every subset of the useful touched values dropped */
        for (Mask drop = keep;; drop = (drop - 1) & keep) {
            int64_t m2 = mem;
            for (Mask d = drop; d; d &= d - 1)
                m2 -= S->size[__builtin_ctzll(d)];
            relax(S, held & ~drop, m2, k2, x.g + S->cost[i], u, i, cut);
            if (!drop)
                break;
        }
    }
}

int order_search(const Graph *g, const int *order, int n, int64_t budget, double cutoff, double seconds,
                 long long max_states, Progress *p, Plan *out, double *cost, Err *e)
{
    if (n > ORDER_SEARCH_MAX)
        return err_set(e, ERR_LIMIT, "order search: %d nodes, more than %d", n, ORDER_SEARCH_MAX);
    Search S;
    search_index(&S, g, order, n, budget);
    /* ties with the cutoff stay: the plan in hand itself is found again */
    double cut = isfinite(cutoff) ? cutoff * (1 + 1e-12) + 1e-300 : INFINITY, t0 = clock_now();
    relax(&S, 0, S.inputs, 0, 0, -1, -1, cut);
    int rc = ERR_OVER_BUDGET, goal = -1;
    for (long long pops = 0; S.nq; pops++) {
        if ((pops & 1023) == 1023) {
            if (progress_cancelled(p)) {
                rc = err_set(e, ERR_CANCELLED, "order search: cancelled");
                break;
            }
            if (clock_now() - t0 > seconds) {
                rc = err_set(e, ERR_LIMIT, "order search: past %g s (%d states)", seconds, S.ns);
                break;
            }
        }
        if (S.ns > max_states) {
            rc = err_set(e, ERR_LIMIT, "order search: more than %lld states", max_states);
            break;
        }
        QItem it = frontier_pop(S.q, &S.nq, NULL);
        State *x = &S.st[it.s];
        if (x->closed)
            continue;   /* an older entry: the state was reached cheaper since, and taken */
        x->closed = 1;
        if (x->k == n && (x->held & S.outs) == S.outs) {
            goal = it.s;
            rc = ERR_OK;
            break;
        }
        expand(&S, it.s, cut);
    }
    if (rc == ERR_OVER_BUDGET)
        err_set(e, ERR_OVER_BUDGET, "order search: no plan in the order fits the budget%s",
                isfinite(cutoff) ? " at or below the cutoff" : "");
    if (rc == ERR_OK) {
        int T = 0;
        for (int s = goal; S.st[s].parent >= 0; s = S.st[s].parent)
            T++;
        plan_reset(out);
        for (int t = 0; t < T; t++)
            plan_push(out, 0);
        int t = T;
        for (int s = goal; S.st[s].parent >= 0; s = S.st[s].parent)
            out->steps[--t] = order[S.st[s].node];
        *cost = S.st[goal].g;
    }
    search_free(&S);
    return rc;
}
