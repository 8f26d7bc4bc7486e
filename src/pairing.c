/* pairing.c — forward/backward pairing: grad_of, or inferred from the data
 * flow of a joint graph (pairing.h says how and why). */
#include <stdlib.h>

#include "src/pairing.h"
#include "src/xalloc.h"

void pairing_fill(Graph *g)
{
    int n = g->n, named = 0;
    for (int v = 0; v < n; v++)
        named |= g->nodes[v].grad_of >= 0;
    if (named) {
        for (int v = 0; v < n; v++)
            g->nodes[v].pair = g->nodes[v].grad_of;
        return;
    }
    int *pos = xmallocarray((size_t)n, sizeof *pos);
    for (int t = 0; t < n; t++)
        pos[g->topo[t]] = t;
    for (int v = 0; v < n; v++) {
        int best = -1;
        if (g->nodes[v].phase == PHASE_BWD)
            for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
                int u = g->in_idx[k];
                if (g->nodes[u].phase == PHASE_FWD && (best < 0 || pos[u] > pos[best]))
                    best = u;
            }
        g->nodes[v].pair = best;
    }
    free(pos);
}

int pairing_require(const Graph *g, const char *who, Err *e)
{
    for (int v = 0; v < g->n; v++)
        if (g->nodes[v].phase == PHASE_BWD && g->nodes[v].pair >= 0)
            return ERR_OK;
    return err_set(e, ERR_UNSUPPORTED,
                   "%s: not a training graph (no bwd node names a forward node in grad_of or reads "
                   "one), so there is no backward pass to recompute for",
                   who);
}
