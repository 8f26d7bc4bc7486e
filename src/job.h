/* job.h — one worker thread that runs solvers off the UI thread.
 *
 * The UI asks for (solver class, budget, generation); the worker builds a
 * Solver once per class (prepare) and plans for the newest request only. A
 * newer request sets the running job's Progress.cancel; a result whose
 * generation is older than the newest request is dropped. Each kept result
 * is announced by one byte on a pipe the UI can poll(), so curses never
 * leaves the main thread.
 */
#ifndef REMAT_JOB_H
#define REMAT_JOB_H

#include <stdint.h>

#include "src/err.h"
#include "src/graph.h"
#include "src/overlay.h"
#include "src/plan.h"
#include "src/solver.h"

typedef struct Job Job;

/* A finished solve. The receiver owns plan and ov (plan_done, overlay_done). */
typedef struct JobResult {
    unsigned gen;
    const SolverClass *cls;
    int64_t budget;
    int rc;             /* solver_new / solver_plan status */
    Err err;
    Plan plan;          /* evaluated when rc is ERR_OK or ERR_OVER_BUDGET with steps */
    Overlay ov;         /* describe() output; empty when the class has none */
    double secs;        /* wall time of prepare (when run) + plan */
} JobResult;

/* Start the worker for g (borrowed; must outlive the job). NULL with e set
 * when the pipe or thread cannot be created. */
Job *job_new(const Graph *g, Err *e);
/* Cancel any running solve, join the worker, free everything. */
void job_free(Job *j);
/* File descriptor that becomes readable when a result is waiting. */
int job_fd(const Job *j);
/* Ask for a plan. opts is borrowed until the next request (NULL: none).
 * gen must grow with each request; the running solve is cancelled. */
void job_request(Job *j, const SolverClass *cls, const SolverOpts *opts, int64_t budget,
                 unsigned gen);
/* Drain the pipe and move the newest kept result into *out: 1 when there
 * was one (out then owned by the caller), 0 otherwise. Never blocks. */
int job_take(Job *j, JobResult *out);
/* 1 while a request is pending or running; *progress gets 0..1. */
int job_busy(Job *j, double *progress);

#endif
