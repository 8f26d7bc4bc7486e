/* cbc.h — a CBC solve in a child process (src/plan/subproc.h), and its
 * answer read back: the one protocol the Checkmate MILP (milp.c) and the
 * cover bound (cover.c) share. */
#ifndef REMAT_CHECKMATE_CBC_H
#define REMAT_CHECKMATE_CBC_H

#include <Cbc_C_Interface.h>
#include <stddef.h>
#include <stdint.h>

#include "src/base/err.h"

struct Progress;

enum {
    CBC_OPTIMAL = 0,     /* proven optimal */
    CBC_FEASIBLE = 1,    /* a solution, not proven (CBC stopped on a limit) */
    CBC_INFEASIBLE = 2,  /* proven to have no solution */
    CBC_NOTHING = 3,     /* neither: stopped, killed or failed first */
};

typedef struct {
    int heard;           /* the child's header arrived: status and the two values are CBC's */
    int status;          /* CBC_* */
    double obj;          /* the solution's objective (status <= CBC_FEASIBLE) */
    double best_possible;/* CBC's bound on the optimum, valid whatever the status */
    const double *x;     /* the solution's ncols values, or NULL (points into buf) */
    char *buf;           /* owned: what the child wrote */
} CbcAnswer;

/* Solve m in a child process stopped by p's cancel flag or after backstop
 * seconds (the child works on a copy: m is as it was). Returns
 * subproc_run's status (ERR_OK, ERR_CANCELLED, ERR_LIMIT, ERR_IO with e
 * set); *a is filled in every case, CBC_NOTHING when nothing whole came
 * back. Free with cbc_answer_done. */
int cbc_solve_child(Cbc_Model *m, int64_t ncols, struct Progress *p, double backstop, CbcAnswer *a, Err *e);
void cbc_answer_done(CbcAnswer *a);

#endif
