/* kusumoto.h — lower-set DP of Kusumoto et al. 2019 ("A Graph Theoretic
 * Framework of Recomputation Algorithms for Memory-Efficient
 * Backpropagation"), shared by solvers/kusumoto/kusumoto.c and its unit test.
 *
 * The forward part F is the set of phase-fwd nodes. Input values are
 * resident for the whole run (spec §3), so they belong to every lower set
 * and are left out of the sets themselves. A lower set L ⊆ F has no edge
 * from F \ L into L. A chain ∅ ⊊ L_1 ⊊ … ⊊ L_k = F gives the blocks
 * V_i = L_i \ L_{i-1} of the canonical strategy.
 *
 * A KusFamily holds the lower sets the DP may use: every lower set
 * (exact) or the pruned family {ancestors of v} ∪ {∅, F} (approx), sorted
 * by (M(L), |L|) so that L ⊊ L' implies index(L) < index(L'). Side values
 * (forward nodes with a forward input that only the backward reads: a
 * joint graph's saved statistics, indices and masks) are in a set exactly
 * when all their forward inputs and the non-side forward node before them
 * in the graph's order are.
 *
 * The DP's memory model is the paper's eq. (2), on forward value sizes:
 *   M(i) = M(U_{i-1}) + 2 M(V_i) + M(δ+(L_i) \ L_i) + M(δ−(δ+(L_i)) \ L_i)
 * with U_i the cached boundaries ∂(L_1) ∪ … ∪ ∂(L_i). Its overhead is
 * Σ_{i<k} T(V_i \ ∂(L_i)): the last block is still in memory when the
 * backward starts, so it is never recomputed (the paper's eq. (1) also
 * charges T(V_k)). Each transition's cost is rounded up to whole buckets
 * of `unit` (total forward cost / resolution). */
#ifndef REMAT_KUSUMOTO_H
#define REMAT_KUSUMOTO_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/plan/solver.h"

typedef struct KusFamily {
    int nf;             /* forward nodes */
    int *fwd;           /* forward index -> node index */
    int *fid;           /* node index -> forward index, -1 for others */
    int64_t *fsize;     /* forward index -> size */
    double *fcost;      /* forward index -> cost */
    int words;          /* 64-bit words per set */
    int N;              /* sets; 0 is ∅, N-1 is F */
    uint64_t *bits;     /* N * words */
    int *cnt;           /* |L| */
    int64_t *S;         /* M(L): sum of forward sizes */
    double *C;          /* T(L): sum of forward costs */
    int64_t *A;         /* M(δ+(L) \ L) + M(δ−(δ+(L)) \ L) */
    int *bd_off, *bd;   /* ∂(L) as forward indices (CSR) */
    int *mx_off, *mx;   /* maximal elements of L (CSR): L ⊆ L' iff all are in L' */
    unsigned char *side;  /* per forward index: a side value (read only by the backward), closed
                           * into every set holding its inputs (kusumoto_dp.c) */
    int *anchor;        /* per forward index: a side value's anchor (kusumoto_dp.c), else -1 */
    int *sd_off, *sd;   /* side values that leave a set with each forward index (CSR) */
    int *hslot;         /* exact family only: hash of the sets, for lookups */
    int hslots;
} KusFamily;

/* The family of g's forward part: approx = 0 for every lower set (refused
 * with ERR_UNSUPPORTED when more than max_sets), 1 for the pruned family.
 * NULL with e set on refusal. */
KusFamily *kus_family_new(const Graph *g, int approx, long max_sets, Err *e);
void kus_family_free(KusFamily *f);

/* 1 when forward index x is in set L. */
static inline int kus_has(const KusFamily *f, int L, int x)
{
    return (int)((f->bits[(size_t)L * (size_t)f->words + (size_t)(x >> 6)] >> (x & 63)) & 1u);
}

enum { KUS_MIN_T, KUS_MAX_T, KUS_FEASIBLE };

/* One DP run at model budget B: mode KUS_MIN_T finds the chain of least
 * overhead (ties: least cache), KUS_MAX_T the one of most overhead (the
 * paper's memory-centric choice), KUS_FEASIBLE only whether any chain fits.
 * Returns k (chain length, the chain in *chain, caller frees; chain may be
 * NULL for KUS_FEASIBLE), 0 when no chain fits, -1 when cancelled. */
int kus_dp(const KusFamily *f, int64_t B, double unit, int mode, int **chain, Progress *p);

/* Like KUS_MIN_T, but every chain the table keeps at F: one per Pareto
 * label (overhead up, cache down), least overhead first, at most max of
 * them into chains[]/ks[] (caller frees each). Returns the count, 0 when
 * none fits, -1 when cancelled. */
int kus_dp_front(const KusFamily *f, int64_t B, double unit, int max, int **chains, int *ks,
                 Progress *p);

/* The model of a chain of set indices: overhead in buckets and peak. */
void kus_chain_model(const KusFamily *f, const int *chain, int k, double unit, int *tb,
                     int64_t *peak);

/* Bucketed overhead of one transition L -> L2 (L2 == N-1 costs nothing). */
int kus_step_buckets(const KusFamily *f, int L, int L2, double unit);

/* The canonical strategy of a chain as a schedule (out->steps replaced).
 * blk, when non-NULL, gets the block (1..k) of each forward node, 0 for
 * other nodes (g->n entries). */
void kus_emit(const Graph *g, const KusFamily *f, const int *chain, int k, Plan *out, int *blk);

#endif
