/* worker.h — the one owner of work off the UI thread.
 *
 * Every background task of the program — the slider's solves and their
 * refinement, the compare view's rows, sweeps, batch fits and bounds, the
 * exports, replays and the graph view's layout — runs here through one
 * task shape (TaskOps: run it, hand over its result, free it), with one
 * wake-up descriptor for the main loop and one owner of the graph, which
 * every task reads and nobody copies.
 *
 * Two lanes, each its own thread, so that a minute-long Graphviz export
 * never holds a slider solve: LANE_SOLVE runs solves in order, front tasks
 * (the slider's) before the others, pre-empting a running back task (which
 * is cancelled and queued again at the head); LANE_IO runs the rest in
 * order. The solve lane owns the prepared solvers (an Service) and lends
 * them to its tasks.
 *
 * Every submitted task comes back exactly once through worker_take
 * (finished, or cancelled before or while it ran), so its owner frees it
 * in one place; a task still running when the worker is freed stays with
 * the exiting process.
 */
#ifndef REMAT_WORKER_H
#define REMAT_WORKER_H

#include <stdint.h>

#include "src/base/err.h"
#include "src/graph/graph.h"
#include "src/plan/solver.h"
#include "src/session/service.h"

typedef struct Worker Worker;
typedef uint64_t TaskId;

enum { LANE_SOLVE, LANE_IO, LANE_COUNT };

/* What a running task gets. */
typedef struct TaskCtx {
    const Graph *g;     /* the worker's graph: read-only */
    Service *service;     /* LANE_SOLVE: the prepared solvers; NULL elsewhere */
    Progress *p;        /* the task's cancel flag and progress (0..1) */
    Worker *w;
} TaskCtx;

typedef struct TaskOps {
    const char *name;   /* for status lines: "solve", "export", ... */
    /* On the lane's thread: compute into arg, polling cx->p. A pre-empted
     * task is run again later, so run starts from scratch. */
    void (*run)(void *arg, TaskCtx *cx);
    /* On the owner's thread (from worker_take's caller), once: the result,
     * or cancelled 1 when it was cancelled (or never ran). Optional. */
    void (*done)(void *arg, int cancelled);
    /* Free arg; after done, or at worker_free for a task never taken. */
    void (*free)(void *arg);
} TaskOps;

/* A worker over g (ownership passes in: the worker frees it, or leaves it
 * to a task that cannot be stopped). NULL with e set (g freed) when the
 * pipe or a thread cannot be made. */
Worker *worker_new(Graph *g, Err *e);
const Graph *worker_graph(const Worker *w);
/* Cancel everything, wait at most wait_s seconds (< 0: as long as it
 * takes) for the lanes to stop, free the tasks never taken (ops->free),
 * the service and the graph. Returns 1 when everything was freed; 0 when a
 * task that does not poll its cancel flag was still running: its lane,
 * the graph and the task are then left to the exiting process. */
int worker_free(Worker *w, double wait_s);
/* Readable when a task finished or a running task has news (worker_wake). */
int worker_fd(const Worker *w);

/* Queue a task; front puts it before the lane's other tasks (LANE_SOLVE:
 * and pre-empts a running back task). Returns its id (never 0). */
TaskId worker_submit(Worker *w, int lane, int front, const TaskOps *ops, void *arg);
/* Cancel a task: a queued one comes back through worker_take as cancelled
 * at once; a running one has its cancel flag set. Unknown ids (finished
 * already) are ignored. */
void worker_cancel(Worker *w, TaskId id);
/* A running task has something to show (its own mailbox): wake the owner. */
void worker_wake(TaskCtx *cx);

typedef struct TaskDone {
    TaskId id;
    const TaskOps *ops;
    void *arg;
    int cancelled;
    double secs;        /* run time (0 when it never ran) */
} TaskDone;

/* The next finished task, oldest first: 1 when there was one. Never
 * blocks; drains the wake-up descriptor. */
int worker_take(Worker *w, TaskDone *out);

/* What a lane does now. */
typedef struct LaneStatus {
    int queued;             /* waiting, not running */
    int queued_front;
    TaskId running;         /* 0: idle */
    int running_front;
    const TaskOps *ops;     /* of the running task */
    const void *arg;        /* its argument: read only what the task does not write */
    double since;           /* clock_now() when it started */
    double progress;        /* 0..1, as the task reports it */
} LaneStatus;

void worker_status(Worker *w, int lane, LaneStatus *st);

#endif
