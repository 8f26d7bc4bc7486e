/* bound.c — the lower bound of src/plan/bound.h: the cover bound of
 * solvers/checkmate/cover.c behind one cache keyed by (graph content,
 * order, budget), so auto, the command line and the compare view never
 * solve the same cover twice. */
#include "src/plan/bound.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/model.h"
#include "src/base/clock.h"
#include "src/plan/sim.h"
#include "src/base/xalloc.h"

/* Answers kept; the least recently used goes first. A bound at one budget
 * is a few bytes: this holds every budget a long slider session visits. */
#define BOUND_CACHE_MAX 256

/* Seconds from which a bound solved without the cascade rows (remembered
 * from the cover's plan, or out of time for them) is solved again whole:
 * the explorer's and the command line's BOUND_SECONDS do; auto's last
 * fraction of a second does not. */
#define PARTIAL_REDO 1.0

typedef struct BoundEntry {
    uint64_t graph, order;  /* fingerprints; order 0: the graph's own */
    int64_t budget;
    double seconds;         /* what it was solved with */
    int partial;            /* without the cascade rows (cascade.c): remembered from the cover's
                             * plan, or they did not finish */
    int rc;
    double lb;
    char msg[200];
    unsigned stamp;
} BoundEntry;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static BoundEntry cache[BOUND_CACHE_MAX];
static int n_cache;
static unsigned stamp;

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* The graph's content: what a bound depends on (sizes, costs, edges,
 * outputs), so a scaled or reloaded copy is told apart and an identical
 * one is not. */
static uint64_t graph_print(const Graph *g)
{
    uint64_t h = mix(1469598103934665603ull, (uint64_t)g->n);
    for (int v = 0; v < g->n; v++) {
        const Node *nd = &g->nodes[v];
        uint64_t c;
        memcpy(&c, &nd->cost, sizeof c);
        h = mix(mix(mix(mix(h, (uint64_t)nd->size), c), (uint64_t)nd->workspace), (uint64_t)nd->phase);
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            h = mix(h, (uint64_t)g->in_idx[k]);
        h = mix(h, g->is_output[v]);
    }
    return h;
}

/* The cache's key for the bound over every order (bound_any_cost). */
#define ANY_ORDER UINT64_MAX

static uint64_t order_print(const int *ord, int n)
{
    uint64_t h = mix(7, (uint64_t)n);
    for (int i = 0; i < n; i++)
        h = mix(h, (uint64_t)ord[i]);
    return h && h != ANY_ORDER ? h : 1;
}

static BoundEntry *find(uint64_t gp, uint64_t op, int64_t budget)
{
    for (int i = 0; i < n_cache; i++)
        if (cache[i].graph == gp && cache[i].order == op && cache[i].budget == budget)
            return &cache[i];
    return NULL;
}

/* Copy a cached answer out; 1 when there is one good for `seconds`
 * (*partial, when not NULL: it was solved without the cascade rows). */
static int lookup(uint64_t gp, uint64_t op, int64_t budget, double seconds, double *lb, int *rc, int *partial,
                  Err *e)
{
    pthread_mutex_lock(&mu);
    BoundEntry *b = find(gp, op, budget);
    /* an answer that ran out of time may come with more of it, and one
     * without the cascade rows with the time they need */
    int hit = b && (b->rc != ERR_LIMIT || b->seconds >= seconds) &&
              (!b->partial || seconds < PARTIAL_REDO || b->seconds >= seconds);
    if (hit) {
        b->stamp = ++stamp;
        *lb = b->lb;
        *rc = b->rc;
        if (partial)
            *partial = b->partial;
        if (b->rc)
            err_set(e, b->rc, "%s", b->msg);
    }
    pthread_mutex_unlock(&mu);
    return hit;
}

