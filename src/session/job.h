/* job.h — one worker thread that runs solvers off the UI thread.
 *
 * The UI asks for one foreground plan at a time (solver class, options,
 * budget, generation) and may queue background work behind it (plans for
 * the comparison and the budget sweep, batch fits). The worker serves the
 * foreground request first; a newer foreground request cancels whatever
 * runs (a cancelled background task goes back to the head of its queue),
 * and a foreground answer older than the newest request is dropped.
 *
 * The worker keeps prepared Solvers, one per (class, options), so moving
 * the budget, comparing solvers and sweeping never repeat a prepare, and
 * each plan is re-solved from the last plan of the same Solver. Every
 * answer carries the simulation of its plan, so the UI never simulates.
 * Answers are announced by one byte on a pipe the UI can poll(); curses
 * never leaves the main thread.
 */
#ifndef REMAT_JOB_H
#define REMAT_JOB_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/session/fit.h"
#include "src/graph/graph.h"
#include "src/plan/overlay.h"
#include "src/plan/plan.h"
#include "src/plan/sim.h"
#include "src/plan/solver.h"

typedef struct Job Job;

typedef enum JobKind {
    JOB_PLAN,           /* plan cls at budget */
    JOB_FIT,            /* fit_batch_units: the largest batch within budget bytes */
} JobKind;

/* What to compute. opts is copied by job_request/job_background. */
typedef struct JobTask {
    JobKind kind;
    const SolverClass *cls;
    const SolverOpts *opts;     /* NULL: none */
    int64_t budget;             /* JOB_FIT: the memory to fit */
} JobTask;

/* A finished task. The receiver owns plan, sim, ov, fit and opts_key
 * (job_result_done). */
typedef struct JobResult {
    JobKind kind;
    int background;     /* 1 for job_background work */
    unsigned gen;       /* the foreground request's generation */
    const SolverClass *cls;
    char *opts_key;     /* job_opts_key of the task's options */
    int64_t budget;
    int rc;             /* solver_new / solver_plan / fit status */
    Err err;
    Plan plan;          /* evaluated when has_plan */
    Sim sim;            /* its simulation (T 0 without a plan) */
    Overlay ov;         /* describe() output; empty when the class has none */
    int has_plan;
    FitResult fit;      /* JOB_FIT */
    double secs;        /* wall time of prepare (when run) + plan */
} JobResult;

void job_result_done(JobResult *r);

/* What the worker does now, for spinners. */
typedef struct JobStatus {
    int fg_busy;            /* a foreground request is pending or running */
    int bg_left;            /* background tasks queued or running */
    int running;            /* a task runs now */
    int running_bg;
    JobKind kind;
    const SolverClass *cls; /* of the running task */
    int64_t budget;
    double progress;        /* 0..1, advisory */
} JobStatus;

/* Options as one canonical text ("k=v;k=v", keys sorted; "" for none):
 * the key under which answers and prepared Solvers are kept. Caller frees. */
char *job_opts_key(const SolverOpts *o);

/* Start the worker for g (borrowed; must outlive the job, or be handed to
 * job_free's abandon rule). NULL with e set when the pipe or thread cannot
 * be created. */
Job *job_new(const Graph *g, Err *e);
/* Cancel whatever runs and join the worker, waiting at most wait_s seconds
 * (< 0: as long as it takes). Returns 1 when the worker was joined and
 * everything freed; 0 when it was still inside a solver that does not
 * poll its cancel flag: the worker is then left to finish on its own
 * (the process is about to exit) and g must stay allocated. */
int job_free(Job *j, double wait_s);
/* File descriptor that becomes readable when an answer is waiting. */
int job_fd(const Job *j);
/* Ask for a foreground plan (t->kind JOB_PLAN). gen must grow with each
 * request; whatever runs is cancelled. */
void job_request(Job *j, const JobTask *t, unsigned gen);
/* Drop the foreground request: a pending one is forgotten, a running one
 * cancelled (its answer would be dropped anyway). For a want served
 * without the worker. */
void job_drop(Job *j);
/* Replace the background queue with tasks[0..n) (served in order after
 * the foreground). A running background task that is not in the new list
 * is cancelled; one that is stays running and is not queued again. */
void job_background(Job *j, const JobTask *tasks, int n);
/* Move the newest kept foreground answer, or else the oldest background
 * answer, into *out: 1 when there was one (out then owned by the caller),
 * 0 otherwise. Never blocks; call until it returns 0. */
int job_take(Job *j, JobResult *out);
/* 1 while a foreground request is pending or running; *progress 0..1. */
int job_busy(Job *j, double *progress);
void job_status(Job *j, JobStatus *st);

#endif
