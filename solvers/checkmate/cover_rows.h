/* cover_rows.h — the covering model the cover bound (cover.c) and its
 * cascade strengthening (cascade.c) share: rows of the form
 * sum val x >= lo over columns, solved by CBC in a child process. Internal
 * to solvers/checkmate. */
#ifndef REMAT_CHECKMATE_COVER_ROWS_H
#define REMAT_CHECKMATE_COVER_ROWS_H

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/solver.h"

/* Row r: sum over idx[off[r]..off[r+1]) of val x >= lo[r]. */
typedef struct {
    int *off, *idx;
    double *val, *lo;
    int nrows, nnz, cap, rcap;
} Rows;

void rows_add(Rows *R, const int *idx, const double *val, int k, double lo);
void rows_free(Rows *R);

/* Position of each running node in order[0..n) (pos, indexed by node; -1
 * for inputs) and the last position that reads each position (last; n
 * for an output: held to the end). */
void last_readers(const Graph *g, const int *order, int n, int *pos, int *last);

/* One step that must free memory: where t first runs, what it holds (the
 * values that ran before and are read after it, t's inputs aside:
 * positions ascending, at held[off..off+k)), and how much of it must go. */
typedef struct {
    int t, off, k;
    double need, room;      /* room: budget - fixed(t), fixed: inputs, t's value, its inputs, workspace */
} Step;

typedef struct {
    Step *st;
    int ns;
    int *held;
} Steps;

/* The steps of order[0..n) that hold more than budget leaves (pos and
 * last from last_readers) into S; ERR_OVER_BUDGET (S empty, message names
 * the node) when a step cannot fit even with nothing else held. The rows
 * of the cover and of the cascade are built from these. */
int order_steps(const Graph *g, const int *order, int n, int64_t budget, const int *pos, const int *last, Steps *S,
                Err *e);
void steps_free(Steps *S);

/* The factor the engines see costs scaled by (1 / the largest of
 * w[0..n), 1 when none is positive), and an LP's or CBC's objective at
 * that scale as a bound in the costs' own units: a hair lower, since the
 * engine's tolerances must not lift a bound above a plan that exists (0
 * when not positive). */
double rows_cost_scale(const double *w, int n);
double rows_bound_of(double obj, double cscale);

/* The least sum of w(c) x(c) over columns 0..n) in [0, 1] within the
 * rows, from below, into *extra (0 when no row): with nint > 0, columns
 * 0..nint) binary, solved by CBC (its best possible value when it stops on
 * `seconds`), the binary columns chosen into pick (may be NULL); with
 * nint 0 the LP, by CLP's dual simplex (its value only at its optimum).
 * The solution's n values into xval when both are there (may be NULL).
 * ERR_OK, ERR_LIMIT when nothing came in time, ERR_CANCELLED, ERR_IO. */
int solve_rows(const double *w, int n, int nint, const Rows *R, double seconds, Progress *p, double *extra,
               unsigned char *pick, double *xval, Err *e);

#endif
