/* kusumoto_emit.c — the canonical strategy of a lower-set chain as a
 * schedule (Kusumoto et al. 2019 §3).
 *
 * Forward: blocks V_1..V_k in order, each in topological order. Nothing is
 * freed by hand: under the spec's semantics a value lives until its last
 * read before it is produced again, so the values of V_i \ ∂(L_i), which
 * the backward produces anew, die after their last forward read, and the
 * boundary ∂(L_i) ∩ V_i (never recomputed) stays until its last read.
 *
 * Backward, for i = k..1: recompute V_i \ ∂(L_i) (for i < k; V_k is still
 * in memory), then run the non-forward nodes of slot i. The recomputation
 * skips values nothing later reads (liveness analysis in the paper's
 * terms), which only lowers cost and memory.
 *
 * Slots of non-forward nodes: a gradient node goes with the block of the
 * forward node it pairs with (grad_of, or src/graph/pairing.h's inference); the
 * loss goes first (slot k, right after the last forward block); every node
 * must come no earlier than its non-forward inputs, so its slot is at most
 * theirs. A node paired with none (a parameter gradient, a gradient sum)
 * runs just before its first consumer, or as soon as its inputs allow when
 * nothing reads it. */
#include <stdlib.h>
#include <string.h>

#include "solvers/kusumoto/kusumoto.h"
#include "src/base/csr.h"
#include "src/base/xalloc.h"

static int is_work(const Graph *g, int v)
{
    return g->nodes[v].phase != PHASE_INPUT && g->nodes[v].phase != PHASE_FWD;
}

/* Nodes with key in 1..k, bucketed by key, each bucket in topological
 * order: (*ord)[(*boff)[i] .. (*boff)[i+1]); the caller frees both. */
static void bucket(const Graph *g, const int *key, int k, const unsigned char *pick, int **boff,
                   int **ord)
{
    Csr c;
    csr_begin(&c, k + 1);
    do
        for (int t = 0; t < g->n; t++) {
            int v = g->topo[t];
            if (pick[v])
                csr_put(&c, key[v], v);
        }
    while (csr_next(&c));
    *boff = c.off;
    *ord = c.adj;
}

void kus_emit(const Graph *g, const KusFamily *f, const int *chain, int k, Plan *out, int *blkout)
{
    int n = g->n;
    int *blk = xcalloc((size_t)n, sizeof *blk);
    for (int i = 0; i < k; i++) {
        const uint64_t *cur = f->bits + (size_t)chain[i] * (size_t)f->words;
        const uint64_t *prev = i ? f->bits + (size_t)chain[i - 1] * (size_t)f->words : NULL;
        for (int w = 0; w < f->words; w++)
            for (uint64_t m = cur[w] & ~(prev ? prev[w] : 0); m; m &= m - 1)
                blk[f->fwd[w * 64 + __builtin_ctzll(m)]] = i + 1;
    }
    /* cached: a forward value read by a later block is in ∂(L_i) */
    unsigned char *cached = xcalloc((size_t)n, 1), *isf = xcalloc((size_t)n, 1),
                  *isw = xcalloc((size_t)n, 1);
    for (int x = 0; x < f->nf; x++) {
        int v = f->fwd[x];
        isf[v] = 1;
        for (int q = g->out_off[v]; q < g->out_off[v + 1]; q++) {
            int w = g->out_idx[q];
            if (g->nodes[w].phase == PHASE_FWD && blk[w] > blk[v])
                cached[v] = 1;
        }
    }
    int *slot = xcalloc((size_t)n, sizeof *slot);
    for (int t = 0; t < n; t++) {
        int v = g->topo[t];
        if (!is_work(g, v))
            continue;
        isw[v] = 1;
        int s = k, go = g->nodes[v].pair;
        if (go >= 0 && g->nodes[go].phase == PHASE_FWD && g->nodes[v].phase != PHASE_LOSS)
            s = blk[go];
        for (int q = g->in_off[v]; q < g->in_off[v + 1]; q++) {
            int u = g->in_idx[q];
            if (is_work(g, u) && slot[u] < s)
                s = slot[u];
        }
        slot[v] = s;
    }
    for (int t = n - 1; t >= 0; t--) {
        int v = g->topo[t];
        int go = g->nodes[v].pair;
        if (!isw[v] || g->nodes[v].phase == PHASE_LOSS ||
            (go >= 0 && g->nodes[go].phase == PHASE_FWD))
            continue;
        int mx = 0;
        for (int q = g->out_off[v]; q < g->out_off[v + 1]; q++) {
            int w = g->out_idx[q];
            if (isw[w] && slot[w] > mx)
                mx = slot[w];
        }
        if (mx > 0 && mx < slot[v])
            slot[v] = mx;
    }
    int *foff, *ford, *woff, *word;
    bucket(g, blk, k, isf, &foff, &ford);
    bucket(g, slot, k, isw, &woff, &word);
    plan_reset(out);
    for (int q = foff[1]; q < foff[k + 1]; q++)
        plan_push(out, ford[q]);
    unsigned char *need = xcalloc((size_t)n, 1);
    for (int i = k; i >= 1; i--) {
        if (i < k) {
            for (int q = foff[i + 1] - 1; q >= foff[i]; q--) {
                int v = ford[q];
                if (cached[v])
                    continue;
                for (int r = g->out_off[v]; r < g->out_off[v + 1] && !need[v]; r++) {
                    int w = g->out_idx[r];
                    if ((isw[w] && slot[w] <= i) ||
                        (isf[w] && blk[w] == i && !cached[w] && need[w]))
                        need[v] = 1;
                }
            }
            for (int q = foff[i]; q < foff[i + 1]; q++)
                if (need[ford[q]])
                    plan_push(out, ford[q]);
        }
        for (int q = woff[i]; q < woff[i + 1]; q++)
            plan_push(out, word[q]);
    }
    if (blkout)
        memcpy(blkout, blk, (size_t)n * sizeof *blk);
    free(need);
    free(foff);
    free(ford);
    free(woff);
    free(word);
    free(slot);
    free(cached);
    free(isf);
    free(isw);
    free(blk);
}
