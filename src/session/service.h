/* service.h — the one answer to "the plan for this graph, solver, options
 * and budget", for every command and view: `remat solve`, `sweep`, `fit`,
 * the compare view and the explorer's slider all ask here.
 *
 * Two kinds of answer, from one pool of prepared solvers:
 * - final: what `remat solve` gives. A class without `resolve` answers
 *   from its prepared solver: its solve depends only on the graph, the
 *   options and the budget, so a fresh solver gives the same plan. A class
 *   with one (auto, fastsa: searches that warm-start from what they found
 *   before) gets a fresh solver, made exactly as the command line makes
 *   it, so the plan is the command line's (the same one where the search
 *   is deterministic: same seed and iteration limits).
 * - quick: the prepared solver's re-solve from its last plan (auto: a
 *   pick from its pool and a short polish), for the slider's first answer.
 *   It is final when the class has no resolve, or when the prepared
 *   solver has never solved nor kept a plan (then it is a fresh solve).
 * Every final plan is handed to the prepared solvers that keep a pool
 * (SolverClass.adopt: auto) under the same node rules, so a quick answer
 * is never dearer than a plan already found for its budget.
 *
 * An Service is not thread-safe: one thread uses it (the worker's solve
 * lane, or the command line).
 */
#ifndef REMAT_SERVICE_H
#define REMAT_SERVICE_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/overlay.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"

/* One answer. The holder owns plan, sim, ov and opts_key (answer_done). */
typedef struct Answer {
    const SolverClass *cls;
    char *opts_key;     /* service_opts_key of the options it was solved with */
    int64_t budget;     /* as asked (PLAN_NO_BUDGET: none) */
    int rc;             /* ERR_OK; ERR_OVER_BUDGET (the best plan is kept); the solver's error */
    Err err;
    Plan plan;          /* simulated, when has_plan */
    Sim sim;            /* its simulation (T 0 without a plan) */
    Overlay ov;         /* the plan's own structure (describe); may be empty */
    int has_plan;
    int final;          /* 1: what `remat solve` gives; 0: a quick or partial answer */
    double secs;        /* wall time of prepare (when run) and solve */
} Answer;

void answer_init(Answer *a);
void answer_done(Answer *a);
/* dst (initialised or done) becomes a deep copy of src. */
void answer_copy(Answer *dst, const Answer *src);
/* dst (initialised or done) takes src's contents; src is left empty. */
void answer_move(Answer *dst, Answer *src);
/* The plan's simulated cost when it fits the budget, else +infinity: what
 * "cheaper" means between answers for one budget. */
double answer_cost(const Answer *a);

/* Options as one canonical text ("k=v;k=v", keys sorted; "" for none):
 * the key under which answers and prepared solvers are kept. Caller frees. */
char *service_opts_key(const SolverOpts *o);

typedef struct Service Service;

/* A service over g (borrowed; must outlive it). */
Service *service_new(const Graph *g);
void service_free(Service *en);

/* The answer for (cls, opts, budget) into *out (initialised here): final
 * (quick 0) or quick (quick 1), as the header comment says. p (may be
 * NULL) carries cancellation and, through p->offer, the better plans the
 * search finds while it runs. Returns out->rc. A solver that refuses the
 * graph (prepare fails) answers with its reason; a cancelled prepare is
 * tried again next time. */
int service_answer(Service *en, const SolverClass *cls, const SolverOpts *opts, int64_t budget, int quick,
                  Progress *p, Answer *out);

/* One final answer with nothing kept: service_new, service_answer, service_free. */
int service_solve(const Graph *g, const SolverClass *cls, const SolverOpts *opts, int64_t budget,
                 Progress *p, Answer *out);

/* The tightest budget the solver reaches, and its cheapest plan there:
 * a final answer at the peak bound (bound_min_peak: no schedule peaks
 * below it), which ends it when met; otherwise a second final answer at
 * the lowest peak the first one found, whose plan fits there by
 * definition, so the cheaper of the two is kept (a fresh search need not
 * find that plan again). out->budget is the budget answered, *lo the
 * bound. Two solves' time at most. Returns out->rc (ERR_OK with a plan,
 * or the first answer's failure when it found no plan at all). */
int service_tightest(Service *en, const SolverClass *cls, const SolverOpts *opts, Progress *p, Answer *out,
                     int64_t *lo);

/* What a tightest-budget answer reached and whether the peak bound lo
 * proves none is tighter, in one sentence for `remat solve --budget min`
 * and the explorer's `b min` alike: "tightest budget reached 13 B (37.1%
 * of the baseline peak); the peak bound is 5 B (14.3%): the solver fell
 * short or the bound is loose". */
void service_tightest_say(int64_t reached, int64_t lo, int64_t baseline, char *buf, size_t n);

#endif
