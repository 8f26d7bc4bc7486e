/* transform.c — builds the training graph of a forward-only graph. Names of
 * the added nodes get a numeric suffix if the forward graph already uses
 * them ("loss" -> "loss.1"), so any forward graph can be transformed. */
#include "src/graph/transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"

/* A name used by none of the graphs given (taken may be NULL); callers
 * record it right away so the next call sees it. Hash lookups keep the
 * transform linear in the graph's size. */
static char *fresh_name(const Graph *g, const Graph *out, const Graph *taken, const char *base)
{
    size_t n = strlen(base) + 24;
    char *s = xmalloc(n);
    snprintf(s, n, "%s", base);
    for (int k = 1; graph_find(g, s) >= 0 || graph_find(out, s) >= 0 ||
                    (taken && graph_find(taken, s) >= 0);
         k++)
        snprintf(s, n, "%s.%d", base, k);
    return s;
}

Graph *graph_make_training(const Graph *fwd, Err *e)
{
    if (!graph_is_forward_only(fwd)) {
        err_set(e, ERR_INVALID, "graph '%s' already has loss or bwd nodes; the transform takes a "
                "forward-only graph (input and fwd nodes)", fwd->name);
        return NULL;
    }
    int nf = 0;
    for (int v = 0; v < fwd->n; v++)
        nf += fwd->nodes[v].phase == PHASE_FWD;
    if (!nf) {
        err_set(e, ERR_INVALID, "graph '%s' has no fwd node to differentiate", fwd->name);
        return NULL;
    }
    Graph *g = graph_new();
    char name[512];
    snprintf(name, sizeof name, "%s%s", fwd->name, fwd->name[0] ? "-train" : "train");
    char src[1024];
    snprintf(src, sizeof src, "training transform of %s%s%s", fwd->name[0] ? fwd->name : "a forward graph",
             fwd->source[0] ? "; " : "", fwd->source);
    graph_set_info(g, name, src, fwd->cost_unit, fwd->size_unit);

    Err ne;
    for (int v = 0; v < fwd->n; v++) {
        const Node *nd = &fwd->nodes[v];
        graph_add_node(g, nd->id, nd->op, nd->phase, nd->size, nd->cost, nd->workspace, NULL, &ne);
        for (int k = fwd->in_off[v]; k < fwd->in_off[v + 1]; k++)
            graph_add_input_name(g, v, fwd->nodes[fwd->in_idx[k]].id);
    }
    /* forward outputs feed the loss */
    char *loss = fresh_name(fwd, g, NULL, "loss");
    int lv = graph_add_node(g, loss, "loss", PHASE_LOSS, 1, 1, 0, NULL, &ne);
    for (int i = 0; i < fwd->n_outputs; i++)
        graph_add_input_name(g, lv, fwd->nodes[fwd->outputs[i]].id);

    /* names of gradient nodes, chosen before any is added so that consumers
     * can refer to them regardless of order */
    char **gname = xcalloc((size_t)fwd->n, sizeof *gname);
    Graph *taken = graph_new(); /* only its id map is used: the names chosen so far */
    for (int v = 0; v < fwd->n; v++)
        if (fwd->nodes[v].phase == PHASE_FWD) {
            char base[600];
            snprintf(base, sizeof base, "%s.grad", fwd->nodes[v].id);
            gname[v] = fresh_name(fwd, g, taken, base);
            graph_add_node(taken, gname[v], NULL, PHASE_FWD, 0, 0, 0, NULL, &ne);
        }
    graph_free(taken);
    /* backward nodes in reverse topological order of the forward part */
    for (int i = fwd->n - 1; i >= 0; i--) {
        int v = fwd->topo[i];
        const Node *nd = &fwd->nodes[v];
        if (nd->phase != PHASE_FWD)
            continue;
        char op[300];
        snprintf(op, sizeof op, "%s_bwd", nd->op);
        int b = graph_add_node(g, gname[v], op, PHASE_BWD, nd->size, nd->cost, nd->workspace, NULL,
                               &ne);
        if (fwd->is_output[v])
            graph_add_input_name(g, b, loss);
        for (int k = fwd->out_off[v]; k < fwd->out_off[v + 1]; k++) {
            int c = fwd->out_idx[k];
            if (gname[c])
                graph_add_input_name(g, b, gname[c]);
        }
        for (int k = fwd->in_off[v]; k < fwd->in_off[v + 1]; k++)
            graph_add_input_name(g, b, fwd->nodes[fwd->in_idx[k]].id);
        graph_add_input_name(g, b, nd->id);
        graph_set_grad_of_name(g, b, nd->id);
    }
    free(loss);
    int rc = graph_finalize(g, e);
    for (int v = 0; v < fwd->n; v++)
        free(gname[v]);
    free(gname);
    if (rc) {
        graph_free(g);
        return NULL;
    }
    return g;
}
