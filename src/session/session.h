/* session.h — what the explorer is looking at, without any terminal: the
 * graph, the chosen solver, its options and the budget (`want`), the last
 * finished plan with its simulation and the figures the views read
 * (`have`), the baseline curve and the budget range, and a cache of answers
 * keyed by (solver, options, budget) so going back is instant.
 *
 * Solving happens in the job worker (src/session/job.h): the foreground want, and
 * background work the views queue (every solver at one budget, a budget
 * sweep, a batch fit) whose answers land in the same cache. session_poll
 * installs the answers; nothing here simulates a plan the worker has
 * already simulated.
 */
#ifndef REMAT_SESSION_H
#define REMAT_SESSION_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/session/fit.h"
#include "src/graph/graph.h"
#include "src/session/job.h"
#include "src/plan/overlay.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"

#define SESSION_CACHE_MAX 96
#define SESSION_FITS_MAX 8

/* One answer: a plan (or a refusal) for (cls, options, budget). */
typedef struct SessionEntry {
    const SolverClass *cls;
    int64_t budget;     /* the key; PLAN_NO_BUDGET for budgetless classes */
    char *opts_key;     /* the key's options (job_opts_key) */
    int rc;
    Err err;
    Plan plan;
    Sim sim;            /* the plan's simulation (T 0 without a plan) */
    Overlay ov;
    int has_plan;
    double secs;
    unsigned stamp;     /* for least-recently-used eviction */
} SessionEntry;

/* A batch fit for (cls, options, memory). */
typedef struct SessionFit {
    const SolverClass *cls;
    char *opts_key;
    int64_t memory;
    int rc;
    Err err;
    FitResult fit;
    double secs;
    unsigned stamp;
} SessionFit;

/* Figures of the installed plan, computed once when it is installed and
 * read by every view and the export. */
typedef struct PlanFacts {
    int *runs;              /* g->n: how often each node runs */
    int *first_step;        /* g->n: step of its first run, -1 when it never runs */
    unsigned char *rerun;   /* T: 1 when step t runs its node again (a recomputation) */
    int *recomputed;        /* nodes run more than once, largest extra cost first */
    int n_recomputed;
    int n_rerun_steps;
    double extra_cost;      /* cost of the reruns */
    unsigned char *alive_peak;  /* g->n: 1 when the node's value is alive at the peak step */
} PlanFacts;

/* The options a user set for one class (through -O or the picker). */
typedef struct SessionOpts {
    const SolverClass *cls;
    SolverOpts opts;
} SessionOpts;

typedef struct Session {
    Graph *g;                   /* owned */
    SessionOpts *copts;         /* per class; owned */
    int n_copts;
    char *pin, *force;          /* node rules given to every solve ("" none); owned */
    /* want */
    const SolverClass *cls;
    int64_t budget;
    unsigned gen;               /* bumped by every change of want */
    unsigned asked_gen;         /* generation last sent to the worker (or served) */
    /* range and baseline, computed once */
    int64_t min_peak, base_peak;
    int *base_order;
    Sim base;                   /* baseline curve */
    /* have: the last finished result for `want` or an earlier want */
    int have;                   /* 1 when plan/sim hold a valid plan */
    Plan plan;
    Sim sim;
    Overlay ov;
    PlanFacts facts;
    const SolverClass *have_cls;
    int64_t have_budget;
    int rc;                     /* status of the last result (OK, OVER_BUDGET, ...) */
    Err err;                    /* its message */
    double secs;                /* solve time of the last result */
    int from_cache;
    /* answers */
    SessionEntry *cache;        /* SESSION_CACHE_MAX slots */
    int n_cache;
    SessionFit fits[SESSION_FITS_MAX];
    int n_fits;
    unsigned stamp;
    Job *job;
    double asked_at;            /* monotonic seconds of the last request */
} Session;

/* The solver the explorer opens on: the "auto" portfolio when it is
 * registered, else the first registered class. */
const SolverClass *session_default_solver(void);

/* New session over g (ownership passes in) with solver cls (NULL:
 * session_default_solver) and opts (copied; for cls; may be NULL). The
 * budget starts at the baseline peak. NULL with e set when the worker
 * cannot start (g is then freed). */
Session *session_new(Graph *g, const SolverClass *cls, const SolverOpts *opts, Err *e);
/* Stop the worker and free everything. A solver that does not notice its
 * cancel flag within half a second is left running, with the graph it
 * reads, for the exiting process to end. */
void session_free(Session *s);

/* Change want; clamps the budget to [min_peak, base_peak]. Nothing is
 * solved until session_request. */
void session_set_budget(Session *s, int64_t budget);
void session_set_solver(Session *s, const SolverClass *cls);
/* The options the user gave cls (never NULL; may be empty). */
const SolverOpts *session_class_opts(Session *s, const SolverClass *cls);
/* Set option key of cls to val (NULL or "": back to its default). The
 * name is checked against the class's parameters; ERR_USAGE otherwise.
 * A change for the wanted class changes want. */
int session_set_option(Session *s, const SolverClass *cls, const char *key, const char *val, Err *e);
/* Node rules for every solve: comma-separated ids to pin (never
 * recompute) and to force (recompute); NULL or "" for none. */
void session_set_rules(Session *s, const char *pin, const char *force);
/* The options a solve of cls gets: its user options plus the node rules.
 * out is initialised here (solver_opts_done). */
void session_effective_opts(Session *s, const SolverClass *cls, SolverOpts *out);

/* 1 when want differs from what was last asked for. */
int session_stale(const Session *s);
/* Serve want from the cache (returns 1: have is updated now) or send it to
 * the worker (returns 0: session_poll will install the answer). */
int session_request(Session *s);
/* Descriptor to poll() for worker answers. */
int session_fd(const Session *s);
/* Take every waiting answer: the foreground one is installed when it is
 * for the newest want (SESSION_HAVE), background ones go to the cache and
 * the fits (SESSION_MORE). Returns the bits of what happened, 0 if nothing. */
enum { SESSION_HAVE = 1, SESSION_MORE = 2 };
int session_poll(Session *s);
/* 1 while the worker is solving want; elapsed seconds since the request. */
int session_busy(const Session *s, double *elapsed, double *progress);
void session_status(const Session *s, JobStatus *st);

/* Queue background work (replacing what was queued before): plans go to
 * the cache, fits to session_fit_find. Tasks already answered are skipped. */
void session_background(Session *s, const JobTask *tasks, int n);
/* The answer for (cls, opts, budget), or NULL. opts are effective options
 * (session_effective_opts, plus any the caller added). */
const SessionEntry *session_find(Session *s, const SolverClass *cls, const SolverOpts *opts,
                                 int64_t budget);
const SessionFit *session_fit_find(Session *s, const SolverClass *cls, const SolverOpts *opts,
                                   int64_t memory);

/* Put a finished answer for cls at budget (with cls's effective options)
 * into the cache (plan copied and simulated here; may be NULL for a
 * refusal) without showing it; a later session_request for (cls, budget)
 * is then served at once. The overlay is left empty. */
void session_cache_put(Session *s, const SolverClass *cls, int64_t budget, int rc, const Err *err,
                       const Plan *plan, double secs);
/* 1 when (cls, budget) with cls's effective options is in the cache. */
int session_cached(Session *s, const SolverClass *cls, int64_t budget);

/* The budget key a class uses in the cache. */
int64_t session_cache_key(const SolverClass *cls, int64_t budget);

#endif
