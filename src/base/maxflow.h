/* maxflow.h — a minimum cut by maximum flow (Dinic's algorithm).
 *
 * Capacities are doubles (costs and sizes, scaled by the caller); a
 * capacity at or above MAXFLOW_INF is never cut. After maxflow_run the
 * source side of a minimum cut is what the residual graph still reaches
 * from the source (maxflow_source_side). */
#ifndef REMAT_MAXFLOW_H
#define REMAT_MAXFLOW_H

#define MAXFLOW_INF 1e30

typedef struct MaxFlow MaxFlow;

/* A network of n vertices (0 .. n-1) and no edges. */
MaxFlow *maxflow_new(int n);
/* Adds the edge a -> b of capacity cap (>= 0). */
void maxflow_edge(MaxFlow *f, int a, int b, double cap);
/* The maximum flow from s to t (at least MAXFLOW_INF when every cut
 * crosses an uncuttable edge). Marks the source side. */
double maxflow_run(MaxFlow *f, int s, int t);
/* After maxflow_run: 1 when v is on the source side of the minimum cut. */
int maxflow_source_side(const MaxFlow *f, int v);
void maxflow_free(MaxFlow *f);

#endif
