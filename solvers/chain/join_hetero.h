/* join_hetero.h — heterogeneous per-branch candidates for the join solver.
 * Each branch gets its own chain DP (chain_dp.h) over its stages' real
 * costs and sizes, memory in buckets of (branch forward bytes /
 * mem_resolution). A candidate reverses the branches one after the other
 * in a chosen order, each with its own bucket allowance:
 *
 *   forward phase  for the branches reversed 2nd..k-th (last one first):
 *                  either the forward prefix of its DP strategy (the
 *                  checkpoints it stores stay held, "kept") or one plain
 *                  forward sweep keeping only its output (its reversal
 *                  then runs the whole DP strategy from the input again);
 *                  then the forward prefix of the branch reversed first
 *   turn           the join, the loss and their backward
 *   reversals      the rest of each branch's strategy, in order
 *
 * The other branches' held values (kept checkpoints, outputs, backward
 * values) are not in a branch's DP; every candidate is simulated and the
 * simulator's peak decides, so allowances are scanned rather than derived.
 * Allowances giving the same DP value give the same strategy, so only one
 * bucket count per distinct value is kept. */
#ifndef REMAT_JOIN_HETERO_H
#define REMAT_JOIN_HETERO_H

#include <stdint.h>

#include "solvers/chain/chain_dp.h"
#include "solvers/chain/join_dp.h"

typedef struct {
    int *st;        /* stage * 2 + (1 for its backward) */
    int n;
    int pre;        /* index of the first backward: the forward prefix */
} JhSeq;

typedef struct JoinHetero {
    int k;
    int len[JOIN_KMAX];
    ChainDP dp[JOIN_KMAX];
    int64_t bucket[JOIN_KMAX];
    int64_t act[JOIN_KMAX];     /* branch forward bytes (order for k > 4) */
    int n_allow[JOIN_KMAX];
    int *allow[JOIN_KMAX];      /* bucket counts, increasing memory */
    JhSeq *seq[JOIN_KMAX];      /* the DP strategy for each allowance */
} JoinHetero;

typedef struct {
    int order[JOIN_KMAX];       /* reversal order, branch indices */
    unsigned keep;              /* bit b: branch b's forward prefix is kept */
    int ai[JOIN_KMAX];          /* index into allow[b] */
} JhCand;

/* Build the DPs and strategies. uf[b][i], ub[b][i], xb[b][i], all[b][i]:
 * stage i of branch b's forward cost, its re-run cost before its backward
 * (chaindp_build_rerun), bytes crossing to the next stage, all forward
 * bytes. ERR_UNSUPPORTED when a branch's table would be too large
 * (nothing kept then), ERR_CANCELLED when p cancels. */
int jh_build(JoinHetero *h, int k, const int *len, double *const *uf, double *const *ub,
             int64_t *const *xb, int64_t *const *all, int R, Progress *p, Err *e);
void jh_free(JoinHetero *h);

/* The candidates to simulate, at most max_cands: every reversal order for
 * k <= 4 (else by decreasing activation bytes), every kept subset (k <= 4;
 * else none or all), every allowance combination when that is few enough,
 * else each branch's allowances with the others at their least plus the
 * diagonal. *out is xmalloc'ed; returns the count. */
int jh_candidates(const JoinHetero *h, int max_cands, JhCand **out);

#endif
