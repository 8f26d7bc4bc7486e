/* model.h — Checkmate's MILP (Jain et al. 2020, §4) over a fixed
 * topological order, as a column-major matrix any LP/MILP engine can load.
 *
 * Positions 0..n-1 are the running (non-input) nodes in the order. Stage t
 * computes node t (the frontier advances one node per stage) after any
 * recomputations of earlier nodes, in position order. Variables:
 *   R[t][i]  (i <= t)  node i runs in stage t            binary
 *   S[t][i]  (i <  t)  value i is kept into stage t        binary
 *   F[t][k][j]         the j-th value of L(k) = inputs(k) + {k} is freed
 *                      right after node k runs in stage t  binary
 *   U[t][k]  (k <= t)  memory while node k runs in stage t continuous
 * Constraints: inputs computed in the stage or kept into it; a value is kept
 * only if it was computed or kept in the stage before; the memory chain
 * U[t][k] = U[t][k-1] + size(k) R[t][k] - freed after k-1, with U[t][k] +
 * workspace(k) R[t][k] <= limit (the budget rounded down to a multiple of
 * the sizes' gcd q: memory is a multiple of q, and an engine tolerance
 * below q / 4 keeps a plan one q over the limit outside); F = 1 only when k ran, the value is
 * not kept into the next stage and no later node of the stage reads it
 * (the "hazards" linearisation); outputs are kept at the end. Objective:
 * sum cost(i) R[t][i]. Memory is in units of the budget and cost in units
 * of the dearest node (mscale, cscale), so coefficients stay near 1. A solution's schedule simulated by the spec frees
 * no later than the model does, so its peak is at most the model's.
 */
#ifndef REMAT_CHECKMATE_MODEL_H
#define REMAT_CHECKMATE_MODEL_H

#include <stdint.h>

#include "src/graph/graph.h"
#include "src/plan/plan.h"
#include "src/plan/solver.h"

typedef struct CmModel {
    const Graph *g;
    int n;                  /* positions */
    int *ord;               /* position -> node */
    int *pos;               /* node -> position, or -1 for inputs */
    int *in_off, *in_pos;   /* non-input inputs of each position */
    int *us_off, *us_pos;   /* readers of each position, ascending */
    int64_t *L_off;         /* prefix sums of |L(k)| = deg(k) + 1, L(k) = inputs(k), then k */
    int64_t *ft;            /* first F column of stage t, relative to fbase */
    double mscale;          /* model memory units per byte: 1 / budget */
    double limit;           /* the memory rows' bound in bytes: the budget
                               rounded down to a multiple of the sizes' gcd q */
    double tolerance;       /* feasibility tolerance that keeps rows exact: q / 4 */
    double cscale;          /* model cost units per graph cost unit */
    /* columns */
    int64_t rbase, sbase, fbase, ubase, ncols;
    /* the matrix, column-major */
    int64_t nrows, nnz;
    int64_t *cstart;        /* ncols + 1 */
    int *rind;
    double *val;
    double *clb, *cub, *obj, *rlb, *rub;
    unsigned char *is_int;
} CmModel;

/* Build the model of g for budget over order[0..n) (every non-input node
 * once, topological). Returns ERR_OK or ERR_LIMIT when it would exceed
 * max_cols columns (the message says how many). */
int cm_build(CmModel *M, const Graph *g, const int *order, int n, int64_t budget, int64_t max_cols,
             Err *e);
void cm_free(CmModel *M);

/* The gcd of q and the sizes and workspaces of nodes[0..n) (1 when all are
 * 0): every memory figure of a schedule over them is a multiple of it. */
int64_t cm_size_gcd(const Graph *g, const int *nodes, int n, int64_t q);

/* Column numbers. */
static inline int64_t cm_R(const CmModel *M, int t, int i)
{
    return M->rbase + (int64_t)t * (t + 1) / 2 + i;
}
static inline int64_t cm_S(const CmModel *M, int t, int i)
{
    return M->sbase + (int64_t)t * (t - 1) / 2 + i;
}
static inline int64_t cm_U(const CmModel *M, int t, int k)
{
    return M->ubase + (int64_t)t * (t + 1) / 2 + k;
}
static inline int64_t cm_F(const CmModel *M, int t, int k, int j)
{
    return M->fbase + M->ft[t] + M->L_off[k] + j;
}
/* The j-th value of L(k), as a position. */
static inline int cm_L(const CmModel *M, int k, int j)
{
    int d = M->in_off[k + 1] - M->in_off[k];
    return j < d ? M->in_pos[M->in_off[k] + j] : k;
}

/* The schedule of a solution x (R > 0.5, stage by stage, positions
 * ascending) into out. */
void cm_extract(const CmModel *M, const double *x, Plan *out);

/* A full assignment (R, S, F, U) that replays steps[0..T) in the model, for
 * a MIP start: 0 when the schedule does not fit the model's stages (its
 * first runs are not in the model's order, or a node runs twice in one
 * stage). *x is allocated (ncols). */
int cm_start_from(const CmModel *M, const int *steps, int T, double **x);

/* The order of a schedule's first runs (every non-input node must run);
 * caller frees. NULL when some non-input node never runs. */
int *cm_order_of(const Graph *g, const int *steps, int T, int *n);

/* The Checkmate solvers' size guard: ERR_LIMIT when the graph has more
 * running nodes than the solver's max_nodes= option, in one line naming
 * the solver, both counts and `why` (what grows, what to use instead). */
int cm_refuse_large(const Solver *s, const char *why, Err *e);

#endif
