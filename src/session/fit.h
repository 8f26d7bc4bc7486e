/* fit.h — "with my GPU's memory, how large a batch can I train, and at
 * what recomputation cost?"
 *
 * A batch multiplier b scales every value that grows with the batch: all
 * non-input values, workspaces, and input nodes except parameters (input
 * nodes whose op is "param"). Costs are scaled too, so overheads stay
 * comparable. fit_batch finds the largest integer b whose plan fits the
 * memory without recomputation (noremat) and with the given solver (whose
 * cost overhead stays under max_overhead).
 */
#ifndef REMAT_FIT_H
#define REMAT_FIT_H

#include "src/graph/graph.h" /* graph_scaled */
#include "src/plan/plan.h"
#include "src/plan/solver.h"

typedef struct FitResult {
    int b_plain;            /* largest multiplier without recomputation (0: none) */
    int64_t peak_plain;     /* its peak */
    int b_remat;            /* largest multiplier with the solver (0: none) */
    int64_t peak_remat;
    double overhead_remat;  /* its cost overhead (0.18 = +18 %) */
    Plan plan;              /* the solver's plan at m_remat, on graph_scaled(g, m_remat) */
    /* The same answers as real multipliers: exact without recomputation
     * ((memory - parameters) / the rest of the baseline peak), and in steps
     * of `unit` with the solver (fit_batch_units; whole numbers otherwise).
     * Below 1 they say how far the batch must shrink. */
    double m_plain, m_remat;
    int64_t peak_one;       /* baseline peak at multiplier 1, for messages */
} FitResult;

void fit_result_init(FitResult *r);
void fit_result_done(FitResult *r);

/* max_overhead < 0: no limit. b_max caps the search (e.g. 4096). Solver
 * errors other than "over budget" are returned. */
int fit_batch(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t memory,
              double max_overhead, int b_max, FitResult *out, Progress *p, Err *e);

/* The same search over multipliers k * unit (unit 0.01: two decimals; the
 * explorer asks this at budgets below the baseline peak, where the whole
 * answer is 0 or 1). b_* are the whole parts of m_*; b_max caps k * unit. */
/* The finest unit the multiplier search can trust on g: 0.01 when every
 * value that scales is at least 100 bytes (scaled sizes are rounded to
 * whole bytes, so smaller ones would make fractions meaningless), else 1. */
double fit_unit(const Graph *g);

int fit_batch_units(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t memory,
                    double max_overhead, double unit, int b_max, FitResult *out, Progress *p, Err *e);

#endif
