/* explore.h — terminal-free logic behind the explorer's compare, replay,
 * play and graph views: every solver side by side at one budget, a budget
 * sweep for the trade-off chart, the measured curve placed on the plot
 * grid, what a step allocates and frees, and the graph view's viewport.
 * The long-running parts take a Progress so a worker thread can cancel.
 */
#ifndef REMAT_EXPLORE_H
#define REMAT_EXPLORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "src/err.h"
#include "src/graph.h"
#include "src/plan.h"
#include "src/sim.h"
#include "src/solver.h"

/* One solver's answer at one budget. */
typedef struct CompareRow {
    const SolverClass *cls;
    int rc;                 /* ERR_OK, ERR_OVER_BUDGET, or its refusal */
    char msg[1024];         /* the refusal / error message when rc != OK */
    int64_t peak;           /* simulated peak (when a plan came back) */
    double overhead;        /* cost overhead over the baseline (0.2 = +20 %) */
    double secs;            /* prepare + solve wall time */
    int has_plan;
} CompareRow;

/* Run every registered solver at budget (opts go to opts_cls only) into
 * rows[0..solver_count()); progress advances per solver. Returns the
 * number of rows filled, or -1 when cancelled (rows then partial). *at
 * (may be NULL) holds the index of the solver running, for progress. */
int compare_solvers(const Graph *g, int64_t budget, const SolverClass *opts_cls,
                    const SolverOpts *opts, CompareRow *rows, Progress *p, atomic_int *at);
/* One line for a row: "name  peak  overhead  time" or "name  refused: msg". */
void compare_row_text(const CompareRow *r, char *buf, size_t n);

/* n budgets evenly from lo to hi inclusive (n >= 2; lo when n == 1). */
void sweep_budgets(int64_t lo, int64_t hi, int n, int64_t *out);

/* One point of the sweep; plan kept so the session cache can take it. */
typedef struct SweepPoint {
    int64_t budget;
    int rc;
    Err err;
    Plan plan;              /* evaluated when has_plan */
    int has_plan;
    double secs;
} SweepPoint;

/* Plan cls at each budget (one Solver, resolve from the previous plan).
 * pts[i] are initialised here; free with sweep_points_done. Returns 0,
 * ERR_CANCELLED, or the solver_new error (e set, pts empty). *at: the
 * index of the point being solved (may be NULL). */
int sweep_run(const Graph *g, const SolverClass *cls, const SolverOpts *opts, const int64_t *budgets,
              int n, SweepPoint *pts, Progress *p, atomic_int *at, Err *e);
void sweep_points_done(SweepPoint *pts, int n);

/* Trade-off chart: w*h chars (row 0 on top) with '*' at each point's
 * (overhead on x from 0 to the largest, peak on y from lo to hi); points
 * without a plan are skipped. Returns the number of points drawn. */
int tradeoff_grid(const SweepPoint *pts, int n, int64_t lo, int64_t hi, int w, int h, char *grid);

/* Measured curve on the plot: for each of w columns the row (0 on top of
 * h rows over values 0..top) holding meas at the column's step, or -1 when
 * the column has no step of meas (T steps of a `steps`-step axis). */
void measured_rows(const int64_t *meas, int T, int steps, int w, int h, int64_t top, int *rows);
/* Relative difference of the measured peak over the simulated one. */
double measured_diff(int64_t measured_peak, int64_t simulated_peak);

/* "step 5 run C (allocates 2 B, +ws 1 B); frees A, B" for step t of
 * sched (simulated as s). Values freed are those whose holding ends at t. */
void play_step_text(const Graph *g, const int *sched, const Sim *s, int t, char *buf, size_t n);

/* Graph view: a node position in layout units (points, y up) mapped to a
 * terminal cell: col = (x - pan_x) * zoom / sx, row = (top - y - pan_y) *
 * zoom / sy, where sx/sy are points per cell at zoom 1 (fit the layout's
 * width into w columns). */
typedef struct Viewport {
    double width, height;   /* layout bounding box */
    double zoom;            /* 1: whole width in view */
    double pan_x, pan_y;    /* layout units at the top-left corner */
    int w, h;               /* cells */
} Viewport;

void viewport_fit(Viewport *v, double width, double height, int w, int h);
/* 1 and the cell when (x, y) falls inside the window, else 0. */
int viewport_cell(const Viewport *v, double x, double y, int *col, int *row);
/* Pan so that (x, y) is in the middle of the window. */
void viewport_center(Viewport *v, double x, double y);
/* Pan by cells (dc columns, dr rows). */
void viewport_pan(Viewport *v, int dc, int dr);

#endif
