/* session.h — what the explorer is looking at, without any terminal: the
 * graph, the chosen solver, its options and the budget (`want`), the plan
 * shown with its simulation and the figures the views read (`have`), the
 * baseline curve and the budget range, and the final answers found so far
 * keyed by (solver, options, budget), so going back is instant.
 *
 * Anytime answers: a want the cache cannot serve is sent to the worker's
 * solve lane (src/session/worker.h), which answers at once with the
 * service's quick answer, then runs the service's final answer — the plan
 * `remat solve` gives — and posts every cheaper plan it finds on the way.
 * The session shows each in turn, says which it shows (SessionShown), and
 * keeps the final one. The next want cancels what still runs.
 *
 * Background work the views ask for (every solver at one budget, a budget
 * sweep, a batch fit, the lower bound) is the same service's final answers,
 * so a row of the compare view and the status line agree; one-shot tasks
 * (exports, replays, layouts) run on the worker's other lane through
 * session_task. The UI talks to the worker only through this header.
 */
#ifndef REMAT_SESSION_H
#define REMAT_SESSION_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/overlay.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"
#include "src/session/service.h"
#include "src/session/facts.h"
#include "src/session/fit.h"
#include "src/session/worker.h"

#define SESSION_CACHE_MAX 96
#define SESSION_FITS_MAX 8

/* Which answer the shown plan is (never more than is true). */
typedef enum SessionShown {
    SHOWN_NONE,         /* no plan yet */
    SHOWN_PARTIAL,      /* the best plan so far of a full solve still running */
    SHOWN_QUICK,        /* the quick answer; the full solve runs */
    SHOWN_FINAL,        /* what `remat solve` gives for the want */
} SessionShown;

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

/* The options a user set for one class (through -O or the picker). */
typedef struct SessionOpts {
    const SolverClass *cls;
    SolverOpts opts;
} SessionOpts;

typedef struct SessionEntry {
    Answer a;           /* a final answer */
    unsigned stamp;     /* for least-recently-used eviction */
} SessionEntry;

struct WantTask;
struct BgTask;

typedef struct Session {
    const Graph *g;             /* the worker's; read-only */
    /* want */
    const SolverClass *cls;
    int64_t budget;
    int tightest;               /* want the tightest budget the solver reaches (session_set_tightest) */
    int64_t peak_bound;         /* bound_min_peak, once the tightest budget was asked (else 0) */
    char *pin, *force;          /* node rules given to every solve ("" none); owned */
    unsigned gen;               /* bumped by every change of want */
    /* range and baseline, computed once */
    int64_t min_peak, base_peak;
    Sim base;                   /* baseline curve */
    /* have: the plan shown, for `want` or an earlier want */
    int have;                   /* 1 when plan/sim hold a valid plan */
    Plan plan;
    Sim sim;
    Overlay ov;
    PlanFacts facts;
    const SolverClass *have_cls;
    int64_t have_budget;
    SessionShown shown;         /* which answer it is */
    int rc;                     /* status of the last answer (OK, OVER_BUDGET, ...) */
    Err err;                    /* its message */
    double secs;                /* solve time of the last final answer */
    int from_cache;             /* the final answer came from the cache */
    double since;               /* clock_now() when the want was sent to the worker */
    /* private: the want sent last, the answers, the worker */
    unsigned asked_gen;
    SessionOpts *copts;
    int n_copts;
    SessionEntry *cache;
    int n_cache;
    SessionFit fits[SESSION_FITS_MAX];
    int n_fits;
    unsigned stamp;
    Worker *w;
    struct WantTask *fg;        /* the want running now (owned by the worker until done) */
    TaskId fg_id;
    struct BgTask **bg;         /* background tasks sent and not yet back */
    int n_bg, cap_bg;
    int changed;                /* SESSION_* bits gathered by task callbacks */
} Session;

/* The solver the explorer opens on: the "auto" portfolio when it is
 * registered, else the first registered class. */
const SolverClass *session_default_solver(void);

/* New session over g (ownership passes to the session's worker) with
 * solver cls (NULL: session_default_solver) and opts (copied; for cls;
 * may be NULL). The budget starts at the baseline peak. NULL with e set
 * when the worker cannot start (g is then freed). */
