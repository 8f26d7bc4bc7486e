/* layout.h — node positions for the explorer's graph view, from Graphviz's
 * dot layout of export_dot's drawing (so clusters and ranks match the
 * exported pictures). Plain numbers out; no Graphviz types leak. */
#ifndef REMAT_LAYOUT_H
#define REMAT_LAYOUT_H

#include "src/err.h"
#include "src/graph.h"
#include "src/overlay.h"
#include "src/plan.h"

typedef struct Layout {
    int n;                  /* g->n */
    double *x, *y;          /* centre of node i in points (y up); NAN when not placed */
    double width, height;   /* bounding box, origin at (0, 0) */
} Layout;

/* Lay out g (plan and ov may be NULL, as for export_dot) with "dot".
 * ERR_INVALID when Graphviz cannot read or place it. Free with layout_done. */
int layout_graph(const Graph *g, const Plan *plan, const Overlay *ov, Layout *out, Err *e);
void layout_done(Layout *l);

#endif
