/* cbc.c — a CBC solve in a child process and its answer (cbc.h). The
 * child writes the status, the objective and CBC's best possible value,
 * then the solution when there is one; the parent takes the solution only
 * when all of it arrived. */
#include "solvers/checkmate/cbc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/plan/subproc.h"

typedef struct {
    Cbc_Model *cbc;
    int64_t ncols;
} Child;

static int child_solve(void *ctx, int fd)
{
    Child *c = ctx;
    Cbc_solve(c->cbc);
    int64_t st = Cbc_isProvenOptimal(c->cbc)      ? CBC_OPTIMAL
                 : Cbc_isProvenInfeasible(c->cbc) ? CBC_INFEASIBLE
                 : Cbc_bestSolution(c->cbc)       ? CBC_FEASIBLE
                                                  : CBC_NOTHING;
    double hdr[2] = {Cbc_getObjValue(c->cbc), Cbc_getBestPossibleObjValue(c->cbc)};
    if (subproc_write(fd, &st, sizeof st) || subproc_write(fd, hdr, sizeof hdr))
        return 1;
    if (st <= CBC_FEASIBLE) {
        const double *x = Cbc_bestSolution(c->cbc);
        if (!x)
            x = Cbc_getColSolution(c->cbc);
        if (subproc_write(fd, x, (size_t)c->ncols * sizeof *x))
            return 1;
    }
    return 0;
}

int cbc_solve_child(Cbc_Model *m, int64_t ncols, struct Progress *p, double backstop, CbcAnswer *a, Err *e)
{
    memset(a, 0, sizeof *a);
    a->status = CBC_NOTHING;
    Child c = {m, ncols};
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
    if (st <= CBC_FEASIBLE && len >= sizeof st + sizeof hdr + (size_t)ncols * sizeof(double))
        a->x = (const double *)(a->buf + sizeof st + sizeof hdr);
    else if (st <= CBC_FEASIBLE)
        a->status = CBC_NOTHING;   /* killed while writing the solution */
    return rc;
}

void cbc_answer_done(CbcAnswer *a)
{
    free(a->buf);
    memset(a, 0, sizeof *a);
    a->status = CBC_NOTHING;
}
