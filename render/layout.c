/* layout.c — runs gvLayout("dot") on export_dot's text and reads every
 * node's centre (ND_coord) and the bounding box (GD_bb) back into a
 * Layout, mapping Graphviz node names to graph node indices by id. Effort
 * limits keep a few hundred nodes under a second. */
#include "render/layout.h"

#include <graphviz/gvc.h>
#include <math.h>
#include <stdlib.h>

#include "render/export.h"
#include "src/xalloc.h"

int layout_graph(const Graph *g, const Plan *plan, const Overlay *ov, Layout *out, Err *e)
{
    out->n = g->n;
    out->x = xmallocarray((size_t)(g->n ? g->n : 1), sizeof *out->x);
    out->y = xmallocarray((size_t)(g->n ? g->n : 1), sizeof *out->y);
    out->width = out->height = 0;
    for (int i = 0; i < g->n; i++)
        out->x[i] = out->y[i] = NAN;
    char *dot = export_dot(g, plan, ov);
    GVC_t *gvc = gvContext();
    Agraph_t *ag = agmemread(dot);
    free(dot);
    if (!ag) {
        gvFreeContext(gvc);
        layout_done(out);
        return err_set(e, ERR_INVALID, "Graphviz cannot read the drawing of %s", g->name);
    }
    /* dot's default effort (crossing minimisation, network simplex to
     * convergence, spline routing) takes minutes on a few hundred nodes;
     * the terminal view needs ranks and a rough order, not splines */
    agsafeset(ag, (char *)"mclimit", (char *)"0.05", (char *)"");
    agsafeset(ag, (char *)"nslimit", (char *)"0.5", (char *)"");
    agsafeset(ag, (char *)"nslimit1", (char *)"0.5", (char *)"");
    agsafeset(ag, (char *)"searchsize", (char *)"10", (char *)"");
    agsafeset(ag, (char *)"splines", (char *)"false", (char *)"");
    if (gvLayout(gvc, ag, "dot") != 0) {
        agclose(ag);
        gvFreeContext(gvc);
        layout_done(out);
        return err_set(e, ERR_INVALID, "Graphviz cannot lay out %s", g->name);
    }
    boxf bb = GD_bb(ag);
    out->width = bb.UR.x - bb.LL.x;
    out->height = bb.UR.y - bb.LL.y;
    for (Agnode_t *nd = agfstnode(ag); nd; nd = agnxtnode(ag, nd)) {
        int i = graph_find(g, agnameof(nd));
        if (i < 0)
            continue;
        out->x[i] = ND_coord(nd).x - bb.LL.x;
        out->y[i] = ND_coord(nd).y - bb.LL.y;
    }
    gvFreeLayout(gvc, ag);
    agclose(ag);
    gvFreeContext(gvc);
    return ERR_OK;
}

void layout_done(Layout *l)
{
    free(l->x);
    free(l->y);
    l->x = l->y = NULL;
    l->n = 0;
}
