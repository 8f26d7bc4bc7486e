/* maxflow.c — Dinic's maximum flow: breadth-first levels, then blocking
 * flows along level-increasing paths, each found by an explicit stack
 * (the networks here are graphs of thousands of nodes, deeper than a
 * recursion should go on a worker thread's stack). */
#include "src/base/maxflow.h"

#include <math.h>
#include <stdlib.h>

#include "src/base/xalloc.h"

/* Residual capacities below this are spent (the callers scale theirs to
 * about 1). */
#define EPS 1e-12

typedef struct {
    int to, next;
    double cap;
} Edge;

struct MaxFlow {
    int n, ne, cap_e;
    int *head, *level, *it, *queue, *path;
    Edge *e;
};

MaxFlow *maxflow_new(int n)
{
    MaxFlow *f = xcalloc(1, sizeof *f);
    f->n = n;
    f->head = xmallocarray((size_t)n + 1, sizeof *f->head);
    for (int v = 0; v < n; v++)
        f->head[v] = -1;
    f->level = xmallocarray((size_t)n + 1, sizeof *f->level);
    f->it = xmallocarray((size_t)n + 1, sizeof *f->it);
    f->queue = xmallocarray((size_t)n + 1, sizeof *f->queue);
    f->path = xmallocarray((size_t)n + 1, sizeof *f->path);
    return f;
}

static void add(MaxFlow *f, int a, int b, double cap)
{
    if (f->ne == f->cap_e) {
        f->cap_e = f->cap_e ? 2 * f->cap_e : 64;
        f->e = xreallocarray(f->e, (size_t)f->cap_e, sizeof *f->e);
    }
    f->e[f->ne] = (Edge){b, f->head[a], cap};
    f->head[a] = f->ne++;
}

void maxflow_edge(MaxFlow *f, int a, int b, double cap)
{
    /* an edge and its reverse sit side by side: e ^ 1 is the other */
    add(f, a, b, cap);
    add(f, b, a, 0);
}

/* Levels from s over residual edges; 1 when t is reached. */
static int levels(MaxFlow *f, int s, int t)
{
    for (int v = 0; v < f->n; v++)
        f->level[v] = -1;
    int qh = 0, qt = 0;
    f->level[s] = 0;
    f->queue[qt++] = s;
    while (qh < qt) {
        int u = f->queue[qh++];
        for (int k = f->head[u]; k >= 0; k = f->e[k].next)
            if (f->e[k].cap > EPS && f->level[f->e[k].to] < 0) {
                f->level[f->e[k].to] = f->level[u] + 1;
                f->queue[qt++] = f->e[k].to;
            }
    }
    return f->level[t] >= 0;
}

/* One blocking flow: paths along increasing levels, each augmented by its
 * bottleneck; a vertex with no way on leaves the level graph. */
static double blocking(MaxFlow *f, int s, int t)
{
    double total = 0;
    for (int v = 0; v < f->n; v++)
        f->it[v] = f->head[v];
    int depth = 0, u = s;
    for (;;) {
        if (u == t) {
            double b = INFINITY;
            for (int i = 0; i < depth; i++)
                b = fmin(b, f->e[f->path[i]].cap);
            if (b >= MAXFLOW_INF)
                return total + b;   /* no finite cut */
            int cut = depth;
            for (int i = 0; i < depth; i++) {
                Edge *x = &f->e[f->path[i]];
                if (x->cap < MAXFLOW_INF)
                    x->cap -= b;
                if (f->e[f->path[i] ^ 1].cap < MAXFLOW_INF)
                    f->e[f->path[i] ^ 1].cap += b;
                if (x->cap <= EPS && cut == depth)
                    cut = i;
            }
            total += b;
            /* back to the tail of the first edge the path used up */
            depth = cut;
            u = depth ? f->e[f->path[depth - 1]].to : s;
            continue;
        }
        int k = f->it[u];
        while (k >= 0 && !(f->e[k].cap > EPS && f->level[f->e[k].to] == f->level[u] + 1))
            k = f->e[k].next;
        f->it[u] = k;
        if (k >= 0) {
            f->path[depth++] = k;
            u = f->e[k].to;
            continue;
        }
        f->level[u] = -1;
        if (depth == 0)
            return total;
        depth--;
        u = depth ? f->e[f->path[depth - 1]].to : s;
        f->it[u] = f->e[f->it[u]].next;
    }
}

double maxflow_run(MaxFlow *f, int s, int t)
{
    double total = 0;
    while (levels(f, s, t) && total < MAXFLOW_INF)
        total += blocking(f, s, t);
    /* the source side: what the residual graph still reaches */
    levels(f, s, t);
    return total;
}

int maxflow_source_side(const MaxFlow *f, int v)
{
    return f->level[v] >= 0;
}

void maxflow_free(MaxFlow *f)
{
    if (!f)
        return;
    free(f->head);
    free(f->level);
    free(f->it);
    free(f->queue);
    free(f->path);
    free(f->e);
    free(f);
}
