/* solver.h — the one interface every rematerialization algorithm implements.
 *
 * A SolverClass is a const table of function pointers (one per file in
 * solvers/, listed in solvers/registry.c). A Solver is an instance bound to
 * one graph and one set of options: `prepare` does the budget-independent
 * work once (tree decomposition, DP tables, segment search), then `solve`
 * (or `resolve`, reusing an earlier plan) produces a schedule for a budget.
 *
 * Solvers only fill Plan.steps. solver_plan() below simulates every plan
 * with sim.c and fills the figures, so a solver's private memory model can
 * never leak into what the user sees. A solver that cannot meet the budget
 * still returns its best schedule; solver_plan then reports ERR_OVER_BUDGET.
 */
#ifndef REMAT_SOLVER_H
#define REMAT_SOLVER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "src/cands.h"
#include "src/err.h"
#include "src/graph.h"
#include "src/overlay.h"
#include "src/plan.h"

enum {
    SOLVER_INCREMENTAL = 1 << 0,  /* resolve reuses earlier work */
    SOLVER_EXACT = 1 << 1,        /* optimal under its model; may be slow */
    SOLVER_STRUCTURE = 1 << 2,    /* describe() returns an overlay */
    SOLVER_BUDGETLESS = 1 << 3,   /* ignores the budget (noremat) */
    SOLVER_CONSTRAINTS = 1 << 4,  /* honours the pin= and force= options */
};

/* Node rules from the generic options every solver class accepts:
 * pin=ID[,ID...] (run once: never recompute) and force=ID[,ID...]
 * (recompute: run at least twice). */
enum { NODE_FREE = 0, NODE_PIN = 1, NODE_FORCE = 2 };

/* Cancellation and progress, shared with a worker thread. */
typedef struct Progress {
    atomic_int cancel;      /* set by the caller; solvers poll it */
    _Atomic double done;    /* 0..1, advisory */
} Progress;

void progress_init(Progress *p);
/* 1 when p is non-NULL and cancel is set. */
int progress_cancelled(Progress *p);
void progress_set(Progress *p, double done);

/* One documented parameter: name, default text, help line. */
typedef struct SolverParam {
    const char *name;
    const char *def;
    const char *help;
} SolverParam;

#define SOLVER_OPTS_MAX 16
typedef struct SolverOpts {
    int n;
    char *key[SOLVER_OPTS_MAX];
    char *val[SOLVER_OPTS_MAX];
} SolverOpts;

void solver_opts_init(SolverOpts *o);
void solver_opts_done(SolverOpts *o);
/* Parse "key=value" and add it (replacing an earlier key). ERR_USAGE if
 * malformed or too many. */
int solver_opts_add(SolverOpts *o, const char *kv, Err *e);

typedef struct Solver Solver;

typedef struct SolverClass {
    const char *name;         /* CLI key: "greedy" */
    const char *title;        /* one-line explanation for lists and pickers */
    unsigned caps;            /* SOLVER_* */
    const SolverParam *params;/* terminated by {NULL} */
    /* Budget-independent work; may refuse a graph with ERR_UNSUPPORTED and
     * a message saying why ("no articulation points"). Optional. */
    int (*prepare)(Solver *s, Err *e);
    /* Schedule for budget (PLAN_NO_BUDGET = none) into out->steps. */
    int (*solve)(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e);
    /* Optional: like solve, with the previous plan to reuse. */
    int (*resolve)(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p, Err *e);
    /* Optional: structure of the last solve (groups of nodes). */
    int (*describe)(const Solver *s, const Plan *pl, Overlay *out, Err *e);
    /* Free state. Optional. */
    void (*release)(Solver *s);
} SolverClass;

struct Solver {
    const SolverClass *cls;
    const Graph *g;           /* borrowed; outlives the solver */
    SolverOpts opts;          /* owned copy */
    void *state;              /* the class's private state */
    /* Cancellation for prepare, which has no Progress argument: set by
     * solver_new_cancellable while prepare runs, NULL otherwise. A long
     * prepare polls it and returns ERR_CANCELLED. */
    Progress *prepare_progress;
    /* Per-node NODE_* rules from pin=/force=, or NULL when none was given.
     * Only classes with SOLVER_CONSTRAINTS get a solver with rules. */
    unsigned char *rule;
    /* The schedules the solver has made and may pick from again (see
     * cands.h); owned, emptied by solver_free. Solvers that choose among a
     * family fill it in prepare or their first solve. */
    CandSet cands;
};

/* ---- registry (defined in solvers/registry.c) ------------------------ */
int solver_count(void);
const SolverClass *solver_at(int i);
const SolverClass *solver_find(const char *name);

/* ---- running a solver (src/solver.c) -------------------------------- */

/* Bind cls to g with opts (copied; NULL for none), check option names
 * against cls->params (pin= and force= are accepted for every class: a
 * class without SOLVER_CONSTRAINTS refuses them with ERR_UNSUPPORTED, an
 * unknown or input node is ERR_USAGE), and run prepare. NULL with e set on
 * failure. */
Solver *solver_new(const SolverClass *cls, const Graph *g, const SolverOpts *opts, Err *e);
/* The same, with p's cancel flag polled by a long prepare (tree
 * decompositions of large graphs): NULL with ERR_CANCELLED when it fired. */
Solver *solver_new_cancellable(const SolverClass *cls, const Graph *g, const SolverOpts *opts,
                               Progress *p, Err *e);
void solver_free(Solver *s);

/* Plan for budget: resolve when prev is given and the class has it, else
 * solve; then simulate and fill out's figures and names, and check the
 * plan keeps the solver's pin/force rules (ERR_INVALID if not). Returns ERR_OK,
 * ERR_OVER_BUDGET (out holds the best plan found, its peak above budget),
 * or the solver's error (out empty). Budgets below graph_min_peak are
 * refused up front with ERR_OVER_BUDGET naming the smallest possible peak. */
int solver_plan(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p, Err *e);

/* The choice a solver makes among candidate schedules it has simulated: a
 * schedule within the budget (any, when there is none) beats one above it;
 * among those within, the lower cost wins; among those above, the lower
 * peak. Ties keep the earlier candidate. */
typedef struct PlanPick {
    int best;           /* the caller's id of the kept candidate; -1 before any */
    int fits;           /* the kept candidate is within the budget */
    int64_t peak;
    double cost;
} PlanPick;

void plan_pick_init(PlanPick *k);
/* Offer candidate id with its simulated peak and cost; 1 when it is kept. */
int plan_pick_offer(PlanPick *k, int id, int64_t budget, int64_t peak, double cost);

/* A Progress that also cancels itself after a deadline: child.cancel is
 * set when parent (may be NULL) is cancelled or `seconds` have passed. A
 * watcher thread polls every few milliseconds until deadline_stop. */
typedef struct Deadline {
    Progress child;
    Progress *parent;
    double at;              /* CLOCK_MONOTONIC seconds */
    atomic_int stop;
    void *thread;           /* opaque */
} Deadline;

void deadline_start(Deadline *d, Progress *parent, double seconds);
void deadline_stop(Deadline *d);
/* Seconds on the monotonic clock. */
double solver_now(void);

/* Option accessors for solver code: the value given by the user, else the
 * class's documented default. Malformed numbers are reported through e. */
const char *solver_opt_str(const Solver *s, const char *name);
/* 1 when the user gave option `name` (not only its default). */
int solver_opt_given(const Solver *s, const char *name);
int solver_opt_int(const Solver *s, const char *name, long long *out, Err *e);
int solver_opt_double(const Solver *s, const char *name, double *out, Err *e);

#endif