Session *session_new(Graph *g, const SolverClass *cls, const SolverOpts *opts, Err *e);
/* Stop the worker and free everything; returns 1. A task that does not
 * notice its cancel flag within half a second (Graphviz rendering an
 * export) is left running, with the graph it reads, and 0 is returned: the
 * process should then end with _exit, since the libraries' destructors
 * that exit runs would free data under that task. */
int session_free(Session *s);

/* Change want; clamps the budget to [min_peak, base_peak]. Nothing is
 * solved until session_request. */
void session_set_budget(Session *s, int64_t budget);
/* Want the tightest budget the solver reaches, at its cheapest plan there
 * (service_tightest): the budget goes to the peak bound now, and to the
 * budget answered when the answer comes. A later set_budget ends it. */
void session_set_tightest(Session *s);
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
/* Serve want from the cache (returns 1: have is updated now, final) or
 * send it to the worker (returns 0: session_poll will show the answers). */
int session_request(Session *s);
/* Descriptor to poll() for the worker's news. */
int session_fd(const Session *s);
/* Take the worker's news: a plan for the want shown (SESSION_HAVE:
 * quick, better or final), background answers stored (SESSION_MORE),
 * one-shot tasks finished (their done callbacks ran: SESSION_TASK).
 * Returns the bits of what happened, 0 if nothing. */
enum { SESSION_HAVE = 1, SESSION_MORE = 2, SESSION_TASK = 4 };
int session_poll(Session *s);

/* What runs, for status lines. */
typedef struct SessionStatus {
    int solving;            /* the want is with the worker (no final answer yet) */
    double elapsed;         /* seconds since it was sent */
    double progress;        /* 0..1, advisory */
    int bg_left;            /* background answers queued or running */
    char bg_what[96];       /* the running one: "auto at 512 MiB", "batch fit with greedy" */
    int io_left;            /* one-shot tasks queued or running */
    char io_what[32];       /* the running one's name */
    double io_elapsed;
    double io_progress;
} SessionStatus;
void session_status(Session *s, SessionStatus *st);

/* Background answers a view wants (options: the class's effective
 * options, the same the status line uses). */
typedef enum WantKind { WANT_PLAN, WANT_FIT, WANT_BOUND } WantKind;
typedef struct SessionWant {
    WantKind kind;
    const SolverClass *cls;     /* WANT_PLAN, WANT_FIT */
    int64_t budget;             /* WANT_FIT: the memory to fit */
} SessionWant;
/* Keep exactly these in the background, in this order, behind the want:
 * what is answered already is skipped, what was asked before and is not
 * in the list any more is cancelled. */
void session_background(Session *s, const SessionWant *w, int n);
/* 1 while this background answer is being computed now. */
int session_computing(Session *s, const SessionWant *w);
/* The final answer for (cls, budget) with cls's effective options, or NULL. */
const Answer *session_answer(Session *s, const SolverClass *cls, int64_t budget);
const SessionFit *session_fit(Session *s, const SolverClass *cls, int64_t memory);
/* Why cls refused the graph with its effective options, when an answer
 * at some budget said so (a refusal, not "over budget"); else NULL. */
const char *session_refusal(Session *s, const SolverClass *cls);
/* The lower bound at budget over the graph's order (src/plan/bound.h),
 * raised to the bound over every order where that is higher: 1 with *rc,
 * *lb and e when known (asked through session_background), 0 when not
 * yet; *every (may be NULL): 1 when *lb holds over every order (no
 * schedule at all costs less). */
int session_bound(Session *s, int64_t budget, int *rc, double *lb, int *every, Err *e);

/* Put a finished plan for cls at budget (with cls's effective options)
 * into the cache as a final answer (plan copied and simulated here; may be
 * NULL for a refusal) without showing it; a later session_request for
 * (cls, budget) is then served at once. The overlay is left empty. */
void session_cache_put(Session *s, const SolverClass *cls, int64_t budget, int rc, const Err *err,
                       const Plan *plan, double secs);
/* 1 when (cls, budget) with cls's effective options is in the cache. */
int session_cached(Session *s, const SolverClass *cls, int64_t budget);

/* A one-shot task on the worker's I/O lane (export, replay, layout):
 * ops->run reads the session's graph (TaskCtx.g) and its own arg; done
 * and free run inside session_poll. */
TaskId session_task(Session *s, const TaskOps *ops, void *arg);
void session_task_cancel(Session *s, TaskId id);

#endif
