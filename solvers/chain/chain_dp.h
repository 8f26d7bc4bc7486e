/* chain_dp.h — the heterogeneous chain DP (Rotor-style; Beaumont et al.
 * 2020 extended to per-stage costs and sizes): least forward recomputation
 * cost to run the backward of stages [s, t) with m memory buckets, the
 * input of stage s held. Memory is discretised into R buckets of `bucket`
 * bytes; sizes are rounded up to whole buckets.
 *
 * Model (what the DP is optimal for). m counts the held input of the range
 * (x[s-1]; the chain input x[-1] is resident and free) and every
 * checkpoint stored inside it; the working value and the stage's own
 * backward workspace are not counted (as in Revolve's slots). Options:
 *   single stage  H(s,s+1,m) = uf[s]                    if m >= x[s-1]
 *   split at r    sum uf[s..r) + H(r,t,m-x[s-1]) + H(s,r,m)
 *   replay        sum uf[s..t) + H(s,t-1,m)   (only the input held)
 *   tape          uf[s] + H(s+1,t,m-x[s-1]-tape[s])   (stage s run once,
 *                 its values kept until its backward; tape[s] is what the
 *                 stage holds beyond its output x[s]; only when use_tape)
 * With use_tape off and all costs/sizes 1, H(0,l,c) = Opt0(l,c).
 * chaindp_build_rerun takes ub[s], the cost of re-running stage s right
 * before its backward (0 when that backward reads only the stage's input,
 * as a convolution's does); single stage and replay then count ub[s] for
 * that last run instead of uf[s]. chaindp_build is ub = uf. The walk still
 * emits the run; the caller drops it when nothing reads it. */
#ifndef REMAT_CHAIN_DP_H
#define REMAT_CHAIN_DP_H

#include <stdint.h>

#include "src/plan/solver.h"

#define CHAIN_DP_INF 1e300

enum { CDP_BASE = 0, CDP_SPLIT = 1, CDP_REPLAY = 2, CDP_TAPE = 3 };

typedef struct ChainDP {
    int L, R;           /* stages, buckets (m = 0..R) */
    int use_tape;
    double *uf;         /* L forward costs */
    double *ub;         /* L re-run costs before the stage's backward */
    int *x;             /* L checkpoint sizes in buckets (output of stage i) */
    int *tape;          /* L extra tape sizes in buckets */
    double *H;          /* (L+1) x (L+1) x (R+1), only s < t used */
    int *how;           /* CDP_* in low 2 bits, split point r above */
} ChainDP;

/* Fill the table. Arrays are copied. ERR_CANCELLED when p cancels. */
int chaindp_build(ChainDP *d, int L, int R, const double *uf, const int *x, const int *tape,
                  int use_tape, Progress *p, Err *e);
int chaindp_build_rerun(ChainDP *d, int L, int R, const double *uf, const double *ub,
                        const int *x, const int *tape, int use_tape, Progress *p, Err *e);
void chaindp_free(ChainDP *d);
/* H(s, t, m); CHAIN_DP_INF when m is too small. */
double chaindp_cost(const ChainDP *d, int s, int t, int m);

/* Walk the optimal strategy for H(s,t,m) as a sequence of stage runs:
 * emit(ctx, stage, 0) = run stage forward, emit(ctx, stage, 1) = run its
 * backward. Explicit stack, no recursion. Returns 0, or -1 if infinite. */
int chaindp_walk(const ChainDP *d, int s, int t, int m, void (*emit)(void *, int, int),
                 void *ctx);

#endif