static void store(uint64_t gp, uint64_t op, int64_t budget, double seconds, int partial, int rc, double lb,
                  const Err *e)
{
    if (rc == ERR_CANCELLED || rc == ERR_IO)
        return;
    pthread_mutex_lock(&mu);
    BoundEntry *b = find(gp, op, budget);
    if (b && b->rc == ERR_OK && (rc != ERR_OK || b->lb >= lb)) {
        /* keep the stronger bound; solved whole, it is no longer partial,
         * and tried with more time, not asked again for less */
        if (rc == ERR_OK && !partial)
            b->partial = 0;
        if (seconds > b->seconds)
            b->seconds = seconds;
        pthread_mutex_unlock(&mu);
        return;
    }
    if (!b && n_cache < BOUND_CACHE_MAX)
        b = &cache[n_cache++];
    if (!b) {
        b = &cache[0];
        for (int i = 1; i < n_cache; i++)
            if (cache[i].stamp < b->stamp)
                b = &cache[i];
    }
    *b = (BoundEntry){.graph = gp, .order = op, .budget = budget, .seconds = seconds, .partial = partial,
                      .rc = rc, .lb = lb, .stamp = ++stamp};
    if (rc && e)
        snprintf(b->msg, sizeof b->msg, "%.199s", e->msg);
    pthread_mutex_unlock(&mu);
}

void bound_cover_remember(const Graph *g, int64_t budget, double seconds, double lb)
{
    if (lb > 0)
        store(graph_print(g), 0, budget, seconds, 1, ERR_OK, lb, NULL);
}

int bound_cover_known(const Graph *g, int64_t budget, double seconds, int *rc, double *lb, int *every, Err *e)
{
    *lb = -1;
    uint64_t gp = graph_print(g);
    int hit = lookup(gp, 0, budget, seconds, lb, rc, NULL, e), arc, any = 0;
    double ab;
    Err ae;
    /* raised to the bound over every order, as bound_cover's answer was */
    if (hit && *rc == ERR_OK && lookup(gp, ANY_ORDER, budget, 0, &ab, &arc, NULL, &ae) && arc == ERR_OK &&
        ab >= *lb * (1 - 1e-12)) {
        *lb = ab > *lb ? ab : *lb;
        any = 1;
    }
    if (every)
        *every = any;
    return hit;
}

void bound_cache_clear(void)
{
    pthread_mutex_lock(&mu);
    n_cache = 0;
    pthread_mutex_unlock(&mu);
}

/* The graph order's bound, cached; *whole: with the cascade rows. */
static int graph_bound(const Graph *g, uint64_t gp, int64_t budget, double seconds, Progress *p, double *lb,
                       int *whole, Err *e)
{
    int rc, partial = 0;
    *whole = 0;
    if (lookup(gp, 0, budget, seconds, lb, &rc, &partial, e)) {
        *whole = !partial;
        return rc;
    }
    if (seconds <= 0)
        return err_set(e, ERR_LIMIT, "bound: not computed yet");
    int n;
    int *ord = sim_baseline_order(g, &n);
    *lb = -1;
    rc = cover_bound(g, ord, n, budget, seconds, p, lb, whole, e);
    free(ord);
    store(gp, 0, budget, seconds, !*whole, rc, *lb, e);
    /* the cache keeps the stronger of this and a bound remembered from the
     * cover's plan, which holds as well */
    double kept;
    int krc;
    Err ke;
    if (rc != ERR_CANCELLED && lookup(gp, 0, budget, 0, &kept, &krc, NULL, &ke) && krc == ERR_OK && kept > *lb) {
        *lb = kept;
        *whole = 0;
        rc = ERR_OK;
    }
    return rc;
}

int bound_same_order(const Graph *g, const int *steps, int T)
{
    int n, m;
    int *own = cm_order_of(g, steps, T, &m);
    int *ord = sim_baseline_order(g, &n);
    int same = own && m == n && !memcmp(own, ord, (size_t)n * sizeof *ord);
    free(own);
    free(ord);
    return same;
}

/* The bound over every order, cached (partial: not every X was tried in
 * the time it had, so more time may raise it). */
