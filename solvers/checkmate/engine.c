/* engine.c — LP/MILP engines in a child process, and their answers
 * (engine.h). */
#include "solvers/checkmate/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/xalloc.h"
#include "src/plan/subproc.h"

/* The child's side: the status, the objective and the best possible
 * value, then the solution when the status has one. 0, or 1 when the pipe
 * failed (subproc's exit status convention). */
static int write_answer(int fd, int status, double obj, double best_possible, const double *x, int64_t ncols)
{
    int64_t st = status;
    double hdr[2] = {obj, best_possible};
    if (subproc_write(fd, &st, sizeof st) || subproc_write(fd, hdr, sizeof hdr))
        return 1;
    if (status <= ENGINE_FEASIBLE && subproc_write(fd, x, (size_t)ncols * sizeof *x))
        return 1;
    return 0;
}

typedef struct {
    Cbc_Model *mip;
    Clp_Simplex *lp;
    int64_t ncols;
} Child;

/* In the child: solve with the engine it holds. An LP's optimum is its own
 * bound; CBC's best solution may come with a proof, or only with CBC's
 * best possible value. */
static int child_solve(void *ctx, int fd)
{
    Child *c = ctx;
    if (c->lp) {
        Clp_initialDualSolve(c->lp);
        int st = Clp_isProvenOptimal(c->lp)             ? ENGINE_OPTIMAL
                 : Clp_isProvenPrimalInfeasible(c->lp) ? ENGINE_INFEASIBLE
                                                       : ENGINE_NOTHING;
        double obj = Clp_objectiveValue(c->lp), safe = st == ENGINE_OPTIMAL ? engine_lp_safe_bound(c->lp) : obj;
        if (!(safe > -HUGE_VAL))
            safe = 0;   /* no prices to use: every model here has c >= 0 on x >= 0 */
        return write_answer(fd, st, obj, safe, Clp_getColSolution(c->lp), c->ncols);
    }
    Cbc_solve(c->mip);
    int st = Cbc_isProvenOptimal(c->mip)      ? ENGINE_OPTIMAL
             : Cbc_isProvenInfeasible(c->mip) ? ENGINE_INFEASIBLE
             : Cbc_bestSolution(c->mip)       ? ENGINE_FEASIBLE
                                              : ENGINE_NOTHING;
    const double *x = Cbc_bestSolution(c->mip);
    if (!x)
        x = Cbc_getColSolution(c->mip);
    return write_answer(fd, st, Cbc_getObjValue(c->mip), Cbc_getBestPossibleObjValue(c->mip), x, c->ncols);
}

int engine_solve(Cbc_Model *mip, Clp_Simplex *lp, int64_t ncols, struct Progress *p, double backstop,
                 EngineAnswer *a, Err *e)
{
    memset(a, 0, sizeof *a);
    a->status = ENGINE_NOTHING;
    Child c = {mip, lp, ncols};
    size_t len = 0;
    int rc = subproc_run(child_solve, &c, p, backstop, &a->buf, &len, e);
    int64_t st;
    double hdr[2];
    if (!a->buf || len < sizeof st + sizeof hdr)
        return rc;
    memcpy(&st, a->buf, sizeof st);
    memcpy(hdr, a->buf + sizeof st, sizeof hdr);
    a->heard = 1;
    a->status = (int)st;
    a->obj = hdr[0];
    a->best_possible = hdr[1];
    if (st <= ENGINE_FEASIBLE && len >= sizeof st + sizeof hdr + (size_t)ncols * sizeof(double))
        a->x = (const double *)(a->buf + sizeof st + sizeof hdr);
    else if (st <= ENGINE_FEASIBLE)
        a->status = ENGINE_NOTHING;   /* stopped while writing the solution */
    return rc;
}

void engine_answer_done(EngineAnswer *a)
{
    free(a->buf);
    memset(a, 0, sizeof *a);
    a->status = ENGINE_NOTHING;
}

/* A side of a row or column counts as infinite from CLP's own 1e30 on. */
#define LP_INF 1e29

double engine_lagrangian(const EngineLp *lp, const double *y0)
{
    double *y = xmallocarray((size_t)lp->m + 1, sizeof *y);
    /* L(y) = sum_r y_r b_r + sum_j min over x_j in its bounds of d_j x_j,
     * d = c - A'y, b_r the side of row r that y_r's sign presses on */
    long double L = 0;
    for (int r = 0; r < lp->m; r++) {
        double v = y0[r];
        if ((v > 0 && lp->rlo[r] <= -LP_INF) || (v < 0 && lp->rup[r] >= LP_INF))
            v = 0;
        y[r] = v;
        L += v > 0 ? (long double)v * lp->rlo[r] : v < 0 ? (long double)v * lp->rup[r] : 0;
    }
    for (int j = 0; j < lp->n && L > -HUGE_VAL; j++) {
        long double d = lp->c[j];
        for (CoinBigIndex q = lp->start[j]; q < lp->start[j] + lp->len[j]; q++)
            d -= (long double)y[lp->idx[q]] * lp->val[q];
        if (d > 0)
            L = lp->clo[j] <= -LP_INF ? -HUGE_VAL : L + d * lp->clo[j];
        else if (d < 0)
            L = lp->cup[j] >= LP_INF ? -HUGE_VAL : L + d * lp->cup[j];
    }
    free(y);
    return (double)L;
}

double engine_lp_safe_bound(Clp_Simplex *lp)
{
    const double *y = Clp_getRowPrice(lp);
    EngineLp v = {Clp_getNumRows(lp), Clp_getNumCols(lp), Clp_getRowLower(lp), Clp_getRowUpper(lp),
                  Clp_getObjCoefficients(lp), Clp_getColLower(lp), Clp_getColUpper(lp), Clp_getVectorStarts(lp),
                  Clp_getVectorLengths(lp), Clp_getIndices(lp), Clp_getElements(lp)};
    double L = y && v.c ? engine_lagrangian(&v, y) : -HUGE_VAL;   /* no model here sets an objective offset */
    return fmin(L, Clp_objectiveValue(lp));
}
