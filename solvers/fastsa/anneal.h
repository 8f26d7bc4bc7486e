/* anneal.h — FastSA's annealing loop over a State: proposals (add a
 * recomputation, remove one, move one), the objective, acceptance, and the
 * best plan seen. The solver (fastsa.c) decides what to run and for how
 * long; this file only anneals.
 */
#ifndef REMAT_FASTSA_ANNEAL_H
#define REMAT_FASTSA_ANNEAL_H

#include <stdint.h>

#include "solvers/fastsa/state.h"
#include "src/plan/solver.h"

typedef struct Rng {
    uint64_t s;
} Rng;

/* The objective f(M, C) the annealer minimizes (§2, eq. 1 and footnote 2). */
enum {
    OBJ_PRODUCT,  /* max(B, M) * C */
    OBJ_ELU,      /* L(Elu(L^-1(M))) * C^0.6, L(0) = B, L(-100) = 0; above
                   * B, (M / B)^wall * B in place of M */
};

typedef struct Anneal {
    /* set by the caller */
    int64_t budget;
    int obj;
    double wall;            /* OBJ_ELU: exponent of M / B above the budget */
    /* per graph node NODE_* rules (pin: one production; force: two or
     * more), or NULL; only meaningful on single-node units */
    const unsigned char *rule;
    /* current */
    double f;
    double ceps;            /* keeps the objective informative at zero cost */
    /* the best state seen: within the budget first, then cheaper (or, when
     * none is, lower peak, then cheaper) */
    int *best_seq;
    int best_fits;
    int64_t best_M;
    double best_C;
    long long tried;        /* mutations tried, all runs */
    double pc[2], pv[2];    /* the objective's cost^0.6 for the last two costs */
    long long since_best;   /* mutations since the best last improved */
    /* set by the caller (anneal_init clears it): called about every
     * 0.2 s (TICK_SECONDS) while the best fits the budget, so a search can offer
     * a run's best before the run ends */
    void (*tick)(void *ctx, const struct Anneal *A, const State *S);
    void *tick_ctx;
    int stop;               /* set by tick (through tick_ctx): the run ends */
} Anneal;

/* Bind to S's current sequence (snapshotted as the first best; from then
 * on S's journal tracks what changed since the last snapshot, so one
 * State serves one Anneal at a time). */
void anneal_init(Anneal *A, State *S, int64_t budget, int obj, double wall,
                 const unsigned char *rule);
void anneal_done(Anneal *A);
/* Objective of a peak and cost under A's budget. */
double anneal_objective(const Anneal *A, int64_t M, double C);

/* Anneal S for at most n mutations, temperature h0 -> h1 (exponential in
 * progress = max(share of n, share of time to deadline)). Stops early when
 * stop_at_budget and the peak meets the budget, or when, past the middle
 * of the schedule, the best has not improved for `stall` mutations (0:
 * never). Returns mutations tried, or -1
 * when p was cancelled. The best state is kept in A. */
long long anneal_run(Anneal *A, State *S, Rng *rng, long long n, double h0, double h1,
                     double deadline, int stop_at_budget, long long stall, Progress *p);

/* Reload S's sequence from A's best (same units). */
void anneal_restore_best(const Anneal *A, State *S);

static inline uint64_t rng_next(Rng *r)
{
    /* splitmix64: tiny, fast, good enough for move selection */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int rng_below(Rng *r, int n)
{
    return (int)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static inline double rng_unit(Rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
