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

#include "src/plan/cands.h"
#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/overlay.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"

enum {
    SOLVER_EXACT = 1 << 0,        /* optimal under its model; may be slow */
    SOLVER_BUDGETLESS = 1 << 1,   /* ignores the budget (noremat) */
    SOLVER_CONSTRAINTS = 1 << 2,  /* honours the pin= and force= options */
};

/* Node rules from the generic options every solver class accepts:
 * pin=ID[,ID...] (run once: never recompute) and force=ID[,ID...]
 * (recompute: run at least twice). */
enum { NODE_FREE = 0, NODE_PIN = 1, NODE_FORCE = 2 };

/* A plan a search offers while it runs (see Progress.offer). */
typedef void (*ProgressOffer)(void *ctx, const int *steps, int T, const char *origin);
/* A lower bound a search proved while it runs (see Progress.on_bound). */
typedef void (*ProgressBound)(void *ctx, double bound);

/* Cancellation, progress and the plans found so far, shared with a worker
 * thread. */
typedef struct Progress {
    atomic_int cancel;      /* set by the caller; solvers poll it */
    _Atomic double done;    /* 0..1, advisory */
    /* Optional (NULL: nobody listens): a search calls it, on its own
     * thread or one it started (auto's cascade LP, through its relay:
     * one call at a time), with each plan better than the ones it
     * offered before, so
     * that a caller can show the best plan so far while the search goes
     * on (the explorer's refinement). The steps are borrowed for the
     * call. The listener simulates what it keeps: an offer is a hint,
     * never a figure. Offering changes nothing in the search. */
    ProgressOffer offer;
    /* Optional, with offer_ctx: a lower bound on the cost of every plan
     * the solver's model allows within this solve's budget, told as soon
     * as a search proves it, long before the answer carries it
     * (Plan.bound): auto's cascade LP, after its first round. It holds
     * for that budget only, and like Plan.bound for plans in the
     * model's order: a plan cheaper than it left that order. */
    ProgressBound on_bound;
    void *offer_ctx;
} Progress;

/* Clears cancel and done and removes any listener. */
void progress_init(Progress *p);
/* 1 when p is non-NULL and cancel is set. */
int progress_cancelled(Progress *p);
void progress_set(Progress *p, double done);
/* Hand steps[0..T) to p's listener, if any (p may be NULL). */
void progress_offer(Progress *p, const int *steps, int T, const char *origin);
/* Tell p's listener, if any (p may be NULL), of a lower bound (> 0). */
void progress_bound(Progress *p, double bound);

/* What a parameter's value may be; checked once, when a solver is made. */
typedef enum OptKind {
    OPT_TEXT,       /* free text (a list of names, a key=value string) */
    OPT_INT,        /* an integer in [lo, hi], or one of `words` */
    OPT_NUM,        /* a finite number in [lo, hi], or one of `words` */
    OPT_CHOICE,     /* one of `words` */
} OptKind;

/* One documented parameter: name, default text, help line, and its type.
 * The table drives validation, `remat list-solvers`, the explorer's picker
 * and the option tables of docs/solvers. */
typedef struct SolverParam {
    const char *name;
    const char *def;
    const char *help;
    OptKind kind;
    double lo, hi;          /* OPT_INT, OPT_NUM: the accepted range */
    const char *words;      /* "on|off"; for numbers, words accepted besides them ("auto") */
} SolverParam;

#define OPT_P_TEXT(n, d, h) {n, d, h, OPT_TEXT, 0, 0, NULL}
#define OPT_P_INT(n, d, lo, hi, w, h) {n, d, h, OPT_INT, lo, hi, w}
#define OPT_P_NUM(n, d, lo, hi, w, h) {n, d, h, OPT_NUM, lo, hi, w}
#define OPT_P_CHOICE(n, d, w, h) {n, d, h, OPT_CHOICE, 0, 0, w}
#define OPT_P_END {NULL, NULL, NULL, OPT_TEXT, 0, 0, NULL}

/* ERR_OK when val suits p, else ERR_USAGE with "option NAME=VAL: expected
 * ..." in e. */
int solver_param_check(const SolverParam *p, const char *val, Err *e);
/* What p accepts, for people: "2..64 (an integer)", "on|off", "0..1 (a
 * number) or auto", "text". */
void solver_param_kind(const SolverParam *p, char *buf, size_t n);

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
    /* What a plan it calls optimal is optimal among, said after "optimal"
     * ("in the orders it solved"); NULL: every plan of the graph. */
    const char *optimal_among;
    const SolverParam *params;/* terminated by {NULL} */
    /* Bytes of private state: solver_new allocates them zeroed in
     * s->state before prepare, solver_free frees them after release, so a
     * prepare that fails half-way leaves nothing to undo but what release
     * frees anyway. 0: no state. */
    size_t state_size;
    /* Budget-independent work; may refuse a graph with ERR_UNSUPPORTED and
     * a message saying why ("no articulation points"). Optional. */
    int (*prepare)(Solver *s, Err *e);
    /* Schedule for budget (PLAN_NO_BUDGET = none) into out->steps. */
    int (*solve)(Solver *s, int64_t budget, Plan *out, Progress *p, Err *e);
    /* Optional: like solve, with the previous plan to reuse. */
    int (*resolve)(Solver *s, int64_t budget, const Plan *prev, Plan *out, Progress *p, Err *e);
    /* Optional: the structure behind the last solve (groups of nodes, a
     * title) into out; left empty when nothing was solved. It cannot fail:
     * it only reads what solve kept. */
    void (*describe)(const Solver *s, Overlay *out);
    /* Optional: keep steps[0..T), a plan made elsewhere (another solver,
     * a fresh solve at some budget) whose schedule is valid for this
     * graph, among what later re-solves pick from. origin: the static name
     * of who made it. A class that keeps no pool leaves it NULL. */
    void (*adopt)(Solver *s, const int *steps, int T, const char *origin);
    /* Free what the state points to (not the state itself); also called
     * after a failed prepare, on a partly filled state. Optional. */
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
    /* The graph's baseline figures, simulated once for every plan. */
    int64_t base_peak;
    double base_cost;
};

/* ---- registry (defined in solvers/registry.c) ------------------------ */
int solver_count(void);
const SolverClass *solver_at(int i);
const SolverClass *solver_find(const char *name);

/* The class's documented parameter `name`, or NULL. */
const SolverParam *solver_param(const SolverClass *cls, const char *name);

/* ---- running a solver (src/plan/solver.c) -------------------------------- */

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
/* The same, also handing over the plan's simulation in *sim (when the
 * status is ERR_OK, or ERR_OVER_BUDGET with a schedule; the caller
 * sim_done()s it), so the explorer's worker never simulates again. */
int solver_plan_sim(Solver *s, int64_t budget, const Plan *prev, Plan *out, Sim *sim, Progress *p,
                    Err *e);

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

/* Option accessors for solver code: the value given by the user, else the
 * class's documented default. Malformed numbers are reported through e. */
const char *solver_opt_str(const Solver *s, const char *name);
/* 1 when the user gave option `name` (not only its default). */
int solver_opt_given(const Solver *s, const char *name);
int solver_opt_int(const Solver *s, const char *name, long long *out, Err *e);
int solver_opt_double(const Solver *s, const char *name, double *out, Err *e);
/* A choice option as the index of its value among the table's words
 * ("optimal|naive|min-memory": optimal 0, naive 1, min-memory 2), so a
 * solver does not spell the words out again. */
int solver_opt_choice(const Solver *s, const char *name, int *out, Err *e);

#endif
