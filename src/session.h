/* session.h — what the explorer is looking at, without any terminal: the
 * graph, the chosen solver and budget (`want`), the last finished plan and
 * its simulated curve (`have`), the baseline curve and the budget range,
 * and a plan cache keyed by (solver, budget) so going back is instant.
 * Solving happens in the job worker (src/job.h); session_poll installs its
 * answers.
 */
#ifndef REMAT_SESSION_H
#define REMAT_SESSION_H

#include <stdint.h>

#include "src/err.h"
#include "src/graph.h"
#include "src/job.h"
#include "src/overlay.h"
#include "src/plan.h"
#include "src/sim.h"
#include "src/solver.h"

#define SESSION_CACHE_MAX 64

typedef struct SessionEntry {
    const SolverClass *cls;
    int64_t budget;     /* the key; PLAN_NO_BUDGET for budgetless classes */
    int rc;
    Err err;
    Plan plan;
    Overlay ov;
    double secs;
    unsigned stamp;     /* for least-recently-used eviction */
} SessionEntry;

typedef struct Session {
    Graph *g;                   /* owned */
    SolverOpts opts;            /* owned; given to opts_cls only */
    const SolverClass *opts_cls;
    /* want */
    const SolverClass *cls;
    int64_t budget;
    unsigned gen;               /* bumped by every change of want */
    unsigned asked_gen;         /* generation last sent to the worker (or served) */
    /* range and baseline */
    int64_t min_peak, base_peak;
    int *base_order;
    Sim base;                   /* baseline curve */
    /* have: the last finished result for `want` or an earlier want */
    int have;                   /* 1 when plan/sim hold a valid plan */
    Plan plan;
    Sim sim;
    Overlay ov;
    const SolverClass *have_cls;
    int64_t have_budget;
    int rc;                     /* status of the last result (OK, OVER_BUDGET, ...) */
    Err err;                    /* its message */
    double secs;                /* solve time of the last result */
    int from_cache;
    /* cache */
    SessionEntry cache[SESSION_CACHE_MAX];
    int n_cache;
    unsigned stamp;
    Job *job;
    double asked_at;            /* monotonic seconds of the last request */
} Session;

/* New session over g (ownership passes in) with solver cls (NULL: the
 * first registered) and opts (copied; for cls only; may be NULL). The
 * budget starts at the baseline peak. NULL with e set when the worker
 * cannot start (g is then freed). */
Session *session_new(Graph *g, const SolverClass *cls, const SolverOpts *opts, Err *e);
void session_free(Session *s);

/* Change want; clamps the budget to [min_peak, base_peak]. Nothing is
 * solved until session_request. */
void session_set_budget(Session *s, int64_t budget);
void session_set_solver(Session *s, const SolverClass *cls);
/* 1 when want differs from what was last asked for. */
int session_stale(const Session *s);
/* Serve want from the cache (returns 1: have is updated now) or send it to
 * the worker (returns 0: session_poll will install the answer). */
int session_request(Session *s);
/* Descriptor to poll() for worker answers. */
int session_fd(const Session *s);
/* Install a waiting answer for the newest want; 1 when have changed. */
int session_poll(Session *s);
/* 1 while the worker is solving; elapsed seconds since the request. */
int session_busy(const Session *s, double *elapsed, double *progress);

/* Put a finished answer into the cache (plan copied; may be NULL for a
 * refusal) without showing it; a later session_request for (cls, budget)
 * is then served at once. The overlay is left empty. */
void session_cache_put(Session *s, const SolverClass *cls, int64_t budget, int rc, const Err *err,
                       const Plan *plan, double secs);
/* 1 when (cls, budget) is in the cache. */
int session_cached(Session *s, const SolverClass *cls, int64_t budget);

/* The budget key a class uses in the cache. */
int64_t session_cache_key(const SolverClass *cls, int64_t budget);

#endif