static int any_bound(const Graph *g, uint64_t gp, int64_t budget, double seconds, Progress *p, double *lb, Err *e)
{
    int rc, whole;
    *lb = -1;
    if (lookup(gp, ANY_ORDER, budget, seconds, lb, &rc, NULL, e))
        return rc;
    if (seconds <= 0)
        return err_set(e, ERR_LIMIT, "bound: not computed yet");
    rc = bound_any_cost(g, budget, seconds, p, lb, NULL, &whole, e);
    store(gp, ANY_ORDER, budget, seconds, !whole, rc, *lb, e);
    return rc;
}

int bound_any(const Graph *g, int64_t budget, double seconds, Progress *p, double *lb, Err *e)
{
    return any_bound(g, graph_print(g), budget, seconds, p, lb, e);
}

/* The cover bound over the order(s), before the bound over every order
 * is folded in. */
static int orders_bound(const Graph *g, uint64_t gp, const int *steps, int T, int64_t budget, double seconds,
                        Progress *p, double *lb, Err *e)
{
    *lb = -1;
    double gb = -1, t0 = clock_now();
    Err ge;
    err_clear(&ge);
    int gwhole, grc = graph_bound(g, gp, budget, seconds, p, &gb, &gwhole, &ge);
    if (!steps || grc == ERR_CANCELLED || grc == ERR_IO || (grc == ERR_LIMIT && seconds <= 0)) {
        *lb = gb;
        if (grc && e)
            *e = ge;
        return grc;
    }
    /* the plan's own order, when it is not the graph's */
    if (bound_same_order(g, steps, T)) {
        *lb = gb;
        if (grc && e)
            *e = ge;
        return grc;
    }
    int m;
    int *own = cm_order_of(g, steps, T, &m);
    uint64_t op = own ? order_print(own, m) : 0;
    free(own);
    int rc;
    if (op && lookup(gp, op, budget, seconds, lb, &rc, NULL, e))
        return rc;
    /* the two orders share the seconds given */
    double left = seconds - (clock_now() - t0);
    if (seconds <= 0 || left < 0.05)
        return err_set(e, ERR_LIMIT, seconds <= 0 ? "bound: not computed yet" : "no cover bound within %g s", seconds);
    int whole;
    rc = cover_bound_plan(g, steps, T, budget, grc == ERR_OK ? gb : -1, left, p, lb, &whole, e);
    if (op)
        store(gp, op, budget, left, !(whole && (gwhole || grc != ERR_OK)), rc, *lb, e);
    return rc;
}

/* The bound over every order holds for every plan, so the orders' bound
 * is at least it; where the cover found none in time, it stands alone.
 * It gets what the orders leave of `seconds` (on bench_paper's graphs at
 * 25 % it is the stronger one at vit_b_16, +22.49 % against +22.39 %). */
int bound_cover(const Graph *g, const int *steps, int T, int64_t budget, double seconds, Progress *p,
                double *lb, Err *e)
{
    uint64_t gp = graph_print(g);
    double t0 = clock_now();
    int rc = orders_bound(g, gp, steps, T, budget, seconds, p, lb, e);
    if (rc != ERR_OK && rc != ERR_LIMIT)
        return rc;
    /* asked for any time at all, its first X always (a few hundredths of
     * a second on the samples, 0.4 s on 8K nodes): the rest, what is left */
    double ab, left = seconds - (clock_now() - t0);
    Err ae;
    err_clear(&ae);
    if (any_bound(g, gp, budget, seconds > 0 ? fmax(left, 1e-3) : 0, p, &ab, &ae) == ERR_OK && ab > *lb) {
        *lb = ab;
        if (rc != ERR_OK && e)
            err_clear(e);
        rc = ERR_OK;
    }
    return rc;
}

/* ---- the peak bound ------------------------------------------------------ */

typedef struct {
    int64_t key, fp, size;  /* key = fp - size: larger first */
} Made;

static int made_first(const void *a, const void *b)
{
    const Made *x = a, *y = b;
    return x->key < y->key ? 1 : x->key > y->key ? -1 : 0;
}

