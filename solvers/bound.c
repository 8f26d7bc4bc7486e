/* bound.c — the lower bound of src/plan/bound.h: the cover bound of
 * solvers/checkmate/cover.c behind one cache keyed by (graph content,
 * order, budget), so auto, the command line and the compare view never
 * solve the same cover twice. */
#include "src/plan/bound.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/checkmate/checkmate.h"
#include "solvers/checkmate/model.h"
#include "src/base/clock.h"
#include "src/plan/sim.h"

/* Answers kept; the least recently used goes first. A bound at one budget
 * is a few bytes: this holds every budget a long slider session visits. */
#define BOUND_CACHE_MAX 256

typedef struct BoundEntry {
    uint64_t graph, order;  /* fingerprints; order 0: the graph's own */
    int64_t budget;
    double seconds;         /* what it was solved with */
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

static uint64_t order_print(const int *ord, int n)
{
    uint64_t h = mix(7, (uint64_t)n);
    for (int i = 0; i < n; i++)
        h = mix(h, (uint64_t)ord[i]);
    return h ? h : 1;
}

static BoundEntry *find(uint64_t gp, uint64_t op, int64_t budget)
{
    for (int i = 0; i < n_cache; i++)
        if (cache[i].graph == gp && cache[i].order == op && cache[i].budget == budget)
            return &cache[i];
    return NULL;
}

/* Copy a cached answer out; 1 when there is one good for `seconds`. */
static int lookup(uint64_t gp, uint64_t op, int64_t budget, double seconds, double *lb, int *rc, Err *e)
{
    pthread_mutex_lock(&mu);
    BoundEntry *b = find(gp, op, budget);
    /* an answer that ran out of time may come with more of it */
    int hit = b && (b->rc != ERR_LIMIT || b->seconds >= seconds);
    if (hit) {
        b->stamp = ++stamp;
        *lb = b->lb;
        *rc = b->rc;
        if (b->rc)
            err_set(e, b->rc, "%s", b->msg);
    }
    pthread_mutex_unlock(&mu);
    return hit;
}

static void store(uint64_t gp, uint64_t op, int64_t budget, double seconds, int rc, double lb, const Err *e)
{
    if (rc == ERR_CANCELLED || rc == ERR_IO)
        return;
    pthread_mutex_lock(&mu);
    BoundEntry *b = find(gp, op, budget);
    if (b && b->rc == ERR_OK && (rc != ERR_OK || b->lb >= lb)) {
        pthread_mutex_unlock(&mu);      /* keep the stronger bound */
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
    *b = (BoundEntry){.graph = gp, .order = op, .budget = budget, .seconds = seconds, .rc = rc, .lb = lb,
                      .stamp = ++stamp};
    if (rc && e)
        snprintf(b->msg, sizeof b->msg, "%.199s", e->msg);
    pthread_mutex_unlock(&mu);
}

void bound_cover_remember(const Graph *g, int64_t budget, double seconds, double lb)
{
    if (lb > 0)
        store(graph_print(g), 0, budget, seconds, ERR_OK, lb, NULL);
}

int bound_cover_known(const Graph *g, int64_t budget, int *rc, double *lb, Err *e)
{
    *lb = -1;
    return lookup(graph_print(g), 0, budget, 0, lb, rc, e);
}

void bound_cache_clear(void)
{
    pthread_mutex_lock(&mu);
    n_cache = 0;
    pthread_mutex_unlock(&mu);
}

/* The graph order's bound, cached. */
static int graph_bound(const Graph *g, uint64_t gp, int64_t budget, double seconds, Progress *p, double *lb, Err *e)
{
    int rc;
    if (lookup(gp, 0, budget, seconds, lb, &rc, e))
        return rc;
    if (seconds <= 0)
        return err_set(e, ERR_LIMIT, "bound: not computed yet");
    int n;
    int *ord = sim_baseline_order(g, &n);
    *lb = -1;
    rc = cover_bound(g, ord, n, budget, seconds, p, lb, e);
    free(ord);
    store(gp, 0, budget, seconds, rc, *lb, e);
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

int bound_cover(const Graph *g, const int *steps, int T, int64_t budget, double seconds, Progress *p,
                double *lb, Err *e)
{
    *lb = -1;
    uint64_t gp = graph_print(g);
    double gb = -1, t0 = clock_now();
    Err ge;
    err_clear(&ge);
    int grc = graph_bound(g, gp, budget, seconds, p, &gb, &ge);
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
    if (op && lookup(gp, op, budget, seconds, lb, &rc, e))
        return rc;
    /* the two orders share the seconds given */
    double left = seconds - (clock_now() - t0);
    if (seconds <= 0 || left < 0.05)
        return err_set(e, ERR_LIMIT, seconds <= 0 ? "bound: not computed yet" : "no cover bound within %g s", seconds);
    rc = cover_bound_plan(g, steps, T, budget, grc == ERR_OK ? gb : -1, left, p, lb, e);
    if (op)
        store(gp, op, budget, left, rc, *lb, e);
    return rc;
}
