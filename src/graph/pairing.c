/* pairing.c — forward/backward pairing: grad_of, or inferred from the data
 * flow of a joint graph (pairing.h says how and why). */
#include <stdint.h>
#include <stdlib.h>

#include "src/graph/pairing.h"
#include "src/base/xalloc.h"

/* Forward ancestor bitsets (each forward node and its forward ancestors),
 * only up to this many forward nodes: 4096 take 2 MiB. Past it the
 * consumer check below is skipped and the plain rule stands. */
#define PAIRING_MAX_FWD 4096

static int has(const uint64_t *anc, const int *fid, size_t W, int u, int x)
{
    return (int)((anc[(size_t)fid[u] * W + ((size_t)fid[x] >> 6)] >> (fid[x] & 63)) & 1u);
}

/* 1 when forward node x lies at or before u: x is u or one of its forward
 * ancestors, or x is a side value (no forward or loss node reads it: saved
 * statistics, indices) whose forward inputs all are. */
static int below(const Graph *g, int x, int u, const uint64_t *anc, const int *fid, size_t W)
{
    int side = 1;
    for (int k = g->out_off[x]; k < g->out_off[x + 1] && side; k++) {
        Phase ph = g->nodes[g->out_idx[k]].phase;
        side = ph != PHASE_FWD && ph != PHASE_LOSS;
    }
    if (!side)
        return has(anc, fid, W, u, x);
    for (int k = g->in_off[x]; k < g->in_off[x + 1]; k++) {
        int w = g->in_idx[k];
        if (g->nodes[w].phase == PHASE_FWD && !has(anc, fid, W, u, w))
            return 0;
    }
    return 1;
}

/* 1 when the pair of every backward consumer of v lies at or before u. */
static int below_all(const Graph *g, int v, int u, const uint64_t *anc, const int *fid, size_t W)
{
    for (int q = g->out_off[v]; q < g->out_off[v + 1]; q++) {
        int c = g->out_idx[q], pc = g->nodes[c].pair;
        if (g->nodes[c].phase == PHASE_BWD && pc >= 0 && !below(g, pc, u, anc, fid, W))
            return 0;
    }
    return 1;
}

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
    int *pos = xmallocarray((size_t)n, sizeof *pos), *fid = xmallocarray((size_t)n, sizeof *fid);
    int nf = 0;
    for (int t = 0; t < n; t++) {
        int v = g->topo[t];
        pos[v] = t;
        fid[v] = g->nodes[v].phase == PHASE_FWD ? nf++ : -1;
    }
    size_t W = ((size_t)nf + 63) / 64;
    uint64_t *anc = NULL;
    if (nf > 0 && nf <= PAIRING_MAX_FWD) {
        anc = xcalloc((size_t)nf * W, sizeof *anc);
        for (int t = 0; t < n; t++) {
            int v = g->topo[t];
            if (fid[v] < 0)
                continue;
            uint64_t *a = anc + (size_t)fid[v] * W;
            a[fid[v] >> 6] |= (uint64_t)1 << (fid[v] & 63);
            for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
                int u = g->in_idx[k];
                if (fid[u] >= 0)
                    for (size_t w = 0; w < W; w++)
                        a[w] |= anc[(size_t)fid[u] * W + w];
            }
        }
    }
    /* consumers first: reverse topological order */
    for (int t = n - 1; t >= 0; t--) {
        int v = g->topo[t], best = -1, plain = -1, late = -1;
        g->nodes[v].pair = -1;
        if (g->nodes[v].phase != PHASE_BWD)
            continue;
        /* the latest pair among v's backward consumers */
        for (int k = g->out_off[v]; k < g->out_off[v + 1]; k++) {
            int c = g->out_idx[k], pc = g->nodes[c].pair;
            if (g->nodes[c].phase == PHASE_BWD && pc >= 0 && (late < 0 || pos[pc] > pos[late]))
                late = pc;
        }
        /* the latest forward input whose forward ancestors include every
         * consumer's pair: the gradient v computes flows on towards them */
        for (int k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
            int u = g->in_idx[k];
            if (g->nodes[u].phase != PHASE_FWD)
                continue;
            if (plain < 0 || pos[u] > pos[plain])
                plain = u;
            if (anc && !below_all(g, v, u, anc, fid, W))
                continue;
            if (best < 0 || pos[u] > pos[best])
                best = u;
        }
        if (best < 0 && anc && late >= 0 && below_all(g, v, late, anc, fid, W))
            best = late;   /* no forward input of its own fits: its consumers' line */
        g->nodes[v].pair = best >= 0 ? best : plain;
    }
    free(anc);
    free(pos);
    free(fid);
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
