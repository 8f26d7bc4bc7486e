/* engine.h — an LP or MILP engine (CLP, CBC) run in a child process
 * (src/plan/subproc.h), and its answer read back: the one protocol the
 * Checkmate MILP (milp.c), its LP relaxation (lp.c) and the cover bound
 * (cover.c) share. The child writes the status, the objective and the
 * engine's best possible value, then the solution when there is one; the
 * parent takes the solution only when all of it arrived. */
#ifndef REMAT_CHECKMATE_ENGINE_H
#define REMAT_CHECKMATE_ENGINE_H

#include <Cbc_C_Interface.h>
#include <Clp_C_Interface.h>
#include <stddef.h>
#include <stdint.h>

#include "src/base/err.h"

struct Progress;

enum {
    ENGINE_OPTIMAL = 0,     /* proven optimal */
    ENGINE_FEASIBLE = 1,    /* a solution, not proven (stopped on a limit) */
    ENGINE_INFEASIBLE = 2,  /* proven to have no solution */
    ENGINE_NOTHING = 3,     /* neither: stopped, killed or failed first */
};

typedef struct {
    int heard;              /* the child's header arrived: status and the two values are the engine's */
    int status;             /* ENGINE_* */
    double obj;             /* the solution's objective (status <= ENGINE_FEASIBLE) */
    double best_possible;   /* the engine's bound on the optimum, valid whatever the status */
    const double *x;        /* the solution's ncols values, or NULL (points into buf) */
    char *buf;              /* owned: what the child wrote */
} EngineAnswer;

/* Solve with CBC (mip) or CLP's dual simplex (lp), whichever is not NULL,
 * ncols columns, in a child process stopped by p's cancel flag or after
 * backstop seconds (it works on a copy: the model is as it was). Returns
 * subproc_run's status (ERR_OK, ERR_CANCELLED, ERR_LIMIT, ERR_IO with e
 * set); *a is filled in every case, ENGINE_NOTHING when no whole answer
 * came back. Free with engine_answer_done. */
int engine_solve(Cbc_Model *mip, Clp_Simplex *lp, int64_t ncols, struct Progress *p, double backstop,
                 EngineAnswer *a, Err *e);
void engine_answer_done(EngineAnswer *a);

/* An LP, min c'x with rlo <= Ax <= rup and clo <= x <= cup, A by columns
 * (column j: len[j] entries from start[j], rows idx[], values val[]);
 * sides from 1e29 on count as infinite. */
typedef struct {
    int m, n;
    const double *rlo, *rup, *c, *clo, *cup;
    const CoinBigIndex *start;
    const int *len, *idx;
    const double *val;
} EngineLp;

/* The Lagrangian value of row prices y[0..m): each price clamped to the
 * sign its row's finite side allows, every column then at whichever bound
 * its reduced cost favours. A lower bound on the LP's optimum (and on
 * every integer point's cost) whatever y is; -HUGE_VAL when a column's
 * bound it needs is infinite. */
double engine_lagrangian(const EngineLp *lp, const double *y);
/* engine_lagrangian at the row prices CLP ended with, and never above
 * CLP's objective: a lower bound on lp's optimum that CLP's tolerances
 * cannot push above it. At an optimum
 * it is the objective less the dual infeasibility CLP tolerated: 1e-9 to
 * 2e-8 of the extra cost on resnet50's cascade LPs at 25 %, 0.18 % on
 * maxvit_t's at 50 % (FLOP costs), where the objective alone had put the
 * bound above an in-order plan. */
double engine_lp_safe_bound(Clp_Simplex *lp);

#endif