/* min over the orders of max_k (sizes made before k + fp_k): the order of
 * decreasing fp - size is optimal (exchange argument). */
static int64_t made_last(Made *m, int n)
{
    qsort(m, (size_t)n, sizeof *m, made_first);
    int64_t held = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        int64_t x = bytes_add(held, m[i].fp);
        worst = x > worst ? x : worst;
        held = bytes_add(held, m[i].size);
    }
    return worst;
}

int64_t bound_min_peak(const Graph *g, int *node)
{
    int arg = -1;
    int64_t best = graph_min_peak(g, &arg) - g->input_bytes;
    if (g->n == 0) {
        if (node)
            *node = arg;
        return g->input_bytes;
    }
    /* the nodes some output needs (graph_min_peak's too) */
    unsigned char *need = xcalloc((size_t)g->n, 1), *mark = xcalloc((size_t)g->n, 1);
    int *stack = xmallocarray((size_t)g->n, sizeof *stack), sp = 0;
    for (int i = 0; i < g->n_outputs; i++)
        if (!need[g->outputs[i]]) {
            need[g->outputs[i]] = 1;
            stack[sp++] = g->outputs[i];
        }
    while (sp) {
        int v = stack[--sp];
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            if (!need[g->in_idx[k]]) {
                need[g->in_idx[k]] = 1;
                stack[sp++] = g->in_idx[k];
            }
    }
    int maxdeg = g->n_outputs;
    for (int v = 0; v < g->n; v++)
        if (g->in_off[v + 1] - g->in_off[v] > maxdeg)
            maxdeg = g->in_off[v + 1] - g->in_off[v];
    Made *m = xmallocarray((size_t)maxdeg + 1, sizeof *m);
    /* the footprint of making x, leaving out values marked (counted as
     * held already) and resident inputs */
#define FOOTPRINT(x, fp)                                                                   \
    do {                                                                                   \
        fp = bytes_add(g->nodes[x].size, g->nodes[x].workspace);                           \
        for (int j = g->in_off[x]; j < g->in_off[x + 1]; j++) {                            \
            int w = g->in_idx[j];                                                          \
            if (g->nodes[w].phase != PHASE_INPUT && !mark[w])                              \
                fp = bytes_add(fp, g->nodes[w].size);                                      \
        }                                                                                  \
    } while (0)
    for (int v = 0; v < g->n; v++) {
        if (g->nodes[v].phase == PHASE_INPUT || !need[v])
            continue;
        int n = 0;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            mark[g->in_idx[k]] = 1;
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int x = g->in_idx[k];
            if (g->nodes[x].phase == PHASE_INPUT)
                continue;
            /* x's own footprint counts x itself once: unmark it */
            mark[x] = 0;
            int64_t fp;
            FOOTPRINT(x, fp);
            mark[x] = 1;
            m[n++] = (Made){fp - g->nodes[x].size, fp, g->nodes[x].size};
        }
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++)
            mark[g->in_idx[k]] = 0;
        int64_t x = made_last(m, n);
        if (x > best) {
            best = x;
            arg = v;
        }
    }
    /* the outputs, the last made of which finds all others held */
    for (int i = 0; i < g->n_outputs; i++)
        mark[g->outputs[i]] = 1;
    int n = 0;
    for (int i = 0; i < g->n_outputs; i++) {
        int o = g->outputs[i];
        if (g->nodes[o].phase == PHASE_INPUT)
            continue;
        mark[o] = 0;
        int64_t fp;
        FOOTPRINT(o, fp);
        mark[o] = 1;
        m[n++] = (Made){fp - g->nodes[o].size, fp, g->nodes[o].size};
    }
#undef FOOTPRINT
    int64_t x = made_last(m, n);
    if (x > best) {
        best = x;
        arg = -1;
    }
    free(m);
    free(need);
    free(mark);
    free(stack);
    if (node)
        *node = arg;
    return bytes_add(g->input_bytes, best);
}
